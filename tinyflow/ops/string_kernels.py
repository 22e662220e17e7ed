"""What the string ops (:mod:`tinyflow.ops.strings`) compute, on Python bytes: TF's UTF-8
character rule, substrings, number parsing, RE2 patterns read through Python's ``re``,
web-safe base64 and the printing of a tensor's values (``tf.strings.format``)."""
from __future__ import annotations

import base64
import codecs
import re
import unicodedata

import numpy as np

from ..nnvm.errors import InvalidArgumentError

__all__ = ["as_string_format", "as_text", "compile_re2", "decode_base64", "encode_base64", "format_value",
           "parse_float", "parse_int", "re2_replace", "substring", "unicode_decode",
           "utf8_length"]


def utf8_length(s: bytes) -> int:
    """TF's UTF8_CHAR length: the bytes that do not continue a character (0b10xxxxxx)."""
    return sum(1 for b in s if b & 0xC0 != 0x80)


def substring(s: bytes, pos: int, length: int, utf8: bool):
    """TF's Substr of ``s`` (None: ``pos`` out of range); a negative ``pos`` counts from the
    end, a negative ``length`` takes the rest."""
    starts = [i for i, b in enumerate(s) if b & 0xC0 != 0x80] if utf8 else None
    size = len(starts) if utf8 else len(s)
    start = pos + size if pos < 0 else pos
    if start < 0 or start > size:
        return None
    end = size if length < 0 else min(start + length, size)
    if utf8:
        starts.append(len(s))
        return s[starts[start]:starts[end]]
    return s[start:end]


# C's strtod as TF's safe_strtof / safe_strtod take it: spaces around, decimal, inf and nan,
# and integral hexadecimal; no underscores (Python's float() takes them)
_HEX = re.compile(rb"\s*([+-]?)0[xX]([0-9a-fA-F]+)\s*")
_INT = re.compile(rb"\s*[+-]?\d+\s*")


def parse_float(s: bytes, bits=None):
    """``s`` as a float, or None where TF's StringToNumber refuses it."""
    if b"_" not in s:  # Python's float() reads what strtod does, and underscores
        try:
            return float(s)
        except ValueError:
            pass
    hexadecimal = _HEX.fullmatch(s)
    if hexadecimal:
        return float(int(hexadecimal[2], 16)) * (-1 if hexadecimal[1] == b"-" else 1)
    return None


def parse_int(s: bytes, bits: int):
    """``s`` as a decimal integer of ``bits`` bits, or None (not one, or out of range)."""
    if not _INT.fullmatch(s):
        return None
    value = int(s)
    return value if -2 ** (bits - 1) <= value < 2 ** (bits - 1) else None


def as_string_format(kind: str, dtype: str, fill: str, width: int, precision: int,
                     scientific: bool, shortest: bool):
    """TF's AsString printf template for a ``kind`` ('f' float, 'i' integer, 'b' bool)
    tensor of ``dtype``, or TF's message (``(None, message)``) for what it refuses."""
    if len(fill) > 1:
        return None, "Fill string must be one or fewer characters"
    if fill and fill not in " +-#0":
        return None, f'Fill argument not supported: "{fill}"'
    if scientific and shortest:
        return None, "Cannot select both scientific and shortest notation"
    if kind != "f" and precision > -1:
        return None, f"precision not supported for datatype {dtype}"
    if kind != "f" and (scientific or shortest):
        return None, f"scientific and shortest format not supported for datatype {dtype}"
    return "%" + fill + (str(width) if width > -1 else "") + (
        f".{precision}" if precision > -1 else "") + (
        ("g" if shortest else "e" if scientific else "f") if kind == "f" else "d"), None


# -- RE2 through Python's re ---------------------------------------------------------------------
# RE2's classes, ASCII as RE2's are (Python's \d, \s, \w are Unicode's; \s has no \v in RE2)
_PERL = {"d": "0-9", "s": "\\t\\n\\f\\r ", "w": "0-9A-Za-z_"}
_POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
          "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z",
          "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ",
          "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f"}
