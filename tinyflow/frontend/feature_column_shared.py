"""TF 1.15's v1 ``tf.feature_column.shared_embedding_columns``: embedding columns over several
categorical columns of the same kind and number of buckets that read one variable.

The first column whose value is built creates ``embedding_weights`` under the variable scope
of the shared name (``input_layer/<name>/embedding_weights``, ``<name>`` by default the
columns' names sorted, joined by ``_``, then ``_shared_embedding``) and adds it to the graph's
collection of that name; every other column, in this or another ``input_layer`` /
``linear_model``, reads the collection's variable, as TF's ``_SharedEmbeddingColumn``.
"""
from __future__ import annotations

import collections
import math

from ..nnvm.symbol import Symbol
from . import feature_column as fc
from .feature_column_lookup import WeightedCategoricalColumn, _spec
from .framework import add_to_collection, get_collection
from .init_ops import truncated_normal_initializer
from .variable_scope import get_variable

__all__ = ["shared_embedding_columns"]


class SharedEmbeddingColumn(fc._DenseColumn, collections.namedtuple(
        "SharedEmbeddingColumn", ["categorical_column", "dimension", "combiner", "initializer",
                                  "shared_embedding_collection_name", "trainable"])):
    """``shared_embedding_columns``' column: its ids' rows of the shared variable combined."""

    _has_variables = True  # input_layer / linear_model pass it their collections
    name = property(lambda self: f"{self.categorical_column.name}_shared_embedding")
    variable_shape = property(lambda self: (self.dimension,))
    _var_scope_name = property(lambda self: self.shared_embedding_collection_name)
    _parse_example_spec = property(lambda self: _spec(self.categorical_column))

    def _dense(self, features, collections=None, trainable=True) -> Symbol:
        shape = [self.categorical_column.num_buckets, self.dimension]
        shared = get_collection(self.shared_embedding_collection_name)
        if shared:
            weights = shared[0]
            if weights.get_shape().as_list() != shape:
                raise ValueError(f"Shared embedding collection "
                                 f"{self.shared_embedding_collection_name} contains variable "
                                 f"{weights.name} of unexpected shape "
                                 f"{weights.get_shape().as_list()}. Expected shape is {shape}.")
        else:
            weights = get_variable("embedding_weights", shape=shape, dtype="float32",
                                   initializer=self.initializer,
                                   trainable=self.trainable and trainable,
                                   collections=collections)
            add_to_collection(self.shared_embedding_collection_name, weights)
        return fc._combine(weights, self.categorical_column._ids(features), self.combiner,
                           self.name, self.categorical_column._id_weights(features))


def _kind(column):
    """The kind of categorical column TF compares: a weighted column's own column's."""
    return type(column.categorical_column if isinstance(column, WeightedCategoricalColumn)
                else column)


def shared_embedding_columns(categorical_columns, dimension, combiner="mean", initializer=None,
                             shared_embedding_collection_name=None, ckpt_to_load_from=None,
                             tensor_name_in_ckpt=None, max_norm=None, trainable=True):
    """Embedding columns, one per categorical column (in the order given), reading one
    variable ``embedding_weights`` ``[num_buckets, dimension]``: the columns must be of one kind
    (weighted or not) and have the same number of buckets.  ``combiner`` and ``initializer``
    as ``embedding_column``'s; ``shared_embedding_collection_name`` names the variable's scope
    and collection (default: the columns' names sorted, joined by ``_``, then
    ``_shared_embedding``)."""
    fc.check_embedding_arguments("shared_embedding_columns", dimension, ckpt_to_load_from,
                                 tensor_name_in_ckpt, max_norm)
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified.")
    if combiner not in fc._COMBINERS:
        raise ValueError(f"combiner must be one of {fc._COMBINERS}, given {combiner!r}")
    columns = list(categorical_columns or ())
    if not columns:
        raise ValueError("categorical_columns must not be empty.")
    for column in columns:
        if not isinstance(column, fc._CategoricalColumn):
            raise ValueError(  # noqa: TRY004 - TF's
                f"All categorical_columns must be subclasses of _CategoricalColumn. Given: "
                f"{column}, of type: {type(column)}")
        _check_matches(column, columns[0])
    name = shared_embedding_collection_name or "_".join(
        sorted(c.name for c in columns)) + "_shared_embedding"
    initializer = initializer or truncated_normal_initializer(
        mean=0.0, stddev=1 / math.sqrt(dimension))
    return [SharedEmbeddingColumn(c, int(dimension), combiner, initializer, name, trainable)
            for c in columns]


def _check_matches(column, first) -> None:
    if _kind(column) is not _kind(first):
        raise ValueError(f"To use shared_embedding_column, all categorical_columns must have "
                         f"the same type, or be weighted_categorical_column of the same type. "
                         f"Given column: {column} of type: {_kind(column).__name__} does not "
                         f"match given column: {first} of type: {_kind(first).__name__}")
    if column.num_buckets != first.num_buckets:
        raise ValueError(f"To use shared_embedding_column, all categorical_columns must have "
                         f"the same number of buckets. Given column: {first} with buckets: "
                         f"{first.num_buckets} does not match column: {column} with buckets: "
                         f"{column.num_buckets}")
