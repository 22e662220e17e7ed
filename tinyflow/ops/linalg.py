"""Linear algebra of TensorFlow 1.15 over the last two axes, batched over the leading ones:
batch_matmul, matrix_inverse, matrix_determinant, log_matrix_determinant, cholesky,
matrix_solve, matrix_triangular_solve, svd, qr and self_adjoint_eig; float32 and float64.

Shape rules check at graph time what TF's do (square matrices, rank >= 2, equal batch axes and
matching rows); a singular or non-positive-definite input is TF's InvalidArgumentError at run
time, naming the node.  Gradients are TF 1.15's: those of inverse, determinant, log-determinant,
Cholesky, the solves and the decompositions are built from these same ops and the matrix ops
(second derivatives come free).  Bodies: ``tinyflow/lua_ops/linalg/``.
"""
from __future__ import annotations

from ..nnvm.errors import DTypeError, ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import Symbol, create_op

__all__ = []

_FLOATS = ("float32", "float64")


def _float_type(name):
    """FInferType: inputs of one dtype, float32 or float64 (TF's real linalg types; TinyFlow
    has no complex dtype, and torch.linalg no float16), every output of that dtype too."""
    def rule(attrs, in_types, out_types):
        known = [t for t in list(in_types) + list(out_types) if t is not None]
        if not known:
            return in_types, out_types
        for dtype in known:
            if dtype not in _FLOATS or dtype != known[0]:
                raise DTypeError(f"{name} takes float32 or float64 tensors of one dtype, got "
                                 f"{[str(t) for t in in_types]}")
        return [known[0]] * len(in_types), [known[0]] * len(out_types)
    return rule


def _matrices(name, shape, what="input", square=False):
    """``shape`` (or None), checked to be a batch of matrices (square ones with ``square``)."""
    if shape is None:
        return None
    if len(shape) < 2:
        raise ShapeError(f"{name}: {what} must be at least rank 2 (a batch of matrices), got "
                         f"shape {shape}")
    if square and shape[-1] != shape[-2]:
        raise ShapeError(f"{name}: {what} must be square matrices, got shape {shape}")
    return tuple(shape)


def _same_batch(name, a, b, what=("matrix", "rhs")):
    if a is not None and b is not None and tuple(a[:-2]) != tuple(b[:-2]):
        raise ShapeError(f"{name}: the batch axes of {what[0]} {a} and {what[1]} {b} differ")


def _square_same(name):
    """FInferShape of an op mapping square matrices to matrices of their shape."""
    def rule(attrs, in_shapes, out_shapes):
        x = _matrices(name, in_shapes[0] or out_shapes[0], square=True)
        return [x], [x]
    return rule


def _square_to_batch(name, outputs):
    """FInferShape of an op mapping square matrices [..., N, N] to ``outputs`` scalars each."""
    def rule(attrs, in_shapes, out_shapes):
        x = _matrices(name, in_shapes[0], square=True)
        return [x], [None if x is None else x[:-2]] * outputs
    return rule


def _matmul(a, b, adjoint_a=False, adjoint_b=False):
    return create_op("batch_matmul", a, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)


def _batch_scalars(g):
    """g [...] as [..., 1, 1], to scale each matrix of a batch."""
    return create_op("expand_dims", create_op("expand_dims", g, axis=-1), axis=-1)


# -- batch_matmul: the product the gradient rules below are built from -------------------------
def _batch_matmul_shape(attrs, in_shapes, out_shapes):
    a, b = (_matrices("batch_matmul", s, what) for s, what in zip(in_shapes, ("a", "b")))
    _same_batch("batch_matmul", a, b, ("a", "b"))
    if a is None or b is None:
        return [a, b], out_shapes
    m, k = a[-1:-3:-1] if attrs.get("adjoint_a") else a[-2:]
    k2, n = b[-1:-3:-1] if attrs.get("adjoint_b") else b[-2:]
    if k != k2:
        raise ShapeError(f"batch_matmul: inner dimensions differ: {a} and {b} (adjoint_a "
                         f"{bool(attrs.get('adjoint_a'))}, adjoint_b "
                         f"{bool(attrs.get('adjoint_b'))})")
    return [a, b], [a[:-2] + (m, n)]


