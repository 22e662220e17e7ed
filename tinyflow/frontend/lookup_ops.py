"""``tf.lookup`` (TensorFlow 1.15's v1 tables): ``StaticHashTable`` and
``StaticVocabularyTable`` over a ``KeyValueTensorInitializer`` or a ``TextFileInitializer``
(``TextFileIndex``), ``tf.tables_initializer()``; and ``tf.contrib.lookup``'s
``index_table_from_file`` / ``_from_tensor``, ``index_to_string_table_from_file`` /
``_from_tensor``.  A table's contents live per session (ops/lookup_tables.py): a lookup before
its initializer ran is TF's FailedPreconditionError "Table not initialized.".  Keys are strings
or int64; values strings, int64 or float.  A vocabulary file is read when the initializer runs,
line by line, its size checked against the host's free memory first, and a malformed line is
TF's InvalidArgumentError naming the file and line.
"""
from __future__ import annotations

import itertools
import os

import numpy as np

from ..nnvm import host_memory
from ..nnvm.composite import CompositeTensor
from ..nnvm.errors import InvalidArgumentError, NotFoundError, ResourceExhaustedError
from ..nnvm.symbol import NodeEntry, Symbol, create_op
from .dtypes import as_dtype
from .framework import GraphKeys, add_to_collection
from .math_ops import convert_to_tensor

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable",
           "TextFileIndex", "TextFileInitializer", "index_table_from_file",
           "index_table_from_tensor", "index_to_string_table_from_file",
           "index_to_string_table_from_tensor"]

_KEY_DTYPES, _VALUE_DTYPES = ("string", "int64"), ("string", "int64", "float32", "float64",
                                                     "int32")


def _dtype_name(dtype) -> str:
    name = getattr(dtype, "name", dtype)
    return {"str": "string", "float": "float32", "int": "int64"}.get(name, name)


class TextFileIndex:
    """Which part of a vocabulary file's line a key or value is: ``WHOLE_LINE`` or
    ``LINE_NUMBER`` (else a column index, from 0)."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class _Typed:
    """``key_dtype`` and ``value_dtype`` as TF's DTypes (held as names: ``key_type``...)."""

    key_type: str
    value_type: str
    key_dtype = property(lambda self: as_dtype(self.key_type))
    value_dtype = property(lambda self: as_dtype(self.value_type))


class _Initializer(_Typed):
    """What a table's initializer has: ``key_dtype``, ``value_dtype`` and the ``contents``
    of the table (``contents(node, inputs) -> (keys, values)``) when its op runs."""

    inputs: tuple = ()


def _constant_values(value, what: str):
    """``value`` (a list, an array or a constant tensor) as a flat numpy array, or a
    non-constant numeric tensor as it is (an input of the initializer's op)."""
    if isinstance(value, Symbol):
        node = value.outputs[0].node
        if node.op is not None and node.op.name == "constant":
            return np.array(node.attrs["value"], dtype=object if node.attrs.get(
                "dtype") == "string" else None).reshape(-1), _dtype_name(value.dtype)
        if _dtype_name(value.dtype) == "string":
            raise ValueError(f"KeyValueTensorInitializer: {what} {value.name!r} is a string "
                             f"tensor computed by the graph; TinyFlow's executors hold no "
                             f"strings: give the strings as a list or a tf.constant")
        return value, _dtype_name(value.dtype)
    array = np.asarray(value)
    kind = "string" if array.dtype.kind in "USO" else (
        "int64" if array.dtype.kind in "iu" else "float32")
    return array.reshape(-1), kind


