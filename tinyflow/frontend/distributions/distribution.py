"""The base of ``tf.distributions`` as in TensorFlow 1.15 (``ops/distributions/distribution.py``
and ``kullback_leibler.py``): a :class:`Distribution` is a batch of distributions of one family,
its parameters broadcast to ``batch_shape``, each over events of ``event_shape``; samples have
shape ``sample_shape + batch_shape + event_shape``.  The methods build graph from existing ops,
so their gradients are the ops' (a reparameterized sample is ``loc + scale * noise``)."""
from __future__ import annotations

import contextlib
import numbers

import numpy as np

from ...nnvm.symbol import Symbol
from ...nnvm.tensor_shape import TensorShape
from .. import api, array_ops, control_flow_ops, math_ops
from ..dtypes import as_dtype, float32
from ..framework import name_scope

__all__ = [
    "FULLY_REPARAMETERIZED",
    "NOT_REPARAMETERIZED",
    "Distribution",
    "RegisterKL",
    "ReparameterizationType",
    "kl_divergence",
]


class ReparameterizationType:
    """Whether samples are a differentiable function of the parameters (TF's two instances)."""

    def __init__(self, rep_type: str):
        self._rep_type = rep_type

    def __repr__(self):
        return f"<Reparameterization Type: {self._rep_type}>"

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


