"""``tf.train``'s session-run hooks, as TensorFlow 1.15's ``session_run_hook`` and
``basic_session_run_hooks``: what a :class:`~tinyflow.frontend.monitored_session.MonitoredSession`
runs around each step (the order it calls a hook's methods in is that module's docstring's).

=========================  ======================================================================
hook                       what it does
=========================  ======================================================================
``LoggingTensorHook``      logs tensors (``tf.logging.info``) every N steps or seconds, at the end
``StopAtStepHook``         requests a stop once the global step reaches ``last_step`` (or
                           ``num_steps`` more than when the session was made)
``CheckpointSaverHook``    saves a checkpoint every N steps or seconds, when the session is made
                           and at its end (``<checkpoint_dir>/model.ckpt-<step>``)
``StepCounterHook``        logs and writes ``global_step/sec`` every N steps or seconds
``SummarySaverHook``       writes a summary op's value every N steps or seconds
``NanTensorHook``          raises ``NanLossDuringTrainingError`` (or requests a stop) on a NaN loss
``FinalOpsHook``           runs ops when the session ends (``final_ops_values``)
``FeedFnHook``             feeds ``feed_fn()`` at every step
=========================  ======================================================================

A hook that reads the global step fetches it in the same run as the step, so it sees the value
before the step's increment (``stale_global_step``), and runs the session again only when it
may act, as TensorFlow's hooks do.  Event files go through :class:`SummaryWriterCache`, one
``tf.summary.FileWriter`` per folder.
"""
from __future__ import annotations

import os
import time
from typing import Any, ClassVar, NamedTuple

import numpy as np

from ..nnvm.errors import OutOfRangeError
from ..nnvm.symbol import Symbol, current_context
from ..python.client.timeline import Timeline
from ..session.options import RunOptions
from . import events
from .framework import GraphKeys
from .summary import FileWriter
from .tf_logging import WARN, error, info, log_first_n, warning
from .train import get_global_step

__all__ = [
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "FeedFnHook",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "LoggingTensorHook",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "ProfilerHook",
    "SecondOrStepTimer",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
    "SummaryWriterCache",
]


# -- the protocol: what hooks see and give ------------------------------------------------------
class SessionRunArgs(NamedTuple):
    """What a hook's ``before_run`` adds to a step: ``fetches`` (any structure ``sess.run``
    takes; its values come back as ``run_values.results``), ``feed_dict``, ``options``
    (a ``tf.RunOptions``, merged with the others': the larger trace level and timeout)."""

    fetches: Any
    feed_dict: dict | None = None
    options: Any = None


class SessionRunValues(NamedTuple):
    """What a hook's ``after_run`` gets: ``results`` (the values of its ``fetches``, None when
    it asked for none), the run's ``options`` and ``run_metadata``."""

    results: Any
    options: Any
    run_metadata: Any


class SessionRunContext:
    """One step as hooks see it: the caller's ``original_args`` (a :class:`SessionRunArgs`),
    the ``session`` (the plain ``tf.Session``: running it runs no hooks), and
    :meth:`request_stop`."""

    def __init__(self, original_args, session):
        self._original_args, self._session = original_args, session
        self._stop_requested = False

    @property
    def original_args(self) -> SessionRunArgs:
        return self._original_args

    @property
    def session(self):
        return self._session

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def request_stop(self) -> None:
        """Make the monitored session's ``should_stop()`` True after this step."""
        self._stop_requested = True


class SessionRunHook:
    """A hook into a ``MonitoredSession``; each method does nothing unless overridden (the
    order they are called in is :mod:`tinyflow.frontend.monitored_session`'s docstring's)."""

    def begin(self):
        """Before the graph is finalised: the hook may add ops."""

    def after_create_session(self, session, coord):
        """Once the session is initialised or restored (``coord`` is None in TinyFlow: it
        starts no queue-runner threads)."""

    def before_run(self, run_context):
        """Before each step: None, or a :class:`SessionRunArgs` of what to add to it."""

    def after_run(self, run_context, run_values):
        """After each step, with the values of what ``before_run`` asked for."""

    def end(self, session):
        """When the monitored session closes without an error (or at the end of the input)."""


class SummaryWriterCache:
    """One ``tf.summary.FileWriter`` per folder for every hook and estimator of the process
    (TensorFlow's ``FileWriterCache``); :meth:`clear` closes them all."""

    # TF's cache is the process's too: hooks of one session, and the estimator's train and
    # evaluate, write one event file per folder; clear() is the reset tests use
    _writers: ClassVar[dict] = {}

    @classmethod
    def get(cls, logdir) -> FileWriter:
        """The writer of ``logdir`` (made, with the current graph, on first use)."""
        logdir = os.path.abspath(os.fspath(logdir))
        if logdir not in cls._writers:
            cls._writers[logdir] = FileWriter(logdir, graph=current_context())
        return cls._writers[logdir]

    @classmethod
    def clear(cls) -> None:
        for writer in cls._writers.values():
            writer.close()
        cls._writers.clear()


