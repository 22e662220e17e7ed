"""The built-in ops' graph meaning (shape, gradient, in-place); importing registers them."""
from . import (
           array,
           collective,
           control,
           conv,
           elemwise,
           fused,
           init,
           math,
           matrix,
           nn,
           nn_tf,
           optim,
           reduce,
           state,
)

__all__ = ["array", "collective", "control", "conv", "elemwise", "fused", "init", "math",
           "matrix", "nn", "nn_tf", "optim", "reduce", "state"]
