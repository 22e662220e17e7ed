"""Array ops of TensorFlow 1.x: transpose, expand_dims, squeeze, concat, stack, split, unstack,
strided slices, gather, one_hot, tile, reverse, shape/size/rank, fill and range.

Bodies: ``tinyflow/lua_ops/array/<name>.lua``; ops laying pieces end to end share ``concat``'s
body (``stack``) and ops cutting them apart share ``split``'s (``unstack``,
``_concat_backward``).  Axes are 0-based and may be negative, as in TensorFlow.
"""
from __future__ import annotations

import math

import numpy as np

from ..nnvm.attrs import no_gradient, same_type
from ..nnvm.errors import ShapeError
from ..nnvm.op import Op, register_op
from ..nnvm.symbol import Symbol, create_op
from .matrix import register_view_op

__all__ = ["slice_index"]


def _axis(axis, rank, what="axis"):
    """``axis`` in ``[-rank, rank)`` as a non-negative axis; ShapeError otherwise."""
    if not -rank <= axis < rank:
        raise ShapeError(f"{what} {axis} is out of range for rank {rank} "
                         f"(must be in [{-rank}, {rank}))")
    return axis % rank


def _no_input_shape(shape_of):
    """FInferShape of an op without data inputs whose shape ``shape_of(attrs)`` gives."""
    return lambda attrs, in_shapes, out_shapes: (in_shapes, [tuple(shape_of(attrs))])


def _out_dtype(default=None):
    """FInferType: the output's dtype is attr ``dtype`` (or ``out_type``), else ``default``
    (None: the first input's); the inputs keep theirs."""
    def rule(attrs, in_types, out_types):
        dtype = attrs.get("dtype", attrs.get("out_type", default))
        return in_types, [dtype if dtype is not None else in_types[0]] * len(out_types)
    return rule


def _integer_input(index, what):
    """FInferType: output of input 0's dtype; input ``index`` must be an integer tensor."""
    def rule(attrs, in_types, out_types):
        kind = in_types[index]
        if kind is not None and not kind.startswith(("int", "uint")):
            raise TypeError(f"{what} must be an integer tensor (int32 or int64), got {kind}")
        return in_types, [in_types[0]] * len(out_types)
    return rule


def _shape_of_input_2(forward, what):
    """FInferShape of a gathering op's backward ``(g, indices, like)``: ``like``'s shape (input
    2, read for its shape only), ``g`` checked against the shape ``forward`` (the gathering op's
    FInferShape) gives for ``like`` and the indices."""
    def rule(attrs, in_shapes, out_shapes):
        g, indices, like = in_shapes
        if like is not None and indices is not None and g is not None:
            expected = forward(attrs, [like, indices], [None])[1][0]
            if g != expected:
                raise ShapeError(f"gradient shape {g} is not {what}'s output shape {expected}")
        return in_shapes, [like]
    return rule


# -- transpose, reverse ------------------------------------------------------------------------
def _perm(attrs, rank):
    perm = attrs.get("perm")
    if perm is None:
        return tuple(range(rank))[::-1]
    if sorted(perm) != list(range(rank)):
        raise ShapeError(f"perm {tuple(perm)} is not a permutation of the {rank} axes")
    return tuple(perm)


def _transpose_shape(attrs, in_shapes, out_shapes):
    x, out = in_shapes[0], out_shapes[0]
    if x is not None:
        return in_shapes, [tuple(x[p] for p in _perm(attrs, len(x)))]
    if out is not None:  # backward: x from the output through the inverse permutation
        perm = _perm(attrs, len(out))
        return [tuple(out[perm.index(i)] for i in range(len(out)))], out_shapes
    return in_shapes, out_shapes


def _inverse_perm(perm):
    return None if perm is None else tuple(sorted(range(len(perm)), key=perm.__getitem__))


(register_op("transpose").describe("x with its axes permuted: out.shape[i] = x.shape[perm[i]]; "
                                   "perm None reverses them.")
 .set_num_inputs(1).set_attr("FInferShape", _transpose_shape)
 .set_attr("FGradient", lambda n, g: [
     create_op("transpose", g[0], perm=_inverse_perm(n.attrs.get("perm")))]))


