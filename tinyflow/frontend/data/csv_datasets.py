"""``tf.data.experimental.CsvDataset`` and ``make_csv_dataset`` (TensorFlow 1.15's): the
records of CSV files as tuples of scalars, and the batched ``(features, label)`` pipeline over
them with the columns' names and types read from the files.

A record is a line, or several where a quoted field holds line breaks; its fields are split and
converted as ``tf.decode_csv`` does (:func:`..parsing_ops._csv_fields`, ``_Csv.row``), with
CsvDataset's words in errors, which name the file, the record and the dataset.  The files are
untrusted input: lines are read as ``TextLineDataset`` reads them (its memory check), and a
record joined over lines (an open quote) is checked against the free memory as it grows.
"""
from __future__ import annotations

import collections
import csv
import io
import itertools
import os

import numpy as np

from ...nnvm import host_memory
from ...nnvm.errors import InvalidArgumentError, ResourceExhaustedError
from ...nnvm.tensor_shape import TensorShape
from .. import gfile, python_io
from ..dtypes import as_dtype
from ..parsing_ops import _Csv, _csv_fields, csv_defaults
from .dataset import Dataset
from .readers import TextLineDataset
from .structure import Spec, flatten, pack

__all__ = ["CsvDataset", "make_csv_dataset"]


class CsvDataset(TextLineDataset):
    """The records of the CSV files ``filenames`` (a name, a list of them or a string
    tensor), each a tuple of scalars, one per entry of ``record_defaults`` (``[value]``, a
    scalar, a tensor, or ``[]`` / a dtype for a required column: float32, float64, int32,
    int64 or string).  ``header`` skips each file's first record; ``select_cols`` (increasing
    indices) picks the columns ``record_defaults`` describes; a field ``""`` or ``na_value``
    takes its column's default.  As TF's: a bad ``field_delim`` or ``select_cols`` is an
    ``InvalidArgumentError`` when the iterator starts, a bad record one at that record."""

    _kind = "CsvDataset"

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None):
        super().__init__(filenames, compression_type, buffer_size)
        defaults = csv_defaults(record_defaults, dtypes_allowed=True)
        columns = None if select_cols is None else [int(c) for c in select_cols]
        self._csv = _Csv(defaults, field_delim, bool(use_quote_delim), na_value, columns)
        self._header, self._ignore_errors = bool(header), False
        self._specs = tuple(Spec(as_dtype("string" if d.dtype == object else d.dtype),
                                 TensorShape([])) for d in defaults)

    def _checked(self):
        """TF's checks of the arguments, when the iterator starts."""
        columns, count = self._csv.columns, len(self._csv.defaults)
        problem = ("field_delim should be only 1 char" if len(self._csv.delim) != 1 else
                   None if columns is None else
                   "select_cols should match output size" if len(columns) != count else
                   "select_cols should be non-negative indices" if any(c < 0 for c in columns)
                   else "select_cols should be strictly increasing indices" if any(
                       a >= b for a, b in itertools.pairwise(columns)) else None)
        if problem:
            raise InvalidArgumentError(None, None, f"{self._what}: {problem}")

    def _elements(self, context):
        self._checked()
        yield from super()._elements(context)

    def _records(self, name, context):
        csv_reader, count = self._csv, len(self._csv.defaults)
        lines = _joined(super()._records(name, context), csv_reader.quotes, name)
        if self._header:
            next(lines, None)
        for number, line in enumerate(lines, 1 + self._header):
            where = f"record {number} of {name} ({self._what})"
            try:
                fields = _csv_fields(None, line.decode("utf-8", "replace"), csv_reader.delim,
                                     csv_reader.quotes)
                if csv_reader.columns is None and len(fields) > count:
                    raise InvalidArgumentError(None, None, (
                        f"Expect {count} fields but have more in {where}"))
                values = csv_reader.row(None, fields, where)
            except InvalidArgumentError:
                if self._ignore_errors:  # make_csv_dataset(ignore_errors=True)
                    continue
                raise
            yield values

    def _element(self, values) -> tuple:
        out = []
        for value, default in zip(values, self._csv.defaults):
            element = np.empty((), dtype=default.dtype)
            element[()] = value
            out.append(element)
        return tuple(out)


