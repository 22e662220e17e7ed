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


# -- TF 1.15's other losses, against numbers from real TensorFlow ------------------------------
LABELS_2D = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5], [0.25, 1.0, 0.0], [1.0, 1.0, 0.0]],
                     np.float32)
PROBS = np.array([[0.1, 0.8, 0.6], [0.9, 0.3, 0.5], [0.2, 0.7, 0.05], [0.6, 0.99, 0.4]],
                 np.float32)
SCORES = np.array([[-1.5, 0.3, 2.0], [0.7, -0.2, 1.1], [3.0, -2.5, 0.0], [0.4, 1.6, -0.9]],
                  np.float32)
ROW_WEIGHTS = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)
R = losses.Reduction
LOSSES = {  # name -> the loss of (labels, x, weights, reduction); x is PROBS or SCORES
    "absolute_difference": (PROBS, lambda l, x, w, r: losses.absolute_difference(
        l, x, w, reduction=r)),
    "huber_loss": (SCORES, lambda l, x, w, r: losses.huber_loss(l, x, w, delta=0.8,
                                                               reduction=r)),
    "log_loss": (PROBS, lambda l, x, w, r: losses.log_loss(l, x, w, epsilon=1e-4,
                                                          reduction=r)),
    "hinge_loss": (SCORES, lambda l, x, w, r: losses.hinge_loss(l, x, w, reduction=r)),
    "cosine_distance": (PROBS, lambda l, x, w, r: losses.cosine_distance(
        l, x, axis=1, weights=w, reduction=r)),
    "sigmoid_cross_entropy": (SCORES, lambda l, x, w, r: losses.sigmoid_cross_entropy(
        l, x, w, label_smoothing=0.1, reduction=r)),
}
# Real TensorFlow (tf.compat.v1.losses of tensorflow-cpu 2.21, TF 1.15's losses_impl) on
# LABELS_2D, PROBS / SCORES and ROW_WEIGHTS, for the reductions SUM, MEAN,
# SUM_OVER_BATCH_SIZE and SUM_BY_NONZERO_WEIGHTS
TF_REDUCED = {
    "absolute_difference": [1.905, 0.18142857, 0.15875, 0.21166666],
    "huber_loss": [10.705001, 1.0195239, 0.8920834, 1.1894445],
    "log_loss": [3.3089976, 0.31514263, 0.2757498, 0.3676664],
    "hinge_loss": [15.049999, 1.4333333, 1.2541666, 1.6722221],
    "cosine_distance": [-0.19500011, -0.055714317, -0.048750028, -0.065000035],
    "sigmoid_cross_entropy": [12.405479, 1.1814742, 1.03379, 1.3783866],
}
# ... and for Reduction.NONE, the weighted per-element losses' first row and third row
TF_UNREDUCED_ROWS = {
    "absolute_difference": [[0.1, 0.19999999, 0.39999998], [0.099999994, 0.6, 0.1]],
    "huber_loss": [[0.88, 0.24499999, 0.48000002], [3.7600002, 4.96, 0.0]],
    "log_loss": [[0.10524941, 0.22301851, 0.5106589], [1.1389967, 0.71306425, 0.102376066]],
    "hinge_loss": [[0.0, 0.7, 0.0], [5.0, 7.0, 2.0]],
    "cosine_distance": [[-0.4000001], [0.5]],
    "sigmoid_cross_entropy": [[0.27641326, 0.56935525, 0.22692803],
                              [4.4471745, 4.9077797, 1.3862944]],
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_losses_match_tensorflow(name, plan_memory):
    x, make = LOSSES[name]
    reductions = [R.SUM, R.MEAN, R.SUM_OVER_BATCH_SIZE, R.SUM_BY_NONZERO_WEIGHTS]
    fetches = [make(tf.constant(LABELS_2D), tf.constant(x), tf.constant(ROW_WEIGHTS), r)
               for r in [R.NONE] + reductions]
    assert [f.get_shape().as_list() for f in fetches[1:]] == [[]] * 4
    got = _run(fetches, plan_memory=plan_memory)
    np.testing.assert_allclose(got[0][[0, 2]], TF_UNREDUCED_ROWS[name], rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(got[1:], TF_REDUCED[name], rtol=2e-6)


def test_loss_names_and_defaults_as_tensorflow():
    # names and values from real TensorFlow: the default reduction's op is <scope>/value
    huber = losses.huber_loss(LABELS_2D, SCORES)
    assert huber.name == "huber_loss/value:0"
    assert losses.absolute_difference(LABELS_2D, PROBS, reduction=R.NONE).name.startswith(
        "absolute_difference/")
    assert losses.hinge_loss(LABELS_2D, SCORES, scope="mine").name == "mine/value:0"
    got = _run([huber, losses.log_loss(LABELS_2D, PROBS),
                losses.sigmoid_cross_entropy(LABELS_2D, SCORES),
                losses.cosine_distance(LABELS_2D, PROBS, dim=0)])
    np.testing.assert_allclose(got, [0.6670833, 0.3336581, 0.77750427, -0.63], rtol=2e-6)
    assert [t.name for t in losses.get_losses()][:2] == ["huber_loss/value:0",
                                                          "absolute_difference/Mul:0"]


def test_mean_pairwise_squared_error_matches_tensorflow(plan_memory):
    labels_3d = np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 5
    predictions_3d = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.37) % 3
    fetches = [losses.mean_pairwise_squared_error(LABELS_2D, PROBS),
               losses.mean_pairwise_squared_error(LABELS_2D, PROBS, weights=ROW_WEIGHTS),
               losses.mean_pairwise_squared_error(LABELS_2D, PROBS, weights=2.0),
               losses.mean_pairwise_squared_error(labels_3d, predictions_3d,
                                                  weights=[[[1.0]], [[3.0]]]),
               losses.mean_pairwise_squared_error(LABELS_2D[0], PROBS[0])]
    # real TensorFlow's values (a vector has one element per example: no pairs, 0)
    np.testing.assert_allclose(_run(fetches, plan_memory=plan_memory),
                               [0.5984, 0.4167, 1.1968, 23.583055, 0.0], rtol=2e-6)
    assert fetches[0].get_shape().as_list() == []


def _torch_loss(name, labels, x):
    """The same losses in torch (weights ROW_WEIGHTS, the default reduction: 3 rows present)."""
    weights = torch.tensor(ROW_WEIGHTS)
    if name == "absolute_difference":
        per = (x - labels).abs()
    elif name == "huber_loss":
        per = F.huber_loss(x, labels, reduction="none", delta=0.8)
    elif name == "log_loss":
        per = -labels * torch.log(x + 1e-4) - (1 - labels) * torch.log(1 - x + 1e-4)
    elif name == "hinge_loss":
        per = torch.relu(1 - (2 * labels - 1) * x)
    elif name == "cosine_distance":
        per = 1 - (labels * x).sum(dim=1, keepdim=True)
        return (per * weights).sum() / 3
    else:
        per = F.binary_cross_entropy_with_logits(x, labels * 0.9 + 0.05, reduction="none")
    return (per * weights).sum() / 9


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_gradients_match_torch(name, plan_memory):
    x_value, make = LOSSES[name]
    x = tf.placeholder(tf.float32, [4, 3])
    loss = make(tf.constant(LABELS_2D), x, tf.constant(ROW_WEIGHTS), R.SUM_BY_NONZERO_WEIGHTS)
    grad = tf.gradients(loss, [x])[0]
    got_loss, got_grad = _run([loss, grad], {x: x_value}, plan_memory)
    t_x = torch.tensor(x_value, requires_grad=True)
    t_loss = _torch_loss(name, torch.tensor(LABELS_2D), t_x)
    t_loss.backward()
    np.testing.assert_allclose(got_loss, t_loss.item(), rtol=1e-5)
    np.testing.assert_allclose(got_grad, t_x.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_mean_pairwise_squared_error_gradient_matches_torch(plan_memory):
    x = tf.placeholder(tf.float32, [4, 3])
    loss = losses.mean_pairwise_squared_error(LABELS_2D, x, weights=ROW_WEIGHTS)
    got_loss, got_grad = _run([loss, tf.gradients(loss, [x])[0]], {x: PROBS}, plan_memory)
    t_x = torch.tensor(PROBS, requires_grad=True)
    diffs = t_x - torch.tensor(LABELS_2D)
    pairs = (diffs[:, :, None] - diffs[:, None, :]) ** 2  # every ordered pair, i == j adds 0
    t_loss = (pairs.sum(dim=(1, 2)) / (3 * 2) * torch.tensor(ROW_WEIGHTS[:, 0])).sum()
    t_loss.backward()
    np.testing.assert_allclose(got_loss, t_loss.item(), rtol=1e-5)
    np.testing.assert_allclose(got_grad, t_x.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_tf_losses_holds_tensorflows_names_only():
    # TF 1.15's dir(tf.losses), its public names
    assert dir(tf.losses) == [
        "Reduction", "absolute_difference", "add_loss", "compute_weighted_loss",
        "cosine_distance", "get_losses", "get_regularization_loss",
        "get_regularization_losses", "get_total_loss", "hinge_loss", "huber_loss", "log_loss",
        "mean_pairwise_squared_error", "mean_squared_error", "sigmoid_cross_entropy",
        "softmax_cross_entropy", "sparse_softmax_cross_entropy"]
    for leaked in ("nn", "api", "array_ops", "Symbol", "name_scope", "GraphKeys"):
        with pytest.raises(AttributeError, match=f"tf.losses.{leaked} is not supported"):
            getattr(tf.losses, leaked)


def test_new_losses_refuse_wrong_inputs():
    with pytest.raises(ValueError, match=r"weights can not be broadcast to values\. "
                                         r"values\.rank=2\. weights\.rank=1"):
        losses.absolute_difference(LABELS_2D, PROBS, weights=np.ones(4, np.float32))
    with pytest.raises(ValueError, match="Mismatch at dim 0"):
        losses.huber_loss(LABELS_2D, SCORES, weights=tf.ones([2, 3]))
    with pytest.raises(ValueError, match=r"Shapes \(4, 2\) and \(4, 3\) are incompatible"):
        losses.log_loss(LABELS_2D, PROBS[:, :2])
    with pytest.raises(ValueError, match="You must specify argument `axis`"):
        losses.cosine_distance(LABELS_2D, PROBS)
    with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'dim'"):
        losses.cosine_distance(LABELS_2D, PROBS, axis=0, dim=1)
    with pytest.raises(ValueError, match="multi_class_labels must not be None"):
        losses.sigmoid_cross_entropy(None, SCORES)
    with pytest.raises(ValueError, match="predictions must not be None"):
        losses.mean_pairwise_squared_error(LABELS_2D, None)
    with pytest.raises(ValueError, match="rank of .* must be known"):
        losses.mean_pairwise_squared_error(tf.placeholder(tf.float32), PROBS)
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        losses.hinge_loss(LABELS_2D, SCORES, reduction="sum")
    assert losses.get_losses() == []  # nothing half-made joined the collection


def test_weights_given_as_lists_are_checked_too():
    with pytest.raises(ValueError, match="weights can not be broadcast to values"):
        losses.absolute_difference(LABELS_2D, PROBS, weights=[1.0, 0.0, 2.0, 0.5])
    loss = losses.absolute_difference(LABELS_2D, PROBS, weights=ROW_WEIGHTS.tolist())
    np.testing.assert_allclose(_run(loss), TF_REDUCED["absolute_difference"][3], rtol=2e-6)
