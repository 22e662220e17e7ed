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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_log_cdf_is_finite_far_in_the_tails(dtype):
    z = np.array([-60., -30., -19., -12., -9., -3., 0., 2., 4.5, 6., 9., 30.], dtype)
    normal = tfd.Normal(np.array(0., dtype), np.array(1., dtype))
    value = tf.placeholder(dtype, [12])
    log_cdf, log_survival = normal.log_cdf(value), normal.log_survival_function(value)
    grads = tf.gradients(tf.reduce_sum(log_cdf) + tf.reduce_sum(log_survival), value)
    got = run(log_cdf, log_survival, grads[0], feed_dict={value: z})
    reference = t(z).requires_grad_()
    expected = [torch.special.log_ndtr(reference), torch.special.log_ndtr(-reference)]
    (expected[0].sum() + expected[1].sum()).backward()
    for value, wanted in zip(got, [*expected, reference.grad]):
        assert np.isfinite(value).all()
        np.testing.assert_allclose(value, wanted.detach().numpy(), rtol=2e-5, atol=1e-7)


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
    "Dirichlet": (lambda: (tfd.Dirichlet(CONC * RATE), tfd.Dirichlet(POS)),
                  lambda: (td.Dirichlet(t(CONC * RATE)), td.Dirichlet(t(POS)))),
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


# -- TF 1.15's facts (printed by real TF's tf.compat.v1.distributions, graph mode) -------------
def test_shapes_dtypes_and_reparameterization_are_tfs():
    normal = tfd.Normal(loc=[0., 1.], scale=[[1.], [2.], [3.]])
    assert normal.batch_shape.as_list() == [3, 2] and normal.event_shape.as_list() == []
    assert normal.sample([4, 5], seed=1).shape.as_list() == [4, 5, 3, 2]
    assert normal.name == "Normal/"  # real TF: the scope made
    assert normal.reparameterization_type is tfd.FULLY_REPARAMETERIZED
    assert repr(tfd.FULLY_REPARAMETERIZED) == "<Reparameterization Type: FULLY_REPARAMETERIZED>"
    assert sorted(normal.parameters) == ["allow_nan_stats", "loc", "name", "scale",
                                         "validate_args"]
    bernoulli = tfd.Bernoulli(logits=[0.5, -1.])
    assert bernoulli.dtype == tf.int32 and bernoulli.sample(3).dtype == tf.int32
    assert bernoulli.sample(3).shape.as_list() == [3, 2]
    assert bernoulli.reparameterization_type is tfd.NOT_REPARAMETERIZED
    categorical = tfd.Categorical(logits=np.zeros((2, 3), np.float32))
    assert categorical.batch_shape.as_list() == [2] and categorical.event_shape.as_list() == []
    assert categorical.sample(4).shape.as_list() == [4, 2]
    assert categorical.sample(4).dtype == tf.int32 and categorical.mode().dtype == tf.int32
    dirichlet = tfd.Dirichlet([[1., 2., 3.]])
    assert dirichlet.batch_shape.as_list() == [1] and dirichlet.event_shape.as_list() == [3]
    for family in (tfd.Exponential([1.]), tfd.Gamma(1., 2.), tfd.Laplace(0., 1.),
                   tfd.Uniform(), tfd.Dirichlet([1., 2.]), tfd.Beta(1., 2.)):
        assert family.reparameterization_type is tfd.FULLY_REPARAMETERIZED
    mvn = tf.contrib.distributions.MultivariateNormalDiag([[0., 1., 2.]], [1., 2., 3.])
    assert mvn.batch_shape.as_list() == [1] and mvn.event_shape.as_list() == [3]
    assert mvn.sample([4]).shape.as_list() == [4, 1, 3]


