"""TensorFlow 1.15's tf.nest, tf.errors' codes and classes, tf.VERSION..., tf.double / tf.half
and the variable, collection and gradient names (tf.get_local_variable, tf.model_variables,
tf.get_collection_ref, tf.init_scope, tf.NotDifferentiable, tf.UnconnectedGradients...):
results and messages written down from real TensorFlow (tf.compat.v1, /work/tfvenv)."""
import collections

import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")
Pair = collections.namedtuple("Pair", "a b")


def test_nest_flatten_and_pack_as_tf():
    nest = tf.nest
    # each from real TF
    assert nest.flatten({"b": [1, 2], "a": (3, {"z": 4, "y": None})}) == [3, None, 4, 1, 2]
    assert nest.flatten(None) == [None] and nest.flatten("ab") == ["ab"]
    array = np.array([1, 2])
    assert nest.flatten(array)[0] is array
    assert nest.flatten(Pair(1, [2, 3])) == [1, 2, 3]
    assert nest.pack_sequence_as({"b": [0, 0], "a": (0,)}, [1, 2, 3]) == {"b": [2, 3], "a": (1,)}
    ordered = nest.pack_sequence_as(collections.OrderedDict([("b", 0), ("a", 0)]), [1, 2])
    assert list(ordered.items()) == [("b", 2), ("a", 1)]
    assert nest.pack_sequence_as(Pair(0, [0]), [5, 6]) == Pair(5, [6])
    assert nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)]) == [11, (22, 33)]
    assert [nest.is_nested(v) for v in ([1], "ab", {}, np.array([1]), range(3), {1, 2})] == [
        True, False, True, False, True, False]
    deep = 0
    for _ in range(3000):  # deeper than the recursion limit
        deep = [deep]
    assert nest.flatten(deep) == [0]