_KEPT_ESCAPES = set("fnrtvAbB")
_REPEAT = re.compile(r"\{(\d+)(,(\d*))?\}")


class _Refused(Exception):
    """A pattern RE2 refuses (``re2`` True: its message) or Python's re would read another
    way."""

    def __init__(self, message, re2=True):
        super().__init__(message)
        self.re2 = re2


def _escape(pattern, i, in_class):
    """The Python text for the escape at ``pattern[i]`` (a backslash), and its length."""
    c = pattern[i + 1:i + 2]
    if not c:
        raise _Refused("trailing \\")
    if not c.isalnum():
        return "\\" + c, 2
    if c in _PERL or c.lower() in _PERL:
        if not in_class:
            return ("[^%s]" if c.isupper() else "[%s]") % _PERL[c.lower()], 2
        if c.isupper():
            raise _Refused(f"\\{c} inside a character class", re2=False)
        return _PERL[c], 2
    if c == "z":
        return "\\Z", 2
    if c == "a":
        return "\\x07", 2
    if c == "x":
        braced = re.match(r"\{([0-9A-Fa-f]{1,6})\}", pattern[i + 2:])
        if braced:
            return f"\\U{int(braced[1], 16):08x}", 2 + braced.end()
        if re.match(r"[0-9A-Fa-f]{2}", pattern[i + 2:i + 4]):
            return pattern[i:i + 4], 4
        raise _Refused(f"invalid escape sequence: {pattern[i:i + 4]}")
    if c in _KEPT_ESCAPES and not (in_class and c in "AbB"):
        return "\\" + c, 2
    if c in "pPQEC":
        raise _Refused(f"\\{c} (Unicode classes, quoting, bytes)", re2=False)
    raise _Refused(f"invalid escape sequence: \\{c}")


def _class(pattern, i):
    """The Python text of the character class opening at ``pattern[i]``, and its length."""
    out, j = ["["], i + 1
    if pattern[j:j + 1] == "^":
        out.append("^")
        j += 1
    if pattern[j:j + 1] == "]":  # a first ']' is itself
        out.append("\\]")
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        posix = re.match(r"\[:(\^?)([a-z]+):\]", pattern[j:])
        if posix:
            if posix[2] not in _POSIX:
                raise _Refused(f"invalid character class range: {posix[0]}")
            alone = out == ["["] and pattern[j + posix.end():j + posix.end() + 1] == "]"
            if posix[1] and alone:  # [[:^digit:]]: the class negated
                return f"[^{_POSIX[posix[2]]}]", posix.end() + 2
            if posix[1]:
                raise _Refused(f"{posix[0]} beside other characters of a class", re2=False)
            out.append(_POSIX[posix[2]])
            j += posix.end()
        elif pattern[j] == "\\":
            text, size = _escape(pattern, j, True)
            out.append(text)
            j += size
        else:  # Python reads [, &&, ~~, || as set operations to come: RE2 as characters
            out.append("\\" + pattern[j] if pattern[j] in "[&~|" else pattern[j])
            j += 1
    if j >= len(pattern):
        raise _Refused(f"missing ]: {pattern[i:]}")
    return "".join(out) + "]", j + 1 - i


def _group(pattern, i):
    """The Python text opening the group at ``pattern[i]`` ('('), and its length."""
    if pattern[i + 1:i + 2] != "?":
        return "(", 1
    rest = pattern[i + 2:]
    if rest.startswith("P<"):
        return "(?P<", 4
    flags = re.match(r"([imsU]*)(-[imsU]*)?([:)])", rest)
    if not flags:
        raise _Refused(f"invalid perl operator: {pattern[i:i + 3]}" if rest[:1] in "=!<>#("
                       else f"invalid or unsupported Perl syntax: {pattern[i:i + 3]}")
    if set(flags[1] + (flags[2] or "")) & set("mU"):
        raise _Refused("flags m and U (RE2's multi-line and ungreedy)", re2=False)
    return "(?" + flags[0], 2 + flags.end()


