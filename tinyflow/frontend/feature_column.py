"""``tf.feature_column`` (TensorFlow 1.15's v1 behaviour): feature columns over a dict of input
tensors, and the two functions that turn them into a model's input, ``input_layer`` (the dense
columns' values concatenated) and ``linear_model`` (a weighted sum per column plus a bias).

A categorical column's ids are held as a dense int64 tensor ``[batch, n]`` in which ``-1``
marks no id (TensorFlow holds them as a ``SparseTensor``; for dense input it drops the value
``-1`` first, so the two say the same).  TinyFlow's executors hold no string tensors: here a
string vocabulary or a string feature is an error naming the column, never a wrong result; the
hashed and vocabulary-file columns of feature_column_lookup.py map strings to ids before the
run.  Columns are processed sorted by name, as TensorFlow does, each under a variable scope
of its name (``input_layer/<name>_embedding/embedding_weights``,
``linear_model/<name>/weights``, ``linear_model/bias_weights``).
"""
from __future__ import annotations

import collections
import itertools
import math

import numpy as np

from ..nnvm.composite import CompositeTensor
from ..nnvm.symbol import Symbol
from . import check_ops
from .api import (
    add_n,
    cast,
    constant,
    control_dependencies,
    equal,
    global_variables,
    greater_equal,
    identity,
    logical_or,
    matmul,
    maximum,
    reduce_any,
    reduce_sum,
    rsqrt,
    where,
)
from .array_ops import concat, expand_dims, gather, one_hot, reshape
from .framework import GraphKeys
from .init_ops import truncated_normal_initializer, zeros_initializer
from .math_ops import convert_to_tensor
from .nn.functions import bias_add
from .sparse_ops import sparse_tensor_to_dense
from .unsupported import unsupported
from .variable_scope import get_variable, variable_scope

__all__ = ["bucketized_column", "categorical_column_with_identity",
           "categorical_column_with_vocabulary_list", "embedding_column", "indicator_column",
           "input_layer", "linear_model", "numeric_column"]

_NO_STRINGS = "TinyFlow's executors hold no string tensors: {}"
_MODEL_COLLECTIONS = [GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES]


def __getattr__(name):
    raise unsupported("tf.feature_column.", "feature_column", name,
                      {"tf.feature_column.": __all__})


# -- the columns ---------------------------------------------------------------------------------
class _FeatureColumn:
    """What every column has: ``name``, its sort key and variable scope."""

    name: str

    @property
    def _var_scope_name(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class _DenseColumn(_FeatureColumn):
    """A column with a dense value ``[batch, *variable_shape]`` (``_dense(features)``)."""

    def _num_elements(self) -> int:
        return math.prod(self.variable_shape)


class _CategoricalColumn(_FeatureColumn):
    """A column of ids in ``[0, num_buckets)``: ``_ids(features, missing=-1)`` is ``[batch,
    n]``, ``missing`` for none (a cross asks another marker: it crosses TF's ids -1, a
    vocabulary's miss); ``_id_weights(features)`` their weights, or None (unweighted)."""

    num_buckets: int

    def _id_weights(self, features):
        return None


def _feature(features, key: str, column: str, sparse=False) -> Symbol:
    """``features[key]`` as a tensor of rank 2 at least (rank 1 gets a trailing axis, as TF's
    ``_LazyBuilder``), checked not to be strings; a ``tf.SparseTensor`` made dense (-1 for no
    value) where ``sparse`` (categorical columns)."""
    if key not in features:
        raise ValueError(f"The feature {key!r} of column {column!r} is not in features "
                         f"(it has {sorted(features)})")
    value = features[key]
    if isinstance(value, CompositeTensor):
        if not sparse:
            raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. "
                             f"SparseTensor is not supported. key: {key}")
        value = sparse_tensor_to_dense(value, default_value=-1)
    if not isinstance(value, Symbol):
        array = np.asarray(value)
        if array.dtype.kind in "USO":
            raise ValueError(f"Column {column!r}: feature {key!r} holds strings; "
                             + _NO_STRINGS.format("map it to numbers (ids) first"))
        value = convert_to_tensor(array)
    if getattr(value.dtype, "name", value.dtype) in ("string", "object"):
        raise ValueError(f"Column {column!r}: feature {key!r} is a string tensor; "
                         + _NO_STRINGS.format("map it to numbers (ids) first"))
    if value.get_shape().ndims == 1:
        value = expand_dims(value, -1)
    return value


