"""``tf.contrib.framework`` as TensorFlow 1.15 has it, the part slim programs use: ``arg_scope``
(default keyword arguments for the functions decorated with ``add_arg_scope``, scopes nesting
as TF's: an inner scope's value for a function wins, its other defaults are kept), the global
step's functions (``tf.train``'s) and the model variables (``model_variable``, ``variable``, ``get_variables``, ``get_model_variables``,
``get_variables_to_restore``).  Any other name is an AttributeError saying TinyFlow lacks it.
"""
from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator

from .. import tf_nest as nest  # tf.contrib.framework.nest: tf.nest
from ..framework import device as tf_device
from ..framework import get_collection
from ..train import create_global_step, get_global_step, get_or_create_global_step
from ..variable_scope import get_variable

__all__ = [
    "add_arg_scope",
    "arg_scope",
    "arg_scoped_arguments",
    "create_global_step",
    "current_arg_scope",
    "get_global_step",
    "get_model_variables",
    "get_or_create_global_step",
    "get_variables",
    "get_variables_to_restore",
    "has_arg_scope",
    "model_variable",
    "nest",
    "variable",
]


class _ArgScopes(threading.local):
    """The open arg scopes of this thread, innermost last (TF keeps one such stack)."""

    def __init__(self) -> None:
        self.stack: list[dict] = [{}]


_SCOPES = _ArgScopes()


def _key(func) -> str:
    """TF's key of a function in a scope (``str(func)``, its address in it: two functions of
    one name are two keys); the decorated function answers as the one it wraps."""
    return getattr(func, "_key_op", str(func))


def current_arg_scope() -> dict:
    """The innermost open scope: ``{function key: {argument: value}}``."""
    return _SCOPES.stack[-1]


def has_arg_scope(func) -> bool:
    """Whether ``func`` was decorated with :func:`add_arg_scope`."""
    return hasattr(func, "_arg_scoped_arguments")


def arg_scoped_arguments(func) -> tuple:
    """The keyword arguments (those with defaults) an arg scope may set for ``func``."""
    return func._arg_scoped_arguments


def add_arg_scope(func: Callable) -> Callable:
    """``func`` taking its keyword arguments' defaults from the open :func:`arg_scope` s
    (arguments given in the call win)."""
    key = _key(func)

    @functools.wraps(func)
    def func_with_args(*args, **kwargs):
        scoped = current_arg_scope().get(key)
        return func(*args, **({**scoped, **kwargs} if scoped else kwargs))

    code, defaults = func.__code__, func.__defaults__ or ()
    func_with_args._key_op = key
    func_with_args._arg_scoped_arguments = code.co_varnames[
        code.co_argcount - len(defaults):code.co_argcount]
    return func_with_args


@contextlib.contextmanager
def arg_scope(list_ops_or_scope, **kwargs) -> Iterator[dict]:
    """``with arg_scope([slim.conv2d, slim.fully_connected], padding="VALID"):``: the
    functions' defaults inside the block (added to the enclosing scope's for them); a dict
    (a scope yielded earlier) opens that scope again.

    Raises
    ------
    TypeError
        Neither a list/tuple of functions nor a dict.
    ValueError
        A dict with keyword arguments, or a function not decorated with ``add_arg_scope``.
    """
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("When attempting to re-use a scope by suppling a dictionary, "
                             "kwargs must be empty.")
        scope = dict(list_ops_or_scope)
    elif isinstance(list_ops_or_scope, (list, tuple)):
        scope = dict(current_arg_scope())
        for op in list_ops_or_scope:
            if not has_arg_scope(op):
                raise ValueError(f"{getattr(op, '__name__', op)!r} is not decorated with "
                                 f"@add_arg_scope")
            scope[_key(op)] = {**scope.get(_key(op), {}), **kwargs}
    else:
        raise TypeError("list_ops_or_scope must either be a list/tuple or reused scope "
                        "(i.e. dict)")
    _SCOPES.stack.append(scope)
    try:
        yield scope
    finally:
        _SCOPES.stack.pop()


@add_arg_scope
def variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True,
             collections=None, caching_device=None, device=None, partitioner=None,
             custom_getter=None, use_resource=None):
    """``tf.get_variable`` in the global variables plus ``collections``, under ``tf.device(
    device)`` (a ``partitioner``'s shards each in them); ``caching_device``, ``custom_getter``
    and ``use_resource`` are not supported (a ValueError when given)."""
    unsupported = {"caching_device": caching_device, "custom_getter": custom_getter,
                   "use_resource": use_resource}
    given = sorted(k for k, v in unsupported.items() if v is not None)
    if given:
        raise ValueError(f"variable {name!r}: {', '.join(given)} not supported by TinyFlow")
    collections = list(dict.fromkeys(["variables", *(collections or [])]))
    with tf_device(device):
        return get_variable(name, shape, dtype=dtype, initializer=initializer,
                            regularizer=regularizer, trainable=trainable,
                            collections=collections, partitioner=partitioner)


@add_arg_scope
def model_variable(name, shape=None, dtype="float32", initializer=None, regularizer=None,
                   trainable=True, collections=None, caching_device=None, device=None,
                   partitioner=None, custom_getter=None, use_resource=None):
    """:func:`variable` also in ``tf.GraphKeys.MODEL_VARIABLES``."""
    return variable(name, shape=shape, dtype=dtype, initializer=initializer,
                    regularizer=regularizer, trainable=trainable,
                    collections=["variables", "model_variables", *(collections or [])],
                    caching_device=caching_device, device=device, partitioner=partitioner,
                    custom_getter=custom_getter, use_resource=use_resource)


def get_variables(scope=None, suffix=None, collection="variables") -> list:
    """The variables of ``collection`` whose name starts with ``scope`` (a name or a
    VariableScope) and whose op name ends with ``suffix``."""
    scope = getattr(scope, "name", scope)
    if suffix is not None:
        scope = f"{scope or ''}.*{suffix if ':' in suffix else suffix + ':'}"
    return get_collection(collection, scope)


def get_model_variables(scope=None, suffix=None) -> list:
    """:func:`get_variables` of ``tf.GraphKeys.MODEL_VARIABLES``."""
    return get_variables(scope, suffix, "model_variables")


def get_variables_to_restore(include=None, exclude=None) -> list:
    """The global variables under the scopes ``include`` (all by default) but under none of
    ``exclude``, in creation order."""
    found = get_variables() if include is None else [
        v for scope in include for v in get_variables(scope)]
    excluded = {id(v) for scope in exclude or () for v in get_variables(scope)}
    return [v for v in found if id(v) not in excluded]


def __getattr__(name):
    raise AttributeError(f"tf.contrib.framework.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib.framework' has no attribute {name!r})")
