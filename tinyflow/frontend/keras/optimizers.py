"""``tf.keras.optimizers`` as TensorFlow 1.15 has them in graph mode: Keras' own optimizers
(``OptimizerV2``), whose arguments, defaults (``epsilon=1e-7``) and updates differ from
``tf.train``'s.

Every optimizer keeps, per graph, the variables ``<name>/iter`` (int64, the steps taken, added
to after each step's updates) and ``<name>/learning_rate`` (what ``optimizer.lr`` is, and what
``backend.set_value`` or :class:`~.callbacks.LearningRateScheduler` change between steps); its
slots are ``<variable>/<slot>`` (``dense/kernel/m``).  ``decay`` divides the learning rate by
``1 + decay * iterations``; ``clipnorm`` / ``clipvalue`` clip each gradient first.  Where an
update is one of ``tf.train``'s fused ops (``sgd_update``, ``adam_update``, RMSprop with
momentum, ``adadelta_update``) it is that op, the learning rate a tensor input; the others are
built of elementwise ops and assigns, Keras' formulas written beside them.
"""
from __future__ import annotations

from typing import ClassVar

from ...nnvm.symbol import current_context
from ...nnvm.variables import Variable
from .. import api, math_ops, train
from ..train import _dense, _update
from ..unsupported import unsupported
from . import backend

__all__ = [
    "SGD", "Adadelta", "Adagrad", "Adam", "Adamax", "Nadam", "Optimizer", "RMSprop",
    "deserialize", "get", "serialize",
]


class Optimizer(train.Optimizer):
    """The base of Keras' optimizers (TF 1.15's ``OptimizerV2``): ``minimize(loss,
    var_list)``, ``apply_gradients``, ``get_updates(loss, params)``, ``iterations``, ``lr``
    (``learning_rate``), ``get_config``."""

    _defaults: ClassVar[dict] = {}

    def __init__(self, name, learning_rate=0.001, decay=0.0, clipnorm=None, clipvalue=None,
                 **hypers) -> None:
        if "lr" in hypers:  # Keras' older name
            learning_rate = hypers.pop("lr")
        unknown = sorted(set(hypers) - set(self._defaults))
        if unknown:
            raise TypeError(f"Unexpected keyword argument passed to optimizer: {unknown[0]}")
        if float(decay) < 0:
            raise ValueError(f"decay cannot be less than 0: {decay}")
        self._name, self.decay = name, float(decay)
        self.clipnorm, self.clipvalue = clipnorm, clipvalue
        self._initial_lr = float(learning_rate)
        for key, default in self._defaults.items():
            setattr(self, key, hypers.get(key, default))

    def _variable(self, name, value, dtype="float32"):
        """The optimizer's variable ``<name>/<name>`` in the default graph (made once:
        outside any name scope or control dependencies)."""
        graph = current_context()
        made = self.__dict__.setdefault("_graph_variables", {}).setdefault(graph, {})
        if name not in made:
            with graph.control_dependencies(None), graph.name_scope(None):
                made[name] = Variable(api.constant(value, dtype=dtype),
                                      name=f"{self._name}/{name}", trainable=False)
        return made[name]

    @property
    def iterations(self):
        """The steps taken: an int64 variable."""
        return self._variable("iter", 0, "int64")

    def _get_lr(self):
        """The learning rate: a float32 variable (``optimizer.lr = 0.1`` writes it)."""
        return self._variable("learning_rate", self._initial_lr)

    def _set_lr(self, value) -> None:
        self._initial_lr = float(value)
        made = self.__dict__.get("_graph_variables", {}).get(current_context(), {})
        if "learning_rate" in made:
            backend.set_value(made["learning_rate"], self._initial_lr)

    learning_rate = lr = property(_get_lr, _set_lr)

    def _decayed_lr(self):
        """``lr / (1 + decay * iterations)`` (the learning rate itself when ``decay`` is 0)."""
        if not self.decay:
            return self.learning_rate
        return self.learning_rate / (1.0 + self.decay * api.cast(self.iterations, "float32"))

    def _step(self):
        """``iterations + 1`` as a float: the step the update makes (Adam's ``t``)."""
        return api.cast(self.iterations + 1, "float32")

    def compute_gradients(self, loss, var_list=None, *args, **kwargs) -> list:
        """``tf.train.Optimizer``'s, each gradient clipped by ``clipnorm`` / ``clipvalue``."""
        pairs = super().compute_gradients(loss, var_list, *args, **kwargs)
        return [(self._clip(grad), var) for grad, var in pairs]

    def _clip(self, grad):
        if grad is None:
            return grad
        if self.clipnorm is not None:
            grad = math_ops.clip_by_norm(_dense(grad), self.clipnorm)
        if self.clipvalue is not None:
            grad = api.clip_by_value(_dense(grad), -self.clipvalue, self.clipvalue)
        return grad

    def apply_gradients(self, grads_and_vars, name=None, global_step=None):
        """The updates, then ``iterations += 1`` (``global_step`` is not used: Keras counts
        the steps in ``iterations``)."""
        return super().apply_gradients(grads_and_vars, global_step=self.iterations, name=name)

    def minimize(self, loss, var_list=None, grad_loss=None, name=None):
        """Compute and apply the gradients of ``loss`` for ``var_list`` (default: every
        trainable variable)."""
        return super().minimize(loss, var_list=var_list, grad_loss=grad_loss, name=name)

    def get_updates(self, loss, params) -> list:
        """``[the op of one step]`` (Keras' graph-mode training asks for it)."""
        return [self.minimize(loss, params)]

    def get_config(self) -> dict:
        config = {"name": self._name, "learning_rate": self._initial_lr, "decay": self.decay}
        config.update({key: getattr(self, key) for key in self._defaults})
        for key in ("clipnorm", "clipvalue"):
            if getattr(self, key) is not None:
                config[key] = getattr(self, key)
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def _new(self, var, slot, value, grad):
        """Assign ``value`` to ``var``'s slot ``slot``; its new value."""
        return api.assign(self._slot(var, slot, slot), value(self._slot(var, slot, slot), grad))


