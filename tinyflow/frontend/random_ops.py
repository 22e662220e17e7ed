"""Random tensors and seeds as in TensorFlow 1.15 (``tensorflow/python/ops/random_ops.py`` and
``framework/random_seed.py``).

A random op draws new numbers every time it runs.  Its numbers repeat from one session to the
next when it has a seed: an op-level ``seed=``, or the graph-level one
(:func:`set_random_seed`), from which each op without ``seed=`` gets a distinct one of its own
(:func:`get_seed`, TensorFlow's rule).  The pair ``(seed, seed2)`` is stored on the node as its
``seed`` and ``seed2`` attributes (``tf.nn.dropout`` takes them too).

Where the numbers come from (TensorFlow keeps one random stream per stateful op per session):

- A seeded node's stream is a ``torch.Generator`` that lives in its session's
  :class:`RandomStreams`, which the session's ``VariableStore`` holds (``store.random_streams``),
  keyed by the node.  It is made the first time an executor of that session binds the node, and
  seeded with :func:`stream_seed` ``(seed, seed2)``.
- The executor hands it to the node's Lua body as ``kwarg.generator``; every run of the body
  draws from it and so advances it.  Executors of one session share it, so successive runs of
  the op continue one sequence whichever fetch set (or feed shapes) runs it.
- A new session has new streams: it repeats the sequence from the start.  ``Session.close``
  drops them.
- A node without a seed gets no generator (``kwarg.generator`` is nil) and draws from torch's
  global generator: its numbers differ from session to session, as TensorFlow's do.
"""
from __future__ import annotations

import numbers
from types import SimpleNamespace

import numpy as np

from ..nnvm.symbol import Symbol, create_op, current_context
from ..nnvm.variables import constant
from .api import maximum
from .array_ops import ShapeValue, shaped_by_value, zeros_like
from .array_ops import _static_shape as static_shape_argument
from .dtypes import as_dtype, float32

__all__ = [
    "get_seed",
    "multinomial",
    "normal",
    "random",
    "random_gamma",
    "random_normal",
    "random_poisson",
    "random_shuffle",
    "random_uniform",
    "set_random_seed",
    "truncated_normal",
]

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def set_random_seed(seed) -> None:
    """Set the graph-level random seed of the current graph (None unsets it).

    Ops made afterwards without ``seed=`` get distinct seeds derived from it, so a program
    that builds the same graph draws the same numbers in every new session.
    """
    current_context().seed = None if seed is None else int(seed)


def get_seed(op_seed):
    """The two seeds ``(seed, seed2)`` an op made now uses, from ``op_seed`` and the graph's
    seed: TensorFlow 1.15's rule (:meth:`~tinyflow.nnvm.symbol.GraphContext.op_seeds`)."""
    return current_context().op_seeds(op_seed)


def fully_known_shape(shape) -> tuple:
    """A fully known shape (int, list, tuple or TensorShape) as a tuple of ints."""
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    dims = [shape] if isinstance(shape, numbers.Integral) else list(shape)
    if any(d is None for d in dims):
        raise ValueError(f"a random tensor's shape must be fully known, got {dims}")
    return tuple(int(d) for d in dims)


def _shape_or_like(shape):
    """A random op's shape: a tuple of ints, the tensor whose shape it is (``tf.shape(x)``,
    known when a session binds the graph), or a ShapeValue (an int tensor computed from shapes,
    folded at bind)."""
    if not isinstance(shape, Symbol) and not (isinstance(shape, (list, tuple)) and any(
            isinstance(d, Symbol) for d in shape)):
        return fully_known_shape(shape)
    return static_shape_argument(shape, "a random tensor's shape")


