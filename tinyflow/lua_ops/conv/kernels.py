"""Kernels of the layer bodies (tinyflow/ops/conv.py): convolution (oneDNN's fused
activations, channels-last copies where timed faster, batch slices), pooling, TensorFlow's
padding, batch normalisation, dropout and the mean sparse cross entropy.

PyTorch has no kernel writing into a given buffer for convolution, convolution_backward and
native_batch_norm_backward: their ``out`` forms (or we) compute a new tensor and copy it in.
The convolutions take a ``dilation`` (TensorFlow's dilations; None: 1s) and their groups from
the shapes: ``x``'s channels over the weight's (a depthwise filter's view has one channel).
Pooling, native_batch_norm, nll_loss and softmax write into ``out`` directly.  The Lua helpers
``window_input`` and ``window_grad`` are in kernels.lua beside this file.
"""
from __future__ import annotations

import ctypes
from pathlib import Path

import torch

from .. import native
from ..cpu import channels_last, onednn, seconds
from ..nn.kernels import ids_buffer, sparse_xent, sparse_xent_backward
from ..scratch import scratch
from ..torch_table import addmm, mm
from ..torch_table import lua_sizes as _sizes  # (the name every kernel here calls)

__all__ = ["avg_pool2d", "avg_pool2d_backward", "batch_norm", "batch_norm_backward", "conv2d",
           "conv2d_activation", "conv2d_backward_data", "conv2d_backward_weight",
           "conv2d_buffers", "dropout", "ids_buffer", "layout_buffer", "linear_activation",
           "max_pool2d", "max_pool2d_backward", "max_pool2d_backward_native",
           "max_pool2d_buffers", "max_pool2d_gather", "max_pool2d_native", "nchw_view", "oihw_view",
           "pad_buffer", "sparse_xent", "sparse_xent_backward", "window_count", "window_pads"]

_aten = torch.ops.aten
_NO_DILATION = (1, 1)
_MAX_POOL_2X2 = Path(__file__).with_name("max_pool_2x2.c")


