"""``tf.feature_column``: TensorFlow 1.15's v1 columns, feature_column.py's (numeric,
bucketized, identity, vocabulary list, indicator, embedding; ``input_layer``,
``linear_model``), feature_column_cross.py's ``crossed_column``, feature_column_shared.py's
``shared_embedding_columns`` and feature_column_lookup.py's (hash bucket, vocabulary file,
weighted; ``make_parse_example_spec``); another name is feature_column.py's AttributeError.
"""
from __future__ import annotations

from . import feature_column as _columns
from .feature_column import *
from .feature_column_cross import *
from .feature_column_lookup import *
from .feature_column_shared import *

__all__ = ["bucketized_column", "categorical_column_with_hash_bucket",
           "categorical_column_with_identity", "categorical_column_with_vocabulary_file",
           "categorical_column_with_vocabulary_list", "crossed_column", "embedding_column",
           "indicator_column", "input_layer", "linear_model", "make_parse_example_spec",
           "numeric_column", "shared_embedding_columns", "weighted_categorical_column"]


def __getattr__(name):
    return getattr(_columns, name)  # its error, saying why where it knows
