"""TF 1.15's feature columns that look their values up or hash them:
``categorical_column_with_hash_bucket`` (FarmHash's Fingerprint64 of the value, an integer's
decimal digits, modulo the buckets), ``categorical_column_with_vocabulary_file`` (a vocabulary
table, ``tf.tables_initializer()`` to run first, as TF), ``categorical_column_with_vocabulary_list``
for string vocabularies and out-of-vocabulary buckets (feature_column.py's for the rest), ``weighted_categorical_column`` and
``make_parse_example_spec`` (the ``tf.parse_example`` features every column reads).  String
features work here: their ids are computed before the run by the hash or table ops
(ops/hashing.py, ops/lookup_tables.py), so no executor holds a string.  The namespace
``tf.feature_column`` (tf_feature_column.py) holds these and feature_column.py's columns.
"""
from __future__ import annotations

import collections
import math
import os

from ..nnvm.composite import CompositeTensor
from ..nnvm.symbol import Symbol, create_op
from . import feature_column as fc
from .api import cast
from .array_ops import expand_dims, reshape
from .lookup_ops import index_table_from_file, index_table_from_tensor
from .math_ops import convert_to_tensor
from .parsing_ops import FixedLenFeature, VarLenFeature
from .sparse_ops import SparseTensor, sparse_tensor_to_dense

__all__ = ["categorical_column_with_hash_bucket", "categorical_column_with_vocabulary_file",
           "categorical_column_with_vocabulary_list", "make_parse_example_spec",
           "weighted_categorical_column"]


def _dtype_name(dtype) -> str:
    name = getattr(dtype, "name", dtype)
    return "string" if name in ("str", "string", "object") else str(name)


def _mapped_ids(features, key: str, column, to_ids, missing=-1) -> Symbol:
    """``features[key]`` (strings or integers, dense or a ``tf.SparseTensor``) as int64 ids
    ``[batch, n]``, ``missing`` for none: ``to_ids(values, ignore)`` maps the values
    (``missing`` for ``ignore``, the value TF drops first: '' for strings, -1 for integers)."""
    if key not in features:
        raise ValueError(f"The feature {key!r} of column {column.name!r} is not in features "
                         f"(it has {sorted(features)})")
    value = features[key]
    if not isinstance(value, (Symbol, CompositeTensor)):
        value = convert_to_tensor(value, dtype="string" if column.dtype == "string" else None)
    given = _dtype_name(value.dtype)
    if (given == "string") != (column.dtype == "string") or not (
            given == "string" or given.startswith(("int", "uint"))):
        raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: {key}, "
                         f"column dtype: <dtype: '{column.dtype}'>, tensor dtype: <dtype: "
                         f"'{given}'>")
    if isinstance(value, CompositeTensor):  # the values mapped, the missing ones left out
        ids = SparseTensor(value.indices, to_ids(value.values, None), value.dense_shape)
        return sparse_tensor_to_dense(ids, default_value=missing)
    ids = to_ids(value, "" if given == "string" else -1)
    dims = value.get_shape().as_list()
    if len(dims) == 1:
        return expand_dims(ids, -1)
    if len(dims) > 2:  # [batch, a, b...] -> [batch, a * b...], as TF's sparse_reshape
        if any(d is None for d in dims[1:]):
            raise ValueError(f"Column {column.name!r}: feature {key!r} of shape {dims} needs "
                             f"its dimensions after the batch's known")
        return reshape(ids, [-1, math.prod(dims[1:])])
    return ids


def _check_key_dtype(key: str, dtype: str) -> None:
    if dtype != "string" and not dtype.startswith(("int", "uint")):
        raise ValueError(f"column_name: {key} dtype must be string or integer. dtype: "
                         f"<dtype: '{dtype}'>.")


class HashedCategoricalColumn(fc._CategoricalColumn, collections.namedtuple(
        "HashedCategoricalColumn", ["key", "hash_bucket_size", "dtype"])):
    """``categorical_column_with_hash_bucket``'s column: a value's id is its Fingerprint64
    (an integer's: of its decimal digits) modulo ``hash_bucket_size``."""

    name = property(lambda self: self.key)
    num_buckets = property(lambda self: self.hash_bucket_size)
    _parse_example_spec = property(lambda self: {self.key: VarLenFeature(self.dtype)})

    def _ids(self, features, missing=-1) -> Symbol:
        return _mapped_ids(features, self.key, self, lambda values, ignore: create_op(
            "string_to_hash_bucket", values, num_buckets=self.hash_bucket_size,
            hash="fingerprint64", ignore=ignore, missing=missing, name="to_hash_bucket_fast"),
            missing)


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype="string"):
    """A categorical column of ``hash_bucket_size`` ids: each value (a string, or an integer
    as its decimal digits) hashed by FarmHash's Fingerprint64, as TF's
    ``string_to_hash_bucket_fast``.  A missing value ('' or -1 in a dense feature) gives no
    id."""
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: "
                         f"{hash_bucket_size}, key: {key}")
    key, dtype = fc._checked_key(key), _dtype_name(dtype)
    _check_key_dtype(key, dtype)
    return HashedCategoricalColumn(key, int(hash_bucket_size), dtype)


