"""``tf.data.Iterator`` (TF 1.15's, graph mode): ``get_next()`` is a graph op whose outputs the
session pulls from the iterator before each run that needs them (op ``iterator_get_next``,
FPullOutputs: nnvm/attrs.py, session/pull.py); ``initializer`` is an op (``iterator_init``)
that starts it over a dataset, computing the tensors the dataset captured (placeholders fed in
that run's feed_dict).

An iterator's position lives in each session's resources (TF's resource manager), keyed by
the iterator: two sessions iterate on their own, and running the initializer again restarts.
"""
from __future__ import annotations

import threading

import numpy as np

from ...nnvm.errors import FailedPreconditionError, InvalidArgumentError, OutOfRangeError
from ...nnvm.symbol import NodeEntry, Symbol, create_op, current_context
from ...nnvm.tensor_shape import TensorShape
from ...ops import control  # noqa: F401 - registers iterator_get_next and iterator_init
from ..api import _tensor
from .functions import TracedFunction, program_resources
from .pipeline import Context
from .structure import (
    Spec,
    as_spec_structure,
    compatible,
    flatten,
    map_structure,
    pack,
    same_structure,
    spec_text,
)

__all__ = ["Iterator", "reduce_dataset"]

_HANDLES = "iterator handles"  # resources key: (_HANDLES, handle) -> the iterator it names
_NOT_INITIALIZED = ("GetNext() failed because the iterator has not been initialized. Ensure "
                    "that you have run the initializer operation for this iterator before "
                    "getting the next element.")


class Iterator:
    """Elements of a dataset, one per ``sess.run`` that needs ``get_next()``.

    Made by ``dataset.make_one_shot_iterator()``, ``dataset.make_initializable_iterator()`` or
    ``Iterator.from_structure(output_types, output_shapes)`` (then ``make_initializer(dataset)``
    per dataset of that structure, to switch between them)."""

    def __init__(self, specs, one_shot=None):
        self._specs, self._flat_specs = specs, flatten(specs)
        self._one_shot = one_shot  # the dataset a one-shot iterator starts over by itself
        self._initializer = None
        self._handle = None  # string_handle()'s value, made once

    @classmethod
    def one_shot(cls, dataset) -> Iterator:
        for symbol in dataset._captures():  # TF cannot capture them by value either
            placeholder = _placeholder_among(symbol)
            if placeholder is not None:
                raise ValueError(f"Cannot capture a placeholder (name:{placeholder.name}, "
                                 f"type:Placeholder) by value: a one-shot iterator cannot be "
                                 f"fed; use make_initializable_iterator()")
        return cls(dataset._specs, one_shot=dataset)

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None,
                       output_classes=None) -> Iterator:
        """An iterator of that element structure, not bound to a dataset: run
        ``make_initializer(dataset)`` to start it over one."""
        return Iterator(as_spec_structure(output_types, output_shapes))

    output_types = property(lambda self: map_structure(lambda s: s.dtype, self._specs),
                            doc="The element's structure of dtypes.")
    output_shapes = property(lambda self: map_structure(lambda s: s.shape, self._specs),
                             doc="The element's structure of static shapes.")
    output_classes = property(lambda self: map_structure(lambda s: Symbol, self._specs),
                              doc="The element's structure of component classes (tensors).")

    @property
    def initializer(self) -> Symbol:
        """The operation that (re)starts a ``make_initializable_iterator`` iterator."""
        if self._initializer is None:
            raise ValueError("The iterator does not have an initializer. This means it was "
                             "likely created using `tf.data.Dataset.make_one_shot_iterator()`"
                             " or `Iterator.from_structure()` (use make_initializer(dataset)). "
                             "For an initializable iterator, use "
                             "`tf.data.Dataset.make_initializable_iterator()` instead.")
        return self._initializer

    def make_initializer(self, dataset, name=None) -> Symbol:
        """An operation starting this iterator over ``dataset`` (of this iterator's structure),
        from its first element; placeholders the dataset captured are fed in its run."""
        if not compatible(dataset._specs, self._specs):
            raise TypeError(f"Expected output types and shapes {spec_text(self._specs)} but "
                            f"got dataset with {spec_text(dataset._specs)}")
        captures = dataset._captures()
        node = create_op("iterator_init", *captures, num_args=len(captures),
                         func=_Start(self, dataset, captures), name=name or "MakeIterator").node
        return Symbol([NodeEntry(node, 0)], is_operation=True)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None,
                           output_classes=None) -> Iterator:
        """A feedable iterator: each run pulls from the iterator whose ``string_handle()``
        value ``string_handle`` (a string placeholder, fed) holds in that run."""
        return _Feedable(as_spec_structure(output_types, output_shapes), string_handle)

    def get_next(self, name=None):
        """The next element, as tensors of the element's structure: an op that advances the
        iterator once per ``sess.run`` that needs it; past the end, that run raises
        ``tf.errors.OutOfRangeError`` (before anything ran: variables keep their values)."""
        return _pulled(self, self._specs, name or "IteratorGetNext", self._get_next_inputs())

    def _get_next_inputs(self) -> list:
        return []

    def next_values(self, node, resources, evaluate) -> list:
        """FPullOutputs of this iterator's get_next nodes: the next element, flat."""
        element = self._element(node, resources, evaluate)
        for index, (value, spec) in enumerate(zip(element, self._flat_specs)):
            if value.dtype != np.dtype(spec.dtype.as_numpy_dtype) or \
                    not spec.shape.is_compatible_with(value.shape):
                raise InvalidArgumentError(None, node.name, (
                    f"component {index} of the next element of {node.describe()} is "
                    f"{value.dtype}{list(value.shape)}, but the iterator gives {spec}"))
        return element

    def _element(self, node, resources, evaluate) -> tuple:
        running = resources.get(self)
        if running is None:
            if self._one_shot is None:
                raise FailedPreconditionError(None, node.name, _NOT_INITIALIZED)
            captures = self._one_shot._captures()
            values = evaluate(captures) if captures else []
            running = resources.setdefault(self, _Running(self._one_shot, captures, values))
        with program_resources(resources):  # the tables a map function looks up
            return running.next(node)

    def string_handle(self, name=None) -> Symbol:
        """A string tensor naming this iterator in the session that runs it, to feed to a
        ``from_string_handle`` iterator."""
        if self._handle is None:
            self._handle = f"tinyflow-iterator:{current_context().claim_name('Iterator')}"
        return create_op("iterator_string_handle", iterator=self,
                         name=name or "IteratorToStringHandle")

    def handle_in(self, resources) -> np.ndarray:
        """This iterator's handle, recorded in a session's ``resources`` as naming it."""
        resources[_HANDLES, self._handle.encode()] = self
        return np.array(self._handle.encode(), dtype=object)


