"""``tf.contrib.rnn``'s own cells (TF 1.15's ``contrib/rnn``: ``lstm_ops.py``, ``rnn_cell.py``,
``core_rnn_cell.py``), composed from the ops users write, their variables named as TF names
them:

=======================  ===============================================================
cell                     variables under the cell's scope
=======================  ===============================================================
LSTMBlockFusedCell       LSTMBlockCell's, under the scope ``lstm_fused_cell``
LSTMBlockCell            scope ``lstm_cell`` (LSTMCell's, so checkpoints read across):
                         ``kernel`` [depth + units, 4 units], ``bias`` (zeros), gates i, j,
                         f, o; ``w_i_diag``, ``w_f_diag``, ``w_o_diag`` with peepholes
LayerNormBasicLSTMCell   ``kernel`` [depth + units, 4 units] (``bias`` without layer norm),
                         ``input``, ``transform``, ``forget``, ``output``, ``state``
                         ``/gamma`` (``norm_gain``) and ``/beta`` (``norm_shift``) [units]
OutputProjectionWrapper  the cell under ``output_projection_wrapper/``, then ``kernel``
                         [cell output, output_size] and ``bias`` (zeros)
InputProjectionWrapper   ``kernel`` [depth, num_proj] and ``bias`` (zeros), the cell inside
AttentionCellWrapper     ``kernel``, ``bias`` (the inputs' projection), the cell,
                         ``attention/attn_w`` [1, 1, attn, vec], ``attention/attn_v`` [vec],
                         ``attention/kernel``, ``bias``, ``attn_output_projection/kernel``,
                         ``bias`` (biases zeros)
EmbeddingWrapper         ``embedding`` [classes, size] (U(-sqrt 3, sqrt 3) unless the scope
                         or ``initializer`` says), the cell inside
=======================  ===============================================================
"""
from __future__ import annotations

import math

from ...nnvm.symbol import Symbol
from ..api import clip_by_value, matmul, reduce_sum, sigmoid, stop_gradient, tanh
from ..array_ops import concat, expand_dims, reshape, split, stack, unstack
from ..array_ops import slice as array_slice
from ..init_ops import constant_initializer, random_uniform_initializer, zeros_initializer
from ..math_ops import convert_to_tensor
from ..nn.functions import bias_add, conv2d, dropout, embedding_lookup, softmax
from ..nn.rnn import dynamic_rnn
from ..nn.rnn_cell import (
    LSTMCell,
    LSTMStateTuple,
    RNNCell,
    _activation,
    _CellWrapper,
    _LayerCell,
    _lstm_state,
    flatten,
)
from ..variable_scope import get_variable, get_variable_scope, variable_scope
from .layers import layer_norm

__all__ = ["AttentionCellWrapper", "EmbeddingWrapper", "InputProjectionWrapper", "LSTMBlockCell",
           "LSTMBlockFusedCell", "LayerNormBasicLSTMCell", "OutputProjectionWrapper"]


class LSTMBlockCell(LSTMCell):
    """TF's fused LSTM step (the ``LSTMBlockCell`` op), here as ops:
    ``c = sigmoid(f + forget_bias [+ w_f_diag * c_prev]) * c_prev + sigmoid(i [+ w_i_diag *
    c_prev]) * tanh(j)``, clipped to ``[-cell_clip, cell_clip]`` when ``cell_clip > 0``;
    ``h = sigmoid(o [+ w_o_diag * c]) * tanh(c)``; the state ``LSTMStateTuple(c, h)``.
    As TF's kernel, the gradient goes through the clip as if it were not there.
    Its variables are LSTMCell's, under the scope ``lstm_cell``; static_rnn over it without
    peepholes or clipping is one ``lstm_block`` node, as over BasicLSTMCell.

    Parameters
    ----------
    num_units : int
    forget_bias : float
    cell_clip : float, optional
        None or a value <= 0: no clipping (TF's -1).
    use_peephole : bool
    """

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False,
                 dtype=None, reuse=None, name="lstm_cell") -> None:
        clip = None if cell_clip is None or cell_clip <= 0 else float(cell_clip)
        super().__init__(num_units, use_peepholes=use_peephole, cell_clip=clip,
                         forget_bias=forget_bias, reuse=reuse, name=name, dtype=dtype)

    def build(self, inputs_shape) -> None:
        depth, units = self._start_build(inputs_shape), self._num_units
        self._kernel = self._add_variable("kernel", [depth + units, 4 * units])
        self._bias = self._add_variable("bias", [4 * units], initializer=zeros_initializer())
        if self._use_peepholes:  # TF's order: i, f, o
            self._w_i_diag, self._w_f_diag, self._w_o_diag = (
                self._add_variable(name, [units]) for name in ("w_i_diag", "w_f_diag",
                                                               "w_o_diag"))

    def _clip_cell(self, c):
        # TF's LSTMBlockCellGrad ignores the clip: the gradient of c passes it unchanged
        clip = self._cell_clip
        return c + stop_gradient(clip_by_value(c, -clip, clip) - c)


