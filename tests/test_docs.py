"""The docs pages run as written, so they cannot rot.

Each page's ```python blocks run in order as one program in a fresh interpreter: the
new-operator tutorial registers an op, and the registry is process-wide, so running it here
would add an op with a gradient rule that tests/test_ops.py would then find untested.
"""
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tinyflow as tf

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = ["new_operator.md", "training_step.md", "sublinear.md", "fusion.md"]


def python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.DOTALL)


@pytest.mark.parametrize("page", PAGES)
def test_page_runs(page, tmp_path):
    blocks = python_blocks(page)
    assert blocks, f"docs/{page} has no python blocks"
    script = tmp_path / page.replace(".md", ".py")
    script.write_text("\n".join(blocks))
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, check=False)
    assert result.returncode == 0, f"docs/{page} failed:\n{result.stdout}\n{result.stderr}"


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
