"""TensorFlow 1.15's sparse tensors: ``tf.SparseTensor`` (a Python object holding three tensors:
int64 ``indices [N, rank]``, ``values [N]``, int64 ``dense_shape [rank]``), the
``tf.SparseTensorValue`` a session gives for one and takes as its feed, ``tf.sparse_placeholder``
and the functions on them.

``to_dense`` and ``sparse_tensor_dense_matmul`` are ops of tinyflow/ops/sparse.py, sized by the
dense shape's value when they run; the rest compose gathers, segment sums and scatters as
TensorFlow's Python does, so their gradients are those ops'.  A fed sparse tensor is checked
before anything runs: indices of the wrong rank, negative or past the dense shape are an error
naming the placeholder.
"""
from __future__ import annotations

import collections

import numpy as np

from ..nnvm.composite import CompositeTensor
from ..nnvm.symbol import Symbol, _session_for, create_op, current_context
from ..nnvm.tensor_shape import TensorShape
from .api import abs as absolute
from .api import (
    cast,
    control_dependencies,
    equal,
    exp,
    floordiv,
    floormod,
    greater_equal,
    logical_or,
    maximum,
    not_equal,
    placeholder,
    reduce_prod,
    reduce_sum,
    sqrt,
    where,
)
from .array_ops import (
    _folded,
    _tensor,
    boolean_mask,
    concat,
    expand_dims,
    gather_dense,
    ones_like,
    reshape,
    zeros_like,
)
from .array_ops import shape as shape_of
from .control_flow_ops import Assert
from .dtypes import as_dtype, int64
from .indexing_ops import gather_nd, tensor_scatter_nd_add
from .math_ops import convert_to_tensor, cumprod
from .segment_ops import segment_max, segment_mean, segment_sum, unsorted_segment_sum
from .sort_ops import argsort, unique_with_counts

__all__ = [
    "SparseTensor",
    "SparseTensorValue",
    "edit_distance",
    "from_dense",
    "sparse_add",
    "sparse_fill_empty_rows",
    "sparse_placeholder",
    "sparse_reduce_sum",
    "sparse_reorder",
    "sparse_reshape",
    "sparse_retain",
    "sparse_segment_mean",
    "sparse_segment_sqrt_n",
    "sparse_segment_sum",
    "sparse_softmax",
    "sparse_tensor_dense_matmul",
    "sparse_tensor_to_dense",
    "sparse_to_dense",
    "sparse_transpose",
]

SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])
SparseTensorValue.__doc__ = "A sparse tensor's value: numpy indices, values and dense_shape."


class SparseTensor(CompositeTensor):
    """A sparse tensor: ``values[i]`` at the coordinates ``indices[i]`` of a tensor of shape
    ``dense_shape``, zero elsewhere (TensorFlow's ``tf.SparseTensor``).  ``session.run`` of one
    gives a :data:`SparseTensorValue`; a feed_dict key of one takes a ``SparseTensorValue`` or
    an ``(indices, values, dense_shape)`` tuple."""

    def __init__(self, indices, values, dense_shape):
        with current_context().name_scope("SparseTensor"):
            self._indices = convert_to_tensor(indices, dtype=int64, name="indices")
            self._values = _tensor(values)
            self._dense_shape = convert_to_tensor(dense_shape, dtype=int64, name="dense_shape")
        for part, rank in ((self._indices, 2), (self._values, 1), (self._dense_shape, 1)):
            known = part.get_shape().ndims
            if known is not None and known != rank:
                raise ValueError(f"SparseTensor: {part.name} must have rank {rank}, got shape "
                                 f"{part.get_shape()}")
        self._static = None  # the shape a sparse_placeholder declared, when partly known
        self._name = f"tensor '{self._values.op.name}'"  # what feed errors call it

    indices = property(lambda self: self._indices, doc="int64 [N, rank]: the coordinates.")
    values = property(lambda self: self._values, doc="[N]: the values at them.")
    dense_shape = property(lambda self: self._dense_shape, doc="int64 [rank]: the shape.")
    dtype = property(lambda self: self._values.dtype, doc="The values' dtype.")
    op = property(lambda self: self._values.op, doc="The op making the values.")
    graph = property(lambda self: self._values.graph, doc="The graph of the tensors.")

    @property
    def shape(self) -> TensorShape:
        """What is known of the dense shape now (TF's ``constant_value_as_shape``)."""
        value = _folded(self._dense_shape)
        if value is not None:
            return TensorShape(list(value))
        if self._static is not None:
            return self._static
        rank = self._dense_shape.get_shape()
        return TensorShape(None if rank.ndims is None or rank[0].value is None
                           else [None] * rank[0].value)

    def get_shape(self) -> TensorShape:
        """:attr:`shape`."""
        return self.shape

    def eval(self, feed_dict=None, session=None) -> SparseTensorValue:
        """``session.run(self, feed_dict)``; the default session when ``session`` is None."""
        return _session_for(session).run(self, feed_dict)

    @classmethod
    def from_value(cls, value) -> SparseTensor:
        """A SparseTensor of constants holding a :data:`SparseTensorValue`."""
        return value if isinstance(value, SparseTensor) else cls(*value)

    def __repr__(self):
        return (f"SparseTensor(indices={self._indices!r}, values={self._values!r}, "
                f"dense_shape={self._dense_shape!r})")

    def _components(self) -> tuple:
        return self._indices, self._values, self._dense_shape

    def _from_components(self, values) -> SparseTensorValue:
        return SparseTensorValue(*values)

    def _feed_components(self, value) -> list:
        what = f"feed for sparse {self._name}"
        if not isinstance(value, (tuple, list)) or len(value) != 3:
            raise TypeError(f"{what} must be a tf.SparseTensorValue or an (indices, values, "
                            f"dense_shape) tuple, got {type(value).__name__}")
        return list(zip(self._components(), _checked_feed(what, *value, self._indices)))


