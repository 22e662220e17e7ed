"""The seed's ``tf.nn`` layers, kept as they were: NCHW data, ``ksize`` / ``strides`` written
``[1, h, w, 1]``, ``padding='VALID'`` and ``no_bias=True`` by default.  A weight, bias, gamma or
beta left out is created as the variable ``<name>_weight``, ``<name>_bias``... with its shape
inferred from the data when the graph runs, and an initial value for
``tf.global_variables_initializer()`` (Glorot-uniform weights, zero biases and beta, unit gamma;
see :mod:`tinyflow.ops.conv`).

:mod:`tinyflow.frontend.nn` (``tf.nn``) exports them, and tells a seed call of ``conv2d``,
``max_pool``, ``avg_pool`` and ``batch_normalization`` from TensorFlow's by its arguments.
"""
from __future__ import annotations

import numbers

from ...nnvm.symbol import Symbol, create_op

__all__ = ["avg_pool", "batch_normalization", "conv2d", "flatten_layer", "linear", "max_pool",
           "mean_sparse_softmax_cross_entropy_with_logits"]


def _window(value, what):
    """``[1, h, w, 1]`` (the seed's NCHW convention), ``[h, w]`` or an int -> ``(h, w)``."""
    value = (value, value) if isinstance(value, numbers.Integral) else value
    value = tuple(int(v) for v in value)
    if len(value) == 2 and min(value) > 0:
        return value
    if len(value) == 4 and value[0] == value[3] == 1 and min(value) > 0:
        return value[1:3]
    raise ValueError(f"{what} must be [1, h, w, 1], [h, w] or an int, got {list(value)}")


def _window_attrs(ksize, strides, padding, data_format):
    if data_format != "NCHW":
        raise ValueError(f"only data_format='NCHW' is supported, got {data_format!r}")
    padding = str(padding).upper()
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"padding must be 'VALID' or 'SAME', got {padding!r}")
    return {"kernel": None if ksize is None else _window(ksize, "ksize"),
            "stride": _window(strides, "strides"), "padding": padding}


def linear(x: Symbol, num_hidden: int, name=None, no_bias: bool = True, weight=None,
           bias=None) -> Symbol:
    """Fully connected layer ``x @ weight^T (+ bias)``.

    Parameters
    ----------
    x : Symbol
        (batch, in_features); use :func:`flatten_layer` on images first.
    num_hidden : int
        Output features.
    name : str, optional
        Layer name; the variables made for a missing ``weight`` / ``bias`` are ``<name>_weight``
        (num_hidden, in_features) and ``<name>_bias`` (num_hidden,).
    no_bias : bool
        No bias term (the default, as in the seed); giving ``bias`` implies a bias.
    weight, bias : Symbol, optional
        Existing variables to use.
    """
    if bias is not None and weight is None:
        raise ValueError("linear: give weight along with bias")
    inputs = [s for s in (x, weight, bias) if s is not None]
    return create_op("linear", *inputs, num_hidden=int(num_hidden),
                     no_bias=bool(no_bias) and bias is None, name=name)


def conv2d(x: Symbol, weight=None, num_filter=None, ksize=None, strides=(1, 1, 1, 1),
           padding="VALID", data_format="NCHW", name=None, no_bias: bool = True,
           bias=None) -> Symbol:
    """2-D convolution of NCHW ``x``.

    Parameters
    ----------
    x : Symbol
        (batch, channels, height, width).
    weight : Symbol, optional
        (num_filter, in_channels, kh, kw); made as variable ``<name>_weight`` when left out.
    num_filter : int
        Output channels (taken from ``weight`` when given).
    ksize, strides : list
        ``[1, kh, kw, 1]`` and ``[1, sh, sw, 1]`` (also ``[kh, kw]`` or an int).
    padding : {'VALID', 'SAME'}
        TensorFlow's rule; SAME gives ceil(size / stride) outputs.
    no_bias : bool
        No bias term (the default); otherwise ``<name>_bias`` (num_filter,) is made.
    """
    if weight is None and (num_filter is None or ksize is None):
        raise ValueError("conv2d needs num_filter and ksize (or a weight)")
    if bias is not None and weight is None:
        raise ValueError("conv2d: give weight along with bias")
    attrs = _window_attrs(ksize, strides, padding, data_format)
    inputs = [s for s in (x, weight, bias) if s is not None]
    return create_op("conv2d", *inputs, num_filter=num_filter,
                     no_bias=bool(no_bias) and bias is None, name=name, **attrs)


def max_pool(x: Symbol, ksize, strides=(1, 1, 1, 1), padding="VALID", data_format="NCHW",
             name=None) -> Symbol:
    """Max over ``ksize`` windows of NCHW ``x`` moved by ``strides`` (``[1, h, w, 1]``)."""
    return create_op("max_pool2d", x, name=name,
                     **_window_attrs(ksize, strides, padding, data_format))


def avg_pool(x: Symbol, ksize, strides=(1, 1, 1, 1), padding="VALID", data_format="NCHW",
             name=None) -> Symbol:
    """Mean over ``ksize`` windows of NCHW ``x`` moved by ``strides``; SAME padding is not
    counted in the mean (as in TensorFlow)."""
    return create_op("avg_pool2d", x, name=name,
                     **_window_attrs(ksize, strides, padding, data_format))


def batch_normalization(x: Symbol, name=None, gamma=None, beta=None,
                        epsilon: float = 1e-5) -> Symbol:
    """Normalise each channel (axis 1) of ``x`` with the batch's mean and variance, then scale by
    ``gamma`` and shift by ``beta`` (variables ``<name>_gamma`` / ``<name>_beta`` of shape
    (channels,), initialised to ones and zeros, when left out).  Batch statistics are used in
    training and evaluation alike: no running averages are kept."""
    if beta is not None and gamma is None:
        raise ValueError("batch_normalization: give gamma along with beta")
    inputs = [s for s in (x, gamma, beta) if s is not None]
    return create_op("batch_norm", *inputs, eps=float(epsilon), name=name)[0]


def flatten_layer(x: Symbol, name=None) -> Symbol:
    """``x`` as (batch, everything else)."""
    return create_op("flatten", x, name=name)


def mean_sparse_softmax_cross_entropy_with_logits(logits: Symbol, labels: Symbol,
                                                  name=None) -> Symbol:
    """Mean over the batch of ``-log(softmax(logits)[label])``.

    Parameters
    ----------
    logits : Symbol
        (batch, classes).
    labels : Symbol
        (batch,): class ids stored as floats (as the seed's datasets give them).
    """
    return create_op("mean_sparse_softmax_cross_entropy_with_logits", logits, labels, name=name)
