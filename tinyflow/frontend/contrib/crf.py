"""``tf.contrib.crf`` (TensorFlow 1.15): the linear-chain CRF of BiLSTM-CRF taggers.

A tag sequence ``y`` of an example of length ``n`` scores
``sum_t inputs[t, y_t] + sum_{t >= 1} transitions[y_{t-1}, y_t]`` over its first ``n`` steps
(:func:`crf_sequence_score`); :func:`crf_log_norm` is the log of the sum of ``exp`` of the
scores of every sequence (the forward algorithm, :class:`CrfForwardRnnCell` run by
``dynamic_rnn``), and :func:`crf_log_likelihood` the difference.  :func:`crf_decode` finds the
best sequence in the graph (Viterbi: :class:`CrfDecodeForwardRnnCell` keeps backpointers,
:class:`CrfDecodeBackwardRnnCell` follows them back), :func:`viterbi_decode` in numpy.

As TF 1.15's: a sequence of length 0 has score and log-norm 0, and ``crf_decode`` gives it
the best tag of its first step; inputs of one time step (known when the graph is built) take
the shortcut TF's ``smart_cond`` takes.  When the number of steps is known only when the graph
runs, TF builds a ``tf.cond`` whose one-step branch cannot be bound at other numbers of steps
here (TinyFlow binds both branches), so the general computation runs alone: at one step it
gives the one-step branch's results (``crf_multitag_sequence_score``, whose two differ for
lengths 0, selects between both).  The functions are composed of existing ops, so gradients
come from theirs (the while_loop's for the forward algorithm); ``dynamic_rnn`` runs the cells
as TF's code does.
"""
from __future__ import annotations

import numpy as np

from ..api import (
    _tensor,
    argmax,
    cast,
    constant,
    equal,
    less,
    less_equal,
    maximum,
    reduce_max,
    reduce_sum,
    where,
)
from ..array_ops import (
    concat,
    expand_dims,
    fill,
    gather,
    ones,
    reshape,
    shape,
    squeeze,
    stack,
    zeros_like,
)
from ..array_ops import range as int_range
from ..indexing_ops import gather_nd, reverse_sequence
from ..math_ops import cumsum, reduce_logsumexp
from ..nn.rnn import dynamic_rnn
from ..nn.rnn_cell import RNNCell
from ..variable_scope import get_variable

__all__ = ["CrfDecodeBackwardRnnCell", "CrfDecodeForwardRnnCell", "CrfForwardRnnCell",
           "crf_binary_score", "crf_decode", "crf_log_likelihood", "crf_log_norm",
           "crf_multitag_sequence_score", "crf_sequence_score", "crf_unary_score",
           "viterbi_decode"]


def _one_step_or_more(tensor, single_fn, multi_fn):
    """TF's ``smart_cond`` on ``tensor.shape[1] == 1`` when the number of steps is static;
    else ``multi_fn()``, which gives the results of ``single_fn`` at one step (TF's tf.cond
    would run the one-step function, which TinyFlow would bind at every number of steps)."""
    return single_fn() if tensor.get_shape()[1].value == 1 else multi_fn()


def _zero_where_empty(values, sequence_lengths):
    """0 for the examples of length <= 0 (TF 1.15's mask of scores and log-norms)."""
    return where(less_equal(sequence_lengths, 0), zeros_like(values), values)


def _dim(tensor, axis):
    """``tensor``'s size along ``axis``: an int when static, else ``tf.shape(tensor)[axis]``."""
    known = tensor.get_shape()[axis].value
    return known if known is not None else shape(tensor)[axis]


def _count_up(count):
    """int32 ``0 .. count - 1``: ``tf.range`` of an int, else a cumsum of ones (tf.range of a
    tensor adds an Assert that runs Python, in crf_decode's loop at every step: 8.3 -> 6.8 ms
    per decode of 32 x 50 steps)."""
    if isinstance(count, int):
        return int_range(count)
    return cumsum(ones(stack([count]), dtype="int32")) - 1


def _lengths_to_masks(lengths, max_length):
    """float32 ``[batch, max_length]``: 1 where the step is inside the example's length (TF's
    ``tf.sequence_mask(lengths, max_length, tf.float32)``)."""
    steps = cast(_count_up(max_length), lengths.dtype)
    return cast(less(expand_dims(steps, 0), expand_dims(lengths, 1)), "float32")