class VocabularyFileCategoricalColumn(fc._CategoricalColumn, collections.namedtuple(
        "VocabularyFileCategoricalColumn", ["key", "vocabulary_file", "vocabulary_size",
                                            "num_oov_buckets", "default_value", "dtype"])):
    """``categorical_column_with_vocabulary_file``'s column: a value's id is its line in the
    file, else an out-of-vocabulary bucket (``num_oov_buckets``) or ``default_value``."""

    name = property(lambda self: self.key)
    num_buckets = property(lambda self: self.vocabulary_size + self.num_oov_buckets)
    _parse_example_spec = property(lambda self: {self.key: VarLenFeature(self.dtype)})

    def _ids(self, features, missing=-1) -> Symbol:
        # a table per call, its initializer in the graph's table initializers, as TF's
        return _table_ids(features, self, missing, index_table_from_file(
            self.vocabulary_file, num_oov_buckets=self.num_oov_buckets,
            vocab_size=self.vocabulary_size,
            default_value=-1 if self.default_value is None else self.default_value,
            key_dtype="string" if self.dtype == "string" else "int64",
            name=f"{self.key}_lookup"))


def _table_ids(features, column, missing, table) -> Symbol:
    """The ids of ``column``'s feature in ``table`` (integers as int64 keys), ``missing`` for
    none."""
    return _mapped_ids(features, column.key, column, lambda values, ignore: table._lookup_ids(
        values if column.dtype == "string" else cast(values, "int64"), ignore, missing),
        missing)


