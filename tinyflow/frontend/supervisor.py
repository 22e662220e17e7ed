"""``tf.train.Supervisor``, ``tf.train.SessionManager`` and ``tf.train.basic_train_loop``
(TensorFlow 1.15, where they are deprecated in favour of ``MonitoredTrainingSession`` but still
in many TF-1 programs):

    sv = tf.train.Supervisor(logdir="/tmp/run")
    with sv.managed_session() as sess:
        while not sv.should_stop():
            sess.run(train_op)

The :class:`SessionManager` makes the session: the latest checkpoint of ``logdir`` restored,
else ``init_op`` run (``tf.global_variables_initializer()`` by default) and ``init_fn``; then
``local_init_op``; then ``ready_op``, when one is given, must report nothing uninitialised.
With a ``logdir``, :meth:`Supervisor.managed_session` starts TF's standard services, threads
beside the training loop (each a ``tf.train.LooperThread`` run at once, then every interval):
a checkpoint every ``save_model_secs`` (600) to ``logdir/model.ckpt-<global step>``,
``summary_op`` (``tf.summary.merge_all()``) every ``save_summaries_secs`` (120) and the global
step's rate (``global_step/sec``) into the event file; the graph's queue runners start too.
An exception in the ``with`` block (or in a service) stops them all and is raised once they
stopped and the session closed; ``tf.errors.OutOfRangeError`` (input exhausted) ends it quietly.

TinyFlow runs in one process: ``master`` must be ``''`` and ``is_chief`` True; no default
``ready_op`` is made (TensorFlow's is ``report_uninitialized_variables()``): a session's
variables here are initialised by the init op or the restore, or the run names them.
"""
from __future__ import annotations

import contextlib
import os
import time

import numpy as np

from ..nnvm.errors import AbortedError, DeadlineExceededError
from ..nnvm.symbol import current_context
from . import summary as summary_lib
from .api import global_variables, global_variables_initializer
from .events import proto, summary_value
from .framework import GraphKeys
from .monitored_session import Scaffold, _check_master
from .queue_runner import Coordinator, LooperThread
from .saver import Saver, get_checkpoint_state
from .tf_logging import info, warning
from .train import global_step as step_of

__all__ = ["SessionManager", "Supervisor", "basic_train_loop"]


