"""Class ids and their names (TF's vocabulary lookups, as the canned estimators' heads use
them, see :mod:`tinyflow.frontend.estimator.heads`): ``index_to_string`` (TF's
``index_to_string_table_from_tensor(...).lookup``, or ``as_string`` without a vocabulary) and
``string_to_index`` (``index_table_from_tensor(...).lookup``).  No executor buffer holds a
string: ``index_to_string`` is computed in Python when fetched (FPythonCompute), and
``string_to_index`` reads its strings before the run (FPullOutputs), so the executor sees only
the ids.  Their attributes are plain (the vocabulary: a tuple of str), so graphs holding them
serialise (a SavedModel's predict signature).  No Lua body.
"""
from __future__ import annotations

import numpy as np

from ..nnvm import host_memory
from ..nnvm.attrs import no_gradient
from ..nnvm.op import register_op
from ..nnvm.symbol import Symbol

__all__: list[str] = []


def _index_to_string(node, inputs):
    """FPythonCompute: each id as its vocabulary entry (out of range: attr default_value), or
    without a vocabulary as its decimal digits (TF's ``as_string``), an object array of
    bytes."""
    ids = np.asarray(inputs[0])
    # its own result, beside the executor's checked buffers: the sort, the inverse and the
    # object array (8 bytes an element each), and a bytes object (~40) an element at worst
    host_memory.check_node_fits(node, 64 * ids.size, f"for the strings of {ids.size} ids")
    vocabulary = [str(v).encode() for v in node.attrs.get("vocabulary", ())]
    default = str(node.attrs.get("default_value", "UNK")).encode()
    # one bytes object per distinct id, shared by its elements (a batch's class ids are few)
    distinct, where = np.unique(ids.ravel(), return_inverse=True)
    names = np.empty(distinct.size, dtype=object)
    names[:] = [(vocabulary[i] if 0 <= i < len(vocabulary) else default) if vocabulary
                else str(i).encode() for i in distinct.tolist()]
    return names[where].reshape(ids.shape)


def _string_to_index(node, resources, evaluate, deadline):
    """FPullOutputs: input 0's strings as their positions in attr vocabulary, -1 for one it
    does not hold (TF's ``num_oov_buckets=0``, ``default_value=-1``), int64."""
    strings = np.asarray(evaluate([Symbol([node.inputs[0]])])[0], dtype=object)
    positions = {str(v).encode(): i for i, v in enumerate(node.attrs["vocabulary"])}
    flat = [positions.get(v.encode() if isinstance(v, str) else v, -1)
            for v in strings.ravel().tolist()]
    return [np.array(flat, dtype=np.int64).reshape(strings.shape)]


def _same_shape_as(dtype):
    return (lambda attrs, in_shapes, out_shapes: (
                in_shapes, [in_shapes[0] if in_shapes[0] is not None else out_shapes[0]]),
            lambda attrs, in_types, out_types: (in_types, [dtype]))


(register_op("index_to_string")
 .describe("Input 0's integer ids as strings: attr vocabulary's entries (an id outside it: "
           "attr default_value), or without one each id's decimal digits; computed when "
           "fetched (index_to_string_table_from_tensor's lookup, tf.as_string).")
 .set_num_inputs(1)
 .set_attr("FInferShape", _same_shape_as("string")[0])
 .set_attr("FInferType", _same_shape_as("string")[1])
 .set_attr("FPythonCompute", _index_to_string).set_attr("FGradient", no_gradient))

(register_op("string_to_index")
 .describe("Input 0's strings as their int64 positions in attr vocabulary (-1: not in it), "
           "pulled before the run (index_table_from_tensor's lookup).")
 .set_num_inputs(1)
 .set_attr("FInferShape", _same_shape_as("int64")[0])
 .set_attr("FInferType", _same_shape_as("int64")[1])
 .set_attr("FPullOutputs", _string_to_index).set_attr("FGradient", no_gradient))
