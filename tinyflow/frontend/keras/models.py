"""``tf.keras.Input``, ``tf.keras.Model`` and ``tf.keras.Sequential`` as TensorFlow 1.15 has
them in graph mode, as stacks of layers one calls on tensors.

- ``tf.keras.Input(shape)`` is a placeholder ``[None, *shape]`` named ``input_1``,
  ``input_2``... per graph.
- ``Model(inputs, outputs)`` (functional) finds the layer calls that lead from ``inputs`` to
  ``outputs`` (each Keras layer call is recorded on the graph); ``model(new_inputs)`` makes
  those calls again on the new tensors, with the same layer objects, so the same variables.
- ``Sequential([layers])`` calls its layers in turn; a first layer given ``input_shape``
  builds the model at once on an ``Input`` named ``<layer>_input``.
- A subclass of ``Model`` defining ``call`` tracks the layers it holds as attributes.

``.trainable_variables``, ``.weights``, ``.updates``, ``.losses`` gather its layers';
``summary()`` prints Keras' table; ``compile``, the ``*_on_batch`` steps and
``save_weights`` / ``load_weights`` are :mod:`.training`'s, ``fit`` / ``evaluate`` /
``predict`` :mod:`.training_loop`'s; saving the whole model and generators are not supported
(NotImplementedError says so).
"""
from __future__ import annotations

from ...nnvm.symbol import Symbol, current_context
from .. import api
from .. import layers as tf_layers
from . import backend, training, training_loop
from .engine import Layer

__all__ = ["Input", "InputLayer", "Model", "Sequential"]


