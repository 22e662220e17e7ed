"""``tf.contrib.layers`` as TensorFlow 1.15 has it, the part TF-1 programs use most: the
initializers ``xavier_initializer`` (``xavier_initializer_conv2d``) and contrib's own
``variance_scaling_initializer`` (its normal draws use the standard deviation
``sqrt(1.3 * factor / n)``, cut at two deviations), ``flatten``, ``fully_connected`` (variables
``<scope>/weights`` and ``<scope>/biases``, scope ``fully_connected``, ``fully_connected_1``...
by default), ``l1_regularizer`` / ``l2_regularizer`` and ``apply_regularization``; the layers
of TF-Slim (``conv2d``, the pools, ``batch_norm``, ``dropout``,
``repeat``, ``stack``...), every layer taking defaults from ``tf.contrib.framework.arg_scope``.
Any other ``tf.contrib.layers.X`` is an AttributeError saying TinyFlow does not support it.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable

from ...nnvm.symbol import Symbol
from .. import array_ops as _array_ops
from .. import layers as _layers
from .. import nn as _nn
from ..api import abs as _abs
from ..api import add_n, constant, control_dependencies, identity, matmul, multiply, reduce_sum
from ..dtypes import as_dtype, float32
from ..framework import add_to_collection, get_collection, name_scope
from ..init_ops import ones_initializer, zeros_initializer
from ..layers import flatten as _layers_flatten
from ..math_ops import convert_to_tensor, tensordot
from ..nn.functions import bias_add, l2_loss, relu
from ..random_ops import random_uniform, truncated_normal
from ..variable_scope import get_variable, variable_scope
from .framework import add_arg_scope
from .optimizers import OPTIMIZER_CLS_NAMES, OPTIMIZER_SUMMARIES, optimize_loss

__all__ = [
    "OPTIMIZER_CLS_NAMES",
    "OPTIMIZER_SUMMARIES",
    "apply_regularization",
    "avg_pool2d",
    "batch_norm",
    "conv2d",
    "conv2d_transpose",
    "convolution2d",
    "convolution2d_transpose",
    "dropout",
    "embed_sequence",
    "flatten",
    "fully_connected",
    "l1_regularizer",
    "l2_regularizer",
    "layer_norm",
    "max_pool2d",
    "one_hot_encoding",
    "optimize_loss",
    "repeat",
    "separable_conv2d",
    "separable_convolution2d",
    "softmax",
    "stack",
    "variance_scaling_initializer",
    "xavier_initializer",
    "xavier_initializer_conv2d",
]

_MODES = ("FAN_IN", "FAN_OUT", "FAN_AVG")
_ZEROS = zeros_initializer()  # fully_connected's default biases_initializer (stateless)


def _fans(shape) -> tuple[float, float]:
    """contrib's count: the last two dimensions, both times the leading ones (a vector ``[n]``:
    n and n)."""
    shape = [float(d) for d in shape]
    fan_in = shape[-2] if len(shape) > 1 else shape[-1]
    fan_out = shape[-1]
    for dim in shape[:-2]:
        fan_in, fan_out = fan_in * dim, fan_out * dim
    return fan_in, fan_out


def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None,
                                 dtype=float32) -> Callable:
    """An initializer of variance about ``factor / n``, ``n`` being the fan in, the fan out or
    their mean (``mode``): ``U(-a, a)`` with ``a = sqrt(3 factor / n)`` when ``uniform``, else a
    normal of standard deviation ``sqrt(1.3 factor / n)`` cut at two deviations (contrib's
    constant 1.3, not ``tf.variance_scaling_initializer``'s 1 / 0.8796^2).

    Parameters
    ----------
    factor : float
        The multiplicative factor (2.0: He et al.).
    mode : str
        ``"FAN_IN"``, ``"FAN_OUT"`` or ``"FAN_AVG"``.
    uniform : bool
        Uniform rather than truncated-normal draws.
    seed : int, optional
        The op-level seed of the draws.
    dtype : DType
        A floating dtype, the default of the values made.

    Returns
    -------
    callable
        ``init(shape, dtype=dtype, partition_info=None) -> Symbol``.

    Raises
    ------
    TypeError
        A dtype that is not floating, or another mode (as TensorFlow).
    """
    if not as_dtype(dtype).is_floating:
        raise TypeError("Cannot create initializer for non-floating point type.")
    if mode not in _MODES:
        raise TypeError(f"Unknown mode {mode} [FAN_IN, FAN_OUT, FAN_AVG]")

    def _initializer(shape, dtype=dtype, partition_info=None):
        dtype = as_dtype(dtype)
        if not dtype.is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        fan_in, fan_out = _fans(shape)
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]
        if uniform:
            limit = math.sqrt(3.0 * factor / n)
            return random_uniform(shape, -limit, limit, dtype, seed=seed)
        return truncated_normal(shape, 0.0, math.sqrt(1.3 * factor / n), dtype, seed=seed)

    return _initializer


def xavier_initializer(uniform=True, seed=None, dtype=float32) -> Callable:
    """Glorot's initializer: ``U(-a, a)`` with ``a = sqrt(6 / (fan_in + fan_out))`` (as
    ``tf.glorot_uniform_initializer``), or with ``uniform=False`` a normal of standard
    deviation ``sqrt(2.6 / (fan_in + fan_out))`` cut at two deviations.

    Returns
    -------
    callable
        ``variance_scaling_initializer(1.0, "FAN_AVG", uniform, seed, dtype)``.
    """
    return variance_scaling_initializer(1.0, "FAN_AVG", uniform, seed, dtype)


xavier_initializer_conv2d = xavier_initializer


@add_arg_scope
def flatten(inputs, outputs_collections=None, scope=None) -> Symbol:
    """``inputs`` as ``[batch, everything else]`` (``tf.layers.flatten``), its ops under the
    name scope ``scope`` (default ``Flatten``); added to ``outputs_collections``."""
    with name_scope(scope, "Flatten"):
        outputs = _layers_flatten(convert_to_tensor(inputs))
    for key in outputs_collections or ():
        add_to_collection(key, outputs)
    return outputs


def _collections(variables_collections, which) -> list:
    """TF's model variables plus the collections asked for this variable (a list for all, or a
    dict by ``"weights"`` / ``"biases"``)."""
    asked = variables_collections or []
    if isinstance(asked, dict):
        asked = asked.get(which) or []
    if isinstance(asked, str):
        asked = [asked]
    return ["variables", "model_variables", *asked]


def _check_fully_connected(inputs, num_outputs) -> int:
    """The input's last dimension, after TensorFlow's checks."""
    if isinstance(num_outputs, bool) or not isinstance(num_outputs, numbers.Integral):
        raise ValueError(  # noqa: TRY004 - TensorFlow's ValueError
            f"num_outputs type should be one of [int], got {type(num_outputs)}.")
    shape = inputs.get_shape()
    if shape.ndims is None or shape.ndims < 2 or shape[-1].value is None:
        raise ValueError(f"The last dimension of the inputs to `Dense` should be defined "
                         f"(inputs of rank 2 or more). Found shape {shape}.")
    return int(shape[-1].value)


def _affine(inputs, units, num_outputs, weights_initializer, weights_regularizer,
            biases_initializer, biases_regularizer, trainable, variables_collections) -> Symbol:
    """``inputs @ weights + biases`` with the variables made in the open variable scope."""
    weights = get_variable("weights", [units, num_outputs], dtype=inputs.dtype,
                           initializer=weights_initializer or xavier_initializer(),
                           regularizer=weights_regularizer, trainable=trainable,
                           collections=_collections(variables_collections, "weights"))
    if inputs.get_shape().ndims == 2:
        outputs = matmul(inputs, weights)
    else:
        outputs = tensordot(inputs, weights, [[inputs.get_shape().ndims - 1], [0]])
    if biases_initializer is not None:
        biases = get_variable("biases", [num_outputs], dtype=inputs.dtype,
                              initializer=biases_initializer,
                              regularizer=biases_regularizer, trainable=trainable,
                              collections=_collections(variables_collections, "biases"))
        outputs = bias_add(outputs, biases)
    return outputs


def _normalize_and_activate(outputs, normalizer_fn, normalizer_params, activation_fn,
                           outputs_collections) -> Symbol:
    """A contrib layer's tail: ``normalizer_fn(outputs, **normalizer_params)``, then
    ``activation_fn``, the result added to ``outputs_collections``."""
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    if activation_fn is not None:
        outputs = activation_fn(outputs)
    for key in outputs_collections or ():
        add_to_collection(key, outputs)
    return outputs


@add_arg_scope
def fully_connected(inputs, num_outputs, activation_fn=relu, normalizer_fn=None,
                    normalizer_params=None, weights_initializer=None, weights_regularizer=None,
                    biases_initializer=_ZEROS, biases_regularizer=None, reuse=None,
                    variables_collections=None, outputs_collections=None, trainable=True,
                    scope=None) -> Symbol:
    """``activation_fn(inputs @ weights + biases)``: TensorFlow 1.15's contrib layer.

    Parameters
    ----------
    inputs : Symbol
        Rank 2 or more, the last dimension known (rank > 2: contracted on the last axis).
    num_outputs : int
        The number of output units.
    activation_fn : callable or None
        Default ``tf.nn.relu``; None is linear.
    normalizer_fn : callable, optional
        ``normalizer_fn(outputs, **normalizer_params)`` before the activation (no biases then).
    normalizer_params : dict, optional
    weights_initializer : callable, optional
        Default ``xavier_initializer()``.
    weights_regularizer, biases_regularizer : callable, optional
        ``f(variable)`` -> a loss added to ``tf.GraphKeys.REGULARIZATION_LOSSES``.
    biases_initializer : callable or None
        Default ``tf.zeros_initializer()``; None makes no biases.
    reuse : bool, optional
        Reuse the scope's variables (``scope`` must be given).
    variables_collections, outputs_collections : list or dict, optional
        More collections for the variables (a dict by ``"weights"`` / ``"biases"``) and the
        output.
    trainable : bool
        Add the variables to ``tf.GraphKeys.TRAINABLE_VARIABLES``.
    scope : str, optional
        The variable scope: variables ``<scope>/weights`` and ``<scope>/biases`` (default
        ``fully_connected``, ``fully_connected_1``...).

    Returns
    -------
    Symbol
        The output, ``inputs``' shape with ``num_outputs`` as its last dimension.

    Raises
    ------
    ValueError
        ``num_outputs`` not an int, the inputs' last dimension unknown or their rank below 2,
        and TensorFlow's reuse errors of ``tf.get_variable``.
    """
    with variable_scope(scope, default_name="fully_connected", reuse=reuse):
        inputs = convert_to_tensor(inputs)
        units = _check_fully_connected(inputs, num_outputs)
        outputs = _affine(inputs, units, num_outputs, weights_initializer, weights_regularizer,
                          None if normalizer_fn else biases_initializer, biases_regularizer,
                          trainable, variables_collections)
        return _normalize_and_activate(outputs, normalizer_fn, normalizer_params,
                                      activation_fn, outputs_collections)


def _regularizer(scale, kind, penalty):
    """``weights -> scale * penalty(weights)`` under the name scope ``<kind>_regularizer``, or a
    function giving None for a zero scale (TensorFlow's checks)."""
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"scale cannot be an integer: {scale}")  # noqa: TRY004 - TF's
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale:g}.")
        if scale == 0.0:
            return lambda _: None

    def regularize(weights):
        with name_scope(None, f"{kind}_regularizer"):
            return multiply(constant(scale, dtype=weights.dtype, name="scale"),
                            penalty(weights))

    return regularize


