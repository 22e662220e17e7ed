"""``tf.nn.ctc_loss`` (TensorFlow 1.15's): the connectionist temporal classification loss of
speech and handwriting models, an op of its own (``ctc_loss``, tinyflow/ops/nn.py, torch's CTC
inside) whose gradient is kept from the forward as TF's is."""
from __future__ import annotations

from ...nnvm.symbol import Symbol, create_op, current_context
from ..api import _tensor, cast, reduce_sum
from ..array_ops import ones_like, transpose
from ..dtypes import int32
from ..sparse_ops import SparseTensor, sparse_tensor_to_dense

__all__ = ["ctc_loss"]


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
