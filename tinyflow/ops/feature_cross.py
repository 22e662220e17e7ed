"""TF's hashed feature cross (``SparseCrossOp`` with ``hashed_output``, what
``tf.feature_column.crossed_column`` runs), bit for bit: every combination of one value per
input, in ``itertools.product``'s order, hashed as ``FingerprintCat64`` over the values' hashes
(a string's ``Fingerprint64``, an integer as its 64 bits) from attr ``hash_key``, modulo attr
``num_buckets``.  Pulled before the run, as ``string_to_hash_bucket``: no executor buffer
holds a string.
"""
from __future__ import annotations

import numpy as np

from ..nnvm import host_memory
from ..nnvm.attrs import no_gradient
from ..nnvm.errors import InvalidArgumentError
from ..nnvm.op import register_op
from ..nnvm.symbol import Symbol
from .hashing import fingerprint64

__all__ = ["cross_ids", "fingerprint_cat64"]

_MASK = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995


def _shift_mix(value: int) -> int:
    return value ^ (value >> 47)


def fingerprint_cat64(first: int, second: int) -> int:
    """TF's ``FingerprintCat64`` (tensorflow/core/platform/fingerprint.h) of two 64-bit
    fingerprints: the hash of the pair, in ``[0, 2**64)``."""
    result = first ^ _MUL
    result ^= (_shift_mix((second * _MUL) & _MASK) * _MUL) & _MASK
    result = (result * _MUL) & _MASK
    result = (_shift_mix(result) * _MUL) & _MASK
    return _shift_mix(result)


def _value_hash(value) -> int:
    """A value's 64-bit hash in the cross: a string's Fingerprint64, an integer's bits."""
    if isinstance(value, (bytes, str)):
        return fingerprint64(value.encode() if isinstance(value, str) else value)
    return int(value) & _MASK


def _cat64_arrays(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``fingerprint_cat64`` over uint64 arrays (broadcast; numpy's products wrap at 2**64)."""
    mul, shift = np.uint64(_MUL), np.uint64(47)
    mixed = second * mul
    result = (first ^ mul) ^ ((mixed ^ (mixed >> shift)) * mul)
    result = result * mul
    result = (result ^ (result >> shift)) * mul
    return result ^ (result >> shift)


_NONE = -(2**63)  # an ids input's marker of no id (TF's -1 ids are crossed)


def _hashed(values: np.ndarray, cache: dict) -> np.ndarray:
    """Each value's 64-bit hash (``_value_hash``, once per distinct value), uint64."""
    flat = [cache[v] if v in cache else cache.setdefault(v, _value_hash(v))
            for v in values.ravel().tolist()]
    return np.array(flat, dtype=np.uint64).reshape(values.shape)


def cross_ids(inputs, num_ids: int, num_buckets: int, hash_key: int) -> np.ndarray:
    """The hashed cross of ``inputs`` (``[batch, n_i]`` each, in TF's order; the first
    ``num_ids`` ids, _NONE for none): ``[batch, prod n_i]`` int64, each example's ids of its
    combinations first (the last input's value changing fastest), -1 after them."""
    batch, cache = len(inputs[0]), {}
    hashes = np.full((batch, 1), hash_key, dtype=np.uint64)
    present = np.ones((batch, 1), dtype=bool)
    for index, values in enumerate(inputs):
        width = hashes.shape[1] * values.shape[1]
        hashes = _cat64_arrays(hashes[:, :, None], _hashed(values, cache)[:, None, :]).reshape(
            batch, width)
        kept = values != _NONE if index < num_ids else np.ones(values.shape, dtype=bool)
        present = (present[:, :, None] & kept[:, None, :]).reshape(batch, width)
    ids = (hashes % np.uint64(num_buckets)).astype(np.int64)
    order = np.argsort(~present, axis=1, kind="stable")  # the present ones first, in order
    return np.where(np.take_along_axis(present, order, 1),
                    np.take_along_axis(ids, order, 1), np.int64(-1))


def _pull_crossed(node, resources, evaluate, deadline):
    """FPullOutputs of sparse_cross_hashed: the inputs' values (this run's) crossed per
    example, ``[batch, product of widths]`` int64, each row's ids first and -1 after them."""
    why = _check_cross(node)  # (a document's node edited after it was made)
    if why is not None:
        raise InvalidArgumentError(None, node.name, f"{node.describe()}: {why}")
    # one by one: a string input is this run's pulled or fed value, the rest run
    inputs = [np.asarray(evaluate([Symbol([e])])[0]) for e in node.inputs]
    if any(v.ndim != 2 or len(v) != len(inputs[0]) for v in inputs):
        raise InvalidArgumentError(None, node.name, f"{node.describe()}: the inputs must be "
                                   f"[batch, n] of one batch, got shapes "
                                   f"{[v.shape for v in inputs]}")
    width = int(np.prod([v.shape[1] for v in inputs]))
    # the hashes, masks, order and output of every combination, beside the checked buffers
    host_memory.check_node_fits(node, 48 * len(inputs[0]) * width,
                                f"to cross {len(inputs[0])} examples of {width} combinations")
    num_ids, buckets, key = (int(node.attrs[k]) for k in ("num_ids", "num_buckets",
                                                          "hash_key"))
    return [cross_ids(inputs, num_ids, buckets, key)]


def _check_cross(node):
    """FCheckNode of sparse_cross_hashed: attrs num_buckets in [1, 2**63), hash_key in
    [0, 2**64), num_args (the inputs' count) at least 2, num_ids (the first inputs that are
    ids, -2**63 for none) in [0, inputs]."""
    limits = {"num_buckets": (1, 2**63), "hash_key": (0, 2**64),
              "num_ids": (0, len(node.inputs) + 1), "num_args": (2, len(node.inputs) + 1)}
    for name, (low, high) in limits.items():
        value = node.attrs.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value < high:
            return f"attr {name} must be an int in [{low}, {high}), got {value!r}"
    if node.attrs["num_args"] != len(node.inputs):
        return f"attr num_args is {node.attrs['num_args']}, the node has {len(node.inputs)} inputs"
    return None


def _infer_cross_shape(attrs, in_shapes, out_shapes):
    if any(s is None for s in in_shapes) or any(s[1] is None for s in in_shapes):
        return in_shapes, out_shapes
    batch = next((s[0] for s in in_shapes if s[0] is not None), None)
    return in_shapes, [(batch, int(np.prod([s[1] for s in in_shapes])))]


(register_op("sparse_cross_hashed")
 .describe("TF's SparseCross with hashed output over inputs [batch, n_i] (strings or "
           "integers, attr num_args of them; the first attr num_ids inputs ids, -2**63 for "
           "none): each example's combinations hashed by FingerprintCat64 from attr hash_key "
           "modulo attr num_buckets, [batch, prod n_i] int64, -1 after an example's ids; "
           "pulled before the run (tf.feature_column.crossed_column).")
 .set_num_inputs(lambda attrs: attrs["num_args"])
 .set_attr("FInferShape", _infer_cross_shape)
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["int64"]))
 .set_attr("FPullOutputs", _pull_crossed).set_attr("FCheckNode", _check_cross)
 .set_attr("FGradient", no_gradient))
