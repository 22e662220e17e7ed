"""``tf.nn``'s functions: TensorFlow 1.15's, and the seed's layers (:mod:`.seed_layers`).

``conv2d``, ``max_pool``, ``avg_pool`` and ``batch_normalization`` serve both, told apart by
their arguments:

- ``conv2d(input, filter, strides, padding, data_format="NHWC")`` is TensorFlow's (a filter
  ``[kh, kw, in, out]``); a call with ``num_filter``, ``ksize``, ``weight``, ``bias`` or
  ``no_bias`` is the seed's layer (NCHW, weight ``(out, in, kh, kw)``, variables made for it).
- ``max_pool`` / ``avg_pool`` given ``padding`` are TensorFlow's (NHWC unless ``data_format``
  says otherwise, ``ksize`` and ``strides`` read in that layout); without ``padding``, which
  TensorFlow requires, they are the seed's (NCHW, ``[1, h, w, 1]``, VALID).
- ``batch_normalization(x, mean, variance, offset, scale, variance_epsilon)`` is TensorFlow's
  formula; ``batch_normalization(x)`` / ``(x, name=..., gamma=..., beta=..., epsilon=...)`` the
  seed's layer.

A layout that cannot be right — a window larger than the height or width it pools, a filter
whose input channels are not the data's — is a ShapeError naming the op and the shapes.  NHWC
runs channels-last inside: the bodies see NHWC tensors as NCHW views with channels-last strides,
and the filter as an OIHW view, so nothing is transposed (see :mod:`tinyflow.ops.conv`).
"""
from __future__ import annotations

import collections
import numbers

import numpy as np

from ...nnvm.symbol import NodeEntry, Symbol, create_op, current_context
from ..api import (
    _like,
    constant,
    exp,
    matmul,
    maximum,
    reduce_mean,
    reduce_sum,
    sqrt,
    square,
    where,
)
from ..array_ops import concat
from ..math_ops import _softplus, l2_normalize
from ..partitioned_variables import PartitionedVariable
from ..random_ops import get_seed
from . import seed_layers
from .seed_layers import flatten_layer, linear, mean_sparse_softmax_cross_entropy_with_logits

__all__ = ["avg_pool", "batch_normalization", "bias_add", "conv2d", "crelu", "dropout", "elu",
           "embedding_lookup", "flatten_layer", "in_top_k", "l2_loss", "l2_normalize",
           "leaky_relu", "linear", "local_response_normalization", "log_softmax", "lrn",
           "max_pool", "mean_sparse_softmax_cross_entropy_with_logits", "moments", "relu",
           "relu6", "relu_layer", "selu", "sigmoid", "sigmoid_cross_entropy_with_logits",
           "softmax", "softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
           "softplus", "softsign", "sparse_softmax_cross_entropy_with_logits", "tanh", "top_k",
           "weighted_cross_entropy_with_logits", "xw_plus_b"]

_SEED_CONV_ARGS = {"weight", "num_filter", "ksize", "bias", "no_bias"}


def _symbol(value, dtype="float32") -> Symbol:
    if isinstance(value, (Symbol, NodeEntry)):  # a tensor, or an op.inputs[i]
        return Symbol([value]) if isinstance(value, NodeEntry) else value
    array = np.asarray(value)
    return constant(array.astype(dtype if array.dtype.kind == "f" else array.dtype))


# -- activations -----------------------------------------------------------------------------
# Kinked ones compose relu so that the gradient at the kink is TensorFlow's.
def relu(features, name=None) -> Symbol:
    """max(features, 0); gradient 0 at 0."""
    return create_op("relu", features, name=name)


def relu6(features, name=None) -> Symbol:
    """min(max(features, 0), 6)."""
    with current_context().name_scope(name or "Relu6") as scope:
        return create_op("elemwise_sub", relu(features), relu(features - 6.0), name=scope)


def leaky_relu(features, alpha=0.2, name=None) -> Symbol:
    """features where > 0, else alpha * features (gradient alpha at 0, as TensorFlow)."""
    with current_context().name_scope(name or "LeakyRelu") as scope:
        positive = relu(features)
        return create_op("elemwise_add", positive, (features - positive) * float(alpha),
                         name=scope)


def elu(features, name=None) -> Symbol:
    """features where > 0, else exp(features) - 1 (gradient 1 at 0, as TensorFlow)."""
    with current_context().name_scope(name or "Elu") as scope:
        negative = -relu(-features)  # min(features, 0), exactly
        return create_op("elemwise_add", features - negative, exp(negative) - 1.0, name=scope)


