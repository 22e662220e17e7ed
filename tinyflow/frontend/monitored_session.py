"""``tf.train``'s monitored sessions, as TensorFlow 1.15 has them.

A :class:`MonitoredSession` is a session that prepares itself and runs hooks around each step:

1. every hook's ``begin()`` (the graph may still change);
2. the :class:`Scaffold` is finalised: its init op (``tf.global_variables_initializer()``), its
   local init op (``tf.local_variables_initializer()``), its summary op (``merge_all``) and its
   Saver (of the global variables) are made when not given, and the graph becomes read-only;
3. the session is made: the latest checkpoint of ``checkpoint_dir`` (or
   ``checkpoint_filename_with_path``) is restored, else the init op runs (then ``init_fn``);
   the local init op runs either way;
4. the graph's queue runners start, with a :class:`~tinyflow.train.Coordinator` (TF-1's
   queue-based input: ``tf.train.batch``...), and every hook's
   ``after_create_session(session, coord)``;
5. each :meth:`~MonitoredSession.run` calls every hook's ``before_run(run_context)``, whose
   :class:`SessionRunArgs` add fetches, feeds and options to the same ``sess.run``, then
   ``after_run(run_context, run_values)`` with its results; a hook that calls
   ``run_context.request_stop()`` makes :meth:`~MonitoredSession.should_stop` True;
6. :meth:`~MonitoredSession.close` calls every hook's ``end(session)``, stops the queue
   runners (``stop_grace_period_secs`` for them to end) and closes the session; the graph
   becomes writable again when it was before.

As in TensorFlow, ``tf.errors.OutOfRangeError`` (the end of a ``tf.data`` input) leaves
``run()`` as it is, and the ``with`` block ends on it quietly: hooks' ``end`` run, nothing is
raised; ``should_stop()`` does not change.  :func:`MonitoredTrainingSession` adds the usual
hooks for a chief: steps per second and summaries in ``checkpoint_dir`` (or ``summary_dir``),
and a checkpoint every ``save_checkpoint_secs`` (600) or ``save_checkpoint_steps``.

TinyFlow runs in one process: ``master`` must be ``''``, ``is_chief`` True (a worker waits
for a chief of a TensorFlow cluster); no session is recreated after an error (TensorFlow's
``MonitoredSession`` recovers from a lost parameter server, which TinyFlow does not have).
"""
from __future__ import annotations

from ..nnvm.errors import OutOfRangeError
from ..nnvm.symbol import current_context
from ..session.options import RunMetadata, RunOptions
from . import summary as summary_lib
from .api import (
    global_variables,
    global_variables_initializer,
    group,
    local_variables_initializer,
)
from .framework import GraphKeys
from .init_ops import tables_initializer
from .queue_runner import Coordinator, start_queue_runners
from .saver import Saver, get_checkpoint_state, latest_checkpoint
from .session_run_hooks import (
    CheckpointSaverHook,
    SessionRunArgs,
    SessionRunContext,
    SessionRunValues,
    StepCounterHook,
    SummarySaverHook,
)
from .tf_logging import info

__all__ = [
    "ChiefSessionCreator",
    "MonitoredSession",
    "MonitoredTrainingSession",
    "Scaffold",
    "SessionCreator",
    "SingularMonitoredSession",
]


