"""``dynamic_rnn``'s loop over time (TensorFlow 1.15's ``_dynamic_rnn_loop``) and what it
shares with the unrolled RNNs: TF's ``_rnn_step`` copy-through and ``reverse_sequence``; and
``tf.nn.raw_rnn``, the loop whose every step a ``loop_fn`` steers.

The loop is one ``tf.while_loop`` (:mod:`tinyflow.frontend.loops`) over
``(time, output buffers, state)``: the body reads the inputs of step ``time`` (a time-major
tensor the loop captures), calls the cell, and writes its output into row ``time`` of a
``[time, batch, size]`` buffer (op ``tensor_array_write``: TF's output TensorArray).  The
number of steps is the inputs' time dimension, known when a session binds (it may differ from
one run to the next: ``[None, None, 28]``); with ``sequence_length`` the loop stops after the
longest example, as TF's ``loop_bound``, and rows never written stay zeros, as TF's unwritten
TensorArray elements.  The cell's variables, made by its first call inside the body, are
captured by the loop, so ``tf.gradients`` reaches them through the loop's gradient.
"""
from __future__ import annotations

from ...nnvm.symbol import Symbol, create_op
from ..api import (
    _tensor,
    add,
    cast,
    greater_equal,
    less,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    placeholder_with_default,
    reduce_all,
    reduce_max,
    subtract,
    where,
)
from ..array_ops import expand_dims, gather_dense, reshape, shape, stack, zeros
from ..array_ops import range as int_range
from ..loops import while_loop
from ..nest import flatten as flatten_nest
from ..nest import pack
from ..tensor_array import TensorArray
from ..variable_scope import variable_scope
from .rnn_cell import assert_like_rnncell, flatten, pack_sequence_as

__all__ = ["raw_rnn"]


def rnn_step(time, sequence_length, state, new_output, new_state):
    """TF's ``_rnn_step`` (``skip_conditionals``): for an example at or past its length the
    output is zeros and the state the one it had; ``(output, state)``, nested as given."""
    copy = greater_equal(time, sequence_length)  # [batch] bool
    outputs = [where(copy, create_op("zeros_like", out), out) for out in flatten(new_output)]
    states = [new if isinstance(new, TensorArray) else where(copy, old, new)  # TF's too
              for old, new in zip(flatten(state), flatten(new_state))]
    return pack_sequence_as(new_output, outputs), pack_sequence_as(new_state, states)


def _size(tensor: Symbol, axis: int):
    """``tensor``'s size along ``axis``: an int when static, else an int32 scalar tensor."""
    known = tensor.get_shape()
    if known.ndims is not None and known[axis].value is not None:
        return int(known[axis].value)
    return shape(tensor)[axis]


def _counting(count):
    """``0, 1, ..., count - 1`` as int32: ``tf.range`` for an int, else written by a loop
    (TinyFlow's range takes Python numbers; a buffer's size may be a tensor folded at bind)."""
    if isinstance(count, int):
        return int_range(count)
    indices = zeros(stack([count]), dtype="int32")
    _, indices = while_loop(lambda i, _: less(i, count),
                            lambda i, rows: (i + 1, create_op("tensor_array_write", rows, i, i)),
                            [_tensor(0), indices], name="counting")
    return indices


def reverse_sequence(tensor: Symbol, lengths: Symbol) -> Symbol:
    """TF's ``reverse_sequence`` of a time-major ``[time, batch, ...]`` tensor: each example's
    first ``lengths[b]`` steps reversed, the rest as they were; a gather of its rows (so the
    gradient is the gather's)."""
    steps, batch = _size(tensor, 0), _size(tensor, 1)
    time = expand_dims(_counting(steps), 1)                   # [time, 1]
    lengths = expand_dims(cast(lengths, "int32"), 0)          # [1, batch]
    inside = cast(less(time, lengths), "int32")
    source = add(multiply(inside, subtract(subtract(lengths, 1), time)),
                 multiply(subtract(1, inside), time))         # [time, batch]
    rows = add(multiply(source, batch), expand_dims(_counting(batch), 0))
    known = tensor.get_shape().as_list()[2:]
    flat = reshape(tensor, [-1] + known)
    result = gather_dense(flat, reshape(rows, [-1]))
    if isinstance(steps, int) and isinstance(batch, int):
        return reshape(result, [steps, batch] + known)
    result = reshape(result, shape(tensor))
    result.set_shape(tensor.get_shape())
    return result


def _with_batch(tensor: Symbol, batch: int) -> Symbol:
    """``tensor`` [time, batch, ...] with the batch size the state knows (TF merges the
    shapes so): what the loop captures is then of that static shape."""
    # a copy whose static shape is declared, which what reads it sees (static inference does
    # not carry set_shape's hints forward)
    return placeholder_with_default(tensor, [None, batch] + tensor.get_shape().as_list()[2:],
                                    name="inputs_of_batch")


