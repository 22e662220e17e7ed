"""The Lua ``torch`` table: Torch7-style functions acting on PyTorch tensors in place.

Every function writes its result into its first argument (result-first, as Torch7's
``torch.cmul(res, a, b)``), so the memory plan decides where results go and nothing is
allocated per step.  Dimensions are 1-based as in Torch7/Lua (negative ones count from the end);
``dims`` may be a number, a Lua array of numbers, or nil for "all".

==========================================  =================================================
function                                    meaning
==========================================  =================================================
``add(res, a, b)``                          res = a + b (b tensor or number, broadcasting)
``add(res, a, s, b)``                       res = a + s * b (s number)
``csub(res, a, b)``                         res = a - b
``rsub(res, a, s)``                         res = s - a (s number)
``cmul(res, a, b)`` / ``mul(res, a, s)``    res = a * b / a * s
``cdiv(res, a, b)`` / ``div(res, a, s)``    res = a / b / a / s (integer a, b into a float
                                            res: divided in res's dtype, TF's truediv)
``rdiv(res, a, s)``                         res = s / a
(a number s into an integer res is taken as an integer: ``int_tensor * 2``)
``pow(res, a, p)``                          res = a ^ p (p tensor or number; a may be a number)
``neg exp log sqrt tanh abs sign sigmoid``  ``f(res, a)``: res = f(a)
``tanh_function(res, a)``                   setup: a function doing res = tanh(a), or nil
``relu(res, a)``                            res = max(a, 0)
``relu_backward(res, g, y)``                res = g where y > 0 else 0
``tanh_backward(res, g, y)``                res = g * (1 - y * y)
``sigmoid_backward(res, g, y)``             res = g * y * (1 - y)
``cmax(res, a, b)``                         elementwise max (b tensor or number)
``eq(res, a, b)``                           res = a == b (bool res; an int and a float
                                            compare by value); ``ne lt le gt ge`` likewise
``logical_and logical_or`` ``(res, a, b)``  on bool tensors; ``logical_not(res, a)``
``cmin(res, a, b)``                         elementwise min
``floordiv(res, a, b)`` ``mod(res, a, b)``  floor(a / b), a - floor(a / b) * b (Python's)
``rsqrt log1p``                             ``f(res, a)``: 1 / sqrt(a), log(1 + a)
``floor ceil``                              ``f(res, a)``: rounded down, rounded up
``round(res, a)``                           to the nearest integer, halves to even
``where(res, cond, a, b)``                  a where cond else b (cond: a's shape, or rows)
``min prod any all`` ``(res, x, dims)``     reductions as ``sum``
``prod_backward(res, g, x, dims)``          gradient of prod over dims (exact at zeros)
``argmin(res, x, dim, index)``              as ``argmax``
``dtype(x)``                                the dtype's name, ``"int64"``
``mm(res, a, b)``                           res = a @ b (use ``t`` views for transposes)
``addmm(res, m, a, b)``                     res = m + a @ b (m broadcast)
``blas_mm(res, a, b)``                      setup: a function doing res = a @ b in numpy, or nil
``sum(res, x, dims)`` / ``mean``            reduce over dims; kept as size 1 when res has x's rank
``sum_buffers(x, dims)``                    scratch making ``sum(res, x, dims, ones)`` a matrix
                                            product (channels-last x over all but dim 2), or nil
``layout_buffer(x, like)``                  scratch of x's shape in like's layout when they
                                            differ on the CPU, else nil (setup only)
``max(res, x, dims)``                       max over one dim (values)
``argmax(res, x, dim, index)``              index (0-based) of the max along dim; index: an
                                            int64 buffer from ``index_like(res)`` when res is
                                            not int64, else nil
``softmax(res, x, dim)``                    softmax along dim; ``log_softmax`` likewise
``softmax_rows(res, x, x_t, res_t)``        softmax along 2-D x's last dim, run on x^T in
                                            scratch x_t, res_t (faster for < 16 columns)
``softmax_backward(res, g, y, dim)``        res = y * (g - sum(g * y, dim))
``log_softmax_backward(res, g, y, dim)``    res = g - exp(y) * sum(g, dim)
``fill(res, v)`` / ``zero(res)``            res = v / res = 0
``copy(res, src)``                          res = src (src broadcast to res)
``normal(res, mean, std, gen)``             res ~ N(mean, std^2); gen: a generator or nil
                                            (torch's global one)
``truncated_normal(res, mean, std, gen)``   res ~ N(mean, std^2) cut at 2 std (TensorFlow's)
``uniform(res, low, high, gen)``            res ~ U(low, high); integers in [low, high) for an
                                            integer res
``tensor_like(ref, values, sizes)``         new tensor on ref's device (setup only)
``view(x, sizes)`` ``expand(x, sizes)``     views sharing x's memory (setup only)
``t(x)``                                    transposed view of 2-D x (setup only)
``narrow(x, dim, start, length)``           view of x[start .. start+length-1] along dim
``size(x, dim)`` ``dim(x)`` ``numel(x)``    sizes; ``size(x)`` gives a Lua array
``same_memory(a, b)``                       true when a and b start at one address
``shape(x)``                                sizes as a Lua array (Lua prelude)
``dim_of(axis)`` / ``dims_of(axes)``        0-based axis (number or array) -> 1-based (prelude)
``scatter_rows(var, indices, updates)``     the scatter ops' indices flattened and updates
                                            viewed (or expanded) as one row of var per index
                                            (prelude)
``label_checked(run, classes)``             a closure running run() whose "label outside the
                                            valid range" error says labels must be class ids in
                                            [0, classes) (prelude)
``window_input(x, y, k, s, fill)``          for a kernel over windows of NCHW x giving y's
                                            sizes: the padding {top, left} to give it, the
                                            tensor to run it on (x, or where TF's padding is
                                            uneven a copy bordered with fill) and the copy into
                                            that to run first every step, or nil (prelude)
``window_grad(x, y, grad_x, k, s)``         likewise for a kernel writing grad_x, x's gradient:
                                            grad_x or a zero-bordered buffer, and the copy of
                                            its inside to grad_x to run after, or nil (prelude)
``window_pads(x, y, kernel, stride)``       TF padding (top, bottom, left, right) that makes
                                            windows of NCHW x give y's height and width
``pad_buffer(x, t, b, l, r, v)``            new buffer of x's size plus pads, filled with v,
                                            and the view of its inside (setup only)
``window_count(x, y, kernel, stride)``      real (unpadded) pixels per window where TF's padding
                                            is uneven, else nil (setup only)
``conv2d(res, x, w, b, stride, pad, buf)``  NCHW convolution, + bias b unless nil; through
                                            buf's channels-last copies unless nil
``conv2d_activation(res, x, w, b, s, p,``
``act)``                                    res = act(conv2d(x, w) + b), act ``"tanh"``,
                                            ``"relu"`` or ``"sigmoid"`` (oneDNN's post-op)
``linear_activation(res, x, w, b, act)``    res = act(x @ w^T + b) likewise
``conv2d_buffers(x, w, y, stride, pad,``
``grad_weight)``                            channels-last scratch for conv2d (or, with
                                            grad_weight, its weight gradient) when it runs
                                            faster so here, else nil (timed; setup only)
``conv2d_backward_data(res, g, x, w, s, p)``
                                            gradient of conv2d's x (x: for its shape)
``conv2d_backward_weight(res, g, x, w, ...)``
                                            gradient of conv2d's weight (same arguments, and
                                            buf from conv2d_buffers)
``max_pool2d_buffers(x, y, argmax)``         scratch buffers of max_pool2d (setup only)
``max_pool2d(res, index, x, k, s, p,``
``buffers)``                                max over windows, and their argmax (int64) unless
                                            index is nil
``max_pool2d_backward(res, g, index, k, s,``
``p, gbuf)``                                gradient of x: g scattered to the argmax (g copied
                                            into gbuf first unless nil)
``avg_pool2d(res, x, k, s, p, count)``      window means, padding not counted; with count, x is
                                            bordered (p is 0) and res = window sums / count
``avg_pool2d_backward(res, g, x, k, s, p,``
``count, scaled)``                          gradient of x; scaled: a buffer like g (with count)
``batch_norm(res, mean, invstd, x, gamma,``
``beta, eps)``                              normalise over dim 2 with the batch's statistics,
                                            saving mean and 1 / sqrt(var + eps)
``batch_norm_backward(gx, ggamma, gbeta,``
``g, x, gamma, mean, invstd, eps)``         gradients of x, gamma and beta in one call
``sparse_softmax_cross_entropy(res, z, l,``
``log_probs, index, total_weight)``         mean of -log_softmax(z)[l]; buffers like z, like l
                                            (int64) and a scalar
``sparse_softmax_cross_entropy_backward(``
``res, g, z, l, index, minus_ones)``        (softmax(z) - onehot(l)) * g / batch; l, index
                                            (int64) and minus_ones (all -1) are (batch, 1)
``dropout(res, mask, x, keep_prob, gen)``   mask = (U(0, 1) < p) / p; res = x * mask
``adam_update(var, m, v, g, t, lr, b1,``
``b2, eps)``                                one Adam step in place (torch's fused kernel); t:
                                            the step count, a scalar tensor
``empty_like(x)`` ``full_like(x, v)``       new tensors like x (setup only)
``fused_step(kwarg, x, y)``                  the step of a ``_fused`` node: its generated code
                                            compiled (cached), results copied into y (setup)
``empty(ref, sizes)``                       new contiguous tensor on ref's device (setup only)
``is_cpu(x)``                               true when x lives in CPU memory
``nchw_view(x, data_format)``               NHWC x as an NCHW view (channels-last strides, no
                                            copy); x itself for NCHW or nil
``oihw_view(w, filter_format)``             HWIO filter w as an OIHW view; w for OIHW or nil
``bias_view(b, x, data_format)``            bias b viewed to broadcast along x's channel axis
``column_view(x)``                          x with a trailing axis of size 1 (a view)
``ids_buffer(ids, trailing_one)``           int64 scratch for ids: flat, or ids' shape + (1,)
``sparse_xent(res, z, l, log_probs, idx)``  res = -log_softmax(z)[l] along the last dim; l of
                                            any dtype, idx from ``ids_buffer(l, true)``
``sparse_xent_backward(res, g_col, z, l,``
``idx, minus_ones)``                        res = (softmax(z) - onehot(l)) * g_col
``embedding_lookup(res, params, ids, idx)`` rows of params at ids (gather along dim 1)
``embedding_lookup_backward(res, g, ids,``
``idx)``                                    rows of g summed into zeros at ids
``in_top_k_buffers(p)`` /                   TensorFlow's in_top_k into bool res (targets out of
``in_top_k(res, p, targets, k, buffers)``   range or not finite: false)
``top_k_buffers(x)``                         a sorted copy of x and its int64 order (setup only)
``top_k(values, indices, x, k, buffers)``   the k largest along the last dim, in descending
                                            order, the lower index first among equal ones
``top_k_backward(res, g, indices, index)``  zeros with g put at indices along the last dim;
                                            index: int64 scratch like indices
``window_sum(res, x, radius)``              sums of x over [d - radius, d + radius] along the
                                            last dim (out-of-range elements count as 0)
``confusion_matrix(res, l, p, w, rows,``
``cols)``                                   res (n, n) = zeros with w[i] added at (l[i], p[i]);
                                            rows, cols: flat int64 scratch from ``ids_buffer``
==========================================  =================================================

Collectives (tinyflow/ops/collective.py; ``torch.distributed`` through
:mod:`tinyflow.distributed`, after ``tinyflow.distributed.init()``; ``label`` names the collective
in errors; a failure or a timeout is a ``DistributedError`` naming it and the ranks):

==========================================  =================================================
``collective_check(kind, label, x)``        every rank brings kind/label with x's shape and
                                            dtype (setup only; once per signature)
``all_reduce(res, x, average, label)``      res = sum of x over the ranks (/ their number with
                                            average); res may be x itself
``all_reduce_start(flat, label)``           start summing flat over the ranks, not waiting
``all_reduce_wait(flat, label)``            wait for flat's reduction (started above)
``bucket_views(flat, likes)``               views of flat, one per tensor of likes (its shape),
                                            packed in order (setup only)
``world_size()``                            the number of ranks
``broadcast(res, x, root, label)``          res = x of rank root; res may be x itself
``all_gather(res, x, label)``               res = every rank's x along dim 1, in rank order
==========================================  =================================================
"""
from __future__ import annotations

