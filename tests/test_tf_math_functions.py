"""The rest of TF-1's math and tf.nn names: tf.math, tensordot, squared_difference,
reduce_logsumexp, the clipping functions, confusion_matrix, l2_normalize, top_k, lrn,
xw_plus_b, and dropout on float16 / float64.  Values against numpy / torch and TensorFlow
1.15's formulas, gradients against torch autograd and finite differences, memory planning on
and off, and bad input named in the errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.frontend import math_ops, safe_math_ops, special_math_ops
from tinyflow.frontend.testing import check_gradients
from tinyflow.nnvm import BindError, ShapeError

pytestmark = pytest.mark.usefixtures("fresh_graph")
F64 = torch.float64


def run(plan_memory, fetches, feeds=None):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches, feeds)


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def check(build, ref, values, plan_memory, wrt=None, rtol=1e-5, atol=1e-5):
    """build(*placeholders) against ref(*float64 tensors): the value, then the gradient against
    finite differences (check_gradients) and torch autograd."""
    xs = [tf.placeholder(tf.float32, v.shape) for v in values]
    got = run(plan_memory, build(*xs), dict(zip(xs, values)))
    want = ref(*[torch.tensor(v, dtype=F64) for v in values])
    np.testing.assert_allclose(got, want.detach().numpy(), rtol=rtol, atol=atol)
    report = check_gradients(build, inputs=values, wrt=wrt, plan_memory=plan_memory)
    ts = [torch.tensor(v, dtype=F64, requires_grad=True) for v in report.inputs]
    heads = [torch.tensor(h, dtype=F64) for h in report.head_grads]
    expected = torch.autograd.grad([ref(*ts)], ts, heads, allow_unused=True)
    for i, symbolic in report.symbolic.items():
        g = torch.zeros_like(ts[i]) if expected[i] is None else expected[i]
        np.testing.assert_allclose(symbolic, g.numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=f"gradient of input {i} vs torch autograd")


# -- tf.math ----------------------------------------------------------------------------------
def test_tf_math_is_the_same_functions():
    for name in set(tf.math.__all__) - {"special"}:
        sources = [getattr(module, name, None)
                   for module in (tf, tf.nn, math_ops, special_math_ops, safe_math_ops)]
        assert getattr(tf.math, name) is next(f for f in sources if f is not None), name
    assert tf.math.floormod is tf.floormod and tf.math.truediv is tf.truediv
    assert tf.math.top_k is tf.nn.top_k and tf.math.l2_normalize is tf.nn.l2_normalize
    # tf.math only in TF 1.15, as here
    for name in (*math_ops.MATH_ONLY, "divide_no_nan", "multiply_no_nan", "polyval",
                 "reciprocal_no_nan"):
        assert name not in tf.__all__


def test_tf_math_unsupported_name_says_so():
    with pytest.raises(AttributeError, match="tf.math.bessel_j0 is not supported by TinyFlow"):
        tf.math.bessel_j0  # noqa: B018
    assert not hasattr(tf.math, "sobol_sample")


def test_tf_math_functions_run(plan_memory):
    x = tf.placeholder(tf.float32, (2, 3))
    value = randn(2, 3)
    got = run(plan_memory, [tf.math.add(x, 1.0), tf.math.squared_difference(x, 2.0),
                            tf.math.reduce_logsumexp(x, axis=1), tf.math.argmax(x, 1),
                            tf.math.floormod(x, 0.5)], {x: value})
    np.testing.assert_allclose(got[0], value + 1, rtol=1e-6)
    np.testing.assert_allclose(got[1], (value - 2) ** 2, rtol=1e-5)
    np.testing.assert_allclose(got[2], np.log(np.exp(value).sum(1)), rtol=1e-5)
    np.testing.assert_array_equal(got[3], value.argmax(1))
    np.testing.assert_allclose(got[4], np.mod(value, 0.5), rtol=1e-5, atol=1e-6)


# -- tensordot --------------------------------------------------------------------------------
@pytest.mark.parametrize("a_shape, b_shape, axes", [
    ((3, 4), (4, 5), 1), ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (4,), 0), ((3, 4), (4, 3), 0),
    ((2, 3, 4), (4, 2), [[2], [0]]), ((2, 3, 4), (5, 3, 2), [[1, 0], [1, 2]]),
    ((2, 3, 4), (4, 5), [-1, 0]), ((4, 3), (4, 5), [[0], [0]]), ((3, 4), (5, 4), [[1], [1]]),
    ((2, 3, 4), (3,), [[1], [0]])])
def test_tensordot_against_numpy_and_torch(a_shape, b_shape, axes, plan_memory):
    def torch_axes(axes):
        if isinstance(axes, int):
            return axes
        return [[a] if isinstance(a, int) else a for a in axes]
    check(lambda a, b: tf.tensordot(a, b, axes),
          lambda a, b: torch.tensordot(a, b, torch_axes(axes)),
          [randn(*a_shape, seed=1), randn(*b_shape, seed=2)], plan_memory, rtol=1e-4)


def test_tensordot_with_an_unknown_batch(plan_memory):
    x, w = tf.placeholder(tf.float32, (None, 3, 4)), tf.placeholder(tf.float32, (4, 5))
    out = tf.tensordot(x, w, [[2], [0]])
    assert out.get_shape().as_list() == [None, 3, 5]
    xv, wv = randn(6, 3, 4), randn(4, 5, seed=1)
    np.testing.assert_allclose(run(plan_memory, out, {x: xv, w: wv}),
                               np.tensordot(xv, wv, [[2], [0]]), rtol=1e-5, atol=1e-6)
    # several free sizes unknown (TF's: tf.shape's, known when the session binds)
    both, other = tf.placeholder(tf.float32, (None, 4)), tf.placeholder(tf.float32, (4, None))
    seq = tf.placeholder(tf.float32, (None, None, 4))
    outer, over_time = tf.tensordot(both, other, 1), tf.tensordot(seq, w, [[2], [0]])
    assert outer.get_shape().as_list() == [None, None]
    assert over_time.get_shape().as_list() == [None, None, 5]  # TF 2.21's compat.v1 too
    bv, ov, sv = randn(2, 4, seed=3), randn(4, 3, seed=4), randn(2, 7, 4, seed=5)
    got = run(plan_memory, [outer, over_time], {both: bv, other: ov, seq: sv, w: wv})
    np.testing.assert_allclose(got[0], bv @ ov, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], np.tensordot(sv, wv, [[2], [0]]), rtol=1e-5, atol=1e-6)


def test_a_dense_layer_over_batch_and_time_both_unknown(plan_memory):
    """A BiLSTM's [batch, time, units] into tf.layers.dense: TF's tensordot, its output
    [?, ?, units]; values and the input's gradient against numpy."""
    x = tf.placeholder(tf.float32, (None, None, 5))
    y = tf.layers.dense(x, 3, kernel_initializer=tf.constant_initializer(
        randn(5, 3, seed=6)), bias_initializer=tf.constant_initializer(0.5))
    assert y.get_shape().as_list() == [None, None, 3]
    grad = tf.gradients(tf.reduce_sum(y * y), x)[0]
    kernel = randn(5, 3, seed=6)
    for batch, steps in ((2, 4), (3, 1)):
        xv = randn(batch, steps, 5, seed=batch)
        with tf.Session(plan_memory=plan_memory) as sess:
            sess.run(tf.global_variables_initializer())
            got, got_grad = sess.run([y, grad], {x: xv})
        want = xv @ kernel + 0.5
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got_grad, 2 * want @ kernel.T, rtol=1e-4, atol=1e-4)


