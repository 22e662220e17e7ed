"""TF-1's sparse tensors (tinyflow/frontend/sparse_ops.py, ops/sparse.py): tf.SparseTensor,
SparseTensorValue fetches and feeds, sparse_placeholder and its checked feeds, to_dense,
sparse_tensor_dense_matmul, sparse_reduce_sum, sparse_add, reorder, retain, from_dense,
softmax, reshape and tf.nn.embedding_lookup_sparse.

Numbers marked "real TF" were printed by TensorFlow 2.21's tf.compat.v1 (graph mode, CPU) on
the same inputs and written down here; the rest compare with torch (torch.sparse.mm,
index_add_ and autograd on float64) or numpy.  The ops' own table (both ops against torch,
finite differences, planning on and off) is tests/op_cases_sparse.py.
"""
import re

import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.nnvm.errors import InvalidArgumentError

pytestmark = pytest.mark.usefixtures("fresh_graph")  # each test its own default graph
INDICES = [[0, 0], [0, 3], [1, 1], [2, 0], [2, 2]]
VALUES = np.array([1.5, -2.0, 0.5, -1.0, 3.0], np.float32)


def _session(plan_memory=True):
    return tf.Session(plan_memory=plan_memory)


def _b(shape):
    return (np.arange(np.prod(shape)).reshape(shape) * 0.25 - 1).astype(np.float32)


# -- the object, the placeholder, fetches and feeds --------------------------------------------
def test_sparse_tensor_holds_three_tensors():
    sp = tf.SparseTensor(INDICES, VALUES, [3, 4])
    assert sp.indices.dtype == tf.int64 and sp.dense_shape.dtype == tf.int64
    assert sp.dtype == tf.float32 and sp.values.dtype == tf.float32
    assert sp.shape.as_list() == [3, 4] and sp.get_shape().as_list() == [3, 4]
    assert repr(sp).startswith("SparseTensor(indices=")
    assert isinstance(sp, tf.SparseTensor) and not isinstance(sp, tf.Tensor)
    with pytest.raises(ValueError, match="rank 2"):
        tf.SparseTensor([0, 1], [1.0, 2.0], [3])
    with pytest.raises(ValueError, match="int32"):  # TF: indices convert to int64 only
        tf.SparseTensor(tf.constant(INDICES), VALUES, [3, 4])


def test_sparse_placeholder_parts():
    sp = tf.sparse_placeholder(tf.float32, name="sp")
    assert [t.name for t in (sp.indices, sp.values, sp.dense_shape)] == [
        "sp/indices:0", "sp/values:0", "sp/shape:0"]  # real TF's names
    assert sp.shape.ndims is None
    known = tf.sparse_placeholder(tf.float32, shape=[3, 4], name="known")
    assert known.shape.as_list() == [3, 4] and known.indices.get_shape().as_list() == [None, 2]
    partly = tf.sparse_placeholder(tf.float32, shape=[None, 4], name="partly")
    assert partly.shape.as_list() == [None, 4]  # TF 2's static shape; 1.15 knew the rank only
    assert partly.dense_shape.op.type == "Placeholder"


def test_fetch_gives_a_sparse_tensor_value_and_feeds_take_one(plan_memory):
    sp = tf.sparse_placeholder(tf.float32, name="sp")
    doubled = tf.SparseTensor(sp.indices, sp.values * 2, sp.dense_shape)
    value = tf.SparseTensorValue(INDICES, VALUES, [3, 4])
    with _session(plan_memory) as sess:
        got = sess.run(doubled, {sp: value})
        as_tuple = sess.run({"sp": sp, "n": [doubled.values]}, {sp: (INDICES, VALUES, [3, 4])})
    assert isinstance(got, tf.SparseTensorValue)
    np.testing.assert_array_equal(got.indices, INDICES)
    np.testing.assert_array_equal(got.values, VALUES * 2)
    np.testing.assert_array_equal(got.dense_shape, [3, 4])
    assert got.indices.dtype == np.int64 and got.dense_shape.dtype == np.int64
    np.testing.assert_array_equal(as_tuple["sp"].values, VALUES)
    np.testing.assert_array_equal(as_tuple["n"][0], VALUES * 2)
    constant = tf.SparseTensor(INDICES, VALUES, [3, 4])
    with _session(plan_memory) as sess:
        assert sess.run(constant).values.tolist() == VALUES.tolist()
        assert constant.eval(session=sess).dense_shape.tolist() == [3, 4]


@pytest.mark.parametrize("feed, message", [
    ((INDICES[:4] + [[3, 0]], VALUES, [3, 4]),
     r"indices\[4\] = \[3, 0\] is out of bounds: need 0 <= index < \[3, 4\]"),
    (([[0, -1]] + INDICES[1:], VALUES, [3, 4]), r"indices\[0\] = \[0, -1\] is out of bounds"),
    (([[0], [1], [2], [0], [1]], VALUES, [3, 4]), r"indices must have shape \[N, 2\]"),
    ((INDICES, VALUES[:3], [3, 4]), r"values must have shape \[5\]"),
    ((INDICES, VALUES, [3, -4]), "negative dimension"),
    ((np.asarray(INDICES, float) + 0.5, VALUES, [3, 4]), "indices must be integers"),
    ((INDICES, VALUES, [[3, 4]]), "dense_shape must be a vector"),
    (([[0, 0], [1]], [1.0, 2.0], [3, 4]), "indices is not a regular array"),
    ("indices", "must be a tf.SparseTensorValue or an"),
])
def test_a_bad_feed_names_the_placeholder_and_changes_nothing(feed, message):
    sp = tf.sparse_placeholder(tf.float32, name="words")
    dense = tf.sparse.to_dense(tf.sparse.reorder(sp))
    good = tf.SparseTensorValue(INDICES, VALUES, [3, 4])
    with _session() as sess:
        before = sess.run(dense, {sp: good})
        with pytest.raises((ValueError, TypeError), match=message) as raised:
            sess.run(dense, {sp: feed})
        assert "sparse placeholder 'words'" in str(raised.value)
        np.testing.assert_array_equal(sess.run(dense, {sp: good}), before)


