"""Refresh the printed output shown in a docs page.

Runs the page's ```python blocks in order, in one namespace, and replaces the ```text block that
directly follows a python block (after one blank line) with what that block printed.  Run it
after a change that alters what a page prints (an op's body, the memory planner...):

    python tools/doc_outputs.py docs/training_step.md          # rewrite the page
    python tools/doc_outputs.py --check docs/training_step.md  # exit 1 if it is out of date

tests/test_docs.py runs ``--check`` on every page whose output is the same on every run, so a
change that alters one fails until the page is refreshed.  Pages whose output is random
(docs/new_operator.md trains from random weights) differ on every run: refresh those by hand.
"""
import argparse
import contextlib
import difflib
import io
import re
import sys
from pathlib import Path

BLOCK = re.compile(r"```python\n(?P<code>.*?)```\n(?P<gap>\n```text\n(?P<shown>.*?)```\n)?",
                   re.DOTALL)


def refreshed(text: str, filename: str) -> str:
    """``text`` with each python block's ```text block replaced by what the block prints."""
    namespace = {"__name__": "__main__"}
    pieces, position = [], 0
    for match in BLOCK.finditer(text):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            # The page's own code, which is what this tool is for.
            exec(compile(match["code"], filename, "exec"), namespace)  # noqa: S102
        pieces.append(text[position:match.end("code")] + "```\n")
        if match["gap"] is not None:
            # Trailing spaces (padded table columns) are noise in a page.
            lines = [line.rstrip() for line in printed.getvalue().rstrip().splitlines()]
            pieces.append("\n```text\n" + "\n".join(lines) + "\n```\n")
        position = match.end()
    return "".join(pieces) + text[position:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="report stale pages, change none")
    args = parser.parse_args()
    stale = 0
    for page in args.pages:
        text = page.read_text()
        new = refreshed(text, str(page))
        if new == text:
            continue
        stale += 1
        if args.check:
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(True), new.splitlines(True), str(page), f"{page} (now)"))
        else:
            page.write_text(new)
            print(f"refreshed {page}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
