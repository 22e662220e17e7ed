"""TensorFlow's graph API: ``tf.Graph``, the default graph, name scopes, collections, names.

A ``tf.Graph`` is the graph layer's :class:`~tinyflow.nnvm.symbol.GraphContext`: it names new
nodes (TensorFlow's rule, under the current name scope), keeps its nodes by name, its variables
and its collections.  Tensors are named ``<node>:<output>`` (``"accuracy:0"``), operations by
their node's name.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..nnvm.symbol import GraphContext, current_context
from ..nnvm.symbol import reset_default_graph as _reset_default_graph
from .device_spec import DeviceSpec

__all__ = [
    "Graph",
    "GraphKeys",
    "add_to_collection",
    "colocate_with",
    "container",
    "device",
    "disable_eager_execution",
    "disable_v2_behavior",
    "executing_eagerly",
    "get_collection",
    "get_default_graph",
    "name_scope",
    "recompute_scope",
    "reset_default_graph",
]

Graph = GraphContext


class GraphKeys:
    """TensorFlow's standard collection names."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    QUEUE_RUNNERS = "queue_runners"
    METRIC_VARIABLES = "metric_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    MODEL_VARIABLES = "model_variables"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    TABLE_INITIALIZERS = "table_initializer"
    GLOBAL_STEP = "global_step"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    REGULARIZATION_LOSSES = "regularization_losses"
    SUMMARIES = "summaries"
    TRAIN_OP = "train_op"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    SUMMARY_OP = "summary_op"
    SAVERS = "savers"
    SAVEABLE_OBJECTS = "saveable_objects"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    EVAL_STEP = "eval_step"
    VARIABLES = GLOBAL_VARIABLES


def get_default_graph() -> Graph:
    """The graph new ops go to (the innermost ``with g.as_default()`` of this thread)."""
    return current_context()


def reset_default_graph() -> Graph:
    """Start a new, empty default graph (names, variables and collections start over)."""
    return _reset_default_graph()


def disable_v2_behavior() -> None:
    """Nothing to do: TinyFlow is TensorFlow 1.x (graphs and sessions) already."""


def disable_eager_execution() -> None:
    """Nothing to do: TinyFlow builds graphs and never runs eagerly."""


def executing_eagerly() -> bool:
    """False: ops build graph, a session runs it."""
    return False


@contextlib.contextmanager
def device(device_name_or_function) -> Iterator[None]:
    """``with tf.device("/cpu:0"):``: the default graph's :meth:`device` (accepted, and a
    placement TensorFlow could not parse is a ValueError; every op of a session runs on the
    session's one device, as TensorFlow does with ``allow_soft_placement``); a
    :class:`~tinyflow.frontend.device_spec.DeviceSpec` stands for its string."""
    if isinstance(device_name_or_function, DeviceSpec):
        device_name_or_function = device_name_or_function.to_string()
    with current_context().device(device_name_or_function):
        yield


@contextlib.contextmanager
def colocate_with(op, ignore_existing=False) -> Iterator[None]:
    """``with tf.colocate_with(op):``: accepted; a session runs every op on its one device."""
    yield


@contextlib.contextmanager
def container(container_name) -> Iterator[None]:
    """``with tf.container("name"):``: accepted; a session keeps its variables and resources
    per session, the one container TinyFlow has."""
    yield


@contextlib.contextmanager
def name_scope(name, default_name=None, values=None) -> Iterator[str]:
    """``with tf.name_scope("conv1") as scope:``: ops made inside are named ``conv1/...``; a
    second ``conv1`` scope is ``conv1_1/``.  Yields the scope string (``"conv1/"``)."""
    with current_context().name_scope(name or default_name) as scope:
        yield scope


@contextlib.contextmanager
def recompute_scope(recompute: bool = True):
    """``with tf.recompute_scope():`` a hint for the Mirror pass (``Session(memory=...)``):
    the forward ops made inside are recomputed in the backward pass instead of kept
    (``recompute_scope(False)``: kept, whatever the policy says).  Ops that write variables,
    draw random numbers or run Python are never recomputed.  A graph with such hints runs the
    pass even in a session without a memory policy.  The innermost scope decides."""
    graph = current_context()
    before = len(graph.nodes_by_name)
    try:
        yield
    finally:
        for name in list(graph.nodes_by_name)[before:]:
            # an inner scope has set its own
            graph.recompute_hints.setdefault(name, bool(recompute))


def add_to_collection(name: str, value) -> None:
    current_context().add_to_collection(name, value)


def get_collection(key: str, scope: str | None = None) -> list:
    """The values in collection ``key`` of the default graph (a copy); with ``scope``, those
    whose ``name`` matches it from the start (``re.match``, as TensorFlow filters)."""
    return current_context().get_collection(key, scope)
