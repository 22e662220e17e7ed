"""Smoke test: every program in examples/ runs a few batches on small generated data (each in its
own process, forked from one that imported torch and tinyflow: the ``programs`` fixture)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_datasets import cifar_batches, cifar_tarball, gzip_files, mnist_arrays

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.py") if p.name != "common.py")
# a few steps each, to see that they run: one torch thread, not a team of two waiting for a core
# another process holds (tests/conftest.py)
ONE_THREAD = {"OMP_NUM_THREADS": "1"}


@pytest.fixture
def data_dir(tmp_path):
    for name, payload in gzip_files(mnist_arrays(n_train=120, n_test=40)).items():
        (tmp_path / name).write_bytes(payload)
    (tmp_path / "cifar-10-python.tar.gz").write_bytes(
        cifar_tarball(cifar_batches(per_batch=24, n_test=40)))
    return tmp_path


def run_example(programs, example, data_dir, *flags):
    """Run ``example`` on the generated data; its completed process."""
    dataset = "cifar10" if "cifar" in example else "fashion-mnist"
    env = {**os.environ, "TINYFLOW_DATA": str(data_dir / "none"), **ONE_THREAD}
    return programs.run(
        [sys.executable, str(ROOT / "examples" / example), "--dataset", dataset,
         "--data-dir", str(data_dir), "--epochs", "1", "--batch-size", "40", *flags],
        timeout=300, env=env)


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_runs(programs, example, data_dir):
    result = run_example(programs, example, data_dir)
    assert result.returncode == 0, result.stderr[-3000:]
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("test accuracy: 0.") or last == "test accuracy: 1.0000", last


def test_example_takes_a_session_config(programs, data_dir):
    # 120 images in batches of 24: 5 steps with the fused kernels (inductor)
    result = run_example(programs, "mnist_mlp_auto_shape_inference.py", data_dir, "--config",
                         "cpu fusion", "--batch-size", "24")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1].startswith("test accuracy: ")
    wrong = run_example(programs, "mnist_softmax.py", data_dir, "--config", "cpu fusoin")
    assert wrong.returncode == 2 and "'cpu fusoin'" in wrong.stderr, wrong.stderr[-500:]


# the TF-1 programs; a module they import (mnist.py, as TF's tutorials have it) is no program
TF1_EXAMPLES = sorted(p.name for p in (ROOT / "examples" / "tf1").glob("*.py")
                      if 'if __name__ == "__main__":' in p.read_text())


def test_tf1_modules_are_not_run_as_programs():
    assert "mnist.py" not in TF1_EXAMPLES
    assert {"mnist_softmax.py", "fully_connected_feed.py"} <= set(TF1_EXAMPLES)


@pytest.fixture(scope="module")
def tf1_data_dir(tmp_path_factory):
    # input_data keeps TF's validation split of 5000 training images: give it 5100; 100 test
    # images make one whole batch of fully_connected_feed's default 100.  Made once: the
    # programs only read it
    data = tmp_path_factory.mktemp("tf1_data")
    for name, payload in gzip_files(mnist_arrays(n_train=5100, n_test=100)).items():
        (data / name).write_bytes(payload)
    return data


@pytest.mark.parametrize("example", TF1_EXAMPLES)
def test_tf1_example_runs(programs, example, tf1_data_dir, tmp_path):
    # TF-1 programs with only the import changed, a few steps on generated data; their default
    # log and data folders go under TEST_TMPDIR (each program its own), as in TF's tests
    env = {**os.environ, "TEST_TMPDIR": str(tmp_path), **ONE_THREAD}
    result = programs.run(
        [sys.executable, str(ROOT / "examples" / "tf1" / example), "--data_dir",
         str(tf1_data_dir), "--steps", "5"], timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "test accuracy:" in result.stdout.strip().splitlines()[-1], result.stdout[-500:]


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_profiles(programs, example, data_dir):
    # --profile: the per-op table of the training steps after the accuracy, every op of the
    # step timed (the table's header, then a row per op with its calls)
    result = run_example(programs, example, data_dir, "--profile")
    assert result.returncode == 0, result.stderr[-3000:]
    tail = result.stdout.split("test accuracy: ", 1)[1].splitlines()
    assert "per-op time of the training steps" in tail[2], result.stdout[-2000:]
    assert len(tail) > 5, result.stdout[-2000:]


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_flags_show_their_defaults(example):
    result = subprocess.run([sys.executable, str(ROOT / "examples" / example), "--help"],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    flags = result.stdout.split("options:", 1)[1]
    for flag in ("--epochs", "--batch-size", "--config", "--dataset"):
        entry = flags.split(flag, 1)[1].split("\n  --", 1)[0]
        assert "(default: " in entry, f"{example} --help: {flag} shows no default"


def test_mnist_offline_says_what_to_do(programs, tmp_path):
    # no files anywhere and no network (a mirror that refuses at once): a short message
    env = {**os.environ, "TINYFLOW_DATA": str(tmp_path / "none"), "HOME": str(tmp_path),
           "https_proxy": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"}
    result = programs.run([sys.executable, str(ROOT / "examples" / "mnist_softmax.py")],
                          timeout=300, env=env)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "--dataset fashion-mnist" in result.stderr and "--data-dir" in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 3, result.stderr
