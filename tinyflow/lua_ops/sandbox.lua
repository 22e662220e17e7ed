-- The runtime's host side (tinyflow/lua_ops/runtime.py): the sandbox, the environment each op
-- body runs in (the runtime's docstring says what it holds), and the functions that compile and
-- run bodies in it.  Run once after the prelude with the real globals; bodies never see it.  It
-- returns the functions Python calls: run_closures, call, setup, new_env, compile and
-- kernels_view.
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

-- f run only when every guards[i] (a bool scalar tensor: a tf.cond branch's guard, TGuard)
-- is true, by ``truth``.
function host.guarded(f, guards, truth)
  local n = #guards
  return function()
    for i = 1, n do
      if not truth(guards[i]) then return end
    end
    return f()
  end
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
