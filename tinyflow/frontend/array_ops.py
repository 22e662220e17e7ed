"""TensorFlow 1.x's array functions: shapes, joining and cutting, slicing, gathering, filling.

Shapes and axes are attributes of the ops: Python ints and lists, or a tensor whose value is
known when the graph is built — a ``tf.constant``, or ``tf.shape(t)`` (``tf.reshape(x,
tf.shape(y))`` reshapes x to y's shape, whatever it turns out to be).  The shape of
:func:`reshape`, :func:`zeros`, :func:`ones`, :func:`fill`, :func:`tile` and the random
functions may also be an int tensor computed from shapes and constants (``tf.stack([tf.shape(
x)[0], n])``, a list mixing ints and such scalars, slices, arithmetic): a session computes it
when it binds the graph to its feeds' shapes (op ``shaped_by_value``, folded by the
FoldShapeArguments pass).  One computed from a fed value or a variable is an error there:
TinyFlow fixes every shape at bind.
``tensor[...]`` (``Symbol.__getitem__``) is :func:`strided_slice` with TensorFlow's rules.
"""
from __future__ import annotations

import builtins
import math
import numbers

import numpy as np

from ..nnvm.passes.fold_shapes import NotFoldable, fold_value
from ..nnvm.symbol import NodeEntry, Symbol, create_op, current_context, static_shape
from ..nnvm.tensor_shape import TensorShape
from ..ops.indexing import holds_tensor, masked_index
from .api import _holds_tensors, _packed, cast, constant, less, where
from .dtypes import as_dtype, float32, int32

__all__ = [
    "boolean_mask",
    "broadcast_to",
    "concat",
    "depth_to_space",
    "expand_dims",
    "extract_image_patches",
    "fill",
    "gather",
    "lin_space",
    "linspace",
    "meshgrid",
    "newaxis",
    "one_hot",
    "ones",
    "ones_like",
    "pad",
    "range",
    "rank",
    "reshape",
    "reverse",
    "reverse_v2",
    "sequence_mask",
    "shape",
    "shape_value",
    "size",
    "slice",
    "space_to_depth",
    "split",
    "squeeze",
    "stack",
    "strided_slice",
    "tile",
    "transpose",
    "unstack",
    "zeros",
    "zeros_like",
]

newaxis = None
_builtin_slice, _builtin_range = slice, range


def _dtype_of(value) -> str:
    """TensorFlow's dtype for a value: a numpy array's own, int32 for Python ints, float32 for
    Python floats, bool for bools."""
    array = np.asarray(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return array.dtype.name
    return {"b": "bool", "i": "int32", "u": "int32"}.get(array.dtype.kind, "float32")


def _tensor(value) -> Symbol:
    """Symbols pass through (an op.inputs[i] as its tensor); other values become constants of
    their TensorFlow dtype."""
    if isinstance(value, NodeEntry):
        return Symbol([value])
    if _holds_tensors(value):  # TF's autopacking: [t, 1.0] stacked
        return _packed(value)
    return value if isinstance(value, Symbol) else constant(value, dtype=_dtype_of(value))


class ShapeValue:
    """A shape argument known only when a session binds the graph: the int tensor ``value``
    (see the module docstring) and what is known of it now (``static``, a TensorShape)."""

    def __init__(self, value: Symbol, static: TensorShape):
        self.value, self.static = value, static


def _known_shape(entry):
    known = static_shape(entry)
    return tuple(known.as_list()) if known.is_fully_defined() else None


def _folded(value: Symbol):
    """The value of an int tensor computed from shapes known now and constants, or None."""
    try:
        return tuple(int(v) for v in np.asarray(
            fold_value(value.outputs[0], _known_shape)).reshape(-1))
    except (NotFoldable, TypeError, ValueError):
        return None


def shape_value(shape, what) -> ShapeValue | None:
    """A shape argument that is, or holds, a tensor (``tf.stack([tf.shape(x)[0], 10])``, or
    ``[tf.shape(x)[0], 10]``, which TensorFlow stacks too), as a :class:`ShapeValue`; None for
    one of Python ints."""
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Symbol) for d in shape):
        shape = stack([d if isinstance(d, Symbol) else constant(int(d), dtype=int32)
                       for d in shape], name=f"{what}/shape")
    if not isinstance(shape, Symbol):
        return None
    dims = shape.get_shape()
    if dims.ndims is not None and dims.ndims > 1:
        raise ValueError(f"{what}: a shape must be a 1-D tensor, got one of shape {dims}")
    node = shape.node
    if node.kind == "stack" and node.attrs.get("axis") == 0:  # what is known of each entry
        parts = [_folded(Symbol([e])) for e in node.inputs]
        static = TensorShape([None if p is None or p[0] < 0 else p[0] for p in parts])
    else:
        static = TensorShape(None if dims.ndims is None or dims[0].value is None
                             else [None] * dims[0].value)
    return ShapeValue(shape, static)


def shaped_by_value(target, inputs, shape: ShapeValue, name, shape_attr="shape", **attrs) -> Symbol:
    """Op ``target`` over ``inputs`` whose attribute ``shape_attr`` is ``shape``'s value,
    computed when a session binds the graph (op ``shaped_by_value``)."""
    return create_op("shaped_by_value", *inputs, shape.value, target=target,
                     shape_attr=shape_attr, num_args=len(inputs), name=name, **attrs)


