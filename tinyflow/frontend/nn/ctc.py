"""``tf.nn.ctc_loss`` (TensorFlow 1.15's): the connectionist temporal classification loss of
speech and handwriting models, an op of its own (``ctc_loss``, tinyflow/ops/nn.py, torch's CTC
inside) whose gradient is kept from the forward as TF's is."""
from __future__ import annotations

from ...nnvm.symbol import Symbol, create_op, current_context
from ..api import _tensor, argmax, cast, logical_and, not_equal, reduce_max, reduce_sum, where
from ..array_ops import concat, ones_like, shape, stack, transpose, zeros_like
from ..dtypes import int32, int64
from ..framework_names import sequence_mask  # a batch's time steps may be known only at run
from ..indexing_ops import gather_nd
from ..math_ops import cumsum
from ..sparse_ops import SparseTensor, sparse_tensor_to_dense

__all__ = ["ctc_greedy_decoder", "ctc_loss"]


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


def _fill_like_minus_one(x):
    """-1 in x's shape and dtype (no class: the step before the first)."""
    return cast(zeros_like(x), x.dtype) - 1