def _batch_matmul_grad(node, grads):
    # c = op(a) op(b): dA = g op(b)^H (or its adjoint), dB = op(a)^H g (or its adjoint)
    a, b = node.inputs
    g = grads[0]
    adj_a, adj_b = node.attrs.get("adjoint_a", False), node.attrs.get("adjoint_b", False)
    grad_a = _matmul(b, g, adj_b, True) if adj_a else _matmul(g, b, False, not adj_b)
    grad_b = _matmul(g, a, True, adj_a) if adj_b else _matmul(a, g, not adj_a, False)
    return [grad_a, grad_b]


(register_op("batch_matmul").describe("a @ b for each matrix of a batch (equal batch axes); "
                                      "adjoint_a / adjoint_b use a^H / b^H.")
 .set_num_inputs(2).set_attr("FInferShape", _batch_matmul_shape)
 .set_attr("FInferType", _float_type("batch_matmul")).set_attr("TTFType", "BatchMatMulV2")
 .set_attr("FGradient", _batch_matmul_grad))


# -- inverse, determinants, Cholesky --------------------------------------------------------------
def _inverse_grad(node, grads):
    # TF's: Y = inv(A): dA = -Y^H g Y^H; with adjoint, Y = inv(A^H): dA = -Y g^H Y
    y, g = node.outputs[0], grads[0]
    if node.attrs.get("adjoint", False):
        return [-_matmul(y, _matmul(g, y, True, False))]
    return [-_matmul(y, _matmul(g, y, False, True), True, False)]


(register_op("matrix_inverse").describe("The inverse of each square matrix (of its adjoint "
                                        "with attr adjoint); a singular one is an error.")
 .set_num_inputs(1).set_attr("FInferShape", _square_same("matrix_inverse"))
 .set_attr("FInferType", _float_type("matrix_inverse")).set_attr("FGradient", _inverse_grad))


def _inverse_adjoint(a):
    return create_op("matrix_inverse", a, adjoint=True)


(register_op("matrix_determinant").describe("The determinant of each square matrix.")
 .set_num_inputs(1).set_attr("FInferShape", _square_to_batch("matrix_determinant", 1))
 .set_attr("FInferType", _float_type("matrix_determinant"))
 .set_attr("FGradient", lambda n, g: [  # d det(A) = det(A) A^-H (TF's)
     _batch_scalars(g[0] * n.outputs[0]) * _inverse_adjoint(n.inputs[0])]))

(register_op("log_matrix_determinant").describe("The sign and the log of the absolute value "
                                                "of each square matrix's determinant (TF's "
                                                "slogdet).")
 .set_num_inputs(1).set_num_outputs(2)
 .set_attr("FInferShape", _square_to_batch("log_matrix_determinant", 2))
 .set_attr("FInferType", _float_type("log_matrix_determinant"))
 .set_attr("FGradient", lambda n, g: [  # d log|det A| = A^-H; the sign has none
     _batch_scalars(g[1]) * _inverse_adjoint(n.inputs[0])]))


def _cholesky_grad(node, grads):
    # TF 1.15's: with L^-1 = inv(L), P = L^-H Phi(L^H g) (Phi: the lower triangle, its
    # diagonal halved), dA = (P L^-1 + (P L^-1)^H) / 2, symmetric
    low, g = node.outputs[0], grads[0]
    middle = _matmul(low, g, True, False)
    middle = create_op("matrix_set_diag", middle, create_op("matrix_diag_part", middle) * 0.5)
    middle = create_op("matrix_band_part", middle, num_lower=-1, num_upper=0)
    inverse = create_op("matrix_inverse", low)
    part = _matmul(inverse, middle, True, False)
    return [(_matmul(part, inverse) + _matmul(inverse, part, True, True)) * 0.5]


