"""Nodes, entries and symbols: the graph as users build it.

A :class:`Node` is one op application (or, with ``op=None``, a variable or placeholder).  A
:class:`NodeEntry` is one output of a node.  A :class:`Symbol` is a list of entries and carries the
operator overloading (``x + 3``, ``3 - x``, ``x ** 2``, ``-x``).

Every registered op is callable from this module as ``symbol.<op name>(*inputs, name=None,
**attrs)`` right after :func:`~tinyflow.nnvm.op.register_op`.  Nodes go to the current
:class:`GraphContext` (``tf.Graph``), which names them, keeps the variables created so far and
named collections; tests reset it with :func:`reset_default_graph`, and a pass that builds nodes
(Gradient) names them with a :class:`Naming` of its own.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from typing import Any

import numpy as np

from .attrs import same_type
from .composite import CompositeTensor
from .devices import DeviceScopes
from .dtypes import as_dtype
from .errors import DTypeError, GraphError, TinyflowError
from .graph import Graph, NodeEntry, apply_passes
from .graph_def import GraphDef
from .op import Op
from .shape_checks import check_shapes
from .tensor_shape import _STAND_INS, TensorShape

__all__ = [
    "GraphContext",
    "Group",
    "Naming",
    "Node",
    "NodeEntry",
    "Symbol",
    "create_op",
    "current_context",
    "default_session",
    "get_default_session",
    "graph_input",
    "reset_default_graph",
    "slice_attrs",
    "static_shape",
]

DEFAULT_GRAPH_SEED = 87654321  # TensorFlow's, for an op seed given without a graph seed
_MAXINT32 = 2**31 - 1
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_site() -> str:
    """``file:line`` of the first frame outside the tinyflow package: where the user made a node."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep):
            return f"{filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"


def tf_type(op: Op) -> str:
    """TensorFlow's type of ``op``'s nodes: its ``TTFType``, else its name in CamelCase."""
    return op.attr("TTFType") or "".join(
        part[:1].upper() + part[1:] for part in op.name.split("_"))


class Node:
    """One op application; ``op is None`` for variables and placeholders."""

    __slots__ = ("__weakref__", "attrs", "control_deps", "graph", "inputs", "name", "op",
                 "source")

    def __init__(self, op, name, attrs=None, inputs=(), control_deps=(), source=None,
                 graph=None) -> None:
        self.op: Op | None = op
        self.name: str = name
        self.attrs: dict = dict(attrs or {})
        self.inputs: list[NodeEntry] = list(inputs)
        self.control_deps: list[Node] = list(control_deps)
        self.source: str = source or _user_site()
        self.graph: GraphContext = graph or current_context()

    @property
    def type(self) -> str:
        """TensorFlow's ``op.type``: the op's ``TTFType`` (``"MatMul"``, ``"Add"``...), else its
        name in CamelCase; ``"Placeholder"`` or ``"VariableV2"`` for a graph input."""
        if self.op is None:
            return "Placeholder" if self.kind == "placeholder" else "VariableV2"
        return tf_type(self.op)

    @property
    def kind(self) -> str:
        """``"placeholder"``, ``"variable"`` or the op name."""
        return self.attrs.get("kind", "variable") if self.op is None else self.op.name

    def num_outputs(self) -> int:
        return 1 if self.op is None else self.op.num_outputs(self.attrs)

    def guards(self) -> list:
        """The control deps whose value decides whether it runs (TGuard: a tf.cond branch's
        ``branch_guard``)."""
        return [c for c in self.control_deps if c.op is not None and c.op.attr("TGuard")]

    @property
    def outputs(self) -> list:
        """A tensor per output (TensorFlow's ``op.outputs``)."""
        return [Symbol([NodeEntry(self, i)]) for i in range(self.num_outputs())]

    def run(self, feed_dict=None, session=None) -> None:
        """Run this operation (``sess.run(op)``) in ``session`` or the default session."""
        entries = [NodeEntry(self, i) for i in range(self.num_outputs())]
        _session_for(session).run(Symbol(entries, is_operation=True), feed_dict)

    def with_edges(self, inputs, control_deps) -> Node:
        """A copy of this node reading ``inputs`` and waiting on ``control_deps`` (a rewrite
        never mutates a node)."""
        return Node(self.op, self.name, self.attrs, inputs, control_deps, source=self.source,
                    graph=self.graph)

    def attr_list(self, key: str) -> list:
        """Op attribute ``key`` given as a list or as ``f(attrs) -> list`` (FMutateInputs,
        FInplaceOption, FIgnoreInputs), for this node; ``[]`` when unset or for a variable."""
        value = self.op.attr(key) if self.op is not None else None
        if value is None:
            return []
        return list(value(self.attrs) if callable(value) else value)

    def describe(self) -> str:
        """``op 'matmul' (node 'matmul3', created at train.py:12)`` for error messages."""
        return f"{self.kind} '{self.name}' (created at {self.source})" if self.op is None else \
            f"op '{self.op.name}' (node '{self.name}', created at {self.source})"

    @property
    def control_inputs(self) -> list:
        """The nodes this one waits for (TensorFlow's ``op.control_inputs``)."""
        return list(self.control_deps)

    def values(self) -> tuple:
        """The outputs as a tuple (TensorFlow's ``op.values()``)."""
        return tuple(self.outputs)

    def get_attr(self, name: str):
        """Attribute ``name`` of this node; ValueError naming it when there is none, as TF's."""
        if name not in self.attrs:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'")
        return self.attrs[name]

    def __repr__(self) -> str:
        return f"<tf.Operation '{self.name}' type={self.type}>"


