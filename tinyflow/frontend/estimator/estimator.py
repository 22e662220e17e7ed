"""``tf.estimator.Estimator`` (TensorFlow 1.15): a model given as a ``model_fn``, trained,
evaluated and run on the monitored sessions, with its checkpoints and summaries in
``model_dir``.

Each of :meth:`Estimator.train`, :meth:`~Estimator.evaluate` and :meth:`~Estimator.predict`
builds a new graph: the graph-level seed ``config.tf_random_seed``, a global step, the input
(``input_fn()``: ``(features, labels)``, features alone, or a ``tf.data.Dataset`` of them, read
through a one-shot iterator), then ``model_fn(features, labels, mode, params, config)``, passing
only the arguments ``model_fn`` names, and runs it in a ``MonitoredSession`` that restores the
latest checkpoint of ``model_dir``:

- ``train`` runs ``train_op`` until a ``StopAtStepHook`` (``steps`` more, or up to
  ``max_steps``) or the end of the input; it saves checkpoints (``config``'s
  ``save_checkpoints_steps`` / ``_secs``, and at the end), summaries (the loss among them,
  every ``save_summary_steps``) and logs the loss every ``log_step_count_steps``.  A second
  ``train`` goes on from the checkpoint: the global step continues.
- ``evaluate`` runs the update ops of ``eval_metric_ops`` (``tf.metrics`` pairs) over ``steps``
  batches or to the end of the input, and returns their values with ``loss`` (the mean of the
  batches' losses) and ``global_step``; they are written as summaries to ``model_dir/eval``
  (``eval_<name>``).
- ``predict`` yields the predictions example by example (a dict per example when
  ``predictions`` is a dict; ``yield_single_examples=False``: batch by batch) until the end of
  the input.
"""
from __future__ import annotations

import copy
import functools
import inspect
import os
import tempfile
import time

import numpy as np

from ...nnvm.symbol import current_context
from .. import metrics, summary
from ..api import Variable, assign_add, global_variables, trainable_variables
from ..checkpoint_utils import init_from_checkpoint
from ..events import summary_value
from ..framework import Graph, GraphKeys
from ..monitored_session import ChiefSessionCreator, MonitoredSession, MonitoredTrainingSession
from ..random_ops import set_random_seed
from ..saver import Saver, latest_checkpoint, list_variables, load_variable
from ..session_run_hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FinalOpsHook,
    LoggingTensorHook,
    NanTensorHook,
    SessionRunArgs,
    SessionRunHook,
    StopAtStepHook,
    SummaryWriterCache,
)
from ..tf_logging import info, warning
from ..train import create_global_step, get_global_step
from .exporter import export_saved_model
from .inputs import parse_input_fn_result
from .model_fn import LOSS_METRIC_KEY, EstimatorSpec, ModeKeys
from .run_config import RunConfig

__all__ = ["Estimator"]

_VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "self", "config"}


def fn_args(fn) -> tuple:
    """The names of ``fn``'s arguments, without those a ``functools.partial`` binds, ``self``
    of a bound method, ``*args`` and ``**kwargs`` (TensorFlow's ``function_utils.fn_args``)."""
    if isinstance(fn, functools.partial):
        args = fn_args(fn.func)
        return tuple(a for a in args[len(fn.args):] if a not in (fn.keywords or {}))
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
             inspect.Parameter.KEYWORD_ONLY)
    return tuple(name for name, p in inspect.signature(fn).parameters.items()
                 if p.kind in kinds)


