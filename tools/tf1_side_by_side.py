"""Run the TF-1 tutorial programs of examples/tf1/ under TinyFlow and under TensorFlow, side by
side.

Each program runs twice with the same flags (``--data_dir``, the step count, a fresh
``--log_dir`` where it has one): once as it is, with this interpreter (TinyFlow), and once
under TensorFlow 2.x's ``tf.compat.v1`` graph mode, from a copy of examples/tf1/ in which only
``import tinyflow as tf`` differs::

    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()

The data loader is TinyFlow's ``tinyflow.examples.tutorials.mnist.input_data`` on both sides
(TF 2.x no longer ships ``tensorflow.examples.tutorials``).  It needs only numpy, and
``import tinyflow`` builds graphs without torch, so the TensorFlow side imports it from this
checkout (``PYTHONPATH``); after the program ends the TensorFlow side checks that neither
torch nor TinyFlow's session was loaded, so its numbers are TensorFlow's alone.

    nice python tools/tf1_side_by_side.py                        # every program, its defaults
    nice python tools/tf1_side_by_side.py --programs mnist_softmax --steps 1000 --repeats 5
    nice python tools/tf1_side_by_side.py --data_seed 1          # same batches on both sides

The programs seed nothing, so each run draws its own batch order (and its own initial weights):
``--repeats`` shows the spread.  ``--data_seed S`` passes ``seed=S`` (``S + r`` in repeat r) to
``read_data_sets`` on both sides, so both train on exactly the same batches; a program that
gives its own seed keeps it.  Wall times include start-up and data loading, and each side uses
its own thread pools: indicative only on a shared machine.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_STEPS",
    "RUNNER",
    "Run",
    "find_programs",
    "format_table",
    "main",
    "parse_accuracy",
    "program_flags",
    "summarise",
    "to_tensorflow",
]

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "tf1"
FASHION_DIR = "/usr/share/datasets/fashion-mnist"
TF_PYTHON = "/work/venvs/tf/bin/python"
TF_IMPORT = "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()"
LOADER_IMPORT = "from tinyflow.examples.tutorials.mnist import input_data"
#: TF 2 has no tf.contrib; TF 1.15's tf.contrib.rnn re-exported tf.nn.rnn_cell's cells and
#: tf.nn's static rnn functions, which tf.compat.v1 still has: the same names, gathered.
CONTRIB_RNN_IMPORT = "from tinyflow.frontend.contrib import rnn"
CONTRIB_RNN = ("import types as _types\n"
               "rnn = _types.SimpleNamespace(**{n: getattr(tf.nn.rnn_cell, n) for n in "
               "dir(tf.nn.rnn_cell) if not n.startswith('_')}, static_rnn=tf.nn.static_rnn, "
               "static_bidirectional_rnn=tf.nn.static_bidirectional_rnn)")
#: Steps per program when --steps is not given: a few minutes at most on 2 cores.
DEFAULT_STEPS = {"mnist_softmax.py": 1000, "mnist_deep.py": 1000,
                 "mnist_with_summaries.py": 500, "fully_connected_feed.py": 2000}
ACCURACY = re.compile(r"test accuracy:?\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)")
# Runs a program as `python program.py FLAGS` would (sys.argv, sys.path[0], __main__), after
# giving read_data_sets a default seed when one is asked for; argv: program, seed, side, flags.
RUNNER = """\
import functools, os, runpy, sys
program, seed, side = sys.argv[1:4]
sys.argv = [program] + sys.argv[4:]
sys.path.insert(0, os.path.dirname(os.path.abspath(program)))
if seed:
    from tinyflow.examples.tutorials.mnist import input_data
    input_data.read_data_sets = functools.partial(input_data.read_data_sets, seed=int(seed))
try:
    runpy.run_path(program, run_name="__main__")
except SystemExit as exit_:
    if exit_.code not in (None, 0):
        raise
if side == "tf" and {"torch", "tinyflow.session.session"} & set(sys.modules):
    sys.exit("side-by-side: the TensorFlow run loaded torch or TinyFlow's session")
