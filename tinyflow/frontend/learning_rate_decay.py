"""TensorFlow 1.15's learning-rate schedules (``tf.train.exponential_decay`` and the rest).

Each schedule is a small graph of the ops users write (cast, divide, pow, floordiv, where...),
built with TF's formulas and dtype rules: the learning rate is converted to a tensor (a Python
float is float32) and every other number, the global step included (an int64 variable), is cast
to its dtype before the arithmetic.  The result is a scalar tensor to give an optimizer::

    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.1, step, 1000, 0.96, staircase=True)
    train_op = tf.train.AdamOptimizer(lr).minimize(loss, global_step=step)

The cosine schedules (``cosine_decay``, ``cosine_decay_restarts``, ``linear_cosine_decay``,
``noisy_linear_cosine_decay``) are TF 1.15's learning_rate_decay_v2 formulas, op for op.
"""
from __future__ import annotations

import math

from ..nnvm.symbol import Symbol
from . import api
from .control_flow_ops import cond
from .dtypes import as_dtype
from .framework import name_scope
from .math_ops import ceil, floor
from .random_ops import random_normal

__all__ = [
    "cosine_decay",
    "cosine_decay_restarts",
    "exponential_decay",
    "inverse_time_decay",
    "linear_cosine_decay",
    "natural_exp_decay",
    "noisy_linear_cosine_decay",
    "piecewise_constant",
    "piecewise_constant_decay",
    "polynomial_decay",
]


def _tensor(value) -> Symbol:
    """``value`` as a tensor: symbols as they are, Python numbers as TF converts them."""
    return value if isinstance(value, Symbol) else api.constant(value)


def _cast(value, dtype) -> Symbol:
    """TF's ``math_ops.cast``: a tensor of ``dtype`` already is returned as it is; a Python
    number is first converted on its own (0.96 to float32) and then cast, as TF does."""
    tensor = _tensor(value)
    return tensor if tensor.dtype == as_dtype(dtype) else api.cast(tensor, dtype)


def _check_step(global_step, schedule: str) -> None:
    if global_step is None:
        raise ValueError(f"global_step is required for {schedule}.")


def _decay_inputs(learning_rate, global_step, decay_steps, schedule: str):
    """The learning rate as a tensor, the step and ``decay_steps`` cast to its dtype."""
    _check_step(global_step, schedule)
    learning_rate = _tensor(learning_rate)
    dtype = learning_rate.dtype
    return learning_rate, _cast(global_step, dtype), _cast(decay_steps, dtype)


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None) -> Symbol:
    """``learning_rate * decay_rate ** (global_step / decay_steps)``, the exponent rounded
    down when ``staircase`` (the rate then changes every ``decay_steps`` steps).

    Parameters
    ----------
    learning_rate : float or Symbol
        The initial learning rate (a Python number is float32); the result has its dtype.
    global_step : Symbol or int
        The step (an integer variable, as ``tf.train.get_or_create_global_step()``).
    decay_steps : int or Symbol
        Steps per decay period; must be positive.
    decay_rate : float or Symbol
        The factor applied per period.
    staircase : bool
        Decay at discrete intervals (``floor(global_step / decay_steps)``).
    name : str, optional
        Name scope of the ops (default ``"ExponentialDecay"``).

    Returns
    -------
    Symbol
        The decayed learning rate, a scalar.

    Raises
    ------
    ValueError
        When ``global_step`` is None.
    """
    with name_scope(name, "ExponentialDecay"):
        learning_rate, step, decay_steps = _decay_inputs(
            learning_rate, global_step, decay_steps, "exponential_decay")
        decay_rate = _cast(decay_rate, learning_rate.dtype)
        p = step / decay_steps
        if staircase:
            p = floor(p)
        return api.multiply(learning_rate, api.pow(decay_rate, p))


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None) -> Symbol:
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``: TF's exponential
    decay by the rate ``exp(-decay_rate)``; with ``staircase`` the exponent's
    ``global_step / decay_steps`` is rounded down.  Arguments as :func:`exponential_decay`.

    Returns
    -------
    Symbol
        The decayed learning rate, a scalar of the learning rate's dtype.
    """
    _check_step(global_step, "natural_exp_decay")
    with name_scope(name, "NaturalExpDecay"):
        rate = api.exp(api.negative(_tensor(decay_rate)))
        return exponential_decay(learning_rate, global_step, decay_steps, rate,
                                 staircase=staircase)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None) -> Symbol:
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``, the quotient
    ``global_step / decay_steps`` rounded down when ``staircase``.  Arguments as
    :func:`exponential_decay`.

    Returns
    -------
    Symbol
        The decayed learning rate, a scalar of the learning rate's dtype.
    """
    with name_scope(name, "InverseTimeDecay"):
        learning_rate, step, decay_steps = _decay_inputs(
            learning_rate, global_step, decay_steps, "inverse_time_decay")
        dtype = learning_rate.dtype
        p = step / decay_steps
        if staircase:
            p = floor(p)
        denominator = api.add(_cast(1, dtype), api.multiply(_cast(decay_rate, dtype), p))
        return api.divide(learning_rate, denominator)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None) -> Symbol:
    """From ``learning_rate`` to ``end_learning_rate`` in ``decay_steps`` steps::

        step = min(global_step, decay_steps)
        (learning_rate - end_learning_rate) * (1 - step / decay_steps) ** power
            + end_learning_rate

    With ``cycle`` the step is not clipped: ``decay_steps`` becomes its first multiple at or
    above ``global_step`` (one period at step 0), so the decay starts over each period.

    Parameters
    ----------
    learning_rate, global_step, decay_steps, name
        As :func:`exponential_decay` (default scope ``"PolynomialDecay"``).
    end_learning_rate : float or Symbol
        The rate reached at ``decay_steps``.
    power : float or Symbol
        The power of the polynomial (1: linear).
    cycle : bool
        Start over after every ``decay_steps``.

    Returns
    -------
    Symbol
        The decayed learning rate, a scalar of the learning rate's dtype.
    """
    with name_scope(name, "PolynomialDecay"):
        learning_rate, step, decay_steps = _decay_inputs(
            learning_rate, global_step, decay_steps, "polynomial_decay")
        dtype = learning_rate.dtype
        end_learning_rate, power = _cast(end_learning_rate, dtype), _cast(power, dtype)
        if cycle:
            # 1 at step 0 (TF's cond)
            periods = ceil(step / decay_steps)
            multiplier = api.where(api.equal(step, 0), 1.0, periods)
            decay_steps = api.multiply(decay_steps, multiplier)
        else:
            step = api.minimum(step, decay_steps)
        p = api.divide(step, decay_steps)
        return api.add(api.multiply(learning_rate - end_learning_rate, api.pow(1 - p, power)),
                       end_learning_rate)


