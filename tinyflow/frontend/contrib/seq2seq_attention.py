"""``tf.contrib.seq2seq``'s attention (TensorFlow 1.15's ``attention_wrapper.py``):
``LuongAttention``, ``BahdanauAttention``, ``hardmax``, ``AttentionWrapper`` and its
``AttentionWrapperState``.

The formulas are TF's.  A mechanism masks its ``memory`` ``[batch, time, depth]`` past
``memory_sequence_length`` to zeros (``values``) and projects it with a bias-free Dense
``memory_layer`` (``keys``).  For a query ``q`` ``[batch, depth]``:

- Luong: ``score = q . keys[t]`` (times the scalar ``attention_g`` with ``scale``);
- Bahdanau: ``score = sum(v * tanh(keys[t] + query_layer(q)))`` (``normalize``:
  ``v`` becomes ``attention_g * v / |v|`` and ``attention_b`` is added inside the tanh);

scores past a memory's length take ``score_mask_value`` (default -inf), then
``alignments = probability_fn(score)`` (softmax).  AttentionWrapper's step: ``cell_input_fn(
inputs, previous attention)`` (concat) into the cell, then per mechanism ``context =
alignments . values`` and ``attention = attention_layer([cell_output, context])`` (or the
context without one); the output is the attention (``output_attention``) or the cell's.
"""
from __future__ import annotations

import collections
import math

from ...nnvm.symbol import Symbol, current_context
from ...nnvm.tensor_shape import TensorShape
from ..api import (
    _tensor,
    argmax,
    cast,
    control_dependencies,
    identity,
    reduce_sum,
    rsqrt,
    tanh,
    where,
)
from ..array_ops import concat, expand_dims, one_hot, reshape, shape, squeeze, zeros_like
from ..check_ops import assert_positive
from ..framework_names import sequence_mask
from ..init_ops import constant_initializer, ones_initializer, zeros_initializer
from ..layers import Dense
from ..matmul_ops import matmul
from ..nn.functions import softmax
from ..nn.rnn_cell import RNNCell, _batch_source, _batch_zeros, assert_like_rnncell, flatten
from ..tensor_array import TensorArray
from ..variable_scope import get_variable, variable_scope

__all__ = ["AttentionMechanism", "AttentionWrapper", "AttentionWrapperState",
           "BahdanauAttention", "LuongAttention", "hardmax"]


def hardmax(logits, name=None) -> Symbol:
    """One-hot of the argmax of ``logits`` along its last axis, in ``logits``' dtype."""
    logits = _tensor(logits)
    depth = logits.get_shape()[-1].value if logits.get_shape().ndims else None
    if depth is None:
        raise ValueError("hardmax: TinyFlow needs the logits' last dimension known when the "
                         "graph is built")
    return one_hot(argmax(logits, -1), depth, dtype=logits.dtype)


def _mask_memory(memory: Symbol, lengths):
    """``memory`` with its steps past ``lengths`` zeroed (TF's ``_prepare_memory``)."""
    if memory.get_shape().ndims is None or memory.get_shape().ndims < 3:
        raise ValueError(f"Expected memory to be [batch, time, depth], got shape "
                         f"{memory.get_shape()}")
    if not memory.get_shape()[2:].is_fully_defined():
        raise ValueError(f"Expected memory {memory.name} to have fully defined inner dims, but "
                         f"saw shape: {memory.get_shape()}")
    if lengths is None:
        return memory
    lengths = _tensor(lengths)
    batch = memory.get_shape()[0].value
    length_batch = lengths.get_shape()[0].value if lengths.get_shape().ndims == 1 else None
    if lengths.get_shape().ndims not in (None, 1) or (
            None not in (batch, length_batch) and batch != length_batch):
        raise ValueError(f"memory_sequence_length and memory tensor batch sizes do not match: "
                         f"memory_sequence_length of shape {lengths.get_shape()}, memory of "
                         f"shape {memory.get_shape()}")
    mask = sequence_mask(lengths, maxlen=shape(memory)[1], dtype=memory.dtype)
    for _ in range(memory.get_shape().ndims - 2):
        mask = expand_dims(mask, -1)
    masked = memory * mask
    masked.set_shape(memory.get_shape())
    return masked