def l1_regularizer(scale, scope=None) -> Callable:
    """``weights -> scale * sum(|weights|)``; a zero ``scale`` gives a function returning None.

    Raises
    ------
    ValueError
        An integer or negative ``scale``.
    """
    return _regularizer(scale, "l1", lambda w: reduce_sum(_abs(w)))


def l2_regularizer(scale, scope=None) -> Callable:
    """``weights -> scale * tf.nn.l2_loss(weights)`` (``scale * sum(weights ** 2) / 2``); a zero
    ``scale`` gives a function returning None.

    Raises
    ------
    ValueError
        An integer or negative ``scale``.
    """
    return _regularizer(scale, "l2", l2_loss)


def apply_regularization(regularizer, weights_list=None) -> Symbol:
    """The sum of ``regularizer(w)`` over ``weights_list`` (default: the ``tf.GraphKeys.WEIGHTS``
    collection), a None penalty counting 0; the sum is added to
    ``tf.GraphKeys.REGULARIZATION_LOSSES``.

    Raises
    ------
    ValueError
        No weights, or a penalty that is not a scalar.
    """
    if not weights_list:
        weights_list = get_collection("weights")
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with name_scope("get_regularization_penalty"):
        penalties = [regularizer(w) for w in weights_list]
        penalties = [constant(0.0) if p is None else p for p in penalties]
        for p in penalties:
            if p.get_shape().ndims != 0:
                raise ValueError(f"regularizer must return a scalar Tensor instead of a Tensor "
                                 f"with rank {p.get_shape().ndims}.")
        total = add_n(penalties)
    add_to_collection("regularization_losses", total)
    return total