class InputLayer(Layer):
    """The layer a model starts from: :attr:`output` is a placeholder of ``[batch_size,
    *input_shape]`` (or ``input_tensor``), named as the layer (``input_1``...)."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None,
                 sparse=False, name=None, **kwargs) -> None:
        if sparse:
            raise ValueError("InputLayer: sparse inputs are not supported by TinyFlow")
        batch_shape = kwargs.pop("batch_input_shape", None)
        name = name or f"input_{backend.get_uid('input')}"
        super().__init__(name=name, dtype=dtype or backend.floatx(), **kwargs)
        if input_tensor is not None:
            self.output = input_tensor
        else:
            if batch_shape is None:
                if input_shape is None:
                    raise ValueError("InputLayer: give input_shape or batch_input_shape")
                batch_shape = (batch_size, *input_shape)
            with current_context().name_scope(None):
                self.output = api.placeholder(self.dtype, list(batch_shape), name=name)
        self._batch_input_shape = tuple(self.output.get_shape().as_list())
        self._output_shape = [self.output.get_shape()]  # Keras prints it as a list
        current_context().keras.setdefault("input_layers", {})[self.output.outputs[0]] = self
        self.built = True


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None,
          **kwargs) -> Symbol:
    """A placeholder ``[batch_size, *shape]`` (``batch_shape=`` gives the whole shape) to
    start a functional model from.

    Returns
    -------
    Symbol
        The placeholder (``input_1:0``...), of dtype ``dtype`` (default float32).
    """
    batch_shape = kwargs.pop("batch_shape", None)
    if kwargs:
        raise TypeError(f"Input: arguments not understood: {sorted(kwargs)}")
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError("Please provide to Input either a `shape` or a `tensor` argument. "
                         "Note that `shape` does not include the batch dimension.")
    return InputLayer(shape, batch_size, dtype, tensor, sparse, name,
                      batch_input_shape=batch_shape).output


def _flat(tensors) -> list:
    return list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]


def _unique(variables) -> list:
    seen, result = set(), []
    for variable in variables:
        if id(variable) not in seen:
            seen.add(id(variable))
            result.append(variable)
    return result


_UNSUPPORTED = ("fit_generator", "evaluate_generator", "predict_generator", "save",
                "to_json", "to_yaml")


def _not_supported(name):
    def method(self, *args, **kwargs):
        raise NotImplementedError(
            f"tf.keras.Model.{name} is not supported by TinyFlow: fit / evaluate / predict "
            f"take numpy arrays; save the weights with save_weights (TensorFlow's checkpoint "
            f"format)")
    method.__name__ = name
    return method


class Model(Layer):
    """A stack of layers called as one layer: ``Model(inputs, outputs)`` (functional), or a
    subclass defining ``call`` (its layers are the Keras layers it holds as attributes)."""

    def __init__(self, *args, **kwargs) -> None:
        self._layers = []
        inputs, outputs = kwargs.pop("inputs", None), kwargs.pop("outputs", None)
        if args:
            inputs, outputs = args[0], args[1] if len(args) > 1 else outputs
        super().__init__(name=kwargs.pop("name", None),
                         trainable=kwargs.pop("trainable", True), **kwargs)
        self.inputs = self.outputs = None
        self._calls = []
        if type(self).call in (Model.call, Sequential.call):
            self._takes_training = False  # their call passes training on only when given
        if inputs is not None or outputs is not None:
            self._init_graph(inputs, outputs)

    def __setattr__(self, name, value) -> None:
        layers = self.__dict__.get("_layers")
        if layers is not None and isinstance(value, tf_layers.Layer) and \
                not any(value is layer for layer in layers):
            layers.append(value)
        super().__setattr__(name, value)

    def _init_graph(self, inputs, outputs) -> None:
        """The layer calls from ``inputs`` to ``outputs``, in an order to make them again."""
        self.inputs, self.outputs, self._structure = _flat(inputs), _flat(outputs), outputs
        known = {t.outputs[0] for t in self.inputs}
        history = current_context().keras.get("history", {})
        done, stack = set(), [(t, False) for t in reversed(self.outputs)]
        while stack:  # iterative depth-first walk, calls listed after the calls they read
            tensor, expanded = stack.pop()
            if not isinstance(tensor, Symbol) or tensor.outputs[0] in known:
                continue
            record = history.get(tensor.outputs[0])
            if record is None:
                raise ValueError(
                    f"Graph disconnected: cannot obtain value for tensor {tensor.name}: it is "
                    f"neither one of the model's inputs "
                    f"{[t.name for t in self.inputs]} nor the output of a Keras layer called "
                    f"on them (TinyFlow's Model follows Keras layer calls only; wrap other "
                    f"ops in tf.keras.layers.Lambda)")
            if id(record) in done:
                continue
            if expanded:
                done.add(id(record))
                self._calls.append(record)
                continue
            stack.append((tensor, True))
            stack.extend((x, False) for x in reversed(_flat(record[1])))
        found = current_context().keras.get("input_layers", {})
        self._layers = [found.get(t.outputs[0]) or InputLayer(input_tensor=t)
                        for t in self.inputs]  # a functional model's layers start with these
        for record in self._calls:
            if not any(record[0] is layer for layer in self._layers):
                self._layers.append(record[0])
        self.built = True

    @property
    def layers(self) -> list:
        """The model's layers in the order they are called, a functional model's InputLayers
        first (a Sequential model's are left out, as Keras)."""
        return list(self._layers)

    def get_layer(self, name=None, index=None):
        """The layer named ``name``, or at ``index`` in :attr:`layers`."""
        if index is not None:
            return self._layers[index]
        for layer in self._layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}")

    @property
    def variables(self) -> list:
        return _unique([*self._weights, *(w for layer in self._layers for w in layer.weights)])

    weights = variables

    @property
    def trainable_weights(self) -> list:
        if not self.trainable:
            return []
        return _unique([*(w for w in self._weights if w.trainable),
                        *(w for layer in self._layers for w in layer.trainable_weights)])

    trainable_variables = trainable_weights

    @property
    def non_trainable_weights(self) -> list:
        trainable = {id(w) for w in self.trainable_weights}
        return [w for w in self.variables if id(w) not in trainable]

    non_trainable_variables = non_trainable_weights

    @property
    def updates(self) -> list:
        return [*self._updates, *(u for layer in self._layers for u in layer.updates)]

    @property
    def losses(self) -> list:
        return [*self._losses, *(x for layer in self._layers for x in layer.losses)]

    @property
    def output(self):
        return self._one("outputs")

    @property
    def input(self):
        return self._one("inputs")

    def _one(self, what):
        tensors = getattr(self, what)
        if tensors is None:
            raise AttributeError(f"Layer {self.name} has no inbound nodes.")
        return tensors[0] if len(tensors) == 1 else tensors

    def build(self, input_shape) -> None:
        self.built = True

    def call(self, inputs, training=None, mask=None):
        """The recorded layer calls made again on ``inputs``; ``training`` given goes to the
        layers that take it."""
        if self.inputs is None:
            raise NotImplementedError(f"{type(self).__name__}: a subclass of tf.keras.Model "
                                      f"defines call(inputs)")
        given = _flat(inputs)
        if len(given) != len(self.inputs):
            raise ValueError(f"Model {self.name} expects {len(self.inputs)} input(s), but it "
                             f"received {len(given)} input tensors")
        values = {old.outputs[0]: new for old, new in zip(self.inputs, given)}
        for layer, layer_inputs, args, kwargs, outputs in self._calls:
            if training is not None and layer._takes_training:
                kwargs = {**kwargs, "training": training}
            mapped = [values.get(x.outputs[0], x) if isinstance(x, Symbol) else x
                      for x in _flat(layer_inputs)]
            made = layer(mapped if isinstance(layer_inputs, (list, tuple)) else mapped[0],
                         *args, **kwargs)
            values.update({o.outputs[0]: n for o, n in zip(_flat(outputs), _flat(made))})
        results = [values[o.outputs[0]] for o in self.outputs]
        return results if isinstance(self._structure, (list, tuple)) else results[0]

    def summary(self, line_length=None, positions=None, print_fn=None) -> None:
        """Print Keras' table of the layers, their output shapes and parameter counts."""
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by "
                             "calling the model on a tensor, or specify an `input_shape` "
                             "argument in the first layer(s) for automatic build.")
        print_fn = print_fn or print
        width = line_length or 65
        ends = [int(width * p) if p <= 1 else int(p) for p in (positions or (.45, .85, 1.))]

        def row(*fields):
            line = ""
            for field, end in zip(fields, ends):
                line = (line + str(field))[:end].ljust(end)
            print_fn(line)

        print_fn(f'Model: "{self.name}"')
        print_fn("_" * width)
        row("Layer (type)", "Output Shape", "Param #")
        print_fn("=" * width)
        layers = self._layers
        for i, layer in enumerate(layers):
            row(f"{layer.name} ({type(layer).__name__})", _shape_text(layer),
                layer.count_params())
            print_fn("=" * width if i == len(layers) - 1 else "_" * width)
        trainable = sum(_count(w) for w in self.trainable_weights)
        total = sum(_count(w) for w in self.weights)
        print_fn(f"Total params: {total:,}")
        print_fn(f"Trainable params: {trainable:,}")
        print_fn(f"Non-trainable params: {total - trainable:,}")
        print_fn("_" * width)


