"""TF-1's queues: ``tf.FIFOQueue``, ``tf.RandomShuffleQueue``, ``tf.PaddingFIFOQueue`` and
``tf.PriorityQueue`` (TensorFlow 1.15's semantics).

A queue is a Python object in the graph; its elements live per session in the session's
``resources`` (TF's resource manager), so two sessions have queues of their own.  Its ops
(tinyflow/ops/queue.py): ``dequeue`` / ``dequeue_many`` / ``dequeue_up_to`` are pulled from
the queue before the run that needs them (FPullOutputs, session/pull.py), waiting until enough
elements are there; ``enqueue`` / ``enqueue_many``, ``close`` and ``size`` are Python ops run
after what they read (a QueueRunner's thread runs the enqueues: tinyflow/frontend/queue_runner.py).

Waits never hang: every wait wakes at least every 0.1 s (Ctrl-C reaches the main thread), ends
when the queue is closed (a dequeue then takes what is left, or raises ``OutOfRangeError``, an
enqueue raises ``CancelledError``) or when the session closes (``CancelledError``).
"""
from __future__ import annotations

import bisect
import threading
import time

import numpy as np

from ..nnvm.dtypes import as_dtype
from ..nnvm.errors import (
    CancelledError,
    DeadlineExceededError,
    InvalidArgumentError,
    OutOfRangeError,
)
from ..nnvm.symbol import NodeEntry, Symbol, create_op, current_context
from ..nnvm.tensor_shape import TensorShape
from ..ops import queue as queue_ops  # noqa: F401 - registers the queue ops
from .math_ops import convert_to_tensor

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]

_WAKE_S = 0.1  # a waiting run looks at the queue's state and Ctrl-C at least this often


