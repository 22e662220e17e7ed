"""The Lua ``torch`` table: Torch7-style functions acting on PyTorch tensors in place.

Every function writes its result into its first argument (result-first, as Torch7's
``torch.cmul(res, a, b)``), so the memory plan decides where results go and nothing is
allocated per step.  Dimensions are 1-based as in Torch7/Lua (negative ones count from the end);
``dims`` may be a number, a Lua array of numbers, or nil for "all".

==========================================  =================================================
function                                    meaning
==========================================  =================================================
``add(res, a, b)``                          res = a + b (b tensor or number, broadcasting)
``csub(res, a, b)``                         res = a - b
``rsub(res, a, s)``                         res = s - a (s number)
``cmul(res, a, b)`` / ``mul(res, a, s)``    res = a * b / a * s
``cdiv(res, a, b)`` / ``div(res, a, s)``    res = a / b / a / s
``rdiv(res, a, s)``                         res = s / a
``pow(res, a, p)``                          res = a ^ p (p tensor or number; a may be a number)
``neg exp log sqrt tanh abs sign sigmoid``  ``f(res, a)``: res = f(a)
``relu(res, a)``                            res = max(a, 0)
``relu_backward(res, g, y)``                res = g where y > 0 else 0
``cmax(res, a, b)`` / ``cmin(res, a, b)``   elementwise max / min (b tensor or number)
``eq(res, a, b)``                           res = 1 where a == b else 0
``mm(res, a, b)``                           res = a @ b (use ``t`` views for transposes)
``addmm(res, m, a, b)``                     res = m + a @ b (m broadcast)
``sum(res, x, dims)`` / ``mean``            reduce over dims; kept as size 1 when res has x's rank
``max(res, x, dims)``                       max over one dim (values)
``argmax(res, x, dim, index)``              index (0-based, as a float) of the max along dim;
                                            index: an int64 buffer from ``index_like(res)``
``softmax(res, x, dim)``                    softmax along dim; ``log_softmax`` likewise
``softmax_backward(res, g, y, dim)``        res = y * (g - sum(g * y, dim))
``log_softmax_backward(res, g, y, dim)``    res = g - exp(y) * sum(g, dim)
``fill(res, v)`` / ``zero(res)``            res = v / res = 0
``copy(res, src)``                          res = src (src broadcast to res)
``normal(res, mean, std)``                  res ~ N(mean, std^2)
``uniform(res, low, high)``                 res ~ U(low, high)
``tensor_like(ref, values, sizes)``         new tensor on ref's device (setup only)
``view(x, sizes)`` ``expand(x, sizes)``     views sharing x's memory (setup only)
``t(x)`` ``transpose(x, d1, d2)``           transposed views (setup only)
``narrow(x, dim, start, length)``           view of x[start .. start+length-1] along dim
``size(x, dim)`` ``dim(x)`` ``numel(x)``    sizes; ``size(x)`` gives a Lua array
``same_shape(a, b)``                        true when a and b have one shape
``same_memory(a, b)``                       true when a and b start at one address
``shape(x)``                                sizes as a Lua array (Lua prelude)
``dim_of(axis)`` / ``dims_of(axes)``        0-based axis (number or array) -> 1-based (prelude)
``run_closures(fs, n)``                     run fs[1..n]; 0 or index and error (prelude)
==========================================  =================================================
"""
from __future__ import annotations

import torch

__all__ = ["FUNCTIONS"]


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


def add(res, a, b):
    torch.add(a, b, out=res)


def csub(res, a, b):
    torch.sub(a, b, out=res)


def rsub(res, a, s):
    if isinstance(s, torch.Tensor):
        torch.sub(s, a, out=res)
    else:  # torch.rsub has no out= form: -a, then + s (exact, as s - a)
        torch.neg(a, out=res)
        res.add_(s)


def cmul(res, a, b):
    torch.mul(a, b, out=res)


def mul(res, a, s):
    torch.mul(a, s, out=res)


def div(res, a, s):
    torch.div(a, s, out=res)


def cdiv(res, a, b):
    torch.div(a, b, out=res)


def rdiv(res, a, s):
    torch.reciprocal(a, out=res)
    res.mul_(s)


