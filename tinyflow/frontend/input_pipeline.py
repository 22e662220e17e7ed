"""TF-1's queue-based input functions of ``tf.train`` (TensorFlow 1.15's semantics):
``input_producer``, ``range_input_producer``, ``slice_input_producer``, ``limit_epochs``,
``batch``, ``shuffle_batch``, ``batch_join``, ``shuffle_batch_join``.

Each builds a queue (tinyflow/frontend/queues.py) and a ``QueueRunner`` of its enqueue ops in
the graph's ``QUEUE_RUNNERS`` collection, which ``tf.train.start_queue_runners`` starts
(tinyflow/frontend/queue_runner.py).  ``num_epochs`` counts in a local variable ``epochs``,
as TF does: run ``tf.local_variables_initializer()`` first.
"""
from __future__ import annotations

from ..nnvm.symbol import Symbol, create_op, current_context
from ..nnvm.variables import Variable
from ..ops import queue  # noqa: F401 - registers epoch_limit
from .api import assign_add
from .array_ops import gather
from .array_ops import range as range_
from .framework import GraphKeys
from .math_ops import convert_to_tensor
from .queue_runner import QueueRunner, add_queue_runner
from .queues import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue
from .random_ops import random_shuffle

__all__ = ["batch", "batch_join", "input_producer", "limit_epochs", "range_input_producer",
           "shuffle_batch", "shuffle_batch_join", "slice_input_producer", "string_input_producer"]


def limit_epochs(tensor, num_epochs=None, name=None) -> Symbol:
    """``tensor``, ``num_epochs`` times: the run after that raises ``OutOfRangeError`` (the
    count is a local variable ``epochs``; ``tf.local_variables_initializer()`` starts it)."""
    tensor = convert_to_tensor(tensor)
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with current_context().name_scope(name or "limit_epochs"):
        epochs = Variable(0, name="epochs", trainable=False, dtype="int64",
                          collections=[GraphKeys.LOCAL_VARIABLES])
        # TF's count_up_to: here the counter counts the run that fails too (one past the limit)
        return create_op("epoch_limit", tensor, assign_add(epochs, 1), limit=int(num_epochs),
                         name="limit_epochs")


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None,
                   capacity=32, shared_name=None, summary_name=None, name=None,
                   cancel_op=None) -> FIFOQueue:
    """A queue of the slices of ``input_tensor`` (along its first dimension), in order or
    shuffled anew each epoch, ``num_epochs`` times (None: forever), filled by a QueueRunner."""
    with current_context().name_scope(name or "input_producer"):
        input_tensor = convert_to_tensor(input_tensor)
        shape = input_tensor.shape[1:] if input_tensor.shape.ndims else input_tensor.shape
        if element_shape is not None:
            shape = shape.merge_with(element_shape)
        if not shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or "
                             "`element_shape` must be specified")
        if shuffle and input_tensor.dtype.name == "string":  # no executor buffer holds them
            seed1, seed2 = current_context().op_seeds(seed)
            input_tensor = create_op("shuffle_strings", input_tensor, seed=seed1, seed2=seed2,
                                     name="RandomShuffle")
        elif shuffle:
            input_tensor = random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        queue = FIFOQueue(capacity, [input_tensor.dtype], shapes=[shape],
                          name="input_producer")
        enqueue = queue.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(queue, [enqueue], cancel_op=cancel_op))
        return queue


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None,
                          capacity=32, shared_name=None, name=None, cancel_op=None) -> FIFOQueue:
    """A queue of the strings of ``string_tensor`` (file names for a reader), as
    :func:`input_producer`."""
    if not isinstance(string_tensor, Symbol) and not len(string_tensor):
        raise ValueError("string_input_producer requires a non-null input tensor")
    with current_context().name_scope(name or "input_producer") as scope:
        string_tensor = convert_to_tensor(string_tensor, dtype="string")
        return input_producer(string_tensor, [], num_epochs, shuffle, seed, capacity,
                              name=scope, cancel_op=cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None) -> FIFOQueue:
    """A queue of the integers ``0 .. limit - 1`` (int32), as :func:`input_producer`."""
    with current_context().name_scope(name or "input_producer") as scope:
        return input_producer(range_(limit), [], num_epochs, shuffle, seed, capacity,
                              name=scope)  # re-enters this scope, as TF's does


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None) -> list:
    """One slice (along the first dimension) of every tensor of ``tensor_list`` at a time, the
    same index in each, in order or shuffled anew each epoch."""
    with current_context().name_scope(name or "input_producer"):
        tensors = [convert_to_tensor(t) for t in tensor_list]
        if not tensors:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        size = tensors[0].shape[0].value if tensors[0].shape.ndims else None
        if size is None:
            raise ValueError("slice_input_producer needs the first dimension of "
                             f"{tensors[0].name} known when the graph is built")
        index = range_input_producer(size, num_epochs, shuffle, seed, capacity).dequeue()
        return [gather(t, index) for t in tensors]


