"""TF 1.15's linear algebra (tinyflow/ops/linalg.py, tf.* and tf.linalg.*) beyond test_ops'
table: the decompositions whose vectors have a sign LAPACK chooses (svd's u and v, qr,
self_adjoint_eig), checked by what does not depend on it (reconstruction, orthonormality,
losses unchanged by a column's sign) against torch.linalg autograd and finite differences;
TF's conventions, with numbers from a real TensorFlow run (tensorflow-cpu 2.21's tf.compat.v1,
float64) written down; errors at graph time and at run time; the tf.linalg names; tf.norm's
matrix 2-norm."""
import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.nnvm.errors import GraphError, InvalidArgumentError, ShapeError

pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed")
F64 = torch.float64

# A fixed matrix and weights, and what real TF (tf.compat.v1, float64) computed from them
A = np.array([[2.0, -1.0, 0.5], [0.3, 1.5, -0.7], [1.0, 0.2, 3.0]])
W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.75]])
SPD = A @ A.T + np.eye(3)


def _run(fetches, feeds=None, plan_memory=True, config="cpu"):
    with tf.Session(config, plan_memory=plan_memory) as sess:
        return sess.run(fetches, feeds)


def _sign_free(weights, *factors):
    """sum(w * f * f) over factors: unchanged when a column of one changes sign."""
    return sum(tf.reduce_sum(w * f * f) for w, f in zip(weights, factors))


def _torch_grad(loss, value):
    x = torch.tensor(value, dtype=F64, requires_grad=True)
    return torch.autograd.grad(loss(x), x)[0].numpy()


def _matches_torch(report, ref):
    """check_gradients' symbolic gradient (of its head gradient times the output) against
    torch.linalg's autograd of ``ref``, the same scalar function."""
    want = _torch_grad(ref, report.inputs[0]) * report.head_grads[0]
    np.testing.assert_allclose(report.symbolic[0], want, rtol=1e-3, atol=1e-4)


# -- TF's own numbers --------------------------------------------------------------------------
def test_values_and_gradients_match_numbers_from_real_tensorflow():
    x = tf.placeholder(tf.float64, (3, 3))
    grads = {
        # tf.gradients(reduce_sum(matrix_inverse(x, adjoint=True) * W), x) at A
        "inverse": (tf.matrix_inverse(x, adjoint=True), A, [
            [-0.2711691673383346, -0.1921810093620188, 0.4955902411804824],
            [0.10060488870977742, -0.43666493582987176, 0.052990730981461974],
            [-0.18370927366854733, 0.08721189317378637, -0.07991234732469464]]),
        # ... of cholesky at SPD: symmetric, as TF's rule makes it
        "cholesky": (tf.cholesky(x), SPD, [
            [0.3492801084365421, 0.17205397619781806, -0.40694945681245936],
            [0.17205397619781806, 0.13491297398819835, 0.2934254140148137],
            [-0.40694945681245936, 0.2934254140148137, 0.12430784018072373]]),
        # ... of matrix_triangular_solve(x, W, lower=False, adjoint=True): upper triangular
        "triangular": (tf.matrix_triangular_solve(x, W, lower=False, adjoint=True), A, [
            [-1.2305555555555556, 0.20555555555555555, 0.08333333333333331],
            [0.0, -0.6777777777777777, 0.7499999999999999],
            [0.0, 0.0, -0.4569444444444444]]),
    }
    for what, (out, at, tf_grad) in grads.items():
        got = _run(tf.gradients(tf.reduce_sum(out * W), x)[0], {x: at})
        np.testing.assert_allclose(got, tf_grad, rtol=1e-10, err_msg=what)
    # tf.gradients(reduce_sum(self_adjoint_eigvals(x) * [1, 2, 3]), x) at SPD: lower
    # triangular, the triangle the op reads, its diagonal halved
    eigvals = tf.self_adjoint_eigvals(x) * np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(_run(tf.gradients(eigvals, x)[0], {x: SPD}), [
        [2.071102599055601, 0.0, 0.0], [-0.8660100601490307, 1.176081603327287, 0.0],
        [0.7707596789141642, -0.3933174733731446, 2.75281579761711]], rtol=1e-9, atol=1e-12)
    sign, log_abs = _run(tf.linalg.slogdet(x), {x: -A})
    assert sign == -1.0 and np.isclose(log_abs, 2.3184584421503356)  # TF: (-1, 2.31845...)
    assert np.isclose(_run(tf.linalg.logdet(x), {x: SPD}), 5.31627417371884)
    assert np.isclose(_run(tf.norm(x, ord=2, axis=[-2, -1]), {x: A}), 3.4805101608120577)
    s = _run(tf.svd(x, compute_uv=False), {x: A})  # TF: descending
    np.testing.assert_allclose(s, [3.4805101608120577, 1.9256074255062305, 1.515943621418451])