def parameters_as_tensors(values: dict, dtype=None) -> dict:
    """``values`` (numbers, arrays or tensors) as tensors of one floating dtype: ``dtype``, else a
    tensor's among them, else float32; a tensor of another dtype is a TypeError, as TF's
    ``assert_same_float_dtype``."""
    given = [v.dtype for v in values.values() if isinstance(v, Symbol)] + [
        as_dtype(v.dtype.name) for v in values.values()  # a float64 array makes float64, as TF
        if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
    dtype = as_dtype(dtype) if dtype is not None else (given[0] if given else float32)
    if not dtype.is_floating:
        raise TypeError(f"a distribution's parameters must be floating point, got {dtype.name}")
    tensors = {}
    for key, value in values.items():
        if (isinstance(value, Symbol) or isinstance(value, np.ndarray) and value.dtype.kind ==
                "f") and as_dtype(value.dtype.name) != dtype:
            raise TypeError(f"parameter {key!r} has dtype {value.dtype.name}, expected "
                            f"{dtype.name} (the distribution's other parameters' dtype)")
        tensors[key] = math_ops.convert_to_tensor(value, dtype=dtype, name=key)
    return tensors


def broadcast_shape(*shapes) -> TensorShape:
    """The static shape numpy's broadcasting gives ``shapes`` (unknown where one is unknown)."""
    if any(s.ndims is None for s in shapes):
        return TensorShape(None)
    rank = max(s.ndims for s in shapes)
    dims = []
    for i in range(rank):
        column = [s.as_list()[i - rank + s.ndims] for s in shapes if i - rank + s.ndims >= 0]
        sizes = {d for d in column if d != 1}
        if None in sizes:
            known = sizes - {None}
            dims.append(known.pop() if known else None)
        elif len(sizes) > 1:
            raise ValueError(f"a distribution's parameters have incompatible shapes "
                             f"{[s.as_list() for s in shapes]}")
        else:
            dims.append(sizes.pop() if sizes else 1)
    return TensorShape(dims)


def static_sample_shape(sample_shape) -> list:
    """``sample_shape`` (an int, a list or tuple of ints) as a list of ints."""
    if isinstance(sample_shape, numbers.Integral):
        return [int(sample_shape)]
    if isinstance(sample_shape, Symbol) or not all(
            isinstance(d, numbers.Integral) for d in sample_shape):
        raise TypeError(f"sample_shape must be an int or a list of ints known when the graph is "
                        f"built (TinyFlow does not take a tensor here), got {sample_shape!r}")
    return [int(d) for d in sample_shape]


def assert_positive(tensor, what):
    """``tensor`` after a run-time check that it is positive (validate_args)."""
    check = control_flow_ops.Assert(api.reduce_all(tensor > 0.),
                                    [f"Condition x > 0 did not hold element-wise: {what}",
                                     tensor], name=f"assert_positive_{what}")
    with api.control_dependencies([check]):
        return api.identity(tensor)


class Distribution:
    """A batch of distributions of one family (TF 1.15's ``tf.distributions.Distribution``).

    Subclasses give ``_batch_shape``, ``_sample(dims, count, seed)`` (samples of shape
    ``dims``, a list of ints or an int tensor: ``sample_shape + batch_shape + event_shape``;
    ``count`` is the product of ``sample_shape``) and the ``_<method>`` of each statistic they
    have; a method a family lacks is TF's NotImplementedError.
    """

    def __init__(self, dtype, reparameterization_type, validate_args, allow_nan_stats,
                 parameters=None, graph_parents=None, name=None):
        self._dtype = as_dtype(dtype) if dtype is not None else None
        self._reparameterization_type = reparameterization_type
        self._validate_args = bool(validate_args)
        self._allow_nan_stats = bool(allow_nan_stats)
        self._parameters = dict(parameters or {})
        self._parameters.pop("self", None)
        self._parameters.pop("__class__", None)
        self._graph_parents = list(graph_parents or [])
        self._name = name or f"{type(self).__name__}/"  # TF's: the scope made, "Normal/"

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    parameters = property(lambda self: dict(self._parameters))
    reparameterization_type = property(lambda self: self._reparameterization_type)
    allow_nan_stats = property(lambda self: self._allow_nan_stats)
    validate_args = property(lambda self: self._validate_args)

    @property
    def batch_shape(self) -> TensorShape:
        return self._batch_shape()

    @property
    def event_shape(self) -> TensorShape:
        return self._event_shape()

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        with self._scope(name):
            known = self.batch_shape
            if known.is_fully_defined():
                return array_ops.constant(known.as_list(), dtype="int32")
            return self._batch_shape_tensor()

    def event_shape_tensor(self, name="event_shape_tensor"):
        with self._scope(name):
            known = self.event_shape
            if known.is_fully_defined():
                return array_ops.constant(known.as_list(), dtype="int32")
            return self._event_shape_tensor()

    def is_scalar_batch(self, name="is_scalar_batch") -> bool:
        return self.batch_shape.ndims == 0

    def is_scalar_event(self, name="is_scalar_event") -> bool:
        return self.event_shape.ndims == 0

    @contextlib.contextmanager
    def _scope(self, name):
        """The method's scope inside the distribution's (``Normal/log_prob/``), as TF's."""
        with name_scope(self._name), name_scope(name) as scope:
            yield scope

    def sample_dims(self, sample_shape):
        """``sample_shape + batch_shape + event_shape``: a list of ints where all are known
        now, else an int tensor."""
        sample_shape = static_sample_shape(sample_shape)
        batch, event = self.batch_shape, self.event_shape
        if batch.is_fully_defined() and event.is_fully_defined():
            return sample_shape + batch.as_list() + event.as_list()
        return array_ops.concat([array_ops.constant(sample_shape, dtype="int32"),
                                 self.batch_shape_tensor(), self.event_shape_tensor()], 0)

    def sample(self, sample_shape=(), seed=None, name="sample"):
        """Samples of shape ``sample_shape + batch_shape + event_shape``, new ones at every run
        (repeating from session to session with an op or graph seed, as TF's)."""
        with self._scope(name):
            count = int(np.prod(static_sample_shape(sample_shape)))
            samples = self._sample(self.sample_dims(sample_shape), count, seed)
            batch, event = self.batch_shape, self.event_shape
            if batch.ndims is not None and event.ndims is not None:
                samples.set_shape(TensorShape(static_sample_shape(sample_shape) +
                                              batch.as_list() + event.as_list()))
            return samples

    def _call(self, method, name, *args):
        implementation = getattr(self, f"_{method}", None)
        if implementation is None:
            raise NotImplementedError(f"{method} is not implemented: {type(self).__name__}")
        with self._scope(name):
            return implementation(*args)

    def _value(self, value):
        return math_ops.convert_to_tensor(value, dtype=self._value_dtype(), name="value")

    def _value_dtype(self):
        return self._dtype

    def log_prob(self, value, name="log_prob"):
        if not hasattr(self, "_log_prob") and hasattr(self, "_prob"):
            with self._scope(name):
                return api.log(self._prob(self._value(value)))
        return self._call("log_prob", name, self._value(value))

    def prob(self, value, name="prob"):
        if not hasattr(self, "_prob") and hasattr(self, "_log_prob"):
            with self._scope(name):
                return api.exp(self._log_prob(self._value(value)))
        return self._call("prob", name, self._value(value))

    def cdf(self, value, name="cdf"):
        if not hasattr(self, "_cdf") and hasattr(self, "_log_cdf"):
            with self._scope(name):
                return api.exp(self._log_cdf(self._value(value)))
        return self._call("cdf", name, self._value(value))

    def log_cdf(self, value, name="log_cdf"):
        if not hasattr(self, "_log_cdf") and hasattr(self, "_cdf"):
            with self._scope(name):
                return api.log(self._cdf(self._value(value)))
        return self._call("log_cdf", name, self._value(value))

    def survival_function(self, value, name="survival_function"):
        with self._scope(name):
            return 1. - self.cdf(value)

    def log_survival_function(self, value, name="log_survival_function"):
        if hasattr(self, "_log_survival_function"):
            return self._call("log_survival_function", name, self._value(value))
        with self._scope(name):
            return api.log1p(-self.cdf(value))

    def entropy(self, name="entropy"):
        return self._call("entropy", name)

    def mean(self, name="mean"):
        return self._call("mean", name)

    def mode(self, name="mode"):
        return self._call("mode", name)

    def variance(self, name="variance"):
        if not hasattr(self, "_variance") and hasattr(self, "_stddev"):
            with self._scope(name):
                return api.square(self._stddev())
        return self._call("variance", name)

    def stddev(self, name="stddev"):
        if not hasattr(self, "_stddev") and hasattr(self, "_variance"):
            with self._scope(name):
                return api.sqrt(self._variance())
        return self._call("stddev", name)

    def covariance(self, name="covariance"):
        return self._call("covariance", name)

    def cross_entropy(self, other, name="cross_entropy"):
        """H[self, other] = H[self] + KL[self || other], as TF computes it."""
        with self._scope(name):
            return self.entropy() + kl_divergence(self, other)

    def kl_divergence(self, other, name="kl_divergence"):
        with self._scope(name):
            return kl_divergence(self, other)

    def nan_where(self, condition, value, statistic):
        """``value`` with NaN where ``condition`` (``allow_nan_stats``); else ``value`` after a
        run-time check that ``condition`` holds nowhere, TF's InvalidArgumentError."""
        if self._allow_nan_stats:
            return api.where(condition, array_ops.zeros_like(value) + float("nan"), value)
        check = control_flow_ops.Assert(
            api.logical_not(api.reduce_any(condition)),
            [f"{statistic} not defined for some of the parameters"], name="nan_check")
        with api.control_dependencies([check]):
            return api.identity(value)

    def __repr__(self):
        return (f"<tf.distributions.{type(self).__name__} '{self._name}' batch_shape="
                f"{self.batch_shape} event_shape={self.event_shape} dtype="
                f"{self._dtype.name if self._dtype else None}>")


# The KL registry, {(type_a, type_b): function}: one per process, as TF's (and as the op
# registry), filled as the families' modules are imported and by users' RegisterKL.
_KL: dict = {}


class RegisterKL:
    """Decorator registering ``kl_fn(a, b, name=None)`` as KL(a || b) for two families."""

    def __init__(self, dist_cls_a, dist_cls_b):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn):
        if not callable(kl_fn):
            raise TypeError(f"kl_fn must be callable, received: {kl_fn}")
        if self._key in _KL:
            a, b = self._key
            raise ValueError(f"KL({a.__name__} || {b.__name__}) has already been registered "
                             f"to: {_KL[self._key]}")
        _KL[self._key] = kl_fn
        return kl_fn


