"""``Model.fit`` / ``evaluate`` / ``predict`` over numpy arrays as TensorFlow 1.15's Keras runs
them in graph mode (its ``training_arrays`` loop), in :func:`~.backend.get_session`'s session,
the steps being :mod:`.training`'s.

- ``fit`` takes ``validation_split`` (the last fraction of the samples, taken before any
  shuffling) or ``validation_data`` (``(x, y)`` or ``(x, y, sample_weight)``), shuffles the
  training samples each epoch with numpy's global generator (``shuffle="batch"``: whole
  batches), feeds the learning phase True, and runs the callbacks (:mod:`.callbacks`: the
  user's, then the model's :class:`~.callbacks.History`, then the progress printer when
  ``verbose``); an epoch's ``loss`` and metrics are their means over its samples.  It stops
  after a batch or an epoch at which a callback set ``model.stop_training``.
- ``evaluate`` gives the mean loss (and metrics) over the samples, ``predict`` the outputs,
  both in batches of ``batch_size`` (32), the learning phase False.
- A ``tf.data`` Dataset of ``(x, y)`` or ``(x, y, sample_weight)`` batches (``x`` alone for
  ``predict``) is read through an initializable iterator in that session: an epoch is
  ``steps_per_epoch`` batches (the iterator going on from the epoch before; training stops,
  warning, when it runs out) or, without it, the whole dataset, from its start.
"""
from __future__ import annotations

import time
import warnings

import numpy as np

from ...nnvm.errors import OutOfRangeError
from ..data.dataset import Dataset
from . import backend, training
from . import callbacks as callbacks_module

__all__ = ["evaluate", "fit", "predict"]


def _batches(count: int, batch_size, order=None) -> list:
    order = np.arange(count) if order is None else order
    size = 32 if batch_size is None else int(batch_size)
    if size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size}")
    return [order[start:start + size] for start in range(0, count, size)]


def _order(count, batch_size, shuffle):
    """An epoch's sample order: Keras' ``np.random.shuffle`` of ``arange(count)``, or of its
    whole batches with ``shuffle="batch"``; None for a Dataset (``count`` None: its order)."""
    if count is None:
        return None
    order = np.arange(count)
    if shuffle == "batch":
        size = 32 if batch_size is None else int(batch_size)
        whole = len(order) // size * size
        batches = order[:whole].reshape(-1, size)
        np.random.shuffle(batches)
        return np.append(batches.ravel(), order[whole:])
    if shuffle:
        np.random.shuffle(order)
    return order


def _split(x, y, weights, validation_split, validation_data):
    """The training arrays and the validation ones (None without validation)."""
    if validation_data is not None:
        if len(validation_data) not in (2, 3):
            raise ValueError(f"When passing validation_data, it must contain 2 (x_val, y_val) "
                             f"or 3 (x_val, y_val, val_sample_weights) items, however it "
                             f"contains {len(validation_data)} items")
        return (x, y, weights), tuple(validation_data) + (None,) * (3 - len(validation_data))
    if validation_split:
        if not 0 < validation_split < 1:
            raise ValueError(f"validation_split must be in (0, 1), got {validation_split}")
        cut = int(len(x) * (1.0 - validation_split))
        return (x[:cut], y[:cut], weights[:cut]), (x[cut:], y[cut:], weights[cut:])
    return (x, y, weights), None


class _DatasetBatches:
    """The checked ``(x, y, weights)`` batches of a Dataset, read in the Keras session."""

    def __init__(self, model, dataset, need_targets=True):
        self.iterator = dataset.make_initializable_iterator()
        self.element = self.iterator.get_next()
        self.model, self.need_targets, self.started = model, need_targets, False

    def restart(self):
        backend.get_session().run(self.iterator.initializer)
        self.started = True

    def __iter__(self):  # until the dataset's end (a caller takes fewer to stop sooner)
        if not self.started:
            self.restart()
        while True:
            try:
                element = backend.get_session().run(self.element)
            except OutOfRangeError:
                self.started = False
                return
            parts = element if isinstance(element, tuple) else (element,)
            yield (training.arrays(self.model, *parts[:2], *parts[2:3]) if self.need_targets
                   else training.arrays(self.model, parts[0], need_targets=False))


def _batches_of(source, batch_size, order):
    """``(index, (x, y, weights))`` of arrays in ``order``'s batches or of a Dataset."""
    if isinstance(source, _DatasetBatches):
        return enumerate(source)
    x, y, weights = source
    return ((i, (x[b], y[b], weights[b])) for i, b in enumerate(_batches(len(x), batch_size,
                                                                         order)))