# -- the scaffold and the session creators --------------------------------------------------------
class Scaffold:
    """The ops a monitored session prepares the model with; those not given are made (or taken
    from their graph collection) by :meth:`finalize`.

    Parameters
    ----------
    init_op : op, optional
        Run when no checkpoint is restored (default ``tf.global_variables_initializer()``).
    init_feed_dict : dict, optional
        Feeds of ``init_op``.
    init_fn : callable, optional
        ``init_fn(scaffold, session)``, called after ``init_op``.
    local_init_op : op, optional
        Run after the restore or the init (default ``tf.local_variables_initializer()``).
    local_init_feed_dict : dict, optional
    summary_op : tensor, optional
        The summaries ``SummarySaverHook`` writes (default ``tf.summary.merge_all()``).
    saver : tf.train.Saver, optional
        Restores and saves the checkpoints (default: the graph's ``SAVERS`` collection's, else
        a new Saver of the global variables).
    copy_from_scaffold : Scaffold, optional
        A scaffold whose ops are taken where none is given here.
    ready_op, ready_for_local_init_op
        Not supported (ValueError): TinyFlow has no ``report_uninitialized_variables``.
    """

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None,
                 saver=None, copy_from_scaffold=None, local_init_feed_dict=None):
        if ready_op is not None or ready_for_local_init_op is not None:
            raise ValueError("Scaffold(ready_op=, ready_for_local_init_op=) is not supported by "
                             "TinyFlow (it has no report_uninitialized_variables)")
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            init_op = init_op or copy_from_scaffold.init_op
            init_feed_dict = init_feed_dict or copy_from_scaffold.init_feed_dict
            init_fn = init_fn or copy_from_scaffold._user_init_fn
            local_init_op = local_init_op or copy_from_scaffold.local_init_op
            local_init_feed_dict = (local_init_feed_dict
                                    or copy_from_scaffold.local_init_feed_dict)
            summary_op = summary_op or copy_from_scaffold.summary_op
            saver = saver or copy_from_scaffold.saver
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op, self._init_feed_dict = init_op, init_feed_dict
        self._local_init_op, self._local_init_feed_dict = local_init_op, local_init_feed_dict
        self._summary_op, self._saver = summary_op, saver

    def finalize(self) -> Scaffold:
        """Make the ops not given (each kept in its graph collection, as TF's
        ``get_or_default``), then make the graph read-only."""
        if self._init_op is None:
            self._init_op = _get_or_default("init_op", GraphKeys.INIT_OP,
                                            global_variables_initializer)
        if self._local_init_op is None:
            self._local_init_op = _get_or_default("local_init_op", GraphKeys.LOCAL_INIT_OP,
                                                  Scaffold.default_local_init_op)
        if self._summary_op is None:
            self._summary_op = _get_or_default("summary_op", GraphKeys.SUMMARY_OP,
                                               summary_lib.merge_all)
        if self._saver is None:
            self._saver = default_saver()
        current_context().finalize()
        return self

    @staticmethod
    def default_local_init_op():
        """TF's default ``local_init_op``: the local variables' initializer and the tables'
        (a vocabulary column's table, which an estimator's model looks up)."""
        return group(local_variables_initializer(), tables_initializer())

    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    init_fn = property(lambda self: self._init_fn)
    local_init_op = property(lambda self: self._local_init_op)
    local_init_feed_dict = property(lambda self: self._local_init_feed_dict)
    summary_op = property(lambda self: self._summary_op)
    saver = property(lambda self: self._saver)


def _get_or_default(arg_name, key, make):
    """The one item of the collection ``key``, else ``make()`` added to it (TF's rule)."""
    found = current_context().get_collection(key)
    if len(found) > 1:
        raise RuntimeError(f'More than one item in the collection "{key}". Please indicate '
                           f'which one to use by passing it to the tf.Scaffold constructor '
                           f'as: tf.Scaffold({arg_name}=item to use)')
    if found:
        return found[0]
    made = make()
    if made is not None:
        current_context().add_to_collection(key, made)
    return made


def default_saver():
    """The graph's Saver: the one in the collection ``SAVERS``, else a new Saver of the global
    variables (None when there are none) put there, as TF's ``_get_saver_or_default``."""
    savers = current_context().get_collection(GraphKeys.SAVERS)
    if len(savers) > 1:
        raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please "
                           f"indicate which one to use by passing it to the constructor.")
    if savers:
        return savers[0]
    if not global_variables():
        return None
    saver = Saver(global_variables())
    current_context().add_to_collection(GraphKeys.SAVERS, saver)
    return saver


class SessionCreator:
    """Makes the ``tf.Session`` of a monitored session (``create_session()``)."""

    def create_session(self):
        raise NotImplementedError(f"create_session is not implemented for {self}.")