class LSTMBlockFusedCell:
    """TF's whole-sequence LSTM (the ``BlockLSTM`` op): LSTMBlockCell's step over the time-major
    ``inputs`` ``[time, batch, depth]`` (or a list of ``[batch, depth]``), run as
    ``dynamic_rnn`` runs a cell.  With ``sequence_length`` the outputs past each example's
    length are zeros and its final state is the one at its length, as TF's.

    Parameters are LSTMBlockCell's; ``__call__(inputs, initial_state=None, dtype=None,
    sequence_length=None, scope=None)`` -> ``(outputs, LSTMStateTuple(c, h))``, outputs a list
    when the inputs were.
    """

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False,
                 reuse=None, dtype=None, name="lstm_fused_cell") -> None:
        self._cell = LSTMBlockCell(num_units, forget_bias, cell_clip, use_peephole, dtype=dtype,
                                   reuse=reuse, name=name)

    @property
    def num_units(self) -> int:
        return self._cell.output_size

    @property
    def weights(self) -> list:
        return self._cell.weights

    variables = trainable_weights = trainable_variables = weights

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None,
                 scope=None):
        is_list = isinstance(inputs, list)
        inputs = stack(inputs) if is_list else inputs
        shape = inputs.get_shape()
        if shape.ndims != 3 or shape[2].value is None:
            raise ValueError(f"LSTMBlockFusedCell: expecting inputs [time, batch, depth], depth "
                             f"known; got shape {shape}")
        if initial_state is None and dtype is None:
            raise ValueError("Either initial_state or dtype needs to be specified")
        if initial_state is not None and len(initial_state) != 2:
            raise ValueError("Expecting initial_state to be a tuple with length 2 or None")
        if self._cell._scope is None:  # the layer's scope: scope, else its name made unique
            self._cell._capture_scope(scope)
        outputs, state = dynamic_rnn(
            self._cell, inputs, sequence_length,
            None if initial_state is None else LSTMStateTuple(
                *(convert_to_tensor(part) for part in initial_state)), dtype,
            time_major=True, scope=get_variable_scope())
        return unstack(outputs) if is_list else outputs, LSTMStateTuple(*state)


class LayerNormBasicLSTMCell(_LayerCell):
    """BasicLSTMCell with layer normalisation of each gate's pre-activation and of the new
    memory (Ba et al. 2016; TF's ``LayerNormBasicLSTMCell``), and optional recurrent dropout
    of the candidate ``g = activation(j)`` (Semeniuta et al. 2016):
    ``new_c = norm(c * sigmoid(norm(f) + forget_bias) + sigmoid(norm(i)) * g)``,
    ``new_h = activation(new_c) * sigmoid(norm(o))``, ``norm`` = contrib's ``layer_norm``
    (epsilon 1e-12) with its own ``gamma`` / ``beta``.

    Parameters
    ----------
    num_units : int
    forget_bias : float
    activation : callable, default tanh
    layer_norm : bool
        False: BasicLSTMCell's step with a ``bias`` (glorot-uniform, as TF's) and no norms.
    norm_gain, norm_shift : float
        The gammas' and betas' initial values.
    dropout_keep_prob : float or scalar tensor
    dropout_prob_seed : int, optional
    """

    def __init__(self, num_units, forget_bias=1.0, input_size=None, activation=None,
                 layer_norm=True, norm_gain=1.0, norm_shift=0.0, dropout_keep_prob=1.0,
                 dropout_prob_seed=None, reuse=None) -> None:
        super().__init__(reuse=reuse)
        self._num_units = int(num_units)
        self._forget_bias = float(forget_bias)
        self._activation = _activation(activation)
        self._layer_norm = bool(layer_norm)
        self._norm_gain, self._norm_shift = float(norm_gain), float(norm_shift)
        self._keep_prob, self._seed = dropout_keep_prob, dropout_prob_seed
        self._state_is_tuple = True

    @property
    def state_size(self):
        return LSTMStateTuple(self._num_units, self._num_units)

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape) -> None:
        self._start_build(inputs_shape)  # the variables are made in call, as TF's

    def _norm(self, value, scope):
        with variable_scope(scope):
            for name, init in (("gamma", self._norm_gain), ("beta", self._norm_shift)):
                found = get_variable(name, [self._num_units], dtype=value.dtype,
                                     initializer=constant_initializer(init))
                if not any(w is found for w in self._weights):
                    self._weights.append(found)
        return layer_norm(value, reuse=True, scope=scope)

    def call(self, inputs, state) -> tuple:
        c, h = _lstm_state(self, state, self._num_units, self._num_units)
        args = concat([inputs, h], 1)
        width = [args.get_shape()[-1].value, 4 * self._num_units]
        if getattr(self, "_kernel", None) is None:
            self._kernel = self._add_variable("kernel", width)
            if not self._layer_norm:
                self._bias = self._add_variable("bias", width[1:])
        gates = matmul(args, self._kernel)
        gates = gates if self._layer_norm else bias_add(gates, self._bias)
        i, j, f, o = split(gates, 4, axis=1)
        if self._layer_norm:
            i, j, f, o = (self._norm(g, scope) for g, scope in
                          ((i, "input"), (j, "transform"), (f, "forget"), (o, "output")))
        g = self._activation(j)
        if isinstance(self._keep_prob, Symbol) or self._keep_prob < 1:
            g = dropout(g, self._keep_prob, seed=self._seed)
        new_c = c * sigmoid(f + self._forget_bias) + sigmoid(i) * g
        if self._layer_norm:
            new_c = self._norm(new_c, "state")
        new_h = self._activation(new_c) * sigmoid(o)
        return new_h, LSTMStateTuple(new_c, new_h)


