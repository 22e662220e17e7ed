"""``tf.train``: optimizers built as assign graphs (the seed's design)."""
from __future__ import annotations

from .api import assign, gradients, group, trainable_variables
from .nnvm.errors import GraphError
from .nnvm.symbol import Symbol

__all__ = ["Optimizer", "GradientDescentOptimizer"]


class Optimizer:
    """Base class: ``minimize`` = gradients + one update graph per variable."""

    def minimize(self, loss: Symbol, var_list=None, name=None) -> Symbol:
        """An op that updates ``var_list`` (default: every trainable variable ``loss``
        depends on) one step against the gradient of ``loss``."""
        explicit = var_list is not None
        var_list = list(var_list) if explicit else trainable_variables()
        grads = gradients(loss, var_list)
        pairs = [(g, v) for g, v in zip(grads, var_list) if g is not None]
        if explicit and len(pairs) < len(var_list):
            missing = [v.name for g, v in zip(grads, var_list) if g is None]
            raise GraphError(f"the loss does not depend on variable(s) {missing}")
        if not pairs:
            raise GraphError("the loss depends on no trainable variable")
        return self.apply_gradients(pairs)

    def apply_gradients(self, grads_and_vars) -> Symbol:
        return group(*[assign(v, self.update(g, v)) for g, v in grads_and_vars])

    def update(self, grad: Symbol, var: Symbol) -> Symbol:
        raise NotImplementedError


class GradientDescentOptimizer(Optimizer):
    """``var <- var - learning_rate * grad``."""

    def __init__(self, learning_rate: float = 0.01):
        self.learning_rate = float(learning_rate)

    def update(self, grad, var):
        return var - self.learning_rate * grad