def _array(value, what, part):
    try:
        array = np.asarray(value)
    except ValueError as err:
        raise ValueError(f"{what}: {part} is not a regular array: {err}") from None
    if array.dtype.kind not in "biuf" or (part != "values" and array.dtype.kind not in "iu"
                                          and array.size):
        raise TypeError(f"{what}: {part} must be {'numeric' if part == 'values' else 'integers'}"
                        f", got dtype {array.dtype} (shape {array.shape})")
    return array


def _checked_feed(what, indices, values, dense_shape, indices_tensor) -> tuple:
    """The fed parts as arrays, checked as TF's ops would check them when they run: indices
    [N, rank] inside dense_shape, values [N]; ValueError naming the placeholder."""
    indices = _array(indices, what, "indices")
    values = _array(values, what, "values")
    dense_shape = _array(dense_shape, what, "dense_shape").astype(np.int64)
    if dense_shape.ndim != 1:
        raise ValueError(f"{what}: dense_shape must be a vector, got shape {dense_shape.shape}")
    rank = dense_shape.shape[0]
    if indices.size == 0 and indices.ndim < 2:
        indices = indices.reshape(0, rank)  # [] for no values, as TF accepts
    known = indices_tensor.get_shape()
    if indices.ndim != 2 or indices.shape[1] != rank or (
            known.ndims == 2 and known[1].value not in (None, rank)):
        raise ValueError(f"{what}: indices must have shape [N, {rank}] (dense_shape has {rank} "
                         f"dims), got shape {indices.shape}")
    if values.shape != (indices.shape[0],):
        raise ValueError(f"{what}: values must have shape [{indices.shape[0]}] (one per index),"
                         f" got shape {values.shape}")
    if (dense_shape < 0).any():
        raise ValueError(f"{what}: dense_shape {dense_shape.tolist()} has a negative dimension")
    bad = ((indices < 0) | (indices >= dense_shape)).any(axis=1).nonzero()[0]
    if bad.size:
        row = int(bad[0])
        raise ValueError(f"{what}: indices[{row}] = {indices[row].tolist()} is out of bounds: "
                         f"need 0 <= index < {dense_shape.tolist()}")
    return indices.astype(np.int64), values, dense_shape


def _sparse(value, what) -> SparseTensor:
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    if not isinstance(value, SparseTensor):
        raise TypeError(f"{what}: expected a SparseTensor, got {type(value).__name__}")
    return value


def _declared(result: Symbol, dims) -> Symbol:
    """What is known of a run-time-shaped output before it runs, as TF's static shape."""
    result.graph.declared_shapes[result.outputs[0]] = TensorShape(dims)
    return result


