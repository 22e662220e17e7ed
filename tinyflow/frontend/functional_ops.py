"""``tf.map_fn``, ``tf.scan``, ``tf.foldl`` and ``tf.foldr`` (TensorFlow 1.15's signatures),
each one ``tf.while_loop`` over the first axis of ``elems``: the elements read from
TensorArrays unstacking them, results written into TensorArrays and stacked, as TensorFlow's
own functional_ops build them.  Gradients flow through the loop and the arrays."""
from __future__ import annotations

from ..nnvm.symbol import GraphContext
from .api import _tensor, constant, placeholder
from .array_ops import shape
from .loops import while_loop
from .nest import flatten, pack
from .tensor_array import TensorArray

__all__ = ["foldl", "foldr", "map_fn", "scan", "vectorized_map"]


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None):
    """``fn`` applied to each element of ``elems`` along axis 0, the results stacked.

    Parameters
    ----------
    fn : callable
        Takes one element (of ``elems``' structure), returns a structure of tensors.
    elems : tensor or (nested) list / tuple / dict of tensors
        Unstacked along their first axis, which must have one length.
    dtype : DType or structure of DTypes, optional
        The structure of ``fn``'s result, when it differs from ``elems``'.
    back_prop, name : as tf.while_loop's.

    Returns
    -------
    ``fn``'s results stacked, in ``dtype``'s structure (``elems``' without it).
    """
    flat = [_tensor(e) for e in flatten(elems)]
    size = _length(flat, "map_fn")
    inputs = [TensorArray(e.dtype, size=size).unstack(e) for e in flat]
    out_structure = elems if dtype is None else dtype
    dtypes = flatten(dtype) if dtype is not None else [e.dtype for e in flat]
    outputs = [TensorArray(d, size=size, infer_shape=infer_shape) for d in dtypes]

    def body(i, *arrays):
        element = pack(elems, iter(ta.read(i) for ta in inputs)) \
            if isinstance(elems, (list, tuple, dict)) else inputs[0].read(i)
        results = [_tensor(r) for r in flatten(fn(element))]
        if len(results) != len(arrays):
            raise ValueError(f"map_fn: fn returned {len(results)} tensors where its dtype "
                             f"structure has {len(arrays)} (pass dtype= for a result of "
                             f"another structure than elems)")
        return (i + 1,) + tuple(ta.write(i, r) for ta, r in zip(arrays, results))
    _, *arrays = while_loop(lambda i, *a: i < size, body, (constant(0),) + tuple(outputs),
                            back_prop=back_prop, name=name or "map", return_same_structure=True)
    stacked = [ta.stack() for ta in arrays]
    return pack(out_structure, iter(stacked)) \
        if isinstance(out_structure, (list, tuple, dict)) else stacked[0]


def vectorized_map(fn, elems):
    """``fn`` applied to each element of ``elems`` along axis 0, the results stacked, as
    TensorFlow 1.15's ``tf.vectorized_map``: TensorFlow vectorises ``fn`` (pfor) where it can
    and loops where it cannot; here it is :func:`map_fn`'s loop, whose result structure and
    dtypes are ``fn``'s, found by calling ``fn`` once on placeholders of one element in a
    graph of its own (which is dropped)."""
    flat = [_tensor(e) for e in flatten(elems)]
    with GraphContext().as_default():  # fn traced once, in a throwaway graph: its results' dtypes
        probe = [placeholder(e.dtype, _element_shape(e)) for e in flat]
        result = fn(pack(elems, iter(probe)) if isinstance(elems, (list, tuple, dict))
                    else probe[0])
        dtypes = pack(result, iter([_tensor(r).dtype for r in flatten(result)])) \
            if isinstance(result, (list, tuple, dict)) else _tensor(result).dtype
    return map_fn(fn, elems, dtype=dtypes, name="vectorized_map")


def _element_shape(tensor):
    """One element's static shape (its first dim dropped), None when the rank is unknown."""
    shape = tensor.get_shape()
    return None if shape.dims is None else shape.as_list()[1:]


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """The accumulators ``a = fn(a, x)`` after each element ``x`` of ``elems`` (axis 0), stacked.

    ``initializer`` (a structure of tensors) is the first ``a``; without one, the first element
    is, and the scan starts at the second.  ``reverse`` goes from the last element to the
    first (the results keep the elements' order)."""
    return _accumulate(fn, elems, initializer, reverse, back_prop, name or "scan", True)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """The last accumulator of ``a = fn(a, x)`` over the elements of ``elems``, first to last
    (``initializer``: the first ``a``, else the first element)."""
    return _accumulate(fn, elems, initializer, False, back_prop, name or "foldl", False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """:func:`foldl` from the last element to the first."""
    return _accumulate(fn, elems, initializer, True, back_prop, name or "foldr", False)


def _accumulate(fn, elems, initializer, reverse, back_prop, name, keep_all):
    """scan (keep_all) or a fold: a while_loop carrying the accumulators."""
    flat = [_tensor(e) for e in flatten(elems)]
    size = _length(flat, name)
    inputs = [TensorArray(e.dtype, size=size).unstack(e) for e in flat]
    first = (size - 1) if reverse else 0

    def element(i):
        return pack(elems, iter(ta.read(i) for ta in inputs)) \
            if isinstance(elems, (list, tuple, dict)) else inputs[0].read(i)
    if initializer is None:
        start, structure, accumulators = 1, elems, [ta.read(first) for ta in inputs]
    else:
        start, structure = 0, initializer
        accumulators = [_tensor(a) for a in flatten(initializer)]
    outputs = [TensorArray(a.dtype, size=size) for a in accumulators] if keep_all else []
    if keep_all and initializer is None:
        outputs = [ta.write(first, a) for ta, a in zip(outputs, accumulators)]
    n = len(accumulators)

    def body(step, *carried):
        index = (size - 1 - step) if reverse else step
        accumulated = pack(structure, iter(carried[:n])) \
            if isinstance(structure, (list, tuple, dict)) else carried[0]
        new = [_tensor(a) for a in flatten(fn(accumulated, element(index)))]
        arrays = [ta.write(index, a) for ta, a in zip(carried[n:], new)]
        return (step + 1,) + tuple(new) + tuple(arrays)
    _, *carried = while_loop(lambda step, *c: step < size, body,
                             (constant(start),) + tuple(accumulators) + tuple(outputs),
                             back_prop=back_prop, name=name, return_same_structure=True)
    results = [ta.stack() for ta in carried[n:]] if keep_all else carried[:n]
    return pack(structure, iter(results)) if isinstance(structure, (list, tuple, dict)) \
        else results[0]


def _length(flat, what):
    """The elements' common length along axis 0: an int, or an int32 scalar tensor."""
    if not flat:
        raise ValueError(f"{what}: elems must be a tensor or a non-empty structure of tensors")
    lengths = {e.get_shape()[0].value if e.get_shape().ndims else None for e in flat}
    if any(e.get_shape().ndims == 0 for e in flat):
        raise ValueError(f"{what}: elems must have at least one axis (the one looped over)")
    known = {n for n in lengths if n is not None}
    if len(known) > 1:
        raise ValueError(f"{what}: elems have different lengths along axis 0: {sorted(known)}")
    if known:
        return known.pop()
    return shape(flat[0])[0]