def _translate(pattern: str) -> str:
    """``pattern`` (RE2's syntax) as Python's re reads it the same, or _Refused."""
    out, i, quantified = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        repeat = _REPEAT.match(pattern, i) if c == "{" else None
        if c in "*+?" or repeat:
            text = repeat[0] if repeat else c
            if quantified:
                raise _Refused(f"bad repetition operator: {out[-1]}{text}")
            if not out or out[-1] in ("|", "(") or out[-1].startswith("(?"):
                raise _Refused(f"no argument for repetition operator: {text}")
            if repeat and max(int(repeat[1]), int(repeat[3] or 0)) > 1000:
                raise _Refused(f"invalid repetition size: {text}")
            out.append(text + ("?" if pattern[i + len(text):i + len(text) + 1] == "?" else ""))
            i += len(out[-1])
            quantified = True
            continue
        quantified = False
        if c == "\\":
            text, size = _escape(pattern, i, False)
        elif c == "[":
            text, size = _class(pattern, i)
        elif c == "(":
            text, size = _group(pattern, i)
        else:  # RE2's $ is the text's end (Python's is before a last newline too); {,n} text
            text, size = {"$": "\\Z", "{": "\\{"}.get(c, c), 1
        out.append(text)
        i += size
    return "".join(out)


def compile_re2(pattern: str, node_name=None):
    """``pattern`` (RE2's syntax) compiled by Python's re, or TF's InvalidArgumentError: RE2's
    message where RE2 refuses it, saying so where re would read it another way."""
    try:
        return re.compile(_translate(pattern), re.ASCII)
    except _Refused as refused:
        message = (f"Invalid pattern: {pattern}, error: {refused}" if refused.re2 else
                   f"Invalid pattern: {pattern}: TinyFlow reads RE2's syntax with Python's re, "
                   f"which reads {refused} another way; not supported")
    except re.error as error:  # RE2's words for the two errors it shares with re
        said = str(error)
        said = (f"missing ): {pattern}" if said.startswith("missing )") else
                f"unexpected ): {pattern}" if said.startswith("unbalanced parenthesis") else said)
        message = f"Invalid pattern: {pattern}, error: {said}"
    raise InvalidArgumentError(None, node_name, message)


def as_text(s: bytes) -> str:
    """``s`` as the text a pattern reads (UTF-8; a byte not in it kept as itself)."""
    return s.decode("utf-8", "surrogateescape")


def _rewritten(rewrite: str, match) -> str:
    """RE2's Rewrite: \\0-\\9 the groups, \\\\ a backslash; it stops at another escape."""
    out, i = [], 0
    while i < len(rewrite):
        if rewrite[i] != "\\":
            out.append(rewrite[i])
        elif rewrite[i + 1:i + 2].isdigit() and rewrite[i + 1] < ":":
            out.append(match.group(int(rewrite[i + 1])) or "")
            i += 1
        elif rewrite[i + 1:i + 2] == "\\":
            out.append("\\")
            i += 1
        else:
            break
        i += 1
    return "".join(out)


def re2_replace(pattern, s: bytes, rewrite: str, every: bool) -> bytes:
    """RE2's GlobalReplace (``every``) or Replace of ``pattern`` in ``s``: no empty match
    right where the last one ended, a rewrite naming a group the pattern lacks changes
    nothing."""
    if any(int(d) > pattern.groups for d in re.findall(r"(?<!\\)(?:\\\\)*\\(\d)", rewrite)):
        return s
    text = as_text(s)
    out, position, last_end, count = [], 0, None, 0
    while position <= len(text):
        match = pattern.search(text, position)
        if match is None:
            break
        start, end = match.span()
        out.append(text[position:start])
        if start == end == last_end:  # skip a character, as RE2
            out.append(text[start:start + 1])
            position = start + 1
            continue
        out.append(_rewritten(rewrite, match))
        position = last_end = end
        count += 1
        if not every:
            break
    if not count:
        return s
    out.append(text[position:])
    return "".join(out).encode("utf-8", "surrogateescape")


