"""``tf.contrib.seq2seq``'s decoding (TensorFlow 1.15): ``BasicDecoder`` with ``TrainingHelper``
or ``GreedyEmbeddingHelper``, ``dynamic_decode`` and ``sequence_loss``.

``dynamic_decode`` is one ``tf.while_loop`` (:mod:`tinyflow.frontend.loops`) over TF's loop
variables (time, outputs, state, inputs, finished, sequence lengths) that stops when every
example is finished or at ``maximum_iterations``, as TF's, writing each step's outputs into
``dynamic_size`` TensorArrays: the outputs have as many steps as the loop ran, a shape known
once it ran (docs/control_flow.md, "Shapes known only at run time").
A decoder with ``finalize`` (BeamSearchDecoder) has it called on the time-major outputs.
"""
from __future__ import annotations

import collections

from ...nnvm.symbol import Symbol, create_op
from ...nnvm.tensor_shape import TensorShape
from ..api import (
    _tensor,
    argmax,
    cast,
    equal,
    greater_equal,
    logical_not,
    logical_or,
    minimum,
    reduce_all,
    reduce_sum,
    where,
)
from ..array_ops import gather_dense, reshape, shape, transpose
from ..loops import while_loop
from ..nn.functions import embedding_lookup, sparse_softmax_cross_entropy_with_logits
from ..nn.rnn_cell import flatten, map_structure, pack_sequence_as
from ..tensor_array import TensorArray
from ..variable_scope import variable_scope

__all__ = ["BasicDecoder", "BasicDecoderOutput", "Decoder", "GreedyEmbeddingHelper", "Helper",
           "TrainingHelper", "dynamic_decode", "sequence_loss"]


def _size(tensor: Symbol, axis: int):
    """``tensor``'s size along ``axis``: an int when static, else an int32 scalar tensor."""
    known = tensor.get_shape()
    if known.ndims is not None and known[axis].value is not None:
        return int(known[axis].value)
    return shape(tensor)[axis]


class Helper:
    """What a BasicDecoder asks of its inputs: ``initialize``, ``sample``, ``next_inputs``."""

    max_steps = None  # the number of steps the helper's own inputs bound decoding to

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_dtype(self):
        return "int32"


class TrainingHelper(Helper):
    """Teacher forcing: step t reads ``inputs[:, t]``; an example is finished once ``t + 1``
    reaches its ``sequence_length``.

    Parameters
    ----------
    inputs : Symbol
        ``[batch, time, depth]`` (``[time, batch, depth]`` with ``time_major``).
    sequence_length : int vector
    time_major : bool
    """

    def __init__(self, inputs, sequence_length, time_major=False, name=None):
        inputs = _tensor(inputs)
        if inputs.get_shape().ndims is not None and inputs.get_shape().ndims < 3:
            raise ValueError(f"TrainingHelper: inputs must be [batch, time, depth], got shape "
                             f"{inputs.get_shape()}")
        self._inputs = inputs if time_major else transpose(
            inputs, [1, 0] + list(range(2, inputs.get_shape().ndims)))
        self._inputs.set_shape([inputs.get_shape()[1 - int(time_major)].value,
                                inputs.get_shape()[int(time_major)].value] +
                               inputs.get_shape().as_list()[2:])
        lengths = _tensor(sequence_length)
        if lengths.get_shape().ndims not in (None, 1):
            raise ValueError(f"Expected sequence_length to be a vector, but received shape: "
                             f"{lengths.get_shape()}")
        self._lengths = cast(lengths, "int32") if lengths.dtype.name != "int32" else lengths
        self.max_steps = _size(self._inputs, 0)
        self._batch_size = _size(self._inputs, 1)

    def _read(self, time):
        """Step ``time``'s inputs (the last step's once past the end: no example reads them,
        as TF's zeros after every example finished)."""
        return gather_dense(self._inputs, minimum(time, self.max_steps - 1))

    def initialize(self, name=None):
        """``(finished, first inputs)``: an example of length 0 starts finished."""
        return greater_equal(0, self._lengths), self._read(_tensor(0))

    def sample(self, time, outputs, state, name=None):
        """The argmax of ``outputs`` (int32)."""
        return argmax(outputs, axis=-1, output_type="int32")

    def next_inputs(self, time, outputs, state, sample_ids=None, name=None):
        """``(finished, next inputs, state)`` after step ``time``."""
        next_time = time + 1
        return greater_equal(next_time, self._lengths), self._read(next_time), state


