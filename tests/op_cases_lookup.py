"""test_ops' table for the ops of tinyflow/ops/hashing.py, feature_cross.py,
lookup_tables.py and mutable_tables.py (TF's string hashes, feature crosses and lookup
tables): they read strings or a session's tables, which the table's float
cases cannot feed, so each has dedicated tests against real TensorFlow's results."""

_T = "test_lookup_tables.py::"
_M = "test_mutable_tables.py::"

SPECIAL_TESTS = {
    "string_to_hash_bucket": ["test_string_hash.py::test_hash_buckets_in_a_session",
                              "test_string_hash.py::test_hash_of_constant_and_computed_ids"],
    "sparse_cross_hashed": ["test_feature_column_cross.py::test_ids_are_tensorflows",
                            "test_feature_column_cross.py::test_linear_model_is_tensorflows"],
    "mutable_table_insert": [_M + "test_insert_remove_lookup_export_size_are_tensorflows",
                             _M + "test_a_bad_insert_leaves_the_table_as_it_was"],
    "mutable_table_remove": [_M + "test_insert_remove_lookup_export_size_are_tensorflows"],
    "mutable_table_find": [_M + "test_vector_values_and_contrib_name"],
    "mutable_table_export": [_M + "test_insert_remove_lookup_export_size_are_tensorflows"],
    "table_init": [_T + "test_lookup_before_and_after_initialization",
                   _T + "test_text_file_errors"],
    "table_lookup": [_T + "test_lookup_before_and_after_initialization",
                     _T + "test_vocabulary_table_hashes_out_of_vocabulary_keys"],
    "table_size": [_T + "test_lookup_before_and_after_initialization"],
}


def add_cases(add):
    """No table cases: the ops above are covered by the tests SPECIAL_TESTS names."""
