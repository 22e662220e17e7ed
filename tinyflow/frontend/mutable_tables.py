"""TF 1.15's ``tf.lookup.experimental.MutableHashTable`` (``tf.contrib.lookup``'s too) and
``DenseHashTable``: tables the graph changes as it runs, with ``insert``, ``remove``,
``lookup``, ``export`` and ``size`` (ops/mutable_tables.py).  Their contents live per
session, empty until the first insert (no initializer, as TF's).  Keys are strings or int64;
values strings, integers, floats or bools, each of ``default_value``'s shape (a vector
default: vector values).

With ``checkpoint=True`` (the default) a table goes into the graph's ``SAVEABLE_OBJECTS``
collection, which ``tf.train.Saver()`` saves beside the variables (as ``Saver(var_list=...)``
does a table listed there): its export as the tensors ``<name>-keys`` and ``<name>-values``,
``name`` being the table's own, not its scope's (two tables of one name: the last is saved,
as TF's); a restore replaces the session's contents (saver.py).

What differs from TF: a lookup or export is computed before the run's inserts and removes,
so within one ``Session.run`` it reads the table as the run found it (control dependencies
do not order them; TF leaves unordered ones undefined).
"""
from __future__ import annotations

import numpy as np

from ..nnvm.symbol import NodeEntry, Symbol, create_op, current_context
from ..ops.hashing import as_bytes
from .dtypes import as_dtype
from .math_ops import convert_to_tensor

__all__ = ["DenseHashTable", "MutableHashTable"]

_KEY_TYPES = ("string", "int64")
_VALUE_TYPES = ("string", "int64", "int32", "float32", "float64", "bool")


def _name(dtype) -> str:
    name = getattr(as_dtype(dtype), "name", dtype)
    return "string" if name in ("str", "object") else name


class MutableHashTable:
    """A mutable table from ``key_dtype`` to ``value_dtype``: ``default_value`` (a scalar or
    an array, whose shape every value has) for a key it does not hold."""

    num_oov_buckets = 0  # table_size's count of buckets past the entries
    dense = False  # ops/mutable_tables.py: entries by key (DenseHashTable: TF's buckets)

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable",
                 checkpoint=True):
        self.key_type, self.value_type = _name(key_dtype), _name(value_dtype)
        if self.key_type not in _KEY_TYPES:
            raise TypeError(f"TinyFlow's MutableHashTable takes string or int64 keys, got "
                            f"{self.key_type}")
        if self.value_type not in _VALUE_TYPES:
            raise TypeError(f"TinyFlow's MutableHashTable holds values of {_VALUE_TYPES}, got "
                            f"{self.value_type}")
        default = np.asarray(default_value, dtype=object if self.value_type == "string"
                             else None)
        if (default.dtype.kind in "USO") != (self.value_type == "string"):
            raise TypeError(f"default_value {default_value!r} must be of the table's value "
                            f"dtype {self.value_type}")
        if self.value_type == "string":  # held as bytes, as the table's keys
            default = np.array([as_bytes(v) for v in default.ravel().tolist()],
                               dtype=object).reshape(default.shape)
        else:
            default = default.astype(self.value_type)
        self.value_shape = default.shape
        self.default_value = default if default.ndim else default[()]
        self.name, self.checkpoint = name, checkpoint
        if checkpoint:  # tf.train.Saver() saves it (TF's _Saveable)
            current_context().add_to_collection("saveable_objects", self)

    export_shapes = property(lambda self: ((None,), (None, *self.value_shape)))
    key_dtype = property(lambda self: as_dtype(self.key_type))
    value_dtype = property(lambda self: as_dtype(self.value_type))

    def _tensor(self, value, dtype: str, what: str) -> Symbol:
        if not isinstance(value, Symbol):
            value = convert_to_tensor(np.asarray(value, dtype=object) if dtype == "string"
                                      else value, dtype=dtype)
        if _name(value.dtype) != dtype:
            raise ValueError(f"{what}: Tensor conversion requested dtype {dtype} for Tensor "
                             f"with dtype {_name(value.dtype)}: {value}")
        return value

    def _operation(self, op: str, *inputs, name: str) -> Symbol:
        node = create_op(op, *inputs, table=self, name=name).outputs[0].node
        return Symbol([NodeEntry(node, 0)], is_operation=True)

    def insert(self, keys, values, name=None) -> Symbol:
        """The operation putting ``values`` (the keys' shape + the value shape) under
        ``keys``; a key already held gets its new value."""
        keys = self._tensor(keys, self.key_type, "keys")
        values = self._tensor(values, self.value_type, "values")
        return self._operation("mutable_table_insert", keys, values, name=name or (
            f"{self.name}_lookup_table_insert/LookupTableInsertV2"))

    def remove(self, keys, name=None) -> Symbol:
        """The operation removing ``keys`` (one not held is passed over)."""
        return self._operation("mutable_table_remove", self._tensor(
            keys, self.key_type, "keys"), name=name or (
            f"{self.name}_lookup_table_remove/LookupTableRemoveV2"))

    def lookup(self, keys, name=None) -> Symbol:
        """The values of ``keys``, the default value for a key not held: the keys' shape +
        the value shape."""
        return create_op("mutable_table_find", self._tensor(keys, self.key_type, "keys"),
                         table=self, name=name or (
                             f"{self.name}_lookup_table_find/LookupTableFindV2"))

    def export(self, name=None) -> tuple:
        """The table's keys ``[n]`` and values ``[n, *value shape]`` (in the order first
        inserted; TF's order is its hash map's)."""
        node = create_op("mutable_table_export", table=self, name=name or (
            f"{self.name}_lookup_table_export_values/LookupTableExportV2")).outputs[0].node
        return Symbol([NodeEntry(node, 0)]), Symbol([NodeEntry(node, 1)])

    def size(self, name=None) -> Symbol:
        """The number of entries, int64."""
        return create_op("table_size", table=self, name=name or f"{self.name}_Size")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}: {self.key_type} -> {self.value_type}>"