def _dense_over_steps(layer, values: Symbol, units: int) -> Symbol:
    """``layer`` on each step of ``values`` ``[batch, time, depth]``: as it is, or over the
    steps flattened when both batch and time are known only when the graph runs (TinyFlow's
    Dense takes one unknown dimension)."""
    known = values.get_shape()
    if known.ndims != 3 or known[0].value is not None or known[1].value is not None:
        return layer(values)
    flat = layer(reshape(values, [-1, known[2].value]))
    keys = reshape(flat, concat([shape(values)[:2], [units]], 0))
    keys.set_shape([None, None, units])
    return keys


class AttentionMechanism:
    """The base of TF's attention mechanisms."""


class _BaseAttentionMechanism(AttentionMechanism):
    """The memory, its ``keys`` and the masked ``probability_fn`` (TF's
    ``_BaseAttentionMechanism``); subclasses give ``_score(query)`` in ``_scope_name``."""

    _scope_name = ""

    def __init__(self, num_units, memory, memory_sequence_length, probability_fn,
                 score_mask_value, query_layer, name, dtype):
        if not callable(probability_fn):
            raise TypeError(f"probability_fn must be callable, saw type: "
                            f"{type(probability_fn).__name__}")
        memory = _tensor(memory)
        self._num_units, self.dtype = int(num_units), dtype or memory.dtype
        self.memory_layer = Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype)
        self.query_layer = query_layer
        self._name = name
        with current_context().name_scope(name):
            self._values = _mask_memory(memory, memory_sequence_length)
            self._keys = _dense_over_steps(self.memory_layer, self._values, self._num_units)
        self._lengths = None if memory_sequence_length is None else _tensor(
            memory_sequence_length)
        if self._lengths is not None:  # TF's _maybe_mask_score asserts so, when it runs
            with control_dependencies([assert_positive(self._lengths, message=(
                    "All values in memory_sequence_length must greater than zero."))]):
                self._keys = identity(self._keys)
        self._score_mask_value = float("-inf") if score_mask_value is None else float(
            score_mask_value)
        self._probability_fn = probability_fn
        self._call_scope = None

    values = property(lambda self: self._values)
    keys = property(lambda self: self._keys)

    @property
    def batch_size(self):
        known = self._keys.get_shape()[0].value
        return known if known is not None else shape(self._keys)[0]

    @property
    def alignments_size(self):
        known = self._keys.get_shape()[1].value
        return known if known is not None else shape(self._keys)[1]

    state_size = alignments_size

    def initial_alignments(self, batch_size, dtype) -> Symbol:
        """Zeros ``[batch_size, memory time]``."""
        known, given = self._keys.get_shape()[0].value, batch_size
        if isinstance(given, int) and known is not None and given != known:
            raise ValueError(f"When calling zero_state of AttentionWrapper {self._name}: "
                             f"Non-matching batch sizes between the memory (encoder output, "
                             f"{known}) and the requested batch size ({given}).")
        return cast(zeros_like(self._keys[:, :, 0]), dtype)

    initial_state = initial_alignments

    def _masked_probabilities(self, score, state):
        known = self._keys.get_shape()[:2]  # what static inference loses mixing known and fed
        score.set_shape(known)
        if self._lengths is not None:
            keep = sequence_mask(self._lengths, maxlen=shape(score)[1])
            score = where(keep, score, zeros_like(score) + self._score_mask_value)
            score.set_shape(known)
        alignments = self._probability_fn(score, state)
        if isinstance(alignments, Symbol) and alignments.get_shape().ndims is None:
            alignments.set_shape(known)
        return alignments

    def __call__(self, query, state):
        """``(alignments [batch, memory time], next state: the alignments)``."""
        query = _tensor(query)
        if self._call_scope is None:
            with variable_scope(None, default_name=self._scope_name) as scope:
                self._call_scope = scope
                score = self._score(query)
        else:
            with variable_scope(self._call_scope, reuse=True):
                score = self._score(query)
        alignments = self._masked_probabilities(score, state)
        return alignments, alignments