def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    """The unnormalised score of each example's tag sequence: its unary plus binary scores.

    Parameters
    ----------
    inputs : float tensor ``[batch_size, max_seq_len, num_tags]``
        The unary potentials.
    tag_indices : int tensor ``[batch_size, max_seq_len]``
    sequence_lengths : int vector ``[batch_size]``
    transition_params : ``[num_tags, num_tags]``

    Returns
    -------
    ``[batch_size]`` scores (0 for a sequence of length 0).
    """
    inputs, tag_indices = _tensor(inputs), _tensor(tag_indices)
    sequence_lengths, transition_params = _tensor(sequence_lengths), _tensor(transition_params)

    def single():  # one step: the unary potential of its tag
        examples = reshape(cast(_count_up(_dim(inputs, 0)), tag_indices.dtype), [-1, 1])
        scores = gather_nd(squeeze(inputs, [1]), concat([examples, tag_indices], axis=1))
        return _zero_where_empty(scores, sequence_lengths)

    def multi():
        return (crf_unary_score(tag_indices, sequence_lengths, inputs)
                + crf_binary_score(tag_indices, sequence_lengths, transition_params))
    return _one_step_or_more(inputs, single, multi)


def crf_multitag_sequence_score(inputs, tag_bitmap, sequence_lengths, transition_params):
    """The log of the summed ``exp`` scores of every tag sequence ``tag_bitmap`` allows.

    Parameters
    ----------
    inputs : float tensor ``[batch_size, max_seq_len, num_tags]``
    tag_bitmap : bool tensor ``[batch_size, max_seq_len, num_tags]``
        The tags allowed at each step (one-hot rows: :func:`crf_sequence_score`).
    sequence_lengths : int vector ``[batch_size]``
    transition_params : ``[num_tags, num_tags]``

    Returns
    -------
    ``[batch_size]`` scores.
    """
    inputs, sequence_lengths = _tensor(inputs), _tensor(sequence_lengths)
    filtered = where(_tensor(tag_bitmap), inputs, fill(shape(inputs), float("-inf")))
    filtered.set_shape(inputs.get_shape())

    def single():  # one step: all its allowed tags, whatever the lengths (TF 1.15)
        return reduce_logsumexp(filtered, axis=[1, 2], keepdims=False)

    def multi():
        return crf_log_norm(filtered, sequence_lengths, transition_params)
    if inputs.get_shape()[1].value is None:  # both are defined at any number of steps
        steps = zeros_like(sequence_lengths) + cast(shape(inputs)[1], sequence_lengths.dtype)
        return where(equal(steps, 1), single(), multi())  # per example, as TF 1.x's where
    return _one_step_or_more(inputs, single, multi)


def crf_log_norm(inputs, sequence_lengths, transition_params):
    """The log of the partition function of each example: the log of the summed ``exp``
    scores of every tag sequence of its length (the forward algorithm).

    Parameters
    ----------
    inputs : float tensor ``[batch_size, max_seq_len, num_tags]``
    sequence_lengths : int vector ``[batch_size]``
    transition_params : ``[num_tags, num_tags]``

    Returns
    -------
    ``[batch_size]`` log-norms (0 for a sequence of length 0).
    """
    inputs, sequence_lengths = _tensor(inputs), _tensor(sequence_lengths)
    transition_params = _tensor(transition_params)
    first_input = squeeze(inputs[:, :1, :], [1])

    def single():
        return _zero_where_empty(reduce_logsumexp(first_input, [1]), sequence_lengths)

    def multi():
        # TF 1.15 passes the lengths less one, at least 0, as the alphas' number of steps
        lengths_less_one = maximum(constant(0, dtype=sequence_lengths.dtype),
                                   sequence_lengths - 1)
        _, alphas = dynamic_rnn(CrfForwardRnnCell(transition_params), inputs[:, 1:, :],
                                sequence_length=lengths_less_one, initial_state=first_input,
                                dtype="float32")
        return _zero_where_empty(reduce_logsumexp(alphas, [1]), sequence_lengths)
    return _one_step_or_more(inputs, single, multi)


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """The log-likelihood of each example's tag sequence: its score less the log-norm.

    Parameters
    ----------
    inputs : float tensor ``[batch_size, max_seq_len, num_tags]``
        ``num_tags`` must be known when the graph is built without ``transition_params``.
    tag_indices : int tensor ``[batch_size, max_seq_len]``
    sequence_lengths : int vector ``[batch_size]``
    transition_params : ``[num_tags, num_tags]``, optional
        Default: ``tf.get_variable("transitions", [num_tags, num_tags])`` in the current
        variable scope (its initializer, else Glorot uniform).

    Returns
    -------
    (log_likelihood, transition_params)
        ``[batch_size]`` log-likelihoods, and the transition matrix given or made.
    """
    inputs = _tensor(inputs)
    if transition_params is None:
        num_tags = inputs.get_shape()[2].value
        if num_tags is None:
            raise ValueError(f"crf_log_likelihood: the number of tags (inputs' last axis) "
                             f"must be known to make the transitions variable, got "
                             f"{inputs.get_shape()} ('{inputs.name}')")
        transition_params = get_variable("transitions", [num_tags, num_tags])
    sequence_scores = crf_sequence_score(inputs, tag_indices, sequence_lengths,
                                         transition_params)
    log_norm = crf_log_norm(inputs, sequence_lengths, transition_params)
    return sequence_scores - log_norm, transition_params


