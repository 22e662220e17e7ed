"""Run a page's code and compare (or refresh) the output it shows.

A page's ```python blocks run in order, in one namespace, as one program.  A ```text block that
directly follows a python block (after one blank line) shows what that block prints; this tool
replaces it with what the block printed, or with ``--check`` reports where they differ:

    python tools/doc_outputs.py docs/training_step.md          # rewrite the page
    python tools/doc_outputs.py --check docs/training_step.md  # exit 1 if it is out of date

Two markers, HTML comments a rendered page does not show:

- ``<!-- output: numbers within 5% -->`` (or ``within 0.01``, or ``within 5% or 0.01``) on the
  line between a python block and its text block: each number printed may differ from the one
  shown by that much (relative with ``%``, else absolute; with both, either will do), the text
  around the numbers must match word for word.  For output that moves with float rounding or
  the BLAS a machine has.  Refreshing keeps a shown block that is still within the tolerance.
- ``<!-- not run: why -->`` on the line before a python block: a fragment of a larger program
  (code that needs torchrun, or files a tutorial made), shown but not run; the reason is
  required.

tests/test_docs.py runs ``--check`` on every page under docs/ and on README.md, so a change that
alters what a page prints fails until the page is refreshed.
"""
import argparse
import contextlib
import difflib
import io
import re
import sys
from pathlib import Path

BLOCK = re.compile(r"(?P<skip><!-- not run: (?P<why>[^>]*?) -->\n)?```python\n(?P<code>.*?)```\n"
                   r"(?P<gap>\n(?:<!-- output: numbers within (?P<rule>[^>]*?) -->\n)?"
                   r"```text\n(?P<shown>.*?)```\n)?", re.DOTALL)
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|\bnan\b|\binf\b")


def tolerance(rule: str) -> tuple[float, float]:
    """``(relative, absolute)`` from a marker's ``5%``, ``0.01`` or ``5% or 0.01``."""
    relative = absolute = 0.0
    for part in rule.split(" or "):
        part = part.strip()
        if part.endswith("%"):
            relative = float(part[:-1]) / 100
        else:
            absolute = float(part)
    return relative, absolute


def within(shown: str, printed: str, rule: str) -> bool:
    """Whether ``printed`` is ``shown`` but for numbers that differ by at most ``rule``."""
    relative, absolute = tolerance(rule)
    words = [NUMBER.sub("#", text).split() for text in (shown, printed)]
    if words[0] != words[1]:
        return False
    pairs = zip(NUMBER.findall(shown), NUMBER.findall(printed))
    return all(abs(float(a) - float(b)) <= max(absolute, relative * abs(float(a)))
               for a, b in pairs)


def refreshed(text: str, filename: str) -> str:
    """``text`` with each python block's ```text block replaced by what the block prints
    (kept where it shows a tolerance and is still within it)."""
    namespace = {"__name__": "__main__"}
    pieces, position = [], 0
    for match in BLOCK.finditer(text):
        pieces.append(text[position:match.end("code")] + "```\n")
        position = match.end()
        if match["skip"] is not None:
            if not match["why"].strip():
                raise ValueError(f"{filename}: a 'not run' marker must say why")
            pieces.append(text[match.end("code") + 4:match.end()])
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            # The page's own code, which is what this tool is for.
            exec(compile(match["code"], filename, "exec"), namespace)  # noqa: S102
        if match["gap"] is None:
            continue
        # Trailing spaces (padded table columns) are noise in a page.
        output = "\n".join(line.rstrip() for line in printed.getvalue().rstrip().splitlines())
        if match["rule"] is not None and within(match["shown"], output, match["rule"]):
            output = match["shown"].rstrip("\n")
        marker = "" if match["rule"] is None else (
            f"<!-- output: numbers within {match['rule']} -->\n")
        pieces.append(f"\n{marker}```text\n{output}\n```\n")
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