(register_op("cholesky").describe("The lower Cholesky factor L (A = L L^H) of each matrix, "
                                  "whose lower triangle alone is read; one not positive "
                                  "definite is an error.")
 .set_num_inputs(1).set_attr("FInferShape", _square_same("cholesky"))
 .set_attr("FInferType", _float_type("cholesky")).set_attr("FGradient", _cholesky_grad))


# -- solves --------------------------------------------------------------------------------------
def _solve_shape(name):
    def rule(attrs, in_shapes, out_shapes):
        a = _matrices(name, in_shapes[0], "matrix", square=True)
        rhs = _matrices(name, in_shapes[1] or out_shapes[0], "rhs")
        _same_batch(name, a, rhs)
        if a is not None and rhs is not None and a[-1] != rhs[-2]:
            raise ShapeError(f"{name}: matrix {a} and rhs {rhs} have different numbers of "
                             f"rows")
        return [a, rhs], [rhs]
    return rule


def _solve_grad(solve, triangular=False):
    """TF 1.15's rule of matrix_solve / matrix_triangular_solve (``triangular``): db =
    solve(A^H, g), dA = -db c^H (-c db^H with adjoint), in the triangle a triangular solve
    reads."""
    def rule(node, grads):
        a, c, attrs = node.inputs[0], node.outputs[0], node.attrs
        adjoint = attrs.get("adjoint", False)
        grad_b = create_op(solve, a, grads[0], **{**attrs, "adjoint": not adjoint})
        grad_a = -(_matmul(c, grad_b, False, True) if adjoint else _matmul(grad_b, c, False,
                                                                              True))
        if triangular:
            lower = attrs.get("lower", True)
            grad_a = create_op("matrix_band_part", grad_a, num_lower=-1 if lower else 0,
                               num_upper=0 if lower else -1)
        return [grad_a, grad_b]
    return rule


(register_op("matrix_solve").describe("X with A X = rhs (A^H X = rhs with attr adjoint) for "
                                      "each square A; a singular one is an error.")
 .set_num_inputs(2).set_attr("FInferShape", _solve_shape("matrix_solve"))
 .set_attr("FInferType", _float_type("matrix_solve"))
 .set_attr("FGradient", _solve_grad("matrix_solve")))

(register_op("matrix_triangular_solve").describe(
    "X with A X = rhs for each triangular A, whose lower (attr lower, default) or upper "
    "triangle alone is read (A^H X = rhs with attr adjoint).")
 .set_num_inputs(2).set_attr("FInferShape", _solve_shape("matrix_triangular_solve"))
 .set_attr("FInferType", _float_type("matrix_triangular_solve"))
 .set_attr("FGradient", _solve_grad("matrix_triangular_solve", triangular=True)))


# -- decompositions: svd, qr, self_adjoint_eig ----------------------------------------------------
def _split(symbol):
    return [Symbol([entry]) for entry in symbol.outputs]


def _known_shape(node, what):
    """The input's shape, which TF 1.15's rules of the decompositions need (as TF's)."""
    shape = node.inputs[0].get_shape()
    if shape.ndims is None or None in shape.as_list()[-2:]:
        raise NotImplementedError(f"{what} gradient has not been implemented for input with "
                                  f"unknown inner matrix shape.")
    return shape.as_list()


def _adjoint(x, rank):
    return create_op("transpose", x, perm=tuple(range(rank - 2)) + (rank - 1, rank - 2))


def _safe_reciprocal(x):  # TF's: 1 / x, and 0 (not inf) where x is 0
    return x / (x * x + 1e-20)


def _gaps(values):
    """f[..., i, j] = 1 / (values[j] - values[i]), 0 on the diagonal (TF's F matrix)."""
    diff = create_op("expand_dims", values, axis=-2) - create_op("expand_dims", values, axis=-1)
    return create_op("matrix_set_diag", _safe_reciprocal(diff), create_op("zeros_like", values))


