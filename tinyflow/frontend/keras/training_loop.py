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
"""
from __future__ import annotations

import time

import numpy as np

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
    whole batches with ``shuffle="batch"``."""
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


def _epoch(model, made, arrays, batch_size, order, callbacks) -> dict:
    """One pass over ``arrays`` in ``order``: the samples' mean loss and metrics."""
    x, y, weights = arrays
    session, totals, seen = backend.get_session(), np.zeros(len(made["names"])), 0
    for index, batch in enumerate(_batches(len(x), batch_size, order)):
        logs = {"batch": index, "size": len(batch)}
        callbacks.call("on_train_batch_begin", index, logs)
        values = session.run([made["train"], *made["tensors"]], training.feed(
            model, x[batch], y[batch], weights[batch], training=True))[1:]
        totals += np.asarray(values, dtype=np.float64) * len(batch)
        seen += len(batch)
        logs.update(zip(made["names"], (float(v) for v in values)))
        callbacks.call("on_train_batch_end", index, logs)
        if model.stop_training:
            break
    return dict(zip(made["names"], (totals / max(seen, 1)).tolist()))


def fit(model, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None,
        validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
        sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
        validation_freq=1, **unsupported):
    """Train for ``epochs`` (from ``initial_epoch``) over ``x``, ``y`` in batches of
    ``batch_size`` (32); the :class:`~.callbacks.History` of the epochs' logs."""
    _refuse_given("fit", steps_per_epoch=steps_per_epoch, validation_steps=validation_steps,
                  **unsupported)
    train, validation = _split(*training.arrays(model, x, y, sample_weight, class_weight),
                               validation_split, validation_data)
    made = training.compiled(model)
    if validation_data is not None:
        validation = training.arrays(model, *validation)
    backend.get_session()  # made (torch imported) before the first epoch's clock starts
    model.history = callbacks_module.History()
    callbacks = callbacks_module.CallbackList(
        [*(callbacks or []), model.history, *([callbacks_module.ProgbarLogger()]
                                              if verbose else [])], model,
        {"batch_size": batch_size or 32, "epochs": epochs, "steps": None,
         "samples": len(train[0]), "verbose": verbose, "do_validation": validation is not None,
         "metrics": made["names"] + [f"val_{n}" for n in made["names"]] * (
             validation is not None)})
    if verbose and epochs > initial_epoch:
        print(f"Train on {len(train[0])} samples" + (
            f", validate on {len(validation[0])} samples" if validation is not None else ""))
    model.stop_training = False
    callbacks.call("on_train_begin", {})
    for epoch in range(initial_epoch, epochs):
        callbacks.call("on_epoch_begin", epoch, {})
        logs = _epoch(model, made, train, batch_size,
                      _order(len(train[0]), batch_size, shuffle), callbacks)
        if validation is not None and (epoch + 1) % validation_freq == 0 and \
                not model.stop_training:
            # Keras' validation loop keeps its default shuffle=True: it draws an order too
            means = _test(model, made, validation, batch_size, _order(
                len(validation[0]), batch_size, True), callbacks_module.CallbackList([], model, {}))
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


def _test(model, made, arrays, batch_size, order, callbacks) -> list:
    """The mean loss and metrics over ``arrays`` (checked), taken in ``order``."""
    x, y, weights = arrays
    session, totals = backend.get_session(), np.zeros(len(made["names"]))
    callbacks.call("on_test_begin", {})
    for index, batch in enumerate(_batches(len(x), batch_size, order)):
        callbacks.call("on_test_batch_begin", index, {"batch": index, "size": len(batch)})
        values = session.run(made["tensors"], training.feed(model, x[batch], y[batch],
                                                            weights[batch]))
        totals += np.asarray(values, dtype=np.float64) * len(batch)
        callbacks.call("on_test_batch_end", index, {"batch": index, "size": len(batch),
                                                    **dict(zip(made["names"], values))})
    callbacks.call("on_test_end", {})
    return (totals / max(len(x), 1)).tolist()


def evaluate(model, x=None, y=None, batch_size=None, verbose=1, sample_weight=None,
             steps=None, callbacks=None, **unsupported):
    """The mean loss (and metrics) over ``x``, ``y``, the learning phase False."""
    _refuse_given("evaluate", steps=steps, **unsupported)
    arrays, started = training.arrays(model, x, y, sample_weight), time.time()
    made = training.compiled(model)
    means = _test(model, made, arrays, batch_size, None, callbacks_module.CallbackList(
        callbacks or [], model, {"samples": len(arrays[0])}))
    if verbose:
        print(callbacks_module.progress_line(len(arrays[0]), dict(zip(made["names"], means)),
                                             verbose, time.time() - started))
    return training.results(means)


def predict(model, x, batch_size=None, verbose=0, steps=None, callbacks=None,
            **unsupported):
    """The model's outputs for ``x``, computed in batches, the learning phase False."""
    _refuse_given("predict", steps=steps, **unsupported)
    if model.outputs is None or len(model.outputs) != 1 or len(model.inputs) != 1:
        raise training._refuse("predict of a model without exactly one input and one output")
    x, _, _ = training.arrays(model, x, need_targets=False)
    callbacks = callbacks_module.CallbackList(callbacks or [], model, {"samples": len(x)})
    session, parts = backend.get_session(), []
    callbacks.call("on_predict_begin", {})
    for index, batch in enumerate(_batches(len(x), batch_size)):
        callbacks.call("on_predict_batch_begin", index, {"batch": index, "size": len(batch)})
        parts.append(session.run(model.outputs[0], training.feed(model, x[batch])))
        callbacks.call("on_predict_batch_end", index, {"batch": index, "size": len(batch),
                                                       "outputs": parts[-1]})
    callbacks.call("on_predict_end", {})
    if not parts:
        shape = model.outputs[0].get_shape().as_list()
        return np.zeros([0] + [d or 0 for d in shape[1:]], np.float32)
    return np.concatenate(parts)
