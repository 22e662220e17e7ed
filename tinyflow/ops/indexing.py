"""Indexing with tensors: ``x[i]`` at a run-time index, TensorFlow 1.15's gather_nd,
scatter_nd, tensor_scatter_nd_{update,add,sub} and reverse_sequence.

Every shape here is fixed when a session binds the graph; only the index values are read when
it runs, and one out of range is an error naming the node (TF's InvalidArgumentError text), never
garbage.  Bodies: ``tinyflow/lua_ops/indexing/<name>.lua`` over this family's kernels.
"""
from __future__ import annotations

from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op
from ..nnvm.passes.fold_shapes import NotFoldable, fold_value
from ..nnvm.symbol import Symbol, create_op, current_context, slice_attrs, static_shape
from ..nnvm.tensor_shape import TensorShape
from .array import _axis, _integer_input, _shape_of_input_2, slice_index

__all__ = ["holds_tensor", "masked_index", "tensor_index"]


# -- select_index: x[i] along one axis, i a scalar tensor -------------------------------------
def _select_shape(attrs, in_shapes, out_shapes):
    x, index = in_shapes[0], in_shapes[1]
    if index is not None and index != ():
        raise ShapeError(f"the index must be a scalar, got shape {index}")
    if x is None:
        return in_shapes, out_shapes
    axis = _axis(attrs["axis"], len(x))
    return in_shapes, [x[:axis] + x[axis + 1:]]


(register_op("select_index").describe("x[..., i, ...]: the slice of x at the int32/int64 scalar "
                                      "tensor i (negative: from the end) along attr axis, which "
                                      "it removes; i out of range is an error when it runs.")
 .set_num_inputs(2).set_attr("FInferShape", _select_shape)
 .set_attr("FInferType", _integer_input(1, "the index"))
 .set_attr("TUncapturable", True)  # the index is checked on the host (a sync)
 # d x[i] / dx: g written at i along axis, zeros elsewhere
 .set_attr("FGradient", lambda n, g: [create_op(
     "_select_index_backward", g[0], n.inputs[1], n.inputs[0], axis=n.attrs["axis"]), None]))


(register_op("_select_index_backward").describe("Zeros of input 2's shape (shape-only) with g "
                                                "written at index i (input 1) along axis.")
 .set_num_inputs(3).set_attr("FInferShape", _shape_of_input_2(_select_shape, "select_index"))
 .set_attr("FInferType", _integer_input(1, "the index"))
 .set_attr("FIgnoreInputs", [2]).set_attr("TIsBackward", True)
 .set_attr("TUncapturable", True)
 .set_attr("FGradient", lambda n, g: [create_op(
     "select_index", g[0], n.inputs[1], axis=n.attrs["axis"]), None, None]))


# -- gather_nd, scatter_nd, tensor_scatter_nd -------------------------------------------------
def _nd_split(indices, batch_dims, what):
    """``(batch axes, index axes, depth)`` of an indices shape ``[B..., I..., depth]``."""
    if batch_dims < 0:
        raise ShapeError(f"{what}: batch_dims must be non-negative, got {batch_dims}")
    if len(indices) < 1 or len(indices) <= batch_dims:
        raise ShapeError(f"{what}: indices of shape {indices} need rank above batch_dims "
                         f"{batch_dims} and a last axis of coordinates")
    return indices[:batch_dims], indices[batch_dims:-1], indices[-1]


def _gather_nd_shape(attrs, in_shapes, out_shapes):
    params, indices = in_shapes[0], in_shapes[1]
    if params is None or indices is None:
        return in_shapes, out_shapes
    batch_dims = attrs.get("batch_dims", 0)
    batch, inner, depth = _nd_split(indices, batch_dims, "gather_nd")
    if params[:batch_dims] != batch or depth > len(params) - batch_dims:
        raise ShapeError(f"gather_nd: indices {indices} do not fit params {params} "
                         f"(batch_dims {batch_dims}: the first batch_dims axes must be equal "
                         f"and the last axis at most params' rank - batch_dims)")
    return in_shapes, [batch + inner + params[batch_dims + depth:]]


(register_op("gather_nd").describe("out[b, i] = params[b, *indices[b, i]] (TF's GatherNd, attr "
                                   "batch_dims): the slices of params at the coordinate "
                                   "vectors of the last axis of indices.")
 .set_num_inputs(2).set_attr("FInferShape", _gather_nd_shape)
 .set_attr("FInferType", _integer_input(1, "gather_nd's indices"))
 .set_attr("TUncapturable", True)
 # the gradient adds g back at the coordinates read (a coordinate read twice gets both)
 .set_attr("FGradient", lambda n, g: [create_op(
     "_gather_nd_backward", g[0], n.inputs[1], n.inputs[0],
     batch_dims=n.attrs.get("batch_dims", 0)), None]))


