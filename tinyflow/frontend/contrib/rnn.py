"""``tf.contrib.rnn`` (``from tensorflow.contrib import rnn``): TensorFlow 1.x's RNN cells and
functions, the same objects as ``tf.nn.rnn_cell.*`` and ``tf.nn.static_rnn`` etc.  Names of
``tf.contrib.rnn`` that TinyFlow lacks (``LSTMBlockCell``, ``LayerNormBasicLSTMCell``...) are
AttributeErrors saying so."""
from ..nn.rnn import bidirectional_dynamic_rnn, dynamic_rnn, static_bidirectional_rnn, static_rnn
from ..nn.rnn_cell import (
    BasicLSTMCell,
    BasicRNNCell,
    DropoutWrapper,
    GRUCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    RNNCell,
)

__all__ = ["BasicLSTMCell", "BasicRNNCell", "DropoutWrapper", "GRUCell", "LSTMCell",
           "LSTMStateTuple", "MultiRNNCell", "RNNCell", "bidirectional_dynamic_rnn",
           "dynamic_rnn", "static_bidirectional_rnn", "static_rnn"]


def __getattr__(name):
    raise AttributeError(f"tf.contrib.rnn.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib.rnn' has no attribute {name!r})")
