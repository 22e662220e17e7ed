"""``tf.train``: optimizers, the global step, and the Saver.

The built-in optimizers update each variable with one fused op (``sgd_update``,
``momentum_update``, ``adam_update``, ``rmsprop_update``, ``centered_rmsprop_update``,
``adagrad_update``, ``adadelta_update``: :mod:`tinyflow.ops.optim`); a subclass giving
``update(grad, var)`` builds an assign graph, as the seed's optimizers did.  Every optimizer's
``learning_rate`` is a Python number or a scalar float tensor (a placeholder, a schedule); a
tensor is one more input of the update ops, read at every step.
"""
from __future__ import annotations

import contextlib
import importlib

import numpy as np

from ..nnvm.symbol import Symbol, create_op, current_context
from .api import (
    Variable,
    assign,
    assign_add,
    assign_sub,
    cast,
    constant,
    control_dependencies,
    global_variables,
    group,
    minimum,
    trainable_variables,
)
from .array_ops import ones, zeros
from .framework import GraphKeys
from .graph_util import write_graph
from .indexed_slices import IndexedSlices, gradients
from .learning_rate_decay import *  # tf.train.exponential_decay, piecewise_constant...
from .learning_rate_decay import __all__ as _decay_all
from .meta_graph import export_meta_graph
from .saver import (
    NewCheckpointReader,
    Saver,
    SaverDef,
    checkpoint_exists,
    get_checkpoint_state,
    import_meta_graph,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
)
from .unsupported import unsupported
from .variable_scope import get_variable_scope

__all__ = [
    "AdadeltaOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "ExponentialMovingAverage",
    "FtrlOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "NewCheckpointReader",
    "Optimizer",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "RMSPropOptimizer",
    "Saver",
    "SaverDef",
    "checkpoint_exists",
    "create_global_step",
    "export_meta_graph",
    "get_checkpoint_state",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "import_meta_graph",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "write_graph",
]
__all__ += list(_decay_all)


