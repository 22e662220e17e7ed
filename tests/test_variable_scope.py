"""tf.variable_scope and tf.get_variable with TensorFlow 1.15's reuse rules and names."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _layer(x, name, units=2):
    with tf.variable_scope(name, reuse=tf.AUTO_REUSE):
        w = tf.get_variable("weights", initializer=tf.ones([3, units]))
        b = tf.get_variable("biases", [units], initializer=lambda shape, dtype=None,
                            partition_info=None: tf.zeros(shape))
        return tf.matmul(x, w) + b


def test_names_and_name_scope_of_ops():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with tf.variable_scope("conv1") as scope:
        w = tf.get_variable("weights", initializer=tf.ones([3, 2]))
        y = tf.matmul(x, w, name="mm")
    assert (scope.name, w.name, y.name) == ("conv1", "conv1/weights:0", "conv1/mm:0")
    with tf.variable_scope("conv1", reuse=True):
        z = tf.exp(tf.get_variable("weights"), name="e")
    assert z.op.name == "conv1_1/e"  # the op scope is made unique, the variable scope is not


def test_reuse_rules_and_their_errors():
    with tf.variable_scope("s"):
        v = tf.get_variable("v", initializer=tf.zeros([2]))
        with pytest.raises(ValueError, match="Variable s/v already exists, disallowed"):
            tf.get_variable("v", initializer=tf.zeros([2]))
    with tf.variable_scope("s", reuse=True):
        assert tf.get_variable("v") is v
        with pytest.raises(ValueError, match="Variable s/w does not exist"):
            tf.get_variable("w", [2])
        with pytest.raises(ValueError, match=r"specified shape \(3,\) and found shape \(2,\)"):
            tf.get_variable("v", [3])
        with tf.variable_scope("inner", reuse=False):  # reuse stays on in inner scopes
            assert tf.get_variable_scope().reuse is True
    with tf.variable_scope("s") as scope:
        scope.reuse_variables()
        assert tf.get_variable("v") is v


def test_auto_reuse_shares_a_layer_and_it_trains_once():
    x = tf.placeholder(tf.float32, [None, 3])
    first, second = _layer(x, "fc"), _layer(x, "fc")
    assert [v.op.name for v in tf.trainable_variables()] == ["fc/weights", "fc/biases"]
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    a, b = sess.run([first, second], {x: xs})
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, xs @ np.ones((3, 2)))


def test_default_scope_names_count_up():
    with tf.variable_scope(None, default_name="dense") as first:
        pass
    with tf.variable_scope(None, default_name="dense") as second:
        pass
    assert (first.name, second.name) == ("dense", "dense_1")


def test_a_new_variable_needs_a_shape_or_a_value():
    with pytest.raises(ValueError, match="Shape of a new variable \\(w\\) must be fully"):
        tf.get_variable("w")


def test_a_numpy_array_is_an_initializer_in_a_scope_and_in_get_variable():
    # TF 1.15 takes an array as the initial value (shape from it); ``initializer or ...``
    # asked an array for its truth value (ValueError)
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.variable_scope("arrays", initializer=np.zeros((2, 3), np.float32)):
        v = tf.get_variable("v", initializer=value)
        w = tf.get_variable("w", [2, 3])
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    assert v.shape.as_list() == [2, 3]
    np.testing.assert_array_equal(sess.run(v), value)
    np.testing.assert_array_equal(sess.run(w), np.zeros((2, 3)))


def test_scope_initializer_is_the_default():
    ones = lambda shape, dtype=None, partition_info=None: tf.ones(shape)
    with tf.variable_scope("init", initializer=ones):
        v = tf.get_variable("v", [2, 2])
    sess = tf.Session()
    sess.run(v.initializer)
    np.testing.assert_array_equal(sess.run(v), np.ones((2, 2)))


def test_graphs_keep_their_own_variables():
    with tf.variable_scope("s"):
        tf.get_variable("v", initializer=tf.zeros([1]))
    with tf.Graph().as_default(), tf.variable_scope("s"):
        tf.get_variable("v", initializer=tf.zeros([1]))  # a new graph: no clash
