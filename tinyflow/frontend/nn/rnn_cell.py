"""``tf.nn.rnn_cell`` (and ``tf.contrib.rnn``'s cells): TensorFlow 1.15's RNN cells.

A cell maps ``(inputs [batch, depth], state)`` to ``(output, new_state)``; :mod:`tinyflow.rnn`
calls it once per time step.  The cells are composed from the ops users write (matmul, bias_add,
split, sigmoid, tanh), so their gradients are those ops' gradients.

Variables are named and laid out as TensorFlow's (``rnn_cell_impl.py``), so checkpoints and
programs that look variables up by name read the same:

=================  ====================================================================
cell               variables under the cell's scope (``rnn/basic_lstm_cell/...``)
=================  ====================================================================
BasicRNNCell       ``kernel`` [depth + units, units], ``bias`` [units] (zeros)
BasicLSTMCell      ``kernel`` [depth + units, 4 units], ``bias`` [4 units]; gates i, j, f, o
LSTMCell           as BasicLSTMCell (``kernel`` [depth + proj, 4 units]), ``w_f_diag``,
                   ``w_i_diag``, ``w_o_diag`` [units] with peepholes, ``projection/kernel``
                   [units, proj] with ``num_proj``
GRUCell            ``gates/kernel`` [depth + units, 2 units] (r, u; bias ones),
                   ``candidate/kernel`` [depth + units, units] (bias zeros)
MultiRNNCell       each cell under ``cell_<i>/`` (``rnn/multi_rnn_cell/cell_0/gru_cell/...``)
=================  ====================================================================

As a TF layer, a cell takes its scope the first time it is called: the current variable scope
plus its class name in snake case, made unique (``basic_lstm_cell``, ``basic_lstm_cell_1``); later
calls re-enter that scope and reuse its variables.  Inputs whose depth differs from the one the
cell was built for are a ValueError naming the cell's scope and both shapes.
"""
from __future__ import annotations

import collections
import hashlib
import re

from ...nnvm.symbol import Symbol, create_op, current_context
from ..api import clip_by_value, matmul, sigmoid, tanh
from ..array_ops import concat, expand_dims, shape, split, stack, tile, transpose, zeros, zeros_like
from ..array_ops import slice as array_slice
from ..dtypes import as_dtype
from ..init_ops import constant_initializer, zeros_initializer
from ..variable_scope import VariableScope, get_variable, variable_scope
from . import functions as nn
from .functions import bias_add, dropout

__all__ = ["BasicLSTMCell", "BasicRNNCell", "DeviceWrapper", "DropoutWrapper", "GRUCell",
           "LSTMCell", "LSTMStateTuple", "MultiRNNCell", "RNNCell", "ResidualWrapper"]


# -- nested structures (TF's nest, for states: tuples, lists, LSTMStateTuples) ---------------
def flatten(structure) -> list:
    """The leaves of ``structure`` (tuples and lists are nodes; anything else is a leaf)."""
    if isinstance(structure, (tuple, list)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_sequence_as(structure, flat):
    """``flat`` (leaves in :func:`flatten`'s order) in the shape of ``structure``."""
    leaves = iter(flat)

    def pack(node):
        if not isinstance(node, (tuple, list)):
            return next(leaves)
        return _sequence_like(node, [pack(item) for item in node])
    return pack(structure)


def _sequence_like(sequence, items):
    return type(sequence)(*items) if hasattr(sequence, "_fields") else type(sequence)(items)


def map_structure(function, structure):
    """``structure`` with ``function`` applied to each leaf."""
    return pack_sequence_as(structure, [function(leaf) for leaf in flatten(structure)])


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """An LSTM's state ``(c, h)``: the memory cell and the output (TF's ``LSTMStateTuple``)."""

    __slots__ = ()

    @property
    def dtype(self):
        """The dtype of ``c`` and ``h`` (a TypeError when they differ)."""
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


def assert_like_rnncell(cell_name, cell) -> None:
    """TypeError unless ``cell`` has output_size, state_size, zero_state and is callable."""
    missing = [what for what, ok in (
        ("'output_size' property is missing", hasattr(cell, "output_size")),
        ("'state_size' property is missing", hasattr(cell, "state_size")),
        ("either 'zero_state' or 'get_initial_state' method is required",
         hasattr(cell, "zero_state") or hasattr(cell, "get_initial_state")),
        ("is not callable", callable(cell))) if not ok]
    if missing:
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: "
                        f"{', '.join(missing)}.")