def _columns_scaled(x, d):  # x diag(d)
    return x * create_op("expand_dims", d, axis=-2)


def _rows_scaled(d, x):  # diag(d) x
    return create_op("expand_dims", d, axis=-1) * x


def _svd_outputs(attrs):
    return 3 if attrs.get("compute_uv", True) else 1


def _svd_shape(attrs, in_shapes, out_shapes):
    a = _matrices("svd", in_shapes[0])
    if a is None:
        return [a], out_shapes
    m, n, batch = a[-2], a[-1], a[:-2]
    k = min(m, n)
    if not attrs.get("compute_uv", True):
        return [a], [batch + (k,)]
    full = attrs.get("full_matrices", False)
    return [a], [batch + (k,), batch + (m, m if full else k), batch + (n, n if full else k)]


def _svd_grad(node, grads):
    # TF 1.15's _SvdGrad (real matrices), written with these ops
    a, grad_s, full = node.inputs[0], grads[0], node.attrs.get("full_matrices", False)
    if not node.attrs.get("compute_uv", True):  # U diag(grad_s) V^H of a new SVD
        _, u, v = _split(create_op("svd", a, compute_uv=True, full_matrices=False))
        return [_matmul(_columns_scaled(u, grad_s), v, False, True)]
    shape = _known_shape(node, "SVD")
    rank, (m, n) = len(shape), shape[-2:]
    if full and abs(m - n) > 1:
        raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when "
                                  f"full_matrices is True. Received: m={m} and n={n}")
    s, u, v = node.outputs
    grad_u, grad_v = grads[1:]
    use_adjoint = m > n  # the rule for the adjoint, whose SVD swaps u and v
    if use_adjoint:
        m, n, u, v, grad_u, grad_v = n, m, v, u, grad_v, grad_u
    v1, grad_v1 = v, grad_v
    if full and m != n:  # v's first m columns, and the rest
        (v1, v2), (grad_v1, grad_v2) = (_split(create_op("split", t, axis=-1, sizes=[m, n - m]))
                                        for t in (v, grad_v))
    f = _gaps(s * s)
    f_u = f * _matmul(u, grad_u, True, False)
    f_v = f * _matmul(v1, grad_v1, True, False)
    middle = (create_op("matrix_diag", grad_s) + _columns_scaled(f_u + _adjoint(f_u, rank), s)
              + _rows_scaled(s, f_v + _adjoint(f_v, rank)))
    grad = _matmul(u, _matmul(middle, v1, False, True))
    if m != n:
        rest = _adjoint(grad_v1, rank) - _matmul(_matmul(grad_v1, v1, True, False), v1, False,
                                                 True)
        if full:
            rest = rest - _matmul(_matmul(v1, grad_v2, True, False), v2, False, True)
        grad = grad + _matmul(_columns_scaled(u, _safe_reciprocal(s)), rest)
    return [_adjoint(grad, rank) if use_adjoint else grad]


(register_op("svd").describe("The singular values s [..., K] (descending; K = min(M, N)) "
                             "of each matrix [..., M, N] and, with attr compute_uv (default), "
                             "u and v with a = u diag(s) v^H (attr full_matrices: square u, v).")
 .set_num_inputs(1).set_num_outputs(_svd_outputs).set_attr("FInferShape", _svd_shape)
 .set_attr("FInferType", _float_type("svd")).set_attr("FGradient", _svd_grad))


def _qr_shape(attrs, in_shapes, out_shapes):
    a = _matrices("qr", in_shapes[0])
    if a is None:
        return [a], out_shapes
    m, n, batch = a[-2], a[-1], a[:-2]
    rows = m if attrs.get("full_matrices", False) else min(m, n)
    return [a], [batch + (m, rows), batch + (rows, n)]