class SGD(Optimizer):
    """``var -= lr * grad``; with ``momentum``: ``accum = momentum * accum - lr * grad; var +=
    accum`` (``nesterov``: ``var += momentum * accum - lr * grad``)."""

    _defaults: ClassVar[dict] = {"momentum": 0.0, "nesterov": False}

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD",
                 **kwargs) -> None:
        if not 0 <= float(momentum) <= 1:
            raise ValueError("`momentum` must be between [0, 1].")
        super().__init__(name, learning_rate, momentum=float(momentum), nesterov=nesterov,
                         **kwargs)

    def _update_ops(self, grads_and_vars) -> list:
        lr, updates = self._decayed_lr(), []
        for grad, var in grads_and_vars:
            if not self.momentum:
                updates.append(_update("sgd_update", [var], grad, lr))
                continue
            grad = _dense(grad)
            accum = self._new(var, "momentum", lambda a, g: self.momentum * a - lr * g, grad)
            step = self.momentum * accum - lr * grad if self.nesterov else accum
            updates.append(api.assign_add(var, step))
        return updates


class Adam(Optimizer):
    """``m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2; var -= lr_t m / (sqrt(v) + eps)``,
    ``lr_t = lr sqrt(1 - b2^t) / (1 - b1^t)`` (``ApplyAdam``); ``amsgrad`` divides by
    ``sqrt(vhat)``, ``vhat = max(vhat, v)``."""

    _defaults: ClassVar[dict] = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7, "amsgrad": False}

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name="Adam", **kwargs) -> None:
        super().__init__(name, learning_rate, beta_1=float(beta_1), beta_2=float(beta_2),
                         epsilon=float(epsilon), amsgrad=bool(amsgrad), **kwargs)

    def _powers(self):
        t = self._step()
        return api.pow(self.beta_1, t), api.pow(self.beta_2, t)

    def _update_ops(self, grads_and_vars) -> list:
        lr, (power_1, power_2), updates = self._decayed_lr(), self._powers(), []
        for grad, var in grads_and_vars:
            m, v = self._slot(var, "m", "m"), self._slot(var, "v", "v")
            if not self.amsgrad:
                updates.append(_update("adam_update", [var, m, v], grad, lr, power_1,
                                       power_2, beta1=self.beta_1, beta2=self.beta_2,
                                       epsilon=self.epsilon))
                continue
            grad = _dense(grad)
            m = self._new(var, "m", lambda m, g: self.beta_1 * m + (1 - self.beta_1) * g, grad)
            v = self._new(var, "v", lambda v, g: self.beta_2 * v + (1 - self.beta_2) * g * g,
                          grad)
            vhat = self._new(var, "vhat", lambda vhat, _, v=v: api.maximum(vhat, v), grad)
            lr_t = lr * api.sqrt(1.0 - power_2) / (1.0 - power_1)
            updates.append(api.assign_sub(var, lr_t * m / (api.sqrt(vhat) + self.epsilon)))
        return updates


