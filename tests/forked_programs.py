"""Run Python programs (examples, docs pages, README snippets) as ``python prog.py`` would, each
in its own process, without paying the ~1 s of importing torch and TinyFlow every time.

A server (this file run as a script) imports torch and tinyflow once, runs nothing, and for each
program forks a child that takes the program's argv, environment, working directory, stdin
(/dev/null) and stdout / stderr (files), then runs it as ``__main__`` from the top level: an
uncaught exception prints its traceback and exits 1, ``sys.exit`` gives its code, and the exit
waits for the program's threads and runs its ``atexit`` functions, as in a fresh interpreter.
What differs from a fresh interpreter: the modules imported at the server's start are in
``sys.modules`` already (their import-time warnings, their reading of the environment and what
they noted at import, e.g. the saver's time the process started, which makes older temporary
files stale, happened in the server; a program's ``OMP_NUM_THREADS`` sets torch's thread count
as at start-up, but without it the program keeps the server's count), and ``sys.path`` is the
server's (this tree first) with the program's folder in front.  Tests that need a fresh interpreter (what an
import loads, warnings turned into errors by ``-W``, a program without torch) keep
``subprocess``.

    programs = ForkedPrograms(root)
    result = programs.run([sys.executable, "examples/mnist_softmax.py", "--epochs", "1"])
    result.returncode, result.stdout, result.stderr   # a subprocess.CompletedProcess
    pids = [programs.start(argv, env=env) for env in ranks]  # several at once
    results = [programs.wait(pid, timeout=60) for pid in pids]
    lines = programs.lines(pid)   # a queue of its stdout lines as it prints them
    os.kill(pid, signal.SIGINT); programs.stop(pid)   # signals; kill and wait
"""
import contextlib
import gc
import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PRELOAD = ("numpy", "torch", "tinyflow")


