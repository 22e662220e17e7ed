"""An MNIST classifier trained in a ``tf.train.MonitoredTrainingSession`` loop with hooks over a
``tf.data`` pipeline, in the style of TensorFlow 1.x's ``cifar10_train.py``: the session
initialises the model (or restores it from ``--log_dir``), saves checkpoints and summaries
there, and its hooks stop at ``--steps`` (``StopAtStepHook``), log the loss and step
(``LoggingTensorHook``), stop on a NaN loss (``NanTensorHook``) and print the examples per
second (a ``SessionRunHook`` of the program's own).  Only the import differs:

    python examples/tf1/monitored_training.py --data_dir /tmp/mnist_data --steps 2000

A two-layer perceptron (256 and 128 ReLU units) trained with momentum on batches of 100
shuffled images from a one-shot iterator; the test set is then scored from the last checkpoint
in a ``SingularMonitoredSession``, through the same layers fed by a placeholder.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

import tinyflow as tf
from tinyflow.examples.tutorials.mnist import input_data

FLAGS = None
BATCH_SIZE = 100


def inference(images):
    """Logits of ``images`` [batch, 784]; the variables are shared by every call."""
    with tf.variable_scope("mlp", reuse=tf.AUTO_REUSE):
        hidden1 = tf.layers.dense(images, 256, activation=tf.nn.relu, name="hidden1")
        hidden2 = tf.layers.dense(hidden1, 128, activation=tf.nn.relu, name="hidden2")
        return tf.layers.dense(hidden2, 10, name="softmax_linear")


def train_dataset(images, labels):
    """Batches of shuffled training examples, repeated for as long as training asks."""
    dataset = tf.data.Dataset.from_tensor_slices((images, labels.astype(np.int64)))
    return dataset.shuffle(buffer_size=10000).repeat().batch(BATCH_SIZE)


class ExamplesPerSecondHook(tf.train.SessionRunHook):
    """Logs the loss and the examples per second every ``every_n`` steps (cifar10_train's
    ``_LoggerHook``)."""

    def __init__(self, loss, every_n):
        self._loss, self._every_n = loss, every_n

    def begin(self):
        self._step = -1
        self._start_time = time.time()

    def before_run(self, run_context):
        self._step += 1
        return tf.train.SessionRunArgs(self._loss)  # asks for the loss

    def after_run(self, run_context, run_values):
        if self._step % self._every_n == 0 and self._step > 0:
            duration = time.time() - self._start_time
            self._start_time = time.time()
            print(f"step {self._step}, loss = {run_values.results:.3f} "
                  f"({self._every_n * BATCH_SIZE / duration:.0f} examples/sec)")


def main(_):
    mnist = input_data.read_data_sets(FLAGS.data_dir)
    if tf.gfile.Exists(FLAGS.log_dir):
        tf.gfile.DeleteRecursively(FLAGS.log_dir)

    global_step = tf.train.get_or_create_global_step()
    images, labels = train_dataset(mnist.train.images,
                                   mnist.train.labels).make_one_shot_iterator().get_next()
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=inference(images))
    tf.summary.scalar("loss", loss)
    train_op = tf.train.MomentumOptimizer(0.05, momentum=0.9).minimize(
        loss, global_step=global_step)

    test_images = tf.placeholder(tf.float32, [None, 784], name="test_images")
    test_labels = tf.placeholder(tf.int64, [None], name="test_labels")
    correct = tf.equal(tf.argmax(inference(test_images), 1), test_labels)
    correct_count = tf.reduce_sum(tf.cast(correct, tf.int32))

    hooks = [tf.train.StopAtStepHook(last_step=FLAGS.steps),
             tf.train.NanTensorHook(loss),
             tf.train.LoggingTensorHook({"step": global_step, "loss": loss}, every_n_iter=500),
             ExamplesPerSecondHook(loss, every_n=500)]
    with tf.train.MonitoredTrainingSession(checkpoint_dir=FLAGS.log_dir, hooks=hooks,
                                           save_summaries_steps=100,
                                           log_step_count_steps=500) as mon_sess:
        while not mon_sess.should_stop():
            mon_sess.run(train_op)

    with tf.train.SingularMonitoredSession(checkpoint_dir=FLAGS.log_dir) as sess:
        print("evaluating the checkpoint of step", sess.run(global_step))
        total = 0
        for start in range(0, mnist.test.num_examples, 1000):
            total += sess.run(correct_count, {
                test_images: mnist.test.images[start:start + 1000],
                test_labels: mnist.test.labels[start:start + 1000]})
    print(f"test accuracy: {total / mnist.test.num_examples:g}")


if __name__ == "__main__":
    tmp = os.getenv("TEST_TMPDIR", tempfile.gettempdir())
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="/tmp/tensorflow/mnist/input_data",
                        help="Directory for storing input data")
    parser.add_argument("--steps", "--max_steps", type=int, default=2000,
                        help="Training steps")
    parser.add_argument("--log_dir", type=str,
                        default=os.path.join(tmp, "tensorflow/mnist/monitored_training"),
                        help="Checkpoints and summaries (emptied first)")
    FLAGS, unparsed = parser.parse_known_args()
    tf.logging.set_verbosity(tf.logging.INFO)
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
