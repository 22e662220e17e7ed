"""FoldShapeArguments: shape arguments given as int tensors become attributes at bind.

``tf.zeros(tf.stack([tf.shape(x)[0], n]))``, ``tf.reshape(x, tf.stack([...]))``,
``tf.tile(x, multiples)``: TensorFlow computes such a shape when the graph runs.  A TinyFlow
executor is bound to its feeds' shapes, so a shape computed from shapes (``shape_of``),
constants and the small int ops over them (stack, slices, arithmetic; each one's
``FFoldValue``) is known when a session binds the graph.  The front end builds such a call as a
``shaped_by_value`` node (``TShapedByValue``): op ``target`` with the value of its last input
as its attribute ``shape_attr`` (or, ``shape_attr`` a tuple of names, those attributes, the
value cut in equal parts).  This pass infers shapes, folds each such node's last input
to its value (:func:`fold_value`) and rebuilds the node as ``target`` with that attribute, until
none is left; one whose value depends on a fed value (or a variable's, or an op's without
FFoldValue) raises :class:`ValuesAtRunTime`: the executor binds the graph in stages, those
values first.
"""
from __future__ import annotations

import functools

import numpy as np

from ..errors import BindError, TinyflowError
from ..graph import Graph, apply_passes, register_pass, rewrite
from ..op import Op
from ..symbol import Node, NodeEntry

__all__ = ["NotFoldable", "ValuesAtRunTime", "fold_shape_arguments", "fold_value",
           "shape_argument"]

_MAX_ROUNDS = 64  # a node resolved per round at least; a graph needing more is pathological


class NotFoldable(TinyflowError):
    """The value of an entry is not a function of shapes and constants; ``node`` is the node
    in the way, ``waiting`` True when only a shape not known yet stood in the way."""

    def __init__(self, message: str, node: Node, waiting: bool = False, entry=None):
        super().__init__(message)
        self.node, self.waiting, self.entry = node, waiting, entry  # entry: the value wanted


class ValuesAtRunTime(BindError):
    """Shape arguments whose values are known only when the graph runs (a fed value, a
    variable's, an op's without FFoldValue: ``tf.zeros([n])``, ``tf.range(tf.reduce_max(l))``):
    ``graph`` (shapes and types inferred so far) and ``entries``, the values in the way.  The
    executor binds such a graph in stages (executor/stages.py): the values first, then the
    rest per values they take; where it cannot (a loop's body), it is this BindError."""

    def __init__(self, message: str, graph: Graph, entries: list):
        super().__init__(message)
        self.graph, self.entries = graph, entries


def _inputs_done(node, values) -> bool:
    ignored = node.attr_list("FIgnoreInputs")
    return all(i in ignored or e in values for i, e in enumerate(node.inputs))


def fold_value(entry: NodeEntry, shape_of, known=None) -> np.ndarray:
    """The value of ``entry`` computed in numpy from ``shape_of(entry) -> tuple | None``, the
    values ``known`` of input nodes (``{Node: array}``: a later stage's, stages.py) and the
    ``FFoldValue`` rules of the ops on the way (iterative: no recursion limit); raises
    :class:`NotFoldable` naming the first node whose value cannot be had so."""
    values: dict = {}
    stack = [entry]  # entries whose values are wanted
    while stack:
        wanted = stack[-1]
        node = wanted.node
        if wanted in values:
            stack.pop()
            continue
        if known and node in known:
            values[NodeEntry(node, 0)] = np.asarray(known[node])
            stack.pop()
            continue
        rule = node.op.attr("FFoldValue") if node.op is not None else None
        if rule is None:
            raise NotFoldable(f"the value of {node.describe()}, known only when the graph "
                              f"runs", node, entry=wanted)
        ignored = node.attr_list("FIgnoreInputs")
        missing = [e for i, e in enumerate(node.inputs) if i not in ignored and e not in values]
        if missing:
            stack.extend(missing)
            continue
        shapes = [shape_of(e) for e in node.inputs]
        if any(s is None for i, s in enumerate(shapes) if i in ignored):
            raise NotFoldable(f"the shape of an input of {node.describe()}, not known yet",
                              node, waiting=True)
        outs = rule(node.attrs, [None if i in ignored else values[e]
                                 for i, e in enumerate(node.inputs)], shapes)
        values.update({NodeEntry(node, i): np.asarray(v) for i, v in enumerate(outs)})
        stack.pop()
    return values[entry]


