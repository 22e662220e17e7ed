"""TensorFlow 1.15's RNN functions: ``static_rnn``, ``static_bidirectional_rnn``,
``dynamic_rnn`` and ``bidirectional_dynamic_rnn`` (``tf.nn.*``, ``tf.contrib.rnn.*``).

``static_rnn`` unrolls the recurrence when the graph is built, one cell call per input.
``dynamic_rnn`` is a ``tf.while_loop`` over time (:mod:`.rnn_loop`) when the number of time
steps is known only when a session binds (``[None, None, 28]``: it may change from run to run)
or a ``sequence_length`` is given; with a static number of steps and no lengths it unrolls as
``static_rnn`` does, which gives the same results and runs faster here
(``benchmarks/dynamic_rnn.py``).  The results are TensorFlow's, and so are the variables'
names (``rnn/basic_lstm_cell/kernel``, ``bidirectional_rnn/fw/...``).

``sequence_length`` (one length per example, a list or an int tensor, fed or computed) works as
TF's: an example's outputs at and past its length are zeros and its final state is the state
at its length (``_rnn_step``'s copy-through); the backward direction of a bidirectional RNN
reverses each example's first ``length`` steps only (``reverse_sequence``).
"""
from __future__ import annotations

import numpy as np

from ...nnvm.symbol import Symbol
from ..api import _tensor, cast
from ..array_ops import concat, reverse, shape, stack, transpose, unstack
from ..tensor_array import TensorArray
from ..variable_scope import variable_scope
from .rnn_cell import assert_like_rnncell, flatten, pack_sequence_as
from .rnn_loop import dynamic_rnn_loop, raw_rnn, reverse_sequence, rnn_step

__all__ = ["bidirectional_dynamic_rnn", "dynamic_rnn", "raw_rnn", "static_bidirectional_rnn",
           "static_rnn"]


def _lengths(sequence_length, batch, what: str):
    """``sequence_length`` as an int32 vector tensor (None stays None), checked as TF checks
    it: a vector, of one length per example where both are known now."""
    if sequence_length is None:
        return None
    lengths = _tensor(sequence_length) if isinstance(sequence_length, Symbol) else \
        _tensor(list(sequence_length)) if isinstance(sequence_length, (list, tuple)) else \
        _tensor(sequence_length)
    if lengths.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{what}: sequence_length must be an int32 or int64 vector, got "
                        f"{lengths.dtype.name} ('{lengths.name}')")
    known = lengths.get_shape()
    if known.ndims is not None and known.ndims != 1:
        raise ValueError(f"sequence_length must be a vector of length batch_size, but saw "
                         f"shape: {known}")
    if known.ndims == 1 and batch is not None and known[0].value not in (None, batch):
        raise ValueError(f"{what}: sequence_length has {known[0].value} entries for a batch "
                         f"of {batch} examples")
    return cast(lengths, "int32") if lengths.dtype.name != "int32" else lengths


def _initial_state(cell, first_input, initial_state, dtype, what: str):
    """``initial_state``, else the cell's zero state for ``first_input``'s batch (TF: static
    when known, else ``tf.shape(first_input)[0]``)."""
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError(f"{what}: If no initial_state is provided, dtype must be specified")
    if not isinstance(first_input, Symbol):
        raise TypeError(f"{what}: inputs must be tensors, got {type(first_input).__name__}")
    batch = first_input.get_shape()
    if batch.ndims is None:
        raise ValueError(f"{what}: the inputs' rank must be known, got shape {batch}")
    batch_size = batch[0].value
    if batch_size is None:
        batch_size = shape(first_input)[0]
    return cell.zero_state(batch_size, dtype)


