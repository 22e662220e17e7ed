"""Kernels of the volume bodies (tinyflow/ops/volume.py): 3-D convolution and pooling with
TensorFlow's padding.  Tensors come in as NCDHW views (NDHWC ones permuted, no copy) and
filters as OIDHW views of TF's DHWIO.  Where SAME padding is uneven (the odd pixel after the
data), x is padded by a copy first (zeros; -inf for max pooling), which torch's kernels cannot
do themselves; no kernel here writes into a given buffer, so each result is copied into the
plan's.  Average pooling divides by the real pixels of each window, as TF's.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from ..torch_table import lua_sizes

__all__ = ["avg_pool3d", "avg_pool3d_backward", "conv3d", "conv3d_backward_data",
           "conv3d_backward_weight", "filter_kernel", "filter_view", "max_pool3d",
           "max_pool3d_backward", "max_pool3d_gather", "volume_pads", "volume_view"]

_aten = torch.ops.aten


def _sizes(value) -> tuple:
    """A Lua array of sizes, or a list a kernel here returned (lupa would unpack a tuple into
    several Lua values), as a tuple of ints."""
    return tuple(value) if isinstance(value, (tuple, list)) else lua_sizes(value)


def volume_view(t, layout):
    """``t`` as NCDHW: itself, or NDHWC's permuted view of the same elements."""
    return t if layout == "NCDHW" else t.permute(0, 4, 1, 2, 3)


def filter_view(weight):
    """A DHWIO filter as an OIDHW view."""
    return weight.permute(4, 3, 0, 1, 2)


def filter_kernel(weight) -> list:
    """The [kd, kh, kw] of an OIDHW filter view."""
    return list(weight.shape[2:])


def volume_pads(x, y, kernel, stride) -> list:
    """F.pad's (w before, w after, h..., d...) giving NCDHW y's sizes from x's: TF's SAME
    pads (k - 1 at most, the odd one after), VALID none."""
    pads = []
    for axis, k, s in zip((2, 3, 4), _sizes(kernel), _sizes(stride)):
        total = max((y.shape[axis] - 1) * s + k - x.shape[axis], 0)
        if total >= k:  # a graph document's stride or kernel, which no padding gives
            raise ValueError(f"windows of {k} at stride {s} over {x.shape[axis]} pixels give "
                             f"no {y.shape[axis]} outputs with SAME or VALID padding")
        pads = [total // 2, total - total // 2] + pads
    return pads


def _padded(x, pads, value=0.0):
    return F.pad(x, tuple(pads), value=value) if any(pads) else x


def _inside(padded, pads):
    """The part of ``padded`` that is x's (the padding cut off again)."""
    (w0, w1, h0, h1, d0, d1), (_, _, depth, height, width) = pads, padded.shape
    return padded[:, :, d0:depth - d1, h0:height - h1, w0:width - w1]


def conv3d(res, x, weight, stride, pads):
    res.copy_(F.conv3d(_padded(x, pads), weight, None, _sizes(stride)))


def conv3d_backward_data(res, g, weight, stride, pads):
    # conv3d's input gradient is the transposed convolution of g, sized to the padded x
    stride, sizes = _sizes(stride), [n + pads[2 * i] + pads[2 * i + 1] for i, n in
                                     enumerate(reversed(res.shape[2:]))][::-1]
    extra = [size - ((n - 1) * s + k) for size, n, s, k in
             zip(sizes, g.shape[2:], stride, weight.shape[2:])]
    grad = F.conv_transpose3d(g, weight, None, stride, 0, extra)
    res.copy_(_inside(grad, pads))


def conv3d_backward_weight(res, g, x, stride, pads):
    res.copy_(torch.nn.grad.conv3d_weight(_padded(x, pads), res.shape, g, _sizes(stride)))


def max_pool3d(res, x, kernel, stride, pads):
    res.copy_(F.max_pool3d(_padded(x, pads, float("-inf")), _sizes(kernel), _sizes(stride)))


def max_pool3d_backward(res, g, x, kernel, stride, pads):
    # x pooled again for each window's argmax (in range by construction), g scattered there
    kernel, stride, padded = _sizes(kernel), _sizes(stride), _padded(x, pads, float("-inf"))
    _, argmax = F.max_pool3d(padded, kernel, stride, return_indices=True)
    grad = _aten.max_pool3d_with_indices_backward(g, padded, kernel, stride, (0, 0, 0),
                                                  (1, 1, 1), False, argmax)
    res.copy_(_inside(grad, pads))


def max_pool3d_gather(res, h, x, kernel, stride, pads):
    # h at each window's maximum of x (the indices torch's pooling of padded x gives)
    kernel, stride, padded = _sizes(kernel), _sizes(stride), _padded(x, pads, float("-inf"))
    _, argmax = F.max_pool3d(padded, kernel, stride, return_indices=True)
    taken = torch.gather(_padded(h, pads).flatten(2), 2, argmax.flatten(2))
    res.copy_(taken.view(res.shape))


def _window_sums(x, kernel, stride, pads):
    return F.avg_pool3d(_padded(x, pads), kernel, stride, divisor_override=1)


def _counts(x, kernel, stride, pads):
    """The real (unpadded) pixels in each window."""
    ones = torch.ones((1, 1, *x.shape[2:]), dtype=x.dtype, device=x.device)
    return _window_sums(ones, kernel, stride, pads)


def avg_pool3d(res, x, kernel, stride, pads):
    kernel, stride = _sizes(kernel), _sizes(stride)
    res.copy_(_window_sums(x, kernel, stride, pads) / _counts(x, kernel, stride, pads))


def avg_pool3d_backward(res, g, kernel, stride, pads):
    # each window's g / count spread over its pixels (a window sum's gradient), the padding cut
    kernel, stride = _sizes(kernel), _sizes(stride)
    scaled = g / _counts(res, kernel, stride, pads)
    sizes = [n + pads[2 * i] + pads[2 * i + 1] for i, n in enumerate(reversed(res.shape[2:]))]
    padded = torch.empty((*res.shape[:2], *reversed(sizes)), dtype=res.dtype, device=res.device)
    grad = _aten.avg_pool3d_backward(scaled, padded, kernel, stride, (0, 0, 0), False, True, 1)
    res.copy_(_inside(grad, pads))