class _ProjectingWrapper(_CellWrapper):
    """A wrapper with a scope of its own, in which it runs the cell and makes its variables
    (``kernel`` and ``bias``, zeros) on first use."""

    def __init__(self, cell, size, activation, reuse) -> None:
        super().__init__(cell, reuse=reuse)
        self._size = int(size)
        if self._size < 1:
            raise ValueError(f"{type(self).__name__}: the projection's size must be positive, "
                             f"got {size}")
        self._projection_activation = activation
        self._kernel = None

    def _project(self, value):
        if self._kernel is None:
            depth = value.get_shape()[-1].value
            if depth is None:
                raise ValueError(f"{type(self).__name__} '{self.scope_name}': the depth of "
                                 f"what it projects must be known, got {value.get_shape()}")
            self._kernel = self._add_variable("kernel", [depth, self._size], value.dtype.name)
            self._bias = self._add_variable("bias", [self._size], value.dtype.name,
                                            initializer=zeros_initializer())
        projected = bias_add(matmul(value, self._kernel), self._bias)
        activation = self._projection_activation
        return projected if activation is None else activation(projected)


class OutputProjectionWrapper(_ProjectingWrapper):
    """The cell's output projected to ``output_size`` (``output @ kernel + bias``, then
    ``activation`` if given); the state is the cell's."""

    def __init__(self, cell, output_size, activation=None, reuse=None) -> None:
        super().__init__(cell, output_size, activation, reuse)

    @property
    def output_size(self):
        return self._size

    def call(self, inputs, state) -> tuple:
        output, new_state = self._cell(inputs, state)
        return self._project(output), new_state


class InputProjectionWrapper(_ProjectingWrapper):
    """The inputs projected to ``num_proj`` (``inputs @ kernel + bias``, then ``activation``
    if given) before the cell."""

    def __init__(self, cell, num_proj, activation=None, input_size=None, reuse=None) -> None:
        super().__init__(cell, num_proj, activation, reuse)

    def call(self, inputs, state) -> tuple:
        return self._cell(self._project(inputs), state)


class EmbeddingWrapper(_CellWrapper):
    """Integer ids (``[batch]`` or ``[batch, 1]``) looked up in ``embedding`` [classes, size]
    before the cell, in the wrapper's own scope."""

    def __init__(self, cell, embedding_classes, embedding_size, initializer=None,
                 reuse=None) -> None:
        super().__init__(cell, reuse=reuse)
        if embedding_classes <= 0 or embedding_size <= 0:
            raise ValueError(f"Both embedding_classes and embedding_size must be > 0: "
                             f"{embedding_classes}, {embedding_size}.")
        self._classes, self._size = int(embedding_classes), int(embedding_size)
        self._initializer = initializer
        self._embedding = None

    def call(self, inputs, state) -> tuple:
        if self._embedding is None:
            initializer = (self._initializer or get_variable_scope().initializer
                           or random_uniform_initializer(-math.sqrt(3), math.sqrt(3)))
            dtype = (state[0] if isinstance(state, tuple) else state).dtype.name
            self._embedding = self._add_variable("embedding", [self._classes, self._size],
                                                 dtype, initializer=initializer)
        embedded = embedding_lookup(self._embedding, reshape(inputs, [-1]))
        return self._cell(embedded, state)