def test_svd_returns_s_u_v_in_tfs_order_with_v_not_its_adjoint():
    # TF: s, u, v = tf.svd(a); a == u @ diag(s) @ v^T (real TF: True), a != u diag(s) v
    x = tf.placeholder(tf.float64, (3, 3))
    s, u, v = _run(list(tf.svd(x)), {x: A})
    assert s.shape == (3,) and np.all(np.diff(s) < 0)
    np.testing.assert_allclose(u @ np.diag(s) @ v.T, A, atol=1e-12)
    assert not np.allclose(u @ np.diag(s) @ v, A)


# -- svd -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (2, 4, 3), (2, 1, 3, 5)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_svd_factors(shape, full_matrices, plan_memory, config):
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x = tf.placeholder(tf.float32, shape)
    s, u, v = _run(list(tf.svd(x, full_matrices=full_matrices)), {x: a}, plan_memory, config)
    m, n = shape[-2:]
    k = min(m, n)
    assert s.shape == shape[:-2] + (k,)
    assert u.shape == shape[:-2] + (m, m if full_matrices else k)
    assert v.shape == shape[:-2] + (n, n if full_matrices else k)
    np.testing.assert_allclose(s, torch.linalg.svdvals(torch.tensor(a, dtype=F64)).numpy(),
                               rtol=1e-5, atol=1e-5)
    rebuilt = (u[..., :k] * s[..., None, :]) @ np.swapaxes(v[..., :k], -1, -2)
    np.testing.assert_allclose(rebuilt, a, atol=1e-5)
    for factor in (u, v):
        eye = np.broadcast_to(np.eye(factor.shape[-1]), factor.shape[:-2] + (factor.shape[-1],)
                              * 2)
        np.testing.assert_allclose(np.swapaxes(factor, -1, -2) @ factor, eye, atol=1e-5)


def _svd_loss(weights, full_matrices=False):
    ws, wu, wv = weights

    def build(x):
        s, u, v = tf.svd(x, full_matrices=full_matrices)
        return tf.reduce_sum(ws * s) + _sign_free([wu, wv], u, v)

    def ref(x):
        u, s, vh = torch.linalg.svd(x, full_matrices=full_matrices)
        v = vh.transpose(-2, -1)
        return (torch.sum(torch.tensor(ws) * s) + torch.sum(torch.tensor(wu) * u * u)
                + torch.sum(torch.tensor(wv) * v * v))
    return build, ref


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (2, 3, 3)])
def test_svd_gradient(shape, plan_memory):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape)
    m, n = shape[-2:]
    k = min(m, n)
    batch = shape[:-2]
    weights = [rng.standard_normal(batch + (k,)), rng.standard_normal(batch + (m, k)),
               rng.standard_normal(batch + (n, k))]
    build, ref = _svd_loss(weights)
    report = check_gradients(build, inputs=[a], plan_memory=plan_memory, name="svd",
                             rtol=2e-2, atol=2e-3)
    _matches_torch(report, ref)


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4)])
def test_svd_gradient_full_matrices(shape):
    # TF's rule takes full_matrices for |m - n| <= 1 (the extra column: one up to its sign)
    rng = np.random.default_rng(2)
    m, n = shape
    weights = [rng.standard_normal(min(m, n)), rng.standard_normal((m, m)),
               rng.standard_normal((n, n))]
    build, _ = _svd_loss(weights, full_matrices=True)
    check_gradients(build, inputs=[rng.standard_normal(shape)], name="svd full", rtol=2e-2,
                    atol=2e-3)
    x = tf.placeholder(tf.float32, (5, 3))
    with pytest.raises(GraphError, match="abs\\(m - n\\) > 1"):
        tf.gradients(tf.svd(x, full_matrices=True)[1], x)