def _piecewise_tensors(x, boundaries, values):
    """TF's conversions: each boundary and value on its own, boundaries cast to x's dtype."""
    boundaries, values = list(boundaries), list(values)
    if len(boundaries) != len(values) - 1:
        raise ValueError(f"The length of boundaries should be 1 less than the length of "
                         f"values: {len(boundaries)} boundaries and {len(values)} values")
    x = _tensor(x)
    values = [_tensor(v) for v in values]
    for value in values[1:]:
        if value.dtype != values[0].dtype:
            raise ValueError(f"Values must have elements all with the same dtype "
                             f"({values[0].dtype.name} vs {value.dtype.name}).")
    return x, [_cast(b, x.dtype) for b in boundaries], values


def piecewise_constant(x, boundaries, values, name=None) -> Symbol:
    """``values[0]`` while ``x <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < x <= boundaries[i]``, ``values[-1]`` once ``x > boundaries[-1]``.

    Parameters
    ----------
    x : Symbol or int
        The step (a scalar; the boundaries are cast to its dtype, as TF does).
    boundaries : list
        Strictly increasing numbers or scalar tensors.
    values : list
        ``len(boundaries) + 1`` numbers or scalar tensors of one dtype, the result's.
    name : str, optional
        Name scope of the ops (default ``"PiecewiseConstant"``).

    Returns
    -------
    Symbol
        The value for ``x``, a scalar.

    Raises
    ------
    ValueError
        When ``len(values) != len(boundaries) + 1``, or the values' dtypes differ.

    Notes
    -----
    TF's ``tf.case(exclusive=True)`` is a chain of ``where`` here: the first interval holding
    ``x`` wins.  With boundaries that are not increasing, TF raises when the step runs; this
    gives that first interval's value.
    """
    with name_scope(name, "PiecewiseConstant"):
        x, boundaries, values = _piecewise_tensors(x, boundaries, values)
        # TF's predicates, in its order: x <= b[0], x > b[-1], then b[i-1] < x <= b[i]
        pairs = [(x <= boundaries[0], values[0]), (x > boundaries[-1], values[-1])]
        pairs += [((x > low) & (x <= high), value)
                  for low, high, value in zip(boundaries[:-1], boundaries[1:], values[1:-1])]
        result = values[0]  # tf.case's default, never taken: the predicates cover every x
        for predicate, value in reversed(pairs):
            result = api.where(predicate, value, result)
        return result


def _cosine(fraction) -> Symbol:
    """``0.5 * (1 + cos(pi * fraction))``, with TF's float32 constant pi."""
    return 0.5 * (1.0 + api.cos(api.constant(math.pi) * fraction))


