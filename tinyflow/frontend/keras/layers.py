"""``tf.keras.layers`` as TensorFlow 1.15 has them in graph mode (see :mod:`.engine` for the
rules every Keras layer follows: names per graph, variables shared by calling one object
again, ``training`` defaulting to the learning phase).

The layers ``tf.layers`` has are its classes under Keras' :class:`~.engine.Layer`; the rest
(global pooling, embeddings, activations, reshaping and merging) are written here.
The recurrent layers are :mod:`.recurrent`'s, Bidirectional and TimeDistributed
:mod:`.wrappers`'.  Keras' masks (``Embedding(mask_zero=True)``, ``Masking``) go from layer to
layer as TF 1.15's do (:mod:`.engine`).  DepthwiseConv2D and the rest of Keras' layers are an
AttributeError saying TinyFlow does not support them.
"""
from __future__ import annotations

import math

from ...nnvm.symbol import Symbol
from .. import api, array_ops
from .. import layers as tf_layers
from ..nn import functions as nn
from ..unsupported import unsupported
from . import activations, initializers, regularizers
from .engine import Layer
from .models import Input, InputLayer
from .recurrent import (
    GRU,
    LSTM,
    RNN,
    GRUCell,
    LSTMCell,
    SimpleRNN,
    SimpleRNNCell,
    StackedRNNCells,
)
from .wrappers import Bidirectional, TimeDistributed

__all__ = [
    "GRU", "LSTM", "RNN", "Activation", "Add", "Average", "AveragePooling1D",
    "AveragePooling2D", "AvgPool1D", "AvgPool2D", "BatchNormalization", "Bidirectional",
    "Concatenate", "Conv1D", "Conv2D", "Conv2DTranspose", "Convolution1D", "Convolution2D",
    "Convolution2DTranspose", "Dense", "Dropout", "Embedding", "Flatten",
    "GRUCell", "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalMaxPooling1D",
    "GlobalMaxPooling2D", "Input", "InputLayer", "InputSpec", "LSTMCell", "Lambda", "Layer",
    "LayerNormalization", "LeakyReLU", "Masking", "MaxPool1D", "MaxPool2D", "MaxPooling1D",
    "MaxPooling2D", "Maximum", "Minimum", "Multiply", "Permute", "ReLU", "RepeatVector",
    "Reshape", "SeparableConv2D", "SeparableConvolution2D", "SimpleRNN", "SimpleRNNCell",
    "Softmax", "StackedRNNCells", "Subtract", "TimeDistributed", "ZeroPadding2D", "add",
    "average", "concatenate", "maximum", "minimum", "multiply", "subtract",
]

InputSpec = tf_layers.InputSpec


class Dense(Layer, tf_layers.Dense):
    """``activation(inputs @ kernel + bias)`` (see ``tf.layers.Dense``)."""

    supports_masking = True


class Conv1D(Layer, tf_layers.Conv1D):
    """The 1-D convolution of ``tf.layers.Conv1D``."""


class Conv2D(Layer, tf_layers.Conv2D):
    """The 2-D convolution of ``tf.layers.Conv2D``."""


class SeparableConv2D(Layer, tf_layers.SeparableConv2D):
    """The depthwise-then-pointwise convolution of ``tf.layers.SeparableConv2D``."""