# -- TF-Slim's layers (TF 1.15's contrib/layers/python/layers/layers.py) ---------------------
def _pair(value, what) -> tuple:
    """An int or a pair as ``(height, width)``."""
    pair = tuple(value) if isinstance(value, (list, tuple)) else (value, value)
    if len(pair) != 2 or not all(isinstance(v, numbers.Integral) for v in pair):
        raise ValueError(f"{what} must be an int or a list of 2 ints, got {value!r}")
    return int(pair[0]), int(pair[1])


def _is_nchw(data_format) -> bool:
    if data_format not in (None, "NHWC", "NCHW"):
        raise ValueError(f"data_format has to be either NCHW or NHWC, got {data_format!r}")
    return data_format == "NCHW"


def _channels(inputs, nchw, layer) -> int:
    """The channels of rank-4 ``inputs``, which must be known."""
    shape = inputs.get_shape()
    if shape.ndims != 4:
        raise ValueError(f"{layer}: inputs of rank 4 expected, got shape {shape}")
    channels = shape[1 if nchw else 3].value
    if channels is None:
        raise ValueError(f"{layer}: the number of input channels must be known (shape {shape})")
    return int(channels)


def _weights(name, shape, dtype, initializer, regularizer, trainable, collections) -> Symbol:
    return get_variable(name, shape, dtype=dtype, initializer=initializer or xavier_initializer(),
                        regularizer=regularizer, trainable=trainable,
                        collections=_collections(collections, "weights"))