# -- zero states ------------------------------------------------------------------------------
def _batch_source(batch_size):
    """``batch_size`` as an int, or as ``(tensor, axis)`` when it is ``tf.shape(tensor)[axis]``
    of a size known only when the graph runs."""
    if not isinstance(batch_size, Symbol):
        return int(batch_size)
    node = batch_size.node
    if node.kind == "constant":
        return int(node.attrs["value"][0])
    if node.kind == "strided_slice" and node.attrs.get("shrink_axis_mask") == 1:
        source, axis = node.inputs[0].node, node.attrs["begin"][0]
        if source.kind == "constant":
            return int(source.attrs["value"][axis])
        if source.kind == "shape_of":
            return Symbol([source.inputs[0]]), axis
    raise ValueError(f"zero_state: batch_size must be an int, a constant or tf.shape(t)[i]; got "
                     f"the output of op '{node.kind}' (node '{node.name}')")


def _batch_zeros(batch_size, size: int, dtype) -> Symbol:
    """Zeros ``[batch_size, size]``: ``tf.zeros`` for a static batch, else the zeros of a
    ``[batch, 1]`` column of the tensor the batch size comes from, tiled."""
    source = _batch_source(batch_size)
    if isinstance(source, int):
        return zeros([source, int(size)], dtype=dtype)
    tensor, axis = source
    rank = tensor.get_shape().ndims
    if rank is None:
        raise ValueError(f"zero_state: batch_size is tf.shape(t)[{axis}] of a tensor of "
                         f"unknown rank; give the batch size as an int")
    index = tuple(slice(None) if i == axis else 0 for i in range(rank))
    column = expand_dims(tensor[index], 1)
    return tile(zeros_like(column, dtype=dtype), [1, int(size)])


