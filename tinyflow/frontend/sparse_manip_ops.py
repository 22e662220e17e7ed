"""TF 1.15's ``tf.sparse`` names beyond :mod:`tinyflow.frontend.sparse_ops`: ``concat``,
``split``, ``slice``, ``expand_dims``, ``eye``, ``reset_shape``, ``to_indicator``, the
reductions ``reduce_sum_sparse``, ``reduce_max`` and ``reduce_max_sparse``, the elementwise
``maximum`` and ``minimum`` of two sparse tensors, and ``mask`` (of a ``tf.IndexedSlices``).

Each is composed of gathers, masks, sorts and segment reductions as TensorFlow's kernels
compute them: entries keep their order where TF's keep it (slice, split) and are put in
row-major order where TF's are (concat, the reductions, maximum / minimum); a group of entries
is found by sorting the row-major positions (``unique_with_counts``), as ``sparse_add`` does.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..nnvm.symbol import Symbol, current_context
from .api import (
    cast,
    control_dependencies,
    equal,
    floordiv,
    floormod,
    greater_equal,
    less,
    logical_and,
    maximum,
    minimum,
    reduce_all,
    reduce_max,
    reduce_sum,
    where,
)
from .array_ops import (
    _folded,
    _tensor,
    boolean_mask,
    concat,
    expand_dims,
    fill,
    gather_dense,
    ones_like,
    stack,
    zeros_like,
)
from .array_ops import shape as shape_of
from .control_flow_ops import Assert
from .dtypes import as_dtype, float32, int64
from .indexed_slices import IndexedSlices
from .math_ops import convert_to_tensor, cumprod, cumsum
from .segment_ops import segment_max, segment_sum
from .sort_ops import argsort, setdiff1d, unique_with_counts
from .sparse_ops import SparseTensor, _sparse, _to_dense, sparse_reorder

# TF 1.15's top-level names (tf.sparse_concat...); tf.sparse.expand_dims and tf.sparse.eye
# have none, so sparse_expand_dims and sparse_eye are tf.sparse's alone (tf_sparse.py)
__all__ = ["sparse_concat", "sparse_mask", "sparse_maximum", "sparse_minimum",
           "sparse_reduce_max", "sparse_reduce_max_sparse", "sparse_reduce_sum_sparse",
           "sparse_reset_shape", "sparse_slice", "sparse_split", "sparse_to_indicator"]


def _rank(sp, what) -> int:
    rank = sp.dense_shape.get_shape()
    if rank.ndims != 1 or rank[0].value is None:
        raise ValueError(f"{what}: the rank of the sparse tensor must be known")
    return rank[0].value


def _axis(axis, rank, what, extra=0) -> int:
    if not isinstance(axis, numbers.Integral):
        raise TypeError(f"{what}: axis must be an integer, got {axis!r}")
    if not -rank - extra <= axis < rank + extra:
        raise ValueError(f"{what}: axis {axis} is out of range for a sparse tensor of rank "
                         f"{rank}")
    return int(axis) % (rank + extra)


def _column(rank, axis, value):
    """An int64 vector of ``rank`` zeros with ``value`` at ``axis``."""
    return convert_to_tensor(np.eye(rank, dtype=np.int64)[axis]) * value


def _positions(indices, dense_shape):
    """Each entry's row-major position in ``dense_shape``."""
    return reduce_sum(indices * cumprod(dense_shape, exclusive=True, reverse=True), axis=1)


# -- concat, split, slice, expand_dims, eye, reset_shape ----------------------------------------
def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=None) -> SparseTensor:
    """TF 1.15's ``tf.sparse.concat``: the sparse tensors laid end to end along ``axis``,
    entries in row-major order.  The other dims must agree, or with ``expand_nonconcat_dim``
    each is the largest of the inputs'."""
    axis = concat_dim if concat_dim is not None else axis
    expand = expand_nonconcat_dims if expand_nonconcat_dims is not None else expand_nonconcat_dim
    inputs = [_sparse(sp, "sparse_concat") for sp in sp_inputs]
    if not inputs:
        raise ValueError("sparse_concat: sp_inputs must hold at least one sparse tensor")
    rank = _rank(inputs[0], "sparse_concat")
    axis = _axis(axis, rank, "sparse_concat")
    with current_context().name_scope(name or "SparseConcat"):
        checks, offset, indices = [], None, []
        for sp in inputs:
            if _rank(sp, "sparse_concat") != rank:
                raise ValueError(f"sparse_concat: the inputs' ranks differ: {rank} and "
                                 f"{_rank(sp, 'sparse_concat')}")
            shift = sp.indices if offset is None else sp.indices + _column(rank, axis, offset)
            indices.append(shift)
            size = sp.dense_shape[axis]
            offset = size if offset is None else offset + size
        unit = _column(rank, axis, 1)
        others = [sp.dense_shape * (1 - unit) for sp in inputs]
        widest = others[0]
        for other in others[1:]:
            if not expand:
                checks.append(Assert(reduce_all(equal(other, others[0])), [
                    "sparse_concat: the sparse tensors' dims other than axis", axis,
                    "differ:", others[0], "and", other]))
            widest = maximum(widest, other)
        with control_dependencies(checks):
            shape = widest + unit * offset
        joined = SparseTensor(concat(indices, 0), concat([sp.values for sp in inputs], 0), shape)
        return sparse_reorder(joined)


