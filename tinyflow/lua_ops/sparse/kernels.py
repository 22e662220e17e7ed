"""Kernels of the sparse bodies (tinyflow/ops/sparse.py): the dense shape and every index are
read on the host and checked (TensorFlow's InvalidArgumentError text), and the output's bytes
go through ``check_fits`` before it is allocated, so a hostile sparse tensor is an error naming
the node, never memory outside a tensor nor an allocation past the device."""
from __future__ import annotations

import math

import numpy as np
import torch

from ...nnvm.errors import InvalidArgumentError

__all__ = ["edit_distance", "matmul", "set_operation", "set_size", "to_dense"]


def _invalid(message):
    return InvalidArgumentError(None, None, message)


def _dims(shape, rank, what) -> list:
    """The dense shape's value as ints: ``rank`` of them, none negative."""
    dims = [int(d) for d in shape.reshape(-1).tolist()]
    if len(dims) != rank:
        raise _invalid(f"{what} has incorrect number of elements: {len(dims)} should be: {rank}")
    if any(d < 0 for d in dims):
        raise _invalid(f"{what} must not hold a negative dimension, got {dims}")
    if math.prod(d for d in dims if d) >= 2 ** 63:  # TF's TensorShape refuses it too
        raise _invalid(f"{what} {dims} would have more than 2**63 - 1 elements")
    return dims


def _coordinates(indices, dims) -> torch.Tensor:
    """indices as int64 [N, rank], each row checked to lie inside ``dims``."""
    coords = indices.to(device="cpu", dtype=torch.int64).reshape(indices.shape[0], len(dims))
    bad = ((coords < 0) | (coords >= torch.tensor(dims, dtype=torch.int64))).any(1)
    if bool(bad.any()):
        row = int(bad.nonzero()[0, 0])
        raise _invalid(f"indices[{row}] = [{','.join(map(str, coords[row].tolist()))}] is out "
                       f"of bounds: need 0 <= index < [{','.join(map(str, dims))}]")
    return coords


def _check_order(coords, flat) -> None:
    """TF's IndicesValid: the rows in row-major order, none repeated."""
    step = flat[1:] - flat[:-1]
    bad = (step <= 0).nonzero()
    if bad.numel():
        row = int(bad[0, 0]) + 1
        shown = ",".join(map(str, coords[row].tolist()))
        if int(step[row - 1]) == 0:
            raise _invalid(f"indices[{row}] = [{shown}] is repeated")
        raise _invalid(f"indices[{row}] = [{shown}] is out of order. Many sparse ops require "
                       f"sorted indices. Use `tf.sparse.reorder` to create a correctly ordered "
                       f"copy.")


def to_dense(res, indices, shape, values, default, validate, accumulate, check_fits) -> None:
    """res (resized) = default, with values written at indices (repeats: the last wins, or
    they sum with accumulate); validate: indices must be ordered and distinct."""
    dims = _dims(shape, indices.shape[1], "output_shape")
    count = math.prod(dims)
    check_fits(count * values.element_size(), tuple(dims))
    coords = _coordinates(indices, dims)
    if count == 0:  # no element, and (checked above) no index
        res.set_(torch.empty(dims, dtype=values.dtype, device=values.device))
        return
    strides = [math.prod(dims[j + 1:]) for j in range(len(dims))]
    flat = coords @ torch.tensor(strides, dtype=torch.int64) if len(dims) else coords.sum(1)
    if (validate is None or bool(validate)) and not bool(accumulate):
        _check_order(coords, flat)
    dense = torch.full((count,), 0, dtype=values.dtype, device=values.device)
    dense.fill_(default.reshape(()))
    flat, source = flat.to(values.device), values.reshape(-1)
    if bool(accumulate):
        dense.index_add_(0, flat, source)
    elif flat.numel():  # the last of repeated indices wins (TF's ToDense loop)
        written, slot = torch.unique(flat, return_inverse=True)
        order = torch.arange(flat.numel(), device=flat.device)
        last = torch.zeros_like(written).scatter_reduce_(0, slot, order, "amax",
                                                         include_self=False)
        dense[written] = source[last]
    res.set_(dense.view(dims))