class QueueBase:
    """Elements (tuples of tensors of ``dtypes``, of ``shapes`` when given) in a queue of
    ``capacity``; see :class:`FIFOQueue` and :class:`RandomShuffleQueue`."""

    _kind = "Queue"
    _min_after_dequeue = 0
    _shuffles = False  # a dequeue takes a random element
    _pads = False      # dequeue_many pads the elements to one shape (PaddingFIFOQueue)
    _by_priority = False  # kept in the order of component 0, an int64 (PriorityQueue)

    def __init__(self, capacity, dtypes, shapes=None, names=None, name="queue", seed=None):
        dtypes = list(dtypes) if isinstance(dtypes, (list, tuple)) else [dtypes]
        self._dtypes = [as_dtype(d) for d in dtypes]
        if shapes is not None:
            shapes = list(shapes) if isinstance(shapes, (list, tuple)) and (
                not shapes or isinstance(shapes[0], (list, tuple, TensorShape))) else [shapes]
            if len(shapes) != len(self._dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [TensorShape(None) for _ in self._dtypes]
        if names is not None and len(names) != len(self._dtypes):
            raise ValueError("Queue names must have the same length as dtypes")
        self._names, self._capacity = names, int(capacity)
        self._name = current_context().unique_name(name)
        self._base = self._name.rsplit("/", 1)[-1]  # its ops' names, under the current scope
        self._seeds = current_context().op_seeds(seed)

    name = property(lambda self: self._name, doc="The queue's name.")
    dtypes = property(lambda self: list(self._dtypes), doc="The components' dtypes.")
    shapes = property(lambda self: list(self._shapes), doc="The components' static shapes.")
    names = property(lambda self: self._names, doc="The components' names, or None.")

    # -- the TF-1 methods: graph ops --------------------------------------------------------
    def enqueue(self, vals, name=None) -> Symbol:
        """An operation putting ``vals`` (one tensor per component, or a dict by name) into the
        queue as one element, waiting while the queue is full."""
        return self._enqueue(vals, False, name or f"{self._base}_enqueue")

    def enqueue_many(self, vals, name=None) -> Symbol:
        """An operation putting the slices of ``vals`` along their first dimension into the
        queue, one element each."""
        return self._enqueue(vals, True, name or f"{self._base}_EnqueueMany")

    def dequeue(self, name=None):
        """The next element (a tensor per component, a list, or a dict with ``names``), taken
        out of the queue once per run that needs it; past the end of a closed queue the run
        raises ``tf.errors.OutOfRangeError``."""
        return self._dequeue(None, False, name or f"{self._base}_Dequeue")

    def dequeue_many(self, n, name=None):
        """``n`` elements stacked along a new first dimension (``OutOfRangeError`` when the
        queue is closed with fewer)."""
        return self._dequeue(int(n), False, name or f"{self._base}_DequeueMany")

    def dequeue_up_to(self, n, name=None):
        """As :meth:`dequeue_many`, but a closed queue with fewer than ``n`` elements gives
        what it has (``OutOfRangeError`` only when it is empty)."""
        return self._dequeue(int(n), True, name or f"{self._base}_DequeueUpTo")

    def close(self, cancel_pending_enqueues=False, name=None) -> Symbol:
        """An operation closing the queue: later enqueues fail, dequeues take what is left;
        with ``cancel_pending_enqueues`` the enqueues waiting for room fail too."""
        node = create_op("queue_close", queue=self, cancel=bool(cancel_pending_enqueues),
                         name=name or f"{self._base}_Close").node
        return Symbol([NodeEntry(node, 0)], is_operation=True)

    def size(self, name=None) -> Symbol:
        """The number of elements in the queue (int32)."""
        return create_op("queue_size", queue=self, name=name or f"{self._base}_Size")

    def _enqueue(self, vals, many, name) -> Symbol:
        if isinstance(vals, dict):
            if self._names is None:
                raise ValueError("Queue must have names to enqueue a dictionary")
            vals = [vals[n] for n in self._names]
        vals = list(vals) if isinstance(vals, (list, tuple)) else [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError(f"{self._name} has {len(self._dtypes)} components, but "
                             f"{len(vals)} values were given to enqueue")
        tensors = [convert_to_tensor(v, dtype=d) for v, d in zip(vals, self._dtypes)]
        for tensor, shape in zip(tensors, self._shapes):
            given = tensor.shape[1:] if many and tensor.shape.ndims else tensor.shape
            if not given.is_compatible_with(shape):  # TF's message
                raise ValueError(f"Shapes {_text(given)} and {_text(shape)} are incompatible")
        node = create_op("queue_enqueue", *tensors, num_args=len(tensors), queue=self,
                         many=many, name=name).node
        return Symbol([NodeEntry(node, 0)], is_operation=True)

    def _dequeue(self, count, up_to, name):
        shapes = []
        for shape in self._shapes:
            dims = None if shape.dims is None else [d.value for d in shape.dims]
            if count is not None:
                dims = None if dims is None else [None if up_to else count] + dims
            shapes.append(None if dims is None else tuple(dims))
        node = create_op("queue_dequeue", queue=self, count=count, up_to=up_to,
                         shapes=tuple(shapes), Touts=tuple(d.name for d in self._dtypes),
                         name=name).outputs[0].node
        graph = current_context()
        outputs = []
        for index, shape in enumerate(shapes):  # its static shape, as a feed's
            graph.declared_shapes[NodeEntry(node, index)] = TensorShape(
                None if shape is None else list(shape))
            outputs.append(Symbol([NodeEntry(node, index)]))
        if self._names is not None:
            return dict(zip(self._names, outputs))
        return outputs[0] if len(outputs) == 1 else outputs

    # -- run time: the ops' Python side (ops/queue.py) -----------------------------------
    def _state(self, resources) -> _Contents:
        state = resources.get(self)
        return state if state is not None else resources.setdefault(self, _Contents(self))

    def take(self, node, resources, deadline=None) -> list:
        """FPullOutputs of queue_dequeue: attr count elements, one array per component."""
        count = node.attrs.get("count")
        if count is not None and not self._pads and not all(
                s.is_fully_defined() for s in self._shapes):
            raise InvalidArgumentError(None, node.name, (  # TF's message
                f"{node.describe()}: {self._kind}'s DequeueMany and DequeueUpTo require the "
                f"components to have specified shapes."))
        elements = self._state(resources).take(node, 1 if count is None else count,
                                               node.attrs.get("up_to", False), deadline)
        if count is None:
            return list(elements[0])
        return [self._stacked([e[i] for e in elements], d) if elements
                else np.zeros((0,), dtype=d.as_numpy_dtype) for i, d in enumerate(self._dtypes)]

    def _stacked(self, values: list, dtype) -> np.ndarray:
        """One component of the elements a dequeue_many took, stacked; a PaddingFIFOQueue's
        padded first to the largest of each dim (zeros, empty strings)."""
        if not self._pads:
            return np.stack(values)
        dims = np.max([v.shape for v in values], axis=0) if values[0].ndim else ()
        out = np.full((len(values), *dims), b"" if dtype.name == "string" else 0,
                      dtype=dtype.as_numpy_dtype)
        for row, value in zip(out, values):
            row[tuple(slice(0, d) for d in value.shape)] = value
        return out

    def take_one(self, node, resources, deadline=None) -> tuple:
        """One element (a tuple of arrays), for an op reading the queue itself (a reader)."""
        return self._state(resources).take(node, 1, False, deadline)[0]

    def queue_enqueue(self, node, inputs, resources):
        """FPythonCompute of queue_enqueue: the inputs as one element, or their slices."""
        values = [np.asarray(v, dtype=d.as_numpy_dtype) for v, d in zip(inputs, self._dtypes)]
        if node.attrs["many"]:
            if any(v.ndim == 0 for v in values) or len({len(v) for v in values}) > 1:
                raise InvalidArgumentError(None, node.name, (
                    f"{node.describe()}: enqueue_many's components must share a first "
                    f"dimension, got shapes {[list(v.shape) for v in values]}"))
            elements = [tuple(np.array(v[i], dtype=v.dtype) for v in values)
                        for i in range(len(values[0]))]
        else:
            elements = [tuple(values)]
        for element in elements[:1]:
            for index, (value, shape) in enumerate(zip(element, self._shapes)):
                if not shape.is_compatible_with(value.shape):
                    raise InvalidArgumentError(None, node.name, (
                        f"Shape mismatch in tuple component {index}. Expected "
                        f"{shape.as_list()}, got {list(value.shape)}"))
        self._state(resources).put(node, elements)
        return np.array(True)

    def queue_close(self, node, inputs, resources):
        """FPythonCompute of queue_close."""
        self._state(resources).close(node.attrs["cancel"])
        return np.array(True)

    def queue_size(self, node, inputs, resources):
        """FPythonCompute of queue_size."""
        return np.array(self._state(resources).size(), dtype=np.int32)


def _text(shape) -> str:
    """TF 1.15's TensorShape text: ``(?, 2)``, ``(3,)``, ``<unknown>``."""
    if shape.dims is None:
        return "<unknown>"
    dims = ["?" if d.value is None else str(d.value) for d in shape.dims]
    return f"({', '.join(dims)}{',' if len(dims) == 1 else ''})"


class FIFOQueue(QueueBase):
    """``tf.FIFOQueue(capacity, dtypes, shapes=None, names=None, shared_name=None,
    name="fifo_queue")``: elements come out in the order they went in."""

    _kind = "FIFOQueue"

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):
        super().__init__(capacity, dtypes, shapes, names, name)


class RandomShuffleQueue(QueueBase):
    """``tf.RandomShuffleQueue(capacity, min_after_dequeue, dtypes, shapes=None, names=None,
    seed=None, shared_name=None, name="random_shuffle_queue")``: a dequeue takes a random
    element, and waits until more than ``min_after_dequeue`` are left after it (unless the
    queue is closed); ``seed`` (with the graph's) repeats the order in each new session."""

    _kind = "RandomShuffleQueue"
    _shuffles = True

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None,
                 shared_name=None, name="random_shuffle_queue"):
        super().__init__(capacity, dtypes, shapes, names, name, seed)
        self._min_after_dequeue = int(min_after_dequeue)


