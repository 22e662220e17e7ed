"""tf.metrics against TensorFlow 1.15's streaming metrics: TF's recorded numbers, numpy formulas,
local variables, collections and names, re-initialisation, shape errors."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")

M = tf.metrics
LABELS = [np.array([1, 0, 1, 1]), np.array([0, 0, 1, 2])]
PREDICTIONS = [np.array([1, 1, 1, 0]), np.array([0, 2, 1, 2])]
WEIGHTS = [np.array([1., .5, 2., 1.]), np.array([0., 1., 1., 3.])]
SCORES = [np.array([.9, .2, .6, .4]), np.array([.1, .7, .8, .3])]
BINARY = [np.array([1, 0, 1, 1]), np.array([0, 0, 1, 0])]
REALS = [np.array([.5, 1.5, 2., -1.]), np.array([3., 0., 1., 2.5])]
HALF_SCORES = [s * .5 for s in SCORES]

# (build, feeds, expected): expected is [value before any update, update_op of batch 1, value,
# update_op of batch 2, value, value after local_variables_initializer()], printed by
# tensorflow-cpu 2.21's tf.compat.v1.metrics (graph mode; the same code as TF 1.15 here) with
# float32/int64 placeholders of shape [4] fed these batches.
TF_RECORDED = {
    "accuracy": (lambda l, p: M.accuracy(l, p), [LABELS, PREDICTIONS],
                 [0.0, 0.5, 0.5, 0.625, 0.625, 0.0]),
    "accuracy_weighted": (lambda l, p, w: M.accuracy(l, p, weights=w),
                          [LABELS, PREDICTIONS, WEIGHTS],
                          [0.0, 0.6666666865, 0.6666666865, 0.7368420958, 0.7368420958, 0.0]),
    "mean": (lambda r: M.mean(r), [REALS], [0.0, 0.75, 0.75, 1.1875, 1.1875, 0.0]),
    "mean_weighted": (lambda r, w: M.mean(r, weights=w), [REALS, WEIGHTS],
                      [0.0, 0.9444444179, 0.9444444179, 1.3421052694, 1.3421052694, 0.0]),
    "precision": (lambda l, p: M.precision(l, p), [BINARY, [p > 0 for p in PREDICTIONS]],
                  [0.0, 0.6666666865, 0.6666666865, 0.5, 0.5, 0.0]),
    "precision_weighted": (lambda l, p, w: M.precision(l, p, weights=w),
                           [BINARY, PREDICTIONS, WEIGHTS],
                           [0.0, 0.8571428656, 0.8571428656, 0.4705882370, 0.4705882370, 0.0]),
    "recall": (lambda l, p: M.recall(l, p), [BINARY, PREDICTIONS],
               [0.0, 0.6666666865, 0.6666666865, 0.75, 0.75, 0.0]),
    "recall_weighted": (lambda l, p, w: M.recall(l, p, weights=w), [BINARY, PREDICTIONS, WEIGHTS],
                        [0.0, 0.75, 0.75, 0.8000000119, 0.8000000119, 0.0]),
    "auc": (lambda l, p: M.auc(l, p), [BINARY, SCORES],
            [0.0, 0.9999990463, 0.9999990463, 0.8749998211, 0.8749998211, 0.0]),
    "auc_weighted": (lambda l, p, w: M.auc(l, p, weights=w), [BINARY, SCORES, WEIGHTS],
                     [0.0, 0.9999979734, 0.9999979734, 0.8666664361, 0.8666664361, 0.0]),
    "auc_pr": (lambda l, p: M.auc(l, p, curve="PR"), [BINARY, SCORES],
               [0.0, 0.9999996423, 0.9999996423, 0.8708331584, 0.8708331584, 0.0]),
    "auc_pr_weighted_10": (
        lambda l, p, w: M.auc(l, p, weights=w, curve="PR", num_thresholds=10),
        [BINARY, SCORES, WEIGHTS],
        [0.0, 0.9999997615, 0.9999997615, 0.8566665649, 0.8566665649, 0.0]),
    "auc_minoring": (lambda l, p: M.auc(l, p, summation_method="minoring"), [BINARY, SCORES],
                     [0.0, 0.9999990463, 0.9999990463, 0.8749998211, 0.8749998211, 0.0]),
    "auc_majoring_7": (
        lambda l, p: M.auc(l, p, summation_method="majoring", num_thresholds=7),
        [BINARY, SCORES], [0.0, 0.9999990463, 0.9999990463, 0.8749998211, 0.8749998211, 0.0]),
    "auc_careful": (
        lambda l, p: M.auc(l, p, curve="PR", summation_method="careful_interpolation"),
        [BINARY, SCORES], [0.0, 1.0, 1.0, 0.8722935914, 0.8722935914, 0.0]),
    "auc_careful_weighted": (
        lambda l, p, w: M.auc(l, p, weights=w, curve="PR",
                              summation_method="careful_interpolation"),
        [BINARY, SCORES, WEIGHTS], [0.0, 1.0, 1.0, 0.8613705635, 0.8613705635, 0.0]),
    "mean_squared_error": (lambda l, p: M.mean_squared_error(l, p), [REALS, HALF_SCORES],
                           [0.0, 1.5731250047, 1.5731250047, 2.625, 2.625, 0.0]),
    "mean_squared_error_weighted": (
        lambda l, p, w: M.mean_squared_error(l, p, weights=w), [REALS, HALF_SCORES, WEIGHTS],
        [0.0, 1.8227778673, 1.8227778673, 2.6581578254, 2.6581578254, 0.0]),
    "mean_absolute_error": (lambda l, p: M.mean_absolute_error(l, p), [REALS, SCORES],
                            [0.0, 1.125, 1.125, 1.3125, 1.3125, 0.0]),
    "mean_absolute_error_weighted": (
        lambda l, p, w: M.mean_absolute_error(l, p, weights=w), [REALS, SCORES, WEIGHTS],
        [0.0, 1.1666666269, 1.1666666269, 1.3421052694, 1.3421052694, 0.0]),
    # mean_iou's update_op gives the updated confusion matrix
    "mean_iou": (lambda l, p: M.mean_iou(l, p, 3), [LABELS, PREDICTIONS],
                 [0.0, [[0., 1., 0.], [1., 2., 0.], [0., 0., 0.]], 0.25,
                  [[1., 1., 1.], [1., 3., 0.], [0., 0., 1.]], 0.4500000178, 0.0]),
    "mean_iou_weighted": (lambda l, p, w: M.mean_iou(l, p, 3, weights=w),
                          [LABELS, PREDICTIONS, WEIGHTS],
                          [0.0, [[0., .5, 0.], [1., 3., 0.], [0., 0., 0.]], 0.3333333432,
                           [[0., .5, 1.], [1., 4., 0.], [0., 0., 3.]], 0.4924242496, 0.0]),
    "mean_iou_absent_classes": (
        lambda l, p: M.mean_iou(l, p, 5), [LABELS, PREDICTIONS],
        [0.0, np.pad([[0., 1., 0.], [1., 2., 0.], [0., 0., 0.]], ((0, 2), (0, 2))), 0.25,
         np.pad([[1., 1., 1.], [1., 3., 0.], [0., 0., 1.]], ((0, 2), (0, 2))), 0.4500000178,
         0.0]),
}


def _placeholder(batch, shape=(4,)):
    return tf.placeholder(tf.float32 if batch.dtype.kind == "f" else tf.int64, list(shape))


def _stream(build, feeds, plan_memory=True, shape=(4,)):
    """[value, update, value, update, value, value after re-initialising] over the batches."""
    placeholders = [_placeholder(f[0], shape) for f in feeds]
    value, update_op = build(*placeholders)
    init = tf.local_variables_initializer()
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(init)
        out = [sess.run(value)]
        for i in range(len(feeds[0])):
            out.append(sess.run(update_op, {p: f[i] for p, f in zip(placeholders, feeds)}))
            out.append(sess.run(value))
        sess.run(init)
        out.append(sess.run(value))
    return out


@pytest.mark.parametrize("case", sorted(TF_RECORDED))
def test_matches_tensorflow_recorded_values(case, plan_memory):
    build, feeds, expected = TF_RECORDED[case]
    got = _stream(build, feeds, plan_memory)
    for step, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(g, e, rtol=2e-6, atol=2e-6, err_msg=f"{case} step {step}")


def test_batches_of_unknown_size_and_scalar_weights():
    feeds = [LABELS, PREDICTIONS]
    got = _stream(lambda l, p: M.accuracy(l, p, weights=2.0), feeds, shape=(None,))
    np.testing.assert_allclose(got, [0.0, 0.5, 0.5, 0.625, 0.625, 0.0])
    got = _stream(lambda r, w: M.mean(r, weights=w), [REALS, WEIGHTS], shape=(None,))
    np.testing.assert_allclose(got[4], 1.3421052694, rtol=1e-6)


RNG = np.random.default_rng(0)
BATCHES = 3


def _random_batches(kind):
    """Three batches of 6: class ids in [0, 4), scores in (0, 1), reals, weights in {0, ...}."""
    if kind == "ids":
        return [RNG.integers(0, 4, 6) for _ in range(BATCHES)]
    if kind == "binary":
        return [RNG.integers(0, 2, 6) for _ in range(BATCHES)]
    if kind == "weights":
        return [RNG.choice([0.0, 0.5, 1.0, 2.5], 6).astype(np.float32) for _ in range(BATCHES)]
    return [RNG.standard_normal(6).astype(np.float32) for _ in range(BATCHES)]


def _mean_iou(cm):
    row, col, diag = cm.sum(0), cm.sum(1), np.diag(cm)
    present = row + col - diag != 0
    return (diag[present] / (row + col - diag)[present]).sum() / max(present.sum(), 1)


def _confusion(labels, predictions, weights, n=4):
    cm = np.zeros((n, n))
    np.add.at(cm, (labels, predictions), weights)
    return cm


# metric -> (build, feed kinds, numpy formula of the concatenated batches and weights)
NUMPY_FORMULAS = {
    "accuracy": (M.accuracy, ["ids", "ids"], lambda l, p, w: (w * (l == p)).sum() / w.sum()),
    "mean": (M.mean, ["reals"], lambda r, w: (w * r).sum() / w.sum()),
    "mean_squared_error": (M.mean_squared_error, ["reals", "reals"],
                           lambda l, p, w: (w * (l - p) ** 2).sum() / w.sum()),
    "mean_absolute_error": (M.mean_absolute_error, ["reals", "reals"],
                            lambda l, p, w: (w * abs(p - l)).sum() / w.sum()),
    "precision": (M.precision, ["binary", "binary"],
                  lambda l, p, w: (w * l * p).sum() / (w * p).sum()),
    "recall": (M.recall, ["binary", "binary"],
               lambda l, p, w: (w * l * p).sum() / (w * l).sum()),
    "mean_iou": (lambda l, p, weights: M.mean_iou(l, p, 4, weights=weights), ["ids", "ids"],
                 lambda l, p, w: _mean_iou(_confusion(l, p, w))),
}


@pytest.mark.parametrize("metric", sorted(NUMPY_FORMULAS))
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_streams_as_numpy_formulas(metric, weighted, plan_memory):
    build, kinds, formula = NUMPY_FORMULAS[metric]
    feeds = [_random_batches(kind) for kind in kinds]
    weights = _random_batches("weights") if weighted else [np.ones(6, np.float32)] * BATCHES
    placeholders = [_placeholder(f[0], (6,)) for f in feeds]
    weight_input = tf.placeholder(tf.float32, [6]) if weighted else None
    value, update_op = build(*placeholders, weights=weight_input)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.local_variables_initializer())
        for i in range(BATCHES):
            feed = {p: f[i] for p, f in zip(placeholders, feeds)}
            if weighted:
                feed[weight_input] = weights[i]
            sess.run(update_op, feed)
            seen = [np.concatenate(f[:i + 1]).astype(np.float64) for f in feeds]
            if metric == "mean_iou":
                seen = [s.astype(int) for s in seen]
            expected = formula(*seen, np.concatenate(weights[:i + 1]))
            np.testing.assert_allclose(sess.run(value), np.nan_to_num(expected), rtol=1e-5,
                                       atol=1e-6, err_msg=f"{metric} after batch {i + 1}")


def test_auc_with_many_thresholds_is_the_rank_statistic(plan_memory):
    # with scores apart by more than the thresholds' spacing, the trapezoids give the exact
    # ROC AUC: the fraction of (positive, negative) pairs ordered right (Mann-Whitney)
    scores = RNG.permutation(np.linspace(0.01, 0.99, 40)).astype(np.float32)
    labels = (RNG.random(40) < scores).astype(np.int64)
    label_input, score_input = tf.placeholder(tf.int64, [20]), tf.placeholder(tf.float32, [20])
    value, update_op = M.auc(label_input, score_input, num_thresholds=1000)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.local_variables_initializer())
        for half in (slice(0, 20), slice(20, 40)):
            sess.run(update_op, {label_input: labels[half], score_input: scores[half]})
        got = sess.run(value)
    positive, negative = scores[labels == 1], scores[labels == 0]
    expected = (positive[:, None] > negative[None, :]).mean()
    np.testing.assert_allclose(got, expected, atol=1e-5)


def test_reinitialising_starts_the_totals_over():
    labels, predictions = tf.placeholder(tf.int64, [4]), tf.placeholder(tf.int64, [4])
    value, update_op = M.accuracy(labels, predictions)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update_op, {labels: LABELS[0], predictions: PREDICTIONS[0]})
        sess.run(tf.local_variables_initializer())
        assert sess.run(value) == 0.0
        assert sess.run(update_op, {labels: LABELS[1], predictions: PREDICTIONS[1]}) == 0.75
        assert sess.run(value) == 0.75


def test_variables_names_and_collections_as_tensorflow():
    # names printed by tf.compat.v1 (tensorflow-cpu 2.21) for the same graph
    labels, predictions = tf.placeholder(tf.int64, [4]), tf.placeholder(tf.int64, [4])
    first = M.accuracy(labels, predictions)
    named = M.accuracy(labels, predictions, name="acc", metrics_collections=["mc"],
                       updates_collections=["uc"])
    with tf.name_scope("outer"):
        scoped = [M.precision(labels, predictions), M.recall(labels, predictions)]
        M.mean_iou(labels, predictions, 3)
    expected = ["accuracy/total:0", "accuracy/count:0", "acc/total:0", "acc/count:0",
                "outer/precision/true_positives/count:0",
                "outer/precision/false_positives/count:0",
                "outer/recall/true_positives/count:0", "outer/recall/false_negatives/count:0",
                "outer/mean_iou/total_confusion_matrix:0"]
    assert [v.name for v in tf.local_variables()] == expected
    assert [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)] == expected
    assert tf.global_variables() == [] and tf.trainable_variables() == []
    assert [t.name for t in first] == ["accuracy/value:0", "accuracy/update_op:0"]
    assert [t.name for t in named] == ["acc/value:0", "acc/update_op:0"]
    assert [[t.name for t in pair] for pair in scoped] == [
        ["outer/precision/value:0", "outer/precision/update_op:0"],
        ["outer/recall/value:0", "outer/recall/update_op:0"]]
    assert tf.get_collection("mc") == [named[0]] and tf.get_collection("uc") == [named[1]]
    assert M.accuracy(labels, predictions)[0].name == "accuracy_1/value:0"  # "acc" is apart
    M.auc(labels, tf.cast(predictions, tf.float32))
    auc_vars = [(v.name, v.dtype.name, list(v.get_shape().as_list()))
                for v in tf.local_variables() if v.name.startswith("auc/")]
    assert auc_vars == [(f"auc/{n}:0", "float32", [200]) for n in
                        ("true_positives", "false_negatives", "true_negatives", "false_positives")]
    cm = tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)[8]
    assert cm.dtype == tf.float64 and cm.get_shape().as_list() == [3, 3]


def test_a_size_one_last_dimension_is_squeezed():
    labels, predictions = tf.placeholder(tf.int64, [4, 1]), tf.placeholder(tf.int64, [4])
    _, update_op = M.accuracy(labels, predictions)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        got = sess.run(update_op, {labels: LABELS[0][:, None], predictions: PREDICTIONS[0]})
    assert got == 0.5


# messages as TF 1.15 raises them when the graph is built
@pytest.mark.parametrize("build, message", [
    (lambda l, p: M.accuracy(l, tf.placeholder(tf.int64, [5])),
     r"Shapes \(5,\) and \(4,\) are incompatible"),
    (lambda l, p: M.accuracy(l, p, weights=tf.placeholder(tf.float32, [3])),
     (r"weights can not be broadcast to values. Mismatch at dim 0. values.shape=\[4\], "
      r"weights.shape=\[3\]")),
    (lambda l, p: M.mean(tf.constant([1., 2.]), weights=tf.constant([1., 2., 3.])),
     "weights can not be broadcast to values. Mismatch at dim 0"),
    (lambda l, p: M.auc(l, tf.constant([.1, .2, .3])), r"Shapes \(3,\) and \(4,\)"),
    (lambda l, p: M.auc(l, tf.cast(p, tf.float32), curve="XY"),
     "Curve must be either ROC or PR. Curve XY is unknown."),
    (lambda l, p: M.auc(l, tf.cast(p, tf.float32), summation_method="simpson"),
     "Invalid summation_method: simpson"),
    (lambda l, p: M.mean_iou(l, tf.placeholder(tf.int64, [3]), 3), r"Shapes \(3,\) and \(4,\)"),
    (lambda l, p: M.precision(l, tf.placeholder(tf.int64, [2])), r"Shapes \(2,\) and \(4,\)"),
    (lambda l, p: M.recall(l, p, weights=tf.ones([2, 4])),
     "Can not squeeze dim\\[1\\], expected a dimension of 1, got 4"),
    (lambda l, p: M.accuracy(l, p, weights=tf.ones([2, 4])),
     "Can not squeeze dim\\[1\\], expected a dimension of 1, got 4"),
    (lambda l, p: M.mean_iou(l, p, 3, weights=tf.ones([3])), r"Shapes \(4,\) and \(3,\)"),
    (lambda l, p: M.auc(l, tf.cast(p, tf.float32), weights=tf.ones([3])),
     "weights can not be broadcast to values. Mismatch at dim 0"),
    (lambda l, p: M.recall(l, p, weights=tf.ones([3])),
     "Dimensions must be equal, but are 4 and 3"),
], ids=["accuracy", "weights", "mean_weights", "auc", "curve", "summation", "mean_iou",
        "precision", "recall_weights_rank", "accuracy_weights_rank", "mean_iou_weights",
        "auc_weights", "recall_weights"])
def test_incompatible_static_shapes_raise_value_error(build, message):
    labels, predictions = tf.placeholder(tf.int64, [4]), tf.placeholder(tf.int64, [4])
    with pytest.raises(ValueError, match=message):
        build(labels, predictions)


def test_an_unsupported_metric_is_named():
    with pytest.raises(AttributeError, match="tf.metrics.precision_at_recall is not supported "
                                             "by TinyFlow"):
        tf.metrics.precision_at_recall  # noqa: B018
    assert "metrics" in tf.__all__ and tf.metrics.__name__ == "tinyflow.frontend.metrics"


def test_inputs_of_unknown_rank_are_accepted(plan_memory):
    labels, predictions = tf.placeholder(tf.int64), tf.placeholder(tf.int64)
    weights = tf.placeholder(tf.float32)
    value, update_op = M.recall(labels, predictions, weights=weights)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update_op, {labels: BINARY[0], predictions: PREDICTIONS[0], weights: WEIGHTS[0]})
        assert sess.run(value) == pytest.approx(0.75)


def test_a_name_used_twice_and_a_collection_named_by_a_string():
    # as tf.compat.v1 (tensorflow-cpu 2.21) names them: the second "acc" scope is acc_1
    labels, predictions = tf.placeholder(tf.int64, [4]), tf.placeholder(tf.int64, [4])
    first = M.accuracy(labels, predictions, name="acc", metrics_collections="mc")
    second = M.accuracy(labels, predictions, name="acc")
    with tf.variable_scope("vs"):
        third = M.mean(tf.constant([1., 2.]))
    assert [v.name for v in tf.local_variables()] == [
        "acc/total:0", "acc/count:0", "acc_1/total:0", "acc_1/count:0", "vs/mean/total:0",
        "vs/mean/count:0"]
    assert [t.name for t in first + second + third] == [
        "acc/value:0", "acc/update_op:0", "acc_1/value:0", "acc_1/update_op:0",
        "vs/mean/value:0", "vs/mean/update_op:0"]
    assert tf.get_collection("mc") == [first[0]]