def sparse_placeholder(dtype, shape=None, name=None) -> SparseTensor:
    """A sparse tensor fed at run time (a SparseTensorValue or an (indices, values, shape)
    tuple): placeholders ``<name>/indices``, ``<name>/values`` and, unless ``shape`` is fully
    known (then a constant), ``<name>/shape``."""
    sub = (lambda part: f"{name}/{part}") if name is not None else (lambda part: None)
    static = None
    if isinstance(shape, TensorShape):
        shape = None if shape.ndims is None else shape.as_list()
    if isinstance(shape, Symbol):
        known = shape.get_shape()
        dense_shape, rank = shape, known[0].value if known.ndims == 1 else None
    elif shape is None:
        dense_shape, rank = placeholder(int64, [None], name=sub("shape")), None
    else:
        dims = [None if d is None or int(d) < 0 else int(d) for d in shape]
        rank, static = len(dims), TensorShape(dims)
        dense_shape = (placeholder(int64, [rank], name=sub("shape")) if None in dims
                       else convert_to_tensor(np.asarray(dims, np.int64), name=sub("shape")))
    values = placeholder(dtype, [None], name=sub("values"))
    indices = placeholder(int64, [None, rank], name=sub("indices"))
    result = SparseTensor(indices, values, dense_shape)
    result._static = static
    result._name = f"placeholder '{name or values.op.name}'"
    return result


# -- to dense ---------------------------------------------------------------------------------
def _to_dense(sp, default, validate, accumulate, name):
    default = default if isinstance(default, Symbol) else convert_to_tensor(
        np.asarray(default, as_dtype(sp.dtype).name))
    result = create_op("sparse_to_dense", sp.indices, sp.dense_shape, sp.values, default,
                       validate_indices=bool(validate), accumulate=bool(accumulate), name=name)
    return _declared(result, sp.shape.as_list() if sp.shape.ndims is not None else None)


def sparse_tensor_to_dense(sp_input, default_value=0, validate_indices=True,
                           name=None) -> Symbol:
    """The dense tensor: ``values[i]`` at ``indices[i]``, ``default_value`` elsewhere.  With
    ``validate_indices`` the indices must be in row-major order and distinct (else the last of
    repeated ones wins); an index outside the shape is always an error naming the node."""
    sp = _sparse(sp_input, "sparse_tensor_to_dense")
    return _to_dense(sp, default_value, validate_indices, False, name or "SparseToDense")


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
                    validate_indices=True, name=None) -> Symbol:
    """TF's older form: ``sparse_indices`` a scalar, a vector (indices of a vector) or [N, rank],
    ``sparse_values`` a scalar (for every index) or [N]."""
    indices = _tensor(sparse_indices)
    rank = indices.get_shape().ndims
    if rank is None or rank > 2:
        raise ValueError(f"sparse_to_dense: sparse_indices must have rank 0, 1 or 2 known when "
                         f"the graph is built, got shape {indices.get_shape()}")
    indices = indices if rank == 2 else reshape(indices, [-1, 1])
    values = _tensor(sparse_values)
    if values.get_shape().ndims == 0:  # one value for every index
        values = values + cast(zeros_like(indices[:, 0]), values.dtype)
    shape = _tensor(output_shape)
    dims = _folded(shape) if not isinstance(output_shape, Symbol) else None
    sp = SparseTensor(cast(indices, int64), values, cast(shape, int64))
    sp._static = TensorShape(list(dims)) if dims is not None else None
    return _to_dense(sp, default_value, validate_indices, False, name or "SparseToDense")


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance") -> Symbol:
    """The Levenshtein distance between the sequences of ``hypothesis`` and ``truth`` (sparse
    tensors of one rank, R >= 2): at each coordinate of their leading R - 1 dims, the values
    there in index order, float32 of the larger dense shape's leading dims (TF 1.15's
    ``tf.edit_distance``); ``normalize`` divides by the truth's length (inf for an empty truth
    and a non-empty hypothesis).  The static shape is known when both dense shapes are."""
    hyp, truth = (_sparse(v, "edit_distance") for v in (hypothesis, truth))
    result = create_op("edit_distance", hyp.indices, hyp.values, hyp.dense_shape,
                       truth.indices, truth.values, truth.dense_shape,
                       normalize=bool(normalize), name=name)
    shapes = [_folded(sp.dense_shape) for sp in (hyp, truth)]  # TF's: constants only
    return _declared(result, None if any(s is None for s in shapes) else [
        max(int(a), int(b)) for a, b in zip(shapes[0][:-1], shapes[1][:-1])])


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None) -> Symbol:
    """``op(sp_a) @ op(b)``, ``op`` transposing with ``adjoint_a`` / ``adjoint_b`` (real
    dtypes: the adjoint is the transpose); gradients to ``sp_a.values`` and to ``b``."""
    sp, b = _sparse(sp_a, "sparse_tensor_dense_matmul"), _tensor(b)
    result = create_op("sparse_tensor_dense_matmul", sp.indices, sp.values, sp.dense_shape, b,
                       adjoint_a=bool(adjoint_a), adjoint_b=bool(adjoint_b),
                       name=name or "SparseTensorDenseMatMul")
    a_dims = sp.shape.as_list() if sp.shape.ndims == 2 else [None, None]
    b_dims = b.get_shape().as_list() if b.get_shape().ndims == 2 else [None, None]
    return _declared(result, [a_dims[1 if adjoint_a else 0], b_dims[0 if adjoint_b else 1]])


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None,
                      keep_dims=None) -> Symbol:
    """The dense sum of the sparse tensor over ``axis`` (all axes: None), repeated indices
    summed; ``reduction_axes`` / ``keep_dims`` are TF's older names."""
    sp = _sparse(sp_input, "sparse_reduce_sum")
    axis = reduction_axes if axis is None else axis
    keepdims = bool(keep_dims if keepdims is None else keepdims)
    with current_context().name_scope("SparseReduceSum"):
        if axis is None and not keepdims:
            return reduce_sum(sp.values)
        dense = _to_dense(sp, 0, False, True, "dense")
        return reduce_sum(dense, axis=axis, keepdims=keepdims)


