"""``tf.parse_example`` and ``tf.parse_single_example`` (also ``tf.io.``'s) with their feature
configurations ``tf.FixedLenFeature``, ``tf.VarLenFeature`` and ``tf.FixedLenSequenceFeature``,
and ``tf.decode_csv`` (TensorFlow 1.15's semantics and errors).

The parse is one op (``parse_example``, tinyflow/ops/parsing.py) whose outputs are pulled
before the run from its inputs' values, serialized ``tf.train.Example`` protos read by
:mod:`.example_proto`: a dense feature is a tensor of its shape (its default where an example
lacks it), a ``VarLenFeature`` a ``tf.SparseTensor``.  A serialized example is untrusted input:
bytes that are no Example are TF's ``InvalidArgumentError`` ("Could not parse example
input"), as are a missing required feature, another type and another number of values.
"""
from __future__ import annotations

import collections
import re

import numpy as np

from ..nnvm.dtypes import DType, as_dtype
from ..nnvm.errors import InvalidArgumentError
from ..nnvm.symbol import NodeEntry, Symbol, create_op, current_context
from ..nnvm.tensor_shape import TensorShape
from ..nnvm.variables import _inferred_dtype
from ..ops import parsing as parsing_ops  # noqa: F401 - registers parse_example
from .check_ops import constant_value
from .example_proto import DecodeError, Example, SequenceExample
from .math_ops import convert_to_tensor
from .sparse_ops import SparseTensor

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "decode_csv",
           "parse_example", "parse_single_example", "parse_single_sequence_example"]

FixedLenFeature = collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])
FixedLenFeature.__new__.__defaults__ = (None,)
FixedLenFeature.__doc__ = ("A dense feature of ``shape`` and ``dtype`` (tf.float32, tf.int64, "
                           "tf.string); ``default_value`` where an example lacks it, else it "
                           "is required.")