def _kl_function(type_a, type_b):
    """The registered function nearest both types along their MROs (TF's lookup)."""
    best, best_distance = None, None
    for i, parent_a in enumerate(type_a.__mro__):
        for j, parent_b in enumerate(type_b.__mro__):
            found = _KL.get((parent_a, parent_b))
            if found is not None and (best_distance is None or i + j < best_distance):
                best, best_distance = found, i + j
    return best


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """KL(distribution_a || distribution_b), batchwise, by the registered function for their
    families (TF 1.15's ``tf.distributions.kl_divergence``).

    With ``allow_nan_stats=False`` a NaN in the result is an InvalidArgumentError at run time.

    Raises
    ------
    NotImplementedError
        No function is registered for the two families.
    """
    kl_fn = _kl_function(type(distribution_a), type(distribution_b))
    if kl_fn is None:
        raise NotImplementedError(
            f"No KL(distribution_a || distribution_b) registered for distribution_a type "
            f"{type(distribution_a).__name__} and distribution_b type "
            f"{type(distribution_b).__name__}")
    with name_scope("KullbackLeibler"):
        kl = kl_fn(distribution_a, distribution_b, name=name)
        if allow_nan_stats:
            return kl
        check = control_flow_ops.Assert(  # TF's run-time check
            api.logical_not(api.reduce_any(math_ops.is_nan(kl))),
            [f"KL calculation between {distribution_a.name} and {distribution_b.name} is NaN."],
            name="nan_check")
        with api.control_dependencies([check]):
            return api.identity(kl, name="checked_kl")