def _run_cell(cell, step_inputs, state, varscope, lengths=None):
    """Call ``cell`` on each step's input in turn: ``(outputs, final state)``; with
    ``lengths``, TF's copy-through past each example's length."""
    outputs = []
    for time, step_input in enumerate(step_inputs):
        if time > 0:
            varscope.reuse_variables()
        output, new_state = cell(step_input, state)
        if lengths is not None:
            output, new_state = rnn_step(time, lengths, state, output, new_state)
        state = new_state
        outputs.append(output)
    return outputs, state


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None) -> tuple:
    """Run ``cell`` over ``inputs``, a list of ``[batch, depth]`` tensors (one per time step).

    Parameters
    ----------
    cell : RNNCell
    inputs : list of Symbol (or of nested structures of them)
    initial_state : state structure, optional
        Default: the cell's zero state, of ``dtype`` (then required).
    dtype : DType, optional
    sequence_length : int vector (list or tensor), optional
        Per example, its number of steps: outputs past it are zeros, and the final state is
        the one at it.
    scope : str or VariableScope, optional
        Default ``"rnn"``.

    Returns
    -------
    (outputs, state)
        The list of the cell's outputs, one per step, and the final state.
    """
    assert_like_rnncell("cell", cell)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("static_rnn: inputs must be a sequence (a list of tensors, one per "
                        "time step)")
    if not inputs:
        raise ValueError("static_rnn: inputs must not be empty")
    first = flatten(inputs[0])[0]
    shape = first.get_shape() if isinstance(first, Symbol) else None
    batch = shape[0].value if shape is not None and shape.ndims else None
    with variable_scope(scope or "rnn") as varscope:
        lengths = _lengths(sequence_length, batch, "static_rnn")
        state = _initial_state(cell, first, initial_state, dtype, "static_rnn")
        fused = cell._sequence(inputs, state) if lengths is None and hasattr(
            cell, "_sequence") else None  # one node for the whole sequence (BasicLSTMCell)
        return fused if fused is not None else _run_cell(cell, inputs, state, varscope, lengths)


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                             initial_state_bw=None, dtype=None, sequence_length=None,
                             scope=None) -> tuple:
    """``cell_fw`` over ``inputs`` and ``cell_bw`` over them in reverse, under
    ``<scope or "bidirectional_rnn">/fw`` and ``/bw``.

    Returns
    -------
    (outputs, output_state_fw, output_state_bw)
        ``outputs[t] = concat([fw output t, bw output t], 1)`` (the backward outputs put back in
        time order) and the two final states.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError("static_bidirectional_rnn: inputs must be a non-empty list")
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                             sequence_length, scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            reversed_bw, state_bw = static_rnn(cell_bw, _reversed_steps(inputs, sequence_length),
                                               initial_state_bw, dtype, sequence_length,
                                               scope=bw_scope)
    output_bw = _reversed_steps(reversed_bw, sequence_length)
    outputs = [pack_sequence_as(fw, [concat([f, b], 1) for f, b in
                                     zip(flatten(fw), flatten(bw))])
               for fw, bw in zip(output_fw, output_bw)]
    return outputs, state_fw, state_bw


def _reversed_steps(steps: list, sequence_length) -> list:
    """A list of per-step structures in reverse (TF's ``_reverse_seq``): with lengths, each
    example's first ``length`` steps only."""
    if sequence_length is None:
        return list(steps)[::-1]
    flat = [flatten(step) for step in steps]
    lengths = _tensor(sequence_length) if not isinstance(sequence_length, Symbol) \
        else sequence_length
    columns = [unstack(reverse_sequence(stack([step[i] for step in flat]), lengths),
                       num=len(steps)) for i in range(len(flat[0]))]
    return [pack_sequence_as(steps[t], [column[t] for column in columns])
            for t in range(len(steps))]


def _as_tensors(inputs):
    """Arrays among ``inputs`` (a nested structure) as tensors, as TF's dynamic_rnn converts
    them; other values stay, for _time_steps to name."""
    return pack_sequence_as(inputs, [_tensor(t) if isinstance(t, np.ndarray) else t
                                     for t in flatten(inputs)])


def _time_steps(inputs, time_axis: int, what: str):
    """The number of time steps of every input tensor: an int, or None when it is known only
    when a session binds; the inputs' rank must be known."""
    steps = set()
    for tensor in flatten(inputs):
        if not isinstance(tensor, Symbol):
            raise TypeError(f"{what}: inputs must be tensors, got {type(tensor).__name__}")
        shape = tensor.get_shape()
        if shape.ndims is None:
            raise ValueError(f"{what}: the inputs' rank must be known, got '{tensor.name}' "
                             f"of unknown shape")
        if shape.ndims < 2:
            raise ValueError(f"{what}: Expected input tensor to have rank at least 2, got "
                             f"shape {shape}")
        steps.add(shape[time_axis].value)
    known = steps - {None}
    if len(known) > 1:
        raise ValueError(f"{what}: the inputs have different numbers of time steps: {known}")
    return known.pop() if known and None not in steps else None


def _batch_time_swapped(structure):
    """Each tensor with its first two axes swapped (TF's ``_transpose_batch_time``), its
    static shape too."""
    swapped = []
    for tensor in flatten(structure):
        known = tensor.get_shape().as_list()
        result = transpose(tensor, [1, 0] + list(range(2, len(known))))
        result.set_shape([known[1], known[0]] + known[2:])
        swapped.append(result)
    return pack_sequence_as(structure, swapped)


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None) -> tuple:
    """Run ``cell`` over the time axis of ``inputs`` (TF 1.15's ``tf.nn.dynamic_rnn``).

    Parameters
    ----------
    cell : RNNCell
    inputs : Symbol (or a nested structure of them)
        ``[batch, time, depth]``, or ``[time, batch, depth]`` with ``time_major``; the number
        of time steps may be unknown until a session binds (``[None, None, depth]``).
    sequence_length : int vector (list or int32/int64 tensor), optional
        Per example, its number of steps: its outputs from there on are zeros and its final
        state is the state there.
    initial_state : state structure, optional
        Default: the cell's zero state, of ``dtype`` (then required).
    dtype : DType, optional
    parallel_iterations, swap_memory
        Accepted for TensorFlow's signature; they do not change the results.
    time_major : bool
    scope : str or VariableScope, optional
        Default ``"rnn"``.

    Returns
    -------
    (outputs, state)
        The outputs ``[batch, time, output_size]`` (``[time, batch, ...]`` with
        ``time_major``) and the final state.
    """
    assert_like_rnncell("cell", cell)
    inputs = _as_tensors(inputs)
    time_axis = 0 if time_major else 1
    steps = _time_steps(inputs, time_axis, "dynamic_rnn")
    batch = flatten(inputs)[0].get_shape()[1 - time_axis].value
    with variable_scope(scope or "rnn") as varscope:
        lengths = _lengths(sequence_length, batch, "dynamic_rnn")
        if steps is not None and lengths is None:  # unrolled: the same results, faster
            unrolled = _unrolled(cell, inputs, steps, time_axis, initial_state, dtype, varscope)
            if unrolled is not None:
                return unrolled
        timed = inputs if time_major else _batch_time_swapped(inputs)
        first = flatten(timed)[0]
        state = _initial_state(cell, first[0], initial_state, dtype, "dynamic_rnn")
        outputs, state = dynamic_rnn_loop(cell, timed, state, lengths, dtype)
        return (outputs if time_major else _batch_time_swapped(outputs)), state


