"""``tf.train.Coordinator``, ``tf.train.QueueRunner``, ``add_queue_runner`` and
``start_queue_runners`` (TensorFlow 1.15's semantics): threads that run a queue's enqueue ops
with their own ``sess.run`` calls until the queue is closed, the coordinator asks them to
stop, or the session closes.

The threads are daemon threads (TF's ``start_queue_runners`` default, here always): a program
that forgets ``coord.join`` still exits, and no wait of theirs outlives the session (a
queue's waits end when its session closes: tinyflow/frontend/queues.py).
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time

from ..nnvm.errors import CancelledError, OutOfRangeError
from ..nnvm.symbol import current_context, get_default_session
from .framework import GraphKeys

__all__ = ["Coordinator", "LooperThread", "QueueRunner", "add_queue_runner",
           "start_queue_runners"]


class Coordinator:
    """Stops a set of threads together: ``request_stop()`` (from any thread, with the
    exception that made it stop), ``should_stop()``, and ``join(threads)``, which waits for
    them and re-raises the first exception reported (an exception of
    ``clean_stop_exception_types``, ``OutOfRangeError`` by default, is a clean stop)."""

    def __init__(self, clean_stop_exception_types=None):
        self._clean = tuple(clean_stop_exception_types if clean_stop_exception_types
                            is not None else (OutOfRangeError,))
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._registered_threads = set()
        self._joined = False

    def request_stop(self, ex=None) -> None:
        """Ask the threads to stop; ``ex`` (an exception or ``sys.exc_info()``) is re-raised
        by :meth:`join` unless it is a clean stop."""
        with self._lock:
            if isinstance(ex, tuple):
                ex = ex[1]
            if ex is not None and not isinstance(ex, self._clean) and \
                    self._exc_info_to_raise is None:
                self._exc_info_to_raise = ex
            self._stop_event.set()

    def clear_stop(self) -> None:
        """Forget the stop request and the exception (the threads can run again)."""
        with self._lock:
            self._joined, self._exc_info_to_raise = False, None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        """Whether a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """``with coord.stop_on_exception():`` an exception inside requests a stop with it."""
        try:
            yield
        except Exception as ex:  # noqa: BLE001 - reported to the coordinator, as TF does
            self.request_stop(ex)

    def wait_for_stop(self, timeout=None) -> bool:
        """Wait until a stop is requested (or ``timeout`` seconds); whether it was."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread) -> None:
        """A thread :meth:`join` waits for too."""
        with self._lock:
            self._registered_threads.add(thread)

    @property
    def joined(self) -> bool:
        return self._joined

    def raise_requested_exception(self) -> None:
        """Raise the exception given to :meth:`request_stop`, if any."""
        with self._lock:
            if self._exc_info_to_raise is not None:
                raise self._exc_info_to_raise

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Wait until the threads (``threads`` and the registered ones) end or a stop is
        requested; then give them ``stop_grace_period_secs`` to end.  Re-raises the exception
        a thread reported; a thread still running after the grace period is a
        ``RuntimeError`` unless ``ignore_live_threads``."""
        with self._lock:
            threads = set(self._registered_threads) | set(threads or ())
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(0.1):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
            time.sleep(0.01)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise is not None:
                raise self._exc_info_to_raise
        if stragglers and not ignore_live_threads:
            raise RuntimeError(f"Coordinator stopped with threads still running: "
                               f"{' '.join(stragglers)}")


class LooperThread(threading.Thread):
    """A daemon thread calling :meth:`run_loop` (``target(*args, **kwargs)``) at once and then
    every ``timer_interval_secs`` (back to back when None) until ``coord`` is asked to stop;
    registered with ``coord``, which its exceptions stop (TensorFlow's ``LooperThread``)."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")  # noqa: TRY004 - TF's
        if target is None and (args or kwargs):
            raise ValueError("'args' and 'kwargs' argument require that you also pass "
                             "'target'")
        super().__init__(daemon=True)
        self._coord, self._interval = coord, timer_interval_secs
        self._target, self._args, self._kwargs = target, args or (), kwargs or {}
        coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        """A started LooperThread calling ``target``."""
        looper = LooperThread(coord, timer_interval_secs, target, args, kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._interval is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                due = time.time()
                while not self._coord.wait_for_stop(max(0.0, due - time.time())):
                    due += self._interval
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once in the thread before the first :meth:`run_loop`."""

    def stop_loop(self):
        """Called once in the thread after the last :meth:`run_loop`."""

    def run_loop(self):
        """One turn: ``target(*args, **kwargs)``."""
        if self._target is not None:
            self._target(*self._args, **self._kwargs)