class Optimizer:
    """Base class, with TensorFlow's API: ``minimize`` = ``compute_gradients`` +
    ``apply_gradients``.  A subclass gives ``_update_ops(grads_and_vars)`` (the ops updating
    the variables) or ``update(grad, var)`` (the new value assigned to ``var``).

    ``use_locking`` is accepted and has nothing to do: a session runs one step at a time, so an
    update is never interleaved with another.  ``name`` names the step's op.
    """

    _name = "Optimizer"
    GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2

    def get_name(self) -> str:
        return self._name

    def compute_gradients(self, loss: Symbol, var_list=None, gate_gradients=GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None) -> list:
        """``[(gradient, variable), ...]`` of ``loss`` for ``var_list`` (default: every
        trainable variable); the gradient is None for a variable ``loss`` does not depend on,
        an IndexedSlices where TF's is (a gather's, an embedding lookup's).  ``grad_loss``: the
        gradient of ``loss`` itself (ones by default).  One device, one step at a time:
        ``gate_gradients``, ``aggregation_method`` and ``colocate_gradients_with_ops`` change
        nothing."""
        if gate_gradients not in (self.GATE_NONE, self.GATE_OP, self.GATE_GRAPH):
            raise ValueError(f"gate_gradients must be one of: Optimizer.GATE_NONE, "
                             f"Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not {gate_gradients}")
        var_list = trainable_variables() if var_list is None else list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grad_ys = None if grad_loss is None else [grad_loss]
        return list(zip(gradients(loss, var_list, grad_ys), var_list))

    def minimize(self, loss: Symbol, global_step=None, var_list=None, gate_gradients=GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None) -> Symbol:
        """An op that updates ``var_list`` (default: every trainable variable) one step
        against the gradient of ``loss``, then adds 1 to ``global_step`` when given.  A variable
        ``loss`` does not depend on is left alone; ValueError when that is every one."""
        grads_and_vars = self.compute_gradients(loss, var_list, gate_gradients,
                                                aggregation_method,
                                                colocate_gradients_with_ops, grad_loss)
        if all(grad is None for grad, _ in grads_and_vars):
            names = [var.op.name for _, var in grads_and_vars]
            raise ValueError(f"No gradients provided for any variable: the loss depends on "
                             f"none of {names}")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None) -> Symbol:
        """An op applying each ``(gradient, variable)`` pair; pairs whose gradient is None are
        skipped.  With ``global_step`` (a variable) the op adds 1 to it after every update, as
        TensorFlow's does; that increment is named ``name``."""
        grads_and_vars = list(grads_and_vars)
        pairs = [(grad, var) for grad, var in grads_and_vars if grad is not None]
        if not pairs:
            raise ValueError(f"No gradients provided for any variable: "
                             f"{[var.op.name for _, var in grads_and_vars]}")
        context = current_context()
        self._outer_scope = context.naming.prefix  # TF makes its non-slot variables there
        with context.name_scope(name or self._name) as scope:  # TF's: "Adam/mul", "Adam"
            updates = list(self._update_ops(pairs))
            if global_step is None:
                return group(*updates, name=scope)
            with control_dependencies([group(*updates, name="update")]):  # after the updates
                increment = assign_add(global_step, 1, name=scope)
        return Symbol(increment.outputs, is_operation=True)

    def _update_ops(self, grads_and_vars) -> list:
        # update(grad, var) is a dense rule: an IndexedSlices comes to it as its dense tensor
        return [assign(var, self.update(_dense(grad), var)) for grad, var in grads_and_vars]

    def get_slot_names(self) -> list:
        """The names of the slots this optimizer made, sorted (TF's: ``["m", "v"]`` for Adam,
        ``["momentum", "rms"]`` for RMSProp...)."""
        return sorted({name for name, _ in self.__dict__.get("_slots", {})})

    def get_slot(self, var, name):
        """The slot variable ``name`` this optimizer made for ``var``, or None."""
        return self.__dict__.get("_slots", {}).get((name, var.node))

    def variables(self) -> list:
        """The variables this optimizer made in the current graph, its slots and non-slot
        variables (Adam's ``beta1_power``...), sorted by name as TensorFlow's."""
        graph = current_context()
        made = [*self.__dict__.get("_non_slots", {}).get(graph, {}).values(),
                *self.__dict__.get("_slots", {}).values()]
        return sorted((v for v in made if v.graph is graph), key=lambda v: v.name)

    def _slot(self, var: Symbol, slot_name: str, op_name: str, initial: float = 0.0) -> Symbol:
        """The slot ``slot_name`` (TF's: ``"m"``, ``"momentum"``...) of ``var``, made the first
        time: a non-trainable variable of ``var``'s shape starting at ``initial`` (TF's slots
        start at 0, RMSProp's ``rms`` at 1, Adagrad's at ``initial_accumulator_value``), named
        as TensorFlow 1.15 names it: ``<variable scope>/<var name>/<op_name>`` made unique in
        the graph (``w/Adam``, then ``w/Adam_1`` for the second slot: slots are made in TF's
        order), outside the current name scope, in GLOBAL_VARIABLES only.

        A variable of known static shape gives its slot that shape when it is made, as in
        TensorFlow (``hvd.broadcast_global_variables`` reads it before any step).  Otherwise its
        initial value takes the shape of the variable it is assigned to (``_variable_init``), so
        the slot of a weight whose shape is known only from the feeds is initialised by the
        session at the first run that infers that shape.
        """
        slots = self.__dict__.setdefault("_slots", {})
        if (slot_name, var.node) in slots:  # a second minimize updates the same slots (TF's)
            return slots[slot_name, var.node]
        scope = get_variable_scope().name
        context = current_context()
        # made outside any tf.control_dependencies block (TF's init_scope): a train op built
        # under control_dependencies(UPDATE_OPS) must not make its slots' initialisers wait for
        # the batch-norm updates, which read the feeds
        with context.control_dependencies(None), context.name_scope(None):
            shape = var.get_shape()
            if shape.is_fully_defined():
                value = (zeros if initial == 0 else ones)(shape.as_list(), var.dtype)
            else:
                value = create_op("_variable_init", method="zeros" if initial == 0 else "ones")
            if initial not in (0, 1):
                value = value * float(initial)
            name = f"{scope}/{var.op.name}/{op_name}" if scope else f"{var.op.name}/{op_name}"
            # TF's create_slot: the shape validated only where it is fully known
            slot = Variable(value, name=name, trainable=False,
                            validate_shape=shape.is_fully_defined())
        slots[slot_name, var.node] = slot
        return slot

    def _non_slot(self, name: str, initial: float) -> Symbol:
        """The optimizer's non-slot variable ``name`` in the current graph (Adam's
        ``beta1_power``), made the first time: a non-trainable float32 scalar under the current
        name scope, made unique (``beta1_power_1`` for a second optimizer), as TF's."""
        context = current_context()
        made = self.__dict__.setdefault("_non_slots", {}).setdefault(context, {})
        if name not in made:
            outer = self.__dict__.get("_outer_scope")  # apply_gradients' caller's scope
            with context.control_dependencies(None), (  # TF's init_scope, as _slot's
                    context.name_scope(outer or None) if outer is not None
                    else contextlib.nullcontext()):
                made[name] = Variable(constant(initial, dtype="float32"), name=name,
                                      trainable=False)
        return made[name]

    def update(self, grad: Symbol, var: Symbol) -> Symbol:
        raise NotImplementedError