class Conv2DTranspose(Layer, tf_layers.Conv2DTranspose):
    """The transposed convolution of ``tf.layers.Conv2DTranspose``; Keras' ``output_padding``
    and ``dilation_rate`` other than 1 are not supported."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1), **kwargs) -> None:
        if output_padding is not None or tf_layers._tuple(dilation_rate, "dilation_rate") != (
                1, 1):
            raise ValueError("Conv2DTranspose: output_padding and dilation_rate are not "
                             "supported by TinyFlow")
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, **kwargs)


class MaxPooling2D(Layer, tf_layers.MaxPooling2D):
    """Max over ``pool_size`` windows (default 2x2) moved by ``strides`` (default
    ``pool_size``)."""

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs) -> None:
        super().__init__(pool_size, pool_size if strides is None else strides, padding,
                         data_format, **kwargs)


class AveragePooling2D(Layer, tf_layers.AveragePooling2D):
    """Mean over ``pool_size`` windows (default 2x2) moved by ``strides`` (default
    ``pool_size``)."""

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs) -> None:
        super().__init__(pool_size, pool_size if strides is None else strides, padding,
                         data_format, **kwargs)


class MaxPooling1D(Layer, tf_layers.MaxPooling1D):
    """Max over ``pool_size`` steps (default 2) moved by ``strides`` (default
    ``pool_size``)."""

    def __init__(self, pool_size=2, strides=None, padding="valid",
                 data_format="channels_last", **kwargs) -> None:
        super().__init__(pool_size, pool_size if strides is None else strides, padding,
                         data_format, **kwargs)


class AveragePooling1D(Layer, tf_layers.AveragePooling1D):
    """Mean over ``pool_size`` steps (default 2) moved by ``strides`` (default
    ``pool_size``)."""

    def __init__(self, pool_size=2, strides=None, padding="valid",
                 data_format="channels_last", **kwargs) -> None:
        super().__init__(pool_size, pool_size if strides is None else strides, padding,
                         data_format, **kwargs)


class Flatten(Layer, tf_layers.Flatten):
    """``[batch, everything else]``."""


class Dropout(Layer, tf_layers.Dropout):
    """Inputs dropped at ``rate`` (the rest scaled by ``1 / (1 - rate)``) when training."""

    supports_masking = True


class BatchNormalization(Layer, tf_layers.BatchNormalization):
    """``tf.layers.BatchNormalization``'s normalisation; the moving averages' updates are in
    :attr:`updates` (run them with the train op)."""

    supports_masking = True


# -- layers without a tf.layers twin ----------------------------------------------------------
class _GlobalPooling(Layer):
    """The mean or max over every axis but the batch's and the channels'."""

    _reduce, _rank = None, 2

    def __init__(self, data_format=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.data_format = tf_layers._data_format(data_format)
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def call(self, inputs) -> Symbol:
        first = 2 if self.data_format == "channels_first" else 1
        return type(self)._reduce(inputs, axis=list(range(first, first + self._rank)))


class GlobalAveragePooling2D(_GlobalPooling):
    """``[batch, h, w, c]`` -> ``[batch, c]``, the mean over h and w."""

    _reduce = api.reduce_mean


class GlobalMaxPooling2D(_GlobalPooling):
    """``[batch, h, w, c]`` -> ``[batch, c]``, the max over h and w."""

    _reduce = api.reduce_max


class GlobalAveragePooling1D(GlobalAveragePooling2D):
    """``[batch, steps, c]`` -> ``[batch, c]``, the mean over the steps."""

    _rank = 1


class GlobalMaxPooling1D(GlobalMaxPooling2D):
    """``[batch, steps, c]`` -> ``[batch, c]``, the max over the steps."""

    _rank = 1


class Embedding(Layer):
    """Rows of ``embeddings [input_dim, output_dim]`` at integer ids: ``[...]`` ->
    ``[..., output_dim]``; ``embeddings_initializer`` defaults to Keras' ``"uniform"``
    (U(-0.05, 0.05)).  ``mask_zero``: the mask ``ids != 0`` goes to the layers after it."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, activity_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, input_length=None,
                 **kwargs) -> None:
        if "input_shape" not in kwargs:  # Keras': a Sequential model starting here is built
            kwargs["input_shape"] = (input_length,)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        tf_layers._no_constraints(self, embeddings_constraint=embeddings_constraint)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings, self.mask_zero = None, bool(mask_zero)

    def compute_mask(self, inputs, mask=None):
        return api.not_equal(inputs, 0) if self.mask_zero else None

    def _as_input(self, inputs):
        return inputs if isinstance(inputs, Symbol) else api.constant(inputs, dtype="int32")

    def build(self, input_shape) -> None:
        self.embeddings = self.add_weight(
            "embeddings", [self.input_dim, self.output_dim],
            initializer=self.embeddings_initializer, regularizer=self.embeddings_regularizer)
        self.built = True

    def call(self, inputs) -> Symbol:
        if not inputs.dtype.is_integer:
            inputs = api.cast(inputs, "int32")
        return nn.embedding_lookup(self.embeddings, inputs)


class Activation(Layer):
    """``activation(inputs)``, the activation a function or a name (``"relu"``)."""

    supports_masking = True

    def __init__(self, activation, **kwargs) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs) -> Symbol:
        return self.activation(inputs)


class ReLU(Layer):
    """Keras' relu: ``min(max_value, x)`` above ``threshold``, else ``negative_slope * (x -
    threshold)``."""

    supports_masking = True

    def __init__(self, max_value=None, negative_slope=0, threshold=0, **kwargs) -> None:
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0 or negative_slope < 0:
            raise ValueError("ReLU: max_value and negative_slope must be >= 0")
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs) -> Symbol:
        return activations.relu(inputs, alpha=self.negative_slope, max_value=self.max_value,
                                threshold=self.threshold)


