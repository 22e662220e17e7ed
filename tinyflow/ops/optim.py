"""Optimizer updates as single ops (MXNet's sgd_update / adam_update, TensorFlow's
ApplyGradientDescent / ApplyAdam / ApplyRMSProp...): one op writes a variable and its slots in
place, instead of a chain of elementwise ops and assigns, so a step reads each parameter-sized
tensor once.

Each op mutates its leading inputs (FMutateInputs), whose outputs are those variables themselves
(as ``assign``).  Its inputs are the state (the variable, then its slots), the gradient, the
op's scalar inputs (Adam's beta powers), and last the learning rate when it is a tensor: without
an ``lr`` attribute the op takes one more input, a scalar.  Bodies:
``tinyflow/lua_ops/optim/<name>.lua``.

``sparse_<name>`` is the update against a gradient given as slices (TF's IndexedSlices, the
``_apply_sparse`` of TF 1.15's optimizers): inputs the state, then the slices' ``values``
(``[N] + var.shape[1:]``) and ``indices`` (``[N]``, int32 or int64), then the scalars.  Only the
rows the indices name change, in the variable and its slots, their values summed first
(TF's ``_deduplicate_indexed_slices``); sparse Adam decays every row of its slots, as TF's.
"""
from __future__ import annotations

from ..nnvm.attrs import no_gradient, same_shape, shape_str
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


def _sparse_update_shape(attrs, in_shapes, out_shapes):
    """FInferShape of a sparse update: the state shares one shape; values ``[N] + its
    shape[1:]``, indices ``[N]``; the rest are scalars."""
    num_state = len(out_shapes)
    values, indices = in_shapes[num_state:num_state + 2]
    state, outputs = same_shape(attrs, in_shapes[:num_state], out_shapes)
    scalars = in_shapes[num_state + 2:]
    if any(s not in (None, ()) for s in scalars):
        raise ShapeError(f"the beta powers and a tensor learning rate must be scalars, got "
                         f"shapes {scalars}")
    like = state[0]
    if like is not None and len(like) == 0:
        raise ShapeError("a sparse update needs a variable of at least one axis, got a scalar")
    if indices is not None and len(indices) != 1:
        raise ShapeError(f"indices must be a vector, got shape {shape_str(indices)}")
    count = values[0] if values else indices[0] if indices else None
    if like is not None and count is not None:
        expected = (count,) + tuple(like[1:])
        if values is not None and tuple(values) != expected:
            raise ShapeError(f"the slices' values have shape {shape_str(values)}, not "
                             f"{shape_str(expected)} (one row per index, the variable's "
                             f"{shape_str(like)} rows)")
        values = expected
    if count is not None:
        if indices is not None and indices[0] != count:
            raise ShapeError(f"{indices[0]} indices for {count} rows of values")
        indices = (count,)
    return list(state) + [values, indices] + [()] * len(scalars), outputs


def _sparse_update_type(attrs, in_types, out_types):
    """FInferType: the state, values and scalars share one float type; indices int32 or
    int64."""
    num_state = len(out_types)
    kind = in_types[num_state + 1]
    if kind is not None and kind not in ("int32", "int64"):
        raise TypeError(f"a sparse update's indices must be int32 or int64, got {kind}")
    floats = [t for i, t in enumerate(in_types) if i != num_state + 1] + list(out_types)
    dtype = next((t for t in floats if t is not None), None)
    in_types = [kind if i == num_state + 1 else dtype for i in range(len(in_types))]
    return in_types, [dtype] * num_state


def _sparse_update_op(dense, tf_type, num_state, num_scalars=0):
    num_inputs = num_state + 2 + num_scalars
    op = (register_op(f"sparse_{dense}").describe(
        f"{dense} on the rows indices names, from slices values (TF's {tf_type}).  Inputs "
        f"the state ({num_state}), values, indices, then the op's scalars.")
     .set_num_inputs(lambda attrs: num_inputs + ("lr" not in attrs))
     .set_num_outputs(num_state)
     .set_attr("FInferShape", _sparse_update_shape)
     .set_attr("FInferType", _sparse_update_type)
     .set_attr("FMutateInputs", list(range(num_state)))
     .set_attr("FInplaceOption", [(i, i) for i in range(num_state)])
     .set_attr("TUncapturable", True)  # the distinct rows are counted on the host
     .set_attr("FGradient", no_gradient))
    if tf_type[0] != "_":
        op.set_attr("TTFType", tf_type)


for _dense, _tf_type, _num_state in (
        ("sgd_update", "ScatterSub", 1), ("momentum_update", "SparseApplyMomentum", 2),
        ("rmsprop_update", "SparseApplyRMSProp", 3),
        ("centered_rmsprop_update", "SparseApplyCenteredRMSProp", 4),
        ("adagrad_update", "SparseApplyAdagrad", 2), ("adadelta_update", "SparseApplyAdadelta", 3),
        ("proximal_sgd_update", "SparseApplyProximalGradientDescent", 1),
        ("proximal_adagrad_update", "SparseApplyProximalAdagrad", 2),
        ("ftrl_update", "SparseApplyFtrl", 3)):
    _sparse_update_op(_dense, _tf_type, _num_state)
# TF composes sparse Adam of assign, scatter_add and assign_sub: no op type of its own
_sparse_update_op("adam_update", "_apply_sparse_shared", 3, num_scalars=2)

# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase
for _name, _type in (("sgd_update", "ApplyGradientDescent"), ("momentum_update", "ApplyMomentum"),
        ("adam_update", "ApplyAdam"), ("rmsprop_update", "ApplyRMSProp"),
        ("centered_rmsprop_update", "ApplyCenteredRMSProp"), ("adagrad_update", "ApplyAdagrad"),
        ("adadelta_update", "ApplyAdadelta"),
        ("proximal_sgd_update", "ApplyProximalGradientDescent"),
        ("proximal_adagrad_update", "ApplyProximalAdagrad"), ("ftrl_update", "ApplyFtrl")):
    Op.get(_name).set_attr("TTFType", _type)