def _snake_case(name: str) -> str:
    """``BasicLSTMCell`` -> ``basic_lstm_cell`` (Keras' to_snake_case: a private class's name,
    ``_Cell``, becomes ``private__cell``)."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    name = re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
    return "private" + name if name.startswith("_") else name


def _activation(activation):
    """A callable activation; None is tanh, a string names a ``tf.nn`` function."""
    if activation is None:
        return tanh
    if callable(activation):
        return activation
    try:
        return getattr(nn, str(activation))
    except AttributeError:
        raise ValueError(f"Unknown activation function: {activation!r}") from None


# -- the cells --------------------------------------------------------------------------------
class RNNCell:
    """An RNN cell (TF's ``tf.nn.rnn_cell.RNNCell``): subclasses give ``state_size``,
    ``output_size`` and ``call(inputs, state) -> (output, new_state)``, and make their variables
    in ``build(inputs_shape)`` (or with ``tf.get_variable`` inside ``call``).

    Parameters
    ----------
    name : str, optional
        The base of the cell's scope name (default: the class name in snake case).
    reuse : bool, optional
        True: the variables must exist already (as ``variable_scope(reuse=True)``).
    dtype : DType, optional
        The variables' dtype (default: the first inputs').
    """

    def __init__(self, trainable=True, name=None, dtype=None, reuse=None) -> None:
        self._base_name = name or _snake_case(type(self).__name__)
        self._reuse = reuse
        self._dtype = None if dtype is None else as_dtype(dtype).name
        self._scope: VariableScope | None = None
        self._weights: list = []
        self._input_depth = None  # set by cells whose kernel fixes the input depth
        self.trainable = trainable
        self.built = False

    @property
    def state_size(self):
        """The state's size per example: an int, or a tuple (LSTMStateTuple) of them."""
        raise NotImplementedError(f"{type(self).__name__} does not define state_size")

    @property
    def output_size(self):
        """The output's size per example."""
        raise NotImplementedError(f"{type(self).__name__} does not define output_size")

    @property
    def name(self) -> str:
        """The cell's name (the last part of its scope: ``basic_lstm_cell``)."""
        return self._base_name

    @property
    def scope_name(self) -> str:
        """The scope its variables live in once it was called (``rnn/basic_lstm_cell``)."""
        return self._scope.name if self._scope is not None else self._base_name

    @property
    def weights(self) -> list:
        """The variables the cell made (TF's ``cell.weights`` / ``cell.variables``)."""
        return list(self._weights)

    variables = trainable_weights = trainable_variables = weights

    def zero_state(self, batch_size, dtype) -> Symbol | tuple:
        """Zeros in the state's structure, each ``[batch_size, size]``.

        ``batch_size`` is an int, or ``tf.shape(x)[0]`` of an input whose batch size is known
        only when the graph runs.
        """
        with current_context().name_scope(type(self).__name__ + "ZeroState"):
            return map_structure(lambda size: _batch_zeros(batch_size, size, dtype),
                                 self.state_size)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None) -> Symbol | tuple:
        """The zero state for ``inputs``' batch size and dtype (or the ones given)."""
        if inputs is not None:
            batch = inputs.get_shape()[0].value
            batch_size = batch if batch is not None else _shape_entry(inputs, 0)
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError(f"batch_size and dtype cannot be None while constructing initial "
                             f"state: batch_size={batch_size}, dtype={dtype}")
        return self.zero_state(batch_size, dtype)

    def build(self, inputs_shape) -> None:
        """Make the cell's variables for inputs of ``inputs_shape`` (none here)."""

    def call(self, inputs, state) -> tuple:
        """One step: ``(output, new_state)``."""
        raise NotImplementedError(f"{type(self).__name__} does not define call")

    def __call__(self, inputs, state, scope=None):
        """Run one step in the cell's scope: ``(output, new_state)``; the first call takes the
        scope (``scope`` if given) and builds the variables, later calls reuse them."""
        return self._scoped(inputs, lambda: self.call(inputs, state), scope)

    def _scoped(self, inputs, step, scope=None):
        """``step()`` in the cell's scope, its variables built for ``inputs`` first (or
        ``inputs`` checked against them)."""
        if self._scope is None:
            self._capture_scope(scope)
        reuse = True if self.built else self._reuse
        with variable_scope(self._scope, reuse=reuse, initializer=self._scope.initializer):
            if not self.built:
                self.build(self._inputs_shape(inputs))
                self.built = True
            elif self._input_depth is not None:
                self._check_depth(inputs)
            return step()

    def _capture_scope(self, scope) -> None:
        # TF's Layer._set_scope: a given scope as it is, else the base name made unique
        if self._reuse or scope is not None:
            name = scope if scope is not None else self._base_name
            with variable_scope(name) as captured:
                self._scope = captured
        else:
            with variable_scope(None, default_name=self._base_name) as captured:
                self._scope = captured

    def _inputs_shape(self, inputs):
        """inputs' static shape (None for a structure of inputs)."""
        return inputs.get_shape() if isinstance(inputs, Symbol) else None

    def _check_depth(self, inputs) -> None:
        shape = inputs.get_shape() if isinstance(inputs, Symbol) else None
        depth = None if shape is None or shape.ndims != 2 else shape[-1].value
        if depth != self._input_depth:
            raise ValueError(f"{type(self).__name__} '{self._scope.name}' was built for inputs "
                             f"[batch, {self._input_depth}] (kernel {self._kernel_shape()}); "
                             f"called again with inputs of shape {shape}")

    def _kernel_shape(self):
        kernel = getattr(self, "_kernel", None)
        return None if kernel is None else list(kernel.get_shape().as_list())

    def _add_variable(self, name, shape, dtype, initializer=None):
        """``get_variable(name)`` in the cell's scope; a reused variable of another shape is a
        ValueError naming the cell, the inputs' depth and both shapes."""
        try:
            variable = get_variable(name, shape=shape, dtype=self._dtype or dtype,
                                    initializer=initializer, trainable=self.trainable)
        except ValueError as error:
            raise ValueError(f"{type(self).__name__} '{self._scope.name}' with inputs of depth "
                             f"{self._input_depth} needs {name} of shape {list(shape)}: "
                             f"{error}") from error
        self._weights.append(variable)
        return variable


def _shape_entry(tensor, axis):
    return shape(tensor)[axis]