def test_known_rank_is_checked_in_feeds():
    sp = tf.sparse_placeholder(tf.float32, shape=[None, 4], name="rows")
    with _session() as sess, pytest.raises(ValueError, match="sparse placeholder 'rows'"):
        sess.run(sp.values, {sp: ([[0, 0, 0]], [1.0], [2, 4, 1])})


# -- to_dense ------------------------------------------------------------------------------------
def test_to_dense_and_its_gradients_match_tf(plan_memory):
    values, default = tf.constant(VALUES), tf.constant(0.5)
    dense = tf.sparse.to_dense(tf.SparseTensor(INDICES, values, [3, 4]), default_value=default)
    weights = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    grads = tf.gradients(tf.reduce_sum(dense * weights), [values, default])
    with _session(plan_memory) as sess:
        got, values_grad, default_grad = sess.run([dense] + grads)
    # real TF
    np.testing.assert_array_equal(got, [[1.5, 0.5, 0.5, -2.0], [0.5, 0.5, 0.5, 0.5],
                                        [-1.0, 0.5, 3.0, 0.5]])
    np.testing.assert_array_equal(values_grad, [0.0, 3.0, 5.0, 8.0, 10.0])
    assert default_grad == 40.0


@pytest.mark.parametrize("indices, message", [
    ([[0, 0], [3, 2]], r"indices\[1\] = \[3,2\] is out of bounds: need 0 <= index < \[3,4\]"),
    ([[0, 0], [-1, 2]], r"indices\[1\] = \[-1,2\] is out of bounds"),
    ([[1, 0], [0, 2]], r"indices\[1\] = \[0,2\] is out of order"),
    ([[1, 0], [1, 0]], r"indices\[1\] = \[1,0\] is repeated"),
])
def test_to_dense_refuses_indices_as_tf(indices, message):
    # TF's messages (real TF), from an in-graph sparse tensor: the op checks them
    dense = tf.sparse.to_dense(tf.SparseTensor(indices, [1.0, 2.0], [3, 4]), name="dense")
    with _session() as sess, pytest.raises(InvalidArgumentError, match=message) as raised:
        sess.run(dense)
    assert re.search(r"node 'dense(_\d+)?'", str(raised.value))


def test_to_dense_without_validation_takes_the_last_of_repeats():
    sp = tf.SparseTensor([[1, 0], [1, 0], [0, 1]], [1.0, 2.0, 3.0], [2, 3])
    dense = tf.sparse_tensor_to_dense(sp, default_value=-1.0, validate_indices=False)
    with _session() as sess:  # real TF
        np.testing.assert_array_equal(sess.run(dense), [[-1, 3, -1], [2, -1, -1]])


def test_sparse_to_dense_forms_match_tf():
    outs = [tf.sparse_to_dense([1, 3], [5], 2.0), tf.sparse_to_dense(2, [4], 5, -1),
            tf.sparse_to_dense([[0, 1], [1, 2]], [2, 3], [4.0, 5.0], 1.0)]
    assert [o.get_shape().as_list() for o in outs] == [[5], [4], [2, 3]]
    with _session() as sess:
        got = sess.run(outs)
    # real TF
    np.testing.assert_array_equal(got[0], [0, 2, 0, 2, 0])
    assert got[1].dtype == np.int32 and got[1].tolist() == [-1, -1, 5, -1]
    np.testing.assert_array_equal(got[2], [[1, 4, 1], [1, 1, 5]])


def test_a_huge_fed_dense_shape_is_refused_before_it_is_allocated():
    sp = tf.sparse_placeholder(tf.float32, name="huge")
    dense = tf.sparse.to_dense(sp)
    with _session() as sess:
        with pytest.raises(tf.errors.ResourceExhaustedError):
            sess.run(dense, {sp: ([[0, 0]], [1.0], [2 ** 31, 2 ** 31])})
        assert sess.run(dense, {sp: ([[0, 1]], [1.0], [1, 2])}).tolist() == [[0, 1]]


# -- sparse_tensor_dense_matmul -----------------------------------------------------------------
# real TF: op(a) @ op(b) and the gradients of sum(m * m) to a's values and to b
MATMUL_TF = {
    (False, False): ([[-2.5, -2.625], [-0.25, -0.125], [1.0, 1.5]],
                     [8.9375, -6.4375, 0.3125, -4.25, 0.75],
                     [[-9.5, -10.875], [-0.25, -0.125], [6.0, 9.0], [10.0, 10.5]]),
    (True, False): ([[-1.5, -1.375], [-0.25, -0.125], [0.0, 0.75], [2.0, 1.5]],
                    [5.0625, -6.25, 0.3125, -0.6875, 0.375],
                    [[-12.5, -10.125], [-0.25, -0.125], [3.0, 7.25]]),
    (False, True): ([[-1.0, -1.5], [-0.375, 0.125], [-0.5, 1.5]],
                    [2.0, -1.75, 0.625, 1.0, 2.0],
                    [[-2.0, -0.375, -3.0, 4.0], [-7.5, 0.125, 9.0, 6.0]]),
    (True, True): ([[-1.0, -0.625], [-0.375, 0.0], [-1.5, 0.75], [2.0, 0.5]],
                   [2.3125, -4.25, 0.5625, 0.6875, 1.875],
                   [[-11.0, -0.375, -7.0], [-3.875, 0.0, 5.75]]),
}