# TensorFlow's (Klambauer et al.'s) constants of selu
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(features, name=None) -> Symbol:
    """scale * features where > 0, else scale * alpha * (exp(features) - 1) (gradient scale at
    0, as TensorFlow's): elu's composition, alpha on its negative part."""
    with current_context().name_scope(name or "Selu") as scope:
        negative = -relu(-features)  # min(features, 0), exactly
        mixed = (features - negative) + (exp(negative) - 1.0) * _SELU_ALPHA
        return create_op("__mul_scalar__", mixed, scalar=_SELU_SCALE, name=scope)


def crelu(features, name=None, axis=-1) -> Symbol:
    """``relu(concat([features, -features], axis))``: the channels doubled."""
    features = _symbol(features)
    with current_context().name_scope(name or "CRelu"):  # TF's: CRelu/Relu
        return relu(concat([features, -features], axis))


def softplus(features, name=None) -> Symbol:
    """log(exp(features) + 1), computed stably."""
    with current_context().name_scope(name or "Softplus") as scope:
        return _softplus(_symbol(features), scope)


def softsign(features, name=None) -> Symbol:
    """features / (|features| + 1)."""
    with current_context().name_scope(name or "Softsign") as scope:
        return create_op("elemwise_div", features, create_op("abs", features) + 1.0,
                         name=scope)


def sigmoid(x, name=None) -> Symbol:
    return create_op("sigmoid", x, name=name)


def tanh(x, name=None) -> Symbol:
    return create_op("tanh", x, name=name)


def _axis(axis, dim, default=-1) -> int:
    if axis is not None and dim is not None:
        raise ValueError("give axis or its deprecated alias dim, not both")
    axis = dim if axis is None else axis
    return default if axis is None else int(axis)


def softmax(logits, axis=None, name=None, dim=None) -> Symbol:
    """exp(logits) / sum(exp(logits)) along ``axis`` (``dim``: its old name; default -1)."""
    return create_op("softmax", logits, axis=_axis(axis, dim), name=name)


def log_softmax(logits, axis=None, name=None, dim=None) -> Symbol:
    """log(softmax(logits)) along ``axis``, computed stably."""
    return create_op("log_softmax", logits, axis=_axis(axis, dim), name=name)


def bias_add(value, bias, data_format=None, name=None) -> Symbol:
    """``value + bias`` along the channel axis: the last (``data_format`` None or 'NHWC') or
    axis 1 ('NCHW'); ``bias`` must be a vector of that many channels."""
    if data_format not in (None, "NHWC", "NCHW", "NC"):
        raise ValueError(f"data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    data_format = "NCHW" if data_format in ("NCHW", "NC") else "NHWC"
    return create_op("bias_add", value, _symbol(bias), data_format=data_format, name=name)


def l2_loss(t, name=None) -> Symbol:
    """sum(t ** 2) / 2."""
    with current_context().name_scope(name or "L2Loss") as scope:
        return create_op("__mul_scalar__", reduce_sum(square(t)), scalar=0.5, name=scope)


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None) -> Symbol:
    """Zero each element of ``x`` with probability ``rate = 1 - keep_prob`` and scale the rest by
    ``1 / keep_prob``.

    Give ``keep_prob`` or ``rate``, a number (taken in x's dtype) or a scalar symbol of x's
    dtype (a placeholder fed 1.0 at test time).  ``noise_shape`` (None entries: x's size) draws one
    mask that broadcasts to x, as TensorFlow's.  ``seed`` is the op-level seed of the mask's
    uniform draws, taken with the graph's seed as a random op's
    (:func:`tinyflow.frontend.random_ops.get_seed`): with either, the masks repeat from session to
    session.
    """
    if keep_prob is not None and rate is not None:
        raise ValueError("dropout: give keep_prob or rate, not both")
    if keep_prob is None and rate is None:
        raise ValueError("dropout: give a rate (or keep_prob)")
    if keep_prob is None:
        if isinstance(rate, Symbol):
            keep_prob = 1.0 - rate
        elif not 0.0 <= float(rate) < 1.0:
            raise ValueError(f"rate must be a scalar tensor or a float in [0, 1), got {rate}")
        else:
            keep_prob = 1.0 - float(rate)
    x = _symbol(x)
    if not isinstance(keep_prob, Symbol):
        if not 0.0 < float(keep_prob) <= 1.0:
            raise ValueError(f"keep_prob must be a scalar tensor or a float in (0, 1], got "
                             f"{keep_prob}")
        keep_prob = _like(float(keep_prob), x)  # x's dtype (float16, float64), as TF converts it
    attrs = {} if noise_shape is None else {
        "noise_shape": tuple(-1 if d is None else int(d) for d in noise_shape)}
    seed, seed2 = get_seed(seed)
    return create_op("dropout", x, keep_prob, name=name, seed=seed, seed2=seed2, **attrs)[0]



