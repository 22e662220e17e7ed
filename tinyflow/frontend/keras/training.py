"""``Model.compile`` / ``fit`` / ``evaluate`` / ``predict`` (and the ``*_on_batch`` forms) as
TensorFlow 1.15's Keras runs them in graph mode, for a model of one input and one output: a
training loop over numpy arrays in :func:`~.backend.get_session`'s session.

- ``compile(optimizer, loss, metrics)``: ``optimizer`` a ``tf.train`` optimizer, or
  ``"sgd"`` / ``"adam"`` (``tf.train``'s with Keras' defaults: SGD at 0.01; Adam at 0.001 with
  ``epsilon=1e-7``, the same update as Keras' Adam); ``loss`` a ``tf.keras.losses`` function,
  name or object; ``metrics`` ``"accuracy"`` (``"acc"``: the sparse / categorical / binary
  accuracy that goes with the loss, reported as ``acc`` as TF 1.15 does) or loss functions.
  The training loss is the batch's mean loss plus the model's ``losses`` (regularization);
  the train op runs the model's ``updates`` (batch norm's moving averages) too.
- ``fit`` feeds the learning phase True, shuffles each epoch with numpy's global random
  generator (as Keras), and returns a :class:`History` whose ``history`` has the epochs' mean
  ``loss`` and metrics (``val_`` ones with ``validation_data``).
- Callbacks, ``validation_split``, sample and class weights, generators and several inputs or
  outputs are not supported (NotImplementedError says so).
"""
from __future__ import annotations

import numpy as np

from ...nnvm.symbol import current_context
from .. import api, array_ops, train
from . import backend, losses

__all__ = ["History"]

_OPTIMIZERS = {"sgd": lambda: train.GradientDescentOptimizer(0.01),
               "adam": lambda: train.AdamOptimizer(0.001, epsilon=1e-7)}
_ACCURACY_BY_LOSS = {"sparse_categorical_crossentropy": "sparse_categorical_accuracy",
                     "binary_crossentropy": "binary_accuracy"}


class History:
    """What :func:`fit` returns: ``history`` {name: [a value per epoch]}, ``epoch``."""

    def __init__(self, model, history: dict, epochs: list, params: dict) -> None:
        self.model, self.history, self.epoch, self.params = model, history, epochs, params


def _refuse(what: str):
    return NotImplementedError(f"tf.keras.Model: {what} is not supported by TinyFlow")


def _accuracy(kind, y_true, y_pred):
    if kind == "sparse_categorical_accuracy":
        labels = api.cast(array_ops.reshape(y_true, [-1]), "int64")
        return api.cast(api.equal(labels, api.argmax(y_pred, -1)), "float32")
    if kind == "binary_accuracy":
        return api.reduce_mean(api.cast(api.equal(
            y_true, api.cast(api.greater(y_pred, 0.5), "float32")), "float32"), axis=-1)
    return api.cast(api.equal(api.argmax(y_true, -1), api.argmax(y_pred, -1)), "float32")


def _loss_name(loss) -> str:
    return getattr(loss, "__name__", None) or getattr(loss, "name", None) or ""


def compile(model, optimizer, loss=None, metrics=None, **unsupported) -> None:
    """Build the model's loss, metrics and train op (see the module doc)."""
    given = sorted(k for k, v in unsupported.items() if v is not None)
    if given:
        raise _refuse(f"compile's {', '.join(given)}")
    if model.outputs is None or len(model.outputs) != 1 or len(model.inputs) != 1:
        raise _refuse("compile of a model without exactly one input and one output "
                      "(call it on an Input first)")
    if isinstance(optimizer, str):
        if optimizer.lower() not in _OPTIMIZERS:
            raise _refuse(f"the optimizer {optimizer!r} (give 'sgd', 'adam' or a tf.train "
                          f"optimizer)")
        optimizer = _OPTIMIZERS[optimizer.lower()]()
    if getattr(model.outputs[0], "_keras_mask", None) is not None:
        raise _refuse("compile of a model whose output has a mask (Keras weights the loss "
                      "by it; end the model with a layer that drops the mask, as an RNN "
                      "returning its last output does)")
    loss = losses.get(loss)
    if loss is None:
        raise ValueError("compile needs a loss")
    output = model.outputs[0]
    with current_context().name_scope(None):
        targets = api.placeholder("float32", None, name=f"{output.op.name.split('/')[0]}_target")
    per_sample = loss(targets, output)
    mean = per_sample if isinstance(loss, losses.Loss) else api.reduce_mean(per_sample)
    total = api.add_n([mean, *model.losses]) if model.losses else mean
    step = optimizer.minimize(total, var_list=model.trainable_weights)
    names, tensors = ["loss"], [mean]
    for metric in metrics or []:
        if metric in ("accuracy", "acc"):
            kind = _ACCURACY_BY_LOSS.get(_loss_name(loss), "categorical_accuracy")
            names.append("acc")
            tensors.append(api.reduce_mean(_accuracy(kind, targets, output)))
        else:
            function = losses.get(metric)
            names.append(_loss_name(function))
            tensors.append(api.reduce_mean(function(targets, output)))
    model._compiled = {"targets": targets, "names": names, "tensors": tensors,
                       "train": api.group(step, *model.updates), "optimizer": optimizer}


