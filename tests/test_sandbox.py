"""The sandbox boundary is a module boundary: a user's body sees the generic ``torch`` table
(tinyflow/lua_ops/torch_table.py) only; the engine's kernels (fused code, GEMM choice,
collectives, convolution...) are the ``kernels`` table of built-in bodies of their family, and
the functions a body can reach check their arguments (a clean LuaOpError, never a crash)."""
import ast
import builtins
import itertools
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import tinyflow as tf
from tinyflow import lua_ops, nnvm
from tinyflow.lua_ops import torch_table
from tinyflow.lua_ops.runtime import LuaOpError, family_kernels, lua_runtime

pytestmark = pytest.mark.usefixtures("fresh_graph")

LUA_OPS = Path(lua_ops.__file__).parent
_NAMES = itertools.count()


def _op(body):
    """A fresh user op (unique name) with ``body``; returns its name."""
    name = f"test_user_body_{next(_NAMES)}"
    (nnvm.register_op(name).set_num_inputs(1).set_attr("FInferShape", nnvm.same_shape)
     .set_attr("FLuaCompute", body))
    return name


def _setup_body(setup):
    """A body running ``setup`` once, then copying x[1] to y[1] every step."""
    return ("function(x, y, kwarg)\n  " + setup + "\n"
            "  return function() torch.copy(y[1], x[1]) end\nend")


def _run(name, value=(1.0, 2.0, 3.0)):
    x = tf.constant(np.array(value, np.float32))
    with tf.Session() as sess:
        return sess.run(getattr(nnvm.symbol, name)(x))


# -- engine kernels are out of a user body's reach ----------------------------------------------
# the exploit: torch.fused_step compiled and ran the Python ``source`` of a table the body built
EXPLOIT = """
local attrs = {source = "import builtins\\nbuiltins.TINYFLOW_PWNED = True\\n"
                        .. "def fused(x0):\\n    return (x0, )\\n",
               cuda_source = nil, backend = "eager", member_shapes = {{3}}}
local step = torch.fused_step(attrs, x, y)
"""


def test_fused_step_is_not_in_a_user_body_reach():
    name = _op(_setup_body(EXPLOIT))
    with pytest.raises(LuaOpError, match=r"torch\.fused_step is nil: no such function") as err:
        _run(name)
    node = "".join(part.capitalize() for part in name.split("_"))  # TF's default: the type
    assert f"op '{name}'" in str(err.value) and f"node '{node}" in str(err.value)
    assert not hasattr(builtins, "TINYFLOW_PWNED")


@pytest.mark.parametrize("kernel", ["fused_step", "mm_function", "blas_mm", "conv2d_buffers",
                                    "conv2d_activation", "all_reduce", "collective_check",
                                    "adam_update", "sparse_xent", "batch_norm", "top_k",
                                    "strided_view", "sum_buffers", "window_input",
                                    "scatter_rows", "stretches", "label_checked"])
def test_engine_kernels_are_unknown_names_of_torch(kernel):
    with pytest.raises(LuaOpError, match=rf"torch\.{kernel} is nil: no such function"):
        _run(_op(_setup_body(f"local f = torch.{kernel}")))


def test_a_user_body_cannot_reach_kernels():
    with pytest.raises(LuaOpError, match="'kernels' .* built-in bodies tinyflow attached only"):
        _run(_op(_setup_body("local f = kernels.fused_step")))
    with pytest.raises(LuaOpError, match="'kernels' .* built-in bodies"):
        _run(_op(_setup_body("local f = _G.kernels")))


def test_a_copy_of_a_builtin_body_under_another_name_gets_no_kernels():
    with pytest.raises(LuaOpError, match="'kernels' .* built-in bodies"):
        _run(_op(lua_ops.read_body("tanh")))  # calls kernels.tanh_function in its setup


def test_overwriting_a_builtin_body_loses_the_kernels():
    op = nnvm.Op.get("tanh")
    builtin = op.attr("FLuaCompute")
    try:
        op.set_attr("FLuaCompute", builtin + "\n-- mine", overwrite=True)
        with pytest.raises(LuaOpError, match="'kernels' .* built-in bodies"), tf.Session() as sess:
            sess.run(tf.tanh(tf.constant(np.ones(100, np.float32))))
    finally:
        op.set_attr("FLuaCompute", builtin, overwrite=True)
    with tf.Session() as sess:  # the built-in body again: its kernels again
        np.testing.assert_allclose(sess.run(tf.tanh(tf.constant(np.ones(3, np.float32)))),
                                   np.tanh(np.ones(3)), rtol=1e-6)


