"""TF's string ops (``tf.strings``: length, lower, upper, strip, join, reduce_join, substr,
to_number, as_string, split, format, regex_full_match, regex_replace, base64), see
:mod:`tinyflow.frontend.string_ops`.  No executor buffer holds a string: each op's outputs are
pulled before the run (FPullOutputs, session/pull.py), computed in Python from its inputs'
values (numpy object arrays of bytes, numbers for ``as_string`` / ``format``); a string
output is read by the next string op or fetched, a numeric one (``length``, ``to_number``,
``regex_full_match``, ``split``'s indices) is fed to the executor.  Every op checks the bytes
its result needs against the host's memory first (TF's ResourceExhaustedError naming the
node).  The attributes are plain values, so graphs holding these ops serialise.  No Lua body.
"""
from __future__ import annotations

import time

import numpy as np

from ..nnvm import host_memory
from ..nnvm.attrs import no_gradient
from ..nnvm.errors import DeadlineExceededError, InvalidArgumentError
from ..nnvm.op import register_op
from ..nnvm.symbol import Symbol
from . import string_kernels as kernels

__all__: list[str] = []

# a bytes object's own size beside its characters, and an object array's pointer
_PER_STRING = 48


def _invalid(node, message: str) -> InvalidArgumentError:
    """TF's InvalidArgumentError of ``node``: ``message`` and the node, as TF names it."""
    return InvalidArgumentError(None, node.name, f"{message}\n\t [[{node.describe()}]]")


def _pattern(node):
    """The node's attr pattern (RE2's syntax) compiled, or its error naming the node."""
    try:
        return kernels.compile_re2(node.attrs["pattern"], node.name)
    except InvalidArgumentError as error:
        raise _invalid(node, error.message) from None


def _string_bytes(array) -> int:
    """The bytes an object array of bytes takes, its strings' characters included."""
    return sum(len(s) for s in array.ravel().tolist()) + _PER_STRING * array.size


def _pulled(compute, growth=None, timed=False):
    """FPullOutputs of a string op: ``compute(node, *input values)`` (``timed``: with the
    run's ``deadline=``), its result's size (``growth(node, values)`` bytes, by default the
    inputs' strings') checked first."""
    def pull(node, resources, evaluate, deadline):
        # one input at a time: a fed or pulled string gives its value, the rest is computed
        values = [_array(evaluate([Symbol([e])])[0]) for e in node.inputs]
        needed = (growth(node, values) if growth is not None
                  else sum(_string_bytes(v) for v in values if v.dtype == object))
        host_memory.check_node_fits(node, needed, "for its strings")
        try:
            return compute(node, *values, deadline=deadline) if timed else compute(node, *values)
        except (TypeError, ValueError, KeyError, IndexError, OverflowError) as error:
            # attributes a graph document gave that no TF-1 function makes
            raise _invalid(node, f"cannot compute with its attributes {node.attrs}: "
                                 f"{error}") from error
    return pull


def _array(value) -> np.ndarray:
    """An input's value as numpy, a string (a fetched scalar is bytes) as an object array."""
    array = np.asarray(value, dtype=object if isinstance(value, bytes) else None)
    return array.astype(object) if array.dtype.kind == "S" else array


def _same_shape(out_type):
    def shape(attrs, in_shapes, out_shapes):
        return in_shapes, [in_shapes[0] if in_shapes[0] is not None else out_shapes[0]]
    return shape, (lambda attrs, in_types, out_types: (in_types, [out_type]))


def _register(name, describe, compute, out_type="string", shape=None, growth=None,
              num_inputs=1, timed=False):
    same_shape, types = _same_shape(out_type)
    (register_op(name).describe(describe)
     .set_num_inputs(num_inputs)
     .set_attr("FInferShape", shape or same_shape).set_attr("FInferType", types)
     .set_attr("FPullOutputs", _pulled(compute, growth, timed))
     .set_attr("FGradient", no_gradient))


def _map(function, array, dtype=object, node=None, deadline=None):
    """``function`` of each element of ``array``, an array of ``dtype`` of its shape; past
    ``deadline`` (the run's timeout_in_ms) between two elements, DeadlineExceededError
    naming ``node``."""
    out = np.empty(array.shape, dtype=dtype)
    flat = out.reshape(-1)
    for index, item in enumerate(array.reshape(-1).tolist()):
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceededError(None, node.name, f"{node.describe()} took longer than "
                                        f"the run's timeout, at string {index} of {array.size}")
        flat[index] = function(item)
    return out