def test_values_at_edges_are_tfs():
    uniform = tfd.Uniform(low=[0.], high=[2.])
    gamma = tfd.Gamma(concentration=[0.5, 2.], rate=[1., 2.])
    got = run(uniform.prob([[0.], [2.], [1.], [-1.], [np.nan]]),
              uniform.cdf([[0.], [2.], [1.], [-1.]]),
              tfd.Categorical(probs=[0.2, 0.3, 0.5]).cdf([-1, 0, 1, 2, 3]),
              tfd.Bernoulli(probs=[0.5, 0.6, 0.4]).mode(),
              gamma.mode(), tfd.Exponential(rate=[1., 2.]).mode(),
              tfd.Beta([0.5, 2.], [3., 0.7]).mode(),
              tfd.Bernoulli(probs=0.3).log_prob([0., 1., 0.5]),
              tfd.Exponential(rate=[1., 2.]).log_prob([-1., 0.]),
              tfd.Laplace(0., [1., 2.]).cdf([1., -1.]),
              tfd.Dirichlet([[1., 2., 3.]]).log_prob([0.2, 0.3, 0.5]),
              tfd.Categorical(logits=[[0., 1.], [1., 0.]]).log_prob([[0], [1], [1]]))
    # the numbers real TF printed for the same calls
    np.testing.assert_allclose(got[0].ravel(), [0.5, 0., 0.5, 0., np.nan])
    np.testing.assert_allclose(got[1].ravel(), [0., 1., 0.5, 0.])
    np.testing.assert_allclose(got[2], [0., 0., 0.2, 0.5, 1.], atol=1e-7)  # P(X < k), TF's
    np.testing.assert_array_equal(got[3], [0, 1, 0])
    np.testing.assert_allclose(got[4], [np.nan, 0.5])
    assert np.isnan(got[5]).all() and np.isnan(got[6]).all()  # TF 1.15: NaN where c <= 1
    np.testing.assert_allclose(got[7], [-0.35667494, -1.2039728, -0.78032386], rtol=1e-6)
    np.testing.assert_allclose(got[8], [1., 0.6931472], rtol=1e-6)
    np.testing.assert_allclose(got[9], [0.8160603, 0.30326533], rtol=1e-6)
    np.testing.assert_allclose(got[10], [1.5040774], rtol=1e-6)
    assert got[11].shape == (3, 2)


def test_dirichlet_mode_is_nan_where_a_concentration_is_at_most_one():
    concentration = np.array([[1.5, 2., 3.], [0.5, 2., 3.]])
    (got,) = run(tfd.Dirichlet(concentration).mode())
    np.testing.assert_allclose(got[0], (concentration[0] - 1) / (concentration[0].sum() - 3))
    assert np.isnan(got[1]).all()  # TF 1.15's: NaN (allow_nan_stats) where any c <= 1


def test_errors_are_tfs():
    with pytest.raises(ValueError, match="Must pass probs or logits, but not both"):
        tfd.Bernoulli(logits=1., probs=.5)
    with pytest.raises(ValueError, match="Must pass probs or logits, but not both"):
        tfd.Categorical()
    with pytest.raises(NotImplementedError, match="No KL.*type Normal and distribution_b "
                                                  "type Bernoulli"):
        tfd.kl_divergence(tfd.Normal(0., 1.), tfd.Bernoulli(probs=.5))
    for method in ("mean", "variance", "stddev"):  # real TF: not implemented for Categorical
        with pytest.raises(NotImplementedError, match=f"{method} is not implemented: "
                                                      f"Categorical"):
            getattr(tfd.Categorical(logits=[0., 1.]), method)()
    with pytest.raises(NotImplementedError, match="cdf is not implemented: Bernoulli"):
        tfd.Bernoulli(probs=.5).cdf(0)
    with pytest.raises(NotImplementedError, match="mode is not implemented: Uniform"):
        tfd.Uniform().mode()
    with pytest.raises(TypeError, match="dtype float64, expected float32"):
        tfd.Normal(tf.constant(0.), tf.constant(1., tf.float64))


def test_nan_statistics_with_allow_nan_stats_false_fail_at_run_time():
    ok = tfd.Gamma([2., 3.], 1., allow_nan_stats=False).mode()
    bad = tfd.Gamma([0.5, 2.], 1., allow_nan_stats=False).mode()
    np.testing.assert_allclose(run(ok)[0], [1., 2.])
    with pytest.raises(tf.errors.InvalidArgumentError, match="mode not defined"):
        run(bad)