class ChiefSessionCreator(SessionCreator):
    """Finalises ``scaffold`` (a new :class:`Scaffold` by default) and makes a session in
    which the model is restored from the latest checkpoint of ``checkpoint_dir`` (or from
    ``checkpoint_filename_with_path``), else initialised; see the module's docstring.
    ``config`` is the ``tf.Session``'s."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        _check_master(master)
        self._scaffold = scaffold or Scaffold()
        self._config, self._checkpoint_dir = config, checkpoint_dir
        self._checkpoint_path = checkpoint_filename_with_path

    def create_session(self):
        from ..session.session import Session  # imports torch: only when a session is made

        scaffold = self._scaffold.finalize()
        sess = Session(config=self._config, graph=current_context())
        path = self._checkpoint_path or (self._checkpoint_dir
                                         and latest_checkpoint(self._checkpoint_dir))
        if path:
            if scaffold.saver is None:
                raise ValueError(f"cannot restore '{path}': the graph has no variables to save")
            info("Restoring parameters from %s", path)
            scaffold.saver.restore(sess, path)
            if not self._checkpoint_path:  # TF: the saver keeps on counting those kept there
                scaffold.saver.recover_last_checkpoints(
                    get_checkpoint_state(self._checkpoint_dir).all_model_checkpoint_paths)
        else:
            if scaffold.init_op is not None:
                sess.run(scaffold.init_op, feed_dict=scaffold.init_feed_dict)
            if scaffold.init_fn:
                scaffold.init_fn(sess)
        if scaffold.local_init_op is not None:
            sess.run(scaffold.local_init_op, feed_dict=scaffold.local_init_feed_dict)
        return sess


def _check_master(master):
    if master not in ("", None):
        raise ValueError(f"master={master!r}: TinyFlow runs in this process; it has no "
                         f"TensorFlow server to connect to (give master='')")


# -- the monitored sessions -----------------------------------------------------------------------
class _MonitoredSession:
    """See the module's docstring."""

    def __init__(self, session_creator, hooks, stop_grace_period_secs=120):
        self._graph, self._grace = current_context(), stop_grace_period_secs
        self._graph_was_finalized = self._graph.finalized
        self._hooks = list(hooks or [])
        for hook in self._hooks:
            hook.begin()
        self._tf_sess, self._stop = None, False
        try:
            with self._graph.as_default():
                self._tf_sess = (session_creator or ChiefSessionCreator()).create_session()
            # as TF's _CoordinatedSessionCreator: every error a runner reports is raised
            self._coord = Coordinator(clean_stop_exception_types=[])
            self._threads = start_queue_runners(self._tf_sess, self._coord)
            for hook in self._hooks:
                hook.after_create_session(self._tf_sess, self._coord)
        except BaseException:  # a failed restore: the graph can be changed again, as before
            if self._tf_sess is not None:
                self._tf_sess.close()
                self._tf_sess = None
            self._graph.finalized = self._graph_was_finalized
            raise

    @property
    def graph(self):
        """The graph the session runs (None once closed)."""
        return None if self._tf_sess is None else self._tf_sess.graph

    def should_stop(self) -> bool:
        """True once a hook or the coordinator requested a stop, or the session is closed."""
        return self._tf_sess is None or self._stop or self._coord.should_stop()

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """``sess.run(fetches, feed_dict, options, run_metadata)`` with the hooks' fetches,
        feeds and options added; RuntimeError after a stop was requested."""
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict), self._tf_sess)
        options = options or RunOptions()
        all_fetches, feeds = {"caller": fetches}, {}
        for hook in self._hooks:
            request = hook.before_run(context)
            if request is None:
                continue
            if request.fetches is not None:
                all_fetches[hook] = request.fetches
            if request.feed_dict:
                _check_disjoint(feeds, request.feed_dict, "Same tensor is fed by two hooks.")
                feeds.update(request.feed_dict)
            if request.options:
                options.trace_level = max(options.trace_level, request.options.trace_level)
                options.timeout_in_ms = max(options.timeout_in_ms,
                                            request.options.timeout_in_ms)
        if feeds and feed_dict:
            _check_disjoint(feed_dict, feeds, "Same tensor is fed by a SessionRunHook and user.")
        feeds.update(feed_dict or {})
        run_metadata = run_metadata if run_metadata is not None else RunMetadata()
        results = self._tf_sess.run(all_fetches, feed_dict=feeds or None, options=options,
                                    run_metadata=run_metadata)
        for hook in self._hooks:
            hook.after_run(context, SessionRunValues(results.get(hook), options, run_metadata))
        self._stop = self._stop or context.stop_requested
        return results["caller"]

    def close(self):
        """Call the hooks' ``end`` and close the session."""
        self._close(failed=False)

    def _close(self, failed: bool):
        if self._tf_sess is None:
            raise RuntimeError("Session is already closed.")
        try:
            if not failed:
                for hook in self._hooks:
                    hook.end(self._tf_sess)
        finally:
            self._coord.request_stop()
            try:
                self._coord.join(self._threads, self._grace, ignore_live_threads=True)
            finally:
                self._tf_sess.close()
            self._tf_sess = None
            if not self._graph_was_finalized:
                self._graph.finalized = False

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception, traceback):
        quiet = exception_type is None or issubclass(exception_type,
                                                     (OutOfRangeError, StopIteration))
        self._close(failed=not quiet)
        return quiet


