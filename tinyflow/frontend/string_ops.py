"""TensorFlow 1.15's string ops (``tf.strings`` and their TF-1 top-level names: ``tf.as_string``,
``tf.string_join``, ``tf.reduce_join``, ``tf.substr``, ``tf.string_split``,
``tf.string_to_number``, ``tf.regex_replace``, ``tf.string_strip``, ``tf.decode_base64``,
``tf.encode_base64``).  Strings are computed in Python before the run (tinyflow/ops/strings.py);
a string tensor is a ``tf.constant`` of strings, a fed ``tf.string`` placeholder, a reader's or
a dataset's element, or another string op's result.  Their arguments are checked as the graph
is built, with TensorFlow's messages; what depends on the values (an out-of-range ``pos``, a
string that is no number) is TF's error when the run computes it.
"""
from __future__ import annotations

import numpy as np

from ..nnvm.errors import InvalidArgumentError
from ..nnvm.symbol import NodeEntry, Symbol, create_op
from ..nnvm.tensor_shape import TensorShape
from ..nnvm.variables import constant
from ..ops.string_kernels import as_string_format, compile_re2
from .check_ops import constant_value
from .math_ops import convert_to_tensor
from .sparse_ops import SparseTensor

__all__ = ["as_string", "decode_base64", "encode_base64", "reduce_join", "regex_replace",
           "string_join", "string_split", "string_strip", "string_to_number", "substr"]

_NUMBERS = ("float32", "float64", "int32", "int64")


def _strings(value, op: str, parameter: str = "input") -> Symbol:
    """``value`` as a string tensor, or TF's TypeError naming ``op``'s parameter."""
    if isinstance(value, Symbol):
        if value.dtype.name != "string":
            raise TypeError(f"Expected string passed to parameter '{parameter}' of op '{op}', "
                            f"got {value.name} of type {value.dtype.name} instead")
        return value
    if isinstance(value, (list, tuple)) and any(isinstance(v, Symbol) for v in value):
        parts = [_strings(v, op, parameter) for v in value]  # [line]: TF's autopacking
        return create_op("string_stack", *parts, num_args=len(parts), name="packed")
    array = np.asarray(value, dtype=object)
    if any(not isinstance(v, (str, bytes)) for v in array.ravel().tolist()):
        raise TypeError(f"Expected string passed to parameter '{parameter}' of op '{op}', got "
                        f"{value!r} of type '{type(value).__name__}' instead")
    return constant(value, dtype="string")


def _tensor(value) -> Symbol:
    return value if isinstance(value, Symbol) else convert_to_tensor(value)


def _static_python_string(value, what: str) -> str:
    """A pattern, rewrite or separator: a Python string or a scalar string constant
    (TinyFlow's ops take them as attributes)."""
    node = value.outputs[0].node if isinstance(value, Symbol) else None
    if node is not None and node.op is not None and node.op.name == "constant" and \
            node.attrs.get("dtype") == "string" and tuple(node.attrs["shape"]) == ():
        value = node.attrs["value"][0]
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, str):
        return value
    raise TypeError(f"{what} must be known when the graph is built in TinyFlow (a Python "
                    f"string or a string constant: its string ops take it as an attribute), "
                    f"got {value!r}")


def _dims(tensor: Symbol):
    shape = tensor.get_shape()
    return None if shape.ndims is None else shape.as_list()


def length(input, name=None, unit="BYTE") -> Symbol:
    """Each string's length (int32): its bytes, or with ``unit='UTF8_CHAR'`` its UTF-8
    characters (tf.strings.length)."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"Attr 'unit' of 'StringLength' Op passed string '{unit}' not in: "
                         f'"BYTE", "UTF8_CHAR".')
    return create_op("string_length", _strings(input, "StringLength"), unit=unit,
                     name=name or "StringLength")


def _case(input, encoding, name, upper):
    op = "StringUpper" if upper else "StringLower"
    if encoding not in ("", "utf-8"):
        raise InvalidArgumentError(None, op, f"only utf-8 or '' (no encoding) is supported, "
                                             f"received {encoding}")
    return create_op("string_case", _strings(input, op), upper=upper, encoding=encoding,
                     name=name or op)


def lower(input, encoding="", name=None) -> Symbol:
    """The strings in lower case: ASCII letters, or Unicode's with ``encoding='utf-8'``."""
    return _case(input, encoding, name, False)


