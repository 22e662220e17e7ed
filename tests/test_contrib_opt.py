"""tf.contrib.opt (frontend/contrib/opt.py) against TF: AdamW, MomentumW (and Nesterov),
decay_var_list, LazyAdam, PowerSign, AddSign and MovingAverageOptimizer, three steps on a
model of a dense layer and an embedding (its gradient as slices), every value from TF 2.21's
tf.compat.v1 running TF 1.15's contrib sources' formulas (the DecoupledWeightDecayExtension,
LazyAdam's _apply_sparse, MovingAverageOptimizer as written there; PowerSign and AddSign
through TF's own ApplyPowerSign / ApplyAddSign kernels).  TF's decay ran after the gradients
there (its graph leaves the decay unordered with the forward pass's reads: a race)."""
import math
import warnings

import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")

_RNG = np.random.default_rng(3)
X, Y = (_RNG.standard_normal(s).astype(np.float32) for s in ((4, 3), (4, 2)))
W0, E0 = (_RNG.standard_normal(s).astype(np.float32) for s in ((3, 2), (5, 2)))

TF = {  # TF 2.21 compat.v1, 3 steps: [w, b, e] (tools: the formulas of TF 1.15's sources)
    "adamw": ([-0.0833732858, 1.20461392, 0.791992605, -0.196371973, 0.115580186, 0.226968586],
     [-0.187252492, -0.487371951],
     [1.59333158, -0.554924428, -0.520607173, 0.679231703, -0.886459947, -0.291720241, 0.572044253,
      0.269800931, 0.0915167034, 0.670104384]),
    "adamw_list": ([-0.0834996551, 1.20461774, 0.792053938, -0.196385354, 0.115590826,
      0.226969406],
     [-0.187267244, -0.496269763],
     [1.59330666, -0.554901361, -0.520632029, 0.67925483, -0.886459947, -0.291720241, 0.572019458,
      0.269824028, 0.0915167034, 0.670104384]),
    "momentumw": ([0.0900278836, -1.02932644, 0.639744401, 0.510347843, 0.0090350695, 0.300386548],
     [-0.367966056, -0.841278493],
     [1.20539248, -0.900969267, -1.11622822, -0.480248451, -0.886459947, -0.291720241, 0.302963316,
      -0.172225922, 0.0915167034, 0.670104384]),
    "momentumw_nesterov": ([0.29260847, -0.465425253, 0.464568973, 0.197391003, -0.00754715502,
      0.237146497],
     [-0.235753104, -0.458488911],
     [1.33760548, -0.518179595, -0.851802349, 0.285330862, -0.886459947, -0.291720241, 0.435176283,
      0.210563734, 0.0915167034, 0.670104384]),
    "lazyadam": ([-0.0874125063, 1.24732399, 0.811901033, -0.20811975, 0.113594539, 0.240039408],
     [-0.187959164, -0.496596903],
     [1.64712894, -0.566217184, -0.531517863, 0.70571667, -0.886459947, -0.291720241, 0.594579756,
      0.283753157, 0.0915167034, 0.670104384]),
    "powersign": ([0.382902652, -0.467167556, 0.357110888, 0.702127218, -0.0621366128,
      0.519079506],
     [-0.203251913, -0.639346004],
     [1.63183618, -0.708966315, -0.85006249, 0.123621702, -0.886459947, -0.291720241, 0.579287052,
      0.141004086, 0.0915167034, 0.670104384]),
    "addsign": ([0.227597356, -0.0637247562, 0.62716949, 0.213503897, -0.0716136694, 0.308450729],
     [-0.229142636, -0.476258665],
     [1.60594535, -0.545879006, -0.901843905, 0.449796259, -0.886459947, -0.291720241, 0.553396344,
      0.304091364, 0.0915167034, 0.670104384]),
}