def _slice(sp, start, size) -> SparseTensor:
    """The entries in [start, start + size) (int64 vectors), moved by -start, in their order."""
    inside = reduce_all(logical_and(greater_equal(sp.indices, start),
                                    less(sp.indices, start + size)), axis=1)
    shape = maximum(minimum(start + size, sp.dense_shape) - start, 0)
    return SparseTensor(boolean_mask(sp.indices, inside) - start,
                        boolean_mask(sp.values, inside), shape)


def sparse_slice(sp_input, start, size, name=None) -> SparseTensor:
    """TF 1.15's ``tf.sparse.slice``: the entries in ``[start, start + size)``, their indices
    moved by ``-start``, in their order; the dense shape clipped to the input's."""
    sp = _sparse(sp_input, "sparse_slice")
    with current_context().name_scope(name or "SparseSlice"):
        return _slice(sp, convert_to_tensor(start, dtype=int64),
                      convert_to_tensor(size, dtype=int64))


def sparse_split(*args, sp_input=None, num_split=None, axis=None, name=None,
                 split_dim=None) -> list:
    """TF 1.15's ``tf.sparse.split`` (keyword arguments only): ``num_split`` sparse tensors
    cut along ``axis``, the first ``size % num_split`` one longer than the rest."""
    if args:
        raise ValueError("Keyword arguments are required for this function.")
    sp = _sparse(sp_input, "sparse_split")
    axis = split_dim if axis is None else axis
    if not isinstance(num_split, numbers.Integral) or num_split < 1:
        raise ValueError(f"sparse_split: num_split must be a positive integer, got "
                         f"{num_split!r}")
    rank = _rank(sp, "sparse_split")
    axis = _axis(axis, rank, "sparse_split")
    with current_context().name_scope(name or "SparseSplit"):
        unit, size = _column(rank, axis, 1), sp.dense_shape[axis]
        base, extra = floordiv(size, num_split), floormod(size, num_split)
        pieces = []
        for i in range(num_split):
            begin = base * i + minimum(extra, i)
            length = base + cast(less(convert_to_tensor(i, dtype=int64), extra), int64)
            pieces.append(_slice(sp, unit * begin, sp.dense_shape * (1 - unit) + unit * length))
        return pieces


def sparse_expand_dims(sp_input, axis=None, name=None) -> SparseTensor:
    """TF 1.15's ``tf.sparse.expand_dims``: a dim of size 1 inserted at ``axis`` (-1: last)."""
    sp = _sparse(sp_input, "sparse_expand_dims")
    rank = _rank(sp, "sparse_expand_dims")
    axis = _axis(-1 if axis is None else axis, rank, "sparse_expand_dims", extra=1)
    with current_context().name_scope(name or "ExpandDims"):
        zeros = zeros_like(sp.indices[:, :1])
        indices = concat([sp.indices[:, :axis], zeros, sp.indices[:, axis:]], 1)
        one = convert_to_tensor([1], dtype=int64)
        shape = concat([sp.dense_shape[:axis], one, sp.dense_shape[axis:]], 0)
        return SparseTensor(indices, sp.values, shape)


def sparse_eye(num_rows, num_columns=None, dtype=float32, name=None) -> SparseTensor:
    """TF 1.15's ``tf.sparse.eye``: ones on the diagonal of a [num_rows, num_columns] sparse
    tensor (square by default)."""
    with current_context().name_scope(name or "eye"):
        num_columns = num_rows if num_columns is None else num_columns
        rows, columns = (cast(n, int64) if isinstance(n, Symbol) else convert_to_tensor(
            n, dtype=int64) for n in (num_rows, num_columns))
        if all(isinstance(n, numbers.Integral) for n in (num_rows, num_columns)):
            diagonal = convert_to_tensor(np.arange(min(num_rows, num_columns), dtype=np.int64))
        else:  # 0, 1, ... as long as the shorter side, known when the graph runs
            diagonal = cast(cumsum(fill(expand_dims(minimum(rows, columns), 0), 1),
                                   exclusive=True), int64)
        values = cast(ones_like(diagonal), as_dtype(dtype))
        return SparseTensor(stack([diagonal, diagonal], 1), values, stack([rows, columns]))


