"""TF's lookup tables (``tf.lookup``: :mod:`tinyflow.frontend.lookup_ops`), their compute in
Python: ``table_init`` (an initializer's op: puts the table's contents into the session's
``resources``), ``table_lookup`` (the keys' values, pulled before the run: its keys or values
may be strings, which no executor buffer holds) and ``table_size``.  Attr ``table`` is the front
end's table object, the key of its contents in a session's resources, so each session
initialises its own tables, as TF's resource manager does.  No Lua bodies.
"""
from __future__ import annotations

import numpy as np

from ..nnvm import host_memory
from ..nnvm.attrs import no_gradient
from ..nnvm.errors import FailedPreconditionError
from ..nnvm.op import register_op
from ..nnvm.symbol import Symbol
from .hashing import as_bytes, drop_ignored, hash_strings

__all__ = ["table_key"]


def table_key(value, key_dtype: str):
    """A key as the table holds it: bytes for a string table, an int for an int64 one."""
    return as_bytes(value) if key_dtype == "string" else int(value)


def _init_table(node, inputs, resources):
    """FPythonCompute of table_init: attr table's contents (attr initializer's
    ``contents(node, inputs)``: the keys and values, checked) into the session's resources;
    TF's FailedPreconditionError for a key given two values."""
    table, initializer = node.attrs["table"], node.attrs["initializer"]
    keys, values = initializer.contents(node, inputs)
    host_memory.check_node_fits(node, 120 * len(keys), f"for a table of {len(keys)} entries")
    contents = {}
    for key, value in zip(keys, values):
        key = table_key(key, table.key_type)
        held = contents.setdefault(key, value)
        if held != value:
            raise FailedPreconditionError(None, node.name, (
                f"HashTable has different value for same key. Key {_shown(key)} has "
                f"{_shown(held)} and trying to add value {_shown(value)}"))
    resources[table] = contents
    return np.array(True)


def _shown(value) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _contents(node, resources) -> dict:
    contents = resources.get(node.attrs["table"])
    if contents is None:
        raise FailedPreconditionError(None, node.name, "Table not initialized.")
    return contents


def _pull_lookup(node, resources, evaluate, deadline):
    """FPullOutputs of table_lookup: input 0's keys (this run's values) as attr table's
    values; a key it does not hold gets the table's default value, or with ``num_oov_buckets``
    the table's size plus its Fingerprint64 (of its decimal digits for an integer) modulo
    them, as TF's StaticVocabularyTable."""
    table = node.attrs["table"]
    contents = _contents(node, resources)
    keys = np.asarray(evaluate([Symbol([node.inputs[0]])])[0], dtype=object)
    host_memory.check_node_fits(node, 24 * keys.size, f"for the values of {keys.size} keys")
    flat = [table_key(k, table.key_type) for k in keys.ravel().tolist()]
    missing = object()
    found = [contents.get(k, missing) for k in flat]
    if table.num_oov_buckets:
        absent = [k for k, v in zip(flat, found) if v is missing]
        buckets = iter(hash_strings(np.array(absent, dtype=object), table.num_oov_buckets)
                       .tolist() if absent else [])
        found = [len(contents) + next(buckets) if v is missing else v for v in found]
    else:
        found = [table.default_value if v is missing else v for v in found]
    if table.value_type == "string":
        values = np.empty(len(found), dtype=object)
        values[:] = [as_bytes(v) for v in found]
    else:
        values = np.array(found, dtype=np.dtype(table.value_type))
    values = values.reshape(keys.shape)
    return [drop_ignored(values, keys, node) if table.value_type == "int64" else values]


def _table_size(node, inputs, resources):
    """FPythonCompute of table_size: the entries (0 before the table is initialised, as TF's
    LookupTableSize), plus attr table's ``num_oov_buckets``."""
    table = node.attrs["table"]
    return np.array(len(resources.get(table, ())) + table.num_oov_buckets, dtype=np.int64)


def _scalar(dtype):
    return (lambda attrs, in_shapes, out_shapes: (in_shapes, [()]),
            lambda attrs, in_types, out_types: (in_types, [dtype]))


(register_op("table_init")
 .describe("Initialises attr table from attr initializer (its inputs: the keys and values "
           "when they are tensors); an operation (a table's initializer, run by "
           "tf.tables_initializer()).")
 .set_num_inputs(lambda attrs: attrs.get("num_args", 0))
 .set_attr("FInferShape", _scalar("bool")[0]).set_attr("FInferType", _scalar("bool")[1])
 .set_attr("FPythonCompute", _init_table).set_attr("TSessionState", True)
 .set_attr("TPythonAttrs", ("table", "initializer")).set_attr("FGradient", no_gradient))

(register_op("table_lookup")
 .describe("Input 0's keys as attr table's values (its default value for a key it does not "
           "hold; an out-of-vocabulary bucket with num_oov_buckets; int64 values: -1 for attr "
           "ignore's keys), pulled before the run "
           "(a table's lookup).")
 .set_num_inputs(1)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (
     in_shapes, [in_shapes[0] if in_shapes[0] is not None else out_shapes[0]]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (
     in_types, [attrs["table"].value_type]))
 .set_attr("FPullOutputs", _pull_lookup).set_attr("TPythonAttrs", ("table",))
 .set_attr("FGradient", no_gradient))

(register_op("table_size")
 .describe("The number of entries of attr table, int64 (a table's size()).")
 .set_num_inputs(0)
 .set_attr("FInferShape", _scalar("int64")[0]).set_attr("FInferType", _scalar("int64")[1])
 .set_attr("FPythonCompute", _table_size).set_attr("TSessionState", True)
 .set_attr("TPythonAttrs", ("table",)).set_attr("FGradient", no_gradient))
