"""test_ops' table for the TF-1 math names of 2026-11-27 (tinyflow/ops/math.py): the
trigonometric, hyperbolic and special functions, atan2, cumsum and cumprod, einsum.  Values and
gradients against torch (float64 autograd) and finite differences, memory planning on and off;
the TensorFlow facts checked with real TF are in tests/test_tf_math_names.py."""
import torch

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op


def _uniform(low, high, shape=(3, 4)):
    return lambda rng: [rng.uniform(low, high, shape)]


def _torch_cumulative(function, axis, exclusive, reverse):
    """TF's cumsum / cumprod from torch's: flipped for reverse, shifted for exclusive."""
    def ref(x):
        if reverse:
            x = x.flip(axis)
        out = function(x, axis)
        if exclusive:  # the running value before each element: the identity first
            first = torch.zeros_like(out.narrow(axis, 0, 1)) + (function is torch.cumprod)
            out = torch.cat([first, out.narrow(axis, 0, out.shape[axis] - 1)], axis)
        return out.flip(axis) if reverse else out
    return ref


def add_cases(add):
    """Each unary function on its domain, atan2 in all four quadrants and broadcasting, the
    running sums and products over axes and both flags, einsum's products, contractions, sums
    and transposes (a label one input has alone: its gradient is broadcast)."""
    plain = {"sin": (tf.sin, torch.sin), "cos": (tf.cos, torch.cos),
             "atan": (tf.atan, torch.atan), "sinh": (tf.sinh, torch.sinh),
             "cosh": (tf.cosh, torch.cosh), "erf": (tf.erf, torch.erf),
             "erfc": (tf.erfc, torch.erfc), "expm1": (tf.expm1, torch.expm1)}
    for op, (api, ref) in plain.items():
        add(op, "2d", api, [(3, 4)], ref)
    add("tan", "2d", tf.tan, ref=torch.tan, inputs=_uniform(-1.2, 1.2))
    add("asin", "2d", tf.asin, ref=torch.asin, inputs=_uniform(-0.9, 0.9))
    add("acos", "2d", tf.acos, ref=torch.acos, inputs=_uniform(-0.9, 0.9))
    # lgamma below 0 as well (between the poles: |Gamma| and its sign change there)
    add("lgamma", "2d", tf.lgamma, ref=torch.lgamma, inputs=_uniform(0.2, 4.0))
    add("lgamma", "negative", tf.lgamma, ref=torch.lgamma, inputs=_uniform(-1.8, -1.2))
    add("digamma", "2d", tf.digamma, ref=torch.digamma, inputs=_uniform(0.3, 4.0))
    for order in (1, 2):
        add("_polygamma", f"order={order}",
            lambda x, n=order: create_op("_polygamma", x, order=n),
            ref=lambda x, n=order: torch.polygamma(n, x), inputs=_uniform(0.5, 3.0))
    for a, b in (((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4))):
        add("atan2", f"{a}-{b}", tf.atan2, (a, b), torch.atan2)
    for axis, shape in ((0, (3, 4)), (1, (3, 4)), (-1, (2, 3, 4)), (-2, (2, 3, 4))):
        for exclusive in (False, True):
            for reverse in (False, True):
                label = f"axis={axis}-{shape}-exclusive={exclusive}-reverse={reverse}"
                for op, api, function in (("cumsum", tf.cumsum, torch.cumsum),
                                          ("cumprod", tf.cumprod, torch.cumprod)):
                    add(op, label, lambda x, api=api, a=axis, e=exclusive, r=reverse: api(
                        x, axis=a, exclusive=e, reverse=r), [shape],
                        _torch_cumulative(function, axis, exclusive, reverse))
    for equation, shapes in (("ij,jk->ik", [(2, 3), (3, 4)]),
                             ("bij,bjk->bik", [(2, 3, 4), (2, 4, 3)]),
                             ("ij,ij->i", [(3, 4), (3, 4)]), ("i,j->ij", [(3,), (4,)]),
                             ("ij,k->i", [(3, 4), (2,)]), ("ij,jk->", [(2, 3), (3, 4)]),
                             ("ij->j", [(3, 4)]), ("ij->ji", [(3, 4)]), ("ijk->kij", [(2, 3, 4)])):
        add("einsum", equation, lambda *xs, e=equation: tf.einsum(e, *xs), shapes,
            lambda *xs, e=equation: torch.einsum(e, *xs))