FixedLenSequenceFeature = collections.namedtuple(
    "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])
FixedLenSequenceFeature.__new__.__defaults__ = (False, None)
FixedLenSequenceFeature.__doc__ = ("Rows of ``shape``, as many as the example's values make "
                                   "(a batch padded with ``default_value``, else 0 or b'').")
VarLenFeature = collections.namedtuple("VarLenFeature", ["dtype"])
VarLenFeature.__doc__ = "All the example's values, as a tf.SparseTensor."

_LISTS = {"int64": "int64_list", "float32": "float_list", "string": "bytes_list"}
_TF_NAMES = {"int64": "int64", "float32": "float", "string": "string"}  # TF's DataTypeString
_LIST_TYPES = {"int64_list": "int64", "float_list": "float", "bytes_list": "string"}


class _Config:
    """One feature's configuration, checked: ``kind`` (dense, sequence, sparse), ``dtype``
    name, ``shape`` (a tuple) and the default as an array of that shape (dense) or row fill."""

    def __init__(self, key, feature):
        self.key = key
        if not isinstance(feature, (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature)):
            raise ValueError(f"Unsupported {type(feature).__name__} {feature} for feature "  # noqa: TRY004 - TF's class
                             f"{key}.")
        self.dtype = as_dtype(feature.dtype).name
        if self.dtype not in _LISTS:
            param = "sparse_types" if isinstance(feature, VarLenFeature) else "dense_defaults"
            raise TypeError(f"Value passed to parameter '{param}' has DataType {self.dtype} "
                            f"not in list of allowed values: float32, int64, string")
        self.numpy = object if self.dtype == "string" else np.dtype(self.dtype)
        if isinstance(feature, VarLenFeature):
            self.kind, self.shape = "sparse", None
            return
        self.kind = "dense" if isinstance(feature, FixedLenFeature) else "sequence"
        if feature.shape is None:
            raise ValueError(f"Missing shape for feature {key}. Received feature={feature}.")
        shape = TensorShape(feature.shape)
        if not shape.is_fully_defined():
            raise ValueError(f"All dimensions of shape for feature {key} need to be known but "
                             f"received {shape}.")
        self.shape = tuple(shape.as_list())
        self.allow_missing = getattr(feature, "allow_missing", False)
        self.default = None if feature.default_value is None else self._default(feature)

    def _default(self, feature):
        value = np.asarray(feature.default_value, dtype=self.numpy)
        if self.numpy is object:
            value = np.array([_as_bytes(v) for v in value.reshape(-1)] + [None],
                             dtype=object)[:-1].reshape(value.shape)
        if self.kind == "sequence":
            return value.reshape(()) if value.size == 1 else value
        if value.size != int(np.prod(self.shape)):
            raise ValueError(f"Cannot reshape a tensor with {value.size} elements to shape "
                             f"{list(self.shape)} ({int(np.prod(self.shape))} elements)")
        return value.reshape(self.shape)


def _as_bytes(value) -> bytes:
    return value.encode() if isinstance(value, str) else bytes(value)


class _Parser:
    """parse_example's attr func: the configured features of each serialized example, as the
    op's outputs (per key in sorted order: a dense or sequence feature's tensor, a sparse one's
    indices, values and dense_shape)."""

    def __init__(self, configs, single):
        self.configs, self.single = configs, single

    def __call__(self, node, inputs):
        serialized = np.asarray(inputs[0], dtype=object).reshape(-1)
        names = (np.asarray(inputs[1], dtype=object).reshape(-1) if len(inputs) > 1
                 else [None] * len(serialized))
        if len(names) != len(serialized):
            raise InvalidArgumentError(None, node.name, (
                f"Expected len(example_names) == len(serialized), got {len(names)} names for "
                f"{len(serialized)} examples"))
        examples = [_example(node, value, Example) for value in serialized]
        return self.parse(node, [ex.features if ex.HasField("features") else None
                                 for ex in examples], names)

    def parse(self, node, features, names):
        """The outputs from each example's ``Features`` (None: it has none)."""
        outputs = []
        for config in self.configs:
            values = [self._values(node, config, feats, _text(name), index)
                      for index, (feats, name) in enumerate(zip(features, names))]
            outputs.extend(self._output(config, values))
        return outputs

    def _where(self, name, config, index):
        if self.single:
            return f"Key: {config.key}.  "
        return f"Name: {name}, Key: {config.key}, Index: {index}.  "

    def _values(self, node, config, features, name, index):
        """The example's values of the feature (None when it lacks it), type checked."""
        feature = features.feature.get(config.key) if features is not None else None
        kind = None if feature is None else feature.WhichOneof("kind")
        if kind is None:  # a Feature with no list is missing too, as in TensorFlow
            if config.kind == "dense" and config.default is None:
                prefix = "" if self.single else f"Name: {name}, "
                raise InvalidArgumentError(None, node.name, (
                    f"{prefix}Feature: {config.key} (data type: {_TF_NAMES[config.dtype]}) is "
                    f"required but could not be found."))
            return None
        if kind != _LISTS[config.dtype]:
            actual, expected = _LIST_TYPES[kind], _TF_NAMES[config.dtype]
            raise InvalidArgumentError(None, node.name, self._where(name, config, index) + (
                f"Data types don't match. Expected type: {expected}, Actual type: {actual}"
                if config.kind == "sparse" else
                f"Data types don't match. Data type: {actual} but expected type: {expected}"))
        values = list(getattr(feature, kind).value)
        count = len(values)
        if config.kind == "dense" and count != int(np.prod(config.shape)):
            raise InvalidArgumentError(None, node.name, self._where(name, config, index) + (
                f"Number of {_TF_NAMES[config.dtype]} values != expected.  Values size: "
                f"{count} but output shape: {_shape_text(config.shape)}"))
        stride = int(np.prod(config.shape)) if config.kind == "sequence" else 1
        if config.kind == "sequence" and (count % stride if stride else count):
            raise InvalidArgumentError(None, node.name, self._where(name, config, index) + (
                f"Number of {_TF_NAMES[config.dtype]} values is not a multiple of stride "
                f"length. Saw {count} values but output shape is: "
                f"{_shape_text(('?',) + config.shape)}"))
        return np.array(values, dtype=config.numpy)

    def _output(self, config, values):
        """The feature's output arrays from each example's values."""
        if config.kind == "dense":
            rows = [config.default if v is None else v.reshape(config.shape) for v in values]
            out = np.stack(rows) if rows else np.zeros((0,) + config.shape, config.numpy)
            return [out[0, ...] if self.single else out]
        if config.kind == "sequence":
            width = int(np.prod(config.shape))
            rows = [np.zeros(0, config.numpy) if v is None else v for v in values]
            longest = max((len(r) // width if width else 0 for r in rows), default=0)
            fill = config.default if config.default is not None else (
                b"" if config.numpy is object else 0)
            out = np.empty((len(rows), longest) + config.shape, dtype=config.numpy)
            out[...] = fill
            for row, data in zip(out, rows):
                count = len(data) // width if width else 0
                row[:count] = data.reshape((count,) + config.shape)
            return [out[0, ...] if self.single else out]
        rows = [np.zeros(0, config.numpy) if v is None else v for v in values]
        longest = max((len(r) for r in rows), default=0)
        indices = np.array([(b, j) for b, r in enumerate(rows) for j in range(len(r))],
                           dtype=np.int64).reshape(-1, 2)
        flat = np.concatenate(rows) if rows else np.zeros(0, config.numpy)
        shape = np.array([len(rows), longest], dtype=np.int64)
        if self.single:
            indices, shape = indices[:, 1:], shape[1:]
        return [np.ascontiguousarray(indices), flat.astype(config.numpy), shape]


def _example(node, value, message_class):
    data = _as_bytes(value) if isinstance(value, (str, bytes, bytearray)) else None
    try:
        if data is None:
            raise DecodeError("not a string")
        return message_class.FromString(data)
    except DecodeError:
        shown = repr(data[:64] if data is not None else value)[2:-1]
        raise InvalidArgumentError(None, node.name, (
            f"Could not parse example input, value: '{shown}"
            f"{'...' if data is not None and len(data) > 64 else ''}'")) from None


def _text(name) -> str:
    if name is None:
        return "<unknown>"
    return name.decode(errors="replace") if isinstance(name, bytes) else str(name)


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _parse(serialized, features, example_names, name, single):
    """The parse_example node and the dict of its outputs (sparse ones as SparseTensor)."""
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    configs = [_Config(key, features[key]) for key in sorted(features)]
    if any(c.kind == "sequence" and not c.allow_missing for c in configs):
        raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be "
                         "True.")
    serialized = _string_tensor(serialized)
    if serialized.dtype.name != "string":
        raise TypeError(f"serialized must be a string tensor, got {serialized.dtype.name}")
    rank = serialized.get_shape().ndims
    if rank is not None and rank != (0 if single else 1):
        raise ValueError("Input serialized must be a scalar" if single else
                         f"Shape must be rank 1 but is rank {rank} for 'ParseExample' (input "
                         f"serialized)")
    inputs = [serialized]
    if example_names is not None:
        inputs.append(example_names if isinstance(example_names, Symbol)
                      else convert_to_tensor(example_names, dtype="string"))
    batch = None if single else (serialized.get_shape().as_list()[0] if rank else None)
    outputs = _outputs(inputs, [(configs, () if single else (batch,), 1 if single else 2)],
                       _Parser(configs, single),
                       name or ("ParseSingleExample" if single else "ParseExample"))
    return outputs[0]


def _string_tensor(value) -> Symbol:
    return value if isinstance(value, Symbol) else convert_to_tensor(value, dtype="string")


def _outputs(inputs, groups, func, name) -> list:
    """A parse_example node over ``inputs`` and a dict of its outputs per group of
    configurations ``(configs, the leading dims of its dense outputs, its sparse outputs'
    rank)``, a sparse one as a SparseTensor."""
    shapes, types = [], []
    for configs, lead, rank in groups:
        for config in configs:
            if config.kind == "dense":
                shapes.append(lead + config.shape)
            elif config.kind == "sequence":
                shapes.append(lead + (None,) + config.shape)
            else:
                shapes.extend([(None, rank), (None,), (rank,)])
                types.extend(["int64", config.dtype])
            types.append("int64" if config.kind == "sparse" else config.dtype)
    node = create_op("parse_example", *inputs, num_args=len(inputs), shapes=tuple(shapes),
                     Touts=tuple(types), func=func, name=name).outputs[0].node
    graph, position, dicts = current_context(), 0, []
    for index, shape in enumerate(shapes):
        graph.declared_shapes[NodeEntry(node, index)] = TensorShape(list(shape))
    for configs, _, _ in groups:
        dicts.append({})
        for config in configs:
            parts = [Symbol([NodeEntry(node, position + i)])
                     for i in range(3 if config.kind == "sparse" else 1)]
            position += len(parts)
            dicts[-1][config.key] = SparseTensor(*parts) if config.kind == "sparse" else parts[0]
    return dicts


def parse_example(serialized, features, name=None, example_names=None) -> dict:
    """``{key: tensor}`` of ``features`` (a dict of FixedLenFeature, VarLenFeature,
    FixedLenSequenceFeature) parsed from ``serialized``, a vector of serialized
    ``tf.train.Example`` protos: a dense feature ``[batch] + shape``, a sequence feature
    ``[batch, longest] + shape``, a VarLenFeature a 2-D tf.SparseTensor.  ``example_names``
    name the examples in errors."""
    return _parse(serialized, features, example_names, name, single=False)


def parse_single_example(serialized, features, name=None, example_names=None) -> dict:
    """As :func:`parse_example` for one serialized example (a scalar): a dense feature of its
    shape, a VarLenFeature a 1-D tf.SparseTensor."""
    return _parse(serialized, features, example_names, name, single=True)


# -- tf.decode_csv -----------------------------------------------------------------------------
_CSV_TYPES = ("float32", "float64", "int32", "int64", "string")
_NUMBER = {"int": re.compile(r"\s*[+-]?\d+\s*"),  # TF's safe_strto*: spaces around allowed
           "float": re.compile(r"\s*[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)"
                               r"\s*", re.IGNORECASE)}
_QUOTED = "Quoted field has to end with quote followed by delim or end"
_TF_CSV_NAMES = {"float32": "float", "float64": "double", "int32": "int32", "int64": "int64"}


class _Csv:
    """decode_csv's attr func: each record's fields, converted to the defaults' dtypes."""

    def __init__(self, defaults, delim, quotes, na_value, columns):
        self.defaults, self.delim, self.quotes = defaults, delim, quotes
        self.na_value, self.columns = na_value, columns

    def __call__(self, node, inputs):
        records = np.asarray(inputs[0], dtype=object)
        out = [np.empty(records.shape, dtype=d.dtype) for d in self.defaults]
        for index, record in enumerate(records.reshape(-1)):
            text = _as_bytes(record).decode("utf-8", "replace")
            fields = _csv_fields(node.name, text, self.delim, self.quotes) if text else []
            for column, value in enumerate(self.row(node.name, fields, f"record {index}")):
                out[column].reshape(-1)[index] = value
        return out

    def row(self, name, fields: list, where: str) -> list:
        """One record's values from its ``fields`` (str), the columns selected and converted,
        or TF's InvalidArgumentError naming the record (``where``) and op ``name``."""
        if self.columns is not None:
            fields = [fields[c] for c in self.columns if c < len(fields)]
        if len(fields) != len(self.defaults):
            raise InvalidArgumentError(None, name, (
                f"Expect {len(self.defaults)} fields but have {len(fields)} in {where}"))
        return [self._value(name, field, default, column, where)
                for column, (field, default) in enumerate(zip(fields, self.defaults))]

    def _value(self, name, field, default, column, where):
        if field == "" or field == self.na_value:
            if default.size == 0:
                raise InvalidArgumentError(None, name, (
                    f"Field {column} is required but missing in {where}!"))
            return default.reshape(-1)[0]
        if default.dtype == object:
            return field.encode()
        kind = "int" if default.dtype.kind == "i" else "float"
        valid = _NUMBER[kind].fullmatch(field) is not None
        value = int(field) if valid and kind == "int" else float(field) if valid else None
        if value is None or kind == "int" and not (
                np.iinfo(default.dtype).min <= value <= np.iinfo(default.dtype).max):
            raise InvalidArgumentError(None, name, (
                f"Field {column} in {where} is not a valid "
                f"{_TF_CSV_NAMES[default.dtype.name]}: {field}"))
        return value


def _csv_fields(name, record, delim, quotes) -> list:
    """The fields of one record (op ``name``'s), TF's quoting: a field in double quotes may
    hold the delimiter, line breaks and doubled quotes; an unquoted one no quote nor line
    break."""
    fields, position = [], 0
    while True:
        if quotes and record.startswith('"', position):
            field, position = [], position + 1
            while True:
                end = record.find('"', position)
                if end < 0:
                    raise InvalidArgumentError(None, name, _QUOTED)
                field.append(record[position:end])
                if record.startswith('"', end + 1):  # a doubled quote: one quote
                    field.append('"')
                    position = end + 2
                    continue
                position = end + 1
                break
            if position < len(record) and record[position] != delim:
                raise InvalidArgumentError(None, name, _QUOTED)
            fields.append("".join(field))
        else:
            end = record.find(delim, position)
            end = len(record) if end < 0 else end
            field = record[position:end]
            if (quotes and '"' in field) or "\n" in field or "\r" in field:
                raise InvalidArgumentError(None, name, (
                    "Unquoted fields cannot have quotes/CRLFs inside"))
            fields.append(field)
            position = end
        if position >= len(record):
            return fields
        position += 1  # past the delimiter
        if position == len(record):
            return [*fields, ""]


def csv_defaults(record_defaults, dtypes_allowed=False) -> list:
    """``record_defaults`` as TF checks them: per column a 1-D array of its default (empty: a
    required column; strings an object array of bytes), of dtype float32, float64, int32,
    int64 or string; with ``dtypes_allowed`` (CsvDataset's) a DType is a required column."""
    defaults = []
    for default in record_defaults:
        if dtypes_allowed and isinstance(default, DType):
            default = np.empty(0, dtype=default.as_numpy_dtype)
        if isinstance(default, (list, tuple)) and len(default) == 1 and isinstance(
                default[0], Symbol):  # [tf.constant(0, tf.int64)]
            default = default[0]
        if isinstance(default, Symbol):
            array, dtype = constant_value(default), default.dtype.name
            if array is None:
                raise TypeError(f"decode_csv: TinyFlow takes record_defaults of numbers or "
                                f"numeric constants, got {default.name}")
        else:
            array = np.asarray(default, dtype=object if np.asarray(default).dtype.kind in "US"
                               else None)
            dtype = _inferred_dtype(default).name
        if dtype not in _CSV_TYPES:
            raise TypeError(f"Value passed to parameter 'record_defaults' has DataType {dtype} "
                            f"not in list of allowed values: {', '.join(_CSV_TYPES)}")
        if array.size > 1 or array.ndim > 1:
            raise ValueError("Shape of a default must be a length-0 or length-1 vector, or a "
                             "scalar.")
        defaults.append(np.array([_as_bytes(v) for v in array.reshape(-1)] + [None], object)[:-1]
                        if dtype == "string" else array.astype(dtype).reshape(-1))
    return defaults


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None) -> list:
    """The columns of CSV ``records`` (a string tensor): one tensor per entry of
    ``record_defaults`` (each ``[value]``, or ``[]`` for a required column), of its dtype
    (float32, float64, int32, int64, string) and the records' shape."""
    if len(field_delim) != 1:
        raise ValueError("field_delim should be only 1 character")
    defaults = csv_defaults(record_defaults)
    columns = None if select_cols is None else [int(c) for c in select_cols]
    records = records if isinstance(records, Symbol) else convert_to_tensor(
        records, dtype="string")
    shape = records.get_shape()
    dims = None if shape.ndims is None else tuple(shape.as_list())
    node = create_op("decode_csv", records, shapes=(dims,) * len(defaults),
                     Touts=tuple(d.dtype.name if d.dtype != object else "string"
                                 for d in defaults),
                     func=_Csv(defaults, field_delim, use_quote_delim, na_value, columns),
                     name=name or "DecodeCSV").outputs[0].node
    graph = current_context()
    for index in range(len(defaults)):
        graph.declared_shapes[NodeEntry(node, index)] = shape
    return [Symbol([NodeEntry(node, index)]) for index in range(len(defaults))]



# -- tf.parse_single_sequence_example ------------------------------------------------------------
class _SequenceParser:
    """parse_example's attr func for one SequenceExample: its context's features (as one
    Example's), then each feature list's steps (a dense ``[steps] + shape``, or a sparse
    ``[steps, longest]``)."""

    def __init__(self, context, sequence):
        self.context, self.sequence = _Parser(context, True), sequence
        self.steps = _Parser(sequence, single=False)  # a step's values as one example's

    def __call__(self, node, inputs):
        value = np.asarray(inputs[0], dtype=object).reshape(-1)[0]
        name = _text(np.asarray(inputs[1], dtype=object).reshape(-1)[0]) if len(
            inputs) > 1 else "<unknown>"
        example = _example(node, value, SequenceExample)
        outputs = self.context.parse(node, [example.context if example.HasField("context")
                                            else None], [name])
        lists = example.feature_lists.feature_list if example.HasField("feature_lists") else {}
        for config in self.sequence:
            steps = lists.get(config.key)
            if steps is None and config.kind == "sequence" and not config.allow_missing:
                raise InvalidArgumentError(None, node.name, (
                    f"Name: {name}, Feature list '{config.key}' is required but could not be "
                    f"found.  Did you mean to include it in "
                    f"feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?"))
            rows = [self._step(node, config, feature, name, index)
                    for index, feature in enumerate(steps.feature if steps else [])]
            if config.kind == "sequence":
                outputs.append(np.stack(rows) if rows else np.zeros((0,) + config.shape,
                                                                    config.numpy))
            else:
                outputs.extend(self.steps._output(config, rows))
        return outputs

    def _step(self, node, config, feature, name, index):
        kind = feature.WhichOneof("kind")
        if kind is not None and kind != _LISTS[config.dtype]:
            raise InvalidArgumentError(None, node.name, (
                f"Name: {name}, Feature list: {config.key}, Index: {index}.  Data types don't "
                f"match. Expected type: {_TF_NAMES[config.dtype]}"))
        values = np.array(list(getattr(feature, kind).value) if kind else [], config.numpy)
        if config.kind == "sequence":
            if len(values) != int(np.prod(config.shape)):
                raise InvalidArgumentError(None, node.name, (
                    f"Name: {name}, Key: {config.key}, Index: {index}.  Number of values != "
                    f"expected.  values size: {len(values)} but output shape: "
                    f"{_shape_text(config.shape)}"))
            return values.reshape(config.shape)
        return values


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None) -> tuple:
    """``(context, sequences)``: two dicts of what one serialized ``tf.train.SequenceExample``
    holds: ``context_features`` (FixedLenFeature, VarLenFeature) parsed from its context as
    :func:`parse_single_example` does, ``sequence_features`` (FixedLenSequenceFeature: a
    ``[steps] + shape`` tensor; VarLenFeature: a 2-D tf.SparseTensor) from its feature
    lists."""
    if not context_features and not sequence_features:
        raise ValueError("Missing features.")
    context = [_Config(k, f) for k, f in sorted((context_features or {}).items())]
    sequence = [_Config(k, f) for k, f in sorted((sequence_features or {}).items())]
    for config, feature in zip(sequence, [sequence_features[c.key] for c in sequence]):
        if config.kind == "dense":
            raise ValueError(f"Unsupported FixedLenFeature {feature} for key '{config.key}'")
    serialized = _string_tensor(serialized)
    if serialized.get_shape().ndims not in (None, 0):
        raise ValueError("Input serialized must be a scalar")
    inputs = [serialized] + ([] if example_name is None else [_string_tensor(example_name)])
    contexts, sequences = _outputs(inputs, [(context, (), 1), (sequence, (), 2)],
                                   _SequenceParser(context, sequence),
                                   name or "ParseSingleSequenceExample")
    return contexts, sequences
