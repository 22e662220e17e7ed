"""The one Lua runtime: compiles FLuaCompute bodies and runs a step's closures.

The runtime is Lua 5.4, its collector generational (see :func:`_choose_lua` for why, and for
LuaJIT 2.1, used only when asked for).  Its global ``torch`` table holds the generic functions
of :mod:`tinyflow.lua_ops.torch_table` plus three written in Lua (the prelude).  The engine's
kernels are per family (:func:`family_kernels`), each table made on its first use.
A step is one call into Lua: :func:`run_closures` loops over the closures under ``pcall`` and
returns the index of the first failing one, so a Lua error never crashes the process.

Sandbox
-------
The host side, ``sandbox.lua`` beside this module, builds it.  Each node's body is compiled into an environment of its own (``load`` with an env in Lua 5.4,
``setfenv`` in LuaJIT) holding ``torch`` (a read-only view: assigning a field, ``rawset`` and
``setmetatable`` on it fail; nested tables are views too), its own copies of ``math``,
``string`` (less ``dump``; ``find match gmatch gsub`` refuse a pattern that could run for
hours in C, out of Ctrl-C's reach: ``k`` repetitions over ``n`` characters, ``(n+1)^(k+1)``
above 1e8; strings' methods are these too) and ``table``, and the safe base functions:
``assert error ipairs pairs next select tonumber tostring type unpack rawequal rawlen rawget``,
``setmetatable`` refusing ``__gc`` (a finalizer runs inside the collector, where Ctrl-C cannot
stop it), ``getmetatable`` for tables only (strings' and Python objects' metatables are shared
by every body) and ``pcall`` / ``xpcall`` that let Ctrl-C through (xpcall's handler never sees
it).  A table raised as an error is made text inside Lua, where Ctrl-C reaches its
``__tostring``.  Reading ``os io debug package
require load loadstring loadfile dofile collectgarbage python rawset coroutine print ...`` is an
error naming it.  Globals a body sets live in its environment, one per node.  Python objects are
opaque to Lua: lupa's attribute filter refuses every attribute but a module's public ones, so
no body walks ``torch.mm.__globals__`` to ``os``.  Reading a name ``torch`` lacks is an error
naming it.

A built-in body, one whose source is exactly the one :mod:`tinyflow.lua_ops` attached to its op
at import (:func:`tinyflow.lua_ops.kernels_family`; not an op attribute, so a user cannot set
it), gets one more global: ``kernels``, a read-only view of its family's engine kernels
(``lua_ops/<family>/kernels.py``'s ``__all__`` and ``kernels.lua``: fused code, GEMM choice,
oneDNN, collectives...).  Every other body reading ``kernels`` gets an error saying so; the
choice is made when the body is compiled, so steps pay nothing for it.  An op with
``FLuaTrusted`` gets the real globals instead (its body can do anything the process can), and
no ``kernels``: those globals are shared by every trusted body, whatever its family.

Ctrl-C
------
A count hook (every :data:`HOOK_COUNT` Lua instructions, set once by the host, out of bodies'
reach) asks Python whether Ctrl-C was pressed or the run's deadline passed; the bookkeeping
around every call into Lua, robust to an interrupt at any instruction, is
:mod:`tinyflow.lua_ops.interrupts`.  A Python step (a ``tf.py_func`` read by other ops) runs
outside Lua, so it may wait for another thread's run.
"""
from __future__ import annotations

import functools
import importlib
import logging
import types
from importlib import resources
from typing import NamedTuple

from ..nnvm.errors import TinyflowError
from ..nnvm.op import Op
from . import KERNELS_LUA, SANDBOX_LUA, kernels_family
from .interrupts import Interrupts

__all__ = [
    "HOOK_COUNT",
    "LuaOpError",
    "call_closure",
    "collect_garbage",
    "compile_body",
    "family_kernels",
    "guarded",
    "interruptible",
    "is_python_step",
    "is_trusted",
    "lua_runtime",
    "lua_table",
    "make_closure",
    "run_closures",
    "run_deadline",
    "runtime_name",
]

log = logging.getLogger("tinyflow")

# Generic helpers of the torch table written in Lua (torch_table.PRELUDE_FUNCTIONS names them).
_PRELUDE = """
local torch = ...
function torch.shape(x)
  local s = {}
  for i = 1, torch.dim(x) do s[i] = torch.size(x, i) end
  return s
end
-- A 0-based axis (negative counts from the end) as a 1-based Lua dim.
function torch.dim_of(axis)
  if axis >= 0 then return axis + 1 end
  return axis
end
-- An axis attribute (number, array or nil) as an array of 1-based dims (nil stays nil).
function torch.dims_of(axis)
  if axis == nil then return nil end
  if type(axis) ~= "table" then return {torch.dim_of(axis)} end
  local dims = {}
  for i, a in ipairs(axis) do dims[i] = torch.dim_of(a) end
  return dims
end
"""

