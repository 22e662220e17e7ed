"""``tf.contrib.opt`` (TensorFlow 1.15's ``contrib/opt/python/training``): decoupled weight
decay (``AdamWOptimizer``, ``MomentumWOptimizer``, ``extend_with_decoupled_weight_decay``;
Loshchilov and Hutter), ``LazyAdamOptimizer``, ``PowerSignOptimizer`` and ``AddSignOptimizer``
(Bello et al.) with their sign decays (``get_linear_decay_fn``, ``get_cosine_decay_fn``,
``get_restart_decay_fn``), ``MovingAverageOptimizer`` (a ``tf.train.ExponentialMovingAverage``
of the variables a wrapped optimizer trains, saved in their place by its ``swapping_saver``),
each composed of ``tf.train``'s optimizers and existing ops with TF's update formulas,
operation for operation in the variable's dtype, and TF's slot names (``<var>/AdamW``,
``<var>/PowerSignOptimizer``...).

The decay reads and writes each variable after the gradients were computed (TinyFlow orders
every write after the step's other reads of the variable): TF's graph leaves the decay
unordered with the forward pass, so which reads see the decayed variable there depends on its
scheduling.  Any other name is an AttributeError saying TinyFlow does
not support it."""
from __future__ import annotations

import math
import warnings

from ...nnvm.symbol import Symbol
from ..api import (
    assign,
    assign_sub,
    cast,
    constant,
    control_dependencies,
    cos,
    exp,
    global_variables,
    greater_equal,
    group,
    maximum,
    minimum,
    mod,
    sign,
    sqrt,
    square,
    to_float,
    to_int32,
    where,
)
from ..array_ops import gather, shape
from ..control_flow_ops import scatter_sub, scatter_update
from ..indexed_slices import IndexedSlices
from ..math_ops import convert_to_tensor
from ..saver import Saver
from ..segment_ops import unsorted_segment_sum
from ..sort_ops import unique
from ..train import AdamOptimizer, ExponentialMovingAverage, MomentumOptimizer, Optimizer, _dense
from ..unsupported import unsupported

__all__ = ["AdamWOptimizer", "AddSignOptimizer", "DecoupledWeightDecayExtension",
           "LazyAdamOptimizer", "MomentumWOptimizer", "MovingAverageOptimizer",
           "PowerSignOptimizer", "extend_with_decoupled_weight_decay", "get_cosine_decay_fn",
           "get_linear_decay_fn", "get_restart_decay_fn"]


def _hyper(value, dtype) -> Symbol:
    """A hyperparameter as TF's optimizers take it: a tensor of the variable's dtype (so
    ``1 - beta`` is computed in it, as TF's kernels do)."""
    if isinstance(value, Symbol):
        return value if value.dtype.base_dtype == dtype else cast(value, dtype)
    return constant(float(value), dtype=dtype)


def _unique_rows(grad: IndexedSlices) -> tuple:
    """``(rows, values)``: the slices' rows once each, their values summed (TF's
    ``_deduplicate_indexed_slices``, which ``_apply_sparse`` is given)."""
    rows = unique(grad.indices)
    return rows.y, unsorted_segment_sum(grad.values, rows.idx, shape(rows.y)[0])


