"""The one Lua runtime: compiles FLuaCompute bodies and runs a step's closures.

The runtime is LuaJIT 2.1 when lupa has it and its binding keeps Python objects apart, Lua 5.4
otherwise (see :func:`_choose_lua`).  Its global ``torch`` table holds the generic functions
of :mod:`tinyflow.lua_ops.torch_table` plus three written in Lua (the prelude).  The engine's
kernels are per family (:func:`family_kernels`), each table made on its first use.
A step is one call into Lua: :func:`run_closures` loops over the closures under ``pcall`` and
returns the index of the first failing one, so a Lua error never crashes the process.

Sandbox
-------
Each node's body is compiled into an environment of its own (``load`` with an env in Lua 5.4,
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
reach) calls into Python, where a SIGINT handler chained to the previous one (installed only
while the main thread runs Lua) has kept the KeyboardInterrupt it raised; the hook raises it
again until the run leaves Lua, and the runtime's callers raise it: a step is interrupted
between two Lua instructions or Python calls, and what ran before keeps its effect, as for any
failing op.  Under LuaJIT, whose compiled traces skip hooks, bodies run interpreted.
The bookkeeping around calls into Lua keeps no counter an interrupt could leave wrong (see
:class:`_Interrupts`): after a Ctrl-C at any instruction the next run works.  One thread runs
Lua at a time (a lock another thread waits for, interruptibly); another thread's step stops
with KeyboardInterrupt when the main thread gets Ctrl-C inside TinyFlow (waiting for that
lock, say) or exits, and any thread's with DeadlineExceededError after its run's timeout
(:func:`run_deadline`, TF's ``RunOptions.timeout_in_ms``).  A Python step (a ``tf.py_func``
read by other ops) runs outside Lua, so it may wait for another thread's run.
"""
from __future__ import annotations

import _signal
import contextlib
import functools
import importlib
import logging
import signal
import sys
import threading
import time
import types
from importlib import resources
from typing import NamedTuple

from ..nnvm.errors import DeadlineExceededError, TinyflowError
from ..nnvm.op import Op
from . import KERNELS_LUA, kernels_family

