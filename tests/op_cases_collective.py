"""test_ops' table for the collectives of tinyflow/ops/collective.py: they need a world of
ranks, so tests/test_distributed.py tests them with two gloo processes on this machine (values
and Horovod's gradient rules against hand-computed sums, buckets through whole training runs
against one process)."""

_DIST = "test_distributed.py::"

SPECIAL_TESTS = {
    "_allreduce": [_DIST + "test_collective_values_and_gradients",
                   _DIST + "test_ranks_disagreeing_on_a_shape_get_a_clear_error",
                   _DIST + "test_ranks_running_executors_cached_for_other_shapes_get_a_clear_error"],
    "_allgather": [_DIST + "test_collective_values_and_gradients"],
    "_broadcast": [_DIST + "test_collective_values_and_gradients",
                   _DIST + "test_broadcast_global_variables_makes_ranks_equal"],
    "_allreduce_start": [_DIST + "test_two_ranks_follow_one_process_with_the_whole_batch",
                         _DIST + "test_a_failing_rank_makes_the_others_fail_in_bounded_time"],
    "_allreduce_wait": [_DIST + "test_two_ranks_follow_one_process_with_the_whole_batch"],
}


def add_cases(add):
    """No table cases: the ops above are covered by the tests SPECIAL_TESTS names."""
