"""``tf.contrib.distributions`` (TF 1.15): the ``tf.distributions`` families under their
contrib names, and :class:`MultivariateNormalDiag`; its other names are an AttributeError
saying TinyFlow lacks them."""
from ..distributions import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Bernoulli,
    Beta,
    Categorical,
    Dirichlet,
    Distribution,
    Exponential,
    Gamma,
    Laplace,
    Normal,
    RegisterKL,
    ReparameterizationType,
    Uniform,
    kl_divergence,
)
from ..distributions.multivariate import MultivariateNormalDiag

__all__ = ["FULLY_REPARAMETERIZED", "NOT_REPARAMETERIZED", "Bernoulli", "Beta", "Categorical",
           "Dirichlet", "Distribution", "Exponential", "Gamma", "Laplace",
           "MultivariateNormalDiag", "Normal", "RegisterKL", "ReparameterizationType", "Uniform",
           "kl_divergence"]


def __getattr__(name):
    raise AttributeError(f"tf.contrib.distributions.{name} is not supported by TinyFlow "
                         f"(module 'tinyflow.contrib.distributions' has no attribute {name!r})")