class Naming:
    """How new nodes are named: TensorFlow's rule (``name``, then ``name_1``, ``name_2``...)
    under the current name scope, with the counters that keep names unique.

    Parameters
    ----------
    prefix : str
        The name scope (``"conv1/"``; ``""`` at the root).
    counts : dict, optional
        Names in use, lower-cased -> how often asked for; shared by the scopes of one graph.  A pass names
        its nodes with counters of its own, so the same graph gives the same names.
    source : str, optional
        The ``file:line`` nodes made here are said to come from; None: the user's line that
        made them.  A pass sets it to the node it is working on.
    """

    def __init__(self, prefix: str = "", counts: dict | None = None, source: str | None = None):
        self.prefix = prefix
        self.counts = {} if counts is None else counts
        self.source = source

    def unique_name(self, hint: str) -> str:
        """``prefix + hint``, with ``_1``, ``_2``... added when that name is in use.  As in
        TensorFlow 1.15, names are compared ignoring case (``add`` then ``Add_1``) and keep the
        capitalisation asked for."""
        name = f"{self.prefix}{hint}"
        key = name.lower()
        used = self.counts.get(key, 0)
        self.counts[key] = used + 1
        if used == 0:
            return name
        while f"{key}_{used}" in self.counts:
            used += 1
        self.counts[f"{key}_{used}"] = 1
        return f"{name}_{used}"