def _linear(inputs, state, kernel, bias):
    """``concat([inputs, state], 1) @ kernel + bias``, as TF's cells compute their gates."""
    return bias_add(matmul(concat([inputs, state], 1), kernel), bias)


class _LayerCell(RNNCell):
    """A cell whose kernel is ``[input depth + recurrent depth, ...]`` (TF's LayerRNNCell)."""

    def _start_build(self, inputs_shape):
        self._input_depth = inputs_shape[-1].value
        return self._input_depth

    def _inputs_shape(self, inputs):
        """inputs' static shape, checked: a float tensor ``[batch, depth]``, depth known."""
        where = f"{type(self).__name__} '{self._scope.name}'"
        if not isinstance(inputs, Symbol):
            raise TypeError(f"{where}: inputs must be a tensor [batch, depth], got "
                            f"{type(inputs).__name__}")
        shape = inputs.get_shape()
        if shape.ndims is not None and shape.ndims != 2:
            raise ValueError(f"{where}: inputs must be 2-D [batch, depth], got shape {shape}")
        if shape.ndims is None or shape[-1].value is None:
            raise ValueError(f"{where}: Expected inputs.shape[-1] to be known, saw shape: "
                             f"{shape}")
        dtype = inputs.dtype
        if not dtype.is_floating:
            raise ValueError(f"{where}: RNN cell only supports floating point inputs, but saw "
                             f"dtype: {dtype.name}")
        self._build_dtype = dtype.name
        return shape

    def _add_variable(self, name, shape, dtype=None, initializer=None):
        return super()._add_variable(name, shape, dtype or self._build_dtype, initializer)


class BasicRNNCell(_LayerCell):
    """``output = new_state = activation(concat([inputs, state]) @ kernel + bias)``.

    Parameters
    ----------
    num_units : int
    activation : callable or str, optional
        Default ``tanh``.
    """

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None) -> None:
        super().__init__(name=name, dtype=dtype, reuse=reuse)
        self._num_units = int(num_units)
        self._activation = _activation(activation)

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape) -> None:
        depth = self._start_build(inputs_shape)
        units = self._num_units
        self._kernel = self._add_variable("kernel", [depth + units, units])
        self._bias = self._add_variable("bias", [units], initializer=_zeros_init())

    def call(self, inputs, state) -> tuple:
        output = self._activation(_linear(inputs, state, self._kernel, self._bias))
        return output, output


def _zeros_init():
    return zeros_initializer()


class GRUCell(_LayerCell):
    """TF's GRU: ``r, u = sigmoid(concat([x, h]) @ gates/kernel + gates/bias)`` (bias ones),
    ``c = activation(concat([x, r * h]) @ candidate/kernel + candidate/bias)``,
    ``new_h = u * h + (1 - u) * c``.  Note r multiplies the state before the matmul (PyTorch's
    GRU applies it after).

    Parameters
    ----------
    num_units : int
    activation : callable or str, optional
        Default ``tanh``.
    kernel_initializer, bias_initializer : initializer, optional
        Default glorot-uniform kernels; biases ones (gates) and zeros (candidate).
    """

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None) -> None:
        super().__init__(name=name, dtype=dtype, reuse=reuse)
        self._num_units = int(num_units)
        self._activation = _activation(activation)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape) -> None:
        depth = self._start_build(inputs_shape)
        units, bias_init = self._num_units, self._bias_initializer
        self._kernel = self._add_variable("gates/kernel", [depth + units, 2 * units],
                                          initializer=self._kernel_initializer)
        self._gate_bias = self._add_variable(
            "gates/bias", [2 * units], initializer=bias_init or constant_initializer(1.0))
        self._candidate_kernel = self._add_variable(
            "candidate/kernel", [depth + units, units], initializer=self._kernel_initializer)
        self._candidate_bias = self._add_variable("candidate/bias", [units],
                                                  initializer=bias_init or _zeros_init())

    def call(self, inputs, state) -> tuple:
        r, u = split(sigmoid(_linear(inputs, state, self._kernel, self._gate_bias)), 2, axis=1)
        c = self._activation(_linear(inputs, r * state, self._candidate_kernel,
                                     self._candidate_bias))
        new_h = u * state + (1.0 - u) * c
        return new_h, new_h


