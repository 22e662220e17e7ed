"""The string hashes TensorFlow buckets strings with, in pure Python, bit for bit:
``fingerprint64`` (FarmHash's ``Fingerprint64``, i.e. ``farmhashna::Hash64``: what
``tf.strings.to_hash_bucket_fast``, the hash-bucket feature columns and a vocabulary table's
``num_oov_buckets`` use) and ``legacy_hash64`` (TensorFlow's own ``Hash64``, a MurmurHash64A
with seed 0xDECAFCAFFE: what TF-1's ``tf.string_to_hash_bucket`` uses); and the op
``string_to_hash_bucket`` hashing a tensor's strings (or integers, as their decimal digits, as
the hash-bucket column does), pulled before the run: no executor buffer holds a string.
"""
from __future__ import annotations

import numpy as np

from ..nnvm import host_memory
from ..nnvm.attrs import no_gradient
from ..nnvm.errors import InvalidArgumentError
from ..nnvm.op import register_op
from ..nnvm.symbol import Symbol

__all__ = ["as_bytes", "drop_ignored", "fingerprint64", "hash_strings", "legacy_hash64"]

_MASK = (1 << 64) - 1
# FarmHash's primes between 2**63 and 2**64
_K0, _K1, _K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F
_KMUL = 0x9DDFEA08EB382D69


def _fetch64(data: bytes, at: int) -> int:
    return int.from_bytes(data[at:at + 8], "little")


def _fetch32(data: bytes, at: int) -> int:
    return int.from_bytes(data[at:at + 4], "little")


def _rotate(value: int, shift: int) -> int:
    """Rotate right by ``shift`` (0 < shift < 64) on 64 bits."""
    return ((value >> shift) | (value << (64 - shift))) & _MASK


def _shift_mix(value: int) -> int:
    return value ^ (value >> 47)


def _hash_len16(u: int, v: int, mul: int = _KMUL) -> int:
    a = _shift_mix(((u ^ v) * mul) & _MASK)
    b = _shift_mix(((v ^ a) * mul) & _MASK)
    return (b * mul) & _MASK


def _len0to16(data: bytes, n: int) -> int:
    if n >= 8:
        mul = _K2 + n * 2
        a = (_fetch64(data, 0) + _K2) & _MASK
        b = _fetch64(data, n - 8)
        c = (_rotate(b, 37) * mul + a) & _MASK
        d = ((_rotate(a, 25) + b) * mul) & _MASK
        return _hash_len16(c, d, mul)
    if n >= 4:
        return _hash_len16(n + (_fetch32(data, 0) << 3), _fetch32(data, n - 4), _K2 + n * 2)
    if n > 0:
        y = data[0] + (data[n >> 1] << 8)
        z = n + (data[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _MASK) * _K2) & _MASK
    return _K2


def _len17to32(data: bytes, n: int) -> int:
    mul = _K2 + n * 2
    a = (_fetch64(data, 0) * _K1) & _MASK
    b = _fetch64(data, 8)
    c = (_fetch64(data, n - 8) * mul) & _MASK
    d = (_fetch64(data, n - 16) * _K2) & _MASK
    return _hash_len16((_rotate((a + b) & _MASK, 43) + _rotate(c, 30) + d) & _MASK,
                       (a + _rotate((b + _K2) & _MASK, 18) + c) & _MASK, mul)


def _len33to64(data: bytes, n: int) -> int:
    mul = _K2 + n * 2
    a = (_fetch64(data, 0) * _K2) & _MASK
    b = _fetch64(data, 8)
    c = (_fetch64(data, n - 8) * mul) & _MASK
    d = (_fetch64(data, n - 16) * _K2) & _MASK
    y = (_rotate((a + b) & _MASK, 43) + _rotate(c, 30) + d) & _MASK
    z = _hash_len16(y, (a + _rotate((b + _K2) & _MASK, 18) + c) & _MASK, mul)
    e = (_fetch64(data, 16) * mul) & _MASK
    f = _fetch64(data, 24)
    g = ((y + _fetch64(data, n - 32)) * mul) & _MASK
    h = ((z + _fetch64(data, n - 24)) * mul) & _MASK
    return _hash_len16((_rotate((e + f) & _MASK, 43) + _rotate(g, 30) + h) & _MASK,
                       (e + _rotate((f + a) & _MASK, 18) + g) & _MASK, mul)


