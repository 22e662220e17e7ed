"""TF-1's queue ops, their compute in Python: ``queue_dequeue`` (its outputs pulled from the
queue before a run, as tf.data's ``iterator_get_next``), ``queue_enqueue``, ``queue_close``,
``queue_size``, ``epoch_limit`` (tf.train.limit_epochs), ``shuffle_strings``; TF-1's readers'
``reader_read`` and ``decode_raw``, pulled too; see :mod:`tinyflow.frontend.readers`,
:mod:`tinyflow.frontend.queues` and :mod:`tinyflow.frontend.input_pipeline`.  No Lua bodies.
"""
from __future__ import annotations

import numpy as np

from ..nnvm.attrs import no_gradient
from ..nnvm.errors import OutOfRangeError
from ..nnvm.op import register_op
from ..nnvm.symbol import Symbol
from .control import _declared_shape, _declared_type, _first_input_shape, _first_input_type

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
 .set_attr("FInferType", _declared_type)
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
        raise OutOfRangeError(None, node.name, f"Reached limit of {node.attrs['limit']} "
                                               f"({node.describe()})")
    return inputs[0]


(register_op("epoch_limit")
 .describe("Input 0 as it is; OutOfRangeError once input 1 (a counter's value after its "
           "increment) passes attr limit (tf.train.limit_epochs, the counter a local "
           "variable).")
 .set_num_inputs(2)
 .set_attr("FInferShape", _first_input_shape).set_attr("FInferType", _first_input_type)
 .set_attr("FPythonCompute", _check_limit).set_attr("FGradient", no_gradient))


# -- TF-1's readers (tinyflow/frontend/readers.py) -------------------------------------------
# A record is a string, which no executor buffer holds: the reader's read and tf.decode_raw
# both have their outputs pulled before the run, decode_raw after the read it reads (pull.py),
# so the executor sees only decode_raw's numbers.
def _pull_record(node, resources, evaluate, deadline):
    """FPullOutputs of reader_read: attr reader's next (key, value) from attr queue's files."""
    return node.attrs["reader"].next_record(node, resources, deadline)


def _pull_decoded(node, resources, evaluate, deadline):
    """FPullOutputs of decode_raw: attr func on its input's value (this run's record)."""
    return [node.attrs["func"](node, evaluate([Symbol([node.inputs[0]])])[0])]


(register_op("reader_read")
 .describe("The next record (key, value: strings) attr reader reads from the files named "
           "by attr queue, pulled before the run (ReaderBase.read).")
 .set_num_inputs(0).set_num_outputs(2)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [(), ()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["string", "string"]))
 .set_attr("FPullOutputs", _pull_record).set_attr("TPythonAttrs", ("reader", "queue"))
 .set_attr("FGradient", no_gradient))

(register_op("decode_raw")
 .describe("The bytes of the input string (a reader's record) as a vector of dtype attr "
           "out_type, pulled before the run (tf.decode_raw; attr func decodes).")
 .set_num_inputs(1)
 .set_attr("FInferShape", _declared_shape)
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, [attrs["out_type"]]))
 .set_attr("FPullOutputs", _pull_decoded).set_attr("TPythonAttrs", ("func",))
 .set_attr("FGradient", no_gradient))


def _shuffle_strings(node, inputs, resources):
    """FPythonCompute of shuffle_strings: input 0's slices in a new order, from a generator
    per node and session (seeded by attrs seed, seed2 when given, as random_shuffle's)."""
    generator = resources.get(node)
    if generator is None:
        seeds = [node.attrs.get("seed"), node.attrs.get("seed2")]
        generator = resources.setdefault(node, np.random.default_rng(
            [int(s) % 2**32 for s in seeds] if None not in seeds else None))
    value = np.asarray(inputs[0])
    return value if value.ndim == 0 else value[generator.permutation(len(value))]


(register_op("shuffle_strings")
 .describe("Input 0 (strings: no executor buffer holds them) with its slices along the "
           "first dimension in a random order, a new one each run, in Python "
           "(tf.train.string_input_producer's shuffle; attrs seed, seed2).")
 .set_num_inputs(1)
 .set_attr("FInferShape", _first_input_shape).set_attr("FInferType", _first_input_type)
 .set_attr("FPythonCompute", _shuffle_strings).set_attr("TSessionState", True)
 .set_attr("TRandom", True)
 .set_attr("FGradient", no_gradient))