# -- qr -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (2, 5, 3)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_qr_factors(shape, full_matrices, plan_memory, config):
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x = tf.placeholder(tf.float32, shape)
    q, r = _run(list(tf.qr(x, full_matrices=full_matrices)), {x: a}, plan_memory, config)
    m, n = shape[-2:]
    rows = m if full_matrices else min(m, n)
    assert q.shape == shape[:-2] + (m, rows) and r.shape == shape[:-2] + (rows, n)
    np.testing.assert_allclose(q @ r, a, atol=1e-5)
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(
        np.eye(rows), shape[:-2] + (rows, rows)), atol=1e-5)
    np.testing.assert_array_equal(r, np.triu(r))
    assert tf.qr is tf.linalg.qr and tf.qr(x).q is not None  # TF's namedtuple Qr(q, r)


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (2, 4, 3)])
def test_qr_gradient(shape, plan_memory):
    rng = np.random.default_rng(3)
    n = shape[-1]
    wq, wr, wd = (rng.standard_normal(shape), rng.standard_normal(shape[:-2] + (n, n)),
                  rng.standard_normal(shape))

    def build(x):  # q's column j times r[j, j]: unchanged by the pair's sign
        q, r = tf.qr(x)
        scaled = q * tf.expand_dims(tf.matrix_diag_part(r), -2)
        return _sign_free([wq, wr], q, r) + tf.reduce_sum(wd * scaled)

    def ref(x):
        q, r = torch.linalg.qr(x)
        scaled = q * torch.diagonal(r, dim1=-2, dim2=-1).unsqueeze(-2)
        return (torch.sum(torch.tensor(wq) * q * q) + torch.sum(torch.tensor(wr) * r * r)
                + torch.sum(torch.tensor(wd) * scaled))
    report = check_gradients(build, inputs=[rng.standard_normal(shape) + np.eye(*shape[-2:])],
                             plan_memory=plan_memory, name="qr", rtol=2e-2, atol=2e-3)
    _matches_torch(report, ref)


def test_qr_gradient_refused_where_tf_115_has_none():
    for shape, full in (((3, 4), False), ((4, 3), True)):
        x = tf.placeholder(tf.float32, shape)
        with pytest.raises(GraphError, match="QrGrad not implemented"):
            tf.gradients(tf.qr(x, full_matrices=full)[1], x)


# -- self_adjoint_eig ----------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_self_adjoint_eig_factors_read_the_lower_triangle(shape, plan_memory, config):
    rng = np.random.default_rng(0)
    noise = rng.standard_normal(shape)
    sym = (noise + np.swapaxes(noise, -1, -2)).astype(np.float32)
    garbage = np.tril(sym) + np.triu(rng.standard_normal(shape), 1).astype(np.float32)
    x = tf.placeholder(tf.float32, shape)
    e, v = _run(list(tf.self_adjoint_eig(x)), {x: garbage}, plan_memory, config)
    np.testing.assert_allclose(e, np.linalg.eigvalsh(sym), rtol=1e-5, atol=1e-5)
    assert np.all(np.diff(e, axis=-1) > 0)
    np.testing.assert_allclose(sym @ v, v * e[..., None, :], atol=1e-4)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(
        np.eye(shape[-1]), shape), atol=1e-5)


