"""``tf.keras.callbacks`` as TensorFlow 1.15 has them: objects whose methods ``fit`` /
``evaluate`` / ``predict`` call at the start and end of training, of each epoch and of each
batch, with the logs so far (``{"loss": ..., "acc": ..., "val_loss": ...}``).

:class:`History` records each epoch's logs (``fit`` returns it); :class:`EarlyStopping` stops
when a monitored value stops improving; :class:`ModelCheckpoint` saves the weights
(``save_weights``: TensorFlow's checkpoint format); :class:`LearningRateScheduler` sets the
optimizer's ``lr`` each epoch; :class:`TensorBoard` writes the logs as scalars through
``tf.summary.FileWriter``; :class:`LambdaCallback` calls the functions it is given;
:class:`ProgbarLogger` prints the progress (``fit(verbose=1)``: a line per epoch);
:class:`ReduceLROnPlateau` lowers ``lr`` when a monitored value stops improving;
:class:`CSVLogger` writes each epoch's logs to a CSV file; :class:`TerminateOnNaN` stops at a
batch whose loss is NaN or infinite.
"""
from __future__ import annotations

import csv
import os
import time
import warnings

import numpy as np

from .. import events
from ..summary import FileWriter
from ..unsupported import unsupported
from . import backend

__all__ = [
    "CSVLogger", "Callback", "EarlyStopping", "History", "LambdaCallback",
    "LearningRateScheduler", "ModelCheckpoint", "ProgbarLogger", "ReduceLROnPlateau",
    "TensorBoard", "TerminateOnNaN",
]


class Callback:
    """The base: every method does nothing; ``self.model`` and ``self.params`` are set before
    training starts.  ``on_train_batch_*`` call ``on_batch_*`` (Keras' older names)."""

    def __init__(self) -> None:
        self.validation_data, self.model, self.params = None, None, {}

    def set_params(self, params) -> None:
        self.params = params

    def set_model(self, model) -> None:
        self.model = model

    def on_batch_begin(self, batch, logs=None):
        """A training batch starts (``logs``: ``batch``, ``size``)."""

    def on_batch_end(self, batch, logs=None):
        """A training batch ended (``logs``: its loss and metrics too)."""

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_epoch_begin(self, epoch, logs=None):
        """Epoch ``epoch`` (from 0) starts."""

    def on_epoch_end(self, epoch, logs=None):
        """Epoch ``epoch`` ended: ``logs`` has its mean loss and metrics, ``val_`` ones."""

    def on_train_begin(self, logs=None):
        """``fit`` starts."""

    def on_train_end(self, logs=None):
        """``fit`` ends."""

    def on_test_begin(self, logs=None):
        """``evaluate`` starts."""

    def on_test_end(self, logs=None):
        """``evaluate`` ends."""

    def on_predict_begin(self, logs=None):
        """``predict`` starts."""

    def on_predict_end(self, logs=None):
        """``predict`` ends."""

    def on_test_batch_begin(self, batch, logs=None):
        """An ``evaluate`` batch starts."""

    def on_test_batch_end(self, batch, logs=None):
        """An ``evaluate`` batch ended."""

    def on_predict_batch_begin(self, batch, logs=None):
        """A ``predict`` batch starts."""

    def on_predict_batch_end(self, batch, logs=None):
        """A ``predict`` batch ended (``logs["outputs"]``)."""


class CallbackList:
    """Callbacks called in turn (``call(method, *args)``), given the model and params."""

    def __init__(self, callbacks, model, params: dict) -> None:
        self.callbacks = list(callbacks)
        for callback in self.callbacks:
            if not isinstance(callback, Callback):
                raise TypeError(f"callbacks must be tf.keras.callbacks.Callback objects, got "
                                f"{callback!r}")
            callback.set_model(model)
            callback.set_params(params)

    def call(self, method: str, *args) -> None:
        for callback in self.callbacks:
            getattr(callback, method)(*args)


class History(Callback):
    """Each epoch's logs: ``history`` ``{name: [a value per epoch]}``, ``epoch`` the epochs'
    numbers; ``fit`` returns the model's (``model.history``)."""

    def on_train_begin(self, logs=None):
        self.epoch, self.history = [], {}

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for name, value in (logs or {}).items():
            self.history.setdefault(name, []).append(value)