class LeakyReLU(Layer):
    """``x`` where > 0, else ``alpha * x`` (Keras' default ``alpha=0.3``)."""

    supports_masking = True

    def __init__(self, alpha=0.3, **kwargs) -> None:
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs) -> Symbol:
        return nn.leaky_relu(inputs, alpha=self.alpha)


class Softmax(Layer):
    """``softmax(inputs)`` along ``axis``."""

    supports_masking = True

    def __init__(self, axis=-1, **kwargs) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs) -> Symbol:
        return activations.softmax(inputs, axis=self.axis)


class Masking(Layer):
    """Steps whose values all equal ``mask_value`` masked for the layers after it (and set
    to zeros): the mask ``[batch, time]`` is ``any(inputs != mask_value, -1)``."""

    supports_masking = True

    def __init__(self, mask_value=0.0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def compute_mask(self, inputs, mask=None):
        return api.reduce_any(api.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs) -> Symbol:
        kept = api.reduce_any(api.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return inputs * api.cast(kept, inputs.dtype)


class RepeatVector(Layer):
    """``[batch, depth]`` -> ``[batch, n, depth]``, the input repeated ``n`` times."""

    def __init__(self, n, **kwargs) -> None:
        super().__init__(**kwargs)
        self.n = int(n)
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs) -> Symbol:
        return array_ops.tile(array_ops.expand_dims(inputs, 1), [1, self.n, 1])


class LayerNormalization(Layer):
    """``gamma * (x - mean) / sqrt(variance + epsilon) + beta``, the moments over ``axis``
    (an int or a list) of each example; ``gamma`` and ``beta`` of the shape of those axes."""

    supports_masking = True

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        tf_layers._no_constraints(self, beta_constraint=beta_constraint,
                                  gamma_constraint=gamma_constraint)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        self.epsilon, self.center, self.scale = float(epsilon), center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.gamma = self.beta = None

    def build(self, input_shape) -> None:
        rank = input_shape.ndims
        axes = sorted(a % rank for a in self.axis) if rank else []
        if not axes or len(set(axes)) != len(axes):
            raise ValueError(f"Invalid axis: {self.axis} (layer {self.name!r}, input shape "
                             f"{input_shape})")
        self.axis = axes
        shape = [input_shape[a].value for a in axes]
        if None in shape:
            raise ValueError(f"LayerNormalization: the normalized axes' sizes must be known, "
                             f"got input shape {input_shape}")
        if self.scale:
            self.gamma = self.add_weight("gamma", shape, initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer)
        if self.center:
            self.beta = self.add_weight("beta", shape, initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer)
        self.built = True

    def call(self, inputs) -> Symbol:
        rank = inputs.get_shape().ndims
        mean, variance = nn.moments(inputs, self.axis, keep_dims=True)
        broadcast = [inputs.get_shape()[a].value if a in self.axis else 1 for a in range(rank)]
        scale = None if self.gamma is None else array_ops.reshape(self.gamma, broadcast)
        offset = None if self.beta is None else array_ops.reshape(self.beta, broadcast)
        return nn.batch_normalization(inputs, mean, variance, offset, scale, self.epsilon)


class Lambda(Layer):
    """``function(inputs, **arguments)`` as a layer (it makes no variables)."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None,
                 **kwargs) -> None:
        if mask is not None:
            raise ValueError("Lambda: mask (Keras' masks) is not supported by TinyFlow")
        super().__init__(**kwargs)
        self.function, self.arguments = function, dict(arguments or {})

    def call(self, inputs) -> Symbol:
        return self.function(inputs, **self.arguments)


class Reshape(Layer):
    """``[batch, ...]`` -> ``[batch, *target_shape]``; one entry of ``target_shape`` may be
    -1, found from the inputs' static shape."""

    def __init__(self, target_shape, **kwargs) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)
        if self.target_shape.count(-1) > 1:
            raise ValueError(f"Reshape: can only specify one unknown dimension, got "
                             f"{self.target_shape}")

    def call(self, inputs) -> Symbol:
        target = list(self.target_shape)
        if -1 in target:
            rest = inputs.get_shape().as_list()[1:]
            known = math.prod(d for d in target if d != -1)
            if None in rest or known == 0 or math.prod(rest) % known:
                raise ValueError(f"Reshape: total size of new array must be unchanged "
                                 f"(layer {self.name!r}: input shape "
                                 f"{inputs.get_shape().as_list()}, target {self.target_shape})")
            target[target.index(-1)] = math.prod(rest) // known
        return array_ops.reshape(inputs, [-1, *target])