def _joined(lines, quotes: bool, name: str):
    """Records from ``lines``: a line whose quotes are not closed (an odd number of them)
    continues on the next ones, the line breaks kept, as TF's CSV reader reads a quoted
    field."""
    parts, quotes_seen, size, limit = [], 0, 0, None
    for line in lines:
        parts.append(line)
        quotes_seen += line.count(b'"') if quotes else 0
        size += len(line) + 1
        if quotes_seen % 2 == 0:
            yield b"\n".join(parts)
            parts, quotes_seen, size = [], 0, 0
        elif size > python_io._PIECE:  # a quoted field over many lines: it must fit
            limit = host_memory.host_available_bytes()[0] if limit is None else limit
            if size > limit:
                raise ResourceExhaustedError(
                    f"a quoted CSV field of {name} holds more than the {limit} bytes free")
    if parts:  # a quote left open at the end: the field check raises TF's error
        yield b"\n".join(parts)


# -- make_csv_dataset --------------------------------------------------------------------------
def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=1, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False):
    """TF 1.15's ``tf.data.experimental.make_csv_dataset``: batches of ``batch_size`` CSV
    records of the files ``file_pattern`` matches, each an ``OrderedDict`` of the columns
    by name (and, with ``label_name``, that column apart: ``(features, label)``).

    The names come from ``column_names`` or the first file's header; the types from
    ``column_defaults`` or, as TF infers them, from the first ``num_rows_for_inference``
    records (int32, int64, float32, float64 or string: the narrowest every value fits; a
    column with no value a string), every inferred column optional (default 0 or "").  The
    files are read ``num_parallel_reads`` at a time, interleaved (``sloppy`` ignored: the
    order is deterministic), shuffled (unless ``shuffle=False``, file order and records with
    ``shuffle_seed``) and repeated ``num_epochs`` times (None: forever, each batch full).
    ``prefetch_buffer_size`` is accepted (TinyFlow pulls one batch at a time).

    Returns
    -------
    Dataset
    """
    filenames = _file_names(file_pattern)
    dataset = Dataset.from_tensor_slices(filenames)
    if shuffle:
        dataset = dataset.shuffle(len(filenames), shuffle_seed)
    opener = _opener(compression_type)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is "
                             "provided.")
        column_names = _header_names(filenames, field_delim, use_quote_delim, opener)
    column_names = list(column_names)
    if len(column_names) != len(set(column_names)):
        raise ValueError(f"Either `column_names` argument or CSV header row contains "
                         f"duplicate column names: {_duplicates(column_names)}.")
    if select_columns is not None:
        select_columns = _column_indices(select_columns, column_names)
    if column_defaults is None:
        column_defaults = _inferred_defaults(
            filenames, len(column_names), (field_delim, use_quote_delim, na_value, header),
            num_rows_for_inference, select_columns, opener)
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError(f"If specified, `column_defaults` and `select_columns` must have the "
                         f"same length: `column_defaults` has length {len(column_defaults)}, "
                         f"`select_columns` has length {len(select_columns)}.")
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError(f"`label_name` provided must be one of the columns: "
                         f"{column_names}. Received: {label_name}.")

    def file_records(filename):
        records = CsvDataset(filename, column_defaults, compression_type, None, header,
                             field_delim, use_quote_delim, na_value, select_columns)
        records._ignore_errors = bool(ignore_errors)
        return records
    dataset = dataset.interleave(file_records, cycle_length=num_parallel_reads, block_length=1)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    return _Columns(dataset, column_names, label_name)


class _Columns(Dataset):
    """make_csv_dataset's last step (TF's ``map_fn``): a batch's columns as an
    ``OrderedDict`` by name, the label's apart; the flat components reordered, no graph run."""

    _kind = "MapDataset"

    def __init__(self, dataset, names, label_name):
        features = collections.OrderedDict(zip(names, range(len(names))))
        structure = features if label_name is None else (features, features.pop(label_name))
        self._order = flatten(structure)  # the input's component behind each output one
        specs = flatten(dataset._specs)
        super().__init__(pack(structure, [specs[i] for i in self._order]), (dataset,))

    def _elements(self, context):
        for element in self._inputs[0]._elements(context):
            yield tuple(element[i] for i in self._order)


def _file_names(file_pattern) -> list:
    """The files a pattern (or a list of them) matches, sorted: TF's ``_get_file_names``."""
    patterns = file_pattern if isinstance(file_pattern, list) else [file_pattern]
    if not patterns:
        raise ValueError("Argument `file_pattern` should not be empty.")
    names = sorted(name for pattern in patterns for name in gfile.Glob(os.fsdecode(pattern)))
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return names