@pytest.mark.parametrize("adjoints", list(MATMUL_TF), ids=str)
def test_matmul_and_its_gradients_match_tf(adjoints, plan_memory):
    adjoint_a, adjoint_b = adjoints
    inner = 3 if adjoint_a else 4
    values = tf.constant(VALUES)
    b = tf.constant(_b((2, inner) if adjoint_b else (inner, 2)))
    product = tf.sparse.matmul(tf.SparseTensor(INDICES, values, [3, 4]), b,
                               adjoint_a=adjoint_a, adjoint_b=adjoint_b)
    assert product.get_shape().as_list() == [4 if adjoint_a else 3, 2]
    grads = tf.gradients(tf.reduce_sum(product * product), [values, b])
    with _session(plan_memory) as sess:
        got = sess.run([product] + grads)
    for value, want in zip(got, MATMUL_TF[adjoints]):
        np.testing.assert_allclose(value, want, rtol=1e-6)


def test_matmul_matches_torch_sparse_on_a_fed_bag_of_words(plan_memory):
    rng = np.random.default_rng(0)
    flat = rng.choice(20 * 50, size=60, replace=False)
    indices = np.sort(flat).reshape(-1, 1) // [50, 1] % [20, 50]
    values = rng.standard_normal(60).astype(np.float32)
    weights = rng.standard_normal((50, 8)).astype(np.float32)
    sp = tf.sparse_placeholder(tf.float32, name="words")
    w = tf.placeholder(tf.float32, [50, 8])
    logits = tf.sparse_tensor_dense_matmul(sp, w)
    loss = tf.reduce_sum(tf.tanh(logits))
    grads = tf.gradients(loss, [sp.values, w])
    with _session(plan_memory) as sess:
        got = sess.run([logits] + grads, {sp: (indices, values, [20, 50]), w: weights})
    tv = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    tw = torch.tensor(weights, dtype=torch.float64, requires_grad=True)
    a = torch.sparse_coo_tensor(torch.tensor(indices.T), tv, (20, 50), check_invariants=True)
    want = torch.sparse.mm(a, tw)
    want_grads = torch.autograd.grad(torch.tanh(want).sum(), [tv, tw])
    np.testing.assert_allclose(got[0], want.detach().numpy(), rtol=1e-5, atol=1e-5)
    for value, expected in zip(got[1:], want_grads):
        np.testing.assert_allclose(value, expected.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("indices, shape, message", [
    ([[0, 0], [1, 7]], [3, 4], r"k \(7\) from index\[1,1\] out of bounds \(>=4\)"),  # real TF
    ([[0, 0], [5, 1]], [3, 4], r"m \(5\) from index\[1,0\] out of bounds \(>=3\)"),  # real TF
    ([[0, 0], [1, 2]], [3, 3], "inner dimension does not match: 3 vs. 4"),
])
def test_matmul_refuses_what_tf_refuses(indices, shape, message):
    product = tf.sparse_tensor_dense_matmul(tf.SparseTensor(indices, [1.0, 2.0], shape),
                                            tf.ones([4, 2]), name="product")
    with _session() as sess, pytest.raises(InvalidArgumentError, match=message) as raised:
        sess.run(product)
    assert re.search(r"node 'product(_\d+)?'", str(raised.value))


def test_training_a_linear_model_on_sparse_features_matches_torch():
    rng = np.random.default_rng(1)
    indices = np.array([[0, 1], [0, 4], [1, 0], [1, 2], [1, 5], [2, 3], [3, 1], [3, 5]])
    values = np.ones(len(indices), np.float32)
    labels = np.array([[1.0], [0.0], [1.0], [0.0]], np.float32)
    start = rng.standard_normal((6, 1)).astype(np.float32)
    sp = tf.sparse_placeholder(tf.float32, name="features")
    y = tf.placeholder(tf.float32, [None, 1])
    w = tf.Variable(start)
    logits = tf.sparse_tensor_dense_matmul(sp, w)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    tw = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    dense = torch.zeros(4, 6, dtype=torch.float64)
    dense[tuple(torch.tensor(indices).t())] = 1.0
    with _session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            sess.run(step, {sp: (indices, values, [4, 6]), y: labels})
            torch_loss = torch.nn.functional.binary_cross_entropy_with_logits(
                dense @ tw, torch.tensor(labels, dtype=torch.float64))
            (grad,) = torch.autograd.grad(torch_loss, [tw])
            tw = (tw - 0.5 * grad).detach().requires_grad_(True)
        np.testing.assert_allclose(sess.run(w), tw.detach().numpy(), rtol=1e-5, atol=1e-6)


# -- reductions, additions, reorder, retain, from_dense ------------------------------------------
@pytest.mark.parametrize("axis, keepdims, want, grad", [  # real TF: sum, and d sum(r * r)
    (None, False, 2.0, [4.0] * 5),
    (0, False, [0.5, 0.5, 3.0, -2.0], [1.0, -4.0, 1.0, 1.0, 6.0]),
    (1, True, [[-0.5], [0.5], [2.0]], [-1.0, -1.0, 1.0, 4.0, 4.0]),
    ([0, 1], False, 2.0, [4.0] * 5),
    (-1, False, [-0.5, 0.5, 2.0], [-1.0, -1.0, 1.0, 4.0, 4.0]),
])
def test_sparse_reduce_sum_matches_tf(axis, keepdims, want, grad, plan_memory):
    values = tf.constant(VALUES)
    total = tf.sparse_reduce_sum(tf.SparseTensor(INDICES, values, [3, 4]), axis=axis,
                                 keepdims=keepdims)
    with _session(plan_memory) as sess:
        got, got_grad = sess.run([total, tf.gradients(tf.reduce_sum(total * total), values)[0]])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got_grad, grad, rtol=1e-6)


