"""Optimizers' slot and non-slot variables named as TensorFlow 1.15 names them, in its
collections, and Adam's values against real TensorFlow's.

Every expected name and number below was printed by real TensorFlow (tf.compat.v1 of
tensorflow-cpu 2.21, whose tf.compat.v1.train optimizers are TF 1.15's code) running the same
program, and written down here.
"""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.saver import CheckpointError

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _w_and_loss():
    w = tf.Variable(tf.zeros([2]), name="w")
    return w, tf.reduce_sum(w * w)


def _names(collection):
    return [v.name for v in tf.get_collection(collection)]


def test_every_optimizers_slots_as_tensorflows():
    w, loss = _w_and_loss()
    optimizers = [tf.train.AdamOptimizer(0.1), tf.train.MomentumOptimizer(0.1, 0.9),
                  tf.train.RMSPropOptimizer(0.1), tf.train.AdagradOptimizer(0.1),
                  tf.train.FtrlOptimizer(0.1), tf.train.AdadeltaOptimizer(0.1),
                  tf.train.ProximalAdagradOptimizer(0.1),
                  tf.train.RMSPropOptimizer(0.1, centered=True),
                  tf.train.GradientDescentOptimizer(0.1),
                  tf.train.ProximalGradientDescentOptimizer(0.1),
                  tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
                  tf.train.FtrlOptimizer(0.1, accum_name="acc", linear_name="lin")]
    # real TF: (get_slot_names(), [get_slot(w, name).name...], [v.name for v in variables()])
    expected = [
        (["m", "v"], ["w/Adam:0", "w/Adam_1:0"],
         ["beta1_power:0", "beta2_power:0", "w/Adam:0", "w/Adam_1:0"]),
        (["momentum"], ["w/Momentum:0"], ["w/Momentum:0"]),
        (["momentum", "rms"], ["w/RMSProp_1:0", "w/RMSProp:0"],
         ["w/RMSProp:0", "w/RMSProp_1:0"]),
        (["accumulator"], ["w/Adagrad:0"], ["w/Adagrad:0"]),
        (["accum", "linear"], ["w/Ftrl:0", "w/Ftrl_1:0"], ["w/Ftrl:0", "w/Ftrl_1:0"]),
        (["accum", "accum_update"], ["w/Adadelta:0", "w/Adadelta_1:0"],
         ["w/Adadelta:0", "w/Adadelta_1:0"]),
        (["accumulator"], ["w/ProximalAdagrad:0"], ["w/ProximalAdagrad:0"]),
        (["mg", "momentum", "rms"], ["w/RMSProp_3:0", "w/RMSProp_4:0", "w/RMSProp_2:0"],
         ["w/RMSProp_2:0", "w/RMSProp_3:0", "w/RMSProp_4:0"]),
        ([], [], []), ([], [], []),
        (["momentum"], ["w/Momentum_1:0"], ["w/Momentum_1:0"]),
        (["accum", "linear"], ["w/acc:0", "w/lin:0"], ["w/acc:0", "w/lin:0"])]
    for optimizer, (slot_names, slots, variables) in zip(optimizers, expected):
        optimizer.minimize(loss)
        kind = type(optimizer).__name__
        assert optimizer.get_slot_names() == slot_names, kind
        assert [optimizer.get_slot(w, n).name for n in slot_names] == slots, kind
        assert [v.name for v in optimizer.variables()] == variables, kind
    # real TF: slots and Adam's powers are global variables, not trainable ones
    assert _names(tf.GraphKeys.GLOBAL_VARIABLES) == [
        "w:0", "beta1_power:0", "beta2_power:0", "w/Adam:0", "w/Adam_1:0", "w/Momentum:0",
        "w/RMSProp:0", "w/RMSProp_1:0", "w/Adagrad:0", "w/Ftrl:0", "w/Ftrl_1:0",
        "w/Adadelta:0", "w/Adadelta_1:0", "w/ProximalAdagrad:0", "w/RMSProp_2:0",
        "w/RMSProp_3:0", "w/RMSProp_4:0", "w/Momentum_1:0", "w/acc:0", "w/lin:0"]
    assert _names(tf.GraphKeys.TRAINABLE_VARIABLES) == ["w:0"]