def _opener(compression_type):
    """How the columns' probes open a file, as text (TF's: no ZLIB)."""
    kind = compression_type or ""
    if kind not in ("", "GZIP"):
        raise ValueError(f"{compression_type} is not a valid compression type for probing "
                         f"columns: use '' or 'GZIP' (ZLIB files need column_names and "
                         f"column_defaults)")
    options = python_io.TFRecordOptions(kind)
    return lambda name: io.TextIOWrapper(python_io._open(name, "r", options), encoding="utf-8",
                                         newline="")


def _csv_rows(file, field_delim, use_quote_delim):
    return csv.reader(_lines(file), delimiter=field_delim,
                      quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE)


def _lines(file):
    """The lines of a probed file, read a piece at a time: one longer than a piece must fit
    in the free memory (an untrusted file's)."""
    limit = None
    while line := file.readline(python_io._PIECE):
        while not line.endswith("\n") and (more := file.readline(python_io._PIECE)):
            line += more
            limit = host_memory.host_available_bytes()[0] if limit is None else limit
            if len(line) > limit:
                raise ResourceExhaustedError(f"a line of {file.name} holds more than the "
                                             f"{limit} bytes free")
        yield line


def _header_names(filenames, field_delim, use_quote_delim, opener) -> list:
    """The column names of the first file's header, which every file must repeat."""
    names = None
    for filename in filenames:
        with opener(filename) as file:
            row = next(_csv_rows(file, field_delim, use_quote_delim), None)
        if row is None:
            raise ValueError(f"Failed when reading the header line of {filename}. Is it an "
                             f"empty file?")
        if names is not None and row != names:
            raise ValueError(f"Files have different column names in the header row: "
                             f"{filename}'s {row} against {names}.")
        names = row if names is None else names
    return names


def _column_indices(select_columns, column_names) -> list:
    """``select_columns`` (indices or names) as sorted, distinct indices (TF's checks)."""
    indices = []
    for column in select_columns:
        if isinstance(column, int):
            if not 0 <= column < len(column_names):
                raise ValueError(f"Column index {column} specified in `select_columns` should "
                                 f"be >= 0 and < {len(column_names)}, the number of columns.")
            indices.append(column)
        elif column not in column_names:
            raise ValueError(f"Column {column} specified in `select_columns` must be of one "
                             f"of the columns: {column_names}.")
        else:
            indices.append(column_names.index(column))
    if len(set(indices)) != len(indices):
        raise ValueError(f"The `select_columns` argument contains duplicate columns: "
                         f"{_duplicates(indices)}.")
    return sorted(indices)


def _duplicates(values) -> set:
    return {v for v in values if values.count(v) > 1}


_INFERRED = ("int32", "int64", "float32", "float64", "string")  # narrowest first


def _fits(text: str, dtype: str) -> bool:
    """Does ``text`` read as ``dtype``?  TF's ``_infer_type`` checks, through numpy: an
    int32 the same as an int64, a float below infinity."""
    try:
        if dtype == "int32":
            return bool(np.int32(text) == np.int64(text))
        if dtype in ("int64", "string"):
            return dtype == "string" or np.int64(text) is not None
        with np.errstate(over="ignore"):  # 1e40 as float32: inf, not a warning
            return bool(getattr(np, dtype)(text) < np.inf)
    except (ValueError, OverflowError):
        return False


def _inferred_defaults(filenames, count, csv_options, rows, select_columns, opener) -> list:
    """Each selected column's default, ``[0]`` of the narrowest type its first ``rows``
    values fit (an empty value says nothing; no value: string) or ``[""]``."""
    field_delim, use_quote_delim, na_value, header = csv_options
    columns = range(count) if select_columns is None else select_columns
    kinds = [0] * len(columns)  # index into _INFERRED of each column's type so far
    seen = [False] * len(columns)
    read = 0
    for filename in filenames:
        with opener(filename) as file:
            records = _csv_rows(file, field_delim, use_quote_delim)
            for number, row in enumerate(records, 1):
                if header and number == 1:
                    continue
                if rows is not None and read >= rows:
                    break
                if len(row) != count:
                    raise ValueError(f"Problem inferring types: CSV row has different number "
                                     f"of fields than expected: {filename} row {number} has "
                                     f"{len(row)}, {count} expected.")
                read += 1
                for j, column in enumerate(columns):
                    if row[column] in ("", na_value):
                        continue
                    seen[j] = True
                    kinds[j] = next(k for k in range(kinds[j], len(_INFERRED))
                                    if _fits(row[column], _INFERRED[k]))
    types = [_INFERRED[k] if s else "string" for k, s in zip(kinds, seen)]
    return [np.array([b""], dtype=object) if t == "string" else np.zeros(1, t) for t in types]
