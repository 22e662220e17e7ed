"""``tf.estimator.RunConfig``: where an Estimator keeps its model and how often it saves
(TensorFlow 1.15's defaults and checks; one process, so always the chief)."""
from __future__ import annotations

import os

__all__ = ["RunConfig"]

_USE_DEFAULT = object()
_FIELDS = ("model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
           "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
           "keep_checkpoint_every_n_hours", "log_step_count_steps")


class RunConfig:
    """How an Estimator runs.

    Parameters
    ----------
    model_dir : str, optional
        Checkpoints and event files go there (the Estimator's ``model_dir`` if not given).
    tf_random_seed : int, optional
        The graph-level seed of every graph the Estimator builds (``tf.set_random_seed``).
    save_summary_steps : int
        Summaries (the loss among them) every this many steps (100; None or 0: never).
    save_checkpoints_steps, save_checkpoints_secs : int, optional
        A checkpoint every this many steps or seconds, not both; neither given: every 600
        seconds; both None: only at the end of training.
    session_config : tf.ConfigProto, optional
        The config of the sessions.
    keep_checkpoint_max : int
        How many checkpoints are kept (5; None or 0: all).
    keep_checkpoint_every_n_hours : int
        Accepted for TensorFlow's signature; TinyFlow's Saver keeps ``keep_checkpoint_max``.
    log_step_count_steps : int
        The loss and the steps per second are logged every this many steps (100; None:
        never).
    """

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_steps=_USE_DEFAULT, save_checkpoints_secs=_USE_DEFAULT,
                 session_config=None, keep_checkpoint_max=5,
                 keep_checkpoint_every_n_hours=10000, log_step_count_steps=100,
                 train_distribute=None, device_fn=None, protocol=None, eval_distribute=None,
                 experimental_distribute=None, experimental_max_worker_delay_secs=None,
                 session_creation_timeout_secs=7200):
        if any(x is not None for x in (train_distribute, eval_distribute,
                                       experimental_distribute, device_fn, protocol)):
            raise ValueError("RunConfig's distribution, device_fn and protocol are not "
                             "supported by TinyFlow (one process, one device)")
        if save_checkpoints_steps is _USE_DEFAULT and save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_steps, save_checkpoints_secs = None, 600
        elif save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_secs = None
        elif save_checkpoints_steps is _USE_DEFAULT:
            save_checkpoints_steps = None
        if save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError("save_checkpoints_steps and save_checkpoints_secs cannot both be "
                             "set.")
        for name, value in (("save_summary_steps", save_summary_steps),
                            ("save_checkpoints_steps", save_checkpoints_steps),
                            ("save_checkpoints_secs", save_checkpoints_secs),
                            ("keep_checkpoint_max", keep_checkpoint_max),
                            ("log_step_count_steps", log_step_count_steps)):
            if value is not None and value < 0:
                raise ValueError(f"{name} should be >= 0, given: {value}")
        self._values = dict(zip(_FIELDS, (
            None if model_dir is None else os.fspath(model_dir), tf_random_seed,
            save_summary_steps, save_checkpoints_steps, save_checkpoints_secs, session_config,
            keep_checkpoint_max, keep_checkpoint_every_n_hours, log_step_count_steps)))

    def __getattr__(self, name):
        if name in _FIELDS:
            return self.__dict__["_values"][name]
        raise AttributeError(f"'RunConfig' object has no attribute {name!r}")

    is_chief = property(lambda self: True)
    master = property(lambda self: "")
    num_ps_replicas = property(lambda self: 0)
    num_worker_replicas = property(lambda self: 1)
    task_type = property(lambda self: "worker")
    task_id = property(lambda self: 0)

    def replace(self, **changes) -> RunConfig:
        """A copy with ``changes`` (names among the constructor's)."""
        unknown = set(changes) - set(_FIELDS)
        if unknown:
            raise ValueError(f"{sorted(unknown)} cannot be replaced in RunConfig (TinyFlow "
                             f"replaces {list(_FIELDS)})")
        values = {**self._values, **changes}
        for given, other in (("save_checkpoints_steps", "save_checkpoints_secs"),
                             ("save_checkpoints_secs", "save_checkpoints_steps")):
            if changes.get(given) is not None and other not in changes:
                values[other] = None  # TF: the one given replaces the other
        return RunConfig(**values)

    def __repr__(self):
        return f"RunConfig({', '.join(f'{k}={v!r}' for k, v in self._values.items())})"
