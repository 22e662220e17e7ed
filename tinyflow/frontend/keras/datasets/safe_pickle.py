"""Reading the pickles data set files hold without :mod:`pickle`: CIFAR's python batches and
the object arrays of a Keras ``.npz`` (IMDB's and Reuters' lists of word ids).

``pickle.load`` on a downloaded file runs whatever callable the file names, and even a
restricted ``find_class`` lets a file call ``numpy.ndarray`` with a shape of its choosing (a
terabyte allocated by a 40-byte file).  :func:`read_pickle` instead interprets the opcodes of
pickle protocols 2 to 5 itself and builds nothing but dicts, lists, tuples, bytes, str, ints,
floats, booleans, None and numpy arrays of fixed-size numbers or of such objects: the only
names a file may use are numpy's ``_reconstruct``, ``ndarray`` and ``dtype`` (and
``_codecs.encode`` for bytes), and an array's
size must match the bytes or items the file really holds.  Every object it builds is paid
for by bytes of the file, so the memory it takes is bounded by a multiple of the file's size
(:data:`BYTES_PER_PICKLED_BYTE`), checked against the host's free memory before reading.
Standard library and numpy only.
"""

from __future__ import annotations

import re
import struct
import zipfile
from pathlib import Path

import numpy as np

from ....datasets.formats import DatasetError
from ....nnvm import host_memory

__all__ = ["BYTES_PER_PICKLED_BYTE", "object_vector", "read_npz", "read_pickle"]

#: Bytes of Python objects one byte of a pickle may become at most (a 2-byte ``BINGET`` +
#: ``APPEND`` adds an 8-byte list slot; a 1-byte ``EMPTY_LIST`` a 56-byte list): what the
#: host-memory check reserves per byte read.
BYTES_PER_PICKLED_BYTE = 64
_NUMPY_GLOBALS = {
    ("numpy.core.multiarray", "_reconstruct"): "reconstruct",
    ("numpy._core.multiarray", "_reconstruct"): "reconstruct",
    ("numpy", "ndarray"): "ndarray",
    ("numpy", "dtype"): "dtype",
    ("numpy.core.numeric", "_frombuffer"): "frombuffer",  # protocol 5's arrays
    ("numpy._core.numeric", "_frombuffer"): "frombuffer",
    # Python 3's protocol 2 writes bytes as _codecs.encode(text, "latin1")
    ("_codecs", "encode"): "encode",
}
# numeric and object dtypes only: a void or string dtype could declare any item size
_DTYPE_NAME = re.compile(r"[biuf][1248]|O[48]")
_MARK = object()


class _Global:
    """One of :data:`_NUMPY_GLOBALS`, which only ``REDUCE`` may call."""

    def __init__(self, kind: str):
        self.kind = kind


class _Array:
    """``_reconstruct(ndarray, (0,), b"b")`` until ``BUILD`` gives its state."""

    value: np.ndarray | None = None


class _Dtype:
    """``dtype(name, False, True)``, its byte order set by ``BUILD``."""

    def __init__(self, name: str):
        # "O4": an object array a 32-bit Python wrote; its items are pickled objects
        self.value = np.dtype("O" if name.startswith("O") else name)