class PaddingFIFOQueue(QueueBase):
    """``tf.PaddingFIFOQueue(capacity, dtypes, shapes, names=None, shared_name=None,
    name="padding_fifo_queue")``: a FIFO queue whose ``shapes`` (of known ranks) may leave
    dims unknown (None); ``dequeue_many`` / ``dequeue_up_to`` pad each component to the
    largest of each dim among the elements taken, with zeros (strings: empty), as TF's."""

    _kind = "PaddingFIFOQueue"
    _pads = True

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):
        shapes = list(shapes) if isinstance(shapes, (list, tuple)) else [shapes]
        if any(shape is None or TensorShape(shape).dims is None for shape in shapes):
            raise ValueError("When providing partial shapes, a list of shapes must be "
                             "provided.")
        super().__init__(capacity, dtypes, shapes, names, name)


class PriorityQueue(QueueBase):
    """``tf.PriorityQueue(capacity, types, shapes, names=None, shared_name=None,
    name="priority_queue")``: each element's first component is its int64 priority (a
    scalar, before the ``types`` components); dequeues take the lowest priority first
    (equal priorities in the order they went in)."""

    _kind = "PriorityQueue"
    _by_priority = True

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None,
                 name="priority_queue"):
        if shapes is None:  # TF's: the op's shapes attr is required
            raise TypeError("Expected list for 'shapes' argument to 'priority_queue_v2' Op, "
                            "not None.")
        if names is not None:
            raise ValueError("tf.PriorityQueue's names= is not supported by TinyFlow")
        types = list(types) if isinstance(types, (list, tuple)) else [types]
        shapes = list(shapes) if isinstance(shapes, (list, tuple)) and (
            not shapes or isinstance(shapes[0], (list, tuple, TensorShape))) else [shapes]
        super().__init__(capacity, ["int64", *types], [[], *shapes], None, name)


