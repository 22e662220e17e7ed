"""Ctrl-C at any instruction leaves TinyFlow working (issue 23): an interrupt in the runtime's
bookkeeping around calls into Lua, a storm of SIGINTs during tiny runs, bodies Ctrl-C could not
stop (finalizers, xpcall handlers, pathological patterns, looping ``__tostring``), worker
threads, run timeouts and py_func waiting for another thread's run."""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import weakref

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.lua_ops import runtime

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _tiny_run():
    with tf.Session() as sess:
        return sess.run(tf.tanh(tf.constant(np.ones(3, np.float32))) + 1.0)


def _runtime_works():
    """A clean run works, from this thread and another; no stale state is left."""
    interrupts = runtime._runtime().interrupts
    try:
        np.testing.assert_allclose(_tiny_run(), np.tanh(1.0) + 1.0, rtol=1e-6)
    except KeyboardInterrupt:
        pytest.fail("a run after the interrupt raised KeyboardInterrupt")
    done = []
    worker = threading.Thread(target=lambda: done.append(_tiny_run()))
    worker.start()
    worker.join(10)
    assert done, "another thread could not run (the runtime's lock was left held)"
    assert not interrupts.is_inside()
    assert interrupts.pending is None and interrupts.collect is None
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _runtime_lines(frame):
    return frame.f_code.co_filename == runtime.__file__


def _interrupt_at(line_number):
    """A tracer delivering SIGINT as CPython does (the handler installed now, called with the
    frame) at the ``line_number``-th line or return the runtime runs (a return: after the
    function's last instruction, before its caller gets the value); returns the count seen."""
    seen = [0]

    def local(frame, event, arg):
        if event in ("line", "return"):
            seen[0] += 1
            if seen[0] == line_number:
                signal.getsignal(signal.SIGINT)(signal.SIGINT, frame)
        return local

    def tracer(frame, event, arg):
        return local if _runtime_lines(frame) else None
    return tracer, seen


def test_an_interrupt_at_any_line_of_the_runtime_leaves_it_working():
    _tiny_run()  # compiled, runtime made
    tracer, seen = _interrupt_at(0)
    sys.settrace(tracer)
    try:
        _tiny_run()
    finally:
        sys.settrace(None)
    total = seen[0]
    assert total > 50
    outcomes = set()
    for line_number in range(1, total + 1):
        tracer, _ = _interrupt_at(line_number)
        sys.settrace(tracer)
        try:
            _tiny_run()
            outcomes.add("ran")
        except KeyboardInterrupt:
            outcomes.add("interrupted")
        finally:
            sys.settrace(None)
        _runtime_works()
    assert outcomes == {"interrupted"}, "a Ctrl-C pressed during a run was lost"


def test_closed_sessions_give_their_memory_back_after_interrupts():
    for line_number in range(1, 200, 7):
        tracer, _ = _interrupt_at(line_number)
        sys.settrace(tracer)
        try:
            _tiny_run()
        except KeyboardInterrupt:
            pass
        finally:
            sys.settrace(None)
    try:
        with tf.Session() as sess:
            v = tf.Variable(tf.zeros([300, 300]))
            sess.run(v.initializer)
            ref = weakref.ref(sess.variable_store[v.node])
    except KeyboardInterrupt:
        pytest.fail("a run after the interrupts raised KeyboardInterrupt")
    assert ref() is None, "a closed session kept its tensors (Lua's collection deferred)"


def _child(code, timeout=120):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [os.path.dirname(os.path.dirname(tf.__file__)), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, check=False, env=env)


def test_a_storm_of_sigints_during_tiny_runs_leaves_the_runtime_working():
    code = """
        import random, signal, threading, time, weakref
        import numpy as np
        import tinyflow as tf
        from tinyflow.lua_ops import runtime

        def tiny():
            with tf.Session() as sess:
                return sess.run(tf.tanh(tf.constant(np.ones(3, np.float32))) + 1.0)

        tiny()
        go, stop, main = threading.Event(), threading.Event(), threading.main_thread().ident
        def storm():
            go.wait()
            while not stop.is_set():
                time.sleep(random.uniform(0.0001, 0.003))
                signal.pthread_kill(main, signal.SIGINT)
        sender = threading.Thread(target=storm)
        end, interrupted = time.monotonic() + 4, 0
        sender.start()
        while time.monotonic() < end:
            try:
                try:
                    go.set()
                    tiny()
                except KeyboardInterrupt:
                    interrupted += 1
            except KeyboardInterrupt:
                pass
        while True:
            try:
                stop.set(); sender.join(); time.sleep(0.05)
                break
            except KeyboardInterrupt:
                pass
        interrupts = runtime._runtime().interrupts
        assert interrupted > 10, interrupted
        assert tiny()[0] > 1.7
        assert not interrupts.is_inside() and interrupts.pending is None
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        done = []
        worker = threading.Thread(target=lambda: done.append(tiny()))
        worker.start(); worker.join(10)
        assert done, "the lock was left held"
        with tf.Session() as sess:
            v = tf.Variable(tf.zeros([300, 300]))
            sess.run(v.initializer)
            ref = weakref.ref(sess.variable_store[v.node])
        assert ref() is None, "a closed session kept its tensors"
        print("ok", interrupted)
        """
    result = _child(code)
    assert result.stdout.startswith("ok"), result.stdout + result.stderr[-3000:]
