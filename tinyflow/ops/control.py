"""Ops that shape what runs rather than compute: ``no_op`` (``tf.group``, ``tf.no_op``) and
``stop_gradient``.

Bodies: ``tinyflow/lua_ops/ops/<name>.lua``.
"""
from __future__ import annotations

from ..nnvm.attrs import inplace_first, no_gradient, same_shape, same_type
from ..nnvm.op import register_op

__all__: list[str] = []

# An operation has no value, but every fetch here is a node entry: its one output is a 0-d bool
# that nothing writes, so a group is one node that can be fetched, named and depended on.
(register_op("no_op").describe("Nothing: runs after its control dependencies (tf.group).")
 .set_num_inputs(0)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["bool"]))
 .set_attr("FGradient", no_gradient))

(register_op("stop_gradient").describe("x, as a constant to gradients: none flows back through "
                                        "it (tf.stop_gradient).")
 .set_num_inputs(1).set_attr("FInferShape", same_shape).set_attr("FInferType", same_type)
 .set_attr("FInplaceOption", inplace_first).set_attr("FGradient", no_gradient))