def _reverse_shape(attrs, in_shapes, out_shapes):
    shape = in_shapes[0] if in_shapes[0] is not None else out_shapes[0]
    if shape is None:
        return in_shapes, out_shapes
    axes = [_axis(a, len(shape)) for a in attrs["axis"]]
    if len(set(axes)) != len(axes):
        raise ShapeError(f"axis {tuple(attrs['axis'])} names an axis twice")
    return [shape], [shape]


(register_op("reverse").describe("x with the order of its elements reversed along each axis.")
 .set_num_inputs(1).set_attr("FInferShape", _reverse_shape)
 .set_attr("FGradient", lambda n, g: [create_op("reverse", g[0], axis=n.attrs["axis"])]))


# -- views: expand_dims, squeeze ---------------------------------------------------------------
def _expand_dims_shape(attrs, in_shapes, out_shapes):
    x, out = in_shapes[0], out_shapes[0]
    if x is not None:
        axis = _axis(attrs["axis"], len(x) + 1)
        return in_shapes, [x[:axis] + (1,) + x[axis:]]
    if out is not None:
        axis = _axis(attrs["axis"], len(out))
        return [out[:axis] + out[axis + 1:]], out_shapes
    return in_shapes, out_shapes


def _squeeze_shape(attrs, in_shapes, out_shapes):
    x = in_shapes[0]
    if x is None:
        return in_shapes, out_shapes
    axes = attrs.get("axis")
    if axes is None:
        return in_shapes, [tuple(d for d in x if d != 1)]
    axes = {_axis(a, len(x)) for a in axes}
    for a in sorted(axes):
        if x[a] != 1:
            raise ShapeError(f"cannot squeeze axis {a}: its size is {x[a]}, not 1")
    return in_shapes, [tuple(d for i, d in enumerate(x) if i not in axes)]


register_view_op("expand_dims", "x with a size-1 axis inserted at axis (in [-rank-1, rank]); "
                 "shares memory.", _expand_dims_shape)
register_view_op("squeeze", "x without its size-1 axes (only those in axis when given); "
                 "shares memory.", _squeeze_shape)


# -- concat, stack and their inverses split, unstack ---------------------------------------
def _concat_shape(attrs, in_shapes, out_shapes):
    if any(s is None for s in in_shapes):
        return in_shapes, out_shapes
    first, stack = in_shapes[0], attrs.get("stack", False)
    axis = _axis(attrs["axis"], len(first) + stack)
    for s in in_shapes[1:]:
        same = s == first if stack else (
            len(s) == len(first) and s[:axis] + s[axis + 1:] == first[:axis] + first[axis + 1:])
        if not same:
            raise ShapeError(f"cannot {'stack' if stack else 'concat'} shapes "
                             f"{', '.join(map(str, in_shapes))} along axis {attrs['axis']}")
    if stack:
        return in_shapes, [first[:axis] + (len(in_shapes),) + first[axis:]]
    return in_shapes, [first[:axis] + (sum(s[axis] for s in in_shapes),) + first[axis + 1:]]


def _split_sizes(attrs, size):
    """The sizes split cuts an axis of ``size`` into (attr ``num`` or ``sizes``, one -1)."""
    if "num" in attrs:
        if attrs["num"] <= 0 or size % attrs["num"]:
            raise ShapeError(f"cannot split an axis of size {size} into {attrs['num']} "
                             f"equal parts")
        return (size // attrs["num"],) * attrs["num"]
    sizes = tuple(attrs["sizes"])
    known = sum(s for s in sizes if s != -1)
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes) or (
            known != size if -1 not in sizes else known > size):
        raise ShapeError(f"sizes {sizes} do not split an axis of size {size}")
    return tuple(size - known if s == -1 else s for s in sizes)


def _split_shape(attrs, in_shapes, out_shapes):
    x = in_shapes[0]
    if x is None:
        return in_shapes, out_shapes
    axis = _axis(attrs["axis"], len(x))
    if attrs.get("unstack", False):
        if x[axis] != attrs["num"]:
            raise ShapeError(f"cannot unstack {attrs['num']} tensors from axis {axis} of "
                             f"size {x[axis]}")
        return in_shapes, [x[:axis] + x[axis + 1:]] * attrs["num"]
    return in_shapes, [x[:axis] + (s,) + x[axis + 1:] for s in _split_sizes(attrs, x[axis])]


