"""``tf.contrib.seq2seq``'s beam search (TensorFlow 1.15's ``beam_search_decoder.py`` and
``beam_search_ops``): ``BeamSearchDecoder``, ``tile_batch``, ``gather_tree``.

One step of TF's beam search, per example, ``K`` beams and a vocabulary of ``V``: the step's
``log_softmax`` of the logits (a finished beam's row is 0 at ``end_token``, the dtype's min
elsewhere) plus each beam's log-probability; the score of a continuation is that total divided
by ``((5 + length) / 6) ** length_penalty_weight`` (length counting the new token unless the
beam was finished, or it is ``end_token``); the ``K`` best of the ``K * V`` scores (lower index
first among equal ones) give the new beams: their token (index mod V), parent beam (index div V),
total log-probability, finished (the parent's, or the token is ``end_token``), length and cell
state (the parent's).  At first only beam 0 is live (the others start finished at -inf).
``dynamic_decode`` ends with ``gather_tree``: each final beam's tokens followed back through
its parents.
"""
from __future__ import annotations

import collections

import numpy as np

from ...nnvm.symbol import Symbol
from ...nnvm.tensor_shape import TensorShape
from ..api import (
    _tensor,
    cast,
    equal,
    floordiv,
    greater,
    greater_equal,
    less,
    logical_and,
    logical_not,
    logical_or,
    minimum,
    mod,
    reduce_max,
    reduce_sum,
    where,
)
from ..array_ops import (
    concat,
    expand_dims,
    gather_dense,
    one_hot,
    reshape,
    shape,
    tile,
    zeros_like,
)
from ..functional_ops import scan
from ..math_ops import cumsum
from ..nn.functions import embedding_lookup, log_softmax, top_k
from ..nn.rnn_cell import assert_like_rnncell, flatten, map_structure
from ..tensor_array import TensorArray
from .seq2seq_decoding import Decoder

__all__ = ["BeamSearchDecoder", "BeamSearchDecoderOutput", "BeamSearchDecoderState",
           "FinalBeamSearchDecoderOutput", "gather_tree", "tile_batch"]


class BeamSearchDecoderState(collections.namedtuple("BeamSearchDecoderState", (
        "cell_state", "log_probs", "finished", "lengths", "accumulated_attention_probs"))):
    """The cell's state per beam, each beam's total log-probability, finished flag and length
    (int64), all ``[batch, beam, ...]``; ``accumulated_attention_probs`` is ``()``."""

    __slots__ = ()


class BeamSearchDecoderOutput(collections.namedtuple("BeamSearchDecoderOutput", (
        "scores", "predicted_ids", "parent_ids"))):
    """One step's ``[batch, beam]`` scores, tokens and parent beams (stacked over time)."""

    __slots__ = ()


class FinalBeamSearchDecoderOutput(collections.namedtuple(
        "FinalBeamDecoderOutput", ["predicted_ids", "beam_search_decoder_output"])):
    """``predicted_ids``: each final beam's tokens (``gather_tree``), and the steps' outputs."""

    __slots__ = ()


def tile_batch(t, multiplier, name=None):
    """Each example of ``t`` (a structure of tensors, batch first) repeated ``multiplier``
    times in a row: ``[a, b]`` -> ``[a, a, b, b]`` (to give a BeamSearchDecoder's cell the
    memory and states of its ``batch * beam_width`` beams)."""
    def one(tensor):
        tensor = _tensor(tensor)
        known = tensor.get_shape()
        if known.ndims is None or known.ndims < 1:
            raise ValueError(f"tile_batch: t must have statically known rank, got "
                             f"{tensor.name} of shape {known}")
        tiled = tile(expand_dims(tensor, 1), [1, int(multiplier)] + [1] * (known.ndims - 1))
        if known[1:].is_fully_defined():
            tiled = reshape(tiled, [-1] + known.as_list()[1:])
        else:  # (a memory's time): the sizes when it runs
            tiled = reshape(tiled, concat([[-1], shape(tensor)[1:]], 0))
        batch = known[0].value
        tiled.set_shape([None if batch is None else batch * int(multiplier)] +
                        known.as_list()[1:])
        return tiled
    return map_structure(one, t)