class GreedyEmbeddingHelper(Helper):
    """Greedy decoding: each step's input is the embedding of the previous step's argmax; an
    example is finished when it emits ``end_token``.

    Parameters
    ----------
    embedding : Symbol or callable
        The embedding matrix ``[vocab, depth]`` (read with ``embedding_lookup``), or a function
        of the ids.
    start_tokens : int vector
        The first step's ids, one per example.
    end_token : int
    """

    def __init__(self, embedding, start_tokens, end_token):
        self._embed = embedding if callable(embedding) else (
            lambda ids: embedding_lookup(embedding, ids))
        start_tokens = cast(_tensor(start_tokens), "int32")
        if start_tokens.get_shape().ndims not in (None, 1):
            raise ValueError("start_tokens must be a vector")
        self._start_tokens = reshape(start_tokens, [-1])  # a vector to static inference too
        if isinstance(end_token, Symbol) and end_token.get_shape().ndims not in (None, 0):
            raise ValueError("end_token must be a scalar")
        self._end_token = cast(_tensor(end_token), "int32")
        self._batch_size = _size(self._start_tokens, 0)
        self._start_inputs = self._embed(self._start_tokens)
        if not callable(embedding) and self._start_inputs.get_shape().ndims is None:
            known = _tensor(embedding).get_shape()  # what the loop's inputs placeholder takes
            self._start_inputs.set_shape([None] + known.as_list()[1:])

    def initialize(self, name=None):
        """``(finished: all False, the start tokens' embeddings)``."""
        return equal(self._start_tokens, -1), self._start_inputs  # no id is -1: all False

    def sample(self, time, outputs, state, name=None):
        """The argmax of ``outputs`` (int32)."""
        if not isinstance(outputs, Symbol):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
        return argmax(outputs, axis=-1, output_type="int32")

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        """``(finished: sample_ids == end_token, their embeddings, state)``."""
        return equal(sample_ids, self._end_token), self._embed(sample_ids), state


class BasicDecoderOutput(collections.namedtuple("BasicDecoderOutput",
                                                ("rnn_output", "sample_id"))):
    """One step's (or the stacked) decoder outputs."""

    __slots__ = ()


class Decoder:
    """What :func:`dynamic_decode` runs: ``initialize`` and ``step``."""

    tracks_own_finished = False


class BasicDecoder(Decoder):
    """A cell stepped with a helper: ``cell(inputs, state)``, then ``output_layer`` (e.g.
    ``tf.layers.Dense(vocab)``) on its output, the helper's sample and next inputs.

    Parameters
    ----------
    cell : RNNCell
    helper : TrainingHelper or GreedyEmbeddingHelper
    initial_state : the cell's state structure
    output_layer : tf.layers.Layer, optional
    """

    def __init__(self, cell, helper, initial_state, output_layer=None):
        if not callable(cell):
            raise TypeError(f"cell must be an RNNCell, received: {type(cell)}")
        if not isinstance(helper, Helper):
            raise TypeError(f"helper must be a Helper, received: {type(helper)}")
        if output_layer is not None and not callable(output_layer):
            raise TypeError(f"output_layer must be a Layer, received: {type(output_layer)}")
        self._cell, self._helper = cell, helper
        self._initial_state, self._output_layer = initial_state, output_layer

    @property
    def batch_size(self):
        return self._helper.batch_size

    @property
    def output_size(self) -> BasicDecoderOutput:
        """``(rnn_output: its size, sample_id: [])``."""
        size = self._cell.output_size
        if self._output_layer is not None:
            units = getattr(self._output_layer, "units", None)
            if units is None:
                raise ValueError("BasicDecoder: TinyFlow needs output_layer.units (a "
                                 "tf.layers.Dense) to size the decoder's outputs")
            size = units
        return BasicDecoderOutput(rnn_output=size, sample_id=TensorShape([]))

    @property
    def output_dtype(self) -> BasicDecoderOutput:
        return BasicDecoderOutput(flatten(self._initial_state)[0].dtype, "int32")

    def initialize(self, name=None):
        """``(finished, first inputs, initial state)``."""
        return self._helper.initialize() + (self._initial_state,)

    def step(self, time, inputs, state, name=None):
        """``(BasicDecoderOutput, next state, next inputs, finished)``."""
        cell_outputs, cell_state = self._cell(inputs, state)
        if self._output_layer is not None:
            cell_outputs = self._output_layer(cell_outputs)
        sample_ids = self._helper.sample(time=time, outputs=cell_outputs, state=cell_state)
        finished, next_inputs, next_state = self._helper.next_inputs(
            time=time, outputs=cell_outputs, state=cell_state, sample_ids=sample_ids)
        return BasicDecoderOutput(cell_outputs, sample_ids), next_state, next_inputs, finished


