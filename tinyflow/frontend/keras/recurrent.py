"""``tf.keras.layers``' recurrent layers as TensorFlow 1.15 has them (the v1 classes): the
cells ``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``, ``StackedRNNCells``, and the layers
``RNN`` (a cell over time), ``SimpleRNN``, ``LSTM``, ``GRU``.

- TF 1.15's defaults: LSTM and GRU gate with ``recurrent_activation="hard_sigmoid"``
  (``clip(0.2 x + 0.5, 0, 1)``), GRU with ``reset_after=False``; kernels Glorot-uniform,
  recurrent kernels orthogonal, biases zeros (LSTM's forget gate's ones: ``unit_forget_bias``).
- Keras' layout: LSTM kernel ``[input, 4 units]``, recurrent kernel ``[units, 4 units]``,
  bias ``[4 units]``, gates i, f, c, o; GRU's z, r, h (bias ``[2, 3 units]`` with
  ``reset_after``); named as TF 1.15 names them, ``lstm/kernel:0``... (a cell's variables are
  the layer's; a StackedRNNCells' cells share the name scope, so the second cell's are
  ``rnn/kernel_1:0``...), so ``get_weights``/``set_weights`` and checkpoints interchange.
- The loop over time is the cell called once per step when the number of steps is known as
  the graph is built (Keras' ``unroll``: the same values), else a ``tf.while_loop``.
- A mask (``Embedding(mask_zero=True)``, ``Masking``, or ``mask=``) ``[batch, time]``: at a
  masked step the states stay as they were and the output is the previous step's (zeros with
  ``zero_output_for_mask``, as Bidirectional's layers have when returning sequences).
- ``dropout`` / ``recurrent_dropout``: one mask per call and gate, drawn when training only.
- ``stateful`` and ``constants`` are not supported (NotImplementedError says so).
"""
from __future__ import annotations

import copy
import inspect

from ...nnvm.symbol import create_op
from ...nnvm.tensor_shape import TensorShape
from .. import api, array_ops
from .. import layers as tf_layers
from ..loops import while_loop
from ..nn import functions as nn
from . import activations, initializers, regularizers
from .engine import Layer

__all__ = [
    "GRU",
    "LSTM",
    "RNN",
    "GRUCell",
    "LSTMCell",
    "SimpleRNN",
    "SimpleRNNCell",
    "StackedRNNCells",
]


def _refuse(what: str):
    return NotImplementedError(f"tf.keras.layers: {what} is not supported by TinyFlow")


class _Cell(Layer):
    """What Keras' cells share: the weights (kernel, recurrent kernel, bias of ``gates``
    blocks of ``units``), the arguments of Keras' constructors, and the dropout masks."""

    _gates = 1

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, **kwargs) -> None:
        kwargs.pop("implementation", None)  # Keras' kernel choice: the same values
        super().__init__(**kwargs)
        tf_layers._no_constraints(self, kernel_constraint=kernel_constraint,
                                  recurrent_constraint=recurrent_constraint,
                                  bias_constraint=bias_constraint)
        self.units, self.use_bias = int(units), bool(use_bias)
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.dropout = min(1.0, max(0.0, float(dropout)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_dropout)))
        self.state_size = self.output_size = self.units
        self._end()

    def _bias_shape(self):
        return [self._gates * self.units]

    def _bias_initializer(self):
        return self.bias_initializer

    def build(self, input_shape) -> None:
        depth = TensorShape(input_shape)[-1].value
        if depth is None:
            raise ValueError(f"{type(self).__name__}: the inputs' last dimension must be "
                             f"known, got shape {input_shape}")
        size = self._gates * self.units
        self.kernel = self.add_weight("kernel", [int(depth), size],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", [self.units, size],
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer)
        self.bias = self.add_weight("bias", self._bias_shape(),
                                    initializer=self._bias_initializer(),
                                    regularizer=self.bias_regularizer) if self.use_bias else None
        self.built = True

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None) -> list:
        """Zeros ``[batch, size]`` per state."""
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else [
            self.state_size]
        known = batch_size if isinstance(batch_size, int) else None
        return [declared(array_ops.zeros([batch_size, int(size)], dtype=dtype or "float32"),
                         [known, int(size)]) for size in sizes]

    def _begin(self, step_input, states, training) -> None:
        """Draw this call's dropout masks (Keras: one per gate, the same at every step)."""
        def masks(rate, like):
            if rate == 0:
                return [None] * self._gates
            known = tf_layers._static_bool(training)
            if known is False:
                return [None] * self._gates
            ones = array_ops.ones_like(like)
            drawn = [nn.dropout(ones, rate=rate) for _ in range(self._gates)]
            return drawn if known else [tf_layers._select(training, d, ones) for d in drawn]
        self._masks = (masks(self.dropout, step_input),
                       masks(self.recurrent_dropout, states[0]))

    def _end(self) -> None:
        self._masks = ([None] * self._gates, [None] * self._gates)

    def _dropped(self, inputs, state) -> tuple:
        """The inputs and state each gate reads (times its dropout mask)."""
        return ([inputs if m is None else inputs * m for m in self._masks[0]],
                [state if m is None else state * m for m in self._masks[1]])

    def _part(self, weight, gate):
        return weight[:, gate * self.units:(gate + 1) * self.units]

    def _bias_part(self, gate):
        return self.bias[gate * self.units:(gate + 1) * self.units]

    def _input_part(self, inputs, gate):
        result = api.matmul(inputs, self._part(self.kernel, gate))
        return result + self._bias_part(gate) if self.use_bias else result


