"""The base of ``tf.keras`` layers as TensorFlow 1.15 has it in graph mode.

The Keras layers ``tf.layers`` has are its classes (one home for their maths) under Keras'
rules, which :class:`Layer` puts on top:

- a layer is named when it is made: ``dense``, ``dense_1``... per graph (``name`` as given);
  its variables are ``tf.Variable`` s named by the name scope of its first call
  (``dense/kernel:0``, ``foo/dense_1/kernel:0`` in ``tf.variable_scope("foo")``); calling the
  object again shares them (variable scopes and ``reuse`` play no part, as in TF's Keras);
- ``training`` left out (or None) is :func:`~.backend.learning_phase`'s: a bool placeholder
  defaulting to False, so Dropout and BatchNormalization infer unless fed True;
- initializers, regularizers and activations may be given by name (``"he_normal"``);
  regularization losses go to ``layer.losses`` and batch norm's moving-average updates to
  ``layer.updates`` only, not to ``tf.GraphKeys.REGULARIZATION_LOSSES`` / ``UPDATE_OPS``
  (TF 1.15's Keras layers add neither; ``tf.layers``' do);
- ``get_weights()`` / ``set_weights()`` read and write the values in
  :func:`~.backend.get_session`'s session.

Each call is recorded on the graph (``graph.keras["history"]``: output -> the layer, its
inputs and arguments), so that a functional :class:`~.models.Model` can apply its layers to
new inputs.
"""
from __future__ import annotations

import contextlib
import inspect

import numpy as np

from ...nnvm.dtypes import as_dtype
from ...nnvm.symbol import Symbol, current_context
from ...nnvm.variables import Variable
from .. import api
from .. import layers as tf_layers
from . import activations, backend, initializers, regularizers

__all__ = ["Layer"]

_SHAPE_ARGUMENTS = ("input_shape", "batch_input_shape", "batch_size", "input_dim")


def _by_name(kwargs: dict) -> dict:
    """Keras' arguments given by name (``activation="relu"``, ``kernel_initializer="zeros"``,
    ``kernel_regularizer="l2"``) as the objects they name."""
    for key, value in kwargs.items():
        if key == "activation" and isinstance(value, str):
            kwargs[key] = activations.get(value)
        elif key.endswith("_initializer") and isinstance(value, (str, dict, type)):
            kwargs[key] = initializers.get(value)
        elif key.endswith("_regularizer") and isinstance(value, (str, dict)):
            kwargs[key] = regularizers.get(value)
    return kwargs


