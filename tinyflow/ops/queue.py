"""TF-1's queue ops, their compute in Python: ``queue_dequeue`` (its outputs pulled from the
queue before a run, as tf.data's ``iterator_get_next``), ``queue_enqueue``, ``queue_close``,
``queue_size``, and ``epoch_limit`` (tf.train.limit_epochs); see
:mod:`tinyflow.frontend.queues` and :mod:`tinyflow.frontend.input_pipeline`.  No Lua bodies.
"""
from __future__ import annotations

from ..nnvm.attrs import no_gradient
from ..nnvm.errors import OutOfRangeError
from ..nnvm.op import register_op
from .control import _declared_shape, _first_input_shape, _first_input_type

__all__: list[str] = []


# -- TF-1's queues (tf.FIFOQueue, tf.RandomShuffleQueue: tinyflow/frontend/queues.py) ---------
# Attr ``queue`` is the front end's queue object, whose contents live per session in the
# session's ``resources``: a dequeue is pulled from it before the run (blocking until an element
# is there, or the queue is closed: OutOfRangeError), an enqueue, a close and a size are Python
# ops given the resources, run by whichever thread runs them (a QueueRunner's).
def _pull_queue(node, resources, evaluate, deadline):
    """FPullOutputs of queue_dequeue: attr count elements (one without a batch dimension when
    attr count is None) taken from attr queue, one array per component."""
    return node.attrs["queue"].take(node, resources, deadline)


def _queue_call(node, inputs, resources):
    """FPythonCompute of queue_enqueue, queue_close and queue_size: the queue's method of the
    op's name on the inputs' values and the session's resources."""
    return getattr(node.attrs["queue"], node.op.name)(node, inputs, resources)


(register_op("queue_dequeue")
 .describe("Attr count elements of attr queue (one, without a batch dimension, when count is "
           "None; at most count with attr up_to), pulled before the run and fed as the node's "
           "outputs, of dtypes attr Touts (QueueBase.dequeue, dequeue_many, dequeue_up_to).")
 .set_num_inputs(0).set_num_outputs(lambda attrs: len(attrs["Touts"]))
 .set_attr("FInferShape", _declared_shape)
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, list(attrs["Touts"])))
 .set_attr("FPullOutputs", _pull_queue).set_attr("TPythonAttrs", ("queue",))
 .set_attr("FGradient", no_gradient))

for _name, _text, _dtype in (
        ("queue_enqueue", ("Puts the inputs' values into attr queue as one element (as many "
         "as their first dimension with attr many), waiting while it is full; an operation "
         "(QueueBase.enqueue, enqueue_many)."), "bool"),
        ("queue_close", ("Closes attr queue (attr cancel: pending enqueues fail too); an "
         "operation (QueueBase.close)."), "bool"),
        ("queue_size", "The number of elements in attr queue (QueueBase.size).", "int32")):
    (register_op(_name).describe(_text)
     .set_num_inputs(lambda attrs: attrs.get("num_args", 0))
     .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [()]))
     .set_attr("FInferType", lambda attrs, in_types, out_types, _d=_dtype: (in_types, [_d]))
     .set_attr("FPythonCompute", _queue_call).set_attr("TSessionState", True)
     .set_attr("TPythonAttrs", ("queue",)).set_attr("FGradient", no_gradient))


def _check_limit(node, inputs):
    """FPythonCompute of epoch_limit: input 0 as it is while the count (input 1, the epoch
    counter after this run's increment) is within attr limit."""
    if int(inputs[1]) > node.attrs["limit"]:
        raise OutOfRangeError(None, node.name, f"Reached limit of {node.attrs['limit']}")
    return inputs[0]


(register_op("epoch_limit")
 .describe("Input 0 as it is; OutOfRangeError once input 1 (a counter's value after its "
           "increment) passes attr limit (tf.train.limit_epochs, the counter a local "
           "variable).")
 .set_num_inputs(2)
 .set_attr("FInferShape", _first_input_shape).set_attr("FInferType", _first_input_type)
 .set_attr("FPythonCompute", _check_limit).set_attr("FGradient", no_gradient))
