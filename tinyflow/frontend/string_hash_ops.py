"""TF's string hashing into buckets: ``tf.strings.to_hash_bucket_fast`` (also TF-1's
``tf.string_to_hash_bucket_fast``: FarmHash's Fingerprint64) and ``tf.strings.to_hash_bucket``
(TF-1's ``tf.string_to_hash_bucket``: TensorFlow's own Hash64, which TF keeps for old graphs;
its buckets differ from the fast one's).  Each is the op ``string_to_hash_bucket``
(ops/hashing.py), pulled before the run, since no executor buffer holds a string.
"""
from __future__ import annotations

from ..nnvm.symbol import Symbol, create_op
from .math_ops import convert_to_tensor

__all__ = ["string_to_hash_bucket", "string_to_hash_bucket_fast", "to_hash_bucket",
           "to_hash_bucket_fast"]


def _hashed(string_tensor, num_buckets, hash_name, name, default_name) -> Symbol:
    if not isinstance(string_tensor, Symbol):
        string_tensor = convert_to_tensor(string_tensor, dtype="string")
    if getattr(string_tensor.dtype, "name", string_tensor.dtype) != "string":
        raise TypeError(f"{default_name}: input must be a string tensor, got "
                        f"{string_tensor.dtype.name} ({string_tensor.name!r})")
    if isinstance(num_buckets, bool) or not isinstance(num_buckets, int) or num_buckets < 1:
        raise ValueError(f"{default_name}: num_buckets must be an int >= 1, got "
                         f"{num_buckets!r}")
    return create_op("string_to_hash_bucket", string_tensor, num_buckets=int(num_buckets),
                     hash=hash_name, name=name or default_name)


def to_hash_bucket_fast(input, num_buckets, name=None) -> Symbol:
    """Each string's FarmHash Fingerprint64 modulo ``num_buckets``, int64 of the input's
    shape (TF's StringToHashBucketFast)."""
    return _hashed(input, num_buckets, "fingerprint64", name, "StringToHashBucketFast")


def to_hash_bucket(string_tensor, num_buckets, name=None) -> Symbol:
    """Each string's TensorFlow Hash64 modulo ``num_buckets``, int64 of the input's shape
    (TF's legacy StringToHashBucket: not the fast one's buckets)."""
    return _hashed(string_tensor, num_buckets, "legacy_hash64", name, "StringToHashBucket")


string_to_hash_bucket_fast = to_hash_bucket_fast  # TF-1's top-level names
string_to_hash_bucket = to_hash_bucket