def _learning_rate(value):
    """A tensor learning rate as it is (checked when the graph is bound: a scalar), a number
    as a float."""
    return value if isinstance(value, Symbol) else float(value)


def _dense(grad):
    return grad._as_tensor() if isinstance(grad, IndexedSlices) else grad


def _update(op_name, state, grad, learning_rate, *scalars, **attrs) -> Symbol:
    """The fused update ``op_name`` of ``state`` (the variable, then its slots) against
    ``grad``: the learning rate is its attr ``lr``, or its last input when it is a tensor.
    An IndexedSlices gradient takes the sparse update, ``sparse_<op_name>`` (TF's
    ``_apply_sparse``), from its values and indices: no dense gradient is computed."""
    if isinstance(grad, IndexedSlices):
        op_name, grad = f"sparse_{op_name}", (grad.values, grad.indices)
    else:
        grad = (grad,)
    if isinstance(learning_rate, Symbol):
        return create_op(op_name, *state, *grad, *scalars, learning_rate, **attrs)
    return create_op(op_name, *state, *grad, *scalars, lr=learning_rate, **attrs)


class GradientDescentOptimizer(Optimizer):
    """``var <- var - learning_rate * grad`` (one ``sgd_update`` op per variable)."""

    def __init__(self, learning_rate=0.01, use_locking=False, name="GradientDescent") -> None:
        self.learning_rate = _learning_rate(learning_rate)
        self._name = name

    def _update_ops(self, grads_and_vars) -> list:
        return [_update("sgd_update", [var], grad, self.learning_rate)
                for grad, var in grads_and_vars]


class MomentumOptimizer(Optimizer):
    """``accum <- momentum * accum + grad; var <- var - learning_rate * accum``.

    The same update as TensorFlow's MomentumOptimizer and ``torch.optim.SGD(momentum=...)``;
    ``accum`` is the slot ``momentum``, the variable ``<var name>/Momentum``.  With
    ``use_nesterov`` the step is ``learning_rate * (grad + momentum * accum)``
    (``SGD(nesterov=True)``).
    """

    def __init__(self, learning_rate, momentum: float, use_locking=False, name="Momentum",
                 use_nesterov: bool = False) -> None:
        self.learning_rate, self._name = _learning_rate(learning_rate), name
        self.momentum = float(momentum)
        self.use_nesterov = bool(use_nesterov)

    def _update_ops(self, grads_and_vars) -> list:
        return [_update("momentum_update", [var, self._slot(var, "momentum", self._name)],
                        grad, self.learning_rate, momentum=self.momentum,
                        nesterov=self.use_nesterov)
                for grad, var in grads_and_vars]