class LuongAttention(_BaseAttentionMechanism):
    """Multiplicative attention: ``score = query . keys`` (``scale``: times the scalar variable
    ``attention_g``, initially 1); ``num_units`` must be the query's depth."""

    _scope_name = "luong_attention"

    def __init__(self, num_units, memory, memory_sequence_length=None, scale=False,
                 probability_fn=None, score_mask_value=None, dtype=None, custom_key_value_fn=None,
                 name="LuongAttention"):
        if custom_key_value_fn is not None:
            raise ValueError("LuongAttention: custom_key_value_fn is not supported by TinyFlow")
        probability_fn = probability_fn or softmax
        super().__init__(num_units, memory, memory_sequence_length,
                         lambda score, _: probability_fn(score), score_mask_value, None, name,
                         dtype)
        self._scale = scale

    def _score(self, query):
        depth = query.get_shape()[-1].value
        if depth is not None and depth != self._num_units:
            raise ValueError(f"Incompatible or unknown inner dimensions between query and keys. "
                             f"Query ({query.name}) has units: {depth}.  Keys ({self._keys.name})"
                             f" have units: {self._num_units}.  Perhaps you need to set "
                             f"num_units to the keys' dimension ({depth})?")
        score = squeeze(matmul(expand_dims(query, 1), self._keys, transpose_b=True), [1])
        if self._scale:
            score = get_variable("attention_g", shape=(), dtype=query.dtype,
                                 initializer=ones_initializer()) * score
        return score


class BahdanauAttention(_BaseAttentionMechanism):
    """Additive attention: ``score = sum(v * tanh(keys + query_layer(query)))`` over the units;
    ``normalize``: weight normalisation of ``v`` (``attention_g``, initially
    ``sqrt(1 / num_units)``) and a bias ``attention_b`` inside the tanh."""

    _scope_name = "bahdanau_attention"

    def __init__(self, num_units, memory, memory_sequence_length=None, normalize=False,
                 probability_fn=None, score_mask_value=None, dtype=None, custom_key_value_fn=None,
                 name="BahdanauAttention"):
        if custom_key_value_fn is not None:
            raise ValueError("BahdanauAttention: custom_key_value_fn is not supported by "
                             "TinyFlow")
        probability_fn = probability_fn or softmax
        query_layer = Dense(num_units, name="query_layer", use_bias=False, dtype=dtype)
        super().__init__(num_units, memory, memory_sequence_length,
                         lambda score, _: probability_fn(score), score_mask_value, query_layer,
                         name, dtype)
        self._normalize = normalize

    def _score(self, query):
        processed = expand_dims(self.query_layer(query), 1)
        units = self._num_units
        v = get_variable("attention_v", [units], dtype=query.dtype)
        if not self._normalize:
            return reduce_sum(v * tanh(self._keys + processed), [2])
        g = get_variable("attention_g", shape=(), dtype=query.dtype,
                         initializer=constant_initializer(math.sqrt(1.0 / units)))
        b = get_variable("attention_b", [units], dtype=query.dtype,
                         initializer=zeros_initializer())
        normed_v = g * v * rsqrt(reduce_sum(v * v))
        return reduce_sum(normed_v * tanh(self._keys + processed + b), [2])


class AttentionWrapperState(collections.namedtuple("AttentionWrapperState", (
        "cell_state", "attention", "time", "alignments", "alignment_history",
        "attention_state"))):
    """AttentionWrapper's state: the cell's, the last attention ``[batch, attention size]``,
    the step (int32 scalar), the alignments, their TensorArray history (or ``()``) and the
    mechanisms' states."""

    __slots__ = ()

    def clone(self, **kwargs):
        """This state with the fields given replaced (a tensor of a static shape incompatible
        with the one it replaces is a ValueError)."""
        def same_shape(old, new):
            if isinstance(old, Symbol) and isinstance(new, Symbol):
                if not old.get_shape().is_compatible_with(new.get_shape()):
                    raise ValueError(f"AttentionWrapperState.clone: {new.name} of shape "
                                     f"{new.get_shape()} replaces a tensor of shape "
                                     f"{old.get_shape()}")
                new.set_shape(old.get_shape().merge_with(new.get_shape()))
            return new
        replaced = self._replace(**kwargs)
        for field, value in kwargs.items():
            old = getattr(self, field)
            if isinstance(value, (tuple, list)) and len(flatten(old)) == len(flatten(value)):
                for before, after in zip(flatten(old), flatten(value)):
                    same_shape(before, after)
            else:
                same_shape(old, value)
        return replaced


