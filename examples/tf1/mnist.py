"""The MNIST network of TensorFlow 1's "TensorFlow Mechanics 101" tutorial, as a module.

Model building in four steps, each adding ops to the default graph:

1. ``inference()`` -- the forward pass: two ReLU layers and a linear layer giving logits;
2. ``loss()`` -- the cross-entropy of the logits against the labels;
3. ``training()`` -- the ops that compute and apply the gradients;
4. ``evaluation()`` -- how many predictions are right.

``fully_connected_feed.py`` imports it; it is not a program.  It uses the TensorFlow 1 API
only: the same calls as TensorFlow's ``mnist.py``, with ``import tinyflow as tf``.
"""
import math

import tinyflow as tf

# ten classes, the digits 0 to 9
NUM_CLASSES = 10

# MNIST images are 28 x 28 grey pixels, given flat
IMAGE_SIZE = 28
IMAGE_PIXELS = IMAGE_SIZE * IMAGE_SIZE


def _layer(inputs, fan_in, units):
    """Weights (truncated normal, stddev 1 / sqrt(fan_in)) and zero biases of one layer, in
    the current name scope; returns ``inputs @ weights + biases``."""
    weights = tf.Variable(
        tf.truncated_normal([fan_in, units], stddev=1.0 / math.sqrt(float(fan_in))),
        name="weights")
    biases = tf.Variable(tf.zeros([units]), name="biases")
    return tf.matmul(inputs, weights) + biases


def inference(images, hidden1_units, hidden2_units):
    """The model, as far as needed to predict.

    Parameters
    ----------
    images : Tensor
        The images placeholder, ``[batch, IMAGE_PIXELS]``.
    hidden1_units, hidden2_units : int
        Widths of the two hidden layers.

    Returns
    -------
    Tensor
        The logits, ``[batch, NUM_CLASSES]``.
    """
    with tf.name_scope("hidden1"):
        hidden1 = tf.nn.relu(_layer(images, IMAGE_PIXELS, hidden1_units))
    with tf.name_scope("hidden2"):
        hidden2 = tf.nn.relu(_layer(hidden1, hidden1_units, hidden2_units))
    with tf.name_scope("softmax_linear"):
        logits = _layer(hidden2, hidden2_units, NUM_CLASSES)
    return logits


def loss(logits, labels):
    """The mean cross-entropy of ``logits`` against class ids ``labels`` (int32, ``[batch]``).

    Returns
    -------
    Tensor
        The loss, a float scalar.
    """
    labels = tf.to_int64(labels)
    return tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)


def training(loss, learning_rate):
    """The op training the model one step by gradient descent on ``loss``.

    A scalar summary of the loss is recorded for TensorBoard, and the step counter
    ``global_step`` counts the steps taken.

    Parameters
    ----------
    loss : Tensor
        The loss, from ``loss()``.
    learning_rate : float
        The gradient descent step size.

    Returns
    -------
    Operation
        The training op, to give to ``sess.run()``.
    """
    tf.summary.scalar("loss", loss)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    global_step = tf.Variable(0, name="global_step", trainable=False)
    # one op: apply the gradients, then count the step
    return optimizer.minimize(loss, global_step=global_step)


def evaluation(logits, labels):
    """How many of the batch's examples are classified right.

    Parameters
    ----------
    logits : Tensor
        ``[batch, NUM_CLASSES]`` floats.
    labels : Tensor
        ``[batch]`` int32 class ids in ``[0, NUM_CLASSES)``.

    Returns
    -------
    Tensor
        An int32 scalar: the number of examples whose label is the top logit.
    """
    # in_top_k with k=1: True where the label's logit is the largest
    correct = tf.nn.in_top_k(logits, labels, 1)
    return tf.reduce_sum(tf.cast(correct, tf.int32))