def matmul(res, indices, values, shape, b, adjoint_a, adjoint_b, check_fits) -> None:
    """res (resized) = op(a) @ op(b), a the sparse matrix (indices, values, shape)."""
    dims = _dims(shape, 2, "a's dense shape")
    dense = b.t() if bool(adjoint_b) else b
    lhs, rhs = (1, 0) if bool(adjoint_a) else (0, 1)
    rows, inner = dims[lhs], dims[rhs]
    if inner != dense.shape[0]:
        raise _invalid(f"Cannot multiply A and B because inner dimension does not match: "
                       f"{inner} vs. {dense.shape[0]}.  Did you forget a transpose?  "
                       f"Dimensions of A: [{dims[0]}, {dims[1]}).  Dimensions of B: "
                       f"[{b.shape[0]},{b.shape[1]}]")
    count = values.numel()
    check_fits((rows + count) * dense.shape[1] * b.element_size(), (rows, dense.shape[1]))
    coords = indices.to(device="cpu", dtype=torch.int64)
    for column, limit, letter in ((rhs, inner, "k"), (lhs, rows, "m")):  # TF checks k first
        bad = ((coords[:, column] < 0) | (coords[:, column] >= limit)).nonzero()
        if bad.numel():
            at = int(bad[0, 0])
            raise _invalid(f"{letter} ({int(coords[at, column])}) from index[{at},{column}] "
                           f"out of bounds (>={limit})")
    out = torch.zeros((rows, dense.shape[1]), dtype=b.dtype, device=b.device)
    products = dense.index_select(0, coords[:, rhs].to(b.device)) * values.reshape(-1, 1)
    out.index_add_(0, coords[:, lhs].to(b.device), products)
    res.set_(out)


def _sequences(sparse, rank, what) -> tuple:
    """A sparse operand (a Lua array: indices, values, dense shape) as its dense shape and its
    sequences: ``(leading coordinates, values)`` of each run of consecutive entries sharing
    their leading coordinates (TF's SparseTensor::group: the indices taken as ordered)."""
    indices, values, shape = sparse[1], sparse[2], sparse[3]
    dims = _dims(shape, rank, f"{what}_shape")
    if indices.dim() != 2 or indices.shape[1] != rank or values.shape != indices.shape[:1]:
        raise _invalid(f"{what}: expected indices [N, {rank}] and values [N], got shapes "
                       f"{list(indices.shape)} and {list(values.shape)}")
    keys = [tuple(row[:-1]) for row in _coordinates(indices, dims).tolist()]
    values, runs, start = values.cpu().numpy(), [], 0
    for end in range(1, len(keys) + 1):
        if end == len(keys) or keys[end] != keys[start]:
            runs.append((keys[start], values[start:end]))
            start = end
    return dims, runs


def _levenshtein(truth, hypothesis) -> int:
    """The edit distance, a row of the table at a time: a row's insertions are a running
    minimum, ``d[j] = j + min over k <= j of (best[k] - k)``."""
    if not len(truth) or not len(hypothesis):
        return max(len(truth), len(hypothesis))
    positions = np.arange(len(hypothesis) + 1)
    row = positions.copy()
    for i, item in enumerate(truth, 1):
        best = np.empty_like(row)
        best[0] = i
        best[1:] = np.minimum(row[1:] + 1, row[:-1] + (hypothesis != item))
        row = np.minimum.accumulate(best - positions) + positions
    return int(row[-1])


def edit_distance(res, hypothesis, truth, normalize, check_fits) -> None:
    """res (resized) = TF's EditDistance: float32 of the larger dense shape's leading dims, at
    each sequence's coordinates its distance (normalize: over the truth's length; an empty
    truth gives inf, or 0 against an empty hypothesis; an empty hypothesis 1), 0 elsewhere."""
    rank = truth[3].numel()
    if rank < 2:
        raise _invalid(f"Input SparseTensors must have rank at least 2, but truth_shape rank "
                       f"is: {rank}")
    if hypothesis[3].numel() != rank:
        raise _invalid(f"Number of elements of hypothesis_shape and truth_shape do not match: "
                       f"{hypothesis[3].numel()} vs. {rank}")
    h_dims, h_runs = _sequences(hypothesis, rank, "hypothesis")
    t_dims, t_runs = _sequences(truth, rank, "truth")
    dims = [max(h, t) for h, t in zip(h_dims[:-1], t_dims[:-1])]
    check_fits(math.prod(dims) * 4, tuple(dims))
    out, h, t = np.zeros(dims, np.float32), 0, 0
    while h < len(h_runs) or t < len(t_runs):  # TF's merge of the two ordered group lists
        if t == len(t_runs) or (h < len(h_runs) and h_runs[h][0] < t_runs[t][0]):
            size = len(h_runs[h][1])  # no truth there
            out[h_runs[h][0]] = math.inf if bool(normalize) and size else size
            h += 1
        elif h == len(h_runs) or t_runs[t][0] < h_runs[h][0]:  # no hypothesis there
            out[t_runs[t][0]] = 1.0 if bool(normalize) else len(t_runs[t][1])
            t += 1
        else:
            distance = _levenshtein(t_runs[t][1], h_runs[h][1])
            out[t_runs[t][0]] = distance / len(t_runs[t][1]) if bool(normalize) else distance
            h, t = h + 1, t + 1
    res.set_(torch.from_numpy(out).to(truth[2].device))


