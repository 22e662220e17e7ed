"""Variables and constants in a graph: what a TF-1 program declares before any session runs.

- :func:`constant` makes a ``constant`` node from a Python or numpy value (TensorFlow's
  ``convert_to_tensor`` rules for dtypes), what a variable's initial value or a number given to
  an assign becomes.
- :class:`Variable` is what ``tf.Variable(...)`` returns: a variable node with its initial value,
  the ``assign`` that gives it that value, and ``trainable``.  A layer makes one for a weight left
  out of its call (``fc1_weight``): a *default* variable, whose initial value is the layer's
  default (Glorot weights, zero biases) and is given only if nothing assigned the variable first.
- :class:`Initializer` is the op ``tf.global_variables_initializer()`` returns.

What a session keeps of them (a tensor per variable, which hold a value) is its
:class:`~tinyflow.session.variables.VariableStore`.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .dtypes import as_dtype
from .graph import Graph, apply_passes
from .replicas import VariableAggregation, VariableSynchronization, replica_settings
from .symbol import Node, NodeEntry, Symbol, _session_for, create_op, current_context, graph_input

__all__ = ["Initializer", "Variable", "assign", "assign_add", "assign_sub", "constant"]


def _shape(shape):
    return tuple(int(d) for d in ([shape] if isinstance(shape, int) else shape))


def constant(value, dtype=None, shape=None, name=None) -> Symbol:
    """A constant tensor from a number, array or string (broadcast to ``shape`` when given).

    ``dtype`` None infers TensorFlow's: Python floats give float32, ints int32 (int64 beyond
    it), bools bool, numpy arrays keep theirs, ``str``/``bytes`` give a string constant.  A
    given ``dtype`` is kept: integers stay exact, int64 ones beyond 2**53 too.  As in
    TensorFlow, an integer or bool dtype refuses Python floats (``tf.constant(1.5, tf.int64)``
    is a TypeError) while numpy arrays are cast.

    A string constant (``tf.constant("Hello, TensorFlow!")``) is answered by the session
    itself (``b"Hello, TensorFlow!"``, an object array of bytes for several): it never reaches
    the executor, and an op given one raises a BindError, as TinyFlow has no string kernels.
    """
    dtype = _inferred_dtype(value) if dtype is None else as_dtype(dtype)
    if dtype.name == "string":
        array = np.asarray(value, dtype=object)
        if shape is not None:
            array = np.broadcast_to(array, _shape(shape))
        return create_op("constant", value=tuple(_as_bytes(v) for v in array.ravel()),
                         shape=array.shape, dtype="string", name=name)
    exact = dtype.is_integer or dtype.is_bool
    python_floats = (not isinstance(value, (np.ndarray, np.generic))  # ([] is no float)
                     and np.asarray(value).dtype.kind in "fc" and np.asarray(value).size)
    if exact and python_floats:
        raise TypeError(f"expected {dtype.name}, got {value!r}: Python floats do not convert "
                        f"to an integer or bool tensor")
    array = np.asarray(value, dtype=dtype.as_numpy_dtype)
    if shape is not None:
        array = np.broadcast_to(array, _shape(shape))
    return create_op("constant", value=tuple((int if exact else float)(v) for v in array.ravel()),
                     shape=array.shape, dtype=dtype.name, name=name)


def _inferred_dtype(value):
    """TensorFlow's dtype for a constant's value given without one."""
    if isinstance(value, (np.ndarray, np.generic)):
        return as_dtype(value.dtype)
    array = np.asarray(value)
    if array.dtype.kind in "USO":
        return as_dtype("string")
    if array.dtype.kind in "iu":
        fits = array.size == 0 or (-2 ** 31 <= array.min() and array.max() < 2 ** 31)
        return as_dtype("int32" if fits else "int64")
    if array.dtype.kind not in "bf":
        raise TypeError(f"cannot make a constant of {value!r} (numpy dtype {array.dtype})")
    return as_dtype("bool" if array.dtype.kind == "b" else "float32")


def _as_bytes(value) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


def assign(ref, value, name=None) -> Symbol:
    """Write ``value`` into variable ``ref``; the result is the variable's new value.  A number
    or array becomes a constant of the variable's dtype (``tf.assign(float_var, 2)``)."""
    return create_op("assign", ref, _update_value(ref, value, "assign"), name=name)


def _update_value(ref, value, op_name) -> Symbol:
    """``value`` as an input of ``op_name`` writing ``ref``: a number becomes a constant of the
    variable's dtype (so ``tf.assign_add(global_step, 1)`` adds an int64 1)."""
    if not isinstance(ref, Symbol) or ref.node.kind != "variable":
        raise TypeError(f"{op_name} writes to a tf.Variable, got {ref!r}")
    return value if isinstance(value, Symbol) else constant(
        value, dtype=ref.node.attrs.get("dtype", "float32"))


def assign_add(ref, value, name=None) -> Symbol:
    """``ref <- ref + value`` for a variable ``ref``; the result is its new value."""
    return create_op("assign_add", ref, _update_value(ref, value, "assign_add"), name=name)