def _qr_grad(node, grads):
    # TF 1.15's _QrGrad, for M >= N without full_matrices (r square): with
    # solve(x) = x r^-H, dA = q (dr + solve(tril(qdq - qdq^H + rdr - rdr^H))) + solve(dq - q qdq)
    shape = _known_shape(node, "QR")
    rank, (m, n) = len(shape), shape[-2:]
    if m < n or (node.attrs.get("full_matrices", False) and m != n):
        raise NotImplementedError("QrGrad not implemented when ncols > nrows or full_matrices "
                                  f"is true and ncols != nrows (got a {m}x{n} input)")
    (q, r), (grad_q, grad_r) = node.outputs, grads

    def solve(x):  # x r^-H, r upper triangular
        return _adjoint(create_op("matrix_triangular_solve", r, _adjoint(x, rank), lower=False,
                                  adjoint=False), rank)
    qdq, rdr = _matmul(q, grad_q, True, False), _matmul(r, grad_r, False, True)
    tril = create_op("matrix_band_part", qdq - _adjoint(qdq, rank) + rdr - _adjoint(rdr, rank),
                     num_lower=-1, num_upper=0)
    return [_matmul(q, grad_r + solve(tril)) + solve(grad_q - _matmul(q, qdq))]


(register_op("qr").describe("q, r with a = q r for each matrix [..., M, N]: q's columns "
                            "orthonormal, r upper triangular; attr full_matrices: q [M, M], "
                            "r [M, N] (else [M, K], [K, N], K = min(M, N)).")
 .set_num_inputs(1).set_num_outputs(2).set_attr("FInferShape", _qr_shape)
 .set_attr("FInferType", _float_type("qr")).set_attr("FGradient", _qr_grad))


def _eig_outputs(attrs):
    return 2 if attrs.get("compute_v", True) else 1


def _eig_shape(attrs, in_shapes, out_shapes):
    a = _matrices("self_adjoint_eig", in_shapes[0], square=True)
    if a is None:
        return [a], out_shapes
    return [a], [a[:-1], a][:_eig_outputs(attrs)]


def _eig_grad(node, grads):
    # TF 1.15's _SelfAdjointEigV2Grad: G = v (diag(de) + F o (v^H dv)) v^H, given as the lower
    # triangle the op reads, tril(G + G^H) with its diagonal halved; G + G^H = v (2 diag(de) +
    # F o (v^H dv - dv^H v)) v^H (F^H = -F), so no transpose (nor the rank) is needed
    middle = create_op("matrix_diag", grads[0]) * 2.0
    if len(grads) == 2:
        e, v = node.outputs
        middle = middle + _gaps(e) * (_matmul(v, grads[1], True, False)
                                      - _matmul(grads[1], v, True, False))
    else:  # without v: that of a new decomposition, as TF's
        v = _split(create_op("self_adjoint_eig", node.inputs[0], compute_v=True))[1]
    grad = create_op("matrix_band_part", _matmul(v, _matmul(middle, v, False, True)),
                     num_lower=-1, num_upper=0)
    return [create_op("matrix_set_diag", grad, create_op("matrix_diag_part", grad) * 0.5)]


(register_op("self_adjoint_eig").describe("The eigenvalues e (ascending) of each self-adjoint "
                                          "matrix, whose lower triangle alone is read, and with "
                                          "attr compute_v (default) the eigenvectors v (columns)"
                                          ": a = v diag(e) v^H.")
 .set_num_inputs(1).set_num_outputs(_eig_outputs).set_attr("FInferShape", _eig_shape)
 .set_attr("FInferType", _float_type("self_adjoint_eig")).set_attr("TTFType", "SelfAdjointEigV2")
 .set_attr("FGradient", _eig_grad))


# -- TF 1.15's linalg_impl ops: lu, expm, sqrtm, least squares, tridiagonal solve --------------
def _lu_shape(attrs, in_shapes, out_shapes):
    a = _matrices("lu", in_shapes[0], square=True)
    return [a], [a, None if a is None else a[:-1]]


def _lu_type(attrs, in_types, out_types):
    (dtype,), _ = _float_type("lu")(attrs, in_types[:1], out_types[:1])
    return [dtype], [dtype, attrs.get("output_idx_type", "int32")]


