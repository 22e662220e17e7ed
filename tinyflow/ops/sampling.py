"""Random draws whose law takes tensor parameters: TensorFlow's RandomGamma (``tf.random_gamma``)
and RandomPoissonV2 (``tf.random_poisson``), and the gamma draw's reparameterised gradient.

Each takes its parameter as input 0 and attr ``shape``, the shape of the draws per parameter,
which the output's shape starts with (TF: ``shape + alpha.shape``); ``seed`` and ``seed2`` as the
other random ops (:mod:`tinyflow.frontend.random_ops`: a seeded node draws from its session's
stream for it).  A gamma sample x of shape alpha depends on alpha through the law's CDF F:
F(x; alpha) = u fixed, so dx/dalpha = -(dF/dalpha) / (dF/dx) (TF's RandomGammaGrad, torch's
``_standard_gamma_grad``), which makes ``tf.random_gamma`` differentiable in alpha (and, as
x / beta, in beta) as TF's is.
"""
from __future__ import annotations

from ..nnvm.attrs import no_gradient, shape_str
from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op

__all__: list[str] = []


def _draws_shape(attrs, in_shapes, out_shapes):
    """shape + the parameter's shape."""
    shape = tuple(attrs.get("shape", ()))
    if not all(isinstance(d, int) and d >= 0 for d in shape):
        raise ShapeError(f"attr shape must be sizes >= 0, got {shape}")
    if in_shapes[0] is None:
        return in_shapes, out_shapes
    return in_shapes, [shape + tuple(in_shapes[0])]


def _draws_type(kinds):
    def rule(attrs, in_types, out_types):
        dtype = attrs.get("dtype", "float32")
        if dtype not in kinds:
            raise ShapeError(f"dtype must be one of {', '.join(kinds)}, got {dtype!r}")
        parameter = in_types[0] or "float32"
        if parameter not in ("float16", "float32", "float64"):
            raise ShapeError(f"the law's parameter must be a float tensor, got {parameter}")
        return [parameter], [dtype]
    return rule


def _gamma_gradient(node, grads):
    """d/d alpha of sum(g * x): the sample's derivative in alpha times g, summed over the
    draws per alpha (the leading ``shape`` axes)."""
    alpha, sample = node.inputs[0], node.outputs[0]
    partial = create_op("_random_gamma_grad", alpha, sample)
    axes = tuple(range(len(node.attrs.get("shape", ()))))
    return [create_op("reduce_sum", grads[0] * partial, axis=axes) if axes
            else grads[0] * partial]


def _gamma_grad_shape(attrs, in_shapes, out_shapes):
    alpha, sample = in_shapes
    if alpha is not None and sample is not None and (
            len(alpha) > len(sample) or tuple(sample[len(sample) - len(alpha):]) != tuple(alpha)):
        raise ShapeError(f"alpha {shape_str(alpha)} must be the trailing dims of the sample "
                         f"{shape_str(sample)}")
    return in_shapes, [sample]


_FLOATS = ("float16", "float32", "float64")
(register_op("random_gamma")
 .describe("Gamma(alpha, 1) draws: input alpha; attrs shape (the draws per alpha, leading the "
           "output's shape), dtype (alpha's), seed, seed2.  alpha NaN or < 0 draws NaN.")
 .set_num_inputs(1).set_attr("FInferShape", _draws_shape)
 .set_attr("FInferType", _draws_type(_FLOATS)).set_attr("FGradient", _gamma_gradient)
 .set_attr("TRandom", True))
(register_op("random_poisson")
 .describe("Poisson(rate) draws: input rate; attrs shape (the draws per rate, leading the "
           "output's shape), dtype (float16/32/64, int32, int64), seed, seed2.  A rate NaN, "
           "< 0 or infinite draws NaN (a float dtype).")
 .set_num_inputs(1).set_attr("FInferShape", _draws_shape)
 .set_attr("FInferType", _draws_type((*_FLOATS, "int32", "int64")))
 .set_attr("FGradient", no_gradient).set_attr("TRandom", True))
(register_op("_random_gamma_grad")
 .describe("d sample / d alpha of Gamma(alpha, 1) samples (input 1), alpha (input 0) their "
           "trailing dims: -(dF/dalpha) / (dF/dx), F the law's CDF.")
 .set_num_inputs(2).set_attr("FInferShape", _gamma_grad_shape)
 .set_attr("TIsBackward", True))
