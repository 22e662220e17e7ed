"""TF 1.15's ``tf.feature_column.crossed_column``: the ids of every combination of its keys'
values in an example, hashed as TF's ``sparse_cross_hashed`` (ops/feature_cross.py), the
same ids as TF's for string and integer features.

A key is a feature's name (its raw values, all of them: '' and -1 too, as TF crosses a dense
feature) or a categorical column (its ids; another crossed column's keys are crossed flat, as
TF's ``_collect_leaf_level_keys``).  TF hands the op the categorical columns' ids first, then
the raw features, and so do we: the order changes the hash.  A categorical column's id -1
(a vocabulary's miss, an identity column's value out of range) is crossed as TF crosses it.
"""
from __future__ import annotations

import collections

from ..nnvm.composite import CompositeTensor
from ..nnvm.symbol import Symbol, create_op
from . import feature_column as fc
from .api import cast
from .array_ops import expand_dims
from .feature_column_lookup import HashedCategoricalColumn, _dtype_name, _spec
from .math_ops import convert_to_tensor
from .parsing_ops import VarLenFeature

__all__ = ["crossed_column"]

_DEFAULT_HASH_KEY = 0xDECAFCAFFE  # TF's sparse_ops._DEFAULT_HASH_KEY
_NONE = -(2**63)  # sparse_cross_hashed's marker of no id


class CrossedColumn(fc._CategoricalColumn, collections.namedtuple(
        "CrossedColumn", ["keys", "hash_bucket_size", "hash_key"])):
    """``crossed_column``'s column: an example's combinations of its keys' values, hashed."""

    num_buckets = property(lambda self: self.hash_bucket_size)

    @property
    def name(self) -> str:
        return "_X_".join(sorted(k if isinstance(k, str) else k.name for k in self._leaves()))

    def _leaves(self) -> list:
        """The keys, a crossed column's own keys in its place (TF's leaf-level keys)."""
        leaves = []
        for key in self.keys:
            leaves.extend(key._leaves() if isinstance(key, CrossedColumn) else [key])
        return leaves

    @property
    def _parse_example_spec(self) -> dict:
        spec = {}
        for key in self._leaves():
            spec.update({key: VarLenFeature("string")} if isinstance(key, str) else _spec(key))
        return spec

    def _ids(self, features, missing=-1) -> Symbol:
        # the keys' ids marked _NONE where TF has none: their -1 (a vocabulary's miss) is crossed
        ids, raw = [], []
        for key in self._leaves():
            if isinstance(key, str):
                raw.append(_raw_feature(features, key, self.name))
                continue
            if key._id_weights(features) is not None:
                raise ValueError(f"crossed_column does not support weight_tensor, but the given "
                                 f"column populates weight_tensor. Given column: {key.name}")
            ids.append(key._ids(features, missing=_NONE))
        return create_op("sparse_cross_hashed", *ids, *raw, num_args=len(ids) + len(raw),
                         num_ids=len(ids), num_buckets=self.hash_bucket_size,
                         hash_key=self.hash_key, name="SparseCross")


def _raw_feature(features, key: str, column: str) -> Symbol:
    """``features[key]`` as a ``[batch, n]`` tensor of strings or int64 (a vector as one
    value per example), all its values crossed."""
    if key not in features:
        raise ValueError(f"The feature {key!r} of column {column!r} is not in features "
                         f"(it has {sorted(features)})")
    value = features[key]
    if isinstance(value, CompositeTensor):
        raise ValueError(  # noqa: TRY004 - a feature TF crosses, not a wrong type
            f"Column {column!r}: feature {key!r} is a SparseTensor; TinyFlow "
                         f"crosses dense features only (give it dense, or as a categorical "
                         f"column's ids)")
    if not isinstance(value, Symbol):
        value = convert_to_tensor(value)
    dtype = _dtype_name(value.dtype)
    if dtype != "string" and not dtype.startswith(("int", "uint")):
        raise ValueError(f"Column {column!r}: feature {key!r} must hold strings or integers "
                         f"to be crossed, got {dtype}")
    rank = value.get_shape().ndims
    if rank == 1:
        value = expand_dims(value, -1)
    elif rank != 2:
        raise ValueError(f"Column {column!r}: feature {key!r} must be [batch] or [batch, n] "
                         f"to be crossed (TF's dense inputs of a cross are matrices), got "
                         f"rank {rank}")
    return value if dtype in ("string", "int64") else cast(value, "int64")


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """A categorical column of ``hash_bucket_size`` ids: each combination of one value per
    key in an example (features by name, or categorical columns' ids) hashed as TF's
    ``sparse_cross_hashed`` with ``hash_key`` (TF's default 0xDECAFCAFFE).  Use it through
    ``indicator_column``, ``embedding_column`` or ``linear_model``.  A hash-bucket column is
    refused as a key, as in TF."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, fc._CategoricalColumn)):
            raise ValueError(  # noqa: TRY004 - TF's
                f"Unsupported key type. All keys must be either string, or "
                             f"categorical column except HashedCategoricalColumn. Given: {key}")
        if isinstance(key, HashedCategoricalColumn):
            raise ValueError(  # noqa: TRY004 - TF's
                f"categorical_column_with_hash_bucket is not supported for "
                             f"crossing. Hashing before crossing will increase probability of "
                             f"collision. Instead, use the feature name as a string. Given: "
                             f"{key}")
    hash_key = _DEFAULT_HASH_KEY if hash_key is None else int(hash_key)
    if not 0 <= hash_key < 2**64:
        raise ValueError(f"hash_key must be in [0, 2**64), got {hash_key}")
    return CrossedColumn(tuple(keys), int(hash_bucket_size), hash_key)