def test_sparse_reduce_sum_adds_repeated_indices():
    sp = tf.SparseTensor([[1, 0], [1, 0], [0, 1]], [1.0, 2.0, 3.0], [2, 3])
    with _session() as sess:  # real TF
        got = sess.run([tf.sparse.reduce_sum(sp, 1), tf.sparse.reduce_sum(sp, keepdims=True)])
    np.testing.assert_array_equal(got[0], [3.0, 3.0])
    np.testing.assert_array_equal(got[1], [[6.0]])


def test_sparse_add_to_a_dense_tensor(plan_memory):
    values, dense = tf.constant([1.0, 2.0, 3.0]), tf.ones([2, 3])
    sp = tf.SparseTensor([[1, 0], [1, 0], [0, 1]], values, [2, 3])
    total = tf.sparse_add(sp, dense)
    assert total.get_shape().as_list() == [2, 3]
    grads = tf.gradients(tf.reduce_sum(total * tf.constant([[1.0, 2, 3], [4, 5, 6]])),
                         [values, dense])
    with _session(plan_memory) as sess:
        got, values_grad, dense_grad = sess.run([total] + grads)
    np.testing.assert_array_equal(got, [[1, 4, 1], [4, 1, 1]])  # real TF
    np.testing.assert_array_equal(values_grad, [4, 4, 2])
    np.testing.assert_array_equal(dense_grad, [[1, 2, 3], [4, 5, 6]])
    with _session() as sess:
        np.testing.assert_array_equal(sess.run(tf.sparse.add(dense, sp)), got)


def test_reorder_retain_and_from_dense_match_tf(plan_memory):
    sp = tf.SparseTensor([[1, 0], [0, 2], [0, 1]], [1.0, 2.0, 3.0], [2, 3])
    reordered = tf.sparse.reorder(sp)
    retained = tf.sparse_retain(sp, [True, False, True])
    sparse = tf.sparse.from_dense(tf.constant([[0, 1.0], [2, 0]]))
    with _session(plan_memory) as sess:
        got = sess.run([reordered, retained, sparse])
    # real TF
    assert got[0].indices.tolist() == [[0, 1], [0, 2], [1, 0]]
    assert got[0].values.tolist() == [3.0, 2.0, 1.0]
    assert got[1].indices.tolist() == [[1, 0], [0, 1]] and got[1].values.tolist() == [1.0, 3.0]
    assert got[2].indices.tolist() == [[0, 1], [1, 0]] and got[2].values.tolist() == [1.0, 2.0]
    assert got[2].dense_shape.tolist() == [2, 2]
    with pytest.raises(ValueError, match="to_retain"):
        tf.sparse_retain(sp, [True, False])


# real TF: a + b of two sparse tensors at thresholds 0 and 5.5, and the gradients of
# sum(c.values * [1, 2, ...]) to a's and b's values
SPARSE_SUM_TF = {
    0.0: ([[0, 0], [0, 1], [1, 0], [2, 1], [2, 2]], [0.5, 1.0, 5.0, 4.0, -5.0], [2, 3, 5],
          [1, 3, 4, 5]),
    5.5: ([[0, 0], [0, 1], [2, 1]], [0.5, 1.0, 4.0], [2, 0, 0], [1, 0, 3, 0]),
}


@pytest.mark.parametrize("threshold", list(SPARSE_SUM_TF))
def test_sparse_add_of_two_sparse_tensors_matches_tf(threshold, plan_memory):
    a_values, b_values = tf.constant([1.0, 2.0, -3.0]), tf.constant([0.5, 3.0, 4.0, -2.0])
    a = tf.SparseTensor([[0, 1], [1, 0], [2, 2]], a_values, [3, 3])
    b = tf.SparseTensor([[0, 0], [1, 0], [2, 1], [2, 2]], b_values, [3, 3])
    total = tf.sparse.add(a, b, threshold=threshold)
    grads = tf.gradients(tf.reduce_sum(total.values * tf.cumsum(tf.ones_like(total.values))),
                         [a_values, b_values])
    with _session(plan_memory) as sess:
        got, a_grad, b_grad = sess.run([total] + grads)
    indices, values, want_a, want_b = SPARSE_SUM_TF[threshold]
    assert got.indices.tolist() == indices and got.values.tolist() == values
    assert got.dense_shape.tolist() == [3, 3]
    assert a_grad.tolist() == want_a and b_grad.tolist() == want_b
    with pytest.raises(ValueError, match=r"Shapes \(3, 3\) and \(3, 4\) are incompatible"):
        tf.sparse.add(a, tf.SparseTensor([[0, 0]], [1.0], [3, 4]))  # real TF's message


