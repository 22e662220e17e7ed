"""The built-in ops' graph meaning (shape, gradient, in-place); importing registers them."""
from . import elemwise, init, matrix, nn, reduce

__all__ = ["elemwise", "init", "matrix", "nn", "reduce"]
