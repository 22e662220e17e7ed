"""TF's mutable hash table (``tf.lookup.experimental.MutableHashTable``,
:mod:`tinyflow.frontend.mutable_tables`), its compute in Python: ``mutable_table_insert`` and
``mutable_table_remove`` (operations on the session's ``resources``, as table_init),
``mutable_table_find`` and ``mutable_table_export`` (pulled before the run: keys or values may
be strings, which no executor buffer holds); its size is ops/lookup_tables.py's
``table_size``.  Attr ``table`` is the front end's table object, the key of its contents in a
session's resources (empty until the first insert), so each session holds its own table.
"""
from __future__ import annotations

import numpy as np

from ..nnvm.attrs import no_gradient
from ..nnvm.errors import InvalidArgumentError
from ..nnvm.op import register_op
from ..nnvm.symbol import Symbol
from .hashing import as_bytes
from .lookup_tables import check_host_bytes, table_key

__all__ = []


def _keys(node, keys) -> list:
    return [table_key(k, node.attrs["table"].key_type)
            for k in np.asarray(keys, dtype=object).ravel().tolist()]


def _insert(node, inputs, resources):
    """FPythonCompute of mutable_table_insert: input 1's values under input 0's keys (a key
    given twice: its last value), all checked before the table changes."""
    table = node.attrs["table"]
    keys, values = np.asarray(inputs[0], dtype=object), np.asarray(inputs[1])
    expected = (*keys.shape, *table.value_shape)
    if tuple(values.shape) != expected:
        raise InvalidArgumentError(None, node.name, f"Expected shape {list(expected)} for "
                                   f"value, got {list(values.shape)}")
    held = len(resources.get(table, ()))
    check_host_bytes(node, (120 + 16 * max(1, len(values.ravel()) // max(1, keys.size)))
                     * (held + keys.size), f"a table of up to {held + keys.size} entries")
    if table.value_type == "string":
        values = np.array([as_bytes(v) for v in values.ravel().tolist()] or np.empty(0),
                          dtype=object)
    else:
        values = values.astype(table.value_type)
    rows = values.reshape(keys.size, *table.value_shape)
    contents = resources.setdefault(table, {})
    for key, row in zip(_keys(node, keys), rows):
        contents[key] = row.copy() if table.value_shape else row
    return np.array(True)


def _remove(node, inputs, resources):
    """FPythonCompute of mutable_table_remove: input 0's keys out of the table (a key it does
    not hold is passed over, as TF's)."""
    contents = resources.setdefault(node.attrs["table"], {})
    for key in _keys(node, inputs[0]):
        contents.pop(key, None)
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
    check_host_bytes(node, (24 + 16 * size) * keys.size, f"the values of {keys.size} keys")
    contents = resources.get(table, {})
    rows = [contents.get(k, table.default_value) for k in _keys(node, keys)]
    return [_values(table, rows, keys.shape)]


def _pull_export(node, resources, evaluate, deadline):
    """FPullOutputs of mutable_table_export: the table's keys ``[n]`` and values
    ``[n, *value shape]``, in the order they were first inserted."""
    table = node.attrs["table"]
    contents = resources.get(table, {})
    check_host_bytes(node, 64 * len(contents) * (1 + int(np.prod(table.value_shape))),
                     f"the {len(contents)} entries of a table")
    keys = np.empty(len(contents), dtype=object) if table.key_type == "string" else np.array(
        list(contents), dtype=np.int64)
    if table.key_type == "string":
        keys[:] = list(contents)
    return [keys, _values(table, list(contents.values()), (len(contents),))]


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
 .describe("Attr table's keys [n] and values [n, *value shape], pulled before the run.")
 .set_num_inputs(0).set_num_outputs(2)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (
     in_shapes, [(None,), (None, *attrs["table"].value_shape)]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (
     in_types, [attrs["table"].key_type, attrs["table"].value_type]))
 .set_attr("FPullOutputs", _pull_export).set_attr("TPythonAttrs", ("table",))
 .set_attr("FGradient", no_gradient))