class SimpleRNNCell(_Cell):
    """``h = activation(x @ kernel + bias + h @ recurrent_kernel)``."""

    def __init__(self, units, activation="tanh", **kwargs) -> None:
        super().__init__(units, activation=activation, recurrent_activation=None, **kwargs)

    def call(self, inputs, states, training=None) -> tuple:
        (x,), (h,) = self._dropped(inputs, states[0])
        output = self.activation(self._input_part(x, 0) + api.matmul(h, self.recurrent_kernel))
        return output, [output]


class LSTMCell(_Cell):
    """Keras' LSTM step, gates i, f, c, o: ``c = f c + i activation(x W_c + h U_c + b_c)``,
    ``h = o activation(c)``; the states ``[h, c]``."""

    _gates = 4

    def __init__(self, units, unit_forget_bias=True, **kwargs) -> None:
        super().__init__(units, **kwargs)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.state_size = [self.units, self.units]

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        units, given = self.units, self.bias_initializer

        def initializer(shape, dtype=None, partition_info=None):
            return array_ops.concat([given([units], dtype=dtype),
                                     initializers.Ones()([units], dtype=dtype),
                                     given([2 * units], dtype=dtype)], 0)
        return initializer

    def call(self, inputs, states, training=None) -> tuple:
        (h, c), act, gate = states, self.activation, self.recurrent_activation
        xs, hs = self._dropped(inputs, h)
        pre = [self._input_part(xs[k], k) + api.matmul(hs[k], self._part(
            self.recurrent_kernel, k)) for k in range(4)]
        c = gate(pre[1]) * c + gate(pre[0]) * act(pre[2])
        h = gate(pre[3]) * act(c)
        return h, [h, c]


class GRUCell(_Cell):
    """Keras' GRU step, gates z, r, h: ``h' = z h + (1 - z) activation(x W_h + (r h) U_h)``
    (``reset_after``: ``r (h U_h + b_h')``, CuDNN's form, with a second bias row)."""

    _gates = 3

    def __init__(self, units, reset_after=False, **kwargs) -> None:
        super().__init__(units, **kwargs)
        self.reset_after = bool(reset_after)

    def _bias_shape(self):
        return [2, 3 * self.units] if self.reset_after else [3 * self.units]

    def _bias_part(self, gate, row=0):
        bias = self.bias[row] if self.reset_after else self.bias
        return bias[gate * self.units:(gate + 1) * self.units]

    def call(self, inputs, states, training=None) -> tuple:
        h = states[0]
        xs, hs = self._dropped(inputs, h)
        x_parts = [self._input_part(xs[k], k) for k in range(3)]
        u_parts = [api.matmul(hs[k], self._part(self.recurrent_kernel, k)) for k in range(2)]
        if self.reset_after and self.use_bias:
            u_parts = [u + self._bias_part(k, 1) for k, u in enumerate(u_parts)]
        z = self.recurrent_activation(x_parts[0] + u_parts[0])
        r = self.recurrent_activation(x_parts[1] + u_parts[1])
        if self.reset_after:
            inner = api.matmul(hs[2], self._part(self.recurrent_kernel, 2))
            inner = inner + self._bias_part(2, 1) if self.use_bias else inner
            candidate = self.activation(x_parts[2] + r * inner)
        else:
            candidate = self.activation(x_parts[2] + api.matmul(
                r * hs[2], self._part(self.recurrent_kernel, 2)))
        output = z * h + (1 - z) * candidate
        return output, [output]


