"""tf.losses against TensorFlow 1.15's documented reductions, in numpy and torch autograd."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.frontend import losses

pytestmark = pytest.mark.usefixtures("fresh_graph")

RNG = np.random.default_rng(0)
LOGITS = RNG.standard_normal((6, 4)).astype(np.float32)
LABELS = np.array([0, 3, 1, 1, 2, 0])
WEIGHTS = np.array([1.0, 0.0, 2.0, 0.5, 0.0, 3.0], np.float32)


def _xent():
    """Per-example cross-entropy of LOGITS against LABELS, in float64."""
    shifted = LOGITS - LOGITS.max(axis=1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -log_softmax[np.arange(len(LABELS)), LABELS]


def _run(fetches, feeds=None, plan_memory=True):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches, feeds)


@pytest.mark.parametrize("weights, expected", [
    (1.0, lambda x: x.mean()),
    (2.0, lambda x: 2 * x.mean()),  # a nonzero number: every element is present
    (WEIGHTS, lambda x: (WEIGHTS * x).sum() / np.count_nonzero(WEIGHTS)),
    (np.zeros(6, np.float32), lambda x: 0.0),  # nothing present: 0, not nan
])
def test_sparse_softmax_cross_entropy_default_reduction(weights, expected, plan_memory):
    logits = tf.constant(LOGITS)
    weights = weights if isinstance(weights, float) else tf.constant(weights)
    loss = losses.sparse_softmax_cross_entropy(labels=tf.constant(LABELS), logits=logits,
                                               weights=weights)
    assert loss.get_shape().as_list() == [] and loss.dtype == tf.float32
    np.testing.assert_allclose(_run(loss, plan_memory=plan_memory), expected(_xent()),
                               rtol=1e-5)


@pytest.mark.parametrize("reduction, expected", [
    (losses.Reduction.NONE, lambda wx: wx),
    (losses.Reduction.SUM, lambda wx: wx.sum()),
    (losses.Reduction.MEAN, lambda wx: wx.sum() / WEIGHTS.sum()),
    (losses.Reduction.SUM_OVER_BATCH_SIZE, lambda wx: wx.sum() / 6),
    (losses.Reduction.SUM_BY_NONZERO_WEIGHTS, lambda wx: wx.sum() / 4),
])
def test_reductions(reduction, expected):
    loss = losses.sparse_softmax_cross_entropy(
        labels=tf.constant(LABELS, tf.int64), logits=tf.constant(LOGITS),
        weights=tf.constant(WEIGHTS), reduction=reduction)
    np.testing.assert_allclose(_run(loss), expected(WEIGHTS * _xent()), rtol=1e-5)


def test_weighted_gradient_matches_torch(plan_memory):
    # d loss / d logits of sum(w * xent) / count_nonzero(w), against torch autograd
    logits = tf.placeholder(tf.float32, [6, 4])
    loss = losses.sparse_softmax_cross_entropy(labels=tf.constant(LABELS), logits=logits,
                                               weights=tf.constant(WEIGHTS))
    grad = tf.gradients(loss, [logits])[0]
    got_loss, got_grad = _run([loss, grad], {logits: LOGITS}, plan_memory)
    t_logits = torch.tensor(LOGITS, requires_grad=True)
    per_example = F.cross_entropy(t_logits, torch.tensor(LABELS), reduction="none")
    t_loss = (per_example * torch.tensor(WEIGHTS)).sum() / np.count_nonzero(WEIGHTS)
    t_loss.backward()
    np.testing.assert_allclose(got_loss, t_loss.item(), rtol=1e-5)
    np.testing.assert_allclose(got_grad, t_logits.grad.numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("smoothing", [0, 0.2])
def test_softmax_cross_entropy_with_label_smoothing(smoothing):
    onehot = np.eye(4, dtype=np.float32)[LABELS]
    loss = losses.softmax_cross_entropy(tf.constant(onehot), tf.constant(LOGITS),
                                        label_smoothing=smoothing)
    smoothed = onehot * (1 - smoothing) + smoothing / 4
    shifted = LOGITS - LOGITS.max(axis=1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(_run(loss), -(smoothed * log_softmax).sum(axis=1).mean(),
                               rtol=1e-5)


def test_softmax_cross_entropy_gives_no_gradient_to_labels():
    labels = tf.Variable(tf.constant(np.eye(4, dtype=np.float32)[LABELS]))
    loss = losses.softmax_cross_entropy(labels, tf.constant(LOGITS))
    assert tf.gradients(loss, [labels]) == [None]


def test_mean_squared_error():
    labels = RNG.standard_normal((3, 2)).astype(np.float32)
    predictions = RNG.integers(-2, 3, (3, 2)).astype(np.int32)  # cast to float32, as TF
    loss = losses.mean_squared_error(tf.constant(labels), tf.constant(predictions),
                                     weights=tf.constant([[1.0], [0.0], [2.0]]))
    weighted = np.array([[1.0], [0.0], [2.0]]) * (predictions - labels) ** 2
    np.testing.assert_allclose(_run(loss), weighted.sum() / 4, rtol=1e-5)
    with pytest.raises(ValueError, match="incompatible"):
        losses.mean_squared_error(tf.constant(labels), tf.constant(labels[:2]))


def test_collections_and_total_loss():
    a = losses.mean_squared_error(tf.constant([1.0, 2.0]), tf.constant([2.0, 2.0]))
    b = losses.sparse_softmax_cross_entropy(labels=tf.constant(LABELS),
                                            logits=tf.constant(LOGITS))
    losses.mean_squared_error(tf.constant([0.0]), tf.constant([9.0]), loss_collection=None)
    assert losses.get_losses() == [a, b]
    regularization = tf.constant(0.25)
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, regularization)
    assert losses.get_regularization_losses() == [regularization]
    total = losses.get_total_loss()
    without = losses.get_total_loss(add_regularization_losses=False, name="data_loss")
    np.testing.assert_allclose(_run([total, without]),
                               [0.5 + _xent().mean() + 0.25, 0.5 + _xent().mean()], rtol=1e-5)


def test_wrong_inputs_are_refused():
    with pytest.raises(ValueError, match="Invalid Reduction Key mean"):
        losses.compute_weighted_loss(tf.constant([1.0]), reduction="mean")
    with pytest.raises(ValueError, match="labels must not be None"):
        losses.sparse_softmax_cross_entropy(None, tf.constant(LOGITS))
    with pytest.raises(ValueError, match="logits must not be None"):
        losses.softmax_cross_entropy(tf.constant(LOGITS), None)
    with pytest.raises(ValueError, match="No losses found"):
        losses.get_total_loss()
