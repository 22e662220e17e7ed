"""The one Lua runtime: compiles FLuaCompute bodies and runs a step's closures.

The runtime is LuaJIT 2.1 when lupa has it and its binding keeps Python objects apart, Lua 5.4
otherwise (see :func:`_choose_lua`).  Its global ``torch`` table holds
the functions of :mod:`tinyflow.lua_ops.torch_api` plus a few written in Lua (the prelude).
A step is one call into Lua: ``run_closures`` loops over the closures under ``pcall`` and
returns the index of the first failing one, so a Lua error never crashes the process.
"""
from __future__ import annotations

import functools
import logging

from ..nnvm.errors import TinyflowError

__all__ = [
    "LuaOpError",
    "compile_body",
    "lua_runtime",
    "lua_table",
    "make_closure",
    "runtime_name",
]

log = logging.getLogger("tinyflow")

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
-- concat / split: the stretch of ``whole`` along 1-based dim each of ``parts`` takes (as many
-- elements as the part has), and each part viewed in that stretch's shape: (stretches, views)
function torch.stretches(whole, parts, dim)
  local total, size = torch.numel(whole), torch.size(whole, dim)
  local stretches, views, start = {}, {}, 1
  for i = 1, #parts do
    local share = total == 0 and 0 or torch.numel(parts[i]) / total
    local length = math.floor(share * size + 0.5)
    stretches[i] = torch.narrow(whole, dim, start, length)
    views[i] = torch.view(parts[i], torch.shape(stretches[i]))
    start = start + length
  end
  return stretches, views
end
-- Window padding (convolution, pooling): the padding of NCHW x that gives y's sizes.  TensorFlow's
-- SAME padding puts an odd pixel after the data, which torch's kernels cannot; there the kernel
-- runs without padding on a buffer with x's pixels inside a border (made once, in the setup).
-- window_input and window_grad both return the padding {top, left} to give the kernel, the
-- tensor it runs on, and the copy to make every step, or nil where torch pads by itself.
local copy = torch.copy
local function window_buffer(x, y, kernel, stride, fill)
  local top, bottom, left, right = torch.window_pads(x, y, kernel, stride)
  if top == bottom and left == right then return {top, left} end
  return {0, 0}, torch.pad_buffer(x, top, bottom, left, right, fill)
end
-- For a kernel reading x: x, or a copy of x bordered with fill (the copy fills it, first).
function torch.window_input(x, y, kernel, stride, fill)
  local pad, padded, inside = window_buffer(x, y, kernel, stride, fill)
  if padded == nil then return pad, x, nil end
  return pad, padded, function() copy(inside, x) end
end
-- For a kernel writing grad_x, x's gradient: grad_x, or a zero-bordered buffer whose inside
-- the copy takes into grad_x (after the kernel).
function torch.window_grad(x, y, grad_x, kernel, stride)
  local pad, padded, inside = window_buffer(x, y, kernel, stride, 0)
  if padded == nil then return pad, grad_x, nil end
  return pad, padded, function() copy(grad_x, inside) end
end
local pcall = pcall
-- Run closures fs[1..n] in order; return 0, or the index of the first failure and its error.
function torch.run_closures(fs, n)
  for i = 1, n do
    local ok, err = pcall(fs[i])
    if not ok then return i, err end
  end
  return 0
end
-- Compile an op body: returns the factory function(x, y, kwarg) or nil and the error message.
function torch.compile_body(source, chunkname)
  local chunk, err = load(source, chunkname, "t", _G)
  if not chunk then return nil, err end
  local ok, factory = pcall(chunk)
  if not ok then return nil, factory end
  if type(factory) ~= "function" then
    return nil, chunkname:sub(2) .. ": body must be 'function(x, y, kwarg) ... end', got "
      .. type(factory)
  end
  return factory
end
"""


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
    import importlib
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


@functools.cache
def _runtime():
    lupa_module, name = _choose_lua()
    from . import torch_api
    lua = lupa_module.LuaRuntime(unpack_returned_tuples=True, register_eval=False)
    table = lua.table_from(torch_api.FUNCTIONS)
    lua.globals().torch = table
    lua.execute(_PRELUDE, table)
    log.info("Lua runtime: %s", name)
    return lua, name


def lua_runtime():
    """The process's lupa ``LuaRuntime`` (created on first use)."""
    return _runtime()[0]


def runtime_name() -> str:
    """``"LuaJIT 2.1"`` or ``"Lua 5.4"``."""
    return _runtime()[1]


def lua_table(values):
    """A Lua array (1-based) from a Python sequence, or a Lua table from a dict."""
    lua = lua_runtime()
    if isinstance(values, dict):
        return lua.table_from({k: _to_lua(v) for k, v in values.items() if v is not None})
    return lua.table_from([_to_lua(v) for v in values])


def _to_lua(value):
    if isinstance(value, (tuple, list)):
        return lua_table(value)
    return value


@functools.cache
def _compile_cached(source: str, chunkname: str):
    lua = lua_runtime()
    lines = source.split("\n")
    for i, line in enumerate(lines):  # a bare "function(x, y, kwarg)" body gets its "return"
        code = line.strip()
        if code and not code.startswith("--"):
            if code.startswith("function"):
                lines[i] = "return " + line
            break
    result = lua.globals().torch.compile_body("\n".join(lines), "=" + chunkname)
    return result if isinstance(result, tuple) else (result, None)


def compile_body(op_name: str, source: str):
    """Compile an FLuaCompute source into its factory; ``LuaOpError`` on a syntax error."""
    factory, err = _compile_cached(source, f"{op_name}.lua")
    if factory is None:
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
    lua = lua_runtime()
    setup = lua.globals().pcall
    result = setup(factory, lua_table(inputs), lua_table(outputs), lua_table(kwarg))
    ok, closure = (result[0], result[1]) if isinstance(result, tuple) else (result, None)
    if not ok:
        raise LuaOpError(f"{where}: Lua setup failed ({_shapes_text(inputs, outputs)}): "
                         f"{closure}")
    if lua.globals().type(closure) != "function":
        raise LuaOpError(f"{where}: Lua body must return the per-step closure (a function), "
                         f"got {lua.globals().type(closure)} ({_shapes_text(inputs, outputs)})")
    return closure