def test_self_adjoint_eig_gradient(plan_memory):
    rng = np.random.default_rng(4)
    we, wv = rng.standard_normal((2, 3)), rng.standard_normal((2, 3, 3))

    def build(x):
        e, v = tf.self_adjoint_eig(x + tf.matrix_transpose(x))
        return tf.reduce_sum(we * e) + _sign_free([wv], v)

    def ref(x):
        e, v = torch.linalg.eigh(x + x.transpose(-2, -1))
        return torch.sum(torch.tensor(we) * e) + torch.sum(torch.tensor(wv) * v * v)
    report = check_gradients(build, inputs=[rng.standard_normal((2, 3, 3))],
                             plan_memory=plan_memory, name="eigh", rtol=2e-2, atol=2e-3)
    _matches_torch(report, ref)
    # on the op's own input: lower triangular, as TF's, which finite differences agree with
    # (the upper triangle is never read)
    check_gradients(lambda x: tf.self_adjoint_eig(x)[0] * we[0], inputs=[SPD], name="eigh",
                    eps=1e-2)


# -- composed functions and second order --------------------------------------------------------
def test_cholesky_solve_and_logdet_against_numpy_and_torch():
    rng = np.random.default_rng(5)
    noise = rng.standard_normal((2, 3, 3))
    spd = noise @ np.swapaxes(noise, -1, -2) + np.eye(3)
    rhs = rng.standard_normal((2, 3, 2))
    x, b = tf.placeholder(tf.float64, (2, 3, 3)), tf.placeholder(tf.float64, (2, 3, 2))
    solved, logdet = _run([tf.cholesky_solve(tf.cholesky(x), b), tf.linalg.logdet(x)],
                          {x: spd, b: rhs})
    np.testing.assert_allclose(solved, np.linalg.solve(spd, rhs), rtol=1e-10)
    np.testing.assert_allclose(logdet, np.linalg.slogdet(spd)[1], rtol=1e-10)
    report = check_gradients(lambda a: tf.linalg.logdet(a + tf.matrix_transpose(a)),
                             inputs=[spd / 2], name="logdet")
    np.testing.assert_allclose(report.symbolic[0], _torch_grad(
        lambda a: torch.sum(torch.tensor(report.head_grads[0], dtype=F64) * torch.logdet(
            a + a.transpose(-2, -1))), report.inputs[0]), rtol=1e-3, atol=1e-4)


def test_second_order_gradient_of_the_composed_rules():
    # inverse's and determinant's rules are ops with rules of their own
    def first(x):
        return tf.gradients(tf.reduce_sum(tf.matrix_inverse(x) * W)
                            + tf.reduce_sum(tf.matrix_determinant(x)), x)[0]
    check_gradients(first, inputs=[A], name="d/dx of inverse's and det's gradients")

    def decompositions(x):  # cholesky's, svd's and self_adjoint_eig's rules
        sym = x + tf.matrix_transpose(x)
        s, u, v = tf.svd(x)
        loss = (tf.reduce_sum(tf.cholesky(sym) * W) + tf.reduce_sum(s * W[0])
                + _sign_free([W, W], u, v) + tf.reduce_sum(tf.self_adjoint_eigvals(sym) * W[1]))
        return tf.gradients(loss, x)[0]
    check_gradients(decompositions, inputs=[SPD / 4], name="d/dx of the decompositions' rules")


# -- tf.norm's matrix 2-norm ---------------------------------------------------------------------
@pytest.mark.parametrize("axis, keepdims", [((-2, -1), False), ((0, 2), True), ((2, 1), False)])
def test_norm_ord_2_is_the_largest_singular_value(axis, keepdims):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((2, 4, 3))
    x = tf.placeholder(tf.float64, a.shape)
    got = _run(tf.norm(x, ord=2, axis=axis, keepdims=keepdims), {x: a})
    want = np.linalg.norm(np.moveaxis(a, axis, (-2, -1)), 2, axis=(-2, -1))
    if keepdims:
        want = np.expand_dims(want, tuple(sorted(a % 3 for a in axis)))
    np.testing.assert_allclose(got, want, rtol=1e-10)
    assert tf.linalg.norm is tf.norm
    report = check_gradients(lambda t: tf.norm(t, ord=2, axis=axis), inputs=[a], name="norm")
    np.testing.assert_allclose(report.symbolic[0], _torch_grad(lambda t: torch.sum(
        torch.tensor(report.head_grads[0], dtype=F64) * torch.linalg.matrix_norm(
            t, ord=2, dim=axis)), report.inputs[0]), rtol=1e-3, atol=1e-4)