class QueueRunner:
    """Threads running ``enqueue_ops`` (each in a thread of its own) again and again; when
    the queue is closed under them (OutOfRangeError or CancelledError: an input ran out) the
    last thread runs ``close_op`` (default ``queue.close()``), so consumers see the end.  With a
    coordinator, a stop request runs ``cancel_op`` (default ``queue.close(True)``)."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        if queue_runner_def is not None:
            raise ValueError("QueueRunner(queue_runner_def=...) (a QueueRunnerDef proto) is "
                             "not supported by TinyFlow")
        if queue is None or not enqueue_ops:
            raise ValueError("QueueRunner needs a queue and a list of enqueue ops")
        self._queue, self._enqueue_ops = queue, list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(True)
        self._closed_types = tuple(queue_closed_exception_types or
                                   (OutOfRangeError, CancelledError))
        self._lock = threading.Lock()
        self._runs_per_session = {}  # id(session) -> enqueue threads still running
        self._exceptions_raised = []

    queue = property(lambda self: self._queue)
    enqueue_ops = property(lambda self: list(self._enqueue_ops))
    close_op = property(lambda self: self._close_op)
    cancel_op = property(lambda self: self._cancel_op)
    exceptions_raised = property(lambda self: list(self._exceptions_raised),
                                 doc="Exceptions the threads raised (without a coordinator).")
    name = property(lambda self: self._queue.name)

    def create_threads(self, sess, coord=None, daemon=False, start=False) -> list:
        """The threads for ``sess`` (daemon threads whatever ``daemon`` says: see the module
        docstring), started when ``start``; registered with ``coord``."""
        with self._lock:
            if self._runs_per_session.get(id(sess), 0) > 0:
                return []  # already running in this session, as in TensorFlow
            self._runs_per_session[id(sess)] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord), daemon=True,
                                    name=f"QueueRunner-{self.name}-{i}")
                   for i, op in enumerate(self._enqueue_ops)]
        if coord is not None:
            threads.append(threading.Thread(target=self._close_on_stop, daemon=True,
                                            args=(sess, coord), name=f"QueueRunner-{self.name}"
                                            "-cancel"))
        for thread in threads:
            if coord is not None:
                coord.register_thread(thread)
            if start:
                thread.start()
        return threads

    def _run(self, sess, enqueue_op, coord) -> None:
        try:
            while not (coord is not None and coord.should_stop()) and not _closed(sess):
                try:
                    sess.run(enqueue_op)
                except self._closed_types:
                    self._last_closes(sess)
                    return
        except Exception as ex:  # noqa: BLE001 - reported, as TensorFlow's runner does
            if _closed(sess) or (coord is not None and coord.should_stop()):
                return  # the session closed, or a stop cancelled the enqueue: not an error
            if coord is not None:
                coord.request_stop(ex)
            else:
                self._exceptions_raised.append(ex)
                print(f"QueueRunner {self.name}: {type(ex).__name__}: {ex}", file=sys.stderr)
        finally:
            with self._lock:
                self._runs_per_session[id(sess)] = max(
                    0, self._runs_per_session.get(id(sess), 0) - 1)

    def _last_closes(self, sess) -> None:
        with self._lock:
            last = self._runs_per_session.get(id(sess), 0) <= 1
        if last:
            with contextlib.suppress(Exception):  # the session may be closing: ignored, as TF
                sess.run(self._close_op)

    def _close_on_stop(self, sess, coord) -> None:
        while not coord.wait_for_stop(0.1):
            if _closed(sess):
                return
        with contextlib.suppress(Exception):  # the session may be closed already
            sess.run(self._cancel_op)


def _closed(sess) -> bool:
    return bool(getattr(sess, "closed", False))


def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS) -> None:
    """Add ``qr`` to the graph's collection of queue runners (``start_queue_runners`` starts
    them)."""
    current_context().add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection=GraphKeys.QUEUE_RUNNERS) -> list:
    """Start the threads of every queue runner of the graph's ``collection`` in ``sess``
    (default: the default session); returns them."""
    sess = sess if sess is not None else get_default_session()
    if sess is None:
        raise ValueError("Cannot start queue runners: No default session is registered. Use "
                         "`with sess.as_default()` or pass an explicit session to "
                         "tf.start_queue_runners(sess=sess)")
    graph = getattr(sess, "graph", None) or current_context()
    threads = []
    for runner in graph.get_collection(collection):
        threads.extend(runner.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