def _concat_steps(inputs, attention) -> Symbol:
    """``concat([inputs, attention], -1)`` (TF's default cell_input_fn), its static shape
    merged as TF's (static inference loses it when one batch is known and the other fed)."""
    result = concat([inputs, attention], -1)
    shapes = [_tensor(inputs).get_shape(), attention.get_shape()]
    if all(known.ndims == 2 for known in shapes):
        depths = [known[1].value for known in shapes]
        result.set_shape(TensorShape([shapes[0][0].merge_with(shapes[1][0]),
                                      None if None in depths else sum(depths)]))
    return result


def _attention_step(mechanism, cell_output, attention_state, attention_layer):
    """TF's ``_compute_attention``: ``(attention, alignments, next attention state)``."""
    alignments, next_state = mechanism(cell_output, state=attention_state)
    context = squeeze(matmul(expand_dims(alignments, 1), mechanism.values), [1])
    attention = context if attention_layer is None else attention_layer(
        concat([cell_output, context], 1))
    return attention, alignments, next_state


class AttentionWrapper(RNNCell):
    """A cell with attention over one mechanism (or a list of them).

    Parameters
    ----------
    cell : RNNCell
    attention_mechanism : LuongAttention, BahdanauAttention or a list of them
    attention_layer_size : int (or one per mechanism), optional
        A bias-free Dense ``attention_layer`` of that size on ``[cell output, context]``.
    alignment_history : bool
        Keep every step's alignments in a TensorArray in the state.
    cell_input_fn : callable ``(inputs, attention) -> cell inputs``, default concat.
    output_attention : bool
        Output the attention (default) rather than the cell's output.
    initial_cell_state : the cell's state to start from in ``zero_state``.
    attention_layer : tf.layers.Dense (or one per mechanism), optional
    """

    def __init__(self, cell, attention_mechanism, attention_layer_size=None,
                 alignment_history=False, cell_input_fn=None, output_attention=True,
                 initial_cell_state=None, name=None, attention_layer=None, attention_fn=None):
        super().__init__(name=name)
        assert_like_rnncell("cell", cell)
        self._is_multi = isinstance(attention_mechanism, (list, tuple))
        mechanisms = tuple(attention_mechanism) if self._is_multi else (attention_mechanism,)
        for mechanism in mechanisms:
            if not isinstance(mechanism, AttentionMechanism):
                raise TypeError(f"attention_mechanism must be an AttentionMechanism or list of "
                                f"multiple AttentionMechanism instances, saw type: "
                                f"{type(mechanism).__name__}")
        if cell_input_fn is not None and not callable(cell_input_fn):
            raise TypeError(f"cell_input_fn must be callable, saw type: "
                            f"{type(cell_input_fn).__name__}")
        if attention_layer_size is not None and attention_layer is not None:
            raise ValueError("Only one of attention_layer_size and attention_layer should be set")
        self._cell, self._mechanisms = cell, mechanisms
        self._cell_input_fn = cell_input_fn or _concat_steps
        self._attention_fn = attention_fn or _attention_step
        self._layers = self._attention_layers(attention_layer_size, attention_layer)
        self._output_attention = output_attention
        self._alignment_history = alignment_history
        self._initial_cell_state = initial_cell_state

    def _attention_layers(self, sizes, layers):
        """The attention layers (None without), and the attention's size."""
        count = len(self._mechanisms)
        if sizes is not None:
            sizes = tuple(sizes) if isinstance(sizes, (list, tuple)) else (sizes,)
            if len(sizes) != count:
                raise ValueError(f"If provided, attention_layer_size must contain exactly one "
                                 f"integer per attention_mechanism, saw: {len(sizes)} vs {count}")
            self._attention_layer_size = sum(int(size) for size in sizes)
            return tuple(Dense(size, name="attention_layer", use_bias=False,
                               dtype=mechanism.dtype)
                         for size, mechanism in zip(sizes, self._mechanisms))
        if layers is not None:
            layers = tuple(layers) if isinstance(layers, (list, tuple)) else (layers,)
            if len(layers) != count:
                raise ValueError(f"If provided, attention_layer must contain exactly one layer "
                                 f"per attention_mechanism, saw: {len(layers)} vs {count}")
            if any(getattr(layer, "units", None) is None for layer in layers):
                raise ValueError("AttentionWrapper: TinyFlow needs each attention_layer's units "
                                 "(a tf.layers.Dense) to size the attention")
            self._attention_layer_size = sum(int(layer.units) for layer in layers)
            return layers
        self._attention_layer_size = sum(int(m.values.get_shape()[-1].value)
                                         for m in self._mechanisms)
        return None

    def _item_or_tuple(self, items):
        items = tuple(items)
        return items if self._is_multi else items[0]

    @property
    def output_size(self):
        return self._attention_layer_size if self._output_attention else self._cell.output_size

    @property
    def state_size(self) -> AttentionWrapperState:
        sizes = [m.alignments_size for m in self._mechanisms]
        return AttentionWrapperState(
            cell_state=self._cell.state_size, time=(), attention=self._attention_layer_size,
            alignments=self._item_or_tuple(sizes), attention_state=self._item_or_tuple(sizes),
            alignment_history=self._item_or_tuple(
                size if self._alignment_history else () for size in sizes))

    @property
    def weights(self) -> list:
        inner = list(getattr(self._cell, "weights", []))
        for layer in [m.memory_layer for m in self._mechanisms] + list(self._layers or ()):
            inner += list(getattr(layer, "weights", []))
        return inner + self._weights

    variables = trainable_weights = trainable_variables = weights

    def zero_state(self, batch_size, dtype) -> AttentionWrapperState:
        """The first state: the cell's zero state (or ``initial_cell_state``), zeros for the
        attention and alignments, step 0, empty alignment histories."""
        with current_context().name_scope(f"{self._base_name}ZeroState"):
            batch = self._batch_for(batch_size)
            cell_state = self._initial_cell_state
            if cell_state is None:
                cell_state = self._cell.zero_state(batch, dtype)
            alignments = [m.initial_alignments(batch_size, dtype) for m in self._mechanisms]
            return AttentionWrapperState(
                cell_state=cell_state, time=_tensor(0),
                attention=_batch_zeros(batch, self._attention_layer_size, dtype),
                alignments=self._item_or_tuple(alignments),
                attention_state=self._item_or_tuple(
                    m.initial_state(batch_size, dtype) for m in self._mechanisms),
                alignment_history=self._item_or_tuple(
                    TensorArray(dtype, size=0, dynamic_size=True,
                                element_shape=a.get_shape()) if self._alignment_history else ()
                    for a in alignments))

    def _batch_for(self, batch_size):
        """``batch_size`` as :func:`zero_state` of a cell takes it: as given when it can, else
        the memory's batch (equal to it: TF checks so)."""
        try:
            _batch_source(batch_size)
            return batch_size
        except ValueError:
            return shape(self._mechanisms[0].keys)[0]

    def call(self, inputs, state) -> tuple:
        """One step: ``(attention or cell output, next AttentionWrapperState)``."""
        if not isinstance(state, AttentionWrapperState):
            raise TypeError(f"Expected state to be instance of AttentionWrapperState. Received "
                            f"type {type(state)} instead.")
        cell_output, next_cell_state = self._cell(self._cell_input_fn(inputs, state.attention),
                                                  state.cell_state)
        listed = (lambda v: list(v)) if self._is_multi else (lambda v: [v])
        histories = listed(state.alignment_history)
        attentions, alignments, attention_states, new_histories = [], [], [], []
        for i, (mechanism, previous) in enumerate(zip(self._mechanisms,
                                                      listed(state.attention_state))):
            attention, alignment, next_state = self._attention_fn(
                mechanism, cell_output, previous, self._layers[i] if self._layers else None)
            attentions.append(attention)
            alignments.append(alignment)
            attention_states.append(next_state)
            new_histories.append(histories[i].write(state.time, alignment)
                                 if self._alignment_history else ())
        attention = concat(attentions, 1)
        next_state = AttentionWrapperState(
            time=state.time + 1, cell_state=next_cell_state, attention=attention,
            attention_state=self._item_or_tuple(attention_states),
            alignments=self._item_or_tuple(alignments),
            alignment_history=self._item_or_tuple(new_histories))
        return (attention if self._output_attention else cell_output), next_state

    def _inputs_shape(self, inputs):
        return None
