"""The Lua ``torch`` table every op body sees: generic Torch7-style functions on PyTorch tensors.

Every function writes its result into its first argument (result-first, as Torch7's
``torch.cmul(res, a, b)``), so the memory plan decides where results go and nothing is
allocated per step.  Dimensions are 1-based as in Torch7/Lua (negative ones count from the end);
``dims`` may be a number, a Lua array of numbers, or nil for "all".  No function here runs code
it is given: the engine's own kernels (convolution, GEMM choice, collectives, fused kernels...)
live with the family of built-in bodies that use them (``lua_ops/<family>/kernels.py``), out of
a user body's reach.  Arguments are checked, so a bad one is a Lua error, never a crash: sizes,
dims, starts and lengths must be integral numbers (checked here: ``int(2.5)`` would be 2), and
every function calls a public torch function, which checks dims, shapes, dtypes, devices and,
on the CPU, index ranges (``index_select`` with an index of 1e11 is an IndexError).  Checking
index ranges on CUDA would be a host sync per step (refused inside a CUDA graph's capture); an
index out of range there is torch's device assert.

==========================================  =================================================
function                                    meaning
==========================================  =================================================
``add(res, a, b)``                          res = a + b (b tensor or number, broadcasting)
``add(res, a, s, b)``                       res = a + s * b (s number)
``csub(res, a, b)``                         res = a - b
``addcmul(res, a, b, c)``                   res = a + b * c
``addcmul(res, a, s, b, c)``                res = a + s * b * c (s number, Torch7's order)
``rsub(res, a, s)``                         res = s - a (s number)
``cmul(res, a, b)`` / ``mul(res, a, s)``    res = a * b / a * s
``cdiv(res, a, b)`` / ``div(res, a, s)``    res = a / b / a / s (integer a, b into a float
                                            res: divided in res's dtype, TF's truediv)
``rdiv(res, a, s)``                         res = s / a
(a number s into an integer res is taken as an integer: ``int_tensor * 2``)
``pow(res, a, p)``                          res = a ^ p (p tensor or number; a may be a number)
``neg exp log sqrt tanh abs sign sigmoid``  ``f(res, a)``: res = f(a)
``relu(res, a)``                            res = max(a, 0)
``cmax(res, a, b)`` / ``cmin(res, a, b)``   elementwise max / min (cmax: b tensor or number)
``eq(res, a, b)``                           res = a == b (bool res; an int and a float
                                            compare by value); ``ne lt le gt ge`` likewise
``ne lt le gt ge``                          ``(res, a, b)``, as ``eq``
``logical_and logical_or`` ``(res, a, b)``  on bool tensors; ``logical_not(res, a)``
``logical_not(res, a)``                     res = not a
``floordiv(res, a, b)`` ``mod(res, a, b)``  floor(a / b), a - floor(a / b) * b (Python's)
``rsqrt log1p floor ceil``                  ``f(res, a)``: 1 / sqrt(a), log(1 + a), rounded
                                            down, rounded up
``round(res, a)``                           to the nearest integer, halves to even
``sin cos tan asin acos atan sinh cosh``    ``f(res, a)``: res = f(a), trigonometric and
                                            hyperbolic
``erf erfc expm1 lgamma digamma``           ``f(res, a)``: erf, 1 - erf, exp(a) - 1,
                                            log|Gamma(a)|, its derivative
``polygamma(res, n, a)``                    res = the n-th derivative of digamma at a
``atan2(res, a, b)``                        res = the angle of the point (b, a), in [-pi, pi]
``cumsum(res, x, dim)`` / ``cumprod``       running sum / product along dim
``where(res, cond, a, b)``                  a where cond else b (cond: a's shape, or rows)
``sum(res, x, dims)`` / ``mean``            reduce over dims; kept as size 1 when res has x's rank
``max min prod any all`` ``(res, x, dims)`` reductions as ``sum``
``argmax(res, x, dim, index)``              index (0-based) of the max along dim; index: an
                                            int64 buffer from ``index_like(res)`` when res is
                                            not int64, else nil; ``argmin`` likewise
``argmin(res, x, dim, index)``              as ``argmax``
``dtype(x)``                                the dtype's name, ``"int64"``
``mm(res, a, b)``                           res = a @ b (use ``t`` views for transposes)
``addmm(res, m, a, b)``                     res = m + a @ b (m broadcast)
``softmax(res, x, dim)``                    softmax along dim; ``log_softmax`` likewise
``log_softmax(res, x, dim)``                log of softmax along dim
``fill(res, v)`` / ``zero(res)``            res = v / res = 0
``copy(res, src)``                          res = src (src broadcast to res)
``normal(res, mean, std, gen)``             res ~ N(mean, std^2); gen: a generator or nil
                                            (torch's global one)
``truncated_normal(res, mean, std, gen)``   res ~ N(mean, std^2) cut at 2 std (TensorFlow's)
``uniform(res, low, high, gen)``            res ~ U(low, high); integers in [low, high) for an
                                            integer res
``randperm(res, gen)``                      res = a random order of 0 .. numel(res) - 1 (int64)
``index_select(res, x, dim, i)``            res = x's slices at indices i (int32/int64, 1-D)
``index_add(res, dim, i, src, a)``          res[..., i[k], ...] += a * src[..., k, ...] (a: 1
                                            when nil)
``index_copy(res, dim, i, src)``            res[..., i[k], ...] = src[..., k, ...] (i: int64)
``masked_fill(res, mask, v)``               res = v where mask (bool)
``tensor_like(ref, values, sizes)``         new tensor on ref's device (setup only)
``empty(ref, sizes)``                       new contiguous tensor on ref's device (setup only)
``empty_like(x)`` ``full_like(x, v)``       new tensors like x (setup only)
``index_like(ref)`` ``bool_like(ref)``      int64 / bool tensors of ref's shape (setup only)
``ramp(ref, n)``                            0, 1, ..., n - 1 in ref's dtype (setup only)
``view(x, sizes)`` ``expand(x, sizes)``     views sharing x's memory (setup only)
``t(x)``                                    transposed view of 2-D x (setup only)
``permute(x, dims)``                        view of x with its dims in the order dims
``flip(res, x, dims)``                      res = x reversed along dims
``narrow(x, dim, start, length)``           view of x[start .. start+length-1] along dim
``size(x, dim)`` ``dim(x)`` ``numel(x)``    sizes; ``size(x)`` gives a Lua array
``same_memory(a, b)``                       true when a and b start at one address
``is_cpu(x)``                               true when x lives in CPU memory
``shape(x)``                                sizes as a Lua array (Lua prelude)
``dim_of(axis)`` / ``dims_of(axes)``        0-based axis (number or array) -> 1-based (prelude)
==========================================  =================================================
"""
from __future__ import annotations