def test_tensordot_bad_axes_name_the_shapes():
    a, b = tf.placeholder(tf.float32, (2, 3)), tf.placeholder(tf.float32, (4, 5))
    with pytest.raises(ValueError, match=r"a \[2, 3\] and b \[4, 5\].*axis 1 of a \(3\) and "
                                         r"axis 0 of b \(4\)"):
        tf.tensordot(a, b, 1)
    with pytest.raises(ValueError, match=r"axes=3 must be in \[0, min"):
        tf.tensordot(a, b, 3)
    with pytest.raises(ValueError, match=r"pair 2 axes of a with 1 of b"):
        tf.tensordot(a, b, [[0, 1], [0]])
    with pytest.raises(ValueError, match=r"axes \[2\] of a are out of range"):
        tf.tensordot(a, b, [[2], [0]])
    with pytest.raises(ValueError, match=r"out of range or repeated"):
        tf.tensordot(a, tf.placeholder(tf.float32, (3, 3)), [[1, -1], [0, 1]])
    with pytest.raises(TypeError, match="known when the graph is built"):
        tf.tensordot(a, b, tf.constant(1))
    with pytest.raises(ValueError, match="ranks of a and b"):
        tf.tensordot(tf.placeholder(tf.float32), b, 1)


# -- squared_difference -----------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1), (1, 3))])
def test_squared_difference(shapes, plan_memory):
    check(tf.squared_difference, lambda x, y: (x - y) ** 2,
          [randn(*shapes[0]), randn(*shapes[1], seed=1)], plan_memory)