def _as_list(tensors) -> list:
    if isinstance(tensors, dict):
        return [convert_to_tensor(tensors[k]) for k in sorted(tensors)]
    return [convert_to_tensor(t) for t in (tensors if isinstance(tensors, (list, tuple))
                                           else [tensors])]


def _as_original(tensors, dequeued):
    if isinstance(tensors, dict):
        dequeued = dequeued if isinstance(dequeued, list) else [dequeued]
        return {k: dequeued[i] for i, k in enumerate(sorted(tensors))}
    return dequeued


def _shapes(tensor_lists, shapes, enqueue_many, dynamic_pad=False) -> list:
    if shapes is not None:
        return shapes
    for tensor in (t for tl in tensor_lists for t in tl):
        if dynamic_pad and tensor.shape.ndims is None:
            raise ValueError(f"Cannot infer Tensor's rank: {tensor}")
    shapes = [t.shape[1:] if enqueue_many and t.shape.ndims else t.shape
              for t in tensor_lists[0]]
    if dynamic_pad:  # TF's _merge_shapes keeps the first list's (its merge is discarded)
        return shapes
    for others in tensor_lists[1:]:
        shapes = [s.merge_with(t.shape[1:] if enqueue_many else t.shape)
                  for s, t in zip(shapes, others)]
    if not all(s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    return shapes


def _batched(tensors_list, batch_size, capacity, enqueue_many, shapes, dynamic_pad,
             allow_smaller_final_batch, name, threads=1, shuffle=None):
    """The queue of a batch function, its runner, and the dequeued batch."""
    lists = [_as_list(t) for t in tensors_list]
    if any(len(tl) != len(lists[0]) for tl in lists):
        raise ValueError("Expected all inputs to have the same number of tensors")
    with current_context().name_scope(name):
        shapes = _shapes(lists, shapes, enqueue_many, dynamic_pad)
        dtypes = [t.dtype for t in lists[0]]
        queue = (PaddingFIFOQueue(capacity, dtypes, shapes) if dynamic_pad else
                 FIFOQueue(capacity, dtypes, shapes) if shuffle is None else
                 RandomShuffleQueue(capacity, shuffle[0], dtypes, shapes, seed=shuffle[1]))
        enqueue = queue.enqueue_many if enqueue_many else queue.enqueue
        ops = [enqueue(tl) for tl in lists] if len(lists) > 1 else [enqueue(lists[0])] * threads
        add_queue_runner(QueueRunner(queue, ops))
        dequeue = queue.dequeue_up_to if allow_smaller_final_batch else queue.dequeue_many
        return _as_original(tensors_list[0], dequeue(batch_size))


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
          dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """``tensors`` (a list or dict) stacked ``batch_size`` at a time, in the order a FIFO queue
    of ``capacity`` filled by ``num_threads`` threads gets them; with
    ``allow_smaller_final_batch`` the last batch of a closed queue may be smaller."""
    return _batched([tensors], batch_size, capacity, enqueue_many, shapes, dynamic_pad,
                    allow_smaller_final_batch, name or "batch", num_threads)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None,
                  enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                  shared_name=None, name=None):
    """As :func:`batch`, from a RandomShuffleQueue that keeps at least ``min_after_dequeue``
    elements after each dequeue until it is closed."""
    return _batched([tensors], batch_size, capacity, enqueue_many, shapes, False,
                    allow_smaller_final_batch, name or "shuffle_batch", num_threads,
                    (min_after_dequeue, seed))


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
               name=None):
    """As :func:`batch`, one thread per tensor list of ``tensors_list``, all into one queue."""
    return _batched(list(tensors_list), batch_size, capacity, enqueue_many, shapes,
                    dynamic_pad, allow_smaller_final_batch, name or "batch_join")


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):
    """As :func:`shuffle_batch`, one thread per tensor list of ``tensors_list``."""
    return _batched(list(tensors_list), batch_size, capacity, enqueue_many, shapes, False,
                    allow_smaller_final_batch, name or "shuffle_batch_join", 1,
                    (min_after_dequeue, seed))