def _lstm_state(cell, state, c_size, h_size):
    """``(c, h)`` from a tuple state or from a state concatenated along axis 1."""
    if cell._state_is_tuple:
        if not isinstance(state, (tuple, list)) or len(state) != 2:
            raise ValueError(f"{type(cell).__name__} '{cell.scope_name}' (state_is_tuple=True) "
                             f"expects the state (c, h), an LSTMStateTuple; got {state!r}")
        return state
    return (array_slice(state, [0, 0], [-1, c_size]),
            array_slice(state, [0, c_size], [-1, h_size]))


class _FusedSequence:
    """static_rnn over an LSTM cell as one ``lstm_block`` node (tinyflow/ops/rnn.py): the
    unrolled cells' values and gradients from fewer, larger kernels.  The cell says with
    ``_fusable()`` whether its step is BasicLSTMCell's (not a subclass's own ``call``)."""

    def _sequence(self, inputs, state):
        """``(outputs, final state)`` of static_rnn over ``inputs``, or None where the cells
        must be unrolled: not ``_fusable()``, another activation, inputs of differing shapes
        or dtypes."""
        shapes = {str(x.get_shape()) if isinstance(x, Symbol) else None for x in inputs}
        dtypes = {x.dtype.name for x in inputs if isinstance(x, Symbol)}
        if (self._activation is not tanh or not self._fusable() or len(shapes) != 1
                or None in shapes or len(dtypes) != 1):
            return None
        return self._scoped(inputs[0], lambda: self._block(inputs, state))

    def _block(self, inputs, state):
        c, h = _lstm_state(self, state, self._num_units, self._num_units)
        if {c.dtype.name, h.dtype.name} != {inputs[0].dtype.name}:
            return None
        block = create_op("lstm_block", _time_major(inputs), c, h, self._kernel, self._bias,
                          forget_bias=self._forget_bias, name="lstm_block")
        # a slice per step: only those read run (static_rnn's outputs[-1], most often)
        outputs = [block[0][t] for t in range(len(inputs))]
        new_c, new_h = block[1][len(inputs) - 1], outputs[-1]
        return outputs, LSTMStateTuple(new_c, new_h) if self._state_is_tuple else concat(
            [new_c, new_h], 1)


class BasicLSTMCell(_FusedSequence, _LayerCell):
    """TF's basic LSTM: ``i, j, f, o = split(concat([x, h]) @ kernel + bias, 4, axis=1)``,
    ``new_c = c * sigmoid(f + forget_bias) + sigmoid(i) * activation(j)``,
    ``new_h = activation(new_c) * sigmoid(o)``; the state is ``LSTMStateTuple(new_c, new_h)``
    (``concat([new_c, new_h], 1)`` with ``state_is_tuple=False``).

    Parameters
    ----------
    num_units : int
    forget_bias : float
        Added to the forget gate's pre-activation (default 1).
    state_is_tuple : bool
    activation : callable or str, optional
        Default ``tanh``.
    """

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None) -> None:
        super().__init__(name=name, dtype=dtype, reuse=reuse)
        self._num_units = int(num_units)
        self._forget_bias = float(forget_bias)
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self):
        units = self._num_units
        return LSTMStateTuple(units, units) if self._state_is_tuple else 2 * units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape) -> None:
        depth, units = self._start_build(inputs_shape), self._num_units
        self._kernel = self._add_variable("kernel", [depth + units, 4 * units])
        self._bias = self._add_variable("bias", [4 * units], initializer=_zeros_init())

    def call(self, inputs, state) -> tuple:
        c, h = _lstm_state(self, state, self._num_units, self._num_units)
        i, j, f, o = split(_linear(inputs, h, self._kernel, self._bias), 4, axis=1)
        new_c = c * sigmoid(f + self._forget_bias) + sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * sigmoid(o)
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else concat(
            [new_c, new_h], 1)
        return new_h, new_state

    def _fusable(self) -> bool:
        return type(self).call is BasicLSTMCell.call