class KeyValueTensorInitializer(_Initializer):
    """A table's contents given as two vectors, ``keys`` and ``values``, of one length."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys, found_key = _constant_values(keys, "keys")
        self._values, found_value = _constant_values(values, "values")
        self.key_type = _dtype_name(key_dtype) if key_dtype is not None else found_key
        self.value_type = (_dtype_name(value_dtype) if value_dtype is not None
                            else found_value)
        sizes = [len(x) if isinstance(x, np.ndarray) else x.get_shape().as_list()[0]
                 for x in (self._keys, self._values)]
        if None not in sizes and sizes[0] != sizes[1]:
            raise ValueError(f"Dimensions must be equal, but are {sizes[0]} and {sizes[1]} "
                             f"for the keys and values of KeyValueTensorInitializer")
        self.inputs = tuple(x for x in (self._keys, self._values) if isinstance(x, Symbol))
        self.name = name or "key_value_init"

    def contents(self, node, inputs):
        given = iter(inputs)
        keys, values = (np.asarray(next(given)).reshape(-1) if isinstance(x, Symbol) else x
                        for x in (self._keys, self._values))
        if len(keys) != len(values):
            raise InvalidArgumentError(None, node.name, f"Expected shape [{len(keys)}] for "
                                       f"value, got [{len(values)}]")
        cast = (lambda v: v) if self.value_type == "string" else np.dtype(
            self.value_type).type
        return keys.tolist(), [cast(v) for v in values.tolist()]


class TextFileInitializer(_Initializer):
    """A table's contents read from a text file, a line an entry: the key and value are
    column ``key_index`` and ``value_index`` of the line split by ``delimiter``, or the
    whole line (``TextFileIndex.WHOLE_LINE``) or its number from 0 (``LINE_NUMBER``); only
    the first ``vocab_size`` lines when given (the file must have that many)."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None):
        self.filename = os.fspath(filename)
        self.key_type, self.value_type = _dtype_name(key_dtype), _dtype_name(value_dtype)
        for what, index, dtype in (("key", key_index, self.key_type),
                                   ("value", value_index, self.value_type)):
            if index < TextFileIndex.WHOLE_LINE:
                raise ValueError(f"Invalid {what} index {index}.")
            if index == TextFileIndex.LINE_NUMBER and dtype != "int64":
                raise ValueError(f"Signature mismatch. Keys must be dtype int64, got "
                                 f"{dtype}." if what == "key" else f"Signature mismatch. "
                                 f"Values must be dtype int64, got {dtype}.")
            if index == TextFileIndex.WHOLE_LINE and dtype != "string":
                raise ValueError(f"Signature mismatch. {what.title()}s must be dtype string, "
                                 f"got {dtype}.")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"Invalid vocab_size {vocab_size}.")
        self.key_index, self.value_index = int(key_index), int(value_index)
        self.vocab_size = None if vocab_size is None else int(vocab_size)
        self.delimiter, self.name = delimiter, name or "text_file_init"

    def contents(self, node, inputs):
        try:
            with open(self.filename, "rb") as file:
                return self._read(node, file)
        except (FileNotFoundError, IsADirectoryError, PermissionError) as error:
            raise NotFoundError(None, node.name, f"{self.filename}; {error.strerror}") from None

    def _lines(self, node, file):
        """The file's lines (up to vocab_size), each read only as far as the host's free
        memory allows: a line's bytes thrice (the line, its key and value) and an entry's
        objects (~200 bytes) held per line; past them, ResourceExhaustedError naming the file
        and line (a huge file, or one line without an end)."""
        available, source = host_memory.host_available_bytes()
        held = 0
        for number in itertools.count():
            if self.vocab_size is not None and number >= self.vocab_size:
                return
            limit = max(0, (available - held) // 3)
            line = file.readline(limit + 1)
            if not line:
                return
            held += 3 * len(line) + 200
            if held > available:
                raise ResourceExhaustedError(
                    f"{node.describe()}: the vocabulary file {self.filename} at line {number} "
                    f"needs more than the {available} bytes available ({source})", node)
            yield number, line

    def _read(self, node, file):
        keys, values, wanted = [], [], max(self.key_index, self.value_index) + 1
        position = 0
        for number, line in self._lines(node, file):
            position += len(line)
            line = line.rstrip(b"\n").rstrip(b"\r")
            if not line:
                raise InvalidArgumentError(None, node.name, f"Invalid content in "
                                           f"{self.filename}: empty line found at position "
                                           f"{position}.")
            columns = line.split(self.delimiter.encode()) if wanted > 0 else []
            if len(columns) < wanted:
                raise InvalidArgumentError(None, node.name, (
                    f"Invalid number of columns in {self.filename} line {number} "
                    f"({line.decode(errors='replace')}) : expected at least {wanted} got "
                    f"{len(columns)}"))
            keys.append(self._field(node, line, columns, number, self.key_index,
                                    self.key_type))
            values.append(self._field(node, line, columns, number, self.value_index,
                                      self.value_type))
        if self.vocab_size is not None and len(keys) != self.vocab_size:
            raise InvalidArgumentError(None, node.name, f"Invalid vocab_size in "
                                       f"{self.filename}: expected {self.vocab_size} but got "
                                       f"{len(keys)}")
        return keys, values

    @staticmethod
    def _field(node, line, columns, number, index, dtype):
        if index == TextFileIndex.LINE_NUMBER:
            return number
        field = line if index == TextFileIndex.WHOLE_LINE else columns[index]
        if dtype == "string":
            return field
        try:
            return np.dtype(dtype).type(int(field) if dtype.startswith("int") else float(field))
        except (ValueError, OverflowError):
            kind = "int64" if dtype.startswith("int") else "float"
            raise InvalidArgumentError(None, node.name, f"Field {field.decode(errors='replace')}"
                                       f" in line {number} is not a valid {kind}.") from None


class _Table(_Typed):
    """What both tables share: the initializer's op (in ``GraphKeys.TABLE_INITIALIZERS``),
    ``lookup`` and ``size``."""

    num_oov_buckets = 0
    default_value = None

    def _make_init(self, initializer, name):
        if not isinstance(initializer, _Initializer):
            raise TypeError(f"initializer must be a table initializer "
                            f"(KeyValueTensorInitializer, TextFileInitializer), got "
                            f"{type(initializer).__name__}")
        if self.key_type not in _KEY_DTYPES:
            raise TypeError(f"TinyFlow's tables take string or int64 keys, got "
                            f"{self.key_type}")
        self._initializer_object, self.name = initializer, name
        node = create_op("table_init", *initializer.inputs, num_args=len(initializer.inputs),
                         table=self, initializer=initializer,
                         name=f"{name}/{initializer.name}").node
        self._init_op = Symbol([NodeEntry(node, 0)], is_operation=True)
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, self._init_op)

    @property
    def initializer(self) -> Symbol:
        """The operation filling the table (run by ``tf.tables_initializer()``)."""
        return self._init_op

    init = initializer  # TF 1.15's deprecated name

    def lookup(self, keys, name=None):
        """The values of ``keys`` (a tensor, or a ``tf.SparseTensor`` whose values are
        looked up), of the table's ``value_dtype``, the keys' shape."""
        if isinstance(keys, CompositeTensor):
            return type(keys)(keys.indices, self.lookup(keys.values, name), keys.dense_shape)
        keys = keys if isinstance(keys, Symbol) else convert_to_tensor(
            np.asarray(keys, dtype=object) if self.key_type == "string" else keys,
            dtype=self.key_type)
        if _dtype_name(keys.dtype) != self.key_type:
            raise TypeError(f"Dtype of argument `keys` must be <dtype: '{self.key_type}'>, "
                            f"received: <dtype: '{_dtype_name(keys.dtype)}'>")
        return create_op("table_lookup", keys, table=self,
                         name=name or f"{self.name}_Lookup/LookupTableFindV2")

    def _lookup_ids(self, keys: Symbol, ignore, missing=-1) -> Symbol:
        """``lookup`` with ``missing`` for the keys equal to ``ignore`` (a feature column's
        missing value, which TF drops before the lookup)."""
        return create_op("table_lookup", keys, table=self, ignore=ignore, missing=missing,
                         name=f"{self.name}_Lookup/LookupTableFindV2")

    def size(self, name=None) -> Symbol:
        """The number of entries (0 before the initializer ran), int64."""
        return create_op("table_size", table=self, name=name or f"{self.name}_Size")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}: {self.key_type} -> {self.value_type}>"


