"""TensorFlow 1.15's special functions: ``tf.math.lbeta``, ``igamma``, ``igammac``,
``betainc``, ``polygamma``, ``zeta`` (also ``tf.*``), ``erfinv``, ``ndtri``, ``bessel_i0``,
``bessel_i0e``, ``bessel_i1``, ``bessel_i1e`` (also ``tf.math.special.*``) and
``cumulative_logsumexp``.  Their ops are tinyflow/ops/special.py's (cumulative_logsumexp
tinyflow/ops/math.py's); their gradients TF's."""
from __future__ import annotations

from ..nnvm.symbol import Symbol, create_op
from . import api
from .math_ops import _cumulative, convert_to_tensor

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "betainc",
           "cumulative_logsumexp", "erfinv", "igamma", "igammac", "lbeta", "ndtri", "polygamma",
           "zeta"]


def _tensors(*values) -> list:
    """The arguments as tensors, a Python number taking the dtype of a tensor beside it (TF's
    conversion of each to the first tensor's dtype)."""
    dtype = next((v.dtype for v in values if isinstance(v, Symbol)), None)
    return [convert_to_tensor(v, preferred_dtype=dtype or "float32") for v in values]


def _unary(name, doc):
    def function(x, name=None) -> Symbol:
        return create_op(op_name, *_tensors(x), name=name)
    op_name = name
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc + "\n\nThe ``tf.math`` function; its gradient is TF's."
    return function


erfinv = _unary("erfinv", "``erf``'s inverse, elementwise on [-1, 1] (+-inf at +-1, NaN out).")
ndtri = _unary("ndtri", "The inverse of the standard normal CDF, elementwise on [0, 1].")
bessel_i0 = _unary("bessel_i0", "``I0(x)``, the modified Bessel function of the first kind of "
                   "order 0.")
bessel_i0e = _unary("bessel_i0e", "``exp(-|x|) I0(x)``, which does not overflow.")
bessel_i1 = _unary("bessel_i1", "``I1(x)``, the modified Bessel function of order 1.")
bessel_i1e = _unary("bessel_i1e", "``exp(-|x|) I1(x)``.")


def igamma(a, x, name=None) -> Symbol:
    """``P(a, x)``, the regularized lower incomplete gamma function, elementwise with numpy
    broadcasting; NaN where ``a <= 0`` or ``x < 0``.  Gradients in both, as TF's (in ``a`` by
    a float64 5-point difference: TF's IgammaGradA)."""
    return create_op("igamma", *_tensors(a, x), name=name)


def igammac(a, x, name=None) -> Symbol:
    """``Q(a, x) = 1 - P(a, x)``, the regularized upper incomplete gamma function; as
    :func:`igamma`."""
    return create_op("igammac", *_tensors(a, x), name=name)


def zeta(x, q, name=None) -> Symbol:
    """Hurwitz's zeta function ``sum over k >= 0 of (k + q) ** -x``, elementwise with
    broadcasting (NaN for ``x < 1``, inf at ``x == 1``); the gradient in ``q`` only, as TF."""
    return create_op("zeta", *_tensors(x, q), name=name)


def polygamma(a, x, name=None) -> Symbol:
    """The ``a``-th derivative of digamma at ``x`` (``a`` a float tensor of whole numbers >= 0,
    NaN elsewhere), elementwise with broadcasting; the gradient in ``x`` only, as TF."""
    return create_op("polygamma", *_tensors(a, x), name=name)


def betainc(a, b, x, name=None) -> Symbol:
    """``I_x(a, b)``, the regularized incomplete beta function, elementwise (numpy broadcasting:
    TF 1.15 takes one shape or scalars beside it); NaN where ``a <= 0``, ``b <= 0`` or ``x``
    is outside [0, 1].  The gradient in ``x`` only, as TF."""
    return create_op("betainc", *_tensors(a, b, x), name=name)


def lbeta(x, name=None) -> Symbol:
    """``log(|Beta(x)|)`` along the last axis: ``sum(lgamma(x), -1) - lgamma(sum(x, -1))``
    (TF 1.15's composition; ``-inf`` for an empty last axis)."""
    x = convert_to_tensor(x)
    result = (api.reduce_sum(api.lgamma(x), axis=[-1])
              - api.lgamma(api.reduce_sum(x, axis=[-1])))
    return api.identity(result, name=name) if name else result


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None) -> Symbol:
    """Running ``log(sum(exp(x)))`` along ``axis`` without overflow; ``exclusive`` leaves each
    element out of its own (the first is ``-inf``), ``reverse`` runs from the end, as
    ``tf.cumsum``'s.  Float tensors; the gradient is TF's."""
    return _cumulative("cumulative_logsumexp", convert_to_tensor(x), axis, exclusive, reverse,
                       name)