def _unrolled(cell, inputs, steps, time_axis, initial_state, dtype, varscope):
    """dynamic_rnn of a static number of steps, one cell call per step (None when the state
    holds TensorArrays)."""
    per_step = [unstack(tensor, num=steps, axis=time_axis) for tensor in flatten(inputs)]
    step_inputs = [pack_sequence_as(inputs, [parts[t] for parts in per_step])
                   for t in range(steps)]
    state = _initial_state(cell, per_step[0][0], initial_state, dtype, "dynamic_rnn")
    if any(isinstance(leaf, TensorArray) for leaf in flatten(state)):
        return None  # AttentionWrapper's alignment_history: a TensorArray grows in a loop only
    outputs, state = _run_cell(cell, step_inputs, state, varscope)
    flat = [flatten(output) for output in outputs]
    stacked = [stack([step[i] for step in flat], axis=time_axis) for i in range(len(flat[0]))]
    return pack_sequence_as(outputs[0], stacked), state


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None) -> tuple:
    """:func:`dynamic_rnn` with ``cell_fw`` over ``inputs`` and ``cell_bw`` over them reversed
    in time (each example's first ``sequence_length`` steps, when given), under
    ``<scope or "bidirectional_rnn">/fw`` and ``/bw``.

    Returns
    -------
    ((output_fw, output_bw), (output_state_fw, output_state_bw))
        ``output_bw`` put back in time order.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis = 0 if time_major else 1

    def time_reversed(structure):
        if sequence_length is None:
            return pack_sequence_as(structure, [reverse(t, [time_axis])
                                                for t in flatten(structure)])
        lengths = _tensor(sequence_length) if not isinstance(sequence_length, Symbol) \
            else sequence_length
        timed = structure if time_major else _batch_time_swapped(structure)
        flipped = pack_sequence_as(timed, [reverse_sequence(t, lengths)
                                           for t in flatten(timed)])
        return flipped if time_major else _batch_time_swapped(flipped)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(
                cell_fw, inputs, sequence_length, initial_state_fw, dtype,
                time_major=time_major, scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            reversed_bw, state_bw = dynamic_rnn(
                cell_bw, time_reversed(inputs), sequence_length, initial_state_bw, dtype,
                time_major=time_major, scope=bw_scope)
    return (output_fw, time_reversed(reversed_bw)), (state_fw, state_bw)