def _verify_model_fn_args(model_fn, params):
    args = set(fn_args(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(f"model_fn ({model_fn}) does not include params argument, but params "
                         f"({params}) is passed to Estimator.")
    if params is None and "params" in args:
        warning("Estimator's model_fn (%s) includes params argument, but params are not passed "
                "to Estimator.", model_fn)
    unexpected = sorted(args - _VALID_MODEL_FN_ARGS)
    if unexpected:
        raise ValueError(f"model_fn ({model_fn}) has following not expected args: {unexpected}")


def _check_hooks(hooks) -> list:
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"Hooks must be a SessionRunHook, given: {hook}")
    return hooks


class Estimator:
    """A model trained, evaluated and run from a ``model_fn`` (see the module's docstring).

    Parameters
    ----------
    model_fn : callable
        ``model_fn(features, labels, mode, params, config)`` (any subset with ``features``)
        returning a ``tf.estimator.EstimatorSpec``.
    model_dir : str, optional
        Checkpoints and summaries; default ``config.model_dir``, else a new temporary folder.
    config : tf.estimator.RunConfig, optional
    params : dict, optional
        Passed to ``model_fn`` (which must then take ``params``).
    warm_start_from : str, optional
        A checkpoint (a prefix, or a folder's newest) whose values ``train`` gives the model's
        trainable variables of the same names before it starts, when ``model_dir`` has no
        checkpoint yet (TF 1.15's ``WarmStartSettings`` default, ``vars_to_warm_start='.*'``).
    """

    def __init__(self, model_fn, model_dir=None, config=None, params=None,
                 warm_start_from=None):
        if warm_start_from is not None and not isinstance(warm_start_from, (str, os.PathLike)):
            raise ValueError("Estimator(warm_start_from=...) takes a checkpoint path in "
                             "TinyFlow (WarmStartSettings are not supported)")
        if config is None:
            config = RunConfig()
        elif not isinstance(config, RunConfig):
            raise ValueError(f"config must be an instance of `RunConfig`, but provided "
                             f"{config}.")
        model_dir = None if model_dir is None else os.fspath(model_dir)
        if model_dir and config.model_dir and model_dir != config.model_dir:
            raise ValueError(f"`model_dir` are set both in constructor and `RunConfig`, but "
                             f"with different values. In constructor: '{model_dir}', in "
                             f"`RunConfig`: '{config.model_dir}' ")
        model_dir = model_dir or config.model_dir
        if not model_dir:
            model_dir = tempfile.mkdtemp()
            warning("Using temporary folder as model directory: %s", model_dir)
        self._model_dir, self._config = model_dir, config.replace(model_dir=model_dir)
        info("Using config: %s", self._config)
        _verify_model_fn_args(model_fn, params)
        self._model_fn, self._params = model_fn, copy.deepcopy(params or {})
        self._warm_start_from = None if warm_start_from is None else os.fspath(warm_start_from)

    model_dir = property(lambda self: self._model_dir)
    config = property(lambda self: copy.deepcopy(self._config))
    params = property(lambda self: copy.deepcopy(self._params))

    @property
    def model_fn(self):
        """``model_fn(features, labels, mode, config)`` as the Estimator calls it."""
        return lambda features, labels, mode, config: self._call_model_fn(
            features, labels, mode, config)

    def eval_dir(self, name=None) -> str:
        """Where :meth:`evaluate` writes its summaries: ``model_dir/eval`` (``eval_<name>``)."""
        return os.path.join(self._model_dir, "eval" if not name else "eval_" + name)

    def latest_checkpoint(self):
        """The newest checkpoint in ``model_dir`` (None before any)."""
        return latest_checkpoint(self._model_dir)

    def get_variable_names(self) -> list:
        """The names of the variables in ``model_dir``'s newest checkpoint."""
        return [name for name, _ in list_variables(self._checkpoint_dir())]

    def get_variable_value(self, name):
        """The value of variable ``name`` in ``model_dir``'s newest checkpoint."""
        return load_variable(self._checkpoint_dir(), name)

    def _checkpoint_dir(self) -> str:
        if not latest_checkpoint(self._model_dir):
            raise ValueError(f"Could not find trained model in model_dir: {self._model_dir}.")
        return self._model_dir

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(f"tf.estimator.Estimator.{name} is not supported by TinyFlow")

    # -- train ---------------------------------------------------------------------------------
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Train the model on ``input_fn``'s batches: ``steps`` more steps, or up to the global
        step ``max_steps`` (nothing when the checkpoint is there already), or to the end of
        the input.  ``hooks`` run in the training session; ``saving_listeners``
        (``tf.train.CheckpointSaverListener``) around each checkpoint.  Returns ``self``."""
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        if max_steps is not None and max_steps <= self._checkpoint_global_step():
            info("Skipping training since max_steps has already saved.")
            return self
        hooks = _check_hooks(hooks)
        if steps is not None or max_steps is not None:
            hooks.append(StopAtStepHook(steps, max_steps))
        listeners = list(saving_listeners or [])
        for listener in listeners:
            if not isinstance(listener, CheckpointSaverListener):
                raise TypeError(f"saving_listeners must be a list of CheckpointSaverListener, "
                                f"given: {listener}")
        with Graph().as_default() as graph:
            global_step = self._new_graph(graph)
            features, labels, input_hooks = self._input(input_fn, ModeKeys.TRAIN)
            spec = self._call_model_fn(features, labels, ModeKeys.TRAIN, self.config)
            if self._warm_start_from and not latest_checkpoint(self._model_dir):
                info("Warm-starting from: %s", self._warm_start_from)
                init_from_checkpoint(self._warm_start_from, {
                    v.name.split(":")[0]: v for v in trainable_variables()})
            loss = self._train_with_spec(spec, global_step, input_hooks + hooks, listeners)
        info("Loss for final step: %s.", loss)
        return self

    def _train_with_spec(self, spec, global_step, worker_hooks, listeners):
        graph, config = current_context(), self._config
        if not any(s.op.name == "loss" for s in graph.get_collection(GraphKeys.SUMMARIES)):
            summary.scalar("loss", spec.loss)
        graph.add_to_collection(GraphKeys.LOSSES, spec.loss)
        worker_hooks.append(NanTensorHook(spec.loss))
        if config.log_step_count_steps is not None:
            worker_hooks.append(LoggingTensorHook({"loss": spec.loss, "step": global_step},
                                                  every_n_iter=config.log_step_count_steps))
        worker_hooks.extend(spec.training_hooks)
        if not (spec.scaffold.saver or graph.get_collection(GraphKeys.SAVERS)):
            graph.add_to_collection(GraphKeys.SAVERS, Saver(
                global_variables(), max_to_keep=config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=config.keep_checkpoint_every_n_hours))
        chief_hooks = []
        saver_hooks = [h for h in worker_hooks + list(spec.training_chief_hooks)
                       if isinstance(h, CheckpointSaverHook)]
        if (config.save_checkpoints_secs or config.save_checkpoints_steps) and not saver_hooks:
            chief_hooks = [CheckpointSaverHook(
                self._model_dir, save_secs=config.save_checkpoints_secs,
                save_steps=config.save_checkpoints_steps, scaffold=spec.scaffold)]
            saver_hooks = chief_hooks
        if listeners:
            if not saver_hooks:
                raise ValueError("There should be a CheckpointSaverHook to use "
                                 "saving_listeners. Please set one of the "
                                 "RunConfig.save_checkpoints_steps or "
                                 "RunConfig.save_checkpoints_secs.")
            saver_hooks[0]._listeners.extend(listeners)
        loss, stepped = None, False
        with MonitoredTrainingSession(
                checkpoint_dir=self._model_dir, scaffold=spec.scaffold, hooks=worker_hooks,
                chief_only_hooks=chief_hooks + list(spec.training_chief_hooks),
                save_checkpoint_secs=0, save_summaries_steps=config.save_summary_steps,
                config=config.session_config,
                log_step_count_steps=config.log_step_count_steps) as session:
            while not session.should_stop():
                _, loss = session.run([spec.train_op, spec.loss])
                stepped = True
        if not stepped:
            warning("Training with estimator made no steps. Perhaps input is empty or "
                    "misspecified.")
        return loss

    # -- evaluate ------------------------------------------------------------------------------
    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Evaluate the model of ``checkpoint_path`` (default: the latest in ``model_dir``;
        none: fresh initial values) on ``steps`` batches of ``input_fn`` (default: to the end
        of the input).  Returns ``{metric name: value, "loss": mean loss, "global_step":
        step}``, also written as summaries to :meth:`eval_dir`."""
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        hooks = _check_hooks(hooks)
        checkpoint_path = self._checkpoint_or_latest(checkpoint_path, "evaluate")
        with Graph().as_default() as graph:
            global_step = self._new_graph(graph)
            features, labels, input_hooks = self._input(input_fn, ModeKeys.EVAL)
            spec = self._call_model_fn(features, labels, ModeKeys.EVAL, self.config)
            if LOSS_METRIC_KEY in spec.eval_metric_ops:
                raise ValueError(f'Metric with name "{LOSS_METRIC_KEY}" is not allowed, because '
                                 f'Estimator already defines a default metric with the same '
                                 f'name.')
            metric_ops = {**spec.eval_metric_ops, LOSS_METRIC_KEY: metrics.mean(spec.loss)}
            if GraphKeys.GLOBAL_STEP in metric_ops:
                raise ValueError("Metric with name `global_step` is not allowed, because "
                                 "Estimator already defines a default metric with the same "
                                 "name.")
            values = {name: metric_ops[name][0] for name in sorted(metric_ops)}
            values[GraphKeys.GLOBAL_STEP] = global_step
            updates = [metric_ops[name][1] for name in sorted(metric_ops)]
            results = _evaluate_once(checkpoint_path, spec.scaffold, updates, values,
                                     input_hooks + hooks + list(spec.evaluation_hooks), steps,
                                     self._config.session_config)
            _write_dict_to_summary(self.eval_dir(name), results,
                                   results[GraphKeys.GLOBAL_STEP])
        return results

    def _checkpoint_or_latest(self, checkpoint_path, what: str):
        """``checkpoint_path``, else the latest in ``model_dir`` (None: fresh initial values,
        said as TF's log line)."""
        if not checkpoint_path:
            checkpoint_path = latest_checkpoint(self._model_dir)
            if not checkpoint_path:
                info("Could not find trained model in model_dir: %s, running initialization "
                     "to %s.", self._model_dir, what)
        return checkpoint_path

    # -- predict -------------------------------------------------------------------------------
    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """Yield the predictions of the model of ``checkpoint_path`` (default: the latest in
        ``model_dir``) for ``input_fn``'s features, until the end of the input: one example
        at a time (a dict of the ``predict_keys`` when ``predictions`` is a dict), or batch by
        batch with ``yield_single_examples=False``."""
        hooks = _check_hooks(hooks)
        checkpoint_path = self._checkpoint_or_latest(checkpoint_path, "predict")
        with Graph().as_default() as graph:
            self._new_graph(graph)
            features, _, input_hooks = self._input(input_fn, ModeKeys.PREDICT)
            if not input_hooks and not graph.pulls_outputs:  # no tf.data iterator
                warning("Input graph does not use tf.data.Dataset or contain a QueueRunner. "
                        "That means predict yields forever. This is probably a mistake.")
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, self.config)
            predictions = _extract_keys(spec.predictions, predict_keys)
            creator = ChiefSessionCreator(spec.scaffold, config=self._config.session_config,
                                          checkpoint_filename_with_path=checkpoint_path)
            with MonitoredSession(creator, input_hooks + hooks + list(spec.prediction_hooks)) \
                    as session:
                while not session.should_stop():
                    batch = session.run(predictions)
                    if not yield_single_examples:
                        yield batch
                    elif not isinstance(predictions, dict):
                        yield from batch
                    else:
                        for i in range(_batch_length(batch)):
                            yield {key: value[i] for key, value in batch.items()}

    # -- export --------------------------------------------------------------------------------
    def export_saved_model(self, export_dir_base, serving_input_receiver_fn, assets_extra=None,
                           as_text=False, checkpoint_path=None,
                           experimental_mode=ModeKeys.PREDICT) -> bytes:
        """Export the model of ``checkpoint_path`` (default: the latest in ``model_dir``) for
        serving, as a saved model in a new folder ``<export_dir_base>/<timestamp>``, its path
        returned (bytes): the graph ``model_fn`` builds in PREDICT mode over the features of
        ``serving_input_receiver_fn()``, its signatures of ``export_outputs`` (default: the
        predictions), tagged ``serve`` (:mod:`.exporter`).  Only PREDICT mode is exported."""
        if experimental_mode != ModeKeys.PREDICT:
            raise ValueError(f"export_saved_model(experimental_mode={experimental_mode!r}) is "
                             f"not supported by TinyFlow (only ModeKeys.PREDICT)")
        return export_saved_model(self, export_dir_base, serving_input_receiver_fn,
                                  assets_extra, as_text, checkpoint_path)

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn, assets_extra=None,
                          as_text=False, checkpoint_path=None, strip_default_attrs=False):
        """TF 1.15's older name of :meth:`export_saved_model` (deprecated there)."""
        return export_saved_model(self, export_dir_base, serving_input_receiver_fn,
                                  assets_extra, as_text, checkpoint_path)

    # -- the pieces ----------------------------------------------------------------------------
    def _new_graph(self, graph):
        """Seed ``graph`` and give it a global step (returned)."""
        if self._config.tf_random_seed is not None:
            set_random_seed(self._config.tf_random_seed)
        step = create_global_step(graph)
        assert step is get_global_step(graph)
        return step

    def _input(self, input_fn, mode):
        """``(features, labels, hooks)`` of ``input_fn`` called with what it names of
        ``mode``, ``params`` and ``config``."""
        names = fn_args(input_fn)
        kwargs = {key: value for key, value in (("mode", mode), ("params", self.params),
                                                ("config", self.config)) if key in names}
        return parse_input_fn_result(input_fn(**kwargs))

    def _call_model_fn(self, features, labels, mode, config):
        names = fn_args(self._model_fn)
        kwargs = {}
        if "labels" in names:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        for key, value in (("mode", mode), ("params", self.params), ("config", config)):
            if key in names:
                kwargs[key] = value
        spec = self._model_fn(features=features, **kwargs)
        if not isinstance(spec, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec.")  # noqa: TRY004 - TF's
        return spec

    def _checkpoint_global_step(self) -> int:
        """The global step saved in ``model_dir``'s latest checkpoint (0 without one)."""
        from ...session.session import Session  # imports torch: only when a session is made

        path = latest_checkpoint(self._model_dir)
        if not path:
            return 0
        with Graph().as_default() as graph:
            step = Variable(0, name="global_step", dtype="int64", trainable=False)
            with Session(graph=graph) as session:
                Saver([step]).restore(session, path)
                return int(session.run(step))


def _extract_keys(predictions, predict_keys):
    if not predict_keys:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError(  # noqa: TRY004 - TF's
            "predict_keys argument is not valid in case of non-dict predictions.")
    chosen = {key: value for key, value in predictions.items() if key in predict_keys}
    if not chosen:
        raise ValueError(f"Expected to run at least one output from {list(predictions)}, "
                         f"provided {predict_keys}.")
    return chosen


def _batch_length(batch: dict) -> int:
    length = None
    for key, value in batch.items():
        length = length or value.shape[0]
        if value.shape[0] != length:
            raise ValueError(f"Batch length of predictions should be same. {key} has different "
                             f"batch length than others.")
    return length


class _StopAfterNEvalsHook(SessionRunHook):
    """Requests a stop after ``num_evals`` evaluation steps (never when None), logging the
    progress (TensorFlow's evaluation hook)."""

    def __init__(self, num_evals, evals_completed):
        self._num_evals, self._evals_completed = num_evals, evals_completed
        self._log_every = 1 if num_evals is None or num_evals > 20 else max(num_evals // 10, 1)

    def before_run(self, run_context):
        return SessionRunArgs(self._evals_completed)

    def after_run(self, run_context, run_values):
        done = int(run_values.results)
        if self._num_evals is None:
            info("Evaluation [%d]", done)
        elif done % self._log_every == 0 or done == self._num_evals:
            info("Evaluation [%d/%d]", done, self._num_evals)
        if self._num_evals is not None and done >= self._num_evals:
            run_context.request_stop()


def _evaluate_once(checkpoint_path, scaffold, updates, values, hooks, steps, config) -> dict:
    """Run ``updates`` until ``steps`` or the end of the input in a session restored from
    ``checkpoint_path``; then the ``values`` (a FinalOpsHook's)."""
    eval_step = Variable(0, name="eval_step", dtype="int64", trainable=False,
                         collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.EVAL_STEP])
    evals_completed = assign_add(eval_step, 1)
    final = FinalOpsHook(values)
    hooks = [*hooks, _StopAfterNEvalsHook(steps, evals_completed), final]
    info("Starting evaluation at %s", time.strftime("%Y-%m-%dT%H:%M:%S"))
    start = time.time()
    creator = ChiefSessionCreator(scaffold, config=config,
                                  checkpoint_filename_with_path=checkpoint_path)
    with MonitoredSession(creator, hooks) as session:
        while not session.should_stop():
            session.run([*updates, evals_completed])
    info("Inference Time : %.5fs", time.time() - start)
    return final.final_ops_values


def _write_dict_to_summary(output_dir, results: dict, global_step) -> None:
    """Log ``results`` and write their scalars to ``output_dir`` at ``global_step``."""
    scalars = {key: value for key, value in results.items()
               if isinstance(value, (int, float, np.integer, np.floating))
               or (isinstance(value, np.ndarray) and value.ndim == 0)}
    info("Saving dict for global step %d: %s", global_step, ", ".join(
        "%s = %s" % (key, value)  # noqa: UP031 - str() of numpy scalars, as TF
        for key, value in sorted(results.items()) if not isinstance(value, bytes)))
    writer = SummaryWriterCache.get(output_dir)
    for key in sorted(results):
        if key == GraphKeys.GLOBAL_STEP:
            continue
        if key in scalars:
            writer.add_summary(summary_value(key, simple_value=float(results[key])),
                               global_step)
        else:
            warning("Skipping summary for %s, must be a float, np.float32, np.int64, np.int32 "
                    "or int.", key)
    writer.flush()

