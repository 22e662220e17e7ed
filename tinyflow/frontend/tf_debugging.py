"""``tf.debugging``: TensorFlow 1.15's assertions and checks under that module's names (the
same functions as ``tf.assert_*``, ``tf.check_numerics``, ``tf.is_finite``...).  Any other
``tf.debugging.X`` is an AttributeError saying TinyFlow does not support it."""
from __future__ import annotations

from .check_ops import (
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_near,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_proper_iterable,
    assert_rank,
    assert_rank_at_least,
    assert_rank_in,
    assert_same_float_dtype,
    assert_scalar,
    assert_type,
    check_numerics,
)
from .check_ops import verify_tensor_all_finite as assert_all_finite
from .control_flow_ops import Assert
from .math_ops import is_finite, is_inf, is_nan
from .safe_math_ops import is_non_decreasing, is_strictly_increasing
from .unsupported import unsupported

__all__ = ["Assert", "assert_all_finite", "assert_equal", "assert_greater",
           "assert_greater_equal", "assert_integer", "assert_less", "assert_less_equal",
           "assert_near", "assert_negative", "assert_non_negative", "assert_non_positive",
           "assert_none_equal", "assert_positive", "assert_proper_iterable", "assert_rank",
           "assert_rank_at_least", "assert_rank_in", "assert_same_float_dtype", "assert_scalar",
           "assert_type", "check_numerics", "is_finite", "is_inf", "is_nan", "is_non_decreasing",
           "is_strictly_increasing"]


def __getattr__(name):
    raise unsupported("tf.debugging.", "tinyflow.tf_debugging", name,
                      {"tf.debugging.": __all__})
