"""``tf.contrib.seq2seq``'s sampling helpers (TensorFlow 1.15's ``helper.py``):
``SampleEmbeddingHelper`` (each step's input the embedding of an id drawn from the softmax of
the outputs, divided by ``softmax_temperature``) and ``ScheduledEmbeddingTrainingHelper``
(teacher forcing, except that each example, with probability ``sampling_probability`` per
step, reads the embedding of an id drawn from its outputs; its sample id is -1 where it did
not draw).  The draws are TinyFlow's streams (``seed`` as a random op's), not TF's numbers.
"""
from __future__ import annotations

from ...nnvm.symbol import Symbol
from ..api import _tensor, cast, equal, greater, log, maximum, where
from ..array_ops import reshape, stack, zeros_like
from ..nn.functions import embedding_lookup
from ..random_ops import multinomial
from .seq2seq_decoding import GreedyEmbeddingHelper, TrainingHelper

__all__ = ["SampleEmbeddingHelper", "ScheduledEmbeddingTrainingHelper"]


def _draw(logits: Symbol, seed) -> Symbol:
    """One id per row of ``logits``, drawn from its softmax (TF's Categorical.sample), int32."""
    ids = reshape(multinomial(logits, 1, seed=seed, output_dtype="int32"), [-1])
    ids.set_shape(logits.get_shape()[:1] if logits.get_shape().ndims else [None])
    return ids


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """:class:`GreedyEmbeddingHelper` drawing each step's ids from ``softmax(outputs /
    softmax_temperature)`` instead of taking the argmax."""

    def __init__(self, embedding, start_tokens, end_token, softmax_temperature=None,
                 seed=None):
        super().__init__(embedding, start_tokens, end_token)
        self._softmax_temperature = softmax_temperature
        self._seed = seed

    def sample(self, time, outputs, state, name=None):
        """Ids drawn from the (tempered) softmax of ``outputs`` (int32)."""
        if not isinstance(outputs, Symbol):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
        logits = outputs if self._softmax_temperature is None else (
            outputs / self._softmax_temperature)
        return _draw(logits, self._seed)


class ScheduledEmbeddingTrainingHelper(TrainingHelper):
    """:class:`TrainingHelper` that, per example and step, with probability
    ``sampling_probability`` (a scalar or one per example), feeds the embedding of an id drawn
    from the outputs instead of the next input."""

    def __init__(self, inputs, sequence_length, embedding, sampling_probability,
                 time_major=False, seed=None, scheduling_seed=None, name=None):
        self._embed = embedding if callable(embedding) else (
            lambda ids: embedding_lookup(embedding, ids))
        self._sampling_probability = _tensor(sampling_probability)
        if self._sampling_probability.get_shape().ndims not in (0, 1):
            raise ValueError(f"sampling_probability must be either a scalar or a vector. saw "
                             f"shape: {self._sampling_probability.get_shape()}")
        self._seed, self._scheduling_seed = seed, scheduling_seed
        super().__init__(inputs, sequence_length, time_major=time_major, name=name)

    def sample(self, time, outputs, state, name=None):
        """An id drawn from ``outputs`` where the example samples this step, else -1."""
        drawn = _draw(outputs, self._seed)
        # TF's Bernoulli(sampling_probability) per example, as a draw between the logits
        # log(1 - p) and log(p) (a shape from the outputs': a loop's body takes no shape
        # known only when it runs)
        p = cast(self._sampling_probability, "float32")
        pair = stack([log(1.0 - p), log(p)], axis=-1)
        chosen = equal(_draw(zeros_like(outputs[:, :1]) + pair, self._scheduling_seed), 1)
        ids = where(chosen, drawn, zeros_like(drawn) - 1)
        ids.set_shape(drawn.get_shape())  # a loop's TensorArray row: its shape as it entered
        return ids

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        """The next inputs, the drawn ids' embeddings where the example sampled."""
        finished, base, state = super().next_inputs(time, outputs, state, sample_ids)
        sampled = self._embed(maximum(sample_ids, 0))
        inputs = where(greater(sample_ids, -1), sampled, base)
        inputs.set_shape(base.get_shape())
        return finished, inputs, state
