"""``tf.nn.ctc_loss`` (TensorFlow 1.15's): the connectionist temporal classification loss of
speech and handwriting models, an op of its own (``ctc_loss``, tinyflow/ops/nn.py, torch's CTC
inside) whose gradient is kept from the forward as TF's is; the greedy decoder; TF's label
helpers ``collapse_repeated`` and ``ctc_unique_labels``, composed of existing ops (each row's
positions placed through a [batch, kept, label] one-hot product: label sequences are short)."""
from __future__ import annotations

from ...nnvm.symbol import Symbol, create_op, current_context
from ..api import (
    _tensor,
    argmax,
    cast,
    equal,
    logical_and,
    logical_not,
    not_equal,
    reduce_any,
    reduce_max,
    reduce_sum,
    where,
)
from ..array_ops import concat, expand_dims, ones_like, shape, stack, transpose, zeros_like
from ..dtypes import int32, int64
from ..framework_names import range as tf_range
from ..framework_names import sequence_mask  # a batch's time steps may be known only at run
from ..framework_names import slice as tf_slice
from ..indexing_ops import gather_nd
from ..math_ops import cumsum
from ..sparse_ops import SparseTensor, sparse_tensor_to_dense

__all__ = ["collapse_repeated", "ctc_beam_search_decoder", "ctc_greedy_decoder", "ctc_loss",
           "ctc_unique_labels"]


def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False,
             ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False, time_major=True,
             logits=None) -> Symbol:
    """The negative log probability of each example's ``labels`` (a ``tf.SparseTensor`` of int32
    classes in ``[0, num_classes - 1)``: the last class is the blank) under ``inputs``, logits
    ``[max_time, batch, num_classes]`` (``[batch, max_time, ...]`` unless ``time_major``), the
    first ``sequence_length[b]`` steps of example b.  Only TF's usual variant:
    ``ctc_merge_repeated=True``, ``preprocess_collapse_repeated=False``.  A label sequence
    longer than its input can take is TF's InvalidArgumentError, or loss 0 with
    ``ignore_longer_outputs_than_inputs``."""
    inputs = logits if inputs is None else inputs
    if not isinstance(labels, SparseTensor):
        raise TypeError("Expected labels (first argument) to be a SparseTensor")
    if inputs is None or sequence_length is None:
        raise TypeError("ctc_loss() needs labels, inputs and sequence_length")
    if preprocess_collapse_repeated or not ctc_merge_repeated:
        raise ValueError("ctc_loss: only ctc_merge_repeated=True and "
                         "preprocess_collapse_repeated=False (TF's defaults) are supported "
                         "by TinyFlow")
    with current_context().name_scope("CTCLoss"):
        inputs = _tensor(inputs)
        if not time_major:
            inputs = transpose(inputs, [1, 0, 2])
        dense = sparse_tensor_to_dense(labels, default_value=0)
        counted = SparseTensor(labels.indices, ones_like(labels.values), labels.dense_shape)
        lengths = reduce_sum(sparse_tensor_to_dense(counted, default_value=0), 1)
        return create_op("ctc_loss", inputs, cast(dense, int32), cast(lengths, int32),
                         cast(_tensor(sequence_length), int32),
                         ignore_longer_outputs_than_inputs=bool(
                             ignore_longer_outputs_than_inputs))  # the loss: its one visible output


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """TF 1.15's best-path decoding of logits ``[max_time, batch, num_classes]``: each step's
    most likely class, repeats merged (``merge_repeated``), blanks (the last class) dropped.
    Returns ``([decoded], neg_sum_logits)``: ``decoded`` a ``tf.SparseTensor`` of int64 classes
    ``[batch, longest]`` (its size known when it runs), ``neg_sum_logits`` ``[batch, 1]`` minus
    the sum of each step's largest logit over the example's sequence."""
    inputs = _tensor(inputs)
    classes = inputs.get_shape()[-1].value
    if classes is None:
        raise ValueError(f"ctc_greedy_decoder: the number of classes must be known as the graph "
                         f"is built, got logits {inputs.get_shape()}")
    with current_context().name_scope("CTCGreedyDecoder"):
        steps = transpose(inputs, [1, 0, 2])  # [batch, time, classes]
        best = argmax(steps, 2)  # int64
        inside = sequence_mask(cast(_tensor(sequence_length), int32), shape(best)[1])
        keep = logical_and(inside, not_equal(best, classes - 1))
        if merge_repeated:  # a class the step before chose (blank or not) is not new
            before = concat([_fill_like_minus_one(best[:, :1]), best[:, :-1]], 1)
            keep = logical_and(keep, not_equal(best, before))
        at = where(keep)  # [n, 2]: (example, step) of each class kept
        position = cumsum(cast(keep, int64), axis=1) - 1
        indices = stack([at[:, 0], gather_nd(position, at)], axis=1)
        counts = reduce_sum(cast(keep, int64), 1)
        decoded = SparseTensor(indices, gather_nd(best, at),
                               stack([shape(best, out_type=int64)[0], reduce_max(counts)]))
        largest = reduce_max(steps, 2) * cast(inside, steps.dtype)
        return [decoded], -reduce_sum(largest, 1, keepdims=True)


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1,
                            merge_repeated=True):
    """TF 1.15's beam search decoding of logits ``[max_time, batch, num_classes]`` (the last
    class the blank; op ``ctc_beam_search_decoder``, computed in Python when it runs).  Returns
    ``(decoded, log_probabilities)``: ``decoded`` a list of ``top_paths`` ``tf.SparseTensor``s
    of int64 classes ``[batch, longest]`` (the j-th best path of each example; sizes known
    when it runs), ``log_probabilities`` ``[batch, top_paths]``.  ``merge_repeated`` merges
    repeated classes of a path as TF's (even those a blank separated)."""
    for key, value in (("beam_width", beam_width), ("top_paths", top_paths)):
        if int(value) < 1:
            raise ValueError(f"Attr '{key}' of 'CTCBeamSearchDecoder' Op passed {int(value)} "
                             f"less than minimum 1.")
    with current_context().name_scope("CTCBeamSearchDecoder"):
        decoder = create_op(
            "ctc_beam_search_decoder", _tensor(inputs), cast(_tensor(sequence_length), int32),
            beam_width=int(beam_width), top_paths=int(top_paths),
            merge_repeated=bool(merge_repeated))
        paths, log_probabilities = decoder[0], decoder[1]
        decoded = []
        for path in range(int(top_paths)):
            dense = paths[path]  # [batch, max_time], each path's classes first, then -1
            keep = not_equal(dense, -1)
            at = where(keep)
            counts = reduce_sum(cast(keep, int64), 1)
            decoded.append(SparseTensor(at, gather_nd(dense, at), stack(
                [shape(dense, out_type=int64)[0], reduce_max(counts)])))
        return decoded, log_probabilities


