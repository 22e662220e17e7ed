"""tf.metrics' counts, threshold, error and ranking metrics against TensorFlow 1.15's: numbers
recorded from real TF, local variables and names, the errors of bad arguments."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")

M = tf.metrics
NAN = float("nan")
LABELS = [np.array([1, 0, 1, 1]), np.array([0, 0, 1, 2])]
PREDICTIONS = [np.array([1, 1, 1, 0]), np.array([0, 2, 1, 2])]
WEIGHTS = [np.array([1., .5, 2., 1.]), np.array([0., 1., 1., 3.])]
SCORES = [np.array([.9, .2, .6, .4]), np.array([.1, .7, .8, .3])]
BINARY = [np.array([1, 0, 1, 1]), np.array([0, 0, 1, 0])]
REALS = [np.array([.5, 1.5, 2., -1.]), np.array([3., 0., 1., 2.5])]
HALF_SCORES = [s * .5 for s in SCORES]
NORMAL = [np.array([1., 0., 2., .5]), np.array([0., 4., 1., 2.])]
VEC_L = [np.array([[1., 0.], [0., 1.], [.6, .8], [1., 0.]]), np.array([[0., 1.], [.8, .6], [1., 0.], [-1., 0.]])]
VEC_P = [np.array([[.6, .8], [0., 1.], [1., 0.], [-1., 0.]]), np.array([[0., 1.], [.6, .8], [0., 1.], [1., 0.]])]
LOGITS = [np.array([[.1, .5, .2, .9, .0], [.3, .2, .8, .1, .6], [.9, .1, .4, .3, .2], [.2, .7, .6, .5, .1]]),
          np.array([[.5, .4, .3, .2, .1], [.1, .2, .9, .4, .3], [.3, .8, .1, .7, .2], [.6, .1, .2, .3, .9]])]
TOPL1 = [np.array([3, 4, 1, 2]), np.array([0, 2, 4, 4])]
TOPL2 = [np.array([[3, 1], [4, 0], [1, 1], [2, 7]]), np.array([[0, -1], [3, 2], [4, 3], [-1, -1]])]
TOPIDX = [np.array([[3, 1], [2, 4], [0, 2], [1, 2]]), np.array([[0, 1], [2, 3], [1, 3], [4, 0]])]

# name -> (build, feeds, expected): expected is [value before any update, update_op of batch 1,
# value, update_op of batch 2, value, value after local_variables_initializer()], printed by
# tensorflow-cpu 2.21's tf.compat.v1.metrics (graph mode; metrics_impl is TF 1.15's code) with
# float32 / int64 placeholders of the batches' shapes fed these batches.
TF_RECORDED = {
    "root_mean_squared_error": (
        lambda l, p: M.root_mean_squared_error(l, p),
        [REALS, HALF_SCORES],
        [0.0, 1.2542427778, 1.2542427778, 1.6201851368, 1.6201851368, 0.0]),
    "root_mean_squared_error_weighted": (
        lambda l, p, w: M.root_mean_squared_error(l, p, weights=w),
        [REALS, HALF_SCORES, WEIGHTS],
        [0.0, 1.3501029015, 1.3501029015, 1.6303857565, 1.6303857565, 0.0]),
    "mean_relative_error": (
        lambda l, p, n: M.mean_relative_error(l, p, n),
        [REALS, SCORES, NORMAL],
        [0.0, 0.9749999642, 0.9749999642, 0.671875, 0.671875, 0.0]),
    "mean_relative_error_weighted": (
        lambda l, p, n, w: M.mean_relative_error(l, p, n, weights=w),
        [REALS, SCORES, NORMAL, WEIGHTS],
        [0.0, 1.0222221613, 1.0222221613, 0.8710525632, 0.8710525632, 0.0]),
    "mean_cosine_distance": (
        lambda l, p: M.mean_cosine_distance(l, p, 1),
        [VEC_L, VEC_P],
        [1.0, 0.6999999881, 0.6999999881, 0.7300000191, 0.7300000191, 1.0]),
    "mean_cosine_distance_weighted": (
        lambda l, p, w: M.mean_cosine_distance(l, p, 1, weights=tf.expand_dims(w, 1)),
        [VEC_L, VEC_P, WEIGHTS],
        [1.0, 0.7111110687, 0.7111110687, 1.0778946877, 1.0778946877, 1.0]),
    "mean_per_class_accuracy": (
        lambda l, p: M.mean_per_class_accuracy(l, p, 3),
        [LABELS, PREDICTIONS],
        [0.0, [0.0, 0.6666666865, 0.0], 0.2222222239, [0.3333333433, 0.75, 1.0], 0.6944444776, 0.0]),
    "mean_per_class_accuracy_weighted": (
        lambda l, p, w: M.mean_per_class_accuracy(l, p, 4, weights=w),
        [LABELS, PREDICTIONS, WEIGHTS],
        [0.0, [0.0, 0.75, 0.0, 0.0], 0.1875, [0.0, 0.8000000119, 1.0, 0.0], 0.4499999881, 0.0]),
    "mean_tensor": (
        lambda r: M.mean_tensor(r),
        [REALS],
        [[0.0, 0.0, 0.0, 0.0], [0.5, 1.5, 2.0, -1.0], [0.5, 1.5, 2.0, -1.0], [1.75, 0.75, 1.5, 0.75], [1.75, 0.75, 1.5, 0.75], [0.0, 0.0, 0.0, 0.0]]),
    "mean_tensor_weighted": (
        lambda r, w: M.mean_tensor(r, weights=w),
        [REALS, WEIGHTS],
        [[0.0, 0.0, 0.0, 0.0], [0.5, 1.5, 2.0, -1.0], [0.5, 1.5, 2.0, -1.0], [0.5, 0.5, 1.6666666269, 1.625], [0.5, 0.5, 1.6666666269, 1.625], [0.0, 0.0, 0.0, 0.0]]),
    "percentage_below": (
        lambda r: M.percentage_below(r, 1.0),
        [REALS],
        [0.0, 0.5, 0.5, 0.375, 0.375, 0.0]),
    "percentage_below_weighted": (
        lambda r, w: M.percentage_below(r, 1.0, weights=w),
        [REALS, WEIGHTS],
        [0.0, 0.4444444478, 0.4444444478, 0.3157894611, 0.3157894611, 0.0]),
    "true_positives": (
        lambda l, p: M.true_positives(l, p),
        [BINARY, PREDICTIONS],
        [0.0, 2.0, 2.0, 3.0, 3.0, 0.0]),
    "false_positives": (
        lambda l, p: M.false_positives(l, p),
        [BINARY, PREDICTIONS],
        [0.0, 1.0, 1.0, 3.0, 3.0, 0.0]),
    "true_negatives": (
        lambda l, p: M.true_negatives(l, p),
        [BINARY, PREDICTIONS],
        [0.0, 0.0, 0.0, 1.0, 1.0, 0.0]),
    "false_negatives": (
        lambda l, p: M.false_negatives(l, p),
        [BINARY, PREDICTIONS],
        [0.0, 1.0, 1.0, 1.0, 1.0, 0.0]),
    "true_positives_weighted": (
        lambda l, p, w: M.true_positives(l, p, weights=w),
        [BINARY, PREDICTIONS, WEIGHTS],
        [0.0, 3.0, 3.0, 4.0, 4.0, 0.0]),
    "false_negatives_weighted": (
        lambda l, p, w: M.false_negatives(l, p, weights=w),
        [BINARY, PREDICTIONS, WEIGHTS],
        [0.0, 1.0, 1.0, 1.0, 1.0, 0.0]),
    "true_negatives_weighted": (
        lambda l, p, w: M.true_negatives(l, p, weights=w),
        [BINARY, PREDICTIONS, WEIGHTS],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    "false_positives_weighted": (
        lambda l, p, w: M.false_positives(l, p, weights=w),
        [BINARY, PREDICTIONS, WEIGHTS],
        [0.0, 0.5, 0.5, 4.5, 4.5, 0.0]),
    "true_positives_at_thresholds": (
        lambda l, p: M.true_positives_at_thresholds(l, p, [0.15, 0.5, 0.85]),
        [BINARY, SCORES],
        [[0.0, 0.0, 0.0], [3.0, 2.0, 1.0], [3.0, 2.0, 1.0], [4.0, 3.0, 1.0], [4.0, 3.0, 1.0], [0.0, 0.0, 0.0]]),
    "false_positives_at_thresholds": (
        lambda l, p: M.false_positives_at_thresholds(l, p, [0.15, 0.5, 0.85]),
        [BINARY, SCORES],
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [3.0, 1.0, 0.0], [3.0, 1.0, 0.0], [0.0, 0.0, 0.0]]),
    "true_negatives_at_thresholds": (
        lambda l, p, w: M.true_negatives_at_thresholds(l, p, [0.15, 0.5, 0.85], weights=w),
        [BINARY, SCORES, WEIGHTS],
        [[0.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.0, 0.5, 0.5], [0.0, 3.5, 4.5], [0.0, 3.5, 4.5], [0.0, 0.0, 0.0]]),
    "false_negatives_at_thresholds": (
        lambda l, p, w: M.false_negatives_at_thresholds(l, p, [0.15, 0.5, 0.85], weights=w),
        [BINARY, SCORES, WEIGHTS],
        [[0.0, 0.0, 0.0], [0.0, 1.0, 3.0], [0.0, 1.0, 3.0], [0.0, 1.0, 4.0], [0.0, 1.0, 4.0], [0.0, 0.0, 0.0]]),
    "precision_at_thresholds": (
        lambda l, p: M.precision_at_thresholds(l, p, [0.15, 0.5, 0.85]),
        [BINARY, SCORES],
        [[0.0, 0.0, 0.0], [0.75, 1.0, 0.9999998808], [0.75, 1.0, 0.9999998808], [0.571428597, 0.75, 0.9999998808], [0.571428597, 0.75, 0.9999998808], [0.0, 0.0, 0.0]]),
    "recall_at_thresholds_weighted": (
        lambda l, p, w: M.recall_at_thresholds(l, p, [0.15, 0.5, 0.95], weights=w),
        [BINARY, SCORES, WEIGHTS],
        [[0.0, 0.0, 0.0], [1.0, 0.75, 0.0], [1.0, 0.75, 0.0], [1.0, 0.8000000119, 0.0], [1.0, 0.8000000119, 0.0], [0.0, 0.0, 0.0]]),
    "sensitivity_at_specificity": (
        lambda l, p: M.sensitivity_at_specificity(l, p, 0.6),
        [BINARY, SCORES],
        [0.0, 1.0, 1.0, 1.0, 1.0, 0.0]),
    "sensitivity_at_specificity_weighted": (
        lambda l, p, w: M.sensitivity_at_specificity(l, p, 0.5, weights=w, num_thresholds=11),
        [BINARY, SCORES, WEIGHTS],
        [0.0, 1.0, 1.0, 1.0, 1.0, 0.0]),
    "specificity_at_sensitivity": (
        lambda l, p: M.specificity_at_sensitivity(l, p, 0.7),
        [BINARY, SCORES],
        [0.0, 0.9999998808, 0.9999998808, 0.75, 0.75, 0.0]),
    "specificity_at_sensitivity_weighted": (
        lambda l, p, w: M.specificity_at_sensitivity(l, p, 0.5, weights=w, num_thresholds=11),
        [BINARY, SCORES, WEIGHTS],
        [0.0, 0.9999997616, 0.9999997616, 1.0, 1.0, 0.0]),
    "recall_at_k": (
        lambda l, p: M.recall_at_k(l, p, 2),
        [TOPL1, LOGITS],
        [NAN, 0.75, 0.75, 0.75, 0.75, NAN]),
    "recall_at_k_labels2": (
        lambda l, p: M.recall_at_k(l, p, 2),
        [TOPL2, LOGITS],
        [NAN, 0.5714285714, 0.5714285714, 0.5714285714, 0.5714285714, NAN]),
    "recall_at_k_class": (
        lambda l, p: M.recall_at_k(l, p, 2, class_id=2),
        [TOPL2, LOGITS],
        [NAN, 1.0, 1.0, 1.0, 1.0, NAN]),
    "recall_at_k_weighted": (
        lambda l, p, w: M.recall_at_k(l, p, 3, weights=w),
        [TOPL2, LOGITS, WEIGHTS],
        [NAN, 0.5714285714, 0.5714285714, 0.5, 0.5, NAN]),
    "precision_at_k": (
        lambda l, p: M.precision_at_k(l, p, 2),
        [TOPL1, LOGITS],
        [NAN, 0.375, 0.375, 0.375, 0.375, NAN]),
    "precision_at_k_labels2": (
        lambda l, p: M.precision_at_k(l, p, 3),
        [TOPL2, LOGITS],
        [NAN, 0.4166666667, 0.4166666667, 0.375, 0.375, NAN]),
    "precision_at_k_class": (
        lambda l, p: M.precision_at_k(l, p, 2, class_id=4),
        [TOPL2, LOGITS],
        [NAN, 1.0, 1.0, 0.5, 0.5, NAN]),
    "precision_at_k_class_absent": (
        lambda l, p: M.precision_at_k(l, p, 1, class_id=4),
        [TOPL1, LOGITS],
        [NAN, NAN, NAN, 1.0, 1.0, NAN]),
    "precision_at_k_weighted": (
        lambda l, p, w: M.sparse_precision_at_k(l, p, 2, weights=w),
        [TOPL2, LOGITS, WEIGHTS],
        [NAN, 0.3888888889, 0.3888888889, 0.3421052632, 0.3421052632, NAN]),
    "recall_at_top_k": (
        lambda l, i: M.recall_at_top_k(l, i),
        [TOPL2, TOPIDX],
        [NAN, 0.5714285714, 0.5714285714, 0.5714285714, 0.5714285714, NAN]),
    "precision_at_top_k": (
        lambda l, i: M.precision_at_top_k(l, i, class_id=2),
        [TOPL2, TOPIDX],
        [NAN, 0.3333333333, 0.3333333333, 0.5, 0.5, NAN]),
    "average_precision_at_k": (
        lambda l, p: M.average_precision_at_k(l, p, 3),
        [TOPL2, LOGITS],
        [0.0, 0.5208333333, 0.5208333333, NAN, NAN, 0.0]),
    "average_precision_at_k_1": (
        lambda l, p: M.average_precision_at_k(l, p, 2),
        [TOPL1, LOGITS],
        [0.0, 0.5, 0.5, 0.625, 0.625, 0.0]),
    "average_precision_at_k_weighted": (
        lambda l, p, w: M.sparse_average_precision_at_k(l, p, 4, weights=w),
        [TOPL2, LOGITS, WEIGHTS],
        [0.0, 0.3981481481, 0.3981481481, NAN, NAN, 0.0]),
}


def _placeholder(batch):
    return tf.placeholder(tf.float32 if batch.dtype.kind == "f" else tf.int64, list(batch.shape))


def _stream(build, feeds, plan_memory=True):
    """[value, update, value, update, value, value after re-initialising] over the batches."""
    placeholders = [_placeholder(f[0]) for f in feeds]
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



C = tf.contrib.metrics
# tf.contrib.metrics' streaming names take predictions first: the same numbers as TF_RECORDED's
STREAMING = {
    "true_positives": lambda l, p: C.streaming_true_positives(p, l),
    "false_negatives_weighted": lambda l, p, w: C.streaming_false_negatives(p, l, weights=w),
    "root_mean_squared_error_weighted": lambda l, p, w: C.streaming_root_mean_squared_error(
        p, l, w),
    "mean_relative_error_weighted": lambda l, p, n, w: C.streaming_mean_relative_error(
        p, l, n, w),
    "mean_cosine_distance": lambda l, p: C.streaming_mean_cosine_distance(p, l, 1),
    "mean_tensor_weighted": lambda r, w: C.streaming_mean_tensor(r, w),
    "percentage_below_weighted": lambda r, w: C.streaming_percentage_less(r, 1.0, w),
    "precision_at_thresholds": lambda l, p: C.streaming_precision_at_thresholds(
        p, l, [0.15, 0.5, 0.85]),
    "true_negatives_at_thresholds": lambda l, p, w: C.streaming_true_negatives_at_thresholds(
        p, l, [0.15, 0.5, 0.85], w),
    "sensitivity_at_specificity_weighted": lambda l, p, w:
        C.streaming_sensitivity_at_specificity(p, l, 0.5, weights=w, num_thresholds=11),
    "specificity_at_sensitivity": lambda l, p: C.streaming_specificity_at_sensitivity(
        p, l, 0.7),
    "precision_at_k_class": lambda l, p: C.streaming_sparse_precision_at_k(p, l, 2,
                                                                           class_id=4),
    "recall_at_k_weighted": lambda l, p, w: C.streaming_sparse_recall_at_k(p, l, 3,
                                                                           weights=w),
    "recall_at_top_k": lambda l, i: C.sparse_recall_at_top_k(l, i),
    "precision_at_top_k": lambda l, i: C.streaming_sparse_precision_at_top_k(i, l,
                                                                             class_id=2),
    "average_precision_at_k": lambda l, p: C.streaming_sparse_average_precision_at_k(p, l, 3),
}


@pytest.mark.parametrize("case", sorted(STREAMING))
def test_contrib_streaming_names_take_predictions_first(case):
    _, feeds, expected = TF_RECORDED[case]
    got = _stream(STREAMING[case], feeds)
    for step, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(g, e, rtol=2e-6, atol=2e-6, err_msg=f"{case} step {step}")


def test_contrib_streaming_recall_at_k_is_the_mean_of_in_top_k():
    labels = [np.array([3, 4, 1, 2]), np.array([0, 2, 4, 4])]
    got = _stream(lambda l, p: C.streaming_recall_at_k(p, l, 2), [labels, LOGITS])
    # numpy: is each label among the row's two highest scores (no ties in LOGITS)
    hits = [np.argsort(-s, 1)[np.arange(4), :2] == l[:, None] for s, l in zip(LOGITS, labels)]
    first, both = hits[0].any(1).mean(), np.concatenate(hits).any(1).mean()
    np.testing.assert_allclose(got, [0, first, first, both, both, 0], rtol=1e-6)


def test_contrib_aggregate_metric_map_and_unsupported_names():
    values = tf.placeholder(tf.float32, [4])
    names_to_values, names_to_updates = C.aggregate_metric_map(
        {"mean": M.mean(values), "below": M.percentage_below(values, 1.0)})
    assert sorted(names_to_values) == ["below", "mean"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        got = sess.run(names_to_updates, {values: REALS[0]})
    assert got == {"mean": pytest.approx(0.75), "below": pytest.approx(0.5)}
    assert C.streaming_mean is M.mean and C.streaming_percentage_less is M.percentage_below
    with pytest.raises(AttributeError, match="streaming_pearson_correlation is not supported"):
        C.streaming_pearson_correlation  # noqa: B018


def test_variable_names_as_tensorflow():
    # names printed by tf.compat.v1 (tensorflow-cpu 2.21) for the same calls
    labels, scores = tf.placeholder(tf.int64, [4]), tf.placeholder(tf.float32, [4])
    logits, many = tf.placeholder(tf.float32, [4, 5]), tf.placeholder(tf.int64, [4, 2])
    M.root_mean_squared_error(scores, scores)
    M.mean_per_class_accuracy(labels, labels, 3)
    M.mean_tensor(scores)
    M.percentage_below(scores, 1.0)
    M.true_negatives(labels, labels)
    M.false_positives_at_thresholds(labels, scores, [0.5])
    M.precision_at_thresholds(labels, scores, [0.5])
    M.sensitivity_at_specificity(labels, scores, 0.5)
    M.recall_at_k(many, logits, 2, class_id=2)
    M.precision_at_top_k(many, tf.cast(logits, tf.int64))
    expected = [
        "root_mean_squared_error/total:0", "root_mean_squared_error/count:0",
        "mean_accuracy/total:0", "mean_accuracy/count:0", "mean/total_tensor:0",
        "mean/count_tensor:0", "percentage_below_threshold/total:0",
        "percentage_below_threshold/count:0", "true_negatives/count:0",
        "false_positives/false_positives:0", "precision_at_thresholds/true_positives:0",
        "precision_at_thresholds/false_positives:0",
        *[f"sensitivity_at_specificity/{n}:0" for n in
          ("true_positives", "false_negatives", "true_negatives", "false_positives")],
        "recall_at_2_class2/true_positive_at_2_class2:0",
        "recall_at_2_class2/false_negative_at_2_class2:0",
        "precision_at_k/true_positive_at_k:0", "precision_at_k/false_positive_at_k:0"]
    assert [v.name for v in tf.local_variables()] == expected
    assert [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)] == expected
    assert [v.dtype.name for v in tf.local_variables()[-2:]] == ["float64", "float64"]


class _SparseLabels:  # what a tf.SparseTensor would hand in
    dense_shape = (4, 2)


@pytest.mark.parametrize("build, error, message", [
    (lambda: M.sensitivity_at_specificity([1, 0], [.5, .5], 1.5), ValueError,
     "`specificity` must be in the range"),
    (lambda: M.specificity_at_sensitivity([1, 0], [.5, .5], -0.1), ValueError,
     "`sensitivity` must be in the range"),
    (lambda: M.recall_at_k(np.array([[1], [2]]), np.ones((2, 3), np.float32), 0), ValueError,
     "Invalid k=0"),
    (lambda: M.precision_at_k(_SparseLabels(), np.ones((4, 3), np.float32), 1), TypeError,
     "SparseTensor labels are not supported"),
    (lambda: M.mean_tensor(tf.placeholder(tf.float32, [None, 3])), ValueError,
     "fully known static shape"),
    (lambda: M.mean_relative_error(tf.zeros([4]), tf.zeros([4]), tf.zeros([3])), ValueError,
     "incompatible"),
    (lambda: M.true_positives(tf.zeros([4, 2]), tf.zeros([4, 2]), weights=tf.zeros([3])),
     ValueError, "Dimensions must be equal"),
])
def test_bad_arguments_raise_naming_them(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_a_class_id_out_of_range_stops_the_update_and_keeps_the_totals():
    # TF's scatter_add raises InvalidArgumentError "indices[1] = 5 is not in [0, 3)"
    labels, predictions = tf.placeholder(tf.int64, [2]), tf.placeholder(tf.int64, [2])
    value, update_op = M.mean_per_class_accuracy(labels, predictions, 3)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update_op, {labels: [0, 1], predictions: [0, 0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"labels must be in \[0, 3\)"):
            sess.run(update_op, {labels: [0, 5], predictions: [0, 1]})
        assert sess.run(value) == pytest.approx(1 / 3)  # [1, 0, 0] as before


@pytest.mark.parametrize("weighted, expected", [
    # tensorflow 2.21's metrics_impl._streaming_sparse_average_precision_at_top_k (TF 1.15's),
    # batches TOPL2 / TOPIDX (/ WEIGHTS)
    (False, [0.0, 0.375, 0.375, NAN, NAN, 0.0]),
    (True, [0.0, 0.3055555556, 0.3055555556, NAN, NAN, 0.0])])
def test_contrib_average_precision_of_given_top_k(weighted, expected):
    if weighted:
        got = _stream(lambda l, i, w: C.streaming_sparse_average_precision_at_top_k(i, l, w),
                      [TOPL2, TOPIDX, WEIGHTS])
    else:
        got = _stream(lambda l, i: C.streaming_sparse_average_precision_at_top_k(i, l),
                      [TOPL2, TOPIDX])
    np.testing.assert_allclose(got, expected, rtol=1e-9)
    assert [v.name for v in tf.local_variables()] == ["average_precision_at_top_k/max:0",
                                                      "average_precision_at_top_k/total:0"]