class GraphContext(DeviceScopes):
    """A graph being built (``tf.Graph``): the naming of new nodes, the nodes by name, the
    variables created, named collections and the graph-level random seed (``graph.seed``).

    ``with graph.as_default():`` makes it the graph new nodes go to in this thread; outside any
    such block, that is the process's default graph (:func:`reset_default_graph`).
    """

    def __init__(self) -> None:
        self.naming = Naming()
        self.nodes_by_name: dict[str, Node] = {}
        self.variables: list = []  # tinyflow.nnvm.variables.Variable symbols, in creation order
        self.collections: dict[str, list] = {}  # TF's graph collections, by key
        self.seed: int | None = None  # the graph-level random seed (tf.set_random_seed)
        self.variable_scope = None  # the front end's variable scopes (tinyflow.variable_scope)
        self.control_inputs: list[Node] = []  # what every op made now waits for
        self.loop_inputs: set = set()  # tf.while_loop's loop variables' placeholders
        self.entry_dtypes: dict = {}  # NodeEntry -> dtype, as far as create_op could tell
        self.entry_shapes: dict = {}  # NodeEntry -> shape as create_op found it (None: unknown dim)
        self.shape_hints: dict = {}  # NodeEntry -> TensorShape given by tensor.set_shape
        # NodeEntry -> the static shape it declares whatever its input's (placeholder_with_default)
        self.declared_shapes: dict = {}
        self.finalized: bool = False  # tf.Graph.finalized: no op may be added (finalize())
        self.recompute_hints: dict = {}  # node name -> recompute? (tf.recompute_scope)
        self.pulls_outputs: bool = False  # holds a node whose op has FPullOutputs (get_next)
        self.gradient_overrides: dict = {}  # TF op type -> registered gradient's name
        self.keras: dict = {}  # tf.keras's state of this graph (layer names, learning phase)

    def op_seeds(self, op_seed) -> tuple:
        """The two seeds ``(seed, seed2)`` an op made now uses, from ``op_seed`` and this
        graph's seed: TensorFlow 1.15's rule (``tf.get_seed``).

        =================  ==============  ===================================================
        graph seed         op seed         seeds
        =================  ==============  ===================================================
        set                None            graph seed, the graph's node count (TF's last op id)
        set                given           graph seed, op seed
        None               given           87654321 (TF's default graph seed), op seed
        None               None            None, None: torch's global generator
        =================  ==============  ===================================================

        Seeds are taken modulo 2**31 - 1, and ``(0, 0)`` becomes ``(0, 2**31 - 1)`` as in TF.
        """
        if self.seed is not None:
            if op_seed is None:
                op_seed = len(self.nodes_by_name)  # each op made since adds one: distinct seeds
            seeds = self.seed % _MAXINT32, int(op_seed) % _MAXINT32
        elif op_seed is not None:
            seeds = DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
        else:
            seeds = None, None
        return (0, _MAXINT32) if seeds == (0, 0) else seeds

    def finalize(self) -> None:
        """Make this graph read-only (``tf.Graph.finalize``): creating an op in it from now on
        raises RuntimeError, as TensorFlow's, which catches a training loop that keeps adding
        nodes at every step."""
        self.finalized = True

    def check_open(self) -> None:
        """RuntimeError when the graph is finalized (TensorFlow's message)."""
        if self.finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops made inside the ``with`` block run after ``control_inputs`` (tensors, operations
        or nodes), and after those of enclosing blocks; ``None`` clears those (TensorFlow's
        ``Graph.control_dependencies``)."""
        previous = self.control_inputs
        nodes = [] if control_inputs is None else [
            node for c in control_inputs for node in _nodes_of(c)]
        self.control_inputs = ([] if control_inputs is None else previous) + [
            n for n in dict.fromkeys(nodes) if n not in previous]
        try:
            yield
        finally:
            self.control_inputs = previous

    def unique_name(self, hint: str) -> str:
        """A new name for ``hint`` under the current name scope (TensorFlow's rule)."""
        return self.naming.unique_name(hint)

    def claim_name(self, name: str) -> str:
        """``name`` as it is (no scope put before it), made unique in the graph."""
        return Naming("", self.naming.counts).unique_name(name)

    @contextlib.contextmanager
    def as_default(self):
        """Make this the current graph of this thread inside the ``with`` block."""
        stack = _DefaultGraph.stack()
        stack.append(self)
        try:
            yield self
        finally:
            stack.remove(self)

    @contextlib.contextmanager
    def use_naming(self, naming: Naming):
        """Name the nodes made inside the ``with`` block by ``naming``."""
        previous, self.naming = self.naming, naming
        try:
            yield naming
        finally:
            self.naming = previous

    @contextlib.contextmanager
    def name_scope(self, name: str | None):
        """TensorFlow's name scope: names made inside start with the scope's unique name
        (``"conv1/"``, ``"conv1_1/"`` the second time); a name ending in ``/`` re-enters that
        scope as it is; None or ``""`` goes back to the root.  Yields the scope (``"conv1/"``)."""
        if not name:
            prefix = ""
        elif name.endswith("/"):
            prefix = name
        else:
            prefix = self.naming.unique_name(name) + "/"
        with self.use_naming(Naming(prefix, self.naming.counts, self.naming.source)):
            yield prefix

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict):
        """Ops of the types ``op_type_map`` names (``{"Square": "MyGrad"}``) made inside the
        ``with`` block take the gradient registered under the name it gives them
        (``tf.RegisterGradient``), held by name in their attribute ``_gradient_op_type``."""
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in op_type_map.items()):
            raise TypeError("gradient_override_map: op types and gradient names must be strings")
        previous = self.gradient_overrides
        self.gradient_overrides = {**previous, **op_type_map}
        try:
            yield
        finally:
            self.gradient_overrides = previous

    def add_to_collection(self, key: str, value) -> None:
        self.collections.setdefault(key, []).append(value)

    def get_collection(self, key: str, scope: str | None = None) -> list:
        """A copy of the collection ``key`` (empty when there is none); with ``scope``, the
        values whose ``name`` matches it from the start (``re.match``, TensorFlow's filter)."""
        values = list(self.collections.get(key, ()))
        return values if scope is None else [
            v for v in values if re.match(scope, getattr(v, "name", "") or "")]

    def add_to_collections(self, names, value) -> None:
        for key in dict.fromkeys([names] if isinstance(names, str) else names):
            self.add_to_collection(key, value)

    def get_name_scope(self) -> str:
        """The current name scope (``"outer/inner"``; ``""`` at the root)."""
        return self.naming.prefix.rstrip("/")

    def get_collection_ref(self, key: str) -> list:
        """The collection ``key`` itself (made empty if missing), for the caller to change."""
        return self.collections.setdefault(key, [])

    def get_all_collection_keys(self) -> list:
        return list(self.collections)

    def clear_collection(self, key: str) -> None:
        self.collections.pop(key, None)

    def get_operations(self) -> list:
        """Every node of this graph, ops and inputs, in the order they were made (TensorFlow's
        ``graph.get_operations()``)."""
        return list(self.nodes_by_name.values())

    def tensor(self, entry: NodeEntry) -> Symbol:
        """The tensor an entry of this graph is (TensorFlow's ``op.inputs[i]``)."""
        return Symbol([entry])

    def get_tensor_by_name(self, name: str) -> Symbol:
        """The tensor named ``"<node>:<output>"``; TF's KeyError naming ``name`` if there is
        none, its ValueError for a name of another form."""
        node_name, colon, index = name.rpartition(":")
        if not colon or not index.isdigit():
            raise ValueError(f"The name {name!r} " + (
                "looks a like a Tensor name, but is not a valid one" if colon else
                "refers to an Operation, not a Tensor" if name in self.nodes_by_name else
                "looks like an (invalid) Operation name, not a Tensor") + '. Tensor names '
                'must be of the form "<op_name>:<output_index>".')
        node = self.nodes_by_name.get(node_name)
        if node is None or int(index) >= node.num_outputs():
            raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The "
                           f"operation, {node_name!r}, " + ("does not exist in the graph." if
                           node is None else f"exists but only has {node.num_outputs()} "
                                             f"outputs."))
        return Symbol([NodeEntry(node, int(index))])

    def get_operation_by_name(self, name: str) -> Symbol:
        """The operation named ``name`` (running it gives None); KeyError if there is none."""
        node = self.nodes_by_name.get(name)
        if node is None:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")
        return Symbol([NodeEntry(node, i) for i in range(node.num_outputs())], is_operation=True)

    def as_graph_def(self, from_version=None, add_shapes=False) -> GraphDef:
        """Every node of this graph in TinyFlow's graph format (:mod:`.graph_def`); a node
        that cannot be written (a ``tf.py_func``'s Python function) is a GraphError."""
        heads = [NodeEntry(n, i) for n in self.nodes_by_name.values()
                 for i in range(n.num_outputs())]
        try:
            return GraphDef(apply_passes(Graph(heads), ["SaveJSON"]).attrs["json"])
        except (TypeError, ValueError) as err:
            raise GraphError(f"cannot write the graph def: {err}") from None

    def variable(self, node: Node):
        """The variable symbol declared here for variable ``node``, or None."""
        return next((v for v in self.variables if v.node is node), None)

    def __repr__(self) -> str:
        return f"<tinyflow.Graph {len(self.nodes_by_name)} nodes>"


