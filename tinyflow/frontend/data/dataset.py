"""``tf.data.Dataset`` (TensorFlow 1.15's DatasetV1): sources, transformations, iterators.

A dataset is a description: its element's structure of :class:`~.structure.Spec` and how to
produce elements (``_elements(context)``, a Python generator of flat tuples of numpy arrays).
Nothing runs until an iterator made from it is initialised in a session (see :mod:`.iterator`):
the tensors the dataset captured (a placeholder in ``from_tensor_slices``) are computed then,
and each ``sess.run`` that needs ``get_next()`` pulls one element.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from ...nnvm.errors import InvalidArgumentError
from ...nnvm.symbol import Symbol, _user_site, current_context
from ...nnvm.tensor_shape import TensorShape
from ...nnvm.variables import _inferred_dtype
from .. import io_ops
from ..api import _holds_tensors, _tensor
from ..dtypes import as_dtype
from ..dtypes import bool as tf_bool
from ..unsupported import unsupported
from . import pipeline
from .functions import TracedFunction
from .iterator import Iterator, reduce_dataset
from .options import Options, merge_options
from .structure import Spec, as_spec_structure, flatten, map_structure, pack, shape_of

__all__ = ["Dataset"]


class Dataset:
    """A sequence of elements, each a tensor or a tuple / dict of them (TF 1.15's
    ``tf.data.Dataset``).  Made by the static methods (``from_tensor_slices``, ``range``...) and
    transformed by the others, each returning a new dataset."""

    _kind = "Dataset"
    _of_datasets = False  # elements that are datasets (Dataset.window's)
    _reads_windows = False  # a transformation that takes such elements

    def __init__(self, specs, inputs=(), captures=()):
        self._specs, self._inputs, self._own_captures = specs, tuple(inputs), list(captures)
        self._what = f"{self._kind} (created at {_user_site()})"
        windows = [d for d in self._inputs if d._of_datasets]
        if windows and not self._reads_windows:
            raise TypeError(f"{windows[0]._what}: {_READ_BY}")

    # -- what an element is ----------------------------------------------------------------
    @property
    def output_types(self):
        """The element's structure of dtypes."""
        return map_structure(lambda s: s.dtype, self._specs)

    @property
    def output_shapes(self):
        """The element's structure of static shapes (TensorShape)."""
        return map_structure(lambda s: s.shape, self._specs)

    @property
    def output_classes(self):
        """The element's structure of component classes (every one a tensor)."""
        return map_structure(lambda s: Symbol, self._specs)

    def _captures(self) -> list:
        """The tensors this dataset and those it reads captured, each once."""
        found = {}
        for dataset in (self, *self._inputs):
            for symbol in (dataset._own_captures if dataset is self else dataset._captures()):
                found.setdefault(symbol.outputs[0], symbol)
        return list(found.values())

    def _elements(self, context):
        raise NotImplementedError

    # -- sources -----------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors) -> Dataset:
        """One element per row of ``tensors`` (a tensor, array, or tuple / dict of them, all
        with the same first dimension)."""
        return _Slices(tensors, slices=True)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None) -> Dataset:
        """The names of the files ``file_pattern`` (a glob, a list of them or a string tensor)
        matches when the iterator starts (``tf.io.matching_files``), sorted, then shuffled
        unless ``shuffle=False`` (None: shuffled, as TF 1.15's) with ``seed``; no match is
        TF's ``InvalidArgumentError`` naming the patterns."""
        names = _ListFiles(file_pattern)
        return names if shuffle is False else _Shuffle(names, sys.maxsize, seed, None)

    @staticmethod
    def from_tensors(tensors) -> Dataset:
        """One element: ``tensors`` itself."""
        return _Slices(tensors, slices=False)

    @staticmethod
    def range(*args, output_type="int64") -> Dataset:
        """``start, stop, step`` as Python's ``range``, int64 elements."""
        return _Range(args, as_dtype(output_type))

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None) -> Dataset:
        """The elements ``generator(*args)`` yields, each converted to ``output_types`` and
        checked against ``output_shapes``; a new call of ``generator`` per iteration."""
        return _Generator(generator, output_types, output_shapes, args)

    @staticmethod
    def zip(datasets) -> Dataset:
        """Elements of a tuple / dict of datasets side by side, until the shortest ends."""
        return _Zip(datasets)

    # -- transformations ---------------------------------------------------------------------
    def batch(self, batch_size, drop_remainder=False) -> Dataset:
        """``batch_size`` consecutive elements stacked; the last batch may be smaller, unless
        ``drop_remainder``."""
        return _Batch(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False) -> Dataset:
        """As :meth:`batch`, each component padded to ``padded_shapes`` (None or -1 in one: the
        batch's largest size) with ``padding_values`` (default 0)."""
        return _PaddedBatch(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None) -> Dataset:
        """Elements in random order, drawn from a buffer of ``buffer_size``; the seeds follow
        TF's op-seed rule (``tf.set_random_seed``), each iteration its own order unless
        ``reshuffle_each_iteration=False``."""
        return _Shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None) -> Dataset:
        """The elements ``count`` times over (None or -1: forever)."""
        return _Repeat(self, count)

    def map(self, map_func, num_parallel_calls=None) -> Dataset:
        """``map_func`` (TF ops, traced once) on each element."""
        return _Map(self, map_func)

    def flat_map(self, map_func) -> Dataset:
        """The elements of the dataset ``map_func`` (traced once) makes of each element, the
        datasets one after another."""
        return _Interleave(self, map_func, 1, 1, "flat_map")

    def interleave(self, map_func, cycle_length=-1, block_length=1,
                   num_parallel_calls=None) -> Dataset:
        """The datasets ``map_func`` makes of ``cycle_length`` elements at a time (AUTOTUNE,
        -1: the host's cores, as TF's), ``block_length`` elements from each in turn; one that
        ends gives its place to the next element's (TF's InterleaveDataset order)."""
        return _Interleave(self, map_func, cycle_length, block_length, "interleave")

    def filter(self, predicate) -> Dataset:
        """The elements for which ``predicate`` (TF ops giving a scalar bool) is true."""
        return _Filter(self, predicate)

    def take(self, count) -> Dataset:
        """The first ``count`` elements (-1: all)."""
        return _Take(self, count)

    def skip(self, count) -> Dataset:
        """All but the first ``count`` elements (-1: none)."""
        return _Skip(self, count)

    def enumerate(self, start=0) -> Dataset:
        """``(index, element)`` pairs, the index an int64 counting from ``start``."""
        return _Enumerate(self, start)

    def shard(self, num_shards, index) -> Dataset:
        """Every ``num_shards``-th element from the ``index``-th (one worker's share)."""
        return _Shard(self, num_shards, index)

    def unbatch(self) -> Dataset:
        """The rows of each element as elements (the inverse of :meth:`batch`)."""
        return _Unbatch(self)

    def take_while(self, predicate) -> Dataset:
        """The elements up to the first for which ``predicate`` is false."""
        return _Filter(self, predicate, until=True)

    def unique(self) -> Dataset:
        """Each distinct element once, as first seen (int32, int64 or string elements)."""
        return _Unique(self)

    def prefetch(self, buffer_size) -> Dataset:
        """The same elements (TinyFlow pulls one at a time; no background thread)."""
        _integer(buffer_size, "prefetch", "buffer_size")
        return self

    def cache(self, filename="") -> Dataset:
        """The same elements, kept in memory by the first full iteration and replayed by the
        next ones (only ``filename=""``: the in-memory cache)."""
        if filename:
            raise ValueError("Dataset.cache(filename) to a file is not supported by TinyFlow: "
                             "use cache() (in memory)")
        return _Cache(self)

    def concatenate(self, dataset) -> Dataset:
        """This dataset's elements, then ``dataset``'s (of the same structure and dtypes)."""
        return _Concatenate(self, dataset)

    def reduce(self, initial_state, reduce_func):
        """``reduce_func(state, element)`` over the elements, from ``initial_state``: tensors of
        the state's structure holding the last state, the whole dataset iterated from its start
        in each run that needs them (TF 1.15's ``Dataset.reduce``, op ``ReduceDataset``)."""
        return reduce_dataset(self, initial_state, reduce_func)

    def window(self, size, shift=None, stride=1, drop_remainder=False) -> Dataset:
        """A dataset of windows, each a dataset (a tuple / dict of them for a tuple / dict
        element) of ``size`` elements ``stride`` apart, one starting every ``shift`` (default
        ``size``) elements; the last ones smaller unless ``drop_remainder``.  Read it with
        ``flat_map`` or ``interleave``: ``.flat_map(lambda w: w.batch(size))``."""
        return _Windows(self, size, shift, stride, drop_remainder)

    def with_options(self, options) -> Dataset:
        """The same elements, with ``options`` (a ``tf.data.Options``, merged with those of
        this dataset: a ValueError where both set one option differently, as TF 1.15's).
        None of them has an effect in TinyFlow (:mod:`.options` says why)."""
        return _WithOptions(self, options)

    def options(self) -> Options:
        """The options of this dataset and of those it reads, merged."""
        return merge_options(Options(), *[d.options() for d in self._inputs])

    def apply(self, transformation_func) -> Dataset:
        """``transformation_func(self)``."""
        return transformation_func(self)

    # -- iterators ---------------------------------------------------------------------------
    def make_one_shot_iterator(self) -> Iterator:
        """An iterator that starts by itself at its first ``get_next`` in a session."""
        return Iterator.one_shot(self)

    def make_initializable_iterator(self, shared_name=None) -> Iterator:
        """An iterator started (and restarted) by running its ``initializer``."""
        iterator = Iterator(self._specs)
        iterator._initializer = iterator.make_initializer(self)
        return iterator

    def __iter__(self):
        raise RuntimeError("__iter__() is only supported when eager execution is enabled: "
                           "make an iterator (make_one_shot_iterator) and run its get_next()")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise unsupported("tf.data.Dataset.", "tinyflow.data.Dataset", name, {
            "tf.data.Dataset.": [n for n in dir(Dataset) if not n.startswith("_")]})

    def __repr__(self):
        return f"<{self._kind} shapes: {self.output_shapes}, types: {self.output_types}>"