def crf_unary_score(tag_indices, sequence_lengths, inputs):
    """The sum of each example's unary potentials of its tags over its first
    ``sequence_lengths`` steps.

    Parameters
    ----------
    tag_indices : int tensor ``[batch_size, max_seq_len]``
    sequence_lengths : int vector ``[batch_size]``
    inputs : float tensor ``[batch_size, max_seq_len, num_tags]``

    Returns
    -------
    ``[batch_size]`` unary scores.
    """
    tag_indices, inputs = _tensor(tag_indices), _tensor(inputs)
    batch_size, max_seq_len, num_tags = (_dim(inputs, axis) for axis in range(3))
    # inputs[b, t, tag[b, t]] as a gather from the flattened inputs (so its gradient is gather's)
    offsets = (expand_dims(_count_up(batch_size) * max_seq_len * num_tags, 1)
               + expand_dims(_count_up(max_seq_len) * num_tags, 0))
    if tag_indices.dtype.name == "int64":
        offsets = cast(offsets, "int64")
    flat_tags = reshape(offsets + tag_indices, [-1])
    scores = reshape(gather(reshape(inputs, [-1]), flat_tags), stack([batch_size, max_seq_len]))
    masks = _lengths_to_masks(_tensor(sequence_lengths), _dim(tag_indices, 1))
    return reduce_sum(scores * masks, 1)


def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    """The sum of each example's transition scores ``transitions[y_{t-1}, y_t]`` for
    ``1 <= t < sequence_lengths``.

    Parameters
    ----------
    tag_indices : int tensor ``[batch_size, max_seq_len]``
    sequence_lengths : int vector ``[batch_size]``
    transition_params : ``[num_tags, num_tags]``

    Returns
    -------
    ``[batch_size]`` binary scores.
    """
    tag_indices, transition_params = _tensor(tag_indices), _tensor(transition_params)
    num_tags = _dim(transition_params, 0)
    start_tags, end_tags = tag_indices[:, :-1], tag_indices[:, 1:]
    flat = reshape(transition_params, [-1])
    scores = gather(flat, start_tags * cast(num_tags, tag_indices.dtype) + end_tags)
    masks = _lengths_to_masks(_tensor(sequence_lengths), _dim(tag_indices, 1))
    return reduce_sum(scores * masks[:, 1:], 1)


class _TransitionCell(RNNCell):
    """What the forward and Viterbi cells share: the ``[num_tags, num_tags]`` transitions
    (kept ``[1, O, O]`` for broadcasting) and ``num_tags`` as state and output size."""

    def __init__(self, transition_params):
        super().__init__()
        transition_params = _tensor(transition_params)
        self._transition_params = expand_dims(transition_params, 0)  # [1, O, O]
        self._num_tags = transition_params.get_shape()[0].value

    @property
    def state_size(self):
        return self._num_tags

    @property
    def output_size(self):
        return self._num_tags


class CrfForwardRnnCell(_TransitionCell):
    """The forward algorithm's step: ``alpha_t[j] = inputs_t[j] +
    logsumexp_i(alpha_{t-1}[i] + transitions[i, j])``; output and state are the new alphas.

    Parameters
    ----------
    transition_params : ``[num_tags, num_tags]``
    """

    def __call__(self, inputs, state, scope=None):
        """``(new_alphas, new_alphas)`` from ``inputs`` ``[B, O]`` and alphas ``[B, O]``
        (``scope`` unused, as TF's)."""
        scores = expand_dims(state, 2) + self._transition_params  # [B, O, 1] + [1, O, O]
        new_alphas = inputs + reduce_logsumexp(scores, [1])
        return new_alphas, new_alphas


class CrfDecodeForwardRnnCell(_TransitionCell):
    """Viterbi's forward step: the best score of a sequence ending in each tag, and for each
    tag the best previous tag (its backpointer).

    Parameters
    ----------
    transition_params : ``[num_tags, num_tags]``
    """

    def __call__(self, inputs, state, scope=None):
        """``(backpointers, new_state)``: int32 ``[B, O]`` and the scores ``[B, O]``."""
        scores = expand_dims(state, 2) + self._transition_params  # [B, O, O]
        new_state = inputs + reduce_max(scores, [1])
        return cast(argmax(scores, 1), "int32"), new_state