def _add_biases(outputs, size, nchw, initializer, regularizer, trainable, collections):
    if initializer is None:
        return outputs
    biases = get_variable("biases", [size], dtype=outputs.dtype, initializer=initializer,
                          regularizer=regularizer, trainable=trainable,
                          collections=_collections(collections, "biases"))
    return bias_add(outputs, biases, data_format="NCHW" if nchw else "NHWC")


def _spatial(values, nchw) -> list:
    return [1, 1, *values] if nchw else [1, *values, 1]


@add_arg_scope
def convolution2d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
                  rate=1, activation_fn=relu, normalizer_fn=None, normalizer_params=None,
                  weights_initializer=None, weights_regularizer=None, biases_initializer=_ZEROS,
                  biases_regularizer=None, reuse=None, variables_collections=None,
                  outputs_collections=None, trainable=True, scope=None) -> Symbol:
    """TF-Slim's 2-D convolution: variables ``<scope>/weights`` ``[kh, kw, in, num_outputs]``
    and ``<scope>/biases`` (scope ``Conv``, ``Conv_1``... by default; no biases with a
    ``normalizer_fn``), then ``normalizer_fn`` and ``activation_fn`` (relu), as
    :func:`fully_connected`.  ``rate`` dilates the kernel (strides must be 1 then).

    Raises
    ------
    ValueError
        Inputs not of rank 4 or of unknown channels, a bad ``data_format`` or kernel size.
    """
    with variable_scope(scope, default_name="Conv", reuse=reuse):
        inputs, nchw = convert_to_tensor(inputs), _is_nchw(data_format)
        channels = _channels(inputs, nchw, "conv2d")
        weights = _weights("weights", [*_pair(kernel_size, "kernel_size"), channels, num_outputs],
                           inputs.dtype, weights_initializer, weights_regularizer, trainable,
                           variables_collections)
        outputs = _nn.conv2d(inputs, weights, _spatial(_pair(stride, "stride"), nchw), padding,
                             data_format="NCHW" if nchw else "NHWC",
                             dilations=_spatial(_pair(rate, "rate"), nchw))
        outputs = _add_biases(outputs, num_outputs, nchw,
                              None if normalizer_fn else biases_initializer, biases_regularizer,
                              trainable, variables_collections)
        return _normalize_and_activate(outputs, normalizer_fn, normalizer_params,
                                      activation_fn, outputs_collections)