# TF 1.15 has no gradient for Lu: tf.gradients through it is an error naming the node, as TF's
(register_op("lu").describe("TF's packed LU of each square matrix: y[1] holds L below the "
                            "diagonal (unit diagonal implied) and U on and above it, with "
                            "L U = x[perm]; y[2] the permutation perm (attr output_idx_type).")
 .set_num_inputs(1).set_num_outputs(2).set_attr("FInferShape", _lu_shape)
 .set_attr("FInferType", _lu_type).set_attr("TTFType", "Lu"))


def _blocks(x, rows, cols, n):
    """The n x n block (rows, cols) of matrices [..., 2n, 2n]."""
    part = _split(create_op("split", x, axis=-2, sizes=[n, n]))[rows]
    return _split(create_op("split", part, axis=-1, sizes=[n, n]))[cols]


def _expm_grad(node, grads):
    # d expm(A)[G] for the adjoint: the upper right block of expm([[A^H, G], [0, A^H]])
    shape = _known_shape(node, "matrix_exponential")
    rank, n = len(shape), shape[-1]
    a_h = _adjoint(node.inputs[0], rank)
    top = create_op("concat", a_h, grads[0], num_args=2, axis=-1)
    bottom = create_op("concat", create_op("zeros_like", a_h), a_h, num_args=2, axis=-1)
    block = create_op("concat", top, bottom, num_args=2, axis=-2)
    return [_blocks(create_op("matrix_exponential", block), 0, 1, n)]


(register_op("matrix_exponential").describe("expm(x) of each square matrix (TF's "
                                            "tf.linalg.expm).")
 .set_num_inputs(1).set_attr("FInferShape", _square_same("matrix_exponential"))
 .set_attr("FInferType", _float_type("matrix_exponential"))
 .set_attr("FGradient", _expm_grad))


def _kron(a, b, n):
    """kron(a, b) of n x n matrices [..., n, n], the batch flattened: [-1, n*n, n*n], row
    (i, j), column (k, l)."""
    left = create_op("expand_dims", create_op("expand_dims", a, axis=-1), axis=-3)
    right = create_op("expand_dims", create_op("expand_dims", b, axis=-2), axis=-4)
    return create_op("reshape", left * right, shape=(-1, n * n, n * n))  # a[i, k] b[j, l]


def _sqrtm_grad(node, grads):
    # S = sqrtm(A): S dS + dS S = dA, so dA = X with S^H X + X S^H = G, a Sylvester equation
    # solved as one linear system of n^2 unknowns (TF 1.15's rule, by Kronecker products)
    shape = _known_shape(node, "matrix_square_root")
    rank, n = len(shape), shape[-1]
    root = node.outputs[0]
    identity = create_op("matrix_diag", create_op("ones_like", create_op(
        "matrix_diag_part", root)))
    system = _kron(_adjoint(root, rank), identity, n) + _kron(identity, root, n)
    flat = create_op("reshape", grads[0], shape=(-1, n * n, 1))
    solution = create_op("matrix_solve", system, flat)
    return [create_op("reshape_like", solution, grads[0])]


(register_op("matrix_square_root").describe("The principal square root of each square matrix "
                                            "(TF's tf.linalg.sqrtm): NaN where a real "
                                            "eigenvalue is negative, as TF's.")
 .set_num_inputs(1).set_attr("FInferShape", _square_same("matrix_square_root"))
 .set_attr("FInferType", _float_type("matrix_square_root")).set_attr("TTFType",
                                                                     "MatrixSquareRoot")
 .set_attr("FGradient", _sqrtm_grad))


def _solve_ls_shape(attrs, in_shapes, out_shapes):
    a, rhs = _matrices("matrix_solve_ls", in_shapes[0], "matrix"), _matrices(
        "matrix_solve_ls", in_shapes[1], "rhs")
    _same_batch("matrix_solve_ls", a, rhs)
    if a is None or rhs is None:
        return [a, rhs], out_shapes
    if a[-2] != rhs[-2]:
        raise ShapeError(f"matrix_solve_ls: matrix {a} and rhs {rhs} have different numbers "
                         f"of rows")
    return [a, rhs], [a[:-2] + (a[-1], rhs[-1])]


