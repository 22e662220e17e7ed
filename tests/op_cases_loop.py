"""test_ops' table for the loop ops (issue 25): they hold subgraphs and take int indices, so
each has tests of its own, against numpy, PyTorch autograd and finite differences."""

SPECIAL_TESTS = {
    "while_loop": ["test_while_loop.py::test_counter_and_doubling",
                   "test_while_loop.py::test_loops_inside_loops"],
    "_while_loop_backward": [
        "test_while_loop.py::test_x_to_the_n_and_its_gradient_against_torch",
        "test_while_loop.py::test_matmul_by_a_variable_against_torch_and_finite_differences"],
    "tensor_array_zeros": [
        "test_tensor_array.py::test_an_rnn_of_unknown_batch_and_length_against_torch"],
    "if": [("test_tf_control_flow.py::test_cond_runs_only_the_taken_branch_of_one_that_"
            "writes_a_variable")],
    "tensor_array_write": ["test_tensor_array.py::test_write_read_stack_and_their_gradients",
                           "test_tensor_array.py::test_write_gradient_by_finite_differences"],
}


def add_cases(add):
    """No table cases: see SPECIAL_TESTS."""