def _integer(value, method, argument, low=None) -> int | Symbol:
    """A dataset's int argument: a Python int, or a scalar int tensor (captured)."""
    if isinstance(value, Symbol):
        if not value.dtype.is_integer:
            raise TypeError(f"Dataset.{method}: {argument} must be an integer tensor, got "
                            f"{value.dtype.name}")
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"Dataset.{method}: {argument} must be an int, got {value!r}")
    if low is not None and value < low:
        raise ValueError(f"Dataset.{method}: {argument} must be at least {low}, got {value}")
    return int(value)


class _Slices(Dataset):
    """from_tensor_slices / from_tensors: numpy values kept here, tensors captured."""

    def __init__(self, tensors, slices):
        self._kind = "TensorSliceDataset" if slices else "TensorDataset"
        if isinstance(tensors, list):  # a list is one tensor, as TF converts it
            tensors = _tensor(tensors) if _holds_tensors(tensors) else _array(tensors,
                                                                              self._kind)
        self._values = [v if isinstance(v, Symbol) else _array(v, self._kind)
                        for v in flatten(tensors)]
        self._slices = slices
        specs = [self._spec(v) for v in self._values]
        if slices:
            rows = {s.shape[0].value for s in specs if s.shape.dims}
            if any(s.shape.ndims == 0 for s in specs):
                raise ValueError(f"{self._kind}: every component needs a first dimension to "
                                 f"slice, got shapes {[str(s.shape) for s in specs]}")
            if len(rows - {None}) > 1:
                raise ValueError(f"{self._kind}: dimension 0 differs between components: "
                                 f"{sorted(rows - {None})}")
            specs = [Spec(s.dtype, TensorShape(s.shape.dims[1:] if s.shape.dims is not None
                                               else None)) for s in specs]
        super().__init__(pack(tensors, specs),
                         captures=[v for v in self._values if isinstance(v, Symbol)])

    @staticmethod
    def _spec(value):
        if isinstance(value, Symbol):
            return Spec(value.dtype, value.get_shape())
        return Spec(as_dtype(value.dtype), TensorShape(list(value.shape)))

    def _elements(self, context):
        if not self._slices:
            yield tuple(context.value(v) if isinstance(v, Symbol) else v for v in self._values)
            return
        yield from self._row_blocks(context, 1, squeeze=True)

    def _row_blocks(self, context, size, squeeze=False):
        """Rows ``size`` at a time, as views (``batch`` over slices takes them whole); one row
        without its first dimension when ``squeeze``."""
        values = [context.value(v) if isinstance(v, Symbol) else v for v in self._values]
        rows = {v.shape[0] for v in values}
        if len(rows) > 1:
            raise InvalidArgumentError(None, None, (
                f"{self._what}: dimension 0 differs between components: {sorted(rows)}"))
        for start in range(0, rows.pop(), size):
            # v[start, ...]: a 0-d array, also of strings (v[start] would be bytes)
            yield tuple(v[start, ...] if squeeze else v[start:start + size] for v in values)