class _Reader:
    """One pickle's opcodes interpreted over ``data``; :meth:`run` gives its object."""

    def __init__(self, data: bytes, encoding: str, where: object):
        self.data, self.pos, self.encoding, self.where = data, 0, encoding, where
        self.stack: list = []
        self.marks: list[int] = []
        self.memo: dict[int, object] = {}

    def fail(self, why: str) -> DatasetError:
        return DatasetError(f"{self.where}: not a pickle of data ({why}); refusing to read it")

    def take(self, count: int) -> bytes:
        if count < 0 or self.pos + count > len(self.data):
            raise self.fail("truncated")
        chunk = self.data[self.pos:self.pos + count]
        self.pos += count
        return chunk

    def number(self, fmt: str) -> int:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def line(self) -> str:
        end = self.data.find(b"\n", self.pos, self.pos + 256)
        if end < 0:
            raise self.fail("a GLOBAL name too long")
        return self.take(end - self.pos + 1)[:-1].decode("ascii", "replace")

    def pop_mark(self) -> list:
        if not self.marks:
            raise self.fail("no MARK")
        start = self.marks.pop()
        items = self.stack[start:]
        del self.stack[start:]
        return items

    def pop(self) -> object:
        if not self.stack or (self.marks and len(self.stack) <= self.marks[-1]):
            raise self.fail("stack underflow")
        return self.stack.pop()

    def built(self, items: list) -> list:
        """``items``, refused if one is an array or dtype still waiting for its state."""
        if any(isinstance(item, (_Array, _Dtype, _Global)) for item in items):
            raise self.fail("a numpy name, array or dtype used as data before it was built")
        return items

    def text(self, raw: bytes) -> bytes | str:
        # a Python 2 str: bytes when asked for, else decoded (as pickle's encoding= does)
        return raw if self.encoding == "bytes" else raw.decode(self.encoding)

    def ints(self) -> None:
        """A run of BININT1 / BININT2 / BININT opcodes (a list of word ids) pushed at once."""
        data, pos, end, found = self.data, self.pos, len(self.data), []
        while pos < end:
            code = data[pos]
            if code == 0x4B and pos + 2 <= end:  # K
                found.append(data[pos + 1])
                pos += 2
            elif code == 0x4D and pos + 3 <= end:  # M
                found.append(data[pos + 1] | data[pos + 2] << 8)
                pos += 3
            elif code == 0x4A and pos + 5 <= end:  # J
                found.append(int.from_bytes(data[pos + 1:pos + 5], "little", signed=True))
                pos += 5
            else:
                break
        self.pos = pos
        self.stack.extend(found)

    def run(self) -> object:
        while True:
            if self.data[self.pos:self.pos + 1] in (b"K", b"M", b"J"):
                self.ints()
            code = self.take(1)
            if code == b".":
                if len(self.stack) != 1 or self.marks:
                    raise self.fail("STOP with a stack of more than one object")
                return self.built(self.stack)[0]
            handler = _OPCODES.get(code)
            if handler is None:
                raise self.fail(f"opcode {code!r} is not one data needs")
            handler(self)


def _setitems(reader: _Reader) -> None:
    items = reader.pop_mark()
    target = reader.pop()
    if not isinstance(target, dict) or len(items) % 2:
        raise reader.fail("SETITEMS not on a dict")
    for key, value in zip(items[::2], reader.built(items[1::2])):
        if not isinstance(key, (str, bytes, int)):
            raise reader.fail("a dict key that is not a string or an int")
        target[key] = value
    reader.stack.append(target)


def _appends(reader: _Reader, items: list) -> None:
    target = reader.pop()
    if not isinstance(target, list):
        raise reader.fail("APPEND not on a list")
    target.extend(reader.built(items))
    reader.stack.append(target)


def _global(reader: _Reader, module: str, name: str) -> None:
    kind = _NUMPY_GLOBALS.get((module, name))
    if kind is None:
        raise reader.fail(f"it names {module}.{name}")
    reader.stack.append(_Global(kind))


def _reduce(reader: _Reader) -> None:
    args, func = reader.pop(), reader.pop()
    if not (isinstance(func, _Global) and isinstance(args, tuple)):
        raise reader.fail("REDUCE of something but numpy's constructors")
    if func.kind == "encode" and len(args) == 2 and isinstance(args[0], str) \
            and args[1] == "latin1":
        reader.stack.append(args[0].encode("latin1"))
    elif func.kind == "reconstruct" and len(args) == 3 and isinstance(args[0], _Global) \
            and args[0].kind == "ndarray" and args[1] == (0,):
        reader.stack.append(_Array())
    elif func.kind == "frombuffer" and len(args) == 4:
        buffer, dtype, shape, order = args
        reader.stack.append(_array_from_state(
            reader, (1, shape, dtype, order == "F", bytes(buffer))))
    elif func.kind == "dtype" and args and isinstance(args[0], (str, bytes)):
        name = args[0].decode("latin1") if isinstance(args[0], bytes) else args[0]
        if not _DTYPE_NAME.fullmatch(name):
            raise reader.fail(f"dtype {name!r}: numbers and objects only")
        reader.stack.append(_Dtype(name))
    else:
        raise reader.fail(f"REDUCE of {func.kind} with arguments {args!r:.80}")


def _build(reader: _Reader) -> None:
    state, target = reader.pop(), reader.pop()
    if isinstance(target, _Dtype) and isinstance(state, tuple) and len(state) in (8, 9):
        order = state[1].decode("latin1") if isinstance(state[1], bytes) else state[1]
        if order not in ("<", ">", "|", "="):
            raise reader.fail(f"byte order {order!r}")
        target.value = target.value.newbyteorder(order) if order != "|" else target.value
    elif isinstance(target, _Array) and isinstance(state, tuple) and len(state) == 5:
        # the array itself from now on, in the stack and the memo
        array = _array_from_state(reader, state)
        reader.memo.update({key: array for key, value in reader.memo.items() if value is target})
        target = array
    else:
        raise reader.fail("BUILD of something but an array or a dtype")
    reader.stack.append(target)


