"""``Model.compile`` and the one-batch steps (``train_on_batch``, ``test_on_batch``,
``predict_on_batch``) as TensorFlow 1.15's Keras builds them in graph mode, for a model of one
input and one output, in :func:`~.backend.get_session`'s session; ``save_weights`` /
``load_weights``.  The loops over numpy arrays (``fit``, ``evaluate``, ``predict``) are
:mod:`.training_loop`'s.

- ``compile(optimizer, loss, metrics, loss_weights)``: ``optimizer`` a name (``"adam"``:
  :mod:`.optimizers`' with Keras' defaults), a Keras optimizer or a ``tf.train`` optimizer;
  ``loss`` a ``tf.keras.losses`` function, name or object; ``metrics`` names or functions:
  ``"accuracy"`` / ``"acc"`` is the binary (an output of one unit, or binary cross-entropy),
  sparse (sparse categorical cross-entropy) or categorical accuracy, ``"crossentropy"`` /
  ``"ce"`` the cross-entropy of that kind, reported as ``acc`` / ``ce`` (TF 1.15's names);
  other metrics under their function's name (``"mae"``: ``mean_absolute_error``).
- The training loss is ``loss_weight * sum(loss * sample_weight) / batch`` plus the model's
  ``losses`` (regularization); that total is the reported ``loss``; metrics are unweighted.
  The train op runs the model's ``updates`` (batch norm's moving averages) too.
- Targets of one dimension are made ``(n, 1)``, as Keras does; ``class_weight`` gives each
  sample its class's weight (``sample_weight`` wins when both are given).
- ``save_weights(path)`` writes a TensorFlow checkpoint of the model's weights under TF's
  object-based keys (``layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE``), which
  ``load_weights`` reads back, from TF's own ``save_weights`` files too; HDF5 is not supported.
"""
from __future__ import annotations

import numpy as np

from ...nnvm.symbol import current_context
from .. import api, array_ops
from ..saver import Saver
from . import backend, losses, metrics, optimizers

__all__ = ["compile", "load_weights", "predict_on_batch", "save_weights", "test_on_batch",
           "train_on_batch"]


def _refuse(what: str):
    return NotImplementedError(f"tf.keras.Model: {what} is not supported by TinyFlow")


def _only(value, what, per_output=(list, tuple)):
    """The one output's entry of ``value`` given per output (a dict, or a ``per_output``
    sequence, of one entry)."""
    if isinstance(value, dict):
        value = list(value.values())
    elif not isinstance(value, per_output):
        return value
    if len(value) != 1:
        raise ValueError(f"When passing a list as {what}, it should have one entry per model "
                         f"output. The model has 1 output, but you passed {what}={value!r}")
    return value[0]


def _metrics(given) -> list:
    """The one output's metrics: a list, or a dict / list of lists per output."""
    if isinstance(given, dict) or (isinstance(given, (list, tuple)) and given and
                                   isinstance(given[0], (list, tuple))):
        given = _only(given, "metrics")
    return [given] if isinstance(given, str) or callable(given) else list(given or [])


def _is(loss, function, kind) -> bool:
    return loss is function or isinstance(loss, kind)


def _metric(name_or_function, loss, output):
    """``(name, per-sample function)`` of a metric as TF 1.15 names and picks it."""
    if name_or_function in ("accuracy", "acc", "crossentropy", "ce"):
        accuracy = name_or_function in ("accuracy", "acc")
        if output.get_shape()[-1].value == 1 or _is(
                loss, losses.binary_crossentropy, losses.BinaryCrossentropy):
            kind = "binary"
        elif _is(loss, losses.sparse_categorical_crossentropy,
                 losses.SparseCategoricalCrossentropy):
            kind = "sparse_categorical"
        else:
            kind = "categorical"
        suffix = "accuracy" if accuracy else "crossentropy"
        return ("acc" if accuracy else "ce"), getattr(metrics, f"{kind}_{suffix}")
    if isinstance(name_or_function, str):
        if name_or_function not in metrics.__all__:
            raise ValueError(f"Unknown metric function: {name_or_function}")
        function = getattr(metrics, name_or_function)
    elif callable(name_or_function):
        function = name_or_function
    else:
        raise ValueError(f"Could not interpret metric function identifier: "  # noqa: TRY004
                         f"{name_or_function!r}")
    return getattr(function, "__name__", None) or function.name, function


def _weighted_mean(loss, targets, output, weights):
    """``sum(loss * weights) / count`` (Keras' SUM_OVER_BATCH_SIZE)."""
    if isinstance(loss, losses.Loss):
        return loss(targets, output, sample_weight=weights)
    per_sample = loss(targets, output)
    rank = per_sample.get_shape().ndims
    if rank is not None and rank > 1:  # a loss per time step: each sample's weight on its row
        weights = array_ops.reshape(weights, [-1] + [1] * (rank - 1))
    return api.reduce_mean(per_sample * weights)


