"""Op bodies are sandboxed (issue 12): each escape is a LuaOpError naming the op, torch is
read-only, globals stay per node, FLuaTrusted opts out; Ctrl-C inside a step is
KeyboardInterrupt and the session runs again (child processes, bounded by timeouts)."""
import itertools
import os
import signal
import sys
import textwrap
import threading

import numpy as np
import pytest

import tinyflow as tf
from tinyflow import nnvm
from tinyflow.lua_ops.runtime import LuaOpError, lua_runtime

pytestmark = pytest.mark.usefixtures("fresh_graph")

_NAMES = itertools.count()


def _op(body, trusted=False, inputs=1):
    """A fresh op (unique name) with ``body``; returns its name."""
    name = f"test_sandbox_{next(_NAMES)}"
    op = (nnvm.register_op(name).set_num_inputs(inputs).set_attr("FInferShape", nnvm.same_shape)
          .set_attr("FLuaCompute", body))
    if trusted:
        op.set_attr("FLuaTrusted", True)
    return name


def _setup_body(setup):
    """A body running ``setup`` once, then copying x[1] to y[1] every step."""
    return ("function(x, y, kwarg)\n  " + setup + "\n"
            "  return function() torch.copy(y[1], x[1]) end\nend")


def _run(name, value=(1.0, 2.0, 3.0)):
    x = tf.constant(np.array(value, np.float32))
    with tf.Session() as sess:
        return sess.run(getattr(nnvm.symbol, name)(x))


ESCAPES = {
    "os.execute": ('os.execute("true")', "'os' is not available"),
    "io.open": ('io.open("/tmp/tinyflow_sandbox", "w")', "'io' is not available"),
    "require": ('require("os")', "'require' is not available"),
    "package.loadlib": ('package.loadlib("libc.so.6", "system")', "'package' is not available"),
    "debug": ("debug.sethook()", "'debug' is not available"),
    "load": ('load("return 1")()', "'load' is not available"),
    "loadstring": ('loadstring("return 1")()', "'loadstring' is not available"),
    "dofile": ('dofile("/etc/hostname")', "'dofile' is not available"),
    "collectgarbage": ("collectgarbage()", "'collectgarbage' is not available"),
    "python": ('python.builtins.__import__("os")', "'python' is not available"),
    "rawset on torch": ('rawset(torch, "mm", 1)', "'rawset' is not available"),
    "setmetatable on torch": ("setmetatable(torch, {})", "protected metatable"),
    "Python attributes": ("local g = torch.mm.__globals__", "Python attribute '__globals__'"),
    "torch.mm redefined": ("torch.mm = function() end", "torch is read-only"),
    "a new torch field": ("torch.mine = 1", "torch is read-only"),
    "through _G": ("_G.torch.mm = nil", "torch is read-only"),
}


@pytest.mark.parametrize("code, message", ESCAPES.values(), ids=ESCAPES.keys())
def test_each_escape_is_refused_naming_op_and_line(code, message):
    name = _op(_setup_body(code))
    with pytest.raises(LuaOpError, match=message) as err:
        _run(name)
    assert f"op '{name}'" in str(err.value)
    if "Python attribute" not in message:  # Lua's own errors carry the body's line
        assert f"{name}.lua:2:" in str(err.value)


def test_redefining_torch_mm_breaks_no_later_matmul():
    with pytest.raises(LuaOpError, match="torch is read-only"):
        _run(_op(_setup_body("torch.mm = function(res) torch.fill(res, 42) end")))
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.matmul(tf.constant(a), tf.constant(a.T))),
                                   a @ a.T)


def test_globals_a_body_sets_stay_with_its_node():
    # a body that forgets `local`: each node of the op has its own globals
    name = _op("function(x, y, kwarg)\n  calls = (calls or 0) + 1\n  local seen = calls\n"
               "  return function() torch.fill(y[1], seen) end\nend")
    x = tf.constant(np.zeros(2, np.float32))
    first, second = getattr(nnvm.symbol, name)(x), getattr(nnvm.symbol, name)(x)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run([first, second]), [[1, 1], [1, 1]])
    assert lua_runtime().globals().calls is None


