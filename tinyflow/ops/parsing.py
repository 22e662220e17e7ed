"""Parsing serialized ``tf.train.Example`` protos (``tf.parse_example``,
``tf.parse_single_example``) and CSV records (``tf.decode_csv``), see
:mod:`tinyflow.frontend.parsing_ops`; a file's contents (``tf.read_file``, in
:mod:`tinyflow.frontend.readers`).  A serialized example
is a string, which no executor buffer holds: the op's outputs are pulled before the run, as
``decode_raw``'s are (session/pull.py), so the executor sees only the parsed numbers.  No Lua
body.
"""
from __future__ import annotations

from ..nnvm.attrs import no_gradient
from ..nnvm.op import register_op
from ..nnvm.symbol import Symbol
from .control import _declared_shape, _declared_type

__all__: list[str] = []


def _pull_parsed(node, resources, evaluate, deadline):
    """FPullOutputs of parse_example, decode_csv and read_file: attr func on its inputs'
    values (the serialized examples and, when given, their names; the CSV records; the file
    name)."""
    return node.attrs["func"](node, evaluate([Symbol([entry]) for entry in node.inputs]))


(register_op("parse_example")
 .describe("The features attr func parses out of input 0 (serialized tf.train.Example "
           "protos: one, or a vector of them, or one tf.train.SequenceExample; input 1, when "
           "given, their names for errors), pulled before the run (tf.parse_example, "
           "tf.parse_single_example, tf.parse_single_sequence_example); outputs of "
           "dtypes attr Touts and static shapes attr shapes.")
 .set_num_inputs(lambda attrs: attrs.get("num_args", 1))
 .set_num_outputs(lambda attrs: len(attrs["Touts"]))
 .set_attr("FInferShape", _declared_shape).set_attr("FInferType", _declared_type)
 .set_attr("FPullOutputs", _pull_parsed).set_attr("TPythonAttrs", ("func",))
 .set_attr("FGradient", no_gradient))

(register_op("decode_csv")
 .describe("The columns attr func reads from input 0's CSV records (strings), pulled before "
           "the run (tf.decode_csv); outputs of dtypes attr Touts, each the input's shape.")
 .set_num_inputs(1).set_num_outputs(lambda attrs: len(attrs["Touts"]))
 .set_attr("FInferShape", _declared_shape).set_attr("FInferType", _declared_type)
 .set_attr("FPullOutputs", _pull_parsed).set_attr("TPythonAttrs", ("func",))
 .set_attr("FGradient", no_gradient))

(register_op("read_file")
 .describe("The contents of the file input 0 names (a string), pulled before the run "
           "(tf.read_file; attr func reads, its size checked against the memory).")
 .set_num_inputs(1)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["string"]))
 .set_attr("FPullOutputs", _pull_parsed).set_attr("TPythonAttrs", ("func",))
 .set_attr("FGradient", no_gradient))
