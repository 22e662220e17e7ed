"""Native kernels: a C file beside a family's kernels, compiled once per machine with the
system's C compiler and loaded with ctypes, for the few CPU kernels torch does slowly (its max
pooling goes through a generic window loop: 2-4x slower than the same result computed eight
channels at a time).

Nothing here is required: without a compiler (or with ``TINYFLOW_NATIVE=0``) ``load`` returns
None and the kernels keep torch's, which compute the same values.  The shared object lives in
``$TINYFLOW_CACHE_DIR/native`` (default ``~/.cache/tinyflow/native``), named by a hash of the
source, the compiler, its flags and this CPU, so an edited source or another machine sharing
the folder compiles again; it is written under a temporary name and renamed, so processes
compiling at once each load a whole file.  Only engine kernels call these functions (a user
body cannot reach them), after checking every size, layout and dtype the C code relies on.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["load"]

_FLAGS = ("-O3", "-march=native", "-shared", "-fPIC", "-std=c11")
_COMPILE_TIMEOUT_S = 60


def load(source: str | os.PathLike) -> ctypes.CDLL | None:
    """The C file ``source`` compiled and loaded, or None where it cannot be (no compiler, a
    failed build, ``TINYFLOW_NATIVE=0``); built once per machine, loaded once per process."""
    if os.environ.get("TINYFLOW_NATIVE", "1") == "0":
        return None
    return _library(Path(source))


@functools.cache
def _library(source: Path) -> ctypes.CDLL | None:
    compiler = shutil.which(os.environ.get("CC", "cc"))
    built = _compile(source, compiler) if compiler is not None else None
    try:
        return ctypes.CDLL(str(built)) if built is not None else None
    except OSError:
        return None


def _cpu_identity() -> str:
    # -march=native code runs only on CPUs with these features: part of the object's name
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.processor()
    return next((line for line in lines if line.startswith(("flags", "Features"))), "")


def _cache_dir() -> Path:
    folder = os.environ.get("TINYFLOW_CACHE_DIR") or Path.home() / ".cache" / "tinyflow"
    return Path(folder) / "native"


def _compile(source: Path, compiler: str) -> Path | None:
    key = hashlib.sha256(b"\0".join([
        source.read_bytes(), compiler.encode(), " ".join(_FLAGS).encode(),
        platform.machine().encode(), _cpu_identity().encode()])).hexdigest()[:16]
    target = _cache_dir() / f"{source.stem}-{key}.so"
    if target.exists():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(suffix=".so", dir=target.parent)
        os.close(handle)
    except OSError:
        return None
    try:
        done = subprocess.run([compiler, *_FLAGS, "-o", partial, str(source)],
                              check=False, capture_output=True, timeout=_COMPILE_TIMEOUT_S)
        if done.returncode != 0:
            return None
        os.replace(partial, target)
        return target
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