import functools
import math

import numpy as np
import torch

from .cpu import numpy_views
from .scratch import scratch

__all__ = ["FUNCTIONS", "PRELUDE_FUNCTIONS", "lua_dim", "lua_dims", "lua_sizes"]

# the functions the runtime's Lua prelude adds to the table (runtime._PRELUDE)
PRELUDE_FUNCTIONS = ("shape", "dim_of", "dims_of")


# -- arguments from Lua: dims, sizes, indices ----------------------------------------------------
def _integer(value, what: str) -> int:
    """A Lua number that must be an integer (2.5 or NaN for a size is an error, not 2)."""
    if value.__class__ is int:  # Lua 5.4's integers; LuaJIT's numbers are all floats
        return value
    if value.__class__ is float and value.is_integer():
        return int(value)
    raise ValueError(f"{what} must be an integer, got {value!r}")


def lua_dim(d) -> int:
    """A 1-based Lua dim (negative: from the end) as a 0-based one."""
    d = _integer(d, "a dim")
    return d - 1 if d > 0 else d


def lua_dims(dims):
    """Lua dims (number, array or nil) -> Python tuple of 0-based dims, or None for all."""
    if dims is None:
        return None
    if isinstance(dims, (int, float)):
        return (lua_dim(dims),)
    return tuple(lua_dim(d) for d in dims.values())