class _DefaultGraph:
    """The process's default graph, and per thread the graphs entered with ``as_default()``
    (TensorFlow keeps the same two)."""

    graph = GraphContext()
    local = threading.local()

    @classmethod
    def stack(cls) -> list:
        if not hasattr(cls.local, "stack"):
            cls.local.stack = []
        return cls.local.stack


def current_context() -> GraphContext:
    """The graph new nodes go to: the innermost ``as_default()`` of this thread, else the
    process's default graph."""
    stack = _DefaultGraph.stack()
    return stack[-1] if stack else _DefaultGraph.graph


def reset_default_graph() -> GraphContext:
    """Replace the process's default graph by a new, empty one; returns it."""
    _DefaultGraph.graph = GraphContext()
    return _DefaultGraph.graph


def _normalize_attr(value):
    """Lists become tuples so attributes compare, hash and serialise the same way."""
    if isinstance(value, (list, tuple)):
        return tuple(_normalize_attr(v) for v in value)
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:  # numpy scalar
        return value.item()
    return value


def _nodes_of(thing) -> list[Node]:
    """The nodes a control dependency on ``thing`` (a node, tensor or operation) waits for."""
    if isinstance(thing, Node):
        return [thing]
    if isinstance(thing, Symbol):
        return list(dict.fromkeys(e.node for e in thing.outputs))
    raise TypeError(f"a control input must be a tensor or an operation, got {thing!r}")


def _check_dtypes(node: Node) -> None:
    """Raise a dtype mismatch where the op is made, as TensorFlow does: the op's FInferType on
    its inputs' dtypes, when each is known (a graph input's, or what this check found for the
    op making it); the InferType pass still checks the whole graph when it is bound."""
    known = node.graph.entry_dtypes
    in_types = [known.get(e) if e.node.op is not None else e.node.attrs.get("dtype", "float32")
                for e in node.inputs]
    if None in in_types:
        return
    rule = node.op.attr("FInferType", same_type)  # the InferType pass's default too
    try:
        checked, outs = rule(node.attrs, list(in_types), [None] * node.num_outputs())
    except (DTypeError, TypeError) as err:
        raise DTypeError(f"{node.describe()}: {err}; input types {', '.join(in_types)}") from None
    for index, (given, wanted) in enumerate(zip(in_types, checked)):
        if wanted is not None and wanted != given:
            raise DTypeError(f"{node.describe()}: input {index} must be {wanted}, got {given}; "
                             f"input types {', '.join(in_types)}")
    known.update({NodeEntry(node, i): t for i, t in enumerate(outs) if t is not None})


def create_op(op_name: str, *inputs, name: str | None = None, **attrs) -> Symbol:
    """Apply op ``op_name`` to ``inputs`` (symbols) and return the output symbol.

    The node is named ``name`` under the current name scope, made unique in the graph as
    TensorFlow does (``name_1``, whatever the case); by default its TensorFlow type (``MatMul``,
    as TF's generated op functions name theirs); a name ending in ``/`` (a scope's) is taken as
    it is.  Trailing inputs left out are created as variables named ``<node name>_<input
    name>`` when the op declares ``FListInputNames`` (NNVM's automatic variable creation); such
    an op's nodes are named by default by the op name, so ``conv2d_weight`` keeps its name.
    """
    op = Op.get(op_name)
    attrs = {k: _normalize_attr(v) for k, v in attrs.items() if v is not None}
    graph = current_context()
    graph.check_open()
    if name and name.endswith("/"):  # a name scope's name: the node takes it as it is (TF's)
        name = name[:-1]
    else:
        name = graph.unique_name(name or (op_name if op.attr("FListInputNames") else
                                          tf_type(op)))
    entries = []
    for i, x in enumerate(inputs):
        x = Symbol([x]) if isinstance(x, NodeEntry) else x  # an op.inputs[i]
        if not isinstance(x, Symbol):
            raise TypeError(f"input {i} of op '{op_name}' (node '{name}') must be a Symbol, "
                            f"got {type(x).__name__}")
        if x.is_operation:
            raise TypeError(f"input {i} of op '{op_name}' (node '{name}') is the operation "
                            f"'{x.name}', which has no value: pass a tensor")
        if len(x.outputs) != 1:
            raise GraphError(f"input {i} of op '{op_name}' (node '{name}') has "
                             f"{len(x.outputs)} outputs; pick one with sym[i]")
        entries.append(x.outputs[0])
    num_inputs = op.num_inputs(attrs)
    if len(entries) < num_inputs:
        list_names = op.attr("FListInputNames")
        if list_names is None:
            raise GraphError(f"op '{op_name}' (node '{name}') takes {num_inputs} inputs, "
                             f"got {len(entries)}")
        on_compose = op.attr("FSetInputVarAttrOnCompose")
        input_names = list_names(attrs)
        for index in range(len(entries), num_inputs):
            var = graph_input(graph.claim_name(f"{name}_{input_names[index]}"))
            if on_compose is not None:  # e.g. registers the variable with an initialiser
                on_compose(attrs, var.node, index)
            entries.append(var.outputs[0])
    elif len(entries) > num_inputs:
        raise GraphError(f"op '{op_name}' (node '{name}') takes {num_inputs} inputs, "
                         f"got {len(entries)}")
    node = Node(op, name, attrs, entries, graph.control_inputs,
                source=graph.naming.source or _user_site(), graph=graph)
    if node.type in graph.gradient_overrides:  # Graph.gradient_override_map
        node.attrs["_gradient_op_type"] = graph.gradient_overrides[node.type]
    _check_dtypes(node)
    check_shapes(node)
    if op.attr("FCheckNode") and (refused := op.attr("FCheckNode")(node)):
        raise GraphError(f"op '{op_name}' (node '{name}') cannot run: {refused}")
    graph.nodes_by_name[name] = node
    graph.pulls_outputs = graph.pulls_outputs or op.attr("FPullOutputs") is not None
    visible = op.attr("FNumVisibleOutputs")
    count = node.num_outputs() if visible is None else visible(attrs)
    return Symbol([NodeEntry(node, i) for i in range(count)])