def _array_from_state(reader: _Reader, state: tuple) -> np.ndarray:
    """The array of ndarray's ``__setstate__`` state, its size checked against its data."""
    _, shape, dtype, fortran, data = state
    if not (isinstance(shape, tuple) and all(isinstance(d, int) and d >= 0 for d in shape)
            and isinstance(dtype, _Dtype)):
        raise reader.fail("an array state without a shape or a dtype")
    dtype, count = dtype.value, 1
    for dim in shape:
        count *= dim
    order = "F" if fortran else "C"
    if dtype.hasobject:
        if not isinstance(data, list) or len(data) != count:
            raise reader.fail(f"an object array of shape {shape} holding {len(data)} items")
        return object_vector(reader.built(data)).reshape(shape, order=order)
    if isinstance(data, str):
        data = data.encode("latin1")  # a Python 2 str decoded: its bytes again, as numpy does
    if not isinstance(data, bytes) or len(data) != count * dtype.itemsize:
        raise reader.fail(f"an array of shape {shape} and dtype {dtype} with "
                          f"{len(data) if isinstance(data, bytes) else 'no'} bytes")
    return np.frombuffer(data, dtype=dtype).reshape(shape, order=order).copy()


def object_vector(items: list) -> np.ndarray:
    """A 1-D object array holding ``items`` as they are (lists of one length too, which
    ``array[:] = items`` would broadcast into a second dimension)."""
    out = np.empty(len(items), dtype=object)
    for index, item in enumerate(items):
        out[index] = item
    return out


def _push(value_of):
    return lambda reader: reader.stack.append(value_of(reader))


def _memo_put(reader: _Reader, key: int) -> None:
    if not reader.stack:
        raise reader.fail("memo of nothing")
    reader.memo[key] = reader.stack[-1]


def _memo_get(reader: _Reader, key: int) -> None:
    if key not in reader.memo:
        raise reader.fail(f"memo {key} unset")
    reader.stack.append(reader.memo[key])


def _tuple(size: int):
    def build(reader: _Reader) -> None:
        if len(reader.stack) - (reader.marks[-1] if reader.marks else 0) < size:
            raise reader.fail("stack underflow")
        items = reader.stack[len(reader.stack) - size:]
        del reader.stack[len(reader.stack) - size:]
        reader.stack.append(tuple(items))
    return build


def _long(reader: _Reader, length: int) -> int:
    if length > 64:
        raise reader.fail("an integer of more than 64 bytes")
    return int.from_bytes(reader.take(length), "little", signed=True)


def _utf8(reader: _Reader, raw: bytes) -> str:
    try:
        return raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as exc:
        raise reader.fail(f"bad UTF-8: {exc}") from None


_OPCODES = {
    b"\x80": lambda r: r.take(1),  # PROTO
    b"\x95": lambda r: r.take(8),  # FRAME: the framing is ignored, the opcodes read as one
    b"(": lambda r: r.marks.append(len(r.stack)),
    b"}": _push(lambda r: {}),
    b"]": _push(lambda r: []),
    b")": _push(lambda r: ()),
    b"t": lambda r: r.stack.append(tuple(r.pop_mark())),
    b"\x85": _tuple(1), b"\x86": _tuple(2), b"\x87": _tuple(3),
    b"a": lambda r: _appends(r, [r.pop()]),
    b"e": lambda r: _appends(r, r.pop_mark()),
    b"s": lambda r: (r.marks.append(len(r.stack) - 2), _setitems(r)),
    b"u": _setitems,
    b"J": _push(lambda r: r.number("<i")),
    b"K": _push(lambda r: r.number("<B")),
    b"M": _push(lambda r: r.number("<H")),
    b"\x8a": _push(lambda r: _long(r, r.number("<B"))),
    b"\x8b": _push(lambda r: _long(r, r.number("<i"))),
    b"G": _push(lambda r: r.number(">d")),
    b"N": _push(lambda r: None),
    b"\x88": _push(lambda r: True),
    b"\x89": _push(lambda r: False),
    b"U": _push(lambda r: r.text(r.take(r.number("<B")))),
    b"T": _push(lambda r: r.text(r.take(r.number("<i")))),
    b"C": _push(lambda r: r.take(r.number("<B"))),
    b"B": _push(lambda r: r.take(r.number("<I"))),
    b"\x8e": _push(lambda r: r.take(r.number("<Q"))),
    b"\x96": _push(lambda r: bytearray(r.take(r.number("<Q")))),
    b"\x8c": _push(lambda r: _utf8(r, r.take(r.number("<B")))),
    b"X": _push(lambda r: _utf8(r, r.take(r.number("<I")))),
    b"\x8d": _push(lambda r: _utf8(r, r.take(r.number("<Q")))),
    b"q": lambda r: _memo_put(r, r.number("<B")),
    b"r": lambda r: _memo_put(r, r.number("<I")),
    b"\x94": lambda r: _memo_put(r, len(r.memo)),
    b"h": lambda r: _memo_get(r, r.number("<B")),
    b"j": lambda r: _memo_get(r, r.number("<I")),
    b"c": lambda r: _global(r, r.line(), r.line()),
    b"\x93": lambda r: _global(r, *reversed([r.pop(), r.pop()])),
    b"R": _reduce,
    b"b": _build,
}


