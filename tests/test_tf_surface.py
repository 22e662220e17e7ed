"""Smaller parts of the TF-1 surface that well-known programs use: Variable's methods,
set_shape, operations as fetches, tf.device, tf.train.ExponentialMovingAverage."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.nnvm.tensor_shape import TensorShape

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_variable_methods(plan_memory):
    g = tf.Variable(0, trainable=False, name="g")
    w = tf.Variable(tf.ones([2]), name="w")
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    with sess.as_default():
        assert g.assign(5).eval() == 5 and g.assign_add(2).eval() == 7
        assert g.assign_sub(3).eval() == 4 and g.read_value().eval() == 4
        w.load([3.0, 4.0])  # no op added: the graph keeps its size
        size = len(tf.get_default_graph().nodes_by_name)
        w.load(np.array([5.0, 6.0]))
        assert len(tf.get_default_graph().nodes_by_name) == size
        np.testing.assert_array_equal(w.eval(), [5.0, 6.0])
        with pytest.raises(ValueError, match="'w' has shape \\(2,\\)"):
            w.load([1.0, 2.0, 3.0])
        np.testing.assert_array_equal(w.eval(), [5.0, 6.0])  # left as it was
    twice = tf.Variable(w.initialized_value() * 2)
    sess.run(twice.initializer)
    np.testing.assert_array_equal(sess.run(twice), [2.0, 2.0])


def test_set_shape_merges_or_refuses():
    x = tf.placeholder(tf.float32)
    x.set_shape([None, 3])
    assert x.get_shape().as_list() == [None, 3]
    x.set_shape([4, None])
    assert x.get_shape().as_list() == [4, 3]
    with pytest.raises(ValueError, match="not compatible"):
        x.set_shape([4, 5])
    assert TensorShape([None, 3]).is_compatible_with([2, 3])
    assert not TensorShape([None, 3]).is_compatible_with([2, 3, 1])


def test_an_operation_node_runs_as_a_fetch(plan_memory):
    v = tf.Variable(1.0)
    bump = tf.assign_add(v, 1.0)
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(v.initializer)
    assert sess.run(bump.op) is None  # tensor.op: an Operation, fetched for its effect
    bump.op.run(session=sess)
    assert sess.run([bump.op]) == [None] and sess.run(v) == 4.0
    assert [o.name for o in bump.op.outputs] == [bump.name]


def test_device_is_accepted_and_checked():
    with tf.device("/cpu:0"):
        a = tf.constant(2.0) * 3
    with tf.device("/job:localhost/replica:0/task:0/device:GPU:1"), tf.device(None):
        b = a + 1
    assert tf.Session().run(b) == 7.0  # every op runs on the session's device
    with pytest.raises(ValueError, match="cannot parse device specification 'gpu0'"), \
            tf.device("gpu0"):
        pass

    # tf.Graph.device, as tf.device: real TF (tf.compat.v1) accepts these and runs the graph,
    # and raises ValueError for "/cpu:0/gpu:1" ("Multiple device types are not allowed while
    # parsing the device spec") and for "nonsense"
    graph = tf.Graph()
    with graph.as_default(), graph.device("/device:GPU:0"), graph.device(lambda op: "/cpu:0"):
        c = tf.constant(3.0) * 2
    with graph.device("/job:worker/task:1"), graph.device(None):
        pass
    assert tf.Session(graph=graph).run(c) == 6.0
    for spec, words in (("/cpu:0/gpu:1", "Multiple device types"), ("nonsense", "parse")):
        for scope in (graph.device, tf.device):
            with pytest.raises(ValueError, match=words), scope(spec):
                pass


def test_exponential_moving_average_follows_tensorflow(plan_memory):
    # TF: shadow -= (1 - decay) * (shadow - var), decay = min(decay, (1 + n) / (10 + n))
    v = tf.Variable(1.0, name="v")
    step = tf.Variable(0, trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
    update = ema.apply([v])
    shadow = ema.average(v)
    assert shadow.op.name == "v/ExponentialMovingAverage" and not shadow.trainable
    assert update.name == "ExponentialMovingAverage"
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    expected = 1.0
    for n, value in enumerate([3.0, -1.0, 4.0, 4.0]):
        sess.run([tf.assign(v, value), tf.assign(step, n)])
        sess.run(update)
        decay = min(0.9, (1 + n) / (10 + n))
        expected -= (1 - decay) * (expected - value)
        np.testing.assert_allclose(sess.run(shadow), expected, rtol=1e-6)
    assert ema.variables_to_restore() == {"v/ExponentialMovingAverage": v, "Variable": step}


def test_unsupported_train_names_say_so():
    with pytest.raises(AttributeError, match="tf.train.SyncReplicasOptimizer is not supported"):
        _ = tf.train.SyncReplicasOptimizer


def test_reshape_of_an_unknown_rank_has_the_target_static_shape():
    # TF 1.15: reshape(placeholder(), [-1, 10]).shape is (?, 10) (found by running TF-1 programs)
    p = tf.placeholder(tf.float32)
    assert p.get_shape().ndims is None
    r = tf.reshape(p, [-1, 10])
    assert r.get_shape().as_list() == [None, 10]
    assert tf.reshape(tf.placeholder(tf.float32, [4, 5]), [-1, 10]).get_shape().as_list() == [2, 10]
    with tf.Session() as sess:
        assert sess.run(r, {p: np.ones((2, 2, 5))}).shape == (2, 10)


def test_tensor_shape_of_an_unknown_shape_stays_unknown():
    unknown = tf.TensorShape(None)
    assert tf.TensorShape(unknown).ndims is None
    assert tf.TensorShape(unknown)[-1].value is None
    with pytest.raises(ValueError, match=r"last dimension of the inputs to `Dense`"):
        tf.layers.dense(tf.placeholder(tf.float32), 3)  # was an IndexError


def test_compat_v1_is_the_same_surface():
    import tinyflow.compat.v1 as tf1
    from tinyflow.compat.v1 import placeholder
    assert tf.compat.v1 is tf1 and placeholder is tf.placeholder
    assert tf1.nn is tf.nn and tf1.train.AdamOptimizer is tf.train.AdamOptimizer
    assert tf1.disable_v2_behavior() is None and tf1.disable_eager_execution() is None
    assert tf.disable_v2_behavior is tf1.disable_v2_behavior and not tf1.executing_eagerly()
    x = tf1.placeholder(tf1.float32, [None, 2])
    with tf1.Session() as sess:
        assert sess.run(x * 2.0, {x: np.ones((1, 2))}).tolist() == [[2.0, 2.0]]


@pytest.mark.parametrize("expr, parts", [
    ("tf.relu", ["did you mean tf.nn.relu"]),
    ("tf.nn.rleu", ["did you mean tf.nn.relu?"]),
    ("tf.placeholdr", ["did you mean tf.placeholder?"]),
    ("tf.train.AdamOptimzer", ["did you mean tf.train.AdamOptimizer"]),
    ("tf.compat.v1.nn.rleu", ["did you mean tf.nn.relu?"]),
    ("tf.nn.fractional_max_pool", ["is TensorFlow 1.15's, but TinyFlow does not have it"]),
    ("tf.extract_volume_patches", ["TensorFlow 1.15's", "tf.extract_image_patches"]),
])
def test_a_missing_name_says_what_is_close_and_whether_tf_has_it(expr, parts):
    with pytest.raises(AttributeError) as err:
        eval(expr, {"tf": tf})
    assert "is not supported by TinyFlow" in str(err.value)
    for part in parts:
        assert part in str(err.value)
    with pytest.raises(AttributeError) as err:
        _ = tf.zzz_not_a_name
    assert "TensorFlow" not in str(err.value) and "did you mean" not in str(err.value)


def test_moving_average_variables_to_restore_as_tensorflow():
    # TF 1.15 maps every trainable variable (and the collection moving_average_variables) to
    # its average's name, averaged or not; real TF 2.21's compat.v1 printed the keys
    # ['beta/ExponentialMovingAverage', 'gamma/ExponentialMovingAverage', 'pop_mean', 'w/...']
    w, gamma, beta = tf.Variable(1.0, name="w"), tf.Variable(2.0, name="gamma"), tf.Variable(
        3.0, name="beta")
    pop_mean = tf.Variable(0.0, trainable=False, name="pop_mean")
    ema = tf.train.ExponentialMovingAverage(decay=0.5)
    ema.apply([w, gamma])
    names = ema.variables_to_restore()
    assert sorted(names) == ["beta/ExponentialMovingAverage", "gamma/ExponentialMovingAverage",
                             "pop_mean", "w/ExponentialMovingAverage"]
    assert names["beta/ExponentialMovingAverage"] is beta and names["pop_mean"] is pop_mean
    assert sorted(ema.variables_to_restore([w])) == [
        "beta", "gamma", "gamma/ExponentialMovingAverage", "pop_mean",
        "w/ExponentialMovingAverage"]


def test_piecewise_constant_decay_is_tf1s_other_name():
    # TF 1.15 exports piecewise_constant under both names; real TF printed 1.0, 0.5, 0.1 for
    # steps 5, 6 and 16 of boundaries [5, 15]
    step = tf.placeholder(tf.int64, [])
    lr = tf.train.piecewise_constant_decay(step, [5, 15], [1.0, 0.5, 0.1])
    with tf.Session() as sess:
        np.testing.assert_allclose([sess.run(lr, {step: s}) for s in (5, 6, 16)], [1.0, 0.5, 0.1])


def test_optimizer_takes_tensorflows_gradient_arguments():
    # real TF (2.21's tf.compat.v1) printed Momentum Adam Sgd, step, [6. -12.], [0.9 -1.8]
    w = tf.Variable([1.0, -2.0])
    loss = tf.reduce_sum(w * w)
    opt = tf.train.MomentumOptimizer(0.1, 0.9)
    grad_loss = tf.placeholder(tf.float32, [])
    gv = opt.compute_gradients(loss, gate_gradients=tf.train.Optimizer.GATE_NONE,
                               grad_loss=grad_loss, colocate_gradients_with_ops=True,
                               aggregation_method=None)
    train = opt.minimize(loss, None, [w], tf.train.Optimizer.GATE_GRAPH, None, True, "step",
                         grad_loss)
    assert (opt.get_name(), tf.train.AdamOptimizer().get_name(),
            tf.train.GradientDescentOptimizer(0.1, name="Sgd").get_name()) == (
        "Momentum", "Adam", "Sgd")
    assert train.name == "step"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(gv[0][0], {grad_loss: 3.0}), [6.0, -12.0])
        sess.run(train, {grad_loss: 0.5})
        np.testing.assert_allclose(sess.run(w), [0.9, -1.8], rtol=1e-6)
    with pytest.raises(ValueError, match="gate_gradients must be one of"):
        opt.compute_gradients(loss, gate_gradients=7)


def test_dtype_limits_and_properties_as_tensorflow():
    # values real TF (2.21's tf.compat.v1) printed for the same properties
    assert tf.float32.max == np.finfo(np.float32).max and tf.float32.min == -tf.float32.max
    assert (tf.int32.min, tf.int32.max, tf.uint8.min, tf.uint8.max) == (-2**31, 2**31 - 1, 0,
                                                                         255)
    assert [d.as_datatype_enum for d in (tf.float32, tf.float64, tf.int32, tf.uint8, tf.int16,
                                         tf.int8, tf.string, tf.int64, tf.bool, tf.float16)] == [
        1, 2, 3, 4, 5, 6, 7, 9, 10, 19]
    assert tf.uint8.is_unsigned and not tf.int8.is_unsigned and not tf.bool.is_unsigned
    assert not tf.float32.is_complex and not tf.float32.is_quantized
    assert tf.float32.real_dtype == tf.float32 and tf.float32.is_compatible_with("float32")
    assert not tf.float32.is_compatible_with(tf.int32)
    with pytest.raises(TypeError, match="Cannot find minimum value of <dtype: 'bool'>"):
        _ = tf.bool.min


def test_py_func_errors_are_tensorflows_classes():
    # TF's PyFunc kernel: ValueError / TypeError -> InvalidArgumentError, StopIteration ->
    # OutOfRangeError, NotImplementedError -> UnimplementedError, MemoryError ->
    # ResourceExhaustedError, any other -> UnknownError (real TF 2.21's compat.v1 printed these
    # classes for this program); a tf.errors class raised by the function stays as it is
    def raising(exc):
        def func(value):
            raise exc("boom")
        return func
    x = tf.constant(1.0)
    expected = [(ValueError, tf.errors.InvalidArgumentError),
                (TypeError, tf.errors.InvalidArgumentError),
                (StopIteration, tf.errors.OutOfRangeError),
                (NotImplementedError, tf.errors.UnimplementedError),
                (MemoryError, tf.errors.ResourceExhaustedError),
                (KeyError, tf.errors.UnknownError), (ZeroDivisionError, tf.errors.UnknownError)]
    with tf.Session() as sess:
        for python_error, tf_error in expected:
            with pytest.raises(tf_error, match="boom") as info:
                sess.run(tf.py_func(raising(python_error), [x], tf.float32))
            assert isinstance(info.value.__cause__, python_error)
        with pytest.raises(tf.errors.NotFoundError):
            sess.run(tf.py_func(raising(lambda m: tf.errors.NotFoundError(None, None, m)), [x],
                                tf.float32))