def _broadcast_shape(attrs, in_shapes, out_shapes):
    """The inputs' broadcast shape (known once all are known)."""
    if any(s is None for s in in_shapes):
        return in_shapes, [out_shapes[0]]
    try:
        return in_shapes, [tuple(np.broadcast_shapes(*in_shapes))]
    except ValueError:
        return in_shapes, [out_shapes[0]]


def _broadcast(node, arrays):
    try:
        return np.broadcast_arrays(*arrays)
    except ValueError:
        raise _invalid(node, "Incompatible shapes: " + " vs. ".join(
            str(list(a.shape)) for a in arrays)) from None


def _length(node, strings):
    count = kernels.utf8_length if node.attrs.get("unit") == "UTF8_CHAR" else len
    return [_map(count, strings, np.int32)]


def _case(node, strings):
    upper, utf8 = node.attrs["upper"], node.attrs.get("encoding") == "utf-8"

    def change(s):
        if utf8:
            text = s.decode("utf-8", "surrogateescape")
            return (text.upper() if upper else text.lower()).encode("utf-8", "surrogateescape")
        return s.upper() if upper else s.lower()  # ASCII letters alone, as TF's ''
    return [_map(change, strings)]


def _strip(node, strings):
    return [_map(bytes.strip, strings)]  # C's isspace: b" \t\n\v\f\r"


def _join(node, *arrays):
    shapes = {a.shape for a in arrays if a.ndim}
    if len(shapes) > 1:
        raise _invalid(node, "Input shapes do not match: " + " vs. ".join(
            str(list(s)) for s in shapes))
    if not arrays:
        return [np.array(b"", dtype=object)]
    arrays = np.broadcast_arrays(*arrays)
    separator = node.attrs.get("separator", "").encode()
    out = np.empty(arrays[0].shape, dtype=object)
    flat = out.reshape(-1)
    for index, parts in enumerate(zip(*(a.reshape(-1).tolist() for a in arrays))):
        flat[index] = separator.join(parts)
    return [out]


def _join_growth(node, values):
    """Each output string is its inputs' strings and the separators: the broadcast shape's
    size times the longest strings (a scalar joined with a vector is repeated)."""
    shape = np.broadcast_shapes(*(v.shape for v in values)) if values else ()
    longest = sum(max((len(s) for s in v.ravel().tolist()), default=0) for v in values)
    longest += len(node.attrs.get("separator", "")) * len(values)
    return int(np.prod(shape, dtype=np.float64) * (longest + _PER_STRING))


def _reduce_join(node, strings):
    axes = node.attrs.get("axis")
    axes = tuple(range(strings.ndim)) if axes is None else tuple(axes)
    resolved = [a + strings.ndim if a < 0 else a for a in axes]
    for axis, given in zip(resolved, axes):
        if not 0 <= axis < max(strings.ndim, 1):
            raise _invalid(node, f"Invalid reduction dimension {given} "
                                       f"for input with {strings.ndim} dimensions")
    for axis in resolved:
        if resolved.count(axis) > 1:
            raise _invalid(node, f"Duplicate reduction dimension {axis}")
    kept = [a for a in range(strings.ndim) if a not in resolved]
    moved = np.transpose(strings, kept + sorted(resolved))
    rows = moved.reshape(moved.shape[:len(kept)] + (-1,))
    separator = node.attrs.get("separator", "").encode()
    count = int(np.prod(rows.shape[:-1], dtype=np.int64))
    out = np.empty(count, dtype=object)
    for index, row in enumerate(rows.reshape(count, rows.shape[-1]).tolist()):
        out[index] = separator.join(row)
    out = out.reshape(rows.shape[:-1])
    if node.attrs.get("keepdims"):
        out = out.reshape([1 if a in resolved else d for a, d in enumerate(strings.shape)])
    return [out]


