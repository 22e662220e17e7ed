"""``tf.layers`` as TensorFlow 1.15 has it: layers as classes and as functions.

A layer makes its variables with :func:`~tinyflow.variable_scope.get_variable` the first time it
is called, in a variable scope of its own: ``dense``, ``dense_1``... made unique in the enclosing
scope (``scope/dense/kernel:0``), or exactly the ``name`` a function such as :func:`dense` was
given, so that ``reuse=True`` (its own or the enclosing scope's) shares the variables of an
earlier call of that name; a class built once reuses its own.  The ops go under the scope's name
scope (``dense/MatMul``).

- :class:`Dense` ``kernel [in, units]``, ``bias [units]``; :class:`Conv2D` ``kernel [kh, kw,
  in, filters]``; :class:`Conv1D` ``kernel [k, in, filters]``; :class:`Conv2DTranspose`
  ``kernel [kh, kw, filters, in]``; :class:`SeparableConv2D` ``depthwise_kernel [kh, kw, in,
  depth_multiplier]`` and ``pointwise_kernel [1, 1, in * depth_multiplier, filters]``; kernels
  default to the scope's initializer, else Glorot-uniform (``get_variable``'s default), biases
  to zeros.
- :class:`BatchNormalization`: ``gamma``, ``beta``, and the non-trainable ``moving_mean`` and
  ``moving_variance``, updated by ops added to ``tf.GraphKeys.UPDATE_OPS``:
  ``moving = moving * momentum + batch_statistic * (1 - momentum)``.  Training normalises with
  the batch's (biased) variance.  As TF 1.15's fused kernel, which its layer uses for 4-D inputs
  normalised over axis 1 or 3, the moving variance then takes the Bessel-corrected variance
  ``var * n / (n - 1)`` (n values per channel); other inputs update it with the biased one, as
  TF's non-fused path does.
- ``training`` (dropout, batch norm) is a Python bool or a bool tensor: a tensor selects, when
  the graph runs, between the training and inference results (both finite), and makes the
  moving averages' update a no-op when False.

Regularizers add their loss to ``tf.GraphKeys.REGULARIZATION_LOSSES`` when the variable is made
(activity regularizers: per call, divided by the batch size, as Keras).  Weight constraints,
renorm and virtual batches are not supported (a ValueError says so); other ``tf.layers`` names
are an AttributeError saying TinyFlow does not support them.
"""
from __future__ import annotations

import contextlib
import math
import numbers
import re

import numpy as np

from ..nnvm.dtypes import as_dtype
from ..nnvm.symbol import Symbol, current_context
from ..nnvm.tensor_shape import TensorShape
from . import api, array_ops
from .framework import GraphKeys, add_to_collection
from .init_ops import ones_initializer, zeros_initializer
from .math_ops import tensordot
from .nn import convolutions, volume
from .nn import functions as nn
from .nn.conv_transpose import conv2d_transpose as _conv2d_transpose
from .unsupported import unsupported
from .variable_scope import get_variable, variable_scope

__all__ = [
    "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "BatchNormalization", "Conv1D",
    "Conv2D", "Conv2DTranspose", "Conv3D", "Dense", "Dropout", "Flatten", "InputSpec", "Layer",
    "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "SeparableConv2D", "average_pooling1d",
    "average_pooling2d", "average_pooling3d", "batch_normalization", "conv1d", "conv2d",
    "conv2d_transpose", "conv3d", "dense", "dropout", "flatten", "max_pooling1d",
    "max_pooling2d", "max_pooling3d", "separable_conv2d",
]


# -- arguments -------------------------------------------------------------------------------
def _tuple(value, what, rank=2) -> tuple:
    """Keras' ``normalize_tuple``: an int or ``rank`` ints."""
    values = (value,) * rank if isinstance(value, numbers.Integral) else tuple(value)
    if len(values) != rank or not all(isinstance(v, numbers.Integral) for v in values):
        raise ValueError(f"The `{what}` argument must be a tuple of {rank} integers. "
                         f"Received: {value!r}")
    return tuple(int(v) for v in values)


def _padding(value, allowed=("valid", "same")) -> str:
    padding = value.lower() if isinstance(value, str) else value
    if padding not in allowed:
        names = ", ".join(f'"{name}"' for name in allowed)
        raise ValueError(f"The `padding` argument must be one of {names}. Received: {value!r}")
    return padding


def _data_format(value) -> str:
    data_format = "channels_last" if value is None else str(value).lower()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f'The `data_format` argument must be one of "channels_first", '
                         f'"channels_last". Received: {value!r}')
    return data_format


_ACTIVATIONS = ("elu", "relu", "relu6", "selu", "sigmoid", "softmax", "softplus", "softsign",
                "tanh")