def test_kl_divergence_without_nan_stats_checks_for_nan_at_run_time():
    scale = tf.placeholder(tf.float32, [])
    kl = tfd.kl_divergence(tfd.Normal(0., 1.), tfd.Normal(0., scale), allow_nan_stats=False)
    np.testing.assert_allclose(run(kl, feed_dict={scale: 1.})[0], 0.)
    with pytest.raises(tf.errors.InvalidArgumentError, match="KL calculation between Normal"):
        run(kl, feed_dict={scale: np.nan})


def test_validate_args_checks_scale_at_run_time():
    scale = tf.placeholder(tf.float32, [2])
    log_prob = tfd.Normal(0., scale, validate_args=True).log_prob(0.)
    np.testing.assert_allclose(run(log_prob, feed_dict={scale: [1., 2.]})[0],
                               [-0.9189385, -1.6120857], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="x > 0"):
        run(log_prob, feed_dict={scale: [1., -2.]})


def test_what_tinyflow_lacks_says_so():
    gamma = tfd.Gamma(2., 1.)
    with pytest.raises(NotImplementedError, match="igamma"):
        gamma.cdf(1.)
    with pytest.raises(NotImplementedError, match="betainc"):
        tfd.Beta(2., 3.).cdf(.5)
    with pytest.raises(AttributeError, match="tf.distributions.StudentT is not supported"):
        tfd.StudentT  # noqa: B018
    with pytest.raises(AttributeError, match="tf.contrib.distributions.Multinomial is not"):
        tf.contrib.distributions.Multinomial  # noqa: B018
    with pytest.raises(TypeError, match="sample_shape"):
        tfd.Normal(0., 1.).sample(tf.constant([3]))


def test_contrib_distributions_are_the_core_families():
    contrib = tf.contrib.distributions
    for name in tfd.__all__:
        assert getattr(contrib, name) is getattr(tfd, name)
    assert tf.compat.v1.distributions.Normal is tfd.Normal


def test_register_kl_adds_a_pair_and_refuses_a_second():
    class Shifted(tfd.Normal):
        pass

    # a subclass finds its parent's function along the MRO, as TF's lookup
    (got,) = run(tfd.kl_divergence(Shifted(0., 1.), tfd.Normal(1., 1.)))
    np.testing.assert_allclose(got, 0.5)

    @tfd.RegisterKL(Shifted, Shifted)
    def _kl(a, b, name=None):
        return tf.constant(7.)

    assert run(tfd.kl_divergence(Shifted(0., 1.), Shifted(1., 1.)))[0] == 7.
    with pytest.raises(ValueError, match="already been registered"):
        tfd.RegisterKL(Shifted, Shifted)(_kl)


# -- samples -------------------------------------------------------------------------------------
N = 20000
SAMPLE_CASES = {  # name: (distribution, its mean, its variance)
    "Normal": (lambda: tfd.Normal([1., -2.], [0.5, 3.]), [1., -2.], [0.25, 9.]),
    "Bernoulli": (lambda: tfd.Bernoulli(probs=[0.2, 0.7]), [0.2, 0.7], [0.16, 0.21]),
    "Bernoulli(logits)": (lambda: tfd.Bernoulli(logits=[math.log(0.25)]), [0.2], [0.16]),
    "Uniform": (lambda: tfd.Uniform([-1., 0.], [3., 0.5]), [1., 0.25], [16 / 12, 0.25 / 12]),
    "Laplace": (lambda: tfd.Laplace([1., 0.], [2., 0.5]), [1., 0.], [8., 0.5]),
    "Exponential": (lambda: tfd.Exponential([2., 0.5]), [0.5, 2.], [0.25, 4.]),
    "MultivariateNormalDiag": (
        lambda: tf.contrib.distributions.MultivariateNormalDiag([1., -2.], [0.5, 3.]),
        [1., -2.], [0.25, 9.]),
}


