"""``tf.math``: the names of TensorFlow 1.15's ``tf.math`` that TinyFlow has, the very functions
``tf.*`` and ``tf.nn.*`` give (defined in :mod:`tinyflow.frontend.api`,
:mod:`tinyflow.frontend.math_ops` and :mod:`tinyflow.frontend.nn`), the special functions
(:mod:`tinyflow.frontend.special_math_ops`) and ``tf.math.special``.  Any other ``tf.math.X`` is an
AttributeError saying TinyFlow does not support it.
"""
from __future__ import annotations

from . import tf_math_special as special
from .api import (
    abs,
    acos,
    add,
    add_n,
    argmax,
    argmin,
    asin,
    atan,
    cos,
    cosh,
    digamma,
    divide,
    equal,
    erf,
    erfc,
    exp,
    expm1,
    floordiv,
    floormod,
    greater,
    greater_equal,
    less,
    less_equal,
    lgamma,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    truediv,
)
from .array_manip_ops import invert_permutation
from .math_ops import (
    accumulate_n,
    atan2,
    ceil,
    confusion_matrix,
    count_nonzero,
    cumprod,
    cumsum,
    floor,
    is_finite,
    is_inf,
    is_nan,
    l2_normalize,
    log_sigmoid,
    nextafter,
    reciprocal,
    reduce_euclidean_norm,
    reduce_logsumexp,
    reduce_std,
    reduce_variance,
    rint,
    round,
    scalar_mul,
    squared_difference,
)
from .nn.functions import in_top_k, log_softmax, softmax, softplus, softsign, top_k
from .nn.statistics import zero_fraction
from .safe_math_ops import (
    acosh,
    asinh,
    atanh,
    divide_no_nan,
    is_non_decreasing,
    is_strictly_increasing,
    multiply_no_nan,
    polyval,
    reciprocal_no_nan,
    xdivy,
    xlog1py,
    xlogy,
)
from .segment_ops import *
from .segment_ops import __all__ as _segment_all
from .sort_ops import bincount
from .special_math_ops import *
from .special_math_ops import __all__ as _special_all
from .unsupported import unsupported

__all__ = [
    "abs", "accumulate_n", "acos", "add", "add_n", "argmax", "argmin", "asin", "atan", "atan2", "bincount", "ceil",
    "confusion_matrix", "cos", "cosh", "count_nonzero", "cumprod", "cumsum", "digamma", "divide",
    "equal", "erf", "erfc", "exp", "expm1", "floor", "floordiv", "floormod", "greater",
    "greater_equal", "in_top_k", "is_finite", "is_inf", "is_nan", "l2_normalize", "less",
    "less_equal", "lgamma", "log", "log1p", "log_sigmoid", "log_softmax", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "mod", "multiply", "negative",
    "not_equal", "pow", "reciprocal", "reduce_all", "reduce_any", "reduce_euclidean_norm",
    "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_std",
    "reduce_sum", "reduce_variance", "rint", "round", "rsqrt", "scalar_mul", "sigmoid", "sign", "sin",
    "sinh", "softmax", "softplus", "softsign", "sqrt", "square", "squared_difference", "subtract",
    "tan", "tanh", "top_k", "truediv", "special",
] + list(_segment_all) + list(_special_all) + [
    "acosh", "asinh", "atanh", "divide_no_nan", "is_non_decreasing", "is_strictly_increasing",
    "multiply_no_nan", "polyval", "reciprocal_no_nan", "xdivy", "xlog1py", "xlogy",
    "invert_permutation", "nextafter", "zero_fraction"]


def __getattr__(name):
    raise unsupported("tf.math.", "tinyflow.tf_math", name, {"tf.math.": __all__})