class SecondOrStepTimer:
    """Triggers every ``every_secs`` seconds or every ``every_steps`` steps (exactly one);
    the first step always triggers."""

    def __init__(self, every_secs=None, every_steps=None):
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")
        self._every_secs, self._every_steps = every_secs, every_steps
        self.reset()

    def reset(self):
        self._last_step, self._last_time = None, None

    def should_trigger_for_step(self, step) -> bool:
        if self._last_step is None:
            return True
        if self._last_step == step:
            return False
        if self._every_secs is not None and time.time() >= self._last_time + self._every_secs:
            return True
        return self._every_steps is not None and step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step):
        """Record ``step`` as triggered now; ``(seconds, steps)`` since the last trigger
        (``(None, None)`` the first time)."""
        now = time.time()
        elapsed = ((None, None) if self._last_time is None
                   else (now - self._last_time, step - self._last_step))
        self._last_time, self._last_step = now, step
        return elapsed

    def last_triggered_step(self):
        return self._last_step


class _NeverTriggerTimer(SecondOrStepTimer):
    def __init__(self):
        self.reset()

    def should_trigger_for_step(self, step) -> bool:
        return False


def _global_step(hook_name: str):
    """A read of the global step, which ``hook_name`` needs (RuntimeError, TF's, when there is
    none): ``global_step + 0``, one per graph (TF's ``_get_or_create_global_step_read``).  Being
    an op that reads the variable, it runs before the step's increment (OrderMutation), so a
    hook fetching it with the train op gets the value before the step, as TF's hooks expect."""
    graph = current_context()
    cached = graph.get_collection(_GLOBAL_STEP_READ_KEY)
    if cached:
        return cached[0]
    step = get_global_step()
    if step is None:
        raise RuntimeError(f"Global step should be created to use {hook_name}.")
    with graph.name_scope(None), graph.name_scope(step.op.name + "/"):
        read = step + 0
    graph.add_to_collection(_GLOBAL_STEP_READ_KEY, read)
    return read


_GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"  # TF's collection of that read


def _as_graph_element(tensor):
    """A tensor, or a tensor's name (``"loss"`` is ``"loss:0"``) in the current graph."""
    if isinstance(tensor, Symbol):
        return tensor
    return current_context().get_tensor_by_name(tensor if ":" in tensor else tensor + ":0")


class LoggingTensorHook(SessionRunHook):
    """Logs ``tensors`` (a list of tensors or names, or a dict ``{tag: tensor}``) every
    ``every_n_iter`` steps or ``every_n_secs`` seconds, and/or ``at_end``, as
    ``"tag = value, ... (0.123 sec)"`` or ``formatter({tag: value})``."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False,
                 formatter=None):
        only_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and "
                             "every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if isinstance(tensors, dict):
            self._tag_order = sorted(tensors)
        else:
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        self._tensors, self._formatter, self._log_at_end = tensors, formatter, at_end
        self._timer = (_NeverTriggerTimer() if only_at_end
                       else SecondOrStepTimer(every_n_secs, every_n_iter))

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._current = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current) if self._should_trigger else None

    def _log(self, values):
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        try:
            elapsed, _ = self._timer.update_last_triggered_step(self._iter_count)
            if self._formatter:
                info(self._formatter(values))
            else:
                stats = ", ".join("%s = %s" % (tag, values[tag])  # noqa: UP031 - str(), as TF
                                  for tag in self._tag_order)
                if elapsed is not None:
                    info("%s (%.3f sec)", stats, elapsed)
                else:
                    info("%s", stats)
        finally:
            np.set_printoptions(**original)

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log(session.run(self._current))


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches ``last_step``, or ``num_steps`` more
    steps than it had when the session was made (exactly one of the two)."""

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps, self._last_step = num_steps, last_step

    def begin(self):
        self._global_step = _global_step("StopAtStepHook")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step)) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        if (run_values.results + 1 >= self._last_step
                and run_context.session.run(self._global_step) >= self._last_step):
            run_context.request_stop()


class CheckpointSaverListener:
    """Called around each save of a :class:`CheckpointSaverHook`; ``after_save`` returning
    True requests a stop."""

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


