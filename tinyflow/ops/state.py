"""Ops that change state: the scatter writes into a variable's rows (``scatter_update``,
``scatter_add``, ``scatter_sub``) and ``random_shuffle`` (draws from its node's stream).

A scatter op writes its variable as ``assign_add`` does: input 0 is the variable, declared
mutated (FMutateInputs) so OrderMutation runs the variable's other readers first, and its
output is the variable itself (FInplaceOption (0, 0)), holding the new value.  Inputs: the
variable ``ref`` of shape ``(N, ...)``, ``indices`` (int32 or int64, any shape ``I``) and
``updates`` of shape ``I + ref.shape[1:]`` or a scalar (broadcast), as TensorFlow 1.15's
``ScatterUpdateShape``.  Bodies: ``tinyflow/lua_ops/state/<name>.lua``.
"""
from __future__ import annotations

import numpy as np

from ..nnvm.attrs import no_gradient, same_shape, same_type
from ..nnvm.errors import BindError, DTypeError, ShapeError
from ..nnvm.op import register_op

__all__: list[str] = []


def _scatter_shape(attrs, in_shapes, out_shapes):
    ref, indices, updates = in_shapes
    ref = ref if ref is not None else out_shapes[0]
    if ref is not None and not ref:
        raise ShapeError("the variable must have at least one dimension (rows to scatter "
                         "into), got a scalar")
    if ref is not None and indices is not None and updates is not None and updates != ():
        expected = tuple(indices) + tuple(ref[1:])
        if tuple(updates) != expected:
            raise ShapeError(f"updates must have shape indices.shape + ref.shape[1:] = "
                             f"{expected} (or be a scalar), got {tuple(updates)}; ref "
                             f"{tuple(ref)}, indices {tuple(indices)}")
    return [ref, indices, updates], [ref]


def _scatter_type(attrs, in_types, out_types):
    ref, indices, updates = in_types
    if indices is not None and not indices.startswith("int"):
        raise DTypeError(f"indices must be int32 or int64, got {indices}")
    ref = ref or out_types[0] or updates
    if ref is not None and updates is not None and updates != ref:
        raise DTypeError(f"updates must have the variable's dtype {ref}, got {updates}")
    return [ref, indices, ref], [ref]


for _name, _doc in (("scatter_update", "ref[indices, ...] <- updates"),
                    ("scatter_add", "ref[indices, ...] += updates (repeated indices add up)"),
                    ("scatter_sub", "ref[indices, ...] -= updates (repeated indices add up)")):
    (register_op(_name).describe(f"{_doc}; the output is ref itself, holding its new value "
                                 f"(inputs ref, indices, updates).")
     .set_num_inputs(3).set_attr("FInferShape", _scatter_shape)
     .set_attr("FInferType", _scatter_type)
     .set_attr("FMutateInputs", [0]).set_attr("FInplaceOption", [(0, 0)])
     .set_attr("TUncapturable", True)  # on a GPU, the indices are checked on the host
     .set_attr("FGradient", no_gradient))

# TensorFlow's RandomShuffle has no gradient (ops.NotDifferentiable): neither has this one.
(register_op("random_shuffle")
 .describe("x with its slices along the first dimension in a random order; attrs seed, "
           "seed2 (tinyflow/frontend/random_ops.py).")
 .set_num_inputs(1).set_attr("FInferShape", same_shape).set_attr("FInferType", same_type)
 .set_attr("FGradient", no_gradient).set_attr("TRandom", True))


# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase


def _pull_initialized(node, resources, evaluate, deadline):
    """FPullOutputs of variables_initialized: whether each variable of attr variables can be
    read in this session (reading one that holds no value raises BindError)."""
    held = []
    for variable in node.attrs["variables"]:
        try:
            evaluate([variable])
            held.append(True)
        except BindError:
            held.append(False)
    if not node.attrs["names"]:
        return [held]
    names = [v.op.name.encode() for v, h in zip(node.attrs["variables"], held) if not h]
    return [np.array(names, dtype=object)]


(register_op("variables_initialized")
 .describe("Whether each variable of attr variables holds a value in this session, a bool "
           "vector; with attr names, the names of those that do not, as strings (TF's "
           "is_variable_initialized / report_uninitialized_variables).  Pulled before the run.")
 .set_num_inputs(0)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [
     out_shapes[0] if attrs["names"] else (len(attrs["variables"]),)]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (
     in_types, ["string" if attrs["names"] else "bool"]))
 .set_attr("FPullOutputs", _pull_initialized).set_attr("TPythonAttrs", ("variables",))
 .set_attr("FGradient", no_gradient))
