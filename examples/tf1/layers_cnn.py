"""A convolutional MNIST classifier built with ``tf.layers``, batch normalization included.

Two 5x5 convolutions (``tf.layers.conv2d``, 16 then 32 feature maps), each batch-normalised
(``tf.layers.batch_normalization``, ``training`` a bool placeholder) and max-pooled
(``tf.layers.max_pooling2d``), then a 128-unit ``tf.layers.dense`` layer with dropout and a
10-way readout.  Batch normalization's moving averages are updated by the ops it adds to
``tf.GraphKeys.UPDATE_OPS``, run with every training step through
``tf.control_dependencies``, as TensorFlow 1 programs must.  Only the import differs:

    python examples/tf1/layers_cnn.py --data_dir /tmp/mnist_data --steps 500

The test set is scored in slices of 1000 images with the moving statistics (training False).
"""
import argparse
import sys

import numpy as np

import tinyflow as tf
from tinyflow.examples.tutorials.mnist import input_data

FLAGS = None


def cnn(x, training):
    """``x`` [batch, 784] -> logits [batch, 10]."""
    hidden = tf.reshape(x, [-1, 28, 28, 1])
    for filters in (16, 32):  # 28x28 -> 14x14 -> 7x7
        hidden = tf.layers.conv2d(hidden, filters, 5, padding="same", use_bias=False)
        hidden = tf.layers.batch_normalization(hidden, training=training)
        hidden = tf.layers.max_pooling2d(tf.nn.relu(hidden), pool_size=2, strides=2)
    hidden = tf.layers.dense(tf.layers.flatten(hidden), 128, activation=tf.nn.relu)
    hidden = tf.layers.dropout(hidden, rate=0.4, training=training)
    return tf.layers.dense(hidden, 10)


def main(_):
    mnist = input_data.read_data_sets(FLAGS.data_dir, one_hot=True)

    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.float32, [None, 10])
    training = tf.placeholder(tf.bool, [], name="training")
    logits = cnn(x, training)

    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=logits))
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train_step = tf.train.AdamOptimizer(1e-3).minimize(loss)
    correct = tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1)), tf.float32)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(FLAGS.steps):
            batch_xs, batch_ys = mnist.train.next_batch(50)
            _, batch_loss = sess.run([train_step, loss],
                                     {x: batch_xs, y_: batch_ys, training: True})
            if i % 100 == 0:
                print(f"step {i}, training loss {batch_loss:g}")
        images, labels = mnist.test.images, mnist.test.labels
        scores = [sess.run(correct, {x: images[i:i + 1000], y_: labels[i:i + 1000],
                                     training: False}) for i in range(0, len(images), 1000)]
        print(f"test accuracy: {np.concatenate(scores).mean():g}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="/tmp/tensorflow/mnist/input_data",
                        help="Directory for storing input data")
    parser.add_argument("--steps", type=int, default=500, help="Training steps")
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
