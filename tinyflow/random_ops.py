"""Random tensors and seeds as in TensorFlow 1.15 (``tensorflow/python/ops/random_ops.py`` and
``framework/random_seed.py``).

A random op draws new numbers every time it runs.  Its numbers repeat from one session to the
next when it has a seed: an op-level ``seed=``, or the graph-level one
(:func:`set_random_seed`), from which each op without ``seed=`` gets a distinct one of its own
(:func:`get_seed`, TensorFlow's rule).  A seeded op draws from a torch generator of its own;
an op without either seed draws from torch's global generator.
"""
from __future__ import annotations

import numbers
from types import SimpleNamespace

from .dtypes import as_dtype, float32
from .nnvm.symbol import Symbol, create_op, current_context

__all__ = [
    "get_seed",
    "normal",
    "random",
    "random_normal",
    "random_uniform",
    "set_random_seed",
    "truncated_normal",
]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_FLOATS = ("float16", "bfloat16", "float32", "float64")


def set_random_seed(seed) -> None:
    """Set the graph-level random seed of the current graph (None unsets it).

    Ops made afterwards without ``seed=`` get distinct seeds derived from it, so a program
    that builds the same graph draws the same numbers in every new session.
    """
    current_context().seed = None if seed is None else int(seed)


def get_seed(op_seed):
    """The two seeds ``(seed, seed2)`` an op made now uses, from ``op_seed`` and the graph's
    seed: TensorFlow 1.15's rule.

    =================  ==============  ===================================================
    graph seed         op seed         seeds
    =================  ==============  ===================================================
    set                None            graph seed, the graph's node count (TF's last op id)
    set                given           graph seed, op seed
    None               given           87654321 (TF's default graph seed), op seed
    None               None            None, None: torch's global generator
    =================  ==============  ===================================================

    Seeds are taken modulo 2**31 - 1, and ``(0, 0)`` becomes ``(0, 2**31 - 1)`` as in TF.
    """
    graph = current_context()
    if graph.seed is not None:
        if op_seed is None:
            op_seed = len(graph.nodes_by_name)  # each op made since adds one: distinct seeds
        seeds = graph.seed % _MAXINT32, int(op_seed) % _MAXINT32
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
    else:
        seeds = None, None
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def fully_known_shape(shape) -> tuple:
    """A fully known shape (int, list, tuple or TensorShape) as a tuple of ints."""
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    dims = [shape] if isinstance(shape, numbers.Integral) else list(shape)
    if any(d is None for d in dims):
        raise ValueError(f"a random tensor's shape must be fully known, got {dims}")
    return tuple(int(d) for d in dims)


def _draw(op_name, shape, dtype, seed, name, **params) -> Symbol:
    """One random node of ``op_name``: samples of ``shape`` and ``dtype`` with ``params``."""
    seed1, seed2 = get_seed(seed)
    return create_op(op_name, shape=fully_known_shape(shape), dtype=dtype.name, seed=seed1,
                     seed2=seed2, name=name, **params)


def _float_dtype(dtype, op_name):
    dtype = as_dtype(dtype)
    if dtype.name not in _FLOATS:  # TF's op refuses the dtype as it is built
        raise TypeError(f"{op_name}: dtype {dtype.name} is not one of the allowed values "
                        f"{', '.join(_FLOATS)}")
    return dtype


def _scaled(op_name, default_name, shape, mean, stddev, dtype, seed, name) -> Symbol:
    """``op_name`` samples times ``stddev`` plus ``mean`` (numbers or scalar tensors)."""
    dtype = _float_dtype(dtype, default_name)
    if not isinstance(mean, Symbol) and not isinstance(stddev, Symbol):
        return _draw(op_name, shape, dtype, seed, name or default_name, mean=float(mean),
                     stdev=float(stddev))
    with current_context().name_scope(name or default_name):  # as TF: samples * stddev + mean
        samples = _draw(op_name, shape, dtype, seed, op_name)
        return samples * stddev + mean


