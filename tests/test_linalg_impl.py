"""TF 1.15's tf.linalg functions of linalg_impl (tinyflow/frontend/linalg_impl.py) and
tf.math.nextafter: values against numpy and numbers recorded from real TensorFlow (TF 2.21's
tf.compat.v1, said so beside each), gradients of the compositions against finite differences
with memory planning on and off, and TF's errors.  The ops themselves are in test_ops' table
(tests/op_cases_linalg_functions.py)."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.nnvm.errors import GraphError, InvalidArgumentError

A3 = np.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 10.]], np.float32)
SINGULAR = np.array([[1., 2.], [2., 4.]], np.float32)
# lstsq's example: RandomState(0).randn(4, 3) and RandomState(1).randn(4, 2)
LS_A = np.random.RandomState(0).randn(4, 3).astype(np.float32)
LS_B = np.random.RandomState(1).randn(4, 2).astype(np.float32)
# compact diagonals (super, main, sub) whose first pivot is zero
DIAGS = np.array([[1., 2., 0.], [0., 1., 1.], [0., 3., 1.]], np.float32)
RHS = np.array([1., 2., 3.], np.float32)


def _run(*fetches):
    return tf.Session().run(list(fetches) if len(fetches) > 1 else fetches[0])


@pytest.fixture(params=[True, False], ids=["planned", "unplanned"])
def plan_memory(request):
    return request.param


def test_lu_as_tf():
    packed, perm = _run(*tf.linalg.lu(A3))
    # recorded from TensorFlow: tf.linalg.lu(A3)
    np.testing.assert_allclose(packed, [[7., 8., 10.], [0.14285715, 0.8571428, 1.5714285],
                                        [0.5714286, 0.4999998, -0.49999982]], rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_array_equal(perm, [2, 0, 1])
    assert perm.dtype == np.int32
    assert tf.linalg.lu(A3, output_idx_type=tf.int64).p.dtype == tf.int64
    with pytest.raises(TypeError, match="output_idx_type"):  # TF's TypeError
        tf.linalg.lu(A3, output_idx_type=tf.float32)
    with pytest.raises(ValueError, match="square"):
        tf.linalg.lu(np.zeros((2, 3), np.float32))
    with pytest.raises(InvalidArgumentError, match="Input is not invertible"):  # TF's message
        _run(tf.linalg.lu(SINGULAR).lu)


def test_lu_has_no_gradient():  # TF 1.15: LookupError, no gradient defined for Lu
    x = tf.placeholder(tf.float32, [3, 3])
    with pytest.raises(GraphError, match="no gradient"):
        tf.gradients(tf.reduce_sum(tf.linalg.lu(x).lu), x)


def test_lu_readers_batched():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 4, 4)).astype(np.float32)
    rhs = rng.standard_normal((2, 4, 3)).astype(np.float32)
    packed, perm = tf.linalg.lu(a)
    rebuilt, solved, inverse = _run(tf.linalg.lu_reconstruct(packed, perm),
                                    tf.linalg.lu_solve(packed, perm, rhs),
                                    tf.linalg.lu_matrix_inverse(packed, perm))
    np.testing.assert_allclose(rebuilt, a, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(solved, np.linalg.solve(a, rhs), rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(inverse, np.linalg.inv(a), rtol=1e-3, atol=1e-4)
    with pytest.raises(ValueError, match="rank\\(perm\\) \\+ 1"):
        tf.linalg.lu_reconstruct(a, np.zeros((4,), np.int32))
    with pytest.raises(ValueError, match="rhs"):
        tf.linalg.lu_solve(packed, perm, np.zeros((2, 5, 1), np.float32))


def test_lu_solve_gradient(plan_memory):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32)
    packed, perm = _run(*tf.linalg.lu(a))

    def solve(factors, rhs):
        return tf.linalg.lu_solve(factors, tf.constant(perm), rhs)
    check_gradients(solve, inputs=[packed, rng.standard_normal((3, 2))],
                    plan_memory=plan_memory)
    check_gradients(lambda f: tf.linalg.lu_reconstruct(f, tf.constant(perm)), inputs=[packed],
                    plan_memory=plan_memory)


def test_lstsq_as_tf():
    # recorded from TensorFlow: tf.linalg.lstsq(LS_A, LS_B, l2_regularizer=l2, fast=fast)
    unregularized = [[0.6803677, -1.2921203], [-0.6398483, 1.2277894], [0.9301997, 0.2748642]]
    regularized = [[0.5239526, -0.89967436], [-0.39452875, 0.5713278],
                   [0.8942655, 0.06672294]]
    for fast, l2, want in ((True, 0.0, unregularized), (True, 0.5, regularized),
                           (False, 0.0, unregularized), (False, 0.5, unregularized)):
        got = _run(tf.linalg.lstsq(LS_A, LS_B, l2_regularizer=l2, fast=fast))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"{fast} {l2}")


def test_lstsq_underdetermined_and_rank_deficient():
    wide = LS_A.T  # 3 x 4: the least-norm solution, both ways
    rhs = LS_B[:3]
    for fast in (True, False):
        np.testing.assert_allclose(_run(tf.linalg.lstsq(wide, rhs, fast=fast)),
                                   np.linalg.pinv(wide) @ rhs, rtol=1e-3, atol=1e-4)
    deficient = np.array([[1., 2.], [2., 4.], [3., 6.]], np.float32)
    np.testing.assert_allclose(_run(tf.linalg.lstsq(deficient, LS_B[:3], fast=False)),
                               np.linalg.pinv(deficient) @ LS_B[:3], rtol=1e-4, atol=1e-5)


def test_lstsq_gradient(plan_memory):
    rng = np.random.default_rng(2)
    for shape in ((4, 3), (3, 4)):
        check_gradients(lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.1),
                        inputs=[rng.standard_normal(shape), rng.standard_normal((shape[0], 2))],
                        plan_memory=plan_memory)


def test_lstsq_slow_has_no_gradient():  # TF 1.15: ValueError("Gradient not defined ...")
    a = tf.placeholder(tf.float32, [4, 3])
    with pytest.raises(GraphError, match="Gradient not defined for fast=False"):
        tf.gradients(tf.linalg.lstsq(a, LS_B, fast=False), a)


def test_pinv_and_matrix_rank():
    # recorded from TensorFlow: tf.linalg.pinv / matrix_rank of [[1, 2], [2, 4]]
    np.testing.assert_allclose(_run(tf.linalg.pinv(SINGULAR)), [[0.04, 0.08], [0.08, 0.16]],
                               rtol=1e-5)
    rank = tf.linalg.matrix_rank(SINGULAR)
    assert rank.dtype == tf.int32 and _run(rank) == 1
    rng = np.random.default_rng(3)
    batch = rng.standard_normal((3, 5, 4)).astype(np.float32)
    batch[1, :, 3] = batch[1, :, 0]  # rank 3
    np.testing.assert_array_equal(_run(tf.linalg.matrix_rank(batch)), [4, 3, 4])
    np.testing.assert_allclose(_run(tf.linalg.pinv(batch[::2])), np.linalg.pinv(batch[::2]),
                               rtol=1e-3, atol=1e-4)
    np.testing.assert_array_equal(_run(tf.linalg.matrix_rank(SINGULAR, tol=10.0)), 0)
    with pytest.raises(ValueError, match="float"):
        tf.linalg.pinv(np.eye(2, dtype=np.int32))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        tf.linalg.matrix_rank(np.ones(3, np.float32))


def test_pinv_gradient(plan_memory):
    check_gradients(tf.linalg.pinv, inputs=[np.random.default_rng(4).standard_normal((4, 3))],
                    plan_memory=plan_memory)


def test_normalize_as_tf():
    x = np.array([[3., 4.], [0., 0.]], np.float32)
    # recorded from TensorFlow: tf.linalg.normalize(x, axis=1) and tf.linalg.normalize(x)
    unit, norm = _run(*tf.linalg.normalize(x, axis=1))
    np.testing.assert_allclose(unit, [[0.6, 0.8], [np.nan, np.nan]])
    np.testing.assert_allclose(norm, [[5.], [0.]])
    unit, norm = _run(*tf.linalg.normalize(x))
    np.testing.assert_allclose(unit, [[0.6, 0.8], [0., 0.]])
    np.testing.assert_allclose(norm, [[5.]])
    unit, norm = _run(*tf.linalg.normalize(x[:1], ord=1, axis=-1))
    np.testing.assert_allclose(unit, [[3 / 7, 4 / 7]], rtol=1e-6)


def test_expm_and_sqrtm():
    with pytest.raises(ValueError, match="does not support matrices of type"):  # TF's
        tf.linalg.expm(np.zeros((2, 2), np.int32))
    for function in (tf.linalg.expm, tf.linalg.sqrtm):
        with pytest.raises(ValueError, match="square"):
            function(np.zeros((2, 3), np.float32))
    # recorded from TensorFlow: sqrtm of [[1, 2], [3, 4]] (an eigenvalue < 0) and of a Jordan
    # block [[1, 1], [0, 1]]
    assert np.isnan(_run(tf.linalg.sqrtm(np.array([[1., 2.], [3., 4.]], np.float32)))).all()
    np.testing.assert_allclose(_run(tf.linalg.sqrtm(np.array([[1., 1.], [0., 1.]],
                                                             np.float32))),
                               [[1., 0.5], [0., 1.]], atol=1e-6)
    # recorded from TensorFlow: a singular diag(0, 4) has a root; a NaN gives NaN; the
    # nilpotent [[0, 1], [0, 0]] has none (TF: NaN and inf); an empty matrix is empty
    np.testing.assert_array_equal(_run(tf.linalg.sqrtm(np.diag([0., 4.]).astype(np.float32))),
                                  [[0., 0.], [0., 2.]])
    for rootless in (np.full((2, 2), np.nan), np.array([[0., 1.], [0., 0.]])):
        assert not np.isfinite(_run(tf.linalg.sqrtm(rootless.astype(np.float32)))).any()
    assert _run(tf.linalg.sqrtm(np.zeros((0, 0), np.float32))).shape == (0, 0)
    packed, perm = _run(*tf.linalg.lu(np.zeros((0, 0), np.float32)))
    assert packed.shape == (0, 0) and perm.shape == (0,)
    general = np.array([[4., 1., 0.], [0.5, 3., 1.], [0., 0.2, 2.]], np.float64)
    root = _run(tf.linalg.sqrtm(general))
    np.testing.assert_allclose(root @ root, general, atol=1e-10)


def test_sqrtm_gradient_of_a_general_matrix(plan_memory):
    rng = np.random.default_rng(5)
    a = 0.3 * rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)  # not symmetric
    check_gradients(tf.linalg.sqrtm, inputs=[a], plan_memory=plan_memory)


def test_tridiagonal_as_tf():
    # recorded from TensorFlow: tridiagonal_solve(DIAGS, RHS) with and without pivoting
    np.testing.assert_allclose(_run(tf.linalg.tridiagonal_solve(DIAGS, RHS)), [-1., 1., 2.],
                               rtol=1e-6)
    assert np.isnan(_run(tf.linalg.tridiagonal_solve(DIAGS, RHS, partial_pivoting=False))).all()
    # recorded from TensorFlow: a zero pivot met without pivoting, and singular matrices (all
    # zeros; a zero last row), give NaN everywhere; pivoting solves the first
    cases = (([[1., 1., 0.], [1., 1., 1.], [0., 1., 1.]], [-1., 2., 1.]),
             (np.zeros((3, 3)), None), ([[1., 0., 0.], [1., 1., 0.], [0., 1., 0.]], None))
    for diags, pivoted in cases:
        diags = np.asarray(diags, np.float32)
        for pivoting in (True, False):
            got = _run(tf.linalg.tridiagonal_solve(diags, RHS, partial_pivoting=pivoting))
            if pivoting and pivoted is not None:
                np.testing.assert_allclose(got, pivoted, rtol=1e-6)
            else:
                assert np.isnan(got).all(), (diags, pivoting, got)
    sequence = [DIAGS[0, :2], DIAGS[1], DIAGS[2, 1:]]
    np.testing.assert_allclose(_run(tf.linalg.tridiagonal_solve(
        sequence, RHS, diagonals_format="sequence")), [-1., 1., 2.], rtol=1e-6)
    dense = np.array([[0., 1., 0.], [3., 1., 2.], [0., 1., 1.]], np.float32)
    np.testing.assert_allclose(_run(tf.linalg.tridiagonal_solve(
        dense, RHS, diagonals_format="matrix")), [-1., 1., 2.], rtol=1e-6)
    # recorded from TensorFlow: transpose_rhs with ones (2, 3); tridiagonal_matmul with eye(3)
    np.testing.assert_allclose(_run(tf.linalg.tridiagonal_solve(
        DIAGS, np.ones((2, 3), np.float32), transpose_rhs=True)), [[0, 0], [1, 1], [0, 0]],
        atol=1e-6)
    np.testing.assert_allclose(_run(tf.linalg.tridiagonal_matmul(DIAGS, np.eye(3, dtype=np.float32))),
                               dense)


@pytest.mark.parametrize("call, message", [
    (lambda: tf.linalg.tridiagonal_solve(np.zeros((4, 3), np.float32), RHS),
     "Expected 3 diagonals got 4"),
    (lambda: tf.linalg.tridiagonal_solve(np.zeros((3, 4), np.float32), RHS),
     "Expected number of left-hand sided and right-hand sides to be equal, got 4 and 3"),
    (lambda: tf.linalg.tridiagonal_solve(DIAGS, RHS, diagonals_format="foo"),
     "Unrecognized diagonals_format: foo"),
    (lambda: tf.linalg.tridiagonal_solve(np.zeros((3, 4), np.float32), RHS,
                                         diagonals_format="matrix"),
     "Expected last two dimensions of diagonals to be same, got 4 and 3"),
    (lambda: tf.linalg.tridiagonal_solve([DIAGS[0]], RHS, diagonals_format="sequence"),
     "Expected diagonals to be a sequence of length 3."),
    (lambda: tf.linalg.tridiagonal_matmul(DIAGS, RHS, diagonals_format="foo"),
     "Unrecognized diagonals_format: foo"),
    (lambda: tf.linalg.tridiagonal_matmul(DIAGS, RHS), "at least rank 2"),
])
def test_tridiagonal_errors_as_tf(call, message):  # TF's ValueErrors, recorded
    with pytest.raises(ValueError, match=message.replace("(", "\\(").replace(".", "\\.")):
        call()


def test_tridiagonal_gradients(plan_memory):
    rng = np.random.default_rng(6)
    dense = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    rhs = rng.standard_normal((2, 4, 3))
    for function in (tf.linalg.tridiagonal_solve, tf.linalg.tridiagonal_matmul):
        check_gradients(lambda d, b, f=function: f(d, b, diagonals_format="matrix"),
                        inputs=[dense, rhs], plan_memory=plan_memory)
    band = np.triu(np.tril(dense, 1), -1)
    np.testing.assert_allclose(_run(tf.linalg.tridiagonal_matmul(dense, rhs, "matrix")),
                               band @ rhs, rtol=1e-5)


def test_math_names():
    # recorded from TensorFlow: tf.math.nextafter([1., 0.], [2., -1.])
    np.testing.assert_array_equal(_run(tf.math.nextafter([1., 0.], [2., -1.])),
                                  np.array([1.0000001, -1.4012985e-45], np.float32))
    with pytest.raises(TypeError, match="float64, float32"):  # TF's TypeError
        tf.math.nextafter(tf.constant([1]), tf.constant([2]))
    assert _run(tf.math.zero_fraction([0., 1., 0., 2.])) == 0.5
    np.testing.assert_array_equal(_run(tf.math.invert_permutation([2, 0, 1])), [1, 2, 0])
    with pytest.raises(AttributeError, match="not supported"):
        tf.linalg.logm  # noqa: B018 - TF 1.15 has it, TinyFlow does not


def test_tridiagonal_second_order(plan_memory):
    # the gradient is built of tridiagonal_solve itself: its gradient too
    rng = np.random.default_rng(7)
    diags = rng.standard_normal((3, 4))
    diags[1] += 4.0

    def gradient(d, b):
        solved = tf.linalg.tridiagonal_solve(d, b)
        return tf.gradients(tf.reduce_sum(solved * solved), [d])[0]
    check_gradients(gradient, inputs=[diags, rng.standard_normal((4, 2))],
                    plan_memory=plan_memory)


def test_shapes_known_only_when_run():
    # TF's functions take matrices of unknown shape: the LU readers, pinv, matrix_rank, and
    # sqrtm's gradient of an unknown batch
    rng = np.random.default_rng(8)
    a = (rng.standard_normal((2, 4, 4)) + 3 * np.eye(4)).astype(np.float32)
    rhs = rng.standard_normal((2, 4, 3)).astype(np.float32)
    x, y = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    packed, perm = tf.linalg.lu(x)
    feed = {x: a, y: rhs}
    got = tf.Session().run([tf.linalg.lu_solve(packed, perm, y), tf.linalg.lu_matrix_inverse(
        packed, perm), tf.linalg.lu_reconstruct(packed, perm), tf.linalg.pinv(x),
        tf.linalg.matrix_rank(x)], feed)
    for value, want in zip(got, (np.linalg.solve(a, rhs), np.linalg.inv(a), a,
                                 np.linalg.pinv(a), [4, 4])):
        np.testing.assert_allclose(value, want, rtol=1e-4, atol=1e-5)
    batch = tf.placeholder(tf.float32, [None, 4, 4])
    known = tf.constant(a)
    grads = [tf.gradients(tf.reduce_sum(tf.linalg.sqrtm(m) * rhs[..., :1]), m)[0]
             for m in (batch, known)]
    unknown, static = tf.Session().run(grads, {batch: a})
    np.testing.assert_allclose(unknown, static, rtol=1e-6)


def test_lstsq_of_a_shape_known_only_when_run(plan_memory):
    # TF's composite chooses A^H A or A A^H by a cond on the shape, when it is unknown
    matrix = tf.placeholder(tf.float32, [None, None])
    rhs = LS_B[:3]
    solved = tf.linalg.lstsq(matrix, rhs, l2_regularizer=0.25)
    grad = tf.gradients(tf.reduce_sum(solved * solved), matrix)[0]
    sess = tf.Session(plan_memory=plan_memory)
    for a in (LS_A[:3], LS_A[:3, :2], LS_A.T):  # 3x3, 3x2 (tall), 3x4 (wide)
        want = np.linalg.solve(a.T @ a + 0.25 * np.eye(a.shape[1]), a.T @ rhs)
        got, got_grad = sess.run([solved, grad], {matrix: a})
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        known = tf.placeholder(tf.float32, a.shape)
        fixed = tf.linalg.lstsq(known, rhs, l2_regularizer=0.25)
        want_grad = sess.run(tf.gradients(tf.reduce_sum(fixed * fixed), known)[0], {known: a})
        np.testing.assert_allclose(got_grad, want_grad, rtol=1e-4, atol=1e-5)
