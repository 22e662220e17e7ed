"""The package as shipped: Lua bodies inside the wheel, README's code runs, examples run."""
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import tinyflow as tf
from tinyflow.nnvm import Op

ROOT = Path(__file__).resolve().parent.parent


def test_every_builtin_op_has_a_lua_body():
    bodies = {p.stem for p in (ROOT / "tinyflow" / "lua_ops").glob("*/*.lua")} - {"kernels"}
    # summaries are built in Python; shaped_by_value (TShapedByValue) never runs: binding
    # rebuilds each of its nodes as the op it stands for (FoldShapeArguments); an op whose
    # outputs are pulled from Python before a run (FPullOutputs: get_next) is fed, never run
    missing = [name for name in tf.nnvm.list_ops()
               if Op.get(name).attr("FLuaCompute") is None
               and Op.get(name).attr("FPythonCompute") is None and not name.startswith("test_")
               and Op.get(name).attr("FPullOutputs") is None
               and not Op.get(name).attr("TShapedByValue")]
    assert not missing, f"ops without FLuaCompute: {missing}"
    assert bodies <= set(tf.nnvm.list_ops()), "a .lua file names no registered op"


def test_wheel_ships_the_lua_bodies_and_native_kernels(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path), str(ROOT)], check=True)
    (wheel,) = tmp_path.glob("tinyflow-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    expected = {f"tinyflow/lua_ops/{p.parent.name}/{p.name}"
                for pattern in ("*/*.lua", "*/*.c")
                for p in (ROOT / "tinyflow" / "lua_ops").glob(pattern)}
    assert "tinyflow/lua_ops/conv/max_pool_2x2.c" in expected and expected <= set(names)
    assert "tinyflow/py.typed" in names  # PEP 561: type checkers read the package's hints


def _readme_python_blocks():
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


@pytest.mark.parametrize("index", range(len(_readme_python_blocks())))
def test_readme_python_blocks_run(programs, index, tmp_path):
    code = _readme_python_blocks()[index].replace('"cube"', '"readme_cube"').replace(
        ".cube(", ".readme_cube(")
    script = tmp_path / "snippet.py"
    script.write_text(code)
    result = programs.run([sys.executable, str(script)], cwd=tmp_path, timeout=120,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})  # tests/conftest.py
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]


def test_engine_is_within_its_line_budget():
    # tools/line_budget.py --check: each component under its limit, no function over 60 lines
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "line_budget.py"), "--check"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_readme_prints_the_line_budget_as_it_is():
    table = subprocess.run([sys.executable, str(ROOT / "tools" / "line_budget.py")],
                           capture_output=True, text=True, check=True).stdout
    assert table in (ROOT / "README.md").read_text(), "refresh README: tools/line_budget.py"


def test_version_is_pyprojects():
    written = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(),
                        flags=re.MULTILINE)[1]
    assert tf.__version__ == written and re.fullmatch(r"\d+\.\d+\.\d+", written)


def test_package_ships_its_type_hints():
    # PEP 561: py.typed inside the package, and package data so the wheel has it
    assert (ROOT / "tinyflow" / "py.typed").is_file()
    assert '"tinyflow" = ["py.typed"]' in (ROOT / "pyproject.toml").read_text()