class AdamOptimizer(Optimizer):
    """TensorFlow's Adam (``ApplyAdam``; Kingma and Ba, epsilon after the bias correction)::

        lr_t <- learning_rate * sqrt(1 - beta2_power) / (1 - beta1_power)
        m <- beta1 * m + (1 - beta1) * grad
        v <- beta2 * v + (1 - beta2) * grad^2
        var <- var - lr_t * m / (sqrt(v) + epsilon)

    then, after every variable's update, ``beta1_power *= beta1`` and ``beta2_power *= beta2``.
    The slots ``m`` and ``v`` are the variables ``<var name>/Adam`` and ``<var name>/Adam_1``;
    ``beta1_power`` and ``beta2_power`` (float32 scalars from ``beta1``, ``beta2``: ``beta **
    t`` at step ``t``) are the optimizer's non-slot variables, made under the current name
    scope, as TensorFlow's.  ``torch.optim.Adam`` differs: its epsilon is added before the
    ``sqrt(1 - beta2 ** t)`` correction (the two differ by the size of epsilon).
    """

    def __init__(self, learning_rate=0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, use_locking=False, name="Adam") -> None:
        self.learning_rate, self._name = _learning_rate(learning_rate), name
        self.beta1, self.beta2 = float(beta1), float(beta2)
        self.epsilon = float(epsilon)

    def _update_ops(self, grads_and_vars) -> list:
        powers = (self._non_slot("beta1_power", self.beta1),
                  self._non_slot("beta2_power", self.beta2))
        updates = [self._adam_update(grad, var, powers) for grad, var in grads_and_vars]
        with control_dependencies(updates):  # TF's _finish: the powers move after the updates
            return updates + [assign(powers[0], powers[0] * self.beta1),
                              assign(powers[1], powers[1] * self.beta2)]


    def _adam_update(self, grad, var, powers) -> Symbol:
        """The update of ``var`` and its slots ``m``, ``v`` (tf.contrib.opt's LazyAdam changes
        a sparse one).  A float64 variable gets what TF's casts give it: the float32 powers,
        learning rate, betas and epsilon, each rounded to float32 first."""
        hyper = (self.learning_rate, self.beta1, self.beta2, self.epsilon)
        if var.dtype != powers[0].dtype:
            powers = [cast(power, var.dtype) for power in powers]
            hyper = [cast(h, var.dtype) if isinstance(h, Symbol) else float(np.float32(h))
                     for h in hyper]
        return _update("adam_update", [var, self._slot(var, "m", self._name),
                                       self._slot(var, "v", self._name)], grad,
                       hyper[0], *powers, beta1=hyper[1], beta2=hyper[2], epsilon=hyper[3])


class RMSPropOptimizer(Optimizer):
    """TensorFlow's RMSProp (``ApplyRMSProp``), epsilon inside the square root::

        ms <- ms + (grad^2 - ms) * (1 - decay)
        mom <- momentum * mom + learning_rate * grad / sqrt(ms + epsilon)
        var <- var - mom

    With ``centered``, ``mg <- mg + (grad - mg) * (1 - decay)`` and the square root is of
    ``ms - mg^2 + epsilon``.  The slots ``rms`` (``ms``, starting at 1 as TensorFlow's), ``mg``
    and ``momentum`` (starting at 0) are the variables ``<var name>/RMSProp``, then (centered)
    ``<var name>/RMSProp_1`` for ``mg``, and the next for ``momentum``.
    ``torch.optim.RMSprop`` differs: its ``ms`` starts at 0 and its epsilon is added after the
    square root.
    """

    def __init__(self, learning_rate, decay: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-10, use_locking=False, centered: bool = False,
                 name="RMSProp") -> None:
        self.learning_rate, self._name = _learning_rate(learning_rate), name
        self.decay, self.momentum = float(decay), float(momentum)
        self.epsilon, self.centered = float(epsilon), bool(centered)

    def _update_ops(self, grads_and_vars) -> list:
        updates = []
        for grad, var in grads_and_vars:
            ms = self._slot(var, "rms", self._name, initial=1.0)  # TF's order: rms, mg, mom
            mg = self._slot(var, "mg", self._name) if self.centered else None
            mom = self._slot(var, "momentum", self._name)
            state = [var, mg, ms, mom] if self.centered else [var, ms, mom]
            updates.append(_update(
                "centered_rmsprop_update" if self.centered else "rmsprop_update", state, grad,
                self.learning_rate, rho=self.decay, momentum=self.momentum,
                epsilon=self.epsilon))
        return updates