def _draw(op_name, shape, dtype, seed, name, like=None, **params) -> Symbol:
    """One random node of ``op_name``: samples of ``shape`` (or of ``like``'s shape, or of the
    tensor's that ``tf.shape`` was given) and ``dtype`` with ``params``."""
    seed1, seed2 = get_seed(seed)
    shape = like if like is not None else _shape_or_like(shape)
    if isinstance(shape, ShapeValue):
        result = shaped_by_value(op_name, [], shape, name, dtype=dtype.name, seed=seed1,
                                 seed2=seed2, **params)
        result.set_shape(shape.static)
        return result
    inputs, shape_attr = ([shape], {}) if isinstance(shape, Symbol) else ([], {"shape": shape})
    return create_op(op_name, *inputs, dtype=dtype.name, seed=seed1, seed2=seed2, name=name,
                     **shape_attr, **params)


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
    shape : int, list, tuple, TensorShape or tf.shape(t)
        The output's shape: fully known, or the shape ``t`` has when the graph runs.
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
    shape : int, list, tuple, TensorShape or tf.shape(t)
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
        if any(isinstance(v, Symbol) for v in (minval, maxval)):
            raise TypeError(f"random_uniform: TinyFlow takes the bounds of {dtype.name} samples "
                            f"as Python integers only, not tensors")
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


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None) -> Symbol:
    """``num_samples`` class ids per row of ``logits`` (batch, classes), each drawn with the
    probabilities ``softmax(row)``: (batch, num_samples) of ``output_dtype`` (int64 or int32).

    As TensorFlow's kernel, by the Gumbel-max trick: ``argmax(logits + G)`` along the classes,
    with ``G = -log(-log(U))`` and ``U`` uniform (one per sample and class; a ``-inf`` logit is
    never drawn).  ``seed`` as a random op's (:func:`get_seed`); ``num_samples`` a Python int.
    """

    logits = logits if isinstance(logits, Symbol) else constant(logits)
    output_dtype = as_dtype(output_dtype or "int64")
    if output_dtype.name not in ("int32", "int64"):
        raise ValueError(f"multinomial: output_dtype must be int32 or int64, got "
                         f"{output_dtype.name}")
    if not isinstance(num_samples, numbers.Integral) or num_samples < 0:
        raise TypeError(f"multinomial: TinyFlow takes num_samples as a Python int >= 0, got "
                        f"{num_samples!r}")
    rank = logits.get_shape().ndims
    if rank is not None and rank != 2:
        raise ValueError(f"multinomial: logits must be a matrix (batch, classes), got rank {rank}")
    dtype = _float_dtype(logits.dtype, "multinomial")
    with current_context().name_scope(name or "multinomial"):
        zeros = create_op("zeros", shape=(1, int(num_samples), 1), dtype=dtype.name)
        grid = create_op("expand_dims", logits, axis=1) + zeros  # (batch, num_samples, classes)
        tiny = float(np.finfo(dtype.as_numpy_dtype).tiny)  # U > 0: -log(U) > 0, G finite
        uniform = _draw("uniform", None, dtype, seed, "uniform", like=grid, low=tiny, high=1.0)
        gumbel = -create_op("log", -create_op("log", uniform))
        return create_op("argmax", grid + gumbel, axis=2, output_type=output_dtype.name,
                         name="Multinomial")


def categorical(logits, num_samples, dtype=None, seed=None, name=None) -> Symbol:
    """``tf.random.categorical``: :func:`multinomial` with TensorFlow 2's argument names."""
    return multinomial(logits, num_samples, seed=seed, name=name or "categorical",
                       output_dtype=dtype)


def random_shuffle(value, seed=None, name=None) -> Symbol:
    """``value`` with its slices along the first dimension in a random order, a new one at
    every run (TensorFlow's ``RandomShuffle``; no gradient flows through it).

    Parameters
    ----------
    value : Symbol, number or array
        The tensor to shuffle; a scalar or a single slice comes back as it is.
    seed : int, optional
        The op-level seed (see :func:`get_seed`): with it, or a graph-level seed, each new
        session repeats the same sequence of orders.
    name : str, optional
        The node's name (default ``"RandomShuffle"``).
    """

    value = value if isinstance(value, Symbol) else constant(value)
    seed1, seed2 = get_seed(seed)
    return create_op("random_shuffle", value, seed=seed1, seed2=seed2,
                     name=name or "RandomShuffle")


def normal(shape, stdev=1.0, mean=0.0, name=None, seed=None) -> Symbol:
    """TinyFlow's ``tf.normal``: :func:`random_normal` with the arguments in the seed's order."""
    return random_normal(shape, mean=mean, stddev=stdev, seed=seed, name=name or "normal")