@pytest.mark.parametrize("case", sorted(SAMPLE_CASES))
def test_sample_moments(case):
    make, mean, variance = SAMPLE_CASES[case]
    dist = make()
    samples = dist.sample(N, seed=7)
    got, got_mean, got_variance = run(samples, dist.mean(), dist.variance())
    mean, variance = np.array(mean), np.array(variance)
    assert got.shape == (N, len(mean))
    np.testing.assert_allclose(got_mean, mean, rtol=1e-6)
    np.testing.assert_allclose(got_variance, variance, rtol=1e-6)
    assert (np.abs(got.mean(0) - mean) < 5 * np.sqrt(variance / N)).all()
    # the variance's standard error is below sqrt(kurtosis 9 / N) of it here (Laplace's is 6)
    assert (np.abs(got.var(0) - variance) < 5 * variance * np.sqrt(9 / N)).all()


def _beta_moments(a, b):
    """Mean, variance and fourth central moment of Beta(a, b), from its raw moments
    E[X^k] = prod_{r < k} (a + r) / (a + b + r)."""
    raw = [np.prod([(a + r) / (a + b + r) for r in range(k)], axis=0) for k in range(5)]
    mean = raw[1]
    fourth = raw[4] - 4 * mean * raw[3] + 6 * mean ** 2 * raw[2] - 3 * mean ** 4
    return mean, raw[2] - mean ** 2, fourth


def _within_standard_errors(samples, mean, variance, fourth, z=5.0):
    """Sample mean and variance within z standard errors: variance / n and (mu4 - var^2) / n."""
    n = samples.shape[0]
    assert (np.abs(samples.mean(0) - mean) < z * np.sqrt(variance / n)).all()
    assert (np.abs(samples.var(0) - variance) < z * np.sqrt((fourth - variance ** 2) / n)).all()


def test_gamma_beta_dirichlet_sample_moments():
    # Gamma(c, rate r): mean c / r, variance c / r^2, mu4 3c(c + 2) / r^4; Beta(a, b) above;
    # a Dirichlet's marginal i is Beta(c_i, total - c_i)
    c, r = np.array([0.4, 1.5, 4.0]), np.array([2.0, 1.0, 0.5])
    a, b = np.array([2.0, 0.5, 5.0]), np.array([3.0, 0.5, 1.0])
    alpha = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])
    gamma, beta = tfd.Gamma(c, r), tfd.Beta(a, b)
    dirichlet = tfd.Dirichlet(alpha)
    assert dirichlet.sample([3, 4]).shape.as_list() == [3, 4, 2, 3]
    g, x, d = run(gamma.sample(N, seed=1), beta.sample(N, seed=2), dirichlet.sample(N, seed=3))
    assert g.shape == (N, 3) and x.shape == (N, 3) and d.shape == (N, 2, 3)
    _within_standard_errors(g, c / r, c / r ** 2, 3 * c * (c + 2) / r ** 4)
    assert x.min() >= 0 and x.max() <= 1
    _within_standard_errors(x, *_beta_moments(a, b))
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-5)
    total = alpha.sum(-1, keepdims=True)
    for row in range(2):
        _within_standard_errors(d[:, row], *_beta_moments(alpha[row], total[row] - alpha[row]))


def test_gamma_samples_are_reparameterized():
    # d E[x] / d concentration = 1 / rate, d E[x] / d rate = -c / rate^2: the sample's own
    # gradients (TF's RandomGamma gradient and x / rate), averaged over many draws
    c, r = tf.constant([1.5, 3.0]), tf.constant([2.0, 0.5])
    mean = tf.reduce_mean(tfd.Gamma(c, r).sample(N, seed=4), 0)
    grad_c = tf.gradients(mean[0] + mean[1], [c, r])
    got_c, got_r = run(*grad_c)
    # standard errors of the averaged per-sample derivatives stay below 3 % here
    np.testing.assert_allclose(got_c, [0.5, 2.0], rtol=0.05)
    np.testing.assert_allclose(got_r, [-1.5 / 4, -3.0 / 0.25], rtol=0.05)


