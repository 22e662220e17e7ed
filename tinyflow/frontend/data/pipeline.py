"""The numpy side of tf.data's transformations: what runs when an iterator pulls an element.

Elements are flat tuples of numpy arrays (see :mod:`.structure`); errors name the dataset they
come from (``what``: its kind and where the program made it) and the element.
"""
from __future__ import annotations

import numpy as np

from ...nnvm.errors import InvalidArgumentError

__all__ = ["Context", "as_strings", "check_element", "pad_batch", "shuffled", "stack_batch"]


class Context:
    """One run of a pipeline, from an iterator's initialisation: the values of the tensors its
    datasets captured (``{NodeEntry: array}``) and each dataset's state in this run (a
    shuffle's iteration count, a cache's elements)."""

    def __init__(self, captured: dict):
        self.captured = captured
        self.state: dict = {}

    def value(self, symbol) -> np.ndarray:
        return np.asarray(self.captured[symbol.outputs[0]])

    def integer(self, param) -> int:
        """A dataset's int argument: given as a number, or a captured scalar tensor."""
        return param if isinstance(param, int) else int(self.value(param))


def as_strings(value, what: str) -> np.ndarray:
    """``value`` (strings, nested lists or an array of them) as an object array of bytes, a
    str as its UTF-8 bytes: how a string component travels through the pipeline.

    Raises
    ------
    TypeError
        Naming ``what`` when an item is not a string.
    """
    array = np.array(value, dtype=object)  # a copy: later writes do not reach it
    flat = array.reshape(-1)
    for index, item in enumerate(flat.tolist()):
        if isinstance(item, str):
            flat[index] = item.encode()
        elif not isinstance(item, bytes):
            raise TypeError(f"{what} must be strings (bytes or str), got {item!r}")
    return array


def stack_batch(elements: list, what: str) -> tuple:
    """Component-wise ``np.stack`` of ``elements`` (flat tuples), as TF's BatchDataset: all of
    one component must have one shape."""
    out = []
    for index, parts in enumerate(zip(*elements)):
        first = parts[0].shape
        for position, part in enumerate(parts):
            if part.shape != first:
                raise InvalidArgumentError(None, None, (
                    f"{what}: Cannot batch tensors with different shapes in component {index}. "
                    f"First element had shape {list(first)} and element {position} had shape "
                    f"{list(part.shape)}."))
        out.append(np.stack(parts))
    return tuple(out)


def pad_batch(elements: list, padded_shapes: list, padding_values: list, what: str) -> tuple:
    """Each component padded (at the end of every dimension) to its padded shape, a None in it
    standing for the batch's largest size, then stacked (TF's PaddedBatchDataset)."""
    out = []
    for index, parts in enumerate(zip(*elements)):
        shape = padded_shapes[index]
        if any(part.ndim != len(shape) for part in parts):
            raise InvalidArgumentError(None, None, (
                f"{what}: component {index} has rank {parts[0].ndim}, but its padded shape "
                f"{list(shape)} has rank {len(shape)}"))
        target = [max(p.shape[axis] for p in parts) if size is None else size
                  for axis, size in enumerate(shape)]
        batch = np.full([len(parts)] + target, padding_values[index], dtype=parts[0].dtype)
        for row, part in enumerate(parts):
            if any(s > t for s, t in zip(part.shape, target)):
                raise InvalidArgumentError(None, None, (
                    f"{what}: Attempted to pad to a smaller size than the input element: "
                    f"component {index} of shape {list(part.shape)}, padded shape {target}"))
            batch[(row,) + tuple(slice(0, s) for s in part.shape)] = part
        out.append(batch)
    return tuple(out)


def shuffled(elements, buffer_size: int, rng):
    """TF's ShuffleDataset: a buffer of up to ``buffer_size`` elements; each step yields one at
    a uniformly random place in it and puts the next input element there."""
    buffer, source = [], iter(elements)
    for element in source:
        buffer.append(element)
        if len(buffer) == buffer_size:
            break
    uniform = iter(())
    while buffer:
        draw = next(uniform, None)
        if draw is None:  # drawn 1024 at a time: one numpy call per element costs more
            uniform = iter(rng.random(1024).tolist())
            draw = next(uniform)
        index = int(draw * len(buffer))
        yield buffer[index]
        following = next(source, None)
        if following is not None:
            buffer[index] = following
        else:
            buffer[index] = buffer[-1]
            buffer.pop()


def check_element(values: tuple, specs: list, what: str, position: int) -> tuple:
    """``values`` (one element from Python: a generator's) as arrays of the specs' dtypes and
    compatible shapes, or an error naming the dataset and the element, as TF's from_generator."""
    if len(values) != len(specs):
        raise InvalidArgumentError(None, None, (
            f"{what}: element {position} has {len(values)} components, but output_types has "
            f"{len(specs)}"))
    out = []
    for value, spec in zip(values, specs):
        try:  # TF's from_generator: both errors reach the run as InvalidArgumentError
            array = (as_strings(value, "a string") if spec.dtype.name == "string" else
                     np.asarray(value, dtype=spec.dtype.as_numpy_dtype))
        except (TypeError, ValueError):
            raise InvalidArgumentError(None, None, (
                f"{what}: TypeError: `generator` yielded an element that could not be "
                f"converted to the expected type. The expected type was {spec.dtype.name}, "
                f"but element {position} was {value!r}.")) from None
        if not spec.shape.is_compatible_with(array.shape):
            raise InvalidArgumentError(None, None, (
                f"{what}: TypeError: `generator` yielded element {position} of shape "
                f"{array.shape} where an element of shape {spec.shape} was expected."))
        out.append(array)
    return tuple(out)