class _ListFiles(_Slices):
    """``Dataset.list_files``: the slices of ``tf.io.matching_files(file_pattern)``, checked
    not to be empty when the iterator starts (TF's ``assert_not_empty``), shuffled over a
    buffer holding every name (TF's ``max(count, 1)``)."""

    def __init__(self, file_pattern):
        self._patterns = io_ops._string(file_pattern, "Dataset.list_files", (0, 1))
        super().__init__(io_ops.matching_files(self._patterns), slices=True)
        self._own_captures.append(self._patterns)

    def _row_blocks(self, context, size, squeeze=False):
        if not len(context.value(self._values[0])):
            patterns = context.value(self._patterns).reshape(-1).tolist()
            raise InvalidArgumentError(None, None, (
                f"assertion failed: [No files matched pattern: "
                f"{', '.join(os.fsdecode(p) for p in patterns)}] ({self._what})"))
        yield from super()._row_blocks(context, size, squeeze)


def _array(value, kind) -> np.ndarray:
    """A numpy component as TF converts it (Python floats float32, ints int32; strings an
    object array of bytes, a str as its UTF-8 bytes)."""
    dtype = _inferred_dtype(value)
    if dtype.name == "string":
        return pipeline.as_strings(value, f"{kind}: a string component")
    if not (dtype.is_floating or dtype.is_integer or dtype.is_bool):
        raise TypeError(f"{kind}: TinyFlow's tf.data takes numeric and string tensors, got "
                        f"{value!r} ({dtype.name})")
    return np.array(value, dtype=dtype.as_numpy_dtype)  # a copy: later writes do not reach it


