"""Ops that shape what runs rather than compute: ``no_op`` (``tf.group``, ``tf.no_op``),
``stop_gradient`` and ``custom_gradient`` (``tf.custom_gradient``); and the ops whose compute
is Python (FPythonCompute): ``print`` (tf.Print), ``assert`` (tf.Assert) and ``py_func``
(tf.py_func), see :mod:`tinyflow.control_flow_ops`; tf.data's iterator ops
(``iterator_get_next``, whose outputs are pulled from Python before a run, and
``iterator_init``), see :mod:`tinyflow.frontend.data`.

Bodies: ``tinyflow/lua_ops/control/<name>.lua`` (none for the Python ones).
"""
from __future__ import annotations

import time

import numpy as np

from ..nnvm.attrs import inplace_first, no_gradient, same_shape, same_type
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op

__all__: list[str] = []

# An operation has no value, but every fetch here is a node entry: its one output is a 0-d bool
# that nothing writes, so a group is one node that can be fetched, named and depended on.
(register_op("no_op").describe("Nothing: runs after its control dependencies (tf.group).")
 .set_num_inputs(0)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["bool"]))
 .set_attr("FGradient", no_gradient))

(register_op("stop_gradient").describe("x, as a constant to gradients: none flows back through "
                                        "it (tf.stop_gradient).")
 .set_num_inputs(1).set_attr("FInferShape", same_shape).set_attr("FInferType", same_type)
 .set_attr("FInplaceOption", inplace_first).set_attr("FGradient", no_gradient))


# TensorFlow 1's cond reads each outer tensor through a Switch, whose gradient reaches the tensor
# only from the branch taken.  tf.cond here runs both branches and selects (control_flow_ops):
# each branch reads an outer float tensor through branch_input, so the other branch's gradient
# (0 * inf in the sqrt of a negative it did not take: NaN) never reaches the tensor.
def _branch_input_gradient(node, ograds):
    g, pred = ograds[0], node.inputs[1]
    mask = pred if g.get_shape().ndims == 0 else create_op(
        "logical_and", pred, create_op("fill_like", g, value=True, dtype="bool"))
    zeros = create_op("zeros_like", g)
    taken = node.attrs["branch"]
    return [create_op("where", mask, g if taken else zeros, zeros if taken else g), None]


(register_op("branch_input")
 .describe("x (input 0) as one branch of a tf.cond reads it, attr branch: the branch's value of "
           "bool scalar input 1; in the forward x itself (readers read x: TSameShapeIdentity), "
           "its gradient g where input 1 is branch, else zeros (TF's Switch).")
 .set_num_inputs(2)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (
     [in_shapes[0] if in_shapes[0] is not None else out_shapes[0], ()],
     [in_shapes[0] if in_shapes[0] is not None else out_shapes[0]]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (
     [in_types[0] or out_types[0], "bool"], [in_types[0] or out_types[0]]))
 .set_attr("TSameShapeIdentity", True).set_attr("TTFType", "Switch")
 .set_attr("FGradient", _branch_input_gradient))