def test_kernels_are_read_only_and_name_a_missing_one():
    # from Lua, under pcall (lupa's Python-side indexing does not protect a Lua error)
    probe = lua_runtime().eval("""function(kernels)
      local wrote, write_error = pcall(function() kernels.conv2d = nil end)
      local read, read_error = pcall(function() return kernels.nothing end)
      return tostring(wrote) .. " " .. tostring(write_error) .. " | " .. tostring(read) .. " "
             .. tostring(read_error) end""")
    text = probe(family_kernels("conv"))
    assert text.startswith("false ") and "kernels is read-only" in text
    assert "| false " in text and "kernels.nothing is nil: no such function" in text
    assert family_kernels("control") is None  # no kernels: no table


def test_builtin_bodies_use_only_their_table_and_their_family_kernels():
    generic = set(torch_table.FUNCTIONS) | set(torch_table.PRELUDE_FUNCTIONS)
    for name, body in lua_ops.built_in_bodies().items():
        kernels = family_kernels(body.family)
        for used in re.findall(r"(?<![\w.])torch\.(\w+)", body.source):
            assert used in generic, f"{body.family}/{name}.lua: torch.{used}"
        for used in set(re.findall(r"(?<![\w.])kernels\.(\w+)", body.source)):
            assert kernels is not None and getattr(kernels, used) is not None, (name, used)


def test_bodies_sit_in_the_folder_of_their_declaring_module():
    for name, body in lua_ops.built_in_bodies().items():
        if name in lua_ops.SHARED_BODIES:
            continue
        declared = (Path(tf.__file__).parent / "ops" / f"{body.family}.py").read_text()
        assert name in declared or name.lstrip("_").split("_backward")[0] in declared, name


# -- the torch table: documented in one table, no builtin shadowed -------------------------------
def _documented_functions():
    lines = torch_table.__doc__.splitlines()
    rules = [i for i, line in enumerate(lines) if line.startswith("=====")]
    names = set()
    for line in lines[rules[1] + 1:rules[2]]:  # the rows, between the header and the end
        for span in re.findall(r"``([^`]*)``", line[:44]):
            names.update(w for w in span.split("(")[0].split() if re.fullmatch(r"[a-z_0-9]+", w))
    return names


def test_the_docstring_table_lists_exactly_the_torch_table():
    offered = set(torch_table.FUNCTIONS) | set(torch_table.PRELUDE_FUNCTIONS)
    assert _documented_functions() == offered


def test_the_torch_table_a_body_sees_is_the_documented_one():
    name = _op("""function(x, y, kwarg)
      local names = {}
      for k in pairs(torch) do names[#names + 1] = k end
      table.sort(names)
      local count = #names
      return function() torch.fill(y[1], count) end
    end""")
    assert _run(name)[0] == len(_documented_functions())