def graph_input(name: str, **attrs) -> Symbol:
    """A graph input (a node without op: NNVM's ``Variable``) named ``name`` as it is (make it
    unique first with ``GraphContext.unique_name``).  ``kind="placeholder"`` marks a fed input,
    ``kind="variable"`` (the default) one a session keeps (``tf.Variable`` declares it)."""
    graph = current_context()
    graph.check_open()
    node = Node(None, name, {k: _normalize_attr(v) for k, v in attrs.items()},
                source=_user_site(), graph=graph)
    graph.nodes_by_name[name] = node
    return Symbol([NodeEntry(node, 0)])


def Group(symbols) -> Symbol:
    """An operation running every output of ``symbols``; fetching it gives None."""
    outputs = []
    for s in symbols:
        outputs.extend(s.outputs)
    return Symbol(outputs, is_operation=True)


def _scalar_op(op_name, scalar_op_name, tf_name, reflected=False):
    tensor_op = _number_op(op_name, tf_name, reflected)

    def method(self, other):
        if not isinstance(other, Symbol) and (isinstance(other, (int, float))
                                              or getattr(other, "shape", None) == ()):
            return create_op(scalar_op_name, self, scalar=float(other), name=tf_name)
        return tensor_op(self, other)
    return method


def _number_op(op_name, tf_name, reflected=False):
    """Operators of ops without a scalar form (``x // 2``, ``x < 0``, ``b & True``), and any
    operator with an array or a list (``x * np.ones(3)``): it becomes a constant of the
    symbol's dtype (op ``_constant_like``), as TF converts it, and a list holding tensors
    their stack (TF's autopacking: ``x * [t, 3.0]``).  The node is named ``tf_name`` as TF's
    operators name theirs (``mul``, ``mul_1``...), the converted operand ``<tf_name>/y``."""
    def method(self, other):
        if isinstance(other, CompositeTensor) and other._as_tensor() is not None:
            other = other._as_tensor()  # an IndexedSlices: its dense tensor, as TF converts it
        if not isinstance(other, (Symbol, int, float, list, tuple)) and \
                not hasattr(other, "shape"):
            return NotImplemented
        with current_context().name_scope(tf_name) as scope:
            if not isinstance(other, Symbol):
                other = _converted(other, self, "x" if reflected else "y")
            return create_op(op_name, *((other, self) if reflected else (self, other)),
                             name=scope)
    return method


def _holds_tensors(value) -> bool:
    return isinstance(value, (list, tuple)) and any(
        isinstance(v, Symbol) or _holds_tensors(v) for v in value)


def _converted(value, like: Symbol, name: str) -> Symbol:
    """``value`` beside tensor ``like`` as TF converts it to ``like``'s dtype: a constant, or
    a list holding tensors stacked, its tensors cast and its numbers constants (TF's
    ``_autopacking_helper``: node ``name``, its items named by their index)."""
    if not _holds_tensors(value):
        array = np.asarray(value)
        if array.dtype.kind not in "biuf":
            raise TypeError(f"Expected {like.dtype.name}, got {value!r} "
                            f"of type '{type(value).__name__}' instead")
        return create_op("_constant_like", like, value=tuple(array.ravel().tolist()),
                         shape=array.shape, name=name)
    dtype, items = like.dtype, []
    for item in value:
        if isinstance(item, Symbol) and item.dtype != dtype:
            item = create_op("cast", item, dtype=dtype.name)
        items.append(item)
    with current_context().name_scope(name) as scope:
        items = [item if isinstance(item, Symbol) else _converted(item, like, str(index))
                 for index, item in enumerate(items)]
        return create_op("stack", *items, num_args=len(items), axis=0, name=scope)