def _batch_take(params: Symbol, indices: Symbol, row_size) -> Symbol:
    """``out[b, k, ...] = params[b, indices[b, k], ...]`` for ``params`` ``[batch, row_size,
    ...]`` (TF's ``_tensor_gather_helper``: a gather from the flattened batch at each index plus
    its example's offset)."""
    rest = params.get_shape().as_list()[2:]
    offsets = cumsum(zeros_like(indices[:, :1]) + 1, axis=0, exclusive=True) * row_size
    static = None not in rest
    flat = reshape(params, [-1] + rest) if static else reshape(
        params, concat([[-1], shape(params)[2:]], 0))
    taken = gather_dense(flat, reshape(indices + offsets, [-1]))
    beams = indices.get_shape()[1].value
    result = reshape(taken, [-1, beams] + rest) if static else reshape(
        taken, concat([[-1, beams], shape(params)[2:]], 0))
    result.set_shape(indices.get_shape().concatenate(rest))
    return result


def gather_tree(step_ids, parent_ids, max_sequence_lengths, end_token, name=None) -> Symbol:
    """Each beam's tokens followed back through its parents (TF's ``gather_tree`` kernel).

    ``step_ids`` and ``parent_ids`` are ``[max_time, batch, beam]`` (int32); for each example
    ``b`` and ``L = min(max_sequence_lengths[b], max_time)``, beam ``k``'s token at step
    ``L - 1`` is its own, and going back each earlier step takes the parent's; a parent
    outside ``[0, beam)`` gives -1 from there back.  Steps from ``L`` on, and every step after
    the first ``end_token`` of a beam, are ``end_token``.
    """
    step_ids, parent_ids = _tensor(step_ids), _tensor(parent_ids)
    lengths = _tensor(max_sequence_lengths)
    for what, value in (("step_ids", step_ids), ("parent_ids", parent_ids)):
        if value.get_shape().ndims not in (None, 3):
            raise ValueError(f"gather_tree: {what} must be [max_time, batch, beam], got shape "
                             f"{value.get_shape()}")
    if not step_ids.get_shape().is_compatible_with(parent_ids.get_shape()):
        raise ValueError(f"gather_tree: step_ids of shape {step_ids.get_shape()} and parent_ids "
                         f"of shape {parent_ids.get_shape()} differ")
    beams = step_ids.get_shape()[2].value if step_ids.get_shape().ndims else None
    if beams is None:
        raise ValueError("gather_tree: TinyFlow needs the beam width (step_ids' last "
                         "dimension) known when the graph is built")
    if lengths.get_shape().ndims not in (None, 1):
        raise ValueError(f"gather_tree: max_sequence_lengths must be a vector, got shape "
                         f"{lengths.get_shape()}")
    step_ids, parent_ids = cast(step_ids, "int32"), cast(parent_ids, "int32")
    end = zeros_like(step_ids[0]) + cast(_tensor(end_token), "int32")
    last = expand_dims(minimum(cast(lengths, "int32"), shape(step_ids)[0]), 1)
    own = zeros_like(step_ids[0]) + _tensor(np.arange(beams, dtype=np.int32))
    levels = cumsum(zeros_like(step_ids[:, 0, 0]) + 1, exclusive=True)

    def back(carried, x):
        pointer, _ = carried
        step, parent, level = x
        inside = less(zeros_like(pointer) + level, last)
        valid = logical_and(greater_equal(pointer, 0), less(pointer, beams))
        hot = one_hot(pointer, beams, dtype="int32")  # a row of zeros outside [0, beams)
        taken = reduce_sum(hot * expand_dims(step, 1), [2])
        followed = reduce_sum(hot * expand_dims(parent, 1), [2])
        value = where(inside, where(valid, taken, zeros_like(taken) - 1), end)
        return where(inside, where(valid, followed, zeros_like(taken) - 1), pointer), value
    _, traced = scan(back, (step_ids, parent_ids, levels), initializer=(own, end),
                     reverse=True)
    ended = cumsum(cast(equal(traced, end), "int32"), axis=0, exclusive=True)
    result = where(greater(ended, 0), zeros_like(traced) + end, traced)
    result.set_shape(step_ids.get_shape())
    return result