def test_a_second_optimizer_of_the_same_name_gets_unique_names():
    _w, loss = _w_and_loss()
    tf.train.AdamOptimizer().minimize(loss)
    second, mine = tf.train.AdamOptimizer(), tf.train.AdamOptimizer(name="MyAdam")
    second.minimize(loss)
    mine.minimize(loss)
    # real TF's names
    assert [v.name for v in second.variables()] == [
        "beta1_power_1:0", "beta2_power_1:0", "w/Adam_2:0", "w/Adam_3:0"]
    assert [v.name for v in mine.variables()] == [
        "beta1_power_2:0", "beta2_power_2:0", "w/MyAdam:0", "w/MyAdam_1:0"]
    assert _names(tf.GraphKeys.GLOBAL_VARIABLES) == [
        "w:0", "beta1_power:0", "beta2_power:0", "w/Adam:0", "w/Adam_1:0", "beta1_power_1:0",
        "beta2_power_1:0", "w/Adam_2:0", "w/Adam_3:0", "beta1_power_2:0", "beta2_power_2:0",
        "w/MyAdam:0", "w/MyAdam_1:0"]


def test_scopes_name_slots_and_powers_as_tensorflows():
    with tf.variable_scope("net"):
        w = tf.get_variable("w", [2])
        u = tf.Variable(tf.zeros([3]), name="u")
    loss = tf.reduce_sum(w * w) + tf.reduce_sum(u)
    with tf.name_scope("train"):
        tf.train.AdamOptimizer().minimize(loss)
    with tf.variable_scope("opt"):
        tf.train.AdamOptimizer().minimize(loss)
    with tf.name_scope("train"):
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    # real TF: the powers under the name scope, the slots under the variable scope only
    assert _names(tf.GraphKeys.GLOBAL_VARIABLES) == [
        "net/w:0", "net/u:0", "train/beta1_power:0", "train/beta2_power:0", "net/w/Adam:0",
        "net/w/Adam_1:0", "net/u/Adam:0", "net/u/Adam_1:0", "opt/beta1_power:0",
        "opt/beta2_power:0", "opt/net/w/Adam:0", "opt/net/w/Adam_1:0", "opt/net/u/Adam:0",
        "opt/net/u/Adam_1:0", "net/w/Momentum:0", "net/u/Momentum:0"]
    assert _names(tf.GraphKeys.TRAINABLE_VARIABLES) == ["net/w:0", "net/u:0"]


def test_minimizing_twice_updates_the_same_slots():
    w, loss = _w_and_loss()
    adam = tf.train.AdamOptimizer(0.1)
    first, second = adam.minimize(loss), adam.minimize(loss)
    # real TF: one set of slots and powers
    assert _names(tf.GraphKeys.GLOBAL_VARIABLES) == [
        "w:0", "beta1_power:0", "beta2_power:0", "w/Adam:0", "w/Adam_1:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(w, [1.0, -2.0]))
        sess.run([first])
        sess.run([second])
        power = next(v for v in adam.variables() if v.op.name == "beta1_power")
        assert sess.run(power) == np.float32(0.9) * np.float32(0.9) * np.float32(0.9)


def _pretrained_checkpoint(path):
    """A model trained with plain gradient descent: its checkpoint has no optimizer slots."""
    with tf.Graph().as_default():
        with tf.variable_scope("net"):
            w = tf.Variable(np.full((3, 2), 0.5, np.float32), name="w")
            b = tf.Variable(np.array([0.1, -0.1], np.float32), name="b")
        x = tf.constant(np.eye(3, dtype=np.float32))
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b))
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step)
            return tf.train.Saver().save(sess, path), sess.run([w, b])


def test_fine_tuning_restores_all_but_the_optimizers_variables(tmp_path):
    prefix, (w_pre, b_pre) = _pretrained_checkpoint(str(tmp_path / "pretrained"))
    with tf.variable_scope("net"):
        w = tf.Variable(np.zeros((3, 2), np.float32), name="w")
        b = tf.Variable(np.zeros(2, np.float32), name="b")
    x = tf.constant(np.eye(3, dtype=np.float32))
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b - 1.0))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    # real TF leaves Adam's powers to this filter (they are not named Adam) ...
    kept = [v for v in tf.global_variables() if "Adam" not in v.name]
    assert [v.name for v in kept] == ["net/w:0", "net/b:0", "beta1_power:0", "beta2_power:0"]
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    # ... and fails to restore them (NotFoundError: "Key beta1_power not found in checkpoint")
    with pytest.raises(CheckpointError, match="beta1_power"):
        tf.train.Saver(kept).restore(sess, prefix)
    np.testing.assert_array_equal(sess.run(w), np.zeros((3, 2)))  # nothing restored
    restore = [v for v in kept if "_power" not in v.name]
    tf.train.Saver(restore).restore(sess, prefix)
    np.testing.assert_array_equal(sess.run(w), w_pre)
    np.testing.assert_array_equal(sess.run(b), b_pre)
    before = sess.run(loss)
    for _ in range(5):
        sess.run(train)
    assert sess.run(loss) < before
    # the whole fine-tuned graph saves under TF's names and restores in a new session
    path = tf.train.Saver().save(sess, str(tmp_path / "tuned"))
    assert [name for name, _ in tf.train.list_variables(path)] == [
        "beta1_power", "beta2_power", "net/b", "net/b/Adam", "net/b/Adam_1", "net/w",
        "net/w/Adam", "net/w/Adam_1"]
    fresh = tf.Session()
    tf.train.Saver().restore(fresh, path)
    for var in tf.global_variables():
        np.testing.assert_array_equal(fresh.run(var), sess.run(var), err_msg=var.name)


