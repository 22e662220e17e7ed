"""``tf.estimator.train_and_evaluate`` with its ``TrainSpec`` and ``EvalSpec``, as TF 1.15 runs
them on one machine (``_TrainingExecutor.run_local``): ``estimator.train`` up to
``train_spec.max_steps``, with a saving listener that evaluates on each new checkpoint (not the
first, the untrained one), at most once every ``eval_spec.throttle_secs`` seconds, and on the
last one when training ends, if that step was not evaluated yet.  ``exporters`` need SavedModel
export, which TinyFlow lacks.
"""
from __future__ import annotations

import collections

from ..session_run_hooks import CheckpointSaverListener, SecondOrStepTimer, SessionRunHook
from .estimator import Estimator

__all__ = ["EvalSpec", "TrainSpec", "train_and_evaluate"]


def _check_hooks(hooks) -> tuple:
    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook}")
    return hooks


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks"])):
    """What ``train_and_evaluate`` trains on: ``input_fn``, up to global step ``max_steps``
    (None: until the input ends), with ``hooks``."""

    def __new__(cls, input_fn, max_steps=None, hooks=None):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(cls, input_fn, max_steps, _check_hooks(hooks))


class EvalSpec(collections.namedtuple("EvalSpec", [
        "input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs",
        "throttle_secs"])):
    """How ``train_and_evaluate`` evaluates: ``steps`` batches of ``input_fn`` (None: to its
    end), under ``name``, at most every ``throttle_secs`` seconds."""

    def __new__(cls, input_fn, steps=100, name=None, hooks=None, exporters=None,
                start_delay_secs=120, throttle_secs=600):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name}")
        if exporters:
            raise TypeError("EvalSpec(exporters=...) is not supported by TinyFlow (no "
                            "SavedModel export)")
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        return super().__new__(cls, input_fn, steps, name, _check_hooks(hooks), (),
                               start_delay_secs, throttle_secs)


class _EvaluateOnCheckpoints(CheckpointSaverListener):
    """TF's ``_NewCheckpointListenerForEvaluate``: evaluates each new checkpoint but the first,
    throttled, and the last one at the end."""

    def __init__(self, estimator, eval_spec):
        self._estimator, self._spec = estimator, eval_spec
        self.eval_result, self._evaluated_path = None, None

    def begin(self):
        self._timer = SecondOrStepTimer(every_secs=self._spec.throttle_secs)
        self._is_first_run = True

    def after_save(self, session, global_step_value):
        if self._is_first_run:  # the checkpoint of the untrained model
            self._is_first_run = False
            return
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)

    def end(self, session, global_step_value):
        if global_step_value != self._timer.last_triggered_step():
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value):
        self._timer.update_last_triggered_step(global_step_value)
        path = self._estimator.latest_checkpoint()
        if path is None or path == self._evaluated_path:
            raise RuntimeError("There was no new checkpoint after the training.")
        self._evaluated_path = path
        self.eval_result = self._estimator.evaluate(
            self._spec.input_fn, steps=self._spec.steps, name=self._spec.name,
            checkpoint_path=path, hooks=list(self._spec.hooks))


def train_and_evaluate(estimator, train_spec, eval_spec) -> tuple:
    """Train ``estimator`` as ``train_spec`` says, evaluating as ``eval_spec`` says; returns
    ``(the last evaluation's metrics, the export results)`` (exports: None), as TF 1.15's
    local run."""
    if not isinstance(estimator, Estimator):
        raise TypeError(f"`estimator` must have type `tf.estimator.Estimator`. Got: "
                        f"{type(estimator)}")
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(f"`train_spec` must have type `tf.estimator.TrainSpec`. Got: "
                        f"{type(train_spec)}")
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(f"`eval_spec` must have type `tf.estimator.EvalSpec`. Got: "
                        f"{type(eval_spec)}")
    listener = _EvaluateOnCheckpoints(estimator, eval_spec)
    estimator.train(train_spec.input_fn, hooks=list(train_spec.hooks),
                    max_steps=train_spec.max_steps, saving_listeners=[listener])
    return listener.eval_result, None