def test_sparse_transpose_matches_tf():
    sp = tf.SparseTensor([[0, 1], [1, 0], [2, 2], [0, 2]], [1.0, 2.0, 3.0, 4.0], [3, 4])
    with _session() as sess:
        got = sess.run(tf.sparse.transpose(sp))
    # real TF
    assert got.indices.tolist() == [[0, 1], [1, 0], [2, 0], [2, 2]]
    assert got.values.tolist() == [2.0, 1.0, 4.0, 3.0] and got.dense_shape.tolist() == [4, 3]


def test_reorder_then_to_dense_of_a_fed_unordered_tensor_matches_numpy():
    rng = np.random.default_rng(2)
    flat = rng.choice(6 * 7 * 5, size=40, replace=False)  # unordered, distinct
    indices = np.stack(np.unravel_index(flat, (6, 7, 5)), axis=1)
    values = rng.standard_normal(40).astype(np.float32)
    sp = tf.sparse_placeholder(tf.float32, name="cube")
    dense = tf.sparse.to_dense(tf.sparse.reorder(sp))
    want = np.zeros((6, 7, 5), np.float32)
    want[tuple(indices.T)] = values
    with _session() as sess:
        np.testing.assert_array_equal(sess.run(dense, {sp: (indices, values, [6, 7, 5])}), want)


# -- embedding_lookup_sparse ---------------------------------------------------------------------
# real TF (2.21, whose mean and sqrtn divide with div_no_nan: an empty row is 0 there; TF 1.15's
# math_ops.div gives 0 / 0 = nan, as here): the result and the gradients of sum(e * W) to
# params and the weights
EMBEDDING_TF = {
    ("sum", False): ([[-0.6, -0.3, 0.0], [0, 0, 0], [0.5, 0.6, 0.7], [-0.7, -0.6, -0.5]],
                     [[0.9, 1.0, 1.1], [0.0, 0.2, 0.4], [0, 0, 0], [0.0, 0.1, 0.2],
                      [0.6, 0.7, 0.8]], None),
    ("sum", True): ([[-0.2, 0.15, 0.5], [0, 0, 0], [-0.75, -0.9, -1.05],
                     [-0.175, -0.15, -0.125]],
                    [[0.225, 0.25, 0.275], [0.0, 0.15, 0.3], [0, 0, 0], [0.0, 0.2, 0.4],
                     [-0.9, -1.05, -1.2]], [-0.07, 0.11, -0.07, 1.28, -1.78]),
    ("mean", False): ([[-0.2, -0.1, 0.0], [0, 0, 0], [0.5, 0.6, 0.7], [-0.7, -0.6, -0.5]],
                      [[0.9, 1.0, 1.1], [0.0, 0.0666667, 0.1333333], [0, 0, 0],
                       [0.0, 0.0333333, 0.0666667], [0.6, 0.7, 0.8]], None),
    ("mean", True): ([[-0.0571429, 0.0428571, 0.1428571], [np.nan] * 3, [0.5, 0.6, 0.7],
                      [-0.7, -0.6, -0.5]],
                     [[0.9, 1.0, 1.1], [0.0, 0.0428571, 0.0857143], [0, 0, 0],
                      [0.0, 0.0571429, 0.1142857], [0.6, 0.7, 0.8]],
                     [-0.0293878, 0.0220408, -0.0293878, 0.0, 0.0]),
    ("sqrtn", False): ([[-0.3464102, -0.1732051, 0.0], [0, 0, 0], [0.5, 0.6, 0.7],
                        [-0.7, -0.6, -0.5]],
                       [[0.9, 1.0, 1.1], [0.0, 0.1154701, 0.2309401], [0, 0, 0],
                        [0.0, 0.0577350, 0.1154701], [0.6, 0.7, 0.8]], None),
    ("sqrtn", True): ([[-0.0872872, 0.0654654, 0.2182179], [np.nan] * 3, [-0.5, -0.6, -0.7],
                       [-0.7, -0.6, -0.5]],
                      [[0.9, 1.0, 1.1], [0.0, 0.0654654, 0.1309307], [0, 0, 0],
                       [0.0, 0.0872872, 0.1745743], [-0.6, -0.7, -0.8]],
                      [-0.0401105, 0.0288879, -0.0353305, 0.0, 0.0]),
}
IDS = [[0, 0], [0, 1], [0, 2], [2, 0], [3, 1]]


@pytest.mark.parametrize("combiner, weighted", list(EMBEDDING_TF), ids=str)
def test_embedding_lookup_sparse_matches_tf(combiner, weighted, plan_memory):
    params = tf.constant((np.arange(15).reshape(5, 3) * 0.1 - 0.7).astype(np.float32))
    ids = tf.SparseTensor(IDS, tf.constant([1, 3, 1, 4, 0], tf.int64), [4, 3])
    weight_values = tf.constant([1.0, 2.0, 0.5, -1.5, 0.25])
    weights = tf.SparseTensor(IDS, weight_values, [4, 3]) if weighted else None
    found = tf.nn.embedding_lookup_sparse(params, ids, weights, combiner=combiner)
    rows = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) * 0.1)
    wrt = [params] + ([weight_values] if weighted else [])
    grads = [tf.convert_to_tensor(g) for g in tf.gradients(tf.reduce_sum(found * rows), wrt)]
    with _session(plan_memory) as sess:
        got = sess.run([found] + grads)
    for value, want in zip(got, EMBEDDING_TF[(combiner, weighted)]):
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)


