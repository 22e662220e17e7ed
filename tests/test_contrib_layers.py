"""tf.contrib.layers against TensorFlow 1.15's formulas (numpy), plus tf.floor / tf.ceil /
tf.round (no gradient) and tf.convert_to_tensor."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.contrib import layers

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def test_contrib_layers_is_reachable():
    assert tf.contrib.layers is layers
    assert layers.xavier_initializer_conv2d is layers.xavier_initializer
    with pytest.raises(AttributeError, match="tf.contrib.layers.crossed_column is not supported"):
        _ = tf.contrib.layers.crossed_column
    with pytest.raises(AttributeError, match="tf.contrib.learn is not supported by TinyFlow"):
        _ = tf.contrib.learn


def test_fully_connected_values_names_and_shapes():
    x = tf.placeholder(tf.float32, [None, 4])
    hidden = layers.fully_connected(x, 3)
    out = layers.fully_connected(hidden, 2, activation_fn=None, scope="fc1")
    third = layers.fully_connected(out, 5, activation_fn=tf.nn.sigmoid)
    names = [v.name for v in tf.trainable_variables()]
    assert names == ["fully_connected/weights:0", "fully_connected/biases:0", "fc1/weights:0",
                     "fc1/biases:0", "fully_connected_1/weights:0", "fully_connected_1/biases:0"]
    assert out.get_shape().as_list() == [None, 2]
    assert len(tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)) == 6
    value = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
    got = _run([hidden, out, third] + tf.trainable_variables(), {x: value})
    w0, b0, w1, b1, w2, b2 = got[3:]
    assert w0.shape == (4, 3) and b1.shape == (2,) and not b0.any()
    want_hidden = np.maximum(value @ w0 + b0, 0)
    want_out = want_hidden @ w1 + b1
    np.testing.assert_allclose(got[0], want_hidden, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], 1 / (1 + np.exp(-(want_out @ w2 + b2))), rtol=1e-5)


def test_fully_connected_rank3_no_bias_and_initializers():
    x = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10)
    out = layers.fully_connected(x, 2, activation_fn=None, biases_initializer=None,
                                 weights_initializer=tf.constant_initializer(0.5))
    assert [v.name for v in tf.global_variables()] == ["fully_connected/weights:0"]
    assert out.get_shape().as_list() == [2, 3, 2]
    want = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10 @ np.full((4, 2), 0.5)
    np.testing.assert_allclose(_run(out), want, rtol=1e-5)


def test_fully_connected_reuse_and_collections():
    x = tf.placeholder(tf.float32, [None, 3])
    a = layers.fully_connected(x, 2, scope="shared", variables_collections=["mine"],
                               outputs_collections=["outs"])
    b = layers.fully_connected(x, 2, scope="shared", reuse=True)
    assert len(tf.trainable_variables()) == 2
    assert [v.name for v in tf.get_collection("mine")] == ["shared/weights:0",
                                                           "shared/biases:0"]
    assert tf.get_collection("outs") == [a]
    value = np.ones((2, 3), np.float32)
    got_a, got_b = _run([a, b], {x: value})
    np.testing.assert_array_equal(got_a, got_b)
    with pytest.raises(ValueError, match="already exists"):
        layers.fully_connected(x, 2, scope="shared")
    with pytest.raises(ValueError, match="does not exist"):
        layers.fully_connected(x, 2, scope="other", reuse=True)
    frozen = layers.fully_connected(x, 2, scope="frozen", trainable=False)
    assert frozen is not None and len(tf.trainable_variables()) == 2


def test_fully_connected_errors():
    x = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(ValueError, match="num_outputs type"):
        layers.fully_connected(x, 2.0)
    with pytest.raises(ValueError, match="last dimension"):
        layers.fully_connected(tf.placeholder(tf.float32, [None, None]), 2)
    with pytest.raises(ValueError, match="last dimension"):
        layers.fully_connected(tf.placeholder(tf.float32), 2)


def test_xavier_and_variance_scaling_statistics():
    tf.set_random_seed(1)
    shape = (300, 200)
    uniform = layers.xavier_initializer()(shape)
    normal = layers.xavier_initializer(uniform=False, seed=3)(shape)
    he = layers.variance_scaling_initializer()(shape)
    fan_out = layers.variance_scaling_initializer(1.0, "FAN_OUT", uniform=True)((5, 5, 8, 40))
    u, n, h, f = _run([uniform, normal, he, fan_out])
    limit = np.sqrt(6.0 / 500)
    assert np.abs(u).max() <= limit and np.abs(u).max() > 0.98 * limit
    assert u.std() == pytest.approx(limit / np.sqrt(3), rel=0.02)
    stddev = np.sqrt(1.3 / 250)  # contrib's truncated normal, cut at 2 deviations
    assert np.abs(n).max() <= 2 * stddev * 1.0001
    assert n.std() == pytest.approx(stddev * 0.8796, rel=0.03)
    assert np.abs(h).max() <= 2 * np.sqrt(1.3 * 2 / 300) * 1.0001
    assert h.std() == pytest.approx(np.sqrt(2.6 / 300) * 0.8796, rel=0.03)
    limit = np.sqrt(3.0 / (5 * 5 * 40))  # fans count the leading dims as contrib does
    assert np.abs(f).max() <= limit and np.abs(f).max() > 0.98 * limit
    with pytest.raises(TypeError, match="Unknown mode"):
        layers.variance_scaling_initializer(mode="fan_in")
    with pytest.raises(TypeError, match="non-floating"):
        layers.xavier_initializer(dtype=tf.int32)


def test_regularizers_and_apply_regularization():
    w = tf.constant([[1.0, -2.0], [3.0, -0.5]])
    l2, l1 = layers.l2_regularizer(0.1)(w), layers.l1_regularizer(0.5)(w)
    total = layers.apply_regularization(layers.l2_regularizer(0.1), [w, w])
    got = _run([l2, l1, total])
    np.testing.assert_allclose(got, [0.1 * 14.25 / 2, 0.5 * 6.5, 2 * 0.1 * 14.25 / 2],
                               rtol=1e-6)
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == [total]
    assert layers.l2_regularizer(0.0)(w) is None
    assert _run(layers.apply_regularization(layers.l1_regularizer(0.0), [w])) == 0.0
    with pytest.raises(ValueError, match="integer"):
        layers.l2_regularizer(1)
    with pytest.raises(ValueError, match="less than 0"):
        layers.l1_regularizer(-0.1)
    with pytest.raises(ValueError, match="No weights"):
        layers.apply_regularization(layers.l2_regularizer(0.1))
    x = tf.placeholder(tf.float32, [None, 2])
    layers.fully_connected(x, 3, weights_regularizer=layers.l2_regularizer(0.01))
    loss = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)[-1]
    weights = tf.trainable_variables()[0]
    got_loss, got_w = _run([loss, weights])
    assert got_loss == pytest.approx(0.01 * (got_w ** 2).sum() / 2, rel=1e-5)


def test_flatten_keeps_the_batch():
    x = tf.placeholder(tf.float32, [None, 2, 3, 4])
    flat = layers.flatten(x)
    assert flat.get_shape().as_list() == [None, 24]
    value = np.arange(48, dtype=np.float32).reshape(2, 2, 3, 4)
    np.testing.assert_array_equal(_run(flat, {x: value}), value.reshape(2, 24))


def test_floor_ceil_round_and_no_gradient():
    values = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -0.2], np.float32)
    x = tf.placeholder(tf.float32, [8])
    got = _run([tf.floor(x), tf.ceil(x), tf.round(x), tf.math.floor(x)], {x: values})
    np.testing.assert_array_equal(got[0], np.floor(values))
    np.testing.assert_array_equal(got[1], np.ceil(values))
    np.testing.assert_array_equal(got[2], np.round(values))  # numpy rounds halves to even too
    np.testing.assert_array_equal(got[3], got[0])
    assert tf.math.ceil is tf.ceil and tf.math.round is tf.round
    assert tf.gradients(tf.reduce_sum(tf.floor(x) + tf.round(x) + tf.ceil(x)), x) == [None]
    ints = tf.round(tf.constant([1, -2]))
    assert ints.dtype == tf.int32 and list(_run(ints)) == [1, -2]
    with pytest.raises(TypeError):
        tf.floor(tf.constant([1, 2]))


def test_convert_to_tensor():
    x = tf.placeholder(tf.float32, [2])
    assert tf.convert_to_tensor(x) is x and tf.convert_to_tensor(x, tf.float32) is x
    v = tf.Variable([1.0, 2.0])
    assert tf.convert_to_tensor(v) is v
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32 for Tensor "
                                         "with dtype float32"):
        tf.convert_to_tensor(x, dtype=tf.int32)
    c = tf.convert_to_tensor([[1, 2]], dtype=tf.float32, name="c")
    assert c.dtype == tf.float32 and c.name == "c:0"
    assert tf.convert_to_tensor(3).dtype == tf.int32
    assert tf.convert_to_tensor(3, preferred_dtype=tf.float32).dtype == tf.float32
    assert tf.convert_to_tensor(1.5, preferred_dtype=tf.int32).dtype == tf.float32
    np.testing.assert_array_equal(_run(c), [[1.0, 2.0]])
