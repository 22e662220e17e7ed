"""Initializers as in TensorFlow 1.15 (``tensorflow/python/ops/init_ops.py``).

An initializer is an object called as ``init(shape, dtype=None, partition_info=None)`` that
returns a tensor (a Symbol) of that shape: what ``tf.get_variable(name, shape,
initializer=init)`` calls to make a variable's initial value.  ``dtype`` None means the
initializer's own (float32 unless given).  The random ones take ``seed`` as the random ops do
(:func:`tinyflow.frontend.random_ops.get_seed`).

The variance-scaling family counts fans TensorFlow's way: a matrix ``[in, out]`` has
``fan_in = in`` and ``fan_out = out``; a convolution kernel ``[kh, kw, in, out]`` has
``fan_in = kh * kw * in`` and ``fan_out = kh * kw * out``.
"""
from __future__ import annotations

import math

import numpy as np

from ..nnvm.symbol import create_op, current_context
from .api import (
    constant,
    global_variables_initializer,
    group,
    local_variables_initializer,
    no_op,
    variables_initializer,
)
from .array_ops import reshape, transpose
from .dtypes import as_dtype, float32
from .framework import GraphKeys
from .random_ops import (
    Namespace,
    fully_known_shape,
    random_normal,
    random_uniform,
    truncated_normal,
)

# tf.* names (the classes themselves are reached through them, or from this module)
__all__ = [
    "constant_initializer",
    "glorot_normal_initializer",
    "glorot_uniform_initializer",
    "initialize_all_tables",
    "initializers",
    "ones_initializer",
    "orthogonal_initializer",
    "random_normal_initializer",
    "random_uniform_initializer",
    "tables_initializer",
    "truncated_normal_initializer",
    "uniform_unit_scaling_initializer",
    "variance_scaling_initializer",
    "zeros_initializer",
]

# The standard deviation of N(0, 1) cut at +-2 (scipy.stats.truncnorm.std(a=-2, b=2)): a
# truncated normal is widened by it to keep the variance asked for (TensorFlow's constant).
_TRUNCATED_STDDEV = 0.87962566103423978


def _float_dtype(dtype):
    dtype = as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype!r}.")
    return dtype


