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
    linalg,
    loop,
    math,
    matrix,
    nn,
    optim,
    queue,
    reduce,
    rnn,
    segment,
    softmax,
    sorting,
    sparse,
    state,
)

__all__ = ["array", "collective", "control", "conv", "elemwise", "fused", "indexing", "init",
           "linalg", "loop", "math", "matrix", "nn", "optim", "queue", "reduce", "rnn", "segment",
           "softmax", "sorting", "sparse", "state"]