def _activation(activation):
    """A callable, None, or a Keras activation name (``"relu"``; ``"linear"`` is None)."""
    if activation is None or callable(activation):
        return activation
    if activation == "linear":
        return None
    if activation in _ACTIVATIONS and hasattr(nn, activation):
        return getattr(nn, activation)
    raise ValueError(f"Unknown activation function: {activation!r}")


def _no_constraints(layer, **constraints):
    given = sorted(name for name, value in constraints.items() if value is not None)
    if given:
        raise ValueError(f"{type(layer).__name__}: {', '.join(given)} not supported by "
                         f"TinyFlow (TensorFlow's optimizers project the variable after each "
                         f"update; TinyFlow's do not)")


def _snake_case(name: str) -> str:
    """Keras' ``to_snake_case``: ``Conv2DTranspose`` -> ``conv2d_transpose``."""
    return re.sub(r"([a-z])([A-Z])", r"\1_\2",
                  re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)).lower()


def _static_bool(value):
    """A Python bool for ``training`` known as the graph is built, else None (a tensor)."""
    if isinstance(value, Symbol):
        node = value.outputs[0].node
        return bool(np.asarray(node.attrs["value"]).reshape(-1)[0]) \
            if node.kind == "constant" else None
    return bool(value)


def _select(training: Symbol, if_true: Symbol, if_false: Symbol) -> Symbol:
    """``if_true`` where the bool scalar ``training`` holds, else ``if_false``: a blend by
    training as 1.0 / 0.0 (tf.where takes no scalar condition; both values are finite).  The
    reshape to a scalar keeps the static shapes when ``training`` is ``tf.placeholder(tf.bool)``
    of no declared shape, as TensorFlow's cond does."""
    on = array_ops.reshape(api.cast(training, "float32"), [])
    return if_true * on + if_false * (1.0 - on)


# -- the base class --------------------------------------------------------------------------
class InputSpec:
    """What a layer accepts: ``ndim``, ``min_ndim``, and ``axes`` {axis: size}."""

    def __init__(self, ndim=None, min_ndim=None, axes=None) -> None:
        self.ndim, self.min_ndim, self.axes = ndim, min_ndim, dict(axes or {})

    def check(self, inputs: Symbol, layer: str) -> None:
        """ValueError naming the layer and the input's shape when ``inputs`` does not fit."""
        shape = inputs.get_shape()
        if shape.ndims is None:
            return
        head = f"Input 0 of layer {layer} is incompatible with the layer: "
        if self.ndim is not None and shape.ndims != self.ndim:
            raise ValueError(f"{head}expected ndim={self.ndim}, found ndim={shape.ndims}. "
                             f"Full shape received: {shape.as_list()}")
        if self.min_ndim is not None and shape.ndims < self.min_ndim:
            raise ValueError(f"{head}expected min_ndim={self.min_ndim}, found "
                             f"ndim={shape.ndims}. Full shape received: {shape.as_list()}")
        for axis, size in self.axes.items():
            if shape[axis].value not in (None, size):
                raise ValueError(f"{head}expected axis {axis} of input shape to have value "
                                 f"{size} but received input with shape {shape.as_list()}")


