"""``tf.distributions``: TensorFlow 1.15's probability distributions, built from TinyFlow's
ops (their gradients are the ops'): Normal, Bernoulli, Categorical, Uniform, Beta, Gamma,
Exponential, Laplace, Dirichlet, the :class:`Distribution` base, the KL registry
(``kl_divergence``, ``RegisterKL``) and the reparameterization types.  TF 1.15's other names
(Multinomial, DirichletMultinomial, StudentT) are an AttributeError saying TinyFlow lacks them.
"""
from .continuous import Laplace, Normal, Uniform
from .discrete import Bernoulli, Categorical
from .distribution import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Distribution,
    RegisterKL,
    ReparameterizationType,
    kl_divergence,
)
from .gamma_family import Beta, Dirichlet, Exponential, Gamma

__all__ = ["FULLY_REPARAMETERIZED", "NOT_REPARAMETERIZED", "Bernoulli", "Beta", "Categorical",
           "Dirichlet", "Distribution", "Exponential", "Gamma", "Laplace", "Normal",
           "RegisterKL", "ReparameterizationType", "Uniform", "kl_divergence"]


def __getattr__(name):
    raise AttributeError(f"tf.distributions.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.distributions' has no attribute {name!r})")