def test_seeded_gamma_family_samples_repeat():
    samples = [tfd.Gamma(2., 1.).sample(4, seed=5), tfd.Beta(2., 3.).sample(4, seed=5),
               tfd.Dirichlet([1., 2.]).sample(4, seed=5)]
    first, second = run(*samples), run(*samples)  # new sessions: the same draws
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


def test_categorical_sample_frequencies_and_supports():
    probs = np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]])
    categorical = tfd.Categorical(probs=probs)
    draws, uniform, exponential = run(categorical.sample([N // 100, 100], seed=3),
                                      tfd.Uniform(-1., 3.).sample(N, seed=4),
                                      tfd.Exponential(5.).sample(N, seed=5))
    assert draws.shape == (N // 100, 100, 2) and draws.dtype == np.int32
    for row in range(2):
        frequencies = np.bincount(draws[..., row].ravel(), minlength=4) / N
        se = np.sqrt(probs[row] * (1 - probs[row]) / N)
        assert (np.abs(frequencies - probs[row]) < 5 * se).all()
    assert uniform.min() >= -1. and uniform.max() < 3. and exponential.min() > 0.


def test_seeded_samples_repeat_from_session_to_session():
    tf.set_random_seed(11)
    normal = tfd.Normal([0., 1.], 2.)
    draw, seeded = normal.sample(5), tfd.Categorical(logits=[0., 1., 2.]).sample(6, seed=2)
    with tf.Session() as sess:
        first = sess.run([draw, seeded])
        second = sess.run([draw, seeded])
    with tf.Session() as sess:
        again = sess.run([draw, seeded])
    for a, b, c in zip(first, second, again):
        np.testing.assert_array_equal(a, c)  # a new session repeats the stream
        assert not np.array_equal(a, b) or a.dtype == np.int32  # the next run draws anew
    assert not np.array_equal(first[0], second[0])


def test_batch_shape_known_at_run_time():
    loc = tf.placeholder(tf.float32, [None, 2])
    normal = tfd.Normal(loc, 1.)
    bernoulli = tfd.Bernoulli(logits=loc)
    categorical = tfd.Categorical(logits=loc)
    assert normal.batch_shape.as_list() == [None, 2]
    samples = [normal.sample([3, 4], seed=1), bernoulli.sample(3, seed=2),
               categorical.sample(5, seed=3)]
    assert samples[0].shape.as_list() == [3, 4, None, 2]
    feed = {loc: np.zeros((6, 2), np.float32)}
    got = run(*samples, normal.batch_shape_tensor(), categorical.batch_shape_tensor(),
              feed_dict=feed)
    assert [g.shape for g in got[:3]] == [(3, 4, 6, 2), (3, 6, 2), (5, 6)]
    np.testing.assert_array_equal(got[3], [6, 2])
    np.testing.assert_array_equal(got[4], [6])


# -- gradients -------------------------------------------------------------------------------------
def _finite_differences(value_at, point, eps=1e-6):
    grad = np.zeros_like(point)
    for index in np.ndindex(point.shape):
        step = np.zeros_like(point)
        step[index] = eps
        grad[index] = (value_at(point + step) - value_at(point - step)) / (2 * eps)
    return grad


@pytest.mark.parametrize("family", ["Normal", "Laplace", "Uniform", "Exponential", "MVNDiag"])
def test_reparameterized_sample_gradients_match_finite_differences(family):
    first, second = (tf.placeholder(tf.float64, [3]) for _ in range(2))
    dist = {"Normal": lambda: tfd.Normal(first, second),
            "Laplace": lambda: tfd.Laplace(first, second),
            "Uniform": lambda: tfd.Uniform(first, first + second),
            "Exponential": lambda: tfd.Exponential(second * first),
            "MVNDiag": lambda: tf.contrib.distributions.MultivariateNormalDiag(first, second),
            }[family]()
    objective = tf.reduce_sum(tf.sin(dist.sample(4, seed=9)))
    grads = tf.gradients(objective, [first, second])
    point = (np.array([0.3, -0.5, 1.2]), np.array([0.8, 1.5, 0.6]))

    def value_at(a, b):
        with tf.Session() as sess:  # a new session repeats the seeded noise
            return sess.run(objective, {first: a, second: b})

    with tf.Session() as sess:
        got = sess.run(grads, {first: point[0], second: point[1]})
    np.testing.assert_allclose(got[0], _finite_differences(lambda a: value_at(a, point[1]),
                                                           point[0]), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(got[1], _finite_differences(lambda b: value_at(point[0], b),
                                                           point[1]), rtol=1e-5, atol=1e-8)


GRAD_CASES = {  # name: (tinyflow family, torch family, parameters, points)
    "Normal": (tfd.Normal, td.Normal, (LOC[0], SCALE[1] + [0., .5, 1.]), X),
    "Bernoulli": (lambda p: tfd.Bernoulli(logits=p), lambda p: td.Bernoulli(logits=p),
                  (LOGITS[0],), (LOGITS > 0.2).astype(F64)),
    "Categorical": (lambda p: tfd.Categorical(logits=p), lambda p: td.Categorical(logits=p),
                    (LOGITS,), np.array([[2, 0], [1, 3]])),
    "Laplace": (tfd.Laplace, td.Laplace, (LOC[0], POS[0]), X),
    "Gamma": (tfd.Gamma, td.Gamma, (CONC[0], POS[1]), POS),
    "Beta": (tfd.Beta, td.Beta, (CONC[0], POS[0]), UNIT),
    "Dirichlet": (tfd.Dirichlet, td.Dirichlet, (CONC[0] + POS,),
                  UNIT / UNIT.sum(-1, keepdims=True)),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_log_prob_and_entropy_gradients_match_torch_autograd(case):
    make, make_torch, parameters, points = GRAD_CASES[case]
    holders = [tf.placeholder(tf.float64, p.shape) for p in parameters]
    dist = make(*holders)
    log_prob = dist.log_prob(points)
    shape = log_prob.shape.as_list()
    weights = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
    objective = tf.reduce_sum(log_prob * tf.constant(weights)) + tf.reduce_sum(dist.entropy())
    got = run(*tf.gradients(objective, holders), feed_dict=dict(zip(holders, parameters)))
    leaves = [t(p).requires_grad_() for p in parameters]
    reference = make_torch(*leaves)
    torch_log_prob = reference.log_prob(torch.tensor(points))
    ((torch_log_prob * t(weights)).sum() + reference.entropy().sum()).backward()
    for value, leaf in zip(got, leaves):
        np.testing.assert_allclose(value, leaf.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_gamma_log_prob_gradient_matches_finite_differences():
    concentration = tf.placeholder(tf.float64, [3])
    log_prob = tf.reduce_sum(tfd.Gamma(concentration, 1.5).log_prob(POS))
    (got,) = run(tf.gradients(log_prob, concentration)[0],
                 feed_dict={concentration: CONC[0]})

    def value_at(c):
        return run(log_prob, feed_dict={concentration: c})[0]

    np.testing.assert_allclose(got, _finite_differences(value_at, CONC[0]), rtol=1e-6)


def test_policy_gradient_flows_through_log_prob_not_the_integer_sample():
    logits = tf.Variable([[0.1, 0.5, -0.3], [1.0, -1.0, 0.0]])
    policy = tfd.Categorical(logits=logits)
    action = policy.sample(seed=1)
    reward = tf.constant([2.0, -0.5])
    loss = -tf.reduce_sum(policy.log_prob(action) * reward)
    (grad,) = tf.gradients(loss, logits)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_action, got_grad, got_logits = sess.run([action, grad, logits])
    probs = np.exp(got_logits) / np.exp(got_logits).sum(-1, keepdims=True)
    one_hot = np.eye(3)[got_action]
    # d(-r log softmax(l)[a]) / dl = r (softmax(l) - onehot(a)), by hand
    np.testing.assert_allclose(got_grad, [[2.0], [-0.5]] * (probs - one_hot), rtol=1e-5)