class NumericColumn(_DenseColumn, collections.namedtuple(
        "NumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"])):
    """``numeric_column``'s column: the feature as float32, ``normalizer_fn`` applied first."""

    name = property(lambda self: self.key)
    variable_shape = property(lambda self: self.shape)

    def _dense(self, features) -> Symbol:
        value = _feature(features, self.key, self.name)
        if self.normalizer_fn is not None:
            value = self.normalizer_fn(value)
        return cast(value, "float32")


def numeric_column(key, shape=(1,), default_value=None, dtype="float32", normalizer_fn=None):
    """A dense column of ``features[key]``: float values of ``shape`` per example.

    ``default_value`` is kept for parsing (``make_parse_example_spec``); ``dtype`` must
    be a float or integer type; ``normalizer_fn`` maps the feature's tensor before it is cast
    to float32.
    """
    key = _checked_key(key)
    shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    if not shape or any(d < 1 for d in shape):
        raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    dtype = getattr(dtype, "name", dtype)
    if dtype in ("string", "str") or not (str(dtype).startswith(("float", "int", "uint"))):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    if default_value is not None:  # TF keeps it as nested tuples of the column's shape
        default_value = _tuples(np.broadcast_to(np.asarray(default_value), shape).tolist())
    return NumericColumn(key, shape, default_value, dtype, normalizer_fn)


def _tuples(value):
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _checked_key(key) -> str:
    if not isinstance(key, str) or not key:
        raise ValueError(f"key must be a non-empty string. Given: {key!r}")
    return key


class BucketizedColumn(_DenseColumn, _CategoricalColumn, collections.namedtuple(
        "BucketizedColumn", ["source_column", "boundaries"])):
    """``bucketized_column``'s column: each value's bucket, one-hot as a dense column."""

    name = property(lambda self: f"{self.source_column.name}_bucketized")
    variable_shape = property(lambda self: (*self.source_column.shape,
                                            len(self.boundaries) + 1))
    num_buckets = property(lambda self: (len(self.boundaries) + 1)
                           * self.source_column._num_elements())

    def _buckets(self, features) -> Symbol:
        """``[batch, *shape]`` int64: how many boundaries each value is at or above (TF's
        Bucketize)."""
        value = self.source_column._dense(features)
        counts = [cast(greater_equal(value, b), "int64") for b in self.boundaries]
        return add_n(counts) if counts else cast(value * 0, "int64")

    def _dense(self, features) -> Symbol:
        return one_hot(self._buckets(features), len(self.boundaries) + 1, dtype="float32")

    def _ids(self, features, missing=-1) -> Symbol:
        # element i of the source's values takes buckets [i * (n+1), (i+1) * (n+1))
        elements = self.source_column._num_elements()
        buckets = reshape(self._buckets(features), [-1, elements])
        offsets = constant(np.arange(elements, dtype=np.int64) * (len(self.boundaries) + 1))
        return buckets + offsets


def bucketized_column(source_column, boundaries):
    """A column of ``source_column``'s values bucketized by the sorted ``boundaries``: value
    ``v`` falls in bucket ``i`` when ``boundaries[i-1] <= v < boundaries[i]``."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError(  # noqa: TRY004 - TF's
            f"source_column must be a column generated with numeric_column(). Given: "
            f"{source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: "
                         f"{source_column}")
    boundaries = tuple(float(b) for b in boundaries or ())
    if not boundaries or any(b >= c for b, c in itertools.pairwise(boundaries)):
        raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, boundaries)


def _id_feature(features, key: str, column: str) -> Symbol:
    """``features[key]`` as int64 ids ``[batch, n]``; floats are refused, as TF refuses them."""
    value = _feature(features, key, column, sparse=True)
    if not getattr(value.dtype, "name", "").startswith(("int", "uint")):
        raise ValueError(f"Column {column!r}: feature {key!r} must be of an integer type "
                         f"for a categorical column, got {value.dtype.name}")
    dims = value.get_shape().as_list()
    if len(dims) > 2:  # [batch, a, b...] -> [batch, a * b...], as TF's sparse_reshape
        if any(d is None for d in dims[1:]):
            raise ValueError(f"Column {column!r}: feature {key!r} of shape {dims} needs its "
                             f"dimensions after the batch's known")
        value = reshape(value, [-1, math.prod(dims[1:])])
    return cast(value, "int64")


class IdentityCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "IdentityCategoricalColumn", ["key", "num_buckets", "default_value"])):
    """``categorical_column_with_identity``'s column: the values are the ids."""

    name = property(lambda self: self.key)

    def _ids(self, features, missing=-1) -> Symbol:
        # TF drops the value -1 first; without default_value an id out of range passes on (an
        # indicator's row stays zero, an embedding's lookup is an InvalidArgumentError)
        ids = _id_feature(features, self.key, self.name)
        found = ids if self.default_value is None else where(logical_or(
            ids < 0, ids >= self.num_buckets), ids * 0 + self.default_value, ids)
        return where(equal(ids, -1), ids * 0 + missing, found)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """A categorical column whose integer values are the ids, in ``[0, num_buckets)``; -1 is no
    value; any other value outside the range becomes ``default_value``; without one it stays
    as it is, as in TF (an indicator's row gets no 1 for it, an embedding's lookup of an id
    past the range is an ``InvalidArgumentError`` when the graph runs)."""
    key = _checked_key(key)
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    return IdentityCategoricalColumn(key, int(num_buckets), default_value)


class VocabularyListCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "VocabularyListCategoricalColumn", ["key", "vocabulary_list", "dtype",
                                            "default_value", "num_oov_buckets"])):
    """``categorical_column_with_vocabulary_list``'s column (integer vocabularies): a value's
    id is its index in the vocabulary, ``default_value`` when it is not there."""

    name = property(lambda self: self.key)
    num_buckets = property(lambda self: len(self.vocabulary_list))

    def _ids(self, features, missing=-1) -> Symbol:
        ids = _id_feature(features, self.key, self.name)
        vocabulary = constant(np.asarray(self.vocabulary_list, np.int64))
        matches = equal(expand_dims(ids, -1), vocabulary)  # [batch, n, vocabulary]
        index = reduce_sum(cast(matches, "int64") * constant(
            np.arange(len(self.vocabulary_list), dtype=np.int64)), axis=-1)
        found = where(reduce_any(matches, axis=-1), index, index * 0 + self.default_value)
        return where(equal(ids, -1), ids * 0 + missing, found)  # TF drops the value -1


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                            num_oov_buckets=0):
    """A categorical column mapping integer values to their index in ``vocabulary_list``
    (unique); a value not there gets ``default_value`` (-1: no id).  String vocabularies are
    refused (TinyFlow holds no strings), and so are ``num_oov_buckets`` (TF hashes them)."""
    key = _checked_key(key)
    vocabulary = np.asarray(list(vocabulary_list or ()))
    if vocabulary.size == 0:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: "
                         f"{key}")
    if vocabulary.dtype.kind in "USO" or getattr(dtype, "name", dtype) == "string":
        raise ValueError(f"Column {key!r}: a string vocabulary_list; "
                         + _NO_STRINGS.format("give an integer vocabulary "
                                                                "(the values' ids)"))
    if vocabulary.dtype.kind not in "iu":
        raise ValueError(f"Column {key!r}: vocabulary_list must hold integers, got "
                         f"{vocabulary.dtype}")
    if len(set(vocabulary.tolist())) != vocabulary.size:
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: "
                         f"{key}")
    if num_oov_buckets:
        raise ValueError(f"Column {key!r}: num_oov_buckets is not supported by TinyFlow (TF "
                         f"hashes out-of-vocabulary values with FarmHash)")
    if default_value != -1 and not 0 <= default_value < vocabulary.size:
        raise ValueError(f"default_value {default_value} not in range [0, {vocabulary.size}), "
                         f"column_name {key}")
    return VocabularyListCategoricalColumn(key, tuple(vocabulary.tolist()), "int64",
                                           int(default_value), 0)


class IndicatorColumn(_DenseColumn, collections.namedtuple("IndicatorColumn",
                                                           ["categorical_column"])):
    """``indicator_column``'s column: how often each id occurs in an example (multi-hot)."""

    name = property(lambda self: f"{self.categorical_column.name}_indicator")
    variable_shape = property(lambda self: (self.categorical_column.num_buckets,))

    def _dense(self, features) -> Symbol:
        ids = self.categorical_column._ids(features)  # one_hot of -1 is all zeros
        hot = one_hot(ids, self.categorical_column.num_buckets, dtype="float32")
        weights = self.categorical_column._id_weights(features)
        if weights is not None:  # TF's sparse_merge: each id's weight, negative ones too
            hot = hot * expand_dims(weights, -1)
        return reduce_sum(hot, axis=-2)


def indicator_column(categorical_column):
    """A dense column of ``categorical_column``'s ids, one-hot (multi-hot, summed, for several
    ids per example)."""
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(  # noqa: TRY004 - TF's
            f"categorical_column must be a categorical column. Given: {categorical_column}")
    return IndicatorColumn(categorical_column)


