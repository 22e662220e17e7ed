"""``tf.saved_model.signature_def_utils`` and ``tf.saved_model.utils`` (TensorFlow 1.15's): the
signatures of a saved model, which name the tensors a served model is fed and fetched by.

:class:`TensorInfo` and :class:`SignatureDef` stand for TensorFlow's protocol buffers, with
their fields: ``info.name`` (``"x:0"``, for ``get_tensor_by_name``), ``info.dtype`` (TF's
``DataType`` number: 1 for ``DT_FLOAT``), ``info.tensor_shape.dim[i].size`` (-1 unknown) and
``.unknown_rank``; ``signature.inputs`` / ``.outputs`` (``{key: TensorInfo}``) and
``.method_name``.  ``str()`` of each is TensorFlow's text format.
"""
from __future__ import annotations

from ...nnvm.composite import CompositeTensor
from ...nnvm.symbol import Symbol, current_context
from . import signature_constants as keys

__all__ = ["SignatureDef", "TensorInfo", "build_signature_def", "build_tensor_info",
           "get_tensor_from_tensor_info", "is_valid_signature", "predict_signature_def"]

# TensorFlow's DataType numbers (types.proto) of the dtypes TinyFlow has
DATA_TYPES = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
              "string": 7, "int64": 9, "bool": 10, "float16": 19}
_NAMES = {number: "DT_" + {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}.get(
    name, name.upper()) for name, number in DATA_TYPES.items()}


class Dim:
    """One dimension of a :class:`TensorShapeProto`: ``size`` (-1: unknown)."""

    def __init__(self, size: int) -> None:
        self.size, self.name = size, ""


class TensorShapeProto:
    """TensorFlow's TensorShapeProto: ``dim`` (a list of :class:`Dim`), ``unknown_rank``."""

    def __init__(self, sizes: list | None) -> None:
        self.unknown_rank = sizes is None
        self.dim = [Dim(size) for size in sizes or ()]

    def sizes(self) -> list | None:
        """``[-1, 3]``; None when the rank is unknown."""
        return None if self.unknown_rank else [d.size for d in self.dim]


class TensorInfo:
    """TensorFlow's TensorInfo of a dense tensor: its ``name``, ``dtype`` (TF's DataType
    number) and ``tensor_shape``."""

    def __init__(self, name: str, dtype: int, sizes: list | None) -> None:
        self.name, self.dtype, self.tensor_shape = name, dtype, TensorShapeProto(sizes)

    def __eq__(self, other) -> bool:
        return isinstance(other, TensorInfo) and (self.name, self.dtype, self.tensor_shape.sizes(
        )) == (other.name, other.dtype, other.tensor_shape.sizes())

    __hash__ = None

    def __str__(self) -> str:
        shape = self.tensor_shape
        dims = "  unknown_rank: true\n" if shape.unknown_rank else "".join(
            f"  dim {{\n    size: {d.size}\n  }}\n" for d in shape.dim)
        return (f'name: "{self.name}"\ndtype: {_NAMES.get(self.dtype, self.dtype)}\n'
                f"tensor_shape {{\n{dims}}}\n")

    __repr__ = __str__


class SignatureDef:
    """TensorFlow's SignatureDef: ``inputs`` and ``outputs`` (``{key: TensorInfo}``) and
    ``method_name``."""

    def __init__(self, inputs=None, outputs=None, method_name: str = "") -> None:
        self.inputs, self.outputs = dict(inputs or {}), dict(outputs or {})
        self.method_name = method_name or ""

    def __eq__(self, other) -> bool:
        return isinstance(other, SignatureDef) and (self.inputs, self.outputs, self.method_name) \
            == (other.inputs, other.outputs, other.method_name)

    __hash__ = None

    def __str__(self) -> str:
        def block(field, infos):
            return "".join(f'{field} {{\n  key: "{key}"\n  value {{\n' + "".join(
                f"    {line}\n" for line in str(info).splitlines()) + "  }\n}\n"
                for key, info in sorted(infos.items()))
        method = f'method_name: "{self.method_name}"\n' if self.method_name else ""
        return block("inputs", self.inputs) + block("outputs", self.outputs) + method

    __repr__ = __str__