def test_squared_difference_with_a_number_and_ints(plan_memory):
    n = tf.placeholder(tf.int32, (3,))
    got = run(plan_memory, [tf.squared_difference(n, 2), tf.squared_difference(3.0, 1.0)],
              {n: np.array([0, 2, 5], np.int32)})
    assert got[0].dtype == np.int32
    np.testing.assert_array_equal(got[0], [4, 0, 9])
    assert got[1] == 4.0


# -- reduce_logsumexp -------------------------------------------------------------------------
@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), (1, True), ((0, 2), False),
                                            (-1, True), ((), False)])
def test_reduce_logsumexp(axis, keepdims, plan_memory):
    def ref(x):
        if axis == ():
            return x * 1
        dims = tuple(range(x.dim())) if axis is None else axis
        return torch.logsumexp(x, dims, keepdim=keepdims)
    check(lambda x: tf.reduce_logsumexp(x, axis, keepdims=keepdims), ref, [randn(2, 3, 4)],
          plan_memory)


def test_reduce_logsumexp_is_stable_and_takes_tf_arguments(plan_memory):
    x = tf.placeholder(tf.float32, (2, 3))
    value = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1001.0, -1002.0]], np.float32)
    got = run(plan_memory, [tf.reduce_logsumexp(x, 1), tf.reduce_logsumexp(x, 1, keep_dims=True),
                            tf.reduce_logsumexp(x, reduction_indices=[0])], {x: value})
    want = torch.logsumexp(torch.tensor(value, dtype=F64), 1).numpy()
    np.testing.assert_allclose(got[0], want, rtol=1e-6)
    np.testing.assert_allclose(got[1], want[:, None], rtol=1e-6)
    np.testing.assert_allclose(got[2], torch.logsumexp(torch.tensor(value, dtype=F64), 0),
                               rtol=1e-6)


def test_reduce_logsumexp_infinite_rows_as_tensorflow(plan_memory):
    # TF shifts by max only where it is finite: a row of -inf gives -inf, a +inf gives +inf,
    # and the gradient of a finite row is softmax (no NaN from the other rows)
    inf = np.inf
    x = tf.placeholder(tf.float32, (3, 2))
    value = np.array([[-inf, -inf], [1.0, inf], [0.0, np.log(3.0)]], np.float32)
    out = tf.reduce_logsumexp(x, 1)
    got, grad = run(plan_memory, [out, tf.gradients(out, x)[0]], {x: value})
    np.testing.assert_array_equal(got[:2], [-inf, inf])
    np.testing.assert_allclose(got[2], np.log(4.0), rtol=1e-6)
    np.testing.assert_allclose(grad[2], [0.25, 0.75], rtol=1e-6)
    with pytest.raises(TypeError, match="float tensor, got int32"):
        tf.reduce_logsumexp(tf.constant([1, 2]))