class Layer:
    """A ``tf.layers`` layer: variables made by :meth:`build` on the first call, in the layer's
    variable scope; :meth:`call` computes the output.

    Parameters
    ----------
    trainable : bool
        Its variables join ``tf.GraphKeys.TRAINABLE_VARIABLES``.
    name : str, optional
        The layer's name; its scope is ``name`` made unique (``dense``, ``dense_1``... by
        default).  The functions give ``_scope=name`` instead: exactly that scope, for reuse.
    dtype : optional
        Its variables' dtype (float32 by default).
    activity_regularizer : callable, optional
        ``f(output)`` -> a loss added, divided by the batch size, to the regularization losses.
    """

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs) -> None:
        scope, self._reuse = kwargs.pop("_scope", None), kwargs.pop("_reuse", None)
        self.activity_regularizer = kwargs.pop("activity_regularizer", None)
        if kwargs:
            raise TypeError(f"{type(self).__name__}: keyword arguments not understood: "
                            f"{sorted(kwargs)}")
        self.trainable, self.built, self.input_spec = bool(trainable), False, None
        self.dtype = None if dtype is None else as_dtype(dtype).name
        self._name, self._base_name = name, name or _snake_case(type(self).__name__)
        self._weights, self._updates, self._losses = [], [], []
        self._scope = None
        if scope:
            with variable_scope(scope) as captured:
                self._scope = captured

    # -- what the layer holds --------------------------------------------------------------
    @property
    def name(self) -> str:
        """The name given, else the last part of the layer's scope once it was called."""
        return self._name or (self._scope.name.rsplit("/", 1)[-1] if self._scope
                              else self._base_name)

    @property
    def scope_name(self) -> str:
        if self._scope is None:
            raise ValueError(f'No name available for layer scope because the layer '
                             f'"{self.name}" has not been used yet.')
        return self._scope.name

    @property
    def variables(self) -> list:
        """Every variable of the layer, in the order made (``weights``)."""
        return list(self._weights)

    weights = variables

    @property
    def trainable_weights(self) -> list:
        return [w for w in self._weights if w.trainable] if self.trainable else []

    trainable_variables = trainable_weights

    @property
    def non_trainable_weights(self) -> list:
        trainable = self.trainable_weights
        return [w for w in self._weights if not any(w is t for t in trainable)]

    non_trainable_variables = non_trainable_weights

    @property
    def updates(self) -> list:
        """The update ops the calls made (batch norm's moving averages)."""
        return list(self._updates)

    @property
    def losses(self) -> list:
        """The regularization losses of its variables and outputs."""
        return list(self._losses)

    # -- for build and call ------------------------------------------------------------------
    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=True, constraint=None) -> Symbol:
        """``get_variable(name, shape, ...)`` in the layer's scope; the regularizer's loss is
        added only for a variable made now, not for one reused."""
        _no_constraints(self, constraint=constraint)
        existing = {id(v) for v in api.global_variables()}
        variable = get_variable(name, shape, dtype=dtype or self.dtype or "float32",
                                initializer=initializer, trainable=trainable and self.trainable)
        if regularizer is not None and id(variable) not in existing:
            with current_context().name_scope(f"{variable.op.name}/Regularizer/"):
                loss = regularizer(variable)
            if loss is not None:
                self._add_loss(loss)
        if not any(variable is w for w in self._weights):
            self._weights.append(variable)
        return variable

    def add_update(self, updates) -> None:
        """Record update ops and add them to ``tf.GraphKeys.UPDATE_OPS``."""
        for update in updates if isinstance(updates, (list, tuple)) else [updates]:
            self._updates.append(update)
            add_to_collection(GraphKeys.UPDATE_OPS, update)

    def _add_loss(self, loss) -> None:
        self._losses.append(loss)
        add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)

    def build(self, input_shape) -> None:
        """Make the variables for inputs of ``input_shape`` (a TensorShape)."""
        self.built = True

    def call(self, inputs, **kwargs) -> Symbol:
        return inputs

    # -- calling -------------------------------------------------------------------------------
    def _set_scope(self, scope=None) -> None:
        if self._scope is None:
            if self._reuse:
                with variable_scope(scope if scope is not None else self._base_name) as found:
                    self._scope = found
            else:
                with variable_scope(scope, default_name=self._base_name) as found:
                    self._scope = found

    @contextlib.contextmanager
    def _call_scope(self, scope):
        """The variable and name scopes a call builds and computes in (the layer's own)."""
        self._set_scope(scope)
        ops = self._scope.original_name_scope
        with variable_scope(self._scope, reuse=True if self.built else self._reuse,
                            auxiliary_name_scope=False), \
                current_context().name_scope(ops) if ops else contextlib.nullcontext():
            yield

    def _as_input(self, inputs):
        """``inputs`` as a tensor (a constant if not one)."""
        return inputs if isinstance(inputs, Symbol) else api.constant(
            np.asarray(inputs, dtype=self.dtype or "float32"))

    def __call__(self, inputs, *args, **kwargs):
        """The layer's output for ``inputs`` (made into a constant if not a tensor); the first
        call builds the variables, later ones reuse them."""
        with self._call_scope(kwargs.pop("scope", None)):
            inputs = self._as_input(inputs)
            self._check(inputs)
            if not self.built:
                self.build(inputs.get_shape() if isinstance(inputs, Symbol)
                           else [t.get_shape() for t in inputs])
                self.built = True
                self._check(inputs)  # against what build learnt (Dense: the last axis)
            outputs = self.call(inputs, *args, **kwargs)
            if self.activity_regularizer is not None:
                with current_context().name_scope("ActivityRegularizer"):
                    loss = self.activity_regularizer(outputs)
                    batch = api.cast(array_ops.shape(outputs)[0], "float32")
                    self._add_loss(loss / batch)
        return outputs

    def _check(self, inputs) -> None:
        if self.input_spec is not None and isinstance(inputs, Symbol):
            self.input_spec.check(inputs, self.name)

    def apply(self, inputs, *args, **kwargs) -> Symbol:
        """``layer(inputs, ...)``."""
        return self.__call__(inputs, *args, **kwargs)

    def _bad_shape(self, what, input_shape):
        return ValueError(f"{what} (layer {self.name!r}, scope {self.scope_name!r}, input "
                          f"shape {input_shape})")


