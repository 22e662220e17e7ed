"""Matrix and shape ops: matmul, reshape, pad.  Bodies: ``tinyflow/lua_ops/matrix/<name>.lua``."""
from __future__ import annotations

import math

from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op

__all__ = ["register_view_op"]


def _matmul_shape(attrs, in_shapes, out_shapes):
    a, b = in_shapes
    out = out_shapes[0]
    ta, tb = attrs.get("transpose_a", False), attrs.get("transpose_b", False)
    for s in (a, b, out):
        if s is not None and len(s) != 2:
            raise ShapeError(f"matmul takes 2-D matrices, got {a} and {b}")
    if a is not None and b is not None:
        m, k = a[::-1] if ta else a
        k2, n = b[::-1] if tb else b
        if k != k2:
            raise ShapeError(f"inner dimensions differ: {a}{'^T' if ta else ''} @ "
                             f"{b}{'^T' if tb else ''}")
        return [a, b], [(m, n)]
    if out is not None and a is not None:  # backward: b from a and out
        k = a[0] if ta else a[1]
        b = (out[1], k) if tb else (k, out[1])
    elif out is not None and b is not None:
        k = b[1] if tb else b[0]
        a = (k, out[0]) if ta else (out[0], k)
    return [a, b], [out]


def _matmul_grad(node, grads):
    a, b = node.inputs
    g = grads[0]
    ta, tb = node.attrs.get("transpose_a", False), node.attrs.get("transpose_b", False)
    mm = lambda x, y, tx=False, ty=False: create_op(
        "matmul", x, y, transpose_a=tx, transpose_b=ty)
    if not ta and not tb:
        return [mm(g, b, ty=True), mm(a, g, tx=True)]
    if ta and not tb:
        return [mm(b, g, ty=True), mm(a, g)]
    if not ta and tb:
        return [mm(g, b), mm(g, a, tx=True)]
    return [mm(b, g, True, True), mm(g, a, True, True)]


def _matmul_flops(attrs, in_shapes, out_shapes):
    """FFlops: 2 m n k, with k^2 = (m k)(k n) / (m n)."""
    ins, out = [math.prod(s) for s in in_shapes], sum(math.prod(s) for s in out_shapes)
    if len(ins) != 2 or not out:
        return None
    return 2 * out * round(math.sqrt(ins[0] * ins[1] / out))


(register_op("matmul").describe("Matrix product of 2-D a and b; transpose_a / transpose_b "
                                "use a^T / b^T.")
 .set_num_inputs(2).set_attr("FInferShape", _matmul_shape)
 .set_attr("FGradient", _matmul_grad).set_attr("FFlops", _matmul_flops))


def _reshape_shape(attrs, in_shapes, out_shapes):
    x = in_shapes[0]
    target = tuple(attrs["shape"])
    if x is None:
        return in_shapes, [target] if -1 not in target else out_shapes
    size = math.prod(x)
    if target.count(-1) > 1:
        raise ShapeError(f"at most one -1 in shape {target}")
    if -1 in target:
        known = math.prod(d for d in target if d != -1)
        if known == 0 or size % known:
            raise ShapeError(f"cannot reshape {x} to {target}")
        target = tuple(size // known if d == -1 else d for d in target)
    if math.prod(target) != size:
        raise ShapeError(f"cannot reshape {x} ({size} elements) to {target}")
    return in_shapes, [target]


def register_view_op(name, doc, shape_rule):
    """Register an op giving its one input a new shape over the same elements (in place); its
    gradient is the output's gradient reshaped back."""
    (register_op(name).describe(doc)
     .set_num_inputs(1).set_attr("FInferShape", shape_rule)
     .set_attr("FInplaceOption", [(0, 0)]).set_attr("FInplaceIdentity", [True])
     .set_attr("FGradient", lambda n, g: [create_op("reshape_like", g[0], n.inputs[0])]))


register_view_op("reshape", "x with a new shape (one -1 is inferred); shares memory.",
                 _reshape_shape)
# reshape(x, tf.stack([...])) (op shaped_by_value, folded at bind): the same gradient
register_op("reshape").set_attr("FShapeValueGradient", lambda n, g: [
    create_op("reshape_like", g[0], n.inputs[0])])


def _reshape_like_shape(attrs, in_shapes, out_shapes):
    x, like = in_shapes
    out = like if like is not None else out_shapes[0]
    if x is not None and out is not None and math.prod(x) != math.prod(out):
        raise ShapeError(f"cannot reshape {x} to {out}")
    return [x, out], [out]


(register_op("reshape_like").describe("Input 0 reshaped to the shape of input 1 (shape-only).")
 .set_num_inputs(2).set_attr("FInferShape", _reshape_like_shape)
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("FInplaceIdentity", [True])
 .set_attr("FIgnoreInputs", [1])
 .set_attr("FGradient", lambda n, g: [create_op("reshape_like", g[0], n.inputs[0]), None]))


def _pad_shape(attrs, in_shapes, out_shapes):
    x, out = in_shapes[0], out_shapes[0]
    dim, pad = attrs["dim"], attrs["pad"]
    if x is not None:
        if not -len(x) <= dim < len(x):
            raise ShapeError(f"dim {dim} is out of range for shape {x}")
        out = tuple(d + abs(pad) if i == dim % len(x) else d for i, d in enumerate(x))
    elif out is not None:
        x = tuple(d - abs(pad) if i == dim % len(out) else d for i, d in enumerate(out))
    return [x], [out]


(register_op("pad").describe("Pad x along dim with |pad| copies of value (attr, default 0; "
                             "TF's constant_values): in front when pad < 0, behind when pad > 0.")
 .set_num_inputs(1).set_attr("FInferShape", _pad_shape)
 .set_attr("FGradient", lambda n, g: [create_op("_pad_backward", g[0], dim=n.attrs["dim"],
                                                pad=n.attrs["pad"])]))


def _pad_backward_shape(attrs, in_shapes, out_shapes):
    new_out, new_in = _pad_shape(attrs, out_shapes, in_shapes)
    return new_in, new_out


(register_op("_pad_backward").describe("The part of g that pad's input came from (a crop).")
 .set_num_inputs(1).set_attr("FInferShape", _pad_backward_shape)
 .set_attr("FGradient", lambda n, g: [create_op("pad", g[0], dim=n.attrs["dim"],
                                                pad=n.attrs["pad"])])
 .set_attr("TIsBackward", True))


# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase
register_op("matmul").set_attr("TTFType", "MatMul")