def _check_disjoint(feeds1, feeds2, message):
    both = set(feeds1) & set(feeds2)
    if both:
        raise RuntimeError(f"{message} Conflict(s): {list(both)}")


class MonitoredSession(_MonitoredSession):
    """A session that initialises or restores the model and runs hooks around each step.

    Parameters
    ----------
    session_creator : SessionCreator, optional
        Default: a :class:`ChiefSessionCreator` (a new :class:`Scaffold`, no checkpoint).
    hooks : list of SessionRunHook, optional
    stop_grace_period_secs : int
        How long :meth:`close` waits for the queue runners' threads to end.
    """

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator, hooks, stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A :class:`MonitoredSession` made from a scaffold and checkpoint folder directly (a
    :class:`ChiefSessionCreator` of them); :meth:`raw_session` is its ``tf.Session``."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        super().__init__(ChiefSessionCreator(scaffold, master, config, checkpoint_dir,
                                             checkpoint_filename_with_path), hooks,
                         stop_grace_period_secs)

    def raw_session(self):
        """The plain ``tf.Session`` (running it runs no hooks)."""
        return self._tf_sess


# TensorFlow's marker of an argument left at its default (save_checkpoint_secs=600 then)
USE_DEFAULT = object()


def _defaults(steps, secs, default_steps, default_secs):
    """TF's rule for a ``steps`` / ``secs`` pair: both left out, the defaults; one left out,
    None."""
    if steps is USE_DEFAULT and secs is USE_DEFAULT:
        return default_steps, default_secs
    return (None if steps is USE_DEFAULT else steps), (None if secs is USE_DEFAULT else secs)


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None,
                             hooks=None, chief_only_hooks=None,
                             save_checkpoint_secs=USE_DEFAULT, save_summaries_steps=USE_DEFAULT,
                             save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100,
                             max_wait_secs=7200, save_checkpoint_steps=USE_DEFAULT,
                             summary_dir=None, save_graph_def=True):
    """A :class:`MonitoredSession` for training, with a chief's hooks (TensorFlow 1.15).

    With ``summary_dir`` (default ``checkpoint_dir``): a ``StepCounterHook`` every
    ``log_step_count_steps`` steps and a ``SummarySaverHook`` every ``save_summaries_steps``
    (100) steps or ``save_summaries_secs`` seconds, writing ``tf.summary.merge_all()``.  With
    ``checkpoint_dir``: the latest checkpoint there is restored, and a ``CheckpointSaverHook``
    saves every ``save_checkpoint_secs`` (600) seconds or ``save_checkpoint_steps`` steps, at
    the session's creation and at its end.  ``chief_only_hooks`` come first, ``hooks`` last.
    ``config`` is the ``tf.Session``'s; ``master`` must be ``''`` and ``is_chief`` True (one
    process: no cluster).
    """
    _check_master(master)
    if not is_chief:
        raise ValueError("MonitoredTrainingSession(is_chief=False) waits for the chief of a "
                         "TensorFlow cluster, which TinyFlow (one process) does not have")
    summary_steps, summary_secs = _defaults(save_summaries_steps, save_summaries_secs, 100, None)
    checkpoint_steps, checkpoint_secs = _defaults(save_checkpoint_steps, save_checkpoint_secs,
                                                  None, 600)
    scaffold = scaffold or Scaffold()
    all_hooks = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(scaffold, master, config, checkpoint_dir)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(StepCounterHook(output_dir=summary_dir,
                                             every_n_steps=log_step_count_steps))
        if (summary_steps or 0) > 0 or (summary_secs or 0) > 0:
            all_hooks.append(SummarySaverHook(scaffold=scaffold,
                                              save_steps=summary_steps, save_secs=summary_secs,
                                              output_dir=summary_dir))
    if checkpoint_dir and ((checkpoint_secs or 0) > 0 or (checkpoint_steps or 0) > 0):
        all_hooks.append(CheckpointSaverHook(
            checkpoint_dir, save_steps=checkpoint_steps, save_secs=checkpoint_secs,
            scaffold=scaffold, save_graph_def=save_graph_def))
    all_hooks.extend(hooks or [])
    return MonitoredSession(creator, all_hooks, stop_grace_period_secs)