def pow(res, a, p):  # noqa: A001 - Torch7 name
    torch.pow(a, p, out=res)


def _unary(fn):
    def apply(res, a):
        fn(a, out=res)
    apply.__name__ = fn.__name__
    return apply


neg, exp, log, sqrt, tanh, abs, sign, sigmoid = (  # noqa: A001
    _unary(f) for f in (torch.neg, torch.exp, torch.log, torch.sqrt, torch.tanh, torch.abs,
                        torch.sign, torch.sigmoid))


def relu(res, a):
    torch.clamp_min(a, 0.0, out=res)


def relu_backward(res, g, y):
    torch.ops.aten.threshold_backward.grad_input(g, y, 0.0, grad_input=res)


def cmax(res, a, b):
    if isinstance(b, torch.Tensor):
        torch.maximum(a, b, out=res)
    else:
        torch.clamp_min(a, b, out=res)


def cmin(res, a, b):
    if isinstance(b, torch.Tensor):
        torch.minimum(a, b, out=res)
    else:
        torch.clamp_max(a, b, out=res)


def eq(res, a, b):
    torch.eq(a, b, out=res)


def mm(res, a, b):
    torch.mm(a, b, out=res)


def addmm(res, m, a, b):
    torch.addmm(m, a, b, out=res)


def sum(res, x, dims=None):  # noqa: A001
    dims = _dims(dims)
    if dims is None:
        torch.sum(x, dim=tuple(range(x.dim())), keepdim=res.dim() == x.dim(), out=res)
    else:
        torch.sum(x, dim=dims, keepdim=res.dim() == x.dim(), out=res)


def mean(res, x, dims=None):
    dims = _dims(dims)
    dims = tuple(range(x.dim())) if dims is None else dims
    torch.mean(x, dim=dims, keepdim=res.dim() == x.dim(), out=res)


def max(res, x, dims=None):  # noqa: A001
    dims = _dims(dims)
    dims = tuple(range(x.dim())) if dims is None else dims
    torch.amax(x, dim=dims, keepdim=res.dim() == x.dim(), out=res)


def argmax(res, x, dim, index):
    torch.argmax(x, dim=_dim(dim), keepdim=res.dim() == x.dim(), out=index)
    res.copy_(index)


def index_like(ref):
    return torch.empty(ref.shape, dtype=torch.int64, device=ref.device)


def softmax(res, x, dim):
    torch.softmax(x, _dim(dim), out=res)


def log_softmax(res, x, dim):
    torch.log_softmax(x, _dim(dim), out=res)


def softmax_backward(res, g, y, dim):
    torch.ops.aten._softmax_backward_data.out(g, y, _dim(dim), torch.float32, grad_input=res)


def log_softmax_backward(res, g, y, dim):
    torch.ops.aten._log_softmax_backward_data.out(g, y, _dim(dim), torch.float32, out=res)


def fill(res, v):
    res.fill_(v)


def zero(res):
    res.zero_()


def copy(res, src):
    res.copy_(src)


def normal(res, mean=0.0, std=1.0):
    res.normal_(mean, std)


def uniform(res, low=0.0, high=1.0):
    res.uniform_(low, high)


def tensor_like(ref, values, sizes):
    data = [float(v) for v in values.values()] if hasattr(values, "values") else [float(values)]
    return torch.tensor(data, dtype=ref.dtype, device=ref.device).view(_sizes(sizes))


def view(x, sizes):
    return x.view(_sizes(sizes))


def expand(x, sizes):
    return x.expand(_sizes(sizes))


def t(x):
    return x.t()


def transpose(x, d1, d2):
    return x.transpose(_dim(d1), _dim(d2))


def narrow(x, dim, start, length):
    return x.narrow(_dim(dim), int(start) - 1, int(length))


def size(x, dim=None):
    return tuple(x.shape) if dim is None else x.shape[_dim(dim)]


def dim(x):
    return x.dim()


def numel(x):
    return x.numel()


def same_shape(a, b):
    return a.shape == b.shape


def same_memory(a, b):
    return a.data_ptr() == b.data_ptr()


FUNCTIONS = {name: fn for name, fn in dict(globals()).items()
             if callable(fn) and not name.startswith("_") and getattr(fn, "__module__", "")
             == __name__ and name != "annotations"}
