"""``tf.estimator.export`` (TensorFlow 1.15's): what :meth:`Estimator.export_saved_model
<tinyflow.frontend.estimator.estimator.Estimator.export_saved_model>` serves: the receiver of
a serving input (:class:`ServingInputReceiver`, :func:`build_raw_serving_input_receiver_fn`)
and the outputs a model exports (:class:`PredictOutput`).

The classification and regression outputs, and the parsing receiver, read serialized
``tf.Example`` strings, which TinyFlow does not have: they are not supported.
"""
from __future__ import annotations

from typing import NamedTuple

from ...nnvm.composite import CompositeTensor
from ...nnvm.symbol import Symbol
from ..api import placeholder
from ..saved_model.signature_def_utils import predict_signature_def
from ..unsupported import unsupported

__all__ = ["ExportOutput", "PredictOutput", "ServingInputReceiver", "TensorServingInputReceiver",
           "build_raw_serving_input_receiver_fn"]

_DEFAULT_NAMES = {"feature": "feature", "receiver_tensor": "input",
                  "receiver_tensors_alternative": "input"}  # TF's, for a tensor given alone


def _is_tensor(value) -> bool:
    return isinstance(value, CompositeTensor) or (
        isinstance(value, Symbol) and len(value.outputs) == 1 and not value.is_operation)


def wrap_and_check_input_tensors(tensors, field_name: str, allow_int_keys=False) -> dict:
    """``tensors`` as a dict (a tensor alone under TF's default name), every key and value
    checked, with TF 1.15's ValueErrors."""
    if tensors is None:
        raise ValueError(f"{field_name}s must be defined.")
    if not isinstance(tensors, dict):
        tensors = {_DEFAULT_NAMES[field_name]: tensors}
    for name, tensor in tensors.items():
        if not isinstance(name, str) and not (allow_int_keys and isinstance(name, int)):
            raise ValueError(f"{field_name} keys must be strings: {name}.")
        if not _is_tensor(tensor):
            raise ValueError(f"{field_name} {name} must be a Tensor or SparseTensor.")
    return tensors


class ServingInputReceiver(NamedTuple("ServingInputReceiver", [
        ("features", dict), ("receiver_tensors", dict),
        ("receiver_tensors_alternatives", dict | None)])):
    """What a ``serving_input_receiver_fn`` returns: the ``features`` the model_fn gets (a
    dict; a tensor alone becomes ``{"feature": tensor}``) and the ``receiver_tensors`` a
    served request feeds (a tensor alone: ``{"input": tensor}``)."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        features = wrap_and_check_input_tensors(features, "feature", allow_int_keys=True)
        receiver_tensors = wrap_and_check_input_tensors(receiver_tensors, "receiver_tensor")
        if receiver_tensors_alternatives is not None:
            if not isinstance(receiver_tensors_alternatives, dict):
                raise ValueError(f"receiver_tensors_alternatives should be a dict: "
                                 f"{receiver_tensors_alternatives}.")
            receiver_tensors_alternatives = {
                name: wrap_and_check_input_tensors(alternative, "receiver_tensors_alternative")
                for name, alternative in receiver_tensors_alternatives.items()}
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


class TensorServingInputReceiver(NamedTuple("TensorServingInputReceiver", [
        ("features", object), ("receiver_tensors", dict),
        ("receiver_tensors_alternatives", dict | None)])):
    """A :class:`ServingInputReceiver` whose model_fn takes one tensor as its ``features``."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        if features is None:
            raise ValueError("features must be defined.")
        receiver = ServingInputReceiver(features, receiver_tensors,
                                        receiver_tensors_alternatives)
        return super().__new__(cls, receiver.features["feature"], receiver.receiver_tensors,
                               receiver.receiver_tensors_alternatives)


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A ``serving_input_receiver_fn`` feeding ``features`` directly: a placeholder per
    feature (``{name: tensor}``, or one tensor), of its dtype and shape but the batch
    dimension (``default_batch_size``), named as the feature's op."""
    def serving_input_receiver_fn():
        tensors = features if isinstance(features, dict) else {"feature": features}
        receiver_tensors = {}
        for name, tensor in tensors.items():
            shape = tensor.get_shape()
            dims = None if shape.dims is None else [default_batch_size] + shape.as_list()[1:]
            receiver_tensors[name] = placeholder(tensor.dtype, dims, name=tensor.op.name)
        return ServingInputReceiver(receiver_tensors, dict(receiver_tensors))
    return serving_input_receiver_fn


class ExportOutput:
    """An output of an exported model: :meth:`as_signature_def` of the receiver's tensors."""

    def as_signature_def(self, receiver_tensors):
        raise NotImplementedError


class PredictOutput(ExportOutput):
    """The prediction outputs: ``{name: tensor}`` (a tensor alone: ``{"output": tensor}``)."""

    def __init__(self, outputs) -> None:
        outputs = outputs if isinstance(outputs, dict) else {"output": outputs}
        for key, value in outputs.items():
            if not isinstance(key, str):
                raise ValueError(  # noqa: TRY004 - TF's
                    f"Prediction output key must be a string; got {key}.")
            if not _is_tensor(value) or isinstance(value, CompositeTensor):
                raise ValueError(f"Prediction output value must be a Tensor; got {value}.")
        self._outputs = outputs

    outputs = property(lambda self: self._outputs)

    def as_signature_def(self, receiver_tensors):
        return predict_signature_def(receiver_tensors, self._outputs)


def __getattr__(name):
    raise unsupported("tf.estimator.export.", "tinyflow.estimator.export", name,
                      {"tf.estimator.export.": __all__})