def assign_sub(ref, value, name=None) -> Symbol:
    """``ref <- ref - value`` for a variable ``ref``; the result is its new value."""
    return create_op("assign_sub", ref, _update_value(ref, value, "assign_sub"), name=name)


class Variable(Symbol):
    """A variable: a graph input whose value a session keeps from run to run.

    Parameters
    ----------
    initial_value : Symbol, array or number
        What the initialiser assigns (a symbol such as ``tf.zeros([3])``, or a constant).
    name : str, optional
        The node's name under the current name scope, made unique as TensorFlow does
        (``Variable``, ``Variable_1``... by default).
    trainable : bool, optional
        Listed by ``tf.trainable_variables()`` (what optimizers update by default); None:
        True unless ``synchronization`` is ON_READ, as TensorFlow's.
    collections : list of str, optional
        The graph collections it joins (default ``[GraphKeys.GLOBAL_VARIABLES]``, which
        ``tf.global_variables()`` lists; ``[GraphKeys.LOCAL_VARIABLES]`` makes a local one);
        a trainable variable joins ``GraphKeys.TRAINABLE_VARIABLES`` too.
    validate_shape : bool
        True: the variable's shape is its initial value's, which must be fully known as the
        graph is built (TF's ValueError otherwise).  False: its static shape is unknown, and
        its shape is the value's when it is initialised.
    dtype : DType or str, optional
        The value's dtype (``tf.float32``); by default the initial value's.
    synchronization, aggregation : optional
        TensorFlow's distribution settings, checked and recorded (:mod:`.replicas`).

    Attributes
    ----------
    initial_value : Symbol
    initial_assign : Symbol
        ``assign(variable, initial_value)``, what :attr:`initializer` runs.
    trainable : bool
    default : bool
        Made by a layer: its initialiser does not overwrite a value assigned or restored first.
    """

    def __init__(self, initial_value=None, trainable=None, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None,
                 synchronization=None, aggregation=None) -> None:
        if initial_value is None or variable_def is not None:
            raise ValueError("tf.Variable needs an initial_value (variable_def is not supported "
                             "by TinyFlow)")
        if not isinstance(initial_value, Symbol):
            initial_value = constant(initial_value, dtype=dtype)
        if validate_shape and not initial_value.get_shape().is_fully_defined():
            raise ValueError(f"initial_value must have a shape specified: {initial_value}")
        replicas = replica_settings(synchronization, aggregation, trainable, name)
        name = current_context().unique_name(name or "Variable")
        # a tf.Variable's static shape and dtype are its initial value's (when it needs no
        # feed); validate_shape=False: no static shape, the value's when it is initialised
        value_graph = apply_passes(Graph(initial_value.outputs[:1]), ["InferShape", "InferType"])
        shape = value_graph.attrs["shape"][value_graph.indexed.outputs[0]]
        dtype = dtype or value_graph.attrs["dtype"][value_graph.indexed.outputs[0]] or "float32"
        node = graph_input(name, kind="variable", dtype=as_dtype(dtype).name, **(
            {"shape": shape} if shape is not None and validate_shape else {})).node
        self._declare(node, initial_value, bool(replicas[2]), default=False,
                      collections=collections)
        self.synchronization, self.aggregation = replicas[:2]

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
        self.synchronization = VariableSynchronization.AUTO  # TF's, recorded (one replica)
        self.aggregation = VariableAggregation.NONE
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

    # TF's methods: the same ops as tf.assign, tf.assign_add, tf.assign_sub
    def assign(self, value, use_locking=False, name=None, read_value=True) -> Symbol:
        """``tf.assign(self, value)``."""
        return assign(self, value, name=name)

    def assign_add(self, delta, use_locking=False, name=None, read_value=True) -> Symbol:
        return assign_add(self, delta, name=name)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True) -> Symbol:
        return assign_sub(self, delta, name=name)

    def read_value(self) -> Symbol:
        """A tensor holding the variable's value when it runs (``tf.identity``)."""
        return create_op("copy", self, name="read")

    def value(self) -> Symbol:
        """The variable's value as a tensor (TF's snapshot of it)."""
        return create_op("copy", self, name="read")

    def initialized_value(self) -> Symbol:
        """The value this variable is initialised with (to initialise another from it)."""
        return self.initial_value

    def load(self, value, session=None) -> None:
        """Write ``value`` into the variable in ``session`` (default: the default session)
        without adding ops to the graph; ValueError if its shape is not the variable's."""
        import torch  # building graphs does not import torch

        sess = _session_for(session)
        array = np.asarray(value, dtype=self.node.attrs.get("dtype", "float32"))
        shape = self.get_shape()
        if not shape.is_compatible_with(array.shape):
            raise ValueError(f"Variable.load: variable '{self.op.name}' has shape {shape}, "
                             f"got a value of shape {array.shape}")
        sess.variable_store.restore(self.node, torch.from_numpy(array), sess.device)

    def __repr__(self) -> str:  # TF 1.15's, of its default (reference) variables
        return (f"<tf.Variable '{self.name}' shape={self.get_shape()} "
                f"dtype={self.node.attrs.get('dtype', 'float32')}_ref>")
    __str__ = __repr__


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
