"""``tf.variable_scope`` and ``tf.get_variable``: variables shared by name (TF 1.15 semantics).

A variable scope prefixes the names ``get_variable`` gives (``conv1/weights``) and says whether
a name may be made (``reuse=False``), must exist (``reuse=True``) or either
(``reuse=tf.AUTO_REUSE``).  Entering one also enters a name scope of the same name for the ops
made inside, as TensorFlow does.  The scopes and the variables made by ``get_variable`` live in
the graph (``graph.variable_scope``), so two graphs never share them.
"""
from __future__ import annotations

import contextlib
import enum
import functools
from collections.abc import Iterator

from ..nnvm.dtypes import as_dtype
from ..nnvm.symbol import Symbol, current_context
from ..nnvm.tensor_shape import TensorShape
from ..nnvm.variables import replica_settings
from ..session.variables import Variable
from .api import constant
from .init_ops import glorot_uniform_initializer, zeros_initializer
from .partitioned_variables import PartitionedVariable, check_reuse, make_partitioned

__all__ = ["AUTO_REUSE", "VariableScope", "get_variable", "get_variable_scope",
           "make_template", "variable_scope"]


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


class VariableScope:
    """A variable scope: its ``name`` (``"conv1"``, ``""`` at the root), ``reuse`` (False, True
    or AUTO_REUSE), the default ``initializer``, ``dtype``, ``partitioner`` and
    ``regularizer`` for ``get_variable``."""

    def __init__(self, name="", reuse=False, initializer=None, dtype="float32",
                 name_scope="", partitioner=None, regularizer=None) -> None:
        self.name = name
        self.reuse = reuse
        self.initializer = initializer
        self.dtype = dtype
        self.original_name_scope = name_scope
        self.partitioner = partitioner
        self.regularizer = regularizer

    def set_regularizer(self, regularizer) -> None:
        self.regularizer = regularizer

    def set_initializer(self, initializer) -> None:
        self.initializer = initializer

    def set_dtype(self, dtype) -> None:
        self.dtype = as_dtype(dtype).name

    def get_collection(self, name) -> list:
        """The graph's collection ``name``, of the values named under this scope (TF's)."""
        return current_context().get_collection(name, self.name + "/" if self.name else "")

    def trainable_variables(self) -> list:
        return self.get_collection("trainable_variables")

    def global_variables(self) -> list:
        return self.get_collection("variables")

    def local_variables(self) -> list:
        return self.get_collection("local_variables")

    def set_partitioner(self, partitioner) -> None:
        self.partitioner = partitioner

    def reuse_variables(self) -> None:
        """From now on, ``get_variable`` in this scope returns existing variables."""
        self.reuse = True

    def __repr__(self) -> str:
        return f"<VariableScope {self.name!r} reuse={self.reuse}>"


class _Scopes:
    """What one graph keeps: the current scope, the variables get_variable made, and how
    often each scope name is open (TF's variable_scopes_count, which default names avoid)."""

    def __init__(self):
        self.current = VariableScope()
        self.shared: dict[str, Variable] = {}
        self.opened: dict[str, int] = {}


def _scopes() -> _Scopes:
    graph = current_context()
    if graph.variable_scope is None:
        graph.variable_scope = _Scopes()
    return graph.variable_scope


def get_variable_scope() -> VariableScope:
    """The current variable scope."""
    return _scopes().current


@contextlib.contextmanager
def variable_scope(name_or_scope, default_name=None, values=None, initializer=None,
                   reuse=None, dtype=None, auxiliary_name_scope=True, partitioner=None,
                   regularizer=None, **unsupported) -> Iterator[VariableScope]:
    """``with tf.variable_scope("conv1", reuse=...) as scope:`` (see the module doc).

    ``name_or_scope`` is a name or a :class:`VariableScope` (re-entered); None takes
    ``default_name`` made unique (``dense``, ``dense_1``...).  ``reuse=None`` inherits the
    enclosing scope's reuse; True and AUTO_REUSE are inherited by inner scopes, as are the
    ``initializer``, ``dtype``, ``partitioner`` and ``regularizer``.
    """
    if unsupported:
        raise TypeError(f"variable_scope: {', '.join(sorted(unsupported))} not supported by "
                        f"TinyFlow")
    scopes = _scopes()
    outer = scopes.current
    if isinstance(name_or_scope, VariableScope):
        name = name_or_scope.name
    elif name_or_scope:
        name = _join(outer.name, name_or_scope)
    elif default_name:
        name = _join(outer.name, _unique_default(scopes, _join(outer.name, default_name)))
    else:
        raise ValueError("variable_scope needs name_or_scope or default_name")
    # False acts as None (TF 1.15): reuse, once on, stays on in inner scopes
    captured = name_or_scope.reuse if isinstance(name_or_scope, VariableScope) else False
    reuse = next((r for r in (reuse, captured, outer.reuse) if r is True or r is AUTO_REUSE),
                 False)
    scope = VariableScope(name, reuse, outer.initializer if initializer is None else initializer,
                          as_dtype(dtype).name if dtype else outer.dtype,
                          partitioner=outer.partitioner if partitioner is None else partitioner,
                          regularizer=outer.regularizer if regularizer is None else regularizer)
    graph = current_context()
    # a default name's ops go to a name scope of their own made unique (TF's), not the scope's
    by_default = not isinstance(name_or_scope, VariableScope) and not name_or_scope
    op_scope = None if not auxiliary_name_scope else default_name if by_default else \
        name.rsplit("/", 1)[-1]
    scopes.opened[name] = scopes.opened.get(name, 0) + 1
    opened = dict(scopes.opened)
    with graph.name_scope(op_scope) if op_scope else contextlib.nullcontext() as ops:
        scope.original_name_scope = ops or ""
        scopes.current = scope
        try:
            yield scope
        finally:
            scopes.current = outer
            _close_subscopes(scopes, name, opened if isinstance(name_or_scope, VariableScope)
                             else None)


