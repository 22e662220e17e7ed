"""test_ops' table for the ops of tinyflow/ops/state.py (scatter_update, scatter_add,
scatter_sub, random_shuffle) and the ops computed in Python (print, py_func; tf.data's
iterator_get_next, iterator_init and iterator_string_handle, tested in test_tf_data.py):
each writes a variable, draws random numbers or runs Python, so each has dedicated tests
against numpy and TensorFlow's rules (tests/test_tf_control_flow.py, tests/test_tf_random.py)."""

_FLOW = "test_tf_control_flow.py::"

SPECIAL_TESTS = {
    "scatter_update": [_FLOW + "test_scatter_ops_against_numpy",
                       _FLOW + "test_scatter_reads_before_the_write"],
    "scatter_add": [_FLOW + "test_scatter_ops_against_numpy",
                    _FLOW + "test_scatter_add_sums_repeated_indices"],
    "scatter_sub": [_FLOW + "test_scatter_ops_against_numpy"],
    "random_shuffle": ["test_tf_random.py::test_random_shuffle_permutes_rows",
                       "test_tf_random.py::test_random_shuffle_seeds"],
    "print": [_FLOW + "test_print_fetched_prints_as_tensorflow",
              _FLOW + "test_print_inside_the_graph_and_its_gradient"],
    "py_func": [_FLOW + "test_py_func_fetched", _FLOW + "test_py_func_inside_the_graph"],
    "timestamp": ["test_tf_py_function.py::test_timestamp"],
    # tf.data's iterator ops: the element pulled before a run, the initializer
    "iterator_get_next": ["test_tf_data.py::test_get_next_advances_once_per_run",
                          "test_tf_data.py::test_slices_batch_values_and_static_shapes"],
    "iterator_init": ["test_tf_data.py::test_initializable_iterator_fed_from_placeholders",
                      "test_tf_data.py::test_out_of_range_leaves_variables_and_session_usable"],
    "iterator_string_handle": [
        "test_tf_data.py::test_feedable_iterator_pulls_from_the_iterator_its_fed_handle_names"],
    # which variables hold a value (tf.is_variable_initialized...), pulled before the run
    "variables_initialized": ["test_tf_toplevel_names.py::test_which_variables_hold_a_value"],
}


def add_cases(add):
    """No table cases: the ops above are covered by the tests SPECIAL_TESTS names."""