def _combine(weights: Symbol, ids: Symbol, combiner: str, column: str,
             id_weights=None) -> Symbol:
    """TF's ``safe_embedding_lookup_sparse``: the rows of ``weights`` at each example's ids
    (negative: none) combined by ``combiner``, weighted by ``id_weights`` when given (an id
    of weight <= 0 dropped for a mean or sqrtn, as TF prunes them); an example without ids gets zeros.  An id
    past the rows is TF's InvalidArgumentError, naming the column."""
    rows = weights.get_shape().as_list()[0]
    in_range = check_ops.assert_less(ids, constant(rows, dtype="int64"), message=(
        f"Column {column!r}: ids must be below its {rows} buckets"))
    with control_dependencies([in_range]):
        ids = identity(ids)
    present = cast(greater_equal(ids, 0), weights.dtype)  # [batch, n]
    if id_weights is not None:  # TF prunes the weights <= 0 except for a sum
        present = present * id_weights * (
            1.0 if combiner == "sum" else cast(id_weights > 0, weights.dtype))
    rows = gather(weights, maximum(ids, 0)) * expand_dims(present, -1)
    total = reduce_sum(rows, axis=1)
    if combiner == "sum":
        return total
    if combiner == "mean":  # TF's: over the weights' sum (the count when unweighted)
        return total / _nonzero(reduce_sum(present, axis=1, keepdims=True))
    return total * rsqrt(_nonzero(reduce_sum(present * present, axis=1, keepdims=True)))


def _nonzero(total: Symbol) -> Symbol:
    """``total`` with its zeros (an example without ids, whose sum is zero) as ones."""
    return where(equal(total, 0.0), total * 0.0 + 1.0, total)


_COMBINERS = ("mean", "sqrtn", "sum")


class EmbeddingColumn(_DenseColumn, collections.namedtuple(
        "EmbeddingColumn", ["categorical_column", "dimension", "combiner", "initializer",
                            "trainable"])):
    """``embedding_column``'s column: the ids' rows of ``embedding_weights`` combined."""

    _has_variables = True  # input_layer / linear_model pass it their collections
    name = property(lambda self: f"{self.categorical_column.name}_embedding")
    variable_shape = property(lambda self: (self.dimension,))

    def _dense(self, features, collections=None, trainable=True) -> Symbol:
        weights = get_variable("embedding_weights", shape=[
            self.categorical_column.num_buckets, self.dimension], dtype="float32",
            initializer=self.initializer, trainable=self.trainable and trainable,
            collections=collections)
        return _combine(weights, self.categorical_column._ids(features), self.combiner,
                        self.name, self.categorical_column._id_weights(features))


def check_embedding_arguments(what, dimension, ckpt_to_load_from, tensor_name_in_ckpt,
                              max_norm):
    """TF's checks of an embedding column's arguments (``what``: the function's name), and
    TinyFlow's refusal of a checkpoint to load from and of ``max_norm``."""
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or "
                         "none of them.")
    if ckpt_to_load_from is not None or max_norm is not None:
        raise ValueError(f"{what}: ckpt_to_load_from and max_norm are not supported by "
                         f"TinyFlow")


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True):
    """A dense column of ``dimension`` values per example: the rows of a variable
    ``embedding_weights`` ``[num_buckets, dimension]`` at the example's ids, combined by
    ``combiner`` (``mean``, ``sqrtn`` or ``sum``); an example without ids gets zeros.
    ``initializer`` defaults to TF's ``truncated_normal_initializer(0, 1/sqrt(dimension))``.
    """
    check_embedding_arguments("embedding_column", dimension, ckpt_to_load_from,
                              tensor_name_in_ckpt, max_norm)
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Embedding of column_name: "
                         f"{categorical_column.name}")
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of {_COMBINERS}, given {combiner!r}")
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(  # noqa: TRY004 - TF's
            f"categorical_column must be a categorical column. Given: {categorical_column}")
    initializer = initializer or truncated_normal_initializer(
        mean=0.0, stddev=1 / math.sqrt(dimension))
    return EmbeddingColumn(categorical_column, int(dimension), combiner, initializer,
                           trainable)


# -- input_layer and linear_model -----------------------------------------------------------
def _columns(feature_columns, kinds, message: str) -> list:
    """The columns sorted by name, each of ``kinds``, the names unique (TF's checks)."""
    if isinstance(feature_columns, _FeatureColumn):
        feature_columns = [feature_columns]
    columns = list(feature_columns or ())
    if not columns:
        raise ValueError("Expected feature_columns to be iterable, found dict." if isinstance(
            feature_columns, dict) else "feature_columns must not be empty.")
    names = set()
    for column in columns:
        if not isinstance(column, kinds):
            raise ValueError(f"{message} Given: {column}")  # noqa: TRY004 - TF's
        if column.name in names:
            raise ValueError(f"Duplicate feature column name found for columns: {column} and "
                             f"another. Each column must have a unique name.")
        names.add(column.name)
    return sorted(columns, key=lambda c: c.name)