class _Feedable(Iterator):
    """``Iterator.from_string_handle``'s: get_next pulls from the iterator whose handle the
    run's value of ``string_handle`` is."""

    def __init__(self, specs, string_handle):
        if not isinstance(string_handle, Symbol) or string_handle.dtype.name != "string":
            raise TypeError(f"Iterator.from_string_handle needs a string tensor, got "
                            f"{string_handle!r}")
        super().__init__(specs)
        self._string_handle = string_handle

    def _get_next_inputs(self) -> list:
        return [self._string_handle]

    def make_initializer(self, dataset, name=None):
        raise ValueError("a from_string_handle iterator pulls from the iterator its handle "
                         "names: initialise that one")

    def _element(self, node, resources, evaluate) -> tuple:
        handle = np.asarray(evaluate([self._string_handle])[0])[()]
        handle = handle.encode() if isinstance(handle, str) else handle
        target = resources.get((_HANDLES, handle))
        if target is None:
            raise InvalidArgumentError(None, node.name, (
                f"{node.describe()} was fed the string handle {handle!r}, which names no "
                f"iterator of this session: feed the value sess.run(iterator.string_handle()) "
                f"gave"))
        if not compatible(target._specs, self._specs):
            raise InvalidArgumentError(None, node.name, (
                f"{node.describe()} gives {spec_text(self._specs)}, but the iterator its "
                f"handle names gives {spec_text(target._specs)}"))
        return target._element(node, resources, evaluate)