def _split_beams(tensor, beams: int):
    """``[batch * beam, ...]`` -> ``[batch, beam, ...]`` (a TensorArray or a scalar as is)."""
    if isinstance(tensor, TensorArray) or tensor.get_shape().ndims == 0:
        return tensor
    _check_rank(tensor)
    known = tensor.get_shape()
    result = reshape(tensor, [-1, beams] + known.as_list()[1:]) if known[1:].is_fully_defined() \
        else reshape(tensor, concat([[-1, beams], shape(tensor)[1:]], 0))
    batch = known[0].value
    result.set_shape([None if batch is None else batch // beams, beams] + known.as_list()[1:])
    return result


def _merge_beams(tensor, beams: int):
    """``[batch, beam, ...]`` -> ``[batch * beam, ...]`` (a TensorArray or a scalar as is)."""
    if isinstance(tensor, TensorArray) or tensor.get_shape().ndims == 0:
        return tensor
    _check_rank(tensor)
    known = tensor.get_shape()
    result = reshape(tensor, [-1] + known.as_list()[2:]) if known[2:].is_fully_defined() else \
        reshape(tensor, concat([[-1], shape(tensor)[2:]], 0))
    batch = known[0].value
    result.set_shape([None if batch is None else batch * beams] + known.as_list()[2:])
    return result


def _check_rank(tensor):
    known = tensor.get_shape()
    if known.ndims is None:
        raise ValueError(f"Expected tensor ({tensor.name}) to have known rank, but ndims == "
                         f"None.")


def _length_penalty_weighs(weight) -> bool:
    """Whether a length penalty of ``weight`` changes the scores (TF's: 0 known when the graph
    is built is a penalty of 1)."""
    return isinstance(weight, Symbol) or float(weight) != 0.0


def _length_penalty(lengths: Symbol, weight):
    """``((5 + length) / 6) ** weight`` (TF's ``_length_penalty``)."""
    weight = weight if isinstance(weight, Symbol) else float(weight)
    return ((5.0 + cast(lengths, "float32")) ** weight) / (6.0 ** weight)


class BeamSearchDecoder(Decoder):
    """Beam search over ``cell`` (TF 1.15's ``BeamSearchDecoder``), for ``dynamic_decode``.

    Parameters
    ----------
    cell : RNNCell
        Its state ``initial_state`` is ``[batch * beam_width, ...]`` (``tile_batch``).
    embedding : Symbol or callable
        The embedding matrix (read with ``embedding_lookup``) or a function of the ids.
    start_tokens : int vector ``[batch]``; end_token : int scalar
    beam_width : int
    output_layer : tf.layers.Dense, optional
        The logits from the cell's output.
    length_penalty_weight : float
    coverage_penalty_weight : float
        Only 0 (TinyFlow has no coverage penalty).
    """

    tracks_own_finished = True

    def __init__(self, cell, embedding, start_tokens, end_token, initial_state, beam_width,
                 output_layer=None, length_penalty_weight=0.0, coverage_penalty_weight=0.0,
                 reorder_tensor_arrays=True):
        assert_like_rnncell("cell", cell)
        if output_layer is not None and not callable(output_layer):
            raise TypeError(f"output_layer must be a Layer, received: {type(output_layer)}")
        if isinstance(coverage_penalty_weight, Symbol) or float(coverage_penalty_weight) != 0:
            raise ValueError("BeamSearchDecoder: coverage_penalty_weight is not supported by "
                             "TinyFlow (only 0.0)")
        self._cell, self._output_layer = cell, output_layer
        self._reorder_tensor_arrays = reorder_tensor_arrays
        self._embed = embedding if callable(embedding) else (
            lambda ids: embedding_lookup(embedding, ids))
        start_tokens = cast(_tensor(start_tokens), "int32")
        if start_tokens.get_shape().ndims != 1:
            raise ValueError("start_tokens must be a vector")
        end_token = _tensor(end_token)
        if end_token.get_shape().ndims != 0:
            raise ValueError("end_token must be a scalar")
        self._end_token = cast(end_token, "int32")
        if isinstance(beam_width, Symbol) or int(beam_width) < 1:
            raise ValueError(f"BeamSearchDecoder: beam_width must be a positive int known when "
                             f"the graph is built, got {beam_width!r}")
        self._beam_width = int(beam_width)
        self._length_penalty_weight = length_penalty_weight
        self._initial_cell_state = map_structure(
            lambda s: _split_beams(s, self._beam_width), initial_state)
        self._start_tokens = tile(expand_dims(start_tokens, 1), [1, self._beam_width])
        self._start_inputs = self._embed(self._start_tokens)
        # TF's one_hot(0, beam_width, on_value=False, off_value=True): beam 0 alone is live
        beam_index = zeros_like(self._start_tokens) + _tensor(
            np.arange(self._beam_width, dtype=np.int32))
        self._finished = greater(beam_index, 0)

    @property
    def batch_size(self):
        known = self._start_tokens.get_shape()[0].value
        return known if known is not None else shape(self._start_tokens)[0]

    @property
    def output_size(self) -> BeamSearchDecoderOutput:
        beams = TensorShape([self._beam_width])
        return BeamSearchDecoderOutput(scores=beams, predicted_ids=beams, parent_ids=beams)

    @property
    def output_dtype(self) -> BeamSearchDecoderOutput:
        dtype = _first_tensor(self._initial_cell_state).dtype
        return BeamSearchDecoderOutput(scores=dtype, predicted_ids="int32", parent_ids="int32")

    def initialize(self, name=None):
        """``(finished, start inputs, BeamSearchDecoderState)``: beam 0 at log-probability 0,
        the others finished at -inf."""
        dtype = _first_tensor(self._initial_cell_state).dtype
        zeros = cast(zeros_like(self._start_tokens), dtype)
        log_probs = where(self._finished, zeros + float("-inf"), zeros)
        state = BeamSearchDecoderState(
            cell_state=self._initial_cell_state, log_probs=log_probs, finished=self._finished,
            lengths=cast(zeros_like(self._start_tokens), "int64"),
            accumulated_attention_probs=())
        return self._finished, self._start_inputs, state

    def step(self, time, inputs, state, name=None):
        """``(BeamSearchDecoderOutput, next BeamSearchDecoderState, next inputs, finished)``."""
        beams = self._beam_width
        cell_state = map_structure(lambda s: _merge_beams(s, beams), state.cell_state)
        cell_outputs, next_cell_state = self._cell(_merge_beams(inputs, beams), cell_state)
        logits = _split_beams(cell_outputs, beams)
        next_cell_state = map_structure(lambda s: _split_beams(s, beams), next_cell_state)
        if self._output_layer is not None:
            logits = self._output_layer(logits)
        output, next_state = self._beam_step(logits, next_cell_state, state)
        # TF's next inputs are the start inputs once every beam finished: the loop ends then,
        # and nothing reads them
        return output, next_state, self._embed(output.predicted_ids), next_state.finished

    def _beam_step(self, logits, next_cell_state, state):
        """TF's ``_beam_search_step``."""
        beams, vocab = self._beam_width, logits.get_shape()[-1].value
        if vocab is None:
            raise ValueError("BeamSearchDecoder: TinyFlow needs the vocabulary size (the "
                             "logits' last dimension) known when the graph is built")
        step_log_probs = _mask_finished(log_softmax(logits), self._end_token, state.finished,
                                        vocab)
        total = expand_dims(state.log_probs, 2) + step_log_probs
        scores = total
        if _length_penalty_weighs(self._length_penalty_weight):  # (else the lengths count not)
            grows = one_hot(zeros_like(state.lengths, dtype="int32") + self._end_token, vocab,
                            on_value=0, off_value=1, dtype="int64")
            new_lengths = grows * expand_dims(cast(logical_not(state.finished), "int64"), 2) + \
                expand_dims(state.lengths, 2)
            penalty = _length_penalty(new_lengths, self._length_penalty_weight)
            scores = total / cast(penalty, total.dtype)
        best, indices = top_k(reshape(scores, [-1, beams * vocab]), k=beams)
        for known in (best, indices):
            known.set_shape(state.finished.get_shape())  # what the reshapes lost
        next_log_probs = _batch_take(reshape(total, [-1, beams * vocab]), indices,
                                     beams * vocab)
        word_ids, parent_ids = mod(indices, vocab), floordiv(indices, vocab)
        for known in (word_ids, parent_ids):
            known.set_shape(state.finished.get_shape())
        was_finished = _batch_take(state.finished, parent_ids, beams)
        next_finished = logical_or(was_finished, equal(word_ids, self._end_token))
        next_lengths = _batch_take(state.lengths, parent_ids, beams) + cast(
            logical_not(was_finished), "int64")
        next_cell_state = map_structure(
            lambda s: s if isinstance(s, TensorArray) or s.get_shape().ndims < 2 else
            _batch_take(s, parent_ids, beams), next_cell_state)
        return (BeamSearchDecoderOutput(scores=best, predicted_ids=word_ids,
                                        parent_ids=parent_ids),
                BeamSearchDecoderState(cell_state=next_cell_state, log_probs=next_log_probs,
                                       finished=next_finished, lengths=next_lengths,
                                       accumulated_attention_probs=()))

    def finalize(self, outputs, final_state, sequence_lengths):
        """``(FinalBeamSearchDecoderOutput, final state)``: the beams' tokens traced back
        through their parents (``outputs`` are time major here)."""
        longest = cast(reduce_max(final_state.lengths, axis=1), "int32")
        predicted_ids = gather_tree(outputs.predicted_ids, outputs.parent_ids, longest,
                                    self._end_token)
        if self._reorder_tensor_arrays:
            final_state = final_state._replace(cell_state=map_structure(
                lambda t: self._sorted_array(t, outputs.parent_ids, final_state.lengths),
                final_state.cell_state))
        return FinalBeamSearchDecoderOutput(predicted_ids=predicted_ids,
                                            beam_search_decoder_output=outputs), final_state


    def _sorted_array(self, array, parent_ids, lengths):
        """A TensorArray of the cell state (``alignment_history``) stacked, each step's rows
        those of the final beams' ancestors (TF's ``_maybe_sort_array_beams``); other leaves
        as they are, and, as TF's, an array whose element shape's rank is unknown, or whose
        known shape TF's check finds not to be ``[batch * beam, ...]``."""
        if not isinstance(array, TensorArray):
            return array
        element = TensorShape(array.element_shape)
        if element.ndims is None or element.ndims < 1:
            return array
        batch, rows = self._start_tokens.get_shape()[0].value, element[0].value
        # TF's _check_static_batch_beam_maybe, its second clause included: a known [B * K, T]
        # with a batch known when the graph is built is left as it is
        if batch is not None and rows is not None and (
                rows != batch * self._beam_width or (element.ndims >= 2 and element[1].value
                                                     is not None and (rows != batch or
                                                                      element[1].value !=
                                                                      self._beam_width))):
            return array
        return gather_tree_from_array(array.stack(), parent_ids, lengths)


def gather_tree_from_array(t, parent_ids, sequence_length) -> Symbol:
    """``t`` ``[max_time, batch * beam, ...]`` with each step's rows reordered as the final
    beams' ancestors (TF's ``gather_tree_from_array``): the beams' indices followed back with
    :func:`gather_tree`, a beam's own index past its length."""
    beams = parent_ids.get_shape()[2].value
    beam_ids = zeros_like(parent_ids) + _tensor(np.arange(beams, dtype=np.int32))
    longest = cast(reduce_max(sequence_length, axis=1), "int32")
    ancestors = gather_tree(beam_ids, parent_ids, longest, beams + 1)
    steps = cumsum(zeros_like(parent_ids[:, :1, :1]) + 1, axis=0, exclusive=True)
    inside = less(steps, expand_dims(cast(sequence_length, "int32"), 0))
    ancestors = where(inside, ancestors, beam_ids)
    rest = t.get_shape().as_list()[2:]
    split = reshape(t, [-1, beams] + rest) if None not in rest else reshape(
        t, concat([[-1, beams], shape(t)[2:]], 0))
    taken = _batch_take(split, reshape(ancestors, [-1, beams]), beams)
    result = reshape(taken, shape(t))
    result.set_shape(t.get_shape())
    return result


def _first_tensor(structure):
    return next(leaf for leaf in flatten(structure) if isinstance(leaf, Symbol))


def _mask_finished(log_probs: Symbol, end_token: Symbol, finished: Symbol, vocab: int):
    """A finished beam's row: 0 at ``end_token``, the dtype's min elsewhere (TF's
    ``_mask_probs``)."""
    lowest = float(np.finfo(log_probs.dtype.as_numpy_dtype).min)
    row = one_hot(end_token, vocab, on_value=0.0, off_value=lowest, dtype=log_probs.dtype)
    mask = tile(expand_dims(finished, 2), [1, 1, vocab])
    return where(mask, zeros_like(log_probs) + row, log_probs)
