"""softmax and log_softmax along an axis, and their gradients.  Bodies in
``lua_ops/softmax/<name>.lua``; the softmax cross-entropies are in nn.py and conv.py."""
from __future__ import annotations

from ..nnvm.attrs import same_shape
from ..nnvm.op import Op, register_op
from ..nnvm.symbol import create_op

__all__ = []


def _sum(x, axis):
    return create_op("reduce_sum", x, axis=axis, keepdims=True)


def _softmax_backward_grad(node, grads):
    """out = y * (g - sum(g * y)) (sums along axis): linear in g, so d g = the same op of
    the head h; d y = h * (g - sum(g * y)) - g * sum(h * y)."""
    (g, y), h, axis = node.inputs, grads[0], node.attrs.get("axis", -1)
    return [create_op("_softmax_backward", h, y, axis=axis),
            h * (g - _sum(g * y, axis)) - g * _sum(h * y, axis)]


def _log_softmax_backward_grad(node, grads):
    """out = g - exp(y) * sum(g): d g = h - sum(h * exp(y)), d y = -h * exp(y) * sum(g)."""
    (g, y), h, axis = node.inputs, grads[0], node.attrs.get("axis", -1)
    p = create_op("exp", y)
    return [h - _sum(h * p, axis), -(h * p) * _sum(g, axis)]


for _name, _grad in (("softmax", _softmax_backward_grad),
                     ("log_softmax", _log_softmax_backward_grad)):
    (register_op(_name).describe(f"{_name} along axis (default -1).").set_num_inputs(1)
     .set_attr("FInferShape", same_shape)
     .set_attr("FGradient", lambda n, g, name=_name: [create_op(
         f"_{name}_backward", g[0], n.outputs[0], axis=n.attrs.get("axis", -1))]))
    (register_op(f"_{_name}_backward").describe(f"Gradient of {_name} from g and its output.")
     .set_num_inputs(2).set_attr("FInferShape", same_shape)
     .set_attr("TIsBackward", True).set_attr("FGradient", _grad))


# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase
for _name, _type in (("_softmax_backward", "SoftmaxGrad"), ("_log_softmax_backward",
        "LogSoftmaxGrad")):
    Op.get(_name).set_attr("TTFType", _type)
