"""An LSTM classifier reading MNIST images row by row, in the style of TensorFlow 1's classic
recurrent-network example (``tf.contrib.rnn``'s BasicLSTMCell and static_rnn).

Each 28x28 image is a sequence of 28 time steps of 28 pixels; a 128-unit LSTM reads it and its
last output goes through a dense layer to 10 logits, trained with Adam.  Only the imports
differ from a TensorFlow 1 program (``import tensorflow as tf``,
``from tensorflow.contrib import rnn``):

    python examples/tf1/mnist_lstm.py --data_dir /tmp/mnist_data --steps 1000

The test set is scored in slices of 2000 images.
"""
import argparse
import sys
import time

import numpy as np

import tinyflow as tf
from tinyflow.frontend.contrib import rnn
from tinyflow.examples.tutorials.mnist import input_data

FLAGS = None

LEARNING_RATE = 0.005
BATCH_SIZE = 128
NUM_INPUT = 28    # pixels in a row: the input at each time step
TIMESTEPS = 28    # rows
NUM_HIDDEN = 128  # LSTM units
NUM_CLASSES = 10


def lstm_network(x):
    """``x`` [batch, 28, 28] -> logits [batch, 10]: an LSTM over the rows, its last output
    through a dense layer."""
    rows = tf.unstack(x, TIMESTEPS, 1)  # 28 tensors [batch, 28], one per time step
    lstm_cell = rnn.BasicLSTMCell(NUM_HIDDEN, forget_bias=1.0)
    outputs, _ = rnn.static_rnn(lstm_cell, rows, dtype=tf.float32)
    weights = tf.Variable(tf.random_normal([NUM_HIDDEN, NUM_CLASSES], stddev=0.1))
    biases = tf.Variable(tf.zeros([NUM_CLASSES]))
    return tf.matmul(outputs[-1], weights) + biases


def main(_):
    mnist = input_data.read_data_sets(FLAGS.data_dir, one_hot=True)

    x = tf.placeholder(tf.float32, [None, TIMESTEPS, NUM_INPUT])
    y = tf.placeholder(tf.float32, [None, NUM_CLASSES])
    logits = lstm_network(x)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=y))
    train_op = tf.train.AdamOptimizer(LEARNING_RATE).minimize(loss)
    correct = tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1)), tf.float32)
    accuracy = tf.reduce_mean(correct)

    def rows(images):
        return images.reshape((-1, TIMESTEPS, NUM_INPUT))

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        start = time.time()
        for step in range(FLAGS.steps):
            batch_x, batch_y = mnist.train.next_batch(BATCH_SIZE)
            feed = {x: rows(batch_x), y: batch_y}
            if step % 100 == 0 or step == FLAGS.steps - 1:
                batch_loss, batch_accuracy = sess.run([loss, accuracy], feed)
                print(f"step {step}, minibatch loss {batch_loss:.4f}, training accuracy "
                      f"{batch_accuracy:.3f} ({time.time() - start:.0f} s)")
            sess.run(train_op, feed)

        images, labels = mnist.test.images, mnist.test.labels
        scores = [sess.run(correct, {x: rows(images[i:i + 2000]), y: labels[i:i + 2000]})
                  for i in range(0, len(images), 2000)]
        print(f"test accuracy: {np.concatenate(scores).mean():g}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="/tmp/tensorflow/mnist/input_data",
                        help="Directory for storing input data")
    parser.add_argument("--steps", type=int, default=1000, help="Training steps")
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