class StackedRNNCells(Layer):
    """Cells one above the other as one cell: each reads the one below's output; the states
    are the cells' states in turn."""

    def __init__(self, cells, **kwargs) -> None:
        super().__init__(**kwargs)
        self.cells = list(cells)
        self.state_size = [s for cell in self.cells for s in _sizes(cell.state_size)]
        self.output_size = self.cells[-1].output_size

    def build(self, input_shape) -> None:
        shape = input_shape
        for cell in self.cells:
            if not cell.built:
                cell.build(shape)
                cell.built = True
            shape = TensorShape([TensorShape(shape)[0].value, int(cell.output_size)])
            _track(self, cell)
        self.built = True

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None) -> list:
        return [s for cell in self.cells for s in cell.get_initial_state(
            inputs, batch_size, dtype)]

    def _begin(self, step_input, states, training) -> None:
        for cell, own in zip(self.cells, self._split(states)):
            if hasattr(cell, "_begin"):
                cell._begin(step_input, own, training)
            step_input = own[0]  # the next cell reads this one's output, shaped as its h

    def _end(self) -> None:
        for cell in self.cells:
            if hasattr(cell, "_end"):
                cell._end()

    def _split(self, states) -> list:
        parts, start = [], 0
        for cell in self.cells:
            count = len(_sizes(cell.state_size))
            parts.append(list(states[start:start + count]))
            start += count
        return parts

    def call(self, inputs, states, training=None) -> tuple:
        new_states = []
        for cell, state in zip(self.cells, self._split(states)):
            inputs, state = cell.call(inputs, state, training=training)
            new_states.extend(state)
        return inputs, new_states


def _sizes(size) -> list:
    return list(size) if isinstance(size, (list, tuple)) else [size]


def _track(owner: Layer, inner: Layer) -> None:
    """``inner``'s variables and losses as ``owner``'s too (once)."""
    for variable in inner.weights:
        if not any(variable is w for w in owner._weights):
            owner._weights.append(variable)
    for loss in inner.losses:
        if not any(loss is x for x in owner._losses):
            owner._losses.append(loss)


# -- the loop over time ------------------------------------------------------------------------
def _masked(mask_t, output, new_states, previous, states, zero_output):
    """Keras' rule at a masked step: the states as they were, the output the previous step's
    (zeros with ``zero_output``)."""
    kept = array_ops.zeros_like(output) if zero_output else previous
    return (_kept_shape(api.where(mask_t, output, kept), output),
            [_kept_shape(api.where(mask_t, new, old), new)
             for new, old in zip(new_states, states)])


def _kept_shape(tensor, like):
    shape = like.get_shape()
    return tensor if shape.ndims is None else declared(tensor, shape)


def _unrolled(step, inputs, states, mask, zero_output, steps):
    """The cell called once per step of the time-major ``inputs`` (``steps`` known)."""
    per_step = array_ops.unstack(inputs, num=steps)
    masks = array_ops.unstack(mask, num=steps) if mask is not None else [None] * steps
    outputs, previous = [], None
    for x, mask_t in zip(per_step, masks):
        output, new_states = step(x, states)
        if mask_t is not None:
            previous = array_ops.zeros_like(output) if previous is None else previous
            output, new_states = _masked(mask_t, output, new_states, previous, states,
                                         zero_output)
        outputs.append(output)
        previous, states = output, new_states
    return array_ops.stack(outputs), outputs[-1], states


def _looped(step, inputs, states, mask, zero_output, output_size):
    """The cell over the time-major ``inputs`` as a ``tf.while_loop`` (the number of steps
    known only when a session binds); outputs go to row ``time`` of a buffer."""
    steps = array_ops.shape(inputs)[0]
    known = inputs.get_shape()[1].value
    batch = known if known is not None else array_ops.shape(inputs)[1]
    buffer = array_ops.zeros([steps, batch, int(output_size)], dtype=inputs.dtype)
    declared(buffer, [None, known, int(output_size)])
    previous = array_ops.zeros([batch, int(output_size)], dtype=inputs.dtype)
    declared(previous, [known, int(output_size)])
    count = len(states)

    def body(time, buffer, previous, *states):
        states = list(states)
        output, new_states = step(array_ops.gather_dense(inputs, time), states)
        if mask is not None:
            output, new_states = _masked(array_ops.gather(mask, time), output, new_states,
                                         previous, states, zero_output)
        written = create_op("tensor_array_write", buffer, time, output)
        for after, before in zip([written, output, *new_states], [buffer, previous, *states]):
            after.set_shape(before.get_shape())  # what static shapes lose through where
        return [time + 1, written, output, *new_states]

    start = [api._tensor(0), buffer, previous, *states]
    results = while_loop(lambda time, *_: api.less(time, steps), body, start)
    for result, before in zip(results[1:], start[1:]):
        declared(result, before.get_shape())
    return results[1], results[2], list(results[3:3 + count])