# A cond's branch runs only when taken (TF's semantics: no error, no work, no random draw in the
# other): each of its ops has a control dependency on its branch_guard, which TGuard declares;
# the executor runs such an op only when the guard's value is true.
(register_op("branch_guard")
 .describe("Whether bool scalar x is attr branch: a tf.cond branch's guard.  An op with a "
           "control dependency on it runs only when it is true (TGuard).")
 .set_num_inputs(1)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: ([()], [()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (["bool"], ["bool"]))
 .set_attr("TGuard", True).set_attr("FGradient", no_gradient))


def _results_shape(attrs, in_shapes, out_shapes):
    count = attrs["num_results"]
    shapes = [i if i is not None else o for i, o in zip(in_shapes, out_shapes)]
    return shapes + list(in_shapes[count:]), shapes


def _results_type(attrs, in_types, out_types):
    count = attrs["num_results"]
    types = [i or o for i, o in zip(in_types, out_types)]
    return types + list(in_types[count:]), types


# TensorFlow's custom_gradient is an IdentityN over (results, args, variables) whose gradient is
# overridden by the user's: here the first num_results inputs pass through, and attr grad_fn
# (the front end's wrapper of the user's function) gives one gradient per input.
(register_op("custom_gradient")
 .describe("Inputs 0..num_results-1 as they are; gradients: attr grad_fn's, a Python function "
           "of the outputs' gradients giving one per input (tf.custom_gradient).")
 .set_num_inputs(lambda attrs: attrs["num_args"])
 .set_num_outputs(lambda attrs: attrs["num_results"])
 .set_attr("FInferShape", _results_shape).set_attr("FInferType", _results_type)
 .set_attr("FInplaceOption", lambda attrs: [(i, i) for i in range(attrs["num_results"])])
 .set_attr("TPythonAttrs", ("grad_fn",)).set_attr("TTFType", "IdentityN")
 .set_attr("FGradient", lambda node, out_grads: node.attrs["grad_fn"](out_grads)))


# -- ops computed in Python (FPythonCompute): print, assert and py_func ------------------------
# Their attribute ``func`` is the Python callable that runs when the node runs (a tf.Print's
# printer, a tf.py_func's function): like TensorFlow's py_func token, it does not serialise.
def _run_func(node, inputs):
    """FPythonCompute of print, assert and py_func: the node's ``func`` on its inputs' values."""
    return node.attrs["func"](node, inputs)


def _first_input_shape(attrs, in_shapes, out_shapes):
    shape = in_shapes[0] if in_shapes[0] is not None else out_shapes[0]
    return [shape] + list(in_shapes[1:]), [shape]


def _first_input_type(attrs, in_types, out_types):
    dtype = in_types[0] or out_types[0]
    return [dtype] + list(in_types[1:]), [dtype]


# TensorFlow's _PrintGrad: the gradient passes to input_, none to the data printed
(register_op("print")
 .describe("Input 0 as it is; when it runs, prints attr message and the values of inputs 1.. "
           "to stderr (tf.Print; attrs first_n, summarize, func: the printer).")
 .set_num_inputs(lambda attrs: attrs.get("num_args", 1))
 .set_attr("FInferShape", _first_input_shape).set_attr("FInferType", _first_input_type)
 .set_attr("FPythonCompute", _run_func).set_attr("TPythonAttrs", ("func",))
 .set_attr("FGradient", lambda n, g: [g[0]] + [None] * (len(n.inputs) - 1)))


# TensorFlow's Assert: an operation (its output a 0-d bool, as no_op's) that stops the run with
# InvalidArgumentError, the data printed, when its condition (input 0) is false
(register_op("assert")
 .describe("Nothing when input 0 (a bool scalar) is true; else attr func raises TF's "
           "InvalidArgumentError printing inputs 1.. (tf.Assert; attrs summarize, func).")
 .set_num_inputs(lambda attrs: attrs.get("num_args", 1))
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["bool"]))
 .set_attr("FPythonCompute", _run_func).set_attr("TPythonAttrs", ("func",))
 .set_attr("FGradient", no_gradient))


def _py_func_shape(attrs, in_shapes, out_shapes):
    return in_shapes, out_shapes  # known only once func has run (or from the ops reading it)


def _py_func_type(attrs, in_types, out_types):
    return in_types, list(attrs["Tout"])


# TensorFlow's PyFunc is not differentiable (ops.NotDifferentiable): neither is this one
(register_op("py_func")
 .describe("The outputs of attr func (a Python function) on the inputs' values, as numpy "
           "arrays of dtypes attr Tout (tf.py_func).")
 .set_num_inputs(lambda attrs: attrs.get("num_args", 0))
 .set_num_outputs(lambda attrs: len(attrs["Tout"]))
 .set_attr("FInferShape", _py_func_shape).set_attr("FInferType", _py_func_type)
 .set_attr("FPythonCompute", _run_func).set_attr("TPythonAttrs", ("func",))
 .set_attr("FGradient", no_gradient))


