"""tools/tf1_side_by_side.py's parts that need no TensorFlow: translation, flags, parsing, table,
the runner's seeding and its torch check, and the message when TensorFlow is missing."""
import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from test_datasets import gzip_files, mnist_arrays

from tinyflow.examples.tutorials.mnist import input_data

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location(
        "tf1_side_by_side", ROOT / "tools" / "tf1_side_by_side.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


SOFTMAX_LIKE = '''\
import argparse
import tinyflow as tf
from tinyflow.examples.tutorials.mnist import input_data

def main(_):
    if True:
        import tinyflow as tf
    print("test accuracy:", 0.5)

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str)
    parser.add_argument("--steps", type=int, default=1000)
'''


def test_find_programs_skips_modules(tool, tmp_path):
    (tmp_path / "prog.py").write_text(SOFTMAX_LIKE)
    (tmp_path / "other.py").write_text("x = 1\nif __name__ == '__main__':\n    pass\n")
    (tmp_path / "mnist.py").write_text("import tinyflow as tf\nNUM_CLASSES = 10\n")
    (tmp_path / "notes.txt").write_text('if __name__ == "__main__":\n')
    assert tool.find_programs(tmp_path) == ["other.py", "prog.py"]


def test_to_tensorflow_changes_only_the_import(tool):
    translated = tool.to_tensorflow(SOFTMAX_LIKE)
    ast.parse(translated)
    old, new = SOFTMAX_LIKE.splitlines(), translated.splitlines()
    assert new[1:3] == ["import tensorflow.compat.v1 as tf", "tf.disable_v2_behavior()"]
    assert new[7:9] == ["        import tensorflow.compat.v1 as tf",
                        "        tf.disable_v2_behavior()"]
    assert [line for line in new if "tensorflow" not in line and "disable_v2" not in line] == [
        line for line in old if line.strip() != "import tinyflow as tf"]
    assert "from tinyflow.examples.tutorials.mnist import input_data" in new


@pytest.mark.parametrize("line", ["from tinyflow import nn", "import tinyflow",
                                  "import tinyflow.frontend.nn.functions as nn",
                                  "from tinyflow.frontend.nn.functions import relu"])
def test_to_tensorflow_refuses_other_tinyflow_imports(tool, line):
    with pytest.raises(ValueError, match=r"prog\.py:2: .*imports TinyFlow"):
        tool.to_tensorflow(f"import os\n{line}\n", "prog.py")


def test_every_tf1_example_translates(tool):
    for path in sorted((ROOT / "examples" / "tf1").glob("*.py")):
        translated = tool.to_tensorflow(path.read_text(), path.name)
        ast.parse(translated, path.name)
        lines = [line.strip() for line in translated.splitlines()]
        assert "import tinyflow as tf" not in lines, path.name


def test_program_flags(tool):
    assert tool.program_flags(SOFTMAX_LIKE, "/d", 300, "/logs") == [
        "--data_dir", "/d", "--steps", "300"]
    feed_like = ('parser.add_argument("--max_steps", type=int)\n'
                 'parser.add_argument("--input_data_dir", type=str)\n'
                 'parser.add_argument("--log_dir", type=str)\n')
    assert tool.program_flags(feed_like, "/d", 7, "/logs") == [
        "--input_data_dir", "/d", "--max_steps", "7", "--log_dir", "/logs"]
    tf_flags = "flags.DEFINE_integer('max_steps', 10, '')\nflags.DEFINE_string('data_dir', '', '')"
    assert tool.program_flags(tf_flags, "/d", 5, None) == ["--data_dir", "/d", "--max_steps", "5"]
    with pytest.raises(ValueError, match="--steps"):
        tool.program_flags('parser.add_argument("--data_dir")\n"--num_epochs"', "/d", 5, None)


def test_parse_accuracy_takes_the_last_line(tool):
    out = "Step 0\ntest accuracy: 0.25\nmore\ntest accuracy: 0.8247\nbye\n"
    assert tool.parse_accuracy(out) == 0.8247
    assert tool.parse_accuracy("test accuracy: 1.0") == 1.0
    assert tool.parse_accuracy("test accuracy 9.5e-01") == 0.95
    assert tool.parse_accuracy("Precision @ 1: 0.9\n") is None


def test_table_means_ranges_and_difference(tool):
    run = tool.Run
    rows = [("a.py", 100, [run(0.80, 2.0), run(0.82, 4.0)], [run(0.83, 1.0), run(0.85, 1.0)]),
            ("b.py", 5, [run(None, 1.0, "boom")], [run(0.5, 3.0)]),
            ("c.py", 0, [], [])]
    lines = tool.format_table(rows).splitlines()
    assert len(lines) == 5 and len({len(line) for line in lines}) == 1
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    assert cells[0][:5] == ["program", "steps", "TinyFlow accuracy", "TF1 accuracy",
                            "difference (points)"]
    assert cells[2] == ["a.py", "100", "0.8100 (0.8000-0.8200)", "0.8400 (0.8300-0.8500)",
                        "-3.00", "3.0 s", "1.0 s"]
    assert cells[3] == ["b.py", "5", "failed", "0.5000", "n/a", "1.0 s", "3.0 s"]
    assert cells[4][2:5] == ["not run", "not run", "n/a"]


def run_runner(tool, program, seed, side, *flags):
    return subprocess.run([sys.executable, "-c", tool.RUNNER, str(program), seed, side, *flags],
                          capture_output=True, text=True, timeout=120, check=False)


def test_runner_seeds_read_data_sets_and_keeps_argv(tool, tmp_path):
    for name, payload in gzip_files(mnist_arrays(n_train=300, n_test=10)).items():
        (tmp_path / name).write_bytes(payload)
    (tmp_path / "helper.py").write_text("VALUE = 'sibling'\n")
    program = tmp_path / "prog.py"
    program.write_text(
        "import sys\nimport helper\n"
        "from tinyflow.examples.tutorials.mnist import input_data\n"
        "data = input_data.read_data_sets(sys.argv[1], validation_size=0)\n"
        "print(sys.argv[0] == __file__, helper.VALUE, __name__)\n"
        "print(' '.join(map(str, data.train.next_batch(20)[1])))\n")
    first = run_runner(tool, program, "7", "tinyflow", str(tmp_path))
    again = run_runner(tool, program, "7", "tinyflow", str(tmp_path))
    assert first.returncode == 0, first.stderr
    header, labels = first.stdout.strip().splitlines()[-2:]
    assert header == "True sibling __main__"
    assert labels == again.stdout.strip().splitlines()[-1]
    expected = input_data.read_data_sets(tmp_path, validation_size=0, seed=7)
    assert labels == " ".join(map(str, expected.train.next_batch(20)[1]))
    unseeded = {run_runner(tool, program, "", "tinyflow", str(tmp_path)).stdout.splitlines()[-1]
                for _ in range(2)}
    assert len(unseeded) == 2  # no seed: each run draws its own order, as the program says


def test_runner_refuses_a_tensorflow_side_that_loaded_torch(tool, tmp_path):
    program = tmp_path / "prog.py"
    program.write_text("import torch\nprint('test accuracy: 0.5')\n")
    assert run_runner(tool, program, "", "tinyflow").returncode == 0
    result = run_runner(tool, program, "", "tf")
    assert result.returncode != 0 and "loaded torch" in result.stderr
    program.write_text("import sys\nsys.exit(3)\n")
    assert run_runner(tool, program, "", "tinyflow").returncode == 3
    # the shared loader imports tinyflow (and with it tinyflow.session's options), not the
    # Session, which loads torch: a TensorFlow side that uses it is TensorFlow's alone
    program.write_text("import tinyflow.examples.tutorials.mnist.input_data\n"
                       "print('test accuracy: 0.5')\n")
    assert run_runner(tool, program, "", "tf").returncode == 0


def test_missing_tensorflow_is_a_clear_error(tool, tmp_path, capsys):
    assert tool.main(["--tf-python", str(tmp_path / "no" / "python")]) == 2
    message = capsys.readouterr().err
    assert "no interpreter at" in message and "pip install tensorflow-cpu" in message
    if importlib.util.find_spec("tensorflow") is None:  # this interpreter has no TensorFlow
        assert tool.main(["--tf-python", sys.executable]) == 2
        assert "No module named 'tensorflow'" in capsys.readouterr().err