"""


@dataclass(frozen=True)
class Run:
    """One run of one program on one side."""

    accuracy: float | None  # the last "test accuracy: X" printed; None when there is none
    seconds: float          # wall time of the whole process
    error: str = ""         # the end of stderr when the run failed


def find_programs(directory: Path) -> list[str]:
    """The file names of the programs in ``directory``.

    Parameters
    ----------
    directory : pathlib.Path
        A folder of Python files; modules the programs import (``mnist.py``) are not programs.

    Returns
    -------
    list of str
        Sorted names of the files that have an ``if __name__ == "__main__":`` block.
    """
    main_block = re.compile(r"""^if __name__ == ['"]__main__['"]:""", re.MULTILINE)
    return sorted(path.name for path in directory.glob("*.py")
                  if main_block.search(path.read_text()))


def to_tensorflow(source: str, name: str = "<program>") -> str:
    """A TinyFlow TF-1 program's source with its import made TensorFlow's.

    Parameters
    ----------
    source : str
        The program (or a module it imports) as written for ``import tinyflow as tf``.
    name : str, optional
        File name used in the error message.

    Returns
    -------
    str
        The same source with each ``import tinyflow as tf`` line replaced by
        ``import tensorflow.compat.v1 as tf`` and ``tf.disable_v2_behavior()`` (same indent),
        and ``from tinyflow.frontend.contrib import rnn`` by the same names gathered from
        ``tf.nn.rnn_cell`` and ``tf.nn`` (TF 2 has no ``tf.contrib``).

    Raises
    ------
    ValueError
        If another line imports from ``tinyflow`` (other than the MNIST ``input_data``
        loader, which both sides share): running it under TensorFlow would not be TensorFlow.
    """
    lines = []
    for number, line in enumerate(source.splitlines(keepends=True), 1):
        stripped, indent = line.strip(), line[:len(line) - len(line.lstrip())]
        if stripped == "import tinyflow as tf":
            ending = "\n" if line.endswith("\n") else ""
            lines.append(indent + TF_IMPORT.replace("\n", "\n" + indent) + ending)
            continue
        if stripped == CONTRIB_RNN_IMPORT:
            ending = "\n" if line.endswith("\n") else ""
            lines.append(indent + CONTRIB_RNN.replace("\n", "\n" + indent) + ending)
            continue
        if re.match(r"(import|from)\s+tinyflow\b", stripped) and stripped != LOADER_IMPORT:
            raise ValueError(f"{name}:{number}: {stripped!r} imports TinyFlow; only "
                             f"'import tinyflow as tf' and {LOADER_IMPORT!r} can be translated")
        lines.append(line)
    return "".join(lines)


def program_flags(source: str, data_dir: str, steps: int, log_dir: str | None) -> list[str]:
    """The command-line flags that give a program its data, step count and log folder.

    Parameters
    ----------
    source : str
        The program's source; its argparse / tf.flags declarations name the flags.
    data_dir : str
        Folder of the four MNIST-format files.
    steps : int
        Training steps.
    log_dir : str or None
        Folder for summaries and checkpoints, passed when the program has ``--log_dir``.

    Returns
    -------
    list of str
        For instance ``["--data_dir", data_dir, "--steps", "1000"]``.

    Raises
    ------
    ValueError
        If the program declares no data-folder flag or no step-count flag.
    """
    def declared(*names: str) -> str | None:
        return next((flag for flag in names if re.search(
            rf"""['"](--)?{flag[2:]}['"]""", source)), None)

    data_flag = declared("--data_dir", "--input_data_dir")
    steps_flag = declared("--steps", "--max_steps", "--num_steps")
    if data_flag is None or steps_flag is None:
        raise ValueError("the program declares no --data_dir / --input_data_dir flag or no "
                         "--steps / --max_steps / --num_steps flag")
    flags = [data_flag, data_dir, steps_flag, str(steps)]
    if log_dir is not None and declared("--log_dir"):
        flags += ["--log_dir", log_dir]
    return flags


def parse_accuracy(stdout: str) -> float | None:
    """The number on the last ``test accuracy: X`` line of a program's output (None if none)."""
    found = ACCURACY.findall(stdout)
    return float(found[-1]) if found else None


