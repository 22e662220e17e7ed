"""test_ops' table for tf.bitwise's ops and bitcast (tinyflow/ops/math.py): integer bits, no
gradient, so each has dedicated tests against values recorded from TensorFlow, with memory
planning on and off (tests/test_tf_bitwise.py)."""

_BITS = "test_tf_bitwise.py::"

SPECIAL_TESTS = {
    "bitwise_and": [_BITS + "test_bitwise_values_as_tensorflow"],
    "bitwise_or": [_BITS + "test_bitwise_values_as_tensorflow"],
    "bitwise_xor": [_BITS + "test_bitwise_values_as_tensorflow"],
    "invert": [_BITS + "test_bitwise_values_as_tensorflow"],
    "left_shift": [_BITS + "test_shifts_out_of_range_as_tensorflow"],
    "right_shift": [_BITS + "test_shifts_out_of_range_as_tensorflow"],
    "bitcast": [_BITS + "test_bitcast_values_and_shapes_as_tensorflow",
                _BITS + "test_bitcast_shape_errors_as_tensorflow"],
}


def add_cases(add):
    """None: see SPECIAL_TESTS."""