def upper(input, encoding="", name=None) -> Symbol:
    """The strings in upper case: ASCII letters, or Unicode's with ``encoding='utf-8'``."""
    return _case(input, encoding, name, True)


def string_strip(input, name=None) -> Symbol:
    """The strings without leading and trailing ASCII whitespace (tf.strings.strip)."""
    return create_op("string_strip", _strings(input, "StringStrip"), name=name or "StringStrip")


def string_join(inputs, separator="", name=None) -> Symbol:
    """The inputs' strings joined elementwise with ``separator``; each input of one shape, or
    a scalar (tf.strings.join: TF's StringJoin, no broadcasting beyond scalars)."""
    tensors = [_tensor(t) for t in inputs]
    types = [t.dtype.name for t in tensors]
    if any(t != "string" for t in types):
        raise TypeError(f"Tensors in list passed to 'inputs' of 'StringJoin' Op have types "
                        f"[{', '.join(types)}] that do not match expected type string.")
    shapes = [d for d in (_dims(t) for t in tensors) if d is None or d]
    known = [s for s in shapes if s is not None]
    for shape in known[1:]:
        first = known[0]
        if len(shape) != len(first):
            raise ValueError(f"Shapes must be equal rank, but are {len(first)} and {len(shape)}"
                             f" for 'StringJoin' with input shapes: {first}, {shape}.")
        for axis, (a, b) in enumerate(zip(first, shape)):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimension {axis} in both shapes must be equal, but are {a} "
                                 f"and {b}. Shapes are {first} and {shape}.")
    separator = _static_python_string(separator, "string_join's separator")
    return create_op("string_join", *tensors, num_args=len(tensors), separator=separator,
                     name=name or "StringJoin")


def reduce_join(inputs, axis=None, keep_dims=None, separator="", name=None,
                reduction_indices=None, keepdims=None) -> Symbol:
    """The strings joined with ``separator`` along ``axis`` (an int or a list; all when None),
    those dimensions kept as 1s with ``keepdims`` (tf.strings.reduce_join)."""
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_indices'.")
        axis = reduction_indices
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'.")
        keepdims = keep_dims
    tensor = _strings(inputs, "ReduceJoin", "inputs")
    if isinstance(axis, Symbol):
        known = constant_value(axis)
        if known is None:
            raise TypeError(f"reduce_join's axis must be known when the graph is built in "
                            f"TinyFlow (ints or an int constant), got {axis.name}")
        axis = known
    axes = None if axis is None else tuple(int(a) for a in np.asarray(axis).reshape(-1))
    dims = _dims(tensor)
    if axes is not None and dims is not None:
        for a in axes:
            if not -len(dims) <= a < max(len(dims), 1):
                raise ValueError(f"Invalid reduction dimension {a} for input with {len(dims)} "
                                 f"dimensions.")
    return create_op("reduce_join", tensor, axis=axes, keepdims=bool(keepdims),
                     separator=_static_python_string(separator, "reduce_join's separator"), name=name or "ReduceJoin")