class _Range(Dataset):
    _kind = "RangeDataset"

    def __init__(self, args, dtype):
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Dataset.range takes 1 to 3 arguments, got {len(args)}")
        self._args = [_integer(a, "range", "argument") for a in args]  # tensors: captured
        if not any(isinstance(a, Symbol) for a in self._args):
            range(*self._args)  # Python's checks now (a step of 0)
        self._dtype = dtype
        super().__init__(Spec(dtype, TensorShape([])),
                         captures=[a for a in self._args if isinstance(a, Symbol)])

    def _elements(self, context):
        try:
            values = range(*[context.integer(a) for a in self._args])
        except ValueError as err:  # a step of 0 found when the iterator starts
            raise InvalidArgumentError(None, None, f"{self._what}: {err}") from None
        for value in values:
            yield (np.array(value, dtype=self._dtype.as_numpy_dtype),)


class _Generator(Dataset):
    _kind = "GeneratorDataset"

    def __init__(self, generator, output_types, output_shapes, args):
        if not callable(generator):
            raise TypeError(f"Dataset.from_generator: generator must be callable, got "
                            f"{type(generator).__name__}")
        self._generator, self._args = generator, tuple(args or ())
        super().__init__(as_spec_structure(output_types, output_shapes))
        self._flat_specs = flatten(self._specs)

    def _elements(self, context):
        for position, element in enumerate(self._generator(*self._args)):
            if isinstance(element, list) and isinstance(self._specs, tuple):
                element = tuple(element)
            yield pipeline.check_element(tuple(flatten(element)), self._flat_specs,
                                         self._what, position)


class _Zip(Dataset):
    _kind = "ZipDataset"

    def __init__(self, datasets):
        datasets = tuple(datasets) if isinstance(datasets, list) else datasets
        self._datasets = flatten(datasets)
        if not all(isinstance(d, Dataset) for d in self._datasets):
            raise TypeError(f"Dataset.zip takes a tuple or dict of datasets, got {datasets!r}")
        super().__init__(pack(datasets, [d._specs for d in self._datasets]), self._datasets)

    def _elements(self, context):
        for parts in zip(*[d._elements(context) for d in self._datasets]):
            yield tuple(v for part in parts for v in part)


class _Concatenate(Dataset):
    _kind = "ConcatenateDataset"

    def __init__(self, first, second):
        if map_structure(lambda s: s.dtype, first._specs) != map_structure(
                lambda s: s.dtype, second._specs):
            raise TypeError(f"Dataset.concatenate: the datasets' types differ: "
                            f"{first.output_types} and {second.output_types}")
        specs = [Spec(a.dtype, a.shape if a.shape == b.shape else _common(a.shape, b.shape))
                 for a, b in zip(flatten(first._specs), flatten(second._specs))]
        super().__init__(pack(first._specs, specs), (first, second))

    def _elements(self, context):
        for dataset in self._inputs:
            yield from dataset._elements(context)


