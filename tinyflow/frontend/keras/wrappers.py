"""``tf.keras.layers.Bidirectional`` and ``TimeDistributed`` as TensorFlow 1.15 has them.

- ``Bidirectional(layer, merge_mode)``: a copy of the recurrent ``layer`` named
  ``forward_<name>`` and one running backwards named ``backward_<name>``, each with variables
  of its own (``bidirectional/forward_lstm/kernel:0``...; the forward ones first in
  ``weights``); the backward sequence put back in time order, then merged: ``"concat"``
  (default), ``"sum"``, ``"ave"``, ``"mul"``, or None (the list of both).  Returning
  sequences, a masked step's outputs are zeros (TF's ``zero_output_for_mask``).
- ``TimeDistributed(layer)``: ``layer`` applied to every step of ``[batch, time, ...]`` (the
  steps folded into the batch); its variables are in the wrapper's scope
  (``time_distributed/kernel:0``), as TF's.
"""
from __future__ import annotations

from ...nnvm.symbol import Symbol
from ...nnvm.tensor_shape import TensorShape
from .. import array_ops
from .engine import Layer
from .recurrent import _track, declared, fresh_copy

__all__ = ["Bidirectional", "TimeDistributed"]

_MERGES = {"concat": lambda y, r: array_ops.concat([y, r], -1), "sum": lambda y, r: y + r,
           "ave": lambda y, r: (y + r) / 2, "mul": lambda y, r: y * r}


class Bidirectional(Layer):
    """The recurrent ``layer`` both ways along time, merged by ``merge_mode`` (see the
    module doc); ``backward_layer`` may be given (a recurrent layer running the other way)."""

    supports_masking = True

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None,
                 **kwargs) -> None:
        if merge_mode not in (*_MERGES, None):
            raise ValueError(f"Invalid merge mode. Merge mode should be one of "
                             f'{{"sum", "mul", "ave", "concat", None}}, got {merge_mode!r}')
        if weights is not None:
            raise ValueError("Bidirectional: weights= is not supported by TinyFlow: call "
                             "set_weights once the layer is built")
        super().__init__(**kwargs)
        self.forward_layer = fresh_copy(layer, f"forward_{layer.name}")
        if backward_layer is None:
            backward_layer = fresh_copy(layer, f"backward_{layer.name}",
                                        go_backwards=not layer.go_backwards)
        elif backward_layer.go_backwards == layer.go_backwards:
            raise ValueError("Forward layer and backward layer should have different "
                             "`go_backwards` value.")
        else:  # the layer given, as TF's (renamed)
            backward_layer._name = f"backward_{backward_layer.name}"
        self.backward_layer = backward_layer
        for part in (self.forward_layer, self.backward_layer):
            part.zero_output_for_mask = layer.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences, self.return_state = layer.return_sequences, layer.return_state
        self._batch_input_shape = self._batch_input_shape or layer._batch_input_shape

    def call(self, inputs, training=None, mask=None, initial_state=None):
        if isinstance(inputs, list):
            inputs, initial_state = inputs[0], inputs[1:] or initial_state
        states = [None, None]
        if initial_state is not None:
            half = len(initial_state) // 2
            states = [list(initial_state[:half]), list(initial_state[half:])]
        y = self.forward_layer(inputs, mask=mask, training=training, initial_state=states[0])
        y_rev = self.backward_layer(inputs, mask=mask, training=training,
                                    initial_state=states[1])
        _track(self, self.forward_layer)
        _track(self, self.backward_layer)
        final = []
        if self.return_state:
            final = [*y[1:], *y_rev[1:]]
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            known = y_rev.get_shape().as_list()
            y_rev = declared(array_ops.reverse(
                y_rev, [0 if self.forward_layer.time_major else 1]), known)
        output = [y, y_rev] if self.merge_mode is None else _MERGES[self.merge_mode](y, y_rev)
        if self.return_state:
            return [*output, *final] if self.merge_mode is None else [output, *final]
        return output

    def compute_mask(self, inputs, mask=None):
        mask = mask[0] if isinstance(mask, list) else mask
        output_mask = mask if self.return_sequences else None
        outputs = [output_mask, output_mask] if self.merge_mode is None else [output_mask]
        if self.return_state:
            return outputs + [None] * (2 * _state_count(self.forward_layer))
        return outputs if self.merge_mode is None else output_mask


def _state_count(layer) -> int:
    size = layer.cell.state_size
    return len(size) if isinstance(size, (list, tuple)) else 1


class TimeDistributed(Layer):
    """``layer`` applied to each step of ``[batch, time, ...]`` inputs."""

    supports_masking = True

    def __init__(self, layer, **kwargs) -> None:
        if not isinstance(layer, Layer):
            raise TypeError(f"Please initialize `TimeDistributed` layer with a `Layer` "
                             f"instance. You passed: {layer!r}")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        if shape.ndims is None or shape.ndims < 3:
            raise ValueError(f"`TimeDistributed` Layer should be passed an `input_shape ` "
                             f"with at least 3 dimensions, received: {shape}")
        if not self.layer.built:
            self.layer.build(TensorShape([shape[0].value, *shape.as_list()[2:]]))
            self.layer.built = True
        _track(self, self.layer)
        self.built = True

    def call(self, inputs, training=None) -> Symbol:
        known = inputs.get_shape().as_list()
        folded = array_ops.reshape(inputs, [-1, *known[2:]])
        kwargs = {"training": training} if self.layer._takes_training else {}
        outputs = self.layer.call(folded, **kwargs)
        inner = outputs.get_shape().as_list()[1:]
        if known[1] is not None or known[0] is not None:
            return array_ops.reshape(outputs, [known[0] or -1, known[1] or -1, *inner])
        return array_ops.reshape(outputs, array_ops.concat(
            [array_ops.shape(inputs)[:2], [int(d) for d in inner]], 0))
