"""A two-layer MNIST classifier that shows every TensorBoard dashboard, in TensorFlow 1's style.

Name scopes group the graph (input, layer1, dropout, layer2, cross_entropy, train, accuracy);
each layer's weights, biases and activations get scalar and histogram summaries, the input
images an image summary.  Every 10th step scores the test set and writes its summaries under
``<log_dir>/test``; the other steps train and write under ``<log_dir>/train``, every 100th with
a full trace of the run (TensorBoard's per-op compute times).  Only the imports differ from a
TensorFlow 1 program (``import tensorflow as tf``):

    python examples/tf1/mnist_with_summaries.py --data_dir /tmp/mnist_data --max_steps 1000
    tensorboard --logdir /tmp/tensorflow/mnist/logs/mnist_with_summaries

``--steps`` is another name for ``--max_steps``; ``--log_dir`` defaults to a folder under
``$TEST_TMPDIR`` (else the system's temporary folder), emptied first.
"""
import argparse
import os
import sys
import tempfile

import tinyflow as tf
from tinyflow.examples.tutorials.mnist import input_data

FLAGS = None


def variable_summaries(var):
    """Mean, standard deviation, extremes and histogram of ``var``, under ``summaries/``."""
    with tf.name_scope("summaries"):
        mean = tf.reduce_mean(var)
        tf.summary.scalar("mean", mean)
        with tf.name_scope("stddev"):
            stddev = tf.sqrt(tf.reduce_mean(tf.square(var - mean)))
        tf.summary.scalar("stddev", stddev)
        tf.summary.scalar("max", tf.reduce_max(var))
        tf.summary.scalar("min", tf.reduce_min(var))
        tf.summary.histogram("histogram", var)


def nn_layer(input_tensor, input_dim, output_dim, layer_name, act=tf.nn.relu):
    """``act(input_tensor W + b)`` in its own name scope, with summaries of W, b and the
    activations before and after ``act``."""
    with tf.name_scope(layer_name):
        with tf.name_scope("weights"):
            weights = tf.Variable(tf.truncated_normal([input_dim, output_dim], stddev=0.1))
            variable_summaries(weights)
        with tf.name_scope("biases"):
            biases = tf.Variable(tf.constant(0.1, shape=[output_dim]))
            variable_summaries(biases)
        with tf.name_scope("Wx_plus_b"):
            preactivate = tf.matmul(input_tensor, weights) + biases
            tf.summary.histogram("pre_activations", preactivate)
        activations = act(preactivate, name="activation")
        tf.summary.histogram("activations", activations)
        return activations


def train():
    mnist = input_data.read_data_sets(FLAGS.data_dir, fake_data=FLAGS.fake_data)
    sess = tf.InteractiveSession()

    with tf.name_scope("input"):
        x = tf.placeholder(tf.float32, [None, 784], name="x-input")
        y_ = tf.placeholder(tf.int64, [None], name="y-input")  # class numbers, not one-hot
    with tf.name_scope("input_reshape"):
        tf.summary.image("input", tf.reshape(x, [-1, 28, 28, 1]), 10)

    hidden1 = nn_layer(x, 784, 500, "layer1")
    with tf.name_scope("dropout"):
        keep_prob = tf.placeholder(tf.float32)
        tf.summary.scalar("dropout_keep_probability", keep_prob)
        dropped = tf.nn.dropout(hidden1, rate=1 - keep_prob)
    y = nn_layer(dropped, 500, 10, "layer2", act=tf.identity)  # logits: the loss applies softmax

    with tf.name_scope("cross_entropy"), tf.name_scope("total"):
        cross_entropy = tf.losses.sparse_softmax_cross_entropy(labels=y_, logits=y)
    tf.summary.scalar("cross_entropy", cross_entropy)
    with tf.name_scope("train"):
        train_step = tf.train.AdamOptimizer(FLAGS.learning_rate).minimize(cross_entropy)
    with tf.name_scope("accuracy"):
        with tf.name_scope("correct_prediction"):
            correct_prediction = tf.equal(tf.argmax(y, 1), y_)
        with tf.name_scope("accuracy"):
            accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    tf.summary.scalar("accuracy", accuracy)

    merged = tf.summary.merge_all()
    train_writer = tf.summary.FileWriter(FLAGS.log_dir + "/train", sess.graph)
    test_writer = tf.summary.FileWriter(FLAGS.log_dir + "/test")
    tf.global_variables_initializer().run()

    def feed_dict(training):
        """A training batch with dropout, or the whole test set without."""
        if training or FLAGS.fake_data:
            xs, ys = mnist.train.next_batch(100, fake_data=FLAGS.fake_data)
            return {x: xs, y_: ys, keep_prob: FLAGS.dropout}
        return {x: mnist.test.images, y_: mnist.test.labels, keep_prob: 1.0}

    for i in range(FLAGS.max_steps):
        if i % 10 == 0:  # test-set accuracy and summaries
            summary, acc = sess.run([merged, accuracy], feed_dict=feed_dict(False))
            test_writer.add_summary(summary, i)
            print(f"Accuracy at step {i}: {acc}")
        elif i % 100 == 99:  # train, tracing every op of the run
            run_options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
            run_metadata = tf.RunMetadata()
            summary, _ = sess.run([merged, train_step], feed_dict=feed_dict(True),
                                  options=run_options, run_metadata=run_metadata)
            train_writer.add_run_metadata(run_metadata, f"step{i:03d}")
            train_writer.add_summary(summary, i)
            print("Adding run metadata for", i)
        else:  # train and record the summaries
            summary, _ = sess.run([merged, train_step], feed_dict=feed_dict(True))
            train_writer.add_summary(summary, i)
    train_writer.close()
    test_writer.close()
    print("test accuracy:", sess.run(accuracy, feed_dict=feed_dict(False)))


def main(_):
    if tf.gfile.Exists(FLAGS.log_dir):
        tf.gfile.DeleteRecursively(FLAGS.log_dir)
    tf.gfile.MakeDirs(FLAGS.log_dir)
    with tf.Graph().as_default():
        train()


if __name__ == "__main__":
    tmp = os.getenv("TEST_TMPDIR", tempfile.gettempdir())
    parser = argparse.ArgumentParser()
    parser.add_argument("--fake_data", nargs="?", const=True, type=bool, default=False,
                        help="If true, uses fake data for unit testing.")
    parser.add_argument("--max_steps", "--steps", type=int, default=1000,
                        help="Number of steps to run trainer.")
    parser.add_argument("--learning_rate", type=float, default=0.001,
                        help="Initial learning rate")
    parser.add_argument("--dropout", type=float, default=0.9,
                        help="Keep probability for training dropout.")
    parser.add_argument("--data_dir", type=str,
                        default=os.path.join(tmp, "tensorflow/mnist/input_data"),
                        help="Directory for storing input data")
    parser.add_argument("--log_dir", type=str,
                        default=os.path.join(tmp, "tensorflow/mnist/logs/mnist_with_summaries"),
                        help="Summaries log directory")
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
