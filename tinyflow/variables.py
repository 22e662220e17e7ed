"""The life of a variable, in one place: declared in a graph, initialised, held by a session.

- :class:`Variable` is what ``tf.Variable(...)`` returns: a variable node with its initial value,
  the ``assign`` that gives it that value, and ``trainable``.  A layer makes one for a weight left
  out of its call (``fc1_weight``): a *default* variable, whose initial value is the layer's
  default (Glorot weights, zero biases) and is given only if nothing assigned the variable first.
- :class:`Initializer` is the op ``tf.global_variables_initializer()`` returns.
- :class:`VariableStore` is what one session holds: a tensor per variable, which hold a value,
  which were set by the user (an assign, a restore), and initialisers waiting for their variable's
  shape (a layer's weight, shaped by the first run that feeds the layer); and the session's
  random streams (:class:`~tinyflow.random_ops.RandomStreams`: a generator per seeded op).
- :func:`initial_shapes` finds variables' shapes from their initial values (the session, the
  Saver, ``tf.infer_variable_shapes`` and the pictures all ask it).

Building graphs does not import torch: the store imports it only to make or restore a tensor.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from .frontend.random_ops import RandomStreams
from .nnvm.dtypes import TORCH_NAMES, as_dtype
from .nnvm.errors import BindError, TinyflowError
from .nnvm.graph import Graph, apply_passes
from .nnvm.symbol import Node, NodeEntry, Symbol, create_op, current_context, graph_input

__all__ = ["Initializer", "SessionClosedError", "Variable", "VariableStore", "initial_shapes"]


class SessionClosedError(TinyflowError, RuntimeError):
    """A closed session (or its variable store) was used again (TensorFlow raises a
    RuntimeError, "Attempted to use a closed Session.")."""


class Variable(Symbol):
    """A variable: a graph input whose value a session keeps from run to run.

    Parameters
    ----------
    initial_value : Symbol, array or number
        What the initialiser assigns (a symbol such as ``tf.zeros([3])``, or a constant).
    name : str, optional
        The node's name under the current name scope, made unique as TensorFlow does
        (``Variable``, ``Variable_1``... by default).
    trainable : bool
        Listed by ``tf.trainable_variables()`` (what optimizers update by default).
    collections : list of str, optional
        The graph collections it joins (default ``[GraphKeys.GLOBAL_VARIABLES]``, which
        ``tf.global_variables()`` lists; ``[GraphKeys.LOCAL_VARIABLES]`` makes a local one);
        a trainable variable joins ``GraphKeys.TRAINABLE_VARIABLES`` too.
    validate_shape : bool
        Only True: a variable's shape is fixed (its initial value's).
    dtype : DType or str, optional
        The value's dtype (``tf.float32``); by default the initial value's.

    Attributes
    ----------
    initial_value : Symbol
    initial_assign : Symbol
        ``assign(variable, initial_value)``, what :attr:`initializer` runs.
    trainable : bool
    default : bool
        Made by a layer: its initialiser does not overwrite a value assigned or restored first.
    """

    def __init__(self, initial_value=None, trainable=True, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None):
        if initial_value is None or variable_def is not None or not validate_shape:
            raise ValueError("tf.Variable needs an initial_value (variable_def and "
                             "validate_shape=False are not supported by TinyFlow)")
        if not isinstance(initial_value, Symbol):
            from .frontend.api import constant  # the front end's converter; api imports this module
            initial_value = constant(initial_value, dtype=dtype)
        name = current_context().unique_name(name or "Variable")
        # a tf.Variable's static shape and dtype are its initial value's (when it needs no feed)
        value_graph = apply_passes(Graph(initial_value.outputs[:1]), ["InferShape", "InferType"])
        shape = value_graph.attrs["shape"][value_graph.indexed.outputs[0]]
        dtype = dtype or value_graph.attrs["dtype"][value_graph.indexed.outputs[0]] or "float32"
        node = graph_input(name, kind="variable", dtype=as_dtype(dtype).name,
                              **({} if shape is None else {"shape": shape})).node
        self._declare(node, initial_value, bool(trainable), default=False,
                      collections=collections)

    @classmethod
    def for_node(cls, node: Node, initial_value: Symbol, default: bool = True) -> Variable:
        """Declare the variable node a layer made (``FSetInputVarAttrOnCompose``)."""
        variable = cls.__new__(cls)
        variable._declare(node, initial_value, True, default)
        return variable

    def _declare(self, node, initial_value, trainable, default, collections=None):
        Symbol.__init__(self, [NodeEntry(node, 0)])
        self.initial_value: Symbol = initial_value
        self.trainable: bool = trainable
        self.default: bool = default
        # TF's "<variable>/Assign", made outside any tf.control_dependencies block (init_scope)
        with node.graph.name_scope(node.name + "/"), node.graph.control_dependencies(None):
            self.initial_assign: Symbol = create_op("assign", self, initial_value, name="Assign")
        node.graph.variables.append(self)
        keys = ["variables"] if collections is None else list(collections)  # GraphKeys' names
        for key in dict.fromkeys(keys + (["trainable_variables"] if trainable else [])):
            node.graph.add_to_collection(key, self)

    @property
    def initializer(self) -> Initializer:
        """The op that initialises this variable (``sess.run(v.initializer)``)."""
        return Initializer([self])

    # TF's methods: ops made with the front end's functions (tinyflow.api imports this module)
    def assign(self, value, use_locking=False, name=None, read_value=True) -> Symbol:
        """``tf.assign(self, value)``."""
        from .frontend.api import assign
        return assign(self, value, name=name)

    def assign_add(self, delta, use_locking=False, name=None, read_value=True) -> Symbol:
        from .frontend.api import assign_add
        return assign_add(self, delta, name=name)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True) -> Symbol:
        from .frontend.api import assign_sub
        return assign_sub(self, delta, name=name)

    def read_value(self) -> Symbol:
        """A tensor holding the variable's value when it runs (``tf.identity``)."""
        return create_op("copy", self, name="read")

    def initialized_value(self) -> Symbol:
        """The value this variable is initialised with (to initialise another from it)."""
        return self.initial_value

    def load(self, value, session=None) -> None:
        """Write ``value`` into the variable in ``session`` (default: the default session)
        without adding ops to the graph; ValueError if its shape is not the variable's."""
        import numpy as np
        import torch

        from .nnvm.symbol import _session_for
        sess = _session_for(session)
        array = np.asarray(value, dtype=self.node.attrs.get("dtype", "float32"))
        shape = self.get_shape()
        if not shape.is_compatible_with(array.shape):
            raise ValueError(f"Variable.load: variable '{self.op.name}' has shape {shape}, "
                             f"got a value of shape {array.shape}")
        sess.variable_store.restore(self.node, torch.from_numpy(array), sess.device)

    def __repr__(self) -> str:
        return f"<tinyflow.Variable {self.name}>"