class Symbol:
    """A list of node entries: what ops take and return, and what ``Session.run`` fetches.

    ``is_operation`` marks a symbol run for its effect (``tf.group``, an optimizer step):
    ``Session.run`` gives None for it instead of copying its outputs out.
    """

    __array_ufunc__ = None  # numpy scalars on the left defer to our reflected operators

    def __init__(self, outputs, is_operation: bool = False) -> None:
        self.outputs: list[NodeEntry] = list(outputs)
        self.is_operation = is_operation

    # -- structure --------------------------------------------------------------------------
    @property
    def node(self) -> Node:
        """The node of a single-output symbol."""
        if len(self.outputs) != 1:
            raise GraphError("this symbol has several outputs; pick one with sym[i]")
        return self.outputs[0].node

    @property
    def name(self) -> str:
        """TensorFlow's names: ``"<op>:<i>"`` for a tensor (``"conv1/weights:0"``), the op's
        own name for an operation (``tf.group``, an optimizer step, ``get_operation_by_name``)."""
        if self.is_operation:
            return self.outputs[0].node.name
        entry = self.outputs[0] if len(self.outputs) == 1 else None
        if entry is None:
            raise GraphError("this symbol has several outputs; pick one with sym[i]")
        return f"{entry.node.name}:{entry.index}"

    @property
    def op(self) -> Node:
        """The node of a single-output symbol (TensorFlow's ``tensor.op``)."""
        return self.node

    value_index = property(lambda self: self.outputs[0].index,
                           doc="Which output of its op the tensor is (TF's value_index).")

    def consumers(self) -> list:
        """The nodes reading this tensor (TensorFlow's ``tensor.consumers()``)."""
        return [n for n in self.graph.nodes_by_name.values() if self.outputs[0] in n.inputs]

    def __getattr__(self, name: str):
        # an operation (tf.group's, an optimizer step) is TF's Operation: its node's attributes
        if name in ("type", "inputs", "control_inputs", "get_attr", "values") and \
                self.__dict__.get("is_operation"):
            return getattr(self.outputs[0].node, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}",
                             name=name, obj=self)

    @property
    def graph(self) -> GraphContext:
        """The graph the symbol's nodes belong to."""
        return self.outputs[0].node.graph

    @property
    def dtype(self):
        """The element type inference gives (a :class:`~tinyflow.nnvm.dtypes.DType`)."""
        graph = apply_passes(Graph(self.outputs[:1]), "InferType")
        return as_dtype(graph.attrs["dtype"][graph.indexed.outputs[0]] or "float32")

    def get_shape(self) -> TensorShape:
        """The static shape: what inference knows before anything is fed (``[None, 10]``),
        merged with what :meth:`set_shape` said."""
        entry = self.outputs[0]
        hint = self.graph.shape_hints.get(entry)
        known = self.graph.declared_shapes.get(entry)
        known = static_shape(entry) if known is None else known
        return known if hint is None else known.merge_with(hint)

    def set_shape(self, shape) -> None:
        """Tell the static shape more (``x.set_shape([None, 784])``); ValueError when it
        contradicts what is known, as TensorFlow's."""
        self.graph.shape_hints[self.outputs[0]] = self.get_shape().merge_with(shape)

    shape = property(get_shape)

    def eval(self, feed_dict=None, session=None) -> Any:
        """``session.run(self, feed_dict)``; the default session when ``session`` is None."""
        return _session_for(session).run(self, feed_dict)

    def run(self, feed_dict=None, session=None) -> None:
        """Run this operation (an optimizer step, a group): ``session.run(self, feed_dict)``."""
        _session_for(session).run(self, feed_dict)

    def __getitem__(self, index) -> Symbol:
        """Output ``index`` of a symbol with several outputs; else TensorFlow's slicing of the
        one tensor (``x[0]``, ``x[:, 1:3]``, ``x[..., ::-1]``, ``x[:, None]``)."""
        if len(self.outputs) > 1:
            return Symbol([self.outputs[index]])
        return _slice(self, index)

    def __iter__(self):
        """The outputs of a symbol with several; a tensor is not iterable (TensorFlow 1.x in
        graph mode): unstack it with ``tf.unstack``."""
        if len(self.outputs) > 1:
            return iter([Symbol([e]) for e in self.outputs])
        raise TypeError("a tensor is not iterable in graph mode: use tf.unstack, or x[i]")

    def __len__(self) -> int:
        return len(self.outputs)

    def list_output_names(self) -> list[str]:
        return [e.node.name if e.node.num_outputs() == 1 else f"{e.node.name}_output{e.index}"
                for e in self.outputs]

    def _shape_and_dtype(self) -> tuple:
        """What printing shows of the static shape and dtype (None for what cannot be told)."""
        try:
            return self.get_shape(), self.dtype.name
        except TinyflowError:  # a graph that does not infer still prints
            return TensorShape(None), None

    def __str__(self) -> str:
        """TensorFlow 1.15's ``Tensor("dense/BiasAdd:0", shape=(?, 10), dtype=float32)``."""
        if self.is_operation or len(self.outputs) != 1:
            return repr(self)
        shape, dtype = self._shape_and_dtype()
        shown = "" if shape.ndims is None else f", shape={shape}"
        return f'Tensor("{self.name}"{shown}{"" if dtype is None else f", dtype={dtype}"})'

    def __repr__(self) -> str:
        """``<tf.Tensor 'x:0' shape=(?, 10) dtype=float32>``; an operation (``tf.group``, a
        train step) as its node, ``<tf.Operation 'train' type=no_op>``."""
        if self.is_operation:
            return repr(self.outputs[0].node)
        if len(self.outputs) != 1:
            return f"<Symbol {', '.join(self.list_output_names())}>"
        shape, dtype = self._shape_and_dtype()
        return f"<tf.Tensor '{self.name}' shape={shape} dtype={dtype}>"

    # -- operators ----------------------------------------------------------------------------
    # the nodes named as TF 1.15's operators name theirs (x * y is "mul", x < y "Less")
    __add__ = _scalar_op("elemwise_add", "__add_scalar__", "add")
    __radd__ = _scalar_op("elemwise_add", "__add_scalar__", "add", reflected=True)
    __sub__ = _scalar_op("elemwise_sub", "__sub_scalar__", "sub")
    __rsub__ = _scalar_op("elemwise_sub", "__rsub_scalar__", "sub", reflected=True)
    __mul__ = _scalar_op("elemwise_mul", "__mul_scalar__", "mul")
    __rmul__ = _scalar_op("elemwise_mul", "__mul_scalar__", "mul", reflected=True)
    __truediv__ = _scalar_op("elemwise_div", "__div_scalar__", "truediv")
    __rtruediv__ = _scalar_op("elemwise_div", "__rdiv_scalar__", "truediv", reflected=True)
    __pow__ = _scalar_op("elemwise_pow", "__pow_scalar__", "pow")
    __rpow__ = _scalar_op("elemwise_pow", "__rpow_scalar__", "pow", reflected=True)

    # TensorFlow's other tensor operators (== stays identity, as in TF 1.x)
    __floordiv__ = _number_op("floordiv", "floordiv")
    __rfloordiv__ = _number_op("floordiv", "floordiv", reflected=True)
    __mod__ = _number_op("mod", "mod")
    __rmod__ = _number_op("mod", "mod", reflected=True)
    __lt__, __le__ = _number_op("less", "Less"), _number_op("less_equal", "LessEqual")
    __gt__ = _number_op("greater", "Greater")
    __ge__ = _number_op("greater_equal", "GreaterEqual")
    __and__, __rand__ = _number_op("logical_and", "and"), _number_op("logical_and", "and", True)
    __or__, __ror__ = _number_op("logical_or", "or"), _number_op("logical_or", "or", True)

    def __xor__(self, other):  # TF 1.15's logical_xor: (x or y) and not (x and y), "xor"
        with current_context().name_scope("xor") as scope:
            other = other if isinstance(other, Symbol) else _converted(other, self, "y")
            return create_op("logical_and", create_op("logical_or", self, other), create_op(
                "logical_not", create_op("logical_and", self, other)), name=scope)

    __rxor__ = __xor__

    def __invert__(self):
        return create_op("logical_not", self)

    def __abs__(self):
        return create_op("abs", self)

    def __neg__(self):
        return create_op("negative", self)

    # Symbols are graph nodes, not values: keep them usable as dict keys (feed_dict).
    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other

    def __bool__(self):
        return True