def _candidate_sampler(op_name, true_classes, num_true, num_sampled, unique, range_max, seed,
                       name, **attrs):
    classes = true_classes if isinstance(true_classes, Symbol) else constant(
        np.asarray(true_classes, np.int64))
    seed1, seed2 = get_seed(seed)
    out = create_op(op_name, classes, num_true=int(num_true), num_sampled=int(num_sampled),
                    unique=bool(unique), range_max=int(range_max), seed=seed1, seed2=seed2,
                    name=name, **attrs)
    return tuple(Symbol([entry]) for entry in out.outputs)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None) -> tuple:
    """TensorFlow's Zipfian sampler: ``num_sampled`` classes of ``[0, range_max)`` drawn with
    ``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)`` (distinct with ``unique``),
    a new draw at every run.

    Returns
    -------
    (sampled_candidates, true_expected_count, sampled_expected_count): int64
    ``[num_sampled]``, float32 ``[batch, num_true]`` and ``[num_sampled]``: how many times
    each true and each sampled class is expected among the draws (``P(c) * num_sampled``;
    with ``unique``, ``1 - (1 - P(c)) ** tries``, tries the draws it took).
    """
    return _candidate_sampler("log_uniform_candidate_sampler", true_classes, num_true,
                              num_sampled, unique, range_max, seed, name)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None) -> tuple:
    """As :func:`log_uniform_candidate_sampler`, every class with probability
    ``1 / range_max``."""
    return _candidate_sampler("uniform_candidate_sampler", true_classes, num_true, num_sampled,
                              unique, range_max, seed, name)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None,
                                    name=None) -> tuple:
    """As :func:`log_uniform_candidate_sampler`, class ``c`` drawn with probability
    proportional to ``unigrams[c - num_reserved_ids] ** distortion`` (the reserved ids never;
    ``range_max`` must be ``num_reserved_ids + len(unigrams)``, as TF's).  A ``vocab_file`` and
    ``num_shards`` other than 1 are not supported."""
    if vocab_file or int(num_shards) != 1:
        raise ValueError("fixed_unigram_candidate_sampler: vocab_file and sharding (num_shards "
                         "> 1) are not supported by TinyFlow; give unigrams")
    weights = np.concatenate([np.zeros(int(num_reserved_ids)),
                              np.asarray(unigrams, np.float64) ** float(distortion)])
    if weights.size == 0 or np.any(weights < 0) or weights.sum() <= 0:
        raise ValueError(f"fixed_unigram_candidate_sampler: unigrams must be counts >= 0, not "
                         f"all 0, got {list(unigrams)[:8]}")
    return _candidate_sampler("fixed_unigram_candidate_sampler", true_classes, num_true,
                              num_sampled, unique, range_max, seed, name,
                              probabilities=tuple(float(w) for w in weights / weights.sum()))


def _parameter(value, dtype, what) -> Symbol:
    """A law's parameter as a tensor of ``dtype`` (TF's convert_to_tensor: a tensor of another
    dtype is refused)."""
    if isinstance(value, Symbol):
        if value.dtype != dtype:
            raise TypeError(f"{what} must be {dtype.name}, got a {value.dtype.name} tensor")
        return value
    return constant(np.asarray(value, dtype=dtype.name))


def random_gamma(shape, alpha, beta=None, dtype=float32, seed=None, name=None) -> Symbol:
    """Samples of Gamma(alpha, rate beta) (TensorFlow 1.15's ``tf.random_gamma``): ``shape``
    draws for each element of ``alpha`` broadcast against ``beta``, shape ``shape +
    broadcast(alpha, beta).shape``, at least the dtype's smallest normal number.  Differentiable
    in alpha (the sample's implicit derivative through the law's CDF) and beta, as TF's.

    Parameters
    ----------
    shape : int, list or tuple
        The draws per parameter: fully known.
    alpha, beta : number, array or Symbol
        Shape (concentration) and inverse scale (rate, default 1), of ``dtype``.
    dtype : float16, float32 or float64
    seed : int, optional
        The op-level seed, with the graph's as the other random ops'.
    """
    dtype = _float_dtype(dtype, "random_gamma")
    with current_context().name_scope(name or "random_gamma"):
        alpha = _parameter(alpha, dtype, "alpha")
        beta = _parameter(1.0 if beta is None else beta, dtype, "beta")
        if beta.get_shape().ndims != 0:  # as TF: alpha + zeros_like(beta)
            alpha = alpha + zeros_like(beta)
        seed1, seed2 = get_seed(seed)
        draws = create_op("random_gamma", alpha, shape=fully_known_shape(shape),
                          dtype=dtype.name, seed=seed1, seed2=seed2, name="RandomGamma")
        return maximum(float(np.finfo(dtype.name).tiny), draws / beta)


def random_poisson(lam, shape, dtype=float32, seed=None, name=None) -> Symbol:
    """Samples of Poisson(lam) (TensorFlow 1.15's ``tf.random_poisson`` / ``tf.random.poisson``,
    RandomPoissonV2): ``shape`` (fully known) draws for each element of the rate ``lam`` (a
    float tensor), shape ``shape + lam.shape``, of ``dtype`` (float16/32/64, int32, int64).  No
    gradient, as TF's."""
    dtype = as_dtype(dtype)
    lam = lam if isinstance(lam, Symbol) else constant(np.asarray(lam, np.float32))
    seed1, seed2 = get_seed(seed)
    return create_op("random_poisson", lam, shape=fully_known_shape(shape), dtype=dtype.name,
                     seed=seed1, seed2=seed2, name=name or "random_poisson")


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
                   uniform=random_uniform, categorical=categorical, multinomial=multinomial,
                   shuffle=random_shuffle, gamma=random_gamma, poisson=random_poisson,
                   set_random_seed=set_random_seed, get_seed=get_seed,
                   log_uniform_candidate_sampler=log_uniform_candidate_sampler,
                   uniform_candidate_sampler=uniform_candidate_sampler,
                   fixed_unigram_candidate_sampler=fixed_unigram_candidate_sampler)