# -- dense -----------------------------------------------------------------------------------
class Dense(Layer):
    """``activation(inputs @ kernel + bias)``: kernel ``[in, units]``, over the last axis of
    inputs of any rank >= 2.  ``bias_initializer`` None means zeros (TF's default)."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 trainable=True, name=None, **kwargs) -> None:
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        _no_constraints(self, kernel_constraint=kernel_constraint,
                        bias_constraint=bias_constraint)
        self.units, self.activation, self.use_bias = int(units), _activation(activation), use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer or zeros_initializer()
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel = self.bias = None
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape) -> None:
        last = TensorShape(input_shape)[-1].value
        if last is None:
            raise self._bad_shape("The last dimension of the inputs to `Dense` should be "
                                  "defined. Found `None`.", input_shape)
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        self.kernel = self.add_weight("kernel", [last, self.units],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer)
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.units], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer)
        self.built = True

    def call(self, inputs) -> Symbol:
        shape = inputs.get_shape().as_list()
        if len(shape) > 2:  # TF's tensordot over the last axis
            outputs = tensordot(inputs, self.kernel, [[len(shape) - 1], [0]], name="Tensordot")
        else:
            outputs = api.matmul(inputs, self.kernel, name="MatMul")
        if self.use_bias:
            outputs = nn.bias_add(outputs, self.bias, name="BiasAdd")
        return outputs if self.activation is None else self.activation(outputs)


# -- convolutions ----------------------------------------------------------------------------
class Conv2D(Layer):
    """``activation(conv2d(inputs, kernel) + bias)``: kernel ``[kh, kw, in, filters]``;
    ``padding`` "valid" or "same" (any case), ``data_format`` "channels_last" (NHWC, the
    default) or "channels_first" (NCHW); ``dilation_rate`` spreads the kernel's taps (not
    with ``strides`` above 1, as TensorFlow)."""

    _transposed, _rank = False, 2

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer=None, bias_initializer=None,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs) -> None:
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        _no_constraints(self, kernel_constraint=kernel_constraint,
                        bias_constraint=bias_constraint)
        rank = self._rank
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, "kernel_size", rank)
        self.strides = _tuple(strides, "strides", rank)
        self.padding = _padding(padding, ("valid", "same", "causal")[:2 + (rank == 1)])
        self.data_format = _data_format(data_format)
        self.dilation_rate = _tuple(dilation_rate, "dilation_rate", rank)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"{type(self).__name__}: strides > 1 not supported in "
                             f"conjunction with dilation_rate > 1, got strides {self.strides} "
                             f"and dilation_rate {self.dilation_rate}")
        self.activation, self.use_bias = _activation(activation), use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer or zeros_initializer()
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel = self.bias = None
        self.input_spec = InputSpec(ndim=rank + 2)

    @property
    def _nn_format(self) -> str:
        return "NCHW" if self.data_format == "channels_first" else "NHWC"

    @property
    def _channel_axis(self) -> int:
        return 1 if self.data_format == "channels_first" else -1

    def build(self, input_shape) -> None:
        channels = TensorShape(input_shape)[self._channel_axis].value
        if channels is None:
            raise self._bad_shape("The channel dimension of the inputs should be defined. "
                                  "Found `None`.", input_shape)
        sides = (self.filters, channels) if self._transposed else (channels, self.filters)
        self.input_spec = InputSpec(ndim=self._rank + 2, axes={self._channel_axis: channels})
        self.kernel = self.add_weight("kernel", [*self.kernel_size, *sides],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer)
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer)
        self.built = True

    def _convolve(self, inputs):
        return nn.conv2d(inputs, self.kernel, strides=self.strides, padding=self.padding.upper(),
                         data_format=self._nn_format, dilations=self.dilation_rate,
                         name="Conv2D")

    def call(self, inputs) -> Symbol:
        outputs = self._convolve(inputs)
        if self.use_bias:
            outputs = nn.bias_add(outputs, self.bias, data_format=self._nn_format,
                                  name="BiasAdd")
        return outputs if self.activation is None else self.activation(outputs)


class Conv1D(Conv2D):
    """``activation(conv1d(inputs, kernel) + bias)`` over ``[batch, width, in]``
    (channels_last; channels_first: ``[batch, in, width]``): kernel ``[k, in, filters]``;
    ``padding`` "valid", "same" or "causal" (zeros before the data only, ``dilation_rate *
    (k - 1)`` of them, then "valid": output t sees inputs up to t)."""

    _rank = 1

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, activation=None,
                 use_bias=True, kernel_initializer=None, bias_initializer=None,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, trainable, name, **kwargs)

    def _convolve(self, inputs):
        padding = self.padding.upper()
        if padding == "CAUSAL":  # Keras: pad the time axis before the data, then VALID
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            time = 2 if self.data_format == "channels_first" else 1
            inputs = array_ops.pad(inputs, [[left, 0] if axis == time else [0, 0]
                                            for axis in range(3)])
            padding = "VALID"
        return convolutions.conv1d(
            inputs, self.kernel, self.strides[0], padding, name="conv1d",
            data_format="NCW" if self.data_format == "channels_first" else "NWC",
            dilations=self.dilation_rate[0])


class Conv3D(Conv2D):
    """``activation(conv3d(inputs, kernel) + bias)`` over ``[batch, depth, height, width,
    in]`` (channels_last; channels_first: ``[batch, in, depth, height, width]``): kernel
    ``[kd, kh, kw, in, filters]``; ``padding`` "valid" or "same"; ``dilation_rate`` 1s only."""

    _rank = 3

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1, 1), activation=None,
                 use_bias=True, kernel_initializer=None, bias_initializer=None,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, trainable, name, **kwargs)

    @property
    def _nn_format(self) -> str:  # bias_add's name of the channel axis
        return "NCHW" if self.data_format == "channels_first" else "NHWC"

    def _convolve(self, inputs):
        return volume.conv3d(inputs, self.kernel, self.strides, self.padding.upper(),
                         "NCDHW" if self.data_format == "channels_first" else "NDHWC",
                         self.dilation_rate, name="Conv3D")


class SeparableConv2D(Conv2D):
    """``activation(separable_conv2d(inputs, depthwise_kernel, pointwise_kernel) + bias)``:
    ``depthwise_kernel [kh, kw, in, depth_multiplier]`` (each input channel convolved alone),
    then ``pointwise_kernel [1, 1, in * depth_multiplier, filters]``; the rest as
    :class:`Conv2D`'s."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=None, depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 trainable=True, name=None, **kwargs) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, None, bias_initializer, None, bias_regularizer,
                         activity_regularizer, None, bias_constraint, trainable, name, **kwargs)
        _no_constraints(self, depthwise_constraint=depthwise_constraint,
                        pointwise_constraint=pointwise_constraint)
        self.depth_multiplier = int(depth_multiplier)
        self.initializers = {"depthwise": depthwise_initializer,
                             "pointwise": pointwise_initializer}
        self.regularizers = {"depthwise": depthwise_regularizer,
                             "pointwise": pointwise_regularizer}
        self.depthwise_kernel = self.pointwise_kernel = None

    def build(self, input_shape) -> None:
        channels = TensorShape(input_shape)[self._channel_axis].value
        if channels is None:
            raise self._bad_shape("The channel dimension of the inputs to `SeparableConv2D` "
                                  "should be defined. Found `None`.", input_shape)
        self.input_spec = InputSpec(ndim=4, axes={self._channel_axis: channels})
        shapes = {"depthwise": [*self.kernel_size, channels, self.depth_multiplier],
                  "pointwise": [1, 1, channels * self.depth_multiplier, self.filters]}
        for what, shape in shapes.items():
            setattr(self, f"{what}_kernel", self.add_weight(
                f"{what}_kernel", shape, initializer=self.initializers[what],
                regularizer=self.regularizers[what]))
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer)
        self.built = True

    def _convolve(self, inputs):
        strides = ((1, *self.strides, 1) if self.data_format == "channels_last"
                   else (1, 1, *self.strides))
        return convolutions.separable_conv2d(
            inputs, self.depthwise_kernel, self.pointwise_kernel, strides,
            self.padding.upper(), rate=self.dilation_rate, data_format=self._nn_format)