conv2d = convolution2d


@add_arg_scope
def convolution2d_transpose(inputs, num_outputs, kernel_size, stride=1, padding="SAME",
                            data_format="NHWC", activation_fn=relu, normalizer_fn=None,
                            normalizer_params=None, weights_initializer=None,
                            weights_regularizer=None, biases_initializer=_ZEROS,
                            biases_regularizer=None, reuse=None, variables_collections=None,
                            outputs_collections=None, trainable=True, scope=None) -> Symbol:
    """The transpose of :func:`convolution2d` (``tf.nn.conv2d_transpose``): weights ``[kh,
    kw, num_outputs, in]`` in scope ``Conv2d_transpose``; output height ``h * stride``
    (SAME) or ``h * stride + max(kh - stride, 0)`` (VALID), likewise the width."""
    with variable_scope(scope, default_name="Conv2d_transpose", reuse=reuse):
        inputs, nchw = convert_to_tensor(inputs), _is_nchw(data_format)
        channels, kernel = _channels(inputs, nchw, "conv2d_transpose"), _pair(kernel_size, "kernel_size")
        weights = _weights("weights", [*kernel, num_outputs, channels], inputs.dtype,
                           weights_initializer, weights_regularizer, trainable,
                           variables_collections)
        shape, strides = inputs.get_shape().as_list(), _pair(stride, "stride")
        sizes = shape[2:] if nchw else shape[1:3]
        if None in sizes:
            raise ValueError(f"conv2d_transpose: the inputs' height and width must be known "
                             f"(shape {shape})")
        sizes = [d * s + (max(k - s, 0) if padding.upper() == "VALID" else 0)
                 for d, k, s in zip(sizes, kernel, strides)]
        batch = shape[0] if shape[0] is not None else _array_ops.shape(inputs)[0]
        outputs = _nn.conv2d_transpose(
            inputs, weights, _array_ops.stack([batch, num_outputs, *sizes] if nchw else
                                              [batch, *sizes, num_outputs]),
            _spatial(strides, nchw), padding, data_format="NCHW" if nchw else "NHWC")
        outputs = _add_biases(outputs, num_outputs, nchw,
                              None if normalizer_fn else biases_initializer, biases_regularizer,
                              trainable, variables_collections)
        return _normalize_and_activate(outputs, normalizer_fn, normalizer_params,
                                      activation_fn, outputs_collections)


conv2d_transpose = convolution2d_transpose


@add_arg_scope
def separable_convolution2d(inputs, num_outputs, kernel_size, depth_multiplier=1, stride=1,
                            padding="SAME", data_format="NHWC", rate=1, activation_fn=relu,
                            normalizer_fn=None, normalizer_params=None,
                            weights_initializer=None, pointwise_initializer=None,
                            weights_regularizer=None, biases_initializer=_ZEROS,
                            biases_regularizer=None, reuse=None, variables_collections=None,
                            outputs_collections=None, trainable=True, scope=None) -> Symbol:
    """A depthwise convolution (``<scope>/depthwise_weights`` ``[kh, kw, in,
    depth_multiplier]``) then, unless ``num_outputs`` is None, a 1x1 one
    (``<scope>/pointwise_weights`` ``[1, 1, in * depth_multiplier, num_outputs]``); scope
    ``SeparableConv2d``; biases, normalizer and activation as :func:`convolution2d`."""
    with variable_scope(scope, default_name="SeparableConv2d", reuse=reuse):
        inputs, nchw = convert_to_tensor(inputs), _is_nchw(data_format)
        channels = _channels(inputs, nchw, "separable_conv2d")
        depthwise = _weights("depthwise_weights",
                             [*_pair(kernel_size, "kernel_size"), channels, depth_multiplier],
                             inputs.dtype, weights_initializer, weights_regularizer, trainable,
                             variables_collections)
        strides, fmt = _spatial(_pair(stride, "stride"), nchw), "NCHW" if nchw else "NHWC"
        rates = _pair(rate, "rate")
        if num_outputs is None:
            outputs = _nn.depthwise_conv2d(inputs, depthwise, strides, padding, rate=rates,
                                           data_format=fmt)
            num_outputs = channels * depth_multiplier
        else:
            pointwise = _weights("pointwise_weights",
                                 [1, 1, channels * depth_multiplier, num_outputs], inputs.dtype,
                                 pointwise_initializer or weights_initializer,
                                 weights_regularizer, trainable, variables_collections)
            outputs = _nn.separable_conv2d(inputs, depthwise, pointwise, strides, padding,
                                           rate=rates, data_format=fmt)
        outputs = _add_biases(outputs, num_outputs, nchw,
                              None if normalizer_fn else biases_initializer, biases_regularizer,
                              trainable, variables_collections)
        return _normalize_and_activate(outputs, normalizer_fn, normalizer_params,
                                      activation_fn, outputs_collections)


