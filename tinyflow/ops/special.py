"""TensorFlow's special functions (tf.math): the incomplete gamma and beta functions, polygamma,
Hurwitz's zeta, the inverses of erf and of the normal CDF, the modified Bessel functions of
order 0 and 1.  Bodies in ``lua_ops/special/<name>.lua`` over the family's kernels
(torch.special's, and the incomplete beta function and igamma's derivative in its first
argument, which torch lacks).

Gradients are TF's (math_grad.py): none in polygamma's order, zeta's x or betainc's a and b (TF
gives None there too), igamma's in a by ``_igamma_grad_a`` (TF's IgammaGradA).
"""
from __future__ import annotations

import math

from ..nnvm.attrs import broadcast_shapes, same_shape
from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op
from .elemwise import binary_shape, collapse_sum_like, dtype_rule

__all__ = []

_FLOAT = dtype_rule(("float",))


def _op(name, doc, num_inputs, shape, gradient=None, inplace=False):
    op = (register_op(name).describe(doc).set_num_inputs(num_inputs)
          .set_attr("FInferShape", shape).set_attr("FInferType", _FLOAT))
    if gradient is not None:
        op.set_attr("FGradient", gradient)
    if inplace:  # one torch call writes each element after reading it
        op.set_attr("FInplaceOption", [(0, 0)])
    return op


# -- one input: same shape -----------------------------------------------------------------------
def _exp(x):
    return create_op("exp", x)


def _bessel_i1e_grad(n, g):
    # TF's: i0e(x) - y (sign(x) + 1 / x), 0.5 at |x| <= eps (where 1 / x would blow up)
    x, y = n.inputs[0], n.outputs[0]
    tiny = create_op("abs", x) <= 1e-7
    safe = create_op("where", tiny, create_op("ones_like", x), x)
    slope = create_op("bessel_i0e", safe) - y * (create_op("sign", safe) + 1.0 / safe)
    return [g[0] * create_op("where", tiny, create_op("ones_like", x) * 0.5, slope)]


def _bessel_i1_grad(n, g):
    # d I1(x) / dx = I0(x) - I1(x) / x, 0.5 at 0 (TF 1.15's exp(|x|) * i1e(x) gives 0.5 too)
    x, y = n.inputs[0], n.outputs[0]
    tiny = create_op("abs", x) <= 1e-7
    safe = create_op("where", tiny, create_op("ones_like", x), x)
    slope = create_op("bessel_i0", safe) - y / safe
    return [g[0] * create_op("where", tiny, create_op("ones_like", x) * 0.5, slope)]


_UNARY = {
    # d erfinv(x) / dx = sqrt(pi) / 2 * exp(erfinv(x)^2)
    "erfinv": ("The inverse of erf, on [-1, 1].", lambda n, g: [
        g[0] * _exp(n.outputs[0] * n.outputs[0]) * (math.sqrt(math.pi) / 2.0)]),
    # d ndtri(p) / dp = sqrt(2 pi) * exp(ndtri(p)^2 / 2)
    "ndtri": ("The inverse of the standard normal CDF, on [0, 1].", lambda n, g: [
        g[0] * _exp(n.outputs[0] * n.outputs[0] * 0.5) * math.sqrt(2.0 * math.pi)]),
    "bessel_i0": ("I0(x), the modified Bessel function of order 0.", lambda n, g: [
        g[0] * create_op("bessel_i1", n.inputs[0])]),
    # d i0e(x) / dx = i1e(x) - sign(x) i0e(x)
    "bessel_i0e": ("exp(-|x|) I0(x).", lambda n, g: [
        g[0] * (create_op("bessel_i1e", n.inputs[0])
                - create_op("sign", n.inputs[0]) * n.outputs[0])]),
    "bessel_i1": ("I1(x), the modified Bessel function of order 1.", _bessel_i1_grad),
    "bessel_i1e": ("exp(-|x|) I1(x).", _bessel_i1e_grad),
}
for _name, (_doc, _gradient) in _UNARY.items():
    _op(_name, _doc, 1, same_shape, _gradient, inplace=True)


# -- two inputs, numpy broadcasting -------------------------------------------------------------
def _igamma_grads(n, g, sign):
    # d P(a, x) / dx = exp(-x + (a - 1) log x - lgamma(a)); d / da: _igamma_grad_a
    a, x = n.inputs
    partial_x = _exp(-x + (a - 1.0) * create_op("log", x) - create_op("lgamma", a))
    partial_a = create_op("_igamma_grad_a", a, x)
    return [collapse_sum_like(g[0] * partial_a * sign, a),
            collapse_sum_like(g[0] * partial_x * sign, x)]


_op("igamma", "P(a, x), the regularized lower incomplete gamma function (NaN for a <= 0 or "
    "x < 0).", 2, binary_shape, lambda n, g: _igamma_grads(n, g, 1.0))
_op("igammac", "Q(a, x) = 1 - P(a, x), the upper one.", 2, binary_shape,
    lambda n, g: _igamma_grads(n, g, -1.0))
# TF registers no gradient for IgammaGradA: differentiating it twice raises
_op("_igamma_grad_a", "d P(a, x) / da, TF's IgammaGradA (a 5-point difference in float64).", 2,
    binary_shape)
_op("zeta", "Hurwitz's zeta(x, q) = sum over k >= 0 of (k + q)^-x; no gradient in x, as TF.",
    2, binary_shape, lambda n, g: [None, collapse_sum_like(
        g[0] * -n.inputs[0] * create_op("zeta", n.inputs[0] + 1.0, n.inputs[1]),
        n.inputs[1])])
_op("polygamma", "polygamma(a, x): the a-th derivative of digamma (a a whole number >= 0, NaN "
    "otherwise); no gradient in a, as TF.", 2, binary_shape, lambda n, g: [
        None, collapse_sum_like(g[0] * create_op("polygamma", n.inputs[0] + 1.0, n.inputs[1]),
                                n.inputs[1])])


# -- betainc: three inputs ----------------------------------------------------------------------
def _three_shape(attrs, in_shapes, out_shapes):
    """a, b and x broadcast together (TF 1.15: one shape, or scalars beside it)."""
    out = out_shapes[0]
    if None not in in_shapes:
        found = broadcast_shapes(broadcast_shapes(in_shapes[0], in_shapes[1]), in_shapes[2])
        if out is not None and tuple(out) != found:
            raise ShapeError(f"output must be {found}, got {out}")
        out = found
    # no backward rule: an unknown input may be a scalar beside the output's shape
    return list(in_shapes), [out]


def _betainc_grad(n, g):
    # d I_x(a, b) / dx = x^(a-1) (1-x)^(b-1) / B(a, b); none in a and b (TF's math_grad.py)
    a, b, x = n.inputs
    log_beta = create_op("lgamma", a) + create_op("lgamma", b) - create_op("lgamma", a + b)
    partial_x = _exp((b - 1.0) * create_op("log1p", -x) + (a - 1.0) * create_op("log", x)
                     - log_beta)
    return [None, None, collapse_sum_like(g[0] * partial_x, x)]


# its continued fraction stops when every element has converged: a host sync per term
_op("betainc", "I_x(a, b), the regularized incomplete beta function (NaN for a <= 0, b <= 0 "
    "or x outside [0, 1]).", 3, _three_shape, _betainc_grad).set_attr("TUncapturable", True)
