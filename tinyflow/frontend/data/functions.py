"""A function of TF ops over a dataset's elements (``map``'s, ``filter``'s): traced once, as
TensorFlow traces a ``tf.data`` function, on placeholders of the element's structure in a graph
of its own, then run by the engine, a private session over that graph, on each element.

The function receives the element as TensorFlow passes it: a tuple unpacked into arguments, any
other element (a dict, a namedtuple, one tensor) as one argument.  It returns tensors, or
structures of them; numbers and numpy arrays become constants, a list a tuple.  Its graph takes
the outer graph's random seed, so its random ops follow TensorFlow's seed rule.

A function traced inside another one (the ``map`` of the dataset a ``flat_map`` function
returns) may read the enclosing function's tensors, as TensorFlow's nested functions capture
them: the enclosing function computes them with its outputs, and the dataset holding the inner
function lists them as its captures.
"""
from __future__ import annotations

import contextlib
import numbers
import threading
from collections import ChainMap

import numpy as np

from ...nnvm.composite import CompositeTensor
from ...nnvm.graph import Graph, NodeEntry, rewrite
from ...nnvm.symbol import GraphContext, Symbol, current_context
from ...nnvm.variables import constant
from ..api import placeholder
from .structure import Spec, flatten, map_structure, pack

__all__ = ["TracedFunction", "program_resources"]

_PROGRAM = threading.local()  # .resources: the program's session's, while it pulls an element


@contextlib.contextmanager
def program_resources(resources):
    """Inside the block, a function run on an element reads the resources of the session
    pulling it (``resources``) where its private session has none of its own: the tables a
    ``map`` function looks up, which the program's session initialised (TF's function
    capturing a table's handle)."""
    previous = getattr(_PROGRAM, "resources", None)
    _PROGRAM.resources = resources
    try:
        yield
    finally:
        _PROGRAM.resources = previous


class _FunctionGraph(GraphContext):
    """The graph a function is traced in; one traced inside it may capture its tensors, and
    those of the functions it is itself traced in (``enclosing``)."""

    def __init__(self, enclosing):
        super().__init__()
        self.enclosing = enclosing if isinstance(enclosing, _FunctionGraph) else None

    def chain(self) -> list:
        """The function graphs this one is traced in, innermost first."""
        graphs, graph = [], self.enclosing
        while graph is not None:
            graphs.append(graph)
            graph = graph.enclosing
        return graphs