separable_conv2d = separable_convolution2d


def _pool(pool, default_name, inputs, kernel_size, stride, padding, data_format,
          outputs_collections, scope) -> Symbol:
    nchw = _is_nchw(data_format)
    with name_scope(scope, default_name):
        outputs = pool(convert_to_tensor(inputs), _spatial(_pair(kernel_size, "kernel_size"), nchw),
                       _spatial(_pair(stride, "stride"), nchw), padding,
                       data_format="NCHW" if nchw else "NHWC")
    for key in outputs_collections or ():
        add_to_collection(key, outputs)
    return outputs


@add_arg_scope
def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC",
               outputs_collections=None, scope=None) -> Symbol:
    """``tf.nn.max_pool`` of windows ``kernel_size`` every ``stride`` (ops under
    ``MaxPool2D``)."""
    return _pool(_nn.max_pool, "MaxPool2D", inputs, kernel_size, stride, padding,
                 data_format, outputs_collections, scope)


@add_arg_scope
def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC",
               outputs_collections=None, scope=None) -> Symbol:
    """``tf.nn.avg_pool`` of windows ``kernel_size`` every ``stride`` (ops under
    ``AvgPool2D``)."""
    return _pool(_nn.avg_pool, "AvgPool2D", inputs, kernel_size, stride, padding,
                 data_format, outputs_collections, scope)


@add_arg_scope
def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True,
            outputs_collections=None, scope=None, seed=None) -> Symbol:
    """When ``is_training`` (a bool or a boolean tensor), each value kept with probability
    ``keep_prob`` and scaled by ``1 / keep_prob``; else the inputs (ops under ``Dropout``)."""
    with variable_scope(scope, default_name="Dropout"):
        outputs = _layers.dropout(convert_to_tensor(inputs), rate=1 - keep_prob,
                                  noise_shape=noise_shape, seed=seed, training=is_training)
    for key in outputs_collections or ():
        add_to_collection(key, outputs)
    return outputs


class _BatchNorm(_layers.BatchNormalization):
    """tf.layers' batch normalization with contrib's update collections (None: the updates
    run with the output) and fused kernel's moving variance for inputs of rank 2 or 4."""

    def __init__(self, updates_collections, fused, **kwargs) -> None:
        super().__init__(**kwargs)
        self.updates_collections, self.fusable = updates_collections, fused is not False

    def build(self, input_shape) -> None:
        super().build(input_shape)
        self.fused = self.fusable and len(input_shape) in (2, 4)  # contrib's fused path

    def add_update(self, updates) -> None:
        keys = self.updates_collections
        for update in updates:
            self._updates.append(update)
            for key in [keys] if isinstance(keys, str) else keys or ():
                add_to_collection(key, update)


def _check_batch_norm(batch_weights, zero_debias_moving_mean, renorm, adjustment) -> None:
    given = [name for name, value in (("batch_weights", batch_weights),
                                      ("zero_debias_moving_mean", zero_debias_moving_mean),
                                      ("renorm", renorm), ("adjustment", adjustment)) if value]
    if given:
        raise ValueError(f"batch_norm: {', '.join(given)} not supported by TinyFlow")