def _fill_like_minus_one(x):
    """-1 in x's shape and dtype (no class: the step before the first)."""
    return cast(zeros_like(x), x.dtype) - 1


def _placed(values, keep, position, width):
    """``out[b, k] = values[b, j]`` for the j kept (``keep[b, j]``) at ``position[b, j] == k``,
    0 elsewhere, k < ``width`` (an int or a scalar tensor)."""
    slots = tf_range(width)
    chosen = logical_and(expand_dims(keep, 1), equal(
        expand_dims(position, 1), cast(expand_dims(expand_dims(slots, 0), 2), position.dtype)))
    return reduce_sum(cast(chosen, values.dtype) * expand_dims(values, 1), 2)


def collapse_repeated(labels, seq_length, name=None):
    """TF 1.15's ``tf.nn.collapse_repeated``: each row of ``labels`` ``[batch, max_len]``
    within its ``seq_length`` with runs of one label merged, ``(collapsed, new_seq_length)``:
    ``collapsed`` ``[batch, max(new_seq_length)]`` padded with 0 (its width known when it
    runs), ``new_seq_length`` of ``seq_length``'s dtype."""
    with current_context().name_scope(name or "collapse_repeated_labels"):
        labels, seq_length = _tensor(labels), _tensor(seq_length)
        if labels.get_shape().ndims != 2 or labels.get_shape()[1].value is None:
            raise ValueError(f"collapse_repeated: labels must be [batch, max_len] with a known "
                             f"max_len, got {labels.get_shape()}")
        width = labels.get_shape()[1].value
        keep = concat([ones_like(cast(labels[:, :1], int32)) > 0,
                       not_equal(labels[:, 1:], labels[:, :-1])], axis=1)
        keep = logical_and(keep, sequence_mask(seq_length, width))
        counts = reduce_sum(cast(keep, int32), 1)
        position = cumsum(cast(keep, int32), axis=1, exclusive=True)
        collapsed = _placed(labels, keep, position, width)
        collapsed = tf_slice(collapsed, [0, 0], stack([shape(labels)[0], reduce_max(counts)]))
        return collapsed, cast(counts, seq_length.dtype)


def ctc_unique_labels(labels, name=None):
    """TF 1.15's ``tf.nn.ctc_unique_labels``: per row of ``labels`` ``[batch, max_len]``,
    its distinct labels in order of first appearance padded with 0 to ``max_len`` (int64), and
    for each label the index of its distinct label (int32), as ``tf.unique`` of each row."""
    with current_context().name_scope(name or "ctc_unique_labels"):
        labels = _tensor(labels)
        if labels.get_shape().ndims != 2 or labels.get_shape()[1].value is None:
            raise ValueError(f"ctc_unique_labels: labels must be [batch, max_len] with a known "
                             f"max_len, got {labels.get_shape()}")
        width = labels.get_shape()[1].value
        same = equal(expand_dims(labels, 2), expand_dims(labels, 1))  # [b, i, j]: l_i == l_j
        earlier = tf_range(width)
        before = expand_dims(expand_dims(earlier, 1) > expand_dims(earlier, 0), 0)  # j < i
        first = logical_not(reduce_any(logical_and(same, before), 2))
        position = cumsum(cast(first, int32), axis=1, exclusive=True)
        unique = _placed(cast(labels, int64), first, position, width)
        # each label's index: the position of the first label equal to it
        first_equal = argmax(cast(same, int32), 2, output_type=int32)
        index = reduce_sum(cast(equal(expand_dims(first_equal, 2), expand_dims(
            expand_dims(earlier, 0), 0)), int32) * expand_dims(position, 1), 2)
        return unique, index