def test_embedding_lookup_sparse_matches_torch_index_add():
    rng = np.random.default_rng(3)
    rows = np.repeat(np.arange(8), rng.integers(1, 4, 8))
    cols = np.concatenate([np.arange(n) for n in np.bincount(rows)])
    ids = rng.integers(0, 10, len(rows))
    weights = rng.uniform(0.5, 2.0, len(rows)).astype(np.float32)
    table = rng.standard_normal((10, 4)).astype(np.float32)
    sp_ids = tf.sparse_placeholder(tf.int64, name="ids")
    sp_weights = tf.sparse_placeholder(tf.float32, name="weights")
    params = tf.placeholder(tf.float32, [10, 4])
    found = tf.nn.embedding_lookup_sparse(params, sp_ids, sp_weights, combiner="sqrtn")
    grad = tf.convert_to_tensor(tf.gradients(tf.reduce_sum(tf.sin(found)), params)[0])
    indices = np.stack([rows, cols], axis=1)
    feed = {sp_ids: (indices, ids, [8, 3]), sp_weights: (indices, weights, [8, 3]),
            params: table}
    with _session() as sess:
        got, got_grad = sess.run([found, grad], feed)
    tp = torch.tensor(table, dtype=torch.float64, requires_grad=True)
    tw = torch.tensor(weights, dtype=torch.float64)
    index = torch.tensor(rows)
    total = torch.zeros(8, 4, dtype=torch.float64).index_add(0, index, tp[ids] * tw[:, None])
    norm = torch.zeros(8, dtype=torch.float64).index_add(0, index, tw * tw).sqrt()
    want = total / norm[:, None]
    (want_grad,) = torch.autograd.grad(torch.sin(want).sum(), [tp])
    np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_grad, want_grad.numpy(), rtol=1e-4, atol=1e-6)


def test_embedding_lookup_sparse_refuses_what_tf_refuses():
    sp = tf.SparseTensor([[0, 0]], tf.constant([1], tf.int64), [1, 1])
    with pytest.raises(ValueError, match="combiner must be one of"):
        tf.nn.embedding_lookup_sparse(tf.ones([3, 2]), sp, None, combiner="max")
    with pytest.raises(TypeError, match="sp_ids must be SparseTensor"):
        tf.nn.embedding_lookup_sparse(tf.ones([3, 2]), tf.constant([1]), None)


# -- the names -----------------------------------------------------------------------------------
def test_tf_sparse_names_are_the_tf_functions():
    assert tf.sparse.to_dense is tf.sparse_tensor_to_dense
    assert tf.sparse.matmul is tf.sparse.sparse_dense_matmul is tf.sparse_tensor_dense_matmul
    assert tf.sparse.reduce_sum is tf.sparse_reduce_sum
    assert tf.sparse.reorder is tf.sparse_reorder and tf.sparse.retain is tf.sparse_retain
    assert tf.sparse.placeholder is tf.sparse_placeholder and tf.sparse.add is tf.sparse_add
    assert tf.sparse.SparseTensor is tf.SparseTensor
    with pytest.raises(AttributeError, match="tf.sparse.merge is TensorFlow 1.15's"):
        tf.sparse.merge  # noqa: B018


def test_sparse_segment_functions_match_numpy():
    data = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    indices, ids = tf.constant([0, 2, 3, 3]), tf.constant([0, 0, 2, 2])
    with _session() as sess:
        got = sess.run([tf.sparse_segment_sum(data, indices, ids),
                        tf.sparse.segment_mean(data, indices, ids),
                        tf.sparse.segment_sqrt_n(data, indices, ids)])
    rows = np.arange(12, dtype=np.float32).reshape(4, 3)
    total = np.stack([rows[0] + rows[2], np.zeros(3), 2 * rows[3]])
    np.testing.assert_allclose(got[0], total)
    np.testing.assert_allclose(got[1], total / [[2], [1], [2]])
    np.testing.assert_allclose(got[2], total / np.sqrt([[2], [1], [2]]), rtol=1e-6)


def test_a_known_shape_feeds_its_constant_and_a_dense_layer_trains_on_it(plan_memory):
    sp = tf.sparse_placeholder(tf.float32, shape=[None, 6], name="bag")
    dense = tf.sparse.to_dense(sp)
    assert dense.get_shape().as_list() == [None, 6]  # what a layer's weight is made from
    tf.set_random_seed(0)
    logits = tf.layers.dense(dense, 1)
    labels = np.array([[1.0], [0.0], [1.0]], np.float32)
    loss = tf.reduce_mean(tf.square(logits - labels))
    step = tf.train.GradientDescentOptimizer(0.3).minimize(loss)
    feed = {sp: ([[0, 1], [1, 4], [2, 1], [2, 5]], [1.0, 1.0, 1.0, 1.0], [3, 6])}
    with _session(plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, feed)
        for _ in range(30):
            sess.run(step, feed)
        assert sess.run(loss, feed) < first / 10
    known = tf.sparse_placeholder(tf.float32, shape=[2, 3], name="known")
    with _session() as sess:  # dense_shape is a constant; the fed shape is checked and fed
        got = sess.run(tf.sparse.to_dense(known), {known: ([[1, 2]], [5.0], [2, 3])})
        np.testing.assert_array_equal(got, [[0, 0, 0], [0, 0, 5]])
        with pytest.raises(ValueError, match="sparse placeholder 'known'"):
            sess.run(known.values, {known: ([[2, 2]], [5.0], [2, 3])})


def test_an_in_graph_sparse_tensor_can_be_fed():
    sp = tf.SparseTensor([[0, 0]], [1.0], [1, 2])
    dense = tf.sparse.to_dense(sp)
    with _session() as sess:
        np.testing.assert_array_equal(sess.run(dense, {sp: ([[0, 1]], [4.0], [1, 2])}),
                                      [[0, 4]])
        with pytest.raises(ValueError, match="sparse tensor 'SparseTensor"):
            sess.run(dense, {sp: ([[0, 2]], [4.0], [1, 2])})


