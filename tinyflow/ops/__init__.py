"""The built-in ops' graph meaning (shape, gradient, in-place); importing registers them."""
from . import (
    array,
    capture,
    collective,
    control,
    conv,
    elemwise,
    fused,
    init,
    layouts,
    math,
    matrix,
    nn,
    nn_tf,
    optim,
    reduce,
    state,
)

__all__ = ["array", "capture", "collective", "control", "conv", "elemwise", "fused", "init",
           "layouts", "math", "matrix", "nn", "nn_tf", "optim", "reduce", "state"]
