"""test_ops' table for the ops of tinyflow/ops/image_codecs.py (TF's image files): they read
or write strings, which the table's float cases cannot feed, so each has dedicated tests
against real TensorFlow's pixels and bytes."""

_T = "test_image_codecs.py::"

SPECIAL_TESTS = {
    "decode_image_file": [_T + "test_decode_png_files_as_tf", _T + "test_decode_bmp_as_tf",
                          _T + "test_decode_image_dispatches_by_magic_bytes",
                          _T + "test_hostile_png_files_are_errors_naming_the_node"],
    "encode_png": [_T + "test_encode_png_writes_files_tf_decodes"],
    "jpeg_header": [_T + "test_jpeg_header"],
}


def add_cases(add):
    """No table cases: the ops above are covered by the tests SPECIAL_TESTS names."""
