"""What a session keeps of the variables a graph declares (:mod:`tinyflow.nnvm.variables`).

- :class:`VariableStore` is what one session holds: a tensor per variable, which hold a value,
  which were set by the user (an assign, a restore), and initialisers waiting for their variable's
  shape (a layer's weight, shaped by the first run that feeds the layer); and the session's
  random streams (:class:`~tinyflow.session.random_streams.RandomStreams`: a generator per
  seeded op).
- :func:`initial_shapes` finds variables' shapes from their initial values (the session, the
  Saver, ``tf.infer_variable_shapes`` and the pictures all ask it).

Building graphs does not import torch: the store imports it only to make or restore a tensor.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..nnvm.dtypes import TORCH_NAMES
from ..nnvm.errors import TinyflowError, UninitializedVariableError
from ..nnvm.graph import Graph, apply_passes
from ..nnvm.symbol import Node, NodeEntry, Symbol
from ..nnvm.variables import Initializer, Variable
from .random_streams import RandomStreams

__all__ = ["SessionClosedError", "VariableStore", "initial_shapes"]


class SessionClosedError(TinyflowError, RuntimeError):
    """A closed session (or its variable store) was used again (TensorFlow raises a
    RuntimeError, "Attempted to use a closed Session.")."""


def initial_shapes(variables: Iterable[Variable], known: Mapping | None = None) -> dict:
    """``{variable node: shape or None}``: each variable's shape from ``known`` (``{placeholder
    or variable node: shape}``), else from the shape of its initial value; None where neither
    says (an initial value shaped only by its variable's use, or needing a feed not given).

    Raises ShapeError when an initial value disagrees with a known shape.
    """
    variables = list(variables)
    if not variables:
        return {}
    graph = Graph([v.initial_assign.outputs[0] for v in variables],
                  {"shape_inputs": dict(known or {})})
    shapes = apply_passes(graph, "InferShape").attrs["shape"]
    return {v.node: shapes[eid] for v, eid in zip(variables, graph.indexed.outputs)}


class VariableStore(Mapping):
    """One session's variables: ``{variable Node: tensor}`` plus what each tensor holds.

    A variable gets a tensor once its shape is known (:meth:`create`, with the shape the
    session's executor inferred, or :meth:`restore`); executors only read the tensors; it holds a
    value once something assigned it (``mark_assigned``). :attr:`random_streams` holds the
    session's other run-to-run state: the random streams of its seeded random ops (see
    :mod:`tinyflow.frontend.random_ops`), and :attr:`resources`, the Python-side state of its
    stateful ops (TF's resource manager: a tf.data iterator's position, see nnvm/attrs.py's
    FPullOutputs and TSessionState).
    """

    def __init__(self) -> None:
        self._tensors: dict[Node, object] = {}
        self._initialized: set[Node] = set()
        self._set_by_user: set[Node] = set()   # an assign or restore other than its initialiser
        self._pending: dict[Node, NodeEntry] = {}  # initialising assigns waiting for a shape
        self.random_streams = RandomStreams()
        self.resources: dict = {}  # key chosen by the op's Python object -> its state
        self.closed = False

    def _check_open(self) -> None:
        if self.closed:
            raise SessionClosedError("Attempted to use a closed Session: its variables were "
                                     "freed by Session.close() (or the end of its with block); "
                                     "create a new session")

    # -- Mapping over the tensors ------------------------------------------------------------
    def __getitem__(self, node: Node):
        self._check_open()
        return self._tensors[node]

    def __iter__(self):
        return iter(self._tensors)

    def __len__(self) -> int:
        return len(self._tensors)

    # -- queries -------------------------------------------------------------------------------
    def shapes(self) -> dict:
        """``{variable node: shape}`` of every variable with a tensor."""
        return {node: tuple(t.shape) for node, t in self._tensors.items()}

    def is_initialized(self, node: Node) -> bool:
        """True when ``node`` holds a value (an initialiser, assign or restore wrote it)."""
        self._check_open()
        return node in self._initialized

    def check_initialized(self, nodes: Iterable[Node]) -> None:
        """``UninitializedVariableError`` (a BindError, TF's FailedPreconditionError) naming the
        variables among ``nodes`` that a run cannot read: no value and no initialiser waiting
        to give one (``SessionClosedError`` once closed)."""
        self._check_open()
        missing = [v for v in nodes if v not in self._initialized and v not in self._pending]
        if missing:
            names = ", ".join(sorted(f"'{v.name}' (created at {v.source})" for v in missing))
            raise UninitializedVariableError(
                f"variable {names} is read before it is initialised: run "
                f"tf.global_variables_initializer() (or an assign to it) first")

    def pending_among(self, nodes: Iterable[Node]) -> list[NodeEntry]:
        """The waiting initialising assigns of the variables in ``nodes``."""
        return [self._pending[n] for n in nodes if n in self._pending]

    # -- changes -------------------------------------------------------------------------------
    def initializing(self, initializer: Initializer, known: Mapping) -> Symbol:
        """The assigns of ``initializer`` a run does now; the others wait for their shape.

        ``known`` holds this run's feed shapes.  A default variable set by the user is left
        alone; a variable whose shape nothing gives yet has its assign kept until a run infers
        it (:meth:`pending_among`).
        """
        self._check_open()
        wanted = [v for v in initializer.variables
                  if not (v.default and v.node in self._set_by_user)]
        shapes = initial_shapes(wanted, {**self.shapes(), **known})
        now = []
        for v in wanted:
            if shapes[v.node] is None:
                self._pending[v.node] = v.initial_assign.outputs[0]
            else:
                self._pending.pop(v.node, None)
                now.append(v.initial_assign.outputs[0])
        return Symbol(now, is_operation=True)

    def create(self, specs: Mapping, device) -> list[Node]:
        """Make a zero tensor (no value yet) for each variable of ``specs``, ``{node: (shape,
        dtype name)}`` as a bind inferred them, that has none; returns the nodes it made them
        for, for :meth:`discard`."""
        import torch  # only when running: building graphs must not import torch

        self._check_open()
        made = []
        for node, (shape, dtype) in specs.items():
            tensor = torch.zeros(shape, dtype=getattr(torch, TORCH_NAMES[dtype]), device=device)
            # one tensor per variable: a later stage another thread bound may have made it
            if self._tensors.setdefault(node, tensor) is tensor:  # (Node hashes by identity)
                made.append(node)
        return made

    def discard(self, nodes: Iterable[Node]) -> None:
        """Drop the tensors :meth:`create` made, for a build that failed after all."""
        for node in nodes:
            self._tensors.pop(node, None)

    def mark_assigned(self, nodes: Iterable[Node], by_initializer: Iterable[Node] = ()) -> None:
        """``nodes`` were written by a run; ``by_initializer`` of them by their initialiser."""
        self._check_open()
        initial = set(by_initializer)
        for node in nodes:
            self._initialized.add(node)
            self._pending.pop(node, None)  # assigned: an initialiser must not overwrite it
            if node in initial:
                self._set_by_user.discard(node)
            else:
                self._set_by_user.add(node)

    def restore(self, node: Node, value, device) -> None:
        """Set ``node``'s value to the tensor ``value`` (written in place when the variable
        has a tensor, so executors bound to it see the new value)."""
        import torch  # only when restoring: building graphs must not import torch

        self._check_open()
        tensor = self._tensors.get(node)
        if tensor is None:
            dtype = getattr(torch, node.attrs.get("dtype", "float32"))
            tensor = self._tensors[node] = torch.empty(value.shape, dtype=dtype, device=device)
        tensor.copy_(value)
        self.mark_assigned([node])

    def clear(self) -> None:
        """Forget every tensor and value, and the random streams."""
        self._tensors.clear()
        self._initialized.clear()
        self._set_by_user.clear()
        self._pending.clear()
        self.random_streams.clear()
        for state in list(self.resources.values()):  # a queue's waits end (frontend/queues.py)
            getattr(state, "session_closed", lambda: None)()
        self.resources.clear()

    def close(self) -> None:
        """:meth:`clear`, and refuse any later use (``SessionClosedError``)."""
        self.clear()
        self.closed = True

    def __repr__(self) -> str:
        return (f"<VariableStore {len(self._tensors)} tensors, {len(self._initialized)} "
                f"initialised, {len(self._pending)} waiting>")