def _outputs(symbol):
    """Each output of a (multi-output) symbol as a symbol of its own."""
    return [Symbol([entry]) for entry in symbol.outputs]


def _num_splits(attrs):
    return attrs["num"] if "num" in attrs else len(attrs["sizes"])


(register_op("concat").describe("The inputs laid end to end along axis (attr num_args).")
 .set_num_inputs(lambda attrs: attrs["num_args"]).set_attr("FInferShape", _concat_shape)
 .set_attr("FGradient", lambda n, g: _outputs(create_op(
     "_concat_backward", g[0], *n.inputs, num_args=len(n.inputs), axis=n.attrs["axis"]))))
(register_op("stack").describe("The inputs (of one shape) stacked along a new axis.")
 .set_num_inputs(lambda attrs: attrs["num_args"])
 .set_attr("FInferShape", lambda attrs, i, o: _concat_shape({**attrs, "stack": True}, i, o))
 .set_attr("FGradient", lambda n, g: _outputs(create_op(
     "unstack", g[0], num=len(n.inputs), axis=n.attrs["axis"]))))
# FFoldValue: shape arguments computed from tf.shape are folded at bind (passes/fold_shapes.py)
register_op("concat").set_attr("FFoldValue", lambda attrs, v, shapes: [
    np.concatenate(v, axis=attrs["axis"])])
register_op("stack").set_attr("FFoldValue", lambda attrs, v, shapes: [
    np.stack(v, axis=attrs["axis"])])
(register_op("split").describe("x cut along axis into num equal parts, or parts of sizes "
                               "(one -1 takes the rest).")
 .set_num_inputs(1).set_num_outputs(_num_splits).set_attr("FInferShape", _split_shape)
 .set_attr("FGradient", lambda n, g: [
     create_op("concat", *g, num_args=len(g), axis=n.attrs["axis"])]))
(register_op("unstack").describe("x cut along axis into its num slices, that axis removed.")
 .set_num_inputs(1).set_num_outputs(_num_splits)
 .set_attr("FInferShape", lambda attrs, i, o: _split_shape({**attrs, "unstack": True}, i, o))
 .set_attr("FGradient", lambda n, g: [
     create_op("stack", *g, num_args=len(g), axis=n.attrs["axis"])]))


def _concat_backward_shape(attrs, in_shapes, out_shapes):
    return in_shapes, list(in_shapes[1:])


(register_op("_concat_backward").describe("g cut along axis into pieces of the shapes of "
                                          "inputs 1..num_args (shape-only).")
 .set_num_inputs(lambda attrs: attrs["num_args"] + 1)
 .set_num_outputs(lambda attrs: attrs["num_args"])
 .set_attr("FInferShape", _concat_backward_shape)
 .set_attr("FIgnoreInputs", lambda attrs: list(range(1, attrs["num_args"] + 1)))
 .set_attr("TIsBackward", True).set_attr("TCutsRows", True)  # (on axis 0: a shard's rows)
 # the pieces' gradients laid end to end again; the inputs read for their shape get none
 .set_attr("FGradient", lambda n, g: [
     create_op("concat", *g, num_args=len(g), axis=n.attrs["axis"])] + [None] * len(g)))


# -- strided slices (x[1:3, ..., None, ::-1]) ------------------------------------------------
def slice_index(attrs) -> tuple:
    """A strided_slice's attrs (TensorFlow's begin, end, strides and five masks) as the Python
    index it stands for: ints, slices, Ellipsis and None.  strided_view (lua_ops/array/kernels.py)
    decodes the same attrs for the body."""
    index = []
    for i, (b, e, s) in enumerate(zip(attrs["begin"], attrs["end"], attrs["strides"])):
        bit = 1 << i
        if attrs.get("ellipsis_mask", 0) & bit:
            index.append(Ellipsis)
        elif attrs.get("new_axis_mask", 0) & bit:
            index.append(None)
        elif attrs.get("shrink_axis_mask", 0) & bit:
            index.append(b)
        else:
            index.append(slice(None if attrs.get("begin_mask", 0) & bit else b,
                               None if attrs.get("end_mask", 0) & bit else e, s))
    return tuple(index)


