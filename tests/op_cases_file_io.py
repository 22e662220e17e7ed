"""test_ops' table for the ops of tinyflow/ops/file_io.py (tf.io's files and a tensor's
TensorProto bytes): each reads or gives strings, which no executor buffer holds, so each has
dedicated tests against real TensorFlow's results in test_tf_io_files.py."""

_T = "test_tf_io_files.py::"

SPECIAL_TESTS = {
    "matching_files": [_T + "test_matching_files_as_tf",
                       _T + "test_matching_files_absolute_and_fed"],
    "write_file": [_T + "test_write_file_makes_folders_and_names_errors"],
    "serialize_tensor": [_T + "test_serialize_tensor_writes_tfs_bytes_and_parse_tensor_reads_them"],
    "parse_tensor": [_T + "test_serialize_tensor_writes_tfs_bytes_and_parse_tensor_reads_them",
                     _T + "test_parse_tensor_errors",
                     _T + "test_parse_tensor_checks_the_memory_a_shape_claims"],
}


def add_cases(add):
    """No table cases: the ops above are covered by the tests SPECIAL_TESTS names."""
