"""Gradients a program defines: ``tf.custom_gradient``, ``tf.RegisterGradient`` (with
``tf.Graph.gradient_override_map``), and ``tf.hessians``.

A custom gradient is held by a ``custom_gradient`` node (TensorFlow's IdentityN) whose attribute
is the Python function, so a graph holding one is never loaded from a document; an override is
held by name (the node's ``_gradient_op_type``), the function staying in this process's registry.
"""
from __future__ import annotations

import functools
import inspect
import math

from ..nnvm.passes.gradient import register_gradient
from ..nnvm.symbol import Symbol, create_op, current_context
from . import nest
from .api import _tensor, gradients
from .array_ops import reshape, stack, zeros_like
from .framework import recompute_scope

__all__ = ["RegisterGradient", "custom_gradient", "hessians", "recompute_grad"]


class RegisterGradient:
    """Decorator registering a gradient function under ``op_type`` (a name):
    ``@tf.RegisterGradient("MyGrad") def _(op, grad): ...``.  The function gets the op (its
    ``inputs``, ``outputs``, ``type``, ``get_attr``) and one gradient per output, and returns a
    gradient per input (``None``: none).  Ops made inside
    ``graph.gradient_override_map({"Square": "MyGrad"})`` use it."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        register_gradient(self._op_type, f)
        return f


def custom_gradient(f):
    """Decorator: ``f(*args)`` returns ``(y, grad_fn)``; the decorated function returns ``y``,
    whose gradient with respect to ``args`` is ``grad_fn(*dys)`` (one per arg; ``dys`` one per
    tensor of ``y``, nested as ``y`` flattened).  When ``f`` reads trainable variables that are
    not among ``args``, ``grad_fn(*dys, variables=[...])`` returns ``(arg_grads,
    variable_grads)``.  As TF 1.15's graph mode: keyword arguments are refused, no gradient
    flows into ``f``'s own computation of ``y``."""

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords "
                             "arguments only when eager execution is enabled.")
        args = [_tensor(x) for x in args]
        graph = current_context()
        before = set(graph.nodes_by_name)
        result, grad_fn = f(*args)
        variables = _variables_read(graph, before, args)
        takes_variables = _takes_variables(grad_fn)
        if variables and not takes_variables:
            raise TypeError("If using @custom_gradient with a function that uses variables, "
                            "then grad_fn must accept a keyword argument 'variables'.")
        flat = [_tensor(y) for y in nest.flatten(result)]
        node = create_op("custom_gradient", *flat, *args, *variables, num_results=len(flat),
                         num_args=len(flat) + len(args) + len(variables), name="IdentityN",
                         grad_fn=functools.partial(_grads, grad_fn, len(flat), args, variables))
        return nest.pack(result, iter([Symbol([e]) for e in node.outputs]))

    return decorated


def recompute_grad(f):
    """Decorator: ``f``'s forward ops are recomputed in the backward pass instead of kept, as
    TensorFlow 1.15's ``tf.recompute_grad``; the same values and gradients (to the args and
    the variables ``f`` reads).  TinyFlow's own mechanism does it: ``f``'s ops are made in a
    :func:`~tinyflow.frontend.framework.recompute_scope`, which a session's Mirror pass
    follows (docs/sublinear.md).  Keyword arguments are refused, as in TF 1.15's graph mode."""

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords "
                             "arguments only when eager execution is enabled.")
        with recompute_scope():
            return f(*args)

    return decorated


def _grads(grad_fn, num_results: int, args: list, variables: list, out_grads: list) -> list:
    """The custom_gradient node's input gradients: none to the results, ``grad_fn``'s to the
    args and variables."""
    if variables:
        arg_grads, variable_grads = grad_fn(*out_grads, variables=variables)
        if len(variable_grads) != len(variables):
            raise ValueError("Must return gradient for each variable from @custom_gradient "
                             "grad_fn.")
    else:
        arg_grads, variable_grads = grad_fn(*out_grads), []
    arg_grads = nest.flatten(arg_grads)
    if len(arg_grads) != len(args):
        raise ValueError(f"@custom_gradient grad_fn returned {len(arg_grads)} gradients for "
                         f"{len(args)} arguments")
    return [None] * num_results + [None if g is None else _tensor(g)
                                   for g in arg_grads + list(variable_grads)]


def _variables_read(graph, before: set, args: list) -> list:
    """The trainable variables the nodes made since ``before`` read, args left out, in the
    order first read (TensorFlow's tape watches the variables read inside f)."""
    arg_nodes = {a.node for a in args}
    found = {}
    for name in graph.nodes_by_name:
        node = graph.nodes_by_name[name]
        if name in before or node.op is None:
            continue
        for entry in node.inputs:
            variable = graph.variable(entry.node)
            if variable is not None and variable.trainable and entry.node not in arg_nodes:
                found.setdefault(entry.node, variable)
    return list(found.values())


def _takes_variables(grad_fn) -> bool:
    try:
        parameters = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in parameters)




def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False,
             gate_gradients=False, aggregation_method=None) -> list:
    """For each x of ``xs``, the second derivatives of ``sum(ys)`` with respect to x, of shape
    ``x.shape + x.shape`` (TF 1.15's ``tf.hessians``: each x's own, no cross terms).  TF loops
    over the gradient's elements; TinyFlow unrolls that loop, so each x's size must be known
    when the graph is built."""
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    result = []
    with current_context().name_scope(name):
        for x, grad in zip(xs, gradients(ys, xs)):
            shape = x.get_shape()
            if not shape.is_fully_defined():
                raise ValueError(f"tf.hessians: the shape of {x.name} is {shape}: TinyFlow "
                                 f"needs it known when the graph is built")
            if grad is None:  # ys do not depend on x: TF's loop would fail on a None
                raise ValueError(f"tf.hessians: {x.name} does not reach ys")
            flat = reshape(grad, [-1])
            dims = shape.as_list()
            rows = [gradients(flat[j], x)[0] for j in range(math.prod(dims))]
            rows = [row if row is not None else zeros_like(x) for row in rows]
            result.append(reshape(stack(rows), dims + dims))
    return result