class RMSprop(Optimizer):
    """``rms = rho rms + (1 - rho) g^2; var -= lr g / (sqrt(rms) + eps)`` (``centered``:
    ``sqrt(rms - mg^2)``, ``mg = rho mg + (1 - rho) g``); with ``momentum`` TF's
    ``ApplyRMSProp``: ``mom = momentum mom + lr g / sqrt(rms + eps); var -= mom``."""

    _defaults: ClassVar[dict] = {"rho": 0.9, "momentum": 0.0, "epsilon": 1e-7, "centered": False}

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, name="RMSprop", **kwargs) -> None:
        super().__init__(name, learning_rate, rho=float(rho), momentum=float(momentum),
                         epsilon=float(epsilon), centered=bool(centered), **kwargs)

    def _update_ops(self, grads_and_vars) -> list:
        lr, rho, updates = self._decayed_lr(), self.rho, []
        for grad, var in grads_and_vars:
            rms = self._slot(var, "rms", "rms")
            if self.momentum:  # Keras' slot order: rms, momentum, mg
                state = [var, rms, self._slot(var, "momentum", "momentum")]
                if self.centered:
                    state.insert(1, self._slot(var, "mg", "mg"))
                updates.append(_update(
                    "centered_rmsprop_update" if self.centered else "rmsprop_update", state,
                    grad, lr, rho=rho, momentum=self.momentum, epsilon=self.epsilon))
                continue
            grad = _dense(grad)
            denominator = self._new(var, "rms", lambda r, g: rho * r + (1 - rho) * g * g, grad)
            if self.centered:
                mg = self._new(var, "mg", lambda mg, g: rho * mg + (1 - rho) * g, grad)
                denominator = denominator - mg * mg
            updates.append(api.assign_sub(
                var, lr * grad / (api.sqrt(denominator) + self.epsilon)))
        return updates


class Adagrad(Optimizer):
    """``accum += g^2; var -= lr g / (sqrt(accum) + eps)`` (``ApplyAdagradV2``), ``accum``
    starting at ``initial_accumulator_value``."""

    _defaults: ClassVar[dict] = {"initial_accumulator_value": 0.1, "epsilon": 1e-7}

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 name="Adagrad", **kwargs) -> None:
        if initial_accumulator_value < 0.0:
            raise ValueError(f"initial_accumulator_value must be non-negative: "
                             f"{initial_accumulator_value}")
        super().__init__(name, learning_rate, epsilon=float(epsilon),
                         initial_accumulator_value=float(initial_accumulator_value), **kwargs)

    def _update_ops(self, grads_and_vars) -> list:
        lr, updates = self._decayed_lr(), []
        for grad, var in grads_and_vars:
            grad = _dense(grad)
            self._slot(var, "accumulator", "accumulator", self.initial_accumulator_value)
            accum = self._new(var, "accumulator", lambda a, g: a + g * g, grad)
            updates.append(api.assign_sub(var, lr * grad / (api.sqrt(accum) + self.epsilon)))
        return updates


class Adadelta(Optimizer):
    """TF's ``ApplyAdadelta`` (Keras' slots ``accum_grad``, ``accum_var``)."""

    _defaults: ClassVar[dict] = {"rho": 0.95, "epsilon": 1e-7}

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta",
                 **kwargs) -> None:
        super().__init__(name, learning_rate, rho=float(rho), epsilon=float(epsilon), **kwargs)

    def _update_ops(self, grads_and_vars) -> list:
        lr = self._decayed_lr()
        return [_update("adadelta_update", [var, self._slot(var, "accum_grad", "accum_grad"),
                                            self._slot(var, "accum_var", "accum_var")],
                        grad, lr, rho=self.rho, epsilon=self.epsilon)
                for grad, var in grads_and_vars]


