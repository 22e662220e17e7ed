"""test_ops' table for the special functions (tinyflow/ops/special.py) and
cumulative_logsumexp (tinyflow/ops/math.py).  Values and gradients against torch (float64
autograd) and finite differences, memory planning on and off; what torch lacks has a reference
written here in another way than the kernel's (betainc's hypergeometric series, igamma's
derivative in a by Richardson's extrapolation); TF's own numbers are in
tests/test_tf_special_functions.py."""
import torch

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op

F64 = torch.float64


def _uniform(*ranges, shape=(3, 4)):
    return lambda rng: [rng.uniform(low, high, shape) for low, high in ranges]


def _betainc_series(a, b, x, terms=600):
    """I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * 2F1(a + b, 1; a + 1; x), the series summed in
    float64 (terms shrink as x^n: 600 reach 1e-27 at x = 0.9)."""
    term, total = torch.ones_like(x), torch.ones_like(x)
    for n in range(terms):
        term = term * (a + b + n) / (a + 1.0 + n) * x
        total = total + term
    log_beta = torch.lgamma(a) + torch.lgamma(b) - torch.lgamma(a + b)
    return torch.exp(a * torch.log(x) + b * torch.log1p(-x) - log_beta) * total / a


def _igamma_grad_a(a, x):
    """d P(a, x) / da by Richardson's extrapolation of central differences of torch's P."""
    def central(h):
        return (torch.special.gammainc(a + h, x) - torch.special.gammainc(a - h, x)) / (2 * h)
    h = 1e-2 * a
    d1, d2 = central(h), central(h / 2)
    d3 = central(h / 4)
    r1, r2 = (4 * d2 - d1) / 3, (4 * d3 - d2) / 3
    return (16 * r2 - r1) / 15


def _polygamma(order, x):
    """torch.polygamma at each element's own (whole) order."""
    flat = [torch.polygamma(int(n), v) for n, v in zip(order.reshape(-1), x.reshape(-1))]
    return torch.stack(flat).reshape(x.shape)


def _whole_orders(rng):
    return [rng.integers(0, 3, (3, 4)).astype(float), rng.uniform(0.5, 3.0, (3, 4))]


def _logcumsumexp(axis, exclusive, reverse):
    def ref(x):
        if reverse:
            x = x.flip(axis)
        out = torch.logcumsumexp(x, axis)
        if exclusive:
            first = torch.full_like(out.narrow(axis, 0, 1), float("-inf"))
            out = torch.cat([first, out.narrow(axis, 0, out.shape[axis] - 1)], axis)
        return out.flip(axis) if reverse else out
    return ref


def add_cases(add):
    """Each function on its domain (broadcast where it takes two or three inputs), the
    gradients TF defines (wrt: the inputs it has one for)."""
    special = torch.special
    unary = {"erfinv": (tf.math.erfinv, special.erfinv, (-0.9, 0.9)),
             "ndtri": (tf.math.ndtri, special.ndtri, (0.05, 0.95)),
             "bessel_i0": (tf.math.bessel_i0, special.i0, (-3.0, 3.0)),
             "bessel_i0e": (tf.math.bessel_i0e, special.i0e, (-3.0, 3.0)),
             "bessel_i1": (tf.math.bessel_i1, special.i1, (-3.0, 3.0)),
             "bessel_i1e": (tf.math.bessel_i1e, special.i1e, (-3.0, 3.0))}
    for op, (api, ref, domain) in unary.items():
        add(op, "2d", api, ref=ref, inputs=_uniform(domain))
    # torch has no derivative in igamma's a nor zeta's x: those inputs detached (not checked)
    for op, api, function in (("igamma", tf.math.igamma, special.gammainc),
                              ("igammac", tf.math.igammac, special.gammaincc)):
        def ref(a, x, function=function):
            return function(a.detach(), x)
        add(op, "2d", api, ref=ref, inputs=_uniform((0.5, 3.0), (0.2, 3.0)), wrt=(1,))
        add(op, "broadcast", api, ref=ref, wrt=(1,),
            inputs=lambda rng: [rng.uniform(0.5, 3.0, (4,)), rng.uniform(0.2, 3.0, (3, 4))])
    add("_igamma_grad_a", "2d", lambda a, x: create_op("_igamma_grad_a", a, x),
        ref=_igamma_grad_a, inputs=_uniform((0.5, 3.0), (0.2, 3.0)))
    def zeta(x, q):
        return special.zeta(x.detach(), q)
    add("zeta", "2d", tf.math.zeta, ref=zeta, inputs=_uniform((2.0, 4.0), (0.5, 2.0)),
        wrt=(1,))
    add("zeta", "broadcast", tf.math.zeta, ref=zeta, wrt=(1,),
        inputs=lambda rng: [rng.uniform(2.0, 4.0, (3, 1)), rng.uniform(0.5, 2.0, (4,))])
    add("polygamma", "2d", tf.math.polygamma, ref=_polygamma, inputs=_whole_orders, wrt=(1,))
    add("betainc", "2d", tf.math.betainc, ref=_betainc_series, wrt=(2,),
        inputs=_uniform((0.5, 3.0), (0.5, 3.0), (0.1, 0.9)))
    add("betainc", "broadcast", tf.math.betainc, ref=_betainc_series, wrt=(2,),
        inputs=lambda rng: [rng.uniform(0.5, 3.0, ()), rng.uniform(0.5, 3.0, (4,)),
                            rng.uniform(0.1, 0.9, (3, 4))])
    for axis, shape in ((0, (3, 4)), (-1, (2, 3, 4))):
        for exclusive in (False, True):
            for reverse in (False, True):
                # an exclusive one starts at -inf: finite differences of it are NaN (its
                # gradient against TF's numbers in tests/test_tf_special_functions.py)
                add("cumulative_logsumexp", f"axis={axis}-exclusive={exclusive}-reverse="
                    f"{reverse}", lambda x, a=axis, e=exclusive, r=reverse:
                    tf.math.cumulative_logsumexp(x, axis=a, exclusive=e, reverse=r), [shape],
                    _logcumsumexp(axis, exclusive, reverse), check_gradient=not exclusive)