class SessionManager:
    """Makes sessions whose model is restored from a checkpoint or initialised, then checked
    ready (TensorFlow 1.15's; ``ready_op`` a tensor listing what is not ready, empty when all
    is)."""

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None,
                 graph=None, recovery_wait_secs=30, local_init_run_options=None,
                 local_init_feed_dict=None):
        self._graph = graph or current_context()
        self._local_init_op, self._ready_op = local_init_op, ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_options = local_init_run_options
        self._local_init_feed_dict = local_init_feed_dict

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                        max_wait_secs=7200, config=None, init_feed_dict=None, init_fn=None):
        """A session whose model is restored (``checkpoint_dir``'s latest checkpoint, or
        ``checkpoint_filename_with_path``) or else initialised by ``init_op`` then
        ``init_fn(sess)``; the local init op runs either way.  RuntimeError when nothing
        could initialise it, or ``ready_op`` reports something uninitialised."""
        sess, restored = self._restore(master, saver, checkpoint_dir,
                                       checkpoint_filename_with_path, wait_for_checkpoint,
                                       max_wait_secs, config)
        if not restored:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or "
                                   "local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        ready, message = self._run_local_init(sess)
        if not ready:
            raise RuntimeError(f"Init operations did not make model ready for local_init.  "
                               f"Init op: {_name(init_op)}, init fn: {init_fn}, error: "
                               f"{message}")
        ready, message = self._ready(sess, self._ready_op)
        if not ready:
            raise RuntimeError(f"Init operations did not make model ready.  Init op: "
                               f"{_name(init_op)}, init fn: {init_fn}, local_init_op: "
                               f"{_name(self._local_init_op)}, error: {message}")
        return sess

    def recover_session(self, master, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                        max_wait_secs=7200, config=None):
        """``(session, recovered)``: the session, and whether a checkpoint was restored and
        the model is ready (else it still needs initialising)."""
        sess, restored = self._restore(master, saver, checkpoint_dir,
                                       checkpoint_filename_with_path, wait_for_checkpoint,
                                       max_wait_secs, config)
        local_ready, message = self._run_local_init(sess)
        if not restored:
            return sess, False
        if not local_ready:
            info("Restoring model from %s did not make model ready for local init: %s",
                 checkpoint_dir or checkpoint_filename_with_path, message)
            return sess, False
        ready, message = self._ready(sess, self._ready_op)
        if not ready:
            info("Restoring model from %s did not make model ready: %s",
                 checkpoint_dir or checkpoint_filename_with_path, message)
        return sess, ready

    def wait_for_session(self, master, config=None, max_wait_secs=float("inf")):
        """A session whose model is ready.  TensorFlow's waits for a chief to initialise the
        model on the cluster; here nothing else can (one process, each session its own
        variables): DeadlineExceededError when it is not ready at once."""
        _check_master(master)
        from ..session.session import Session  # imports torch: only when a session is made

        sess = Session(config=config, graph=self._graph)
        ready, message = self._run_local_init(sess)
        if ready:
            ready, message = self._ready(sess, self._ready_op)
        if not ready:
            sess.close()
            raise DeadlineExceededError(f"Session was not ready ({message}); TinyFlow has no "
                                        f"chief that could initialise it: use prepare_session")
        return sess

    def _restore(self, master, saver, checkpoint_dir, path, wait, max_wait_secs, config):
        _check_master(master)
        if checkpoint_dir and path:
            raise ValueError("Can not provide both checkpoint_dir and "
                             "checkpoint_filename_with_path.")
        from ..session.session import Session  # imports torch: only when a session is made

        sess = Session(config=config, graph=self._graph)
        if not saver or not (checkpoint_dir or path):
            return sess, False
        if path:
            saver.restore(sess, path)
            return sess, True
        state, waited = get_checkpoint_state(checkpoint_dir), 0.0
        while not state or not state.model_checkpoint_path:
            if not wait or waited >= max_wait_secs:
                return sess, False
            info("Waiting for checkpoint to be available.")
            time.sleep(self._recovery_wait_secs)
            waited += self._recovery_wait_secs
            state = get_checkpoint_state(checkpoint_dir)
        saver.restore(sess, state.model_checkpoint_path)
        saver.recover_last_checkpoints(state.all_model_checkpoint_paths)
        return sess, True

    def _run_local_init(self, sess):
        if self._local_init_op is None:
            return True, None
        ready, message = self._ready(sess, self._ready_for_local_init_op)
        if not ready:
            return False, message
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict,
                 options=self._local_init_options)
        return True, None

    @staticmethod
    def _ready(sess, ready_op):
        """``(ready, message)``: ``ready_op`` (a tensor of what is not ready) came out empty."""
        if ready_op is None:
            return True, None
        left = np.asarray(sess.run(ready_op)).ravel()
        if left.size == 0:
            return True, None
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in left]
        return False, f"Variables not initialized: {', '.join(names)}"


def _name(op):
    return None if op is None else getattr(op, "name", op)


