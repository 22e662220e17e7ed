"""TensorFlow 1.15's array functions composed of existing ops (gradients from theirs):
``tf.eye``, ``tf.where_v2``, ``tf.repeat``, ``tf.roll``, ``tf.searchsorted``,
``tf.unravel_index``, ``tf.invert_permutation``, ``tf.identity_n``, ``tf.tuple``,
``tf.shape_n``, ``tf.ensure_shape``, ``tf.parallel_stack`` and the space / batch
rearrangements (``tf.space_to_batch_nd``, ``tf.batch_to_space_nd``, their 4-D forms).

Sizes that TF may take as tensors (``repeats``, ``shift``, ``block_shape``, ``dims``) are taken
as Python ints here, and the axes they act on must be known as the graph is built: a tensor
there is a TypeError naming the argument.
"""
from __future__ import annotations

import builtins

import numpy as np

from ..nnvm.symbol import Symbol, create_op, current_context
from ..nnvm.tensor_shape import TensorShape
from .api import (
    _tensor,
    add,
    cast,
    constant,
    control_dependencies,
    equal,
    floordiv,
    group,
    identity,
    less,
    less_equal,
    mod,
    reduce_all,
    reduce_sum,
    where,
)
from .array_ops import (
    broadcast_to,
    expand_dims,
    gather_dense,
    pad,
    range,
    reshape,
    shape,
    slice,
    stack,
    transpose,
    zeros_like,
)
from .dtypes import float32, int32
from .errors import InvalidArgumentError
from .indexing_ops import scatter_nd

__all__ = ["batch_to_space", "batch_to_space_nd", "ensure_shape", "eye", "identity_n",
           "invert_permutation", "parallel_stack", "repeat", "required_space_to_batch_paddings",
           "roll", "searchsorted", "shape_n", "space_to_batch", "space_to_batch_nd", "tuple", "unravel_index", "where_v2"]


def _ints(value, what: str, function: str) -> list:
    """``value`` (an int, a list of ints or a constant) as Python ints; TypeError naming
    ``what`` for a tensor computed at run time."""
    if isinstance(value, Symbol):
        node = value.outputs[0].node
        if node.op is None or node.op.name != "constant":
            raise TypeError(f"tf.{function}: {what} must be Python ints or a constant here, "
                            f"got the tensor {value.name}")
        value = node.attrs["value"] if node.attrs["shape"] else node.attrs["value"][0]
    return [int(v) for v in np.ravel(value)]


def _known_dim(x: Symbol, axis: int, function: str) -> int:
    size = x.get_shape().as_list()[axis] if x.get_shape().ndims is not None else None
    if size is None:
        raise ValueError(f"tf.{function}: axis {axis} of {x.name} must be known as the graph "
                         f"is built (shape {x.get_shape()})")
    return size


def eye(num_rows, num_columns=None, batch_shape=None, dtype=float32, name=None) -> Symbol:
    """The ``num_rows x num_columns`` identity matrix (ones on the diagonal), stacked over
    ``batch_shape``, of ``dtype`` (TensorFlow 1.15's ``tf.eye`` / ``tf.linalg.eye``): row
    index == column index, computed when it runs (its size checked as every tensor's)."""
    rows = _ints(num_rows, "num_rows", "eye")[0]
    columns = rows if num_columns is None else _ints(num_columns, "num_columns", "eye")[0]
    batch = [] if batch_shape is None else _ints(batch_shape, "batch_shape", "eye")
    if builtins.min([rows, columns, *batch]) < 0:
        raise ValueError(f"tf.eye: sizes must be non-negative, got {[*batch, rows, columns]}")
    with current_context().name_scope(name or "eye"):
        diagonal = equal(expand_dims(range(rows), 1), range(columns))
        matrix = cast(diagonal, dtype)
        return broadcast_to(matrix, [*batch, rows, columns]) if batch else matrix


def where_v2(condition, x=None, y=None, name=None) -> Symbol:
    """TensorFlow 1.15's ``tf.where_v2``: ``x`` where ``condition`` else ``y``, the three
    broadcast together by numpy's rules (gradients summed back over the broadcast axes); with
    ``condition`` alone, the coordinates of its true elements (:func:`tf.where`)."""
    if x is None and y is None:
        return where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    condition = _tensor(condition)
    x, y = (v if isinstance(v, Symbol) else constant(v) for v in (x, y))
    # read for its shape only: the broadcast shape of the three
    like = add(add(zeros_like(x), zeros_like(y)), cast(condition, x.dtype) * 0)
    spread = [create_op("broadcast_like", v, like) for v in (condition, x, y)]
    return create_op("where", *spread, name=name or "SelectV2")