# -- clipping ---------------------------------------------------------------------------------
def tf_clip_by_norm(t, clip_norm, axes=None):
    """TF 1.15's clip_by_norm, in torch (float64)."""
    dims = tuple(range(t.dim())) if axes is None else axes
    l2sum = (t * t).sum(dims, keepdim=True)
    positive = l2sum > 0
    l2norm = torch.where(positive, torch.sqrt(torch.where(positive, l2sum,
                                                          torch.ones_like(l2sum))), l2sum)
    return t * clip_norm / torch.maximum(l2norm, torch.tensor(clip_norm, dtype=t.dtype))


@pytest.mark.parametrize("clip_norm, axes", [(0.5, None), (100.0, None), (1.0, [1]),
                                             (0.8, [0])])
def test_clip_by_norm(clip_norm, axes, plan_memory):
    check(lambda t: tf.clip_by_norm(t, clip_norm, axes=axes),
          lambda t: tf_clip_by_norm(t, clip_norm, axes), [randn(3, 4)], plan_memory)


def test_clip_by_norm_of_zeros_has_a_zero_gradient_and_takes_a_tensor(plan_memory):
    t = tf.placeholder(tf.float32, (3,))
    clip = tf.placeholder(tf.float32, ())
    out = tf.clip_by_norm(t, clip)
    got = run(plan_memory, [out, tf.gradients(out, t)[0]], {t: np.zeros(3, np.float32),
                                                            clip: 1.0})
    np.testing.assert_array_equal(got[0], 0.0)
    np.testing.assert_array_equal(got[1], [1.0, 1.0, 1.0])  # clip / max(0, clip): no NaN
    value = np.array([3.0, 4.0, 0.0], np.float32)
    np.testing.assert_allclose(run(plan_memory, out, {t: value, clip: 2.5}), value / 2,
                               rtol=1e-6)


def test_clip_by_norm_of_a_gradient_through_a_loop_assigned_to_its_variable(plan_memory):
    # The update's (4, 1) reached the division before the norm's (1, 1) was inferred: the
    # broadcasting division must not give its (1, 1) divisor the output's shape.  TF 1.15's
    # numbers (tensorflow 2.21 compat.v1, the same program).
    x, n = tf.placeholder(tf.float32, [None, 5, 3]), tf.placeholder(tf.int32, [None])
    cell = tf.nn.rnn_cell.BasicRNNCell(4)
    out, _ = tf.nn.dynamic_rnn(cell, x, sequence_length=n, dtype=tf.float32)
    w = tf.Variable(np.linspace(-1, 1, 4).reshape(4, 1).astype(np.float32))
    loss = tf.reduce_sum(tf.tensordot(out, w, [[2], [0]]) ** 2)
    step = tf.assign_sub(w, tf.clip_by_norm(tf.gradients(loss, w)[0], 0.5))
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(cell.weights[0], np.cos(np.arange(28)).reshape(7, 4)))
        got = sess.run(step, {x: np.sin(np.arange(30)).reshape(2, 5, 3), n: [5, 2]})
    np.testing.assert_allclose(got.ravel(), [-0.7052592, -0.04582414, 0.3519058, 0.7169428],
                               rtol=1e-5)