class Permute(Layer):
    """The axes after the batch's reordered by ``dims`` (counted from 1)."""

    def __init__(self, dims, **kwargs) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Invalid permutation `dims` for Permute Layer: {dims}. The set of "
                             f"indices in `dims` must be consecutive and start from 1.")

    def call(self, inputs) -> Symbol:
        return array_ops.transpose(inputs, [0, *self.dims])


class ZeroPadding2D(Layer):
    """Zeros around the rows and columns: ``padding`` an int, ``(rows, cols)`` (symmetric)
    or ``((top, bottom), (left, right))``."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs) -> None:
        super().__init__(**kwargs)
        if isinstance(padding, int):
            padding = ((padding, padding), (padding, padding))
        elif all(isinstance(p, int) for p in padding):
            padding = tuple((p, p) for p in tf_layers._tuple(padding, "padding"))
        self.padding = tuple(tf_layers._tuple(p, "padding") for p in padding)
        if len(self.padding) != 2:
            raise ValueError(f"`padding` should have two elements. Found: {padding}")
        self.data_format = tf_layers._data_format(data_format)
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs) -> Symbol:
        spatial = [list(p) for p in self.padding]
        pads = ([[0, 0], [0, 0], *spatial] if self.data_format == "channels_first"
                else [[0, 0], *spatial, [0, 0]])
        return array_ops.pad(inputs, pads)


# -- merging -----------------------------------------------------------------------------------
class _Merge(Layer):
    """A layer of a list of tensors of one shape (broadcast as TensorFlow's ops do)."""

    _arity = None

    def _check_inputs(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2 or (
                self._arity and len(inputs) != self._arity):
            wanted = f"exactly {self._arity}" if self._arity else "at least 2"
            raise ValueError(f"A `{type(self).__name__}` layer should be called on a list of "
                             f"{wanted} inputs, got {inputs!r}")

    def call(self, inputs) -> Symbol:
        self._check_inputs(inputs)
        result = inputs[0]
        for tensor in inputs[1:]:
            result = self._merge(result, tensor)
        return result / float(len(inputs)) if isinstance(self, Average) else result


class Add(_Merge):
    """The sum of the inputs."""

    @staticmethod
    def _merge(x, y):
        return x + y


class Average(Add):
    """The mean of the inputs."""


class Multiply(_Merge):
    """The product of the inputs."""

    @staticmethod
    def _merge(x, y):
        return x * y


class Subtract(_Merge):
    """``inputs[0] - inputs[1]``."""

    _arity = 2

    @staticmethod
    def _merge(x, y):
        return x - y


class Maximum(_Merge):
    """The elementwise maximum of the inputs."""

    _merge = staticmethod(api.maximum)


class Minimum(_Merge):
    """The elementwise minimum of the inputs."""

    _merge = staticmethod(api.minimum)


class Concatenate(_Merge):
    """The inputs joined along ``axis``."""

    def __init__(self, axis=-1, **kwargs) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs) -> Symbol:
        self._check_inputs(inputs)
        return array_ops.concat(list(inputs), self.axis)


# Keras' other names of the same classes
AvgPool1D, AvgPool2D, MaxPool1D, MaxPool2D = (AveragePooling1D, AveragePooling2D, MaxPooling1D,
                                              MaxPooling2D)
Convolution1D, Convolution2D, Convolution2DTranspose = Conv1D, Conv2D, Conv2DTranspose
SeparableConvolution2D = SeparableConv2D


def add(inputs, **kwargs):
    """``Add(**kwargs)(inputs)``."""
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """``Subtract(**kwargs)(inputs)``."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """``Multiply(**kwargs)(inputs)``."""
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """``Average(**kwargs)(inputs)``."""
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    """``Maximum(**kwargs)(inputs)``."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    """``Minimum(**kwargs)(inputs)``."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis, **kwargs)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def __getattr__(name):
    raise unsupported("tf.keras.layers.", "tinyflow.keras.layers", name,
                      {"tf.keras.layers.": __all__})


def __dir__():
    return sorted(__all__)