def test_a_body_changing_math_changes_only_its_own_copy():
    breaker = _op(_setup_body("math.floor = function() return 99 end; string.rep = nil"))
    user = _op("function(x, y, kwarg)\n  local v = math.floor(2.5) + #string.rep('a', 3)\n"
               "  return function() torch.fill(y[1], v) end\nend")
    x = tf.constant(np.zeros(2, np.float32))
    with tf.Session() as sess:
        _, used = sess.run([getattr(nnvm.symbol, breaker)(x), getattr(nnvm.symbol, user)(x)])
    np.testing.assert_array_equal(used, [5, 5])
    assert lua_runtime().eval("math.floor(2.5)") == 2


def test_safe_base_functions_are_there():
    name = _op(_setup_body(
        "local t = setmetatable({}, {__index = function(_, k) return k * 2 end})\n"
        "  assert(t[21] == 42 and getmetatable(t) ~= nil and getmetatable('') == nil)\n"
        "  assert(select('#', 1, 2) == 2 and tonumber('3') == 3 and tostring(1) == '1')\n"
        "  assert(type(unpack) == 'function' and rawequal(t, t) and rawget(t, 1) == nil)\n"
        "  assert(pcall(error, 'x') == false and next({}) == nil and _G.torch == torch)\n"
        "  for _ in pairs(torch) do return function() end end\n"
        "  error('torch lists no function')"))
    _run(name)


def test_trusted_body_gets_the_full_globals():
    body = _setup_body('assert(os.getenv ~= nil and io.open ~= nil and python ~= nil)')
    with pytest.raises(LuaOpError, match="'os' is not available"):
        _run(_op(body))
    np.testing.assert_array_equal(_run(_op(body, trusted=True)), [1, 2, 3])


def test_a_broken_string_metatable_still_gives_lua_op_errors():
    with pytest.raises(LuaOpError, match=r"op 'test_sandbox_\d+'.*\.lua:2: attempt to index"):
        _run(_op(_setup_body('getmetatable("").__index = nil')))
    # not even a trusted body reaches it: strings keep their methods for every later body
    with pytest.raises(LuaOpError, match=r"\.lua:2: attempt to index a boolean"):
        _run(_op(_setup_body('getmetatable("").__index = nil'), trusted=True))
    np.testing.assert_array_equal(_run(_op(_setup_body('assert(("ab"):rep(2) == "abab")'))),
                                  [1, 2, 3])
    with pytest.raises(LuaOpError, match=r"does not compile: .*\.lua:1:"):
        _run(_op("function(x, y, kwarg) return function( end"))
    with pytest.raises(LuaOpError, match=r"\.lua:3: step failed"):
        _run(_op("function(x, y, kwarg)\n  return function()\n    error('step failed')\n"
                 "  end\nend"))


# -- Ctrl-C ------------------------------------------------------------------------------------
CHILD = """
import sys, time
import numpy as np
import tinyflow as tf
from tinyflow import nnvm

BODIES = {
    # pure Lua, never calling Python: only the runtime's count hook can stop it
    "lua-loop": "function(x, y, kwarg) return function() while true do end end end",
    # one long op calling into Python (torch) again and again
    "python-op": ("function(x, y, kwarg) local a = torch.empty(x[1], {200, 200}) "
                  "torch.fill(a, 0) return function() while true do torch.mm(a, a, a) end end end"),
    # a body that swallows errors with its own pcall cannot swallow Ctrl-C
    "pcall-loop": ("function(x, y, kwarg) return function() while true do "
                   "pcall(function() while true do end end) end end end"),
}
(nnvm.register_op("spin").set_num_inputs(1).set_attr("FInferShape", nnvm.same_shape)
 .set_attr("FLuaCompute", BODIES[sys.argv[1]]))
x = tf.placeholder(tf.float32, [3])
counter = tf.Variable(tf.zeros([3]))
bump = tf.assign_add(counter, x)
with tf.control_dependencies([bump]):
    spin = nnvm.symbol.spin(x)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
ones = np.ones(3, np.float32)
try:
    for attempt in range(3):
        try:  # the loop of the bug report: `except Exception` must not swallow Ctrl-C
            print("ready", flush=True)
            sess.run(spin, {x: ones})
        except Exception as err:
            print("swallowed", type(err).__name__, err, flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
print("counter", sess.run(counter).tolist(), sess.run(bump, {x: ones}).tolist(), flush=True)
"""