class ForkedPrograms:
    """The client: starts the server on first use; ``run`` is ``subprocess.run(argv,
    capture_output=True, text=True, check=False, ...)`` for ``[sys.executable, script, *args]``
    and ``[sys.executable, "-c", code, *args]``."""

    def __init__(self, root):
        self.root = Path(root)
        self.server = None
        self.folder = None
        self.pending = b""
        self.count = 0
        self.running = {}  # pid: (argv, stdout file, stderr file) of those not waited for
        self.ended = {}  # pid: the event that ends ``lines``' following of its stdout

    def _start(self):
        self.folder = Path(tempfile.mkdtemp(prefix="forked_programs_"))
        paths = [str(self.root), *filter(None, [os.environ.get("PYTHONPATH")])]
        with open(self.folder / "server.log", "wb") as log:
            self.server = subprocess.Popen(
                [sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=log, env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
                cwd=self.folder)

    def run(self, argv, *, env=None, cwd=None, timeout=300):
        """The completed program, or ``subprocess.TimeoutExpired`` after killing it."""
        return self.wait(self.start(argv, env=env, cwd=cwd), timeout)

    def start(self, argv, *, env=None, cwd=None, stderr_to_stdout=False):
        """Start the program (``subprocess.Popen``); its pid, for ``wait``, ``lines``,
        ``stop`` and signals."""
        if argv[0] != sys.executable or len(argv) < 2 or (
                argv[1].startswith("-") and argv[1] != "-c"):
            raise ValueError(f"runs [sys.executable, script or -c code, *args], not {argv}")
        if self.server is None:
            self._start()
        self.count += 1
        out, err = self.folder / f"{self.count}.out", self.folder / f"{self.count}.err"
        out.touch(), err.touch()
        request = {"argv": [str(a) for a in argv[1:]], "cwd": str(cwd or os.getcwd()),
                   "env": dict(os.environ if env is None else env),
                   "stdout": str(out), "stderr": str(out if stderr_to_stdout else err)}
        pid = self._ask({"start": request}, 60)["pid"]
        self.running[pid] = (argv, out, err)
        return pid

    def wait(self, pid, timeout=300):
        """The completed program started as ``pid``; ``subprocess.TimeoutExpired`` after
        killing it if it takes longer than ``timeout`` seconds."""
        argv, out, err = self.running.pop(pid)
        try:
            code = self._ask({"wait": pid}, timeout)["status"]
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):  # ended meanwhile
                os.kill(pid, signal.SIGKILL)
            self._reply(60)
            raise subprocess.TimeoutExpired(argv, timeout, out.read_text(errors="replace"),
                                            err.read_text(errors="replace")) from None
        finally:
            if pid in self.ended:
                self.ended.pop(pid).set()
            output = out.read_text(errors="replace"), err.read_text(errors="replace")
            out.unlink(missing_ok=True), err.unlink(missing_ok=True)
        return subprocess.CompletedProcess(argv, code, *output)

    def stop(self, pid):
        """Kill the program if it still runs (not waited for yet), and wait for it."""
        if pid in self.running:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            self.wait(pid, 60)

    def lines(self, pid):
        """A queue of the program's stdout lines, stripped, as it prints them; None after the
        last, once it has been waited for."""
        lines, ended = queue.Queue(), threading.Event()
        self.ended[pid] = ended

        def follow(path):
            with open(path, "rb") as file:
                pending, done = b"", False
                while not done:
                    done = ended.is_set()  # then one last read takes all it printed
                    chunk = file.read()
                    *complete, pending = (pending + chunk).split(b"\n")
                    for line in complete:
                        lines.put(line.decode(errors="replace").strip())
                    if not chunk and not done:
                        time.sleep(0.01)
            if pending:
                lines.put(pending.decode(errors="replace").strip())
            lines.put(None)
        threading.Thread(target=follow, args=(self.running[pid][1],), daemon=True).start()
        return lines

    def _ask(self, request, timeout):
        self.server.stdin.write((json.dumps(request) + "\n").encode())
        self.server.stdin.flush()
        return self._reply(timeout)

    def _reply(self, timeout):
        """The server's next line, as a dict (TimeoutExpired if none within ``timeout``)."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.server.stdout], [], [], left)[0]:
                raise subprocess.TimeoutExpired("forked program", timeout)
            chunk = os.read(self.server.stdout.fileno(), 4096)
            if not chunk:
                log = (self.folder / "server.log").read_text(errors="replace")
                raise RuntimeError(f"the program server ended:\n{log[-3000:]}")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        for pid in list(self.running):  # started by a test that failed before waiting
            self.stop(pid)
        if self.server is not None:
            self.server.stdin.close()
            self.server.wait(60)
            self.server.stdout.close()
            shutil.rmtree(self.folder, ignore_errors=True)
            self.server = None


def _serve():
    """Start: fork, answer with the child's pid; wait: answer with its exit code.  In the
    child, return the request (the program then runs at the top level of this script)."""
    for module in PRELOAD:
        __import__(module)
    gc.freeze()  # the children's collections leave the server's objects (and pages) alone
    for line in sys.stdin:
        request = json.loads(line)
        if "wait" in request:
            _, status = os.waitpid(request["wait"], 0)
            print(json.dumps({"status": os.waitstatus_to_exitcode(status)}), flush=True)
            continue
        pid = os.fork()
        if pid == 0:
            return request["start"]
        print(json.dumps({"pid": pid}), flush=True)
    sys.exit(0)


def _become(request):
    """In the child: the program's stdin, stdout, stderr, folder, environment and argv; its
    ``__main__`` module and code."""
    for fd, path, flags in ((0, os.devnull, os.O_RDONLY),
                            (1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                            (2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
        if fd == 2 and path == request["stdout"]:
            os.dup2(1, 2)  # 2>&1
            continue
        opened = os.open(path, flags, 0o600)
        os.dup2(opened, fd)
        os.close(opened)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the program's stdin, for its lifetime
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    threads = os.environ.get("OMP_NUM_THREADS", "")
    if threads.isdigit() and int(threads) > 0:  # what torch reads when a program starts
        sys.modules["torch"].set_num_threads(int(threads))
    argv = request["argv"]
    main = type(sys)("__main__")
    if argv[0] == "-c":
        sys.argv, sys.path[0], source, name = ["-c", *argv[2:]], "", argv[1], "<string>"
    else:
        path = os.path.abspath(argv[0])
        sys.argv, sys.path[0], name = list(argv), os.path.dirname(path), argv[0]
        with open(path, "rb") as file:
            source = file.read()
        main.__file__ = argv[0]
    sys.modules["__main__"] = main
    return compile(source, name, "exec"), main.__dict__


if __name__ == "__main__":
    _program, _globals = _become(_serve())
    del _serve, _become
    exec(_program, _globals)  # noqa: S102 - the program the test asked to run