def lua_sizes(sizes):
    """A Lua array of sizes (or one number) as a tuple of ints."""
    values = sizes.values() if hasattr(sizes, "values") else (sizes,)
    return tuple(_integer(s, "a size") for s in values)


# -- elementwise ---------------------------------------------------------------------------------
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


def add(res, a, b, c=None):
    if c is None:
        torch.add(a, _number(res, b), out=res)
    else:  # Torch7's add(res, a, value, b)
        torch.add(a, c, alpha=b, out=res)


def addcmul(res, a, b, c, d=None):
    if d is None:
        torch.addcmul(a, b, c, out=res)
    else:  # Torch7's addcmul(res, a, value, b, c)
        torch.addcmul(a, c, d, value=b, out=res)


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
    torch.div(_as_result(res, a), _divisor(res, s), out=res)


_DIVISORS = {}  # (device, dtype, number) -> that number as a 0-dim tensor on a GPU


def _divisor(res, s):
    """``s``; on CUDA, which divides by a number as a product with its reciprocal (x / 3 one
    float step off the CPU's and TF's x / 3), a 0-dim tensor made on a step's first run."""
    if not (res.is_cuda and res.is_floating_point()) or isinstance(s, torch.Tensor):
        return s
    key = (res.device, res.dtype, s)
    if key not in _DIVISORS:
        _DIVISORS[key] = torch.full((), s, dtype=res.dtype, device=res.device)
    return _DIVISORS[key]


def cdiv(res, a, b):
    torch.div(_as_result(res, a), b, out=res)


def rdiv(res, a, s):
    torch.reciprocal(_as_result(res, a), out=res)
    res.mul_(s)


def power(res, a, p):
    torch.pow(_number(res, a), _number(res, p), out=res)


def _unary(fn):
    def apply(res, a):
        fn(a, out=res)
    apply.__name__ = fn.__name__
    return apply


def _binary(fn):
    def apply(res, a, b):
        fn(a, b, out=res)
    apply.__name__ = fn.__name__
    return apply


neg, exp, log, sqrt, absolute, sign, sigmoid, logical_not, rsqrt, log1p = (
    _unary(f) for f in (torch.neg, torch.exp, torch.log, torch.sqrt, torch.abs, torch.sign,
                        torch.sigmoid, torch.logical_not, torch.rsqrt, torch.log1p))
floor, ceil, round_even = (_unary(f) for f in (torch.floor, torch.ceil, torch.round))
sin, cos, tan, asin, acos, atan, sinh, cosh, erf, erfc, expm1, lgamma, digamma = (
    _unary(f) for f in (torch.sin, torch.cos, torch.tan, torch.asin, torch.acos, torch.atan,
                        torch.sinh, torch.cosh, torch.erf, torch.erfc, torch.expm1, torch.lgamma,
                        torch.digamma))
eq, ne, lt, le, gt, ge, logical_and, logical_or, cmin, mod = (_binary(f) for f in (
    torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge, torch.logical_and,
    torch.logical_or, torch.minimum, torch.remainder))
atan2 = _binary(torch.atan2)


def polygamma(res, n, a):
    torch.polygamma(_integer(n, "n"), a, out=res)


# aten's CPU tanh is 3-7x slower per core than numpy's (SVML; within 2 ulp, as aten's): LeNet's
# 100x20x24x24 tanh takes 1.5-2.7 ms on 2 threads against 0.41 on numpy's one.  With 8 threads
# or more aten catches up.
def tanh_views(a, res):
    """numpy views of a and res where numpy's tanh is the faster one, else None."""
    return numpy_views(a, res) if torch.get_num_threads() < 8 else None


