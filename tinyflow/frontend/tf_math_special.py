"""``tf.math.special``: of its functions TinyFlow has the modified Bessel functions of order 0
and 1 (:mod:`tinyflow.frontend.special_math_ops`'s); any other ``tf.math.special.X`` is an
AttributeError saying TinyFlow does not support it."""
from __future__ import annotations

from .special_math_ops import bessel_i0, bessel_i0e, bessel_i1, bessel_i1e
from .unsupported import unsupported

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]


def __getattr__(name):
    raise unsupported("tf.math.special.", "tinyflow.tf_math_special", name,
                      {"tf.math.special.": __all__})