class StaticHashTable(_Table):
    """A table of ``initializer``'s keys and values, immutable once initialised; a key not
    in it gets ``default_value`` (TF 1.15's ``tf.lookup.StaticHashTable``, contrib's
    ``HashTable``)."""

    def __init__(self, initializer, default_value, name=None):
        self.key_type = initializer.key_type
        self.value_type = initializer.value_type
        if self.value_type not in _VALUE_DTYPES:
            raise TypeError(f"TinyFlow's tables hold string, int or float values, got "
                            f"{self.value_type}")
        default = np.asarray(default_value)
        if (default.dtype.kind in "USO") != (self.value_type == "string") or default.ndim:
            raise TypeError(f"default_value {default_value!r} must be a scalar of the table's "
                            f"value dtype {self.value_type}")
        self.default_value = default_value if self.value_type == "string" else np.dtype(
            self.value_type).type(default_value)
        self._make_init(initializer, name or "hash_table")


class StaticVocabularyTable(_Table):
    """Ids of ``initializer``'s keys (its int64 values); a key not in it gets one of
    ``num_oov_buckets`` ids after them: the table's size plus the Fingerprint64 of the key
    (of its decimal digits for an int64 key) modulo ``num_oov_buckets``, as TF's."""

    value_type = "int64"

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None):
        if num_oov_buckets <= 0:
            raise ValueError("oov_buckets must be > 0.")
        if initializer.value_type != "int64":
            raise TypeError(f"Invalid value dtype, expected int64 but got "
                            f"{initializer.value_type}.")
        self.key_type = initializer.key_type
        self.num_oov_buckets = int(num_oov_buckets)
        self._make_init(initializer, name or "hash_table")


