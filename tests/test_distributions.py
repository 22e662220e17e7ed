"""tf.distributions and tf.contrib.distributions against TensorFlow 1.15's semantics.

Values (log_prob, prob, cdf, entropy, moments, KL) are compared with torch.distributions in
float64, and with numpy formulas; the facts marked "real TF" were printed by TensorFlow 2.21's
tf.compat.v1.distributions (the TF 1.15 code) in graph mode, /work/tfvenv.  Sample statistics
use 20000 draws from fixed seeds and several standard errors, so they cannot flake; gradients
of reparameterized samples and of log_prob are checked against finite differences and torch's
autograd.
"""
import math

import numpy as np
import pytest
import torch
import torch.distributions as td

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")
tfd = tf.distributions
F64 = np.float64


def run(*fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(list(fetches), feed_dict)


def t(x):
    return torch.tensor(np.asarray(x, F64))


# -- values against torch.distributions --------------------------------------------------------
LOC, SCALE = np.array([[0.3, -1.2, 2.0]], F64), np.array([[0.5], [1.7]], F64)  # batch (2, 3)
X = np.array([[0.1, -0.4, 2.5], [1.3, 0.2, -0.9]], F64)
POS = np.array([[0.7, 1.5, 3.2], [0.2, 2.4, 0.9]], F64)  # positive points
UNIT = np.array([[0.15, 0.5, 0.8], [0.35, 0.05, 0.93]], F64)  # points in (0, 1)
CONC, RATE = np.array([[0.6, 2.0, 4.5]], F64), np.array([[1.3], [0.4]], F64)
LOGITS = np.array([[0.3, -1.0, 2.0, 0.1], [1.5, 0.2, -0.7, 0.0]], F64)
PROBS = np.array([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.4, 0.1]], F64)
CASES = {  # name: (tinyflow distribution, torch distribution, points, methods)
    "Normal": (lambda: tfd.Normal(LOC, SCALE), lambda: td.Normal(t(LOC), t(SCALE)), X,
               ("log_prob", "prob", "cdf", "log_cdf", "survival_function", "entropy", "mean",
                "stddev", "variance", "mode")),
    "Bernoulli(logits)": (lambda: tfd.Bernoulli(logits=LOGITS),
                          lambda: td.Bernoulli(logits=t(LOGITS)), (LOGITS > 0.2).astype(F64),
                          ("log_prob", "prob", "entropy", "mean", "variance")),
    "Bernoulli(probs)": (lambda: tfd.Bernoulli(probs=PROBS), lambda: td.Bernoulli(probs=t(PROBS)),
                         (PROBS > 0.2).astype(F64), ("log_prob", "entropy", "mean", "variance")),
    "Categorical(logits)": (lambda: tfd.Categorical(logits=LOGITS),
                            lambda: td.Categorical(logits=t(LOGITS)), np.array([2, 0]),
                            ("log_prob", "prob", "entropy", "mode")),
    "Categorical(probs)": (lambda: tfd.Categorical(probs=PROBS),
                           lambda: td.Categorical(probs=t(PROBS)), np.array([[3, 1], [0, 2]]),
                           ("log_prob", "entropy", "mode")),
    "Uniform": (lambda: tfd.Uniform(LOC - 1., LOC + SCALE),
                lambda: td.Uniform(t(LOC - 1.), t(LOC + SCALE)), np.clip(X, LOC - 0.9, LOC),
                ("log_prob", "prob", "cdf", "entropy", "mean", "stddev", "variance")),
    "Laplace": (lambda: tfd.Laplace(LOC, SCALE), lambda: td.Laplace(t(LOC), t(SCALE)), X,
                ("log_prob", "cdf", "entropy", "mean", "stddev", "variance", "mode")),
    "Exponential": (lambda: tfd.Exponential(RATE), lambda: td.Exponential(t(RATE)), POS,
                    ("log_prob", "cdf", "entropy", "mean", "stddev", "variance")),
    "Gamma": (lambda: tfd.Gamma(CONC, RATE), lambda: td.Gamma(t(CONC), t(RATE)), POS,
              ("log_prob", "prob", "entropy", "mean", "stddev", "variance")),
    "Beta": (lambda: tfd.Beta(CONC, RATE), lambda: td.Beta(t(CONC), t(RATE)), UNIT,
             ("log_prob", "entropy", "mean", "variance")),
    "Dirichlet": (lambda: tfd.Dirichlet(CONC * RATE), lambda: td.Dirichlet(t(CONC * RATE)),
                  UNIT / UNIT.sum(-1, keepdims=True), ("log_prob", "entropy", "mean",
                                                       "variance")),
    "MultivariateNormalDiag": (
        lambda: tf.contrib.distributions.MultivariateNormalDiag(LOC, SCALE * [1., 2., 0.5]),
        lambda: td.Independent(td.Normal(t(LOC), t(SCALE * [1., 2., 0.5])), 1), X,
        ("log_prob", "entropy", "mean", "stddev", "variance")),
}