for _name in _UNSUPPORTED:
    setattr(Model, _name, _not_supported(_name))
for _name in ("compile", "train_on_batch", "test_on_batch", "predict_on_batch",
              "save_weights", "load_weights"):  # training.py's
    setattr(Model, _name, getattr(training, _name))
for _name in training_loop.__all__:  # fit, evaluate, predict
    setattr(Model, _name, getattr(training_loop, _name))
Model.metrics_names = property(training.metrics_names)
Model.stop_training = False  # a callback sets it (on the model) to end fit


def _count(variable) -> int:
    count = 1
    for d in variable.get_shape().as_list():
        count *= d
    return count


def _shape_text(layer) -> str:
    shape = getattr(layer, "_output_shape", None)
    if shape is None:
        return "multiple"
    if isinstance(shape, list):
        return "[" + ", ".join(_shape_text_of(s) for s in shape) + "]"
    return _shape_text_of(shape)


def _shape_text_of(shape) -> str:
    return str(tuple(shape.as_list())) if shape.ndims is not None else "multiple"


class Sequential(Model):
    """Layers called one after the other: ``Sequential([Dense(...), ...])`` or
    :meth:`add`; built at once when the first layer has ``input_shape``, else on its first
    call."""

    def __init__(self, layers=None, name=None) -> None:
        super().__init__(name=name)
        for layer in layers or []:
            self.add(layer)

    def add(self, layer) -> None:
        """Append ``layer`` (a Keras layer), calling it on the model's output if built."""
        if isinstance(layer, Symbol) and self.inputs is None and not self._layers:
            self.inputs = self.outputs = [layer]  # tf.keras.Input(...) as the first "layer"
            return
        if not isinstance(layer, tf_layers.Layer):
            raise TypeError(f"The added layer must be an instance of class Layer. Found: "
                            f"{layer!r}")
        if isinstance(layer, InputLayer):
            if self._layers or self.inputs is not None:
                raise ValueError("Sequential: an InputLayer can only come first")
            self.inputs = self.outputs = [layer.output]
            return
        if self.inputs is None and not self._layers and layer._batch_input_shape is not None:
            self.inputs = self.outputs = [Input(batch_shape=layer._batch_input_shape,
                                                dtype=layer.dtype, name=f"{layer.name}_input")]
        self._layers.append(layer)
        if self.outputs is not None:
            self.outputs = [layer(self.outputs[0])]
            self.built = True

    def build_on_data(self, x) -> None:
        """Build the model on an ``Input`` of ``x``'s shape less its first axis (float32, or
        ``x``'s integer type), as Keras does for a model without ``input_shape`` given data."""
        dtype = x.dtype.name if x.dtype.kind in "iu" else backend.floatx()
        inputs = Input(batch_shape=(None, *x.shape[1:]), dtype=dtype,
                       name=f"{self._layers[0].name}_input")
        self.inputs, self.outputs = [inputs], [self.call(inputs)]
        self.built = True

    def pop(self) -> None:
        """Remove the last layer."""
        if not self._layers:
            raise TypeError("There are no layers in the model.")
        self._layers.pop()
        self.built = False
        self.inputs = self.outputs = None

    def call(self, inputs, training=None, mask=None):
        """Each layer called on the previous one's output."""
        outputs = inputs
        for layer in self._layers:
            kwargs = {"training": training} if training is not None and \
                layer._takes_training else {}
            outputs = layer(outputs, **kwargs)
        return outputs