def shape_argument(value: np.ndarray, what: str) -> tuple:
    """A folded value as a shape argument: a 1-D (or scalar) array of integers."""
    array = np.asarray(value)
    if array.ndim > 1 or array.dtype.kind not in "biuf" or (
            array.dtype.kind == "f" and not np.all(array == np.round(array))):
        raise BindError(f"{what}: its shape argument must be a 1-D integer tensor, got "
                        f"{array.tolist()!r} ({array.dtype})")
    return tuple(int(v) for v in array.reshape(-1))


def _inferred_shape(graph: Graph, entry: NodeEntry):
    return graph.attrs["shape"][graph.indexed.entry_id(entry)]


def _describe(node) -> str:
    return (f"op '{node.attrs['target']}' (node '{node.name}', created at {node.source})")


def _resolve(node, value) -> Node:
    attrs = {k: v for k, v in node.attrs.items() if k not in ("target", "shape_attr",
                                                                 "num_args", "scalar")}
    names, value = node.attrs["shape_attr"], shape_argument(value, _describe(node))
    if node.attrs.get("scalar"):  # an int attribute (one_hot's depth)
        if len(value) != 1:
            raise BindError(f"{_describe(node)}: its {names} must be one int, got {value}")
        attrs[names] = value[0]
    elif isinstance(names, str):
        attrs[names] = value
    else:  # several attributes (a slice's begin, end, strides): the value cut in equal parts
        size = len(value) // max(len(names), 1)
        if not names or size * len(names) != len(value):
            raise BindError(f"{_describe(node)}: {len(value)} values do not split into "
                            f"{', '.join(names)}")
        attrs.update({k: value[i * size:(i + 1) * size] for i, k in enumerate(names)})
    return Node(Op.get(node.attrs["target"]), node.name, attrs, node.inputs[:-1],
                node.control_deps, source=node.source, graph=node.graph)


def _after_run_time_shapes(node) -> bool:
    """Whether ``node`` is downstream of an op whose output is sized when it runs
    (TShapeAtRunTime: tf.where(c), a decoder's loop...)."""
    seen, stack = set(), [e.node for e in node.inputs]
    while stack:
        up = stack.pop()
        if up in seen or up.op is None:
            continue
        if up.op.attr("TShapeAtRunTime"):
            return True
        seen.add(up)
        stack.extend(e.node for e in up.inputs)
    return False


@register_pass("FoldShapeArguments")
def fold_shape_arguments(graph: Graph) -> Graph:
    """Rebuild every ``shaped_by_value`` node as its ``target`` op, the value of its shape
    argument folded from the shapes inferred so far (a round per chain of such nodes)."""
    for _ in range(_MAX_ROUNDS):
        pending = [n for n in graph.indexed.nodes
                   if n.op is not None and n.op.attr("TShapedByValue")]
        if not pending:
            return graph
        inferred = apply_passes(graph, "InferShape")
        shape_of = functools.partial(_inferred_shape, inferred)
        resolved, waiting, late = {}, None, {}
        for node in pending:
            try:
                value = fold_value(node.inputs[-1], shape_of, graph.attrs.get("input_values"))
            except NotFoldable as err:
                if not err.waiting:
                    late.setdefault(err.entry, (node, err))
                waiting = waiting or (node, err)
                continue
            resolved[node] = _resolve(node, value)
        if not resolved and late:  # the values first, when the graph runs (ValuesAtRunTime)
            node, err = next(iter(late.values()))
            raise ValuesAtRunTime(
                f"{_describe(node)}: its shape argument depends on {err}: an executor binds "
                f"such a graph in stages, the values first; a loop's body or a branch cannot",
                apply_passes(inferred, "InferType"), list(late))
        if not resolved:
            node, err = waiting
            if _after_run_time_shapes(err.node):  # its shape comes when the graph runs:
                return graph  # the executor binds the graph in stages (StagedBind), then folds
            raise BindError(f"{_describe(node)}: cannot compute its shape argument: {err}")
        graph = rewrite(graph, resolved.get, carried=())
    raise BindError(f"shape arguments still unresolved after {_MAX_ROUNDS} rounds")
