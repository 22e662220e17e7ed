"""Nodes, entries and symbols: the graph as users build it.

A :class:`Node` is one op application (or, with ``op=None``, a variable or placeholder).  A
:class:`NodeEntry` is one output of a node.  A :class:`Symbol` is a list of entries and carries the
operator overloading (``x + 3``, ``3 - x``, ``x ** 2``, ``-x``).

Every registered op is callable from this module as ``symbol.<op name>(*inputs, name=None,
**attrs)`` right after :func:`~tinyflow.nnvm.op.register_op`.  Names come from the current
:class:`GraphContext`, which also keeps the variables created so far; tests reset it with
:func:`reset_default_graph`, and a pass that builds nodes (Gradient) names them in a context of
its own with :func:`use_context`.
"""
from __future__ import annotations

import contextlib
import os
import sys
from typing import NamedTuple

from .errors import GraphError
from .op import Op

__all__ = [
    "GraphContext",
    "Group",
    "Node",
    "NodeEntry",
    "Symbol",
    "Variable",
    "create_op",
    "current_context",
    "reset_default_graph",
    "use_context",
]

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


class Node:
    """One op application; ``op is None`` for variables and placeholders."""

    __slots__ = ("__weakref__", "attrs", "control_deps", "inputs", "name", "op", "source")

    def __init__(self, op, name, attrs=None, inputs=(), control_deps=(), source=None):
        self.op: Op | None = op
        self.name: str = name
        self.attrs: dict = dict(attrs or {})
        self.inputs: list[NodeEntry] = list(inputs)
        self.control_deps: list[Node] = list(control_deps)
        self.source: str = source or _user_site()

    @property
    def kind(self) -> str:
        """``"placeholder"``, ``"variable"`` or the op name."""
        return self.attrs.get("kind", "variable") if self.op is None else self.op.name

    def num_outputs(self) -> int:
        return 1 if self.op is None else self.op.num_outputs(self.attrs)

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

    def __repr__(self) -> str:
        return f"<Node {self.name} {self.kind}>"


class NodeEntry(NamedTuple):
    """Output ``index`` of ``node``."""

    node: Node
    index: int


class GraphContext:
    """Per-graph mutable state: name counters, the variables created and named collections.

    Parameters
    ----------
    prefix : str
        Put before every name made here (a pass names its nodes ``gradients0/...``).
    source : str, optional
        The ``file:line`` nodes made here are said to come from; None: the user's line that
        made them.  A pass sets it to the node it is working on, so an error in a node it built
        points at the user's line behind it.
    """

    def __init__(self, prefix: str = "", source: str | None = None):
        self.prefix = prefix
        self.source = source
        self.name_counts: dict[str, int] = {}
        self.variables: list = []  # tinyflow.variables.Variable symbols, in creation order
        self.collections: dict[str, list] = {}  # TF's graph collections, by key

    def add_to_collection(self, key: str, value) -> None:
        self.collections.setdefault(key, []).append(value)

    def get_collection(self, key: str) -> list:
        """A copy of the collection ``key`` (empty when there is none)."""
        return list(self.collections.get(key, ()))

    def unique_name(self, hint: str) -> str:
        count = self.name_counts.get(hint, 0)
        self.name_counts[hint] = count + 1
        return f"{self.prefix}{hint}{count}"

    def variable(self, node: Node):
        """The variable symbol declared here for variable ``node``, or None."""
        return next((v for v in self.variables if v.node is node), None)


class _ContextStack:
    """The current context lives here, not in a bare module global, so it can be swapped."""

    current = GraphContext()


def current_context() -> GraphContext:
    """The context new nodes are named in and variables are recorded in."""
    return _ContextStack.current


def reset_default_graph() -> GraphContext:
    """Start a fresh context (name counters, variable list); returns it."""
    _ContextStack.current = GraphContext()
    return _ContextStack.current


@contextlib.contextmanager
def use_context(context: GraphContext):
    """Make ``context`` the current one inside the ``with`` block."""
    previous, _ContextStack.current = _ContextStack.current, context
    try:
        yield context
    finally:
        _ContextStack.current = previous


def _normalize_attr(value):
    """Lists become tuples so attributes compare, hash and serialise the same way."""
    if isinstance(value, (list, tuple)):
        return tuple(_normalize_attr(v) for v in value)
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:  # numpy scalar
        return value.item()
    return value


