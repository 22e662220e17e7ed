"""A multilayer perceptron on MNIST built from ``tf.keras.layers`` objects inside a TensorFlow 1
graph program, as TF 1.15 programs often wrote it: Keras layers, a Keras loss, a ``tf.train``
optimizer and a ``tf.Session`` loop.  Dropout follows Keras' learning phase (fed True while
training; its default, False, for evaluation).  Only the import differs from a TensorFlow 1
program:

    python examples/tf1/keras_mlp.py --data_dir /tmp/mnist_data --steps 2000
"""
import argparse
import sys

import tinyflow as tf
from tinyflow.examples.tutorials.mnist import input_data

FLAGS = None


def main(_):
    mnist = input_data.read_data_sets(FLAGS.data_dir)

    x = tf.placeholder(tf.float32, [None, 784])
    y = tf.placeholder(tf.int64, [None])
    h = tf.keras.layers.Dense(128, activation="relu")(x)
    logits = tf.keras.layers.Dense(10)(tf.keras.layers.Dropout(0.2)(h))
    loss = tf.reduce_mean(
        tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
    train_step = tf.train.AdamOptimizer(1e-3).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    learning_phase = tf.keras.backend.learning_phase()

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(FLAGS.steps):
            batch_xs, batch_ys = mnist.train.next_batch(100)
            if i % 500 == 0:
                print(f"step {i}, loss {sess.run(loss, {x: batch_xs, y: batch_ys}):g}")
            sess.run(train_step, {x: batch_xs, y: batch_ys, learning_phase: True})
        test = {x: mnist.test.images, y: mnist.test.labels}
        print(f"test accuracy: {sess.run(accuracy, test):g}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="/tmp/tensorflow/mnist/input_data",
                        help="Directory for storing input data")
    parser.add_argument("--steps", type=int, default=2000, help="Training steps")
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
