"""test_ops' table for the sampling ops: all three are tested apart, in
tests/test_random_draws.py: the draws by their statistics and seeds, the gamma sample's
derivative in alpha (_random_gamma_grad, torch's approximation: about 3e-5 relative, past the
table's 1e-5) against the implicit derivative -(dF/dalpha) / (dF/dx) of the law's CDF F."""
import torch


def implicit_derivative(alpha, sample, step=1e-6):
    """dx/dalpha of x ~ Gamma(alpha, 1) at F(x; alpha) fixed, alpha broadcast to x."""
    alpha = alpha.expand(sample.shape)
    cdf = torch.special.gammainc
    d_alpha = (cdf(alpha + step, sample) - cdf(alpha - step, sample)) / (2 * step)
    d_x = (cdf(alpha, sample + step) - cdf(alpha, sample - step)) / (2 * step)
    return -d_alpha / d_x


def add_cases(add):
    """No case in the table (see above)."""


SPECIAL_TESTS = {
    "random_gamma": ["test_random_draws.py::test_gamma_moments",
                     "test_random_draws.py::test_gamma_gradient_is_the_implicit_derivative"],
    "random_poisson": ["test_random_draws.py::test_poisson_moments"],
    "_random_gamma_grad": [
        "test_random_draws.py::test_gamma_grad_op_is_the_implicit_derivative"],
}
