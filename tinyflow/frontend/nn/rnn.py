"""TensorFlow 1.15's RNN functions: ``static_rnn``, ``static_bidirectional_rnn``,
``dynamic_rnn`` and ``bidirectional_dynamic_rnn`` (``tf.nn.*``, ``tf.contrib.rnn.*``).

TinyFlow has no while loop: ``dynamic_rnn`` unrolls the recurrence when the graph is built, one
cell call per time step, so the number of steps must be known then (``[None, 28, 28]`` is fine,
``[None, None, 28]`` is a ValueError).  The results are TensorFlow's, and so are the variables'
names (``rnn/basic_lstm_cell/kernel``, ``bidirectional_rnn/fw/...``); memory planning lets the
steps' temporaries share storage.

Every example runs for every time step: a ``sequence_length`` with lengths shorter than the
sequence (TensorFlow then zeroes the outputs and carries the state past each example's end) is
not supported by TinyFlow, and one that is a tensor computed in the graph (a placeholder) cannot
be checked, so both are ValueErrors; a constant ``sequence_length`` equal to the full length
for every example is accepted, as it changes nothing.
"""
from __future__ import annotations

import numpy as np

from ...nnvm.symbol import Symbol
from ..array_ops import concat, reverse, shape, stack, unstack
from ..variable_scope import variable_scope
from .rnn_cell import assert_like_rnncell, flatten, pack_sequence_as

__all__ = ["bidirectional_dynamic_rnn", "dynamic_rnn", "static_bidirectional_rnn",
           "static_rnn"]


def _check_sequence_length(sequence_length, steps: int, batch, what: str) -> None:
    """Accept only lengths known now and equal to ``steps`` for every example (one per
    example: ``batch`` of them when that is known)."""
    if sequence_length is None:
        return
    if isinstance(sequence_length, Symbol):
        node = sequence_length.node
        if node.kind != "constant":
            raise ValueError(
                f"{what}: sequence_length computed in the graph (op '{node.kind}', node "
                f"'{node.name}') is not supported by TinyFlow: it runs every example for all "
                f"{steps} time steps and cannot check the lengths; leave sequence_length out, "
                f"or pad every example to the full length")
        lengths = np.asarray(node.attrs["value"]).reshape(node.attrs["shape"])
    else:
        lengths = np.asarray(sequence_length)
    if lengths.ndim != 1:
        raise ValueError(f"{what}: sequence_length must be a vector (one length per example), "
                         f"got shape {lengths.shape}")
    if batch is not None and len(lengths) != batch:
        raise ValueError(f"{what}: sequence_length has {len(lengths)} entries for a batch of "
                         f"{batch} examples")
    if (lengths != steps).any():
        raise ValueError(
            f"{what}: sequence_length {lengths.tolist()} has lengths other than the {steps} "
            f"time steps of the inputs; sequences of different lengths are not supported by "
            f"TinyFlow (it runs every example for all steps): pad them and mask the outputs")


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


def _run_cell(cell, step_inputs, state, varscope):
    """Call ``cell`` on each step's input in turn: ``(outputs, final state)``."""
    outputs = []
    for time, step_input in enumerate(step_inputs):
        if time > 0:
            varscope.reuse_variables()
        output, state = cell(step_input, state)
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
    sequence_length : list of int, optional
        Accepted only when every entry is ``len(inputs)`` (see the module doc).
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
    _check_sequence_length(sequence_length, len(inputs), batch, "static_rnn")
    with variable_scope(scope or "rnn") as varscope:
        state = _initial_state(cell, first, initial_state, dtype, "static_rnn")
        return _run_cell(cell, inputs, state, varscope)


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
            reversed_bw, state_bw = static_rnn(cell_bw, list(reversed(inputs)),
                                               initial_state_bw, dtype, sequence_length,
                                               scope=bw_scope)
    output_bw = reversed_bw[::-1]
    outputs = [pack_sequence_as(fw, [concat([f, b], 1) for f, b in
                                     zip(flatten(fw), flatten(bw))])
               for fw, bw in zip(output_fw, output_bw)]
    return outputs, state_fw, state_bw


def _time_steps(inputs, time_axis: int, what: str) -> int:
    """The number of time steps of every input tensor, which must be known now."""
    steps = set()
    for tensor in flatten(inputs):
        if not isinstance(tensor, Symbol):
            raise TypeError(f"{what}: inputs must be tensors, got {type(tensor).__name__}")
        shape = tensor.get_shape()
        if shape.ndims is not None and shape.ndims < 2:
            raise ValueError(f"{what}: Expected input tensor to have rank at least 2, got "
                             f"shape {shape}")
        if shape.ndims is None or shape[time_axis].value is None:
            raise ValueError(
                f"{what}: the number of time steps (axis {time_axis} of inputs {shape}) must "
                f"be known when the graph is built: TinyFlow unrolls the recurrence then (no "
                f"while loop); give the input a static time dimension, e.g. "
                f"tf.placeholder(tf.float32, [None, 28, 28])")
        steps.add(shape[time_axis].value)
    if len(steps) != 1:
        raise ValueError(f"{what}: the inputs have different numbers of time steps: {steps}")
    return steps.pop()


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None) -> tuple:
    """Run ``cell`` over the time axis of ``inputs``, unrolled when the graph is built.

    Parameters
    ----------
    cell : RNNCell
    inputs : Symbol (or a nested structure of them)
        ``[batch, time, depth]``, or ``[time, batch, depth]`` with ``time_major``; the number of
        time steps must be known now.
    sequence_length : list of int, optional
        Accepted only when every entry is the number of time steps (see the module doc).
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
    time_axis = 0 if time_major else 1
    steps = _time_steps(inputs, time_axis, "dynamic_rnn")
    batch = flatten(inputs)[0].get_shape()[1 - time_axis].value
    _check_sequence_length(sequence_length, steps, batch, "dynamic_rnn")
    with variable_scope(scope or "rnn") as varscope:
        per_step = [unstack(tensor, num=steps, axis=time_axis) for tensor in flatten(inputs)]
        step_inputs = [pack_sequence_as(inputs, [parts[t] for parts in per_step])
                       for t in range(steps)]
        state = _initial_state(cell, per_step[0][0], initial_state, dtype, "dynamic_rnn")
        outputs, state = _run_cell(cell, step_inputs, state, varscope)
        flat = [flatten(output) for output in outputs]
        stacked = [stack([step[i] for step in flat], axis=time_axis)
                   for i in range(len(flat[0]))]
    return pack_sequence_as(outputs[0], stacked), state


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None) -> tuple:
    """:func:`dynamic_rnn` with ``cell_fw`` over ``inputs`` and ``cell_bw`` over them reversed
    in time, under ``<scope or "bidirectional_rnn">/fw`` and ``/bw``.

    Returns
    -------
    ((output_fw, output_bw), (output_state_fw, output_state_bw))
        ``output_bw`` put back in time order.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis = 0 if time_major else 1

    def time_reversed(structure):
        return pack_sequence_as(structure, [reverse(t, [time_axis]) for t in flatten(structure)])
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