def _torch_value(dist, method, points):
    with torch.no_grad():
        if method in ("log_prob", "cdf"):
            return getattr(dist, method)(t(points)).numpy()
        if method == "prob":
            return dist.log_prob(t(points)).exp().numpy()
        if method == "log_cdf":
            return dist.cdf(t(points)).log().numpy()
        if method == "survival_function":
            return 1. - dist.cdf(t(points)).numpy()
        return getattr(dist, method)().numpy() if method == "entropy" else \
            getattr(dist, method).numpy()


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_match_torch_distributions(case):
    make, make_torch, points, methods = CASES[case]
    dist, reference = make(), make_torch()
    fetches = [getattr(dist, m)(points) if m in ("log_prob", "prob", "cdf", "log_cdf",
                                                  "survival_function") else getattr(dist, m)()
               for m in methods]
    for method, got in zip(methods, run(*fetches)):
        expected = np.broadcast_to(_torch_value(reference, method, points), got.shape)
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12, err_msg=method)
        assert got.dtype == (np.int32 if method == "mode" and "Categorical" in case else F64)


def test_normal_log_prob_is_the_numpy_formula_in_float32():
    x = np.linspace(-3., 3., 7).astype(np.float32)
    (got,) = run(tfd.Normal(loc=0.5, scale=2.0).log_prob(x))
    expected = -0.5 * ((x - 0.5) / 2.) ** 2 - math.log(2.) - 0.5 * math.log(2 * math.pi)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-6)


KL_CASES = {
    "Normal": (lambda: (tfd.Normal(LOC, SCALE), tfd.Normal(X, POS)),
               lambda: (td.Normal(t(LOC), t(SCALE)), td.Normal(t(X), t(POS)))),
    "Bernoulli": (lambda: (tfd.Bernoulli(logits=LOGITS), tfd.Bernoulli(probs=PROBS)),
                  lambda: (td.Bernoulli(logits=t(LOGITS)), td.Bernoulli(probs=t(PROBS)))),
    "Categorical": (lambda: (tfd.Categorical(logits=LOGITS), tfd.Categorical(probs=PROBS)),
                    lambda: (td.Categorical(logits=t(LOGITS)), td.Categorical(probs=t(PROBS)))),
    "Gamma": (lambda: (tfd.Gamma(CONC, RATE), tfd.Gamma(POS, UNIT)),
              lambda: (td.Gamma(t(CONC), t(RATE)), td.Gamma(t(POS), t(UNIT)))),
    "Exponential-Gamma": (lambda: (tfd.Exponential(RATE), tfd.Gamma(POS, UNIT)),
                          lambda: (td.Gamma(torch.ones(1, dtype=torch.float64), t(RATE)),
                                   td.Gamma(t(POS), t(UNIT)))),
    "Beta": (lambda: (tfd.Beta(CONC, RATE), tfd.Beta(POS, UNIT)),
             lambda: (td.Beta(t(CONC), t(RATE)), td.Beta(t(POS), t(UNIT)))),
    "MultivariateNormalDiag": (
        lambda: (tf.contrib.distributions.MultivariateNormalDiag(LOC, SCALE * [1., 2., .5]),
                 tf.contrib.distributions.MultivariateNormalDiag(X, POS)),
        lambda: (td.Independent(td.Normal(t(LOC), t(SCALE * [1., 2., .5])), 1),
                 td.Independent(td.Normal(t(X), t(POS)), 1))),
}


@pytest.mark.parametrize("case", sorted(KL_CASES))
def test_kl_divergence_matches_torch(case):
    (a, b), (torch_a, torch_b) = KL_CASES[case][0](), KL_CASES[case][1]()
    got, method_got = run(tfd.kl_divergence(a, b), a.kl_divergence(b))
    expected = td.kl_divergence(torch_a, torch_b).numpy()
    np.testing.assert_allclose(got, np.broadcast_to(expected, got.shape), rtol=1e-9)
    np.testing.assert_allclose(method_got, got)


def test_cross_entropy_is_entropy_plus_kl():
    a, b = tfd.Normal(LOC, SCALE), tfd.Normal(X, POS)
    got, = run(a.cross_entropy(b))
    expected = (td.Normal(t(LOC), t(SCALE)).entropy() +
                td.kl_divergence(td.Normal(t(LOC), t(SCALE)), td.Normal(t(X), t(POS))))
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-9)