def _join(outer: str, name: str) -> str:
    return f"{outer}/{name}" if outer else name


def _unique_default(scopes: _Scopes, full: str) -> str:
    """TF's ``_get_unique_variable_scope``: the name, or with the first free ``_<i>``."""
    base, index = full.rsplit("/", 1)[-1], 1
    if not scopes.opened.get(full):
        return base
    while scopes.opened.get(f"{full}_{index}"):
        index += 1
    return f"{base}_{index}"


def _close_subscopes(scopes: _Scopes, name: str, opened) -> None:
    """Leaving a scope entered by name forgets its sub-scopes, as TF's
    ``close_variable_subscopes``: entered again, its default names start over (``dense``
    again, so that reuse finds the variables); leaving a scope object restores the counts."""
    if opened is not None:
        scopes.opened = opened
        return
    for key in scopes.opened:
        if key.startswith(name + "/"):
            scopes.opened[key] = 0


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, collections=None, partitioner=None, validate_shape=True,
                 synchronization=None, aggregation=None, **unsupported) -> Variable:
    """The variable ``<scope>/<name>``: made with ``initializer`` (default: the scope's, else
    ``glorot_uniform_initializer()``), or the existing one when the scope reuses.  With a
    ``partitioner`` (default: the scope's) a :class:`PartitionedVariable` of shards
    ``<name>/part_<i>`` (:mod:`tinyflow.frontend.partitioned_variables`).  ``validate_shape``
    as :class:`~tinyflow.nnvm.variables.Variable`'s, and so are ``trainable`` (None: True
    unless ``synchronization`` is ON_READ), ``synchronization`` and ``aggregation``.

    Raises
    ------
    ValueError
        As TensorFlow: the name exists and the scope does not reuse; it does not exist and the
        scope reuses (``reuse=True``); a reused variable's shape differs from ``shape``; no
        shape for an initializer that needs one.
    """
    if unsupported:
        raise TypeError(f"get_variable: {', '.join(sorted(unsupported))} not supported by "
                        f"TinyFlow")
    scopes = _scopes()
    scope = scopes.current
    full = _join(scope.name, name)
    existing = scopes.shared.get(full)
    partitioner = scope.partitioner if partitioner is None else partitioner
    regularizer = scope.regularizer if regularizer is None else regularizer
    if existing is not None:
        return _reused(existing, scope, full, shape, partitioner,
                       as_dtype(dtype).name if dtype else scope.dtype)
    if scope.reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with "
                         f"tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
                         f"VarScope?")
    dtype = as_dtype(dtype).name if dtype else scope.dtype
    replicas = replica_settings(synchronization, aggregation, trainable, full)
    initializer = scope.initializer if initializer is None else initializer  # (an array too)
    value = _initial_value(full, shape, dtype, initializer)
    if partitioner is not None:
        scopes.shared[full] = make_partitioned(full, shape, dtype, value, partitioner, (
            lambda part, part_value, info: _single(scopes, part, part_value, dtype, replicas,
                                                   collections, regularizer, info)))
        return scopes.shared[full]
    return _single(scopes, full, value, dtype, replicas, collections, regularizer,
                   validate_shape=validate_shape)


def _single(scopes, full, value, dtype, replicas, collections, regularizer,
            save_slice_info=None, validate_shape=True) -> Variable:
    """The variable ``full`` made and recorded (a partitioned variable's shard: its place)."""
    graph = current_context()
    synchronization, aggregation, trainable = replicas  # replica_settings' checked three
    with graph.name_scope(None):  # the full name as it is, whatever name scope is open
        variable = Variable(value, name=full, trainable=trainable, dtype=dtype,
                            collections=collections, validate_shape=validate_shape,
                            synchronization=synchronization, aggregation=aggregation)
    variable.save_slice_info = save_slice_info
    scopes.shared[full] = variable
    if regularizer is not None:
        loss = regularizer(variable)
        if loss is not None:
            graph.add_to_collection("regularization_losses", loss)
    return variable


