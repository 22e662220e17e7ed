"""tf.math's special functions against the numbers real TensorFlow gives: values in float32 and
float64, TF's gradients, the names tf.* and tf.math.special hold; betainc against scipy where
the test environment has it; igamma's gradient in a against finite differences."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.nnvm import Op

pytestmark = pytest.mark.usefixtures("fresh_graph")

A = [0.5, 1.0, 2.5, 4.0, 0.1]
X = [0.3, 1.0, 2.0, 6.0, 0.05]
P = [0.01, 0.2, 0.5, 0.8, 0.99]
B = [2.0, 0.5, 3.0, 1.5, 0.2]
ORDERS = [0., 1., 2., 3., 1.]
S = [1.5, 2., 3., 4.5, 10.]
E = [-0.99, -0.5, 0., 0.3, 0.9]
Z = [-3., -0.5, 0., 1.5, 10.]
L = [[0.5, 1.5, 2.], [3., 0.2, 1.]]
C = [[1., 2., -3.], [100., 101., 0.]]
W = [[1., -2., .5], [3., 1., -1.]]

# printed by tensorflow-cpu 2.21's tf.compat.v1.math (graph mode) for these inputs, rounded to 9
# decimals; <name>32 in float32, <name>64 in float64
TF_VALUES = {
    "igamma32": [0.56142199, 0.63212049, 0.450584084, 0.848796129, 0.775538623],
    "igammac32": [0.43857801, 0.36787945, 0.549415946, 0.151203901, 0.224461377],
    "betainc32": [0.149499997, 0.105572805, 0.591097116, 0.59571898, 0.863450587],
    "polygamma32": [-3.502523899, 1.644934058, -0.404113829, 0.011827829, 401.532348633],
    "zeta32": [8.237762451, 1.644934058, 0.202056915, 0.000716889, 10239998951424.0],
    "erfinv32": [-1.821386456, -0.476936311, 0.0, 0.272462666, 1.16308713],
    "ndtri32": [-2.326347828, -0.84162122, 0.0, 0.84162122, 2.326348305],
    "bessel_i032": [4.880793095, 1.063483477, 1.0, 1.64672327, 2815.716552734],
    "bessel_i0e32": [0.243000388, 0.645035386, 1.0, 0.367433637, 0.127833337],
    "bessel_i132": [-3.953371048, -0.257894337, 0.0, 0.981666386, 2670.98828125],
    "bessel_i1e32": [-0.196826756, -0.156420827, 0.0, 0.219039381, 0.121262684],
    "lbeta32": [-1.340176821, 0.168655634],
    "cumulative_logsumexp32": [[1.0, 2.313261747, 2.318175554], [100.0, 101.313262939, 101.313262939]],
    "igamma64": [0.561421974, 0.632120559, 0.450584049, 0.848796117, 0.775538635],
    "igammac64": [0.438578026, 0.367879441, 0.549415951, 0.151203883, 0.224461365],
    "betainc64": [0.1495, 0.105572809, 0.591097075, 0.59571891, 0.863450476],
    "polygamma64": [-3.502524222, 1.644934067, -0.404113806, 0.011827828, 401.532357342],
    "zeta64": [8.237761671, 1.644934067, 0.202056903, 0.000716889, 10240000000000.607],
    "erfinv64": [-1.821386368, -0.476936276, 0.0, 0.272462715, 1.163087154],
    "ndtri64": [-2.326347874, -0.841621234, 0.0, 0.841621234, 2.326347874],
    "bessel_i064": [4.880792586, 1.063483371, 1.0, 1.64672319, 2815.716628466],
    "bessel_i0e64": [0.243000354, 0.64503527, 1.0, 0.367433609, 0.127833337],
    "bessel_i164": [-3.953370217, -0.257894305, 0.0, 0.981666429, 2670.988303701],
    "bessel_i1e64": [-0.196826713, -0.156420803, 0.0, 0.219039387, 0.121262681],
    "lbeta64": [-1.340176764, 0.168655366],
    "cumulative_logsumexp64": [[1.0, 2.313261688, 2.318175429], [100.0, 101.313261688, 101.313261688]],
}
# TF's gradients (tf.gradients of the sum, float64; cle_grad_<exclusive>_<reverse> of
# sum(cumulative_logsumexp(C, axis=1, ...) * W), cle_<exclusive>_<reverse> its values)
TF_GRADIENTS = {
    "igamma_grad": [[-0.770570351, -0.431729711, -0.274551322, -0.113161855, -2.026422662], [0.763090579, 0.367879441, 0.287951821, 0.089235078, 1.482079834]],
    "igammac_grad": [[0.770570351, 0.431729711, 0.274551322, 0.113161855, 2.026422662], [-0.763090579, -0.367879441, -0.287951821, -0.089235078, -1.482079834]],
    "betainc_grad_x": [7.425, 0.559016994, 1.740145594, 2.253956521, 2.751656164],
    "polygamma_grad_x": [12.245364546, -2.404113806, 0.493939402, -0.006383191, -16002.108158022],
    "zeta_grad_q": [-31.603858803, -2.404113806, -0.246969701, -0.000450794, -2048000000000004.8],
    "erfinv_grad": [[24.450876474, 1.112584819, 0.886226925, 0.954520359, 3.428042811]],
    "ndtri_grad": [[37.520436157, 3.571914347, 2.506628275, 3.571914347, 37.520436157]],
    "bessel_i0_grad": [[-3.953370217, -0.257894305, 0.0, 0.981666429, 2670.988303701]],
    "bessel_i0e_grad": [[0.046173641, 0.488614467, 0.0, -0.148394222, -0.006570656]],
    "bessel_i1_grad": [[3.563002513, 0.54769476, 1.0, 0.992278904, 2548.617798096]],
    "bessel_i1e_grad": [[-0.019435264, 0.175772861, 0.5, 0.002367963, -0.005555612]],
    "lbeta_grad": [[[-3.219627694, -1.219627694, -0.833333333], [-0.388554556, -6.600378788, -1.888554556]]],
    "cle_grad_False_False": [[[0.595928734, -1.098379579, 0.002450845], [3.0, 0.0, -0.0]]],
    "cle_False_False": [[1.0, 2.313261688, 2.318175429], [100.0, 101.313261688, 101.313261688]],
    "cle_grad_False_True": [[[0.267623154, -1.259139141, 0.491515987], [0.806824264, 3.193175736, -1.0]]],
    "cle_False_True": [[2.318175429, 2.006715348, -3.0], [101.313261688, 101.0, 0.0]],
    "cle_grad_True_False": [[[-1.865529289, 0.365529289, 0.0], [0.731058579, -0.731058579, 0.0]]],
    "cle_True_False": [[-np.inf, 1.0, 2.313261688], [-np.inf, 100.0, 101.313261688]],
    "cle_grad_True_True": [[[0.0, 0.993307149, -1.993307149], [0.0, 3.0, 1.0]]],
    "cle_True_True": [[2.006715348, -3.0, -np.inf], [101.0, 0.0, -np.inf]],
}

M = tf.math
FUNCTIONS = {  # name -> (function, its inputs)
    "igamma": (M.igamma, [A, X]), "igammac": (M.igammac, [A, X]),
    "betainc": (M.betainc, [A, B, P]), "polygamma": (M.polygamma, [ORDERS, X]),
    "zeta": (M.zeta, [S, X]), "erfinv": (M.erfinv, [E]), "ndtri": (M.ndtri, [P]),
    "bessel_i0": (M.bessel_i0, [Z]), "bessel_i0e": (M.bessel_i0e, [Z]),
    "bessel_i1": (M.bessel_i1, [Z]), "bessel_i1e": (M.bessel_i1e, [Z]), "lbeta": (M.lbeta, [L]),
    "cumulative_logsumexp": (lambda c: M.cumulative_logsumexp(c, axis=1), [C]),
}


@pytest.mark.parametrize("dtype", ["32", "64"])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_values_match_tensorflow(name, dtype, plan_memory):
    function, inputs = FUNCTIONS[name]
    np_dtype = np.float32 if dtype == "32" else np.float64
    xs = [tf.placeholder(np_dtype, np.shape(v)) for v in inputs]
    out = function(*xs)
    assert out.dtype == np_dtype
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run(out, {x: np.asarray(v, np_dtype) for x, v in zip(xs, inputs)})
    rtol = 2e-6 if dtype == "32" else 1e-8
    np.testing.assert_allclose(got, TF_VALUES[name + dtype], rtol=rtol, atol=1e-9)


GRADIENTS = {  # TF_GRADIENTS' key -> (function, inputs, the inputs TF differentiates)
    "igamma_grad": (M.igamma, [A, X], [0, 1]), "igammac_grad": (M.igammac, [A, X], [0, 1]),
    "betainc_grad_x": (M.betainc, [A, B, P], [2]),
    "polygamma_grad_x": (M.polygamma, [ORDERS, X], [1]), "zeta_grad_q": (M.zeta, [S, X], [1]),
    "erfinv_grad": (M.erfinv, [E], [0]), "ndtri_grad": (M.ndtri, [P], [0]),
    "bessel_i0_grad": (M.bessel_i0, [Z], [0]), "bessel_i0e_grad": (M.bessel_i0e, [Z], [0]),
    "bessel_i1e_grad": (M.bessel_i1e, [Z], [0]), "lbeta_grad": (M.lbeta, [L], [0]),
    **{f"cle_grad_{e}_{r}": (lambda c, e=e, r=r: M.cumulative_logsumexp(
        c, axis=1, exclusive=e, reverse=r) * np.array(W), [C], [0])
       for e in (False, True) for r in (False, True)},
}


@pytest.mark.parametrize("key", sorted(GRADIENTS))
def test_gradients_match_tensorflow(key, plan_memory):
    function, inputs, differentiated = GRADIENTS[key]
    xs = [tf.constant(np.asarray(v, np.float64)) for v in inputs]
    grads = tf.gradients(function(*xs), xs)
    assert [i for i, g in enumerate(grads) if g is not None] == differentiated  # None as TF's
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run([grads[i] for i in differentiated])
    # igamma's derivative in a is a 5-point difference here (TF's IgammaGradA is a series)
    np.testing.assert_allclose(np.ravel(got), np.ravel(TF_GRADIENTS[key]), rtol=1e-7,
                               atol=1e-9)


def test_bessel_i1_gradient_at_zero_is_one_half():
    # d I1 / dx = I0(x) - I1(x) / x elsewhere (TF's numbers); at 0 it is 1/2, which TF 1.15's
    # exp(|x|) * bessel_i1e(x) gives (tensorflow 2.21's BesselI1 gradient says 1.0 there)
    z = tf.constant(np.asarray(Z, np.float64))
    got = tf.Session().run(tf.gradients(M.bessel_i1(z), z)[0])
    expected = np.array(TF_GRADIENTS["bessel_i1_grad"][0])
    expected[2] = 0.5
    np.testing.assert_allclose(got, expected, rtol=1e-7)


def test_gradients_against_finite_differences():
    # igamma's in a and x (a away from 0, where the difference's steps shrink)
    check_gradients(lambda a, x: M.igamma(a, x),
                    inputs=[np.array([[0.7, 1.5, 3.0]]), np.array([[0.4, 2.0, 2.5]])])
    check_gradients(lambda a, x: M.igammac(a, x),
                    inputs=[np.array([0.7, 1.5, 3.0]), np.array([0.4, 2.0, 2.5])])
    check_gradients(lambda x: M.lbeta(x), inputs=[np.array([[0.5, 1.5, 2.], [3., 0.7, 1.]])])
    check_gradients(lambda a, b, x: M.betainc(a, b, x), wrt=(2,),
                    inputs=[np.array([0.6, 2.0]), np.array([1.5, 0.8]), np.array([0.3, 0.7])])


def test_edges_as_tensorflow():
    # printed by tensorflow-cpu 2.21 (float64): NaN outside each domain, the ends exact
    def f64(values):
        return tf.constant(np.asarray(values, np.float64), tf.float64)
    sess = tf.Session()
    got = sess.run([
        M.igamma(f64([0., -1., 2., 3.]), f64([1., 1., -1., 0.])),
        M.betainc(f64([0., -1., 2., 3., 5.]), f64([1., 1., 2., 4., 1e4]),
                  f64([.5, .5, 1.5, 0., 1e-4])),
        M.polygamma(f64([1.5, -1., 3.]), f64([2., 2., -1.5])),
        M.zeta(f64([.5, 1., 2., 4.5]), f64([2., 2., -1., -1.5])),
        M.erfinv(f64([1., -1., 1.5])), M.ndtri(f64([0., 1., 1.5])),
        M.lbeta(f64(np.zeros([2, 0])))])
    expected = [[np.nan, np.nan, np.nan, 0.], [np.nan, np.nan, np.nan, 0., 0.0036636804],
                [np.nan, np.nan, 194.5942762192], [np.nan, np.inf, np.inf, np.nan],
                [np.inf, -np.inf, np.nan], [-np.inf, np.inf, np.nan], [-np.inf, -np.inf]]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-7)  # TF's numbers rounded to 10 places


def test_betainc_against_scipy():
    special = pytest.importorskip("scipy.special")
    rng = np.random.default_rng(0)
    a = np.exp(rng.uniform(np.log(0.05), np.log(2e3), 400))
    b = np.exp(rng.uniform(np.log(0.05), np.log(2e3), 400))
    x = rng.uniform(0, 1, 400)
    ta, tb, tx = (tf.constant(v, tf.float64) for v in (a, b, x))
    got = tf.Session().run(M.betainc(ta, tb, tx))
    np.testing.assert_allclose(got, special.betainc(a, b, x), rtol=1e-9, atol=1e-13)
    got = tf.Session().run(M.igamma(ta, tx * ta * 2))
    # torch.special.gammainc's kernel: within 1e-8 of scipy's
    np.testing.assert_allclose(got, special.gammainc(a, x * a * 2), rtol=1e-8, atol=1e-13)


def test_names_as_tensorflow():
    # tf.compat.v1 (tensorflow 2.21) has these six at the top level and not the rest;
    # tf.math.special holds the Bessel functions
    for name in ("lbeta", "igamma", "igammac", "betainc", "polygamma", "zeta"):
        assert getattr(tf, name) is getattr(tf.math, name)
    for name in ("erfinv", "ndtri", "bessel_i0", "cumulative_logsumexp"):
        assert name in tf.math.__all__ and name not in tf.__all__
    for name in ("bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"):
        assert getattr(tf.math.special, name) is getattr(tf.math, name)
    with pytest.raises(AttributeError, match="tf.math.special.dawsn is not supported"):
        tf.math.special.dawsn  # noqa: B018
    x = tf.placeholder(tf.float32, [3])
    assert M.igamma(0.5, x).dtype == tf.float32 and M.igamma(x, 2).dtype == tf.float32
    assert M.igamma(x, x, name="p").name == "p:0"
    assert tf.math.igamma(x, x).op.type == "Igamma"


def test_bad_inputs_are_named():
    with pytest.raises(tf.ShapeError, match="betainc"):
        M.betainc(tf.zeros([3]), tf.zeros([4]), tf.zeros([3]))
    with pytest.raises(Exception, match="igamma.*float"):
        M.igamma(tf.zeros([3], tf.int32), tf.zeros([3], tf.int32))
    with pytest.raises(Exception, match="zeta.*one dtype"):
        M.zeta(tf.zeros([3], tf.float64), tf.zeros([3]))
    with pytest.raises(TypeError, match="axis must be a Python integer"):
        M.cumulative_logsumexp(tf.zeros([3]), axis=tf.constant(0))


@pytest.mark.parametrize("op_name", ["betainc", "igamma", "elemwise_div", "maximum"])
def test_broadcasting_shape_rules_leave_an_unknown_input_unknown(op_name):
    # a scalar (or (1, 1)) beside a (4, 1) gives a (4, 1) output too: the output's shape says
    # nothing of an input's (numpy's broadcasting, TF 1.15's Betainc scalars)
    rule = Op.get(op_name).attr("FInferShape")
    known = [(4, 1)] * (Op.get(op_name).num_inputs({}) - 1)
    ins, outs = rule({}, [None] + known, [(4, 1)])
    assert ins[0] is None and outs == [(4, 1)]
    assert rule({}, [(1, 1)] + known, [None])[1] == [(4, 1)]