def _deconv_length(size, kernel, padding, stride):
    """Keras' ``deconv_output_length`` (no output_padding)."""
    return size * stride + max(kernel - stride, 0) if padding == "valid" else size * stride


class Conv2DTranspose(Conv2D):
    """The transpose of :class:`Conv2D` (``tf.nn.conv2d_transpose``): kernel ``[kh, kw,
    filters, in]``, output height ``h * stride`` ("same") or ``h * stride + max(kh - stride,
    0)`` ("valid")."""

    _transposed = True

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, (1, 1),
                         activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, trainable, name, **kwargs)

    def _convolve(self, inputs):
        shape = inputs.get_shape().as_list()
        spatial = shape[2:] if self.data_format == "channels_first" else shape[1:3]
        if None in spatial:
            raise self._bad_shape("Conv2DTranspose: the inputs' height and width must be "
                                  "known as the graph is built", shape)
        size = [_deconv_length(d, k, self.padding, s)
                for d, k, s in zip(spatial, self.kernel_size, self.strides)]
        output_shape = ([shape[0], self.filters, *size] if self.data_format == "channels_first"
                        else [shape[0], *size, self.filters])
        return _conv2d_transpose(inputs, self.kernel, output_shape, self.strides,
                                 self.padding.upper(), self._nn_format, name="conv2d_transpose")


# -- pooling, flatten, dropout ---------------------------------------------------------------
class _Pooling2D(Layer):
    _pool, _rank = None, 2

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = _tuple(pool_size, "pool_size", self._rank)
        self.strides = _tuple(strides, "strides", self._rank)
        self.padding, self.data_format = _padding(padding), _data_format(data_format)
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def call(self, inputs):
        if self._rank == 3:
            pool = volume.max_pool3d if type(self)._pooling == "MAX" else volume.avg_pool3d
            return pool(inputs, self.pool_size, self.strides, self.padding.upper(),
                        "NCDHW" if self.data_format == "channels_first" else "NDHWC")
        if self._rank == 1:  # the width pooled through an axis of size 1 (tf.nn.pool's)
            return convolutions.pool(
                inputs, self.pool_size, type(self)._pooling, self.padding.upper(),
                strides=self.strides, name=type(self).__name__,
                data_format="NCW" if self.data_format == "channels_first" else "NWC")
        return type(self)._pool(inputs, ksize=self.pool_size, strides=self.strides,
                                padding=self.padding.upper(),  # TF's name: the op's, MaxPool
                                data_format="NCHW" if self.data_format == "channels_first"
                                else "NHWC")