def _static_shape(shape, what, allow_like=True):
    """A shape argument as a tuple of ints, or (``allow_like``) as the symbol whose shape it is
    (``tf.shape(y)`` of a y whose shape is known only when the graph is bound), or as a
    :class:`ShapeValue` computed at bind."""
    if isinstance(shape, Symbol):
        node = shape.node
        if node.kind == "constant":
            return tuple(int(v) for v in node.attrs["value"])
        if node.kind == "shape_of" and allow_like:
            return Symbol([node.inputs[0]])
    value = shape_value(shape, what)
    if value is not None:
        folded = _folded(value.value)
        return value if folded is None else folded
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    if any(isinstance(d, Symbol) or d is None for d in shape):
        raise ValueError(f"{what} needs a static shape: every entry of {shape!r} must be an int")
    return tuple(int(d) for d in shape)


def _ints(values) -> tuple:
    return (int(values),) if isinstance(values, (int, np.integer)) else tuple(
        int(v) for v in values)


# -- shapes -----------------------------------------------------------------------------------
def reshape(tensor, shape, name=None) -> Symbol:
    """``tensor``'s elements in ``shape`` (one -1 is inferred); shares its memory.

    ``shape`` may be ``tf.shape(y)``: the result then has y's shape; or an int tensor computed
    from shapes (``tf.stack([tf.shape(x)[0], -1])``), computed when a session binds the graph.
    """
    target = _static_shape(shape, "reshape")
    if isinstance(target, Symbol):
        return create_op("reshape_like", _tensor(tensor), target, name=name)
    if isinstance(target, ShapeValue):
        result = shaped_by_value("reshape", [_tensor(tensor)], target, name or "Reshape")
        result.set_shape(target.static)
        return result
    result = create_op("reshape", _tensor(tensor), shape=target, name=name)
    # the static shape is the target's, the -1 unknown, even where the input's rank is not
    # known (TF: reshape(placeholder(), [-1, 10]).shape is (?, 10))
    result.graph.shape_hints[result.outputs[0]] = TensorShape(
        [None if d == -1 else d for d in target])
    return result


def transpose(a, perm=None, name="transpose", conjugate=False) -> Symbol:
    """``a`` with its axes permuted: ``out.shape[i] == a.shape[perm[i]]``; by default the axes
    in reverse order (the matrix transpose for 2-D ``a``)."""
    return create_op("transpose", _tensor(a), perm=None if perm is None else _ints(perm),
                     name=name)


