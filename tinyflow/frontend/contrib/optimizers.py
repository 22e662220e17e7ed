"""``tf.contrib.layers.optimize_loss`` (TensorFlow 1.15's ``contrib/layers/.../optimizers.py``):
a training op from a loss in one call, the older TF-1 tutorials' way: an optimizer by name
(``"Adagrad"``, ``"Adam"``, ``"Ftrl"``, ``"Momentum"``, ``"RMSProp"``, ``"SGD"``), class,
instance or function of the learning rate; the learning rate a float (a variable
``<scope>/learning_rate``) or a scalar tensor, decayed by ``learning_rate_decay_fn``; the
graph's ``UPDATE_OPS`` run first; gradients scaled, noised or clipped by global norm; TF's
summaries; the result is the loss, computed after the update."""
from __future__ import annotations

from ...nnvm.symbol import Symbol
from .. import summary as _summary
from .. import train as _train
from ..api import control_dependencies, identity
from ..framework import GraphKeys, get_collection
from ..indexed_slices import IndexedSlices
from ..init_ops import constant_initializer
from ..math_ops import clip_by_global_norm, convert_to_tensor, global_norm
from ..random_ops import random_normal
from ..variable_scope import get_variable, variable_scope

__all__ = ["OPTIMIZER_CLS_NAMES", "OPTIMIZER_SUMMARIES", "optimize_loss"]

OPTIMIZER_CLS_NAMES = {
    "Adagrad": _train.AdagradOptimizer, "Adam": _train.AdamOptimizer,
    "Ftrl": _train.FtrlOptimizer,
    "Momentum": lambda learning_rate: _train.MomentumOptimizer(learning_rate, momentum=0.9),
    "RMSProp": _train.RMSPropOptimizer, "SGD": _train.GradientDescentOptimizer}
OPTIMIZER_SUMMARIES = ["learning_rate", "loss", "gradients", "gradient_norm",
                       "global_gradient_norm"]


def optimize_loss(loss, global_step, learning_rate, optimizer, gradient_noise_scale=None,
                  gradient_multipliers=None, clip_gradients=None, learning_rate_decay_fn=None,
                  update_ops=None, variables=None, name=None, summaries=None,
                  colocate_gradients_with_ops=False, increment_global_step=True) -> Symbol:
    """The loss, after one update of ``variables`` (default: the trainable ones) by
    ``optimizer``; see the module's docstring.  TF's ValueErrors for a bad learning rate,
    optimizer name or summary."""
    del colocate_gradients_with_ops
    loss = convert_to_tensor(loss)
    if loss.get_shape().ndims not in (0, None):
        raise ValueError(f"optimize_loss: the loss must be a scalar, got {loss.get_shape()}")
    global_step = _train.get_global_step() if global_step is None else global_step
    with variable_scope(name, "OptimizeLoss"):
        update_ops = list(get_collection(GraphKeys.UPDATE_OPS) if update_ops is None
                          else update_ops)
        if update_ops:
            with control_dependencies(update_ops):
                loss = identity(loss)
        lr = _learning_rate(learning_rate)
        summaries = ["loss", "learning_rate", "global_gradient_norm"] if summaries is None \
            else list(summaries)
        for name_ in summaries:
            if name_ not in OPTIMIZER_SUMMARIES:
                raise ValueError(f"Summaries should be one of [{', '.join(OPTIMIZER_SUMMARIES)}"
                                 f"], you provided {name_}.")
        if lr is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            lr = learning_rate_decay_fn(lr, global_step)
        if lr is not None and "learning_rate" in summaries:
            _summary.scalar("learning_rate", lr)
        opt = _optimizer(optimizer, lr)
        grads = opt.compute_gradients(loss, variables)
        grads = _transformed(grads, gradient_noise_scale, gradient_multipliers)
        norms = "global_gradient_norm" in summaries or "gradient_norm" in summaries
        if norms:
            _summary.scalar("global_norm/gradient_norm", global_norm([g for g, _ in grads]))
        if isinstance(clip_gradients, float):
            clipped, _ = clip_by_global_norm([g for g, _ in grads], clip_gradients)
            grads = list(zip(clipped, [v for _, v in grads]))
        elif callable(clip_gradients):
            grads = clip_gradients(grads)
        elif clip_gradients is not None:
            raise ValueError(f"Unknown type {type(clip_gradients)} for clip_gradients")
        if "loss" in summaries:
            _summary.scalar("loss", loss)
        for grad, var in grads:
            if grad is not None:
                label = var.name.replace(":", "_")
                if isinstance(grad, IndexedSlices):  # TF summarises its values
                    grad = grad.values
                if "gradients" in summaries:
                    _summary.histogram(f"gradients/{label}", grad)
                if "gradient_norm" in summaries:
                    _summary.scalar(f"gradient_norm/{label}", global_norm([grad]))
        if clip_gradients is not None and norms:
            _summary.scalar("global_norm/clipped_gradient_norm",
                            global_norm([g for g, _ in grads]))
        update = opt.apply_gradients(
            grads, global_step=global_step if increment_global_step else None, name="train")
        with control_dependencies([update]):
            return identity(loss)