def sparse_add(a, b, threshold=None, thresh=None):
    """``a + b``.  A sparse tensor plus a dense one (either order) is the dense tensor with each
    value added at its index (TF's SparseTensorDenseAdd; a repeated index adds twice).  Two
    sparse tensors of one shape give a sparse tensor: their entries merged in row-major order,
    values at a common index summed, and such a sum dropped when its magnitude is below
    ``threshold`` (TF's SparseAdd, which merges inputs already in that order)."""
    sparse = (SparseTensor, SparseTensorValue)
    if isinstance(a, sparse) and isinstance(b, sparse):
        bound = threshold if threshold is not None else thresh
        return _sparse_sum(_sparse(a, "sparse_add"), _sparse(b, "sparse_add"), bound or 0)
    sp, dense = (a, b) if isinstance(a, sparse) else (b, a)
    sp, dense = _sparse(sp, "sparse_add"), _tensor(dense)
    return tensor_scatter_nd_add(dense, sp.indices, sp.values, name="SparseTensorDenseAdd")


def _sparse_sum(a, b, threshold) -> SparseTensor:
    """Both sparse tensors' entries, sorted by their row-major position, summed per position."""
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError(f"Shapes {a.shape} and {b.shape} are incompatible")
    with current_context().name_scope("SparseAdd"):
        strides = cumprod(a.dense_shape, exclusive=True, reverse=True)
        keys = reduce_sum(concat([a.indices, b.indices], 0) * strides, axis=1)
        order = argsort(keys, stable=True)
        positions, segments, counts = unique_with_counts(gather_dense(keys, order), out_idx=int64)
        sums = segment_sum(gather_dense(concat([a.values, b.values], 0), order), segments)
        # each position's coordinates: (position // stride) % size, per axis
        indices = floormod(floordiv(expand_dims(positions, 1), strides), a.dense_shape)
        if threshold:  # TF drops a sum of two entries below it; a lone entry stays
            keep = logical_or(equal(counts, 1), greater_equal(absolute(sums), threshold))
            indices, sums = boolean_mask(indices, keep), boolean_mask(sums, keep)
        return SparseTensor(indices, sums, a.dense_shape)