# Real TF's values after steps 1, 10 and 100 of AdamOptimizer(0.05, epsilon=...) on
# reduce_sum(square(matmul(X, w) + b - Y)) (tf.compat.v1, float32; the program's data below)
_X = np.array([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [3.0, 0.0, 1.0], [-2.0, 1.0, 0.5]], np.float32)
_Y = np.array([[1.0, 0.0], [-1.0, 2.0], [2.0, 1.0], [0.5, -0.5]], np.float32)
_W0 = np.array([[0.3, -0.1], [-0.2, 0.4], [0.1, 0.2]], np.float32)
_B0 = np.array([0.05, -0.05], np.float32)
_TF_ADAM = {
    1e-8: {1: ([0.3499999940395355, -0.05000000447034836, -0.15000000596046448,
                0.3499999940395355, 0.05000000447034836, 0.25],
               [0.09999999403953552, -3.725290298461914e-09]),
           10: ([0.34707728028297424, 0.31484782695770264, 0.2560473084449768,
                 -0.061790578067302704, -0.33425065875053406, 0.63197922706604],
                [0.5054477453231812, 0.291262686252594]),
           100: ([0.4199107587337494, 0.20729583501815796, 1.0022400617599487,
                  -0.46335840225219727, 0.5904107689857483, 0.15409328043460846],
                 [-0.3661263585090637, 0.5604100227355957]),
           "m": [-0.006003277376294136, 0.04528272524476051],
           "v": [0.007988517172634602, 0.5782850384712219]},
    # epsilon 1.0 (TF's advice for Inception): torch.optim.Adam's formula is 1e-2 off here
    1.0: {1: ([0.3022643029689789, -0.08551310002803802, -0.18616288900375366,
               0.3870961666107178, 0.09202615171670914, 0.21312016248703003],
              [0.05459466949105263, -0.04476261883974075]),
          10: ([0.3423331677913666, 0.11117652803659439, 0.012806694954633713,
                0.2008644938468933, -0.03228350356221199, 0.39924198389053345],
               [0.13612699508666992, 0.039186861366033554]),
          100: ([0.37615859508514404, 0.23105742037296295, 0.5684331655502319,
                 -0.19169582426548004, 0.06723097711801529, 0.4807544946670532],
                [0.17180152237415314, 0.22384946048259735]),
          "m": [-0.006574657745659351, 0.017134619876742363],
          "v": [0.01740158349275589, 1.0905102491378784]},
}
_TF_POWERS = (2.3905195121187717e-05, 0.903888463973999)  # after 100 steps, both epsilons


@pytest.mark.parametrize("epsilon", [1e-8, 1.0])
def test_adam_follows_tensorflows_numbers_for_100_steps(plan_memory, epsilon):
    w = tf.Variable(_W0, name="w")
    b = tf.Variable(_B0, name="b")
    loss = tf.reduce_sum(tf.square(tf.matmul(tf.constant(_X), w) + b - tf.constant(_Y)))
    adam = tf.train.AdamOptimizer(0.05, epsilon=epsilon)
    train = adam.minimize(loss)
    expected = _TF_ADAM[epsilon]
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(1, 101):
            sess.run(train)
            if step in expected:
                got_w, got_b = sess.run([w, b])
                # float32 rounding of TF's sums, relative to values of about 1
                np.testing.assert_allclose(got_w.ravel(), expected[step][0], rtol=1e-6,
                                           atol=1e-7, err_msg=f"w after step {step}")
                np.testing.assert_allclose(got_b, expected[step][1], rtol=1e-6, atol=1e-7,
                                           err_msg=f"b after step {step}")
        powers = [v for v in adam.variables() if "power" in v.name]
        assert tuple(float(p) for p in sess.run(powers)) == _TF_POWERS  # bit for bit
        # the slots hold sums of gradients, near the optimum differences of float32 sums
        for slot in "mv":
            np.testing.assert_allclose(sess.run(adam.get_slot(w, slot)).ravel()[:2],
                                       expected[slot], rtol=1e-5, atol=5e-7)
