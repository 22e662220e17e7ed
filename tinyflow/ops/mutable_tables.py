"""TF's mutable hash tables (``tf.lookup.experimental.MutableHashTable`` and
``DenseHashTable``, :mod:`tinyflow.frontend.mutable_tables`), their compute in Python: ``mutable_table_insert`` and
``mutable_table_remove`` (operations on the session's ``resources``, as table_init),
``mutable_table_find`` and ``mutable_table_export`` (pulled before the run: keys or values may
be strings, which no executor buffer holds); its size is ops/lookup_tables.py's
``table_size``.  Attr ``table`` is the front end's table object, the key of its contents in a
session's resources (empty until the first insert), so each session holds its own table;
its attr ``dense`` picks the contents: entries by key, or TF's dense buckets (``_Buckets``).
"""
from __future__ import annotations

import numpy as np

from ..nnvm import host_memory
from ..nnvm.attrs import no_gradient
from ..nnvm.errors import InvalidArgumentError
from ..nnvm.op import register_op
from ..nnvm.symbol import Symbol
from .hashing import as_bytes, legacy_hash64
from .lookup_tables import table_key

__all__ = ["export_arrays", "import_arrays"]


def _keys(node, keys) -> list:
    return [table_key(k, node.attrs["table"].key_type)
            for k in np.asarray(keys, dtype=object).ravel().tolist()]


class _Entries(dict):
    """A MutableHashTable's contents: key -> value, in the order first inserted."""

    def insert(self, keys, rows) -> None:
        self.update(zip(keys, rows))

    def remove(self, keys) -> None:
        for key in keys:
            self.pop(key, None)

    def find(self, keys, default) -> list:
        return [self.get(k, default) for k in keys]

    def export(self):
        return list(self), list(self.values())


class _Buckets:
    """A DenseHashTable's contents as TF's MutableDenseHashTable lays them out: open
    addressing over a power of two of buckets, a key's first bucket its hash (an integer's
    bits, a string's Hash64) masked, then +1, +2, +3... buckets on; grown (doubled, the old
    buckets reinserted in order) past a load of 0.8.  A removed key's bucket holds
    ``deleted_key``; an empty one ``empty_key`` and zeros."""

    def __init__(self, table, num_buckets: int):
        self.table, self.size = table, 0
        self.bucket_keys = [table.empty_key] * num_buckets
        self.bucket_values = [table.zero_value] * num_buckets

    def __len__(self) -> int:
        return self.size

    num_buckets = property(lambda self: len(self.bucket_keys))

    def _hash(self, key) -> int:
        return legacy_hash64(key) if isinstance(key, bytes) else key & ((1 << 64) - 1)

    def _probe(self, key):
        """The buckets ``key`` visits, in order."""
        mask, probes = len(self.bucket_keys) - 1, 0
        index = self._hash(key) & mask
        while probes <= mask:
            yield index
            probes += 1
            index = (index + probes) & mask

    def insert(self, keys, rows) -> None:
        wanted = self.size + len(keys)
        if wanted > len(self.bucket_keys) * 0.8:
            buckets = len(self.bucket_keys)
            while wanted > buckets * 0.8:
                buckets <<= 1
            old = [(k, v) for k, v in zip(self.bucket_keys, self.bucket_values)
                   if k not in (self.table.empty_key, self.table.deleted_key)]
            self.__init__(self.table, buckets)
            if old:
                self.insert([k for k, _ in old], [v for _, v in old])
        for key, row in zip(keys, rows):
            for index in self._probe(key):
                if self.bucket_keys[index] == key:
                    self.bucket_values[index] = row
                    break
                if self.bucket_keys[index] in (self.table.empty_key, self.table.deleted_key):
                    self.bucket_keys[index], self.bucket_values[index] = key, row
                    self.size += 1
                    break

    def remove(self, keys) -> None:
        for key in keys:
            for index in self._probe(key):
                if self.bucket_keys[index] == key:
                    self.bucket_keys[index] = self.table.deleted_key
                    self.size -= 1
                    break
                if self.bucket_keys[index] == self.table.empty_key:
                    break

    def find(self, keys, default) -> list:
        found = []
        for key in keys:
            value = default
            for index in self._probe(key):
                if self.bucket_keys[index] == key:
                    value = self.bucket_values[index]
                    break
                if self.bucket_keys[index] == self.table.empty_key:
                    break
            found.append(value)
        return found

    def export(self):
        return list(self.bucket_keys), list(self.bucket_values)