def build_tensor_info(tensor) -> TensorInfo:
    """The :class:`TensorInfo` of ``tensor`` (a tensor of the graph): its name, dtype and
    static shape.  TypeError for anything else (a SparseTensor: TinyFlow's signatures hold
    dense tensors only)."""
    if isinstance(tensor, CompositeTensor):
        raise TypeError("build_tensor_info: a SparseTensor in a signature is not supported by "
                        "TinyFlow (only dense tensors)")
    if not isinstance(tensor, Symbol) or len(tensor.outputs) != 1 or tensor.is_operation:
        raise TypeError(f"build_tensor_info takes a tensor of the graph, got {tensor!r}")
    shape = tensor.get_shape()
    sizes = None if shape.dims is None else [-1 if d is None else d for d in shape.as_list()]
    return TensorInfo(tensor.name, DATA_TYPES[tensor.dtype.name], sizes)


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None) -> Symbol:
    """The tensor of ``graph`` (default: the current graph) that ``tensor_info`` names; the
    graph's KeyError when it has none."""
    if not isinstance(tensor_info, TensorInfo):
        raise TypeError(f"get_tensor_from_tensor_info takes a TensorInfo, got {tensor_info!r}")
    if import_scope:
        raise ValueError("get_tensor_from_tensor_info(import_scope=...) is not supported by "
                         "TinyFlow")
    return (graph or current_context()).get_tensor_by_name(tensor_info.name)


def build_signature_def(inputs=None, outputs=None, method_name=None) -> SignatureDef:
    """A :class:`SignatureDef` of ``inputs`` and ``outputs`` (``{key: TensorInfo}``)."""
    for what, infos in (("inputs", inputs), ("outputs", outputs)):
        for key, info in (infos or {}).items():
            if not isinstance(key, str) or not isinstance(info, TensorInfo):
                raise TypeError(f"build_signature_def: {what} maps names to TensorInfos "
                                f"(tf.saved_model.utils.build_tensor_info's), got {key!r}: "
                                f"{type(info).__name__}")
    if method_name is not None and not isinstance(method_name, str):
        raise TypeError(f"build_signature_def: method_name is a string, got {method_name!r}")
    return SignatureDef(inputs, outputs, method_name)


def predict_signature_def(inputs, outputs) -> SignatureDef:
    """The prediction signature of ``inputs`` and ``outputs`` (``{key: tensor}``); TF 1.15's
    ValueError when either is None or empty."""
    if not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")  # TF's text
    if not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def({key: build_tensor_info(t) for key, t in inputs.items()},
                               {key: build_tensor_info(t) for key, t in outputs.items()},
                               keys.PREDICT_METHOD_NAME)


def is_valid_signature(signature_def) -> bool:
    """TF 1.15's check of a serving signature: a predict signature with inputs and outputs,
    or a classify / regress one of TF's inputs and outputs (string examples in)."""
    if not isinstance(signature_def, SignatureDef):
        return False
    method, inputs, outputs = (signature_def.method_name, signature_def.inputs,
                               signature_def.outputs)
    if method == keys.PREDICT_METHOD_NAME:
        return bool(inputs) and bool(outputs)
    string, floating = DATA_TYPES["string"], DATA_TYPES["float32"]
    examples = inputs.get(keys.CLASSIFY_INPUTS)
    if len(inputs) != 1 or examples is None or examples.dtype != string:
        return False
    if method == keys.REGRESS_METHOD_NAME:
        result = outputs.get(keys.REGRESS_OUTPUTS)
        return len(outputs) == 1 and result is not None and result.dtype == floating
    if method == keys.CLASSIFY_METHOD_NAME:
        classes = outputs.get(keys.CLASSIFY_OUTPUT_CLASSES)
        scores = outputs.get(keys.CLASSIFY_OUTPUT_SCORES)
        return bool(outputs) and set(outputs) <= {keys.CLASSIFY_OUTPUT_CLASSES,
                                                  keys.CLASSIFY_OUTPUT_SCORES} and \
            (classes is None or classes.dtype == string) and \
            (scores is None or scores.dtype == floating)
    return False