class AttentionCellWrapper(_CellWrapper):
    """Attention over the cell's last ``attn_length`` outputs (TF's ``AttentionCellWrapper``,
    arXiv:1601.06733): the inputs and the last attention are projected to the cell's input,
    the cell's new state (concatenated) queries the window, ``softmax(v . tanh(W h + U q))``
    weighs it, and ``[output, attention]`` projected to ``attn_size`` is the output and the
    window's newest entry.  The state is ``(cell state, attention, window)``, concatenated
    with ``state_is_tuple=False``.
    """

    def __init__(self, cell, attn_length, attn_size=None, attn_vec_size=None, input_size=None,
                 state_is_tuple=True, reuse=None) -> None:
        super().__init__(cell, reuse=reuse)
        if isinstance(cell.state_size, tuple) and not state_is_tuple:
            raise ValueError(f"Cell returns tuple of states, but the flag state_is_tuple is not "
                             f"set. State size is: {cell.state_size}")
        if attn_length <= 0:
            raise ValueError(f"attn_length should be greater than zero, got {attn_length}")
        self._attn_length, self._input_size = int(attn_length), input_size
        self._attn_size = int(attn_size if attn_size is not None else cell.output_size)
        self._attn_vec_size = int(attn_vec_size if attn_vec_size is not None else self._attn_size)
        self._state_is_tuple = state_is_tuple
        self._linears: dict = {}

    @property
    def state_size(self):
        size = (self._cell.state_size, self._attn_size, self._attn_size * self._attn_length)
        return size if self._state_is_tuple else sum(size)

    @property
    def output_size(self):
        return self._attn_size

    zero_state = RNNCell.zero_state  # zeros of its own state's structure

    def _linear(self, key, args, size):
        """TF's ``_Linear(args, size, True)``: ``concat(args) @ kernel + bias`` (zeros), its
        variables made in the current scope at the first call."""
        if key not in self._linears:
            depth = sum(a.get_shape()[-1].value for a in args)
            self._linears[key] = (
                self._add_variable("kernel", [depth, size], args[0].dtype.name),
                self._add_variable("bias", [size], args[0].dtype.name,
                                   initializer=zeros_initializer()))
        kernel, bias = self._linears[key]
        return bias_add(matmul(concat(args, 1) if len(args) > 1 else args[0], kernel), bias)

    def call(self, inputs, state) -> tuple:
        length, size, cell_size = self._attn_length, self._attn_size, self._cell.state_size
        if self._state_is_tuple:
            state, attns, window = state
        else:
            state, attns, window = (array_slice(state, [0, begin], [-1, width]) for begin, width
                                    in ((0, cell_size), (cell_size, size),
                                        (cell_size + size, size * length)))
        window = reshape(window, [-1, length, size])
        input_size = self._input_size or inputs.get_shape().as_list()[1]
        cell_output, new_state = self._cell(self._linear(1, [inputs, attns], input_size), state)
        query = concat(flatten(new_state), 1) if self._state_is_tuple else new_state
        new_attns, window = self._attention(query, window)
        with variable_scope("attn_output_projection"):
            output = self._linear(2, [cell_output, new_attns], size)
        window = reshape(concat([window, expand_dims(output, 1)], 1), [-1, length * size])
        new_state = (new_state, new_attns, window)
        return output, new_state if self._state_is_tuple else concat(list(new_state), 1)

    def _attention(self, query, window):
        length, size, vec = self._attn_length, self._attn_size, self._attn_vec_size
        with variable_scope("attention"):
            if "attention" not in self._linears:
                self._linears["attention"] = (
                    self._add_variable("attn_w", [1, 1, size, vec], query.dtype.name),
                    self._add_variable("attn_v", [vec], query.dtype.name))
            k, v = self._linears["attention"]
            hidden = reshape(window, [-1, length, 1, size])
            features = conv2d(hidden, k, [1, 1, 1, 1], "SAME")
            y = reshape(self._linear(3, [query], vec), [-1, 1, 1, vec])
            weights = softmax(reduce_sum(v * tanh(features + y), [2, 3]))
            attended = reduce_sum(reshape(weights, [-1, length, 1, 1]) * hidden, [1, 2])
            return reshape(attended, [-1, size]), array_slice(window, [0, 1, 0], [-1, -1, -1])
