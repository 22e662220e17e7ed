"""``tf.nn.with_space_to_batch``: an op run VALID on ``space_to_batch_nd`` of its input and
turned back with ``batch_to_space_nd``, as TensorFlow 1.15 runs a dilated ("atrous") op on
one made for rate 1; ``tf.nn.space_to_batch`` is ``tf.space_to_batch``."""
from __future__ import annotations

import itertools

import numpy as np

from ..array_manip_ops import (
    _ints,
    batch_to_space_nd,
    required_space_to_batch_paddings,
    space_to_batch,
    space_to_batch_nd,
)
from ..math_ops import convert_to_tensor

__all__ = ["space_to_batch", "with_space_to_batch"]


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,
                        data_format=None):
    """TF 1.15's ``op(input, num_spatial_dims, padding)`` at ``dilation_rate``: with every
    rate 1, ``op`` itself; else ``op`` on ``space_to_batch_nd`` of ``input`` (padded for
    ``padding`` SAME as a ``filter_shape`` filter dilated by the rate would be, and to multiples
    of the rate), ``"VALID"``, then ``batch_to_space_nd`` cropping that padding again.
    ``spatial_dims`` (ascending, from 1) default to the axes after the batch (after the
    channels for a ``data_format`` starting "NC").  Rates, filter and spatial sizes must be
    known as the graph is built."""
    function = "with_space_to_batch"
    input = convert_to_tensor(input, name="input")
    rate = np.asarray(_ints(dilation_rate, "dilation_rate", function))
    count = len(rate)
    if rate.size == 0 or np.any(rate < 1):
        raise ValueError(f"`dilation_rate` must be positive. Received: "
                         f"dilation_rate={rate.tolist()}")
    first = 2 if data_format is not None and data_format.startswith("NC") else 1
    dims = list(range(first, first + count)) if spatial_dims is None else [
        int(d) for d in spatial_dims]
    if len(dims) != count or dims[0] < 1 or any(b <= a for a, b in itertools.pairwise(dims)):
        raise ValueError(f"spatial_dims must be a monotonically increasing sequence of "
                         f"{count} positive integers, got {dims}")
    if np.all(rate == 1):
        return op(input, count, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError(f"`filter_shape` must be specified for `padding='SAME'`. "
                             f"Received: filter_shape=None and padding={padding}")
        extra = (np.asarray(_ints(filter_shape, "filter_shape", function)) - 1) * rate
        base = np.stack([extra // 2, extra - extra // 2], axis=1)
    elif padding == "VALID":
        base = np.zeros((count, 2), np.int64)
    else:
        raise ValueError(f"Invalid padding method {padding!r}")
    shape = input.get_shape()
    sizes = [shape.as_list()[d] if shape.ndims is not None and d < shape.ndims else None
             for d in dims]
    if None in sizes:
        raise ValueError(f"{function}: the spatial axes {dims} of {input.name} must be known "
                         f"as the graph is built, got shape {shape}")
    paddings, crops = (_ints(v, "paddings", function) for v in
                       required_space_to_batch_paddings(sizes, rate.tolist(), base.tolist()))
    # TF's _with_space_to_batch_adjust: axes 1 .. the last spatial one, others with rate 1
    block, pads, cuts = [1] * dims[-1], [[0, 0]] * dims[-1], [[0, 0]] * dims[-1]
    for i, axis in enumerate(dims):
        block[axis - 1] = int(rate[i])
        pads[axis - 1], cuts[axis - 1] = paddings[2 * i:2 * i + 2], crops[2 * i:2 * i + 2]
    converted = space_to_batch_nd(input, block, pads)
    return batch_to_space_nd(op(converted, count, "VALID"), block, cuts)