def sparse_softmax(sp_input, name=None) -> SparseTensor:
    """The softmax of each run of entries sharing every index but the last (TF 1.15's
    ``tf.sparse.softmax``: missing entries count as -inf, not 0); indices and shape kept.

    As TF's, the indices must be in row-major order (:func:`sparse_reorder`)."""
    sp = _sparse(sp_input, "sparse_softmax")
    if sp.shape.ndims is not None and sp.shape.ndims < 2:
        raise ValueError(f"sparse_softmax: the sparse tensor must have rank >= 2, got shape "
                         f"{sp.shape}")
    with current_context().name_scope(name or "SparseSoftmax"):
        leading = sp.dense_shape[:-1]
        rows = reduce_sum(sp.indices[:, :-1] * cumprod(leading, exclusive=True, reverse=True),
                          axis=1)
        _, runs, _ = unique_with_counts(rows, out_idx=int64)  # sorted rows: 0, 0, 1, 2, 2...
        shifted = exp(sp.values - gather_dense(segment_max(sp.values, runs), runs))
        values = shifted / gather_dense(segment_sum(shifted, runs), runs)
        values.set_shape(sp.values.get_shape())
        return SparseTensor(sp.indices, values, sp.dense_shape)


# -- reorder, retain, from_dense ----------------------------------------------------------------
def sparse_reorder(sp_input, name=None) -> SparseTensor:
    """The same sparse tensor with its indices in row-major order (values moved with them)."""
    sp = _sparse(sp_input, "sparse_reorder")
    with current_context().name_scope(name or "SparseReorder"):
        strides = cumprod(sp.dense_shape, exclusive=True, reverse=True)
        order = argsort(reduce_sum(sp.indices * strides, axis=1), stable=True)
        return SparseTensor(gather_dense(sp.indices, order), gather_dense(sp.values, order),
                            sp.dense_shape)