def _swapped(tensor):
    """``tensor`` with its batch and time axes swapped, its static shape too."""
    known = tensor.get_shape().as_list()
    return declared(array_ops.transpose(tensor, [1, 0, *range(2, len(known))]),
                    [known[1], known[0], *known[2:]])


def declared(tensor, shape):
    """``tensor`` declared of the static shape ``shape`` (merged with what is known), which
    the ops reading it see: static inference does not follow ``where`` of rows, nor the
    loop's and transposes' results, and does not carry ``set_shape``'s hints forward (as
    ``tf.dynamic_stitch``'s result declares its shape)."""
    tensor.graph.declared_shapes[tensor.outputs[0]] = tensor.get_shape().merge_with(shape)
    return tensor


class RNN(Layer):
    """A cell (or a list of cells, stacked) over the time axis of ``[batch, time, depth]``
    inputs (``[time, batch, depth]`` with ``time_major``): the last output ``[batch, units]``,
    or every step's with ``return_sequences``; with ``return_state`` a list
    ``[output, *final states]``.  ``go_backwards`` runs from the last step to the first
    (the sequence returned in that order); ``initial_state`` (a list of tensors) replaces the
    zero states; ``mask`` ``[batch, time]`` bool (see the module doc)."""

    supports_masking = True

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, time_major=False, zero_output_for_mask=False,
                 input_length=None, **kwargs) -> None:
        if stateful:
            raise _refuse("a stateful RNN layer (stateful=True)")
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError(f"`cell` should have a `call` method and a `state_size` "
                             f"attribute, got {cell!r}")
        if (input_length, kwargs.get("input_dim")) != (None, None) and \
                "input_shape" not in kwargs:  # Keras' [batch, time, depth] from these two
            kwargs["input_shape"] = (input_length, kwargs.pop("input_dim", None))
        super().__init__(**kwargs)
        self.cell, self.return_sequences, self.return_state = cell, return_sequences, \
            return_state
        self.go_backwards, self.stateful, self.unroll = go_backwards, False, unroll
        self.time_major, self.zero_output_for_mask = time_major, zero_output_for_mask

    @property
    def states(self):
        raise _refuse("RNN.states (stateful layers)")

    def reset_states(self, states=None):
        raise _refuse("RNN.reset_states (stateful layers)")

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape[0] if isinstance(input_shape, list) else input_shape)
        if shape.ndims != 3:
            raise ValueError(f"Input 0 of layer {self.name} is incompatible with the layer: "
                             f"expected ndim=3, found ndim={shape.ndims}. Full shape received: "
                             f"{shape}")
        batch = shape[1].value if self.time_major else shape[0].value
        if not self.cell.built:
            self.cell.build(TensorShape([batch, shape[2].value]))
            self.cell.built = True
        _track(self, self.cell)
        self.built = True

    def _initial_states(self, inputs, batch, initial_state) -> list:
        count = len(_sizes(self.cell.state_size))
        if initial_state is None:
            return self.cell.get_initial_state(None, batch, inputs.dtype)
        states = [self._as_input(s) for s in (
            initial_state if isinstance(initial_state, (list, tuple)) else [initial_state])]
        if len(states) != count:
            raise ValueError(f"An `initial_state` was passed that is not compatible with "
                             f"`cell.state_size` (layer {self.name}): {count} state(s) "
                             f"expected, {len(states)} given")
        return states

    def call(self, inputs, mask=None, training=None, initial_state=None, constants=None):
        if constants is not None:
            raise _refuse("RNN constants")
        if isinstance(inputs, list):
            inputs, initial_state = inputs[0], inputs[1:] or initial_state
        mask = mask[0] if isinstance(mask, list) else mask
        timed = inputs if self.time_major else _swapped(inputs)
        known = timed.get_shape()[1].value
        batch = known if known is not None else array_ops.shape(timed)[1]
        states = self._initial_states(inputs, batch, initial_state)
        if mask is not None:
            mask = api.cast(mask, "bool")
            mask = mask if self.time_major else _swapped(mask)
        if self.go_backwards:
            timed = declared(array_ops.reverse(timed, [0]), timed.get_shape())
            mask = None if mask is None else declared(array_ops.reverse(mask, [0]),
                                                      mask.get_shape())
        if hasattr(self.cell, "_begin"):
            self.cell._begin(timed[0], states, training)
        takes_training = "training" in inspect.signature(self.cell.call).parameters

        def step(x, states):
            output, new_states = self.cell.call(x, states, training=training) \
                if takes_training else self.cell.call(x, states)
            return output, list(new_states) if isinstance(new_states, (list, tuple)) else [
                new_states]

        steps = timed.get_shape()[0].value
        try:
            outputs, last, states = self._loop(step, timed, states, mask, steps)
        finally:
            if hasattr(self.cell, "_end"):  # this call's dropout masks are its own
                self.cell._end()
        if self.return_sequences:
            output = outputs if self.time_major else _swapped(outputs)
        else:
            output = last
        return [output, *states] if self.return_state else output

    def _loop(self, step, timed, states, mask, steps):
        if steps:
            return _unrolled(step, timed, states, mask, self.zero_output_for_mask, steps)
        return _looped(step, timed, states, mask, self.zero_output_for_mask,
                       self.cell.output_size)

    def compute_mask(self, inputs, mask=None):
        mask = mask[0] if isinstance(mask, list) else mask
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(_sizes(self.cell.state_size))
        return output_mask