def _value_text(value) -> str:
    return f" {value:.4f}" if abs(value) > 1e-3 else f" {value:.4e}"


def progress_line(samples: int, logs: dict, verbose: int, seconds: float = 0.0,
                  unit: str = "sample") -> str:
    """Keras' line at the end of an epoch: ``10/10 [====] - 0s 21ms/sample - loss: 0.9980``
    (``verbose=2``: without the bar and the time per sample; ``unit`` "step" for a Dataset's
    batches)."""
    line = f"{samples}/{samples}"
    if verbose == 1:
        per_sample = seconds / max(samples, 1)
        each = (f"{per_sample:.0f}s" if per_sample >= 1 else f"{per_sample * 1e3:.0f}ms"
                if per_sample >= 1e-3 else f"{per_sample * 1e6:.0f}us")
        line += f" [{'=' * 30}] - {seconds:.0f}s {each}/{unit}"
    else:
        line += f" - {seconds:.0f}s"
    return line + "".join(f" - {k}:{_value_text(v)}" for k, v in logs.items()
                          if k not in ("batch", "size"))


class ProgbarLogger(Callback):
    """Prints ``Epoch 1/5`` and, at the epoch's end, :func:`progress_line`."""

    def __init__(self, count_mode="samples", stateful_metrics=None) -> None:
        super().__init__()
        self._started = 0.0

    def on_epoch_begin(self, epoch, logs=None):
        print(f"Epoch {epoch + 1}/{self.params['epochs']}")
        self._started, self._steps = time.time(), 0

    def on_train_batch_end(self, batch, logs=None):
        self._steps += 1

    def on_epoch_end(self, epoch, logs=None):
        samples = self.params["samples"]  # None for a Dataset: its epoch counted in steps
        print(progress_line(self._steps if samples is None else samples, logs or {},
                            self.params["verbose"], time.time() - self._started,
                            "sample" if samples is not None else "step"))


class _Monitor(Callback):
    """What EarlyStopping and ModelCheckpoint share: a monitored log value and whether it
    improved (``mode`` "auto": larger is better for an accuracy, smaller otherwise)."""

    def __init__(self, monitor, mode, min_delta=0.0) -> None:
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"{type(self).__name__} mode {mode} is unknown, fallback to auto "
                          f"mode.")
            mode = "auto"
        larger = mode == "max" or (mode == "auto" and ("acc" in monitor or
                                                        monitor.startswith("fmeasure")))
        self.monitor, self.monitor_op = monitor, np.greater if larger else np.less
        self.min_delta = abs(min_delta) if larger else -abs(min_delta)
        self.best = -np.inf if larger else np.inf

    def _current(self, logs):
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"{type(self).__name__} conditioned on metric `{self.monitor}` "
                          f"which is not available. Available metrics are: "
                          f"{','.join(logs or {})}")
        return current