class DenseHashTable(MutableHashTable):
    """A mutable table laid out as TF's MutableDenseHashTable: ``initial_num_buckets`` (a
    power of two, at least 4; 2**17 by default) buckets, doubled past a load of 0.8;
    ``empty_key`` marks an empty bucket, ``deleted_key`` a removed entry's, and neither may be
    a key.  ``export`` gives the buckets, ``[buckets, 1]`` keys and ``[buckets, value size]``
    values (an empty bucket: ``empty_key`` and zeros), in TF's order.  Scalar keys only."""

    dense = True
    export_shapes = property(lambda self: ((None, 1), (None, *(self.value_shape or (1,)))))

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key,
                 initial_num_buckets=None, name="MutableDenseHashTable", checkpoint=True):
        super().__init__(key_dtype, value_dtype, default_value, name, checkpoint)
        keys = []
        for what, key in (("empty_key", empty_key), ("deleted_key", deleted_key)):
            if np.ndim(key):
                raise ValueError(f"DenseHashTable: TinyFlow takes a scalar {what}, got shape "
                                 f"{np.shape(key)}")
            if isinstance(key, (str, bytes)) != (self.key_type == "string"):
                raise TypeError(f"{what} {key!r} must be of the table's key dtype "
                                f"{self.key_type}")
            keys.append(as_bytes(key) if self.key_type == "string" else int(key))
        if keys[0] == keys[1]:
            raise ValueError("Empty and deleted keys cannot be equal")
        self.empty_key, self.deleted_key = keys
        buckets = 2**17 if initial_num_buckets is None else int(initial_num_buckets)
        if buckets < 4 or buckets & (buckets - 1):
            raise ValueError(f"Number of buckets must be at least 4 and a power of 2, got: "
                             f"{buckets}")
        self.initial_num_buckets = buckets
        zero = np.zeros(self.value_shape, dtype=object if self.value_type == "string" else
                        self.value_type)
        if self.value_type == "string":
            zero[...] = b""
        self.zero_value = zero if zero.ndim else zero[()]

    def erase(self, keys, name=None) -> Symbol:
        """``remove``'s TF 1.15 name."""
        return self.remove(keys, name)