@add_arg_scope
def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001, activation_fn=None,
               param_initializers=None, param_regularizers=None,
               updates_collections="update_ops", is_training=True, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format="NHWC",
               zero_debias_moving_mean=False, scope=None, renorm=False, renorm_clipping=None,
               renorm_decay=0.99, adjustment=None) -> Symbol:
    """TF-Slim's batch normalization over the last axis (NCHW: axis 1): variables
    ``<scope>/beta`` (``center``), ``<scope>/gamma`` (``scale``, default off),
    ``<scope>/moving_mean`` and ``<scope>/moving_variance`` (scope ``BatchNorm``); with
    ``is_training`` (a bool or a boolean tensor) the batch's statistics, and the moving
    averages ``m -= (m - batch) * (1 - decay)`` as update ops in ``updates_collections`` (None:
    run with the output; the variance unbiased for inputs of rank 2 or 4, as TF's fused
    kernel), else the moving statistics.

    Raises
    ------
    ValueError
        ``batch_weights``, ``zero_debias_moving_mean``, ``renorm`` or ``adjustment`` given.
    """
    del renorm_clipping, renorm_decay  # only read with renorm, which is refused
    _check_batch_norm(batch_weights, zero_debias_moving_mean, renorm, adjustment)
    initializers, regularizers = param_initializers or {}, param_regularizers or {}
    with variable_scope(scope, default_name="BatchNorm", reuse=reuse) as found:
        layer = _BatchNorm(
            updates_collections, fused, axis=1 if _is_nchw(data_format) else -1,
            momentum=decay, epsilon=epsilon, center=center, scale=scale,
            beta_initializer=initializers.get("beta"),
            gamma_initializer=initializers.get("gamma"),
            moving_mean_initializer=initializers.get("moving_mean"),
            moving_variance_initializer=initializers.get("moving_variance"),
            beta_regularizer=regularizers.get("beta"),
            gamma_regularizer=regularizers.get("gamma"), trainable=trainable,
            _scope=found, _reuse=reuse)
        outputs = layer.apply(convert_to_tensor(inputs), training=is_training)
        for name in ("beta", "gamma", "moving_mean", "moving_variance"):
            variable = getattr(layer, name)
            for key in _collections(variables_collections, name)[1:] if variable else ():
                if not any(v is variable for v in get_collection(key)):
                    add_to_collection(key, variable)
        if updates_collections is None and layer.updates:
            with control_dependencies(layer.updates):
                outputs = identity(outputs)
        return _normalize_and_activate(outputs, None, None, activation_fn, outputs_collections)


@add_arg_scope
def layer_norm(inputs, center=True, scale=True, activation_fn=None, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               begin_norm_axis=1, begin_params_axis=-1, scope=None) -> Symbol:
    """``(x - mean) / sqrt(variance + 1e-12) * gamma + beta``, the statistics over the axes
    from ``begin_norm_axis`` on, ``beta`` / ``gamma`` of the shape of the axes from
    ``begin_params_axis`` on (scope ``LayerNorm``).

    Raises
    ------
    ValueError
        Inputs of unknown rank, axes out of range or a parameter shape not known.
    """
    with variable_scope(scope, default_name="LayerNorm", reuse=reuse):
        inputs = convert_to_tensor(inputs)
        shape = inputs.get_shape()
        if shape.ndims is None:
            raise ValueError(f"Inputs {inputs.name} has undefined rank.")
        rank = shape.ndims
        norm_axis = begin_norm_axis + rank if begin_norm_axis < 0 else begin_norm_axis
        params_axis = begin_params_axis + rank if begin_params_axis < 0 else begin_params_axis
        if not 0 <= params_axis < rank or not 0 <= norm_axis < rank:
            raise ValueError(f"begin_params_axis ({begin_params_axis}) and begin_norm_axis "
                             f"({begin_norm_axis}) must be < rank(inputs) ({rank})")
        params_shape = shape[params_axis:]
        if not params_shape.is_fully_defined():
            raise ValueError(f"Inputs {inputs.name}: shape[{params_axis}:] is not fully "
                             f"defined: {shape}")
        params = {}
        for name, wanted, init in (("beta", center, _ZEROS), ("gamma", scale, ones_initializer())):
            params[name] = get_variable(
                name, params_shape.as_list(), dtype=inputs.dtype, initializer=init,
                trainable=trainable, collections=_collections(variables_collections, name),
            ) if wanted else None
        mean, variance = _nn.moments(inputs, list(range(norm_axis, rank)), keep_dims=True)
        outputs = _nn.batch_normalization(inputs, mean, variance, params["beta"],
                                          params["gamma"], 1e-12)
        return _normalize_and_activate(outputs, None, None, activation_fn, outputs_collections)