class Supervisor:
    """TF-1's training helper: see the module's docstring.  The ops not given are taken from
    their graph collections (``INIT_OP``, ``LOCAL_INIT_OP``, ``SAVERS``, ``SUMMARY_OP``,
    ``GLOBAL_STEP``, ``READY_OP``) or made there, as TensorFlow's; ``None`` turns one off.  The
    graph becomes read-only."""

    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT,
                 is_chief=True, init_op=USE_DEFAULT, init_feed_dict=None,
                 local_init_op=USE_DEFAULT, logdir=None, summary_op=USE_DEFAULT,
                 saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120,
                 checkpoint_basename="model.ckpt", session_manager=None,
                 summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        if not is_chief:
            raise ValueError("Supervisor(is_chief=False) waits for the chief of a TensorFlow "
                             "cluster, which TinyFlow (one process) does not have")
        self._graph = graph = graph or current_context()
        default = Supervisor.USE_DEFAULT
        with graph.as_default():
            self._ready_op = _first(GraphKeys.READY_OP) if ready_op is default else ready_op
            self._ready_for_local_init_op = (_first(GraphKeys.READY_FOR_LOCAL_INIT_OP)
                                             if ready_for_local_init_op is default
                                             else ready_for_local_init_op)
            self._init_op = (_first_or_made(GraphKeys.INIT_OP, global_variables_initializer)
                             if init_op is default else init_op)
            self._local_init_op = (_first_or_made(GraphKeys.LOCAL_INIT_OP,
                                                  Scaffold.default_local_init_op)
                                   if local_init_op is default else local_init_op)
            self._saver = (_first_or_made(GraphKeys.SAVERS,
                                          lambda: Saver() if global_variables() else None)
                           if saver is default else saver)
            self._summary_op = (_first_or_made(GraphKeys.SUMMARY_OP, summary_lib.merge_all)
                                if summary_op is default else summary_op)
            self._global_step = (_first_or_made(GraphKeys.GLOBAL_STEP, _global_step_tensor)
                                 if global_step is default else global_step)
        self._init_feed_dict, self._init_fn = init_feed_dict, init_fn
        self._coord = Coordinator()
        self._stop_grace_secs = stop_grace_secs
        self._logdir = logdir
        self._save_summaries_secs, self._save_model_secs = save_summaries_secs, save_model_secs
        self._save_path = os.path.join(logdir, checkpoint_basename) if logdir else None
        if summary_writer is default:
            summary_writer = summary_lib.FileWriter(logdir) if logdir else None
        self._summary_writer, self._graph_added_to_summary = summary_writer, False
        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op, ready_op=self._ready_op,
            ready_for_local_init_op=self._ready_for_local_init_op, graph=graph,
            recovery_wait_secs=recovery_wait_secs, local_init_run_options=local_init_run_options)
        graph.finalize()

    is_chief = property(lambda self: True)
    session_manager = property(lambda self: self._session_manager)
    coord = property(lambda self: self._coord)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)

    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False,
                                    max_wait_secs=7200, start_standard_services=True):
        """The session, restored from ``logdir`` or initialised; with
        ``start_standard_services``, the services and the queue runners started."""
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        sess = self._session_manager.prepare_session(
            master, init_op=self._init_op, saver=self._saver, checkpoint_dir=self._logdir,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
            config=config, init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
        if self._summary_writer and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._graph_added_to_summary = True
        if start_standard_services:
            info("Starting standard services.")
            self.start_standard_services(sess)
            info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_standard_services(self, sess):
        """Start the checkpoint, summary and step-rate threads the options ask for (none
        without a ``logdir``); the list of threads started."""
        if not self._logdir:
            warning("Standard services need a 'logdir' passed to the SessionManager")
            return None
        session_log = proto("event_pb2").SessionLog
        if self._global_step is not None and self._summary_writer:
            self._summary_writer.add_session_log(session_log(status=session_log.START),
                                                 step_of(sess, self._global_step))
        threads = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(_SummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(_StepCounterThread(self, sess))
        if self._saver and self._save_model_secs:
            threads.append(_CheckpointThread(self, sess))
        for thread in threads:
            thread.start()
        return threads

    def start_queue_runners(self, sess, queue_runners=None):
        """Start the threads of ``queue_runners`` (default: the graph's ``QUEUE_RUNNERS``)."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for runner in queue_runners:
            threads.extend(runner.create_threads(sess, coord=self._coord, daemon=True,
                                                 start=True))
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Start a ``LooperThread`` calling ``target`` every ``timer_interval_secs`` (back to
        back when None) until a stop is requested; it is joined by :meth:`stop`."""
        return LooperThread.loop(self._coord, timer_interval_secs, target, args, kwargs)

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Stop the services and the coordinator (not the session); an exception a thread
        (or the ``with`` block) reported is raised here."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer:
                session_log = proto("event_pb2").SessionLog
                self._summary_writer.add_session_log(session_log(status=session_log.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex=None):
        self._coord.request_stop(ex=ex)

    def should_stop(self) -> bool:
        return self._coord.should_stop()

    def stop_on_exception(self):
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None):
        """Write ``summary`` (a fetched summary's bytes or a ``Summary``) at ``global_step``
        (default: the global step's value)."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self._global_step is not None:
            global_step = step_of(sess, self._global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True,
                        close_summary_writer=True):
        """``with sv.managed_session() as sess:`` a prepared session; on leaving, the
        services stop, the session closes, and an exception from the block or a service is
        raised (OutOfRangeError is a clean end)."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services)
            yield sess
        except Exception as ex:  # noqa: BLE001 - re-raised by stop(), as TensorFlow's
            self.request_stop(ex)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    sess.close()

    # TensorFlow's older names
    PrepareSession = prepare_or_wait_for_session
    StartQueueRunners = start_queue_runners
    StartStandardServices = start_standard_services
    Stop = stop
    RequestStop = request_stop
    Loop = loop
    ShouldStop = should_stop
    StopOnException = stop_on_exception
    WaitForStop = wait_for_stop
    SummaryComputed = summary_computed


def _first(key):
    """The first item of the collection ``key``, or None (TF's
    ``_get_first_op_from_collection``)."""
    found = current_context().get_collection(key)
    if len(found) > 1:
        info("Found %d %s operations. Returning the first one.", len(found), key)
    return found[0] if found else None


def _first_or_made(key, make):
    """The first item of the collection ``key``, else ``make()`` put there (when not None)."""
    found = _first(key)
    if found is None:
        found = make()
        if found is not None:
            current_context().add_to_collection(key, found)
    return found


def _global_step_tensor():
    """The graph's ``global_step:0`` when it is an integer, else None."""
    try:
        step = current_context().get_tensor_by_name("global_step:0")
    except (KeyError, ValueError):
        return None
    if step.dtype.name in ("int32", "int64"):
        return step
    warning("Found 'global_step' is not an int type: %s", step.dtype)
    return None


class _SummaryThread(LooperThread):
    """``summary_op`` into the event file every ``save_summaries_secs``."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        if self._sv.global_step is not None:
            summary, step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary, step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer:
            info("Recording summary at step %s.", step)
            self._sv.summary_writer.add_summary(summary, step)


class _StepCounterThread(LooperThread):
    """The global step's rate (``<global step>/sec``) every ``save_summaries_secs``."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess, self._reports = sv, sess, 0
        self._tag = f"{sv.global_step.op.name}/sec"
        self._last_time, self._last_step = 0.0, 0

    def start_loop(self):
        self._last_time, self._last_step = time.time(), step_of(self._sess, self._sv.global_step)

    def run_loop(self):
        step, now = step_of(self._sess, self._sv.global_step), time.time()
        elapsed, added = now - self._last_time, step - self._last_step
        self._last_time, self._last_step = now, step
        rate = added / elapsed if elapsed > 0 else float("inf")
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(summary_value(self._tag, simple_value=rate), step)
        if self._reports < 10:
            self._reports += 1
            info("%s: %g", self._tag, rate)


class _CheckpointThread(LooperThread):
    """A checkpoint (``save_path``-<global step>) every ``save_model_secs``."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            session_log = proto("event_pb2").SessionLog
            self._sv.summary_writer.add_session_log(
                session_log(status=session_log.CHECKPOINT, checkpoint_path=self._sv.save_path),
                step_of(self._sess, self._sv.global_step))


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """``train_step_fn(sess, *args, **kwargs)`` until the supervisor stops, in a managed
    session made again after an ``AbortedError``."""
    args, kwargs = args or [], kwargs or {}
    retry = True
    while retry:
        retry = False
        try:
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except AbortedError:
            retry = True