class EarlyStopping(_Monitor):
    """Stop ``fit`` once ``monitor`` has not improved by more than ``min_delta`` for
    ``patience`` epochs; ``restore_best_weights`` then sets the best epoch's weights back."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False) -> None:
        super().__init__(monitor, mode, min_delta)
        self.patience, self.verbose, self.baseline = patience, verbose, baseline
        self.restore_best_weights, self.best_weights = restore_best_weights, None
        self.wait = self.stopped_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait = self.stopped_epoch = 0
        self.best = self.baseline if self.baseline is not None else (
            np.inf if self.monitor_op is np.less else -np.inf)

    def on_epoch_end(self, epoch, logs=None):
        current = self._current(logs)
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best):
            self.best, self.wait = current, 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_epoch, self.model.stop_training = epoch, True
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose > 0:
                    print("Restoring model weights from the end of the best epoch.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1:05d}: early stopping")


class ModelCheckpoint(_Monitor):
    """Save the model's weights after every ``period`` epochs to ``filepath`` formatted with
    ``epoch`` (from 1) and the logs (``"w.{epoch:02d}-{val_loss:.2f}"``); with
    ``save_best_only`` only when ``monitor`` improved.  Saving the whole model
    (``save_weights_only=False``, Keras' default) is not supported: it needs ``model.save``."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch", period=1,
                 **kwargs) -> None:
        if not save_weights_only:
            raise NotImplementedError(
                "ModelCheckpoint(save_weights_only=False) saves the whole model (model.save), "
                "which TinyFlow does not support: give save_weights_only=True (TensorFlow's "
                "checkpoint format)")
        if save_freq != "epoch":
            raise NotImplementedError("ModelCheckpoint: only save_freq='epoch' is supported "
                                      "by TinyFlow")
        super().__init__(monitor, mode)
        self.filepath, self.verbose, self.period = str(filepath), verbose, int(period)
        self.save_best_only, self.save_weights_only = save_best_only, True
        self.epochs_since_last_save = 0

    def on_epoch_end(self, epoch, logs=None):
        self.epochs_since_last_save += 1
        if self.epochs_since_last_save < self.period:
            return
        self.epochs_since_last_save = 0
        path = self.filepath.format(epoch=epoch + 1, **(logs or {}))
        if self.save_best_only:
            current = self._current(logs)
            if current is None or not self.monitor_op(current, self.best):
                if current is not None and self.verbose > 0:
                    print(f"\nEpoch {epoch + 1:05d}: {self.monitor} did not improve from "
                          f"{self.best:0.5f}")
                return
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1:05d}: {self.monitor} improved from "
                      f"{self.best:0.5f} to {current:0.5f}, saving model to {path}")
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1:05d}: saving model to {path}")
        self.model.save_weights(path, overwrite=True)


class LambdaCallback(Callback):
    """A callback of the functions given: ``on_epoch_begin(epoch, logs)``,
    ``on_epoch_end(epoch, logs)``, ``on_batch_begin(batch, logs)``, ``on_batch_end(batch,
    logs)``, ``on_train_begin(logs)``, ``on_train_end(logs)``."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None,
                 on_batch_end=None, on_train_begin=None, on_train_end=None, **kwargs) -> None:
        super().__init__()
        given = {"on_epoch_begin": on_epoch_begin, "on_epoch_end": on_epoch_end,
                 "on_batch_begin": on_batch_begin, "on_batch_end": on_batch_end,
                 "on_train_begin": on_train_begin, "on_train_end": on_train_end, **kwargs}
        for name, function in given.items():
            if function is not None:
                setattr(self, name, function)


class LearningRateScheduler(Callback):
    """At each epoch's start set the optimizer's ``lr`` to ``schedule(epoch, lr)`` (or
    ``schedule(epoch)``); the epoch's logs get ``lr``."""

    def __init__(self, schedule, verbose=0) -> None:
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        if not hasattr(self.model.optimizer, "lr"):
            raise ValueError('Optimizer must have a "lr" attribute.')
        try:  # Keras' newer schedule(epoch, lr), then the older schedule(epoch)
            lr = self.schedule(epoch, float(backend.get_value(self.model.optimizer.lr)))
        except TypeError:
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, np.floating)):
            # Keras' class for this error
            raise ValueError('The output of the "schedule" function should be float.')  # noqa: TRY004
        backend.set_value(self.model.optimizer.lr, lr)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1:05d}: LearningRateScheduler reducing learning rate "
                  f"to {lr}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = backend.get_value(self.model.optimizer.lr)