def _strided_slice_shape(attrs, in_shapes, out_shapes):
    x = in_shapes[0]
    if x is None:
        return in_shapes, out_shapes
    index = slice_index(attrs)
    if index.count(Ellipsis) > 1:
        raise ShapeError("an index can have only one ellipsis (...)")
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    if used > len(x):
        raise ShapeError(f"index {_index_str(index)} has {used} axes, x has {len(x)}")
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index = index[:at] + (slice(None),) * (len(x) - used) + index[at + 1:]
    out, dims = [], iter(x)
    for item in index:
        if item is None:
            out.append(1)
            continue
        size = next(dims)
        if isinstance(item, slice):
            if item.step == 0:
                raise ShapeError("slice step cannot be 0")
            out.append(len(range(*item.indices(size))))
        elif not -size <= item < size:
            raise ShapeError(f"index {item} is out of range for an axis of size {size} "
                             f"(index {_index_str(index)})")
    return in_shapes, [tuple(out) + tuple(dims)]


def _index_str(index):
    def one(item):
        if item is None or item is Ellipsis:
            return "None" if item is None else "..."
        if isinstance(item, slice):
            return ":".join("" if v is None else str(v) for v in (
                item.start, item.stop, item.step if item.step != 1 else None)).rstrip(":") or ":"
        return str(item)
    return "[" + ", ".join(one(i) for i in index) + "]"


(register_op("strided_slice").describe("x[begin:end:strides] under TensorFlow's begin, end, "
                                       "ellipsis, new_axis and shrink_axis masks.")
 .set_num_inputs(1).set_attr("FInferShape", _strided_slice_shape)
 .set_attr("FGradient", lambda n, g: [
     create_op("_strided_slice_backward", g[0], n.inputs[0], **n.attrs)]))


register_op("strided_slice").set_attr("FFoldValue", lambda attrs, v, shapes: [
    v[0][slice_index(attrs)]])


def _by_value(target, *inputs, attrs):
    """``shaped_by_value`` of ``target`` with the begin, end and strides of a node of one."""
    kept = {k: v for k, v in attrs.items() if k not in ("target", "num_args")}
    return create_op("shaped_by_value", *inputs, target=target, num_args=len(inputs) - 1, **kept)


# begin, end and strides given as int tensors (x[1:n], folded at bind): the same gradients
register_op("strided_slice").set_attr("FShapeValueGradient", lambda n, g: [_by_value(
    "_strided_slice_backward", g[0], n.inputs[0], n.inputs[1], attrs=n.attrs)])


def _strided_slice_backward_shape(attrs, in_shapes, out_shapes):
    g, like = in_shapes
    if like is not None:
        expected = _strided_slice_shape(attrs, [like], [None])[1][0]
        if g is not None and g != expected:
            raise ShapeError(f"gradient shape {g} is not the slice's shape {expected}")
    return in_shapes, [like]


(register_op("_strided_slice_backward").describe("Zeros of input 1's shape (shape-only) with g "
                                                 "written where strided_slice read.")
 .set_num_inputs(2).set_attr("FInferShape", _strided_slice_backward_shape)
 .set_attr("FIgnoreInputs", [1]).set_attr("TIsBackward", True)
 .set_attr("FGradient", lambda n, g: [create_op("strided_slice", g[0], **n.attrs), None])
 .set_attr("FShapeValueGradient", lambda n, g: [
     _by_value("strided_slice", g[0], n.inputs[2], attrs=n.attrs), None]))


# -- gather, one_hot -------------------------------------------------------------------------
def _gather_shape(attrs, in_shapes, out_shapes):
    params, indices = in_shapes
    if params is None or indices is None:
        return in_shapes, out_shapes
    axis = _axis(attrs.get("axis", 0), len(params))
    return in_shapes, [params[:axis] + tuple(indices) + params[axis + 1:]]