# -- base64 --------------------------------------------------------------------------------------
_BASE64 = re.compile(rb"[A-Za-z0-9_-]*")


def encode_base64(s: bytes, pad: bool) -> bytes:
    """``s`` in web-safe base64 ('-', '_'), '=' padded only when ``pad``."""
    encoded = base64.urlsafe_b64encode(s)
    return encoded if pad else encoded.rstrip(b"=")


def decode_base64(s: bytes):
    """Web-safe base64 ``s`` decoded, padded or not; TF's message (a str) where it is not."""
    body = s
    if len(body) % 4 == 0 and body.endswith(b"="):
        body = body[:-2] if body.endswith(b"==") else body[:-1]
    whole = len(body) // 4 * 4
    if not _BASE64.fullmatch(body[:whole]):
        return "Invalid character found in base64."
    if len(body) % 4 == 1:
        return "Base64 string length cannot be 1 modulo 4."
    if not _BASE64.fullmatch(body[whole:]):
        return "Invalid character found in base64."
    return base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))


# -- tf.strings.format: TF's Tensor::SummarizeValue(summarize, print_v2=true) --------------------
def _c_escape(s: bytes) -> str:
    """absl's CEscape."""
    named = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}
    return "".join(named.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}") for b in s)


def _element(value, dtype) -> str:
    if dtype == object:
        return '"' + _c_escape(value) + '"'
    if dtype.kind == "b":
        return "1" if value else "0"
    if dtype.kind == "f":  # the shortest of TF's two precisions that reads back the same
        short, long = (6, 9) if dtype.itemsize <= 4 else (15, 17)
        text = f"{value:.{short}g}"
        return text if np.isnan(value) or dtype.type(float(text)) == value else (
            f"{value:.{long}g}")
    return str(int(value))


def format_value(array: np.ndarray, summarize: int) -> str:
    """``array`` as TF prints it: nested brackets, ``summarize`` elements at each end of a
    dimension around '...' (all when negative)."""
    if array.ndim == 0:
        return _element(array.item() if array.dtype != object else array[()], array.dtype)
    ends = array.size if summarize < 0 else min(summarize, array.size)
    flat, ndim, out = array.reshape(-1), array.ndim, []

    def spacing(dim):
        out.append(" " if dim == ndim - 1 else "\n" * (ndim - dim - 1) + " " * (dim + 1))

    def dims(dim, start):  # TF's PrintOneDimV2, iterative depth aside (a tensor's rank)
        if dim == ndim:
            out.append(_element(flat[start], array.dtype))
            return
        out.append("[")
        count, step = array.shape[dim], int(np.prod(array.shape[dim + 1:], dtype=np.int64))
        for i in range(min(ends, count)):
            if i:
                spacing(dim)
            dims(dim + 1, start + step * i)
        if count > 2 * ends:
            spacing(dim)
            out.append("...")
        for i in range(max(ends, count - ends), count):
            spacing(dim)
            dims(dim + 1, start + step * i)
        out.append("]")
    dims(0, 0)
    return "".join(out)


def unicode_decode(s: bytes, encoding: str, errors: str, replacement: int, control: bool):
    """``s``'s code points in ``encoding`` (a text encoding Python knows): an invalid
    sequence is an error (``errors`` 'strict': TF's message, a str), skipped ('ignore') or
    ``replacement`` ('replace'); control characters too with ``control``."""
    try:
        if not codecs.lookup(encoding)._is_text_encoding:
            raise LookupError(encoding)
    except LookupError:
        return f"Could not create converter for input encoding: {encoding}"
    points, position = [], 0
    while position <= len(s):  # each bad sequence as Python's 'replace' handler sees it
        try:
            text, bad = s[position:].decode(encoding), None
        except UnicodeDecodeError as error:
            if errors == "strict":
                return "Invalid formatting on input string"
            text, bad = s[position:position + error.start].decode(encoding), error.end
        points += [replacement if control and unicodedata.category(c) == "Cc" else ord(c)
                   for c in text]
        if bad is None:
            break
        points += [replacement] if errors == "replace" else []
        position += bad
    return points
