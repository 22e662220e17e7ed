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


def test_a_reuse_of_another_dtype_and_the_scopes_regularizer():
    with tf.variable_scope("i", dtype=tf.int32):
        tf.get_variable("iv", [2], initializer=tf.zeros_initializer())
    with tf.variable_scope("i", reuse=True, dtype=tf.int32):
        assert tf.get_variable("iv").dtype.base_dtype == tf.int32
    # real TF 1.15: the scope's dtype (float32) asked, a ref dtype found
    with tf.variable_scope("i", reuse=True), pytest.raises(
            ValueError, match=r"^Trying to share variable i/iv, but specified dtype float32 "
                              r"and found dtype int32_ref\.$"):
        tf.get_variable("iv")
    with tf.variable_scope("init", initializer=tf.constant_initializer(3.0),
                           regularizer=lambda t: tf.reduce_sum(t)):
        tf.get_variable("r", [2])
        with tf.variable_scope("in"):
            tf.get_variable("q", [3], regularizer=lambda t: 2 * tf.reduce_sum(t))
            tf.get_variable("z", [1], regularizer=tf.no_regularizer)
        with tf.variable_scope("in", reuse=True):
            tf.get_variable("q", [3])  # reused: no second loss
        with tf.variable_scope("l"):
            tf.layers.dense(tf.ones([1, 2]), 1, kernel_initializer=tf.ones_initializer())
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(losses)
    # real TF 1.15: r's 6, q's own 18, the dense kernel's 2 (inherited), the bias's 0
    assert got == [6.0, 18.0, 2.0, 0.0]


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


# -- tf.make_template: names as real TF 1.15 gives them (tf.compat.v1 in /work/tfvenv) --------
def _scale(x, scalar_name):
    return x * tf.get_variable(scalar_name, shape=[], initializer=tf.constant_initializer(2.0))


def test_make_template_shares_the_first_calls_variables():
    template = tf.make_template("scale_by_y", _scale, scalar_name="y")
    a, b = template(tf.constant(3.0)), template(tf.constant(4.0))
    other = tf.make_template("scale_by_y", _scale, scalar_name="y")
    c = other(tf.constant(5.0))
    # real TF: ops under scale_by_y/, scale_by_y_1/, scale_by_y_2/; variables y of each
    assert [t.name.split("/")[0] for t in (a, b, c)] == ["scale_by_y", "scale_by_y_1",
                                                         "scale_by_y_2"]
    assert [v.name for v in tf.global_variables()] == ["scale_by_y/y:0", "scale_by_y_1/y:0"]
    assert template.variable_scope_name == "scale_by_y/"
    assert template.variable_scope.name == "scale_by_y"
    assert [v.name for v in template.trainable_variables] == ["scale_by_y/y:0"]
    assert [v.name for v in template.variables] == ["scale_by_y/y:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(template.variables[0], 10.0))
        assert sess.run([a, b, c]) == [30.0, 40.0, 10.0]  # one variable for a and b


def test_make_template_scopes_where_called_or_made():
    with tf.variable_scope("outer"):
        later = tf.make_template("inner", _scale, scalar_name="z")
        now = tf.make_template("now", _scale, create_scope_now_=True, scalar_name="q")
    d = later(tf.constant(1.0))
    with tf.variable_scope("other"):
        e = later(tf.constant(1.0))
    with tf.variable_scope("elsewhere"):
        f = now(tf.constant(1.0))
    # real TF: inner/mul, other/inner/mul, elsewhere/now/mul; variables inner/z, outer/now/q
    assert d.name.startswith("inner/") and e.name.startswith("other/inner/")
    assert f.name.startswith("elsewhere/now/")
    assert [v.name for v in tf.global_variables()] == ["inner/z:0", "outer/now/q:0"]


def test_make_template_refuses_a_variable_made_again():
    template = tf.make_template("bad", lambda x: x * tf.Variable(1.0))
    template(tf.constant(1.0))
    with pytest.raises(ValueError, match="Trainable variable created when calling a template "
                                         "after the first time"):
        template(tf.constant(1.0))


def test_an_initializer_class_is_made_as_tensorflow_makes_it():
    """TF's get_variable takes an initializer's class (tf.ones_initializer, not an instance)
    and makes one of the variable's dtype."""
    ones = tf.get_variable("ones", [2, 3], initializer=tf.ones_initializer)
    zeros = tf.get_variable("zeros", [2], initializer=tf.zeros_initializer, dtype=tf.float64)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_ones, got_zeros = sess.run([ones, zeros])
    np.testing.assert_array_equal(got_ones, np.ones((2, 3)))
    assert got_zeros.dtype == np.float64 and not got_zeros.any()


def test_default_initializer_by_dtype():
    # real TF 1.15 (_get_default_initializer): Glorot uniform for floats, zeros for integers
    # and booleans (2.21's compat.v1 printed [0 0], [False False], [0 0])
    a = tf.get_variable("a", [2], dtype=tf.int32)
    b = tf.get_variable("b", [2], dtype=tf.bool)
    c = tf.get_variable("c", [2], dtype=tf.int64)
    f = tf.get_variable("f", [50, 50])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        va, vb, vc, vf = sess.run([a, b, c, f])
    assert va.tolist() == [0, 0] and vb.tolist() == [False, False] and vc.tolist() == [0, 0]
    assert vf.std() > 0 and np.abs(vf).max() <= np.sqrt(6 / 100)


def test_variable_scope_collections_setters_and_variable_value():
    # real TF (2.21's tf.compat.v1) printed these lists, [4. 4.] and [2. 4.] for this program
    with tf.variable_scope("enc") as scope:
        tf.get_variable("a", [2])
        with tf.variable_scope("inner"):
            tf.get_variable("b", [1])
        tf.get_variable("c", [1], trainable=False)
    with tf.variable_scope("enc2"):
        tf.get_variable("d", [1])
    tf.get_local_variable("enc/loc", [1])
    assert [v.name for v in scope.trainable_variables()] == ["enc/a:0", "enc/inner/b:0"]
    assert [v.name for v in scope.global_variables()] == ["enc/a:0", "enc/inner/b:0", "enc/c:0"]
    assert [v.name for v in scope.local_variables()] == ["enc/loc:0"]
    with tf.variable_scope("s2") as s2:
        s2.set_initializer(tf.constant_initializer(4.0))
        s2.set_dtype(tf.float64)
        e = tf.get_variable("e", [2])
    assert e.dtype == tf.float64
    v = tf.Variable([1.0, 2.0], name="v")
    doubled = v.value() * 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(e), [4.0, 4.0])
        np.testing.assert_array_equal(sess.run(doubled), [2.0, 4.0])