def compile(model, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
            sample_weight_mode=None, weighted_metrics=None, target_tensors=None,
            **kwargs) -> None:
    """Build the model's loss, metrics and train op (see the module doc)."""
    given = sorted(k for k, v in (("sample_weight_mode", sample_weight_mode),
                                  ("weighted_metrics", weighted_metrics),
                                  ("target_tensors", target_tensors), *kwargs.items())
                   if v is not None)
    if given:
        raise _refuse(f"compile's {', '.join(given)}")
    if model.inputs is None and hasattr(model, "build_on_data") and model.layers:
        # a Sequential model without an input shape: built (and compiled) on the first data
        model.optimizer = optimizers.get(optimizer)
        model._deferred_compile = {"optimizer": model.optimizer, "loss": loss,
                                   "metrics": metrics, "loss_weights": loss_weights}
        return
    if model.outputs is None or len(model.outputs) != 1 or len(model.inputs) != 1:
        raise _refuse("compile of a model without exactly one input and one output "
                      "(call it on an Input first)")
    if getattr(model.outputs[0], "_keras_mask", None) is not None:
        raise _refuse("compile of a model whose output has a mask (Keras weights the loss "
                      "by it; end the model with a layer that drops the mask, as an RNN "
                      "returning its last output does)")
    optimizer = optimizers.get(optimizer)
    loss = losses.get(_only(loss, "loss"))
    if loss is None:
        raise ValueError("The model cannot be compiled because it has no loss to optimize.")
    weight = 1.0 if loss_weights is None else float(_only(loss_weights, "loss_weights"))
    output = model.outputs[0]
    rank = output.get_shape().ndims
    with current_context().name_scope(None):
        base = output.op.name.split("/")[0]
        targets = api.placeholder("float32", None if rank is None else [None] * rank,
                                  name=f"{base}_target")
        weights = api.placeholder("float32", [None], name=f"{base}_sample_weights")
    mean = _weighted_mean(loss, targets, output, weights)
    total = api.add_n([mean * weight if weight != 1.0 else mean, *model.losses])
    step = optimizer.minimize(total, var_list=model.trainable_weights)
    names, tensors = ["loss"], [total]
    for metric in _metrics(metrics):
        name, function = _metric(metric, loss, output)
        names.append(name)
        tensors.append(api.reduce_mean(function(targets, output)))
    model.optimizer, model.loss = optimizer, loss
    model._compiled = {"targets": targets, "weights": weights, "names": names,
                       "tensors": tensors, "train": api.group(step, *model.updates),
                       "sparse": _is(loss, losses.sparse_categorical_crossentropy,
                                     losses.SparseCategoricalCrossentropy)}


def compiled(model) -> dict:
    """What :func:`compile` built; RuntimeError when the model was not compiled."""
    made = getattr(model, "_compiled", None)
    if made is None:
        raise RuntimeError("You must compile your model before training/testing. Use "
                           "`model.compile(optimizer, loss)`.")
    return made


def metrics_names(model) -> list:
    """``["loss", <the metrics' names>]`` once compiled."""
    return list(compiled(model)["names"])


def _checked(array, symbol, what, check_sizes=True):
    """``array`` as numpy, its dimensions checked against ``symbol``'s static shape."""
    shape, layer = symbol.get_shape(), symbol.op.name.split("/")[0]
    if shape.ndims is None:
        return array
    if array.ndim != shape.ndims:
        raise ValueError(f"Error when checking {what}: expected {layer} to have "
                         f"{shape.ndims} dimensions, but got array with shape {array.shape}")
    expected = shape.as_list()
    if check_sizes and any(d is not None and d != a for d, a in zip(expected[1:],
                                                                    array.shape[1:])):
        raise ValueError(f"Error when checking {what}: expected {layer} to have "
                         f"shape {tuple(expected[1:])} but got array with shape "
                         f"{array.shape}")
    return array


def arrays(model, x, y=None, sample_weight=None, class_weight=None, need_targets=True):
    """``x``, ``y`` (one dimension made two), and the samples' weights, checked."""
    if isinstance(x, (list, tuple, dict)) or isinstance(y, (list, tuple, dict)):
        if not (isinstance(x, (list, tuple)) and len(x) == 1):
            raise _refuse("training on several inputs or outputs, or on generators")
        x = x[0]
    given, x = type(x).__name__, np.asarray(x)
    if x.dtype == object or x.ndim == 0:
        raise _refuse(f"training on {given} data (give numpy arrays or a tf.data Dataset)")
    if model.inputs is None and hasattr(model, "build_on_data"):
        model.build_on_data(x)
        if getattr(model, "_deferred_compile", None) is not None:
            compile(model, **model.__dict__.pop("_deferred_compile"))
    x = _checked(x, model.inputs[0], "input")
    if y is None:
        if need_targets:
            raise ValueError("Please provide target data `y`: the model's loss compares its "
                             "output with them")
        return x, None, None
    y = np.asarray(y, dtype=np.float32)
    y = y[:, None] if y.ndim == 1 else y
    if len(y) != len(x):
        raise ValueError(f"Input arrays should have the same number of samples as target "
                         f"arrays. Found {len(x)} input samples and {len(y)} target "
                         f"samples.")
    made = compiled(model)
    y = _checked(y, model.outputs[0], "target", check_sizes=not made["sparse"])
    return x, y, _sample_weights(y, sample_weight, class_weight)