def _limit(maximum_iterations):
    """``maximum_iterations`` as an int or an int32 scalar tensor (None: no limit)."""
    if maximum_iterations is None or not isinstance(maximum_iterations, Symbol):
        return None if maximum_iterations is None else int(maximum_iterations)
    if maximum_iterations.get_shape().ndims not in (None, 0):
        raise ValueError("maximum_iterations must be a scalar")
    return cast(maximum_iterations, "int32")


def dynamic_decode(decoder, output_time_major=False, impute_finished=False,
                   maximum_iterations=None, parallel_iterations=32, swap_memory=False,
                   scope=None):
    """Run ``decoder`` step by step until every example is finished or
    ``maximum_iterations`` steps ran (TF 1.15's ``dynamic_decode``).

    Returns
    -------
    (final_outputs, final_state, final_sequence_lengths)
        ``BasicDecoderOutput(rnn_output [batch, steps, size], sample_id [batch, steps])``
        (time first with ``output_time_major``), ``steps`` the number of steps the loop ran
        (known once it ran), the state after each example's last step with
        ``impute_finished`` (else after the loop's last step), and each example's number of
        steps (int32).
    """
    if not isinstance(decoder, Decoder):
        raise TypeError(f"Expected decoder to be type Decoder, but saw: {type(decoder)}")
    limit = _limit(maximum_iterations)
    with variable_scope(scope or "decoder"):
        finished, inputs, state = decoder.initialize()
        if limit is not None:
            finished = logical_or(finished, greater_equal(0, limit))
        lengths = create_op("zeros_like", cast(finished, "int32"))
        structure = decoder.output_size
        # TF's TensorArrays of the steps' outputs, growing as the loop runs
        arrays = [TensorArray(dtype, size=0, dynamic_size=True,
                              element_shape=[None] + _row_shape(size))
                  for dtype, size in zip(decoder.output_dtype, structure)]
        loop_vars = [_tensor(0), arrays, flatten(state), inputs, finished, lengths]
        results = while_loop(
            lambda time, _, __, ___, done, ____: logical_not(reduce_all(done)),
            lambda *values: _decode_step(decoder, state, values, impute_finished, limit),
            loop_vars, parallel_iterations=parallel_iterations)
    _, arrays, final_state, _, _, final_lengths = results
    outputs = type(structure)(*[array.stack() for array in arrays])
    final_state = pack_sequence_as(state, final_state)
    if hasattr(decoder, "finalize"):
        outputs, final_state = decoder.finalize(outputs, final_state, final_lengths)
    if not output_time_major:
        outputs = map_structure(_swapped, outputs)
    return outputs, final_state, final_lengths


def _row_shape(size) -> list:
    """One example's output shape: an int is ``[size]``, a TensorShape its dims."""
    if isinstance(size, int):
        return [size]
    return list(size.as_list()) if hasattr(size, "as_list") else [int(d) for d in size]


def _swapped(tensor: Symbol) -> Symbol:
    known = tensor.get_shape()
    rank = known.ndims if known.ndims is not None else 2
    result = transpose(tensor, [1, 0] + list(range(2, rank)))
    if known.ndims is not None:
        dims = known.as_list()
        result.set_shape([dims[1], dims[0]] + dims[2:])
    return result