class MaxPooling2D(_Pooling2D):
    """Max over ``pool_size`` windows moved by ``strides``."""

    _pool, _pooling = nn.max_pool, "MAX"


class AveragePooling2D(_Pooling2D):
    """Mean over ``pool_size`` windows moved by ``strides`` (padding not counted)."""

    _pool, _pooling = nn.avg_pool, "AVG"


class MaxPooling3D(MaxPooling2D):
    """Max over ``pool_size`` windows of ``[batch, depth, height, width, channels]``
    (channels_last)."""

    _rank = 3


class AveragePooling3D(AveragePooling2D):
    """Mean over ``pool_size`` windows of ``[batch, depth, height, width, channels]`` (padding
    not counted)."""

    _rank = 3


class MaxPooling1D(MaxPooling2D):
    """Max over ``pool_size`` windows of ``[batch, width, channels]`` (channels_last)."""

    _rank = 1


class AveragePooling1D(AveragePooling2D):
    """Mean over ``pool_size`` windows of ``[batch, width, channels]`` (padding not
    counted)."""

    _rank = 1


class Flatten(Layer):
    """Inputs ``[batch, ...]`` as ``[batch, everything else]`` (channels_first inputs are put
    channels-last first, as Keras does)."""

    def __init__(self, data_format=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)

    def call(self, inputs) -> Symbol:
        shape = inputs.get_shape()
        if self.data_format == "channels_first" and shape.ndims and shape.ndims > 2:
            inputs = array_ops.transpose(inputs, [0, *range(2, shape.ndims), 1])
        rest = inputs.get_shape().as_list()[1:]
        if None in rest:
            raise self._bad_shape("Flatten: every dimension but the batch must be known",
                                  shape)
        return array_ops.reshape(inputs, [-1, math.prod(rest)])