def sparse_reset_shape(sp_input, new_shape=None) -> SparseTensor:
    """TF 1.15's ``tf.sparse.reset_shape``: the same entries in a dense shape ``new_shape``
    (each dim at least the input's), or without it the smallest holding every index."""
    sp = _sparse(sp_input, "sparse_reset_shape")
    with current_context().name_scope("SparseResetShape"):
        if new_shape is None:
            # a row of -1s: no entry gives a dim of 0 (TF's reduce_max of none is int64's min)
            floor = expand_dims(zeros_like(sp.dense_shape) - 1, 0)
            bound = reduce_max(concat([sp.indices, floor], 0), axis=0) + 1
            return SparseTensor(sp.indices, sp.values, bound)
        shape = convert_to_tensor(new_shape, dtype=int64)
        rank, new_rank = sp.dense_shape.get_shape(), shape.get_shape()
        if not rank.is_compatible_with(new_rank):
            raise ValueError(f"Dimensions {new_rank[0].value} and {rank[0].value} are not "
                             f"compatible")
        wanted, old = _folded(shape), _folded(sp.dense_shape)
        if wanted is not None and old is not None:
            if (np.asarray(wanted) < np.asarray(old)).any():
                raise ValueError(f"Requested new_shape should have dimension sizes >= "
                                 f"sp_input.shape.  Found new_shape ({np.asarray(wanted)}), "
                                 f"sp_input.shape ({np.asarray(old)}).")
            return SparseTensor(sp.indices, sp.values, shape)
        fits = Assert(reduce_all(greater_equal(shape, sp.dense_shape)), [
            "sparse_reset_shape: new_shape", shape, "must be at least the shape",
            sp.dense_shape])
        with control_dependencies([fits]):
            return SparseTensor(sp.indices, sp.values, shape + 0)


def sparse_to_indicator(sp_input, vocab_size, name=None) -> Symbol:
    """TF 1.15's ``tf.sparse.to_indicator``: bool [..., vocab_size], True at each row's ids
    (the int values of the sparse tensor, one row per index but the last)."""
    sp = _sparse(sp_input, "sparse_to_indicator")
    if not sp.dtype.is_integer:
        raise TypeError(f"sparse_to_indicator: the sparse tensor's values must be int32 or "
                        f"int64 ids, got {sp.dtype.name}")
    with current_context().name_scope(name or "SparseToIndicator"):
        ids = expand_dims(cast(sp.values, int64), 1)
        merged = SparseTensor(concat([sp.indices[:, :-1], ids], 1), ones_like(sp.values),
                              concat([sp.dense_shape[:-1], convert_to_tensor(
                                  [vocab_size], dtype=int64)], 0))
        return greater_equal(_to_dense(merged, 0, False, True, "dense"), 1)


# -- reductions --------------------------------------------------------------------------------
def _reduced(sp, axis, keepdims, segment_reduce, what) -> SparseTensor:
    """The entries reduced over ``axis`` by ``segment_reduce``, one per group of kept
    coordinates present, in row-major order (TF's SparseReduce*Sparse)."""
    rank = _rank(sp, what)
    axes = list(range(rank)) if axis is None else [
        _axis(a, rank, what) for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
    kept = [a for a in range(rank) if a not in axes]
    keep = convert_to_tensor(np.isin(np.arange(rank), kept).astype(np.int64))
    shape = sp.dense_shape * keep + (1 - keep)  # the reduced dims as 1
    keys = _positions(sp.indices * keep, shape)
    order = argsort(keys, stable=True)
    places, groups, _ = unique_with_counts(gather_dense(keys, order), out_idx=int64)
    values = segment_reduce(gather_dense(sp.values, order), groups)
    indices = floormod(floordiv(expand_dims(places, 1), cumprod(shape, exclusive=True,
                                                                reverse=True)), shape)
    if keepdims:
        return SparseTensor(indices, values, shape)
    kept = np.asarray(kept, np.int64)
    return SparseTensor(gather_dense(indices, kept, axis=1), values, gather_dense(shape, kept))


def _keep(keepdims, keep_dims, axis, reduction_axes):
    return (reduction_axes if axis is None else axis,
            bool(keep_dims if keepdims is None else keepdims))


def sparse_reduce_sum_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None,
                             keep_dims=None) -> SparseTensor:
    """TF 1.15's ``tf.sparse.reduce_sum_sparse``: the sums over ``axis`` as a sparse tensor,
    an entry for each group of the kept coordinates present (a zero sum kept, as TF's)."""
    axis, keepdims = _keep(keepdims, keep_dims, axis, reduction_axes)
    sp = _sparse(sp_input, "sparse_reduce_sum_sparse")
    with current_context().name_scope("SparseReduceSumSparse"):
        return _reduced(sp, axis, keepdims, segment_sum, "sparse_reduce_sum_sparse")