def test_clip_by_global_norm_as_tensorflow(plan_memory):
    a, b = tf.placeholder(tf.float32, (2, 3)), tf.placeholder(tf.float32, (4,))
    av, bv = randn(2, 3), randn(4, seed=1)
    norm = np.sqrt((av.astype(np.float64) ** 2).sum() + (bv.astype(np.float64) ** 2).sum())
    for clip_norm in (0.5 * norm, 2.0 * norm):
        clipped, global_norm = tf.clip_by_global_norm([a, None, b], clip_norm)
        assert clipped[1] is None
        got = run(plan_memory, [clipped[0], clipped[2], global_norm, tf.global_norm([a, b])],
                  {a: av, b: bv})
        scale = clip_norm / max(norm, clip_norm)
        np.testing.assert_allclose(got[0], av * scale, rtol=1e-5)
        np.testing.assert_allclose(got[1], bv * scale, rtol=1e-5)
        np.testing.assert_allclose(got[2:], [norm, norm], rtol=1e-6)
    clipped, used = tf.clip_by_global_norm((a,), tf.constant(1.0), use_norm=tf.constant(4.0))
    got = run(plan_memory, [clipped[0], used], {a: av})
    np.testing.assert_allclose(got[0], av / 4, rtol=1e-6)
    assert got[1] == 4.0
    inf = tf.constant([np.inf, 1.0])
    clipped, _ = tf.clip_by_global_norm([inf, a], 1.0)  # TF: NaN when the norm is not finite
    assert np.isnan(run(plan_memory, clipped[1], {a: av})).all()


def test_clip_by_global_norm_gradient(plan_memory):
    def ref(a, b):
        norm = torch.sqrt((a * a).sum() + (b * b).sum())
        scale = 1.0 * torch.minimum(1.0 / norm, torch.tensor(1.0, dtype=F64))
        return torch.cat([(a * scale).reshape(-1), (b * scale).reshape(-1)])

    def build(a, b):
        clipped, _ = tf.clip_by_global_norm([a, b], 1.0)
        return tf.concat([tf.reshape(clipped[0], [-1]), clipped[1]], 0)
    check(build, ref, [randn(2, 3), randn(4, seed=1)], plan_memory)


def test_clipping_bad_input():
    with pytest.raises(TypeError, match="t_list should be a sequence"):
        tf.clip_by_global_norm(tf.constant([1.0]), 1.0)
    with pytest.raises(ValueError, match="holds no tensor"):
        tf.global_norm([None])
    with pytest.raises(TypeError, match="clip_by_norm takes a float tensor"):
        tf.clip_by_norm(tf.constant([1, 2]), 1.0)


def test_clip_by_average_norm(plan_memory):
    t = tf.placeholder(tf.float32, (2, 3))
    value = randn(2, 3) * 4
    for clip_norm in (0.1, 10.0):
        got = run(plan_memory, tf.clip_by_average_norm(t, clip_norm), {t: value})
        average = np.sqrt((value.astype(np.float64) ** 2).sum()) / value.size
        np.testing.assert_allclose(got, value * clip_norm / max(average, clip_norm), rtol=1e-5)


# -- confusion_matrix -------------------------------------------------------------------------
def test_confusion_matrix_counts_as_tensorflow(plan_memory):
    labels, predictions = np.array([1, 2, 4, 2, 0]), np.array([2, 2, 4, 1, 0])
    want = np.zeros((5, 5), np.int32)
    np.add.at(want, (labels, predictions), 1)
    weights = np.array([0.5, 1.0, 2.0, 0.25, 3.0], np.float32)
    weighted = np.zeros((5, 5), np.float64)
    np.add.at(weighted, (labels, predictions), weights)
    got = run(plan_memory, [tf.confusion_matrix(labels, predictions, num_classes=5),
                            tf.math.confusion_matrix(tf.constant(labels, tf.int64),
                                                     predictions.astype(np.float32), 5,
                                                     weights=weights, dtype=tf.float64),
                            tf.confusion_matrix(labels, predictions, tf.constant(6))])
    assert got[0].dtype == np.int32 and got[1].dtype == np.float64
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_allclose(got[1], weighted, rtol=1e-7)
    assert got[2].shape == (6, 6) and got[2].sum() == 5