def _weak32(data: bytes, at: int, a: int, b: int) -> tuple:
    """FarmHash's WeakHashLen32WithSeeds of the 32 bytes at ``at``: a pair."""
    w, x, y, z = (_fetch64(data, at + 8 * i) for i in range(4))
    a = (a + w) & _MASK
    b = _rotate((b + a + z) & _MASK, 21)
    c = a
    a = (a + x + y) & _MASK
    b = (b + _rotate(a, 44)) & _MASK
    return (a + z) & _MASK, (b + c) & _MASK


def _chunk(data, at, state, mul, tail):
    """One 64-byte round of Hash64's loop over ``data[at:at + 64]`` (``tail``: the last
    round's variant, weighted by ``mul``)."""
    x, y, z, v, w = state
    k = mul if tail else _K1
    x = (_rotate((x + y + v[0] + _fetch64(data, at + 8)) & _MASK, 37) * k) & _MASK
    y = (_rotate((y + v[1] + _fetch64(data, at + 48)) & _MASK, 42) * k) & _MASK
    x ^= (w[1] * 9) & _MASK if tail else w[1]
    y = (y + (v[0] * 9 if tail else v[0]) + _fetch64(data, at + 40)) & _MASK
    z = (_rotate((z + w[0]) & _MASK, 33) * k) & _MASK
    v = _weak32(data, at, (v[1] * k) & _MASK, (x + w[0]) & _MASK)
    w = _weak32(data, at + 32, (z + w[1]) & _MASK, (y + _fetch64(data, at + 16)) & _MASK)
    return z, y, x, v, w  # x and z swap


