"""``tf.data.experimental.choose_from_datasets`` and ``sample_from_datasets`` (TensorFlow 1.15):
TF's DirectedInterleaveDataset, the element of the input a selector dataset names, in turn.

As TF 1.15's: an input that has ended is skipped when chosen again; the whole ends with the
selector, or once every input has ended; a selector value out of range stops the run
(InvalidArgumentError).  ``sample_from_datasets`` draws the choices at random with the weights'
probabilities, from a generator seeded by TF's op-seed rule (``tf.set_random_seed``), a new
draw each time the pipeline starts over; the draws are not TF's numbers.
"""
from __future__ import annotations

import numpy as np

from ...nnvm.errors import InvalidArgumentError
from ...nnvm.symbol import current_context
from ...nnvm.tensor_shape import TensorShape
from ..dtypes import int64
from .dataset import Dataset
from .structure import Spec, flatten, pack, same_structure

__all__ = ["choose_from_datasets", "sample_from_datasets"]


class _DirectedInterleave(Dataset):
    _kind = "DirectedInterleaveDataset"

    def __init__(self, selector, datasets):
        datasets = list(datasets)
        if not datasets:
            raise ValueError("`datasets` must be a non-empty list of datasets.")
        first = datasets[0]._specs
        for dataset in datasets[1:]:
            if not same_structure(first, dataset._specs) or any(
                    a.dtype != b.dtype for a, b in zip(flatten(first), flatten(dataset._specs))):
                raise TypeError(f"All datasets must have the same type and class: "
                                f"{first} and {dataset._specs}")
        shapes = [[s.shape for s in flatten(d._specs)] for d in datasets]
        specs = pack(first, [Spec(s.dtype, _common_shape([row[i] for row in shapes]))
                             for i, s in enumerate(flatten(first))])
        super().__init__(specs, (selector, *datasets))

    def _elements(self, context):
        inputs = [d._elements(context) for d in self._inputs[1:]]
        active = [True] * len(inputs)
        for (choice,) in self._inputs[0]._elements(context):
            index = int(choice)
            if not 0 <= index < len(inputs):
                raise InvalidArgumentError(None, None, (
                    f"{self._what}: Selector index out of range: {index} >= {len(inputs)}"))
            if not active[index]:
                continue
            element = next(inputs[index], None)
            if element is not None:
                yield element
                continue
            active[index] = False
            if not any(active):
                return


def _common_shape(shapes) -> TensorShape:
    """The most specific shape all of ``shapes`` fit (a dim they differ in unknown)."""
    if any(s.dims is None for s in shapes) or len({s.ndims for s in shapes}) > 1:
        return TensorShape(None)
    return TensorShape([dims[0] if len(set(dims)) == 1 else None
                        for dims in zip(*[[d.value for d in s.dims] for s in shapes])])


class _Choices(Dataset):
    """An endless int64 stream of input indices drawn with probabilities ``weights``."""

    _kind = "SampleSelectorDataset"

    def __init__(self, weights, seed):
        self._probabilities = weights / weights.sum()
        self._seeds = current_context().op_seeds(seed)  # TF's get_seed, when made
        super().__init__(Spec(int64, TensorShape([])))

    def _elements(self, context):
        iteration = context.state.get(self, 0)
        context.state[self] = iteration + 1
        seed, seed2 = self._seeds
        rng = (np.random.default_rng() if seed is None else
               np.random.default_rng([seed, seed2, iteration]))
        while True:
            for index in rng.choice(len(self._probabilities), 1024, p=self._probabilities):
                yield (np.int64(index),)


def choose_from_datasets(datasets, choice_dataset) -> Dataset:
    """The element of ``datasets[i]`` for each ``i`` of ``choice_dataset`` (int64 scalars)."""
    spec = choice_dataset._specs
    if not isinstance(spec, Spec) or spec.dtype != int64 or not spec.shape.is_compatible_with(
            TensorShape([])):
        raise TypeError("`choice_dataset` must be a dataset of scalar `tf.int64` tensors.")
    return _DirectedInterleave(choice_dataset, datasets)


def sample_from_datasets(datasets, weights=None, seed=None) -> Dataset:
    """Elements of ``datasets`` drawn at random, input ``i`` with probability proportional to
    ``weights[i]`` (default: all the same), until every input has ended."""
    datasets = list(datasets)
    if weights is None:
        weights = np.ones(len(datasets))
    elif isinstance(weights, (list, tuple, np.ndarray)):
        weights = np.asarray(weights, dtype=np.float64)
    else:
        raise TypeError("sample_from_datasets: weights given as a tensor or a dataset are not "
                        "supported by TinyFlow; give a list of numbers")
    if weights.shape != (len(datasets),) or (weights < 0).any() or weights.sum() <= 0:
        raise ValueError(f"`weights` must be {len(datasets)} non-negative numbers, not all "
                         f"zero; got {weights.tolist()}")
    return _DirectedInterleave(_Choices(weights, seed), datasets)
