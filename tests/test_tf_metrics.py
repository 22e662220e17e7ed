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