def _reduce_join_shape(attrs, in_shapes, out_shapes):
    shape, axes = in_shapes[0], attrs.get("axis")
    if shape is None:
        return in_shapes, [out_shapes[0]]
    axes = range(len(shape)) if axes is None else [a % max(len(shape), 1) for a in axes]
    if attrs.get("keepdims"):
        return in_shapes, [tuple(1 if a in axes else d for a, d in enumerate(shape))]
    return in_shapes, [tuple(d for a, d in enumerate(shape) if a not in axes)]


def _substr(node, strings, positions, lengths):
    utf8 = node.attrs.get("unit") == "UTF8_CHAR"
    strings, positions, lengths = _broadcast(node, [strings, positions, lengths])
    out = np.empty(strings.shape, dtype=object)
    flat = out.reshape(-1)
    for index, (s, pos, length) in enumerate(zip(strings.reshape(-1).tolist(),
                                                 positions.reshape(-1).tolist(),
                                                 lengths.reshape(-1).tolist())):
        flat[index] = kernels.substring(s, pos, length, utf8)
        if flat[index] is None:
            shown = "" if utf8 else f" {s!r}"
            raise _invalid(node, f"pos {pos} out of range for string"
                                                        f"{shown} at index {index}")
    return [out]


def _to_number(node, strings):
    out_type = node.attrs["out_type"]
    parse = kernels.parse_float if out_type.startswith("float") else kernels.parse_int
    bits = np.iinfo(out_type).bits if out_type.startswith("int") else None

    def number(s):
        value = parse(s, bits)
        if value is None:
            raise _invalid(node, "StringToNumberOp could not correctly "
                                       f"convert string: {s.decode('utf-8', 'replace')}")
        return value
    with np.errstate(over="ignore"):  # TF's float32: a float beyond it is inf
        return [_map(number, strings, np.dtype(out_type))]


def _as_string(node, values):
    kind = "b" if values.dtype == np.bool_ else "f" if values.dtype.kind == "f" else "i"
    attrs = node.attrs
    template, problem = kernels.as_string_format(
        kind, values.dtype.name, attrs.get("fill", ""), attrs.get("width", -1),
        attrs.get("precision", -1), attrs.get("scientific", False), attrs.get("shortest", False))
    if problem is not None:
        raise _invalid(node, problem)
    if kind == "b":  # TF's words, whatever the width
        return [_map(lambda v: b"true" if v else b"false", values)]
    finite = "%" + template[2:] if template[1:2] == "0" else template
    # C's printf pads nan and inf with spaces, never zeros (Python's % pads them with zeros)
    return [_map(lambda v: ((template if np.isfinite(v) else finite) % v).encode(), values)]


def _as_string_growth(node, values):
    width = max(int(node.attrs.get("width", -1)), 0) + max(int(node.attrs.get("precision", -1)),
                                                           0)
    return values[0].size * (width + 330 + _PER_STRING)  # a float64 %f: up to 310 digits


def _regex_full_match(node, strings, deadline=None):
    pattern = _pattern(node)
    return [_map(lambda s: pattern.fullmatch(kernels.as_text(s)) is not None, strings, bool,
                 node, deadline)]


def _regex_replace(node, strings, deadline=None):
    pattern = _pattern(node)
    rewrite, every = node.attrs["rewrite"], node.attrs.get("replace_global", True)
    return [_map(lambda s: kernels.re2_replace(pattern, s, rewrite, every), strings, object,
                 node, deadline)]


def _regex_replace_growth(node, values):
    """At most one rewrite per character and one more, as RE2's global replace."""
    total = _string_bytes(values[0])
    characters = total - _PER_STRING * values[0].size
    rewrite = len(node.attrs["rewrite"].encode())
    return total + (characters + values[0].size) * rewrite * 4  # \0 may copy the match


def _base64(node, strings):
    if node.attrs["encode"]:
        pad = node.attrs.get("pad", False)
        return [_map(lambda s: kernels.encode_base64(s, pad), strings)]

    def decode(s):
        decoded = kernels.decode_base64(s)
        if isinstance(decoded, str):
            raise _invalid(node, decoded)
        return decoded
    return [_map(decode, strings)]


def _base64_growth(node, values):
    return _string_bytes(values[0]) * 2


def _stack(node, *arrays):
    if len({a.shape for a in arrays}) > 1:
        raise _invalid(node, "Shapes of all inputs must match: " +
                                   " vs. ".join(str(list(a.shape)) for a in arrays))
    return [np.stack(arrays).astype(object)]