def test_empty_sparse_tensors_and_empty_dense_shapes():
    sp = tf.sparse_placeholder(tf.float32, name="empty")
    b = tf.placeholder(tf.float32, [None, 2])
    dense, product = tf.sparse.to_dense(sp), tf.sparse_tensor_dense_matmul(sp, b)
    with _session() as sess:
        got = sess.run([dense, product], {sp: ([], [], [2, 3]), b: np.ones((3, 2))})
        np.testing.assert_array_equal(got[0], np.zeros((2, 3)))
        np.testing.assert_array_equal(got[1], np.zeros((2, 2)))
        empty = [0, 2 ** 30, 2 ** 30]  # no element
        assert sess.run(dense, {sp: ([], [], empty)}).shape == (0, 2 ** 30, 2 ** 30)
        with pytest.raises(ValueError, match="sparse placeholder 'empty'.*out of bounds"):
            sess.run(dense, {sp: ([[0, 0, 0]], [1.0], empty)})
        with pytest.raises(InvalidArgumentError, match="more than 2..63 - 1 elements"):
            sess.run(dense, {sp: ([], [], [0, 2 ** 62, 2 ** 62])})
    inside = tf.sparse.to_dense(tf.SparseTensor([[0, 0, 0]], [1.0], empty), name="inside")
    with _session() as sess, pytest.raises(InvalidArgumentError, match="out of bounds"):
        sess.run(inside)


def test_fill_empty_rows_matches_tf(plan_memory):
    values, default = tf.constant([1.0, 2.0, 3.0]), tf.placeholder_with_default(-1.0, [])
    sp = tf.SparseTensor([[0, 1], [2, 0], [2, 2]], values, [4, 3])
    filled, empty = tf.sparse.fill_empty_rows(sp, default)
    grads = tf.gradients(tf.reduce_sum(filled.values * tf.cumsum(tf.ones_like(filled.values))),
                         [values, default])
    with _session(plan_memory) as sess:
        got, got_empty, values_grad, default_grad = sess.run([filled, empty] + grads)
    # real TF
    assert got.indices.tolist() == [[0, 1], [1, 0], [2, 0], [2, 2], [3, 0]]
    assert got.values.tolist() == [1.0, -1.0, 2.0, 3.0, -1.0]
    assert got_empty.tolist() == [False, True, False, True]
    assert values_grad.tolist() == [1.0, 3.0, 4.0] and default_grad == 7.0


# real TF: the result, and the gradients of sum(e * rows) to params (and the weights)
SAFE_TF = {
    ("sum", False, None): [
        [[-0.2, 0.0, 0.2], [0.0, 0.0, 0.0], [0.5, 0.6, 0.7], [-0.8, -0.6, -0.4], [0, 0, 0]],
        [[0.9, 1.0, 1.1], [0.0, 0.1, 0.2], [0.9, 1.0, 1.1], [0.0, 0.1, 0.2], [0.6, 0.7, 0.8]]],
    ("mean", False, 2): [
        [[-0.1, 0.0, 0.1], [-0.1, 0.0, 0.1], [0.5, 0.6, 0.7], [-0.4, -0.3, -0.2],
         [-0.1, 0.0, 0.1]],
        [[0.45, 0.5, 0.55], [0.0, 0.05, 0.1], [1.95, 2.2, 2.45], [0.0, 0.05, 0.1],
         [0.6, 0.7, 0.8]]],
    ("mean", True, None): [
        [[0.0, 0.1, 0.2], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [-0.7, -0.6, -0.5], [0, 0, 0]],
        [[0.9, 1.0, 1.1], [0.0, 0.033333, 0.066667], [0.0, 0.0, 0.0],
         [0.0, 0.066667, 0.133333], [0.0, 0.0, 0.0]],
        [-0.04, 0.02, 0.0, 0.0, 0.0, 0.0]],
    ("sqrtn", True, 2): [
        [[0.0, 0.134164, 0.268328], [-0.1, 0.0, 0.1], [-0.1, 0.0, 0.1], [-0.7, -0.6, -0.5],
         [-0.1, 0.0, 0.1]],
        [[0.9, 1.0, 1.1], [0.0, 0.044721, 0.089443], [2.1, 2.4, 2.7],
         [0.0, 0.089443, 0.178885], [0.0, 0.0, 0.0]],
        [-0.044721, 0.022361, 0.0, 0.0, 0.0, 0.0]],
}


@pytest.mark.parametrize("combiner, weighted, default_id", list(SAFE_TF), ids=str)
def test_safe_embedding_lookup_sparse_matches_tf(combiner, weighted, default_id, plan_memory):
    # an invalid id (-1), a row whose one weight is negative, a zero weight, two empty rows
    params = tf.constant((np.arange(15).reshape(5, 3) * 0.1 - 0.7).astype(np.float32))
    indices = [[0, 0], [0, 1], [0, 2], [2, 0], [3, 1], [3, 2]]
    ids = tf.SparseTensor(indices, tf.constant([1, 3, -1, 4, 0, 2], tf.int64), [5, 3])
    weight_values = tf.constant([1.0, 2.0, 0.5, -1.5, 0.25, 0.0])
    weights = tf.SparseTensor(indices, weight_values, [5, 3]) if weighted else None
    found = tf.nn.safe_embedding_lookup_sparse(params, ids, weights, combiner=combiner,
                                               default_id=default_id)
    rows = tf.constant(np.arange(15, dtype=np.float32).reshape(5, 3) * 0.1)
    wrt = [params] + ([weight_values] if weighted else [])
    grads = [tf.convert_to_tensor(g) for g in tf.gradients(tf.reduce_sum(found * rows), wrt)]
    with _session(plan_memory) as sess:
        got = sess.run([found] + grads)
    for value, want in zip(got, SAFE_TF[(combiner, weighted, default_id)]):
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)