def _compiled(model) -> dict:
    compiled = getattr(model, "_compiled", None)
    if compiled is None:
        raise RuntimeError("You must compile your model before training/testing. Use "
                           "`model.compile(optimizer, loss)`.")
    return compiled


def _feed(model, x, y=None, training=False) -> dict:
    feed = {model.inputs[0]: x}
    if y is not None:
        feed[_compiled(model)["targets"]] = y
    phase = backend.learning_phase()
    if not isinstance(phase, int):
        feed[phase] = training
    return feed


def _arrays(x, y, what):
    if isinstance(x, (list, tuple, dict)) or isinstance(y, (list, tuple, dict)):
        raise _refuse(f"{what} of several inputs or outputs")
    x = np.asarray(x)
    if y is not None:
        y = np.asarray(y, dtype=np.float32)
        if len(y) != len(x):
            raise ValueError(f"Input arrays should have the same number of samples as target "
                             f"arrays. Found {len(x)} input samples and {len(y)} target "
                             f"samples.")
    return x, y


def _batches(count: int, batch_size, order=None):
    order = np.arange(count) if order is None else order
    size = 32 if batch_size is None else int(batch_size)
    return [order[start:start + size] for start in range(0, count, size)]


def _results(names, values):
    return values[0] if len(names) == 1 else list(values)


def fit(model, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None,
        validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
        sample_weight=None, initial_epoch=0, steps_per_epoch=None, **unsupported) -> History:
    """Train for ``epochs`` over ``x``, ``y`` in batches of ``batch_size`` (32)."""
    for name, value in (("callbacks", callbacks), ("validation_split", validation_split or None),
                        ("class_weight", class_weight), ("sample_weight", sample_weight),
                        ("steps_per_epoch", steps_per_epoch), *unsupported.items()):
        if value is not None:
            raise _refuse(f"fit's {name}")
    compiled, (x, y) = _compiled(model), _arrays(x, y, "fit")
    session, names = backend.get_session(), compiled["names"]
    history = {name: [] for name in names}
    for epoch in range(initial_epoch, epochs):
        order = np.random.permutation(len(x)) if shuffle else None
        totals = np.zeros(len(names))
        for batch in _batches(len(x), batch_size, order):
            values = session.run([compiled["train"], *compiled["tensors"]],
                                 _feed(model, x[batch], y[batch], training=True))[1:]
            totals += np.asarray(values, dtype=np.float64) * len(batch)
        logs = dict(zip(names, (totals / max(len(x), 1)).tolist()))
        if validation_data is not None:
            checked = evaluate(model, *validation_data[:2], batch_size=batch_size, verbose=0)
            logs.update({f"val_{n}": v for n, v in zip(names, np.atleast_1d(checked))})
        for name, value in logs.items():
            history.setdefault(name, []).append(value)
        if verbose:
            print(f"Epoch {epoch + 1}/{epochs}")
            print(f"{len(x)}/{len(x)} - " + " - ".join(f"{k}: {v:.4f}" for k, v in logs.items()))
    return History(model, history, list(range(initial_epoch, epochs)),
                   {"batch_size": batch_size, "epochs": epochs, "samples": len(x)})


def evaluate(model, x=None, y=None, batch_size=None, verbose=1, sample_weight=None,
             steps=None, **unsupported):
    """The mean loss (and metrics) over ``x``, ``y``, the learning phase False."""
    if sample_weight is not None or steps is not None or unsupported:
        raise _refuse("evaluate's sample_weight, steps and callbacks")
    compiled, (x, y) = _compiled(model), _arrays(x, y, "evaluate")
    session, totals = backend.get_session(), np.zeros(len(compiled["names"]))
    for batch in _batches(len(x), batch_size):
        values = session.run(compiled["tensors"], _feed(model, x[batch], y[batch]))
        totals += np.asarray(values, dtype=np.float64) * len(batch)
    return _results(compiled["names"], (totals / max(len(x), 1)).tolist())


def predict(model, x, batch_size=None, verbose=0, steps=None, **unsupported):
    """The model's outputs for ``x``, computed in batches, the learning phase False."""
    if steps is not None or unsupported:
        raise _refuse("predict's steps and callbacks")
    if model.outputs is None or len(model.outputs) != 1 or len(model.inputs) != 1:
        raise _refuse("predict of a model without exactly one input and one output")
    x, _ = _arrays(x, None, "predict")
    session = backend.get_session()
    parts = [session.run(model.outputs[0], _feed(model, x[batch]))
             for batch in _batches(len(x), batch_size)]
    return np.concatenate(parts) if parts else np.zeros((0,))


def train_on_batch(model, x, y):
    """One training step on ``x``, ``y``; the batch's loss (and metrics) before it."""
    compiled, (x, y) = _compiled(model), _arrays(x, y, "train_on_batch")
    values = backend.get_session().run([compiled["train"], *compiled["tensors"]],
                                       _feed(model, x, y, training=True))[1:]
    return _results(compiled["names"], [float(v) for v in values])


def test_on_batch(model, x, y):
    """The loss (and metrics) of ``x``, ``y``, the learning phase False."""
    compiled, (x, y) = _compiled(model), _arrays(x, y, "test_on_batch")
    values = backend.get_session().run(compiled["tensors"], _feed(model, x, y))
    return _results(compiled["names"], [float(v) for v in values])


def predict_on_batch(model, x):
    """The model's outputs for one batch ``x``."""
    return predict(model, x, batch_size=len(x))