class _DefaultSessions(threading.local):
    """Per thread, the sessions entered with ``with sess:`` / ``sess.as_default()`` (kept here,
    as TensorFlow's ops.py keeps them, so ``tensor.eval()`` finds one without importing the
    session)."""

    def __init__(self):
        self.stack: list = []


_DEFAULT_SESSIONS = _DefaultSessions()


def get_default_session() -> Any:
    """The innermost session entered in this thread (``with tf.Session() as sess:``), or None."""
    stack = _DEFAULT_SESSIONS.stack
    return stack[-1] if stack else None


@contextlib.contextmanager
def default_session(session):
    """Make ``session`` the default one of this thread inside the ``with`` block."""
    _DEFAULT_SESSIONS.stack.append(session)
    try:
        yield session
    finally:
        _DEFAULT_SESSIONS.stack.remove(session)


def _session_for(session):
    """``session``, or the default one (``with tf.Session() as sess``, InteractiveSession)."""
    if session is not None:
        return session
    found = get_default_session()
    if found is None:
        raise ValueError("no default session: pass session=, run inside 'with tf.Session() as "
                         "sess:', or use tf.InteractiveSession()")
    return found


def _index_int(value, index):
    if isinstance(value, Symbol):  # an int tensor: strided_slice's FTensorIndex builds it
        return value
    if isinstance(value, int) or hasattr(value, "__index__"):
        return int(value)  # an int or a numpy integer
    raise TypeError(f"only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                    f"scalar int32/int64 tensors are valid indices in TinyFlow, got {value!r} "
                    f"in {index!r}")