def test_sparse_placeholder_takes_a_tensor_shape():
    sp = tf.sparse_placeholder(tf.float32, shape=tf.TensorShape([None, 5]))
    assert sp.shape.as_list() == [None, 5] and sp.indices.get_shape().as_list() == [None, 2]
    unknown = tf.sparse_placeholder(tf.float32, shape=tf.TensorShape(None))
    assert unknown.shape.ndims is None


def test_a_saved_meta_graph_with_sparse_ops_runs_the_same(tmp_path):
    sp = tf.sparse_placeholder(tf.float32, name="sp")
    w = tf.Variable(_b((4, 2)), name="w")
    product = tf.sparse_tensor_dense_matmul(sp, w, adjoint_a=False, name="product")
    dense = tf.sparse.to_dense(sp, default_value=-1.0, name="dense")
    value = (INDICES, VALUES, [3, 4])
    with _session() as sess:
        sess.run(tf.global_variables_initializer())
        want = sess.run([product, dense], {sp: value})
        path = tf.train.Saver().save(sess, str(tmp_path / "model"))
    tf.reset_default_graph()
    with _session() as sess:
        tf.train.import_meta_graph(path + ".meta").restore(sess, path)
        graph = tf.get_default_graph()
        parts = [graph.get_tensor_by_name(f"sp/{part}:0") for part in ("indices", "values",
                                                                          "shape")]
        got = sess.run([graph.get_tensor_by_name(n) for n in ("product:0", "dense:0")],
                       dict(zip(parts, value)))
    for value, expected in zip(got, want):
        np.testing.assert_array_equal(value, expected)


def test_sparse_softmax_per_run_of_the_last_axis_and_its_gradient(plan_memory):
    sp = tf.SparseTensor([[0, 0, 1], [0, 0, 3], [0, 2, 0], [1, 1, 1], [1, 1, 2]],
                         [1.0, 2.0, 3.0, -1.0, 5.0], [2, 3, 4])
    soft = tf.sparse.softmax(sp)
    assert soft.values.get_shape().as_list() == [5]
    x = tf.placeholder(tf.float32, [None])
    weighted = tf.sparse_softmax(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], x, [2, 2]))
    (grad,) = tf.gradients(tf.reduce_sum(weighted.values * [1.0, 2.0, 3.0]), x)
    with _session(plan_memory) as sess:
        got, got_grad = sess.run([soft, grad], {x: [0.5, 1.0, 2.0]})
    # real TF 1.15 (2.21's compat.v1 printed the same)
    np.testing.assert_allclose(got.values, [0.26894, 0.73106, 1.0, 0.00247, 0.99753], atol=1e-5)
    np.testing.assert_array_equal(got.indices, sp.indices.eval(session=tf.Session()))
    reference = torch.tensor([0.5, 1.0], requires_grad=True)  # row 0's run; row 1's is alone
    (torch.softmax(reference, 0) * torch.tensor([1.0, 2.0])).sum().backward()
    np.testing.assert_allclose(got_grad, reference.grad.tolist() + [0.0], atol=1e-6)
    with pytest.raises(ValueError, match="rank >= 2"):
        tf.sparse.softmax(tf.SparseTensor([[0]], [1.0], [3]))


def test_sparse_reshape_with_a_minus_one_and_a_shape_known_only_at_run_time(plan_memory):
    sp = tf.SparseTensor([[0, 0, 1], [0, 0, 3], [0, 2, 0], [1, 1, 1], [1, 1, 2]],
                         [1.0, 2.0, 3.0, -1.0, 5.0], [2, 3, 4])
    flat = tf.sparse.reshape(sp, [-1, 4])
    assert flat.shape.as_list() == [6, 4]  # real TF 1.15: (6, 4), indices (5, 2)
    assert flat.indices.get_shape().as_list() == [5, 2]
    wanted = tf.placeholder(tf.int64, [2])
    fed = tf.sparse_reshape(sp, wanted)
    with _session(plan_memory) as sess:
        got = sess.run(flat)
        other = sess.run(fed, {wanted: [4, -1]})
        with pytest.raises(InvalidArgumentError, match=r"\[24\] \[dense values, but the requested shape\] \[5 5\]"):
            sess.run(fed, {wanted: [5, 5]})
    # real TF 1.15: the row-major positions 1, 3, 8, 17, 18 in the new shapes
    assert got.indices.tolist() == [[0, 1], [0, 3], [2, 0], [4, 1], [4, 2]]
    assert got.dense_shape.tolist() == [6, 4]
    assert other.indices.tolist() == [[0, 1], [0, 3], [1, 2], [2, 5], [3, 0]]
    assert other.dense_shape.tolist() == [4, 6]
    with pytest.raises(ValueError, match=r"24 elements to shape \[5, 5\]"):
        tf.sparse_reshape(sp, [5, 5])
    with pytest.raises(ValueError, match="only one output dimension may be -1"):
        tf.sparse_reshape(sp, [-1, -1])
