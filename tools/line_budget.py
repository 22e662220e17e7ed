"""The engine's line budget per component (non-blank, non-comment lines), as the README shows it.

    python tools/line_budget.py          # print the table
    python tools/line_budget.py --check  # exit 1 when a component is over its limit, or a
                                         # function in tinyflow/ is over 60 lines

Limits sit a little above the counts they were set at: small enough to teach from is a feature,
so growing past one is a decision to make (raise it in the same commit, saying why), not drift.
"""
import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "tinyflow"
FRONT_END = "TF-1 core API (api, nn, train, array/random/init ops, framework: the rest)"
# component -> (file patterns under tinyflow/, line limit); the TF front end is the rest
COMPONENTS = {
    # 1550 -> 1650 for issue 10: tf.Graph's names, control dependencies, set_shape, dtype
    # checks when an op is built (TF raises there, not at run time); -> 2150 for issue 14's
    # Mirror pass (nnvm/passes/mirror.py, ~390) and LoadJSON's checks of malformed graphs;
    # -> 2350 for issue 15's FuseElemwise pass (grouping without cycles, code generation, ~220);
    # -> 2650 for issue 16's CPU passes (FuseConvActivation, PruneArgmax, ChooseLayout, ~200);
    # -> 2740 for its PoolBeforeActivation pass (pooling before a monotonic activation, ~140)
    # and MaterializeShapes skipping identities (TSameShapeIdentity, ~25)
    # -> 2830 with what moved down from the front end (tensor[index], the default-session
    # stack, TF's op-seed rule, tf.errors' classes): the graph layer no longer imports upward
    "graph layer (tinyflow/nnvm)": (["nnvm/**/*.py"], 2830),
    # 1900 -> 2000: issue 15's FFuseExpr beside each elementwise op, _fused and TUncapturable;
    # issue 16's _fused_conv2d / _fused_linear and the TChannelsLast table
    "op declarations (tinyflow/ops)": (["ops/*.py"], 2000),
    # 900 -> 1250 for issue 12's sandbox (an environment per body, read-only torch) and
    # interrupts, and issue 13's torch.distributed functions of the torch table; -> 1350 for
    # issue 16 (oneDNN's fused convolution, batch slices, channels-last bias sums and pooling);
    # -> 1400 with issue 16's in-place relu convolution and numpy-BLAS thin matmuls; -> 1440
    # for its timed choice of CPU GEMM (MKL, oneDNN, OpenBLAS) and numpy's tanh
    # -> 1640 for the sandbox as a module boundary: +107 moved from executor/kernels.py (the fused
    # kernels, now lua_ops/fused/kernels.py), ~100 for the family kernels tables, the built-in
    # body record, the torch table's argument checks and the kernels' one-line docstrings.  (Listed before the bodies: it claims
    # the families' kernels.lua, Lua kernels that were the runtime's prelude.)
    "Lua bridge (tinyflow/lua_ops: runtime, torch table, family kernels)": (
        ["lua_ops/*.py", "lua_ops/*/*.py", "lua_ops/*/kernels.lua"], 1640),
    # 1000 -> 1100: collectives (issue 13), top_k, lrn, scatter, shuffle, label checks
    "Lua op bodies (tinyflow/lua_ops/<family>/*.lua)": (["lua_ops/*/*.lua"], 1100),
    # 800 -> 860 for issue 10: operations as fetches, Variable.assign/load/read_value; -> 1400
    # for issue 12 (executor cache per feed shapes, a run per executor for threads, memory
    # given back, allocation checks), Python ops inside a step, issue 14's memory option;
    # -> 1580 for issue 15: fused kernels (executor/kernels.py) and the step as CUDA-graph
    # segments (executor/cuda_graph.py); -> 1590 for issue 16's per-run path (_checkout
    # without a generator, the feed conversion's fast path and _feed_array); -> 1650 with the
    # review of issue 15 (fused-node errors naming members, meta-tensor checks at bind); -> 1690
    # for the bind pipeline as one table (executor/pipeline.py, ~50, against ~20 of list
    # surgery it replaced; the session's memory option parsing moved to config.py)
    "executor, session, variables": (["executor/*.py", "session.py", "variables.py"], 1690),
    "checkpoints, pictures, gradient checks (saver, viz, testing)": (
        ["frontend/saver.py", "frontend/viz.py", "frontend/testing.py"], 850),  # 720 -> 850: issue 12's safe saves
    "datasets": (["datasets/*.py"], 800),
    # what TF-1 programs use around the model (issue 10): summaries and event files, gfile,
    # ConfigProto, tf.errors, tf.losses, learning-rate schedules, tf.app/flags/logging, input_data
    "TF-1 program support (summary, events, losses, schedules, app, flags, input_data...)": (
        ["frontend/summary.py", "frontend/events.py", "frontend/gfile.py", "config.py",
         "frontend/errors.py", "frontend/losses.py", "frontend/learning_rate_decay.py",
         "frontend/app.py", "frontend/flags.py", "frontend/tf_logging.py", "examples/**/*.py"],
        2050),
    # issue 11: tf.layers, conv2d_transpose, rnn cells and the rnn functions, tf.contrib.rnn;
    # 1750 -> 1950 with tf.contrib.layers (fully_connected, xavier_initializer, regularizers)
    "tf.layers and recurrent networks (layers, rnn_cell, rnn, contrib)": (
        ["frontend/layers.py", "frontend/nn/conv_transpose.py", "frontend/nn/rnn_cell.py",
         "frontend/nn/rnn.py", "frontend/contrib/*.py"], 1950),
    "distributed training (tinyflow/distributed.py)": (["distributed.py"], 400),
    # 2600 -> 3200 with issue 10's rest: tf.math, tf.cond, Print, py_func, scatter ops,
    # floor/ceil/round, convert_to_tensor
    FRONT_END: ([], 3200),
}
# What must stay readable in an afternoon: the graph layer, the executor and the Lua runtime.
CORE = ("graph layer (tinyflow/nnvm)", "executor, session, variables",
        "Lua bridge (tinyflow/lua_ops/*.py)")