def _set_rows(parts, what) -> tuple:
    """``(leading dims, {flat row: its values as numpy})`` of a set operand: a dense tensor
    (rank >= 2, every row) or a sparse one's three parts (rows present only; its indices
    checked against the dense shape and for TF's row-major order)."""
    if len(parts) == 1:
        dense = parts[1].detach().cpu().numpy()
        if dense.ndim < 2:
            raise _invalid(f"{what} must have rank at least 2, got shape {list(dense.shape)}")
        rows = dense.reshape(-1, dense.shape[-1]) if dense.size else np.zeros(
            (math.prod(dense.shape[:-1]), 0), dense.dtype)
        return list(dense.shape[:-1]), dict(enumerate(rows))
    indices, values, shape = parts[1], parts[2], parts[3]
    dims = _dims(shape, indices.shape[1], f"{what}'s dense shape")
    if len(dims) < 2:
        raise _invalid(f"{what} must have rank at least 2, got dense shape {dims}")
    coords = _coordinates(indices, dims)
    strides = torch.tensor([math.prod(dims[j + 1:]) for j in range(len(dims))])
    _check_order(coords, coords @ strides)
    row_ids = (coords[:, :-1] @ strides[:-1] // dims[-1]).numpy() if len(coords) else \
        np.zeros(0, np.int64)
    flat_values = values.detach().cpu().numpy().reshape(-1)
    starts = np.flatnonzero(np.r_[True, row_ids[1:] != row_ids[:-1]]) if len(row_ids) else []
    groups = np.split(flat_values, starts[1:]) if len(row_ids) else []
    return dims[:-1], {int(row_ids[i]): g for i, g in zip(starts, groups)}


_SET_OPERATIONS = {"intersection": lambda a, b: np.intersect1d(a, b),
                   "union": lambda a, b: np.union1d(a, b),
                   "a-b": lambda a, b: np.setdiff1d(a, b), "b-a": lambda a, b: np.setdiff1d(b, a)}


def set_operation(indices_out, values_out, shape_out, a, b, operation, check_fits) -> None:
    """TF's set operations: per leading coordinate of a and b (which must agree), the sorted
    result of ``operation`` on the distinct values of their last dims, as a sparse tensor
    (indices_out, values_out, shape_out resized: its last dim the longest result)."""
    (a_dims, a_rows), (b_dims, b_rows) = _set_rows(a, "a"), _set_rows(b, "b")
    if a_dims != b_dims:
        raise _invalid(f"set operation: the leading dims of a {a_dims} and b {b_dims} must "
                       f"match")
    dtype = values_out.dtype
    empty = np.zeros(0, a_rows[next(iter(a_rows))].dtype if a_rows else
                     torch.empty(0, dtype=dtype).numpy().dtype)
    results = {}
    for row in sorted(set(a_rows) | set(b_rows)):
        found = _SET_OPERATIONS[str(operation)](a_rows.get(row, empty), b_rows.get(row, empty))
        if found.size:
            results[row] = found
    counts = np.array([len(v) for v in results.values()], np.int64)
    total, rank = int(counts.sum()), len(a_dims) + 1
    check_fits(total * (rank * 8 + values_out.element_size()), (total, rank))
    rows = np.repeat(np.array(list(results), np.int64), counts)
    positions = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    coords = np.stack([*np.unravel_index(rows, a_dims), positions], 1) if total else \
        np.zeros((0, rank), np.int64)
    values = np.concatenate(list(results.values())) if total else np.zeros(0)
    device = values_out.device
    indices_out.set_(torch.as_tensor(coords, dtype=torch.int64, device=device).contiguous())
    values_out.set_(torch.as_tensor(values, device=device).to(dtype).contiguous())
    shape_out.set_(torch.tensor(a_dims + [int(counts.max()) if total else 0],
                                dtype=torch.int64, device=device))


def set_size(res, parts, check_fits) -> None:
    """res (resized) = TF's SetSize: int32 of the sparse tensor's leading dims, at each the
    number of distinct values its last dim holds there."""
    dims, rows = _set_rows(parts, "set_size's input")
    check_fits(math.prod(dims) * 4, tuple(dims))
    sizes = np.zeros(math.prod(dims), np.int32)
    for row, values in rows.items():
        sizes[row] = np.unique(values).size
    res.set_(torch.as_tensor(sizes.reshape(dims), device=res.device))
