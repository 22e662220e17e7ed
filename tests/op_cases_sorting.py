"""test_ops' table for the sorting and counting ops (tinyflow/ops/sorting.py): sort's values and
indices against torch's stable sort (ties included), its gradient and _sort_backward's both
ways against torch autograd and finite differences; unique, setdiff1d and bincount (sized as
they run; a gradient for bincount's weights only) against numpy and torch.  TF's facts
checked with real TF are in tests/test_sort_ops.py."""
import numpy as np
import torch

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op

F64 = torch.float64


def _sort_ref(axis, descending):
    def ref(x):
        values, indices = torch.sort(x, dim=axis, descending=descending, stable=True)
        return values, indices.to(F64)
    return ref


def _permutations(shape, axis, rng):
    """Indices along ``axis`` that are a permutation in every line (as sort gives)."""
    moved = np.moveaxis(np.zeros(shape), axis, -1)
    lines = [rng.permutation(moved.shape[-1]) for _ in range(int(np.prod(moved.shape[:-1])))]
    return np.moveaxis(np.reshape(lines, moved.shape), -1, axis).astype(np.float64)


def _unique_ref(x):
    values = x.numpy()
    distinct = list(dict.fromkeys(values.tolist()))  # first occurrences, in order
    idx = [distinct.index(v) for v in values.tolist()]
    counts = [values.tolist().count(v) for v in distinct]
    return tuple(torch.tensor(v, dtype=F64) for v in (distinct, idx, counts))


def _setdiff_ref(x, y):
    keep = ~np.isin(x.numpy(), y.numpy())
    return torch.tensor(x.numpy()[keep]), torch.tensor(np.nonzero(keep)[0], dtype=F64)


def _bincount_ref(minlength, maxlength, weighted):
    def ref(arr, *weights):
        flat = arr.to(torch.int64).reshape(-1)
        size = max(int(flat.max()) + 1 if flat.numel() else 0, minlength or 0)
        size = min(size, maxlength) if maxlength is not None else size
        kept = (flat >= 0) & (flat < size)
        counts = torch.zeros(size, dtype=F64)
        values = weights[0].reshape(-1)[kept] if weighted else torch.ones(int(kept.sum()), dtype=F64)
        return counts.index_add(0, flat[kept], values)
    return ref


def add_cases(add):
    """sort along each axis both ways, with ties; _sort_backward scattering and gathering;
    unique with repeats, none and one element; setdiff1d with repeats and nothing left;
    bincount with minlength, maxlength (values left out), weights and 2-D arr."""
    ties = lambda rng: [rng.integers(0, 3, (3, 5)).astype(float)]
    for axis, shape in ((-1, (3, 5)), (0, (3, 5)), (1, (2, 4, 3))):
        for descending in (False, True):
            label = f"axis={axis}-{shape}-descending={descending}"
            add("sort", label, lambda x, a=axis, d=descending: create_op(
                "sort", x, axis=a, descending=d)[0], [shape],
                lambda x, a=axis, d=descending: _sort_ref(a, d)(x)[0])
            add("sort", label + "-indices", lambda x, a=axis, d=descending: create_op(
                "sort", x, axis=a, descending=d), [shape], _sort_ref(axis, descending),
                check_gradient=False)  # an int output: its gradient is the case above's
    for descending in (False, True):
        add("sort", f"ties-descending={descending}", lambda x, d=descending: create_op(
            "sort", x, axis=-1, descending=d), ref=_sort_ref(-1, descending), inputs=ties,
            check_gradient=False)
    for axis, shape in ((-1, (3, 4)), (0, (3, 4))):
        for gather in (False, True):
            def ref(g, i, a=axis, gather=gather):
                index = i.to(torch.int64)
                if gather:
                    return torch.gather(g, a, index)
                return torch.zeros_like(g).scatter(a, index, g)
            add("_sort_backward", f"axis={axis}-gather={gather}",
                lambda g, i, a=axis, t=gather: create_op(
                    "_sort_backward", g, tf.cast(i, tf.int32), axis=a, gather=t), ref=ref,
                inputs=lambda rng, s=shape, a=axis: [rng.standard_normal(s),
                                                     _permutations(s, a, rng)], wrt=(0,))
    for label, values in (("repeats", [4, 2, 4, 7, 2, 2, 0.5]), ("distinct", [3, 1, 2]),
                          ("one", [5])):
        add("unique", label, lambda x: create_op("unique", x, out_idx="int32"), ref=_unique_ref,
            inputs=lambda rng, v=values: [v], check_gradient=False)
    for label, (x, y) in (("repeats", ([1, 2, 3, 4, 3, 6], [1, 3, 5])),
                          ("nothing-left", ([1, 1], [1, 2]))):
        add("setdiff1d", label, lambda a, b: create_op("setdiff1d", a, b, index_dtype="int32"),
            ref=_setdiff_ref, inputs=lambda rng, x=x, y=y: [x, y], check_gradient=False)
    for label, (minlength, maxlength) in (("plain", (None, None)), ("minlength", (9, None)),
                                          ("maxlength", (None, 3))):
        add("bincount", label, lambda a, lo=minlength, hi=maxlength: create_op(
            "bincount", tf.cast(a, tf.int32), minlength=lo, maxlength=hi, dtype="float32"),
            ref=_bincount_ref(minlength, maxlength, False), check_gradient=False,
            inputs=lambda rng: [rng.integers(0, 6, (2, 5)).astype(float)])
    add("bincount", "weights", lambda a, w: create_op(
        "bincount", tf.cast(a, tf.int32), w, weighted=True, minlength=None, maxlength=None),
        ref=_bincount_ref(None, None, True), wrt=(1,),  # the weights' gradient, TF 1.15's
        inputs=lambda rng: [rng.integers(0, 6, 7).astype(float), rng.standard_normal(7)])