def window_pads(x, y, kernel, stride):
    pads = []
    for axis, k, s in zip((2, 3), _sizes(kernel), _sizes(stride)):
        total = max((y.shape[axis] - 1) * s + k - x.shape[axis], 0)
        if total >= k:  # SAME pads k - 1 at most, VALID none: a document's stride or kernel
            raise ValueError(f"windows of {k} at stride {s} over {x.shape[axis]} pixels give "
                             f"no {y.shape[axis]} outputs with SAME or VALID padding (it would "
                             f"pad {total})")
        pads += [total // 2, total - total // 2]
    return tuple(pads)


def _pad_buffer(x, top, bottom, left, right, value):
    n, c, h, w = x.shape
    top, left = int(top), int(left)
    channels_last = not x.is_contiguous() and x.is_contiguous(memory_format=torch.channels_last)
    buffer = torch.empty((n, c, h + top + int(bottom), w + left + int(right)), dtype=x.dtype,
                         device=x.device, memory_format=torch.channels_last if channels_last
                         else torch.contiguous_format).fill_(float(value))  # x's layout
    return buffer, buffer[:, :, top:top + h, left:left + w]


def pad_buffer(x, top, bottom, left, right, value):
    buffer, inside = _pad_buffer(x, top, bottom, left, right, value)
    return scratch(buffer), inside


def window_count(x, y, kernel, stride):
    # Where the padding is even, torch's avg_pool2d leaves it out of the count by itself.
    top, bottom, left, right = window_pads(x, y, kernel, stride)
    if top == bottom and left == right:
        return None
    ones = torch.ones((1, 1) + tuple(x.shape[2:]), dtype=x.dtype, device=x.device)
    padded, inside = _pad_buffer(ones, top, bottom, left, right, 0.0)
    inside.fill_(1.0)
    count = _aten.avg_pool2d(padded, _sizes(kernel), _sizes(stride), (0, 0), False, True, 1)
    return scratch(count).view(tuple(y.shape[2:]))


def _layout_of(x, like):
    """x as a channels-last view when ``like`` is channels-last and x has one channel (the same
    bytes either way): oneDNN then runs the whole convolution channels-last, with no copy."""
    if (x.dim() == 4 and x.shape[1] == 1 and x.is_contiguous() and not like.is_contiguous()
            and like.is_contiguous(memory_format=torch.channels_last)):
        return x.as_strided(x.shape, (x.stride(0), 1, x.stride(2), x.stride(3)))
    return x


# No convolution kernel writes into a given buffer: each returns a new tensor that is copied
# into the plan's.  Slices of the batch bound that transient (a 10,000-image forward).
_CHUNK_BYTES = 64 << 20


def _by_batch(res, x, run):
    """``res[i:j] = run(x[i:j])`` over slices of the batch of at most _CHUNK_BYTES of res."""
    batch = res.shape[0]
    if res.numel() * res.element_size() <= _CHUNK_BYTES:  # a training batch: one call
        res.copy_(run(x))
        return
    step = max(1, _CHUNK_BYTES * batch // (res.numel() * res.element_size()))
    for start in range(0, batch, step):
        res[start:start + step].copy_(run(x[start:start + step]))


def _dilation(dilation):
    return _NO_DILATION if dilation is None else _sizes(dilation)


def _groups(channels, weight):
    """torch's groups: the input channels over the weight's (one a group)."""
    return channels // weight.shape[1]


def conv2d(res, x, weight, bias, stride, pad, buffers=None, dilation=None):
    if buffers is None and onednn(x):  # aten's convolution: 1.17 ms for LeNet's conv1, 0.71
        conv2d_activation(res, x, weight, bias, stride, pad, None, dilation)
        return
    x = _layout_of(x, res)
    if buffers is not None:  # channels-last copies of x and weight, and the result
        x, weight = buffers[0].copy_(x), buffers[1].copy_(weight)
        res, out = buffers[2], res
    stride, pad, dilation = _sizes(stride), _sizes(pad), _dilation(dilation)
    groups = _groups(x.shape[1], weight)
    _by_batch(res, x, lambda part: _aten.convolution(part, weight, bias, stride, pad,
                                                     dilation, False, (0, 0), groups))
    if buffers is not None:
        out.copy_(res)


_ACTIVATIONS = {"tanh": torch.tanh_, "relu": torch.relu_, "sigmoid": torch.sigmoid_}


def conv2d_activation(res, x, weight, bias, stride, pad, activation, dilation=None):
    # oneDNN applies the activation (None: none) as the convolution's post-op (one pass over y
    # instead of two).  The plain weight goes in as it is: oneDNN reorders it inside the call,
    # which in LeNet's step is ~0.1 ms a call faster than packing it here first
    if not onednn(x):
        conv2d(res, x, weight, bias, stride, pad, None, dilation)
        if activation is not None:
            _ACTIVATIONS[activation](res)
        return
    x, stride, pad = _layout_of(x, res), _sizes(stride), _sizes(pad)
    dilation, groups = _dilation(dilation), _groups(x.shape[1], weight)
    layout = torch.channels_last if channels_last(res) else torch.contiguous_format
    if (activation in (None, "relu") and x.is_contiguous(memory_format=layout)
            and res.numel() * res.element_size() <= _CHUNK_BYTES):
        # the in-place variant takes no post-op but relu after its sum: oneDNN writes
        # y = relu(0 + conv + bias) straight into res, no fresh output to copy
        # (mnist_deep's conv1: 1.13 -> 0.99 ms)
        torch.ops.mkldnn._convolution_pointwise_.binary(
            res.zero_(), x, weight, bias, pad, stride, dilation, groups, "add", None,
            activation, [], None)
        return
    _by_batch(res, x, lambda part: torch.ops.mkldnn._convolution_pointwise(
        part, weight, bias, pad, stride, dilation, groups, activation or "none", [], ""))


def linear_activation(res, x, weight, bias, activation):
    # oneDNN's matmul with the activation as post-op (fc1 + tanh of LeNet: 0.55 -> 0.43 ms)
    if not onednn(x):
        if bias is None:
            mm(res, x, weight.t())
        else:
            addmm(res, bias, x, weight.t())
        _ACTIVATIONS[activation](res)
        return
    res.copy_(torch.ops.mkldnn._linear_pointwise(x, weight, bias, activation, [], ""))


def _conv2d_backward(g, x, weight, stride, pad, mask, dilation):
    return _aten.convolution_backward(g, x, weight, None, _sizes(stride), _sizes(pad),
                                      _dilation(dilation), False, (0, 0),
                                      _groups(x.shape[1], weight), mask)


def conv2d_backward_data(res, g, x, weight, stride, pad, dilation=None):
    res.copy_(_conv2d_backward(g, x, weight, stride, pad, (True, False, False), dilation)[0])


def conv2d_backward_weight(res, g, x, weight, stride, pad, buffers=None, dilation=None):
    x = _layout_of(x, g)
    if buffers is not None:  # channels-last copies of g, x and weight
        g, x, weight = (b.copy_(t) for b, t in zip(buffers, (g, x, weight)))
    res.copy_(_conv2d_backward(g, x, weight, stride, pad, (False, True, False), dilation)[1])


def conv2d_buffers(x, weight, y, stride, pad, grad_weight=False, dilation=None):
    # On the CPU, MKL-DNN runs some convolutions several times faster on channels-last tensors
    # and others slower, by shape: time both ways once, copies included, on random data of
    # these shapes (as cuDNN's benchmark mode) and return the channels-last scratch copies
    # ([x, weight, y], or [g, x, weight] with grad_weight) when they win clearly, else nil.
    if x.device.type != "cpu" or channels_last(x, y):  # the layout chosen (ChooseLayout)
        return None
    x, weight, y = (torch.randn(t.shape) for t in (x, weight, y))
    copies = [torch.empty_like(t, memory_format=torch.channels_last)
              for t in ((y, x, weight) if grad_weight else (x, weight, y))]
    if grad_weight:
        result = torch.empty_like(weight)
        timings = seconds([lambda b=b: conv2d_backward_weight(
            result, y, x, weight, stride, pad, b, dilation) for b in (None, copies)])
    else:
        timings = seconds([lambda b=b: conv2d(y, x, weight, None, stride, pad, b, dilation)
                           for b in (None, copies)])
    return [scratch(c) for c in copies] if timings[1] < 0.8 * timings[0] else None


def max_pool2d_buffers(x, y, argmax=True):
    # On the CPU, PyTorch's max pooling is several times faster on channels-last tensors: pool
    # channels-last copies there ([x copy, y copy, index copy], no index copy without argmax);
    # nothing to keep on the GPU.
    if x.device.type != "cpu" or channels_last(x, y):
        return None
    index = torch.empty(y.shape, dtype=torch.int64)  # its size only
    return [scratch(torch.empty_like(t, memory_format=torch.channels_last))
            for t in ((x, y, index) if argmax else (x, y))]


def max_pool2d(res, index, x, kernel, stride, pad, buffers):
    args = (_sizes(kernel), _sizes(stride), _sizes(pad), _NO_DILATION, False)
    if index is None:  # no argmax wanted: torch's pooling makes one per slice of the batch
        x = buffers[0].copy_(x) if buffers is not None else x
        _by_batch(res, x, lambda part: _aten.max_pool2d_with_indices(part, *args)[0])
        return
    if buffers is None:
        _aten.max_pool2d_with_indices.out(x, *args, out=res, indices=index)
        return
    x_copy, y_copy, index_copy = buffers
    x_copy.copy_(x)
    _aten.max_pool2d_with_indices.out(x_copy, *args, out=y_copy, indices=index_copy)
    res.copy_(y_copy)
    index.copy_(index_copy)


def _native_pooling(x, y, index, kernel, stride, pad):
    # max_pool_2x2.c where it applies: 2x2 windows at stride 2, no padding, float32 on the CPU,
    # 8 channels or more, x and the argmax channels-last, y of x's halved sizes
    def nhwc(t):
        return t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last)
    n, c, h, w = x.shape
    if (_sizes(kernel) != (2, 2) or _sizes(stride) != (2, 2) or any(_sizes(pad))
            or x.device.type != "cpu" or x.dtype != torch.float32 or c < 8
            or tuple(y.shape) != (n, c, h // 2, w // 2) or tuple(index.shape) != tuple(y.shape)
            or index.dtype != torch.int64 or not (nhwc(x) and nhwc(index))
            or y.dtype != torch.float32 or y.device.type != "cpu"):
        return None
    library = native.load(_MAX_POOL_2X2)
    return library and (library, [ctypes.c_int64(size) for size in (n, h, w, c)])


def _channels_last_or_scratch(t):
    # t, or a channels-last scratch of its shape where it is not channels-last (a flatten
    # after the pool pins it contiguous): the native kernel reads and writes channels-last
    layout = torch.channels_last
    return t if channels_last(t) else scratch(torch.empty_like(t, memory_format=layout))


def max_pool2d_native(y, index, x, kernel, stride, pad):
    """The step of max_pool2d by the native 2x2 kernel (max_pool_2x2.c: 2-4x torch's speed,
    the same values and argmax), or None where it does not apply or cannot be built."""
    found = _native_pooling(x, y, index, kernel, stride, pad)
    if found is None:
        return None
    library, sizes = found
    out = _channels_last_or_scratch(y)

    def pool():
        library.max_pool_2x2_forward(ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(out.data_ptr()),
                                     ctypes.c_void_p(index.data_ptr()), *sizes)
        if out is not y:
            y.copy_(out)
    return pool


def max_pool2d_backward_native(res, g, index, kernel, stride, pad):
    """The step of max_pool2d's gradient res by the native 2x2 kernel from g and the argmax,
    or None where it does not apply (g not channels-last goes through a scratch copy)."""
    found = _native_pooling(res, g, index, kernel, stride, pad)
    if found is None:
        return None
    library, sizes = found
    g_copy = _channels_last_or_scratch(g)
    h, w = res.shape[2:]
    edges = [edge for edge in (res[:, :, h - h % 2:], res[:, :, :, w - w % 2:])
             if edge.numel()]  # an odd last row or column is in no window: its gradient is 0

    def backward():
        source = g if g_copy is g else g_copy.copy_(g)
        library.max_pool_2x2_backward(ctypes.c_void_p(source.data_ptr()),
                                      ctypes.c_void_p(index.data_ptr()),
                                      ctypes.c_void_p(res.data_ptr()), *sizes)
        for edge in edges:
            edge.zero_()
    return backward


def layout_buffer(x, like):
    # torch's pooling gradient runs at its channels-last speed only when g is channels-last too
    # (5x slower on a contiguous g from a flatten): a scratch of x's shape in like's layout
    if x.device.type != "cpu" or channels_last(x) or not channels_last(like):
        return None
    return scratch(torch.empty_like(x, memory_format=torch.channels_last))


def max_pool2d_backward(res, g, index, kernel, stride, pad, g_buffer=None):
    # res stands in for max_pool2d's input: the kernel takes only its sizes from it
    if g_buffer is not None:
        g = g_buffer.copy_(g)
    args = (_sizes(kernel), _sizes(stride), _sizes(pad), _NO_DILATION, False)
    _aten.max_pool2d_with_indices_backward.grad_input(g, res, *args, index, grad_input=res)


def max_pool2d_gather(res, h, index):
    # res[n, c, i] = h[n, c, index[n, c, i]], each plane flattened (the argmax of max pooling
    # indexes its plane); reshape copies channels-last views: a second-order op, rarely run
    n, c = res.shape[:2]
    res.copy_(torch.gather(h.reshape(n, c, -1), 2, index.reshape(n, c, -1)).view(res.shape))


def avg_pool2d(res, x, kernel, stride, pad, count=None):
    if count is None:
        _aten.avg_pool2d.out(x, _sizes(kernel), _sizes(stride), _sizes(pad), False, False, None,
                             out=res)
    else:  # window sums (divisor 1), then / the real pixels of each window
        _aten.avg_pool2d.out(x, _sizes(kernel), _sizes(stride), (0, 0), False, True, 1, out=res)
        res.div_(count)


def avg_pool2d_backward(res, g, x, kernel, stride, pad, count=None, scaled=None):
    if count is None:
        _aten.avg_pool2d_backward.grad_input(g, x, _sizes(kernel), _sizes(stride), _sizes(pad),
                                             False, False, None, grad_input=res)
    else:
        torch.div(g, count, out=scaled)
        _aten.avg_pool2d_backward.grad_input(scaled, x, _sizes(kernel), _sizes(stride), (0, 0),
                                             False, True, 1, grad_input=res)


def batch_norm(res, mean, invstd, x, gamma, beta, eps):
    _aten.native_batch_norm.out(x, gamma, beta, None, None, True, 0.0, float(eps), out=res,
                                save_mean=mean, save_invstd=invstd)


def batch_norm_backward(grad_x, grad_gamma, grad_beta, g, x, gamma, mean, invstd, eps):
    if x.numel() == 0:  # torch's CPU kernel divides by the count (SIGFPE); as the forward says
        raise ValueError(f"input tensor must have at least one element, got shape {tuple(x.shape)}")
    _aten.native_batch_norm_backward.out(g, x, gamma, None, None, mean, invstd, True, float(eps),
                                         (True, True, True), out0=grad_x, out1=grad_gamma,
                                         out2=grad_beta)


def dropout(res, mask, x, keep_prob, gen=None):
    mask.uniform_(generator=gen)
    torch.lt(mask, keep_prob, out=mask)
    mask.div_(keep_prob)
    torch.mul(x, mask, out=res)


def nchw_view(x, data_format=None):
    # NHWC x as its NCHW view with channels-last strides: torch's conv and pooling kernels take
    # it as channels-last input, so nothing is transposed
    return x.permute(0, 3, 1, 2) if data_format == "NHWC" else x


def oihw_view(weight, filter_format=None):
    # TensorFlow's HWIO filter [kh, kw, in, out] as an OIHW view; its depthwise filter [kh, kw,
    # in, multiplier] as in x multiplier filters of one channel, output c * multiplier + m
    # (view, not reshape: a gradient body writes through it)
    if filter_format == "HWIM":
        kh, kw, channels, multiplier = weight.shape
        return weight.view(kh, kw, 1, channels * multiplier).permute(3, 2, 0, 1)
    return weight.permute(3, 2, 0, 1) if filter_format == "HWIO" else weight
