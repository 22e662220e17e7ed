"""Ctrl-C and run deadlines while a run is inside Lua (the runtime's calls into Lua go through
:class:`Interrupts`).

A count hook (every :data:`HOOK_COUNT` Lua instructions, set once by the host, out of bodies'
reach) calls into Python, where a SIGINT handler chained to the previous one (installed only
while the main thread runs Lua) has kept the KeyboardInterrupt it raised; the hook raises it
again until the run leaves Lua, and the runtime's callers raise it: a step is interrupted
between two Lua instructions or Python calls, and what ran before keeps its effect, as for any
failing op.  Under LuaJIT, whose compiled traces skip hooks, bodies run interpreted.
The bookkeeping around calls into Lua keeps no counter an interrupt could leave wrong (see
:class:`~tinyflow.lua_ops.interrupts.Interrupts`): after a Ctrl-C at any instruction the next run works.  One thread runs
Lua at a time (a lock another thread waits for, interruptibly); another thread's step stops
with KeyboardInterrupt when the main thread gets Ctrl-C inside TinyFlow (waiting for that
lock, say) or exits, and any thread's with DeadlineExceededError after its run's timeout
(:func:`run_deadline`, TF's ``RunOptions.timeout_in_ms``).  A Python step (a ``tf.py_func``
read by other ops) runs outside Lua, so it may wait for another thread's run.
"""
from __future__ import annotations

import _signal
import contextlib
import functools
import signal
import sys
import threading
import time

from ..nnvm.errors import DeadlineExceededError

__all__ = ["Guard", "Interrupts"]