(register_op("gather").describe("Slices of params along axis at indices (int32 or int64): "
                                "out.shape = params[:axis] + indices + params[axis + 1:]; attr "
                                "dense_gradient: the gradient is never TF's IndexedSlices (a "
                                "composition of a TF op whose gradient is a tensor).")
 .set_num_inputs(2).set_attr("FInferShape", _gather_shape)
 .set_attr("FInferType", _integer_input(1, "gather's indices"))
 .set_attr("TUncapturable", True)  # on a GPU, the indices are checked on the host
 .set_attr("FGradient", lambda n, g: [create_op(
     "_gather_backward", g[0], n.inputs[1], n.inputs[0], axis=n.attrs.get("axis", 0),
     dense_gradient=n.attrs.get("dense_gradient")), None]))


(register_op("_gather_backward").describe("g added into zeros of input 2's shape "
                                          "(shape-only) at the indices gather read (attr "
                                          "dense_gradient: gather's).")
 .set_num_inputs(3).set_attr("FInferShape", _shape_of_input_2(_gather_shape, "gather"))
 .set_attr("FInferType", _integer_input(1, "gather's indices"))
 .set_attr("FIgnoreInputs", [2]).set_attr("TIsBackward", True)
 .set_attr("TUncapturable", True)  # on a GPU, the indices are checked on the host
 # TF's GatherV2 gradient is IndexedSlices(g's rows, indices, params' shape) on axis 0 only
 .set_attr("FIndexedSlices", lambda attrs: None if attrs.get("axis", 0) != 0
           or attrs.get("dense_gradient") else (0, 1, 2))
 .set_attr("FGradient", lambda n, g: [create_op(
     "gather", g[0], n.inputs[1], axis=n.attrs.get("axis", 0)), None, None]))


def _one_hot_shape(attrs, in_shapes, out_shapes):
    indices = in_shapes[0]
    if indices is None:
        return in_shapes, out_shapes
    axis = attrs.get("axis", -1)
    if not -1 <= axis <= len(indices):
        raise ShapeError(f"axis {axis} must be -1 or in [0, {len(indices)}]")
    axis = len(indices) if axis == -1 else axis
    return in_shapes, [indices[:axis] + (attrs["depth"],) + indices[axis:]]


def _one_hot_type(attrs, in_types, out_types):
    _integer_input(0, "one_hot's indices")(attrs, in_types, out_types)
    return in_types, [attrs.get("dtype", "float32")]


(register_op("one_hot").describe("on_value where the new axis' position equals the index, "
                                 "off_value elsewhere (all off_value for an index outside "
                                 "[0, depth)).")
 .set_num_inputs(1).set_attr("FInferShape", _one_hot_shape)
 .set_attr("FInferType", _one_hot_type).set_attr("FGradient", no_gradient))


# -- where_true: the coordinates of the true elements, as many rows as the data has -----------
def _where_true_shape(attrs, in_shapes, out_shapes):
    """Unknown until it ran (TShapeAtRunTime): ``[number of true elements, rank]``."""
    return in_shapes, list(out_shapes)


(register_op("where_true").describe("The coordinates of x's true (nonzero) elements in "
                                    "row-major order, int64 [number of them, x's rank] "
                                    "(tf.where with one argument): its shape is known once "
                                    "it ran.")
 .set_num_inputs(1).set_attr("FInferShape", _where_true_shape)
 .set_attr("FInferType", _out_dtype("int64")).set_attr("FGradient", no_gradient)
 .set_attr("TShapeAtRunTime", True).set_attr("TTFType", "Where")
 .set_attr("TUncapturable", True))  # its count is read on the host



# -- dynamic_stitch: rows placed at indices read when it runs, as many as the largest says -----
def _stitch_shape(attrs, in_shapes, out_shapes):
    """Rows known, their count once it ran (TShapeAtRunTime): each data is its indices' shape
    followed by one row shape, the same for all."""
    half, rows = attrs["num_args"] // 2, None
    for m, (index, data) in enumerate(zip(in_shapes[:half], in_shapes[half:])):
        if index is None or data is None:
            continue
        row = tuple(data[len(index):])
        if tuple(data[:len(index)]) != tuple(index) or rows not in (None, row):
            raise ShapeError(f"data[{m}] of shape {data} must be indices[{m}]'s shape {index} "
                             f"followed by the rows' shape{'' if rows is None else f' {rows}'}")
        rows = row
    return in_shapes, list(out_shapes)


