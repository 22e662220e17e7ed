"""test_ops' table for the ops of tinyflow/ops/audio.py (TF's WAV files): they read or write
strings, which the table's float cases cannot feed, so each has dedicated tests against real
TensorFlow's samples, bytes and errors."""

_T = "test_tf_audio.py::"

SPECIAL_TESTS = {
    "decode_wav": [_T + "test_encode_writes_tensorflows_file_and_decode_reads_it_as_tensorflow",
                   _T + "test_malformed_files_are_tensorflows_errors_naming_the_node",
                   _T + "test_a_file_asking_for_more_than_the_memory_is_refused"],
    "encode_wav": [_T + "test_encode_writes_tensorflows_file_and_decode_reads_it_as_tensorflow",
                   _T + "test_encode_errors_are_tensorflows"],
}


def add_cases(add):
    """No table cases: the ops above are covered by the tests SPECIAL_TESTS names."""
