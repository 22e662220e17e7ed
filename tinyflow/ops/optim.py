"""Optimizer updates as single ops (MXNet's sgd_update / adam_update, TensorFlow's
ApplyGradientDescent / ApplyAdam): one op writes a variable and its slots in place, instead of a
chain of elementwise ops and assigns, so a step reads each parameter-sized tensor once.

Each op mutates its leading inputs (FMutateInputs), whose outputs are those variables themselves
(as ``assign``).  Bodies: ``tinyflow/lua_ops/ops/<name>.lua``.
"""
from __future__ import annotations

from ..nnvm.attrs import no_gradient, same_shape
from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op

__all__ = []


def _state_and_step_shape(attrs, in_shapes, out_shapes):
    """FInferShape: the variables and the gradient share one shape; the step is ()."""
    if in_shapes[-1] not in (None, ()):
        raise ShapeError(f"the step count must be a scalar, got {in_shapes[-1]}")
    tensors, outputs = same_shape(attrs, in_shapes[:-1], out_shapes)
    return list(tensors) + [()], outputs


def _update_op(name, doc, num_state, step_input):
    op = (register_op(name).describe(doc)
          .set_num_inputs(num_state + 1 + step_input).set_num_outputs(num_state)
          .set_attr("FMutateInputs", list(range(num_state)))
          .set_attr("FInplaceOption", [(i, i) for i in range(num_state)])
          .set_attr("FGradient", no_gradient))
    op.set_attr("FInferShape", _state_and_step_shape if step_input else same_shape)


_update_op("sgd_update", "var <- var - lr * grad.  Inputs var, grad; attr lr.", 1, False)
_update_op("momentum_update",
           "accum <- momentum * accum + grad; var <- var - lr * accum (with nesterov: "
           "var <- var - lr * (grad + momentum * accum)).  Inputs var, accum, grad; attrs lr, "
           "momentum, nesterov.", 2, False)
_update_op("adam_update",
           "One Adam step (as torch.optim.Adam) of var, m, v against grad at step count t "
           "(1 on the first step).  Inputs var, m, v, grad, t; attrs lr, beta1, beta2, epsilon.",
           3, True)
