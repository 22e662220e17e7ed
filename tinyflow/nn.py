"""``tf.nn``: activations and losses."""
from __future__ import annotations

from .nnvm.symbol import Symbol, create_op

__all__ = ["softmax", "log_softmax", "relu", "sigmoid", "tanh"]


def softmax(logits: Symbol, axis: int = -1, name=None) -> Symbol:
    """exp(x) / sum(exp(x)) along ``axis``."""
    return create_op("softmax", logits, axis=int(axis), name=name)


def log_softmax(logits: Symbol, axis: int = -1, name=None) -> Symbol:
    """log(softmax(x)) along ``axis``, computed stably."""
    return create_op("log_softmax", logits, axis=int(axis), name=name)


def relu(x: Symbol, name=None) -> Symbol:
    """max(x, 0)."""
    return create_op("relu", x, name=name)


def sigmoid(x: Symbol, name=None) -> Symbol:
    return create_op("sigmoid", x, name=name)


def tanh(x: Symbol, name=None) -> Symbol:
    return create_op("tanh", x, name=name)