def _id_table(initializer, num_oov_buckets, default_value, name):
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got "
                         f"{num_oov_buckets}.")
    if num_oov_buckets:
        return StaticVocabularyTable(initializer, num_oov_buckets, name=name)
    return StaticHashTable(initializer, default_value, name=name)


def index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None,
                          default_value=-1, hasher_spec=None, key_dtype="string", name=None,
                          key_column_index=TextFileIndex.WHOLE_LINE,
                          value_column_index=TextFileIndex.LINE_NUMBER, delimiter="\t"):
    """A table of a vocabulary file's keys (a line each) to their line numbers (int64);
    another key gets ``default_value``, or with ``num_oov_buckets`` a hashed bucket after
    the vocabulary."""
    if not vocabulary_file:
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    if _dtype_name(key_dtype) not in _KEY_DTYPES:
        raise ValueError(f"Invalid key_dtype, expected integer or string, got {key_dtype}.")
    initializer = TextFileInitializer(vocabulary_file, key_dtype, key_column_index, "int64",
                                      value_column_index, vocab_size, delimiter)
    return _id_table(initializer, num_oov_buckets, default_value, name or "string_to_index")


def index_table_from_tensor(vocabulary_list, num_oov_buckets=0, default_value=-1,
                            hasher_spec=None, dtype="string", name=None):
    """A table of ``vocabulary_list``'s entries to their positions (int64); another key gets
    ``default_value``, or with ``num_oov_buckets`` a hashed bucket after the vocabulary."""
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    keys, _ = _constant_values(vocabulary_list, "vocabulary_list")
    if not isinstance(keys, np.ndarray):
        raise TypeError("index_table_from_tensor: TinyFlow needs the vocabulary_list's "
                         "values when the graph is built (a list or a tf.constant)")
    initializer = KeyValueTensorInitializer(keys, np.arange(len(keys), dtype=np.int64),
                                            key_dtype=dtype, value_dtype="int64")
    return _id_table(initializer, num_oov_buckets, default_value, name or "string_to_index")


def index_to_string_table_from_file(vocabulary_file, vocab_size=None, default_value="UNK",
                                    name=None, key_column_index=TextFileIndex.LINE_NUMBER,
                                    value_column_index=TextFileIndex.WHOLE_LINE,
                                    delimiter="\t"):
    """A table of ids (int64 line numbers) to a vocabulary file's lines; another id gets
    ``default_value``."""
    if not vocabulary_file:
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    initializer = TextFileInitializer(vocabulary_file, "int64", key_column_index, "string",
                                      value_column_index, vocab_size, delimiter)
    return StaticHashTable(initializer, default_value, name=name or "index_to_string")


def index_to_string_table_from_tensor(vocabulary_list, default_value="UNK", name=None):
    """A table of ids (int64 positions) to ``vocabulary_list``'s strings; another id gets
    ``default_value``."""
    values, _ = _constant_values(vocabulary_list, "vocabulary_list")
    initializer = KeyValueTensorInitializer(np.arange(len(values), dtype=np.int64), values,
                                            key_dtype="int64", value_dtype="string")
    return StaticHashTable(initializer, default_value, name=name or "index_to_string")