def xw_plus_b(x, weights, biases, name=None) -> Symbol:
    """``matmul(x, weights) + biases`` (``biases`` a vector added along the last axis)."""
    with current_context().name_scope(name or "xw_plus_b") as scope:
        return bias_add(matmul(x, weights), biases, name=scope)


def relu_layer(x, weights, biases, name=None) -> Symbol:
    """``relu(matmul(x, weights) + biases)``."""
    with current_context().name_scope(name or "relu_layer") as scope:
        return relu(bias_add(matmul(x, weights), biases), name=scope)

# -- convolution and pooling -----------------------------------------------------------------
def _data_format(data_format) -> str:
    data_format = "NHWC" if data_format is None else data_format
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    return data_format


def _padding(padding) -> str:
    if not isinstance(padding, str) or padding.upper() not in ("VALID", "SAME"):
        raise ValueError(f"padding must be 'VALID' or 'SAME', got {padding!r}")
    return padding.upper()


def _spatial(value, what, data_format):
    """TensorFlow's ksize / strides / dilations: an int or 1, 2 or 4 ints, 4 in the data's
    layout with 1 for the batch and channels -> (h, w)."""
    value = [int(v) for v in ([value] if isinstance(value, numbers.Integral) else value)]
    if len(value) == 4:
        nchw = data_format == "NCHW"
        outer = (value[0], value[1] if nchw else value[3])
        if outer != (1, 1):
            layout = "[1, 1, h, w]" if nchw else "[1, h, w, 1]"
            raise ValueError(f"{what} {value} must be {layout} for {data_format} data: windows "
                             f"and strides over the batch or channels are not supported")
        value = value[2:] if nchw else value[1:3]
    elif len(value) == 1:
        value = value * 2
    if len(value) != 2 or min(value) < 1:
        raise ValueError(f"{what} must be a positive int or 1, 2 or 4 of them, got {value}")
    return tuple(value)


def conv2d(input=None, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,
           data_format=None, dilations=None, name=None, filters=None, **seed_args) -> Symbol:
    """TensorFlow's 2-D convolution (cross-correlation) of ``input`` with ``filter``.

    Parameters
    ----------
    input : Symbol
        ``[batch, height, width, channels]`` (``data_format`` 'NHWC', the default) or
        ``[batch, channels, height, width]`` ('NCHW').
    filter : Symbol
        ``[kh, kw, in_channels, out_channels]`` (``filters``: its TF-2 name).
    strides : int or list
        An int, ``[sh, sw]``, or 4 ints in the data's layout (``[1, sh, sw, 1]`` for NHWC).
    padding : {'VALID', 'SAME'}
        SAME gives ceil(size / stride) outputs, the odd padding pixel after the data.
    dilations : int or list, optional
        The kernel's taps ``dilations`` pixels apart, as ``strides`` are given (default 1s).

    A call with ``num_filter``, ``ksize``, ``weight``, ``bias`` or ``no_bias`` is the seed's
    NCHW layer instead (:func:`tinyflow.seed_layers.conv2d`).
    """
    if seed_args:
        unknown = sorted(set(seed_args) - _SEED_CONV_ARGS)
        if unknown:
            raise TypeError(f"conv2d() got unexpected keyword arguments {unknown}")
        if filter is not None and "weight" in seed_args:
            raise TypeError("conv2d: give filter or weight, not both")
        weight = seed_args.pop("weight", filter)
        return seed_layers.conv2d(input, weight, strides=(1, 1, 1, 1) if strides is None else
                              strides, padding="VALID" if padding is None else padding,
                              data_format=data_format or "NCHW", name=name, **seed_args)
    filter = filters if filter is None else filter
    if input is None or filter is None or strides is None or padding is None:
        raise TypeError("conv2d() needs input, filter, strides and padding (or, for the "
                        "seed's layer, num_filter and ksize)")
    data_format = _data_format(data_format)
    return create_op("conv2d", input, filter, no_bias=True,
                     stride=_spatial(strides, "strides", data_format),
                     padding=_padding(padding), data_format=data_format, filter_format="HWIO",
                     name=name or "Conv2D", **_dilation_attr(dilations, data_format))