class _Contents:
    """One queue's elements in one session, and its waits."""

    def __init__(self, queue):
        self.queue, self.elements = queue, []
        self.closed = self.cancelled = self.session_gone = False
        self.changed = threading.Condition()
        seeds = queue._seeds
        self.random = (np.random.default_rng(list(seeds)) if seeds[0] is not None
                       else np.random.default_rng())

    def session_closed(self) -> None:
        """The session closed: every wait ends (VariableStore.clear calls it)."""
        with self.changed:
            self.session_gone = True
            self.changed.notify_all()

    def _wait(self, node, ready, deadline=None) -> None:
        while not ready():
            if self.session_gone:
                raise CancelledError(None, node.name, f"{self._label()}: the session closed")
            if deadline is not None and time.monotonic() >= deadline:
                raise DeadlineExceededError(None, node.name, (
                    f"Timed out waiting for {node.describe()} (the run's timeout_in_ms)"))
            self.changed.wait(_WAKE_S)

    def _label(self) -> str:
        return f"{self.queue._kind} '{self.queue.name}'"

    def put(self, node, elements) -> None:
        with self.changed:
            if self.closed:
                raise CancelledError(None, node.name, f"{self._label()} is closed.")
            for element in elements:  # begun before a close: waits for room, unless cancelled
                self._wait(node, lambda: self.cancelled or len(self.elements) <
                           self.queue._capacity)
                if self.cancelled:
                    raise CancelledError(None, node.name, f"{self._label()} is closed.")
                if self.queue._by_priority:  # after the elements of its priority or less
                    bisect.insort(self.elements, element, key=lambda e: int(e[0]))
                else:
                    self.elements.append(element)
                self.changed.notify_all()

    def take(self, node, count, up_to, deadline) -> list:
        keep = self.queue._min_after_dequeue
        with self.changed:
            self._wait(node, lambda: self.closed or len(self.elements) >= count + keep,
                       deadline)
            if len(self.elements) < count and not (up_to and self.elements):
                raise OutOfRangeError(None, node.name, (
                    f"{self._label()} is closed and has insufficient elements (requested "
                    f"{count}, current size {len(self.elements)})"))
            count = min(count, len(self.elements))
            if self.queue._shuffles:
                taken = [self._take_random() for _ in range(count)]
            else:
                taken, self.elements[:count] = self.elements[:count], []
            self.changed.notify_all()
            return taken

    def _take_random(self):
        index = int(self.random.integers(len(self.elements)))
        self.elements[index], self.elements[-1] = self.elements[-1], self.elements[index]
        return self.elements.pop()

    def close(self, cancel) -> None:
        with self.changed:
            self.closed = True
            self.cancelled = self.cancelled or cancel
            self.changed.notify_all()

    def size(self) -> int:
        with self.changed:
            return len(self.elements)