def _common(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape both fit (TF's most_specific_compatible_shape)."""
    if a.dims is None or b.dims is None or len(a.dims) != len(b.dims):
        return TensorShape(None)
    return TensorShape([x.value if x.value == y.value else None for x, y in zip(a.dims, b.dims)])


class _Batch(Dataset):
    _kind = "BatchDataset"

    def __init__(self, dataset, batch_size, drop_remainder):
        # a size below 1 is TF's InvalidArgumentError when the iterator runs, not at build
        self._size = _integer(batch_size, "batch", "batch_size")
        self._drop = bool(drop_remainder)
        size = self._size if self._drop and isinstance(self._size, int) else None
        super().__init__(self._batched_specs(dataset, size), (dataset,),
                         [self._size] if isinstance(self._size, Symbol) else [])

    @staticmethod
    def _batched_specs(dataset, size):
        return map_structure(lambda s: Spec(s.dtype, TensorShape(
            [size] + s.shape.dims if s.shape.dims is not None else None)), dataset._specs)

    def _checked_size(self, context) -> int:
        size = context.integer(self._size)
        if size < 1:
            raise InvalidArgumentError(None, None, f"{self._what}: Batch size must be greater "
                                                   f"than zero, got {size}")
        return size

    def _batches(self, context):
        size, batch = self._checked_size(context), []
        for element in self._inputs[0]._elements(context):
            batch.append(element)
            if len(batch) == size:
                yield batch
                batch = []
        if batch and not self._drop:
            yield batch

    def _elements(self, context):
        source = self._inputs[0]
        if isinstance(source, _Slices) and source._slices:  # whole rows: nothing to stack
            size = self._checked_size(context)
            for block in source._row_blocks(context, size):
                if len(block[0]) == size or not self._drop:
                    yield block
            return
        for batch in self._batches(context):
            yield pipeline.stack_batch(batch, self._what)


class _PaddedBatch(_Batch):
    _kind = "PaddedBatchDataset"

    def __init__(self, dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        flat = flatten(dataset._specs)
        shapes = ([s.shape for s in flat] if padded_shapes is None else
                  [shape_of(s) for s in _per_component(padded_shapes, dataset._specs,
                                                       "padded_shapes")])
        for spec, shape in zip(flat, shapes):
            if shape.dims is None or spec.shape.dims is None:
                raise ValueError(f"{self._kind}: padded_shapes needs a known rank per "
                                 f"component, got {shape} for an element of shape {spec.shape}")
            if not all(p.value is None or e.value is None or e.value <= p.value
                       for p, e in zip(shape.dims, spec.shape.dims)) or len(shape) != len(
                    spec.shape):
                raise ValueError(f"{self._kind}: the padded shape {shape} is not compatible "
                                 f"with the element's shape {spec.shape}")
        self._padded = [tuple(d.value for d in s.dims) for s in shapes]
        values = ([b"" if s.dtype.name == "string" else 0 for s in flat]  # TF's defaults
                  if padding_values is None else
                  _per_component(padding_values, dataset._specs, "padding_values"))
        self._padding = [_padding_value(v, s) for v, s in zip(values, flat)]
        super().__init__(dataset, batch_size, drop_remainder)
        self._own_captures += [v for v in self._padding if isinstance(v, Symbol)]
        size = self._size if self._drop and isinstance(self._size, int) else None
        self._specs = pack(dataset._specs, [Spec(s.dtype, TensorShape([size] + list(p)))
                                            for s, p in zip(flat, self._padded)])

    def _elements(self, context):
        padding = [context.value(v) if isinstance(v, Symbol) else v for v in self._padding]
        for batch in self._batches(context):
            yield pipeline.pad_batch(batch, self._padded, padding, self._what)


def _padding_value(value, spec):
    """A padding value of ``spec``'s dtype (a tensor captured), TF's TypeError otherwise."""
    dtype = value.dtype if isinstance(value, Symbol) else _inferred_dtype(value)
    if (dtype.name == "string") != (spec.dtype.name == "string"):
        raise TypeError(f"Invalid `padding_values`. `padding_values` values type {dtype} does "
                        f"not match type {spec.dtype} of the corresponding input component.")
    if isinstance(value, Symbol):
        return value
    if dtype.name == "string":
        return pipeline.as_strings(value, "padding_values")
    return np.asarray(value, spec.dtype.as_numpy_dtype)


def _per_component(values, specs, argument) -> list:
    """``values`` given per component of ``specs`` (a shape is a list, not structure)."""
    if not isinstance(specs, (tuple, dict)):
        return [values]
    if isinstance(specs, dict) != isinstance(values, dict) or len(values) != len(specs):
        raise ValueError(f"{argument} {values!r} does not match the element's structure")
    if isinstance(specs, dict):
        return [v for k in sorted(specs) for v in _per_component(values[k], specs[k], argument)]
    return [v for x, s in zip(values, specs) for v in _per_component(x, s, argument)]


class _Shuffle(Dataset):
    _kind = "ShuffleDataset"

    def __init__(self, dataset, buffer_size, seed, reshuffle_each_iteration):
        self._buffer = _integer(buffer_size, "shuffle", "buffer_size")  # checked at run, as TF
        self._seeds = current_context().op_seeds(seed)  # TF's get_seed, when made
        self._reshuffle = reshuffle_each_iteration in (None, True)
        super().__init__(dataset._specs, (dataset,),
                         [self._buffer] if isinstance(self._buffer, Symbol) else [])

    def _elements(self, context):
        iteration = context.state.get(self, 0)
        context.state[self] = iteration + 1
        seed, seed2 = self._seeds
        rng = (np.random.default_rng() if seed is None else
               np.random.default_rng([seed, seed2, iteration if self._reshuffle else 0]))
        buffer_size = context.integer(self._buffer)
        if buffer_size < 1:  # TF 1.15's words
            raise InvalidArgumentError(None, None, f"{self._what}: buffer_size must be greater "
                                                   f"than zero (got {buffer_size}).")
        yield from pipeline.shuffled(self._inputs[0]._elements(context), buffer_size, rng)


class _Repeat(Dataset):
    _kind = "RepeatDataset"

    def __init__(self, dataset, count):
        self._count = -1 if count is None else _integer(count, "repeat", "count")
        super().__init__(dataset._specs, (dataset,),
                         [self._count] if isinstance(self._count, Symbol) else [])

    def _elements(self, context):
        count, done = context.integer(self._count), 0
        while count < 0 or done < count:
            empty = True
            for element in self._inputs[0]._elements(context):
                empty = False
                yield element
            done += 1
            if empty:  # an empty dataset repeated forever is empty, as TF's
                return


class _Take(Dataset):
    _kind = "TakeDataset"

    def __init__(self, dataset, count):
        self._count = _integer(count, "take", "count")
        super().__init__(dataset._specs, (dataset,),
                         [self._count] if isinstance(self._count, Symbol) else [])

    def _elements(self, context):
        count = context.integer(self._count)
        if count == 0:
            return
        for taken, element in enumerate(self._inputs[0]._elements(context), 1):
            yield element
            if taken == count:
                return


class _Skip(Dataset):
    _kind = "SkipDataset"

    def __init__(self, dataset, count):
        self._count = _integer(count, "skip", "count")
        super().__init__(dataset._specs, (dataset,),
                         [self._count] if isinstance(self._count, Symbol) else [])

    def _elements(self, context):
        count = context.integer(self._count)
        for position, element in enumerate(self._inputs[0]._elements(context)):
            if count < 0:
                return
            if position >= count:
                yield element


class _Map(Dataset):
    _kind = "MapDataset"

    def __init__(self, dataset, func):
        self._function = TracedFunction(func, dataset._specs, "Dataset.map()")
        super().__init__(self._function.output_specs, (dataset,), self._function.captures)

    def _elements(self, context):
        for element in self._inputs[0]._elements(context):
            yield tuple(self._function(element, context))


class _Interleave(Dataset):
    _kind = "InterleaveDataset"

    def __init__(self, dataset, func, cycle_length, block_length, method):
        self._function = TracedFunction(func, dataset._specs, f"Dataset.{method}()",
                                        returns=Dataset)
        self._cycle = (os.cpu_count() or 1) if cycle_length == -1 else _integer(
            cycle_length, method, "cycle_length", low=1)
        self._block = _integer(block_length, method, "block_length", low=1)
        super().__init__(self._function.dataset._specs, (dataset,), self._function.captures + [
            v for v in (self._cycle, self._block) if isinstance(v, Symbol)])

    def _opened(self, element, context):
        """The elements of the dataset the function makes of ``element``."""
        captured = self._function.outputs  # as traced (its graph may read stand-ins of them)
        values = dict(zip([c.outputs[0] for c in captured], self._function(element, context)))
        return self._function.dataset._elements(pipeline.Context(values))

    def _elements(self, context):
        cycle, block = context.integer(self._cycle), context.integer(self._block)
        source, slots = self._inputs[0]._elements(context), [None] * cycle
        index = taken = opened = 0
        ended = False
        while not ended or opened:
            if slots[index] is not None:
                element = next(slots[index], None)
                if element is not None:
                    yield element
                    taken += 1
                    if taken == block:
                        index, taken = (index + 1) % cycle, 0
                    continue
                slots[index], opened = None, opened - 1
                index, taken = (index + 1) % cycle, 0
            elif not ended:
                element = next(source, None)
                ended = element is None
                if not ended:
                    slots[index], opened = self._opened(element, context), opened + 1
            else:
                index, taken = (index + 1) % cycle, 0


_READ_BY = ("a dataset of windows (Dataset.window) is read by flat_map or interleave in "
            "TinyFlow (each window a dataset: `.flat_map(lambda w: w.batch(size))`)")


class _Windows(Dataset):
    """``Dataset.window``: a dataset of windows, each window a dataset per component, read by
    ``flat_map`` / ``interleave`` only in TinyFlow (any other use is a TypeError saying so)."""

    _kind = "WindowDataset"
    _of_datasets = True  # what Dataset's constructor refuses as another's input

    def __init__(self, dataset, size, shift, stride, drop_remainder):
        self._size = _integer(size, "window", "size")
        self._shift = self._size if shift is None else _integer(shift, "window", "shift")
        self._stride = _integer(stride, "window", "stride")
        self._drop = bool(drop_remainder)
        super().__init__(dataset._specs, (dataset,), [
            v for v in (self._size, self._shift, self._stride) if isinstance(v, Symbol)])

    @property
    def output_classes(self):
        """Every component a dataset."""
        return map_structure(lambda s: Dataset, self._specs)

    def flat_map(self, map_func) -> Dataset:
        """The elements of the dataset ``map_func`` makes of each window, one after another."""
        return _WindowInterleave(self, map_func, 1, 1)

    def interleave(self, map_func, cycle_length=-1, block_length=1,
                   num_parallel_calls=None) -> Dataset:
        """As ``Dataset.interleave``, over the datasets ``map_func`` makes of the windows."""
        return _WindowInterleave(self, map_func, cycle_length, block_length)

    def make_one_shot_iterator(self):
        raise TypeError(f"{self._what}: {_READ_BY}")

    def make_initializable_iterator(self, shared_name=None):
        raise TypeError(f"{self._what}: {_READ_BY}")

    def _elements(self, context):
        sizes = [context.integer(v) for v in (self._size, self._shift, self._stride)]
        for name, value in zip(("size", "shift", "stride"), sizes):
            if value <= 0:
                raise InvalidArgumentError(None, None, f"{self._what}: Window {name} must be "
                                                       f"greater than zero.")
        yield from _windows(self._inputs[0]._elements(context), *sizes, self._drop)


def _windows(elements, size: int, shift: int, stride: int, drop: bool):
    """Lists of elements: from every ``shift``-th, ``size`` of them ``stride`` apart (fewer at
    the end, unless ``drop``).  ``held`` keeps the elements from index ``first`` on."""
    source, held, first, start, ended = iter(elements), [], 0, 0, False
    while True:
        end = start + (size - 1) * stride + 1
        while not ended and first + len(held) < end:
            element = next(source, None)
            ended = element is None
            if not ended and first + len(held) < start:  # before this window: not kept
                first += 1
            elif not ended:
                held.append(element)
        window = held[start - first:end - first:stride]
        if not window or (drop and len(window) < size):
            return
        yield window
        start += shift
        gone = min(len(held), start - first)
        del held[:gone]
        first += gone


class _WindowInterleave(_Interleave):
    """flat_map / interleave over windows: ``map_func`` called once, now, on a dataset per
    component; each window's elements given to those datasets as it is opened."""

    _kind = "InterleaveDataset"
    _reads_windows = True

    def __init__(self, windows, map_func, cycle_length, block_length):
        self._components = [_Window(spec) for spec in flatten(windows._specs)]
        element = pack(windows._specs, self._components)
        made = map_func(*element) if isinstance(element, tuple) else map_func(element)
        if not isinstance(made, Dataset):
            raise TypeError(f"`map_func` must return a `Dataset` object, got "
                            f"{type(made).__name__}")
        self._dataset = made
        self._cycle = (os.cpu_count() or 1) if cycle_length == -1 else _integer(
            cycle_length, "interleave", "cycle_length", low=1)
        self._block = _integer(block_length, "interleave", "block_length", low=1)
        Dataset.__init__(self, made._specs, (windows, made), [
            v for v in (self._cycle, self._block) if isinstance(v, Symbol)])

    def _opened(self, window, context):
        inner = pipeline.Context(context.captured)
        for index, component in enumerate(self._components):
            inner.state[component] = [(element[index],) for element in window]
        return self._dataset._elements(inner)


class _WithOptions(Dataset):
    _kind = "OptionsDataset"

    def __init__(self, dataset, options):
        self._options = merge_options(dataset.options(), options)
        super().__init__(dataset._specs, (dataset,))

    def options(self) -> Options:
        return merge_options(Options(), self._options)

    def _elements(self, context):
        yield from self._inputs[0]._elements(context)


class _Window(Dataset):
    """One window's elements (flat tuples), kept in the run's state by whoever opens it: a
    window of ``Dataset.window``'s (one per component), or of ``group_by_window``'s."""

    _kind = "WindowDataset"

    def _elements(self, context):
        yield from context.state[self]

    def _not_alone(self, *args, **kwargs):
        raise TypeError(f"{self._what}: a window is read in TinyFlow only by the dataset made "
                        f"of it (its transformations), not by an iterator or Dataset.reduce")

    make_one_shot_iterator = make_initializable_iterator = reduce = _not_alone


class _Filter(Dataset):
    _kind = "FilterDataset"

    def __init__(self, dataset, predicate, until=False):
        self._until = until  # take_while: the first false ends it
        self._function = TracedFunction(predicate, dataset._specs,
                                        "Dataset.take_while()" if until else "Dataset.filter()")
        out = self._function.output_specs
        if not isinstance(out, Spec) or out.dtype != tf_bool or out.shape.ndims not in (0, None):
            raise ValueError(f"`predicate` return type must be convertible to a scalar boolean "
                             f"tensor. Was {map_structure(str, out)}.")
        super().__init__(dataset._specs, (dataset,), self._function.captures)

    def _elements(self, context):
        for element in self._inputs[0]._elements(context):
            if bool(self._function(element, context)[0]):
                yield element
            elif self._until:
                return


class _Enumerate(Dataset):
    _kind = "EnumerateDataset"

    def __init__(self, dataset, start):
        self._start = _integer(start, "enumerate", "start")
        super().__init__((Spec(as_dtype("int64"), TensorShape([])), dataset._specs), (dataset,),
                         [self._start] if isinstance(self._start, Symbol) else [])

    def _elements(self, context):
        start = context.integer(self._start)
        for index, element in enumerate(self._inputs[0]._elements(context), start):
            yield (np.int64(index), *element)


class _Shard(Dataset):
    _kind = "ShardDataset"

    def __init__(self, dataset, num_shards, index):
        self._shards = _integer(num_shards, "shard", "num_shards")
        self._index = _integer(index, "shard", "index")
        super().__init__(dataset._specs, (dataset,),
                         [v for v in (self._shards, self._index) if isinstance(v, Symbol)])

    def _elements(self, context):
        shards, index = context.integer(self._shards), context.integer(self._index)
        if shards <= 0:
            raise InvalidArgumentError(None, None, f"{self._what}: Number of shards must be "
                                                   f"greater than zero (got {shards}).")
        if not 0 <= index < shards:
            raise InvalidArgumentError(None, None, f"{self._what}: Index must be between 0 and "
                                                   f"{shards - 1} (currently index = {index}).")
        for position, element in enumerate(self._inputs[0]._elements(context)):
            if position % shards == index:
                yield element


class _Unbatch(Dataset):
    _kind = "UnbatchDataset"

    def __init__(self, dataset):
        flat = flatten(dataset._specs)
        if any(s.shape.ndims == 0 for s in flat):
            raise ValueError("Cannot unbatch an input with scalar components.")
        super().__init__(map_structure(lambda s: Spec(s.dtype, TensorShape(
            s.shape.dims[1:] if s.shape.dims is not None else None)), dataset._specs),
            (dataset,))

    def _elements(self, context):
        for element in self._inputs[0]._elements(context):
            rows = {len(component) for component in element}
            if len(rows) > 1:
                raise InvalidArgumentError(None, None, f"{self._what}: Input element must "
                                                       f"have the same batch size in each "
                                                       f"component.")
            for row in range(rows.pop() if rows else 0):
                yield tuple(component[row, ...] for component in element)


class _Unique(Dataset):
    _kind = "UniqueDataset"

    def __init__(self, dataset):
        spec = dataset._specs
        if not isinstance(spec, Spec) or spec.dtype.name not in ("int32", "int64", "string"):
            raise TypeError("Dataset.unique() only supports datasets with a single tf.int32, "
                            "tf.int64 or tf.string component.")
        super().__init__(spec, (dataset,))

    def _elements(self, context):
        seen = set()
        for element in self._inputs[0]._elements(context):
            key = (element[0].shape, tuple(element[0].reshape(-1).tolist()))  # bytes too
            if key not in seen:
                seen.add(key)
                yield element


class _Cache(Dataset):
    _kind = "CacheDataset"

    def __init__(self, dataset):
        super().__init__(dataset._specs, (dataset,))

    def _elements(self, context):
        kept = context.state.get(self)
        if kept is not None:  # a full iteration went before: replay it
            yield from kept
            return
        seen = []
        for element in self._inputs[0]._elements(context):
            seen.append(element)
            yield element
        context.state[self] = seen
