"""Fixtures the test modules share.

``fresh_graph`` and ``torch_seed`` are not autouse: a module asks for them with
``pytestmark = pytest.mark.usefixtures(...)``, so modules that never reset the graph still do not.
A test that takes a ``config`` argument runs on every device (the GPU case skips without CUDA);
one that takes ``plan_memory`` runs with memory planning on and off.  ``programs`` runs Python
programs (examples, docs pages) each in its own process, forked from one that imported torch and
tinyflow once (tests/forked_programs.py says how that differs from a fresh interpreter).
"""
from pathlib import Path

import pytest
import torch
from forked_programs import ForkedPrograms

import tinyflow as tf

# This process computes on one torch thread.  The tests' tensors are small, and where another
# process holds one of the two cores a team of two threads waits at every op for the one the
# scheduler does not run: check_gradients fixes the count (finite differences must see one
# function), so each of its hundreds of runs waits (the conv2d gradient cases: 191 s against 5 s
# on one thread on a loaded machine).  Tests of thread counts set theirs (test_cpu_threads); the
# programs tests start keep torch's own count unless their environment sets OMP_NUM_THREADS.
torch.set_num_threads(1)


@pytest.fixture
def fresh_graph():
    """A new default graph (and name counters, pending initialisers) for each test."""
    tf.reset_default_graph()


@pytest.fixture
def torch_seed():
    """The same torch random stream for each test, for modules comparing against torch: the
    CPU generator's and, with CUDA, the GPUs' (``torch.manual_seed`` also queues a seeding for
    each lazy device, formatting the caller's stack: 2 ms under pytest, a tenth of a test)."""
    torch.default_generator.manual_seed(0)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(0)


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs CUDA"))])
def config(request):
    """The Session config (device) a test runs on."""
    return request.param


@pytest.fixture(params=[True, False], ids=["planned", "unplanned"])
def plan_memory(request):
    """Whether the session plans memory (shares storage) or gives each entry its own."""
    return request.param


@pytest.fixture(scope="session")
def programs():
    """``programs.run([sys.executable, script, *args], env=, cwd=, timeout=)``: a
    ``subprocess.CompletedProcess`` with the program's output, without its imports' second."""
    runner = ForkedPrograms(Path(__file__).resolve().parent.parent)
    yield runner
    runner.close()