class Dropout(Layer):
    """When ``training``, ``nn.dropout(inputs, rate=rate)``; else the inputs.  A ``training``
    tensor gives dropout at rate ``rate * training`` (a rate of 0 keeps every value as it is)."""

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs) -> None:
        super().__init__(name=name, **kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def call(self, inputs, training=False) -> Symbol:
        known = _static_bool(training)
        if known is False:
            return api.identity(inputs)
        rate = self.rate if known else self.rate * api.cast(training, "float32")
        return nn.dropout(inputs, noise_shape=self.noise_shape, seed=self.seed, rate=rate)


# -- batch normalization ---------------------------------------------------------------------
class BatchNormalization(Layer):
    """``gamma * (x - mean) / sqrt(variance + epsilon) + beta`` over ``axis`` (an int or list:
    the axes kept), with the batch's statistics when training, else the moving ones; see the
    module doc for the moving averages' updates.  ``renorm``, ``virtual_batch_size`` and
    ``adjustment`` are not supported."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=None, gamma_initializer=None, moving_mean_initializer=None,
                 moving_variance_initializer=None, beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 renorm=False, renorm_clipping=None, renorm_momentum=0.99, fused=None,
                 trainable=True, virtual_batch_size=None, adjustment=None, name=None,
                 **kwargs) -> None:
        super().__init__(trainable=trainable, name=name, **kwargs)
        _no_constraints(self, beta_constraint=beta_constraint,
                        gamma_constraint=gamma_constraint)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise ValueError("BatchNormalization: renorm, virtual_batch_size and adjustment "
                             "are not supported by TinyFlow")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.momentum, self.epsilon = momentum, float(epsilon)
        self.center, self.scale, self.fused = center, scale, True if fused is None else fused
        self.initializers = {"beta": beta_initializer or zeros_initializer(),
                             "gamma": gamma_initializer or ones_initializer(),
                             "moving_mean": moving_mean_initializer or zeros_initializer(),
                             "moving_variance": moving_variance_initializer or
                             ones_initializer()}
        self.regularizers = {"beta": beta_regularizer, "gamma": gamma_regularizer}
        self.gamma = self.beta = self.moving_mean = self.moving_variance = None

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        if not shape.ndims:
            raise self._bad_shape("Input has undefined rank", input_shape)
        ndims = shape.ndims
        axes = [a + ndims if a < 0 else a for a in (
            self.axis if isinstance(self.axis, list) else [self.axis])]
        if any(not 0 <= a < ndims for a in axes) or len(set(axes)) != len(axes):
            raise self._bad_shape(f"Invalid axis {self.axis}", input_shape)
        sizes = {a: shape[a].value for a in axes}
        if None in sizes.values():
            raise self._bad_shape("Input has undefined `axis` dimension", input_shape)
        self.axis, self.input_spec = axes, InputSpec(ndim=ndims, axes=sizes)
        self.fused = bool(self.fused) and ndims == 4 and axes in ([1], [3])
        param_shape = [sizes[a] for a in axes] if len(axes) == 1 else [
            sizes.get(i, 1) for i in range(ndims)]
        for what, wanted in (("gamma", self.scale), ("beta", self.center)):
            if wanted:
                setattr(self, what, self.add_weight(what, param_shape,
                                                    initializer=self.initializers[what],
                                                    regularizer=self.regularizers[what]))
        for what in ("moving_mean", "moving_variance"):
            setattr(self, what, self.add_weight(what, param_shape, trainable=False,
                                                initializer=self.initializers[what]))
        self.built = True

    def _broadcast(self, value, ndims):
        """A per-channel vector shaped to broadcast against the inputs."""
        if value is None or len(self.axis) > 1 or self.axis == [ndims - 1]:
            return value
        return array_ops.reshape(value, [-1 if i in self.axis else 1 for i in range(ndims)])

    def _normalize(self, inputs, mean, variance):
        ndims = inputs.get_shape().ndims
        return nn.batch_normalization(
            inputs, self._broadcast(mean, ndims), self._broadcast(variance, ndims),
            self._broadcast(self.beta, ndims), self._broadcast(self.gamma, ndims),
            self.epsilon)

    def _bessel_factor(self, inputs):
        """n / (n - 1), n the count of values per channel (the fused kernel's correction)."""
        shape = inputs.get_shape()
        channels = math.prod(shape[a].value for a in self.axis)
        if shape.is_fully_defined():
            count = math.prod(shape.as_list()) // channels
            return count / max(count - 1, 1)
        count = api.cast(array_ops.size(inputs), "float32") / float(channels)
        return count / api.maximum(count - 1.0, 1.0)

    def call(self, inputs, training=False) -> Symbol:
        known = _static_bool(training)
        if known is False:
            return self._normalize(inputs, self.moving_mean, self.moving_variance)
        ndims = inputs.get_shape().ndims
        reduce = [i for i in range(ndims) if i not in self.axis]
        mean, variance = nn.moments(inputs, reduce, keep_dims=len(self.axis) > 1)
        outputs = self._normalize(inputs, mean, variance)
        new_variance = variance * self._bessel_factor(inputs) if self.fused else variance
        momentum = self.momentum
        if known is None:  # a tensor: the moving averages stay as they are when False
            outputs = _select(training, outputs, self._normalize(
                inputs, self.moving_mean, self.moving_variance))
            mean = _select(training, mean, self.moving_mean)
            new_variance = _select(training, new_variance, self.moving_variance)
            momentum = _select(training, api.constant(float(momentum)), api.constant(1.0))
        self.add_update([_assign_moving_average(self.moving_mean, mean, momentum),
                         _assign_moving_average(self.moving_variance, new_variance, momentum)])
        return outputs


def _assign_moving_average(variable, value, momentum):
    """TF's ``variable -= (variable - value) * (1 - momentum)``."""
    with current_context().name_scope("AssignMovingAvg"):
        return api.assign_sub(variable, (variable - value) * (1.0 - momentum))


# -- the functions ---------------------------------------------------------------------------
def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
          trainable=True, name=None, reuse=None) -> Symbol:
    """:class:`Dense` applied to ``inputs``; ``name`` is the exact variable scope (reused with
    ``reuse=True``), else ``dense``, ``dense_1``...

    Returns
    -------
    Symbol
        ``activation(inputs @ kernel + bias)``, shape ``inputs.shape[:-1] + [units]``.
    """
    return Dense(units, activation, use_bias, kernel_initializer, bias_initializer,
                 kernel_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
                 bias_constraint, trainable, name, _scope=name, _reuse=reuse).apply(inputs)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None) -> Symbol:
    """:class:`Conv2D` applied to ``inputs`` (``name`` and ``reuse`` as :func:`dense`'s).

    Returns
    -------
    Symbol
        The convolution, ``[batch, h', w', filters]`` (channels_last).
    """
    return Conv2D(filters, kernel_size, strides, padding, data_format, dilation_rate,
                  activation, use_bias, kernel_initializer, bias_initializer,
                  kernel_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
                  bias_constraint, trainable, name, _scope=name, _reuse=reuse).apply(inputs)


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
           data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None) -> Symbol:
    """:class:`Conv1D` applied to ``inputs`` (``name`` and ``reuse`` as :func:`dense`'s).

    Returns
    -------
    Symbol
        The convolution, ``[batch, width', filters]`` (channels_last).
    """
    return Conv1D(filters, kernel_size, strides, padding, data_format, dilation_rate,
                  activation, use_bias, kernel_initializer, bias_initializer,
                  kernel_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
                  bias_constraint, trainable, name, _scope=name, _reuse=reuse).apply(inputs)


