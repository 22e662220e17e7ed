"""The pieces ``tf.metrics``' functions share (TF 1.15's ``metrics_impl`` helpers): metric
variables, ``div_no_nan`` ratios, the collections, and TF's static shape checks and squeezes."""
from __future__ import annotations

from ..nnvm.symbol import Symbol
from ..nnvm.tensor_shape import TensorShape
from ..nnvm.variables import Variable
from . import api, array_ops, math_ops
from .framework import GraphKeys, add_to_collection

__all__: list = []  # private helpers of metrics.py and metrics_at_k.py


def _metric_variable(shape, dtype, name) -> Variable:
    """A zero variable in LOCAL_VARIABLES and METRIC_VARIABLES (TF's ``metric_variable``)."""
    return Variable(array_ops.zeros(shape, dtype=dtype), trainable=False, name=name,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])


def _ratio(numerator, denominator, name) -> Symbol:
    """``numerator / denominator``, 0 where the denominator is not positive (TF's
    ``div_no_nan(n, maximum(d, 0))`` and ``where(d > 0, n / d, 0)`` alike)."""
    positive = api.greater(denominator, 0.0)
    safe = api.where(positive, denominator, array_ops.ones_like(denominator))
    return api.where(positive, numerator / safe, array_ops.zeros_like(numerator), name=name)


def _finish(value, update_op, metrics_collections, updates_collections):
    """Add the value and the update op to the collections asked for; return them."""
    for keys, item in ((metrics_collections, value), (updates_collections, update_op)):
        for key in [keys] if isinstance(keys, str) else keys or ():  # one name, as TF's
            add_to_collection(key, item)
    return value, update_op


def _shape(tensor: Symbol) -> TensorShape:
    return TensorShape(tensor.get_shape())


def _check_compatible(a: Symbol, b: Symbol) -> None:
    """TF's ``assert_is_compatible_with`` on static shapes: a ValueError at build."""
    if not _shape(a).is_compatible_with(_shape(b)):
        raise ValueError(f"Shapes {_shape(a)} and {_shape(b)} are incompatible")


def _squeeze_last(tensor: Symbol, other: Symbol) -> Symbol:
    """``tensor`` without its last dimension when that is 1 and ``other`` has one rank less."""
    rank, other_rank = _shape(tensor).ndims, _shape(other).ndims
    if rank is not None and other_rank is not None and rank - other_rank == 1 \
            and _shape(tensor).as_list()[-1] in (1, None):
        return array_ops.squeeze(tensor, [-1])
    return tensor


def _remove_squeezable_dimensions(predictions, labels, weights):
    """TF's: a size-1 last dimension of predictions or labels goes when their ranks differ by
    one (their shapes must then agree); a weight tensor gains or loses a last dimension to
    match the predictions' rank."""
    predictions = math_ops.convert_to_tensor(predictions)
    if labels is not None:
        labels = math_ops.convert_to_tensor(labels)
        labels, predictions = _squeeze_last(labels, predictions), _squeeze_last(predictions,
                                                                                labels)
        _check_compatible(predictions, labels)
    if weights is None:
        return predictions, labels, None
    weights = math_ops.convert_to_tensor(weights)
    weights_rank, rank = _shape(weights).ndims, _shape(predictions).ndims
    if weights_rank not in (0, None) and rank is not None:
        if weights_rank - rank == 1:
            last = _shape(weights).as_list()[-1]
            if last not in (1, None):
                raise ValueError(f"Can not squeeze dim[{weights_rank - 1}], expected a "
                                 f"dimension of 1, got {last} (weights of shape "
                                 f"{_shape(weights)})")
            weights = array_ops.squeeze(weights, [-1])
        elif rank - weights_rank == 1:
            weights = array_ops.expand_dims(weights, -1)
    return predictions, labels, weights


def _broadcast_weights(weights, values: Symbol) -> Symbol:
    """``weights`` (float32) times ones of ``values``' shape; TF's static broadcast check (a
    scalar, or the same rank with each dimension 1 or equal) raises ValueError at build."""
    weights = api.cast(weights, "float32")
    w_shape, v_shape = _shape(weights), _shape(values)
    if w_shape.ndims not in (0, None) and v_shape.ndims is not None:
        if w_shape.ndims != v_shape.ndims:
            raise ValueError(f"weights can not be broadcast to values. values.rank="
                             f"{v_shape.ndims}. weights.rank={w_shape.ndims}.")
        for dim, (w, v) in enumerate(zip(w_shape.as_list(), v_shape.as_list())):
            if w not in (1, None) and v is not None and w != v:
                raise ValueError(f"weights can not be broadcast to values. Mismatch at dim "
                                 f"{dim}. values.shape={v_shape.as_list()}, weights.shape="
                                 f"{w_shape.as_list()}.")
    return weights * array_ops.ones_like(values, dtype="float32")


def _check_multipliable(values: Symbol, weights: Symbol) -> None:
    """TF's static check of ``values * weights``: dimensions from the right equal or 1."""
    if _shape(values).ndims is None or _shape(weights).ndims is None:
        return
    for a, b in zip(reversed(_shape(values).as_list()), reversed(_shape(weights).as_list())):
        if a is not None and b is not None and a != b and 1 not in (a, b):
            raise ValueError(f"Dimensions must be equal, but are {a} and {b} (values of shape "
                             f"{_shape(values)}, weights of shape {_shape(weights)})")