class DecoupledWeightDecayExtension:
    """Decays each variable before the base optimizer's step: ``var -= weight_decay * var``
    (a gradient given as slices: only its rows, once each), then the step reads the decayed
    variable, as TF 1.15's extension orders them.  Put it first among the bases (as
    :func:`extend_with_decoupled_weight_decay` does).

    ``decay_var_list`` (in ``apply_gradients``) limits the decay to those variables; as in
    TF 1.15, ``minimize``'s is lost when it calls ``apply_gradients`` (every variable
    decays; a warning says so).
    """

    def __init__(self, weight_decay, **kwargs):
        self._weight_decay = (weight_decay if isinstance(weight_decay, Symbol)
                              else float(weight_decay))
        self._decay_var_list = None
        super().__init__(**kwargs)

    def minimize(self, loss, global_step=None, var_list=None,
                 gate_gradients=Optimizer.GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None,
                 decay_var_list=None) -> Symbol:
        """``Optimizer.minimize``; ``decay_var_list`` is reset by ``apply_gradients``, as
        TF 1.15's (pass it there instead)."""
        if decay_var_list:
            warnings.warn("minimize(decay_var_list=...) decays every variable, as TF 1.15's "
                          "(its apply_gradients resets the list): pass decay_var_list to "
                          "apply_gradients", stacklevel=2)
        return super().minimize(loss, global_step, var_list, gate_gradients,
                                aggregation_method, colocate_gradients_with_ops, name,
                                grad_loss)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None,
                        decay_var_list=None) -> Symbol:
        """``Optimizer.apply_gradients``, decaying the variables of ``decay_var_list`` (all
        when None or empty) before their step."""
        self._decay_var_list = ({v.node for v in decay_var_list} if decay_var_list
                                else None)
        return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def _update_ops(self, grads_and_vars) -> list:
        decays = [self._decay(grad, var) for grad, var in grads_and_vars]
        with control_dependencies([d for d in decays if d is not None]):
            return super()._update_ops(grads_and_vars)

    def _decay(self, grad, var):
        if self._decay_var_list is not None and var.node not in self._decay_var_list:
            return None
        if isinstance(grad, IndexedSlices):  # TF's scatter_add of -wd * the rows
            rows, _ = _unique_rows(grad)
            return scatter_sub(var, rows, self._weight_decay * gather(var, rows))
        return assign_sub(var, self._weight_decay * var)


def extend_with_decoupled_weight_decay(base_optimizer) -> type:
    """The class of ``base_optimizer`` (a ``tf.train.Optimizer`` class) with decoupled weight
    decay: constructed as ``cls(weight_decay, **base arguments)``."""
    if not (isinstance(base_optimizer, type) and issubclass(base_optimizer, Optimizer)):
        raise TypeError(f"extend_with_decoupled_weight_decay takes an optimizer class, got "
                        f"{base_optimizer!r}")

    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecayExtension, base_optimizer):
        """``base_optimizer`` with decoupled weight decay."""

        def __init__(self, weight_decay, *args, **kwargs):
            super().__init__(weight_decay, *args, **kwargs)

    return OptimizerWithDecoupledWeightDecay


class MomentumWOptimizer(DecoupledWeightDecayExtension, MomentumOptimizer):
    """SGDW: ``tf.train.MomentumOptimizer``'s step after ``var -= weight_decay * var``."""

    def __init__(self, weight_decay, learning_rate, momentum, use_locking=False,
                 name="MomentumW", use_nesterov=False):
        super().__init__(weight_decay, learning_rate=learning_rate, momentum=momentum,
                         use_locking=use_locking, name=name, use_nesterov=use_nesterov)


class AdamWOptimizer(DecoupledWeightDecayExtension, AdamOptimizer):
    """AdamW: ``tf.train.AdamOptimizer``'s step after ``var -= weight_decay * var``."""

    def __init__(self, weight_decay, learning_rate=0.001, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, use_locking=False, name="AdamW"):
        super().__init__(weight_decay, learning_rate=learning_rate, beta1=beta1,
                         beta2=beta2, epsilon=epsilon, use_locking=use_locking, name=name)