def _dilation_attr(dilations, data_format) -> dict:
    """conv2d's attr dilation from TensorFlow's ``dilations`` (none when all 1s, the graph
    then the same as without)."""
    dilation = (1, 1) if dilations is None else _spatial(dilations, "dilations", data_format)
    return {} if dilation == (1, 1) else {"dilation": dilation}


def _seed_window(ksize, data_format) -> bool:
    """The seed wrote NCHW windows as ``[1, h, w, 1]`` (cifar_resnet.py's avg_pool with
    padding='SAME', data_format='NCHW'); TensorFlow reads that as a window over the channels,
    which it refuses, so the call is the seed's."""
    return (data_format == "NCHW" and ksize is not None
            and not isinstance(ksize, numbers.Integral) and len(ksize) == 4
            and ksize[1] != 1 and ksize[3] == 1)


def _data_layout(value) -> str | None:
    """The layout of 4-d ``value`` as the layer that made it tells (FDataLayout), looking
    through elementwise ops (FFuseExpr: ``relu(conv + b)``); None when no layer says."""
    stack, seen = [value.outputs[0].node], set()
    while stack and len(seen) < 64:  # a layer is a few ops up, not the whole graph
        node = stack.pop()
        if node.op is None or node in seen:
            continue
        seen.add(node)
        layout = node.op.attr("FDataLayout")
        if layout is not None:
            return layout(node.attrs)
        if node.op.attr("FFuseExpr") is not None:
            stack.extend(entry.node for entry in reversed(node.inputs))
    return None


def _pool(op, seed_pool, value, ksize, strides, padding, data_format, name):
    if data_format is None and isinstance(value, Symbol) and _data_layout(value) == "NCHW":
        data_format = "NCHW"  # the seed's layers' data: never read as NHWC without being told
    if (padding is None and data_format in (None, "NCHW")  # TF requires padding: the seed's
            or _seed_window(ksize, data_format)):
        return seed_pool(value, ksize, (1, 1, 1, 1) if strides is None else strides,
                         padding="VALID" if padding is None else padding, name=name)
    padding, data_format = _padding(padding), _data_format(data_format)
    if value is None or ksize is None or strides is None:
        raise TypeError(f"{op}() needs value, ksize, strides and padding")
    return create_op(f"{op}2d", value, kernel=_spatial(ksize, "ksize", data_format),
                     stride=_spatial(strides, "strides", data_format),
                     padding=padding, data_format=data_format, name=name)


def max_pool(value=None, ksize=None, strides=None, padding=None, data_format=None, name=None,
             input=None) -> Symbol:
    """Max over ``ksize`` windows moved by ``strides`` (TensorFlow's: an int, 2 ints, or 4 in
    the data's layout); ``data_format`` 'NHWC' (default) or 'NCHW'.  Without ``padding``: the
    seed's NCHW pooling (:func:`tinyflow.seed_layers.max_pool`)."""
    return _pool("max_pool", seed_layers.max_pool, input if value is None else value, ksize,
                 strides, padding, data_format, name)


def avg_pool(value=None, ksize=None, strides=None, padding=None, data_format=None, name=None,
             input=None) -> Symbol:
    """Mean over ``ksize`` windows, SAME padding not counted (as TensorFlow); the arguments as
    :func:`max_pool`'s."""
    return _pool("avg_pool", seed_layers.avg_pool, input if value is None else value, ksize,
                 strides, padding, data_format, name)