def summarise(runs: list[Run]) -> tuple[str, str, float | None]:
    """Accuracy cell, time cell and mean accuracy of one side's repeats.

    Parameters
    ----------
    runs : list of Run
        The repeats of one program on one side.

    Returns
    -------
    tuple of (str, str, float or None)
        ``"0.8123"`` (one run) or ``"0.8123 (0.80-0.82)"`` (mean, range), ``"failed"`` when
        a run printed no accuracy, ``"not run"`` without runs; the mean wall time as
        ``"12.3 s"``; the mean accuracy.
    """
    if not runs:
        return "not run", "-", None
    seconds = f"{statistics.fmean(run.seconds for run in runs):.1f} s"
    accuracies = [run.accuracy for run in runs]
    if None in accuracies:
        return "failed", seconds, None
    mean = statistics.fmean(accuracies)
    cell = f"{mean:.4f}"
    if len(accuracies) > 1:
        cell += f" ({min(accuracies):.4f}-{max(accuracies):.4f})"
    return cell, seconds, mean


def format_table(rows: list[tuple[str, int, list[Run], list[Run]]]) -> str:
    """A Markdown table: program, steps, both sides' accuracies, difference, wall times.

    Parameters
    ----------
    rows : list of tuple
        ``(program, steps, tinyflow_runs, tensorflow_runs)`` per program.

    Returns
    -------
    str
        The table, one line per program, the difference as TinyFlow minus TF in points.
    """
    header = ("program", "steps", "TinyFlow accuracy", "TF1 accuracy", "difference (points)",
              "TinyFlow time", "TF1 time")
    lines = [header, tuple("---" for _ in header)]
    for program, steps, tinyflow_runs, tensorflow_runs in rows:
        tiny_cell, tiny_time, tiny_mean = summarise(tinyflow_runs)
        tf_cell, tf_time, tf_mean = summarise(tensorflow_runs)
        difference = ("n/a" if tiny_mean is None or tf_mean is None
                      else f"{100 * (tiny_mean - tf_mean):+.2f}")
        lines.append((program, str(steps), tiny_cell, tf_cell, difference, tiny_time, tf_time))
    widths = [max(len(line[column]) for line in lines) for column in range(len(header))]
    return "\n".join("| " + " | ".join(cell.ljust(width) for cell, width in zip(line, widths))
                     + " |" for line in lines)


def run_program(python: str, program: Path, flags: list[str], seed: int | None,
                side: str, env: dict[str, str]) -> Run:
    """Run one program as a subprocess through :data:`RUNNER` and time it."""
    command = [python, "-c", RUNNER, str(program), "" if seed is None else str(seed), side]
    start = time.perf_counter()
    result = subprocess.run(command + flags, capture_output=True, text=True, env=env,
                            check=False)
    seconds = time.perf_counter() - start
    accuracy = parse_accuracy(result.stdout) if result.returncode == 0 else None
    error = "" if accuracy is not None else (result.stderr or result.stdout)[-2000:]
    return Run(accuracy, seconds, error)


def tensorflow_copy(destination: Path) -> dict[str, str]:
    """Write examples/tf1/*.py, imports made TensorFlow's, into ``destination``.

    Returns why each file that cannot be translated was left out, by file name.
    """
    problems = {}
    for path in sorted(EXAMPLES.glob("*.py")):
        try:
            (destination / path.name).write_text(to_tensorflow(path.read_text(), path.name))
        except ValueError as error:
            problems[path.name] = str(error)
    return problems