def test_confusion_matrix_errors():
    labels = tf.placeholder(tf.int32, (4,))
    with pytest.raises(ValueError, match="num_classes as an int"):
        tf.confusion_matrix(labels, labels)
    with pytest.raises(ShapeError, match=r"op 'confusion_matrix'.*labels \(4,\), predictions "
                                         r"\(3,\)"):
        bad = tf.confusion_matrix(labels, tf.constant([0, 1, 2]), 3)
        tf.Session().run(bad, {labels: np.zeros(4, np.int32)})
    out = tf.confusion_matrix(labels, labels, 3)
    with tf.Session() as sess, pytest.raises(Exception, match=r"label 3 is outside the valid "
                                                               r"range \[0, 3\)"):
        sess.run(out, {labels: np.array([0, 1, 3, 2], np.int32)})


# -- l2_normalize -----------------------------------------------------------------------------
def tf_l2_normalize(x, axis, epsilon=1e-12):
    dims = tuple(range(x.dim())) if axis is None else axis
    square_sum = (x * x).sum(dims, keepdim=True)
    return x * torch.rsqrt(torch.clamp_min(square_sum, epsilon))


@pytest.mark.parametrize("axis", [None, 1, [0, 1], -1])
def test_l2_normalize(axis, plan_memory):
    check(lambda x: tf.nn.l2_normalize(x, axis), lambda x: tf_l2_normalize(x, axis),
          [randn(3, 4)], plan_memory)


def test_l2_normalize_epsilon_and_dim(plan_memory):
    x = tf.placeholder(tf.float32, (2, 2))
    value = np.array([[3.0, 4.0], [1e-4, 0.0]], np.float32)
    got = run(plan_memory, [tf.nn.l2_normalize(x, dim=1), tf.math.l2_normalize(x, 1, 0.25)],
              {x: value})
    np.testing.assert_allclose(got[0], [[0.6, 0.8], [1.0, 0.0]], rtol=1e-5)
    np.testing.assert_allclose(got[1], [[0.6, 0.8], [2e-4, 0.0]], rtol=1e-5)  # / sqrt(0.25)
    with pytest.raises(ValueError, match="not both"):
        tf.nn.l2_normalize(x, axis=0, dim=1)


# -- top_k ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, k", [((4, 7), 3), ((2, 3, 5), 5), ((6,), 2), ((3, 4), 0)])
def test_top_k_against_torch(shape, k, plan_memory):
    x = tf.placeholder(tf.float32, shape)
    value = randn(*shape)
    result = tf.nn.top_k(x, k)
    values, indices = run(plan_memory, result, {x: value})
    want = torch.topk(torch.tensor(value), k)
    assert indices.dtype == np.int32 and values.dtype == np.float32
    np.testing.assert_array_equal(values, want.values.numpy())
    np.testing.assert_array_equal(indices, want.indices.numpy())
    assert result.values is result[0] and result.indices is result[1]


def test_top_k_ties_integers_and_k_as_a_constant(plan_memory):
    # TF's TopKV2: equal values come lower index first
    value = np.array([[1, 3, 3, 2, 3], [7, 7, 7, 7, 7]], np.int32)
    x = tf.placeholder(tf.int32, (2, 5))
    got = run(plan_memory, tf.nn.top_k(x, k=tf.constant(4), sorted=False), {x: value})
    assert got.values.dtype == np.int32
    np.testing.assert_array_equal(got.values, [[3, 3, 3, 2], [7, 7, 7, 7]])
    np.testing.assert_array_equal(got.indices, [[1, 2, 4, 3], [0, 1, 2, 3]])


def test_top_k_gradient_goes_to_the_chosen_entries(plan_memory):
    check(lambda x: tf.nn.top_k(x, 3).values, lambda x: torch.topk(x, 3).values,
          [randn(4, 6)], plan_memory)
    check(lambda x: tf.math.top_k(x, 2)[0] * 3.0, lambda x: torch.topk(x, 2).values * 3,
          [randn(2, 3, 4)], plan_memory)