def _epoch(model, made, arrays, batch_size, order, callbacks, steps=None) -> dict:
    """One pass over ``arrays`` in ``order`` (or ``steps`` batches of a Dataset): the
    samples' mean loss and metrics."""
    session, totals = backend.get_session(), _Means(len(made["names"]), arrays)
    for index, (x, y, weights) in _batches_of(arrays, batch_size, order):
        logs = {"batch": index, "size": len(x)}
        callbacks.call("on_train_batch_begin", index, logs)
        values = session.run([made["train"], *made["tensors"]], training.feed(
            model, x, y, weights, training=True))[1:]
        totals.add(values, len(x))
        logs.update(zip(made["names"], (float(v) for v in values)))
        callbacks.call("on_train_batch_end", index, logs)
        if model.stop_training or index + 1 == steps:
            break
    else:
        if steps is not None:  # Keras' warning, then the training stops
            warnings.warn(f"Your dataset ran out of data; interrupting training. Make sure "
                          f"that your dataset can generate at least `steps_per_epoch * "
                          f"epochs` batches (in this case, {steps} batches).")
            model.stop_training = True
    return dict(zip(made["names"], totals.means()))


def fit(model, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None,
        validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
        sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
        validation_freq=1, **unsupported):
    """Train for ``epochs`` (from ``initial_epoch``) over ``x``, ``y`` in batches of
    ``batch_size`` (32); the :class:`~.callbacks.History` of the epochs' logs."""
    if isinstance(x, Dataset):
        _dataset_arguments("fit", model, y=y, sample_weight=sample_weight,
                           class_weight=class_weight, validation_split=validation_split or None)
        train, validation = _DatasetBatches(model, x), validation_data
    else:
        _refuse_given("fit", steps_per_epoch=steps_per_epoch)
        train, validation = _split(*training.arrays(model, x, y, sample_weight, class_weight),
                                  validation_split, validation_data)
    _refuse_given("fit", **unsupported)
    made = training.compiled(model)
    if isinstance(validation, Dataset):
        validation = _DatasetBatches(model, validation)
    elif validation_data is not None:
        validation = training.arrays(model, *validation)
    backend.get_session()  # made (torch imported) before the first epoch's clock starts
    model.history = callbacks_module.History()
    callbacks = callbacks_module.CallbackList(
        [*(callbacks or []), model.history, *([callbacks_module.ProgbarLogger()]
                                              if verbose else [])], model,
        {"batch_size": batch_size or 32, "epochs": epochs, "steps": steps_per_epoch,
         "samples": _count(train), "verbose": verbose, "do_validation": validation is not None,
         "metrics": made["names"] + [f"val_{n}" for n in made["names"]] * (
             validation is not None)})
    if verbose and epochs > initial_epoch and not isinstance(train, _DatasetBatches):
        print(f"Train on {len(train[0])} samples" + (f", validate on {_count(validation)} "
                                                     f"samples" if validation is not None else ""))
    model.stop_training = False
    callbacks.call("on_train_begin", {})
    for epoch in range(initial_epoch, epochs):
        callbacks.call("on_epoch_begin", epoch, {})
        logs = _epoch(model, made, train, batch_size, _order(_count(train), batch_size, shuffle),
                      callbacks, steps_per_epoch)
        if validation is not None and (epoch + 1) % validation_freq == 0 and \
                not model.stop_training:
            # Keras' validation loop keeps its default shuffle=True: it draws an order too
            means = _test(model, made, validation, batch_size, _order(
                _count(validation), batch_size, True), callbacks_module.CallbackList([], model, {}),
                validation_steps)
            logs.update({f"val_{n}": v for n, v in zip(made["names"], means)})
        callbacks.call("on_epoch_end", epoch, logs)
        if model.stop_training:
            break
    callbacks.call("on_train_end", {})
    return model.history


def _refuse_given(method, **given):
    names = sorted(name for name, value in given.items() if value is not None)
    if names:
        raise training._refuse(f"{method}'s {', '.join(names)}")


def _test(model, made, arrays, batch_size, order, callbacks, steps=None) -> list:
    """The mean loss and metrics over ``arrays`` (checked), taken in ``order`` (or over a
    Dataset's batches: ``steps`` of them, or all from its start)."""
    if isinstance(arrays, _DatasetBatches):  # each test from the dataset's start, as Keras'
        arrays.restart()
    session, totals = backend.get_session(), _Means(len(made["names"]), arrays)
    callbacks.call("on_test_begin", {})
    for index, (x, y, weights) in _batches_of(arrays, batch_size, order):
        callbacks.call("on_test_batch_begin", index, {"batch": index, "size": len(x)})
        values = session.run(made["tensors"], training.feed(model, x, y, weights))
        totals.add(values, len(x))
        callbacks.call("on_test_batch_end", index, {"batch": index, "size": len(x),
                                                    **dict(zip(made["names"], values))})
        if index + 1 == steps:
            break
    callbacks.call("on_test_end", {})
    return totals.means()