def _count_lines(path: str, key: str) -> int:
    """The lines of the file (the last one without a newline too), read in blocks."""
    if not os.path.isfile(path):
        raise ValueError(f"vocabulary_file in {key} does not exist.")
    lines, last = 0, b"\n"
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            lines += block.count(b"\n")
            last = block[-1:]
    return lines + (last != b"\n")


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                            num_oov_buckets=0, default_value=None,
                                            dtype="string"):
    """A categorical column mapping each value to its line number in ``vocabulary_file``
    (its first ``vocabulary_size`` lines; all of them when None, counted now); another value
    gets one of ``num_oov_buckets`` hashed ids after them, or ``default_value`` (none: -1,
    no id).  The table is filled by ``tf.tables_initializer()``."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    key, dtype = fc._checked_key(key), _dtype_name(dtype)
    vocabulary_file = os.fspath(vocabulary_file)
    if vocabulary_size is None:
        vocabulary_size = _count_lines(vocabulary_file, key)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    _check_key_dtype(key, dtype)
    return VocabularyFileCategoricalColumn(key, vocabulary_file, int(vocabulary_size),
                                           int(num_oov_buckets), default_value, dtype)


class VocabularyTableCategoricalColumn(fc._CategoricalColumn, collections.namedtuple(
        "VocabularyTableCategoricalColumn", ["key", "vocabulary_list", "dtype",
                                             "default_value", "num_oov_buckets"])):
    """``categorical_column_with_vocabulary_list``'s column for a string vocabulary or one
    with ``num_oov_buckets``: a value's id is its index in the list, else a hashed bucket
    after it or ``default_value`` (a table: ``tf.tables_initializer()`` first, as TF)."""

    name = property(lambda self: self.key)
    num_buckets = property(lambda self: len(self.vocabulary_list) + self.num_oov_buckets)
    _parse_example_spec = property(lambda self: {self.key: VarLenFeature(self.dtype)})

    def _ids(self, features, missing=-1) -> Symbol:
        return _table_ids(features, self, missing, index_table_from_tensor(
            list(self.vocabulary_list), num_oov_buckets=self.num_oov_buckets,
            default_value=self.default_value,
            dtype="string" if self.dtype == "string" else "int64", name=f"{self.key}_lookup"))


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                            num_oov_buckets=0):
    """A categorical column mapping each value to its index in ``vocabulary_list`` (unique
    strings or integers); another value gets one of ``num_oov_buckets`` hashed ids after
    them, or ``default_value`` (-1: no id).  A string vocabulary or out-of-vocabulary
    buckets look the values up in a table, filled by ``tf.tables_initializer()``."""
    vocabulary = list(vocabulary_list or ())
    strings = any(isinstance(v, (str, bytes)) for v in vocabulary) or (
        dtype is not None and _dtype_name(dtype) == "string")
    if not (strings or num_oov_buckets) or not vocabulary:
        return fc.categorical_column_with_vocabulary_list(key, vocabulary_list, dtype,
                                                          default_value, num_oov_buckets)
    key = fc._checked_key(key)
    if len(set(vocabulary)) != len(vocabulary):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary}, column_name: {key}")
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = "string" if strings else _dtype_name(dtype or "int64")
    _check_key_dtype(key, dtype)
    return VocabularyTableCategoricalColumn(key, tuple(vocabulary), dtype, int(default_value),
                                            int(num_oov_buckets))


class WeightedCategoricalColumn(fc._CategoricalColumn, collections.namedtuple(
        "WeightedCategoricalColumn", ["categorical_column", "weight_feature_key", "dtype"])):
    """``weighted_categorical_column``'s column: another column's ids, each weighted by the
    feature ``weight_feature_key`` (of the ids' shape)."""

    name = property(lambda self: f"{self.categorical_column.name}_weighted_by_"
                                 f"{self.weight_feature_key}")
    num_buckets = property(lambda self: self.categorical_column.num_buckets)

    @property
    def _parse_example_spec(self) -> dict:
        return {**_spec(self.categorical_column),
                self.weight_feature_key: VarLenFeature(self.dtype)}

    def _ids(self, features, missing=-1) -> Symbol:
        return self.categorical_column._ids(features, missing)

    def _id_weights(self, features) -> Symbol:
        if self.weight_feature_key not in features:
            raise ValueError(f"Feature {self.weight_feature_key} is not in features "
                             f"dictionary.")
        value = features[self.weight_feature_key]
        if isinstance(value, CompositeTensor):  # a missing weight is 0: no contribution
            value = sparse_tensor_to_dense(value, default_value=0.0)
        elif not isinstance(value, Symbol):
            value = convert_to_tensor(value, dtype=self.dtype)
        if _dtype_name(value.dtype) != self.dtype:
            raise ValueError(f"Bad dtype, expected <dtype: '{self.dtype}'>, but got <dtype: "
                             f"'{_dtype_name(value.dtype)}'>.")
        if value.get_shape().ndims == 1:
            value = expand_dims(value, -1)
        return cast(value, "float32")


def weighted_categorical_column(categorical_column, weight_feature_key, dtype="float32"):
    """``categorical_column``'s ids, each with the weight at its position in the feature
    ``weight_feature_key``: a linear model's or embedding's rows are scaled by it (an id of
    weight <= 0 dropped for a mean or sqrtn, as TF's safe lookup), an indicator holds it."""
    dtype = _dtype_name(dtype)
    if dtype is None or not dtype.startswith(("float", "int")):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    if not isinstance(categorical_column, fc._CategoricalColumn):
        raise ValueError(  # noqa: TRY004 - TF's
            f"categorical_column must be of type _CategoricalColumn. Given: "
            f"{categorical_column}")
    return WeightedCategoricalColumn(categorical_column, fc._checked_key(weight_feature_key),
                                     dtype)


def _spec(column) -> dict:
    """The ``tf.parse_example`` features ``column`` reads, by key (TF's
    ``_parse_example_spec``)."""
    spec = getattr(column, "_parse_example_spec", None)
    if spec is not None:
        return spec
    if isinstance(column, fc.NumericColumn):
        return {column.key: FixedLenFeature(column.shape, column.dtype, column.default_value)}
    if isinstance(column, fc.BucketizedColumn):
        return _spec(column.source_column)
    if isinstance(column, (fc.IndicatorColumn, fc.EmbeddingColumn)):
        return _spec(column.categorical_column)
    if isinstance(column, (fc.IdentityCategoricalColumn, fc.VocabularyListCategoricalColumn)):
        return {column.key: VarLenFeature("int64")}
    raise ValueError(f"All feature_columns must be _FeatureColumn instances. Given: {column}")


def make_parse_example_spec(feature_columns) -> dict:
    """The ``features`` argument of ``tf.parse_example`` for ``feature_columns``: each
    column's features by key (a dense column's ``FixedLenFeature``, a categorical one's
    ``VarLenFeature``); two columns asking a key differently is TF's ValueError."""
    result = {}
    for column in feature_columns:
        if not isinstance(column, fc._FeatureColumn):
            raise ValueError(  # noqa: TRY004 - TF's
                f"All feature_columns must be _FeatureColumn instances. Given: {column}")
        for key, value in _spec(column).items():
            if key in result and result[key] != value:
                raise ValueError(f"feature_columns contain different parse_spec for key {key}. "
                                 f"Given {value} and {result[key]}")
            result[key] = value
    return result