class AdagradOptimizer(Optimizer):
    """TensorFlow's Adagrad (``ApplyAdagrad``), no epsilon::

        accum <- accum + grad^2
        var <- var - learning_rate * grad / sqrt(accum)

    ``accum`` is the slot ``accumulator`` (``<var name>/Adagrad``), starting at
    ``initial_accumulator_value``
    (``torch.optim.Adagrad(lr, initial_accumulator_value=..., eps=0)`` is the same update).
    """

    def __init__(self, learning_rate, initial_accumulator_value: float = 0.1, use_locking=False,
                 name="Adagrad") -> None:
        if initial_accumulator_value <= 0:
            raise ValueError(f"initial_accumulator_value must be positive: "
                             f"{initial_accumulator_value}")
        self.learning_rate, self._name = _learning_rate(learning_rate), name
        self.initial_accumulator_value = float(initial_accumulator_value)

    def _update_ops(self, grads_and_vars) -> list:
        return [_update("adagrad_update", [var, self._slot(
            var, "accumulator", self._name, self.initial_accumulator_value)], grad,
            self.learning_rate) for grad, var in grads_and_vars]


def _non_negative(**values) -> None:
    for key, value in values.items():
        if value < 0.0:
            raise ValueError(f"{key} {value:f} needs to be positive or zero")


class ProximalGradientDescentOptimizer(Optimizer):
    """TensorFlow's proximal gradient descent (``ApplyProximalGradientDescent``)::

        prox = var - learning_rate * grad
        var <- sign(prox) * max(|prox| - learning_rate * l1, 0) / (1 + learning_rate * l2)
    """

    def __init__(self, learning_rate, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False,
                 name="ProximalGradientDescent") -> None:
        self.learning_rate, self._name = _learning_rate(learning_rate), name
        self.l1, self.l2 = float(l1_regularization_strength), float(l2_regularization_strength)

    def _update_ops(self, grads_and_vars) -> list:
        return [_update("proximal_sgd_update", [var], grad, self.learning_rate, l1=self.l1,
                        l2=self.l2) for grad, var in grads_and_vars]


class ProximalAdagradOptimizer(Optimizer):
    """TensorFlow's proximal Adagrad (``ApplyProximalAdagrad``)::

        accum <- accum + grad^2;  rate = learning_rate / sqrt(accum)
        prox = var - rate * grad
        var <- sign(prox) * max(|prox| - rate * l1, 0) / (1 + rate * l2)

    ``accum`` is the slot ``accumulator`` (``<var name>/ProximalAdagrad``), starting at
    ``initial_accumulator_value``.
    """

    def __init__(self, learning_rate, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalAdagrad") -> None:
        if initial_accumulator_value <= 0:
            raise ValueError(f"initial_accumulator_value must be positive: "
                             f"{initial_accumulator_value}")
        self.learning_rate, self._name = _learning_rate(learning_rate), name
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.l1, self.l2 = float(l1_regularization_strength), float(l2_regularization_strength)

    def _update_ops(self, grads_and_vars) -> list:
        return [_update("proximal_adagrad_update", [var, self._slot(
            var, "accumulator", self._name, self.initial_accumulator_value)], grad,
            self.learning_rate, l1=self.l1, l2=self.l2) for grad, var in grads_and_vars]


class FtrlOptimizer(Optimizer):
    """TensorFlow's FTRL-proximal (``ApplyFtrl``; ``ApplyFtrlV2`` with
    ``l2_shrinkage_regularization_strength``), ``p = -learning_rate_power``::

        new = accum + grad^2
        linear <- linear + grad + 2 l2_shrinkage var - (new^p - accum^p) / learning_rate * var
        var <- (l1 sign(linear) - linear) / (new^p / learning_rate + 2 l2) if |linear| > l1
               else 0
        accum <- new

    The slots ``accum`` (from ``initial_accumulator_value``) and ``linear`` (from 0), the
    variables ``<var name>/Ftrl`` and ``<var name>/Ftrl_1`` (``<var name>/<accum_name>`` and
    ``<var name>/<linear_name>`` when given).
    """

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="Ftrl", accum_name=None, linear_name=None,
                 l2_shrinkage_regularization_strength=0.0) -> None:
        # TF 1.15's checks, in its order and words
        _non_negative(initial_accumulator_value=initial_accumulator_value)
        if learning_rate_power > 0.0:
            raise ValueError(f"learning_rate_power {learning_rate_power:f} needs to be "
                             f"negative or zero")
        _non_negative(l1_regularization_strength=l1_regularization_strength,
                      l2_regularization_strength=l2_regularization_strength,
                      l2_shrinkage_regularization_strength=l2_shrinkage_regularization_strength)
        self.learning_rate, self._name = _learning_rate(learning_rate), name
        self.attrs = {"l1": float(l1_regularization_strength),
                      "l2": float(l2_regularization_strength),
                      "l2_shrinkage": float(l2_shrinkage_regularization_strength),
                      "lr_power": float(learning_rate_power)}
        self.initial_accumulator_value = float(initial_accumulator_value)
        self._slot_names = (accum_name or name, linear_name or name)

    def _update_ops(self, grads_and_vars) -> list:
        return [_update("ftrl_update", [
            var, self._slot(var, "accum", self._slot_names[0], self.initial_accumulator_value),
            self._slot(var, "linear", self._slot_names[1])], grad, self.learning_rate,
            **self.attrs)
            for grad, var in grads_and_vars]


