"""test_ops' table for the ops of tinyflow/ops/parsing.py (serialized tf.train.Example protos,
CSV records, a file's contents): each reads strings, which no executor buffer holds, so each has
dedicated tests against real TensorFlow's results in test_tfrecords.py."""

_T = "test_tfrecords.py::"

SPECIAL_TESTS = {
    "parse_example": [_T + "test_parse_single_example_gives_tensorflows_values",
                      _T + "test_parse_example_batches_as_tensorflow",
                      _T + "test_a_feature_missing_or_of_another_type_is_tensorflows_error",
                      _T + "test_parse_single_sequence_example_gives_tensorflows_values"],
    "decode_csv": [_T + "test_decode_csv_gives_tensorflows_columns",
                   _T + "test_decode_csv_errors_are_tensorflows"],
    "read_file": [_T + "test_text_lines_read_file_and_csv_in_a_pipeline"],
}


def add_cases(add):
    """No table cases: the ops above are covered by the tests SPECIAL_TESTS names."""