def test_top_k_errors():
    x = tf.placeholder(tf.float32, (2, 3))
    feed = {x: np.zeros((2, 3), np.float32)}
    with pytest.raises(ShapeError, match=r"op 'top_k'.*\(2, 3\) must have at least k=4 columns"):
        tf.Session().run(tf.nn.top_k(x, 4), feed)
    with pytest.raises(ShapeError, match="at least k=1"):
        tf.Session().run(tf.nn.top_k(tf.constant(1.0)).values)
    with pytest.raises(ValueError, match="non-negative"):
        tf.nn.top_k(x, -1)
    with pytest.raises(TypeError, match="known when the graph is built"):
        tf.nn.top_k(x, tf.reduce_sum(tf.constant([1, 1])))


# -- lrn --------------------------------------------------------------------------------------
def torch_lrn_via_torch(x, radius, bias, alpha, beta):
    """torch's local_response_norm on the NCHW view: its alpha is divided by the size."""
    size = 2 * radius + 1
    nchw = x.permute(0, 3, 1, 2)
    return F.local_response_norm(nchw, size, alpha * size, beta, bias).permute(0, 2, 3, 1)


@pytest.mark.parametrize("radius, bias, alpha, beta", [(5, 1.0, 1.0, 0.5), (2, 2.0, 1e-4, 0.75),
                                                       (1, 1.0, 0.5, 1.0)])
def test_lrn_against_torch(radius, bias, alpha, beta, plan_memory):
    check(lambda x: tf.nn.local_response_normalization(x, radius, bias, alpha, beta),
          lambda x: torch_lrn_via_torch(x, radius, bias, alpha, beta), [randn(2, 3, 4, 8)],
          plan_memory)


def test_lrn_defaults_float64_and_errors(plan_memory):
    x = tf.placeholder(tf.float64, (1, 2, 2, 3))
    value = np.random.default_rng(0).standard_normal((1, 2, 2, 3))
    got = run(plan_memory, tf.nn.lrn(x), {x: value})
    assert got.dtype == np.float64
    # depth_radius 5 covers all 3 channels: y = x / sqrt(1 + sum over channels of x ** 2)
    want = value / np.sqrt(1.0 + (value ** 2).sum(-1, keepdims=True))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(ShapeError, match=r"op 'lrn'.*must be 4-D.*\(2, 3\)"):
        tf.Session().run(tf.nn.lrn(tf.constant(np.ones((2, 3), np.float32))))


# -- xw_plus_b, relu_layer ----------------------------------------------------------------------
def test_xw_plus_b_and_relu_layer(plan_memory):
    check(lambda x, w, b: tf.nn.xw_plus_b(x, w, b), lambda x, w, b: x @ w + b,
          [randn(3, 4), randn(4, 5, seed=1), randn(5, seed=2)], plan_memory)
    x, w, b = randn(3, 4), randn(4, 5, seed=1), randn(5, seed=2)
    got = run(plan_memory, tf.nn.relu_layer(tf.constant(x), tf.constant(w), tf.constant(b)))
    np.testing.assert_allclose(got, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)


# -- dropout in other float types ---------------------------------------------------------------
@pytest.mark.parametrize("dtype", [tf.float16, tf.float64])
def test_dropout_keep_prob_takes_the_dtype_of_x(dtype, plan_memory):
    x = tf.placeholder(dtype, (50, 40))
    value = np.ones((50, 40), dtype.as_numpy_dtype)
    outs = [tf.nn.dropout(x, keep_prob=0.5, seed=1), tf.nn.dropout(x, rate=0.75, seed=2)]
    grad = tf.gradients(tf.reduce_sum(outs[0]), x)[0]
    kept_half, kept_quarter, g = run(plan_memory, outs + [grad], {x: value})
    assert kept_half.dtype == kept_quarter.dtype == g.dtype == dtype.as_numpy_dtype
    assert set(np.unique(kept_half)) <= {0.0, 2.0} and set(np.unique(kept_quarter)) <= {0.0, 4.0}
    assert 0.4 < (kept_half > 0).mean() < 0.6 and 0.17 < (kept_quarter > 0).mean() < 0.33
    np.testing.assert_array_equal(g, kept_half)  # mask * 1
    with pytest.raises(Exception, match="float16|float64"):
        tf.nn.dropout(x, keep_prob=tf.placeholder(tf.float32, ()))


