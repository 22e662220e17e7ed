"""``tf.contrib.layers`` as TensorFlow 1.15 has it, the part TF-1 programs use most: the
initializers ``xavier_initializer`` (``xavier_initializer_conv2d``) and contrib's own
``variance_scaling_initializer`` (its normal draws use the standard deviation
``sqrt(1.3 * factor / n)``, cut at two deviations), ``flatten``, ``fully_connected`` (variables
``<scope>/weights`` and ``<scope>/biases``, scope ``fully_connected``, ``fully_connected_1``...
by default), ``l1_regularizer`` / ``l2_regularizer`` and ``apply_regularization``.

``fully_connected``'s ``normalizer_fn`` is refused (TinyFlow has no ``contrib.layers.batch_norm``);
any other ``tf.contrib.layers.X`` is an AttributeError saying TinyFlow does not support it.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable

from ...nnvm.symbol import Symbol
from ..api import abs as _abs
from ..api import add_n, constant, matmul, multiply, reduce_sum
from ..dtypes import as_dtype, float32
from ..framework import add_to_collection, get_collection, name_scope
from ..init_ops import zeros_initializer
from ..layers import flatten as _layers_flatten
from ..math_ops import convert_to_tensor, tensordot
from ..nn.functions import bias_add, l2_loss, relu
from ..random_ops import random_uniform, truncated_normal
from ..variable_scope import get_variable, variable_scope

__all__ = [
    "apply_regularization",
    "flatten",
    "fully_connected",
    "l1_regularizer",
    "l2_regularizer",
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


def _check_fully_connected(inputs, num_outputs, normalizer_fn) -> int:
    """The input's last dimension, after TensorFlow's checks."""
    if isinstance(num_outputs, bool) or not isinstance(num_outputs, numbers.Integral):
        raise ValueError(  # noqa: TRY004 - TensorFlow's ValueError
            f"num_outputs type should be one of [int], got {type(num_outputs)}.")
    if normalizer_fn is not None:
        raise ValueError("fully_connected: normalizer_fn is not supported by TinyFlow "
                         "(tf.contrib.layers.batch_norm is not there); apply "
                         "tf.layers.batch_normalization to the output instead")
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
    normalizer_fn, normalizer_params
        Not supported: a ValueError when ``normalizer_fn`` is given.
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
        ``num_outputs`` not an int, ``normalizer_fn`` given, the inputs' last dimension unknown
        or their rank below 2, and TensorFlow's reuse errors of ``tf.get_variable``.
    """
    del normalizer_params  # only read with normalizer_fn, which is refused
    with variable_scope(scope, default_name="fully_connected", reuse=reuse):
        inputs = convert_to_tensor(inputs)
        units = _check_fully_connected(inputs, num_outputs, normalizer_fn)
        outputs = _affine(inputs, units, num_outputs, weights_initializer, weights_regularizer,
                          biases_initializer, biases_regularizer, trainable,
                          variables_collections)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
    for key in outputs_collections or ():
        add_to_collection(key, outputs)
    return outputs


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


def __getattr__(name):
    raise AttributeError(f"tf.contrib.layers.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib.layers' has no attribute {name!r})")
