"""``tf.train``: optimizers.  The built-in ones update each variable with one fused op
(``sgd_update``, ``momentum_update``, ``adam_update``: :mod:`tinyflow.ops.optim`); a subclass
giving ``update(grad, var)`` builds an assign graph, as the seed's optimizers did."""
from __future__ import annotations

from .api import Variable, assign, gradients, group, trainable_variables, zeros
from .nnvm.errors import GraphError
from .nnvm.symbol import Symbol, create_op, current_context
from .saver import Saver

__all__ = ["AdamOptimizer", "GradientDescentOptimizer", "MomentumOptimizer", "Optimizer", "Saver"]


class Optimizer:
    """Base class: ``minimize`` = gradients + ``apply_gradients``.  A subclass gives
    ``apply_gradients`` or ``update(grad, var)``, the new value assigned to ``var``."""

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
    """``var <- var - learning_rate * grad`` (one ``sgd_update`` op per variable)."""

    def __init__(self, learning_rate: float = 0.01):
        self.learning_rate = float(learning_rate)

    def apply_gradients(self, grads_and_vars) -> Symbol:
        return group(*[create_op("sgd_update", var, grad, lr=self.learning_rate)
                       for grad, var in grads_and_vars])


def _slot(var: Symbol, suffix: str) -> Symbol:
    """A non-trainable variable ``<var name>_<suffix>`` of ``var``'s shape, starting at zero.

    Its initial value takes the shape of the variable it is assigned to (``_variable_init``),
    so the slot of a weight whose shape is known only from the feeds is initialised by the
    session at the first run that infers that shape.
    """
    return Variable(create_op("_variable_init", method="zeros"), name=f"{var.name}_{suffix}",
                    trainable=False)


class MomentumOptimizer(Optimizer):
    """``accum <- momentum * accum + grad; var <- var - learning_rate * accum``.

    The same update as TensorFlow's MomentumOptimizer and ``torch.optim.SGD(momentum=...)``;
    ``accum`` is the slot variable ``<var name>_momentum``.  With ``use_nesterov`` the step is
    ``learning_rate * (grad + momentum * accum)`` (``SGD(nesterov=True)``).
    """

    def __init__(self, learning_rate: float, momentum: float, use_nesterov: bool = False):
        self.learning_rate = float(learning_rate)
        self.momentum = float(momentum)
        self.use_nesterov = bool(use_nesterov)

    def apply_gradients(self, grads_and_vars) -> Symbol:
        return group(*[create_op("momentum_update", var, _slot(var, "momentum"), grad,
                                 lr=self.learning_rate, momentum=self.momentum,
                                 nesterov=self.use_nesterov)
                       for grad, var in grads_and_vars])


class AdamOptimizer(Optimizer):
    """Adam (Kingma and Ba), with bias correction, as ``torch.optim.Adam``::

        t <- t + 1
        m <- beta1 * m + (1 - beta1) * grad
        v <- beta2 * v + (1 - beta2) * grad^2
        var <- var - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + epsilon)

    (TensorFlow adds ``epsilon`` before the ``sqrt(1 - beta2^t)`` correction; the two differ
    only by the size of epsilon.)  The slots are the variables ``<var name>_adam_m`` and
    ``<var name>_adam_v``, the step count one scalar variable per ``minimize``.
    """

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8):
        self.learning_rate = float(learning_rate)
        self.beta1, self.beta2 = float(beta1), float(beta2)
        self.epsilon = float(epsilon)

    def apply_gradients(self, grads_and_vars) -> Symbol:
        step = Variable(zeros(()), name=current_context().unique_name("Adam_step"),
                        trainable=False)
        t = step + 1.0
        updates = [assign(step, t)]
        for grad, var in grads_and_vars:
            updates.append(create_op(
                "adam_update", var, _slot(var, "adam_m"), _slot(var, "adam_v"), grad, t,
                lr=self.learning_rate, beta1=self.beta1, beta2=self.beta2,
                epsilon=self.epsilon))
        return group(*updates)
