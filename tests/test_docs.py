"""The docs pages run as written and print what they show, so they cannot rot.

Each page's ```python blocks run in order as one program in a fresh interpreter: the
new-operator tutorial registers an op, and the registry is process-wide, so running it here
would add an op with a gradient rule that tests/test_ops.py would then find untested.  The
pages whose output is deterministic are checked with ``tools/doc_outputs.py --check``;
docs/architecture.md's pass table is checked against the executor's pipeline.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tinyflow as tf
from tinyflow.executor.pipeline import PIPELINE

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = ["new_operator.md", "training_step.md", "sublinear.md", "fusion.md"]
# pages whose printed output is the same on every run (new_operator.md trains from random
# weights); graph_pictures.md also draws its pictures with Graphviz's `dot`
CHECKED_OUTPUT = ["training_step.md", "sublinear.md", "fusion.md", "graph_pictures.md",
                  "control_flow.md"]


def _env() -> dict:
    """The environment for a child interpreter: this tree's tinyflow first (an editable
    install may point at another checkout)."""
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.DOTALL)


@pytest.mark.parametrize("page", PAGES)
def test_page_runs(page, tmp_path):
    blocks = python_blocks(page)
    assert blocks, f"docs/{page} has no python blocks"
    script = tmp_path / page.replace(".md", ".py")
    script.write_text("\n".join(blocks))
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, check=False, env=_env())
    assert result.returncode == 0, f"docs/{page} failed:\n{result.stdout}\n{result.stderr}"


@pytest.mark.parametrize("page", CHECKED_OUTPUT)
def test_page_shows_what_it_prints(page, tmp_path):
    if page == "graph_pictures.md" and shutil.which("dot") is None:
        pytest.skip("graph_pictures.md draws with Graphviz's `dot`, which is not on PATH")
    (tmp_path / "docs").mkdir()  # where a page writes its pictures (docs/*.svg), out of the tree
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "doc_outputs.py"), "--check", str(DOCS / page)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False, env=_env())
    assert result.returncode == 0, (f"docs/{page} shows stale output: refresh it with "
                                    f"`python tools/doc_outputs.py docs/{page}`\n"
                                    f"{result.stdout}\n{result.stderr}")


def test_graph_pictures_show_the_dot_text_they_print(tmp_path):
    # the DOT text needs no Graphviz: checked wherever `dot` is missing too
    text = (DOCS / "graph_pictures.md").read_text()
    script = tmp_path / "pictures.py"
    script.write_text(python_blocks("graph_pictures.md")[0]
                      + "\nprint('=' * 8)\n")  # forward, backward, then the marker
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, check=False, env=_env())
    assert result.returncode == 0, result.stderr
    printed = result.stdout.split("=" * 8)[0].split()
    shown = "".join(re.findall(r"```dot\n(.*?)```", text, flags=re.DOTALL)).split()
    assert printed == shown, "docs/graph_pictures.md's ```dot blocks are not what it prints"


def _pipeline_table(page: Path) -> list[tuple]:
    """``(pass, kind, when)`` of each row of the table after the page's heading
    "The passes a bind runs"."""
    section = page.read_text().split("## The passes a bind runs", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (\w+) \| `(\w+)`", section, flags=re.MULTILINE)
    assert rows, f"{page.name} has no pass table"
    return rows


def test_architecture_lists_the_pipeline_as_it_is():
    expected = [(stage.name, stage.kind, stage.when.__name__) for stage in PIPELINE]
    assert _pipeline_table(DOCS / "architecture.md") == expected, (
        "docs/architecture.md's pass table differs from tinyflow/executor/pipeline.py's PIPELINE")


def test_readme_lists_the_pipeline_in_its_order():
    readme = " ".join((ROOT / "README.md").read_text().split())  # lines joined
    listed = re.search(r"in the order of one table, `tinyflow/executor/pipeline.py`: "
                       r"((?:`\w+`, )*`\w+`)", readme)
    assert listed, "README.md no longer lists the bind passes where this test looks"
    assert re.findall(r"`(\w+)`", listed[1]) == [stage.name for stage in PIPELINE], (
        "README.md's list of the bind passes differs from PIPELINE's")


def test_tutorial_op_stays_out_of_this_process():
    assert "softplus" not in tf.nnvm.list_ops()


def test_tutorial_op_is_as_short_as_the_page_says():
    text = (DOCS / "new_operator.md").read_text()
    op_block = python_blocks("new_operator.md")[0]
    lines = sum(1 for line in op_block.splitlines() if line.strip())
    claims = [int(n) for n in re.findall(r"(\d+)\**\s+lines", text)]
    assert lines < 40, f"the tutorial's operator is {lines} lines; the page promises under 40"
    assert claims and set(claims) == {lines}, f"the page says {claims} lines, the op is {lines}"


def test_readme_links_the_pages():
    readme = (DOCS.parent / "README.md").read_text()
    for page in PAGES:
        assert f"docs/{page}" in readme, f"README.md does not link docs/{page}"