def random_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None) -> Symbol:
    """Samples of the normal distribution N(mean, stddev^2), drawn anew at every run.

    Parameters
    ----------
    shape : int, list, tuple or TensorShape
        The output's shape, fully known.
    mean, stddev : number or scalar Symbol
        The distribution's mean and standard deviation (not checked, as in TensorFlow).
    dtype : DType or name
        A floating dtype (float16, bfloat16, float32, float64).
    seed : int, optional
        The op-level seed (see :func:`get_seed`).
    name : str, optional
    """
    return _scaled("normal", "random_normal", shape, mean, stddev, dtype, seed, name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None,
                     name=None) -> Symbol:
    """Samples of N(mean, stddev^2) restricted to ``[mean - 2 stddev, mean + 2 stddev]``.

    TensorFlow draws again the values beyond two standard deviations; the values have that
    law (whose standard deviation is about 0.88 ``stddev``).  Parameters as
    :func:`random_normal`'s.
    """
    return _scaled("truncated_normal", "truncated_normal", shape, mean, stddev, dtype, seed,
                   name)


def random_uniform(shape, minval=0, maxval=None, dtype=float32, seed=None,
                   name=None) -> Symbol:
    """Samples of the uniform distribution on ``[minval, maxval)``, drawn anew at every run.

    Parameters
    ----------
    shape : int, list, tuple or TensorShape
    minval, maxval : number or scalar Symbol
        The range; ``maxval`` defaults to 1 for a floating dtype.  An integer dtype needs both
        as integers.
    dtype : DType or name
        float16, bfloat16, float32, float64, int32 or int64.
    seed : int, optional
        The op-level seed (see :func:`get_seed`).
    name : str, optional

    Raises
    ------
    ValueError
        For another dtype, or an integer dtype without ``maxval`` (as TensorFlow).
    TypeError
        For an integer dtype with bounds that are not integers.
    """
    dtype = as_dtype(dtype)
    if dtype.name not in (*_FLOATS, "int32", "int64"):
        raise ValueError(f"Invalid dtype {dtype!r}")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    if dtype.is_integer:
        if not all(isinstance(v, numbers.Integral) for v in (minval, maxval)):
            raise TypeError(f"random_uniform: the bounds of {dtype.name} samples must be "
                            f"integers, got {minval!r} and {maxval!r}")
        return _draw("uniform", shape, dtype, seed, name or "random_uniform", low=int(minval),
                     high=int(maxval))
    if not isinstance(minval, Symbol) and not isinstance(maxval, Symbol):
        return _draw("uniform", shape, dtype, seed, name or "random_uniform",
                     low=float(minval), high=float(maxval))
    with current_context().name_scope(name or "random_uniform"):  # as TF
        samples = _draw("uniform", shape, dtype, seed, "uniform")
        return samples * (maxval - minval) + minval


def normal(shape, stdev=1.0, mean=0.0, name=None, seed=None) -> Symbol:
    """TinyFlow's ``tf.normal``: :func:`random_normal` with the arguments in the seed's order."""
    return random_normal(shape, mean=mean, stddev=stdev, seed=seed, name=name or "normal")


class Namespace(SimpleNamespace):
    """TF functions under a dotted name (``tf.random``); a missing one is an AttributeError
    saying TinyFlow does not support it."""

    def __init__(self, path: str, **functions):
        super().__init__(**functions)
        object.__setattr__(self, "_path", path)

    def __getattr__(self, name):
        path = self.__dict__.get("_path", "?")  # (no recursion before __init__ set it)
        raise AttributeError(f"tf.{path}.{name} is not supported by TinyFlow")


random = Namespace("random", normal=random_normal, truncated_normal=truncated_normal,
                   uniform=random_uniform, set_random_seed=set_random_seed, get_seed=get_seed)