def repeat(input, repeats, axis=None, name=None) -> Symbol:
    """Each element (``axis`` None: of ``input`` flattened) or each slice along ``axis``
    repeated ``repeats`` times (an int, or a list of one int per slice), as TensorFlow 1.15's
    ``tf.repeat`` / ``np.repeat``."""
    input = _tensor(input)
    counts = _ints(repeats, "repeats", "repeat")
    if axis is None:
        input, axis = reshape(input, [-1]), 0
    axis = int(axis) % builtins.max(input.get_shape().ndims or 1, 1)
    size = _known_dim(input, axis, "repeat")
    if len(counts) not in (1, size):
        raise ValueError(f"tf.repeat: repeats has {len(counts)} entries for axis {axis} of "
                         f"size {size}")
    index = np.repeat(np.arange(size), counts[0] if len(counts) == 1 else counts)
    return gather_dense(input, constant(index.astype(np.int32)), axis=axis,
                        name=name or "Repeat")


def roll(input, shift, axis, name=None) -> Symbol:
    """``input`` with its elements shifted by ``shift`` along ``axis`` (ints, or lists of
    them: a shift per axis, an axis named twice shifted by their sum), wrapping around
    (TensorFlow 1.15's ``tf.roll``)."""
    input = _tensor(input)
    shifts, axes = _ints(shift, "shift", "roll"), _ints(axis, "axis", "roll")
    if len(shifts) != len(axes):
        raise ValueError(f"tf.roll: shift and axis must have the same size, got "
                         f"{len(shifts)} and {len(axes)}")
    ndims = input.get_shape().ndims
    result = input
    for step, ax in zip(shifts, axes):
        ax = ax % ndims if ndims else ax
        size = _known_dim(input, ax, "roll")
        index = (np.arange(size) - step) % builtins.max(size, 1)
        result = gather_dense(result, constant(index.astype(np.int32)), axis=ax)
    return identity(result, name=name or "Roll")