def tanh(res, a):
    arrays = tanh_views(a, res) if res.numel() >= 64 else None
    if arrays is None:
        torch.tanh(a, out=res)
    else:
        np.tanh(arrays[0], out=arrays[1])


def relu(res, a):
    torch.clamp_min(a, 0.0, out=res)


def cmax(res, a, b):
    if isinstance(b, torch.Tensor):
        torch.maximum(a, b, out=res)
    else:
        torch.clamp_min(a, b, out=res)


def floordiv(res, a, b):
    torch.div(a, b, rounding_mode="floor", out=res)


def where(res, cond, a, b):
    if cond.dim() < a.dim():  # TF 1.15: a vector condition chooses rows
        cond = cond.view(tuple(cond.shape) + (1,) * (a.dim() - cond.dim()))
    torch.where(cond, a, b, out=res)


def dtype(x):
    return str(x.dtype).removeprefix("torch.")


# -- reductions, matrix products, softmax --------------------------------------------------------
def reduce_into(function, res, x, dims):
    """``function`` (torch.sum, amax...) of x over Lua ``dims`` into res (keepdim by res's rank)."""
    dims = lua_dims(dims)
    if dims == ():  # an empty axis list reduces nothing; torch would read dim=() as "all"
        res.copy_(x)
        return
    dims = tuple(range(x.dim())) if dims is None else dims
    function(x, dim=dims, keepdim=res.dim() == x.dim(), out=res)


def reduce_sum(res, x, dims=None):
    reduce_into(torch.sum, res, x, dims)