#: Lua instructions between two checks for Ctrl-C (a few hundred microseconds of pure Lua).
HOOK_COUNT = 100_000


class LuaOpError(TinyflowError, RuntimeError):
    """An error in an op's Lua body (syntax, setup or compute); names the op and carries Lua's
    message."""


def _choose_lua():
    """Lua 5.4, or LuaJIT 2.1 where ``TINYFLOW_LUA=luajit21`` asks for it (``=lua54`` is the
    default).

    lupa (2.8) maps a Python object to its userdata through ``_pyrefs_in_lua[(id(obj),
    flags)] -> slot`` and the registry's weak-valued LUPA_PYTHON_REFERENCES_TABLE ``[slot] ->
    userdata``; ``luaL_ref`` gives a new slot from the table's free list, or past its length
    where that list is empty.  Lua's collector clears a dead userdata's slot in its atomic
    phase but runs its ``__gc`` (which drops the dict entry, then frees the slot) later: an
    incremental collector sweeps in steps between, while Lua runs on.  A new object pushed
    then can take the cleared slot, and the old object, pushed again, gets the new one's
    userdata; that ``__gc`` then frees the slot still in use (two objects share it, or a
    userdata outlives the reference keeping its object alive).  Lua 5.4's generational
    collector runs every finalizer in the very step that cleared the slots, so Lua never runs
    between (an emergency collection, out of memory, defers them).  LuaJIT has no such mode
    (its finalizers run one a step, never on a trace), so it stays an explicit choice.
    """
    import os
    names = {"luajit21": "LuaJIT 2.1", "lua54": "Lua 5.4"}
    forced = os.environ.get("TINYFLOW_LUA", "lua54")
    if forced not in names:
        raise ValueError(f"TINYFLOW_LUA must be one of {sorted(names)}, got {forced!r}")
    if forced == "luajit21":
        log.info("TINYFLOW_LUA=luajit21: lupa can hand LuaJIT another Python object than the "
                 "one passed (its incremental collector; see _choose_lua)")
    return importlib.import_module(f"lupa.{forced}"), names[forced]


class _Runtime(NamedTuple):
    lua: object
    name: str
    error: type           # the binding's LuaError
    host: object          # the host table: run_closures, new_env, compile, kernels_view
    interrupts: Interrupts
    torch: object         # the torch table itself (bodies see a read-only view of it)


def _python_attribute(obj, name, is_setting):
    """lupa's attribute filter: Lua reaches no Python attribute but the public ones of a module
    (``python.builtins.len`` for trusted bodies).  Tensors and functions handed to Lua are
    opaque, so no body walks ``__class__`` / ``__globals__`` or a tensor's methods to os."""
    if isinstance(obj, types.ModuleType) and not name.startswith("_") and not is_setting:
        return name
    raise AttributeError(f"Lua cannot {'set' if is_setting else 'read'} Python attribute "
                         f"{name!r} of a {type(obj).__name__}: op bodies use the torch table")


@functools.cache
def _runtime() -> _Runtime:
    lupa_module, name = _choose_lua()
    from . import torch_table  # imports torch: when Lua first runs, not with the package
    lua = lupa_module.LuaRuntime(unpack_returned_tuples=True, register_eval=False,
                                 attribute_filter=_python_attribute)
    if name == "Lua 5.4":  # finalizers in the step that clears their slots (_choose_lua)
        lua.execute("collectgarbage('generational')")
    table = lua.table_from(torch_table.FUNCTIONS)
    lua.globals().torch = table
    lua.execute(_PRELUDE, table)
    interrupts = Interrupts(_CALLERS, _BOOKKEEPING)
    host = lua.execute(resources.files(__package__).joinpath(SANDBOX_LUA).read_text(), table, interrupts.check, interrupts.is_interrupt, HOOK_COUNT)
    table.run_closures = run_closures
    log.info("Lua runtime: %s", name)
    return _Runtime(lua, name, lupa_module.LuaError, host, interrupts, table)


@functools.cache
def family_kernels(family: str):
    """The read-only ``kernels`` table of a family's built-in bodies: the functions named in
    ``<family>/kernels.py``'s ``__all__`` and those ``<family>/kernels.lua`` adds (made once,
    when the family's first body is compiled), or None for a family without kernels."""
    runtime = _runtime()
    folder = resources.files(__package__).joinpath(family)
    functions = {}
    if folder.joinpath("kernels.py").is_file():
        module = importlib.import_module(f"{__package__}.{family}.kernels")
        functions = {name: getattr(module, name) for name in module.__all__}
    table = runtime.lua.table_from(functions)
    if folder.joinpath(KERNELS_LUA).is_file():  # built-in code: it runs with the real globals
        runtime.lua.execute(folder.joinpath(KERNELS_LUA).read_text(), runtime.torch, table)
    if not functions and not folder.joinpath(KERNELS_LUA).is_file():
        return None
    return runtime.host.kernels_view(table, family)