def _stitch_type(attrs, in_types, out_types):
    half = attrs["num_args"] // 2
    for m, kind in enumerate(in_types[:half]):
        if kind not in (None, "int32"):
            raise TypeError(f"dynamic_stitch's indices[{m}] must be int32, got {kind}")
    known = {k for k in in_types[half:] if k is not None}
    if len(known) > 1:
        raise TypeError(f"dynamic_stitch's data must be of one dtype, got {sorted(known)}")
    return in_types, [next(iter(known), out_types[0])]


# TF's _DynamicStitchGrads: each data gets the gradient's rows at its indices (an overwritten
# row too), the indices none
(register_op("dynamic_stitch")
 .describe("merged[indices[m][i...]] = data[m][i...], the later (m, i) winning a row written "
           "twice; max(indices) + 1 rows (tf.dynamic_stitch; inputs: num_args / 2 indices, "
           "then as many data): its shape is known once it ran.")
 .set_num_inputs(lambda attrs: attrs["num_args"])
 .set_attr("FInferShape", _stitch_shape).set_attr("FInferType", _stitch_type)
 .set_attr("TShapeAtRunTime", True).set_attr("TUncapturable", True)  # reads its indices
 .set_attr("FGradient", lambda n, g: [None] * (len(n.inputs) // 2) + [
     create_op("gather", g[0], index, axis=0) for index in n.inputs[:len(n.inputs) // 2]]))

# -- tile --------------------------------------------------------------------------------------
def _tile_shape(attrs, in_shapes, out_shapes):
    x, multiples = in_shapes[0], tuple(attrs["multiples"])
    if x is None:
        return in_shapes, out_shapes
    if len(multiples) != len(x) or any(m < 0 for m in multiples):
        raise ShapeError(f"multiples {multiples} must be {len(x)} non-negative counts, one "
                         f"per axis of x")
    return in_shapes, [tuple(d * m for d, m in zip(x, multiples))]


(register_op("tile").describe("x repeated multiples[i] times along each axis i.")
 .set_num_inputs(1).set_attr("FInferShape", _tile_shape)
 .set_attr("FGradient", lambda n, g: [
     create_op("_tile_backward", g[0], n.inputs[0], multiples=n.attrs["multiples"])])
 .set_attr("FShapeValueGradient", lambda n, g: [create_op(
     "shaped_by_value", g[0], n.inputs[0], n.inputs[1], target="_tile_backward",
     shape_attr="multiples", num_args=2)]))
(register_op("_tile_backward").describe("g summed over its tiles, to the shape of input 1 "
                                        "(shape-only).")
 .set_num_inputs(2).set_attr("FIgnoreInputs", [1]).set_attr("TIsBackward", True)
 .set_attr("FInferShape", lambda attrs, i, o: (i, [i[1]]))
 .set_attr("FGradient", lambda n, g: [
     create_op("tile", g[0], multiples=n.attrs["multiples"]), None])
 # multiples given as an int tensor (shaped_by_value's last input): tile by the same value
 .set_attr("FShapeValueGradient", lambda n, g: [create_op(
     "shaped_by_value", g[0], n.inputs[2], target="tile", shape_attr="multiples",
     num_args=1), None]))


# -- shape, size, rank; fill, fill_like, range ------------------------------------------
for _name, _doc, _shape in (
        ("shape_of", "x's shape as a 1-D tensor (out_type, int32 by default).",
         lambda x: (len(x),)),
        ("size_of", "x's element count as a scalar (out_type, int32 by default).", lambda x: ()),
        ("rank_of", "x's number of axes as an int32 scalar.", lambda x: ())):
    (register_op(_name).describe(_doc + " x is read only for its shape.")
     .set_num_inputs(1).set_attr("FIgnoreInputs", [0]).set_attr("FGradient", no_gradient)
     .set_attr("FInferType", _out_dtype("int32"))
     .set_attr("FInferShape", lambda attrs, i, o, f=_shape: (
         i, [None if i[0] is None else f(i[0])])))

register_op("shape_of").set_attr("FFoldValue", lambda attrs, v, shapes: [
    np.array(shapes[0], dtype=attrs.get("out_type", "int32"))])
register_op("size_of").set_attr("FFoldValue", lambda attrs, v, shapes: [
    np.array(math.prod(shapes[0]), dtype=attrs.get("out_type", "int32"))])
register_op("rank_of").set_attr("FFoldValue", lambda attrs, v, shapes: [
    np.array(len(shapes[0]), dtype="int32")])
register_op("expand_dims").set_attr("FFoldValue", lambda attrs, v, shapes: [
    np.expand_dims(v[0], attrs["axis"])])

(register_op("fill").describe("A tensor of shape filled with value (attrs shape, value, dtype).")
 .set_num_inputs(0).set_attr("FInferShape", _no_input_shape(lambda a: a["shape"]))
 .set_attr("FInferType", _out_dtype("float32")).set_attr("FGradient", no_gradient))
(register_op("fill_like").describe("value in the shape of x (shape-only), of attr dtype or x's.")
 .set_num_inputs(1).set_attr("FIgnoreInputs", [0]).set_attr("FGradient", no_gradient)
 .set_attr("FInferShape", lambda attrs, i, o: (i, [i[0]]))
 .set_attr("FInferType", _out_dtype()))


def range_length(start, limit, delta) -> int:
    """How many values ``range(start, limit, delta)`` has (TensorFlow's count)."""
    return max(0, math.ceil((limit - start) / delta))


(register_op("range").describe("start, start + delta, ... up to limit (excluded); attrs start, "
                               "limit, delta, dtype.")
 .set_num_inputs(0).set_attr("FGradient", no_gradient)
 .set_attr("FInferShape", _no_input_shape(
     lambda a: (range_length(a["start"], a["limit"], a["delta"]),)))
 .set_attr("FInferType", _out_dtype("float32")))


# -- shape arguments given as int tensors ----------------------------------------------------
def _shaped_type(attrs, in_types, out_types):
    kind = in_types[-1]
    if kind is not None and not kind.startswith(("int", "uint")):
        raise TypeError(f"the shape argument of {attrs['target']} must be an integer tensor "
                        f"(int32 or int64), got {kind}")
    rule = Op.get(attrs["target"]).attr("FInferType", same_type)
    ins, outs = rule(attrs, list(in_types[:-1]), out_types)
    return list(ins) + [in_types[-1]], outs


def _shaped_gradient(node, out_grads):
    rule = Op.get(node.attrs["target"]).attr("FShapeValueGradient", no_gradient)
    return list(rule(node, out_grads))[:len(node.inputs) - 1] + [None]


(register_op("shaped_by_value")
 .describe("Op attr target over inputs 0..num_args-1, its attribute shape_attr the value of the "
           "last input (an int tensor computed from shapes and constants), folded when a session "
           "binds the graph (FoldShapeArguments); target's FShapeValueGradient is its gradient.")
 .set_num_inputs(lambda attrs: attrs["num_args"] + 1)
 .set_num_outputs(lambda attrs: Op.get(attrs["target"]).num_outputs(attrs))
 .set_attr("FInferType", _shaped_type).set_attr("FGradient", _shaped_gradient)
 # nothing to infer before the fold; a shape readers fix (a gradient's sum) is checked after
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, out_shapes))
 .set_attr("TShapedByValue", True))


# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase
for _name, _type in (("concat", "ConcatV2"), ("stack", "Pack"), ("unstack", "Unpack"), ("split",
        "SplitV"), ("gather", "GatherV2"), ("reverse", "ReverseV2"), ("shape_of", "Shape"),
        ("size_of", "Size"), ("rank_of", "Rank"), ("fill_like", "Fill"),
        ("_strided_slice_backward", "StridedSliceGrad")):
    Op.get(_name).set_attr("TTFType", _type)