def dynamic_rnn_loop(cell, inputs, state, sequence_length, dtype=None):
    """The cell over the time-major ``inputs`` (a structure of ``[time, batch, ...]``
    tensors) from ``state``, as one while_loop: ``(outputs time-major, final state)``; the
    outputs are of ``dtype`` if given, else of the state's (TF's ``_infer_state_dtype``)."""
    flat_inputs = flatten(inputs)
    first = flat_inputs[0]
    steps, batch = _size(first, 0), _size(first, 1)
    dtype = dtype or flatten(state)[0].dtype
    sizes = flatten(cell.output_size)
    buffers = [zeros([steps, batch, int(size)], dtype=dtype, name="output_zeros")
               for size in sizes]
    bound = steps
    if sequence_length is not None:  # TF's loop_bound: at least one step, at most the inputs'
        bound = minimum(steps, maximum(1, reduce_max(sequence_length)))
    count = len(sizes)
    known_batch = next((t.get_shape()[0].value for t in flatten(state) if isinstance(
        t, Symbol) and t.get_shape().ndims and t.get_shape()[0].value is not None), None)
    if known_batch is not None and not isinstance(batch, int):
        flat_inputs = [_with_batch(x, known_batch) for x in flat_inputs]

    def body(time, *values):
        outputs_so_far, state_now = values[:count], pack_sequence_as(state, values[count:])
        step = pack_sequence_as(inputs, [gather_dense(x, time) for x in flat_inputs])
        output, new_state = cell(step, state_now)
        if sequence_length is not None:
            output, new_state = rnn_step(time, sequence_length, state_now, output, new_state)
        written = [create_op("tensor_array_write", buffer, time, out)
                   for buffer, out in zip(outputs_so_far, flatten(output))]
        for after, before in zip(written + flatten(new_state),
                                 list(outputs_so_far) + flatten(state_now)):
            if isinstance(after, Symbol):
                after.set_shape(before.get_shape())  # what static shapes lose through where
        return [time + 1] + written + flatten(new_state)

    results = while_loop(lambda time, *_: less(time, bound), body,
                         [_tensor(0)] + buffers + flatten(state),
                         maximum_iterations=steps if isinstance(steps, int) else None)
    for result, before in zip(results[1:], buffers + flatten(state)):
        if isinstance(result, Symbol):
            result.set_shape(before.get_shape())  # a loop variable keeps its shape
    outputs = pack_sequence_as(cell.output_size, results[1:1 + count])
    return outputs, pack_sequence_as(state, results[1 + count:])


def _repack(structure, flat):
    return pack(structure, iter(flat))


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None) -> tuple:
    """TF 1.15's ``tf.nn.raw_rnn``: ``loop_fn(time, cell_output, cell_state, loop_state)`` ->
    ``(elements_finished, next_input, next_cell_state, emit_output, next_loop_state)`` steers
    each step (called at time 0 with None for all but ``time``: its state is the initial one,
    its emit the structure of what is emitted, default ``cell.output_size``); the loop runs
    while any example is unfinished.  A finished example emits zeros and keeps its state.

    Returns
    -------
    ``(emit_ta, final_state, final_loop_state)``: TensorArrays (in the emit structure) of
    ``[batch, ...]`` rows, one per step; ``final_loop_state`` None when loop_fn gave none.
    """
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError("loop_fn must be a callable")
    with variable_scope(scope or "rnn"):
        time = _tensor(0)
        finished, first_input, state, emit_structure, loop_state = loop_fn(time, None, None,
                                                                           None)
        batch = flatten_nest(first_input)[0].get_shape()[0].value
        batch_size = batch if batch is not None else shape(flatten_nest(first_input)[0])[0]
        given_loop_state = loop_state is not None
        loop_state = loop_state if given_loop_state else _tensor(0)
        if emit_structure is None:
            emit_structure = cell.output_size
            flat_emit = [([int(size)], flatten(state)[0].dtype) for size in flatten_nest(
                emit_structure)]
        else:
            flat_emit = [(_static_row(e), e.dtype) for e in flatten_nest(emit_structure)]
        emit_ta = _repack(emit_structure, [
            TensorArray(dtype, size=0, dynamic_size=True, element_shape=[batch] + row,
                        name=f"rnn_output_{i}") for i, (row, dtype) in enumerate(flat_emit)])
        zero_emit = [zeros([batch_size, *row], dtype=dtype) for row, dtype in flat_emit]

        def body(time, finished, current_input, emit_ta, state, loop_state):
            output, cell_state = cell(current_input, state)
            (next_finished, next_input, next_state, emit,
             next_loop_state) = loop_fn(time + 1, output, cell_state, loop_state)
            loop_state = loop_state if next_loop_state is None else next_loop_state
            emit = [_copy_through(finished, zero, e)
                    for zero, e in zip(zero_emit, flatten_nest(emit))]
            next_state = _repack(state, [_copy_through(finished, old, new) for old, new in
                                         zip(flatten_nest(state), flatten_nest(next_state))])
            emit_ta = _repack(emit_ta, [ta.write(time, e)
                                        for ta, e in zip(flatten_nest(emit_ta), emit)])
            return (time + 1, logical_or(finished, next_finished), next_input, emit_ta,
                    next_state, loop_state)

        result = while_loop(lambda time, finished, *_: logical_not(reduce_all(finished)), body,
                            [time, finished, first_input, emit_ta, state, loop_state])
        return result[3], result[4], result[5] if given_loop_state else None


def _static_row(emit) -> list:
    """An emit structure's element's shape (per example), which must be known."""
    if not emit.get_shape().is_fully_defined():
        raise ValueError(f"raw_rnn: the emit structure's shapes must be known when the graph "
                         f"is built in TinyFlow, got {emit.get_shape()} ({emit.name})")
    return emit.get_shape().as_list()


def _copy_through(finished, current, candidate):
    """``where(finished, current, candidate)`` by example; a scalar is the candidate (TF)."""
    if candidate.get_shape().ndims == 0:
        return candidate
    return where(finished, current, candidate)