def _solve_ls_grad(node, grads):  # TF 1.15's _MatrixSolveLsGrad refuses fast=False
    raise ValueError("Gradient not defined for fast=False")


(register_op("matrix_solve_ls").describe("The least-squares solution of least norm of A X = "
                                         "rhs for each matrix A [..., M, N] (TF's "
                                         "MatrixSolveLs with fast=False).")
 .set_num_inputs(2).set_attr("FInferShape", _solve_ls_shape)
 .set_attr("FInferType", _float_type("matrix_solve_ls")).set_attr("TTFType", "MatrixSolveLs")
 .set_attr("FGradient", _solve_ls_grad))


def _tridiagonal_shape(attrs, in_shapes, out_shapes):
    diags = _matrices("tridiagonal_solve", in_shapes[0], "diagonals")
    rhs = _matrices("tridiagonal_solve", in_shapes[1] or out_shapes[0], "rhs")
    if diags is not None and diags[-2] != 3:
        raise ShapeError(f"Expected 3 diagonals got {diags[-2]}")
    _same_batch("tridiagonal_solve", diags, rhs, ("diagonals", "rhs"))
    if diags is not None and rhs is not None and diags[-1] != rhs[-2]:
        raise ShapeError(f"Expected number of left-hand sided and right-hand sides to be "
                         f"equal, got {diags[-1]} and {rhs[-2]}")
    return [diags, rhs], [rhs]


def _shift(x, axis, size, up):
    """x moved one place along ``axis`` (of ``size``) towards 0 (``up``) or away, a zero
    filling the place left."""
    if size == 1:
        return create_op("zeros_like", x)
    first, rest = _split(create_op("split", x, axis=axis, sizes=[1, size - 1] if up
                                   else [size - 1, 1]))
    zero = create_op("zeros_like", first if up else rest)
    parts = [rest, zero] if up else [zero, first]
    return create_op("concat", *parts, num_args=2, axis=axis)


def _tridiagonal_grad(node, grads):
    # TF 1.15's _TridiagonalSolveGrad: d rhs = solve(A^T, g), A^T's superdiagonal A's sub-
    # diagonal moved up and its subdiagonal A's superdiagonal moved down; d diagonals = minus
    # the three diagonals of d rhs x^T (each row of d rhs times a row of x, summed)
    size = _known_shape(node, "tridiagonal_solve")[-1]
    up, main, down = _split(create_op("split", node.inputs[0], axis=-2, sizes=[1, 1, 1]))
    transposed = create_op("concat", _shift(down, -1, size, True), main,
                           _shift(up, -1, size, False), num_args=3, axis=-2)
    grad_rhs = create_op("tridiagonal_solve", transposed, grads[0], **node.attrs)
    x = node.outputs[0]
    rows = [_shift(x, -2, size, True), x, _shift(x, -2, size, False)]
    diagonals = [create_op("expand_dims", create_op("reduce_sum", grad_rhs * row, axis=(-1,)),
                           axis=-2) for row in rows]
    return [-create_op("concat", *diagonals, num_args=3, axis=-2), grad_rhs]


(register_op("tridiagonal_solve").describe(
    "X with A X = rhs [..., M, K] for each tridiagonal A given as diagonals [..., 3, M] "
    "(super, main, sub; TF's compact format); Gaussian elimination with partial pivoting "
    "(attr partial_pivoting, default) or without (a zero pivot gives NaN, as TF's).")
 .set_num_inputs(2).set_attr("FInferShape", _tridiagonal_shape)
 .set_attr("FInferType", _float_type("tridiagonal_solve")).set_attr("TTFType",
                                                                    "TridiagonalSolve")
 .set_attr("FGradient", _tridiagonal_grad))