class ReduceLROnPlateau(Callback):
    """Multiply the optimizer's ``lr`` by ``factor`` (not below ``min_lr``) once ``monitor``
    has not improved by ``min_delta`` for ``patience`` epochs, then wait ``cooldown`` epochs;
    the epochs' logs get ``lr``."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0, **kwargs) -> None:
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.min_delta = kwargs.pop("epsilon", min_delta)  # Keras' older name
        self.mode, self.cooldown, self.min_lr = mode, cooldown, min_lr
        self.best, self.wait, self.cooldown_counter = np.inf, 0, 0

    def _improved(self, current) -> bool:
        if self.mode == "min" or (self.mode != "max" and "acc" not in self.monitor):
            return current < self.best - self.min_delta
        return current > self.best + self.min_delta

    def on_train_begin(self, logs=None):
        larger = self.mode == "max" or (self.mode != "min" and "acc" in self.monitor)
        self.best, self.wait, self.cooldown_counter = -np.inf if larger else np.inf, 0, 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["lr"] = backend.get_value(self.model.optimizer.lr)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Reduce LR on plateau conditioned on metric `{self.monitor}` which "
                          f"is not available. Available metrics are: {','.join(logs)}")
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter, self.wait = self.cooldown_counter - 1, 0
        if self._improved(current):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            old = float(backend.get_value(self.model.optimizer.lr))
            if self.wait >= self.patience and old > self.min_lr:
                new = max(old * self.factor, self.min_lr)
                backend.set_value(self.model.optimizer.lr, new)
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1:05d}: ReduceLROnPlateau reducing learning rate "
                          f"to {new}.")
                self.cooldown_counter, self.wait = self.cooldown, 0


class CSVLogger(Callback):
    """Each epoch's logs as a row of ``filename`` (``epoch`` and the logs' names, sorted, as
    the header; ``append`` adds to an existing file without a second header)."""

    def __init__(self, filename, separator=",", append=False) -> None:
        super().__init__()
        self.filename, self.sep, self.append = str(filename), separator, append
        self.keys = self.writer = self.file = None

    def on_train_begin(self, logs=None):
        header = not (self.append and os.path.exists(self.filename))
        # open across the epochs, closed by on_train_end (Keras' CSVLogger)
        self.file = open(self.filename, "a" if self.append else "w", newline="")  # noqa: SIM115
        self.keys, self.writer, self._header = None, None, header

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
        if self.writer is None:
            self.writer = csv.DictWriter(self.file, fieldnames=["epoch", *self.keys],
                                         delimiter=self.sep)
            if self._header:
                self.writer.writeheader()
        self.writer.writerow({"epoch": epoch, **{k: logs.get(k, "NA") for k in self.keys}})
        self.file.flush()

    def on_train_end(self, logs=None):
        self.file.close()
        self.writer = None


class TerminateOnNaN(Callback):
    """Stop ``fit`` after a batch whose loss is NaN or infinite."""

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not np.isfinite(loss):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class TensorBoard(Callback):
    """TF 1.15's graph-mode TensorBoard callback: ``tf.summary.FileWriter(log_dir)`` (the
    graph first when ``write_graph``) and, at each epoch's end, the logs as scalars at step
    ``epoch`` (``update_freq="batch"`` or a number of samples: ``batch_<name>`` scalars too).
    Histograms, images and embeddings are not supported."""

    def __init__(self, log_dir="./logs", histogram_freq=0, batch_size=32, write_graph=True,
                 write_grads=False, write_images=False, embeddings_freq=0,
                 update_freq="epoch", profile_batch=2, **kwargs) -> None:
        super().__init__()
        if histogram_freq or write_grads or write_images or embeddings_freq:
            raise NotImplementedError("TensorBoard: histograms, gradients, images and "
                                      "embeddings are not supported by TinyFlow")
        self.log_dir, self.write_graph, self.update_freq = str(log_dir), write_graph, update_freq
        self.writer, self._samples, self._written, self._batches = None, 0, 0, 0

    def on_train_begin(self, logs=None):
        graph = backend.get_session().graph if self.write_graph else None
        self.writer = FileWriter(self.log_dir, graph)

    def _write(self, logs, step, prefix="") -> None:
        for name, value in (logs or {}).items():
            if name not in ("batch", "size"):
                self.writer.add_summary(events.summary_value(
                    prefix + name, simple_value=float(value)), step)
        self.writer.flush()

    def on_batch_end(self, batch, logs=None):
        if self.update_freq == "epoch":
            return
        self._samples += (logs or {}).get("size", 1)
        self._batches += 1
        every = 1 if self.update_freq == "batch" else int(self.update_freq)
        if self._samples - self._written >= every:
            self._write(logs, self._batches, "batch_")
            self._written = self._samples

    def on_epoch_end(self, epoch, logs=None):
        self._write(logs, epoch)

    def on_train_end(self, logs=None):
        self.writer.close()


def __getattr__(name):
    raise unsupported("tf.keras.callbacks.", "tinyflow.keras.callbacks", name,
                      {"tf.keras.callbacks.": __all__})


def __dir__():
    return sorted(__all__)