def _stack_shape(attrs, in_shapes, out_shapes):
    known = [s for s in in_shapes if s is not None]
    return in_shapes, [(len(in_shapes), *known[0]) if known else out_shapes[0]]


_register("string_stack", "The inputs' strings stacked along a new first axis (TF's "
          "autopacking of a list of string tensors: [line]).", _stack, shape=_stack_shape,
          num_inputs=lambda attrs: attrs.get("num_args", 1))
_register("string_length", "Input 0's strings' lengths, int32: bytes, or with attr unit "
          "UTF8_CHAR characters (tf.strings.length).", _length, "int32")
_register("string_case", "Input 0's strings in upper case (attr upper) or lower case: ASCII "
          "letters, or with attr encoding 'utf-8' Unicode's (tf.strings.upper / lower).", _case)
_register("string_strip", "Input 0's strings without leading and trailing ASCII whitespace "
          "(tf.strings.strip).", _strip)
_register("string_join", "The inputs' strings joined elementwise with attr separator, each "
          "input of one shape or a scalar (tf.strings.join).", _join,
          shape=_broadcast_shape, growth=_join_growth,
          num_inputs=lambda attrs: attrs.get("num_args", 1))
_register("reduce_join", "Input 0's strings joined with attr separator along attr axis (all "
          "when None; attr keepdims keeps them as 1s) (tf.strings.reduce_join).",
          _reduce_join, shape=_reduce_join_shape,
          growth=lambda node, values: 2 * _string_bytes(values[0])
          + len(node.attrs.get("separator", "")) * values[0].size)
_register("substr", "Substrings of input 0's strings from position input 1 of length input 2 "
          "(bytes or UTF-8 characters: attr unit), broadcast (tf.strings.substr).", _substr,
          shape=_broadcast_shape, num_inputs=3)
_register("string_to_number", "Input 0's strings as numbers of attr out_type "
          "(tf.strings.to_number).", _to_number,
          "float32", growth=lambda node, values: 8 * values[0].size)
register_op("string_to_number").set_attr(
    "FInferType", lambda attrs, in_types, out_types: (in_types, [attrs["out_type"]]),
    overwrite=True)
_register("as_string", "Input 0's numbers or bools as strings, printf's way: attr precision "
          "digits, attr scientific (%e) or shortest (%g), padded to attr width with attr fill "
          "(tf.as_string).", _as_string, growth=_as_string_growth)
_register("regex_full_match", "Whether each of input 0's strings matches attr pattern (RE2 "
          "syntax) whole, bool (tf.strings.regex_full_match).", _regex_full_match, "bool",
          growth=lambda node, values: values[0].size, timed=True)
_register("regex_replace", "Input 0's strings with attr pattern's matches (RE2 syntax) "
          "replaced by attr rewrite: all, or the first (attr replace_global) "
          "(tf.strings.regex_replace).", _regex_replace, growth=_regex_replace_growth,
          timed=True)
_register("base64", "Input 0's strings in web-safe base64 (attr encode; attr pad: '=' "
          "padding), or decoded from it (tf.io.encode_base64 / decode_base64).", _base64,
          growth=_base64_growth)


def _splitter(attrs):
    """How tf.string_split (attr sep None: each byte of attr delimiter ends a token, attr
    skip_empty) or tf.strings.split (attr sep: the whole separator, at most attr maxsplit
    times; None or '': runs of whitespace) splits a string: a function of it."""
    sep = attrs.get("sep")
    if sep is not None:
        sep, most = sep.encode() or None, attrs.get("maxsplit", -1)
        return lambda s: s.split(sep, most)
    delimiter = attrs.get("delimiter", " ").encode()
    if not delimiter:
        return lambda s: [s[i:i + 1] for i in range(len(s))]
    first, table = delimiter[:1], bytes.maketrans(delimiter, delimiter[:1] * len(delimiter))
    if attrs.get("skip_empty", True):
        return lambda s: [p for p in s.translate(table).split(first) if p]
    return lambda s: s.translate(table).split(first) if s else []