class _Means:
    """An epoch's mean loss and metrics: over its samples; over a Dataset's batches, the loss
    by steps and the metrics (Keras' stateful means) by samples."""

    def __init__(self, count, source):
        self.sums, self.samples, self.steps = np.zeros(count), 0, 0
        self.by_steps = isinstance(source, _DatasetBatches)

    def add(self, values, samples):
        values = np.asarray(values, dtype=np.float64)
        weights = np.full(len(values), float(samples))
        if self.by_steps:
            weights[0] = 1.0
        self.sums += values * weights
        self.samples, self.steps = self.samples + samples, self.steps + 1

    def means(self) -> list:
        counts = np.full(len(self.sums), float(max(self.samples, 1)))
        if self.by_steps:
            counts[0] = max(self.steps, 1)
        return (self.sums / counts).tolist()


def _count(source):
    """The samples of arrays, or None for a Dataset (an epoch is counted in batches)."""
    return None if isinstance(source, _DatasetBatches) else len(source[0])


def _dataset_arguments(method, model, **given):
    # what Keras refuses beside a Dataset (its ValueErrors), and a model whose input shape
    # only data would give
    for name in ("y", "sample_weight", "validation_split"):
        if given.pop(name, None) is not None:
            raise ValueError(f"`{name}` argument is not supported when using dataset as input.")
    _refuse_given(method, **given)
    if model.inputs is None:
        raise training._refuse(f"{method} on a Dataset of a model without an input shape "
                               f"(give its first layer input_shape=)")


def evaluate(model, x=None, y=None, batch_size=None, verbose=1, sample_weight=None,
             steps=None, callbacks=None, **unsupported):
    """The mean loss (and metrics) over ``x``, ``y``, the learning phase False."""
    _refuse_given("evaluate", **unsupported)
    if isinstance(x, Dataset):
        _dataset_arguments("evaluate", model, y=y, sample_weight=sample_weight)
        arrays = _DatasetBatches(model, x)
    else:
        _refuse_given("evaluate", steps=steps)
        arrays = training.arrays(model, x, y, sample_weight)
    made, started = training.compiled(model), time.time()
    means = _test(model, made, arrays, batch_size, None, callbacks_module.CallbackList(
        callbacks or [], model, {"samples": _count(arrays)}), steps)
    if verbose and _count(arrays) is not None:
        print(callbacks_module.progress_line(len(arrays[0]), dict(zip(made["names"], means)),
                                             verbose, time.time() - started))
    return training.results(means)


def predict(model, x, batch_size=None, verbose=0, steps=None, callbacks=None,
            **unsupported):
    """The model's outputs for ``x``, computed in batches, the learning phase False."""
    _refuse_given("predict", **unsupported)
    if isinstance(x, Dataset):
        _dataset_arguments("predict", model)
    else:
        _refuse_given("predict", steps=steps)
    if model.outputs is None or len(model.outputs) != 1 or len(model.inputs) != 1:
        raise training._refuse("predict of a model without exactly one input and output")
    if isinstance(x, Dataset):
        source, samples = _DatasetBatches(model, x, need_targets=False), None
        source.restart()
    else:
        x, _, _ = training.arrays(model, x, need_targets=False)
        source = ((x[b], None, None) for b in _batches(len(x), batch_size))  # a batch at a time
        samples = len(x)
    callbacks = callbacks_module.CallbackList(callbacks or [], model, {"samples": samples})
    session, parts = backend.get_session(), []
    callbacks.call("on_predict_begin", {})
    for index, (batch, _, _) in enumerate(source):
        callbacks.call("on_predict_batch_begin", index, {"batch": index, "size": len(batch)})
        parts.append(session.run(model.outputs[0], training.feed(model, batch)))
        callbacks.call("on_predict_batch_end", index, {"batch": index, "size": len(batch),
                                                       "outputs": parts[-1]})
        if index + 1 == steps:
            break
    callbacks.call("on_predict_end", {})
    if not parts:
        shape = model.outputs[0].get_shape().as_list()
        return np.zeros([0] + [d or 0 for d in shape[1:]], np.float32)
    return np.concatenate(parts)