(register_op("_gather_nd_backward").describe("Zeros of input 2's shape (shape-only) with g "
                                             "added at the coordinates gather_nd read.")
 .set_num_inputs(3).set_attr("FInferShape", _shape_of_input_2(_gather_nd_shape, "gather_nd"))
 .set_attr("FInferType", _integer_input(1, "gather_nd's indices"))
 .set_attr("FIgnoreInputs", [2]).set_attr("TIsBackward", True)
 .set_attr("TUncapturable", True)
 .set_attr("FGradient", lambda n, g: [create_op(
     "gather_nd", g[0], n.inputs[1], batch_dims=n.attrs.get("batch_dims", 0)), None, None]))


def _scatter_fits(indices, updates, shape, what):
    """ShapeError unless updates is ``indices[:-1] + shape[depth:]``."""
    depth = _nd_split(indices, 0, what)[2]
    expected = tuple(indices[:-1]) + tuple(shape[depth:])
    if depth > len(shape) or tuple(updates) != expected:
        raise ShapeError(f"{what}: updates of shape {updates} must be indices.shape[:-1] + "
                         f"shape[indices.shape[-1]:] = {expected} (indices {indices}, "
                         f"shape {tuple(shape)})")


def _scatter_nd_shape(attrs, in_shapes, out_shapes):
    indices, updates = in_shapes
    shape = tuple(attrs["shape"])
    if any(d < 0 for d in shape):
        raise ShapeError(f"scatter_nd: shape {shape} must be non-negative sizes")
    if indices is not None and updates is not None:
        _scatter_fits(indices, updates, shape, "scatter_nd")
    return in_shapes, [shape]


def _updates_type(attrs, in_types, out_types):
    _integer_input(0, "the indices")(attrs, in_types, out_types)
    return in_types, [in_types[1]]


(register_op("scatter_nd").describe("Zeros of attr shape with updates[i] added at the "
                                    "coordinates indices[i] (TF's ScatterNd: duplicates sum).")
 .set_num_inputs(2).set_attr("FInferShape", _scatter_nd_shape)
 .set_attr("FInferType", _updates_type).set_attr("TUncapturable", True)
 .set_attr("FGradient", lambda n, g: [None, create_op("gather_nd", g[0], n.inputs[0])])
 .set_attr("FShapeValueGradient", lambda n, g: [None, create_op("gather_nd", g[0],
                                                                n.inputs[0])]))


def _tensor_scatter_shape(attrs, in_shapes, out_shapes):
    tensor, indices, updates = in_shapes
    if attrs.get("mode") not in ("update", "add", "sub", "max", "min"):
        raise ShapeError(f"mode must be 'update', 'add', 'sub', 'max' or 'min', got "
                         f"{attrs.get('mode')!r}")
    if None not in in_shapes:
        _scatter_fits(indices, updates, tensor, f"tensor_scatter_nd_{attrs['mode']}")
    return in_shapes, [tensor]


def _tensor_scatter_type(attrs, in_types, out_types):
    _integer_input(1, "the indices")(attrs, in_types, out_types)
    if None not in (in_types[0], in_types[2]) and in_types[0] != in_types[2]:
        raise TypeError(f"updates ({in_types[2]}) must have the tensor's dtype ({in_types[0]})")
    return in_types, [in_types[0]]


def _tensor_scatter_gradient(node, out_grads):
    """update: the tensor's gradient is g with the overwritten places zeroed, the updates' g at
    them; add: g and g at them; sub: g and -(g at them)."""
    g, indices = out_grads[0], node.inputs[1]
    mode = node.attrs["mode"]
    if mode in ("max", "min"):
        return _scatter_extreme_gradient(node, g)
    at = create_op("gather_nd", g, indices)
    if mode == "update":
        zeros = create_op("zeros_like", node.inputs[2])
        return [create_op("tensor_scatter_nd", g, indices, zeros, mode="update"), None, at]
    return [g, None, at if mode == "add" else -at]


def _scatter_extreme_gradient(node, g):
    """max / min (TF's _TensorScatterMinOrMaxGrad): g split evenly among the values equal to
    the result at each place, the tensor's and the updates' scattered there."""
    tensor, indices, updates = node.inputs
    result = node.outputs[0]
    from_tensor = create_op("cast", create_op("equal", tensor, result), dtype=g.dtype.name)
    from_updates = create_op("cast", create_op("equal", updates, create_op(
        "gather_nd", result, indices)), dtype=g.dtype.name)
    counts = from_tensor + create_op("tensor_scatter_nd", create_op("zeros_like", tensor),
                                     indices, from_updates, mode="add")
    share = g / counts
    return [share * from_tensor, None, create_op("gather_nd", share, indices) * from_updates]