class CheckpointSaverHook(SessionRunHook):
    """Saves ``<checkpoint_dir>/<checkpoint_basename>-<global step>`` every ``save_secs``
    seconds or ``save_steps`` steps (exactly one), once the session is made, and at its end
    (unless that step was just saved).  The Saver is ``saver``, or ``scaffold``'s, or the
    one in the graph's ``SAVERS`` collection."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None,
                 save_graph_def=True):
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver, self._scaffold = saver, scaffold
        self._checkpoint_dir = os.fspath(checkpoint_dir)
        self._save_path = os.path.join(self._checkpoint_dir, checkpoint_basename)
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = list(listeners or [])
        self._save_graph_def = save_graph_def

    def begin(self):
        self._writer = SummaryWriterCache.get(self._checkpoint_dir)
        self._global_step = _global_step("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        step = int(session.run(self._global_step))
        if self._save_graph_def:
            self._writer.add_graph(current_context())
        self._save(session, step)
        self._timer.update_last_triggered_step(step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        if self._timer.should_trigger_for_step(run_values.results + 1):
            step = int(run_context.session.run(self._global_step))
            if self._timer.should_trigger_for_step(step):
                self._timer.update_last_triggered_step(step)
                if self._save(run_context.session, step):
                    run_context.request_stop()

    def end(self, session):
        step = int(session.run(self._global_step))
        if step != self._timer.last_triggered_step():
            self._save(session, step)
        for listener in self._listeners:
            listener.end(session, step)
        self._writer.flush()

    def _save(self, session, step) -> bool:
        """Save at ``step``; True when a listener asks to stop."""
        for listener in self._listeners:
            listener.before_save(session, step)
        info("Saving checkpoints for %d into %s.", step, self._save_path)
        os.makedirs(self._checkpoint_dir, exist_ok=True)
        self._get_saver().save(session, self._save_path, global_step=step)
        session_log = events.proto("event_pb2").SessionLog
        self._writer.add_event(events.event(step, session_log=session_log(
            status=session_log.CHECKPOINT, checkpoint_path=self._save_path)))
        stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                info("A CheckpointSaverListener requested that training be stopped. "
                     "listener: %s", listener)
                stop = True
        return stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = current_context().get_collection(GraphKeys.SAVERS)
        if len(savers) != 1:
            raise RuntimeError(f"{'No' if not savers else 'More than one'} item(s) in "
                               f"collection savers. Please add a saver to the collection, or "
                               f"provide a saver or scaffold.")
        self._saver = savers[0]
        return self._saver


class StepCounterHook(SessionRunHook):
    """Logs, and writes to ``output_dir`` (or ``summary_writer``), the global steps per second
    every ``every_n_steps`` steps or ``every_n_secs`` seconds, under the tag
    ``global_step/sec``."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None,
                 summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be "
                             "provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._writer, self._output_dir = summary_writer, output_dir
        self._last_global_step = None

    def begin(self):
        if self._writer is None and self._output_dir:
            self._writer = SummaryWriterCache.get(self._output_dir)
        self._global_step = _global_step("StepCounterHook")
        self._tag = get_global_step().op.name + "/sec"

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        stale = int(run_values.results)
        if self._timer.should_trigger_for_step(stale + 1):
            step = int(run_context.session.run(self._global_step))
            if self._timer.should_trigger_for_step(step):
                seconds, steps = self._timer.update_last_triggered_step(step)
                if seconds is not None:
                    rate = steps / seconds if seconds > 0 else float("inf")
                    if self._writer is not None:
                        self._writer.add_summary(
                            events.summary_value(self._tag, simple_value=rate), step)
                    info("%s: %g", self._tag, rate)
        if stale == self._last_global_step:
            log_first_n(WARN, "It seems that global step (tf.train.get_global_step) has not "
                        "been increased. Current value (could be stable): %s vs previous "
                        "value: %s. You could increase the global step by passing "
                        "tf.train.get_global_step() to Optimizer.apply_gradients or "
                        "Optimizer.minimize.", 5, stale, self._last_global_step)
        self._last_global_step = stale


class NanLossDuringTrainingError(RuntimeError):
    """A NaN loss (:class:`NanTensorHook`)."""

    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Checks ``loss_tensor`` at every step: a NaN raises :class:`NanLossDuringTrainingError`,
    or, with ``fail_on_nan_loss=False``, logs a warning and requests a stop."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss, self._fail = loss_tensor, fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            if self._fail:
                error("Model diverged with loss = NaN.")
                raise NanLossDuringTrainingError
            warning("Model diverged with loss = NaN.")
            run_context.request_stop()


