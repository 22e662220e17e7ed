"""The docs pages and the README run as written and print what they show, so they cannot rot.

Every ```python block of a page runs, in order, as one program in its own process (forked by the
``programs`` fixture; the new-operator tutorial registers an op, and the registry is
process-wide, so running it here would add an op with a gradient rule that tests/test_ops.py
would then find untested), except a
fragment marked ``<!-- not run: why -->``.  A ```text block right after a python block is what
it printed: ``tools/doc_outputs.py --check`` compares them, numbers within the tolerance a
``<!-- output: numbers within ... -->`` marker states.  docs/architecture.md's pass table is
checked against the executor's pipeline, and mkdocs.yml's nav against the pages.
"""
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

import tinyflow as tf
from tinyflow.executor.pipeline import PIPELINE

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SHOWN = re.compile(r"```python\n.*?```\n\n(?:<!-- output: [^>]*-->\n)?```text\n", re.DOTALL)
RUNNABLE = re.compile(r"(?<!-->\n)```python\n")  # a block with no "not run" marker before it
PAGES = sorted(p.name for p in DOCS.glob("*.md") if RUNNABLE.search(p.read_text()))
# pages showing what their code prints (graph_pictures.md: the DOT text, and pictures drawn
# with Graphviz): run by doc_outputs.py --check, which runs them whole
CHECKED_OUTPUT = sorted(p.name for p in DOCS.glob("*.md")
                        if SHOWN.search(p.read_text()) or "```dot\n" in p.read_text())


def _env() -> dict:
    """The environment for a child interpreter: this tree's tinyflow first (an editable
    install may point at another checkout), one torch thread (tests/conftest.py)."""
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "OMP_NUM_THREADS": "1"}


def python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.DOTALL)


def runnable_blocks(text: str) -> list[str]:
    return re.findall(r"(?<!-->\n)```python\n(.*?)```", text, flags=re.DOTALL)


def test_every_tutorial_page_is_run():
    tutorial = ["first_graph.md", "new_operator.md", "graph_pictures.md", "training_step.md",
                "gradients.md", "tf1_programs.md"]
    assert set(tutorial) <= set(PAGES)
    assert {"first_graph.md", "training_step.md", "gradients.md", "tf1_programs.md",
            "fusion.md", "index.md"} <= set(CHECKED_OUTPUT)


def _skip_without_graphviz(page):
    if page == "graph_pictures.md" and shutil.which("dot") is None:
        pytest.skip("graph_pictures.md draws with Graphviz's `dot`, which is not on PATH")


@pytest.mark.parametrize("page", sorted(set(PAGES) - set(CHECKED_OUTPUT)))
def test_page_runs(programs, page, tmp_path):
    blocks = runnable_blocks((DOCS / page).read_text())
    assert blocks, f"docs/{page} has no python blocks"
    script = tmp_path / page.replace(".md", ".py")
    script.write_text("\n".join(blocks))
    result = programs.run([sys.executable, str(script)], cwd=tmp_path, timeout=300, env=_env())
    assert result.returncode == 0, f"docs/{page} failed:\n{result.stdout}\n{result.stderr}"


def _check_output(programs, path: Path, tmp_path: Path):
    (tmp_path / "docs").mkdir()  # where a page writes its pictures (docs/*.svg), out of the tree
    result = programs.run(
        [sys.executable, str(ROOT / "tools" / "doc_outputs.py"), "--check", str(path)],
        cwd=tmp_path, timeout=300, env=_env())
    assert result.returncode == 0, (f"{path.name} shows stale output: refresh it with "
                                    f"`python tools/doc_outputs.py {path.relative_to(ROOT)}`\n"
                                    f"{result.stdout}\n{result.stderr}")


@pytest.mark.parametrize("page", CHECKED_OUTPUT)
def test_page_shows_what_it_prints(programs, page, tmp_path):
    _skip_without_graphviz(page)
    _check_output(programs, DOCS / page, tmp_path)


def test_readme_shows_what_its_programs_print(programs, tmp_path):
    _check_output(programs, ROOT / "README.md", tmp_path)


def test_doc_outputs_compares_numbers_within_the_stated_tolerance():
    import importlib.util
    spec = importlib.util.spec_from_file_location("doc_outputs", ROOT / "tools" / "doc_outputs.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.within("loss 2.303  acc 0.50", "loss 2.31 acc 0.5", "1%")
    assert not tool.within("loss 2.303", "loss 2.4", "1%")
    assert tool.within("loss 2.303", "loss 2.4", "1% or 0.1")
    assert not tool.within("loss 2.303", "cost 2.303", "1%")  # words must match
    assert not tool.within("loss 2.303", "loss nan", "50%")
    assert not tool.within("1 2", "1 2 3", "1%")


def test_no_issue_numbers_or_commit_hashes_for_users():
    # README and docs speak to users: no tracker numbers, commits or this machine's paths
    hashes = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b")
    for path in [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted(DOCS.glob("*.md"))]:
        text = path.read_text()
        found = (re.findall(r"\b[Ii]ssues? #?\d+|#\d{2,}\b", text) + hashes.findall(text)
                 + re.findall(r"/work/\S+", text))
        assert not found, f"{path.name} names {found}"


def test_docs_site_lists_every_page():
    nav = (ROOT / "mkdocs.yml").read_text()
    listed = set(re.findall(r"^\s*- (?:[^:\n]+: )?([\w.]+\.md)\s*$", nav, flags=re.MULTILINE))
    pages = {p.name for p in DOCS.glob("*.md")}
    assert pages <= listed, f"mkdocs.yml's nav lacks {sorted(pages - listed)}"
    assert listed <= pages, f"mkdocs.yml's nav names missing pages {sorted(listed - pages)}"


def test_graph_pictures_show_the_dot_text_they_print(programs, tmp_path):
    # the DOT text needs no Graphviz: checked wherever `dot` is missing too
    text = (DOCS / "graph_pictures.md").read_text()
    script = tmp_path / "pictures.py"
    script.write_text(python_blocks("graph_pictures.md")[0]
                      + "\nprint('=' * 8)\n")  # forward, backward, then the marker
    result = programs.run([sys.executable, str(script)], cwd=tmp_path, timeout=300, env=_env())
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


def test_package_list_names_the_pipeline_in_its_order():
    page = " ".join((DOCS / "architecture.md").read_text().split())  # lines joined
    listed = re.search(r"in the order of one table, `tinyflow/executor/pipeline.py`: "
                       r"((?:`\w+`, )*`\w+`)", page)
    assert listed, "docs/architecture.md no longer lists the bind passes where this test looks"
    assert re.findall(r"`(\w+)`", listed[1]) == [stage.name for stage in PIPELINE], (
        "docs/architecture.md's list of the bind passes differs from PIPELINE's")


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
    for page in set(PAGES) - {"index.md"}:  # the site's home page says what the README does
        assert f"docs/{page}" in readme, f"README.md does not link docs/{page}"


def test_ci_builds_the_docs_then_runs_readmes_test_command():
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.startswith("#")]
    readme = (ROOT / "README.md").read_text()
    setup = re.search(r"```bash\n(.*?)\n```", readme, flags=re.DOTALL)[1]
    test_command = setup.split(" && ")[-1]
    assert ci[-1] == test_command, f".ci/run ends with {ci[-1]!r}, README runs {test_command!r}"
    assert ci[-2].startswith("mkdocs build --strict"), ci[-2]
    assert any('".[test,docs]"' in line for line in ci)
