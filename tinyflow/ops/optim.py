"""Optimizer updates as single ops (MXNet's sgd_update / adam_update, TensorFlow's
ApplyGradientDescent / ApplyAdam / ApplyRMSProp...): one op writes a variable and its slots in
place, instead of a chain of elementwise ops and assigns, so a step reads each parameter-sized
tensor once.

Each op mutates its leading inputs (FMutateInputs), whose outputs are those variables themselves
(as ``assign``).  Its inputs are the state (the variable, then its slots), the gradient, the
op's scalar inputs (Adam's beta powers), and last the learning rate when it is a tensor: without
an ``lr`` attribute the op takes one more input, a scalar.  Bodies:
``tinyflow/lua_ops/optim/<name>.lua``.  Their sparse twins, against an IndexedSlices gradient:
:mod:`tinyflow.ops.sparse_updates`.
"""
from __future__ import annotations

from ..nnvm.attrs import no_gradient, same_shape
from ..nnvm.errors import ShapeError
from ..nnvm.op import Op, register_op

__all__ = []


def _update_shape(attrs, in_shapes, out_shapes):
    """FInferShape: the state inputs (one per output), the gradient after them and the outputs
    share one shape; the inputs after the gradient (Adam's beta powers, learning rate) are
    scalars."""
    tensors = len(out_shapes) + 1
    scalars = in_shapes[tensors:]
    if any(s not in (None, ()) for s in scalars):
        raise ShapeError(f"the beta powers and a tensor learning rate must be scalars, got "
                         f"shapes {scalars}")
    shared, outputs = same_shape(attrs, in_shapes[:tensors], out_shapes)
    return list(shared) + [()] * len(scalars), outputs


def _update_op(name, doc, num_state, num_scalars=0):
    num_inputs = num_state + 1 + num_scalars
    (register_op(name).describe(doc)
     .set_num_inputs(lambda attrs: num_inputs + ("lr" not in attrs))
     .set_num_outputs(num_state)
     .set_attr("FInferShape", _update_shape)
     .set_attr("FMutateInputs", list(range(num_state)))
     .set_attr("FInplaceOption", [(i, i) for i in range(num_state)])
     .set_attr("FGradient", no_gradient))


_update_op("sgd_update", "var <- var - lr * grad.  Inputs var, grad.", 1)
_update_op("momentum_update",
           "accum <- momentum * accum + grad; var <- var - lr * accum (with nesterov: "
           "var <- var - lr * (grad + momentum * accum)).  Inputs var, accum, grad; attrs "
           "momentum, nesterov.", 2)
_update_op("adam_update",
           "TensorFlow's ApplyAdam: lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power); "
           "m <- m + (grad - m) * (1 - beta1); v <- v + (grad^2 - v) * (1 - beta2); var <- var "
           "- lr_t * m / (sqrt(v) + epsilon).  Inputs var, m, v, grad, beta1_power, beta2_power "
           "(scalars: beta ** t before step t); attrs beta1, beta2, epsilon.", 3, num_scalars=2)
_update_op("rmsprop_update",
           "TensorFlow's ApplyRMSProp: ms <- ms + (grad^2 - ms) * (1 - rho); mom <- momentum * "
           "mom + lr * grad / sqrt(ms + epsilon); var <- var - mom.  Inputs var, ms, mom, grad; "
           "attrs rho, momentum, epsilon.", 3)
_update_op("centered_rmsprop_update",
           "TensorFlow's ApplyCenteredRMSProp: ms as rmsprop_update, mg <- mg + (grad - mg) * "
           "(1 - rho); mom <- momentum * mom + lr * grad / sqrt(ms - mg^2 + epsilon); var <- "
           "var - mom.  Inputs var, mg, ms, mom, grad; attrs rho, momentum, epsilon.", 4)
_update_op("adagrad_update",
           "TensorFlow's ApplyAdagrad: accum <- accum + grad^2; var <- var - lr * grad / "
           "sqrt(accum).  Inputs var, accum, grad.", 2)
_update_op("adadelta_update",
           "TensorFlow's ApplyAdadelta: accum <- rho * accum + (1 - rho) * grad^2; update = "
           "sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad; var <- var - lr * "
           "update; accum_update <- rho * accum_update + (1 - rho) * update^2.  Inputs var, "
           "accum, accum_update, grad; attrs rho, epsilon.", 3)
_update_op("proximal_sgd_update",
           "TensorFlow's ApplyProximalGradientDescent: prox = var - lr * grad; var <- "
           "sign(prox) * max(|prox| - lr * l1, 0) / (1 + lr * l2).  Inputs var, grad; attrs l1, "
           "l2.", 1)
_update_op("proximal_adagrad_update",
           "TensorFlow's ApplyProximalAdagrad: accum <- accum + grad^2; rate = lr / "
           "sqrt(accum); prox = var - rate * grad; var <- sign(prox) * max(|prox| - rate * l1, "
           "0) / (1 + rate * l2).  Inputs var, accum, grad; attrs l1, l2.", 2)
_update_op("ftrl_update",
           "TensorFlow's ApplyFtrl (ApplyFtrlV2 with l2_shrinkage): new = accum + grad^2; linear "
           "<- linear + grad + 2 l2_shrinkage var - (new^-p - accum^-p) / lr * var, p = "
           "lr_power; var <- (l1 sign(linear) - linear) / (new^-p / lr + 2 l2) where |linear| > "
           "l1, else 0; accum <- new.  Inputs var, accum, linear, grad; attrs l1, l2, "
           "l2_shrinkage, lr_power.", 3)


# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase
for _name, _type in (("sgd_update", "ApplyGradientDescent"), ("momentum_update", "ApplyMomentum"),
        ("adam_update", "ApplyAdam"), ("rmsprop_update", "ApplyRMSProp"),
        ("centered_rmsprop_update", "ApplyCenteredRMSProp"), ("adagrad_update", "ApplyAdagrad"),
        ("adadelta_update", "ApplyAdadelta"),
        ("proximal_sgd_update", "ApplyProximalGradientDescent"),
        ("proximal_adagrad_update", "ApplyProximalAdagrad"), ("ftrl_update", "ApplyFtrl")):
    Op.get(_name).set_attr("TTFType", _type)