class LazyAdamOptimizer(AdamOptimizer):
    """Adam whose update against slices changes only their rows, of ``m`` and ``v`` too (TF
    1.15's ``_apply_sparse``: ``lr = lr_t * sqrt(1 - beta2_power) / (1 - beta1_power)``,
    ``m[rows] = beta1 * m[rows] + (1 - beta1) * g``, ``v[rows]`` likewise of ``g^2``,
    ``var[rows] -= lr * m[rows] / (sqrt(v[rows]) + epsilon)``); a dense gradient is Adam's."""

    def _adam_update(self, grad, var, powers) -> Symbol:
        if not isinstance(grad, IndexedSlices):
            return super()._adam_update(grad, var, powers)
        m, v = self._slot(var, "m", self._name), self._slot(var, "v", self._name)
        rows, values = _unique_rows(grad)
        dtype = var.dtype.base_dtype
        beta1, beta2 = _hyper(self.beta1, dtype), _hyper(self.beta2, dtype)
        beta1_power, beta2_power = (_hyper(power, dtype) for power in powers)
        lr = _hyper(self.learning_rate, dtype) * sqrt(1 - beta2_power) / (1 - beta1_power)
        m_t = scatter_update(m, rows, beta1 * gather(m, rows) + (1 - beta1) * values)
        v_t = scatter_update(v, rows, beta2 * gather(v, rows) + (1 - beta2) * square(values))
        step = lr * gather(m_t, rows) / (sqrt(gather(v_t, rows)) + _hyper(self.epsilon, dtype))
        return group(scatter_sub(var, rows, step), m_t, v_t)


class _SignOptimizer(Optimizer):
    """PowerSign's and AddSign's common part: the slot ``m`` (``m = beta * m + (1 - beta) *
    grad``, TF's kernels' order), the sign decay (``sign_decay_fn(global_step)``, else 1).
    A gradient given as slices updates as its dense tensor: TF 1.15's ``_apply_sparse``
    updates ``m`` densely too and leaves the other rows of ``var`` as a zero gradient would
    (it raises e to the power where the dense kernel calls exp: equal to a float32 ulp)."""

    def __init__(self, learning_rate, beta, sign_decay_fn, name):
        self.learning_rate, self.beta, self._name = learning_rate, beta, name
        self._sign_decay_fn, self._sign_decay = sign_decay_fn, None

    def apply_gradients(self, grads_and_vars, global_step=None, name=None) -> Symbol:
        """``Optimizer.apply_gradients``, the sign decay ``sign_decay_fn(global_step)``."""
        self._sign_decay = (None if self._sign_decay_fn is None else convert_to_tensor(
            self._sign_decay_fn(global_step), dtype="float32"))
        return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def _update_ops(self, grads_and_vars) -> list:
        updates = []
        for grad, var in grads_and_vars:
            grad, m, dtype = _dense(grad), self._slot(var, "m", self._name), var.dtype.base_dtype
            beta = _hyper(self.beta, dtype)
            sign_decay = _hyper(1.0 if self._sign_decay is None else self._sign_decay, dtype)
            m_t = assign(m, m * beta + grad * (1 - beta))
            scale = self._scale(sign_decay, sign(grad) * sign(m_t), dtype)
            updates.append(assign_sub(var, _hyper(self.learning_rate, dtype) * scale * grad))
        return updates


class PowerSignOptimizer(_SignOptimizer):
    """PowerSign (TF's ``ApplyPowerSign``): ``var -= lr * exp(log(base) * sign_decay *
    sign(grad) * sign(m)) * grad``, ``m`` updated first."""

    def __init__(self, learning_rate=0.1, base=math.e, beta=0.9, sign_decay_fn=None,
                 use_locking=False, name="PowerSignOptimizer"):
        super().__init__(learning_rate, beta, sign_decay_fn, name)
        self._logbase = math.log(base)

    def _scale(self, sign_decay, sign_gm, dtype):
        return exp(_hyper(self._logbase, dtype) * sign_decay * sign_gm)


class AddSignOptimizer(_SignOptimizer):
    """AddSign (TF's ``ApplyAddSign``): ``var -= lr * (alpha + sign_decay * sign(grad) *
    sign(m)) * grad``, ``m`` updated first."""

    def __init__(self, learning_rate=0.1, alpha=1.0, beta=0.9, sign_decay_fn=None,
                 use_locking=False, name="AddSignOptimizer"):
        super().__init__(learning_rate, beta, sign_decay_fn, name)
        self._alpha = alpha

    def _scale(self, sign_decay, sign_gm, dtype):
        return _hyper(self._alpha, dtype) + sign_decay * sign_gm