def expand_dims(input, axis=None, name=None, dim=None) -> Symbol:
    """``input`` with a size-1 axis inserted at ``axis`` (in ``[-rank - 1, rank]``; ``dim`` is
    TensorFlow's older name for it)."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("expand_dims needs axis")
    return create_op("expand_dims", _tensor(input), axis=int(axis), name=name)


def squeeze(input, axis=None, name=None, squeeze_dims=None) -> Symbol:
    """``input`` without its size-1 axes, or only those listed in ``axis`` (``squeeze_dims``
    is TensorFlow's older name); squeezing an axis whose size is not 1 is an error."""
    axis = squeeze_dims if axis is None else axis
    return create_op("squeeze", _tensor(input), axis=None if axis is None else _ints(axis),
                     name=name)


def shape(input, name=None, out_type=int32) -> Symbol:
    """``input``'s shape as a 1-D ``out_type`` tensor: a constant when the shape is known as
    the graph is built (as TensorFlow), else filled in when a session binds the graph."""
    input = _tensor(input)
    static = input.get_shape()
    if static.is_fully_defined():
        return constant(static.as_list(), dtype=out_type, name=name or "Shape")
    return create_op("shape_of", input, out_type=as_dtype(out_type).name, name=name or "Shape")


def size(input, name=None, out_type=int32) -> Symbol:
    """The number of elements of ``input``, as an ``out_type`` scalar."""
    input = _tensor(input)
    static = input.get_shape()
    if static.is_fully_defined():
        return constant(math.prod(static.as_list()), dtype=out_type, name=name or "Size")
    return create_op("size_of", input, out_type=as_dtype(out_type).name, name=name or "Size")


def rank(input, name=None) -> Symbol:
    """The number of axes of ``input``, as an int32 scalar."""
    input = _tensor(input)
    static = input.get_shape()
    if static.ndims is not None:
        return constant(static.ndims, dtype=int32, name=name or "Rank")
    return create_op("rank_of", input, name=name or "Rank")


# -- joining and cutting ------------------------------------------------------------------
def concat(values, axis, name="concat") -> Symbol:
    """``values`` (a list of tensors of one rank) laid end to end along ``axis``."""
    values = [_tensor(v) for v in values]
    return create_op("concat", *values, num_args=len(values), axis=int(axis), name=name)


def stack(values, axis=0, name="stack") -> Symbol:
    """``values`` (tensors of one shape) stacked along a new axis ``axis``."""
    values = [_tensor(v) for v in values]
    return create_op("stack", *values, num_args=len(values), axis=int(axis), name=name)


def _outputs(symbol) -> list:
    return [Symbol([entry]) for entry in symbol.outputs]


def unstack(value, num=None, axis=0, name="unstack") -> list:
    """The ``num`` slices of ``value`` along ``axis``, that axis removed, as a list.  ``num``
    defaults to the axis' size, which must then be known as the graph is built."""
    value = _tensor(value)
    if num is None:
        static = value.get_shape()
        num = None if static.ndims is None or not -static.ndims <= axis < static.ndims \
            else static[axis].value
        if num is None:
            raise ValueError(f"cannot infer num from shape {static} along axis {axis}: "
                             f"pass num")
    return _outputs(create_op("unstack", value, num=int(num), axis=int(axis), name=name))


def split(value, num_or_size_splits, axis=0, num=None, name="split") -> list:
    """``value`` cut along ``axis`` into ``num_or_size_splits`` equal parts (an int), or into
    parts of the listed sizes (one may be -1: the rest), as a list."""
    value = _tensor(value)
    if isinstance(num_or_size_splits, (int, np.integer)):
        out = create_op("split", value, num=int(num_or_size_splits), axis=int(axis), name=name)
    else:
        sizes = _static_shape(num_or_size_splits, "split", allow_like=False)
        if isinstance(sizes, ShapeValue):
            raise TypeError("split: TinyFlow takes size_splits as ints or a tf.constant, not "
                             "a tensor computed from shapes")
        out = create_op("split", value, sizes=sizes, axis=int(axis), name=name)
    return _outputs(out)


def tile(input, multiples, name=None) -> Symbol:
    """``input`` repeated ``multiples[i]`` times along each axis i; ``multiples`` may be an int
    tensor computed from shapes, computed when a session binds the graph."""
    multiples = _static_shape(multiples, "tile", allow_like=False)
    if isinstance(multiples, ShapeValue):
        input = _tensor(input)
        result = shaped_by_value("tile", [input], multiples, name or "Tile",
                                 shape_attr="multiples")
        rank = input.get_shape().ndims  # the rank is known, as in TF
        result.set_shape(TensorShape(None if rank is None else [None] * rank))
        return result
    return create_op("tile", _tensor(input), multiples=multiples, name=name)


def reverse(tensor, axis, name=None) -> Symbol:
    """``tensor`` with the order of its elements reversed along each axis in ``axis``."""
    return create_op("reverse", _tensor(tensor), axis=_ints(axis), name=name)


reverse_v2 = reverse  # TF 1.15's name of the same function


def _block_axes(input, block_size, data_format, function):
    """(input as NHWC, its static [H, W, C], the function giving back data_format's layout)."""
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"tf.{function}: data_format must be 'NHWC' or 'NCHW', got "
                         f"{data_format!r}")
    if not isinstance(block_size, numbers.Integral) or block_size < 2:
        raise ValueError(f"tf.{function}: block_size must be an integer of at least 2, got "
                         f"{block_size!r}")
    input = _tensor(input)
    if data_format == "NCHW":
        input = transpose(input, [0, 2, 3, 1])
    dims = input.get_shape()
    if dims.ndims != 4 or None in dims.as_list()[1:]:
        raise ValueError(f"tf.{function}: the input must be 4-D with known height, width and "
                         f"depth, got shape {dims}")
    back = (lambda x: transpose(x, [0, 3, 1, 2])) if data_format == "NCHW" else (lambda x: x)
    return input, dims.as_list()[1:], back