CORE_LIMIT = 5900  # (-> 5900: the graph layer's moves from the front end, the pipeline table) 3100 -> 4800 with the graph layer, executor and bridge above; -> 5150 for
# issue 15 (fusion, CUDA-graph segments); -> 5550 with issue 16's CPU passes and kernels;
# -> 5570 for issue 16's shape-only nodes computed once at setup (Executor._own_constants);
# -> 5780 for issue 16's PoolBeforeActivation pass, identities skipped, numpy's tanh; -> 5820
# for the bind pipeline's table (executor/pipeline.py)
FUNCTION_LIMIT = 60  # lines of a function, its docstring not counted


def count(path: Path) -> int:
    comment = "--" if path.suffix == ".lua" else "#"
    return sum(1 for line in path.read_text().splitlines()
               if line.strip() and not line.strip().startswith(comment))


def budget() -> dict:
    """``{component: lines}``; every .py and .lua file under tinyflow/ counts once."""
    every = set(ROOT.rglob("*.py")) | set(ROOT.rglob("*.lua"))
    lines, claimed = {}, set()
    for name, (patterns, _) in COMPONENTS.items():
        files = {p for pattern in patterns for p in ROOT.glob(pattern)} - claimed
        claimed |= files
        lines[name] = sum(count(p) for p in (files if patterns else every - claimed))
    return lines


def long_functions(limit: int = FUNCTION_LIMIT) -> list[str]:
    """``file:line name (N lines)`` of every function in tinyflow/ longer than ``limit`` lines,
    not counting its docstring."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            length = node.end_lineno - node.lineno + 1
            doc = node.body[0]
            if ast.get_docstring(node) is not None:
                length -= doc.end_lineno - doc.lineno + 1
            if length > limit:
                found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno} {node.name} "
                             f"({length} lines)")
    return found


def problems() -> list[str]:
    """Every way the engine is over its budget; empty when it is within."""
    lines = budget()
    found = [f"{name}: {lines[name]} lines, limit {limit}"
             for name, (_, limit) in COMPONENTS.items() if lines[name] > limit]
    core = sum(lines[name] for name in CORE)
    if core > CORE_LIMIT:
        found.append(f"graph layer + executor + Lua bridge: {core} lines, limit {CORE_LIMIT}")
    return found + [f"function over {FUNCTION_LIMIT} lines: {f}" for f in long_functions()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when over budget")
    if parser.parse_args().check:
        found = problems()
        print("\n".join(found) or "within budget")
        sys.exit(1 if found else 0)
    lines = budget()
    print("| component | lines | limit |\n|---|---:|---:|")
    for name, (_, limit) in COMPONENTS.items():
        print(f"| {name} | {lines[name]} | {limit} |")
    print(f"| **total** | **{sum(lines.values())}** | |")


if __name__ == "__main__":
    main()