# -- errors --------------------------------------------------------------------------------------
@pytest.mark.parametrize("build, message", [
    (lambda x, b: tf.matrix_inverse(x, name="inv"), "Input is not invertible"),
    (lambda x, b: tf.matrix_solve(x, b, name="inv"), "Input matrix is not invertible"),
    (lambda x, b: tf.cholesky(x, name="inv"), "Cholesky decomposition was not successful"),
])
def test_singular_input_is_tfs_error_naming_the_node_and_the_session_goes_on(
        build, message, plan_memory):
    x, b = tf.placeholder(tf.float32, (2, 3, 3)), tf.placeholder(tf.float32, (2, 3, 1))
    total = tf.Variable(0.0)
    step = tf.assign_add(total, tf.reduce_sum(build(x, b)))
    good = np.stack([np.eye(3), 2 * np.eye(3)]).astype(np.float32)
    bad = good.copy()
    bad[1] = 0.0
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(step, {x: good, b: np.ones((2, 3, 1))})
        with pytest.raises(InvalidArgumentError, match=message) as raised:
            sess.run(step, {x: bad, b: np.ones((2, 3, 1))})
        assert "'inv'" in str(raised.value) and raised.value.op == "inv"
        assert sess.run(total) == first  # the update after the failed op never ran
        assert sess.run(step, {x: good, b: np.ones((2, 3, 1))}) == 2 * first


@pytest.mark.parametrize("build, shapes, message", [
    (tf.matrix_inverse, [(3, 4)], "square"),
    (tf.matrix_determinant, [(3,)], "at least rank 2"),
    (tf.svd, [(3,)], "at least rank 2"),
    (tf.matrix_solve, [(3, 3), (4, 2)], "different numbers of rows"),
    (tf.matrix_solve, [(2, 3, 3), (3, 3, 1)], "batch axes"),
    (tf.matrix_triangular_solve, [(2, 3, 3), (3, 1)], "at least rank 2|batch axes"),
    (tf.cholesky, [(2, 3, 4)], "square"),
    (tf.self_adjoint_eig, [(4, 3)], "square"),
])
def test_shapes_are_checked_when_the_graph_is_made(build, shapes, message):
    xs = [tf.placeholder(tf.float32, shape) for shape in shapes]
    with pytest.raises(ShapeError, match=message):
        build(*xs)


def test_only_float32_and_float64_are_taken():
    with pytest.raises(TypeError, match="float32 or float64"):
        tf.matrix_inverse(tf.placeholder(tf.int32, (3, 3)))
    with pytest.raises(TypeError, match="float32 or float64"):
        tf.matrix_solve(tf.placeholder(tf.float32, (3, 3)), tf.placeholder(tf.float64, (3, 1)))


def test_decompositions_of_non_finite_values_are_nan():
    x = tf.placeholder(tf.float32, (3, 3))
    bad = np.eye(3, dtype=np.float32)
    bad[1, 0] = np.nan
    for out in (*tf.svd(x), *tf.qr(x), *tf.self_adjoint_eig(x)):
        assert np.all(np.isnan(_run(out, {x: bad})))


def test_tf_linalg_names_are_tf_115s():
    pairs = {"inv": tf.matrix_inverse, "det": tf.matrix_determinant, "solve": tf.matrix_solve,
             "slogdet": tf.log_matrix_determinant, "triangular_solve":
             tf.matrix_triangular_solve, "cholesky": tf.cholesky, "cholesky_solve":
             tf.cholesky_solve, "eigh": tf.self_adjoint_eig, "eigvalsh": tf.self_adjoint_eigvals,
             "svd": tf.svd, "qr": tf.qr}
    for name, function in pairs.items():
        assert getattr(tf.linalg, name) is function, name
    with pytest.raises(AttributeError, match="logm"):
        tf.linalg.logm  # noqa: B018 - TF 1.15 has it, TinyFlow does not