def searchsorted(sorted_sequence, values, side="left", out_type=int32, name=None) -> Symbol:
    """For each of ``values``, the index in ``sorted_sequence`` (sorted along its last axis;
    leading axes as ``values``') where it would be inserted to keep it sorted: before equal
    elements (``side="left"``) or after them (``"right"``), as TensorFlow 1.15's
    ``tf.searchsorted``; counted as how many elements are less (or not greater)."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be either 'right' or 'left'.  Saw: {side}.")
    sequence, values = _tensor(sorted_sequence), _tensor(values)
    before = less if side == "left" else less_equal
    below = before(expand_dims(sequence, -2), expand_dims(values, -1))
    return reduce_sum(cast(below, out_type), axis=-1, name=name or "SearchSorted")


def unravel_index(indices, dims, name=None) -> Symbol:
    """The coordinates in an array of shape ``dims`` of the flat ``indices`` (row-major), of
    shape ``[len(dims)] + indices.shape`` (TensorFlow 1.15's ``tf.unravel_index``); an index
    outside ``[0, prod(dims))`` fails the run with TF's InvalidArgumentError."""
    indices = _tensor(indices)
    sizes = _ints(dims, "dims", "unravel_index")
    with current_context().name_scope(name or "UnravelIndex"):
        total = int(np.prod(sizes))
        inside = reduce_all(equal(floordiv(indices, total), 0))
        check = create_op("assert", inside, num_args=1, summarize=0,
                          func=_Refusal("index out of bounds"), name="check")
        coordinates, rest = [], indices
        for size in reversed(sizes):
            coordinates.append(mod(rest, size))
            rest = floordiv(rest, size)
        with control_dependencies([Symbol(check.outputs, is_operation=True)]):
            return stack(coordinates[::-1], axis=0)


class _Refusal:
    """A check's run-time side: TF's InvalidArgumentError with ``message`` when it fails."""

    def __init__(self, message: str):
        self.message = message

    def __call__(self, node, inputs):
        if not np.asarray(inputs[0]):
            raise InvalidArgumentError(None, node.name, self.message)
        return np.asarray(True)


def invert_permutation(x, name=None) -> Symbol:
    """``y`` with ``y[x[i]] = i`` for a permutation ``x`` of ``0..n-1`` (int32 or int64), as
    TensorFlow 1.15's ``tf.invert_permutation``; an ``x`` that is no permutation fails the run
    with TF's InvalidArgumentError."""
    x = _tensor(x)
    if not x.dtype.is_integer:
        raise TypeError(f"tf.invert_permutation takes an int32 or int64 tensor, got "
                        f"{x.dtype.name}")
    size = _known_dim(x, 0, "invert_permutation")
    with current_context().name_scope(name or "InvertPermutation"):
        places = expand_dims(x, 1)
        inside = reduce_all(less(x, size) & (x >= 0))
        # a permutation names each position once: ones scattered to it count 1 everywhere
        safe = where_v2(inside, places, zeros_like(places))
        once = inside & reduce_all(equal(scatter_nd(safe, zeros_like(x) + 1, [size]), 1))
        check = create_op("assert", once, num_args=1, summarize=0,
                          func=_Refusal(f"{x.name} is not a valid permutation"), name="check")
        with control_dependencies([Symbol(check.outputs, is_operation=True)]):
            positions = constant(np.arange(size), dtype=x.dtype)
            return scatter_nd(safe, positions, [size])


def identity_n(input, name=None) -> list:
    """Each tensor of the list ``input``, as :func:`tf.identity` (``tf.identity_n``)."""
    return [identity(t, name=name) for t in input]


def tuple(tensors, name=None, control_inputs=None) -> list:
    """``tensors`` (None entries kept), each available only once all of them (and
    ``control_inputs``) are computed (TensorFlow 1.15's ``tf.tuple``)."""
    with current_context().name_scope(name or "tuple"):
        present = [t for t in tensors if t is not None]
        gate = group(*present, *(control_inputs or ()))
        with control_dependencies([gate]):
            return [None if t is None else identity(t) for t in tensors]


def shape_n(input, out_type=int32, name=None) -> list:
    """The shape of each tensor of ``input`` (``tf.shape_n``)."""
    return [shape(t, out_type=out_type, name=name) for t in input]


def parallel_stack(values, name="parallel_stack") -> Symbol:
    """``values`` stacked along a new first axis (``tf.parallel_stack``: :func:`tf.stack`'s
    result; their shapes must be known as the graph is built, as TF's)."""
    values = [_tensor(v) for v in values]
    for value in values:
        if not value.get_shape().is_fully_defined():
            raise ValueError(f"tf.parallel_stack: {value.name} has shape {value.get_shape()}: "
                             f"every shape must be known as the graph is built")
    return stack(values, axis=0, name=name)


def ensure_shape(x, shape, name=None) -> Symbol:
    """``x``, whose static shape becomes ``shape`` merged in; ValueError now when they
    disagree, and a run where its shape differs fails with TF's InvalidArgumentError
    (TensorFlow 1.15's ``tf.ensure_shape``)."""
    x, expected = _tensor(x), TensorShape(shape)
    if not x.get_shape().is_compatible_with(expected):
        raise ValueError(f"tf.ensure_shape: {x.name} has shape {x.get_shape()}, not "
                         f"compatible with {expected}")
    with current_context().name_scope(name or "EnsureShape"):
        check = create_op("assert", _tensor(0), _shape_of(x), num_args=2, summarize=0,
                          func=_ShapeCheck(x.name, expected), name="check")
        with control_dependencies([Symbol(check.outputs, is_operation=True)]):
            result = identity(x)
    # the static shape it declares (as tf.placeholder_with_default's); the run checks it
    result.graph.declared_shapes[result.outputs[0]] = x.get_shape().merge_with(expected)
    return result


def _shape_of(x: Symbol) -> Symbol:
    return create_op("shape_of", x, out_type="int64")


class _ShapeCheck:
    """An ensure_shape node's run-time side: TF's message when the shape does not fit."""

    def __init__(self, tensor_name: str, expected: TensorShape):
        self.tensor_name, self.expected = tensor_name, expected

    def __call__(self, node, inputs):
        actual = [int(d) for d in np.asarray(inputs[1])]
        if not TensorShape(actual).is_compatible_with(self.expected):
            raise InvalidArgumentError(None, node.name, (
                f"Shape of tensor {self.tensor_name} [{','.join(map(str, actual))}] is not "
                f"compatible with expected shape {_dims(self.expected)}."))
        return np.asarray(True)


def _dims(shape: TensorShape) -> str:
    if shape.ndims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


# -- space and batch ----------------------------------------------------------------------------
def space_to_batch_nd(input, block_shape, paddings, name=None) -> Symbol:
    """TensorFlow 1.15's ``tf.space_to_batch_nd``: the M spatial axes after the batch axis
    padded by ``paddings`` (M pairs), cut in blocks of ``block_shape`` whose positions move
    into the batch axis: ``[batch * prod(block_shape), padded / block_shape..., rest...]``.
    A pad, a reshape and a transpose; the spatial sizes must be known as the graph is built."""
    input = _tensor(input)
    blocks = _ints(block_shape, "block_shape", "space_to_batch_nd")
    pads = np.asarray(_ints(paddings, "paddings", "space_to_batch_nd")).reshape(-1, 2)
    m, dims = len(blocks), input.get_shape().as_list()
    padded_dims = [_known_dim(input, 1 + i, "space_to_batch_nd") + int(pads[i].sum())
                   for i in builtins.range(m)]
    for i, (size, block) in enumerate(zip(padded_dims, blocks)):
        if size % block:
            raise ValueError(f"padded_shape[{i}]={size} is not divisible by "
                             f"block_shape[{i}]={block}")
    rest = dims[1 + m:]
    with current_context().name_scope(name or "SpaceToBatchND"):
        padded = pad(input, [[0, 0], *pads.tolist(), *[[0, 0]] * len(rest)])
        split = [-1] + [v for size, block in zip(padded_dims, blocks)
                        for v in (size // block, block)] + rest
        order = [2 + 2 * i for i in builtins.range(m)] + [0] + [
            1 + 2 * i for i in builtins.range(m)] + [1 + 2 * m + i for i in builtins.range(len(rest))]
        moved = transpose(reshape(padded, split), order)
        return reshape(moved, [-1] + [s // b for s, b in zip(padded_dims, blocks)] + rest)


def batch_to_space_nd(input, block_shape, crops, name=None) -> Symbol:
    """TensorFlow 1.15's ``tf.batch_to_space_nd``, the inverse of :func:`space_to_batch_nd`:
    the batch axis' blocks moved back into the M spatial axes, then ``crops`` cut from them."""
    input = _tensor(input)
    blocks = _ints(block_shape, "block_shape", "batch_to_space_nd")
    cut = np.asarray(_ints(crops, "crops", "batch_to_space_nd")).reshape(-1, 2)
    m, dims = len(blocks), input.get_shape().as_list()
    spatial = [_known_dim(input, 1 + i, "batch_to_space_nd") for i in builtins.range(m)]
    rest = dims[1 + m:]
    batch = dims[0]
    if batch is not None and batch % int(np.prod(blocks)):
        raise ValueError(f"tf.batch_to_space_nd: batch {batch} of {input.name} is not "
                         f"divisible by the product of block_shape {blocks}")
    with current_context().name_scope(name or "BatchToSpaceND"):
        split = reshape(input, [*blocks, -1, *spatial, *rest])
        order = [m] + [v for i in builtins.range(m) for v in (m + 1 + i, i)] + [
            2 * m + 1 + i for i in builtins.range(len(rest))]
        whole = reshape(transpose(split, order),
                        [-1] + [s * b for s, b in zip(spatial, blocks)] + rest)
        begin = [0] + [int(c[0]) for c in cut] + [0] * len(rest)
        size = [-1] + [s * b - int(c.sum()) for s, b, c in zip(spatial, blocks, cut)] + [
            -1] * len(rest)
        return slice(whole, begin, size)


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None) -> Symbol:
    """The 4-D :func:`space_to_batch_nd` with a square block (``tf.space_to_batch``,
    ``tf.nn.space_to_batch``)."""
    block = block_size if block_size is not None else block_shape
    input = _tensor(input)
    if input.get_shape().ndims not in (None, 4):
        raise ValueError(f"tf.space_to_batch: {input.name} must have rank 4, got shape "
                         f"{input.get_shape()}")
    return space_to_batch_nd(input, [int(block)] * 2, paddings, name=name or "SpaceToBatch")


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """TF 1.15's ``tf.required_space_to_batch_paddings``: ``(paddings, crops)``, int32
    ``[M, 2]``, that pad ``input_shape`` (M spatial sizes, after ``base_paddings``) at the end
    to multiples of ``block_shape``, and crop that extra padding again.  The arguments are
    Python ints or constants here (:func:`space_to_batch_nd` takes no others)."""
    function = "required_space_to_batch_paddings"
    sizes = np.asarray(_ints(input_shape, "input_shape", function))
    blocks = np.asarray(_ints(block_shape, "block_shape", function))
    base = (np.zeros((len(blocks), 2), np.int64) if base_paddings is None
            else np.asarray(_ints(base_paddings, "base_paddings", function)))
    if len(sizes) != len(blocks) or base.size != 2 * len(blocks) or min(blocks, default=1) < 1:
        raise ValueError(f"tf.{function}: input_shape {sizes.tolist()}, positive block_shape "
                         f"{blocks.tolist()} and base_paddings [M, 2] must agree, got "
                         f"{base.tolist()}")
    base = base.reshape(-1, 2)
    extra = (blocks - (sizes + base.sum(axis=1)) % blocks) % blocks
    with current_context().name_scope(name or "required_space_to_batch_paddings"):
        paddings = np.stack([base[:, 0], base[:, 1] + extra], axis=1)
        crops = np.stack([np.zeros_like(extra), extra], axis=1)
        return (constant(paddings.astype(np.int32), name="paddings"),
                constant(crops.astype(np.int32), name="crops"))


def batch_to_space(input, crops, block_size, name=None, block_shape=None) -> Symbol:
    """The 4-D :func:`batch_to_space_nd` with a square block (``tf.batch_to_space``)."""
    block = block_size if block_size is not None else block_shape
    return batch_to_space_nd(input, [int(block)] * 2, crops, name=name or "BatchToSpace")