def _clipped_fraction(learning_rate, global_step, decay_steps, what):
    """The learning rate, ``min(step, decay_steps)`` and ``decay_steps``, as TF casts them."""
    if global_step is None:
        raise ValueError(f"{what} requires global_step")
    learning_rate = _tensor(learning_rate)
    decay_steps = _cast(decay_steps, learning_rate.dtype)
    step = api.minimum(_cast(global_step, learning_rate.dtype), decay_steps)
    return learning_rate, step, decay_steps


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None) -> Symbol:
    """``learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * step / decay_steps)) + alpha)``
    with ``step = min(global_step, decay_steps)`` (SGDR without restarts; TF 1.15's)."""
    with name_scope(name, "CosineDecay"):
        learning_rate, step, decay_steps = _clipped_fraction(
            learning_rate, global_step, decay_steps, "cosine decay")
        alpha = _cast(alpha, learning_rate.dtype)
        decayed = (1 - alpha) * _cosine(step / decay_steps) + alpha
        return api.multiply(learning_rate, decayed)


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0,
                          alpha=0.0, name=None) -> Symbol:
    """Cosine decay restarted after ``first_decay_steps``, each period ``t_mul`` times longer
    than the last and its start ``m_mul`` times lower (SGDR; TF 1.15's formula, its
    ``cond(t_mul == 1)`` taken when the graph is built for a Python ``t_mul``)."""
    if global_step is None:
        raise ValueError("cosine decay restarts requires global_step")
    with name_scope(name, "SGDRDecay"):
        learning_rate = _tensor(learning_rate)
        dtype = learning_rate.dtype
        first, alpha = _cast(first_decay_steps, dtype), _cast(alpha, dtype)
        geometric = _cast(t_mul, dtype)
        fraction = _cast(global_step, dtype) / first

        def restarts(geometric_periods):
            if not geometric_periods:
                i_restart = floor(fraction)
                return i_restart, fraction - i_restart
            i_restart = floor(api.log(1.0 - fraction * (1.0 - geometric)) / api.log(geometric))
            sum_r = (1.0 - geometric ** i_restart) / (1.0 - geometric)
            return i_restart, (fraction - sum_r) / geometric ** i_restart
        if isinstance(t_mul, Symbol):
            i_restart, fraction = cond(api.equal(geometric, 1.0), lambda: restarts(False),
                                       lambda: restarts(True))
        else:
            i_restart, fraction = restarts(float(t_mul) != 1.0)
        cosine_decayed = _cast(m_mul, dtype) ** i_restart * _cosine(fraction)
        return api.multiply(learning_rate, (1 - alpha) * cosine_decayed + alpha)


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0,
                        beta=0.001, name=None) -> Symbol:
    """``learning_rate * ((alpha + (decay_steps - step) / decay_steps) * 0.5 * (1 + cos(2 pi
    num_periods step / decay_steps)) + beta)``, ``step = min(global_step, decay_steps)``."""
    with name_scope(name, "LinearCosineDecay"):
        learning_rate, step, decay_steps = _clipped_fraction(
            learning_rate, global_step, decay_steps, "linear cosine decay")
        linear = (decay_steps - step) / decay_steps
        return api.multiply(learning_rate, _linear_cosine(
            learning_rate, step, decay_steps, linear, num_periods, alpha, beta))


def _linear_cosine(learning_rate, step, decay_steps, linear, num_periods, alpha, beta):
    dtype = learning_rate.dtype
    fraction = 2.0 * _cast(num_periods, dtype) * (step / decay_steps)
    return (_cast(alpha, dtype) + linear) * _cosine(fraction) + _cast(beta, dtype)


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0,
                              variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001,
                              name=None) -> Symbol:
    """:func:`linear_cosine_decay` with normal noise of variance ``initial_variance / (1 +
    step) ** variance_decay`` added to its linear part, drawn at every run (TF 1.15's)."""
    with name_scope(name, "NoisyLinearCosineDecay"):
        learning_rate, step, decay_steps = _clipped_fraction(
            learning_rate, global_step, decay_steps, "noisy linear cosine decay")
        dtype = learning_rate.dtype
        variance = _cast(initial_variance, dtype) / api.pow(1.0 + step,
                                                            _cast(variance_decay, dtype))
        noise = random_normal([], dtype=dtype) * api.sqrt(variance)
        linear = (decay_steps - step) / decay_steps + noise
        return api.multiply(learning_rate, _linear_cosine(
            learning_rate, step, decay_steps, linear, num_periods, alpha, beta))


piecewise_constant_decay = piecewise_constant  # TF 1.15 exports both names (v1)
