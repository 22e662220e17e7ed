"""test_ops' table for the sparse ops (tinyflow/ops/sparse.py): sparse_to_dense,
sparse_tensor_dense_matmul and edit_distance (against the textbook Levenshtein table) against
torch references (the dense matrix written with
``index_put_``, the product with ``torch.sparse.mm`` on float64 and autograd through it),
memory planning on and off, gradients to the values, the default value and the dense operand
against finite differences.  The indices are float placeholders cast to int64 here; TF's
numbers and the errors are in tests/test_sparse.py."""
import numpy as np
import torch

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op

F64 = torch.float64
INDICES = [[0, 0], [0, 3], [1, 1], [2, 0], [2, 2]]  # row-major, distinct
UNORDERED = [[2, 2], [0, 3], [1, 1], [2, 2], [0, 0]]  # [2, 2] twice


def _dense_ref(shape, accumulate):
    def ref(indices, dims, values, default):
        dense = torch.full(shape, 0.0, dtype=F64) + default
        index = tuple(indices.to(torch.int64).t())
        if accumulate:  # repeats sum, over the default
            return dense.index_put(index, values, accumulate=True)
        return dense.index_put(index, values)
    return ref


def _to_dense_case(add, label, indices, shape, validate, accumulate):
    add("sparse_to_dense", label,
        lambda i, s, v, d: create_op("sparse_to_dense", tf.cast(i, tf.int64), tf.cast(s, tf.int64),
                                     v, d, validate_indices=validate, accumulate=accumulate),
        ref=_dense_ref(shape, accumulate),
        inputs=lambda rng: [np.asarray(indices, float), np.asarray(shape, float),
                            rng.standard_normal(len(indices)), rng.standard_normal(())],
        wrt=(2, 3))


def _matmul_ref(shape, adjoint_a, adjoint_b):
    def ref(indices, values, dims, b):
        a = torch.sparse_coo_tensor(indices.to(torch.int64).t(), values, shape,
                                    check_invariants=True).coalesce()
        a = a.t() if adjoint_a else a
        return torch.sparse.mm(a, b.t() if adjoint_b else b)
    return ref


def add_cases(add):
    """sparse_to_dense: ordered indices validated, repeats summed, a 1-D and a 3-D tensor;
    sparse_tensor_dense_matmul with each adjoint, repeated indices summing; edit_distance of
    rows present on one side or both, normalized or not."""
    _to_dense_case(add, "validated", INDICES, (3, 4), True, False)
    _to_dense_case(add, "accumulate", UNORDERED, (3, 4), False, True)
    _to_dense_case(add, "vector", [[4], [1]], (6,), False, False)
    _to_dense_case(add, "3d", [[0, 1, 2], [1, 0, 1], [1, 2, 0]], (2, 3, 3), True, False)
    for adjoint_a in (False, True):
        for adjoint_b in (False, True):
            inner = 3 if adjoint_a else 4
            b_shape = (2, inner) if adjoint_b else (inner, 2)
            add("sparse_tensor_dense_matmul", f"adjoint_a={adjoint_a}-adjoint_b={adjoint_b}",
                lambda i, v, s, b, aa=adjoint_a, ab=adjoint_b: create_op(
                    "sparse_tensor_dense_matmul", tf.cast(i, tf.int64), v, tf.cast(s, tf.int64),
                    b, adjoint_a=aa, adjoint_b=ab),
                ref=_matmul_ref((3, 4), adjoint_a, adjoint_b),
                inputs=lambda rng, bs=b_shape: [np.asarray(INDICES, float),
                                                rng.standard_normal(len(INDICES)),
                                                np.asarray([3, 4], float),
                                                rng.standard_normal(bs)],
                wrt=(1, 3))
    add("sparse_tensor_dense_matmul", "repeated-indices",
        lambda i, v, s, b: create_op("sparse_tensor_dense_matmul", tf.cast(i, tf.int64), v,
                                     tf.cast(s, tf.int64), b),
        ref=_matmul_ref((3, 4), False, False),
        inputs=lambda rng: [np.asarray(UNORDERED, float), rng.standard_normal(len(UNORDERED)),
                            np.asarray([3, 4], float), rng.standard_normal((4, 5))],
        wrt=(1, 3))
    for normalize in (True, False):
        add("edit_distance", f"rows-normalize={normalize}",
            lambda hi, hv, hs, ti, tv, ts, n=normalize: create_op(
                "edit_distance", tf.cast(hi, tf.int64), hv, tf.cast(hs, tf.int64),
                tf.cast(ti, tf.int64), tv, tf.cast(ts, tf.int64), normalize=n),
            ref=_edit_distance_ref(normalize),
            inputs=lambda rng: [np.asarray(HYPOTHESIS, float), rng.integers(0, 2, 6),
                                np.asarray([4, 3], float), np.asarray(TRUTH, float),
                                rng.integers(0, 2, 6), np.asarray([3, 3], float)],
            wrt=(), check_gradient=False)


# edit_distance's rows: row 0 and 1 on both sides, row 2 truth only, row 3 hypothesis only
HYPOTHESIS = [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [3, 0]]
TRUTH = [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 0]]


def _levenshtein(a, b):
    row = list(range(len(b) + 1))  # the textbook table, one row at a time
    for i, x in enumerate(a, 1):
        previous, row = row, [i]
        for j, y in enumerate(b, 1):
            row.append(min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (x != y)))
    return row[-1]


def _edit_distance_ref(normalize):
    def ref(hi, hv, hs, ti, tv, ts):
        rows = max(int(hs[0]), int(ts[0]))
        out = torch.zeros(rows, dtype=F64)
        for r in range(rows):
            hyp = hv[hi[:, 0] == r].tolist()
            truth = tv[ti[:, 0] == r].tolist()
            distance = _levenshtein(truth, hyp)
            out[r] = (distance / len(truth) if truth else float("inf") if hyp else 0.0) \
                if normalize else distance
        return out
    return ref