def _pulled(puller, specs, name, inputs=()):
    """Tensors of the structure ``specs`` that ``puller.next_values`` gives before each run
    needing them (op ``iterator_get_next`` of ``inputs``), each of its spec's static shape, as
    a feed's."""
    flat = flatten(specs)
    shapes = tuple(None if s.shape.dims is None else tuple(d.value for d in s.shape.dims)
                   for s in flat)
    node = create_op("iterator_get_next", *inputs, num_args=len(inputs), iterator=puller,
                     shapes=shapes,
                     Touts=tuple(s.dtype.name for s in flat), name=name).outputs[0].node
    for index, spec in enumerate(flat):
        current_context().declared_shapes[NodeEntry(node, index)] = spec.shape
    return pack(specs, [Symbol([NodeEntry(node, i)]) for i in range(len(flat))])


def reduce_dataset(dataset, initial_state, reduce_func):
    """TF 1.15's ``Dataset.reduce``: ``reduce_func(state, element)`` traced on the state's
    specs, relaxed as TF relaxes them (a dim the function changes becomes unknown), and run
    over every element in each run that needs the result (:class:`_Reduction`)."""
    state = map_structure(_tensor, initial_state)
    specs = map_structure(lambda t: Spec(t.dtype, t.get_shape()), state)
    while True:
        function = TracedFunction(reduce_func, (specs, dataset._specs), "Dataset.reduce()")
        new = function.output_specs
        if not same_structure(specs, new):
            raise TypeError(f"The structure of the new state must match the initial state: "
                            f"expected {spec_text(specs)}, got {spec_text(new)}")
        for a, b in zip(flatten(specs), flatten(new)):
            if a.dtype != b.dtype:
                raise TypeError(f"The element types for the new state must match the initial "
                                f"state. Expected <dtype: '{a.dtype.name}'> but got <dtype: "
                                f"'{b.dtype.name}'>.")
        relaxed = pack(specs, [Spec(a.dtype, _relaxed(a.shape, b.shape))
                               for a, b in zip(flatten(specs), flatten(new))])
        if relaxed == specs:
            break
        specs = relaxed
    captures = flatten(state) + dataset._captures()
    return _pulled(_Reduction(dataset, function, captures, len(flatten(state))), specs,
                   "ReduceDataset")


def _relaxed(a, b) -> TensorShape:
    if a.ndims is None or a.ndims != b.ndims:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


class _Reduction:
    """Dataset.reduce's run-time side (the FPullOutputs of its node): the dataset iterated
    from its start on the captured tensors' values, the state (the first ``count`` of them)
    folded through ``function`` element by element."""

    def __init__(self, dataset, function, captures, count):
        self.dataset, self.function, self.captures, self.count = (dataset, function, captures,
                                                                  count)

    def next_values(self, node, resources, evaluate) -> list:
        values = [np.asarray(v) for v in evaluate(self.captures)]
        state, count = values[:self.count], self.count
        context = Context({s.outputs[0]: v for s, v in zip(self.captures[count:],
                                                            values[count:])})
        with program_resources(resources):
            for element in self.dataset._elements(context):
                state = self.function(list(state) + list(element))
        return state


class _Running:
    """An iterator's pipeline in one session: the elements of its dataset, one at a time."""

    def __init__(self, dataset, captures, values):
        context = Context({s.outputs[0]: np.asarray(v) for s, v in zip(captures, values)})
        self.elements = dataset._elements(context)
        self.lock = threading.Lock()  # runs pulling from two threads take turns

    def next(self, node) -> tuple:
        with self.lock:
            element = next(self.elements, None)
        if element is None:
            raise OutOfRangeError(None, node.name, f"End of sequence (of {node.describe()})")
        return element


class _Start:
    """An initializer's run-time side (FPythonCompute of iterator_init, with the session's
    resources): the iterator starts over its dataset, on the captured tensors' values."""

    def __init__(self, iterator, dataset, captures):
        self.iterator, self.dataset, self.captures = iterator, dataset, captures

    def __call__(self, node, inputs, resources):
        resources[self.iterator] = _Running(self.dataset, self.captures, inputs)
        return np.array(True)


def _placeholder_among(symbol):
    """A placeholder ``symbol`` depends on, or None."""
    seen, stack = set(), [e.node for e in symbol.outputs]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.op is None and node.kind == "placeholder":
            return node
        stack.extend(e.node for e in node.inputs)
    return None