def _time_major(inputs) -> Symbol:
    """``stack(inputs)``: ``[T, batch, depth]``; where the inputs are all of ``tf.unstack(x,
    axis=a)``, in order, x with axis a first (one copy, none for a = 0)."""
    entries = [x.outputs[0] for x in inputs]
    node = entries[0].node
    if (node.kind != "unstack" or node.num_outputs() != len(inputs)
            or [(e.node, e.index) for e in entries] != [(node, t) for t in range(len(inputs))]):
        return stack(inputs, 0)
    source = Symbol([node.inputs[0]])
    rank, axis = len(inputs[0].get_shape()) + 1, node.attrs["axis"]
    axis = axis + rank if axis < 0 else axis
    return source if axis == 0 else transpose(
        source, [axis] + [d for d in range(rank) if d != axis])


class LSTMCell(_FusedSequence, _LayerCell):
    """TF's LSTM with optional peepholes, cell clipping and a projection:
    ``c = sigmoid(f + forget_bias [+ w_f_diag * c_prev]) * c_prev
    + sigmoid(i [+ w_i_diag * c_prev]) * activation(j)``, clipped to ``[-cell_clip,
    cell_clip]``; ``m = sigmoid(o [+ w_o_diag * c]) * activation(c)``, then
    ``m @ projection/kernel`` (clipped to ``proj_clip``) with ``num_proj``.  The state is
    ``LSTMStateTuple(c, m)``; the output ``m``.

    Parameters
    ----------
    num_units : int
    use_peepholes : bool
    cell_clip, proj_clip : float, optional
    initializer : initializer, optional
        For the kernel, the peephole weights and the projection (default glorot-uniform).
    num_proj : int, optional
    forget_bias : float
    state_is_tuple : bool
    activation : callable or str, optional
    """

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None) -> None:
        super().__init__(name=name, dtype=dtype, reuse=reuse)
        for arg, value in (("num_unit_shards", num_unit_shards),
                           ("num_proj_shards", num_proj_shards)):
            if value is not None:
                raise ValueError(f"LSTMCell: {arg} (sharded variables) is not supported by "
                                 f"TinyFlow")
        self._num_units = int(num_units)
        self._use_peepholes = bool(use_peepholes)
        self._cell_clip, self._proj_clip = cell_clip, proj_clip
        self._initializer = initializer
        self._num_proj = None if num_proj is None else int(num_proj)
        self._forget_bias = float(forget_bias)
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self):
        units, proj = self._num_units, self._num_proj or self._num_units
        return LSTMStateTuple(units, proj) if self._state_is_tuple else units + proj

    @property
    def output_size(self):
        return self._num_proj or self._num_units

    def build(self, inputs_shape) -> None:
        depth, units = self._start_build(inputs_shape), self._num_units
        init = self._initializer
        self._kernel = self._add_variable("kernel", [depth + self.output_size, 4 * units],
                                          initializer=init)
        self._bias = self._add_variable("bias", [4 * units], initializer=_zeros_init())
        if self._use_peepholes:
            self._w_f_diag, self._w_i_diag, self._w_o_diag = (
                self._add_variable(name, [units], initializer=init)
                for name in ("w_f_diag", "w_i_diag", "w_o_diag"))
        if self._num_proj is not None:
            self._proj_kernel = self._add_variable(
                "projection/kernel", [units, self._num_proj], initializer=init)

    def _fusable(self) -> bool:  # without peepholes, clipping and projection: BasicLSTMCell
        return (type(self).call is LSTMCell.call and not self._use_peepholes
                and self._cell_clip is None and self._num_proj is None)

    def _clip_cell(self, c):
        return clip_by_value(c, -self._cell_clip, self._cell_clip)

    def call(self, inputs, state) -> tuple:
        c_prev, m_prev = _lstm_state(self, state, self._num_units, self.output_size)
        i, j, f, o = split(_linear(inputs, m_prev, self._kernel, self._bias), 4, axis=1)
        peep = self._use_peepholes
        forget, write = f + self._forget_bias, i
        if peep:
            forget, write = forget + self._w_f_diag * c_prev, i + self._w_i_diag * c_prev
        c = sigmoid(forget) * c_prev + sigmoid(write) * self._activation(j)
        if self._cell_clip is not None:
            c = self._clip_cell(c)
        m = sigmoid(o + self._w_o_diag * c if peep else o) * self._activation(c)
        if self._num_proj is not None:
            m = matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else concat([c, m], 1)
        return m, new_state


