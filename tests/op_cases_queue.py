"""test_ops' table for the ops of tinyflow/ops/queue.py (TF-1's queues and readers): each
waits on, changes or reads Python state of a session (a queue's elements, a reader's place in
its files), so each has dedicated tests against real TensorFlow's results in test_queues.py."""

_Q = "test_queues.py::"

SPECIAL_TESTS = {
    "queue_dequeue": [_Q + "test_fifo_queue_by_hand",
                      _Q + "test_random_shuffle_queue_keeps_min_after_dequeue"],
    "queue_enqueue": [_Q + "test_fifo_queue_by_hand",
                      _Q + "test_queue_shapes_and_types_are_checked"],
    "queue_close": [_Q + "test_fifo_queue_by_hand"],
    "queue_size": [_Q + "test_random_shuffle_queue_keeps_min_after_dequeue"],
    "epoch_limit": [_Q + "test_slice_input_producer_and_batch_give_tensorflows_batches_in_order",
                    _Q + "test_an_uninitialised_epoch_counter_stops_the_coordinator_with_the_error"],
    "shuffle_strings": [_Q + "test_text_line_and_whole_file_readers"],
    "reader_read": [_Q + "test_cifar10_input_reads_the_binary_format",
                    _Q + "test_text_line_and_whole_file_readers"],
    "decode_raw": [_Q + "test_decode_raw_of_strings",
                   _Q + "test_cifar10_input_reads_the_binary_format"],
}


def add_cases(add):
    """No table cases: the ops above are covered by the tests SPECIAL_TESTS names."""
