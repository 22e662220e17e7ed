"""test_ops' table for tf.sets' ops (set_operation, set_size in tinyflow/ops/sparse.py): sized
as they run, integers, no gradient, so each has dedicated tests against values recorded from
TensorFlow, with memory planning on and off (tests/test_tf_sets.py)."""

_SETS = "test_tf_sets.py::"

SPECIAL_TESTS = {
    "set_operation": [_SETS + "test_dense_set_operations_as_tensorflow",
                      _SETS + "test_sparse_set_operations_and_sizes_as_tensorflow",
                      _SETS + "test_fed_shapes_and_hostile_sparse_operands_are_errors_naming_the_node"],
    "set_size": [_SETS + "test_sparse_set_operations_and_sizes_as_tensorflow",
                 _SETS + "test_fed_shapes_and_hostile_sparse_operands_are_errors_naming_the_node"],
}


def add_cases(add):
    """None: see SPECIAL_TESTS."""