def compute_fans(shape) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight of ``shape`` (TensorFlow's ``_compute_fans``).

    A scalar has fans 1; a vector ``[n]`` has n and n; otherwise the last two dimensions are
    the inputs and outputs, and every dimension before them multiplies both (a convolution's
    receptive field).
    """
    shape = fully_known_shape(shape)
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive_field = math.prod(shape[:-2])
    return shape[-2] * receptive_field, shape[-1] * receptive_field


class Initializer:
    """The base of initializers: ``init(shape, dtype=None, partition_info=None)`` gives a
    tensor of ``shape``; ``get_config()`` / ``from_config(config)`` round-trip its
    arguments."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class Zeros(Initializer):
    """A tensor of zeros (``tf.zeros_initializer``)."""

    def __init__(self, dtype=float32) -> None:
        self.dtype = as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else as_dtype(dtype)
        return create_op("zeros", shape=fully_known_shape(shape), dtype=dtype.name)

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


class Ones(Zeros):
    """A tensor of ones (``tf.ones_initializer``)."""

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else as_dtype(dtype)
        return create_op("ones", shape=fully_known_shape(shape), dtype=dtype.name)


class Constant(Initializer):
    """A tensor holding ``value`` (``tf.constant_initializer``).

    A scalar fills the shape.  A list or array gives the values in row-major order; as in
    TensorFlow 1, fewer values than the shape holds are padded with the last one, more are a
    ValueError, and ``verify_shape=True`` asks for the shape exactly (TypeError otherwise).
    """

    def __init__(self, value=0, dtype=float32, verify_shape=False) -> None:
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {type(value)} (expected Python "
                            f"scalar, list or tuple of values, or numpy.ndarray).")
        self.value = value
        self.dtype = as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        dtype = self.dtype if dtype is None else as_dtype(dtype)
        shape = fully_known_shape(shape)
        verify_shape = self._verify_shape if verify_shape is None else verify_shape
        values = np.asarray(self.value)
        if verify_shape and values.shape != shape:
            raise TypeError(f"Expected Tensor's shape: {shape}, got {values.shape}.")
        size, flat = math.prod(shape), values.ravel()
        if flat.size > size:
            raise ValueError(f"Too many elements provided. Needed at most {size}, but "
                             f"received {flat.size}")
        if flat.size == 0:
            flat = np.zeros(1, values.dtype)
        flat = np.concatenate([flat, np.repeat(flat[-1:], size - flat.size)]).reshape(shape)
        # Python numbers stay Python numbers, so tf.constant refuses 0.5 for an int, as TF does
        value = flat if isinstance(self.value, (np.ndarray, np.generic)) else flat.tolist()
        return constant(value, dtype=dtype)

    def get_config(self) -> dict:
        return {"value": self.value, "dtype": self.dtype.name,
                "verify_shape": self._verify_shape}


class RandomUniform(Initializer):
    """Samples of U(minval, maxval) (``tf.random_uniform_initializer``); ``maxval`` None is 1
    for a floating dtype, and needed for an integer one (see
    :func:`~tinyflow.random_ops.random_uniform`)."""

    def __init__(self, minval=0, maxval=None, seed=None, dtype=float32) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed
        self.dtype = as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else as_dtype(dtype)
        return random_uniform(shape, self.minval, self.maxval, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed,
                "dtype": self.dtype.name}


class RandomNormal(Initializer):
    """Samples of N(mean, stddev^2) (``tf.random_normal_initializer``); a floating dtype."""

    _sample = staticmethod(random_normal)

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=float32) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else as_dtype(dtype)
        return self._sample(shape, self.mean, self.stddev, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


class TruncatedNormal(RandomNormal):
    """Samples of N(mean, stddev^2) within two ``stddev`` of the mean
    (``tf.truncated_normal_initializer``)."""

    _sample = staticmethod(truncated_normal)


class UniformUnitScaling(Initializer):
    """U(-a, a) with ``a = factor * sqrt(3 / input_size)``, the input size being the product
    of every dimension but the last (``tf.uniform_unit_scaling_initializer``, deprecated in
    TF for :class:`VarianceScaling`)."""

    def __init__(self, factor=1.0, seed=None, dtype=float32) -> None:
        self.factor, self.seed = factor, seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else as_dtype(dtype)
        scale_shape = fully_known_shape(getattr(partition_info, "full_shape", None) or shape)
        input_size = max(float(math.prod(scale_shape[:-1])), 1.0)
        limit = math.sqrt(3 / input_size) * self.factor
        return random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


class VarianceScaling(Initializer):
    """Samples whose variance is ``scale / n`` (``tf.variance_scaling_initializer``).

    ``n`` is ``fan_in``, ``fan_out`` or their mean (``mode="fan_avg"``), counted by
    :func:`compute_fans` (at least 1).  ``distribution``: ``"truncated_normal"`` (or
    ``"normal"``, TF 1.15's older name for it) draws a normal cut at two deviations, widened by
    1 / 0.8796 so the variance is still ``scale / n``; ``"untruncated_normal"`` draws
    N(0, scale / n); ``"uniform"`` draws U(-a, a) with ``a = sqrt(3 scale / n)``.

    Raises
    ------
    ValueError
        For a scale that is not positive, another mode or distribution, or a dtype that is not
        floating.
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=float32) -> None:
        if scale <= 0.0:
            raise ValueError("`scale` must be positive float.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution not in ("normal", "uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else as_dtype(dtype)
        fan_in, fan_out = compute_fans(getattr(partition_info, "full_shape", None) or shape)
        fans = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        variance = self.scale / max(1.0, fans[self.mode])
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(variance) / _TRUNCATED_STDDEV
            return truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_normal(shape, 0.0, math.sqrt(variance), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * variance)
        return random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """U(-a, a) with ``a = sqrt(6 / (fan_in + fan_out))`` (``tf.glorot_uniform_initializer``,
    the default initializer of ``tf.get_variable``)."""

    def __init__(self, seed=None, dtype=float32) -> None:
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """A truncated normal with standard deviation ``sqrt(2 / (fan_in + fan_out))``
    (``tf.glorot_normal_initializer``)."""

    def __init__(self, seed=None, dtype=float32) -> None:
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """``gain`` times a random matrix with orthonormal rows or columns, the tensor's axes but
    the last flattened into one (``tf.orthogonal_initializer``, TF 1.15's: the Q of a normal
    sample's QR, each column's sign that of R's diagonal)."""

    def __init__(self, gain=1.0, seed=None, dtype=float32) -> None:
        self.gain, self.seed = gain, seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _float_dtype(dtype)
        shape = fully_known_shape(shape)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        rows, cols = math.prod(shape[:-1]), shape[-1]
        sample = random_normal((max(rows, cols), min(rows, cols)), dtype=dtype, seed=self.seed)
        q = create_op("orthogonalize", sample)
        return reshape(q if rows >= cols else transpose(q), list(shape)) * float(self.gain)

    def get_config(self) -> dict:
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """``gain`` times the identity matrix (``tf.initializers.identity``); 2-D shapes only."""

    def __init__(self, gain=1.0, dtype=float32) -> None:
        self.gain, self.dtype = gain, _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _float_dtype(dtype)
        shape = fully_known_shape(shape)
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        return constant(np.eye(shape[0], shape[1]) * self.gain, dtype=dtype)

    def get_config(self) -> dict:
        return {"gain": self.gain, "dtype": self.dtype.name}


def lecun_normal(seed=None) -> VarianceScaling:
    """Truncated normal with variance ``1 / fan_in``."""
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed=None) -> VarianceScaling:
    """U(-a, a) with ``a = sqrt(3 / fan_in)``."""
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


def he_normal(seed=None) -> VarianceScaling:
    """Truncated normal with variance ``2 / fan_in``."""
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed=None) -> VarianceScaling:
    """U(-a, a) with ``a = sqrt(6 / fan_in)``."""
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


