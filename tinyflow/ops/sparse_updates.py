"""The optimizers' updates against a gradient given as slices (TensorFlow's IndexedSlices, the
``_apply_sparse`` of TF 1.15's optimizers): ``sparse_<update>`` for each update op of
:mod:`tinyflow.ops.optim`.  Inputs the state (the variable, then its slots), the slices'
``values`` (``[N] + var.shape[1:]``) and ``indices`` (``[N]``, int32 or int64), then the op's
scalars, and last the learning rate when it is a tensor (no ``lr`` attribute).  Only the rows
the indices name change, in the variable and its slots, their values summed first (TF's
``_deduplicate_indexed_slices``), but for gradient descent (TF's scatter_sub takes each) and
Adam (TF's decays every row of its slots).  Bodies: ``tinyflow/lua_ops/sparse_updates/``.
"""
from __future__ import annotations

from ..nnvm.attrs import no_gradient, same_shape, shape_str
from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op

__all__ = []


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


def _sparse_update_op(name, tf_type, num_state, num_scalars=0):
    num_inputs = num_state + 2 + num_scalars
    op = (register_op(name).describe(
        f"{name[len('sparse_'):]} on the rows indices names, from slices values (TF's {tf_type}).  Inputs "
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


for _name, _tf_type, _num_state in (
        ("sparse_sgd_update", "ScatterSub", 1), ("sparse_momentum_update", "SparseApplyMomentum", 2),
        ("sparse_rmsprop_update", "SparseApplyRMSProp", 3),
        ("sparse_centered_rmsprop_update", "SparseApplyCenteredRMSProp", 4),
        ("sparse_adagrad_update", "SparseApplyAdagrad", 2),
        ("sparse_adadelta_update", "SparseApplyAdadelta", 3),
        ("sparse_proximal_sgd_update", "SparseApplyProximalGradientDescent", 1),
        ("sparse_proximal_adagrad_update", "SparseApplyProximalAdagrad", 2),
        ("sparse_ftrl_update", "SparseApplyFtrl", 3)):
    _sparse_update_op(_name, _tf_type, _num_state)
# TF composes sparse Adam of assign, scatter_add and assign_sub: no op type of its own
_sparse_update_op("sparse_adam_update", "_apply_sparse_shared", 3, num_scalars=2)
