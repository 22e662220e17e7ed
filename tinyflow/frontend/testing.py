"""Numerical checks of gradient rules, for tests of built-in and user ops.

:func:`check_gradients` builds a small graph (an op applied to placeholders), asks the Gradient
pass for the vector-Jacobian product with a fixed random head gradient ``r`` (the gradient of
``loss = sum(out * r)``), runs it through a :class:`~tinyflow.Session` and compares it with
central finite differences of the same forward graph.  The executor computes in float32 only,
so the loss of each perturbed run is summed numpy-side in float64 and every difference is
divided by the step actually taken after rounding to float32.

:func:`differentiable_ops` lists the registered ops that carry a real gradient rule, so a test
suite can check that each of them is covered.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from ..nnvm.attrs import no_gradient
from ..nnvm.op import Op
from ..nnvm.symbol import Symbol, create_op
from ..session.options import ConfigProto
from .api import gradients, placeholder

__all__ = ["GradientReport", "check_gradients", "differentiable_ops", "random_inputs"]


def differentiable_ops(include_backward: bool = True) -> list[str]:
    """Names of the registered ops whose ``FGradient`` is a real rule.

    Parameters
    ----------
    include_backward : bool
        Also list ops marked ``TIsBackward`` (``_collapse_sum_like``, ``_pad_backward``...).
        Their inputs are gradients, so a check must feed them inputs of the right form.

    Returns
    -------
    list of str, sorted.  Ops without ``FGradient`` and ops whose rule is
    :func:`~tinyflow.nnvm.attrs.no_gradient` are left out.
    """
    names = []
    for op, rule in Op.get_attr("FGradient").items():
        if rule is no_gradient:
            continue
        if not include_backward and op.attr("TIsBackward", False):
            continue
        names.append(op.name)
    return sorted(names)


def random_inputs(shapes, seed=0, positive: bool = False) -> list[np.ndarray]:
    """Random float32 arrays of ``shapes`` for a gradient check.

    Parameters
    ----------
    shapes : sequence of shapes
    seed : int or numpy.random.Generator
    positive : bool
        Draw from [0.5, 1.5] (the domain of ``log``, ``sqrt``, ``a ** b``...).  Otherwise
        magnitudes are drawn from [0.1, 1.5] with random signs, so no value sits within a
        finite-difference step of a kink such as ``relu``'s or ``abs``'s at 0.

    Returns
    -------
    list of numpy.ndarray, float32, one per shape.
    """
    rng = np.random.default_rng(seed)
    values = []
    for shape in shapes:
        magnitude = rng.uniform(0.5 if positive else 0.1, 1.5, size=shape)
        sign = 1.0 if positive else rng.choice([-1.0, 1.0], size=shape)
        values.append(np.asarray(magnitude * sign, dtype=np.float32))
    return values


@dataclass
class GradientReport:
    """What :func:`check_gradients` computed, for further comparisons (e.g. with PyTorch).

    Attributes
    ----------
    inputs : list of numpy.ndarray
        The input values (float32).
    head_grads : list of numpy.ndarray
        The fixed random tensor ``r`` per output: the loss is ``sum(out * r)``.
    outputs : list of numpy.ndarray
        The forward outputs at ``inputs``.
    symbolic, numeric : dict int -> numpy.ndarray
        Per checked input index: the gradient from the Gradient pass (zeros where it reports
        no gradient) and the finite-difference estimate (float64).
    """

    inputs: list
    head_grads: list
    outputs: list
    symbolic: dict
    numeric: dict


def check_gradients(op, input_shapes=None, attrs=None, *, inputs=None, wrt=None, seed=0,
                    eps=1e-3, rtol=1e-2, atol=1e-3, positive=False, plan_memory=True,
                    config="cpu", name=None, finite_differences=True) -> GradientReport:
    """Compare an op's symbolic gradient with central finite differences.

    Parameters
    ----------
    op : str or callable
        An op name, applied as ``create_op(op, *placeholders, **attrs)``, or a function
        ``f(*symbols) -> Symbol`` building the graph under test (its name is used in messages).
    input_shapes : sequence of shapes, optional
        Shapes of the inputs, filled by :func:`random_inputs`; not needed with ``inputs``.
    attrs : dict, optional
        Attributes of the op (only with an op name).
    inputs : sequence of array_like, optional
        Input values to check at, when random values do not suit the op.
    wrt : sequence of int, optional
        Indices of the inputs to check (default: all).  An input the Gradient pass does not
        reach must get a zero numeric gradient.
    seed : int
        Seed of the random inputs and of the head gradient ``r``.
    eps : float
        Finite-difference step.  The forward pass runs in float32, so much smaller steps
        drown in rounding error.
    rtol, atol : float
        An element fails when ``|symbolic - numeric| > atol + rtol * |numeric|``.
    positive : bool
        Draw random inputs from a positive range (see :func:`random_inputs`).
    plan_memory : bool
        Passed to the :class:`~tinyflow.Session` running both the gradient and the forward.
    config : str
        The session's device, ``"cpu"`` or ``"gpu"``.  On the CPU every run has torch's
        thread count (``intra_op_parallelism_threads``), so all runs compute the same function.
    name : str, optional
        What messages call the op (default: the op name, or the function's ``__name__``).
    finite_differences : bool
        False: the symbolic gradients only (``numeric`` empty, nothing compared), for a
        comparison with a reference of your own.

    Returns
    -------
    GradientReport

    Raises
    ------
    AssertionError
        Naming the op, the input index, the largest absolute error, where it is, and both
        values there.
    """
    from ..session.session import Session  # torch and the Lua runtime load only when a check runs

    name, build = _builder(op, attrs, name)
    if inputs is None:
        if input_shapes is None:
            raise TypeError("check_gradients needs input_shapes or inputs")
        values = random_inputs(input_shapes, seed, positive)
    else:
        values = [np.array(v, dtype=np.float32) for v in inputs]
    wrt = list(range(len(values))) if wrt is None else list(wrt)
    xs = [placeholder(shape=v.shape, name=f"check_gradients_input{i}")
          for i, v in enumerate(values)]
    out = build(*xs)
    if not isinstance(out, Symbol):
        raise TypeError(f"{name} must build a Symbol, got {type(out).__name__}")
    heads = [Symbol([e]) for e in out.outputs]
    feeds = dict(zip(xs, values))

    # finite differences need the same function at every run: on the CPU, torch's thread
    # count fixed (a count chosen per run changes the last bits of some kernels' sums); on
    # CUDA, cuDNN's deterministic algorithms (others add their partial sums in any order)
    with _deterministic(config), Session(_fixed_threads(config), plan_memory=plan_memory) as sess:
        outputs = [np.asarray(v) for v in sess.run(heads, feeds)]
        rng = np.random.default_rng([seed, 1])
        head_grads = [rng.standard_normal(v.shape).astype(np.float32) for v in outputs]
        r = [placeholder(shape=v.shape, name=f"check_gradients_head{k}")
             for k, v in enumerate(head_grads)]
        feeds.update(zip(r, head_grads))
        grads = gradients(heads, [xs[i] for i in wrt], grad_ys=r)
        fetched = iter(sess.run([g for g in grads if g is not None], feeds))
        symbolic = {i: np.zeros_like(values[i]) if g is None else np.asarray(next(fetched))
                    for i, g in zip(wrt, grads)}

        def loss(at):
            runs = sess.run(heads, {**feeds, **dict(zip(xs, at))})
            return sum(float(np.sum(np.asarray(o, np.float64) * h))
                       for o, h in zip(runs, head_grads))

        numeric = {i: _finite_differences(loss, values, i, eps)
                   for i in (wrt if finite_differences else ())}

    for i, estimate in numeric.items():
        _compare(name, i, symbolic[i], estimate, rtol, atol)
    return GradientReport(values, head_grads, outputs, symbolic, numeric)


def _deterministic(config):
    """For a CUDA session, cuDNN's deterministic algorithms while the check runs."""
    if config == "cpu":
        return contextlib.nullcontext()
    import torch  # deferred as Session is
    return torch.backends.cudnn.flags(enabled=True, benchmark=False, deterministic=True,
                                      allow_tf32=False)


def _fixed_threads(config):
    """``config`` (``"cpu"`` or ``"gpu"``), with torch's thread count fixed for a CPU session
    (``ConfigProto(intra_op_parallelism_threads=...)``, as TensorFlow's fixed intra-op pool)."""
    if config != "cpu":
        return config
    import torch  # deferred as Session is: importing tinyflow.frontend does not load torch
    return ConfigProto(intra_op_parallelism_threads=torch.get_num_threads())


def _builder(op, attrs, name):
    """``(name, build)``: what messages call the op, and ``build(*symbols) -> Symbol``."""
    if isinstance(op, str):
        return name or op, lambda *xs: create_op(op, *xs, **(attrs or {}))
    if attrs:
        raise TypeError("attrs go with an op name; a function builds its op with its attrs")
    return name or getattr(op, "__name__", repr(op)), op


def _finite_differences(loss, values, i, eps) -> np.ndarray:
    """Central differences of ``loss(values)`` with respect to ``values[i]`` (float64)."""
    estimate = np.zeros(values[i].shape, dtype=np.float64)
    for index in np.ndindex(values[i].shape):
        plus, minus = [v.copy() for v in values], [v.copy() for v in values]
        plus[i][index] += np.float32(eps)
        minus[i][index] -= np.float32(eps)
        step = float(plus[i][index]) - float(minus[i][index])  # after float32 rounding
        estimate[index] = (loss(plus) - loss(minus)) / step
    return estimate


def _compare(name, index, symbolic, numeric, rtol, atol):
    if symbolic.shape != numeric.shape:
        raise AssertionError(f"gradient of op {name}, input {index}: symbolic gradient has shape "
                             f"{symbolic.shape}, the input has shape {numeric.shape}")
    with np.errstate(invalid="ignore"):
        error = np.abs(symbolic.astype(np.float64) - numeric)
        excess = error - (atol + rtol * np.abs(numeric))
    error = np.where(np.isnan(error), np.inf, error)
    excess = np.where(np.isfinite(excess), excess, np.inf)  # a NaN or an infinity fails
    if excess.size and excess.max() > 0:
        where = np.unravel_index(int(np.argmax(excess)), excess.shape)
        worst = np.unravel_index(int(np.argmax(error)), error.shape)
        raise AssertionError(
            f"gradient of op {name}, input {index} (shape {numeric.shape}): "
            f"{int(np.sum(excess > 0))} of {excess.size} elements differ from finite "
            f"differences; max abs error {error.max():.3g} at index {tuple(map(int, worst))}; "
            f"worst relative to tolerance at index {tuple(map(int, where))}: symbolic "
            f"{symbolic[where]:.6g}, numeric {numeric[where]:.6g} (rtol={rtol}, atol={atol})")
