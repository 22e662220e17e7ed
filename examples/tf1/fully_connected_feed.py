"""Train and evaluate the MNIST network of ``mnist.py``, feeding batches through placeholders.

TensorFlow 1's "Mechanics 101" tutorial program, making the same TensorFlow 1 calls; only the
imports say ``tinyflow`` where TensorFlow's say ``tensorflow``:

    python examples/tf1/fully_connected_feed.py --input_data_dir /tmp/mnist_data --max_steps 2000

Summaries for TensorBoard and checkpoints go to ``--log_dir``.  ``--data_dir`` and ``--steps``
are other names for ``--input_data_dir`` and ``--max_steps``; the last line printed is the
precision on the test set, as ``test accuracy: 0.xxxx``.
"""
import argparse
import os
import sys
import tempfile
import time

import mnist

import tinyflow as tf
from tinyflow.examples.tutorials.mnist import input_data

FLAGS = None


def placeholder_inputs(batch_size):
    """Placeholders for one batch of images (floats) and labels (int32 class ids).

    Their first dimension is ``batch_size``: the run loop below feeds them batches of the data
    sets, never whole sets.

    Returns
    -------
    tuple
        ``(images_placeholder, labels_placeholder)``.
    """
    images_placeholder = tf.placeholder(tf.float32, shape=(batch_size, mnist.IMAGE_PIXELS))
    labels_placeholder = tf.placeholder(tf.int32, shape=(batch_size))
    return images_placeholder, labels_placeholder


def fill_feed_dict(data_set, images_pl, labels_pl):
    """The feed dict of the next ``FLAGS.batch_size`` examples of ``data_set``:
    ``{images_pl: images, labels_pl: labels}``."""
    images_feed, labels_feed = data_set.next_batch(FLAGS.batch_size, FLAGS.fake_data)
    return {images_pl: images_feed, labels_pl: labels_feed}


def do_eval(sess, eval_correct, images_placeholder, labels_placeholder, data_set):
    """Count the right predictions over one epoch of ``data_set`` (whole batches) and print
    the precision; returns it."""
    true_count = 0
    steps_per_epoch = data_set.num_examples // FLAGS.batch_size
    num_examples = steps_per_epoch * FLAGS.batch_size
    for _ in range(steps_per_epoch):
        feed_dict = fill_feed_dict(data_set, images_placeholder, labels_placeholder)
        true_count += sess.run(eval_correct, feed_dict=feed_dict)
    precision = float(true_count) / num_examples
    print(f"  Num examples: {num_examples}  Num correct: {true_count}  "
          f"Precision @ 1: {precision:0.04f}")
    return precision


def run_training():
    """Build the graph, train it for ``FLAGS.max_steps`` steps and evaluate it on the three
    data sets at every 1000th step and the last; returns the last test precision."""
    data_sets = input_data.read_data_sets(FLAGS.input_data_dir, FLAGS.fake_data)

    # every op below goes to this graph
    with tf.Graph().as_default():
        images_placeholder, labels_placeholder = placeholder_inputs(FLAGS.batch_size)
        logits = mnist.inference(images_placeholder, FLAGS.hidden1, FLAGS.hidden2)
        loss = mnist.loss(logits, labels_placeholder)
        train_op = mnist.training(loss, FLAGS.learning_rate)
        eval_correct = mnist.evaluation(logits, labels_placeholder)

        # the summaries the model made (the loss), as one op
        summary = tf.summary.merge_all()
        init = tf.global_variables_initializer()
        saver = tf.train.Saver()
        sess = tf.Session()
        summary_writer = tf.summary.FileWriter(FLAGS.log_dir, sess.graph)

        sess.run(init)
        test_precision = None
        for step in range(FLAGS.max_steps):
            start_time = time.time()
            feed_dict = fill_feed_dict(data_sets.train, images_placeholder, labels_placeholder)
            # train_op's value is None; the loss is fetched in the same run
            _, loss_value = sess.run([train_op, loss], feed_dict=feed_dict)
            duration = time.time() - start_time

            if step % 100 == 0:
                print(f"Step {step}: loss = {loss_value:.2f} ({duration:.3f} sec)")
                summary_str = sess.run(summary, feed_dict=feed_dict)
                summary_writer.add_summary(summary_str, step)
                summary_writer.flush()

            if (step + 1) % 1000 == 0 or (step + 1) == FLAGS.max_steps:
                checkpoint_file = os.path.join(FLAGS.log_dir, "model.ckpt")
                saver.save(sess, checkpoint_file, global_step=step)
                evaluated = {}
                for title, data_set in (("Training", data_sets.train),
                                        ("Validation", data_sets.validation),
                                        ("Test", data_sets.test)):
                    print(f"{title} Data Eval:")
                    evaluated[title] = do_eval(sess, eval_correct, images_placeholder,
                                               labels_placeholder, data_set)
                test_precision = evaluated["Test"]
        summary_writer.close()
        return test_precision


def main(_):
    if tf.gfile.Exists(FLAGS.log_dir):
        tf.gfile.DeleteRecursively(FLAGS.log_dir)
    tf.gfile.MakeDirs(FLAGS.log_dir)
    test_precision = run_training()
    if test_precision is not None:
        print(f"test accuracy: {test_precision:0.04f}")


def _parser():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learning_rate", type=float, default=0.01,
                        help="Initial learning rate.")
    parser.add_argument("--max_steps", "--steps", dest="max_steps", type=int, default=2000,
                        help="Number of steps to run trainer.")
    parser.add_argument("--hidden1", type=int, default=128,
                        help="Number of units in hidden layer 1.")
    parser.add_argument("--hidden2", type=int, default=32,
                        help="Number of units in hidden layer 2.")
    parser.add_argument("--batch_size", type=int, default=100,
                        help="Batch size.  Must divide evenly into the dataset sizes.")
    tmp = os.getenv("TEST_TMPDIR", tempfile.gettempdir())
    parser.add_argument("--input_data_dir", "--data_dir", dest="input_data_dir", type=str,
                        default=os.path.join(tmp, "tensorflow/mnist/input_data"),
                        help="Directory to put the input data.")
    parser.add_argument("--log_dir", type=str,
                        default=os.path.join(tmp, "tinyflow/mnist/logs/fully_connected_feed"),
                        help="Directory to put the log data.")
    parser.add_argument("--fake_data", default=False, action="store_true",
                        help="If true, uses fake data for unit testing.")
    return parser


if __name__ == "__main__":
    FLAGS, unparsed = _parser().parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