class AdadeltaOptimizer(Optimizer):
    """TensorFlow's Adadelta (``ApplyAdadelta``), the same update as ``torch.optim.Adadelta``::

        accum <- rho * accum + (1 - rho) * grad^2
        update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad
        accum_update <- rho * accum_update + (1 - rho) * update^2
        var <- var - learning_rate * update

    The slots ``accum`` and ``accum_update``, the variables ``<var name>/Adadelta`` and
    ``<var name>/Adadelta_1``, start at 0.
    """

    def __init__(self, learning_rate=0.001, rho: float = 0.95, epsilon: float = 1e-8,
                 use_locking=False, name="Adadelta") -> None:
        self.learning_rate, self._name = _learning_rate(learning_rate), name
        self.rho, self.epsilon = float(rho), float(epsilon)

    def _update_ops(self, grads_and_vars) -> list:
        return [_update("adadelta_update", [var, self._slot(var, "accum", self._name),
                                            self._slot(var, "accum_update", self._name)],
                        grad, self.learning_rate, rho=self.rho, epsilon=self.epsilon)
                for grad, var in grads_and_vars]


# -- the global step ------------------------------------------------------------------------------
def get_global_step(graph=None) -> Symbol | None:
    """The global step variable of ``graph`` (default: the current graph): the one in its
    collection ``"global_step"``, else a variable named ``global_step``; None if there is none.
    """
    graph = graph or current_context()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) > 1:
        raise TypeError("Multiple tensors in global_step collection.")
    step = found[0] if found else next(
        (v for v in graph.variables if v.op.name == "global_step"), None)
    dtype = step is not None and step.node.attrs.get("dtype", "float32")
    if step is not None and not dtype.startswith(("int", "uint")):
        raise TypeError(f'Existing "global_step" does not have integer type: {dtype}')
    return step


def create_global_step(graph=None) -> Variable:
    """A new global step in ``graph`` (default: the current graph): the non-trainable int64
    scalar variable ``global_step`` (outside any name scope), starting at 0, kept in the
    collection ``"global_step"``.  ValueError if the graph has one."""
    graph = graph or current_context()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.name_scope(None):
        step = Variable(0, name="global_step", trainable=False, dtype="int64",
                        collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])
    return step


def get_or_create_global_step(graph=None) -> Variable:
    """The global step of ``graph`` (default: the current graph), created if it has none."""
    return get_global_step(graph) or create_global_step(graph)


def global_step(sess, global_step_tensor) -> int:
    """The value of ``global_step_tensor`` in ``sess``, as a Python int."""
    return int(sess.run(global_step_tensor))


