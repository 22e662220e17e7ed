"""softmax and log_softmax along an axis, and their gradients.  Bodies in
``lua_ops/softmax/<name>.lua``; the softmax cross-entropies are in nn.py and conv.py."""
from __future__ import annotations

from ..nnvm.attrs import same_shape
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op

__all__ = []

for _name in ("softmax", "log_softmax"):
    (register_op(_name).describe(f"{_name} along axis (default -1).").set_num_inputs(1)
     .set_attr("FInferShape", same_shape)
     .set_attr("FGradient", lambda n, g, name=_name: [create_op(
         f"_{name}_backward", g[0], n.outputs[0], axis=n.attrs.get("axis", -1))]))
    (register_op(f"_{_name}_backward").describe(f"Gradient of {_name} from g and its output.")
     .set_num_inputs(2).set_attr("FInferShape", same_shape)
     .set_attr("TIsBackward", True))
