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
    # a tf.cond's Switch and guard: against real TF's numbers there
    "branch_input": [
        "test_cond_gradient.py::test_a_branch_not_taken_sends_no_nan_gradient_against_tensorflow",
        "test_cond_gradient.py::test_variables_read_in_one_branch_against_tensorflow"],
    # the head of a cond output its branches give in two shapes: against real TF's gradients
    "_branch_head": [
        "test_tf_control_flow.py::test_cond_branches_of_two_shapes_and_their_gradients"],
    "branch_guard": [
        "test_cond_gradient.py::test_the_branch_not_taken_does_not_run_against_tensorflow",
        "test_cond_gradient.py::test_the_branch_not_taken_draws_no_random_numbers"],
    "tensor_array_write": ["test_tensor_array.py::test_write_read_stack_and_their_gradients",
                           "test_tensor_array.py::test_write_gradient_by_finite_differences"],
}


def add_cases(add):
    """No table cases: see SPECIAL_TESTS."""