# -- moving averages ------------------------------------------------------------------------------
class ExponentialMovingAverage:
    """TensorFlow's moving averages of variables: :meth:`apply` makes, for each variable, a
    non-trainable shadow ``<var>/ExponentialMovingAverage`` starting at the variable's initial
    value, and an op updating ``shadow -= (1 - decay) * (shadow - var)``.  With
    ``num_updates`` (a tensor, e.g. the global step) the decay is
    ``min(decay, (1 + num_updates) / (10 + num_updates))``.  ``zero_debias`` is not supported.
    """

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage") -> None:
        if zero_debias:
            raise ValueError("ExponentialMovingAverage(zero_debias=True) is not supported by "
                             "TinyFlow")
        self._decay, self._num_updates, self.name = decay, num_updates, name
        self._averages: dict = {}  # variable node -> shadow variable

    def apply(self, var_list=None) -> Symbol:
        """The op updating the averages of ``var_list`` (default: the trainable variables)."""
        var_list = trainable_variables() if var_list is None else list(var_list)
        decay = self._decay
        if self._num_updates is not None:
            steps = cast(self._num_updates, "float32")
            decay = minimum(decay, (1.0 + steps) / (10.0 + steps))
        updates = []
        for var in var_list:
            shadow = self._averages.get(var.node)
            if shadow is None:
                with current_context().name_scope(None):
                    shadow = Variable(var.initial_value, trainable=False,
                                      name=self.average_name(var), validate_shape=var.
                                      initial_value.get_shape().is_fully_defined())
                self._averages[var.node] = shadow
                current_context().add_to_collection("moving_average_variables", var)
            updates.append(assign_sub(shadow, (shadow - var) * (1.0 - decay)))
        return group(*updates, name=self.name)

    def average(self, var) -> Symbol | None:
        """The shadow variable of ``var`` (None before :meth:`apply` made one)."""
        return self._averages.get(var.node)

    def average_name(self, var) -> str:
        return f"{var.op.name}/{self.name}"

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """``{checkpoint name: variable}`` for a Saver restoring the averages into the
        variables themselves: as TF 1.15, each of ``moving_avg_variables`` (default: the
        trainable variables and the collection ``moving_average_variables``, averaged or not)
        under its average's name, every other global variable under its own."""
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + current_context().get_collection(
                GraphKeys.MOVING_AVERAGE_VARIABLES)
        names = {self.average_name(var): var for var in moving_avg_variables}
        averaged = {var.node for var in moving_avg_variables}
        for var in global_variables():
            if var.node not in averaged:
                names.setdefault(var.op.name, var)
        return names


# tf.train's monitored sessions and hooks: their modules load on first use (importlib, as
# tinyflow/__init__.py's _MODULES: they import this one)
_LAZY = {"queue_runner": ["Coordinator", "LooperThread", "QueueRunner", "add_queue_runner",
                          "start_queue_runners"],
         "supervisor": ["SessionManager", "Supervisor", "basic_train_loop"],
         "python_io": ["summary_iterator"],
         "example_proto": ["BytesList", "Example", "Feature", "FeatureList", "FeatureLists",
                           "Features", "FloatList", "Int64List", "SequenceExample"],
         "framework_names": ["replica_device_setter"],
         "checkpoint_utils": ["assert_global_step", "checkpoints_iterator",
                              "get_checkpoint_mtimes", "init_from_checkpoint",
                              "remove_checkpoint", "update_checkpoint_state"],
         "input_pipeline": ["batch", "batch_join", "input_producer", "limit_epochs",
                            "range_input_producer", "shuffle_batch", "shuffle_batch_join",
                            "slice_input_producer", "string_input_producer"],
         "monitored_session": ["ChiefSessionCreator", "MonitoredSession",
                               "MonitoredTrainingSession", "Scaffold", "SessionCreator",
                               "SingularMonitoredSession"],
         "session_run_hooks": ["CheckpointSaverHook", "CheckpointSaverListener", "FeedFnHook",
                               "FinalOpsHook", "GlobalStepWaiterHook", "LoggingTensorHook",
                               "NanLossDuringTrainingError", "NanTensorHook", "ProfilerHook",
                               "SecondOrStepTimer", "SessionRunArgs",
                               "SessionRunContext", "SessionRunHook", "SessionRunValues",
                               "StepCounterHook", "StopAtStepHook", "SummarySaverHook"]}
__all__ += [name for names in _LAZY.values() for name in names]


def __getattr__(name):
    if name == "queue_runner":  # tf.train.queue_runner: QueueRunner and its functions
        return importlib.import_module(f"{__package__}.queue_runner")
    for module, names in _LAZY.items():
        if name in names:
            return getattr(importlib.import_module(f"{__package__}.{module}"), name)
    raise unsupported("tf.train.", "tinyflow.train", name, {"tf.train.": __all__})