def _flat_dense(column, features, collections, trainable) -> Symbol:
    """A dense column's value as ``[batch, size]``, its size per example checked (TF's
    reshape would fail as it runs)."""
    value = column._dense(features, collections, trainable) if getattr(
        column, "_has_variables", False) else column._dense(features)
    size, dims = column._num_elements(), value.get_shape().as_list()
    if any(d is None for d in dims[1:]) or math.prod(dims[1:]) != size:
        raise ValueError(f"Column {column.name!r} holds {size} values per example, its "
                         f"feature's value has shape {dims} (the batch first)")
    return reshape(value, [-1, size])


def _checked_features(features) -> dict:
    if not isinstance(features, dict):
        raise ValueError(  # noqa: TRY004 - TF's
            f"features should be a dictionary of Tensors, given {type(features).__name__}")
    return features


def _collections(weight_collections) -> list:
    return list(dict.fromkeys([*(weight_collections or []), *_MODEL_COLLECTIONS]))


def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):
    """The dense columns' values ``[batch, sum of their sizes]``: the columns sorted by name,
    each's value flattened per example and concatenated, under the variable scope
    ``input_layer/<column name>``.

    Parameters
    ----------
    features : dict
        ``{key: tensor}`` the columns read.
    feature_columns : iterable
        Dense columns (numeric, bucketized, indicator, embedding).
    cols_to_vars, cols_to_output_tensors : dict, optional
        Filled with each column's variables and its output.
    """
    features = _checked_features(features)
    columns = _columns(feature_columns, _DenseColumn, "Items of feature_columns must be a "
                       "_DenseColumn. You can wrap a categorical column with an "
                       "embedding_column or indicator_column.")
    collections = _collections(weight_collections)
    outputs = []
    with variable_scope(None, default_name="input_layer"):
        for column in columns:
            with variable_scope(None, default_name=column._var_scope_name) as scope:
                output = _flat_dense(column, features, collections, trainable)
                if cols_to_vars is not None:
                    cols_to_vars[column] = [v for v in global_variables()
                                            if v.name.startswith(scope.name + "/")]
            outputs.append(output)
            if cols_to_output_tensors is not None:
                cols_to_output_tensors[column] = output
        return concat(outputs, 1)


def linear_model(features, feature_columns, units=1, sparse_combiner="sum",
                 weight_collections=None, trainable=True, cols_to_vars=None):
    """A weighted sum of the columns plus a bias, ``[batch, units]``: a dense column's value
    times its ``weights`` ``[size, units]``, a categorical column's ids' rows of its
    ``weights`` ``[num_buckets, units]`` combined by ``sparse_combiner``; the variables
    ``linear_model/<column name>/weights`` and ``linear_model/bias_weights``, all initially
    zero."""
    features = _checked_features(features)
    columns = _columns(feature_columns, (_DenseColumn, _CategoricalColumn), "Items of "
                       "feature_columns must be either a _DenseColumn or _CategoricalColumn.")
    if sparse_combiner not in _COMBINERS:
        raise ValueError(f"sparse_combiner must be one of {_COMBINERS}, given "
                         f"{sparse_combiner!r}")
    collections = _collections(weight_collections)
    sums, made = [], {}
    with variable_scope(None, default_name="linear_model"):
        for column in columns:
            with variable_scope(None, default_name=column._var_scope_name):
                sums.append(_weighted_sum(column, features, units, sparse_combiner,
                                          collections, trainable, made))
        predictions_no_bias = add_n(sums, name="weighted_sum_no_bias")
        bias = get_variable("bias_weights", shape=[units], dtype="float32",
                            initializer=zeros_initializer(), trainable=trainable,
                            collections=collections)
        made["bias"] = [bias]
        if cols_to_vars is not None:
            cols_to_vars.update(made)
        return bias_add(predictions_no_bias, bias, name="weighted_sum")


def _weighted_sum(column, features, units, sparse_combiner, collections, trainable, made):
    categorical = isinstance(column, _CategoricalColumn)
    rows = column.num_buckets if categorical else column._num_elements()
    weights = get_variable("weights", shape=[rows, units], dtype="float32",
                           initializer=zeros_initializer(), trainable=trainable,
                           collections=collections)
    made[column] = [weights]
    if categorical:
        return _combine(weights, column._ids(features), sparse_combiner, column.name,
                        column._id_weights(features))
    return matmul(_flat_dense(column, features, collections, trainable), weights)