def _step_function(what, decayed):
    """A sign decay function of the global step (TF's, which requires one)."""
    def decay_fn(global_step):
        if global_step is None:
            raise ValueError(f"global_step is required for {what}.")
        return decayed(global_step)
    return decay_fn


def get_linear_decay_fn(decay_steps):
    """``max(0, (decay_steps - min(step, decay_steps)) / decay_steps)``."""
    def decayed(step):
        remaining = to_int32(decay_steps) - to_int32(minimum(step, decay_steps))
        return maximum(0.0, to_float(remaining) / to_float(decay_steps))
    return _step_function("linear_decay", decayed)


def get_cosine_decay_fn(decay_steps, num_periods=0.5, zero_after=None):
    """``0.5 * (1 + cos(pi * 2 * num_periods * min(step, decay_steps) / decay_steps))``; 0
    once that fraction reaches ``2 * zero_after``."""
    def decayed(step):
        fraction = 2.0 * num_periods * (to_float(minimum(step, decay_steps))
                                        / to_float(decay_steps))
        value = 0.5 * (1.0 + cos(constant(math.pi) * fraction))
        if zero_after is None:
            return value
        return where(greater_equal(fraction, 2 * zero_after), 0.0, value)
    return _step_function("cosine_decay", decayed)


def get_restart_decay_fn(decay_steps, num_periods=1, zero_after=None):
    """``0.5 * (1 + cos(pi * (num_periods * step mod decay_steps) / decay_steps))``, the step
    at most ``decay_steps``; 0 once ``num_periods * step / decay_steps`` reaches
    ``zero_after``."""
    def decayed(step):
        step = minimum(step, decay_steps)
        fraction = mod(num_periods * to_float(step), decay_steps) / to_float(decay_steps)
        value = 0.5 * (1.0 + cos(constant(math.pi) * fraction))
        if zero_after is None:
            return value
        return where(greater_equal(to_float(num_periods * step) / to_float(decay_steps),
                                   zero_after), 0.0, value)
    return _step_function("cosine_decay", decayed)


class MovingAverageOptimizer(Optimizer):
    """``opt``'s step, then (``sequential_update``: after it) the moving averages of the
    variables it updated (``tf.train.ExponentialMovingAverage(average_decay, num_updates)``).
    """

    def __init__(self, opt, average_decay=0.9999, num_updates=None, sequential_update=True):
        self._optimizer, self._sequential_update = opt, sequential_update
        self._ema = ExponentialMovingAverage(average_decay, num_updates=num_updates)
        self._variable_map = None
        self._name = opt.get_name()

    def apply_gradients(self, grads_and_vars, global_step=None, name=None) -> Symbol:
        """``opt.apply_gradients``, then the averages' update: ``train_with_avg``."""
        grads_and_vars = list(grads_and_vars)
        train_op = self._optimizer.apply_gradients(grads_and_vars, global_step=global_step,
                                                   name=name)
        var_list = [var for grad, var in grads_and_vars if grad is not None]
        with control_dependencies([train_op] if self._sequential_update else []):
            average_op = self._ema.apply(var_list)
        self._variable_map = {}
        for var in var_list:
            average = self._ema.average(var)
            self._variable_map[var.op.name], self._variable_map[average.op.name] = average, var
        return group(train_op, average_op, name="train_with_avg")

    def swapping_saver(self, var_list=None, name="swapping_saver", **kwargs) -> Saver:
        """A Saver storing each trained variable's average under the variable's name (and
        the variable under its average's): TF's saver for training, whose checkpoints give
        the averages to a program restoring the variables."""
        if self._variable_map is None:
            raise RuntimeError("Must call apply_gradients or minimize before creating the "
                               "swapping_saver")
        if var_list is None:
            var_list = global_variables()
        if not isinstance(var_list, dict):
            var_list = {var.op.name: var for var in var_list}
        return Saver({key: self._variable_map.get(var.op.name, var)
                      for key, var in var_list.items()}, name=name, **kwargs)


def __getattr__(name):
    raise unsupported("tf.contrib.opt.", "tinyflow.contrib.opt", name,
                      {"tf.contrib.opt.": __all__})