class TracedFunction:
    """``func`` traced on placeholders of ``specs`` (a structure of :class:`Spec`).

    Parameters
    ----------
    func : callable
    specs : structure of Spec
        The element the function takes.
    what : str
        How errors name it (``"Dataset.map()"``).
    """

    def __init__(self, func, specs, what: str, returns=None):
        if not callable(func):
            raise TypeError(f"{what} needs a callable, got {type(func).__name__}")
        outer = current_context()
        self.what, self.graph = what, _FunctionGraph(outer)
        self.graph.seed = outer.seed
        with self.graph.as_default():
            self.inputs = map_structure(
                lambda s: placeholder(s.dtype, None if s.shape.dims is None
                                      else s.shape.as_list(), name="arg"), specs)
            args = self.inputs if type(self.inputs) is tuple else (self.inputs,)
            result = func(*args)
            if returns is None:
                self.outputs = _tensors(result, what)
            else:  # a Dataset (flat_map's, interleave's): its outputs, the tensors it captured
                if not isinstance(result, returns):
                    raise TypeError(f"`map_func` passed to {what} must return a `Dataset` "
                                    f"object, got {type(result).__name__}")
                self.dataset, self.outputs = result, tuple(result._captures())
        flat = flatten(self.outputs)
        self.captures = self._check_captures(flat, self.graph.chain())
        self.output_specs = pack(self.outputs, [Spec(t.dtype, t.get_shape()) for t in flat])
        self._flat_inputs, self._flat_outputs = flatten(self.inputs), flat
        if self.captures:
            self._feed_captures()
        self._session = None

    def _check_captures(self, outputs, enclosing: list) -> list:
        """A tensor of the program's graph the function reads is computed by the private
        session (a constant, an op on constants); a placeholder, variable or iterator there
        is refused: their values live in the program's session, not in this one.  Returns the
        tensors of the ``enclosing`` functions' graphs it reads, which it is fed."""
        captures, seen = {}, set()
        stack = [e for t in outputs for e in t.outputs]
        while stack:
            entry = stack.pop()
            node = entry.node
            if node.graph in enclosing:
                captures.setdefault(entry, Symbol([entry]))
                continue
            if node in seen:
                continue
            seen.add(node)
            if node.graph is not self.graph and (
                    node.op is None or node.op.attr("FPullOutputs") is not None):
                what = node.kind if node.op is None else "iterator's get_next"
                raise ValueError(
                    f"the function passed to {self.what} reads {what} '{node.name}' (created "
                    f"at {node.source}) of the program's graph: TinyFlow traces it in a graph "
                    f"of its own, which can capture constants but not placeholders, variables "
                    f"or iterators; put the value in the dataset instead (from_tensor_slices, "
                    f"zip)")
            stack.extend(node.inputs)
            stack.extend(NodeEntry(c, 0) for c in node.control_deps)
        return list(captures.values())

    def _feed_captures(self):
        """The graph rewritten to read a placeholder of its own where it read a captured
        tensor (a session runs one graph), fed the captured tensor's value."""
        with self.graph.as_default():
            stand_ins = {c.outputs[0]: placeholder(c.dtype, c.get_shape(), name="capture")
                         .outputs[0] for c in self.captures}

        def change(node):
            if node.graph is self.graph and any(e in stand_ins for e in node.inputs):
                return [stand_ins.get(e, e) for e in node.inputs], node.control_deps
            return None
        entries = [t.outputs[0] for t in self._flat_outputs]
        rewritten = rewrite(Graph(entries), change).outputs
        self._flat_outputs = [Symbol([stand_ins.get(e, r)]) for e, r in zip(entries, rewritten)]
        self._flat_inputs = self._flat_inputs + [Symbol([stand_ins[c.outputs[0]]])
                                                 for c in self.captures]

    def __call__(self, flat_values, context=None) -> list:
        """The function's outputs (flat, numpy arrays) on one element (flat numpy arrays);
        the enclosing function's tensors it captured from ``context`` (a pipeline's)."""
        if not self._flat_outputs:
            return []
        if self._session is None:
            from ...session.session import Session  # deferred: the session imports torch
            self._session = Session(graph=self.graph)
        captured = [context.value(c) for c in self.captures]
        store, program = self._session.variable_store, getattr(_PROGRAM, "resources", None)
        own = store.resources
        if program is not None:  # reads fall back to the program's; writes stay its own
            store.resources = ChainMap(own, program)
        try:
            values = self._session.run(self._flat_outputs,
                                       dict(zip(self._flat_inputs, list(flat_values) + captured)))
        finally:
            store.resources = own
        return [np.asarray(v, dtype=t.dtype.as_numpy_dtype)  # a string stays an object
                for v, t in zip(values, self._flat_outputs)]


def _tensors(result, what):
    """The function's result as a structure of tensors (TensorFlow's conversion)."""
    if isinstance(result, list):  # TF 1.15 reads a returned list as a tuple
        result = tuple(result)
    if isinstance(result, dict):
        return type(result)((k, _tensors(v, what)) for k, v in result.items())
    if isinstance(result, tuple):
        parts = [_tensors(v, what) for v in result]
        return type(result)(*parts) if hasattr(result, "_fields") else tuple(parts)
    if isinstance(result, Symbol) and not result.is_operation and len(result.outputs) == 1:
        return result
    if isinstance(result, CompositeTensor):
        raise TypeError(f"{what}: TinyFlow's dataset elements hold dense tensors, not "
                        f"{type(result).__name__}s (a VarLenFeature parsed): return "
                        f"tf.sparse.to_dense of it, or parse a FixedLenSequenceFeature")
    if isinstance(result, (numbers.Number, np.ndarray, np.generic)) and not isinstance(
            result, complex) and np.asarray(result).dtype.kind in "biufSU" or isinstance(
            result, (str, bytes)):
        return constant(result)
    raise TypeError(f"Unsupported return value from function passed to {what}: {result!r} "
                    f"(a tensor, a number, a string or a tuple / dict of them is expected)")