_LAYER_ARGUMENTS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
                    "time_major", "zero_output_for_mask", "input_length", "name", "trainable",
                    "input_shape", "batch_input_shape", "batch_size", "input_dim",
                    "activity_regularizer")
_CELL_ATTRIBUTES = ("units", "activation", "recurrent_activation", "use_bias",
                    "kernel_initializer", "recurrent_initializer", "bias_initializer",
                    "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
                    "dropout", "recurrent_dropout", "unit_forget_bias", "reset_after")


class _CellLayer(RNN):
    """An RNN layer of one Keras cell made from the same arguments (``LSTM(units, ...)``);
    the cell's arguments read as the layer's attributes (``layer.units``)."""

    _cell_class = None

    def __init__(self, units, **kwargs) -> None:
        layer = {key: kwargs.pop(key) for key in list(kwargs) if key in _LAYER_ARGUMENTS}
        cell = self._cell_class(units, dtype=kwargs.pop("dtype", None), **kwargs)
        super().__init__(cell, **layer)

    def __getattr__(self, name):
        cell = self.__dict__.get("cell")
        if name in _CELL_ATTRIBUTES and cell is not None and hasattr(cell, name):
            return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


class SimpleRNN(_CellLayer):
    """:class:`SimpleRNNCell` over time (``activation="tanh"``)."""

    _cell_class = SimpleRNNCell


class LSTM(_CellLayer):
    """:class:`LSTMCell` over time, TF 1.15's ``recurrent_activation="hard_sigmoid"``;
    ``return_state`` gives ``[output, h, c]``."""

    _cell_class = LSTMCell


class GRU(_CellLayer):
    """:class:`GRUCell` over time, TF 1.15's ``recurrent_activation="hard_sigmoid"`` and
    ``reset_after=False``."""

    _cell_class = GRUCell


def fresh_copy(layer, name: str, go_backwards=None):
    """An unbuilt copy of an RNN layer named ``name`` (variables of its own), as Keras
    remakes a layer from its config (Bidirectional's forward and backward layers)."""
    if not isinstance(layer, RNN):
        raise TypeError(f"Please initialize `Bidirectional` layer with a `Layer` instance "
                         f"of a recurrent layer (tf.keras.layers.RNN or a subclass). You "
                         f"passed: {layer!r}")
    made = _unbuilt(layer)
    made._name = made._base_name = name
    made.cell = _unbuilt(layer.cell)
    if isinstance(made.cell, StackedRNNCells):
        made.cell.cells = [_unbuilt(cell) for cell in layer.cell.cells]
    if go_backwards is not None:
        made.go_backwards = go_backwards
    return made


def _unbuilt(layer):
    made = copy.copy(layer)
    made._weights, made._updates, made._losses = [], [], []
    made.built, made._scope = False, None
    return made