class Initializer(Symbol):
    """An op giving ``variables`` their initial values when a session runs it.

    A variable whose shape is not known yet (a layer's weight shaped by the feeds, an optimizer's
    slot of it) is initialised by the first later run that infers the shape; a default variable
    (a layer's) that already holds a value assigned or restored by the user keeps it.
    """

    def __init__(self, variables: Iterable[Variable]):
        self.variables: list[Variable] = list(variables)
        outputs = [v.initial_assign.outputs[0] for v in self.variables]
        super().__init__(outputs, is_operation=True)


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
    session's executor inferred, or :meth:`restore`); executors only read the tensors; it holds a value once something assigned it (``mark_assigned``).
    :attr:`random_streams` holds the session's other run-to-run state: the random streams of its
    seeded random ops (see :mod:`tinyflow.random_ops`).
    """

    def __init__(self):
        self._tensors: dict[Node, object] = {}
        self._initialized: set[Node] = set()
        self._set_by_user: set[Node] = set()   # an assign or restore other than its initialiser
        self._pending: dict[Node, NodeEntry] = {}  # initialising assigns waiting for a shape
        self.random_streams = RandomStreams()
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
        """``BindError`` naming the variables among ``nodes`` that a run cannot read: no value
        and no initialiser waiting to give one (``SessionClosedError`` once closed)."""
        self._check_open()
        missing = [v for v in nodes if v not in self._initialized and v not in self._pending]
        if missing:
            names = ", ".join(sorted(f"'{v.name}' (created at {v.source})" for v in missing))
            raise BindError(f"variable {names} is read before it is initialised: run "
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
        dtype name)}`` as a bind inferred them; returns the nodes, for :meth:`discard`."""
        import torch  # only when running: building graphs must not import torch

        self._check_open()
        for node, (shape, dtype) in specs.items():
            self._tensors[node] = torch.zeros(shape, dtype=getattr(torch, TORCH_NAMES[dtype]),
                                              device=device)
        return list(specs)

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

    def close(self) -> None:
        """:meth:`clear`, and refuse any later use (``SessionClosedError``)."""
        self.clear()
        self.closed = True

    def __repr__(self) -> str:
        return (f"<VariableStore {len(self._tensors)} tensors, {len(self._initialized)} "
                f"initialised, {len(self._pending)} waiting>")