def test_nest_refusals_as_tf():
    nest = tf.nest
    with pytest.raises(ValueError, match='Substructure "type=list str=\\[2\\]" is a sequence, '
                                         'while substructure "type=int str=2" is not'):
        nest.assert_same_structure([1, [2]], [1, 2])
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        nest.assert_same_structure((1, 2), [1, 2])
    nest.assert_same_structure((1, 2), [1, 2], check_types=False)
    with pytest.raises(TypeError, match="has type Pair, while second structure"):
        nest.assert_same_structure(Pair(1, 2), (1, 2))
    with pytest.raises(ValueError, match="don't have the same set of keys"):
        nest.assert_same_structure({"a": 1}, {"b": 1})
    with pytest.raises(ValueError, match="don't have the same number of elements"):
        nest.assert_same_structure([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="Structure had 2 atoms, but flat_sequence had 1 items"):
        nest.pack_sequence_as([0, 0], [1])
    with pytest.raises(ValueError, match="The target structure is of type `<class 'int'>`"):
        nest.pack_sequence_as(0, [1, 2])
    with pytest.raises(TypeError, match="Attempted to pack value"):
        nest.pack_sequence_as([0], 1)
    with pytest.raises(TypeError, match="func must be callable, got: 1"):
        nest.map_structure(1, [1])
    with pytest.raises(ValueError, match="Must provide at least one structure"):
        nest.map_structure(lambda x: x)
    with pytest.raises(AttributeError, match="tf.nest.flatten_up_to is not supported"):
        nest.flatten_up_to  # noqa: B018


def test_error_codes_and_classes_as_tf():
    errors = tf.errors
    codes = [errors.OK, errors.CANCELLED, errors.UNKNOWN, errors.INVALID_ARGUMENT,
             errors.DEADLINE_EXCEEDED, errors.NOT_FOUND, errors.ALREADY_EXISTS,
             errors.PERMISSION_DENIED, errors.UNAUTHENTICATED, errors.RESOURCE_EXHAUSTED,
             errors.FAILED_PRECONDITION, errors.ABORTED, errors.OUT_OF_RANGE,
             errors.UNIMPLEMENTED, errors.INTERNAL, errors.UNAVAILABLE, errors.DATA_LOSS]
    assert codes == [0, 1, 2, 3, 4, 5, 6, 7, 16, 8, 9, 10, 11, 12, 13, 14, 15]  # real TF's
    classes = [errors.CancelledError, errors.UnknownError, errors.InvalidArgumentError,
               errors.DeadlineExceededError, errors.NotFoundError, errors.AlreadyExistsError,
               errors.PermissionDeniedError, errors.UnauthenticatedError,
               errors.ResourceExhaustedError, errors.FailedPreconditionError,
               errors.AbortedError, errors.OutOfRangeError, errors.UnimplementedError,
               errors.InternalError, errors.UnavailableError, errors.DataLossError]
    for cls in classes:
        assert issubclass(cls, errors.OpError)
        assert errors.exception_type_from_error_code(cls.error_code) is cls
        assert errors.error_code_from_exception_type(cls) == cls.error_code
    assert errors.InvalidArgumentError(None, None, "m").error_code == 3
    error = errors.AbortedError(None, "node", "msg")
    assert (str(error), error.op, error.message, error.error_code) == ("msg", "node", "msg", 10)
    assert errors.OpError(None, None, "m", 5).error_code == 5
    with pytest.raises(KeyError):
        errors.exception_type_from_error_code(99)
    with pytest.raises(KeyError):
        errors.error_code_from_exception_type(ValueError)


def test_versions_and_dtype_aliases():
    assert tf.VERSION == tf.__version__  # TinyFlow's own version, not TensorFlow's
    assert isinstance(tf.GIT_VERSION, str) and isinstance(tf.COMPILER_VERSION, str)
    assert tf.double == tf.float64 and tf.half == tf.float16
    assert _run(tf.cast(tf.constant([1.5]), tf.double)).dtype == np.float64


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


def test_variable_and_collection_names():
    local = tf.get_local_variable("counter", shape=[2], initializer=tf.zeros_initializer())
    assert local in tf.local_variables()
    assert local not in tf.global_variables() and local not in tf.trainable_variables()
    weight = tf.Variable(1.0, name="w")
    tf.train.ExponentialMovingAverage(0.9).apply([weight])
    assert tf.moving_average_variables() == [weight] and tf.model_variables() == []
    ref = tf.get_collection_ref("mine")
    ref.append(3)
    assert tf.get_collection("mine") == [3]
    tf.add_to_collections(["a", "b", "a"], 5)
    assert tf.get_collection("a") == [5] and tf.get_collection("b") == [5]
    tf.get_variable("q", [2], regularizer=tf.no_regularizer)
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == []
    with tf.Session() as sess:
        sess.run([tf.initialize_variables([weight]), tf.initialize_local_variables()])
        assert sess.run(local).tolist() == [0, 0] and sess.run(weight) == 1.0
    with tf.control_dependencies([weight.op]):
        with tf.init_scope():
            lifted = tf.constant(1.0)
        inside = tf.constant(2.0)
    assert lifted.op.control_inputs == [] and inside.op.control_inputs == [weight.op]


def test_gradient_names():
    x = tf.placeholder(tf.float32, [3])
    y = tf.placeholder(tf.float32, [3])
    assert tf.gradients(x * 2, [x, y])[1] is None
    grads = tf.gradients(x * 2, [x, y], unconnected_gradients=tf.UnconnectedGradients.ZERO,
                         aggregation_method=tf.AggregationMethod.ADD_N)
    got = _run(grads, {x: [1, 2, 3], y: [1, 1, 1]})
    assert got[0].tolist() == [2, 2, 2] and got[1].tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tf.gradients(x, [x], unconnected_gradients="ones")
    tf.NotDifferentiable("TestNoGradSin")
    with tf.get_default_graph().gradient_override_map({"Sin": "TestNoGradSin"}):
        stopped = tf.sin(x)
    assert tf.gradients(stopped, x) == [None]
    assert _run(tf.gradients(stopped + x, x), {x: [1, 2, 3]})[0].tolist() == [1, 1, 1]
    with pytest.raises(KeyError, match="TestNoGradSin"):
        tf.no_gradient("TestNoGradSin")
    with pytest.raises(TypeError, match="op_type must be a string"):
        tf.NoGradient(3)


def test_which_variables_hold_a_value():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable([1.0, 2.0], name="b")
    local = tf.Variable(0, name="count", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    report, a_held = tf.report_uninitialized_variables(), tf.is_variable_initialized(a)
    check = tf.assert_variables_initialized([a, b])
    with tf.Session() as sess:
        # as real TF: names as bytes, the global variables then the local ones
        assert sess.run(report).tolist() == [b"a", b"b", b"count"]
        assert not sess.run(a_held)
        sess.run(a.initializer)
        assert sess.run(report).tolist() == [b"b", b"count"] and sess.run(a_held)
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value b"):
            sess.run(check)
        assert sess.run(a) == 1.0  # the session goes on
        sess.run([b.initializer, local.initializer])
        assert sess.run(check) is None and sess.run(report).tolist() == []
        assert sess.run(tf.report_uninitialized_variables([a])).tolist() == []