OPTIMIZERS = {
    "adamw": lambda: tf.contrib.opt.AdamWOptimizer(0.01, learning_rate=0.1),
    "adamw_list": lambda: tf.contrib.opt.AdamWOptimizer(0.01, learning_rate=0.1),
    "momentumw": lambda: tf.contrib.opt.MomentumWOptimizer(0.05, 0.01, 0.9),
    "momentumw_nesterov": lambda: tf.contrib.opt.MomentumWOptimizer(0.05, 0.01, 0.9,
                                                                    use_nesterov=True),
    "lazyadam": lambda: tf.contrib.opt.LazyAdamOptimizer(0.1),
    "powersign": lambda: tf.contrib.opt.PowerSignOptimizer(0.01, math.e, 0.9),
    "addsign": lambda: tf.contrib.opt.AddSignOptimizer(0.01, 1.0, 0.9),
}
SLOTS = {"adamw": ["AdamW", "AdamW_1"], "adamw_list": ["AdamW", "AdamW_1"],
         "momentumw": ["MomentumW"], "momentumw_nesterov": ["MomentumW"],
         "lazyadam": ["Adam", "Adam_1"], "powersign": ["PowerSignOptimizer"],
         "addsign": ["AddSignOptimizer"]}


def _model():
    w, b = tf.Variable(W0, name="w"), tf.Variable(np.array([0.1, -0.2], np.float32), name="b")
    e = tf.Variable(E0, name="e")  # its gradient: slices of rows 1, 3, 1, 0
    h = tf.matmul(X, w) + b + tf.reduce_sum(tf.gather(e, [1, 3, 1, 0]), axis=0)
    return [w, b, e], tf.reduce_sum(tf.square(h - Y))


@pytest.mark.parametrize("name", sorted(TF))
def test_three_steps_are_tensorflows(name):
    (w, b, e), loss = _model()
    optimizer = OPTIMIZERS[name]()
    grads_and_vars = optimizer.compute_gradients(loss, [w, b, e])
    assert isinstance(grads_and_vars[2][0], tf.IndexedSlices)
    extra = {"decay_var_list": [w, e]} if name == "adamw_list" else {}
    step = optimizer.apply_gradients(grads_and_vars, **extra)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(step)
    for got, want in zip(sess.run([w, b, e]), TF[name]):
        np.testing.assert_allclose(got.ravel(), want, rtol=2e-6, atol=1e-7)
    names = sorted(v.op.name for v in tf.global_variables())
    powers = ["beta1_power", "beta2_power"] if "adam" in name else []
    assert names == sorted(["b", "e", "w", *powers] + [  # TF's slot names
        f"{v}/{slot}" for v in "bew" for slot in SLOTS[name]])


def test_decoupled_decay_of_any_optimizer_and_minimizes_decay_var_list():
    (w, b, e), loss = _model()
    sgdw = tf.contrib.opt.extend_with_decoupled_weight_decay(tf.train.GradientDescentOptimizer)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step = sgdw(0.5, learning_rate=0.0).minimize(loss, decay_var_list=[w])
    assert "decays every variable, as TF 1.15's" in str(caught[0].message)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run(step)  # a zero learning rate: the decay alone, of every variable (TF 1.15's)
    np.testing.assert_array_equal(sess.run(w), W0 - np.float32(0.5) * W0)
    np.testing.assert_array_equal(sess.run(b), np.float32([0.05, -0.1]))
    e_now = sess.run(e)  # only the rows the slices name, once each
    np.testing.assert_array_equal(e_now[[0, 1, 3]], (E0 - np.float32(0.5) * E0)[[0, 1, 3]])
    np.testing.assert_array_equal(e_now[[2, 4]], E0[[2, 4]])
    with pytest.raises(TypeError, match="optimizer class"):
        tf.contrib.opt.extend_with_decoupled_weight_decay(tf.train.AdamOptimizer(0.1))