def lua_runtime():
    """The process's lupa ``LuaRuntime`` (created on first use)."""
    return _runtime().lua


def collect_garbage() -> None:
    """Run Lua's full collector, which frees the tensors only dropped closures referenced.
    Asked for from inside a call into Lua (a session's finalizer run by Python's collector in
    the middle of a step, or during this collection), it runs when that call returns: a
    re-entrant collection would hand lupa objects it has already freed."""
    runtime = _runtime()
    if runtime.interrupts.is_inside():
        runtime.interrupts.collect = _collect_now
        return
    _collect_now()


def _collect_now() -> None:
    runtime = _runtime()
    with runtime.interrupts.guard():  # freeing may run finalizers that ask for another one
        runtime.lua.execute("collectgarbage()")


def runtime_name() -> str:
    """``"LuaJIT 2.1"`` or ``"Lua 5.4"``."""
    return _runtime().name


def _call_lua(what: str, function, *args):
    """``function(*args)`` into Lua, interruptible by Ctrl-C; a Lua error escaping it (the
    runtime itself failing: out of memory, C stack overflow) is a LuaOpError naming ``what``."""
    runtime = _runtime()
    with runtime.interrupts.guard():
        try:
            return function(*args)
        except runtime.error as err:
            raise LuaOpError(f"{what}: the Lua runtime failed: {err}") from None


def run_closures(closures, count: int):
    """Run a step's closures (a Lua array) in order, under Lua's pcall.

    Returns
    -------
    0, or ``(index, error)`` of the first failing closure (1-based), as Lua's
    ``torch.run_closures`` always did.

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C during the run (closures before the one interrupted keep their effect).
    """
    runtime = _runtime()
    previous = runtime.interrupts.enter()  # _call_lua's guard, inlined: this runs every step
    try:
        try:
            failed = runtime.host.run_closures(closures, count)
        except runtime.error as err:
            raise LuaOpError(f"running a step: the Lua runtime failed: {err}") from None
        # inside: leaving may run a collection asked for meanwhile, which resets pending
        runtime.interrupts.raise_if_interrupt(failed[1] if failed else None)
    finally:
        runtime.interrupts.leave(previous)
    return failed


def call_closure(closure):
    """Run one closure under Lua's pcall: ``(True, None)`` or ``(False, error)``;
    KeyboardInterrupt on Ctrl-C, as :func:`run_closures`.  Inside :func:`interruptible`, the
    SIGINT handler is not swapped per call."""
    runtime = _runtime()
    with runtime.interrupts.guard():
        result = _call_lua("running an op", runtime.host.call, closure)
        ok, err = result if isinstance(result, tuple) else (result, None)
        runtime.interrupts.raise_if_interrupt(None if ok else err)
    return ok, err


def run_deadline(timeout_ms):
    """A context manager: this thread's calls into Lua inside it stop with
    DeadlineExceededError once ``timeout_ms`` milliseconds have passed."""
    return _runtime().interrupts.deadline(timeout_ms)


def guarded(closure, guards, truth=bool):
    """``closure`` run only when every guard (a bool scalar tensor: a tf.cond branch's,
    TGuard) is true: ``truth(guard)``, read in order until one is false."""
    return _runtime().host.guarded(closure, lua_table(guards), truth)


def is_python_step(closure) -> bool:
    """Whether an op's step is a Python function (a tf.py_func's), run outside Lua so that it
    may wait for another thread's run."""
    return isinstance(closure, types.FunctionType)


def interruptible():
    """A context manager around several calls into Lua (:func:`call_closure` op by op): Ctrl-C
    inside them is KeyboardInterrupt, and the SIGINT handler is installed once for all."""
    return _runtime().interrupts.guard()


def lua_table(values):
    """A Lua array (1-based) from a Python sequence, or a Lua table from a dict."""
    runtime = _runtime()
    pairs = ({k: _to_lua(v) for k, v in values.items() if v is not None}
             if isinstance(values, dict) else {i + 1: _to_lua(v) for i, v in enumerate(values)})
    with runtime.interrupts.guard():  # inside Lua: a finalizer run meanwhile defers collecting
        table = runtime.lua.table_from(pairs)
        if all(table[k] is v for k, v in pairs.items() if _held(v)):
            return table
    # Not under Lua 5.4's generational collector (see _choose_lua): never a wrong tensor
    raise LuaOpError("lupa gave Lua another Python object than the one passed (a lupa "
                     f"reference bug under {runtime.name}); run again")


