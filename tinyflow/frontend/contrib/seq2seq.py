"""``tf.contrib.seq2seq`` (TensorFlow 1.15): decoding (:mod:`.seq2seq_decoding`:
``BasicDecoder``, its helpers, ``dynamic_decode``, ``sequence_loss``; the sampling helpers in
:mod:`.seq2seq_sampling`), attention
(:mod:`.seq2seq_attention`: ``LuongAttention``, ``BahdanauAttention``, ``AttentionWrapper``,
``hardmax``) and beam search (:mod:`.seq2seq_beam_search`: ``BeamSearchDecoder``,
``tile_batch``, ``gather_tree``).  ``dir()`` lists these names only; the names of
``tf.contrib.seq2seq`` TinyFlow lacks (the monotonic attentions, ``InferenceHelper``,
``CustomHelper``...) are AttributeErrors saying so.
"""
from .seq2seq_attention import (
    AttentionMechanism,
    AttentionWrapper,
    AttentionWrapperState,
    BahdanauAttention,
    LuongAttention,
    hardmax,
)
from .seq2seq_beam_search import (
    BeamSearchDecoder,
    BeamSearchDecoderOutput,
    BeamSearchDecoderState,
    FinalBeamSearchDecoderOutput,
    gather_tree,
    tile_batch,
)
from .seq2seq_decoding import (
    BasicDecoder,
    BasicDecoderOutput,
    Decoder,
    GreedyEmbeddingHelper,
    Helper,
    TrainingHelper,
    dynamic_decode,
    sequence_loss,
)
from .seq2seq_sampling import SampleEmbeddingHelper, ScheduledEmbeddingTrainingHelper

__all__ = ["AttentionMechanism", "AttentionWrapper", "AttentionWrapperState",
           "BahdanauAttention", "BasicDecoder", "BasicDecoderOutput", "BeamSearchDecoder",
           "BeamSearchDecoderOutput", "BeamSearchDecoderState", "Decoder",
           "FinalBeamSearchDecoderOutput", "GreedyEmbeddingHelper", "Helper", "LuongAttention",
           "SampleEmbeddingHelper", "ScheduledEmbeddingTrainingHelper", "TrainingHelper", "dynamic_decode", "gather_tree", "hardmax", "sequence_loss",
           "tile_batch"]


def __dir__():
    return sorted(__all__)


def __getattr__(name):
    raise AttributeError(f"tf.contrib.seq2seq.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib.seq2seq' has no attribute {name!r})")
