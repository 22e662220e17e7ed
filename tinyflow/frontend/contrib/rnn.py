"""``tf.contrib.rnn`` (``from tensorflow.contrib import rnn``): TensorFlow 1.x's RNN cells and
functions, the same objects as ``tf.nn.rnn_cell.*`` and ``tf.nn.static_rnn`` etc., and contrib's
own cells (:mod:`.rnn_cell`: LSTMBlockCell, LayerNormBasicLSTMCell, the projection and embedding
wrappers).  Names of ``tf.contrib.rnn`` that TinyFlow lacks (``GridLSTMCell``, ``NASCell``...)
are AttributeErrors saying so."""
from ..nn.rnn import bidirectional_dynamic_rnn, dynamic_rnn, static_bidirectional_rnn, static_rnn
from ..nn.rnn_cell import (
    BasicLSTMCell,
    BasicRNNCell,
    DeviceWrapper,
    DropoutWrapper,
    GRUCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    ResidualWrapper,
    RNNCell,
)
from .rnn_cell import (
    AttentionCellWrapper,
    EmbeddingWrapper,
    InputProjectionWrapper,
    LayerNormBasicLSTMCell,
    LSTMBlockCell,
    LSTMBlockFusedCell,
    OutputProjectionWrapper,
)

__all__ = ["AttentionCellWrapper", "BasicLSTMCell", "BasicRNNCell", "DeviceWrapper",
           "DropoutWrapper", "EmbeddingWrapper", "GRUCell", "InputProjectionWrapper",
           "LSTMBlockCell", "LSTMBlockFusedCell", "LSTMCell", "LSTMStateTuple",
           "LayerNormBasicLSTMCell", "MultiRNNCell", "OutputProjectionWrapper", "RNNCell",
           "ResidualWrapper", "bidirectional_dynamic_rnn", "dynamic_rnn",
           "static_bidirectional_rnn", "static_rnn"]


def __getattr__(name):
    raise AttributeError(f"tf.contrib.rnn.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib.rnn' has no attribute {name!r})")