class CrfDecodeBackwardRnnCell(RNNCell):
    """Viterbi's backward step: from the tag of the next step (the state, ``[B, 1]``) and
    that step's backpointers (the inputs, ``[B, O]``), the tag of this step.

    Parameters
    ----------
    num_tags : int
    """

    def __init__(self, num_tags):
        super().__init__()
        self._num_tags = num_tags

    @property
    def state_size(self):
        return 1

    @property
    def output_size(self):
        return 1

    def __call__(self, inputs, state, scope=None):
        """``(new_tags, new_tags)``, int32 ``[B, 1]``."""
        next_tags = squeeze(state, axis=[1])  # [B]
        examples = _count_up(_dim(inputs, 0))
        new_tags = expand_dims(gather_nd(inputs, stack([examples, next_tags], axis=1)), -1)
        return new_tags, new_tags


def viterbi_decode(score, transition_params):
    """The best tag sequence of one example and its score, in numpy (outside the graph).

    Parameters
    ----------
    score : array ``[seq_len, num_tags]``
        The unary potentials (the example's first ``seq_len`` steps).
    transition_params : array ``[num_tags, num_tags]``

    Returns
    -------
    (viterbi, viterbi_score)
        The ``seq_len`` tags (a list of ints), and the sequence's score.
    """
    score = np.asarray(score)
    trellis = np.zeros_like(score)
    backpointers = np.zeros_like(score, dtype=np.int32)
    trellis[0] = score[0]
    for t in range(1, score.shape[0]):
        candidates = trellis[t - 1][:, None] + transition_params  # [previous tag, tag]
        trellis[t] = score[t] + candidates.max(axis=0)
        backpointers[t] = candidates.argmax(axis=0)
    tags = [np.argmax(trellis[-1])]
    for pointers in backpointers[:0:-1]:
        tags.append(pointers[tags[-1]])
    tags.reverse()
    return tags, np.max(trellis[-1])


def crf_decode(potentials, transition_params, sequence_length):
    """The best tag sequence of each example and its score, in the graph (Viterbi).

    Parameters
    ----------
    potentials : float tensor ``[batch_size, max_seq_len, num_tags]``
    transition_params : ``[num_tags, num_tags]``
    sequence_length : int vector ``[batch_size]``

    Returns
    -------
    (decode_tags, best_score)
        int32 ``[batch_size, max_seq_len]`` (0 past an example's length) and ``[batch_size]``.
    """
    potentials, transition_params = _tensor(potentials), _tensor(transition_params)
    sequence_length = _tensor(sequence_length)

    def single():  # one step: the best tag's potential
        squeezed = squeeze(potentials, [1])
        return (cast(expand_dims(argmax(squeezed, axis=1), 1), "int32"),
                reduce_max(squeezed, axis=1))
    return _one_step_or_more(
        potentials, single, lambda: _viterbi(potentials, transition_params, sequence_length))


def _reversed(tensor, lengths):
    """Each example's first ``lengths`` steps (axis 1) reversed, of ``tensor``'s static shape
    (what the lengths' batch size leaves unknown when the tensor's is, as TF's)."""
    result = reverse_sequence(tensor, lengths, seq_axis=1)
    result.set_shape(tensor.get_shape())
    return result


def _viterbi(potentials, transition_params, sequence_length):
    """crf_decode over two or more steps: forward with backpointers, then back along them."""
    lengths_less_one = maximum(constant(0, dtype=sequence_length.dtype), sequence_length - 1)
    backpointers, last_score = dynamic_rnn(  # [B, T - 1, O], [B, O]
        CrfDecodeForwardRnnCell(transition_params), potentials[:, 1:, :],
        sequence_length=lengths_less_one, initial_state=squeeze(potentials[:, :1, :], [1]),
        dtype="int32")
    backpointers = _reversed(backpointers, lengths_less_one)
    last_tags = expand_dims(cast(argmax(last_score, axis=1), "int32"), -1)  # [B, 1]
    tags, _ = dynamic_rnn(  # [B, T - 1, 1]
        CrfDecodeBackwardRnnCell(potentials.get_shape()[2].value), backpointers,
        sequence_length=lengths_less_one, initial_state=last_tags, dtype="int32")
    tags = concat([last_tags, squeeze(tags, [2])], axis=1)  # [B, T], last step first
    return _reversed(tags, sequence_length), reduce_max(last_score, axis=1)


def __getattr__(name):
    raise AttributeError(f"tf.contrib.crf.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib.crf' has no attribute {name!r})")


def __dir__():
    return sorted(__all__)
