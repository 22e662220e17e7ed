"""``tf.io``'s ops over files and a tensor's bytes (see :mod:`tinyflow.frontend.io_ops`): the
files a pattern matches (``matching_files``) and a ``TensorProto`` parsed (``parse_tensor``),
pulled before the run as ``read_file`` is, so the executor sees only their values; a file
written (``write_file``) and a tensor's ``TensorProto`` bytes (``serialize_tensor``), computed
in Python when fetched.  Each op's work is its attr func (the front end's), so graphs holding
them do not serialise, as ``read_file``'s do not.  No Lua body.
"""
from __future__ import annotations

from ..nnvm.attrs import no_gradient
from ..nnvm.op import register_op
from .control import _run_func
from .parsing import _pull_parsed

__all__: list[str] = []


def _unknown_shape(attrs, in_shapes, out_shapes):
    return in_shapes, [out_shapes[0]]  # known once pulled: the run's value gives it


(register_op("matching_files")
 .describe("The sorted names of the files input 0's patterns (a string or a vector of them) "
           "match, a string vector pulled before the run (tf.io.matching_files; attr func).")
 .set_num_inputs(1)
 .set_attr("FInferShape", _unknown_shape)
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["string"]))
 .set_attr("FPullOutputs", _pull_parsed).set_attr("TPythonAttrs", ("func",))
 .set_attr("FGradient", no_gradient))

(register_op("parse_tensor")
 .describe("The tensor of dtype attr out_type whose TensorProto bytes input 0 holds, pulled "
           "before the run (tf.io.parse_tensor; attr func parses, its size checked against "
           "the memory).")
 .set_num_inputs(1)
 .set_attr("FInferShape", _unknown_shape)
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, [attrs["out_type"]]))
 .set_attr("FPullOutputs", _pull_parsed).set_attr("TPythonAttrs", ("func",))
 .set_attr("FGradient", no_gradient))

(register_op("serialize_tensor")
 .describe("The TensorProto bytes of input 0, a string scalar computed in Python when "
           "fetched (tf.io.serialize_tensor; attr func).")
 .set_num_inputs(1)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["string"]))
 .set_attr("FPythonCompute", _run_func).set_attr("TPythonAttrs", ("func",))
 .set_attr("FGradient", no_gradient))

# an operation, its output a 0-d bool as assert's
(register_op("write_file")
 .describe("Writes input 1 (a string scalar) to the file input 0 names, its folders made, "
           "when fetched (tf.io.write_file; attr func).")
 .set_num_inputs(2)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["bool"]))
 .set_attr("FPythonCompute", _run_func).set_attr("TPythonAttrs", ("func",))
 .set_attr("FGradient", no_gradient))
