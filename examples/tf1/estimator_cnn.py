"""A convolutional MNIST classifier as a ``tf.estimator.Estimator``, in the style of TensorFlow
1.x's "Build a Convolutional Neural Network using Estimators" tutorial (``cnn_mnist.py``) and
its "custom estimator" guide: a ``model_fn`` builds the network with ``tf.layers`` for each
mode, ``input_fn`` s give ``tf.data`` pipelines, and evaluation reports
``tf.metrics.accuracy``.  Only the import differs:

    python examples/tf1/estimator_cnn.py --data_dir /tmp/mnist_data --steps 1000

Two 5x5 convolutions (16 then 32 feature maps, each max-pooled), a 128-unit dense layer with
dropout in training, and a 10-way readout, trained with Adam on batches of 50 shuffled images.
Checkpoints and the loss summaries go to ``--model_dir`` (emptied first); the test set is
evaluated from the last checkpoint in batches of 1000.
"""
import argparse
import os
import sys
import tempfile

import numpy as np

import tinyflow as tf
from tinyflow.examples.tutorials.mnist import input_data

FLAGS = None


def cnn_model_fn(features, labels, mode):
    """The network, its loss and train op (TRAIN), its accuracy (EVAL), its classes
    (PREDICT)."""
    input_layer = tf.reshape(features["x"], [-1, 28, 28, 1])
    conv1 = tf.layers.conv2d(input_layer, filters=16, kernel_size=[5, 5], padding="same",
                             activation=tf.nn.relu)
    pool1 = tf.layers.max_pooling2d(conv1, pool_size=[2, 2], strides=2)
    conv2 = tf.layers.conv2d(pool1, filters=32, kernel_size=[5, 5], padding="same",
                             activation=tf.nn.relu)
    pool2 = tf.layers.max_pooling2d(conv2, pool_size=[2, 2], strides=2)
    dense = tf.layers.dense(tf.reshape(pool2, [-1, 7 * 7 * 32]), units=128,
                            activation=tf.nn.relu)
    dropout = tf.layers.dropout(dense, rate=0.4, training=mode == tf.estimator.ModeKeys.TRAIN)
    logits = tf.layers.dense(dropout, units=10)

    predictions = {"classes": tf.argmax(logits, axis=1),
                   "probabilities": tf.nn.softmax(logits, name="softmax_tensor")}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode=mode, predictions=predictions)

    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.TRAIN:
        optimizer = tf.train.AdamOptimizer(learning_rate=1e-3)
        train_op = optimizer.minimize(loss=loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode=mode, loss=loss, train_op=train_op)

    eval_metric_ops = {"accuracy": tf.metrics.accuracy(labels=labels,
                                                       predictions=predictions["classes"])}
    return tf.estimator.EstimatorSpec(mode=mode, loss=loss, eval_metric_ops=eval_metric_ops)


def train_input_fn(images, labels, batch_size):
    """Shuffled batches of the training set, repeated for as long as training asks."""
    dataset = tf.data.Dataset.from_tensor_slices(({"x": images}, labels))
    return dataset.shuffle(10000).repeat().batch(batch_size)


def eval_input_fn(images, labels, batch_size):
    """The test set once, in order."""
    return tf.data.Dataset.from_tensor_slices(({"x": images}, labels)).batch(batch_size)


def main(_):
    mnist = input_data.read_data_sets(FLAGS.data_dir)
    train_images = mnist.train.images
    train_labels = np.asarray(mnist.train.labels, dtype=np.int32)
    test_images = mnist.test.images
    test_labels = np.asarray(mnist.test.labels, dtype=np.int32)

    if tf.gfile.Exists(FLAGS.model_dir):
        tf.gfile.DeleteRecursively(FLAGS.model_dir)
    classifier = tf.estimator.Estimator(
        model_fn=cnn_model_fn, model_dir=FLAGS.model_dir,
        config=tf.estimator.RunConfig(save_checkpoints_steps=500, log_step_count_steps=100))

    logging_hook = tf.train.LoggingTensorHook(
        tensors={"probabilities": "softmax_tensor"}, every_n_iter=500,
        formatter=lambda values: f"max probability of the first image: "
                                 f"{values['probabilities'][0].max():.3f}")
    classifier.train(input_fn=lambda: train_input_fn(train_images, train_labels, 50),
                     steps=FLAGS.steps, hooks=[logging_hook])

    eval_results = classifier.evaluate(
        input_fn=lambda: eval_input_fn(test_images, test_labels, 1000))
    print(eval_results)
    print(f"test accuracy: {eval_results['accuracy']:g}")


if __name__ == "__main__":
    tmp = os.getenv("TEST_TMPDIR", tempfile.gettempdir())
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="/tmp/tensorflow/mnist/input_data",
                        help="Directory for storing input data")
    parser.add_argument("--steps", type=int, default=1000, help="Training steps")
    parser.add_argument("--model_dir", "--log_dir", type=str,
                        default=os.path.join(tmp, "tensorflow/mnist/estimator_cnn"),
                        help="Checkpoints and summaries (emptied first)")
    FLAGS, unparsed = parser.parse_known_args()
    tf.logging.set_verbosity(tf.logging.INFO)
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
