"""TensorFlow 1.15's remaining functions over variables, collections and gradients:
``tf.get_local_variable``, ``tf.model_variables``, ``tf.moving_average_variables``, the
deprecated initializer aliases, ``tf.get_collection_ref``, ``tf.add_to_collections``,
``tf.init_scope``, ``tf.no_regularizer``, ``tf.NotDifferentiable`` (``tf.NoGradient``,
``tf.no_gradient``), ``tf.AggregationMethod``, ``tf.UnconnectedGradients``, and the ops
telling which variables hold a value (``tf.is_variable_initialized``,
``tf.report_uninitialized_variables``, ``tf.assert_variables_initialized``)."""
from __future__ import annotations

import contextlib
import enum

import numpy as np

from ..nnvm.errors import FailedPreconditionError
from ..nnvm.passes.gradient import register_gradient
from ..nnvm.symbol import Symbol, create_op, current_context
from ..ops import state  # noqa: F401 - registers variables_initialized
from .api import (
    global_variables,
    local_variables,
    local_variables_initializer,
    variables_initializer,
)
from .array_ops import reshape
from .framework import GraphKeys, get_collection
from .variable_scope import get_variable

__all__ = ["AggregationMethod", "NoGradient", "NotDifferentiable", "UnconnectedGradients",
           "add_to_collections", "assert_variables_initialized", "get_collection_ref",
           "get_local_variable", "init_scope", "initialize_local_variables",
           "initialize_variables", "is_variable_initialized", "model_variables",
           "moving_average_variables", "no_gradient", "no_regularizer",
           "report_uninitialized_variables"]


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                       trainable=False, collections=None, **kwargs):
    """:func:`tf.get_variable` of a local variable: in ``GraphKeys.LOCAL_VARIABLES`` (and
    ``collections``), not among the global ones, not trainable (TensorFlow 1.15's
    ``tf.get_local_variable``)."""
    collections = [*(collections or ()), GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, trainable=trainable, collections=collections,
                        **kwargs)


def model_variables(scope=None) -> list:
    """The variables in ``GraphKeys.MODEL_VARIABLES`` (``tf.contrib.framework.model_variable``
    puts them there); with ``scope``, those whose name it matches."""
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None) -> list:
    """The variables ``tf.train.ExponentialMovingAverage.apply`` keeps averages of
    (``GraphKeys.MOVING_AVERAGE_VARIABLES``); with ``scope``, those whose name it matches."""
    return get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def initialize_local_variables():
    """TF-1's deprecated name of :func:`tf.local_variables_initializer`."""
    return local_variables_initializer()


def initialize_variables(var_list, name="init"):
    """TF-1's deprecated name of :func:`tf.variables_initializer`."""
    return variables_initializer(var_list, name=name)


def get_collection_ref(key) -> list:
    """The collection ``key`` of the default graph itself (made empty if missing): a list the
    caller may change, as TensorFlow's ``tf.get_collection_ref``."""
    return current_context().get_collection_ref(key)


def add_to_collections(names, value) -> None:
    """Add ``value`` to each collection of ``names`` (a name, or names: each once)."""
    names = (names,) if isinstance(names, str) else dict.fromkeys(names)
    for key in names:
        current_context().add_to_collection(key, value)


@contextlib.contextmanager
def init_scope():
    """``with tf.init_scope():`` ops made inside wait for no control dependency (TensorFlow
    1.15's: lifted out of the enclosing ``control_dependencies`` blocks, as for making a
    variable's initializer inside one); the name scope stays.  TinyFlow builds one graph, so
    there is no outer graph to lift into."""
    with current_context().control_dependencies(None):
        yield


def no_regularizer(_) -> None:
    """The regularizer of no loss (``tf.get_variable(..., regularizer=tf.no_regularizer)``):
    no regularization loss is added."""


def NotDifferentiable(op_type) -> None:
    """Register ``op_type`` as a gradient of None for every input: ops given it by
    ``graph.gradient_override_map({...: op_type})`` pass no gradient (TensorFlow's
    ``tf.NotDifferentiable``; TypeError for a name that is not a string, KeyError when it is
    registered already)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    register_gradient(op_type, lambda op, *grads: [None] * len(op.inputs))


NoGradient = no_gradient = NotDifferentiable


class AggregationMethod:
    """How ``tf.gradients`` adds the gradients reaching a tensor (TensorFlow's constants);
    TinyFlow always sums them with one ``add_n``, whichever is given."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class UnconnectedGradients(enum.Enum):
    """What ``tf.gradients`` gives for an x that ys do not depend on: None (``NONE``) or
    zeros of x's shape (``ZERO``)."""

    NONE = "none"
    ZERO = "zero"


# -- which variables hold a value in the session running the op ---------------------------------
def _initialized(var_list, names: bool, name: str) -> Symbol:
    variables = list(var_list)
    return create_op("variables_initialized", variables=tuple(variables), names=names,
                     name=name)


def is_variable_initialized(variable) -> Symbol:
    """A bool scalar: whether ``variable`` holds a value in the session running it
    (TensorFlow 1.15's ``tf.is_variable_initialized``)."""
    return reshape(_initialized([variable], False, "IsVariableInitialized"), [])


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor: the names of the variables of ``var_list`` (default: the global
    and local ones) that hold no value in the session running it, as TensorFlow 1.15's."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    return _initialized(var_list, True, name)


def assert_variables_initialized(var_list=None) -> Symbol:
    """An operation failing the run with TF's FailedPreconditionError, naming the variables
    of ``var_list`` (default: the global and local ones) that hold no value."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    variables = list(var_list)
    held = _initialized(variables, False, "IsVariableInitialized")
    check = create_op("assert", held, num_args=1, summarize=0,
                      func=_AllInitialized([v.op.name for v in variables]),
                      name="AssertVariablesInitialized")
    return Symbol(check.outputs, is_operation=True)


class _AllInitialized:
    """The run-time side of assert_variables_initialized."""

    def __init__(self, names: list):
        self.names = names

    def __call__(self, node, inputs):
        missing = [n for n, held in zip(self.names, np.asarray(inputs[0])) if not held]
        if missing:
            raise FailedPreconditionError(None, node.name, "Attempting to use uninitialized "
                                          f"value {', '.join(missing)}")
        return np.asarray(True)