def _held(value) -> bool:
    """Whether Lua holds ``value`` as a Python object (not a number, string or Lua object)."""
    return not isinstance(value, (bool, int, float, str, bytes)) and \
        not type(value).__module__.startswith("lupa")


def _to_lua(value):
    if isinstance(value, (tuple, list)):
        return lua_table(value)
    return value


@functools.cache
def _with_return(source: str) -> str:
    """A bare ``function(x, y, kwarg)`` body gets its ``return``."""
    lines = source.split("\n")
    for i, line in enumerate(lines):
        code = line.strip()
        if code and not code.startswith("--"):
            if code.startswith("function"):
                lines[i] = "return " + line
            break
    return "\n".join(lines)


def is_trusted(op_name: str) -> bool:
    """Whether op ``op_name`` opted out of the sandbox (``FLuaTrusted``: its body runs with the
    runtime's full globals, os, io, python and all)."""
    try:
        return bool(Op.get(op_name).attr("FLuaTrusted", False))
    except KeyError:
        return False


def compile_body(op_name: str, source: str):
    """Compile an FLuaCompute source into its factory ``function(x, y, kwarg)``.

    The body gets a fresh environment of its own (the module's docstring says what it holds),
    with its family's ``kernels`` when ``source`` is the built-in body tinyflow attached to op
    ``op_name`` (:func:`tinyflow.lua_ops.kernels_family`), or the runtime's full globals when
    the op sets ``FLuaTrusted``.  ``LuaOpError`` on a syntax error or a body that does not give
    a function.
    """
    runtime = _runtime()
    with runtime.interrupts.guard():  # inside Lua: a finalizer run meanwhile defers collecting
        if is_trusted(op_name):
            env = runtime.lua.globals()
        else:
            family = kernels_family(op_name, source)
            env = runtime.host.new_env(family_kernels(family) if family is not None else None)
        result = _call_lua(f"op '{op_name}'", runtime.host.compile, _with_return(source),
                           f"={op_name}.lua", env)
    factory, err = result if isinstance(result, tuple) else (result, None)
    if factory is None:
        runtime.interrupts.raise_if_interrupt(err)
        raise LuaOpError(f"Lua body of op '{op_name}' does not compile: {err}")
    return factory


def _shapes_text(inputs, outputs) -> str:
    """``input shapes (2, 3), (3,); output shapes (2, 3)`` of the tensors an op is bound to."""
    def shapes(tensors):
        return ", ".join(str(tuple(t.shape)) if t is not None else "?" for t in tensors)
    return f"input shapes {shapes(inputs)}; output shapes {shapes(outputs)}"


def make_closure(op_name: str, source: str, inputs, outputs, kwarg: dict, where: str):
    """Run an op body's setup and return its per-step closure.

    Parameters
    ----------
    op_name, source : str
        The op and its FLuaCompute source.
    inputs, outputs : list of torch.Tensor
        The tensors the body reads and writes (``x`` and ``y`` in Lua).
    kwarg : dict
        The node's attributes.
    where : str
        The node as error messages name it (op, node name, where the user created it).

    Returns
    -------
    The Lua closure to run every step.  Errors are :class:`LuaOpError` naming ``where`` and the
    bound shapes, so a body that fails for some shapes only says which.
    """
    try:
        factory = compile_body(op_name, source)
    except LuaOpError as err:  # say which node uses the body, not only which op
        raise LuaOpError(f"{where}: {err}") from None
    runtime = _runtime()
    with runtime.interrupts.guard():
        ok, closure, kind = _call_lua(where, runtime.host.setup, factory, lua_table(inputs),
                                      lua_table(outputs), lua_table(kwarg))
        runtime.interrupts.raise_if_interrupt(None if ok else closure)
    if not ok:
        raise LuaOpError(f"{where}: Lua setup failed ({_shapes_text(inputs, outputs)}): "
                         f"{closure}")
    if kind != "function":
        raise LuaOpError(f"{where}: Lua body must return the per-step closure (a function), "
                         f"got {kind} ({_shapes_text(inputs, outputs)})")
    return closure


#: The runtime's functions that call into Lua: one of them on a thread's stack means that thread
#: is inside Lua (:meth:`Interrupts.is_inside`).
_CALLERS = frozenset(f.__code__ for f in (
    run_closures, call_closure, _call_lua, lua_table, compile_body, make_closure, _collect_now))
#: Where a SIGINT is only kept, to be raised where the run checks for it: the bookkeeping around
#: calls into Lua, which must run to its end (the interrupts' own is added by them).
_BOOKKEEPING = _CALLERS | frozenset(f.__code__ for f in (
    _to_lua, collect_garbage, interruptible, is_trusted, _with_return.__wrapped__, _shapes_text))