class SummarySaverHook(SessionRunHook):
    """Writes ``summary_op`` (a tensor or a list of them), or ``scaffold``'s summary op
    (exactly one), to ``output_dir`` (or ``summary_writer``) every ``save_steps`` steps or
    ``save_secs`` seconds, at the global step after the run."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None,
                 scaffold=None, summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op, self._scaffold = summary_op, scaffold
        self._writer, self._output_dir = summary_writer, output_dir
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        if self._writer is None and self._output_dir:
            self._writer = SummaryWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step = _global_step("SummarySaverHook")

    def before_run(self, run_context):
        self._request = (self._next_step is None
                         or self._timer.should_trigger_for_step(self._next_step))
        requests = {"global_step": self._global_step}
        summary_op = self._get_summary_op()
        if self._request and summary_op is not None:
            requests["summary"] = summary_op
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        if not self._writer:
            return
        step = int(run_values.results["global_step"]) + 1
        if self._next_step is None or self._request:
            step = int(run_context.session.run(self._global_step))
        if self._next_step is None:
            session_log = events.proto("event_pb2").SessionLog
            self._writer.add_event(events.event(step, session_log=session_log(
                status=session_log.START)))
        if self._request:
            self._timer.update_last_triggered_step(step)
            for summary in run_values.results.get("summary", ()):
                self._writer.add_summary(summary, step)
        self._next_step = step + 1

    def end(self, session=None):
        if self._writer:
            self._writer.flush()

    def _get_summary_op(self):
        summary_op = self._summary_op if self._summary_op is not None else (
            self._scaffold.summary_op)
        if summary_op is None:
            return None
        return summary_op if isinstance(summary_op, list) else [summary_op]


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` (with ``final_ops_feed_dict``) when the session ends; their values
    are :attr:`final_ops_values`."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops, self._feed_dict = final_ops, final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is None:
            return
        try:
            self._final_ops_values = session.run(self._final_ops, feed_dict=self._feed_dict)
        except (OutOfRangeError, StopIteration):
            warning("An OutOfRangeError or StopIteration exception is raised by the code in "
                    "FinalOpsHook. This typically means the Ops running by the FinalOpsHook "
                    "have a dependency back to some input source, which should not happen.")
            raise


class FeedFnHook(SessionRunHook):
    """Feeds ``feed_fn()`` (a dict) at every step."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class ProfilerHook(SessionRunHook):
    """Traces a step every ``save_steps`` steps or ``save_secs`` seconds (exactly one) and
    writes its ops as a Chrome trace, ``output_dir/timeline-<global step>.json``
    (``tensorflow.python.client.timeline``), and its run metadata to the folder's event file
    (TensorBoard's graph dashboard shows each op's time)."""

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True,
                 show_memory=False):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._output_dir = output_dir
        self._show = {"show_dataflow": show_dataflow, "show_memory": show_memory}
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step, self._writer = None, SummaryWriterCache.get(self._output_dir)
        self._global_step = _global_step("ProfilerHook")

    def before_run(self, run_context):
        self._trace = (self._next_step is not None
                       and self._timer.should_trigger_for_step(self._next_step))
        options = RunOptions(trace_level=RunOptions.FULL_TRACE) if self._trace else None
        return SessionRunArgs({"global_step": self._global_step}, options=options)

    def after_run(self, run_context, run_values):
        stale = int(run_values.results["global_step"])
        if self._next_step is None:  # no trace before N steps or seconds have passed
            self._timer.update_last_triggered_step(stale)
        step = stale + 1
        if self._trace:
            step = int(run_context.session.run(self._global_step))
            self._timer.update_last_triggered_step(step)
            path = self._output_file.format(step)
            info("Saving timeline for %d into '%s'.", step, path)
            with open(path, "w") as file:
                file.write(Timeline(run_values.run_metadata.step_stats)
                           .generate_chrome_trace_format(**self._show))
            self._writer.add_run_metadata(run_values.run_metadata, f"step_{step}")
        self._next_step = step + 1


class GlobalStepWaiterHook(SessionRunHook):
    """Holds the first step until the global step reaches ``wait_until_step`` (another thread
    training the same session advances it; TensorFlow's workers wait so for the chief)."""

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._started = False
        self._global_step = _global_step("GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._started:
            return
        if self._wait_until_step <= 0:
            self._started = True
            return
        info("Waiting for global step %d before starting training.", self._wait_until_step)
        last_logged = 0
        while True:
            step = int(run_context.session.run(self._global_step))
            if step >= self._wait_until_step:
                self._started = True
                return
            if step - last_logged > 1000:
                info("Waiting for global step %d before starting training. Current step is "
                     "%d.", self._wait_until_step, step)
                last_logged = step
            time.sleep(0.5)