def embed_sequence(ids, vocab_size=None, embed_dim=None, unique=False, initializer=None,
                   regularizer=None, trainable=True, scope=None, reuse=None) -> Symbol:
    """The rows of ``<scope>/embeddings`` ``[vocab_size, embed_dim]`` (a model variable, scope
    ``EmbedSequence``) at ``ids``: shape ``ids.shape + [embed_dim]``.

    Raises
    ------
    ValueError
        ``vocab_size`` or ``embed_dim`` not given.
    """
    del unique  # TF's choice of gather kernel; the values are the same
    if not (vocab_size and embed_dim):
        raise ValueError("Must specify vocab size and embedding dimension when not "
                         f"reusing. Got vocab_size={vocab_size} and embed_dim={embed_dim}")
    with variable_scope(scope, default_name="EmbedSequence", reuse=reuse):
        embeddings = get_variable("embeddings", [vocab_size, embed_dim], initializer=initializer,
                                  regularizer=regularizer, trainable=trainable,
                                  collections=_collections(None, "embeddings"))
        return _nn.embedding_lookup(embeddings, ids)


@add_arg_scope
def one_hot_encoding(labels, num_classes, on_value=1.0, off_value=0.0, outputs_collections=None,
                     scope=None) -> Symbol:
    """``tf.one_hot(labels, num_classes, on_value, off_value)`` under ``OneHotEncoding``."""
    with name_scope(scope, "OneHotEncoding"):
        outputs = _array_ops.one_hot(convert_to_tensor(labels), num_classes, on_value=on_value,
                                     off_value=off_value)
    for key in outputs_collections or ():
        add_to_collection(key, outputs)
    return outputs


def softmax(logits, scope=None) -> Symbol:
    """``tf.nn.softmax`` over the last axis, under the variable scope ``softmax``."""
    with variable_scope(scope, default_name="softmax"):
        return _nn.softmax(convert_to_tensor(logits))


def _layer_scope(layer, fallback) -> str:
    """TF's name of the layers' scopes: the function's ``__name__`` (conv2d's is
    ``convolution2d``), a partial's function's, else ``fallback``."""
    return getattr(layer, "__name__", None) or getattr(getattr(layer, "func", None),
                                                       "__name__", fallback)


def repeat(inputs, repetitions, layer, *args, **kwargs) -> Symbol:
    """``layer`` applied ``repetitions`` times, its scopes ``<scope>/<scope>_1``,
    ``<scope>/<scope>_2``... (``scope`` a keyword; default ``Repeat/<layer name>_1``...)."""
    scope = kwargs.pop("scope", None)
    with variable_scope(scope, default_name="Repeat"):
        outputs = convert_to_tensor(inputs)
        name = scope or _layer_scope(layer, "repeat")
        for i in range(repetitions):
            outputs = layer(outputs, *args, **{**kwargs, "scope": f"{name}_{i + 1}"})
    return outputs


def stack(inputs, layer, stack_args, **kwargs) -> Symbol:
    """``layer`` applied once per entry of ``stack_args`` (a tuple: its positional arguments,
    else the one argument), scopes as :func:`repeat` 's (default ``Stack``).

    Raises
    ------
    ValueError
        ``stack_args`` not a list or tuple.
    """
    scope = kwargs.pop("scope", None)
    if not isinstance(stack_args, (list, tuple)):
        raise ValueError("stack_args need to be a list or tuple")  # noqa: TRY004 - TF's
    with variable_scope(scope, default_name="Stack"):
        outputs = convert_to_tensor(inputs)
        name = scope or _layer_scope(layer, "stack")
        for i, layer_args in enumerate(stack_args):
            layer_args = layer_args if isinstance(layer_args, (list, tuple)) else [layer_args]
            outputs = layer(outputs, *layer_args, **{**kwargs, "scope": f"{name}_{i + 1}"})
    return outputs


def __getattr__(name):
    raise AttributeError(f"tf.contrib.layers.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib.layers' has no attribute {name!r})")