def _split(node, strings):
    split = _splitter(node.attrs)
    rows = [split(s) for s in strings.reshape(-1).tolist()]
    counts = np.array([len(tokens) for tokens in rows], dtype=np.int64)
    starts = np.cumsum(counts) - counts
    total = int(counts.sum())
    indices = np.empty((total, 2), dtype=np.int64)
    indices[:, 0] = np.repeat(np.arange(len(rows), dtype=np.int64), counts)
    indices[:, 1] = np.arange(total, dtype=np.int64) - np.repeat(starts, counts)
    values = np.empty(total, dtype=object)
    values[:] = [t for tokens in rows for t in tokens]
    shape = np.array([len(rows), counts.max(initial=0)], dtype=np.int64)
    return [indices, values, shape]


def _split_growth(node, values):
    """A token per byte at most and one more per string: its characters, its bytes object
    and pointer, 16 bytes of indices."""
    characters = _string_bytes(values[0]) - _PER_STRING * values[0].size
    return characters + (characters + values[0].size) * (16 + _PER_STRING)


(register_op("string_split")
 .describe("Input 0's strings (a vector) split into tokens, a sparse matrix's indices, values "
           "and dense shape (tf.string_split: attr delimiter's bytes, attr skip_empty; "
           "tf.strings.split: attr sep, attr maxsplit).")
 .set_num_inputs(1).set_num_outputs(3)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [
     out_shapes[0], out_shapes[1], (2,)]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (
     in_types, ["int64", "string", "int64"]))
 .set_attr("FPullOutputs", _pulled(_split, _split_growth))
 .set_attr("FGradient", no_gradient))


def _format(node, *values):
    placeholder = node.attrs.get("placeholder", "{}")
    pieces = node.attrs["template"].split(placeholder) if placeholder else []
    if len(pieces) != len(values) + 1:
        raise _invalid(node, f"the template has {len(pieces) - 1} "
                                   f"placeholders '{placeholder}' for {len(values)} inputs")
    summarize = node.attrs.get("summarize", 3)
    out = [pieces[0]]
    for value, piece in zip(values, pieces[1:]):
        out += [kernels.format_value(value, summarize), piece]
    return [np.array("".join(out).encode("utf-8", "surrogateescape"), dtype=object)]


def _format_growth(node, values):
    """The elements printed (``summarize`` at each end of each dimension), ~40 bytes each."""
    summarize = node.attrs.get("summarize", 3)
    shown = sum(int(np.prod([d if summarize < 0 else min(d, 2 * summarize) for d in v.shape],
                            dtype=np.float64)) for v in values)
    escaped = sum(4 * _string_bytes(v) for v in values if v.dtype == object)  # \ooo each
    return shown * 40 + escaped + 4 * len(node.attrs["template"])


_register("string_format", "Attr template with each attr placeholder replaced by an input's "
          "values as TF prints them (attr summarize at each end), a scalar string "
          "(tf.strings.format).", _format, growth=_format_growth,
          shape=lambda attrs, in_shapes, out_shapes: (in_shapes, [()]),
          num_inputs=lambda attrs: attrs.get("num_args", 1))


def _unicode_decode(node, strings):
    replacement, errors = node.attrs.get("replacement_char", 65533), node.attrs.get("errors")
    if not 0 <= replacement <= 0x10FFFF or errors not in ("strict", "replace", "ignore", None):
        raise _invalid(node, f"replacement_char {replacement} (a code "
                                   f"point: 0 to 0x10FFFF) or errors {errors!r} not valid")
    if strings.ndim:
        raise _invalid(node, f"decodes one string, got shape "
                                   f"{list(strings.shape)}")
    decoded = kernels.unicode_decode(strings[()], node.attrs["encoding"],
                                     node.attrs.get("errors", "replace"),
                                     node.attrs.get("replacement_char", 65533),
                                     node.attrs.get("replace_control_characters", False))
    if isinstance(decoded, str):
        raise _invalid(node, decoded)
    return [np.array(decoded, dtype=np.int32)]


(register_op("unicode_decode")
 .describe("Input 0's string (a scalar) as its characters' code points, int32, decoded from "
           "attr encoding (attr errors: strict, replace with attr replacement_char, ignore) "
           "(tf.strings.unicode_decode of a scalar).")
 .set_num_inputs(1)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, out_shapes))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["int32"]))
 .set_attr("FPullOutputs", _pulled(_unicode_decode,
                                   lambda node, values: 40 * _string_bytes(values[0])))
 .set_attr("FGradient", no_gradient))