def _learning_rate(learning_rate):
    if learning_rate is None:
        return None
    if isinstance(learning_rate, Symbol) and learning_rate.get_shape().ndims == 0:
        return learning_rate
    if isinstance(learning_rate, float):
        if learning_rate < 0.0:
            raise ValueError(f"Invalid learning_rate {learning_rate}.")
        return get_variable("learning_rate", [], trainable=False,
                            initializer=constant_initializer(learning_rate))
    raise ValueError(f"Learning rate should be 0d Tensor or float. Got {learning_rate} of type "
                     f"{type(learning_rate)}")


def _optimizer(optimizer, lr):
    if isinstance(optimizer, str):
        if lr is None:
            raise ValueError(f"Learning rate is None, but should be specified if optimizer is "
                             f"string ({optimizer}).")
        if optimizer not in OPTIMIZER_CLS_NAMES:
            raise ValueError(f"Optimizer name should be one of [{', '.join(OPTIMIZER_CLS_NAMES)}"
                             f"], you provided {optimizer}.")
        return OPTIMIZER_CLS_NAMES[optimizer](learning_rate=lr)
    if isinstance(optimizer, type) and issubclass(optimizer, _train.Optimizer):
        if lr is None:
            raise ValueError(f"Learning rate is None, but should be specified if optimizer is "
                             f"class ({optimizer}).")
        return optimizer(learning_rate=lr)
    if isinstance(optimizer, _train.Optimizer):
        return optimizer
    if callable(optimizer):
        made = optimizer(lr) if lr is not None else optimizer()
        if not isinstance(made, _train.Optimizer):  # TF's ValueError
            raise ValueError(f"Unrecognized optimizer: function should return subclass of "  # noqa: TRY004
                             f"Optimizer. Got {made}.")
        return made
    raise ValueError(f"Unrecognized optimizer: should be string, subclass of Optimizer, "
                     f"instance of subclass of Optimizer or function with one argument. Got "
                     f"{optimizer}.")


def _transformed(grads, noise_scale, multipliers):
    """TF's gradient noise (``random_normal * scale``) and per-variable multipliers."""
    grads = [(g, v) for g, v in grads]
    if noise_scale is not None:  # an IndexedSlices takes noise as its dense tensor (TF's)
        grads = [(None if g is None else convert_to_tensor(g) + random_normal(
            convert_to_tensor(g).get_shape().as_list()) * noise_scale, v) for g, v in grads]
    if multipliers is not None:  # an IndexedSlices' values scaled (TF's)
        grads = [(g if g is None or v not in multipliers else IndexedSlices(
            g.values * multipliers[v], g.indices, g.dense_shape) if isinstance(
                g, IndexedSlices) else g * multipliers[v], v) for g, v in grads]
        if not grads:
            raise ValueError("Empty list of (gradient, var) pairs encountered. This is most "
                             "likely to be caused by an improper value of gradient_multipliers.")
    return grads