(register_op("tensor_scatter_nd").describe("tensor with updates[i] written (mode 'update'), "
                                           "added ('add'), subtracted ('sub'), or the larger "
                                           "('max') or smaller ('min') kept at the "
                                           "coordinates indices[i] (TF's TensorScatter*).")
 .set_num_inputs(3).set_attr("FInferShape", _tensor_scatter_shape)
 .set_attr("FInferType", _tensor_scatter_type).set_attr("TUncapturable", True)
 .set_attr("FGradient", _tensor_scatter_gradient))


# -- reverse_sequence ------------------------------------------------------------------------
def _reverse_sequence_shape(attrs, in_shapes, out_shapes):
    x, lengths = in_shapes
    if x is None:
        return in_shapes, out_shapes
    seq, batch = (_axis(attrs[k], len(x), k) for k in ("seq_axis", "batch_axis"))
    if seq == batch:
        raise ShapeError(f"seq_axis and batch_axis must differ, both are {seq}")
    if lengths is not None and tuple(lengths) != (x[batch],):
        raise ShapeError(f"seq_lengths of shape {lengths} must be a vector of the batch size "
                         f"{x[batch]} (input {x}, batch_axis {batch})")
    return in_shapes, [x]


(register_op("reverse_sequence").describe("x with its first seq_lengths[b] entries along "
                                          "seq_axis reversed in each slice b of batch_axis, "
                                          "the rest as they were.")
 .set_num_inputs(2).set_attr("FInferShape", _reverse_sequence_shape)
 .set_attr("FInferType", _integer_input(1, "seq_lengths")).set_attr("TUncapturable", True)
 # a permutation that is its own inverse: the gradient is the same reversal of g
 .set_attr("FGradient", lambda n, g: [create_op("reverse_sequence", g[0], n.inputs[1],
                                                **n.attrs), None]))

for _name, _type in (("select_index", "StridedSlice"), ("gather_nd", "GatherNd"),
                     ("scatter_nd", "ScatterNd"), ("tensor_scatter_nd", "TensorScatterUpdate"),
                     ("reverse_sequence", "ReverseSequence")):
    register_op(_name).set_attr("TTFType", _type)


# -- x[index] with tensors in the index (strided_slice's FTensorIndex) ------------------------
def tensor_index(tensor: Symbol, index: tuple) -> Symbol:
    """``tensor[index]`` for an index holding int32/int64 scalar tensors, as TF's strided_slice
    with tensor begin, end and strides: a tensor entry ``i`` (it selects one slice, the shape
    stays known) is read when the graph runs (``select_index``: a loop's counter works); a slice
    whose bounds are tensors changes the shape, so their values are computed when a session
    binds the graph (tf.shape of fed tensors, constants, arithmetic: ``shaped_by_value``), or,
    from a fed value, first when it runs (the rest bound per value: executor/stages.py)."""
    static = [slice(None) if isinstance(item, Symbol) else item for item in index]
    picks = [(k, item) for k, item in enumerate(index) if isinstance(item, Symbol)]
    result = tensor
    if not all(item == slice(None) or item is Ellipsis for item in static):  # not x[:, ...]
        attrs = slice_attrs(static)
        bounds = [_bound_value(v) if isinstance(v, Symbol) else v
                  for k in ("begin", "end", "strides") for v in attrs[k]]
        if any(isinstance(v, Symbol) for v in bounds):
            result = _sliced_at_bind(tensor, attrs, bounds, static)
        else:  # every bound known now (constants, shapes known now)
            size = len(bounds) // 3
            attrs.update(begin=tuple(bounds[:size]), end=tuple(bounds[size:2 * size]),
                         strides=tuple(bounds[2 * size:]))
            result = create_op("strided_slice", tensor, **attrs)
    for axis, item in _pick_axes(static, picks):
        result = create_op("select_index", result, item, axis=axis, name="strided_slice")
    return result


def _pick_axes(static, picks) -> list:
    """``(axis of the sliced tensor, index tensor)`` of each tensor entry, in an order that
    keeps every axis right as each is removed: counted from the front before an ellipsis
    (removed last first), from the back after one (removed first first)."""
    makes_axis = [item is None or isinstance(item, slice) for item in static]
    at = static.index(Ellipsis) if Ellipsis in static else len(static)
    axes = [(sum(makes_axis[:k]) if k < at else -sum(makes_axis[k:]), item)
            for k, item in picks]
    return sorted(axes, key=lambda pick: (pick[0] >= 0, -abs(pick[0])))