# -- normalisation ---------------------------------------------------------------------------
def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """Mean and variance of ``x`` over ``axes``: ``(mean, variance)``, the reduced axes kept as
    size 1 with ``keepdims`` (or ``keep_dims``)."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axes = tuple(int(a) for a in ([axes] if isinstance(axes, numbers.Integral) else axes))
    with current_context().name_scope(name or "moments"):  # TF's names: moments/Squeeze...
        mean = reduce_mean(x, axes, keepdims=True, name="mean")
        variance = reduce_mean(square(x - mean), axes, keepdims=True, name="variance")
        if keep:
            return mean, variance
        return create_op("squeeze", mean, axis=axes), create_op("squeeze", variance, axis=axes)


def batch_normalization(x, mean=None, variance=None, offset=None, scale=None,
                        variance_epsilon=None, name=None, **seed_args) -> Symbol:
    """TensorFlow's ``(x - mean) * scale / sqrt(variance + variance_epsilon) + offset``
    (``offset`` / ``scale`` None: left out), all broadcasting against x.

    ``batch_normalization(x)``, ``(x, "bn")`` or with ``name``, ``gamma``, ``beta``,
    ``epsilon`` only is the seed's layer (:func:`tinyflow.seed_layers.batch_normalization`).
    """
    if isinstance(mean, str) or (mean is None and variance is None):
        if isinstance(mean, str) and name is not None:
            raise TypeError("batch_normalization: the name is given twice")
        return seed_layers.batch_normalization(x, name=mean if isinstance(mean, str) else name,
                                           **seed_args)
    if seed_args or variance is None or variance_epsilon is None:
        raise TypeError("batch_normalization() needs x, mean, variance, offset, scale and "
                        "variance_epsilon (or, for the seed's layer, x and name)")
    with current_context().name_scope(name or "batchnorm"):  # TF's: batchnorm/add_1
        inv = 1.0 / sqrt(_symbol(variance) + float(variance_epsilon))
        if scale is not None:
            inv = inv * _symbol(scale)
        shift = -_symbol(mean) * inv if offset is None else _symbol(offset) - _symbol(mean) * inv
        return x * inv + shift



def lrn(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None) -> Symbol:
    """TensorFlow's local response normalisation of a 4-D (NHWC) ``input`` along its last
    axis: ``input / (bias + alpha * sqr_sum) ** beta``, ``sqr_sum`` the sum of ``input ** 2``
    over ``[d - depth_radius, d + depth_radius]`` (``alpha`` is not divided by the window's
    size, unlike torch's ``local_response_norm``)."""
    return create_op("lrn", _symbol(input), depth_radius=int(depth_radius), bias=float(bias),
                     alpha=float(alpha), beta=float(beta), name=name)


local_response_normalization = lrn

# -- losses ----------------------------------------------------------------------------------
def _named_only(function, sentinel, labels, logits):
    if sentinel is not None:
        raise ValueError(f"Only call `{function}` with named arguments (labels=..., "
                         f"logits=..., ...)")
    if labels is None or logits is None:
        raise ValueError(f"{function}: both labels and logits must be provided")


def _softmax_xent(labels, logits, axis, name, backprop_labels):
    return create_op("softmax_cross_entropy_with_logits", _symbol(logits), _symbol(labels),
                     axis=axis, backprop_labels=backprop_labels,
                     name=name or "softmax_cross_entropy_with_logits")


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name=None, axis=None) -> Symbol:
    """Per-example ``-sum(labels * log_softmax(logits))`` along ``dim``; labels (probabilities,
    by keyword as TensorFlow requires) get no gradient (see the ``_v2`` form)."""
    _named_only("softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    return _softmax_xent(labels, logits, _axis(axis, dim), name, backprop_labels=False)


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None,
                                         dim=None) -> Symbol:
    """As :func:`softmax_cross_entropy_with_logits`, the gradient flowing into labels too."""
    return _softmax_xent(labels, logits, _axis(axis, dim), name, backprop_labels=True)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                             name=None) -> Symbol:
    """Per-example ``-log_softmax(logits)[labels]``: logits ``[..., classes]``, labels
    ``[...]`` of class ids (int32 or int64, by keyword); no gradient for labels."""
    _named_only("sparse_softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    labels = _symbol(labels)
    if not labels.dtype.is_integer:
        raise TypeError(f"sparse_softmax_cross_entropy_with_logits: labels must be int32 or "
                        f"int64 class ids, got {labels.dtype.name}")
    with current_context().name_scope(name or "SparseSoftmaxCrossEntropyWithLogits"):
        return create_op("sparse_softmax_cross_entropy_with_logits", _symbol(logits), labels,
                         name=name)  # TF's: "<name>/<name>", by default the op type twice


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                      name=None) -> Symbol:
    """Per-element ``labels * -log(sigmoid(logits)) + (1 - labels) * -log(1 - sigmoid(logits))``
    computed as TensorFlow does: ``max(x, 0) - x * z + log(1 + exp(-|x|))``."""
    _named_only("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
    logits, labels = _symbol(logits), _symbol(labels)
    with current_context().name_scope(name or "logistic_loss") as scope:
        return create_op("elemwise_sub", _softplus(logits), logits * labels, name=scope)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None,
                                       targets=None) -> Symbol:
    """sigmoid_cross_entropy_with_logits with the positive term weighted by ``pos_weight``:
    ``(1 - z) * x + (1 + (pos_weight - 1) * z) * log(1 + exp(-x))`` (TensorFlow's formula, z
    the labels, ``targets`` their older name), computed stably."""
    labels = targets if labels is None else labels
    if labels is None or logits is None or pos_weight is None:
        raise TypeError("weighted_cross_entropy_with_logits() needs labels (or targets), "
                        "logits and pos_weight")
    logits, labels = _symbol(logits), _symbol(labels)
    with current_context().name_scope(name or "logistic_loss") as scope:
        log_weight = (_symbol(pos_weight) - 1.0) * labels + 1.0
        return create_op("elemwise_add", (1.0 - labels) * logits,
                         log_weight * _softplus(-logits), name=scope)


