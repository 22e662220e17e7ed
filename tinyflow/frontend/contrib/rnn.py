"""``tf.contrib.rnn`` (``from tensorflow.contrib import rnn``): TensorFlow 1.x's RNN cells and
functions, the same objects as ``tf.nn.rnn_cell.*`` and ``tf.nn.static_rnn`` etc., and contrib's
own cells (:mod:`.rnn_cell`: LSTMBlockCell, LayerNormBasicLSTMCell, the projection and embedding
wrappers).  Names of ``tf.contrib.rnn`` that TinyFlow lacks (``GridLSTMCell``, ``NASCell``...)
are AttributeErrors saying so."""
from ..array_ops import concat
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
from ..variable_scope import variable_scope
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
           "stack_bidirectional_dynamic_rnn", "stack_bidirectional_rnn",
           "static_bidirectional_rnn", "static_rnn"]


def _layers(cells_fw, cells_bw, initial_states_fw, initial_states_bw) -> list:
    """Per layer ``(cell_fw, cell_bw, initial_fw, initial_bw)``, TF's checks first."""
    for cells, which in ((cells_fw, "fw"), (cells_bw, "bw")):
        if not cells:
            raise ValueError(f"Must specify at least one {which} cell for BidirectionalRNN.")
        if not isinstance(cells, list):
            raise ValueError(  # noqa: TRY004 - TF raises ValueError
                f"cells_{which} must be a list of RNNCells (one per layer).")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    for states, which in ((initial_states_fw, "fw"), (initial_states_bw, "bw")):
        if states is not None and (not isinstance(states, list) or len(states) != len(cells_fw)):
            raise ValueError(f"initial_states_{which} must be a list of state tensors (one per "
                             f"layer).")
    return [(fw, bw, initial_states_fw[i] if initial_states_fw else None,
             initial_states_bw[i] if initial_states_bw else None)
            for i, (fw, bw) in enumerate(zip(cells_fw, cells_bw))]


def stack_bidirectional_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None,
                            initial_states_bw=None, dtype=None, sequence_length=None,
                            scope=None) -> tuple:
    """Layers of :func:`static_bidirectional_rnn` (layer i under
    ``<scope or "stack_bidirectional_rnn">/cell_<i>/fw``, ``/bw``), each layer's input the
    concatenated outputs of the one before: ``(outputs, states_fw, states_bw)``."""
    states_fw, states_bw = [], []
    with variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (fw, bw, init_fw, init_bw) in enumerate(
                _layers(cells_fw, cells_bw, initial_states_fw, initial_states_bw)):
            with variable_scope(f"cell_{i}") as cell_scope:
                inputs, state_fw, state_bw = static_bidirectional_rnn(
                    fw, bw, inputs, init_fw, init_bw, dtype, sequence_length, scope=cell_scope)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return inputs, tuple(states_fw), tuple(states_bw)


def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None,
                                    initial_states_bw=None, dtype=None, sequence_length=None,
                                    parallel_iterations=None, time_major=False, scope=None,
                                    swap_memory=False) -> tuple:
    """Layers of :func:`bidirectional_dynamic_rnn` (layer i under
    ``<scope or "stack_bidirectional_rnn">/cell_<i>/bidirectional_rnn/fw``, ``/bw``), each
    layer's input its predecessor's outputs concatenated on the last axis:
    ``(outputs, states_fw, states_bw)``."""
    states_fw, states_bw = [], []
    with variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (fw, bw, init_fw, init_bw) in enumerate(
                _layers(cells_fw, cells_bw, initial_states_fw, initial_states_bw)):
            with variable_scope(f"cell_{i}"):
                outputs, (state_fw, state_bw) = bidirectional_dynamic_rnn(
                    fw, bw, inputs, sequence_length, init_fw, init_bw, dtype,
                    time_major=time_major)
                inputs = concat(outputs, 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return inputs, tuple(states_fw), tuple(states_bw)


def __getattr__(name):
    raise AttributeError(f"tf.contrib.rnn.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib.rnn' has no attribute {name!r})")