def fingerprint64(data: bytes) -> int:
    """FarmHash's ``Fingerprint64`` of ``data`` (``farmhashna::Hash64``), an int in
    ``[0, 2**64)``, as TensorFlow's ``Fingerprint64``."""
    n = len(data)
    if n <= 16:
        return _len0to16(data, n)
    if n <= 32:
        return _len17to32(data, n)
    if n <= 64:
        return _len33to64(data, n)
    seed = 81
    y = (seed * _K1 + 113) & _MASK
    z = (_shift_mix((y * _K2 + 113) & _MASK) * _K2) & _MASK
    x = (seed * _K2 + _fetch64(data, 0)) & _MASK
    state = (x, y, z, (0, 0), (0, 0))
    for at in range(0, ((n - 1) // 64) * 64, 64):
        state = _chunk(data, at, state, _K1, False)
    x, y, z, v, w = state
    mul = _K1 + ((z & 0xFF) << 1)
    w0 = (w[0] + ((n - 1) & 63)) & _MASK
    v0 = (v[0] + w0) & _MASK
    w = ((w0 + v0) & _MASK, w[1])
    x, y, z, v, w = _chunk(data, n - 64, (x, y, z, (v0, v[1]), w), mul, True)
    return _hash_len16((_hash_len16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _MASK,
                       (_hash_len16(v[1], w[1], mul) + x) & _MASK, mul)


_MURMUR_M = 0xC6A4A7935BD1E995


def legacy_hash64(data: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TensorFlow's own ``Hash64`` (tensorflow/core/lib/hash/hash.cc: MurmurHash64A, seed
    0xDECAFCAFFE), which TF-1's ``tf.string_to_hash_bucket`` uses."""
    n = len(data)
    h = (seed ^ (n * _MURMUR_M)) & _MASK
    whole = n - n % 8
    for at in range(0, whole, 8):
        k = (_fetch64(data, at) * _MURMUR_M) & _MASK
        k = ((k ^ (k >> 47)) * _MURMUR_M) & _MASK
        h = ((h ^ k) * _MURMUR_M) & _MASK
    if n % 8:
        h = ((h ^ int.from_bytes(data[whole:], "little")) * _MURMUR_M) & _MASK
    h = ((h ^ (h >> 47)) * _MURMUR_M) & _MASK
    return h ^ (h >> 47)


_HASHES = {"fingerprint64": fingerprint64, "legacy_hash64": legacy_hash64}


def as_bytes(value) -> bytes:
    """A string element as bytes (str as UTF-8); an integer as its decimal digits (TF's
    ``as_string``, which the hash-bucket column applies to integer features)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (int, np.integer)):
        return str(int(value)).encode()
    raise TypeError(f"expected strings or integers to hash, got {type(value).__name__}")


def hash_strings(values, num_buckets: int, hash_name: str = "fingerprint64") -> np.ndarray:
    """Each element of ``values`` (strings, or integers as their decimal digits) hashed by
    ``hash_name``, modulo ``num_buckets``: int64 of ``values``' shape."""
    array = np.asarray(values, dtype=object)
    digest = _HASHES[hash_name]
    cache = {}  # a batch's strings repeat
    flat = []
    for item in array.ravel().tolist():
        data = as_bytes(item)
        bucket = cache.get(data)
        if bucket is None:
            bucket = cache[data] = digest(data) % num_buckets
        flat.append(bucket)
    return np.array(flat, dtype=np.int64).reshape(array.shape)


def drop_ignored(ids: np.ndarray, values: np.ndarray, node) -> np.ndarray:
    """``ids`` with attr ``missing`` (-1 unless given) where ``values`` hold the node's attr
    ``ignore`` (a feature column's missing value: '' for strings, -1 for integers, which TF
    drops before the lookup)."""
    ignore = node.attrs.get("ignore")
    if ignore is None:
        return ids
    ignore = as_bytes(ignore)
    missing = np.array([as_bytes(v) == ignore for v in values.ravel().tolist()], dtype=bool)
    return np.where(missing.reshape(ids.shape), np.int64(node.attrs.get("missing", -1)), ids)


def _pull_hashed(node, resources, evaluate, deadline):
    """FPullOutputs of string_to_hash_bucket: input 0's values (this run's) hashed into attr
    num_buckets by attr hash (fingerprint64, legacy_hash64)."""
    why = _check_hashing(node)  # (a document's node edited after it was made)
    if why is not None:
        raise InvalidArgumentError(None, node.name, f"{node.describe()}: {why}")
    values = np.asarray(evaluate([Symbol([node.inputs[0]])])[0], dtype=object)
    # the object array of the values and the ids, beside the executor's checked buffers
    host_memory.check_node_fits(node, 16 * values.size, f"to hash {values.size} strings")
    return [drop_ignored(hash_strings(values, int(node.attrs["num_buckets"]),
                                      node.attrs.get("hash", "fingerprint64")), values, node)]


def _check_hashing(node):
    """FCheckNode of string_to_hash_bucket: attr num_buckets a positive int, attr hash known,
    attr missing (the id of attr ignore's values) a negative int64."""
    buckets = node.attrs.get("num_buckets")
    if isinstance(buckets, bool) or not isinstance(buckets, int) or not 1 <= buckets < 2**63:
        return f"attr num_buckets must be an int in [1, 2**63), got {buckets!r}"
    if node.attrs.get("hash", "fingerprint64") not in _HASHES:
        return f"attr hash must be one of {sorted(_HASHES)}, got {node.attrs['hash']!r}"
    if not isinstance(node.attrs.get("ignore", ""), (str, int)):
        return f"attr ignore must be a string or an int, got {node.attrs['ignore']!r}"
    missing = node.attrs.get("missing", -1)
    if isinstance(missing, bool) or not isinstance(missing, int) or not -2**63 <= missing < 0:
        return f"attr missing must be a negative int64, got {missing!r}"
    return None


(register_op("string_to_hash_bucket")
 .describe("Input 0's strings (integers: their decimal digits) hashed into attr num_buckets "
           "int64 buckets by attr hash (fingerprint64: FarmHash's Fingerprint64; "
           "legacy_hash64: TF's Hash64; -1 for attr ignore's value), pulled before the run "
           "(tf.strings.to_hash_bucket_fast, tf.string_to_hash_bucket).")
 .set_num_inputs(1)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (
     in_shapes, [in_shapes[0] if in_shapes[0] is not None else out_shapes[0]]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["int64"]))
 .set_attr("FPullOutputs", _pull_hashed).set_attr("FCheckNode", _check_hashing)
 .set_attr("FGradient", no_gradient))
