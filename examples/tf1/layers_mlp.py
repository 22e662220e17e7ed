"""A multilayer perceptron on MNIST built with ``tf.layers``, as TensorFlow 1 programs wrote it.

Two ReLU layers of 256 units (``tf.layers.dense``), each followed by ``tf.layers.dropout`` whose
``training`` argument is a bool placeholder (True while training, False to evaluate), and a
10-way readout trained with Adam.  Only the import differs from a TensorFlow 1 program:

    python examples/tf1/layers_mlp.py --data_dir /tmp/mnist_data --steps 2000
"""
import argparse
import sys

import tinyflow as tf
from tinyflow.examples.tutorials.mnist import input_data

FLAGS = None


def mlp(x, training):
    """``x`` [batch, 784] -> logits [batch, 10]; dropout only where ``training`` is True."""
    hidden = x
    for units in (256, 256):
        hidden = tf.layers.dense(hidden, units, activation=tf.nn.relu)
        hidden = tf.layers.dropout(hidden, rate=0.2, training=training)
    return tf.layers.dense(hidden, 10, name="logits")


def main(_):
    mnist = input_data.read_data_sets(FLAGS.data_dir, one_hot=True)

    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.float32, [None, 10])
    training = tf.placeholder(tf.bool, [], name="training")
    logits = mlp(x, training)

    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=logits))
    train_step = tf.train.AdamOptimizer(1e-3).minimize(loss)
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(FLAGS.steps):
            batch_xs, batch_ys = mnist.train.next_batch(100)
            if i % 500 == 0:
                print(f"step {i}, loss {sess.run(loss, {x: batch_xs, y_: batch_ys, training: False}):g}")
            sess.run(train_step, {x: batch_xs, y_: batch_ys, training: True})
        test = {x: mnist.test.images, y_: mnist.test.labels, training: False}
        print(f"test accuracy: {sess.run(accuracy, test):g}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="/tmp/tensorflow/mnist/input_data",
                        help="Directory for storing input data")
    parser.add_argument("--steps", type=int, default=2000, help="Training steps")
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