class Interrupts:
    """Ctrl-C and run deadlines while a run is inside Lua.

    While the main thread runs Lua (:meth:`guard`), SIGINT goes to a handler that calls the
    previous one (Python's raises KeyboardInterrupt) and keeps what it raised as ``pending``.
    The runtime's count hook calls :meth:`check` every ``HOOK_COUNT`` Lua instructions, which
    lets Python run that handler and raises ``pending`` again, so neither a pure-Lua loop nor a
    body's own pcall keeps it from reaching the runtime's caller, which raises it.  Another
    thread's hook stops its step on a Ctrl-C the main thread got meanwhile, or once its run's
    deadline (:meth:`deadline`) has passed.

    Robust by design against an interrupt at any instruction: no counter is kept.  Whether the
    main thread is nested is whether our handler is installed; whether a thread is inside Lua
    is whether a caller of Lua is on its stack (:meth:`is_inside`); and the handler only keeps
    an interrupt landing in this bookkeeping (``bookkeeping``), raised where the run
    checks for it, so enter and leave always run to their end.
    """

    def __init__(self, callers, bookkeeping):
        self.callers = callers  # code of the runtime's functions calling into Lua
        # where a SIGINT is only kept: the runtime's bookkeeping and this class's own
        self.bookkeeping = bookkeeping | frozenset(f.__code__ for f in (
            Interrupts.enter, Interrupts.leave, Interrupts._restore, Interrupts._wait,
            Interrupts.raise_if_interrupt, Interrupts.is_interrupt, Guard.__enter__,
            Guard.__exit__))
        self.main = threading.main_thread().ident
        self.pending = None     # what the chained SIGINT handler raised during this run
        self.sigints = 0        # SIGINTs the main thread got inside TinyFlow: stops workers too
        self.local = threading.local()  # .since, .stop, .deadline of this thread's run
        self.lock = threading.RLock()   # one thread in Lua; waited for interruptibly
        self.collect = None     # a full collection asked for from inside Lua: run on leaving
        self.chained = None     # our SIGINT handler, chained to the previous one

    def check(self):
        """The Lua hook's call: raise the pending interrupt (main thread), or this thread's
        reason to stop (a deadline passed, Ctrl-C in the main thread)."""
        if self.pending is not None and threading.get_ident() == self.main:
            if _signal.getsignal(signal.SIGINT) is self.chained:
                raise self.pending
            self.pending = None  # left by an interrupt just after a run put its handler back
        local = self.local
        stop = getattr(local, "stop", None) or self._stop_reason(local)
        if stop is not None:
            local.stop = stop
            raise stop

    def _stop_reason(self, local):
        deadline = getattr(local, "deadline", None)
        if deadline is not None and time.monotonic() > deadline[0]:
            return DeadlineExceededError(None, None, f"the run took longer than its timeout "
                                                     f"of {deadline[1]} ms (timeout_in_ms)")
        if threading.get_ident() != self.main and (
                getattr(local, "since", self.sigints) != self.sigints
                or not threading.main_thread().is_alive()):
            return KeyboardInterrupt("Ctrl-C in the main thread stopped this thread's run")
        return None

    def is_interrupt(self, err) -> bool:
        """Whether a Lua error ``err`` is an interrupt (a BaseException such as
        KeyboardInterrupt or SystemExit, not an Exception; or this thread's reason to stop)."""
        return (self.pending is not None and threading.get_ident() == self.main) or (
            isinstance(err, BaseException) and not isinstance(err, Exception)) or (
            getattr(self.local, "stop", None) is not None)

    def raise_if_interrupt(self, err=None) -> None:
        """Raise the interrupt behind a failed call into Lua, if it was one, or one Ctrl-C
        pressed during a call that succeeded (some code swallowed it: it is not lost)."""
        if self.is_interrupt(err):
            if self.pending is not None and threading.get_ident() == self.main:
                raise self.pending
            raise getattr(self.local, "stop", None) or err

    def guard(self):
        """Around a call into Lua (a context manager).  On the main thread (the one Python
        runs handlers on), the outermost call installs our SIGINT handler chained to the
        previous one, when that is a Python function (SIG_IGN and SIG_DFL are left alone),
        and puts it back after."""
        return Guard(self)

    @contextlib.contextmanager
    def deadline(self, timeout_ms):
        """This thread's runs inside the block stop with DeadlineExceededError once
        ``timeout_ms`` milliseconds have passed (none when 0 or None)."""
        local = self.local
        local.deadline = (time.monotonic() + timeout_ms / 1000, timeout_ms) \
            if timeout_ms else None
        try:
            yield
        finally:
            local.deadline = None

    def enter(self):
        """:meth:`guard`'s entering; returns what :meth:`leave` takes.  The handler goes in
        first: from then on an interrupt here is only kept, so the lock taken is given back."""
        if threading.get_ident() != self.main:
            self.local.stop, self.local.since = None, self.sigints
            if not self.lock.acquire(False):
                self._wait()
            return None
        # _signal, not signal: the latter's enum conversions cost ~8 us a run
        previous = _signal.getsignal(signal.SIGINT)
        if previous is self.chained and previous is not None:
            previous = None  # nested: the outermost call installed it
        else:
            self.pending = self.local.stop = None
            if callable(previous):
                if self.chained is None or self.chained.args[0] is not previous:
                    self.chained = functools.partial(self._on_sigint, previous)
                _signal.signal(signal.SIGINT, self.chained)
        if not self.lock.acquire(False):
            try:
                self._wait()
            except BaseException:
                self._restore(previous)
                raise
        return previous

    def _wait(self):
        """Wait for another thread's call into Lua; Ctrl-C or this run's deadline end the
        wait (and a Ctrl-C stops that thread's step too)."""
        while not self.lock.acquire(timeout=0.05):
            if self.pending is not None and threading.get_ident() == self.main:
                raise self.pending
            stop = self._stop_reason(self.local)
            if stop is not None:
                raise stop

    def leave(self, previous) -> None:
        """:meth:`guard`'s leaving: the lock given back, a collection asked for run, the
        handler put back, and a Ctrl-C kept meanwhile raised."""
        self.lock.release()
        for _ in range(3):  # a collection's finalizers may ask for another
            if self.collect is None or self.lua_depth() > 1:
                break
            collect, self.collect = self.collect, None
            collect()
        if previous is not None:  # the main thread's outermost call
            self._restore(previous)

    def _restore(self, previous):
        if previous is None:
            return
        if callable(previous):  # first: from here on, no interrupt is kept, all are raised
            _signal.signal(signal.SIGINT, previous)
        pending, self.pending = self.pending, None
        if pending is not None:
            raise pending

    def is_inside(self) -> bool:
        """Whether this thread is inside a call into Lua (a finalizer run by Python's collector
        during a step, say): Lua's collector must not run re-entrantly then."""
        return self.lua_depth() > 0

    def lua_depth(self) -> int:
        """How many of the runtime's callers of Lua are on this thread's stack: derived from
        the stack, so no interrupt can leave it wrong (only walked when a collection is asked
        for, not every step)."""
        depth, frame = 0, sys._getframe(1)
        while frame is not None:
            depth += frame.f_code in self.callers
            frame = frame.f_back
        return depth

    def _on_sigint(self, previous, signum, frame):
        try:
            previous(signum, frame)
        except BaseException as exc:
            self.pending = exc
            self.sigints += 1
            if frame is None or frame.f_code not in self.bookkeeping:
                raise


class Guard:
    """:meth:`Interrupts.guard`: a class, not a generator, so an interrupt landing in its
    ``__enter__`` / ``__exit__`` is kept like one in enter / leave."""

    __slots__ = ("interrupts", "previous")

    def __init__(self, interrupts):
        self.interrupts = interrupts

    def __enter__(self):
        self.previous = self.interrupts.enter()

    def __exit__(self, *exc):
        self.interrupts.leave(self.previous)