def test_no_module_of_lua_ops_shadows_a_python_builtin():
    for path in LUA_OPS.rglob("*.py"):
        tree = ast.parse(path.read_text())
        defined = {node.name for node in tree.body
                   if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    defined |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        assert not defined & set(dir(builtins)), (path, defined & set(dir(builtins)))


# -- arguments are checked: a clean error, never a crash ----------------------------------------
BAD_CALLS = {
    "index_select, index 1e11": (
        ("local i = torch.tensor_like(torch.index_like(x[1]), {0, 1e11}, {2})\n"
         "  torch.index_select(torch.empty(x[1], {2}), x[1], 1, i)"), "index"),
    "index_select, float index": (
        "torch.index_select(torch.empty(x[1], {1}), x[1], 1, x[1])", "int32 or int64"),
    "index_add, index 1e11": (
        ("local i = torch.tensor_like(torch.index_like(x[1]), {1e11}, {1})\n"
         "  torch.index_add(x[1], 1, i, torch.full_like(torch.narrow(x[1], 1, 1, 1), 1))"),
        "out of (range|bounds)"),
    "index_add, negative index": (
        ("local i = torch.tensor_like(torch.index_like(x[1]), {-100}, {1})\n"
         "  torch.index_add(x[1], 1, i, torch.full_like(torch.narrow(x[1], 1, 1, 1), 1))"),
        "out of (range|bounds)"),
    "index_copy, dim 7": (
        ("local i = torch.tensor_like(torch.index_like(x[1]), {0}, {1})\n"
         "  torch.index_copy(x[1], 7, i, x[1])"), "out of range"),
    "narrow out of range": ("torch.narrow(x[1], 1, 3, 5)", "exceeds dimension size"),
    "narrow, length 1e11": ("torch.narrow(x[1], 1, 1, 1e11)", "exceeds dimension size"),
    "view, wrong sizes": ("torch.view(x[1], {2, 2})", "invalid for input of size 3"),
    "view, a size 1.5": ("torch.view(x[1], {1.5, 2})", "a size must be an integer"),
    "view, a size NaN": ("torch.view(x[1], {0/0})", "a size must be an integer"),
    "expand, wrong": ("torch.expand(x[1], {2, 4})", "must match the existing size"),
    "empty, 1e11 elements": ("torch.empty(x[1], {1e11, 1e11})", "memory|overflow|invalid"),
    "sum, dim 9": ("torch.sum(torch.empty(x[1], {1}), x[1], 9)", "out of range"),
    "copy, not a tensor": ("torch.copy(y[1], {})", "copy_"),
}


@pytest.mark.parametrize("code, message", BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_bad_arguments_are_a_clean_lua_op_error(code, message):
    name = _op(_setup_body(code))
    with pytest.raises(LuaOpError, match=message) as err:
        _run(name)
    assert f"op '{name}'" in str(err.value)
    np.testing.assert_array_equal(_run(_op(_setup_body(""))), [1.0, 2.0, 3.0])  # still alive


def test_a_trusted_body_gets_the_real_globals_and_no_kernels():
    # FLuaTrusted: the runtime's globals, shared by every trusted body whatever its family, so
    # no family's kernels are among them
    name = _op("""function(x, y, kwarg)
      local has_kernels = kernels ~= nil
      return function() torch.fill(y[1], has_kernels and 1 or 0) end
    end""")
    nnvm.Op.get(name).set_attr("FLuaTrusted", True)
    np.testing.assert_array_equal(_run(name), [0.0, 0.0, 0.0])


def test_pool_and_optimizer_kernels_are_out_of_a_user_body_reach():
    # family kernels now (lua_ops/conv, lua_ops/optim): neither torch nor kernels has them
    for kernel in ("max_pool2d_backward", "avg_pool2d_backward", "adam_update"):
        with pytest.raises(LuaOpError, match=rf"torch\.{kernel} is nil: no such function"):
            _run(_op(_setup_body(f"local f = torch.{kernel}")))
        with pytest.raises(LuaOpError, match="'kernels' .* built-in bodies"):
            _run(_op(_setup_body(f"local f = kernels.{kernel}")))


# Every function of the user's torch table, called with arguments a body can make (tensors of
# any dtype and shape, views of them: expanded, narrowed, transposed; numbers: small, huge,
# NaN, fractional; arrays; nil): an error or a result, never a crash.  In a child process, so a
# crash fails this test instead of killing pytest.
FUZZ = r"""
import inspect
import torch
from hypothesis import HealthCheck, given, settings, strategies as st
from tinyflow.lua_ops import torch_table

class Array(list):  # a Lua array as lupa hands it to Python
    def values(self):
        return iter(self)

DTYPES = [torch.float32, torch.float64, torch.int32, torch.int64, torch.bool]

@st.composite
def tensors(draw):
    shape = draw(st.lists(st.integers(0, 4), max_size=3))
    t = torch.zeros(shape, dtype=draw(st.sampled_from(DTYPES)))
    how = draw(st.sampled_from(["plain", "expand", "narrow", "t", "permute"]))
    if how == "expand" and t.dim() and t.shape[0] == 1:
        t = t.expand((draw(st.integers(1, 5)),) + tuple(t.shape[1:]))
    elif how == "expand":
        t = t.view(1, *t.shape).expand(3, *t.shape)
    elif how == "narrow" and t.dim() and t.shape[0] > 1:
        t = t.narrow(0, 1, t.shape[0] - 1)
    elif how == "t" and t.dim() == 2:
        t = t.t()
    elif how == "permute" and t.dim() >= 2:
        t = t.permute(*range(t.dim() - 1, -1, -1))
    return t

numbers = st.one_of(st.integers(-5, 6), st.sampled_from([2 ** 40, -(2 ** 62), 2.5,
                                                          float("nan"), float("inf")]))
arrays = st.lists(numbers, max_size=4).map(Array)
values = st.one_of(tensors(), numbers, arrays, st.none())
functions = sorted(torch_table.FUNCTIONS.items())

@settings(max_examples=4000, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.sampled_from(functions), st.data())
def check(entry, data):
    name, function = entry
    arity = len(inspect.signature(function).parameters)
    args = [data.draw(values) for _ in range(arity)]
    try:
        function(*args)
    except Exception:
        pass

check()
print("ok")
"""


def test_user_table_functions_never_crash_on_body_made_arguments(programs):
    # in a process of its own (forked by the fixture): a crash must not take pytest with it
    result = programs.run([sys.executable, "-c", FUZZ], timeout=600)
    assert result.returncode == 0 and result.stdout.strip() == "ok", \
        f"exit {result.returncode}: {result.stdout[-2000:]}{result.stderr[-3000:]}"