def _child_env(lua=None):
    """The environment of a child importing this very tinyflow (``TINYFLOW_LUA=lua``)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(tf.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [root] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
    if lua:
        env["TINYFLOW_LUA"] = lua
    return env


def _interrupt_child(programs, tmp_path, body, lua=None):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(CHILD))
    # a process of its own, forked by the fixture: the Ctrl-C is sent to it alone
    pid = programs.start([sys.executable, str(script), body], env=_child_env(lua),
                         stderr_to_stdout=True)
    try:
        lines = programs.lines(pid)
        assert lines.get(timeout=120) == "ready"
        threading.Event().wait(0.5)  # inside the step by now
        os.kill(pid, signal.SIGINT)
        # liveness bound, not a timing: KeyboardInterrupt well within 2 s
        assert lines.get(timeout=2) == "interrupted"
        # the same session runs again; the assign before the interrupted op kept its effect
        assert lines.get(timeout=60) == "counter [1.0, 1.0, 1.0] [2.0, 2.0, 2.0]"
        assert programs.wait(pid, timeout=60).returncode == 0
    finally:
        programs.stop(pid)


@pytest.mark.parametrize("body", ["lua-loop", "python-op", "pcall-loop"])
def test_ctrl_c_in_a_step_is_keyboard_interrupt_and_the_session_runs_again(programs, tmp_path,
                                                                            body):
    _interrupt_child(programs, tmp_path, body)


def test_ctrl_c_in_a_lua_loop_under_luajit(programs, tmp_path):
    pytest.importorskip("lupa.luajit21")
    _interrupt_child(programs, tmp_path, "lua-loop", lua="luajit21")


def test_sandbox_under_luajit(programs):
    pytest.importorskip("lupa.luajit21")
    code = textwrap.dedent("""
        import numpy as np, tinyflow as tf
        from tinyflow import nnvm
        from tinyflow.lua_ops.runtime import LuaOpError, runtime_name
        assert runtime_name() == "LuaJIT 2.1"
        for i, code in enumerate(['os.execute("true")', 'torch.mm = nil', 'loadstring("x")',
                                  'getfenv(1).x = 1', 'setfenv(1, {})', 'jit.off()']):
            body = "function(x, y, kwarg) " + code + " return function() end end"
            nnvm.register_op(f"esc{i}").set_num_inputs(1).set_attr(
                "FInferShape", nnvm.same_shape).set_attr("FLuaCompute", body)
            try:
                tf.Session().run(getattr(nnvm.symbol, f"esc{i}")(tf.constant([1.0])))
                raise SystemExit(f"not refused: {code}")
            except LuaOpError as err:
                assert f"op 'esc{i}'" in str(err), err
        print("ok")
        """)
    result = programs.run([sys.executable, "-c", code], timeout=120, env=_child_env("luajit21"))
    assert result.stdout.strip() == "ok", result.stdout + result.stderr


class _Stop(BaseException):
    """What a user's own SIGINT handler raises."""


def _ctrl_c_stops(name):
    """Run op ``name`` with a SIGINT sent to this process after 0.5 s; the handler in place
    must stop it with _Stop."""
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(_Stop):
            _run(name)
    finally:
        timer.cancel()


def test_ctrl_c_goes_through_the_users_own_handler_which_is_put_back():
    # in this process (main thread): the runtime chains to the handler it finds, and the
    # exception that handler raises ends the step, a pure-Lua loop included
    name = _op("function(x, y, kwarg) return function() while true do end end end")
    seen = []

    def handler(signum, frame):
        seen.append(signum)
        raise _Stop()
    previous = signal.signal(signal.SIGINT, handler)
    try:
        _ctrl_c_stops(name)
        assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [signal.SIGINT]


def test_ctrl_c_reaches_the_handler_set_after_an_earlier_run():
    # the runtime keeps its chained handler between runs: a handler the user sets after a run
    # must still be the one a later Ctrl-C goes through, and be put back after
    name = _op("function(x, y, kwarg) return function() while true do end end end")
    seen = []

    def first(signum, frame):
        seen.append("first")
        raise _Stop()

    def second(signum, frame):
        seen.append("second")
        raise _Stop()
    previous = signal.signal(signal.SIGINT, first)
    try:
        _run(_op(_setup_body("")))  # a run that chains to `first` and finishes
        signal.signal(signal.SIGINT, second)
        _ctrl_c_stops(name)
        assert signal.getsignal(signal.SIGINT) is second
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == ["second"]