def _timestamp(node, inputs):
    """FPythonCompute of timestamp: the clock when the node runs (TF's Timestamp kernel reads
    the wall clock's microseconds; Python's time.time is the same clock, finer)."""
    return np.float64(time.time())


# TensorFlow's Timestamp: stateful (each run reads the clock), no gradient (NotDifferentiable)
(register_op("timestamp")
 .describe("The wall clock in seconds since the Unix epoch, a float64 scalar, read when the "
           "node runs (tf.timestamp).")
 .set_num_inputs(0)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: ([], [()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: ([], ["float64"]))
 .set_attr("FPythonCompute", _timestamp)
 .set_attr("FGradient", no_gradient))


# -- tf.data's iterator ops: an element pulled from Python, and the initializer ----------------
# Their attribute ``iterator`` / ``func`` is the front end's Python object (the pipeline), which
# keeps its position per session in the session's ``resources`` (tinyflow/frontend/data).
def _pull_next(node, resources, evaluate, deadline):
    """FPullOutputs of iterator_get_next: its iterator's next element, one array per output."""
    return node.attrs["iterator"].next_values(node, resources, evaluate)


def _declared_shape(attrs, in_shapes, out_shapes):
    # attr shapes: each output's static shape, None where a size is not known (the last,
    # partial batch): known fully, it is the shape; else the run's pulled value gives it
    known = [tuple(s) if s is not None and None not in s else None for s in attrs["shapes"]]
    return in_shapes, [o if o is not None else k for o, k in zip(out_shapes, known)]


def _declared_type(attrs, in_types, out_types):
    """FInferType of an op pulled before the run: its outputs' dtypes are attr Touts."""
    return in_types, list(attrs["Touts"])


(register_op("iterator_get_next")
 .describe("The next element of attr iterator (a tf.data pipeline), pulled before the run "
           "and fed as the node's outputs, of dtypes attr Touts (Iterator.get_next); a "
           "feedable iterator's reads its input, the string handle of the iterator to pull.")
 .set_num_inputs(lambda attrs: attrs.get("num_args", 0))
 .set_num_outputs(lambda attrs: len(attrs["Touts"]))
 .set_attr("FInferShape", _declared_shape)
 .set_attr("FInferType", _declared_type)
 .set_attr("FPullOutputs", _pull_next).set_attr("TPythonAttrs", ("iterator",))
 .set_attr("FGradient", no_gradient))


def _pull_handle(node, resources, evaluate, deadline):
    """FPullOutputs of iterator_string_handle: the string naming its iterator in this
    session (Iterator.string_handle)."""
    return [node.attrs["iterator"].handle_in(resources)]


(register_op("iterator_string_handle")
 .describe("A string naming attr iterator in the session that runs it, which a feedable "
           "iterator's get_next is fed to pull from it (Iterator.string_handle).")
 .set_num_inputs(0)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["string"]))
 .set_attr("FPullOutputs", _pull_handle).set_attr("TPythonAttrs", ("iterator",))
 .set_attr("FGradient", no_gradient))


def _run_stateful(node, inputs, resources):
    """FPythonCompute of iterator_init: attr func on the inputs' values and the session's
    resources (it starts its iterator on a dataset over those values)."""
    return node.attrs["func"](node, inputs, resources)


(register_op("iterator_init")
 .describe("Starts attr func's iterator over its dataset, the inputs being the values the "
           "dataset captured (Iterator.initializer, make_initializer); an operation.")
 .set_num_inputs(lambda attrs: attrs.get("num_args", 0))
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["bool"]))
 .set_attr("FPythonCompute", _run_stateful).set_attr("TSessionState", True)
 .set_attr("TPythonAttrs", ("func",)).set_attr("FGradient", no_gradient))