def substr(input, pos, len, name=None, unit="BYTE") -> Symbol:
    """Substrings from ``pos`` (negative: from the end) of ``len`` bytes or UTF-8 characters
    (``unit``); ``pos`` and ``len`` of one shape, broadcast with the strings (tf.substr)."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"Attr 'unit' of 'Substr' Op passed string '{unit}' not in: "
                         f'"BYTE", "UTF8_CHAR".')
    strings = _strings(input, "Substr")
    if isinstance(pos, Symbol) and not isinstance(len, Symbol):  # len takes pos's dtype
        length = convert_to_tensor(len, dtype=pos.dtype)
    else:
        length = _tensor(len)
        pos = convert_to_tensor(pos, dtype=length.dtype) if isinstance(len, Symbol) and not \
            isinstance(pos, Symbol) else _tensor(pos)
    for tensor, what in ((pos, "pos"), (length, "len")):
        if tensor.dtype.name not in ("int32", "int64"):
            raise TypeError(f"Value passed to parameter '{what}' has DataType "
                            f"{tensor.dtype.name} not in list of allowed values: int32, int64")
    if pos.dtype != length.dtype:
        raise TypeError(f"Input 'len' of 'Substr' Op has type {length.dtype.name} that does "
                        f"not match type {pos.dtype.name} of argument 'pos'.")
    pos_dims, len_dims = _dims(pos), _dims(length)
    if pos_dims is not None and len_dims is not None and (
            np.size(pos_dims) != np.size(len_dims) or any(
                a is not None and b is not None and a != b for a, b in zip(pos_dims, len_dims))):
        raise ValueError(f"Shape must be rank {np.size(len_dims)} but is rank "
                         f"{np.size(pos_dims)} for 'Substr': pos and len must have one shape, "
                         f"got {pos_dims} and {len_dims}")
    return create_op("substr", strings, pos, length, unit=unit, name=name or "Substr")


def string_to_number(string_tensor=None, out_type="float32", name=None, input=None) -> Symbol:
    """The strings as numbers of ``out_type`` (float32, float64, int32, int64); a string that
    is none is TF's InvalidArgumentError naming it, when the run computes it."""
    if input is not None:
        string_tensor = input
    out_type = getattr(out_type, "name", out_type)
    if out_type not in _NUMBERS:
        raise TypeError(f"Value passed to parameter 'out_type' has DataType {out_type} not in "
                        f"list of allowed values: float32, float64, int32, int64 (TinyFlow "
                        f"has no uint32, uint64)")
    return create_op("string_to_number", _strings(string_tensor, "StringToNumber",
                                                  "string_tensor"),
                     out_type=out_type, name=name or "StringToNumber")


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="",
              name=None) -> Symbol:
    """Numbers or bools as strings, printf's way: ``precision`` digits after the point,
    ``scientific`` (%e) or ``shortest`` (%g), padded to ``width`` with ``fill`` (one of
    ' +-#0', printf's flag) (tf.as_string)."""
    tensor = _tensor(input)
    dtype = tensor.dtype.name
    if dtype == "string" or not (tensor.dtype.is_integer or tensor.dtype.is_floating
                                 or tensor.dtype.is_bool):
        raise TypeError(f"Value passed to parameter 'input' has DataType {dtype} not in list of "
                        f"allowed values: int8, int16, int32, int64, uint8, float16, float32, "
                        f"float64, bool")
    kind = "f" if tensor.dtype.is_floating else "b" if tensor.dtype.is_bool else "i"
    _, problem = as_string_format(kind, dtype, fill, int(width), int(precision),
                                  bool(scientific), bool(shortest))
    if problem is not None:
        raise InvalidArgumentError(None, name or "AsString", problem)
    return create_op("as_string", tensor, fill=fill, width=int(width), precision=int(precision),
                     scientific=bool(scientific), shortest=bool(shortest),
                     name=name or "AsString")


def regex_full_match(input, pattern, name=None) -> Symbol:
    """Whether each string matches ``pattern`` (RE2's syntax) whole, bool."""
    pattern = _static_python_string(pattern, "regex_full_match's pattern")
    compile_re2(pattern, name or "StaticRegexFullMatch")
    return create_op("regex_full_match", _strings(input, "StaticRegexFullMatch"),
                     pattern=pattern, name=name or "StaticRegexFullMatch")


def regex_replace(input, pattern, rewrite, replace_global=True, name=None) -> Symbol:
    """The strings with ``pattern``'s matches (RE2's syntax) replaced by ``rewrite`` (``\\1``
    a group, ``\\0`` the match): all, or the first (tf.regex_replace)."""
    pattern = _static_python_string(pattern, "regex_replace's pattern")
    rewrite = _static_python_string(rewrite, "regex_replace's rewrite")
    compile_re2(pattern, name or "StaticRegexReplace")
    return create_op("regex_replace", _strings(input, "StaticRegexReplace"), pattern=pattern,
                     rewrite=rewrite, replace_global=bool(replace_global),
                     name=name or "StaticRegexReplace")


def _split(source, attrs, name) -> SparseTensor:
    tensor = _strings(source, "StringSplit")
    dims = _dims(tensor)
    if dims is not None and len(dims) != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {len(dims)} for 'StringSplit' with "
                         f"input shapes: {dims}.")
    node = create_op("string_split", tensor, name=name or "StringSplit", **attrs).outputs[0].node
    for index, dims in enumerate(([None, 2], [None], [2])):  # TF's static shapes
        node.graph.declared_shapes[NodeEntry(node, index)] = TensorShape(dims)
    indices, values, shape = (Symbol([NodeEntry(node, i)]) for i in range(3))
    return SparseTensor(indices, values, shape)