# -- lookups ---------------------------------------------------------------------------------
def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None) -> Symbol:
    """The rows of ``params`` at ``ids`` (int32 / int64): shape ``ids.shape +
    params.shape[1:]``; the gradient adds rows back (repeated ids sum).  ``params`` may be a
    list of shards of one table (or a PartitionedVariable: its shards), split by
    ``partition_strategy`` as TF's: ``"mod"`` (id ``i`` in shard ``i % n``) or ``"div"``
    (contiguous ranges); ``max_norm`` is not supported."""
    if max_norm is not None:
        raise ValueError("embedding_lookup: max_norm is not supported")
    if isinstance(params, PartitionedVariable):
        if params._partition_axes() != [0]:
            raise ValueError(f"embedding_lookup: partitioned variable '{params.name}' is split "
                             f"along axis {params._partition_axes()[0]}; its rows must be")
        params = params.get_variable_list()
    ids = _symbol(ids)
    if isinstance(params, (list, tuple)):
        shards = [_symbol(p) for p in params]
        if len(shards) > 1:
            params, ids = concat(shards, 0), _row_in_shards(shards, ids, partition_strategy)
        else:
            params = shards[0]
    with current_context().name_scope(name or "embedding_lookup") as scope:  # TF's gather's
        return create_op("embedding_lookup", _symbol(params), ids, name=scope)


def _row_in_shards(shards, ids, strategy):
    """Each id's row in the shards concatenated, by TF's ``mod`` or ``div`` assignment."""
    if strategy not in ("mod", "div"):
        raise ValueError(f"Unrecognized partition strategy: {strategy}")
    rows = [s.get_shape()[0].value for s in shards]
    if None in rows:
        raise ValueError(f"embedding_lookup: sharded params need their rows known as the graph "
                         f"is built, got {[str(s.get_shape()) for s in shards]}")
    n, dtype = len(shards), ids.dtype.as_numpy_dtype
    offsets = constant(np.cumsum([0] + rows[:-1]).astype(dtype))
    if strategy == "mod":
        shard, row = ids % n, ids // n
    else:  # the first total % n shards hold one id more (TF's div)
        each, extras = sum(rows) // n, sum(rows) % n
        shard = maximum(ids // (each + 1), (ids - extras) // max(each, 1))
        row = where(shard < extras, ids % (each + 1), (ids - extras) % max(each, 1))
    return create_op("gather", offsets, shard, axis=0) + row


def in_top_k(predictions, targets, k, name=None) -> Symbol:
    """bool ``[batch]``: whether ``targets[i]`` is among the ``k`` largest
    ``predictions[i]`` (ties at the boundary count as in, as TensorFlow's)."""
    with current_context().name_scope(name or "in_top_k"):  # TF's: in_top_k/InTopKV2
        return create_op("in_top_k", _symbol(predictions), _symbol(targets), k=int(k),
                         name=name)



TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input, k=1, sorted=True, name=None) -> TopKV2:
    """The ``k`` largest entries of each row of ``input`` along its last axis and their indices
    (int32), as the pair ``TopKV2(values, indices)``.

    Values come in descending order, the lower index first among equal ones (TensorFlow's
    rule); ``sorted=False`` (order unspecified in TensorFlow) gives the same.  ``k`` is an int
    or a constant; the last axis must have at least k entries.  The gradient of ``values``
    goes to the chosen entries.
    """
    if isinstance(k, Symbol) and k.node.kind == "constant":
        k = k.node.attrs["value"][0]
    if isinstance(k, Symbol):
        raise TypeError("top_k: k must be an int known when the graph is built (TinyFlow fixes "
                         "shapes at bind time), got a computed tensor")
    if int(k) < 0:
        raise ValueError(f"top_k: k must be non-negative, got {k}")
    out = create_op("top_k", _symbol(input), k=int(k), sorted=bool(sorted), name=name)
    return TopKV2(out[0], out[1])