class MultiRNNCell(RNNCell):
    """Cells run one after the other: cell i's output is cell i+1's input, cell i's variables
    live under ``cell_<i>/``; the state is the tuple of the cells' states (concatenated along
    axis 1 with ``state_is_tuple=False``).

    Parameters
    ----------
    cells : list of RNNCell
    state_is_tuple : bool
    """

    def __init__(self, cells, state_is_tuple=True) -> None:
        super().__init__()
        if not isinstance(cells, (list, tuple)):
            raise TypeError(f"cells must be a list or tuple, but saw: {cells}.")
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        for i, cell in enumerate(cells):
            assert_like_rnncell(f"cells[{i}]", cell)
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(isinstance(c.state_size, tuple) for c in cells):
            raise ValueError(f"Some cells return tuples of states, but the flag state_is_tuple "
                             f"is not set.  State sizes are: {[c.state_size for c in cells]}")

    @property
    def state_size(self):
        sizes = tuple(cell.state_size for cell in self._cells)
        return sizes if self._state_is_tuple else sum(sizes)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    @property
    def weights(self) -> list:
        return [w for cell in self._cells for w in getattr(cell, "weights", [])]

    variables = trainable_weights = trainable_variables = weights

    def zero_state(self, batch_size, dtype) -> Symbol | tuple:
        if not self._state_is_tuple:
            return super().zero_state(batch_size, dtype)
        with current_context().name_scope("MultiRNNCellZeroState"):
            return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)

    def call(self, inputs, state) -> tuple:
        if self._state_is_tuple and (not isinstance(state, (tuple, list))
                                     or len(state) != len(self._cells)):
            raise ValueError(f"MultiRNNCell '{self.scope_name}': expected state to be a tuple of "
                             f"length {len(self._cells)}, but received: {state!r}")
        position, new_states = 0, []
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    cell_state = state[i]
                else:
                    cell_state = array_slice(state, [0, position], [-1, cell.state_size])
                    position += cell.state_size
                inputs, new_state = cell(inputs, cell_state)
                new_states.append(new_state)
        return inputs, tuple(new_states) if self._state_is_tuple else concat(new_states, 1)


def _default_dropout_state_filter_visitor(substate):
    # never drop an LSTM's memory c (TF's default)
    return LSTMStateTuple(c=False, h=True) if isinstance(substate, LSTMStateTuple) else True


def _keep_prob(value, what):
    """A keep probability as TF keeps it: a float when known as the graph is built (a number or
    a tf.constant, checked to be in [0, 1]), else the tensor."""
    if isinstance(value, Symbol):
        if value.node.kind != "constant":
            return value
        value = value.node.attrs["value"][0]
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"Parameter {what} must be between 0 and 1: {value}")
    return value


class _CellWrapper(RNNCell):
    """A cell around another (TF's RNNCell wrappers): its sizes and zero state are the wrapped
    cell's; its weights are the wrapped cell's and its own."""

    def __init__(self, cell, name=None, reuse=None) -> None:
        super().__init__(name=name, reuse=reuse)
        assert_like_rnncell("cell", cell)
        self._cell = cell

    @property
    def wrapped_cell(self):
        """The cell inside."""
        return self._cell

    @property
    def state_size(self):
        return self._cell.state_size

    @property
    def output_size(self):
        return self._cell.output_size

    @property
    def weights(self) -> list:
        return list(getattr(self._cell, "weights", [])) + self._weights

    variables = trainable_weights = trainable_variables = weights

    def zero_state(self, batch_size, dtype) -> Symbol | tuple:
        with current_context().name_scope(type(self).__name__ + "ZeroState"):
            return self._cell.zero_state(batch_size, dtype)


class ResidualWrapper(_CellWrapper):
    """The wrapped cell's output plus its inputs (``residual_fn(inputs, outputs)`` when given);
    the state is the cell's.  No scope of its own: the variables are the cell's."""

    def __init__(self, cell, residual_fn=None) -> None:
        super().__init__(cell)
        self._residual_fn = residual_fn

    def __call__(self, inputs, state, scope=None):
        outputs, new_state = self._cell(inputs, state, scope=scope)
        if self._residual_fn is not None:
            return self._residual_fn(inputs, outputs), new_state

        def add(inp, out):
            if inp.get_shape().is_compatible_with(out.get_shape()):
                return inp + out
            raise ValueError(f"ResidualWrapper: inputs of shape {inp.get_shape()} and the "
                             f"cell's outputs of shape {out.get_shape()} cannot be added")
        return pack_sequence_as(inputs, [add(x, y) for x, y in
                                         zip(flatten(inputs), flatten(outputs))]), new_state