# -- small compositions ---------------------------------------------------------------------------
def test_finite_nan_inf_reciprocal_and_log_sigmoid(plan_memory):
    x = tf.placeholder(tf.float32, (5,))
    value = np.array([1.0, -np.inf, np.inf, np.nan, -200.0], np.float32)
    got = run(plan_memory, [tf.is_finite(x), tf.is_nan(x), tf.is_inf(x), tf.reciprocal(x),
                            tf.log_sigmoid(x), tf.math.log_sigmoid(-x)], {x: value})
    np.testing.assert_array_equal(got[0], [True, False, False, False, True])
    np.testing.assert_array_equal(got[1], [False, False, False, True, False])
    np.testing.assert_array_equal(got[2], [False, True, True, False, False])
    np.testing.assert_allclose(got[3], 1.0 / value, rtol=1e-6)
    np.testing.assert_allclose(got[4][[0, 4]], [np.log(1 / (1 + np.exp(-1.0))), -200.0],
                               rtol=1e-6)
    assert got[5][4] == 0.0 and np.isnan(got[5][3])
    check(tf.log_sigmoid, lambda x: F.logsigmoid(x), [randn(3, 4)], plan_memory)
    check(tf.reciprocal, lambda x: 1 / x, [randn(3, 4) + 3.0], plan_memory)
    with pytest.raises(TypeError, match="is_nan takes a float tensor"):
        tf.is_nan(tf.constant([1]))


def test_count_nonzero_and_scalar_mul(plan_memory):
    value = np.array([[0.0, 1.5, 0.0], [2.0, -1.0, 0.0]], np.float32)
    flags = np.array([True, False, True])
    got = run(plan_memory, [tf.count_nonzero(value), tf.count_nonzero(value, 1, keepdims=True),
                            tf.count_nonzero(flags, dtype=tf.int32),
                            tf.scalar_mul(2.0, tf.constant(value)),
                            tf.scalar_mul(tf.constant(-1.0), tf.constant(value))])
    assert got[0] == 3 and got[0].dtype == np.int64
    np.testing.assert_array_equal(got[1], [[1], [2]])
    assert got[2] == 2 and got[2].dtype == np.int32
    np.testing.assert_array_equal(got[3], value * 2)
    np.testing.assert_array_equal(got[4], -value)
    with pytest.raises(ValueError, match="0-D"):
        tf.scalar_mul(tf.constant([1.0, 2.0]), tf.constant(value))


@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, True), ([0, 2], False)])
def test_variance_std_and_euclidean_norm(axis, keepdims, plan_memory):
    dims = None if axis is None else axis

    def var(x):
        d = tuple(range(x.dim())) if dims is None else tuple(dims) if isinstance(
            dims, list) else dims
        return x.var(d, unbiased=False, keepdim=keepdims)

    def norm(x):
        d = tuple(range(x.dim())) if dims is None else dims
        return torch.sqrt((x * x).sum(d, keepdim=keepdims))
    values = [randn(2, 3, 4)]
    check(lambda x: tf.math.reduce_variance(x, axis, keepdims), var, values, plan_memory)
    check(lambda x: tf.math.reduce_std(x, axis, keepdims), lambda x: torch.sqrt(var(x)), values,
          plan_memory)
    check(lambda x: tf.math.reduce_euclidean_norm(x, axis, keepdims), norm, values, plan_memory)


def test_math_errors_run_time_name_the_node():
    # an id out of range when the graph runs names the op's node
    ids = tf.placeholder(tf.int32, (2,))
    out = tf.confusion_matrix(ids, ids, 2, name="cm")
    with tf.Session() as sess, pytest.raises(Exception, match="cm") as error:
        sess.run(out, {ids: np.array([0, -1], np.int32)})
    assert "label -1" in str(error.value)
    assert not isinstance(error.value, BindError)