def test_building_tables_and_compiling_bodies_count_as_inside_lua(monkeypatch):
    # Python's collector can run a dropped session's finalizer in the middle of these calls
    # into Lua; it must then defer Lua's collection (found as "ReferenceError: deleted python
    # object" from the finalizer in a run of the reliability tests)
    from tinyflow.lua_ops import runtime
    seen = []
    to_lua, with_return = runtime._to_lua, runtime._with_return
    monkeypatch.setattr(runtime, "_to_lua", lambda v: seen.append(
        ("table", runtime._runtime().interrupts.is_inside())) or to_lua(v))
    monkeypatch.setattr(runtime, "_with_return", lambda s: seen.append(
        ("compile", runtime._runtime().interrupts.is_inside())) or with_return(s))
    runtime.lua_table([1.0, [2.0]])
    runtime.compile_body("tanh", "function(x, y, kwarg) return function() end end")
    assert {what for what, _ in seen} == {"table", "compile"}
    assert all(inside for _, inside in seen), seen
    assert not runtime._runtime().interrupts.is_inside()


def test_a_table_lupa_builds_with_another_object_is_refused(monkeypatch):
    """lua_table checks what Lua holds: a table lupa built with another Python object than the
    one passed (possible under LuaJIT, see the next test) is a LuaOpError, never a wrong
    tensor."""
    import torch

    from tinyflow.lua_ops import runtime as rt
    real, wrong = rt._runtime(), torch.zeros(2)

    class Lupa:  # the real runtime, but its tables swap in another tensor
        def table_from(self, pairs):
            return real.lua.table_from({**pairs, 1: wrong})

    monkeypatch.setattr(rt, "_runtime", lambda: real._replace(lua=Lupa()))
    with pytest.raises(rt.LuaOpError, match="another Python object"):
        rt.lua_table([torch.ones(3), torch.ones(4)])


def test_an_object_pushed_while_a_dead_ones_finalizer_is_pending_stays_itself():
    """The root cause of lupa 2.8's object swaps, stepped into on the runtime's own Lua state.

    lupa maps ``(id(obj), flags)`` to a slot of the registry's weak-valued
    LUPA_PYTHON_REFERENCES_TABLE holding obj's userdata; ``luaL_ref`` takes a new slot from the
    table's free list, else past its length.  Here ``a``'s userdata is the last slot and dies;
    the collector, stepped, clears that slot.  Under Lua 5.4's incremental collector ``a``'s
    finalizer (freeing the slot and lupa's record) runs some steps later: a new object ``f``
    pushed in between takes the cleared slot, and ``a`` pushed again came back as ``f``.  The
    runtime's generational collector runs the finalizer in the step that clears the slot.
    Lupa's internals read here: the table's name and Lua 5.4.8's free list at index 3."""
    from tinyflow.lua_ops import runtime as rt
    if rt.runtime_name() != "Lua 5.4":
        pytest.skip("LuaJIT's collector keeps the window open (TINYFLOW_LUA=luajit21)")
    lua = rt.lua_runtime()
    probe = lua.execute("""
      local refs = debug.getregistry().LUPA_PYTHON_REFERENCES_TABLE
      local probe = {}
      function probe.slot(t)  -- the slot of t[1]'s userdata
        for k, v in pairs(refs) do if rawequal(v, t[1]) then return k end end
      end
      function probe.kind(k) return type(refs[k]) end
      function probe.free() return refs[3] end
      function probe.step() collectgarbage("step", 0) end
      return probe""")
    # a heap the incremental collector sweeps in several steps (the window spans them)
    heap = lua.execute("local t = {} for i = 1, 200000 do t[i] = {} end return t")
    lua.execute("collectgarbage()")
    kept = []  # the free list emptied: the next slot is the table's length + 1
    while probe.free() != 0:
        kept.append(lua.table_from([object() for _ in range(64)]))
    a = object()
    table = lua.table_from([a])
    slot = probe.slot(table)
    del table  # a's userdata is garbage now; a stays alive in Python
    kinds = []
    while not kinds or kinds[-1] == "userdata" and len(kinds) < 1000:
        probe.step()
        kinds.append(probe.kind(slot))
    fresh = object()
    fresh_table, again = lua.table_from([fresh]), lua.table_from([a])
    assert fresh_table[1] is fresh
    assert again[1] is a, f"a came back as {'the new object' if again[1] is fresh else again[1]}" \
        f" (its slot {slot} after {len(kinds)} collector steps: {kinds[-1]})"
    assert kinds[-1] != "nil", kinds  # the step that cleared the slot freed it (finalized)
    del heap, kept
    lua.execute("collectgarbage()")