def _sliced_at_bind(tensor, attrs, bounds, static) -> Symbol:
    """strided_slice whose begin, end and strides (some int tensors) are folded at bind."""
    parts = [create_op("cast", v, dtype="int64") if isinstance(v, Symbol) else
             create_op("constant", value=(int(v),), shape=(), dtype="int64") for v in bounds]
    value = create_op("stack", *parts, num_args=len(parts), axis=0, name="strided_slice/bounds")
    masks = {k: v for k, v in attrs.items() if k not in ("begin", "end", "strides")}
    result = create_op("shaped_by_value", tensor, value, target="strided_slice", num_args=1,
                       shape_attr=("begin", "end", "strides"), name="strided_slice", **masks)
    result.set_shape(_known_shape(tensor.get_shape(), static))
    return result


def _bound_value(bound: Symbol):
    """``bound``'s value when it is known now, else ``bound`` itself: its value is folded when
    a session binds the graph, or, when it depends on a value known only when the graph runs,
    that value is computed first (the executor binds the rest per value it takes:
    executor/stages.py); ValueError when it is not a scalar."""
    shape = bound.get_shape()
    if shape.ndims not in (None, 0):
        raise ValueError(f"a slice bound must be a scalar, got {bound.name} of shape {shape}")
    if bound.dtype is not None and not bound.dtype.name.startswith(("int", "uint")):
        raise TypeError(f"a slice bound must be an int32 or int64 tensor, got {bound.name} of "
                        f"dtype {bound.dtype.name}")
    known = lambda e: (tuple(static_shape(e).as_list())  # what is known now
                       if static_shape(e).is_fully_defined() else None)
    try:
        return int(fold_value(bound.outputs[0], known))
    except NotFoldable as err:
        if err.node in current_context().loop_inputs:
            raise ValueError(f"slice bound {bound.name}: its value depends on {err.node.name}, "
                             f"a loop variable; a loop's body is bound once, so the shapes "
                             f"in it must be known then: a single index x[i] may follow a "
                             f"loop variable") from None
        return bound


def _known_shape(shape: TensorShape, static) -> TensorShape:
    """What is known of the sliced shape now: a slice with a tensor bound gives an unknown
    size, the rest as strided_slice's rule (TensorFlow's static shape knows as much)."""
    if shape.ndims is None:
        return TensorShape(None)
    items = list(static)
    used = sum(1 for item in items if item is not None and item is not Ellipsis)
    at = items.index(Ellipsis) if Ellipsis in items else len(items)
    items[at:at + 1] = [slice(None)] * (shape.ndims - used)
    dims, out = iter(shape.as_list()), []
    for item in items:
        size = 1 if item is None else next(dims)
        if isinstance(item, slice):
            plain = all(not isinstance(v, Symbol) for v in (item.start, item.stop, item.step))
            out.append(len(range(*item.indices(size))) if plain and size is not None else None)
        elif item is None:
            out.append(1)
    return TensorShape(out + list(dims))


def holds_tensor(*values) -> bool:
    """Whether any of ``values`` (or of the lists among them) is a tensor."""
    return any(isinstance(v, Symbol) for value in values
               for v in (value if isinstance(value, (list, tuple)) else [value]))


def _entries(values, what) -> list:
    """begin, end or strides as a list of ints and scalar tensors (``v[k]`` of a 1-D one)."""
    if not isinstance(values, Symbol):
        return [v if isinstance(v, Symbol) else int(v) for v in (
            values if isinstance(values, (list, tuple)) else [values])]
    shape = values.get_shape()
    if shape.ndims != 1 or shape[0].value is None:
        raise ValueError(f"strided_slice's {what} must be a 1-D tensor of a length known when "
                         f"the graph is built, got {values.name} of shape {shape}")
    return [values[k] for k in range(shape[0].value)]


def masked_index(begin, end, strides, masks) -> tuple:
    """TensorFlow's strided_slice arguments (begin, end and strides lists or 1-D int tensors,
    and the five masks) as the index ``x[...]`` they stand for, its entries ints or tensors."""
    begin, end = _entries(begin, "begin"), _entries(end, "end")
    strides = [1] * len(begin) if strides is None else _entries(strides, "strides")
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"begin, end and strides must have one length, got {len(begin)}, "
                         f"{len(end)} and {len(strides)}")
    return slice_index({**masks, "begin": begin, "end": end, "strides": strides})


register_op("strided_slice").set_attr("FTensorIndex", tensor_index)
