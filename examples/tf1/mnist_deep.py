"""A convolutional MNIST classifier in the style of TensorFlow 1's "Deep MNIST for Experts".

Two 5x5 convolutions with ReLU and 2x2 max pooling (32 then 64 feature maps), a 1024-unit
fully connected layer with dropout, and a 10-way readout trained with Adam.  Only the imports
differ from a TensorFlow 1 program (``import tensorflow as tf``):

    python examples/tf1/mnist_deep.py --data_dir /tmp/mnist_data --steps 20000

The graph is written for TensorBoard to a new temporary folder (under ``$TEST_TMPDIR`` if
set).  The test set is scored in slices of 1000 images so the convolutions never hold all
10,000 at once.
"""
import argparse
import os
import sys
import tempfile

import numpy as np

import tinyflow as tf
from tinyflow.examples.tutorials.mnist import input_data

FLAGS = None


def weight_variable(shape):
    """Weights drawn from a truncated normal, so no two units start alike."""
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1))


def bias_variable(shape):
    """Slightly positive biases keep the ReLUs alive at the start."""
    return tf.Variable(tf.constant(0.1, shape=shape))


def conv2d(x, W):
    """A stride-1 convolution whose output keeps the input's height and width."""
    return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")


def max_pool_2x2(x):
    """Halve the height and width, keeping the largest value of each 2x2 block."""
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


def deepnn(x):
    """The network: ``x`` [batch, 784] -> (logits [batch, 10], keep_prob placeholder)."""
    with tf.name_scope("reshape"):
        x_image = tf.reshape(x, [-1, 28, 28, 1])  # grey images: one channel

    with tf.name_scope("conv1"):  # 28x28x1 -> 28x28x32
        W_conv1 = weight_variable([5, 5, 1, 32])
        b_conv1 = bias_variable([32])
        h_conv1 = tf.nn.relu(conv2d(x_image, W_conv1) + b_conv1)
    with tf.name_scope("pool1"):  # -> 14x14x32
        h_pool1 = max_pool_2x2(h_conv1)

    with tf.name_scope("conv2"):  # -> 14x14x64
        W_conv2 = weight_variable([5, 5, 32, 64])
        b_conv2 = bias_variable([64])
        h_conv2 = tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2)
    with tf.name_scope("pool2"):  # -> 7x7x64
        h_pool2 = max_pool_2x2(h_conv2)

    with tf.name_scope("fc1"):
        W_fc1 = weight_variable([7 * 7 * 64, 1024])
        b_fc1 = bias_variable([1024])
        h_pool2_flat = tf.reshape(h_pool2, [-1, 7 * 7 * 64])
        h_fc1 = tf.nn.relu(tf.matmul(h_pool2_flat, W_fc1) + b_fc1)

    with tf.name_scope("dropout"):  # fed 0.5 while training, 1.0 to evaluate
        keep_prob = tf.placeholder(tf.float32)
        h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)

    with tf.name_scope("fc2"):
        W_fc2 = weight_variable([1024, 10])
        b_fc2 = bias_variable([10])
        y_conv = tf.matmul(h_fc1_drop, W_fc2) + b_fc2
    return y_conv, keep_prob


def main(_):
    mnist = input_data.read_data_sets(FLAGS.data_dir, one_hot=True)

    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.float32, [None, 10])
    y_conv, keep_prob = deepnn(x)

    with tf.name_scope("loss"):
        cross_entropy = tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y_conv)
    cross_entropy = tf.reduce_mean(cross_entropy)
    with tf.name_scope("adam_optimizer"):
        train_step = tf.train.AdamOptimizer(1e-4).minimize(cross_entropy)
    with tf.name_scope("accuracy"):
        correct_prediction = tf.cast(tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1)),
                                     tf.float32)
    accuracy = tf.reduce_mean(correct_prediction)

    graph_location = tempfile.mkdtemp(dir=os.getenv("TEST_TMPDIR"))  # tests set TEST_TMPDIR
    print(f"Saving graph to: {graph_location}")
    train_writer = tf.summary.FileWriter(graph_location)
    train_writer.add_graph(tf.get_default_graph())
    train_writer.close()

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(FLAGS.steps):
            batch = mnist.train.next_batch(50)
            if i % 100 == 0:
                train_accuracy = accuracy.eval(feed_dict={x: batch[0], y_: batch[1],
                                                          keep_prob: 1.0})
                print(f"step {i}, training accuracy {train_accuracy:g}")
            train_step.run(feed_dict={x: batch[0], y_: batch[1], keep_prob: 0.5})

        images, labels = mnist.test.images, mnist.test.labels
        correct = [sess.run(correct_prediction, feed_dict={
            x: images[i:i + 1000], y_: labels[i:i + 1000], keep_prob: 1.0})
            for i in range(0, len(images), 1000)]
        print(f"test accuracy: {np.concatenate(correct).mean():g}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="/tmp/tensorflow/mnist/input_data",
                        help="Directory for storing input data")
    parser.add_argument("--steps", type=int, default=20000, help="Training steps")
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