# TensorFlow 1.15's tf.* names for the classes
zeros_initializer, ones_initializer, constant_initializer = Zeros, Ones, Constant
random_uniform_initializer, random_normal_initializer = RandomUniform, RandomNormal
truncated_normal_initializer, uniform_unit_scaling_initializer = (TruncatedNormal,
                                                                  UniformUnitScaling)
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer, glorot_normal_initializer = GlorotUniform, GlorotNormal
orthogonal_initializer = Orthogonal

def tables_initializer(name="init_all_tables"):
    """The op running the graph's table initializers (``GraphKeys.TABLE_INITIALIZERS``): a
    no-op when there are none, as always in TinyFlow (it has no lookup tables)."""
    initializers = current_context().get_collection(GraphKeys.TABLE_INITIALIZERS)
    return group(*initializers, name=name) if initializers else no_op(name=name)


initialize_all_tables = tables_initializer

# tf.initializers.*: the same classes under TF 1.15's short names, and the variable ones
initializers = Namespace(
    "initializers", zeros=Zeros, ones=Ones, constant=Constant, random_uniform=RandomUniform,
    random_normal=RandomNormal, truncated_normal=TruncatedNormal,
    uniform_unit_scaling=UniformUnitScaling, variance_scaling=VarianceScaling,
    glorot_uniform=GlorotUniform, glorot_normal=GlorotNormal, lecun_normal=lecun_normal,
    lecun_uniform=lecun_uniform, he_normal=he_normal, he_uniform=he_uniform,
    global_variables=global_variables_initializer, variables=variables_initializer,
    orthogonal=Orthogonal, identity=Identity, local_variables=local_variables_initializer,
    tables_initializer=tables_initializer)