def _reused(existing, scope: VariableScope, full: str, shape, partitioner, dtype: str):
    if scope.reuse is False:
        raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set "
                         f"reuse=True or reuse=tf.AUTO_REUSE in VarScope? Originally defined "
                         f"at: {existing.node.source}")
    partitioned = isinstance(existing, PartitionedVariable)
    if partitioned:
        found = check_reuse(existing, shape, partitioner)
    else:
        found = existing.node.attrs.get("shape")
    if shape is not None and found is not None and tuple(shape) != tuple(found):
        raise ValueError(f"Trying to share variable {full}, but specified shape "
                         f"{tuple(shape)} and found shape {tuple(found)}.")
    if dtype != existing.dtype.name:  # TF 1.15's check; its variables' dtype is a ref type
        raise ValueError(f"Trying to {'reuse partitioned' if partitioned else 'share'} "
                         f"variable {full}, but specified dtype {dtype} and found dtype "
                         f"{existing.dtype.name}{'' if partitioned else '_ref'}.")
    return existing


def _initial_value(full, shape, dtype, initializer) -> Symbol:
    """The initial value: a tensor or a value given as ``initializer``, else the initializer
    called with the shape (TF's ``init(shape, dtype=..., partition_info=None)``)."""
    if initializer is not None and not callable(initializer):
        if shape is not None and not isinstance(initializer, Symbol):
            return constant(initializer, dtype=dtype, shape=shape)
        return initializer if isinstance(initializer, Symbol) else _constant(initializer, dtype)
    if shape is None or not TensorShape(shape).is_fully_defined():
        raise ValueError(f"Shape of a new variable ({full}) must be fully defined, but "
                         f"instead was {None if shape is None else TensorShape(shape)}.")
    shape = TensorShape(shape).as_list()
    if initializer is None:
        initializer = _default_initializer(full, as_dtype(dtype))
    elif isinstance(initializer, type):  # the class (tf.ones_initializer): TF makes one
        initializer = initializer(dtype=as_dtype(dtype))
    return initializer(shape, dtype=as_dtype(dtype), partition_info=None)


def _default_initializer(full, dtype):
    """TF 1.15's default: Glorot uniform for floats, zeros for integers and booleans."""
    if dtype.is_floating:
        return glorot_uniform_initializer()
    if dtype.is_integer or dtype.is_bool:
        return zeros_initializer()
    raise ValueError(f"An initializer for variable {full} of {dtype.name} is required")


def _constant(value, dtype):
    return constant(value, dtype=dtype)


def make_template(name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None,
                  **kwargs) -> Template:
    """``func_`` (with ``kwargs`` bound) wrapped so that every call shares the variables the
    first call made with ``tf.get_variable`` (TF 1.15's ``tf.make_template``): the first call
    runs in a new variable scope ``name_`` (made unique), the later ones re-enter it reusing;
    ``create_scope_now_`` makes the scope at once, where the template is made."""
    if custom_getter_ is not None:
        raise TypeError("make_template: custom_getter_ is not supported by TinyFlow")
    return Template(name_, functools.partial(func_, **kwargs) if kwargs else func_,
                    create_scope_now_, unique_name_)


class Template:
    """What :func:`make_template` returns: call it as the function; ``variable_scope``,
    ``variable_scope_name``, ``variables``, ``trainable_variables`` as TF's."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None) -> None:
        if not name:
            raise ValueError("name cannot be None.")
        self.name, self._func, self._unique_name = name, func, unique_name
        self._variable_scope, self._variables_created = None, False
        if create_scope_now:  # TF's pure variable scope: no name scope for ops
            with variable_scope(unique_name, default_name=name,
                                auxiliary_name_scope=False) as scope:
                self._variable_scope = scope

    def __call__(self, *args, **kwargs):
        if self._variable_scope is not None:
            with variable_scope(self._variable_scope, reuse=self._variables_created or None):
                return self._call_func(args, kwargs)
        with variable_scope(self._unique_name, default_name=self.name) as scope:
            self._variable_scope = scope
            return self._call_func(args, kwargs)

    def _call_func(self, args, kwargs):
        trainable = current_context().get_collection("trainable_variables")
        result = self._func(*args, **kwargs)
        made = current_context().get_collection("trainable_variables")[len(trainable):]
        if self._variables_created and made:
            raise ValueError(f"Trainable variable created when calling a template after the "
                             f"first time, perhaps you used tf.Variable when you meant "
                             f"tf.get_variable: {made}")
        self._variables_created = True
        return result

    @property
    def variable_scope(self) -> VariableScope | None:
        return self._variable_scope

    @property
    def variable_scope_name(self) -> str | None:
        return None if self._variable_scope is None else self._variable_scope.name + "/"

    def _variables(self, key: str) -> list:
        prefix = self.variable_scope_name
        return [] if prefix is None else [
            v for v in current_context().get_collection(key) if v.name.startswith(prefix)]

    @property
    def variables(self) -> list:
        return self._variables("variables")

    @property
    def trainable_variables(self) -> list:
        return self._variables("trainable_variables")