import builtins
import functools
import math
import time
from contextlib import contextmanager
from typing import ClassVar

import numpy as np
import torch

__all__ = ["FUNCTIONS", "scratch_scope"]


class _Scratch:
    """Open records of the tensors op bodies allocate in their setup: scratch buffers that live
    beside the memory plan.  The executor binding closures opens one (:func:`scratch_scope`)
    and reports their bytes as the plan's workspace."""

    records: ClassVar[list[list]] = []


@contextmanager
def scratch_scope():
    """Collect, in the list it yields, every scratch tensor set up inside the ``with``."""
    record: list = []
    _Scratch.records.append(record)
    try:
        yield record
    finally:
        _Scratch.records.remove(record)


def _scratch(tensor):
    for record in _Scratch.records:
        record.append(tensor)
    return tensor


def _dim(d) -> int:
    d = int(d)
    return d - 1 if d > 0 else d


def _dims(dims):
    """Lua dims (number, array or nil) -> Python tuple of 0-based dims, or None for all."""
    if dims is None:
        return None
    if isinstance(dims, (int, float)):
        return (_dim(dims),)
    return tuple(_dim(d) for d in dims.values())


def _sizes(sizes):
    return tuple(int(s) for s in sizes.values()) if hasattr(sizes, "values") else (int(sizes),)