def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=None,
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None,
                     depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                     trainable=True, name=None, reuse=None) -> Symbol:
    """:class:`SeparableConv2D` applied to ``inputs`` (``name`` and ``reuse`` as
    :func:`dense`'s).

    Returns
    -------
    Symbol
        The depthwise then pointwise convolution, ``[batch, h', w', filters]``.
    """
    return SeparableConv2D(
        filters, kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier,
        activation, use_bias, depthwise_initializer, pointwise_initializer, bias_initializer,
        depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer,
        depthwise_constraint, pointwise_constraint, bias_constraint, trainable, name,
        _scope=name, _reuse=reuse).apply(inputs)


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None) -> Symbol:
    """:class:`Conv2DTranspose` applied to ``inputs`` (``name`` and ``reuse`` as
    :func:`dense`'s).

    Returns
    -------
    Symbol
        The transposed convolution, ``[batch, h * stride (+ ...), ..., filters]``.
    """
    return Conv2DTranspose(filters, kernel_size, strides, padding, data_format, activation,
                           use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                           bias_regularizer, activity_regularizer, kernel_constraint,
                           bias_constraint, trainable, name, _scope=name,
                           _reuse=reuse).apply(inputs)


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None) -> Symbol:
    """:class:`MaxPooling2D` applied to ``inputs``."""
    return MaxPooling2D(pool_size, strides, padding, data_format, name).apply(inputs)


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                      name=None) -> Symbol:
    """:class:`AveragePooling2D` applied to ``inputs``."""
    return AveragePooling2D(pool_size, strides, padding, data_format, name).apply(inputs)


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None) -> Symbol:
    """:class:`MaxPooling1D` applied to ``inputs``."""
    return MaxPooling1D(pool_size, strides, padding, data_format, name).apply(inputs)


def average_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                      name=None) -> Symbol:
    """:class:`AveragePooling1D` applied to ``inputs``."""
    return AveragePooling1D(pool_size, strides, padding, data_format, name).apply(inputs)


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None) -> Symbol:
    """:class:`MaxPooling3D` applied to ``inputs``."""
    return MaxPooling3D(pool_size, strides, padding, data_format, name).apply(inputs)


def average_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                      name=None) -> Symbol:
    """:class:`AveragePooling3D` applied to ``inputs``."""
    return AveragePooling3D(pool_size, strides, padding, data_format, name).apply(inputs)


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None) -> Symbol:
    """:class:`Conv3D` applied to ``inputs`` (``name`` and ``reuse`` as :func:`dense`'s).

    Returns
    -------
    Symbol
        The convolution, ``[batch, d', h', w', filters]`` (channels_last).
    """
    return Conv3D(filters, kernel_size, strides, padding, data_format, dilation_rate,
                  activation, use_bias, kernel_initializer, bias_initializer,
                  kernel_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
                  bias_constraint, trainable, name, _scope=name, _reuse=reuse).apply(inputs)


def flatten(inputs, name=None, data_format="channels_last") -> Symbol:
    """:class:`Flatten` applied to ``inputs``: ``[batch, everything else]``."""
    return Flatten(name=name, data_format=data_format).apply(inputs)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False,
            name=None) -> Symbol:
    """:class:`Dropout` applied to ``inputs``: dropped at ``rate`` when ``training`` (a Python
    bool or a bool tensor), else the inputs unchanged (note: TF's default is False)."""
    return Dropout(rate, noise_shape, seed, name).apply(inputs, training=training)


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=None, gamma_initializer=None,
                        moving_mean_initializer=None, moving_variance_initializer=None,
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                        gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99,
                        fused=None, virtual_batch_size=None, adjustment=None) -> Symbol:
    """:class:`BatchNormalization` applied to ``inputs``; the moving averages' updates go to
    ``tf.GraphKeys.UPDATE_OPS`` (run them with the train op).

    Returns
    -------
    Symbol
        The normalised inputs, same shape.
    """
    layer = BatchNormalization(
        axis, momentum, epsilon, center, scale, beta_initializer, gamma_initializer,
        moving_mean_initializer, moving_variance_initializer, beta_regularizer,
        gamma_regularizer, beta_constraint, gamma_constraint, renorm, renorm_clipping,
        renorm_momentum, fused, trainable, virtual_batch_size, adjustment, name,
        _scope=name, _reuse=reuse)
    return layer.apply(inputs, training=training)


def __getattr__(name):
    raise unsupported("tf.layers.", "tinyflow.layers", name, {"tf.layers.": __all__})


def __dir__():
    """TF's public names only (not the modules and helpers this module imports)."""
    return sorted(__all__)