def sparse_reshape(sp_input, shape, name=None) -> SparseTensor:
    """The sparse tensor with dense shape ``shape`` (one ``-1`` at most: the size that keeps
    the number of dense values), each entry at its row-major position's new coordinates.  A
    shape of another number of dense values is a ValueError when both shapes are constants,
    else fails the run (TF's InvalidArgumentError)."""
    sp = _sparse(sp_input, "sparse_reshape")
    wanted, dense = _folded(convert_to_tensor(shape, dtype=int64)), _folded(sp.dense_shape)
    if wanted is not None and list(wanted).count(-1) > 1:
        raise ValueError(f"sparse_reshape: only one output dimension may be -1, got "
                         f"{list(wanted)}")
    with current_context().name_scope(name or "SparseReshape"):
        if wanted is not None and dense is not None:  # TF's shape function: checked now
            total, others = int(np.prod(dense)), int(np.prod([d for d in wanted if d != -1]))
            new_shape = [total // max(others, 1) if d == -1 else int(d) for d in wanted]
            if int(np.prod(new_shape)) != total:
                raise ValueError(f"Cannot reshape a tensor with {total} elements to shape "
                                 f"{list(wanted)} ({int(np.prod(new_shape))} elements)")
            new_shape, fits = convert_to_tensor(new_shape, dtype=int64), []
        else:
            wanted = convert_to_tensor(shape, dtype=int64)
            total = reduce_prod(sp.dense_shape)
            others = maximum(-reduce_prod(wanted), 1)  # with a -1: the product of the others
            new_shape = where(equal(wanted, -1), zeros_like(wanted) + total // others, wanted)
            fits = [Assert(equal(reduce_prod(new_shape), total), [
                "sparse_reshape: a sparse tensor of", sp.dense_shape, "has", total,
                "dense values, but the requested shape", wanted, "has", reduce_prod(new_shape)])]
        with control_dependencies(fits):
            positions = reduce_sum(sp.indices * cumprod(sp.dense_shape, exclusive=True,
                                                        reverse=True), axis=1, keepdims=True)
        strides = cumprod(new_shape, exclusive=True, reverse=True)
        return SparseTensor(floormod(floordiv(positions, strides), new_shape), sp.values,
                            new_shape)


def sparse_transpose(sp_input, perm=None, name=None) -> SparseTensor:
    """The sparse tensor with its axes permuted by ``perm`` (default: reversed), its entries
    in the new row-major order."""
    sp = _sparse(sp_input, "sparse_transpose")
    rank = sp.dense_shape.get_shape()
    if perm is None and (rank.ndims != 1 or rank[0].value is None):
        raise ValueError("sparse_transpose: the rank must be known when perm is not given")
    perm = list(range(rank[0].value))[::-1] if perm is None else perm
    with current_context().name_scope(name or "SparseTranspose"):
        return sparse_reorder(SparseTensor(gather_dense(sp.indices, perm, axis=1), sp.values,
                                           gather_dense(sp.dense_shape, perm)))


def sparse_fill_empty_rows(sp_input, default_value, name=None) -> tuple:
    """``(sparse tensor, empty_row_indicator)``: each row (first index) without an entry gets
    one, ``default_value`` at column 0 (all later coordinates 0), entries in row-major order;
    the bool vector says which rows were empty."""
    sp = _sparse(sp_input, "sparse_fill_empty_rows")
    rank = sp.dense_shape.get_shape()
    if rank.ndims != 1 or rank[0].value is None:
        raise ValueError("sparse_fill_empty_rows: the rank of the sparse tensor must be known")
    with current_context().name_scope(name or "SparseFillEmptyRows"):
        rows = sp.indices[:, :1]  # each entry's row: how many entries each row holds
        counts = _to_dense(SparseTensor(rows, ones_like(sp.indices[:, 0]), sp.dense_shape[:1]),
                           0, False, True, "counts")
        empty = equal(counts, 0)
        empty_rows = where(empty)  # [M, 1]
        filler = concat([empty_rows] + [empty_rows * 0] * (rank[0].value - 1), axis=1)
        default = cast(zeros_like(empty_rows[:, 0]), sp.dtype) + convert_to_tensor(
            default_value, dtype=sp.dtype)
        filled = SparseTensor(concat([sp.indices, filler], 0), concat([sp.values, default], 0),
                              sp.dense_shape)
        return sparse_reorder(filled), empty


def sparse_retain(sp_input, to_retain) -> SparseTensor:
    """The entries of the sparse tensor where the bool vector ``to_retain`` is true."""
    sp, keep = _sparse(sp_input, "sparse_retain"), _tensor(to_retain)
    n, k = sp.values.get_shape(), keep.get_shape()
    if k.ndims != 1 or None not in (n[0].value, k[0].value) and n[0].value != k[0].value:
        raise ValueError(f"sparse_retain: to_retain must be a vector of the {n[0].value} "
                         f"values' length, got shape {k}")
    with current_context().name_scope("SparseRetain"):
        return SparseTensor(boolean_mask(sp.indices, keep), boolean_mask(sp.values, keep),
                            sp.dense_shape)


def from_dense(tensor, name=None) -> SparseTensor:
    """The sparse tensor of ``tensor``'s nonzero elements, in row-major order."""
    tensor = _tensor(tensor)
    with current_context().name_scope(name or "dense_to_sparse"):
        indices = where(not_equal(tensor, zeros_like(tensor)))
        return SparseTensor(indices, gather_nd(tensor, indices),
                            shape_of(tensor, out_type=int64))


# -- segments over gathered rows ---------------------------------------------------------------
def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None) -> Symbol:
    """``segment_sum(gather(data, indices), segment_ids)`` (unsorted with num_segments)."""
    rows = gather_dense(_tensor(data), indices)
    if num_segments is not None:
        return unsorted_segment_sum(rows, segment_ids, num_segments, name=name)
    return segment_sum(rows, segment_ids, name=name)


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None) -> Symbol:
    """The mean of the gathered rows per segment (0 for an empty one)."""
    if num_segments is not None:
        raise ValueError("sparse_segment_mean: num_segments is not supported by TinyFlow")
    return segment_mean(gather_dense(_tensor(data), indices), segment_ids, name=name)


def segment_sqrt_n(rows, ids) -> Symbol:
    """The sum of ``rows`` per sorted segment id over the square root of the segment's count
    (TF's SparseSegmentSqrtN after its gather; an empty segment 0, as TF's kernel)."""
    rank = rows.get_shape().ndims
    if rank is None:
        raise ValueError("sparse_segment_sqrt_n: data's rank must be known")
    counts = segment_sum(ones_like(ids, dtype=rows.dtype), ids)
    for _ in range(rank - 1):  # [segments, 1...]: broadcast over each row
        counts = expand_dims(counts, -1)
    return segment_sum(rows, ids) / sqrt(maximum(counts, ones_like(counts)))


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None) -> Symbol:
    """The sum of the gathered rows per segment over the square root of their count."""
    if num_segments is not None:
        raise ValueError("sparse_segment_sqrt_n: num_segments is not supported by TinyFlow")
    return segment_sqrt_n(gather_dense(_tensor(data), indices), _tensor(segment_ids))