def _decode_step(decoder, structure, values, impute_finished, limit):
    """One iteration of TF's dynamic_decode body over the flat loop variables."""
    time, arrays, state_leaves, inputs, finished, lengths = values
    state = pack_sequence_as(structure, list(state_leaves))
    outputs, decoder_state, next_inputs, decoder_finished = decoder.step(time, inputs, state)
    next_finished = decoder_finished if decoder.tracks_own_finished else logical_or(
        decoder_finished, finished)
    next_lengths = where(logical_not(finished), create_op("zeros_like", lengths) + (time + 1),
                         lengths)
    if limit is not None:
        next_finished = logical_or(next_finished, greater_equal(time + 1, limit))
    emit = list(outputs)
    new_state = flatten(decoder_state)
    if impute_finished:
        emit = [where(finished, create_op("zeros_like", o), o) for o in emit]
        new_state = [_copy_finished(finished, old, new)
                     for old, new in zip(state_leaves, new_state)]
    for new, old in zip(new_state, state_leaves):
        if isinstance(old, Symbol):
            new.set_shape(old.get_shape())
    for new, old in ((next_inputs, inputs), (next_finished, finished), (next_lengths, lengths)):
        if isinstance(new, Symbol) and new.get_shape().ndims is None:
            new.set_shape(old.get_shape())  # what static inference lost mixing known and fed
    written = [array.write(time, value) for array, value in zip(arrays, emit)]
    return time + 1, written, new_state, next_inputs, next_finished, next_lengths


def _copy_finished(finished, old, new):
    """The state an example keeps once finished (TF's ``_maybe_copy_state``: a TensorArray or
    a scalar passes through)."""
    if not isinstance(old, Symbol) or old.get_shape().ndims == 0:
        return new
    return where(finished, old, new)


def _div_no_nan(numerator, denominator):
    """``numerator / denominator``, 0 where the denominator is 0 (TF's div_no_nan)."""
    zero = equal(denominator, 0.0)
    safe = where(zero, create_op("ones_like", denominator), denominator)
    quotient = numerator / safe
    return where(zero, create_op("zeros_like", quotient), quotient)


def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, sum_over_timesteps=False, sum_over_batch=False,
                  softmax_loss_function=None, name=None):
    """Weighted cross-entropy of ``logits`` ``[batch, time, classes]`` against int ``targets``
    ``[batch, time]``, as TF 1.15's ``sequence_loss``: summed over the averaged (or summed)
    axes and divided by the weights' sum there (the count of non-zero weights for the sums),
    0 where that is 0.

    Returns
    -------
    Symbol: a scalar when averaging (or summing) over both axes, else ``[batch]`` or
    ``[time]`` (or ``[batch, time]`` with no reduction).
    """
    logits, targets, weights = _tensor(logits), _tensor(targets), _tensor(weights)
    if logits.get_shape().ndims not in (None, 3):
        raise ValueError("Logits must be a [batch_size x sequence_length x logits] tensor")
    if targets.get_shape().ndims not in (None, 2):
        raise ValueError("Targets must be a [batch_size x sequence_length] tensor")
    if weights.get_shape().ndims not in (None, 2):
        raise ValueError("Weights must be a [batch_size x sequence_length] tensor")
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to "
                         "True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at "
                         "same time.")
    classes = logits.get_shape()[2].value
    if classes is None:
        raise ValueError("sequence_loss: TinyFlow needs the number of classes (logits' last "
                         "dimension) known when the graph is built")
    flat_logits = reshape(logits, [-1, classes])
    flat_targets = reshape(targets, [-1])
    loss_function = softmax_loss_function or sparse_softmax_cross_entropy_with_logits
    crossent = loss_function(labels=flat_targets, logits=flat_logits) * reshape(weights, [-1])
    if average_across_timesteps and average_across_batch:
        return _div_no_nan(reduce_sum(crossent), reduce_sum(weights))
    nonzero = cast(create_op("not_equal", weights, create_op("zeros_like", weights)),
                   weights.dtype.name)
    if sum_over_timesteps and sum_over_batch:
        return _div_no_nan(reduce_sum(crossent), reduce_sum(nonzero))
    crossent = reshape(crossent, shape(logits)[0:2])
    if average_across_timesteps or average_across_batch:
        axis = [0] if average_across_batch else [1]
        return _div_no_nan(reduce_sum(crossent, axis=axis), reduce_sum(weights, axis=axis))
    if sum_over_timesteps or sum_over_batch:
        axis = [0] if sum_over_batch else [1]
        return _div_no_nan(reduce_sum(crossent, axis=axis), reduce_sum(nonzero, axis=axis))
    return crossent