__all__ = [
    "HOOK_COUNT",
    "LuaOpError",
    "call_closure",
    "collect_garbage",
    "compile_body",
    "family_kernels",
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

# The host side, run once after the prelude with the real globals; bodies never see it.  It
# returns the functions Python calls: ``run_closures``, ``new_env``, ``compile`` and
# ``kernels_view``.
_HOST = """
local torch, check_interrupt, is_interrupt, hook_count = ...
local load, setfenv, loadstring, jit = load, setfenv, loadstring, jit
local pcall, xpcall, error = pcall, xpcall, error
local next, pairs, type, tostring, select = next, pairs, type, tostring, select
local setmetatable, getmetatable, rawget = setmetatable, getmetatable, rawget
local unpack = table.unpack or unpack
local host = {}

-- A table raised as an error, as text made here, where Ctrl-C reaches a looping __tostring
-- (Python would call it where nothing can stop it); other errors as they are.
local function message(err)
  if type(err) ~= "table" then return err end
  local ok, text = pcall(tostring, err)
  if ok and type(text) == "string" then return text end
  if ok then  -- LuaJIT's tostring passes on what __tostring gave
    text = "it gave a " .. type(text)
  elseif is_interrupt(text) then
    return text
  end
  return "an error object (a table) whose __tostring failed: "
         .. (type(text) == "string" and text or type(text))
end

-- Run closures fs[1..n] in order; return 0, or the index of the first failure and its error.
function host.run_closures(fs, n)
  for i = 1, n do
    local ok, err = pcall(fs[i])
    if not ok then return i, message(err) end
  end
  return 0
end

-- One closure under pcall (an op timed alone).
function host.call(f)
  local ok, err = pcall(f)
  return ok, message(err)
end

-- A body's setup: true, its closure and the closure's type, or false and the error.
function host.setup(factory, x, y, kwarg)
  local ok, closure = pcall(factory, x, y, kwarg)
  if not ok then return false, message(closure), nil end
  return true, closure, type(closure)
end

-- Read-only views: writes raise, nested tables are views too, the metatable is hidden (so
-- neither setmetatable nor getmetatable reaches the table behind).  ``hidden`` keys stay out.
-- With ``missing``, reading a name the table lacks is an error saying so (``missing`` says
-- what the table holds): the lookup of a present name costs what a plain table's does.
local function readonly(t, name, hidden, missing)
  local shadow = {}
  for k, v in pairs(t) do
    if not (hidden and hidden[k]) then
      shadow[k] = type(v) == "table" and readonly(v, name .. "." .. tostring(k)) or v
    end
  end
  if missing then
    setmetatable(shadow, {__index = function(_, k)
      error(name .. "." .. tostring(k) .. " is nil: no such function (" .. missing .. ")", 2)
    end})
  end
  local function refuse(_, k)
    error(name .. " is read-only: an op body cannot set " .. name .. "." .. tostring(k), 2)
  end
  local function iterate(_, k) return next(shadow, k) end
  return setmetatable({}, {__index = shadow, __newindex = refuse, __metatable = false,
                           __pairs = function(view) return iterate, view, nil end})
end
local torch_view = readonly(torch, "torch", {run_closures = true},
                            "the torch table is documented in tinyflow/lua_ops/torch_table.py")

-- A family's kernels (tinyflow/lua_ops/<family>/kernels.py and kernels.lua), read-only.
function host.kernels_view(kernels, family)
  return readonly(kernels, "kernels", nil, "the kernels of the " .. family
                  .. " family: tinyflow/lua_ops/" .. family .. "/kernels.*")
end

local function copy(t, without)
  local c = {}
  for k, v in pairs(t) do if k ~= without then c[k] = v end end
  return c
end

-- Lua's pattern matching runs in C, out of the hook's reach, in time up to n^(k+1) for a
-- subject of n characters and a pattern of k repetitions (".-.-b"): bodies get find, match,
-- gmatch and gsub refusing a pattern whose bound passes PATTERN_WORK.
local PATTERN_WORK = 1e8
local gsub, sub = string.gsub, string.sub
local function bounded(name, find)
  return function(subject, pattern, ...)
    if type(subject) == "string" and type(pattern) == "string" then
      local plain = gsub(gsub(pattern, "%%.", "x"), "%[[^%]]*%]", "x")
      local _, repeats = gsub(plain, "[%*%+%-]", "")
      if repeats > 0 and (#subject + 1) ^ (repeats + 1) > PATTERN_WORK then
        error("string." .. name .. ": pattern '" .. sub(pattern, 1, 40) .. "' with " .. repeats
              .. " repetitions over " .. #subject .. " characters could run for hours "
              .. "(Ctrl-C cannot stop a match): match a shorter string", 2)
      end
    end
    return find(subject, pattern, ...)
  end
end
-- strings' methods (("").find, shared by every body) and bodies' string: no dump
local safe_string = copy(string, "dump")
for _, name in ipairs({"find", "match", "gmatch", "gsub"}) do
  safe_string[name] = bounded(name, string[name])
end

-- An error that is a Ctrl-C passes through a body's own pcall: bodies cannot swallow it.
local function passed(ok, ...)
  if not ok and is_interrupt((...)) then error((...), 0) end
  return ok, ...
end
-- A finalizer runs inside Lua's collector, where the hook cannot stop it: no __gc for bodies.
local function set_metatable(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("setmetatable: a metatable with __gc is not available to op bodies (a finalizer "
          .. "runs where Ctrl-C cannot stop it)", 2)
  end
  local ok, result = pcall(setmetatable, t, mt)
  if not ok then  -- the caller's line, not this one's
    error((string.gsub(tostring(result), "^%[string [^%]]*%]:%d+: ", "")), 2)
  end
  return result
end
local SAFE = {
  assert = assert, error = error, ipairs = ipairs, pairs = pairs, next = next, select = select,
  tonumber = tonumber, tostring = tostring, type = type, unpack = unpack,
  rawequal = rawequal, rawlen = rawlen, rawget = rawget, setmetatable = set_metatable,
  _VERSION = _VERSION,
  pcall = function(f, ...) return passed(pcall(f, ...)) end,
  -- the handler gets no interrupt: an error inside it would call it again, and again
  xpcall = function(f, handler, ...)
    return passed(xpcall(f, function(e)
      if is_interrupt(e) then return e end
      return handler(e)
    end, ...))
  end,
  -- tables' metatables only: those of strings and of Python objects are shared by everyone
  getmetatable = function(v) if type(v) == "table" then return getmetatable(v) end end,
}
local BLOCKED = {}
for _, name in ipairs({"os", "io", "debug", "package", "require", "load", "loadstring",
                       "loadfile", "dofile", "collectgarbage", "python", "rawset", "coroutine",
                       "setfenv", "getfenv", "module", "jit", "ffi", "bit", "utf8", "print"}) do
  BLOCKED[name] = true
end
local env_meta = {__metatable = false, __index = function(_, name)
  if BLOCKED[name] then
    error("'" .. tostring(name) .. "' is not available to op bodies (they see torch, math, "
          .. "string, table and the safe base functions; see FLuaTrusted)", 2)
  end
  if name == "kernels" then
    error("'kernels' (the engine's kernels) is available to the built-in bodies tinyflow "
          .. "attached only, not to this op's body", 2)
  end
end}

-- A fresh environment for one node's body: its own globals and its own copies of math,
-- string and table; torch read-only; a built-in body's family kernels (a read-only view made
-- by kernels_view) when given.
function host.new_env(kernels)
  local env = copy(SAFE)
  env.torch, env.math, env.table = torch_view, copy(math), copy(table)
  env.string = copy(safe_string)
  env.kernels = kernels
  env._G = env
  return setmetatable(env, env_meta)
end

-- Compile a body in env: returns the factory function(x, y, kwarg), or nil and the message.
function host.compile(source, chunkname, env)
  local chunk, err
  if setfenv then
    chunk, err = loadstring(source, chunkname)
    if chunk then setfenv(chunk, env) end
  else
    chunk, err = load(source, chunkname, "t", env)
  end
  if not chunk then return nil, err end
  -- LuaJIT's compiled traces skip hooks: its bodies run interpreted so Ctrl-C reaches them
  if jit then jit.off(chunk, true) end
  local ok, factory = pcall(chunk)
  if not ok then return nil, factory end
  if type(factory) ~= "function" then
    return nil, "body must be 'function(x, y, kwarg) ... end', got " .. type(factory)
  end
  return factory
end

-- Keep strings' shared metatable out of every body's reach (trusted ones included), and
-- their methods the bodies' safe ones.
getmetatable("").__index = safe_string
getmetatable("").__metatable = false
-- Every hook_count Lua instructions, ask Python whether Ctrl-C was pressed: a pure-Lua loop
-- in a body never returns to Python otherwise.
debug.sethook(function() check_interrupt() end, "", hook_count)
return host
"""
#: Lua instructions between two checks for Ctrl-C (a few hundred microseconds of pure Lua).
HOOK_COUNT = 100_000


class LuaOpError(TinyflowError, RuntimeError):
    """An error in an op's Lua body (syntax, setup or compute); names the op and carries Lua's
    message."""


def _keeps_object_identity(lupa_module) -> bool:
    """lupa 2.8's LuaJIT binding can hand Lua the wrong Python object once Lua's collector has
    run (lupa issues #293/#294: its weak reference table and luaL_ref disagree).  A tensor
    swapped for another is a wrong result, so such a binding is not used."""
    lua = lupa_module.LuaRuntime()
    echo = lua.eval("function(obj, scratch) return obj end")
    objects = [object() for _ in range(3)]
    return all(echo(objects[i % 3], lua.table()) is objects[i % 3] for i in range(3000))


def _choose_lua():
    """LuaJIT 2.1 where lupa has it and it keeps object identity, Lua 5.4 otherwise.

    ``TINYFLOW_LUA=lua54`` or ``=luajit21`` forces one.
    """
    import os
    names = {"luajit21": "LuaJIT 2.1", "lua54": "Lua 5.4"}
    forced = os.environ.get("TINYFLOW_LUA")
    if forced:
        if forced not in names:
            raise ValueError(f"TINYFLOW_LUA must be one of {sorted(names)}, got {forced!r}")
        return importlib.import_module(f"lupa.{forced}"), names[forced]
    try:
        luajit = importlib.import_module("lupa.luajit21")
    except ImportError:
        luajit = None
    if luajit is not None:
        if _keeps_object_identity(luajit):
            return luajit, names["luajit21"]
        log.info("lupa's LuaJIT binding mixes up Python objects (lupa issue #294); "
                 "using Lua 5.4")
    return importlib.import_module("lupa.lua54"), names["lua54"]


class _Interrupts:
    """Ctrl-C and run deadlines while a run is inside Lua.

    While the main thread runs Lua (:meth:`guard`), SIGINT goes to a handler that calls the
    previous one (Python's raises KeyboardInterrupt) and keeps what it raised as ``pending``.
    The runtime's count hook calls :meth:`check` every ``HOOK_COUNT`` Lua instructions, which
    lets Python run that handler and raises ``pending`` again, so neither a pure-Lua loop nor a
    body's own pcall keeps it from reaching the runtime's caller, which raises it.  Another
    thread's hook stops its step on a Ctrl-C the main thread got meanwhile, or once its run's
    deadline (:meth:`deadline`) has passed.

    Robust by design against an interrupt at any instruction: no counter is kept.  Whether the
    main thread is nested is whether our handler is installed; whether a thread is inside Lua
    is whether a caller of Lua is on its stack (:meth:`is_inside`); and the handler only keeps
    an interrupt landing in this bookkeeping (:data:`_BOOKKEEPING`), raised where the run
    checks for it, so enter and leave always run to their end.
    """

    def __init__(self):
        self.main = threading.main_thread().ident
        self.pending = None     # what the chained SIGINT handler raised during this run
        self.sigints = 0        # SIGINTs the main thread got inside TinyFlow: stops workers too
        self.local = threading.local()  # .since, .stop, .deadline of this thread's run
        self.lock = threading.RLock()   # one thread in Lua; waited for interruptibly
        self.collect = None     # a full collection asked for from inside Lua: run on leaving
        self.chained = None     # our SIGINT handler, chained to the previous one

    def check(self):
        """The Lua hook's call: raise the pending interrupt (main thread), or this thread's
        reason to stop (a deadline passed, Ctrl-C in the main thread)."""
        if self.pending is not None and threading.get_ident() == self.main:
            if _signal.getsignal(signal.SIGINT) is self.chained:
                raise self.pending
            self.pending = None  # left by an interrupt just after a run put its handler back
        local = self.local
        stop = getattr(local, "stop", None) or self._stop_reason(local)
        if stop is not None:
            local.stop = stop
            raise stop

    def _stop_reason(self, local):
        deadline = getattr(local, "deadline", None)
        if deadline is not None and time.monotonic() > deadline[0]:
            return DeadlineExceededError(None, None, f"the run took longer than its timeout "
                                                     f"of {deadline[1]} ms (timeout_in_ms)")
        if threading.get_ident() != self.main and (
                getattr(local, "since", self.sigints) != self.sigints
                or not threading.main_thread().is_alive()):
            return KeyboardInterrupt("Ctrl-C in the main thread stopped this thread's run")
        return None

    def is_interrupt(self, err) -> bool:
        """Whether a Lua error ``err`` is an interrupt (a BaseException such as
        KeyboardInterrupt or SystemExit, not an Exception; or this thread's reason to stop)."""
        return (self.pending is not None and threading.get_ident() == self.main) or (
            isinstance(err, BaseException) and not isinstance(err, Exception)) or (
            getattr(self.local, "stop", None) is not None)

    def raise_if_interrupt(self, err=None) -> None:
        """Raise the interrupt behind a failed call into Lua, if it was one, or one Ctrl-C
        pressed during a call that succeeded (some code swallowed it: it is not lost)."""
        if self.is_interrupt(err):
            if self.pending is not None and threading.get_ident() == self.main:
                raise self.pending
            raise getattr(self.local, "stop", None) or err

    def guard(self):
        """Around a call into Lua (a context manager).  On the main thread (the one Python
        runs handlers on), the outermost call installs our SIGINT handler chained to the
        previous one, when that is a Python function (SIG_IGN and SIG_DFL are left alone),
        and puts it back after."""
        return _Guard(self)

    @contextlib.contextmanager
    def deadline(self, timeout_ms):
        """This thread's runs inside the block stop with DeadlineExceededError once
        ``timeout_ms`` milliseconds have passed (none when 0 or None)."""
        local = self.local
        local.deadline = (time.monotonic() + timeout_ms / 1000, timeout_ms) \
            if timeout_ms else None
        try:
            yield
        finally:
            local.deadline = None

    def enter(self):
        """:meth:`guard`'s entering; returns what :meth:`leave` takes.  The handler goes in
        first: from then on an interrupt here is only kept, so the lock taken is given back."""
        if threading.get_ident() != self.main:
            self.local.stop, self.local.since = None, self.sigints
            if not self.lock.acquire(False):
                self._wait()
            return None
        # _signal, not signal: the latter's enum conversions cost ~8 us a run
        previous = _signal.getsignal(signal.SIGINT)
        if previous is self.chained and previous is not None:
            previous = None  # nested: the outermost call installed it
        else:
            self.pending = self.local.stop = None
            if callable(previous):
                if self.chained is None or self.chained.args[0] is not previous:
                    self.chained = functools.partial(self._on_sigint, previous)
                _signal.signal(signal.SIGINT, self.chained)
        if not self.lock.acquire(False):
            try:
                self._wait()
            except BaseException:
                self._restore(previous)
                raise
        return previous

    def _wait(self):
        """Wait for another thread's call into Lua; Ctrl-C or this run's deadline end the
        wait (and a Ctrl-C stops that thread's step too)."""
        while not self.lock.acquire(timeout=0.05):
            if self.pending is not None and threading.get_ident() == self.main:
                raise self.pending
            stop = self._stop_reason(self.local)
            if stop is not None:
                raise stop

    def leave(self, previous) -> None:
        """:meth:`guard`'s leaving: the lock given back, a collection asked for run, the
        handler put back, and a Ctrl-C kept meanwhile raised."""
        self.lock.release()
        for _ in range(3):  # a collection's finalizers may ask for another
            if self.collect is None or _lua_depth() > 1:
                break
            collect, self.collect = self.collect, None
            collect()
        if previous is not None:  # the main thread's outermost call
            self._restore(previous)

    def _restore(self, previous):
        if previous is None:
            return
        if callable(previous):  # first: from here on, no interrupt is kept, all are raised
            _signal.signal(signal.SIGINT, previous)
        pending, self.pending = self.pending, None
        if pending is not None:
            raise pending

    @staticmethod
    def is_inside() -> bool:
        """Whether this thread is inside a call into Lua (a finalizer run by Python's collector
        during a step, say): Lua's collector must not run re-entrantly then."""
        return _lua_depth() > 0

    def _on_sigint(self, previous, signum, frame):
        try:
            previous(signum, frame)
        except BaseException as exc:
            self.pending = exc
            self.sigints += 1
            if frame is None or frame.f_code not in _BOOKKEEPING:
                raise


class _Guard:
    """:meth:`_Interrupts.guard`: a class, not a generator, so an interrupt landing in its
    ``__enter__`` / ``__exit__`` is kept like one in enter / leave."""

    __slots__ = ("interrupts", "previous")

    def __init__(self, interrupts):
        self.interrupts = interrupts

    def __enter__(self):
        self.previous = self.interrupts.enter()

    def __exit__(self, *exc):
        self.interrupts.leave(self.previous)


def _lua_depth() -> int:
    """How many of the runtime's callers of Lua (:data:`_CALLERS`) are on this thread's stack:
    derived from the stack, so no interrupt can leave it wrong (only walked when a collection
    is asked for, not every step)."""
    depth, frame = 0, sys._getframe(1)
    while frame is not None:
        depth += frame.f_code in _CALLERS
        frame = frame.f_back
    return depth


class _Runtime(NamedTuple):
    lua: object
    name: str
    error: type           # the binding's LuaError
    host: object          # the host table: run_closures, new_env, compile, kernels_view
    interrupts: _Interrupts
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
    table = lua.table_from(torch_table.FUNCTIONS)
    lua.globals().torch = table
    lua.execute(_PRELUDE, table)
    interrupts = _Interrupts()
    host = lua.execute(_HOST, table, interrupts.check, interrupts.is_interrupt, HOOK_COUNT)
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
    with runtime.interrupts.guard():  # inside Lua: a finalizer run meanwhile defers collecting
        if isinstance(values, dict):
            return runtime.lua.table_from({k: _to_lua(v) for k, v in values.items()
                                           if v is not None})
        return runtime.lua.table_from([_to_lua(v) for v in values])


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
#: is inside Lua (:func:`_lua_depth`).
_CALLERS = frozenset(f.__code__ for f in (
    run_closures, call_closure, _call_lua, lua_table, compile_body, make_closure, _collect_now))
#: Where a SIGINT is only kept, to be raised where the run checks for it: the bookkeeping around
#: calls into Lua, which must run to its end (an interrupt in the middle of it would leave the
#: handler, the lock or the collector's deferral wrong for the rest of the process).
_BOOKKEEPING = _CALLERS | frozenset(f.__code__ for f in (
    _Interrupts.enter, _Interrupts.leave, _Interrupts._restore, _Interrupts._wait,
    _Interrupts.raise_if_interrupt, _Interrupts.is_interrupt, _Guard.__enter__,
    _Guard.__exit__, _to_lua, collect_garbage, interruptible, is_trusted, _with_return.__wrapped__,
    _shapes_text))