def sparse_reduce_max_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None,
                             keep_dims=None) -> SparseTensor:
    """TF 1.15's ``tf.sparse.reduce_max_sparse``: the maxima over ``axis`` of the entries
    present (not the implicit zeros), as a sparse tensor."""
    axis, keepdims = _keep(keepdims, keep_dims, axis, reduction_axes)
    sp = _sparse(sp_input, "sparse_reduce_max_sparse")
    with current_context().name_scope("SparseReduceMaxSparse"):
        return _reduced(sp, axis, keepdims, segment_max, "sparse_reduce_max_sparse")


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None,
                      keep_dims=None) -> Symbol:
    """TF 1.15's ``tf.sparse.reduce_max``: the dense maxima over ``axis`` of the entries
    present (not the implicit zeros); 0 where a group has none, as TF's."""
    axis, keepdims = _keep(keepdims, keep_dims, axis, reduction_axes)
    sp = _sparse(sp_input, "sparse_reduce_max")
    with current_context().name_scope("SparseReduceMax"):
        reduced = _reduced(sp, axis, keepdims, segment_max, "sparse_reduce_max")
        return _to_dense(reduced, 0, False, False, "dense")


# -- maximum, minimum, mask --------------------------------------------------------------------
def _elementwise(a, b, combine, what, name) -> SparseTensor:
    """``combine`` of two sparse tensors of one shape at the union of their indices, a missing
    entry counting as 0, in row-major order (TF's SparseSparseMaximum / Minimum)."""
    a, b = _sparse(a, what), _sparse(b, what)
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError(f"{what}: Operands' shapes do not match: {a.shape} and {b.shape}")
    with current_context().name_scope(name):
        fits = Assert(reduce_all(equal(a.dense_shape, b.dense_shape)), [
            f"{what}: Operands' shapes do not match:", a.dense_shape, "and", b.dense_shape])
        with control_dependencies([fits]):
            keys = _positions(concat([a.indices, b.indices], 0), a.dense_shape)
        order = argsort(keys, stable=True)
        places, groups, _ = unique_with_counts(gather_dense(keys, order), out_idx=int64)
        values = gather_dense(concat([a.values, b.values], 0), order)
        from_a = less(cast(order, int64), shape_of(a.values, out_type=int64)[0])
        zeros = zeros_like(values)
        at_a = segment_sum(where(from_a, values, zeros), groups)
        at_b = segment_sum(where(from_a, zeros, values), groups)
        indices = floormod(floordiv(expand_dims(places, 1), cumprod(
            a.dense_shape, exclusive=True, reverse=True)), a.dense_shape)
        return SparseTensor(indices, combine(at_a, at_b), a.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None) -> SparseTensor:
    """TF 1.15's ``tf.sparse.maximum``: the elementwise maximum of two sparse tensors of one
    shape, at the union of their indices (a missing entry is 0), in row-major order."""
    return _elementwise(sp_a, sp_b, maximum, "sparse_maximum", name or "SparseSparseMaximum")


def sparse_minimum(sp_a, sp_b, name=None) -> SparseTensor:
    """TF 1.15's ``tf.sparse.minimum``: as :func:`sparse_maximum`, the minimum."""
    return _elementwise(sp_a, sp_b, minimum, "sparse_minimum", name or "SparseSparseMinimum")


def sparse_mask(a, mask_indices, name=None) -> IndexedSlices:
    """TF 1.15's ``tf.sparse.mask``: the slices of the ``tf.IndexedSlices`` ``a`` whose index
    is not in ``mask_indices``, in their order."""
    if not isinstance(a, IndexedSlices):
        raise TypeError(f"sparse_mask: a must be a tf.IndexedSlices, got {type(a).__name__}")
    with current_context().name_scope(name or "sparse_mask"):
        kept, positions = setdiff1d(a.indices, _tensor(mask_indices))
        return IndexedSlices(gather_dense(a.values, positions), kept, a.dense_shape)