def add(res, a, b, c=None):
    if c is None:
        torch.add(a, _number(res, b), out=res)
    else:  # Torch7's add(res, a, value, b)
        torch.add(a, c, alpha=b, out=res)


def csub(res, a, b):
    torch.sub(a, b, out=res)


def rsub(res, a, s):
    if isinstance(s, torch.Tensor):
        torch.sub(s, a, out=res)
    else:  # torch.rsub has no out= form: -a, then + s (exact, as s - a)
        torch.neg(a, out=res)
        res.add_(_number(res, s))


def cmul(res, a, b):
    torch.mul(a, b, out=res)


def mul(res, a, s):
    torch.mul(a, _number(res, s), out=res)


# Integer a into a float res (TF's truediv): a is first copied into res, so the division runs
# in res's dtype (float64 for int32, exact) rather than torch's default float32.
def div(res, a, s):
    torch.div(_as_result(res, a), s, out=res)


def cdiv(res, a, b):
    torch.div(_as_result(res, a), b, out=res)


def rdiv(res, a, s):
    torch.reciprocal(_as_result(res, a), out=res)
    res.mul_(s)


def pow(res, a, p):
    torch.pow(_number(res, a), _number(res, p), out=res)


def _unary(fn):
    def apply(res, a):
        fn(a, out=res)
    apply.__name__ = fn.__name__
    return apply


neg, exp, log, sqrt, abs, sign, sigmoid = (
    _unary(f) for f in (torch.neg, torch.exp, torch.log, torch.sqrt, torch.abs, torch.sign,
                        torch.sigmoid))


def _numpy_views(*tensors):
    """numpy arrays sharing the memory of CPU float tensors, else None."""
    if not builtins.all(t.device.type == "cpu" and t.dtype in (torch.float32, torch.float64)
                        for t in tensors):
        return None
    return [t.detach().numpy() for t in tensors]


# aten's CPU tanh is 3-7x slower per core than numpy's (SVML; within 2 ulp, as aten's): LeNet's
# 100x20x24x24 tanh takes 1.5-2.7 ms on 2 threads against 0.41 on numpy's one.  With 8 threads
# or more aten catches up.
def _tanh_views(a, res):
    return _numpy_views(a, res) if torch.get_num_threads() < 8 else None


def tanh(res, a):
    arrays = _tanh_views(a, res) if res.numel() >= 64 else None
    if arrays is None:
        torch.tanh(a, out=res)
    else:
        np.tanh(arrays[0], out=arrays[1])


def tanh_function(res, a):
    """Setup: a function doing res = tanh(a) (numpy's, on views made once), or nil."""
    arrays = _tanh_views(a, res)
    return None if arrays is None else functools.partial(np.tanh, arrays[0], out=arrays[1])


def relu(res, a):
    torch.clamp_min(a, 0.0, out=res)


def relu_backward(res, g, y):
    torch.ops.aten.threshold_backward.grad_input(g, y, 0.0, grad_input=res)


def tanh_backward(res, g, y):
    torch.ops.aten.tanh_backward.grad_input(g, y, grad_input=res)


def sigmoid_backward(res, g, y):
    torch.ops.aten.sigmoid_backward.grad_input(g, y, grad_input=res)


def cmax(res, a, b):
    if isinstance(b, torch.Tensor):
        torch.maximum(a, b, out=res)
    else:
        torch.clamp_min(a, b, out=res)


def eq(res, a, b):
    torch.eq(a, b, out=res)


def mm(res, a, b):
    torch.mm(a, b, out=res)


# CPU floats, few columns (784x10 weights): numpy's OpenBLAS is 1.4-2.5x faster than torch's
# MKL (100x784 @ 784x10: 23 us against 32; 784x100 @ 100x10: 18 against 38).
def blas_mm(res, a, b):  # the numpy views share the planned buffers, which never move
    arrays = _numpy_views(a, b, res)
    if arrays is not None:
        return functools.partial(np.matmul, arrays[0], arrays[1], out=arrays[2])


def addmm(res, m, a, b):
    torch.addmm(m, a, b, out=res)


# Two CPU GEMMs, each fastest on some shapes (2 threads, ms): mnist_deep's 50x3136 @ 3136x1024
# MKL (torch.mm) 2.6-2.8, oneDNN's matmul 1.9-2.1.  Products of at least _TIMED_MACS
# multiply-adds are timed once per process and shapes (as cuDNN's benchmark mode), on random
# data of their shapes and strides.  (numpy's OpenBLAS, faster alone on some, is left out: its
# own threads spin after each call and took the cores from torch's, LeNet's step 1.8x slower.)
_TIMED_MACS = 1 << 22


def mm_function(res, a, b):
    """Setup: a function doing res = a @ b (2-D) with the fastest GEMM for these shapes."""
    if not _onednn(res) or a.shape[0] * a.shape[1] * b.shape[1] < _TIMED_MACS:
        return functools.partial(torch.mm, a, b, out=res)
    choice = _gemm_choice(*((tuple(t.shape), t.stride()) for t in (res, a, b)),
                         torch.get_num_threads())
    return _gemms(res, a, b)[choice]