def test_moving_average_optimizer_and_its_swapping_saver(tmp_path):
    (w, b, _), _ = _model()
    loss = tf.reduce_sum(tf.square(tf.matmul(X, w) + b - Y))
    step_count = tf.train.get_or_create_global_step()
    optimizer = tf.contrib.opt.MovingAverageOptimizer(
        tf.train.MomentumOptimizer(0.01, 0.9), average_decay=0.5, num_updates=step_count)
    with pytest.raises(RuntimeError, match="before creating the swapping_saver"):
        optimizer.swapping_saver()
    step = optimizer.minimize(loss, global_step=step_count, var_list=[w, b])
    saver = optimizer.swapping_saver()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(step)
    # TF 2.21 compat.v1, MovingAverageOptimizer's source over MomentumOptimizer(0.01, 0.9)
    np.testing.assert_allclose(sess.run(b), [0.184821472, -0.612041354], rtol=2e-6)
    average = tf.train.load_variable(saver.save(sess, str(tmp_path / "m")), "b")
    np.testing.assert_allclose(average, [0.172754258, -0.558983266], rtol=2e-6)
    assert sorted(v.op.name for v in tf.global_variables()) == [
        "b", "b/ExponentialMovingAverage", "b/Momentum", "e", "global_step", "w",
        "w/ExponentialMovingAverage", "w/Momentum"]


def test_other_names_are_unsupported():
    with pytest.raises(AttributeError, match="tf.contrib.opt.ShampooOptimizer is not "
                                             "supported by TinyFlow"):
        tf.contrib.opt.ShampooOptimizer  # noqa: B018


def test_sign_decay_functions_are_tensorflows():
    step = tf.placeholder(tf.int64, [])
    functions = {"linear": tf.contrib.opt.get_linear_decay_fn(7),
                 "cosine": tf.contrib.opt.get_cosine_decay_fn(7, 1.5, zero_after=1.0),
                 "restart": tf.contrib.opt.get_restart_decay_fn(7, 3, zero_after=2)}
    # TF 2.21 compat.v1, sign_decay.py's formulas, steps 0..9 (its grappler divides by 7 as a
    # product with 1/7: an ulp apart)
    want = {"linear": [1.0, 0.857142925, 0.714285731, 0.571428597, 0.428571463, 0.285714298,
                       0.142857149, 0.0, 0.0, 0.0],
            "cosine": [1.0, 0.611260355, 0.0495154858, 0.188255191, 0.811745167, 0.0, 0.0, 0.0,
                       0.0, 0.0],
            "restart": [1.0, 0.611260414, 0.0495155454, 0.811744869, 0.188255012, 0.0, 0.0,
                        0.0, 0.0, 0.0]}
    sess = tf.Session()
    for name, function in functions.items():
        decayed = function(step)
        got = [float(sess.run(decayed, {step: t})) for t in range(10)]
        np.testing.assert_allclose(got, want[name], rtol=2e-7, atol=1e-7, err_msg=name)
    with pytest.raises(ValueError, match="global_step is required for linear_decay"):
        functions["linear"](None)


def test_add_sign_reads_its_sign_decay_at_each_step():
    w = tf.Variable(np.float32([3.0, 4.0]))
    gradient = np.float32([1.0, -2.0])
    step_count = tf.train.get_or_create_global_step()
    optimizer = tf.contrib.opt.AddSignOptimizer(
        0.5, alpha=1.0, beta=0.9, sign_decay_fn=tf.contrib.opt.get_linear_decay_fn(1))
    step = optimizer.minimize(tf.reduce_sum(w * gradient), global_step=step_count)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run(step)  # decay 1: signs agree, (1 + 1) * 0.5 * grad
    np.testing.assert_array_equal(sess.run(w), np.float32([3.0, 4.0]) - 1.0 * gradient)
    sess.run(step)  # decay 0 from global step 1 on: 0.5 * grad
    np.testing.assert_array_equal(sess.run(w), np.float32([3.0, 4.0]) - 1.5 * gradient)
