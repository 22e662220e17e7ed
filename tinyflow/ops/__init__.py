"""The built-in ops' graph meaning (shape, gradient, in-place); importing registers them."""
from . import (
    array,
    collective,
    control,
    conv,
    elemwise,
    fused,
    indexing,
    init,
    loop,
    math,
    matrix,
    nn,
    optim,
    queue,
    reduce,
    rnn,
    sampling,
    segment,
    softmax,
    sorting,
    state,
    volume,
)

__all__ = ["array", "collective", "control", "conv", "elemwise", "fused", "indexing", "init",
           "loop", "math", "matrix", "nn", "optim", "queue", "reduce", "rnn", "sampling", "segment",
           "softmax", "sorting", "state", "volume"]