@functools.lru_cache(maxsize=256)
def _gemm_choice(res, a, b, threads) -> str:
    """The name of the faster GEMM for tensors of these ``(shape, strides)``, timed on random
    data (``threads``: torch's count when timed, part of the key)."""
    del threads
    timed = _gemms(*(torch.empty_strided(shape, stride).normal_() for shape, stride in (res, a, b)))
    return builtins.min(timed, key=lambda name: _seconds(timed[name]))


def _gemms(res, a, b):
    """{name: function doing res = a @ b} of the GEMMs that can run on these tensors."""
    gemms = {"mkl": functools.partial(torch.mm, a, b, out=res)}
    if _ONEDNN_POINTWISE:  # a fresh result, copied
        b_t = b.t()
        gemms["onednn"] = lambda: res.copy_(torch.ops.mkldnn._linear_pointwise(
            a, b_t, None, "none", [], ""))
    return gemms


def _reduce(function, res, x, dims):
    dims = _dims(dims)
    if dims == ():  # an empty axis list reduces nothing; torch would read dim=() as "all"
        res.copy_(x)
        return
    dims = tuple(range(x.dim())) if dims is None else dims
    function(x, dim=dims, keepdim=res.dim() == x.dim(), out=res)


def sum(res, x, dims=None, ones=None):
    if ones is not None:  # x channels-last, summed over all but dim 2: see sum_buffers
        torch.mm(ones, x.permute(0, 2, 3, 1).reshape(-1, x.shape[1]), out=res.view(1, -1))
        return
    _reduce(torch.sum, res, x, dims)