class Layer(tf_layers.Layer):
    """The base of Keras layers (``tf.keras.layers.Layer``): subclass it with ``build`` making
    variables by :meth:`add_weight` and ``call`` computing the outputs, or use it in front of
    a ``tf.layers`` class (``class Dense(Layer, tf_layers.Dense)``).

    Parameters
    ----------
    input_shape, batch_input_shape, batch_size, input_dim : optional
        The inputs' shape, for a layer that starts a :class:`~.models.Sequential` model.
    name, trainable, dtype : optional
        As ``tf.layers.Layer``'s, the name made unique per graph when not given.
    """

    def __init__(self, *args, **kwargs) -> None:
        shape = {key: kwargs.pop(key, None) for key in _SHAPE_ARGUMENTS}
        if shape["input_shape"] is None and shape["input_dim"] is not None:
            shape["input_shape"] = (shape["input_dim"],)
        self._batch_input_shape = (tuple(shape["batch_input_shape"])
                                   if shape["batch_input_shape"] is not None else
                                   (shape["batch_size"], *shape["input_shape"])
                                   if shape["input_shape"] is not None else None)
        super().__init__(*args, **_by_name(kwargs))
        if self._name is None:
            self._name = backend.unique_object_name(self._base_name)
        parameters = inspect.signature(self.call).parameters
        self._takes_training, self._takes_mask = "training" in parameters, "mask" in parameters

    def _set_scope(self, scope=None) -> None:
        """Keras layers have no variable scope of their own."""

    @property
    def scope_name(self) -> str:
        return self.name

    @contextlib.contextmanager
    def _call_scope(self, scope):
        if scope is not None:
            raise TypeError(f"{type(self).__name__}: Keras layers take no `scope` argument")
        with current_context().name_scope(self.name):
            yield

    def _as_input(self, inputs):
        if isinstance(inputs, (list, tuple)):
            return [super(Layer, self)._as_input(x) for x in inputs]
        return super()._as_input(inputs)

    def add_weight(self, name, shape=None, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, **kwargs) -> Variable:
        """A new variable ``<the call's name scope>/<name>`` of ``shape``; ``initializer``
        (an object or a name) defaults to Glorot-uniform for floats, zeros otherwise; the
        regularizer's loss goes to :attr:`losses`."""
        tf_layers._no_constraints(self, constraint=constraint)
        trainable = True if trainable is None else trainable  # Keras' default
        if kwargs:
            raise TypeError(f"{type(self).__name__}.add_weight: arguments not supported by "
                            f"TinyFlow: {sorted(kwargs)}")
        dtype = as_dtype(dtype or self.dtype or backend.floatx())
        initializer = initializers.get(initializer) or (
            initializers.GlorotUniform() if dtype.is_floating else initializers.Zeros())
        graph = current_context()
        full = f"{graph.naming.prefix}{name}"
        with graph.name_scope(f"{full}/Initializer/"):
            value = initializer([int(d) for d in shape], dtype=dtype) if callable(
                initializer) else api.constant(initializer, dtype=dtype, shape=shape)
        with graph.name_scope(None):
            variable = Variable(value, name=full, trainable=trainable and self.trainable,
                                dtype=dtype.name)
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            with graph.name_scope(f"{variable.op.name}/Regularizer/"):
                self._losses.append(regularizer(variable))
        self._weights.append(variable)
        return variable

    def add_update(self, updates, inputs=None) -> None:
        """Record update ops in :attr:`updates` (not in ``tf.GraphKeys.UPDATE_OPS``)."""
        self._updates.extend(updates if isinstance(updates, (list, tuple)) else [updates])

    def add_loss(self, losses, inputs=None) -> None:
        """Add losses to :attr:`losses` (not to a graph collection)."""
        self._losses.extend(losses if isinstance(losses, (list, tuple)) else [losses])

    _add_loss = add_loss

    def __call__(self, inputs, *args, **kwargs):
        """The layer's outputs for ``inputs`` (a tensor, or a list for merging layers);
        ``training`` left out is the learning phase's."""
        given = dict(kwargs)
        if self._takes_training and kwargs.get("training") is None and len(args) == 0:
            kwargs["training"] = backend.learning_phase()
        masks = current_context().keras.setdefault("masks", {})
        input_mask = [masks.get(x.outputs[0]) if isinstance(x, Symbol) else None
                      for x in (inputs if isinstance(inputs, (list, tuple)) else [inputs])]
        input_mask = None if all(m is None for m in input_mask) else \
            input_mask if isinstance(inputs, (list, tuple)) else input_mask[0]
        if self._takes_mask and kwargs.get("mask") is None and input_mask is not None:
            kwargs["mask"] = input_mask
        outputs = super().__call__(inputs, *args, **kwargs)
        history = current_context().keras.setdefault("history", {})
        flat = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        for output in flat:
            history[output.outputs[0]] = (self, inputs, args, given, outputs)
        self._keep_masks(inputs, kwargs.get("mask", input_mask), flat, masks)
        self._output_shape = [o.get_shape() for o in outputs] if isinstance(
            outputs, (list, tuple)) else outputs.get_shape()
        return outputs

    supports_masking = False

    def compute_mask(self, inputs, mask=None):
        """The mask of the outputs (Keras' masks, ``[batch, time]`` bool): the inputs' for a
        layer that ``supports_masking``, else None."""
        return mask if self.supports_masking else None

    def _keep_masks(self, inputs, input_mask, outputs, masks) -> None:
        """Record the outputs' masks (``x._keras_mask`` too), as TF 1.15's ``__call__``: only
        a layer supporting masks or computing its own passes one on."""
        if not (self.supports_masking or type(self).compute_mask is not Layer.compute_mask):
            return
        made = self.compute_mask(self._as_input(inputs), input_mask)
        made = made if isinstance(made, (list, tuple)) else [made] * len(outputs)
        for output, mask in zip(outputs, made):
            if mask is not None:
                masks[output.outputs[0]] = output._keras_mask = mask

    def count_params(self) -> int:
        """The number of values in the layer's variables."""
        return int(sum(np.prod(w.get_shape().as_list(), dtype=np.int64) for w in self.weights))

    def get_weights(self) -> list:
        """The variables' values in :func:`~.backend.get_session`'s session (numpy arrays)."""
        weights = self.weights
        return list(backend.get_session().run(weights)) if weights else []

    def set_weights(self, weights) -> None:
        """Write ``weights`` (arrays, in :attr:`weights`' order) into the session's variables;
        ValueError, nothing written, when their number or a shape differs."""
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(f'You called `set_weights(weights)` on layer "{self.name}" with a '
                             f'weight list of length {len(weights)}, but the layer was '
                             f'expecting {len(mine)} weights.')
        arrays = [np.asarray(w) for w in weights]
        for variable, array in zip(mine, arrays):
            if not variable.get_shape().is_compatible_with(array.shape):
                raise ValueError(f"Layer weight shape {tuple(variable.get_shape().as_list())}"
                                 f" not compatible with provided weight shape "
                                 f"{array.shape} (variable {variable.op.name})")
        session = backend.get_session()
        for variable, array in zip(mine, arrays):
            variable.load(array, session)

    def compute_output_shape(self, input_shape):
        raise NotImplementedError(f"{type(self).__name__}.compute_output_shape is not "
                                  f"supported by TinyFlow: call the layer on a tensor and "
                                  f"read the output's shape")