def check_tensorflow(python: str) -> str | None:
    """None when ``python`` imports TensorFlow, else why not (for the error message)."""
    if not Path(python).is_file():
        return f"no interpreter at {python}"
    result = subprocess.run([python, "-c", "import tensorflow.compat.v1"],
                            capture_output=True, text=True, check=False,
                            env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    return None if result.returncode == 0 else result.stderr.strip()[-500:]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", nargs="+", default=None,
                        help="program names in examples/tf1/ (default: every program)")
    parser.add_argument("--steps", type=int, default=None,
                        help=f"training steps for every program (default: {DEFAULT_STEPS})")
    parser.add_argument("--repeats", type=int, default=1, help="runs per program and side")
    parser.add_argument("--data_seed", type=int, default=None,
                        help="read_data_sets seed on both sides (default: the programs' own)")
    parser.add_argument("--tf-python", "--tf_python", dest="tf_python", default=TF_PYTHON,
                        help="a Python with tensorflow (2.x, for tf.compat.v1) installed")
    parser.add_argument("--data_dir", default=FASHION_DIR,
                        help="folder of the four MNIST-format files (default: Fashion-MNIST)")
    return parser.parse_args(argv)


def selected_programs(requested: list[str] | None) -> list[str]:
    """The programs to run: ``requested`` (``.py`` optional) or all of examples/tf1/."""
    available = find_programs(EXAMPLES)
    if requested is None:
        return available
    names = [name if name.endswith(".py") else name + ".py" for name in requested]
    missing = [name for name in names if name not in available]
    if missing:
        raise SystemExit(f"not programs in {EXAMPLES}: {', '.join(missing)} "
                         f"(there are: {', '.join(available)})")
    return names


def compare(name: str, args: argparse.Namespace, tf_dir: Path, logs: Path) -> tuple:
    """Both sides' repeats of one program: ``(name, steps, tinyflow_runs, tf_runs)``."""
    if not (tf_dir / name).exists():  # not translatable: tensorflow_copy said why
        return name, 0, [], []
    steps = args.steps or DEFAULT_STEPS.get(name, 1000)
    source = (EXAMPLES / name).read_text()
    # tf.compat.v1.layers and rnn_cell need Keras 2 (the tf_keras package) under TF 2.16+
    tf_env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "TF_USE_LEGACY_KERAS": "1",
              "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                          os.environ.get("PYTHONPATH")]))}
    sides = {"tinyflow": (sys.executable, EXAMPLES / name, dict(os.environ)),
             "tf": (args.tf_python, tf_dir / name, tf_env)}
    runs = {side: [] for side in sides}
    for repeat in range(args.repeats):
        seed = None if args.data_seed is None else args.data_seed + repeat
        for side, (python, program, env) in sides.items():
            log_dir = logs / f"{name[:-3]}-{side}-{repeat}"
            log_dir.mkdir(parents=True)
            flags = program_flags(source, args.data_dir, steps, str(log_dir))
            # mnist_deep.py writes its graph under $TEST_TMPDIR: keep that in the scratch too
            run = run_program(python, program, flags, seed, side,
                              {**env, "TEST_TMPDIR": str(log_dir)})
            print(f"{name} [{side}, run {repeat + 1}]: accuracy {run.accuracy}, "
                  f"{run.seconds:.1f} s", file=sys.stderr)
            if run.error:
                print(run.error, file=sys.stderr)
            runs[side].append(run)
    return name, steps, runs["tinyflow"], runs["tf"]


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print the table; 1 when a run failed, 2 without TensorFlow."""
    args = parse_args(argv)
    problem = check_tensorflow(args.tf_python)
    if problem is not None:
        print(f"TensorFlow is not usable through --tf-python {args.tf_python}: {problem}\n"
              "Make it outside the repository (never a TinyFlow dependency):\n"
              f"  python -m venv /work/venvs/tf && /work/venvs/tf/bin/pip install "
              "tensorflow-cpu==2.21.0 tf-keras==2.21.0 numpy", file=sys.stderr)
        return 2
    programs = selected_programs(args.programs)
    with tempfile.TemporaryDirectory(prefix="tf1_side_by_side_") as scratch:
        tf_dir, logs = Path(scratch, "tf1"), Path(scratch, "logs")
        tf_dir.mkdir()
        for problem in tensorflow_copy(tf_dir).values():
            print(f"left out of the TensorFlow copy: {problem}", file=sys.stderr)
        rows = [compare(name, args, tf_dir, logs) for name in programs]
    print(format_table(rows))
    failed = any(not row[2] or any(run.accuracy is None for run in row[2] + row[3])
                 for row in rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