def string_split(source, sep=None, skip_empty=True, delimiter=None,
                 result_type="SparseTensor", name=None) -> SparseTensor:
    """A vector of strings split into tokens, as a ``tf.SparseTensor`` (row, position):
    each byte of ``delimiter`` (default ' '; ``sep`` its old name; '' splits every byte) ends
    a token, empty ones dropped with ``skip_empty`` (tf.string_split)."""
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'.")
    delimiter = " " if sep is None and delimiter is None else (delimiter if sep is None else sep)
    _check_result_type(result_type)
    delimiter = _static_python_string(delimiter, "string_split's delimiter")
    return _split(source, {"delimiter": delimiter, "skip_empty": bool(skip_empty)}, name)


def _check_result_type(result_type):
    if result_type == "RaggedTensor":
        raise AttributeError("result_type='RaggedTensor': TinyFlow has no tf.RaggedTensor (TF "
                             "1.15's tf.RaggedTensor is not supported); pass "
                             "result_type='SparseTensor'")
    if result_type != "SparseTensor":
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


def split(input=None, sep=None, maxsplit=-1, result_type="SparseTensor", source=None,
          name=None) -> SparseTensor:
    """A vector of strings split at ``sep`` (the whole string; None: runs of whitespace), at
    most ``maxsplit`` times, as a ``tf.SparseTensor`` (TF 1.15's tf.strings.split)."""
    if source is not None:
        if input is not None:
            raise ValueError("Cannot specify both 'input' and 'source'.")
        input = source
    _check_result_type(result_type)
    sep = "" if sep is None else _static_python_string(sep, "split's sep")
    return _split(input, {"sep": sep, "maxsplit": int(maxsplit)}, name)


def format(template, inputs, placeholder="{}", summarize=3, name=None) -> Symbol:
    """``template`` with each ``placeholder`` replaced by the next input's values as TF prints
    them (``summarize`` at each end of a dimension; -1: all), a scalar string
    (tf.strings.format)."""
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    expected = template.count(placeholder)
    if expected != len(inputs):
        raise ValueError(f"The template expects {expected} tensors, but the inputs only has "
                         f"{len(inputs)}. Please ensure the number of placeholders in template "
                         f"matches inputs length.")
    tensors = [_tensor(t) for t in inputs]
    return create_op("string_format", *tensors, num_args=len(tensors), template=template,
                     placeholder=placeholder, summarize=int(summarize),
                     name=name or "StringFormat")


def encode_base64(input, pad=False, name=None) -> Symbol:
    """The strings in web-safe base64 ('-' and '_'), '=' padded only with ``pad``."""
    return create_op("base64", _strings(input, "EncodeBase64"), encode=True, pad=bool(pad),
                     name=name or "EncodeBase64")


def decode_base64(input, name=None) -> Symbol:
    """Web-safe base64 strings decoded (padded or not); TF's error for anything else."""
    return create_op("base64", _strings(input, "DecodeBase64"), encode=False,
                     name=name or "DecodeBase64")


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,
                   replace_control_characters=False, name=None) -> Symbol:
    """A scalar string's characters' code points (int32), decoded from ``input_encoding``;
    a string that is not in it raises (``errors='strict'``), loses the bad bytes
    (``'ignore'``) or has ``replacement_char`` in their place (``'replace'``).  TensorFlow
    gives a RaggedTensor for strings of rank 1 or more, which TinyFlow lacks: those are an
    AttributeError saying so."""
    if errors not in ("strict", "replace", "ignore"):
        raise ValueError(f"Attr 'errors' of 'UnicodeDecode' Op passed string '{errors}' not in:"
                         f' "strict", "replace", "ignore".')
    tensor = _strings(input, "UnicodeDecode")
    if tensor.get_shape().ndims != 0:
        raise AttributeError(f"tf.strings.unicode_decode of {tensor.name} (shape "
                             f"{tensor.get_shape()}): TensorFlow gives a RaggedTensor for "
                             f"strings that are not a known scalar, and TinyFlow has no "
                             f"tf.RaggedTensor; decode one scalar string at a time")
    points = create_op("unicode_decode", tensor, encoding=input_encoding, errors=errors,
                       replacement_char=int(replacement_char),
                       replace_control_characters=bool(replace_control_characters),
                       name=name or "UnicodeDecode")
    points.graph.declared_shapes[points.outputs[0]] = TensorShape([None])  # TF's static shape
    return points
