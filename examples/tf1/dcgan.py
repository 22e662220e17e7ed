"""A small DCGAN on MNIST built with ``tf.layers``, in the style of TensorFlow 1 GAN tutorials.

The generator maps 64 normal noise values through ``tf.layers.dense`` to 7x7x64 maps and two
``tf.layers.conv2d_transpose`` layers (stride 2: 14x14x32, then a 28x28 tanh image), batch
normalization after the first two layers.  The discriminator is two stride-2
``tf.layers.conv2d`` layers with leaky ReLUs and a ``tf.layers.dense`` logit; it is applied to
real and to generated images with shared variables (``reuse``).  Each network has its own Adam
optimizer over its own variables (``tf.trainable_variables()`` filtered by scope), losses from
``tf.nn.sigmoid_cross_entropy_with_logits``; the generator's batch-norm updates
(``tf.GraphKeys.UPDATE_OPS``) run with its step.  Only the import differs:

    python examples/tf1/dcgan.py --data_dir /tmp/mnist_data --steps 150

At the end it prints both losses, then as ``test accuracy`` how well the discriminator tells
the real test images from as many generated ones (0.5: it cannot).
"""
import argparse
import sys

import numpy as np

import tinyflow as tf
from tinyflow.examples.tutorials.mnist import input_data

FLAGS = None
NOISE = 64


def generator(z, training):
    """``z`` [batch, NOISE] -> images [batch, 28, 28, 1] in [-1, 1]."""
    with tf.variable_scope("generator"):
        hidden = tf.layers.dense(z, 7 * 7 * 64, use_bias=False)
        hidden = tf.nn.relu(tf.layers.batch_normalization(hidden, training=training))
        hidden = tf.reshape(hidden, [-1, 7, 7, 64])
        hidden = tf.layers.conv2d_transpose(hidden, 32, 5, strides=2, padding="same",
                                            use_bias=False)  # 14x14x32
        hidden = tf.nn.relu(tf.layers.batch_normalization(hidden, training=training))
        return tf.layers.conv2d_transpose(hidden, 1, 5, strides=2, padding="same",
                                          activation=tf.nn.tanh)  # 28x28x1


def discriminator(images, reuse=False):
    """``images`` [batch, 28, 28, 1] -> one logit each: real (> 0) or generated."""
    with tf.variable_scope("discriminator", reuse=reuse):
        hidden = tf.nn.leaky_relu(tf.layers.conv2d(images, 32, 5, strides=2, padding="same"))
        hidden = tf.nn.leaky_relu(tf.layers.conv2d(hidden, 64, 5, strides=2, padding="same"))
        return tf.layers.dense(tf.layers.flatten(hidden), 1)


def main(_):
    mnist = input_data.read_data_sets(FLAGS.data_dir, one_hot=True)
    tf.set_random_seed(1)

    real = tf.placeholder(tf.float32, [None, 784])
    z = tf.placeholder(tf.float32, [None, NOISE])
    training = tf.placeholder(tf.bool, [], name="training")
    fake = generator(z, training)
    real_logits = discriminator(tf.reshape(real, [-1, 28, 28, 1]) * 2.0 - 1.0)
    fake_logits = discriminator(fake, reuse=True)

    def xent(logits, label):
        return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            labels=tf.ones_like(logits) * label, logits=logits))
    d_loss = xent(real_logits, 1.0) + xent(fake_logits, 0.0)
    g_loss = xent(fake_logits, 1.0)
    variables = tf.trainable_variables()
    d_vars = [v for v in variables if v.name.startswith("discriminator/")]
    g_vars = [v for v in variables if v.name.startswith("generator/")]
    d_step = tf.train.AdamOptimizer(2e-4, beta1=0.5).minimize(d_loss, var_list=d_vars)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        g_step = tf.train.AdamOptimizer(2e-4, beta1=0.5).minimize(g_loss, var_list=g_vars)

    rng = np.random.default_rng(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(FLAGS.steps):
            batch = mnist.train.next_batch(64)[0]
            noise = rng.standard_normal((64, NOISE)).astype(np.float32)
            feed = {real: batch, z: noise, training: True}
            losses = sess.run([d_step, d_loss], feed)[1:] + sess.run([g_step, g_loss], feed)[1:]
            if i % 100 == 0:
                print(f"step {i}, discriminator loss {losses[0]:g}, generator loss "
                      f"{losses[1]:g}")
        images = mnist.test.images
        noise = rng.standard_normal((len(images), NOISE)).astype(np.float32)
        feed = {real: images, z: noise, training: False}
        real_out, fake_out, d_value, g_value = sess.run(
            [real_logits, fake_logits, d_loss, g_loss], feed)
        print(f"discriminator loss {d_value:g}, generator loss {g_value:g}")
        right = np.concatenate([real_out > 0, fake_out <= 0])
        print(f"test accuracy: {right.mean():g}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="/tmp/tensorflow/mnist/input_data",
                        help="Directory for storing input data")
    parser.add_argument("--steps", type=int, default=150, help="Training steps")
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