def slice_attrs(index) -> dict:
    """``tensor[index]`` as TensorFlow reads it (its ``_slice_helper``): strided_slice's begin,
    end, strides and masks; each entry of the index is an int (taken, its axis dropped), a
    slice, ``...`` or ``None`` (a new axis).  A tensor stays a tensor in begin, end or strides."""
    spec = index if isinstance(index, (tuple, list)) else (index,)
    begin, end, strides, masks = [], [], [], dict.fromkeys(
        ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"), 0)
    for i, item in enumerate(spec):
        bit = 1 << i
        if isinstance(item, slice):
            for key, bound, values in (("begin_mask", item.start, begin),
                                       ("end_mask", item.stop, end)):
                values.append(0 if bound is None else _index_int(bound, index))
                masks[key] |= bit if bound is None else 0
            strides.append(1 if item.step is None else _index_int(item.step, index))
            continue
        if item is None or item is Ellipsis:
            begin.append(0)
            end.append(0)
            masks["new_axis_mask" if item is None else "ellipsis_mask"] |= bit
        else:
            begin.append(_index_int(item, index))
            end.append(begin[-1] + 1)
            masks["shrink_axis_mask"] |= bit
        strides.append(1)
    return dict(begin=tuple(begin), end=tuple(end), strides=tuple(strides), **masks)


def _slice(tensor, index) -> Symbol:
    """``tensor[index]``: a strided_slice; an index holding tensors (``x[i]``, ``x[1:n]``) is
    built by strided_slice's FTensorIndex (tinyflow/ops/indexing.py)."""
    spec = index if isinstance(index, (tuple, list)) else (index,)
    if any(isinstance(v, Symbol) for item in spec for v in (
            (item.start, item.stop, item.step) if isinstance(item, slice) else (item,))):
        return Op.get("strided_slice").attr("FTensorIndex")(tensor, tuple(spec))
    return create_op("strided_slice", tensor, **slice_attrs(spec), name="strided_slice")


def static_shape(entry) -> TensorShape:
    """What inference knows of ``entry``'s shape before anything is fed (see module doc); when
    that is not even its rank, what it knows reading the tensors told a shape by
    ``set_shape`` as that shape (a dynamic_rnn's outputs), as TensorFlow's inference does."""
    known = _inferred(_cut_declared(Graph([entry])))
    if known.dims is None and entry.node.graph.shape_hints:
        known = _inferred(_cut_declared(Graph([entry]), hints=True))
    if known.dims is None and entry in entry.node.graph.entry_shapes:  # an unknown dim met a
        known = TensorShape(entry.node.graph.entry_shapes[entry])  # known one (shape_checks)
    return known


def _inferred(graph: Graph) -> TensorShape:
    """Inference of ``graph``'s output with each of the two stand-ins for unknown sizes."""
    runs = []
    for stand_in in _STAND_INS:
        known = {}
        for nid in graph.indexed.input_nodes:
            node = graph.indexed.nodes[nid]
            declared = node.attrs.get("shape") if node.kind == "placeholder" else None
            if declared is not None:
                known[node] = tuple(stand_in if d is None or d < 0 else d for d in declared)
        try:
            inferred = apply_passes(graph.with_attrs(shape_inputs=known), "InferShape")
        except TinyflowError:
            return TensorShape(None)
        runs.append(inferred.attrs["shape"][inferred.indexed.outputs[0]])
    if runs[0] is None or runs[1] is None or len(runs[0]) != len(runs[1]):
        return TensorShape(None)
    return TensorShape([a if a == b else None for a, b in zip(*runs)])


def _cut_declared(graph: Graph, hints: bool = False) -> Graph:
    """``graph`` with each entry that declares its static shape (placeholder_with_default),
    and with ``hints`` each told a rank at least by ``set_shape``, read as a placeholder of
    that shape, as a feed of it would be (CutFeeds)."""
    def shape_of(entry):
        graph_of = entry.node.graph
        shape = graph_of.declared_shapes.get(entry)
        hint = graph_of.shape_hints.get(entry) if hints else None
        return hint if shape is None and hint is not None and hint.dims is not None else shape
    if not any(e.node.graph.declared_shapes or hints for e in graph.outputs):  # usual, cheap
        return graph
    declared = {}
    for node in graph.indexed.nodes:
        for entry in (NodeEntry(node, i) for i in range(node.num_outputs())):
            shape = shape_of(entry)
            if shape is not None:
                dims = None if shape.dims is None else tuple(d.value for d in shape.dims)
                declared[entry] = Node(None, node.name, {"kind": "placeholder", "shape": dims},
                                       source=node.source, graph=node.graph)
    return apply_passes(graph.with_attrs(fed_entries=declared), "CutFeeds") if declared \
        else graph


def __getattr__(name: str):
    """``symbol.<op>`` for every registered op (NNVM's generated op functions)."""
    if name.startswith("__") and name.endswith("__") and name not in Op._registry:
        raise AttributeError(name)
    try:
        Op.get(name)
    except KeyError:
        raise AttributeError(f"module 'tinyflow.nnvm.symbol' has no op {name!r}") from None

    def op_function(*inputs, name=None, **attrs):
        return create_op(op_function.op_name, *inputs, name=name, **attrs)
    op_function.op_name = name
    op_function.__name__ = name
    op_function.__doc__ = Op.get(name).description
    return op_function