class DeviceWrapper(_CellWrapper):
    """The wrapped cell on ``device``: every op of a session runs on its one device, so this is
    the cell itself (as ``tf.device`` is)."""

    def __init__(self, cell, device) -> None:
        super().__init__(cell)
        self._device = device

    def __call__(self, inputs, state, scope=None):
        return self._cell(inputs, state, scope=scope)


class DropoutWrapper(_CellWrapper):
    """Dropout on a cell's inputs, outputs and new state (TF's ``DropoutWrapper``): a new mask
    at every step; a keep probability that is the constant 1 adds no op.  The state's dropout
    follows ``dropout_state_filter_visitor`` (default: every part but an LSTM's ``c``).

    Parameters
    ----------
    cell : RNNCell
    input_keep_prob, output_keep_prob, state_keep_prob : float or scalar tensor
    seed : int, optional
        Each dropout's op seed is derived from it as TensorFlow's (md5 of seed and salt).
    dropout_state_filter_visitor : callable, optional
    """

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None) -> None:
        super().__init__(cell)
        if variational_recurrent:
            raise ValueError("DropoutWrapper: variational_recurrent=True (one mask for all "
                             "time steps) is not supported by TinyFlow")
        if dropout_state_filter_visitor is not None and not callable(
                dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._state_filter = dropout_state_filter_visitor or \
            _default_dropout_state_filter_visitor
        self._input_keep_prob = _keep_prob(input_keep_prob, "input_keep_prob")
        self._state_keep_prob = _keep_prob(state_keep_prob, "state_keep_prob")
        self._output_keep_prob = _keep_prob(output_keep_prob, "output_keep_prob")
        self._seed = seed

    def _gen_seed(self, salt_prefix, index):
        if self._seed is None:
            return None
        digest = hashlib.md5(f"{self._seed}{salt_prefix}_{index}".encode()).hexdigest()
        return int(digest[:8], 16) & 0x7FFFFFFF

    def _dropout(self, value, salt_prefix, index, keep_prob):
        return dropout(value, keep_prob=keep_prob, seed=self._gen_seed(salt_prefix, index))

    def _dropout_all(self, values, salt_prefix, keep_prob):
        return pack_sequence_as(values, [self._dropout(v, salt_prefix, i, keep_prob)
                                         for i, v in enumerate(flatten(values))])

    def _dropout_state(self, state, keep_prob):
        """TF's traversal: the filter says, level by level, which parts to drop (True), keep
        (False) or look into (a structure of bools); the parts met are counted for the seeds."""
        index = [0]

        def visit(part, decision):
            if decision is False or not isinstance(part, (tuple, list)):
                index[0] += 1
                return self._dropout(part, "state", index[0] - 1, keep_prob) if decision \
                    else part
            decisions = [True] * len(part) if decision is True else list(decision)
            return _sequence_like(part, [visit(p, self._state_filter(p) if d else False)
                                         for p, d in zip(part, decisions)])
        return visit(state, self._state_filter(state))

    def __call__(self, inputs, state, scope=None):
        """The wrapped cell's step (in its own scope) with the dropouts."""
        def should_drop(p):
            return not isinstance(p, float) or p < 1.0
        if should_drop(self._input_keep_prob):
            inputs = self._dropout_all(inputs, "input", self._input_keep_prob)
        output, new_state = self._cell(inputs, state, scope=scope)
        if should_drop(self._state_keep_prob):
            new_state = self._dropout_state(new_state, self._state_keep_prob)
        if should_drop(self._output_keep_prob):
            output = self._dropout_all(output, "output", self._output_keep_prob)
        return output, new_state


def __getattr__(name):
    raise AttributeError(f"tf.nn.rnn_cell.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.rnn_cell' has no attribute {name!r})")