def read_pickle(data: bytes, *, encoding: str = "ASCII", where: object = "pickle") -> object:
    """The object a pickle of plain data holds, read without running anything it names.

    Parameters
    ----------
    data : bytes
        The pickle (protocol 2 to 5, as Python 2's cPickle and numpy's ``np.save`` wrote).
    encoding : str
        What a Python 2 ``str`` becomes: ``"bytes"`` keeps it, any codec decodes it (pickle's
        and ``np.load``'s ``encoding=``).
    where : object
        The file, for error messages.

    Returns
    -------
    object
        Dicts, lists, tuples, bytes, str, int, float, bool, None and numpy arrays.

    Raises
    ------
    DatasetError
        Naming ``where``, for anything else (any other global, opcode or object), a malformed
        or truncated pickle, or an array whose size does not match its data.
    """
    host_memory_check(len(data) * BYTES_PER_PICKLED_BYTE, where)
    try:
        return _Reader(bytes(data), encoding, where).run()
    except (UnicodeDecodeError, TypeError, ValueError, RecursionError) as exc:
        raise DatasetError(f"{where}: not a pickle of data ({exc}); refusing to read it") \
            from None


def host_memory_check(needed: int, where: object) -> None:
    """DatasetError naming ``where`` when reading it needs more than the host has free."""
    available, source = host_memory.host_available_bytes()
    if needed > available:
        raise DatasetError(f"{where}: reading it needs about {host_memory.format_bytes(needed)}, "
                           f"more than the {available} bytes available ({source})")


def read_npz(path: Path) -> dict[str, np.ndarray]:
    """Every array of a ``.npz`` file, object arrays read by :func:`read_pickle`.

    Parameters
    ----------
    path : pathlib.Path
        The file (``np.savez`` or ``np.savez_compressed``).

    Returns
    -------
    dict of str to numpy.ndarray
        By name (``"x_train"``), as ``np.load(path, allow_pickle=True)`` gives them.

    Raises
    ------
    DatasetError
        Naming the file and member when it is not a readable npz, or holds more than the
        host's free memory.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            members = [info for info in archive.infolist() if info.filename.endswith(".npy")]
            host_memory_check(sum(info.file_size for info in members), path)
            return {info.filename[:-4]: _read_npy(archive, info, f"{path}:{info.filename}")
                    for info in members}
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise DatasetError(f"cannot read {path}: {exc} (truncated or corrupt; delete it to "
                           "download it again)") from exc


def _read_npy(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> np.ndarray:
    with archive.open(info) as stream:
        version = np.lib.format.read_magic(stream)
        read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                       (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if read_header is None:
            raise DatasetError(f"{where}: npy format version {version} (1.0 or 2.0 expected)")
        shape, fortran, dtype = read_header(stream)
        payload = stream.read(info.file_size + 1)
    if not dtype.hasobject:
        count = int(np.prod(shape, dtype=object))
        if len(payload) != count * dtype.itemsize:
            raise DatasetError(f"{where}: {len(payload)} bytes for shape {shape} of {dtype}")
        array = np.frombuffer(payload, dtype=dtype)
        return array.reshape(shape, order="F" if fortran else "C").copy()
    # np.save pickles an object array whole (np.load's default encoding: ASCII)
    array = read_pickle(payload, encoding="ASCII", where=where)
    if not isinstance(array, np.ndarray) or array.shape != tuple(shape):
        raise DatasetError(f"{where}: the pickle is not the header's array of shape {shape}")
    return array
