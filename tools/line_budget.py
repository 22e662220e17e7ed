"""Print the engine's line budget per component (non-blank, non-comment lines), as the README
shows it.  Usage: python tools/line_budget.py"""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "tinyflow"
COMPONENTS = {
    "graph layer (tinyflow/nnvm)": ["nnvm/**/*.py"],
    "op declarations (tinyflow/ops)": ["ops/*.py"],
    "Lua op bodies (tinyflow/lua_ops/ops/*.lua)": ["lua_ops/ops/*.lua"],
    "Lua bridge (tinyflow/lua_ops/*.py)": ["lua_ops/*.py"],
    "executor + session": ["executor/*.py", "session.py"],
    "TF front-end (api, nn, train, shapes)": ["api.py", "nn.py", "train.py", "shapes.py",
                                              "__init__.py"],
    "checkpoints, pictures, gradient checks (saver, viz, testing)": [
        "saver.py", "viz.py", "testing.py"],
    "datasets": ["datasets/*.py"],
}


def count(path: Path) -> int:
    comment = "--" if path.suffix == ".lua" else "#"
    return sum(1 for line in path.read_text().splitlines()
               if line.strip() and not line.strip().startswith(comment))


def main():
    total = 0
    print("| component | lines |\n|---|---:|")
    for name, patterns in COMPONENTS.items():
        n = sum(count(p) for pattern in patterns for p in ROOT.glob(pattern))
        total += n
        print(f"| {name} | {n} |")
    print(f"| **total** | **{total}** |")


if __name__ == "__main__":
    main()