def _contents(table, resources):
    """The session's contents of ``table``, made empty on first use."""
    contents = resources.get(table)
    if contents is None:
        contents = resources[table] = (_Buckets(table, table.initial_num_buckets)
                                       if table.dense else _Entries())
    return contents


def _checked_keys(node, keys) -> list:
    """The keys as the table holds them; a dense table's empty or deleted key is TF's
    InvalidArgumentError, before the table changes."""
    table, keys = node.attrs["table"], _keys(node, keys)
    for what in ("empty_key", "deleted_key") if table.dense else ():
        if getattr(table, what) in keys:
            raise InvalidArgumentError(None, node.name, f"Using the {what} as a table key is "
                                       f"not allowed")
    return keys


def _insert(node, inputs, resources):
    """FPythonCompute of mutable_table_insert: input 1's values under input 0's keys (a key
    given twice: its last value), all checked before the table changes."""
    table = node.attrs["table"]
    keys, values = np.asarray(inputs[0], dtype=object), np.asarray(inputs[1])
    expected = (*keys.shape, *table.value_shape)
    if tuple(values.shape) != expected:
        raise InvalidArgumentError(None, node.name, f"Expected shape {list(expected)} for "
                                   f"value, got {list(values.shape)}")
    contents = _contents(table, resources)
    held = getattr(contents, "num_buckets", len(contents))
    per_entry = 120 + 16 * max(1, len(values.ravel()) // max(1, keys.size))
    host_memory.check_node_fits(node, per_entry * 2 * (held + keys.size),
                                f"for a table of up to {held + keys.size} entries")
    if table.value_type == "string":
        values = np.array([as_bytes(v) for v in values.ravel().tolist()] or np.empty(0),
                          dtype=object)
    else:
        values = values.astype(table.value_type)
    rows = values.reshape(keys.size, *table.value_shape)
    contents.insert(_checked_keys(node, keys), [
        row.copy() if table.value_shape else row for row in rows])
    return np.array(True)


def _remove(node, inputs, resources):
    """FPythonCompute of mutable_table_remove: input 0's keys out of the table (a key it does
    not hold is passed over, as TF's)."""
    _contents(node.attrs["table"], resources).remove(_checked_keys(node, inputs[0]))
    return np.array(True)


def _values(table, rows: list, shape) -> np.ndarray:
    """``rows`` (each of the table's value shape) as an array ``shape + value_shape``."""
    full = (*shape, *table.value_shape)
    if table.value_type == "string":
        array = np.empty((len(rows), *table.value_shape), dtype=object)
        for index, row in enumerate(rows):
            array[index] = row
        return array.reshape(full)
    return np.array(rows, dtype=table.value_type).reshape(full)


def _pull_find(node, resources, evaluate, deadline):
    """FPullOutputs of mutable_table_find: input 0's keys (this run's values) as their
    values, the table's default value for a key it does not hold."""
    table = node.attrs["table"]
    keys = np.asarray(evaluate([Symbol([node.inputs[0]])])[0], dtype=object)
    size = int(np.prod(table.value_shape, dtype=np.int64))
    host_memory.check_node_fits(node, (24 + 16 * size) * keys.size,
                                f"for the values of {keys.size} keys")
    rows = _contents(table, resources).find(_checked_keys(node, keys), table.default_value)
    return [_values(table, rows, keys.shape)]


def export_arrays(table, resources, node=None) -> list:
    """``[keys, values]``: the session's contents of ``table`` (its ``resources``), of the
    table's ``export_shapes`` (a MutableHashTable's entries in the order first inserted; a
    DenseHashTable's buckets, as TF's: ``[buckets, 1]`` and ``[buckets, value size]``);
    with ``node``, the host-memory check naming it first."""
    keys, values = _contents(table, resources).export()
    if node is not None:
        host_memory.check_node_fits(node, 64 * len(keys) * (1 + int(np.prod(
            table.value_shape))), f"for the {len(keys)} entries of a table")
    array = np.empty(len(keys), dtype=object) if table.key_type == "string" else np.array(
        keys, dtype=np.int64)
    if table.key_type == "string":
        array[:] = keys
    key_tail, value_tail = (shape[1:] for shape in table.export_shapes)
    return [array.reshape(len(keys), *key_tail),
            _values(table, values, (len(keys),)).reshape(len(keys), *value_tail)]


def import_arrays(table, resources, keys: np.ndarray, values: np.ndarray) -> None:
    """TF's ``LookupTableImportV2``: the session's contents of ``table`` replaced by ``keys``
    and ``values`` of the table's ``export_shapes`` and dtypes (the caller checked them; a
    DenseHashTable's, a power of two of buckets, taken as they are laid out)."""
    keys = [table_key(k, table.key_type) for k in keys.ravel().tolist()]
    rows = list(values.reshape(len(keys), *table.value_shape))
    if table.dense:
        contents = _Buckets(table, len(keys))
        contents.bucket_keys, contents.bucket_values = keys, rows
        contents.size = sum(k not in (table.empty_key, table.deleted_key) for k in keys)
    else:
        contents = _Entries()
        contents.insert(keys, [row.copy() if table.value_shape else row for row in rows])
    resources[table] = contents


def _pull_export(node, resources, evaluate, deadline):
    """FPullOutputs of mutable_table_export: :func:`export_arrays` of attr table."""
    return export_arrays(node.attrs["table"], resources, node)


def _operation(attrs, in_shapes, out_shapes):
    return in_shapes, [()]


for _name, _compute, _inputs, _what in (
        ("mutable_table_insert", _insert, 2, "Puts input 1's values under input 0's keys"),
        ("mutable_table_remove", _remove, 1, "Removes input 0's keys")):
    (register_op(_name)
     .describe(f"{_what} in attr table (a MutableHashTable), an operation on the session's "
               f"table.")
     .set_num_inputs(_inputs).set_attr("FInferShape", _operation)
     .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["bool"]))
     .set_attr("FPythonCompute", _compute).set_attr("TSessionState", True)
     .set_attr("TPythonAttrs", ("table",)).set_attr("FGradient", no_gradient))

(register_op("mutable_table_find")
 .describe("Input 0's keys as attr table's values (keys' shape + the value shape; the "
           "table's default value for a key it does not hold), pulled before the run.")
 .set_num_inputs(1)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [
     None if in_shapes[0] is None else (*in_shapes[0], *attrs["table"].value_shape)]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (
     in_types, [attrs["table"].value_type]))
 .set_attr("FPullOutputs", _pull_find).set_attr("TPythonAttrs", ("table",))
 .set_attr("FGradient", no_gradient))

(register_op("mutable_table_export")
 .describe("Attr table's keys and values (shapes: its export_shapes), pulled before the "
           "run.")
 .set_num_inputs(0).set_num_outputs(2)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (
     in_shapes, list(attrs["table"].export_shapes)))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (
     in_types, [attrs["table"].key_type, attrs["table"].value_type]))
 .set_attr("FPullOutputs", _pull_export).set_attr("TPythonAttrs", ("table",))
 .set_attr("FGradient", no_gradient))