def create_op(op_name: str, *inputs, name: str | None = None, **attrs) -> Symbol:
    """Apply op ``op_name`` to ``inputs`` (symbols) and return the output symbol.

    Trailing inputs left out are created as variables named ``<name>_<input name>`` when the op
    declares ``FListInputNames`` (NNVM's automatic variable creation).
    """
    op = Op.get(op_name)
    attrs = {k: _normalize_attr(v) for k, v in attrs.items() if v is not None}
    context = current_context()
    name = name or context.unique_name(op_name)
    entries = []
    for i, x in enumerate(inputs):
        if not isinstance(x, Symbol):
            raise TypeError(f"input {i} of op '{op_name}' (node '{name}') must be a Symbol, "
                            f"got {type(x).__name__}")
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
            var = Variable(f"{name}_{input_names[index]}")
            if on_compose is not None:  # e.g. registers the variable with an initialiser
                on_compose(attrs, var.node, index)
            entries.append(var.outputs[0])
    elif len(entries) > num_inputs:
        raise GraphError(f"op '{op_name}' (node '{name}') takes {num_inputs} inputs, "
                         f"got {len(entries)}")
    node = Node(op, name, attrs, entries, source=context.source or _user_site())
    visible = op.attr("FNumVisibleOutputs")
    count = node.num_outputs() if visible is None else visible(attrs)
    return Symbol([NodeEntry(node, i) for i in range(count)])


def Variable(name: str, **attrs) -> Symbol:
    """A variable (a node without op).  ``kind="placeholder"`` marks a fed input."""
    node = Node(None, name, {k: _normalize_attr(v) for k, v in attrs.items()},
                source=_user_site())
    return Symbol([NodeEntry(node, 0)])


def Group(symbols) -> Symbol:
    """An operation running every output of ``symbols``; fetching it gives None."""
    outputs = []
    for s in symbols:
        outputs.extend(s.outputs)
    return Symbol(outputs, is_operation=True)


def _scalar_op(op_name, scalar_op_name, reflected=False):
    def method(self, other):
        if isinstance(other, Symbol):
            return create_op(op_name, *((other, self) if reflected else (self, other)))
        if isinstance(other, (int, float)) or hasattr(other, "dtype"):
            return create_op(scalar_op_name, self, scalar=float(other))
        return NotImplemented
    return method


class Symbol:
    """A list of node entries: what ops take and return, and what ``Session.run`` fetches.

    ``is_operation`` marks a symbol run for its effect (``tf.group``, an optimizer step):
    ``Session.run`` gives None for it instead of copying its outputs out.
    """

    __array_ufunc__ = None  # numpy scalars on the left defer to our reflected operators

    def __init__(self, outputs, is_operation: bool = False):
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
        return self.node.name

    def __getitem__(self, index: int) -> Symbol:
        return Symbol([self.outputs[index]])

    def __len__(self) -> int:
        return len(self.outputs)

    def list_output_names(self) -> list[str]:
        return [e.node.name if e.node.num_outputs() == 1 else f"{e.node.name}_output{e.index}"
                for e in self.outputs]

    def __repr__(self) -> str:
        return f"<Symbol {', '.join(self.list_output_names())}>"

    # -- operators ----------------------------------------------------------------------------
    __add__ = _scalar_op("elemwise_add", "__add_scalar__")
    __radd__ = _scalar_op("elemwise_add", "__add_scalar__", reflected=True)
    __sub__ = _scalar_op("elemwise_sub", "__sub_scalar__")
    __rsub__ = _scalar_op("elemwise_sub", "__rsub_scalar__", reflected=True)
    __mul__ = _scalar_op("elemwise_mul", "__mul_scalar__")
    __rmul__ = _scalar_op("elemwise_mul", "__mul_scalar__", reflected=True)
    __truediv__ = _scalar_op("elemwise_div", "__div_scalar__")
    __rtruediv__ = _scalar_op("elemwise_div", "__rdiv_scalar__", reflected=True)
    __pow__ = _scalar_op("elemwise_pow", "__pow_scalar__")
    __rpow__ = _scalar_op("elemwise_pow", "__rpow_scalar__", reflected=True)

    def __neg__(self):
        return create_op("negative", self)

    # Symbols are graph nodes, not values: keep them usable as dict keys (feed_dict).
    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other

    def __bool__(self):
        return True


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
