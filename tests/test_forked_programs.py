"""The ``programs`` fixture (tests/forked_programs.py) against a fresh interpreter: the same
program run by ``subprocess.run`` gives the same exit code and output."""
import os
import signal
import subprocess
import sys

import pytest

PROGRAMS = {
    "exit code": "import sys; print('before'); sys.exit(3)",
    "exit message": "import sys; sys.exit('a message')",
    "uncaught exception": "print('before', flush=True); raise ValueError('the message')",
    "threads then atexit": (
        "import atexit, threading, time\n"
        "atexit.register(lambda: print('atexit'))\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), print('thread'))).start()\n"
        "print('main')"),
    "argv, cwd, environment, stdin": (
        "import os, sys\n"
        "print(sys.argv, os.getcwd(), os.environ.get('FORKED_TEST'), sys.stdin.read() == '')\n"
        "print(__name__, sys.path[0] == '')"),
    "torch's thread count": (
        "import torch; print(torch.get_num_threads())"),
}


def _normal(text):
    """A traceback's last line and what was printed (a forked program's traceback starts in
    the server's frame)."""
    return [line for line in text.splitlines() if not line.startswith(("  ", "Traceback"))]


@pytest.mark.parametrize("code", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_a_program_runs_as_in_a_fresh_interpreter(programs, tmp_path, code):
    argv = [sys.executable, "-c", code, "one", "--two"]
    env = {**os.environ, "FORKED_TEST": "yes", "OMP_NUM_THREADS": "1"}
    want = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path,
                          stdin=subprocess.DEVNULL, timeout=120, check=False)
    got = programs.run(argv, env=env, cwd=tmp_path, timeout=120)
    assert (got.returncode, got.stdout) == (want.returncode, want.stdout)
    assert _normal(got.stderr) == _normal(want.stderr)


def test_a_script_sees_its_folder_first_and_its_file(programs, tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 'sibling'\n")
    script = tmp_path / "prog.py"
    script.write_text("import sys, helper\nprint(helper.VALUE, sys.argv == [__file__, 'x'])\n")
    got = programs.run([sys.executable, str(script), "x"])
    assert (got.returncode, got.stdout) == (0, "sibling True\n"), got.stderr


def test_a_program_past_its_timeout_is_killed(programs):
    with pytest.raises(subprocess.TimeoutExpired):
        programs.run([sys.executable, "-c", "print('started', flush=True)\nwhile True: pass"],
                     timeout=1)
    assert programs.run([sys.executable, "-c", "print(1)"]).stdout == "1\n"  # still serving


def test_programs_at_once_lines_signals_and_stop(programs):
    code = ("import time\ntry:\n    print('ready', flush=True)\n    time.sleep(60)\n"
            "except KeyboardInterrupt:\n    print('interrupted', flush=True)\n")
    first, second = (programs.start([sys.executable, "-c", code]) for _ in range(2))
    lines = programs.lines(first)
    assert lines.get(timeout=60) == "ready"
    os.kill(first, signal.SIGINT)
    assert lines.get(timeout=10) == "interrupted"
    assert programs.wait(first, timeout=60).returncode == 0
    assert lines.get(timeout=10) is None  # the end, once waited for
    programs.stop(second)
    programs.stop(second)  # stopped already: nothing to do