def space_to_depth(input, block_size, name=None, data_format="NHWC") -> Symbol:
    """Each ``block_size`` x ``block_size`` block of pixels as one pixel of block_size**2 times
    the depth (in the block's row-major order, then depth), as TF's SpaceToDepth."""
    x, (h, w, c), back = _block_axes(input, block_size, data_format, "space_to_depth")
    b = block_size
    for size in (h, w):
        if size % b:
            raise ValueError(f"Dimension size must be evenly divisible by {b} but is {size}")
    blocks = reshape(x, [-1, h // b, b, w // b, b, c])
    moved = transpose(blocks, [0, 1, 3, 2, 4, 5])
    return back(reshape(moved, [-1, h // b, w // b, b * b * c], name=name or "SpaceToDepth"))


def depth_to_space(input, block_size, name=None, data_format="NHWC") -> Symbol:
    """The inverse of :func:`space_to_depth`: each pixel's depth spread over a ``block_size``
    x ``block_size`` block of pixels, as TF's DepthToSpace."""
    x, (h, w, c), back = _block_axes(input, block_size, data_format, "depth_to_space")
    b = block_size
    if c % (b * b):
        raise ValueError(f"Dimension size must be evenly divisible by {b * b} but is {c}")
    blocks = reshape(x, [-1, h, w, b, b, c // (b * b)])
    moved = transpose(blocks, [0, 1, 3, 2, 4, 5])
    return back(reshape(moved, [-1, h * b, w * b, c // (b * b)], name=name or "DepthToSpace"))


# -- padding ------------------------------------------------------------------------------
def _paddings(paddings, tensor) -> list:
    """TF's ``paddings`` ([rank, 2] ints) -> [(before, after), ...], checked against the
    tensor's rank where it is known."""
    if isinstance(paddings, Symbol):
        raise TypeError("pad: paddings must be known when the graph is built (a list or array "
                        "of [before, after] pairs), not a tensor")
    widths = np.asarray(paddings)
    if widths.ndim != 2 or widths.shape[1] != 2 or not np.issubdtype(widths.dtype, np.integer):
        raise ValueError(f"pad: paddings must be a [rank, 2] array of ints, got {paddings!r}")
    if (widths < 0).any():
        raise ValueError(f"pad: paddings must be non-negative, got {widths.tolist()}")
    rank = tensor.get_shape().ndims
    if rank is not None and rank != len(widths):
        raise ValueError(f"pad: paddings has {len(widths)} rows for a tensor of rank {rank} "
                         f"({tensor.get_shape()})")
    return [(int(b), int(a)) for b, a in widths]


def _mirror(tensor, axis, before, after, edge, name):
    """``tensor`` with its mirror image (without the edge element when ``edge`` is 0) of
    ``before`` / ``after`` elements added along ``axis``."""
    def part(start, stop):
        index = (_builtin_slice(None),) * axis + (_builtin_slice(start, stop),)
        return reverse(tensor[index], [axis])
    size = tensor.get_shape().as_list()[axis] if tensor.get_shape().ndims else None
    if size is not None and max(before, after) > size - 1 + edge:
        raise ValueError(f"pad: paddings ({before}, {after}) of axis {axis} must be at most "
                         f"{size - 1 + edge} for its size {size} in this mode")
    parts = [part(1 - edge, before + 1 - edge)] if before else []
    parts.append(tensor)
    parts += [part(-after - 1 + edge, -1 + edge or None)] if after else []
    return concat(parts, axis, name=name) if len(parts) > 1 else tensor


def pad(tensor=None, paddings=None, mode="CONSTANT", name=None, constant_values=0, **seed_args) -> Symbol:
    """``tensor`` with ``paddings[d] = [before, after]`` elements added along each axis d:
    ``constant_values`` (mode 'CONSTANT'), or its mirror image without ('REFLECT') or with
    ('SYMMETRIC') the edge element.  ``tf.pad(x, dim=d, pad=p)`` (or ``tf.pad(x, d, p)``) is the
    seed's: |p| zeros along d, in front when p < 0, behind when p > 0.
    """
    if seed_args or isinstance(paddings, (int, np.integer)):
        tensor = seed_args.pop("x", tensor)
        dim = seed_args.pop("dim", paddings)
        width = seed_args.pop("pad", mode)
        if seed_args or dim is None or isinstance(width, str):
            raise TypeError("pad() takes tensor, paddings, mode, name, constant_values (or, the "
                            "seed's, x, dim, pad)")
        return create_op("pad", _tensor(tensor), dim=int(dim), pad=int(width), name=name)
    tensor = _tensor(tensor)
    widths = _paddings(paddings, tensor)
    mode = str(mode).upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f"pad: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', got {mode!r}")
    if mode != "CONSTANT":
        padded = [axis for axis, pair in enumerate(widths) if any(pair)]
        for axis in padded:
            tensor = _mirror(tensor, axis, *widths[axis], int(mode == "SYMMETRIC"),
                             name=name or "MirrorPad" if axis == padded[-1] else "concat")
        return tensor if padded else create_op("copy", tensor, name=name or "MirrorPad")
    steps = [(axis, width) for axis, pair in enumerate(widths) for width in (-pair[0], pair[1])
             if width] or [(0, 0)]  # no padding: still a new tensor, as TF's Pad
    for i, (axis, width) in enumerate(steps):
        # the steps before the last: not "pad", which TF's case-blind names would take for "Pad"
        tensor = create_op("pad", tensor, dim=axis, pad=width, value=constant_values,
                           name=name or "Pad" if i == len(steps) - 1 else "pad_step")
    return tensor


# -- slicing ------------------------------------------------------------------------------
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None) -> Symbol:
    """``input_[begin:end:strides]``, with TensorFlow's masks: bit i of ``begin_mask`` /
    ``end_mask`` leaves begin[i] / end[i] out (the whole range), of ``ellipsis_mask`` makes
    entry i ``...``, of ``new_axis_mask`` inserts a size-1 axis, of ``shrink_axis_mask`` takes
    index begin[i] and drops the axis.  Out-of-range slice bounds are clamped, as in Python."""
    if holds_tensor(begin, end, strides):  # as x[i], x[1:n]: tinyflow/ops/indexing.py
        return _tensor(input_)[masked_index(begin, end, strides, locals())]
    begin, end = _ints(begin), _ints(end)
    strides = (1,) * len(begin) if strides is None else _ints(strides)
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"begin {begin}, end {end} and strides {strides} must have one length")
    return create_op("strided_slice", _tensor(input_), begin=begin, end=end, strides=strides,
                     begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                     new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask,
                     name=name or "strided_slice")


def slice(input_, begin, size, name=None) -> Symbol:
    """The block of ``input_`` starting at ``begin`` with ``size`` elements along each axis
    (-1: all the rest); it must lie inside ``input_``.  ``begin`` may be a tensor known only
    when the graph runs (a random crop's offset) where ``size`` is known now."""
    begin, size = _fold_ints(begin), _fold_ints(size)
    input_ = _tensor(input_)
    if isinstance(begin, Symbol) or isinstance(size, Symbol):
        return _slice_at(input_, begin, size, name or "Slice")
    static = input_.get_shape()
    if len(begin) != len(size) or (static.ndims is not None and static.ndims != len(begin)):
        raise ValueError(f"slice of {static}: begin {begin} and size {size} need one entry "
                         f"per axis")
    for axis, (b, s) in enumerate(zip(begin, size)):
        dim = static[axis].value if static.ndims is not None else None
        if b < 0 or s < -1 or (dim is not None and (b > dim or (s != -1 and b + s > dim))):
            raise ValueError(f"slice of {static}: begin {begin} and size {size} go outside "
                             f"axis {axis}")
    end_mask = sum(1 << i for i, s in enumerate(size) if s == -1)
    end = tuple(0 if s == -1 else b + s for b, s in zip(begin, size))
    return strided_slice(input_, begin, end, end_mask=end_mask, name=name or "Slice")


def _fold_ints(values):
    """Ints as a tuple; a tensor whose value is known now as its ints, else the tensor (a
    list holding tensors stacked into one)."""
    if isinstance(values, (list, tuple)) and any(isinstance(v, Symbol) for v in values):
        values = stack([cast(v, int32) if isinstance(v, Symbol) else int(v) for v in values])
    if not isinstance(values, Symbol):
        return _ints(values)
    folded = _folded(values)
    return values if folded is None else folded


def _slice_at(input_, begin, size, name) -> Symbol:
    """tf.slice at a ``begin`` known when the graph runs: each axis gathered at ``begin[d] +
    range(size[d])`` (a begin past the axis is gather's error when it runs)."""
    if isinstance(size, Symbol) or -1 in size:
        raise ValueError(f"tf.slice at a begin known only when the graph runs needs its size "
                         f"as ints, none -1 (TinyFlow fixes every shape at bind), got {size}")
    static = input_.get_shape()
    if static.ndims is None or static.ndims != len(size):
        raise ValueError(f"slice of {static}: size {list(size)} needs one entry per axis")
    with current_context().name_scope(name):
        begin = cast(begin, int32)
        for axis, count in enumerate(size):
            offsets = constant(np.arange(count, dtype=np.int32))
            input_ = gather(input_, begin[axis] + offsets, axis=axis)
        return input_


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0) -> Symbol:
    """The slices of ``params`` along ``axis`` (default 0) at ``indices`` (int32 or int64, any
    shape): ``out.shape == params.shape[:axis] + indices.shape + params.shape[axis + 1:]``.
    An index outside the axis is an error when the graph runs.  With ``batch_dims`` b (TF
    1.15's GatherV2), the first b axes of both are a batch, each entry gathering from its own
    slice (``axis`` b by default, at least b): ``out.shape == params.shape[:axis] +
    indices.shape[b:] + params.shape[axis + 1:]``."""
    if batch_dims == 0:
        return create_op("gather", _tensor(params), _tensor(indices), axis=int(axis or 0),
                         name=name or "GatherV2")
    return _gather_batched(_tensor(params), _tensor(indices), axis, int(batch_dims),
                           name or "GatherV2")


def _gather_batched(params, indices, axis, batch_dims, name) -> Symbol:
    # gather_nd on the batch with one coordinate per index (its range checked as gather's),
    # the gathered axis moved next to the batch first and the indices' axes to its place after
    ranks = params.get_shape().ndims, indices.get_shape().ndims
    if None in ranks:
        raise ValueError(f"gather with batch_dims={batch_dims} needs the ranks of params "
                         f"({params.get_shape()}) and indices ({indices.get_shape()})")
    b = batch_dims + ranks[1] if batch_dims < 0 else batch_dims
    axis = b if axis is None else int(axis) + (ranks[0] if int(axis) < 0 else 0)
    if not 0 <= b <= ranks[1] or not b <= axis < ranks[0]:
        raise ValueError(f"gather: batch_dims ({batch_dims}) must be in [0, rank(indices) = "
                         f"{ranks[1]}] and at most axis ({axis}), which must be less than "
                         f"rank(params) = {ranks[0]}")
    if not params.get_shape()[:b].is_compatible_with(indices.get_shape()[:b]):
        raise ValueError(f"gather with batch_dims={b}: the batch axes of params "
                         f"{params.get_shape()} and indices {indices.get_shape()} differ")
    moved = axis - b  # the axes between the batch and the gathered one
    with current_context().name_scope(name):
        if moved:
            params = transpose(params, list(builtins.range(b)) + [axis] + list(builtins.range(b, axis)) +
                               list(builtins.range(axis + 1, ranks[0])))
        result = create_op("gather_nd", params, expand_dims(indices, -1), batch_dims=b)
        if not moved:
            return result
        taken = ranks[1] - b  # the indices' own axes, now right after the batch
        return transpose(result, list(builtins.range(b)) + list(builtins.range(b + taken, b + taken + moved)) +
                         list(builtins.range(b, b + taken)) +
                         list(builtins.range(b + taken + moved, ranks[0] - 1 + taken)))


def boolean_mask(tensor, mask, name="boolean_mask", axis=None) -> Symbol:
    """The slices of ``tensor`` where ``mask`` (bool, k axes, matching ``tensor``'s axes
    ``axis .. axis + k - 1``; ``axis`` 0 by default) is true, those axes flattened into one:
    TF 1.15's composition, ``gather(tensor, squeeze(where(mask), 1), axis)`` on the flattened
    axes, so the gradient is gather's (the rows kept get theirs, the others zeros).  How many
    rows it has is known once the mask is (``tf.where``)."""
    tensor, mask = _tensor(tensor), _tensor(mask)
    shape_mask, shape_tensor = mask.get_shape(), tensor.get_shape()
    ndims_mask = shape_mask.ndims
    if ndims_mask == 0:
        raise ValueError("mask cannot be scalar.")
    if ndims_mask is None:
        raise ValueError("Number of mask dimensions must be specified, even if some "
                         "dimensions are None.  E.g. shape=[None] is ok, but shape=None is "
                         "not.")
    axis = 0 if axis is None else int(axis)
    if shape_tensor.ndims is not None and not shape_tensor[
            axis:axis + ndims_mask].is_compatible_with(shape_mask):
        raise ValueError(f"Shapes {shape_tensor[axis:axis + ndims_mask]} and {shape_mask} "
                         f"are incompatible (boolean_mask's tensor and mask)")
    if ndims_mask > 1:  # the mask's axes as one
        static = shape_tensor.as_list() if shape_tensor.ndims is not None else [None]
        others = static[:axis] + [-1] + static[axis + ndims_mask:]
        if None in others:  # sizes known at bind
            dims = shape(tensor)
            others = concat([dims[:axis], [-1], dims[axis + ndims_mask:]], 0)
        tensor = reshape(tensor, others)
        mask = reshape(mask, [-1])
    indices = squeeze(where(mask), axis=[1])
    return gather(tensor, indices, axis=axis, name=name)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None) -> Symbol:
    """A one-hot encoding of ``indices``: ``on_value`` (1) at each index along a new axis
    ``axis`` (-1: last) of size ``depth``, ``off_value`` (0) elsewhere; an index outside
    ``[0, depth)`` gives a row of ``off_value``.  ``dtype``: float32, or ``on_value``'s type."""
    if dtype is None:
        dtype = float32 if on_value is None else _dtype_of(on_value)
    dtype = as_dtype(dtype)
    cast = bool if dtype.is_bool else int if dtype.is_integer else float
    on, off = (cast(1 if on_value is None else on_value),
               cast(0 if off_value is None else off_value))
    attrs = {"on_value": on, "off_value": off, "axis": -1 if axis is None else int(axis),
             "dtype": dtype.name}
    if isinstance(depth, Symbol):  # known when the session binds, or runs (stages)
        folded = _folded(depth)
        if folded is None:
            indices = _tensor(indices)
            result = shaped_by_value("one_hot", [indices], ShapeValue(
                depth, TensorShape(None)), name or "one_hot", shape_attr="depth", scalar=True,
                **attrs)
            known = indices.get_shape()
            if known.ndims is not None:  # TF's static shape: the depth unknown
                dims = known.as_list()
                dims.insert(len(dims) if attrs["axis"] == -1 else attrs["axis"], None)
                result.set_shape(dims)
            return result
        depth = folded[0]
    return create_op("one_hot", _tensor(indices), depth=int(depth), name=name or "one_hot",
                     **attrs)


# -- filled tensors ---------------------------------------------------------------------------
def _filled(shape, value, dtype, what, name):
    dtype = as_dtype(dtype)
    target = _static_shape(shape, what)
    value = bool(value) if dtype.is_bool else int(value) if dtype.is_integer else float(value)
    if isinstance(target, Symbol):
        return create_op("fill_like", target, value=value, dtype=dtype.name, name=name)
    if isinstance(target, ShapeValue):
        result = shaped_by_value(what if what in ("zeros", "ones") else "fill", [], target,
                                 name or what, dtype=dtype.name,
                                 **({} if what in ("zeros", "ones") else {"value": value}))
        result.set_shape(target.static)
        return result
    if what in ("zeros", "ones"):
        return create_op(what, shape=target, dtype=dtype.name, name=name)
    return create_op("fill", shape=target, value=value, dtype=dtype.name, name=name)


def zeros(shape, dtype=float32, name=None) -> Symbol:
    """Zeros of ``shape`` (a list, ``tf.shape(t)``, or an int tensor computed from shapes)
    and ``dtype``."""
    return _filled(shape, 0, dtype, "zeros", name)


def ones(shape, dtype=float32, name=None) -> Symbol:
    """Ones of ``shape`` (a list, ``tf.shape(t)``, or an int tensor computed from shapes)
    and ``dtype``."""
    return _filled(shape, 1, dtype, "ones", name)


def fill(dims, value, name=None) -> Symbol:
    """``value`` in the shape ``dims`` (a list, ``tf.shape(t)``, or an int tensor computed
    from shapes); the dtype is ``value``'s (Python ints int32, floats float32).  A scalar
    tensor ``value`` is broadcast (and gets gradients)."""
    if isinstance(value, Symbol):
        like = _filled(dims, 0, value.dtype, "fill", None)
        return create_op("broadcast_like", value, like, name=name or "Fill")
    return _filled(dims, value, _dtype_of(value), "fill", name or "Fill")


def _filled_like(op_name, value, tensor, dtype, name):
    tensor = _tensor(tensor)
    if dtype is None:
        return create_op(op_name, tensor, name=name)
    dtype = as_dtype(dtype)
    value = bool(value) if dtype.is_bool else int(value) if dtype.is_integer else float(value)
    return create_op("fill_like", tensor, value=value, dtype=dtype.name, name=name or op_name)


def zeros_like(tensor, dtype=None, name=None, optimize=True) -> Symbol:
    """Zeros of ``tensor``'s shape, of ``dtype`` (default: ``tensor``'s)."""
    return _filled_like("zeros_like", 0, tensor, dtype, name)


def ones_like(tensor, dtype=None, name=None, optimize=True) -> Symbol:
    """Ones of ``tensor``'s shape, of ``dtype`` (default: ``tensor``'s)."""
    return _filled_like("ones_like", 1, tensor, dtype, name)


def range(start, limit=None, delta=1, dtype=None, name="range") -> Symbol:
    """``start, start + delta, ...`` up to ``limit`` (excluded); ``range(n)`` counts from 0.
    The dtype is int32 for int arguments, float32 if one is a float (TensorFlow's rule), or
    ``dtype``.  As in TensorFlow, ``delta`` must not be 0 nor point away from ``limit``."""
    if limit is None:
        start, limit = 0, start
    values = [v.item() if isinstance(v, np.generic) else v for v in (start, limit, delta)]
    if any(not isinstance(v, (int, float)) for v in values):
        raise TypeError(f"range takes Python numbers in TinyFlow, got {start!r}, {limit!r}, "
                        f"{delta!r}")
    start, limit, delta = values
    if delta == 0 or (delta > 0 and start > limit) or (delta < 0 and start < limit):
        raise ValueError(f"range requires delta != 0 pointing from start to limit, got start "
                         f"{start}, limit {limit}, delta {delta}")
    if dtype is None:
        dtype = float32 if any(isinstance(v, float) for v in values) else int32
    dtype = as_dtype(dtype)
    cast = int if dtype.is_integer else float
    return create_op("range", start=cast(start), limit=cast(limit), delta=cast(delta),
                     dtype=dtype.name, name=name)


def sequence_mask(lengths, maxlen=None, dtype=bool, name=None) -> Symbol:
    """``mask[..., j] = j < lengths[...]``: for lengths of any shape, a tensor of shape
    ``lengths.shape + [maxlen]`` (TF 1.15's ``tf.sequence_mask``).

    Parameters
    ----------
    lengths : int tensor or array
        The length of each row.
    maxlen : int or scalar int tensor, optional
        The length of the last axis; None means ``max(lengths)``.  TinyFlow fixes every shape
        when a session binds, so then ``lengths`` (and a tensor ``maxlen``) must be known when
        the graph is built: a constant, or computed from constants and static shapes.
    dtype : DType, optional
        The mask's type, bool by default; another is the mask cast to it.
    name : str, optional
        The name scope, ``"SequenceMask"`` by default.

    Raises
    ------
    ValueError
        When ``maxlen`` is None and ``lengths`` is fed or computed at run time.
    """
    lengths = lengths if isinstance(lengths, Symbol) else constant(lengths)
    if isinstance(maxlen, Symbol):
        maxlen = _folded(maxlen)
        if maxlen is None or len(maxlen) != 1:
            raise ValueError("sequence_mask: a tensor maxlen must be a scalar known when the "
                             "graph is built (a constant) in TinyFlow")
        maxlen = maxlen[0]
    if maxlen is None:
        known = _folded(lengths)
        if known is None:
            raise ValueError("sequence_mask: maxlen=None needs lengths known when the graph "
                             "is built (a constant); pass maxlen for fed lengths, as TinyFlow "
                             "fixes every shape when the graph is bound")
        maxlen = max(known, default=0)
    with current_context().name_scope(name or "SequenceMask"):
        # composed from primitives: a row of 0..maxlen-1 broadcast against each length
        columns = range(int(maxlen), dtype=lengths.dtype)
        mask = less(columns, expand_dims(lengths, -1))
        return mask if as_dtype(dtype) == as_dtype(bool) else cast(mask, dtype)


def broadcast_to(input, shape, name=None) -> Symbol:
    """``input`` broadcast to ``shape`` (a list, ``tf.shape(t)``, or an int tensor computed
    from shapes) by numpy's rules; the gradient sums back over the broadcast axes (TF's)."""
    input = _tensor(input)
    like = _filled(shape, 0, input.dtype, "zeros", None)  # read for its shape only
    return create_op("broadcast_like", input, like, name=name or "BroadcastTo")


def meshgrid(*args, **kwargs) -> list:
    """Coordinate grids of the 1-d ``args`` (TF 1.15's ``tf.meshgrid``): ``indexing="xy"``
    (the default) swaps the first two axes of the outputs, ``"ij"`` keeps the args' order;
    each output is the arg broadcast over the others' sizes, so gradients sum back."""
    indexing, name = kwargs.pop("indexing", "xy"), kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this "
                        f"function")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with current_context().name_scope(name):
        flat = [reshape(_tensor(x), [-1]) for x in args]
        ndim = len(flat)
        axes = list(builtins.range(ndim))
        if indexing == "xy" and ndim > 1:
            axes[0], axes[1] = 1, 0
        shaped = [reshape(x, [-1 if a == axes[i] else 1 for a in builtins.range(ndim)])
                  for i, x in enumerate(flat)]
        sizes = [None] * ndim
        for i, x in enumerate(flat):
            sizes[axes[i]] = size(x)
        ones_grid = ones(stack(sizes), shaped[0].dtype) if ndim else None
        return [x * ones_grid for x in shaped]


def linspace(start, stop, num, name=None) -> Symbol:
    """``num`` evenly spaced values from ``start`` to ``stop``, both included (TF's LinSpace:
    ``start + i * (stop - start) / (num - 1)``, the last exactly ``stop``).  ``start`` and
    ``stop`` are float scalars; ``num`` a positive int (or a constant int tensor)."""
    start, stop = _tensor(start), _tensor(stop)
    if start.dtype != stop.dtype or not start.dtype.is_floating:
        raise TypeError(f"linspace: start and stop must be float tensors of one dtype, got "
                        f"{start.dtype.name} and {stop.dtype.name}")
    if isinstance(num, Symbol):
        try:
            num = fold_value(num.outputs[0], _known_shape)
        except NotFoldable as err:
            raise TypeError(f"linspace: num must be known when the graph is built: {err}") \
                from None
    if np.ndim(num) != 0 or not np.issubdtype(np.asarray(num).dtype, np.integer):
        raise TypeError(f"linspace: num must be an int, got {num!r}")
    if int(num) <= 0:
        raise ValueError(f"linspace: Requires num > 0: {int(num)}")
    with current_context().name_scope(name or "LinSpace"):
        first = reshape(start, [1])
        if int(num) == 1:
            return first
        step = (stop - start) / float(int(num) - 1)
        inner = start + step * range(0, int(num) - 1, dtype=start.dtype)
        return concat([inner, reshape(stop, [1])], 0)


lin_space = linspace


def _window(value, what) -> tuple:
    """extract_image_patches' ksizes / strides / rates: 4 ints [1, rows, cols, 1]."""
    values = list(value) if value is not None else []
    if len(values) != 4 or values[0] != 1 or values[3] != 1 or not all(
            isinstance(v, numbers.Integral) and v >= 1 for v in values):
        raise ValueError(f"extract_image_patches: {what} must be [1, rows, cols, 1] of "
                         f"positive ints, got {value!r}")
    return int(values[1]), int(values[2])


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None,
                          name=None, sizes=None) -> Symbol:
    """TensorFlow 1.15's ``tf.extract_image_patches`` (``tf.image.extract_patches``, whose
    ``sizes`` is ``ksizes``): the ``ksizes`` patches of ``images`` ``[batch, rows, cols,
    depth]`` whose taps are ``rates`` apart, moved by ``strides`` (each ``[1, r, c, 1]``), as
    ``[batch, out_rows, out_cols, kr * kc * depth]`` (row, then column, then depth); SAME pads
    with zeros (the odd one after), VALID none.  Composed of a pad, one strided slice per tap
    and a concat, so its gradient is theirs.  The rows and columns must be known."""
    (kr, kc), (sr, sc), (rr, rc) = (_window(v, what) for v, what in (
        (ksizes if sizes is None else sizes, "ksizes"), (strides, "strides"), (rates, "rates")))
    images = _tensor(images)
    shape = images.get_shape()
    if shape.ndims != 4 or None in shape.as_list()[1:3]:
        raise ValueError(f"extract_image_patches: images must be [batch, rows, cols, depth] "
                         f"with known rows and cols, got {shape}")
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'VALID' or 'SAME', got {padding!r}")
    pads, outs = [[0, 0]], []
    for size, k, s, r in zip(shape.as_list()[1:3], (kr, kc), (sr, sc), (rr, rc)):
        extent = (k - 1) * r + 1
        out = -(-size // s) if padding == "SAME" else (size - extent) // s + 1
        if out < 1:
            raise ValueError(f"extract_image_patches: a patch spanning {extent} pixels does not "
                             f"fit {size} (padding VALID)")
        total = max((out - 1) * s + extent - size, 0)
        pads, outs = pads + [[total // 2, total - total // 2]], outs + [out]
    padded = pad(images, pads + [[0, 0]]) if any(map(any, pads)) else images
    taps = [padded[:, i * rr:i * rr + (outs[0] - 1) * sr + 1:sr,
                   j * rc:j * rc + (outs[1] - 1) * sc + 1:sc, :]
            for i in _builtin_range(kr) for j in _builtin_range(kc)]
    return concat(taps, axis=3, name=name or "ExtractImagePatches")