def _sample_weights(y, sample_weight, class_weight):
    """Each sample's weight: ``sample_weight``, else its class's in ``class_weight``, else
    1."""
    if sample_weight is not None:
        weights = np.asarray(sample_weight, dtype=np.float32)
        if weights.shape != (len(y),):
            raise ValueError(f"Found a sample_weight array with shape {weights.shape} for an "
                             f"input with shape {y.shape}: sample_weight should have shape "
                             f"({len(y)},)")
        return weights
    if not class_weight:
        return np.ones(len(y), np.float32)
    classes = (np.argmax(y, axis=1) if y.shape[1] > 1 else y[:, 0]).astype(np.int64)
    missing = sorted(set(classes.tolist()) - set(class_weight))
    if missing:
        raise ValueError(f"`class_weight` must contain all classes in the data. The classes "
                         f"{set(missing)} exist in the data but not in `class_weight`.")
    return np.asarray([class_weight[c] for c in classes.tolist()], np.float32)


def feed(model, x, y=None, weights=None, training=False) -> dict:
    """The feeds of one batch: inputs, targets and weights, the learning phase."""
    made = {model.inputs[0]: x}
    if y is not None:
        made[compiled(model)["targets"]] = y
        made[compiled(model)["weights"]] = weights
    phase = backend.learning_phase()
    if not isinstance(phase, int):
        made[phase] = training
    return made


def results(values: list):
    """The loss alone, or ``[loss, metrics...]``."""
    values = [float(v) for v in values]
    return values[0] if len(values) == 1 else values


def train_on_batch(model, x, y=None, sample_weight=None, class_weight=None,
                   reset_metrics=True):
    """One training step on ``x``, ``y``; the batch's loss (and metrics) before it."""
    x, y, weights = arrays(model, x, y, sample_weight, class_weight)
    made = compiled(model)
    values = backend.get_session().run([made["train"], *made["tensors"]],
                                       feed(model, x, y, weights, training=True))[1:]
    return results(values)


def test_on_batch(model, x, y=None, sample_weight=None, reset_metrics=True):
    """The loss (and metrics) of ``x``, ``y``, the learning phase False."""
    x, y, weights = arrays(model, x, y, sample_weight)
    values = backend.get_session().run(compiled(model)["tensors"], feed(model, x, y, weights))
    return results(values)


def predict_on_batch(model, x):
    """The model's outputs for one batch ``x``."""
    if model.outputs is None or len(model.outputs) != 1 or len(model.inputs) != 1:
        raise _refuse("predict of a model without exactly one input and one output")
    x, _, _ = arrays(model, x, need_targets=False)
    return backend.get_session().run(model.outputs[0], feed(model, x))


def _weights_saver(model, filepath, save_format) -> Saver:
    """A Saver of the model's weights under TF's object-based checkpoint keys."""
    if save_format not in (None, "tf") or str(filepath).endswith((".h5", ".keras", ".hdf5")):
        raise _refuse("HDF5 weights files (give a path without .h5: TensorFlow's checkpoint "
                      "format)")
    layers = [layer for layer in model.layers if layer.weights]
    keys = {f"layer_with_weights-{i}/{w.op.name.rsplit('/', 1)[-1]}/.ATTRIBUTES/"
            f"VARIABLE_VALUE": w for i, layer in enumerate(layers) for w in layer.weights}
    return Saver(var_list=keys, allow_empty=False)


def save_weights(model, filepath, overwrite=True, save_format=None) -> None:
    """Write the model's weights to the TensorFlow checkpoint ``filepath`` (a prefix:
    ``filepath.index``, ``filepath.data-00000-of-00001`` and the folder's ``checkpoint``)."""
    saver = _weights_saver(model, filepath, save_format)
    saver.save(backend.get_session(), str(filepath), write_meta_graph=False)


def load_weights(model, filepath, by_name=False) -> None:
    """Read the model's weights from the checkpoint ``filepath`` :func:`save_weights` (or
    TensorFlow's) wrote."""
    if by_name:
        raise _refuse("load_weights(by_name=True) (an HDF5 option)")
    _weights_saver(model, filepath, None).restore(backend.get_session(), str(filepath))