class Adamax(Optimizer):
    """``m = b1 m + (1 - b1) g; v = max(b2 v, |g|); var -= lr / (1 - b1^t) m / (v + eps)``
    (``ApplyAdaMax``)."""

    _defaults: ClassVar[dict] = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name="Adamax", **kwargs) -> None:
        super().__init__(name, learning_rate, beta_1=float(beta_1), beta_2=float(beta_2),
                         epsilon=float(epsilon), **kwargs)

    def _update_ops(self, grads_and_vars) -> list:
        b1, b2 = self.beta_1, self.beta_2
        lr_t = self._decayed_lr() / (1.0 - api.pow(b1, self._step()))
        updates = []
        for grad, var in grads_and_vars:
            grad = _dense(grad)
            m = self._new(var, "m", lambda m, g: b1 * m + (1 - b1) * g, grad)
            v = self._new(var, "v", lambda v, g: api.maximum(b2 * v, api.abs(g)), grad)
            updates.append(api.assign_sub(var, lr_t * m / (v + self.epsilon)))
        return updates


class Nadam(Optimizer):
    """Adam with Nesterov momentum (Dozat), Keras' momentum schedule ``m_t = b1 (1 - 0.5 *
    0.96^(0.004 t))``, the schedule's running product kept in ``<name>/momentum_cache``."""

    _defaults: ClassVar[dict] = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name="Nadam", **kwargs) -> None:
        super().__init__(name, learning_rate, beta_1=float(beta_1), beta_2=float(beta_2),
                         epsilon=float(epsilon), **kwargs)

    def _update_ops(self, grads_and_vars) -> list:
        b1, b2, t = self.beta_1, self.beta_2, self._step()
        m_t = b1 * (1.0 - 0.5 * api.pow(0.96, 0.004 * t))
        m_next = b1 * (1.0 - 0.5 * api.pow(0.96, 0.004 * (t + 1.0)))
        cache = self._variable("momentum_cache", 1.0)
        schedule = api.assign(cache, cache * m_t)  # once a step, for every variable
        schedule_next = schedule * m_next
        lr, updates = self._decayed_lr(), []
        for grad, var in grads_and_vars:
            grad = _dense(grad)
            m = self._new(var, "m", lambda m, g: b1 * m + (1 - b1) * g, grad)
            v = self._new(var, "v", lambda v, g: b2 * v + (1 - b2) * g * g, grad)
            m_bar = (1.0 - m_t) * (grad / (1.0 - schedule)) + m_next * (m / (1.0 - schedule_next))
            v_prime = v / (1.0 - api.pow(b2, t))
            updates.append(api.assign_sub(var, lr * m_bar / (api.sqrt(v_prime) + self.epsilon)))
        return updates


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad,
            "adadelta": Adadelta, "adamax": Adamax, "nadam": Nadam}


def serialize(optimizer) -> dict:
    """``{"class_name": ..., "config": ...}``."""
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config, custom_objects=None):
    """The optimizer a :func:`serialize` dict describes."""
    name = config["class_name"]
    made = (custom_objects or {}).get(name) or _BY_NAME.get(name.lower())
    if made is None:
        raise ValueError(f"Unknown optimizer: {name}")
    return made.from_config(config.get("config", {}))


def get(identifier):
    """An optimizer from a name (``"adam"``, with Keras' defaults), a config dict, a Keras
    optimizer or a ``tf.train.Optimizer`` (used as it is).

    Returns
    -------
    train.Optimizer
        The optimizer.
    """
    if isinstance(identifier, train.Optimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier.lower() not in _BY_NAME:
            raise ValueError(f"Unknown optimizer: {identifier} (Keras' are "
                             f"{sorted(_BY_NAME)})")
        return _BY_NAME[identifier.lower()]()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")


def __getattr__(name):
    raise unsupported("tf.keras.optimizers.", "tinyflow.keras.optimizers", name,
                      {"tf.keras.optimizers.": __all__})


def __dir__():
    return sorted(__all__)