def mean(res, x, dims=None):
    if x.is_floating_point() or x.dtype == torch.bool:  # bool: the 0/1 mean, as float32
        reduce_into(functools.partial(torch.mean, dtype=res.dtype), res, x, dims)
    else:  # integers: TF's truncated integer mean (torch.mean takes floats only)
        reduce_into(torch.sum, res, x, dims)
        torch.div(res, x.numel() // max(res.numel(), 1), rounding_mode="trunc", out=res)


def reduce_max(res, x, dims=None):
    reduce_into(torch.amax, res, x, dims)


def reduce_min(res, x, dims=None):
    reduce_into(torch.amin, res, x, dims)


def reduce_any(res, x, dims=None):
    reduce_into(torch.any, res, x, dims)


def reduce_all(res, x, dims=None):
    reduce_into(torch.all, res, x, dims)


def slices(x, dims):
    """x with the reduced dims last, flattened into one: ``(permutation, tensor)``."""
    dims = tuple(range(x.dim())) if dims is None else tuple(sorted(d % x.dim() for d in dims))
    keep = [d for d in range(x.dim()) if d not in dims]
    kept = tuple(x.shape[d] for d in keep)
    return keep + list(dims), x.permute(keep + list(dims)).reshape(kept + (-1,))


def prod(res, x, dims=None):
    # torch.prod reduces one dim: the reduced dims are flattened into one (a copy per step)
    if lua_dims(dims) == () or x.dim() == 0:
        res.copy_(x)
        return
    _, flat = slices(x, lua_dims(dims))
    torch.prod(flat, -1, out=res.view(flat.shape[:-1]))


def cumsum(res, x, dim):
    torch.cumsum(x, lua_dim(dim), out=res)


def cumprod(res, x, dim):
    torch.cumprod(x, lua_dim(dim), out=res)


def _arg_reduce(function):
    def apply(res, x, dim, index=None):
        # index: an int64 buffer when res is not int64 (torch writes int64 indices only)
        function(x, dim=lua_dim(dim), keepdim=res.dim() == x.dim(),
                 out=res if index is None else index)
        if index is not None:
            res.copy_(index)
    return apply


argmax, argmin = _arg_reduce(torch.argmax), _arg_reduce(torch.argmin)


def mm(res, a, b):
    torch.mm(a, b, out=res)


def addmm(res, m, a, b):
    torch.addmm(m, a, b, out=res)


def softmax(res, x, dim):
    torch.softmax(x, lua_dim(dim), out=res)


def log_softmax(res, x, dim):
    torch.log_softmax(x, lua_dim(dim), out=res)


# -- filling, random numbers, indexing -----------------------------------------------------------
def fill(res, v):
    res.fill_(v)


def zero(res):
    res.zero_()


def copy_from(res, src):
    res.copy_(src)


def normal(res, mean=0.0, std=1.0, gen=None):
    # N(mean, std^2) is N(mean, |std|^2): TensorFlow takes a negative std (z * std + mean)
    res.normal_(mean, abs(std), generator=gen)


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


def randperm(res, gen=None):
    torch.randperm(res.numel(), generator=gen, out=res)


def index_select(res, x, dim, index):
    torch.index_select(x, lua_dim(dim), index, out=res)


def index_add(res, dim, index, src, alpha=None):
    res.index_add_(lua_dim(dim), index, src, alpha=1 if alpha is None else alpha)


def index_copy(res, dim, index, src):
    res.index_copy_(lua_dim(dim), index, src)


def masked_fill(res, mask, value):
    res.masked_fill_(mask, value)


# -- new tensors (setup only), views and sizes ---------------------------------------------------
def tensor_like(ref, values, sizes):
    data = [float(v) for v in values.values()] if hasattr(values, "values") else [float(values)]
    return scratch(torch.tensor(data, dtype=ref.dtype, device=ref.device)).view(lua_sizes(sizes))


def empty(ref, sizes):
    return scratch(torch.empty(lua_sizes(sizes), dtype=ref.dtype, device=ref.device))


def empty_like(x):
    return scratch(torch.empty_like(x))


def full_like(x, value):
    return scratch(torch.full_like(x, float(value)))


def index_like(ref):
    return scratch(torch.empty(ref.shape, dtype=torch.int64, device=ref.device))


def bool_like(ref):
    return scratch(torch.empty(ref.shape, dtype=torch.bool, device=ref.device))


def ramp(ref, n):
    return scratch(torch.arange(_integer(n, "n"), dtype=ref.dtype, device=ref.device))


def view(x, sizes):
    return x.view(lua_sizes(sizes))


def expand(x, sizes):
    return x.expand(lua_sizes(sizes))


def t(x):
    return x.t()


def permute(x, dims):
    return x.permute(lua_dims(dims))


def flip(res, x, dims):
    # dims: Lua dims, or (strided_view's) a tuple of 0-based ones
    torch.ops.aten.flip.out(x, dims if isinstance(dims, tuple) else lua_dims(dims), out=res)


def narrow(x, dim, start, length):
    return x.narrow(lua_dim(dim), _integer(start, "start") - 1, _integer(length, "length"))


def size(x, dim=None):
    return tuple(x.shape) if dim is None else x.shape[lua_dim(dim)]


def dim(x):
    return x.dim()


def numel(x):
    return x.numel()


def same_memory(a, b):
    return a.data_ptr() == b.data_ptr()


def is_cpu(x):
    return x.device.type == "cpu"


# Lua name -> Python function: Torch7's names sum, max, pow... are Python builtins, which this
# module leaves alone
_TORCH7_NAMES = {"reduce_sum": "sum", "reduce_max": "max", "reduce_min": "min",
                 "reduce_any": "any", "reduce_all": "all", "power": "pow", "absolute": "abs",
                 "round_even": "round", "copy_from": "copy"}
_HELPERS = ("reduce_into", "slices", "tanh_views")  # for the family kernels, not for Lua
FUNCTIONS = {_TORCH7_NAMES.get(name, name): value for name, value in dict(globals()).items()
             if callable(value) and not name.startswith("_") and name not in __all__
             and name not in _HELPERS and getattr(value, "__module__", "") == __name__}