def sum_buffers(x, dims=None):
    # A channels-last (N, C, H, W) x summed over all but C (a bias gradient) is an (N*H*W, C)
    # matrix summed over rows: ones @ x runs at BLAS speed, torch.sum 5x slower on those
    # strides.  The ones row (N*H*W), or nil when that is not the case.
    dims = _dims(dims)
    if (x.device.type != "cpu" or not _channels_last(x) or not x.is_floating_point()
            or dims is None or sorted(d % 4 for d in dims) != [0, 2, 3]):
        return None
    return _scratch(torch.ones((1, x.numel() // x.shape[1]), dtype=x.dtype))


def mean(res, x, dims=None):
    if x.is_floating_point() or x.dtype == torch.bool:  # bool: the 0/1 mean, as float32
        _reduce(functools.partial(torch.mean, dtype=res.dtype), res, x, dims)
    else:  # integers: TF's truncated integer mean (torch.mean takes floats only)
        _reduce(torch.sum, res, x, dims)
        torch.div(res, x.numel() // builtins.max(res.numel(), 1), rounding_mode="trunc", out=res)


def max(res, x, dims=None):
    _reduce(torch.amax, res, x, dims)


def _arg_reduce(function):
    def apply(res, x, dim, index=None):
        # index: an int64 buffer when res is not int64 (torch writes int64 indices only)
        function(x, dim=_dim(dim), keepdim=res.dim() == x.dim(),
                 out=res if index is None else index)
        if index is not None:
            res.copy_(index)
    return apply


argmax, argmin = _arg_reduce(torch.argmax), _arg_reduce(torch.argmin)


def index_like(ref):
    return _scratch(torch.empty(ref.shape, dtype=torch.int64, device=ref.device))


def softmax(res, x, dim):
    torch.softmax(x, _dim(dim), out=res)


def softmax_rows(res, x, x_t, res_t):
    x_t.copy_(x.t())
    torch.softmax(x_t, 0, out=res_t)
    res.copy_(res_t.t())


def log_softmax(res, x, dim):
    torch.log_softmax(x, _dim(dim), out=res)


# The kernels' input_dtype is the forward's input dtype, which is res's (x's gradient).
def softmax_backward(res, g, y, dim):
    torch.ops.aten._softmax_backward_data.out(g, y, _dim(dim), res.dtype, grad_input=res)


def log_softmax_backward(res, g, y, dim):
    torch.ops.aten._log_softmax_backward_data.out(g, y, _dim(dim), res.dtype, out=res)


def adam_update(var, m, v, grad, step, lr, beta1, beta2, eps):
    torch._fused_adam_([var], [grad], [m], [v], [], [step], lr=lr, beta1=beta1, beta2=beta2,
                       weight_decay=0.0, eps=eps, amsgrad=False, maximize=False)


def fill(res, v):
    res.fill_(v)


def zero(res):
    res.zero_()


def copy(res, src):
    res.copy_(src)


def normal(res, mean=0.0, std=1.0, gen=None):
    # N(mean, std^2) is N(mean, |std|^2): TensorFlow takes a negative std (z * std + mean)
    res.normal_(mean, builtins.abs(std), generator=gen)


# P(|z| < 2) = erf(2 / sqrt(2)) for z ~ N(0, 1): TensorFlow's truncation at two deviations
_TRUNCATED_MASS = math.erf(math.sqrt(2.0))


def truncated_normal(res, mean=0.0, std=1.0, gen=None):
    # Inverse CDF of N(0, 1) restricted to [-2, 2]: the law TensorFlow's resampling of
    # out-of-range draws gives, in place and without a loop; clamp guards rounding.
    res.uniform_(-_TRUNCATED_MASS, _TRUNCATED_MASS, generator=gen)
    res.erfinv_().mul_(math.sqrt(2.0)).clamp_(-2.0, 2.0).mul_(std).add_(mean)


def uniform(res, low=0.0, high=1.0, gen=None):
    if res.is_floating_point() and low <= high:
        res.uniform_(low, high, generator=gen)
    elif res.is_floating_point():  # TensorFlow's u * (high - low) + low takes low > high too
        res.uniform_(generator=gen).mul_(high - low).add_(low)
    else:
        res.random_(int(low), int(high), generator=gen)


def tensor_like(ref, values, sizes):
    data = [float(v) for v in values.values()] if hasattr(values, "values") else [float(values)]
    return _scratch(torch.tensor(data, dtype=ref.dtype, device=ref.device)).view(_sizes(sizes))


def view(x, sizes):
    return x.view(_sizes(sizes))


def expand(x, sizes):
    return x.expand(_sizes(sizes))


def t(x):
    return x.t()


def narrow(x, dim, start, length):
    return x.narrow(_dim(dim), int(start) - 1, int(length))


def size(x, dim=None):
    return tuple(x.shape) if dim is None else x.shape[_dim(dim)]


def dim(x):
    return x.dim()


def numel(x):
    return x.numel()


def same_memory(a, b):
    return a.data_ptr() == b.data_ptr()


# -- layers (tinyflow/ops/conv.py) -------------------------------------------------------------
# PyTorch has no kernel writing into a given buffer for convolution, convolution_backward and
# native_batch_norm_backward: their ``out`` forms (or we) compute a new tensor and copy it in.
# Pooling, native_batch_norm, nll_loss and softmax write into ``out`` directly.
_aten = torch.ops.aten
_NO_DILATION = (1, 1)


def window_pads(x, y, kernel, stride):
    pads = []
    for axis, k, s in zip((2, 3), _sizes(kernel), _sizes(stride)):
        total = builtins.max((y.shape[axis] - 1) * s + k - x.shape[axis], 0)
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
    return _scratch(buffer), inside


def window_count(x, y, kernel, stride):
    # Where the padding is even, torch's avg_pool2d leaves it out of the count by itself.
    top, bottom, left, right = window_pads(x, y, kernel, stride)
    if top == bottom and left == right:
        return None
    ones = torch.ones((1, 1) + tuple(x.shape[2:]), dtype=x.dtype, device=x.device)
    padded, inside = _pad_buffer(ones, top, bottom, left, right, 0.0)
    inside.fill_(1.0)
    count = _aten.avg_pool2d(padded, _sizes(kernel), _sizes(stride), (0, 0), False, True, 1)
    return _scratch(count).view(tuple(y.shape[2:]))


def _layout_of(x, like):
    """x as a channels-last view when ``like`` is channels-last and x has one channel (the same
    bytes either way): oneDNN then runs the whole convolution channels-last, with no copy."""
    if (x.dim() == 4 and x.shape[1] == 1 and x.is_contiguous() and not like.is_contiguous()
            and like.is_contiguous(memory_format=torch.channels_last)):
        return x.as_strided(x.shape, (x.stride(0), 1, x.stride(2), x.stride(3)))
    return x


def _channels_last(*tensors):
    return builtins.any(t.dim() == 4 and not t.is_contiguous()
                        and t.is_contiguous(memory_format=torch.channels_last) for t in tensors)


# No convolution kernel writes into a given buffer: each returns a new tensor that is copied
# into the plan's.  Slices of the batch bound that transient (a 10,000-image forward).
_CHUNK_BYTES = 64 << 20


def _by_batch(res, x, run):
    """``res[i:j] = run(x[i:j])`` over slices of the batch of at most _CHUNK_BYTES of res."""
    batch = res.shape[0]
    if res.numel() * res.element_size() <= _CHUNK_BYTES:  # a training batch: one call
        res.copy_(run(x))
        return
    step = builtins.max(1, _CHUNK_BYTES * batch // (res.numel() * res.element_size()))
    for start in range(0, batch, step):
        res[start:start + step].copy_(run(x[start:start + step]))


def conv2d(res, x, weight, bias, stride, pad, buffers=None):
    if buffers is None and _onednn(x):  # aten's convolution: 1.17 ms for LeNet's conv1, 0.71
        conv2d_activation(res, x, weight, bias, stride, pad, None)
        return
    x = _layout_of(x, res)
    if buffers is not None:  # channels-last copies of x and weight, and the result
        x, weight = buffers[0].copy_(x), buffers[1].copy_(weight)
        res, out = buffers[2], res
    stride, pad = _sizes(stride), _sizes(pad)
    _by_batch(res, x, lambda part: _aten.convolution(part, weight, bias, stride, pad,
                                                     _NO_DILATION, False, (0, 0), 1))
    if buffers is not None:
        out.copy_(res)


_ACTIVATIONS = {"tanh": torch.tanh_, "relu": torch.relu_, "sigmoid": torch.sigmoid_}


def _onednn(x):
    return x.device.type == "cpu" and x.dtype == torch.float32 and _ONEDNN_POINTWISE


def conv2d_activation(res, x, weight, bias, stride, pad, activation):
    # oneDNN applies the activation (None: none) as the convolution's post-op (one pass over y
    # instead of two).  The plain weight goes in as it is: oneDNN reorders it inside the call,
    # which in LeNet's step is ~0.1 ms a call faster than packing it here first
    if not _onednn(x):
        conv2d(res, x, weight, bias, stride, pad)
        if activation is not None:
            _ACTIVATIONS[activation](res)
        return
    x, stride, pad = _layout_of(x, res), _sizes(stride), _sizes(pad)
    layout = torch.channels_last if _channels_last(res) else torch.contiguous_format
    if (activation in (None, "relu") and x.is_contiguous(memory_format=layout)
            and res.numel() * res.element_size() <= _CHUNK_BYTES):
        # the in-place variant takes no post-op but relu after its sum: oneDNN writes
        # y = relu(0 + conv + bias) straight into res, no fresh output to copy
        # (mnist_deep's conv1: 1.13 -> 0.99 ms)
        torch.ops.mkldnn._convolution_pointwise_.binary(
            res.zero_(), x, weight, bias, pad, stride, _NO_DILATION, 1, "add", None, activation,
            [], None)
        return
    _by_batch(res, x, lambda part: torch.ops.mkldnn._convolution_pointwise(
        part, weight, bias, pad, stride, _NO_DILATION, 1, activation or "none", [], ""))


def linear_activation(res, x, weight, bias, activation):
    # oneDNN's matmul with the activation as post-op (fc1 + tanh of LeNet: 0.55 -> 0.43 ms)
    if not _onednn(x):
        if bias is None:
            mm(res, x, weight.t())
        else:
            addmm(res, bias, x, weight.t())
        _ACTIVATIONS[activation](res)
        return
    res.copy_(torch.ops.mkldnn._linear_pointwise(x, weight, bias, activation, [], ""))


_ONEDNN_POINTWISE = torch.backends.mkldnn.is_available() and hasattr(
    torch.ops.mkldnn, "_convolution_pointwise")


def _conv2d_backward(g, x, weight, stride, pad, mask):
    return _aten.convolution_backward(g, x, weight, None, _sizes(stride), _sizes(pad),
                                      _NO_DILATION, False, (0, 0), 1, mask)


def conv2d_backward_data(res, g, x, weight, stride, pad):
    res.copy_(_conv2d_backward(g, x, weight, stride, pad, (True, False, False))[0])


def conv2d_backward_weight(res, g, x, weight, stride, pad, buffers=None):
    x = _layout_of(x, g)
    if buffers is not None:  # channels-last copies of g, x and weight
        g, x, weight = (b.copy_(t) for b, t in zip(buffers, (g, x, weight)))
    res.copy_(_conv2d_backward(g, x, weight, stride, pad, (False, True, False))[1])


def _seconds(run, repeats=3):
    run()  # warm up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = builtins.min(best, time.perf_counter() - start)
    return best


def conv2d_buffers(x, weight, y, stride, pad, grad_weight=False):
    # On the CPU, MKL-DNN runs some convolutions several times faster on channels-last tensors
    # and others slower, by shape: time both ways once, copies included, on random data of
    # these shapes (as cuDNN's benchmark mode) and return the channels-last scratch copies
    # ([x, weight, y], or [g, x, weight] with grad_weight) when they win clearly, else nil.
    if x.device.type != "cpu" or _channels_last(x, y):  # the layout chosen (ChooseLayout)
        return None
    x, weight, y = (torch.randn(t.shape) for t in (x, weight, y))
    copies = [torch.empty_like(t, memory_format=torch.channels_last)
              for t in ((y, x, weight) if grad_weight else (x, weight, y))]
    if grad_weight:
        result = torch.empty_like(weight)
        seconds = [_seconds(lambda b=b: conv2d_backward_weight(result, y, x, weight, stride, pad,
                                                               b)) for b in (None, copies)]
    else:
        seconds = [_seconds(lambda b=b: conv2d(y, x, weight, None, stride, pad, b))
                   for b in (None, copies)]
    return [_scratch(c) for c in copies] if seconds[1] < 0.8 * seconds[0] else None


def max_pool2d_buffers(x, y, argmax=True):
    # On the CPU, PyTorch's max pooling is several times faster on channels-last tensors: pool
    # channels-last copies there ([x copy, y copy, index copy], no index copy without argmax);
    # nothing to keep on the GPU.
    if x.device.type != "cpu" or _channels_last(x, y):
        return None
    index = torch.empty(y.shape, dtype=torch.int64)  # its size only
    return [_scratch(torch.empty_like(t, memory_format=torch.channels_last))
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


def layout_buffer(x, like):
    # torch's pooling gradient runs at its channels-last speed only when g is channels-last too
    # (5x slower on a contiguous g from a flatten): a scratch of x's shape in like's layout
    if x.device.type != "cpu" or _channels_last(x) or not _channels_last(like):
        return None
    return _scratch(torch.empty_like(x, memory_format=torch.channels_last))


def max_pool2d_backward(res, g, index, kernel, stride, pad, g_buffer=None):
    # res stands in for max_pool2d's input: the kernel takes only its sizes from it
    if g_buffer is not None:
        g = g_buffer.copy_(g)
    args = (_sizes(kernel), _sizes(stride), _sizes(pad), _NO_DILATION, False)
    _aten.max_pool2d_with_indices_backward.grad_input(g, res, *args, index, grad_input=res)


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
    _aten.native_batch_norm_backward.out(g, x, gamma, None, None, mean, invstd, True, float(eps),
                                         (True, True, True), out0=grad_x, out1=grad_gamma,
                                         out2=grad_beta)


def sparse_softmax_cross_entropy(res, logits, labels, log_probs, index, total_weight):
    index.copy_(labels)
    torch.log_softmax(logits, 1, out=log_probs)
    _aten.nll_loss_forward.output(log_probs, index, None, 1, -100, output=res,
                                  total_weight=total_weight)


def sparse_softmax_cross_entropy_backward(res, g, logits, labels, index, minus_ones):
    index.copy_(labels)
    torch.softmax(logits, 1, out=res)
    res.scatter_add_(1, index, minus_ones)
    res.mul_(g).div_(res.shape[0])


def dropout(res, mask, x, keep_prob, gen=None):
    mask.uniform_(generator=gen)
    torch.lt(mask, keep_prob, out=mask)
    mask.div_(keep_prob)
    torch.mul(x, mask, out=res)


def empty_like(x):
    return _scratch(torch.empty_like(x))


def empty(ref, sizes):
    return _scratch(torch.empty(_sizes(sizes), dtype=ref.dtype, device=ref.device))


def is_cpu(x):
    return x.device.type == "cpu"


def full_like(x, value):
    return _scratch(torch.full_like(x, float(value)))


# -- tf.nn (tinyflow/ops/nn_tf.py): layouts as views, ids and labels ---------------------------
def nchw_view(x, data_format=None):
    # NHWC x as its NCHW view with channels-last strides: torch's conv and pooling kernels take
    # it as channels-last input, so nothing is transposed
    return x.permute(0, 3, 1, 2) if data_format == "NHWC" else x


def oihw_view(weight, filter_format=None):
    # TensorFlow's HWIO filter [kh, kw, in, out] as an OIHW view
    return weight.permute(3, 2, 0, 1) if filter_format == "HWIO" else weight


def bias_view(bias, value, data_format=None):
    # bias (C,) broadcasting along value's channel axis: axis 1 for NCHW, else the last
    if data_format == "NCHW":
        return bias.view((-1,) + (1,) * (value.dim() - 2))
    return bias


def column_view(x):
    return x.unsqueeze(-1)


def ids_buffer(ids, trailing_one=False):
    shape = tuple(ids.shape) + (1,) if trailing_one else (ids.numel(),)
    return _scratch(torch.empty(shape, dtype=torch.int64, device=ids.device))


def _read_ids(index, ids, size, what):
    # class ids / indices of any dtype into the int64 buffer, checked as TensorFlow's CPU
    # kernels check them (an index out of range would be a device assert on a GPU)
    index.copy_(ids.reshape(index.shape))
    if index.numel():
        low, high = torch.aminmax(index)
        if low < 0 or high >= size:
            bad = int(low) if low < 0 else int(high)
            raise IndexError(f"{what} {bad} is outside the valid range [0, {size})")


def sparse_xent(res, logits, labels, log_probs, index):
    _read_ids(index, labels, logits.shape[-1], "label")
    torch.log_softmax(logits, -1, out=log_probs)
    torch.gather(log_probs, -1, index, out=res.unsqueeze(-1))
    res.neg_()


def sparse_xent_backward(res, g_column, logits, labels, index, minus_ones):
    _read_ids(index, labels, logits.shape[-1], "label")
    torch.softmax(logits, -1, out=res)
    res.scatter_add_(-1, index, minus_ones)
    res.mul_(g_column)


def embedding_lookup(res, params, ids, index):
    _read_ids(index, ids, params.shape[0], "id")
    torch.index_select(params, 0, index, out=res.view((-1,) + tuple(params.shape[1:])))


def embedding_lookup_backward(res, g, ids, index):
    _read_ids(index, ids, res.shape[0], "id")
    res.zero_()
    res.index_add_(0, index, g.reshape((-1,) + tuple(res.shape[1:])))


def in_top_k_buffers(predictions):
    batch, classes = predictions.shape
    device = predictions.device
    return [_scratch(t) for t in (
        torch.empty((batch, 1), dtype=torch.int64, device=device),      # target ids
        torch.empty((batch, 1), dtype=predictions.dtype, device=device),  # their predictions
        torch.empty((batch, classes), dtype=torch.bool, device=device),   # beats the target
        torch.empty((batch,), dtype=torch.int64, device=device),          # how many beat it
        torch.empty((batch, 1), dtype=torch.bool, device=device),         # valid target
        torch.empty((batch, 1), dtype=torch.bool, device=device))]


def in_top_k(res, predictions, targets, k, buffers):
    # TensorFlow's rule: true when fewer than k classes score strictly higher than the target
    # (ties straddling the boundary count as in); false for a target out of range or whose
    # prediction is not finite
    index, target, beats, count, valid, check = buffers
    classes = predictions.shape[1]
    index.copy_(targets.view(-1, 1))
    torch.ge(index, 0, out=valid)
    valid.logical_and_(torch.lt(index, classes, out=check))
    index.clamp_(0, classes - 1)
    torch.gather(predictions, 1, index, out=target)
    valid.logical_and_(torch.lt(torch.abs(target, out=target), float("inf"), out=check))
    torch.gather(predictions, 1, index, out=target)  # again: abs overwrote it
    torch.gt(predictions, target, out=beats)
    torch.sum(beats, 1, out=count)
    torch.lt(count, int(k), out=res)
    res.logical_and_(valid.view(-1))



# -- array ops (tinyflow/ops/array.py) ---------------------------------------------------------
# ``permute(x, dims)``               view of x with its dims in the order dims (setup only)
# ``flip(res, x, dims)``             res = x reversed along dims (1-based, or as strided_view
#                                    gives them)
# ``strided_view(x, kwarg)``         view of x for a strided_slice's attrs (TensorFlow's begin,
#                                    end, strides and masks), and the dims to flip, or nil
#                                    (negative strides: torch views cannot have them; setup only)
# ``index_select(res, x, dim, i)``   res = x's slices at indices i (int32/int64, 1-D) along dim
# ``index_add(res, dim, i, src, a)`` res[..., i[k], ...] += a * src[..., k, ...] along dim
#                                    (a: 1 when nil)
# ``ramp(ref, n)``                   0, 1, ..., n - 1 in ref's dtype (setup only)
# ``bool_like(ref)``                 a bool tensor of ref's shape (setup only)
# ``masked_fill(res, mask, v)``      res = v where mask
# ``index_copy(res, dim, i, src)``   res[..., i[k], ...] = src[..., k, ...] along dim (i: int64)
# ``randperm(res, gen)``             res = a random order of 0 .. numel(res) - 1 (int64 res),
#                                    from generator gen (nil: torch's global one)
def permute(x, dims):
    return x.permute(_dims(dims))


def flip(res, x, dims):
    _aten.flip.out(x, dims if isinstance(dims, tuple) else _dims(dims), out=res)


def _mask_index(kwarg):
    """A strided_slice's attrs as a Python index (tinyflow.ops.array.slice_index in Lua terms)."""
    begin, end, strides = (tuple(int(v) for v in kwarg[k].values())
                           for k in ("begin", "end", "strides"))
    masks = [int(kwarg[k] or 0) for k in ("begin_mask", "end_mask", "ellipsis_mask",
                                          "new_axis_mask", "shrink_axis_mask")]
    index = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if masks[2] & bit:
            index.append(Ellipsis)
        elif masks[3] & bit:
            index.append(None)
        elif masks[4] & bit:
            index.append(b)
        else:
            index.append(slice(None if masks[0] & bit else b, None if masks[1] & bit else e, s))
    return index


def strided_view(x, kwarg):
    index = _mask_index(kwarg)
    used = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index[at:at + 1] = [slice(None)] * (x.dim() - used)
    flips, out_dim, dim = [], 0, 0
    for k, item in enumerate(index):
        if isinstance(item, slice) and (item.step or 1) < 0:  # same elements, torch's order
            picked = range(*item.indices(x.shape[dim]))
            index[k] = slice(picked[-1], picked[0] + 1, -item.step) if picked else slice(0, 0)
            flips.append(out_dim)
        out_dim += not isinstance(item, int)
        dim += item is not None
    return x[tuple(index)], tuple(flips) or None


def index_select(res, x, dim, index):
    torch.index_select(x, _dim(dim), index, out=res)


def index_add(res, dim, index, src, alpha=None):
    res.index_add_(_dim(dim), index, src, alpha=1 if alpha is None else alpha)


def index_copy(res, dim, index, src):
    res.index_copy_(_dim(dim), index, src)


def randperm(res, gen=None):
    torch.randperm(res.numel(), generator=gen, out=res)


def ramp(ref, n):
    return _scratch(torch.arange(int(n), dtype=ref.dtype, device=ref.device))


def bool_like(ref):
    return _scratch(torch.empty(ref.shape, dtype=torch.bool, device=ref.device))


def masked_fill(res, mask, value):
    res.masked_fill_(mask, value)



# -- dtypes, comparisons, logic and the math ops of tinyflow/ops/math.py ------------------------
def _number(res, s):
    """A Lua number as the scalar torch takes into ``res``: an integral one as an int for an
    integer res (torch refuses a float scalar into an integer out=)."""
    if isinstance(s, float) and s.is_integer() and not res.is_floating_point():
        return int(s)
    return s


def _as_result(res, a):
    """``a``, or ``a`` copied into ``res`` when res has another dtype (the op then runs in
    res's dtype, in place)."""
    if not isinstance(a, torch.Tensor) or a.dtype == res.dtype:
        return a
    res.copy_(a)
    return res


def dtype(x):
    return str(x.dtype).removeprefix("torch.")


def _binary(fn):
    def apply(res, a, b):
        fn(a, b, out=res)
    apply.__name__ = fn.__name__
    return apply


ne, lt, le, gt, ge, logical_and, logical_or, cmin, mod = (_binary(f) for f in (
    torch.ne, torch.lt, torch.le, torch.gt, torch.ge, torch.logical_and, torch.logical_or,
    torch.minimum, torch.remainder))
logical_not, rsqrt, log1p = (_unary(f) for f in (torch.logical_not, torch.rsqrt, torch.log1p))
floor, ceil, round = (_unary(f) for f in (torch.floor, torch.ceil, torch.round))


def floordiv(res, a, b):
    torch.div(a, b, rounding_mode="floor", out=res)


def where(res, cond, a, b):
    if cond.dim() < a.dim():  # TF 1.15: a vector condition chooses rows
        cond = cond.view(tuple(cond.shape) + (1,) * (a.dim() - cond.dim()))
    torch.where(cond, a, b, out=res)


def min(res, x, dims=None):
    _reduce(torch.amin, res, x, dims)


def any(res, x, dims=None):
    _reduce(torch.any, res, x, dims)


def all(res, x, dims=None):
    _reduce(torch.all, res, x, dims)


def _slices(x, dims):
    """x with the reduced dims last, flattened into one: ``(permutation, tensor)``."""
    dims = tuple(range(x.dim())) if dims is None else tuple(sorted(d % x.dim() for d in dims))
    keep = [d for d in range(x.dim()) if d not in dims]
    kept = tuple(x.shape[d] for d in keep)
    return keep + list(dims), x.permute(keep + list(dims)).reshape(kept + (-1,))


def prod(res, x, dims=None):
    # torch.prod reduces one dim: the reduced dims are flattened into one (a copy per step)
    if _dims(dims) == () or x.dim() == 0:
        res.copy_(x)
        return
    _, flat = _slices(x, _dims(dims))
    torch.prod(flat, -1, out=res.view(flat.shape[:-1]))


def prod_backward(res, g, x, dims=None):
    # d prod / d x_i = the product of the slice's other elements: exclusive cumulative products
    # from both ends, exact where x has zeros (g / x * prod would divide by them)
    if _dims(dims) == () or x.dim() == 0:
        res.copy_(g)
        return
    order, flat = _slices(x, _dims(dims))
    ones = torch.ones_like(flat[..., :1])
    before = torch.cumprod(torch.cat([ones, flat[..., :-1]], -1), -1)
    after = torch.cumprod(torch.cat([ones, flat.flip(-1)[..., :-1]], -1), -1).flip(-1)
    grad = before * after * g.reshape(flat.shape[:-1] + (1,))
    res.permute(order).copy_(grad.view(tuple(x.shape[d] for d in order)))



# -- tf.nn.top_k, tf.nn.lrn, tf.confusion_matrix ---------------------------------------------
def top_k_buffers(x):
    return [_scratch(torch.empty_like(x)),
            _scratch(torch.empty(x.shape, dtype=torch.int64, device=x.device))]


def top_k(values, indices, x, k, buffers):
    # a stable descending sort gives TensorFlow's order for ties (the lower index first), which
    # torch.topk does not promise
    ordered, order = buffers
    torch.sort(x, dim=-1, descending=True, stable=True, out=(ordered, order))
    k = int(k)
    values.copy_(ordered[..., :k])
    indices.copy_(order[..., :k])


def top_k_backward(res, g, indices, index):
    index.copy_(indices)
    res.zero_()
    res.scatter_(-1, index, g)


def window_sum(res, x, radius):
    # one avg_pool2d over rows (1, depth) with divisor 1: a sum over 2 * radius + 1 elements,
    # zero padding radius on both sides (its limit of half the window holds)
    radius, depth = int(radius), x.shape[-1]
    if x.numel() == 0:
        return
    rows = (-1, 1, 1, depth)
    _aten.avg_pool2d.out(x.reshape(rows), (1, 2 * radius + 1), (1, 1), (0, radius), False, True,
                         1, out=res.view(rows))


def confusion_matrix(res, labels, predictions, weights, rows, cols):
    classes = res.shape[0]
    _read_ids(rows, labels, classes, "label")
    _read_ids(cols, predictions, classes, "prediction")
    rows.mul_(classes).add_(cols)
    res.zero_()
    res.view(-1).index_add_(0, rows, weights.reshape(-1))



# -- collectives (tinyflow/ops/collective.py, tinyflow/distributed.py) -------------------------
@functools.cache
def _distributed():
    from .. import distributed  # imported when a collective's body is first set up
    return distributed


def collective_check(kind, label, x):
    _distributed().check_signature(str(kind), str(label), x)


def all_reduce(res, x, average, label):
    if not same_memory(res, x):
        res.copy_(x)
    _distributed().tensor_all_reduce(res, str(label))
    if average:
        res.div_(_distributed().size())


def all_reduce_start(flat, label):
    _distributed().tensor_all_reduce_start(flat, str(label))


def all_reduce_wait(flat, label):
    _distributed().tensor_all_reduce_wait(flat, str(label))


def bucket_views(flat, likes):
    views, offset, flat_1d = [], 0, flat.view(-1)
    for like in likes.values():
        views.append(flat_1d[offset:offset + like.numel()].view(like.shape))
        offset += like.numel()
    if offset != flat.numel():
        raise ValueError(f"the bucket holds {flat.numel()} elements, its tensors {offset}")
    return _runtime_table(views)


def _runtime_table(values):
    from .runtime import lua_table
    return lua_table(values)


def world_size():
    return _distributed().size()


def broadcast(res, x, root, label):
    if not same_memory(res, x):
        res.copy_(x)
    _distributed().tensor_broadcast(res, int(root), str(label))


def all_gather(res, x, label):
    _distributed().tensor_all_gather(res, x.contiguous(), str(label))


# -- fused elementwise kernels (the FuseElemwise pass) -----------------------------------------
def fused_step(kwarg, x, y):
    from ..executor.kernels import fused_step as step  # torch.compile's imports: on first use
    return step(kwarg, list(x.values()), list(y.values()))


FUNCTIONS = {name: fn for name, fn in dict(globals()).items()
             if callable(fn) and not name.startswith("_") and name not in __all__
             and getattr(fn, "__module__", "")
             == __name__}

