"""TensorFlow 1's graph and session API: graphs, names, scopes, collections, default sessions,
fetch structures, static shapes (TF 1.15 semantics)."""
import collections
import threading

import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _model():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    W = tf.Variable(tf.ones([3, 2]), name="W")
    return x, W, tf.matmul(x, W, name="y")


def test_names_follow_tensorflow():
    a, b = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    assert (a.name, b.name) == ("Placeholder:0", "Placeholder_1:0")  # tensors: "<op>:<i>"
    assert (a.op.name, b.op.name) == ("Placeholder", "Placeholder_1")
    v1, v2 = tf.Variable(tf.zeros([1])), tf.Variable(tf.zeros([1]), name="Variable")
    assert (v1.name, v2.name) == ("Variable:0", "Variable_1:0")
    assert v1.initial_assign.op.name == "Variable/Assign"
    c1, c2 = tf.exp(a, name="e"), tf.exp(a, name="e")
    assert (c1.op.name, c2.op.name) == ("e", "e_1")


def test_name_scopes_nest_and_are_made_unique():
    x = tf.placeholder(tf.float32, name="x")
    with tf.name_scope("layer") as scope:
        assert scope == "layer/"
        inner = tf.exp(x, name="act")
        with tf.name_scope("sub"):
            deeper = tf.exp(x)
    with tf.name_scope("layer") as again:
        second = tf.exp(x, name="act")
    with tf.name_scope("layer/"):  # re-entered as it is
        third = tf.exp(x, name="act")
    assert again == "layer_1/"
    assert (inner.op.name, deeper.op.name, second.op.name, third.op.name) == (
        "layer/act", "layer/sub/Exp", "layer_1/act", "layer/act_1")  # TF 1.15 names


def test_gradients_are_named_under_their_own_scope():
    x = tf.placeholder(tf.float32, [2], name="x")
    (g1,), (g2,) = tf.gradients(tf.reduce_sum(tf.exp(x)), [x]), tf.gradients(tf.exp(x), [x])
    assert g1.name.startswith("gradients/") and g2.name.startswith("gradients_1/")


def test_graphs_are_separate_and_default_per_with_block():
    outer = tf.get_default_graph()
    g = tf.Graph()
    with g.as_default():
        assert tf.get_default_graph() is g
        c = tf.constant(1.0, name="c")
    assert tf.get_default_graph() is outer and c.graph is g
    assert "c" not in outer.nodes_by_name and g.get_tensor_by_name("c:0").node is c.node
    with tf.Session(graph=g) as sess:
        assert sess.run(c) == 1.0
    with pytest.raises(tf.GraphError, match="'c'.*not an element of this session's graph"):
        tf.Session().run(c)


def test_default_graph_is_per_thread():
    g, seen = tf.Graph(), []
    with g.as_default():
        thread = threading.Thread(target=lambda: seen.append(tf.get_default_graph()))
        thread.start()
        thread.join(10)
    assert seen == [tf.get_default_graph()] and seen[0] is not g


def test_collections_and_graph_keys():
    tf.add_to_collection("losses", tf.constant(1.0, name="l1"))
    tf.add_to_collection("losses", tf.constant(2.0, name="l2"))
    assert [s.name for s in tf.get_collection("losses")] == ["l1:0", "l2:0"]
    assert tf.get_collection("missing") == []
    assert tf.GraphKeys.UPDATE_OPS == "update_ops" and tf.GraphKeys.GLOBAL_VARIABLES == "variables"


def test_with_session_is_default_and_eval_works():
    x, W, y = _model()
    with tf.Session() as sess:
        assert tf.get_default_session() is sess and sess.graph is tf.get_default_graph()
        tf.global_variables_initializer().run()
        np.testing.assert_array_equal(y.eval({x: np.ones((2, 3))}), np.full((2, 2), 3.0))
        np.testing.assert_array_equal(W.eval(), np.ones((3, 2)))
    assert tf.get_default_session() is None
    with pytest.raises(ValueError, match="no default session"):
        W.eval()


def test_interactive_session_is_default_until_closed():
    _, W, _ = _model()
    sess = tf.InteractiveSession()
    W.initializer.run()
    np.testing.assert_array_equal(W.eval(), np.ones((3, 2)))
    sess.close()
    assert tf.get_default_session() is None


def test_run_gives_back_the_structure_of_its_fetches():
    _, W, y = _model()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    Pair = collections.namedtuple("Pair", "weights outputs")
    feed = {"x:0": np.ones((1, 3))}  # a name as feed key
    out = sess.run({"y": y, "pair": Pair(W, [y, ("y:0",)])}, feed)
    assert set(out) == {"y", "pair"} and isinstance(out["pair"], Pair)
    np.testing.assert_array_equal(out["pair"].outputs[1][0], [[3.0, 3.0]])
    assert isinstance(out["pair"].outputs[1], tuple)
    assert sess.run([]) == [] and sess.run(W.initializer) is None
    with pytest.raises(KeyError, match="'nope:0'"):
        sess.run("nope:0")
    with pytest.raises(TypeError, match="can only fetch"):
        sess.run(3)


def test_tensor_static_shape_dtype_and_op():
    x, W, y = _model()
    assert y.get_shape().as_list() == [None, 2] and y.shape[1].value == 2
    assert x.get_shape()[0].value is None and W.get_shape().as_list() == [3, 2]
    flat = tf.reshape(tf.matmul(y, tf.ones([2, 6])), [-1, 3])
    assert flat.get_shape().as_list() == [None, 3]
    assert tf.placeholder(tf.float32).get_shape().ndims is None
    assert y.dtype == tf.float32 and y.op.name == "y" and y.op.type == "MatMul"
    assert y.graph is tf.get_default_graph()


def test_variables_print_as_tf_reference_variables():
    # TF 1.15's default (reference) variables; tensorflow 2.21 compat.v1 printed these
    v = tf.Variable([[1.0, 2.0]], name="v")
    assert repr(v) == str(v) == "<tf.Variable 'v:0' shape=(1, 2) dtype=float32_ref>"
    assert repr(tf.Variable(3, name="u")) == "<tf.Variable 'u:0' shape=() dtype=int32_ref>"
    w = tf.get_variable("w", [2, 3], dtype=tf.float64)
    assert repr(w) == "<tf.Variable 'w:0' shape=(2, 3) dtype=float64_ref>"


def test_tensors_and_operations_print_and_list_as_tf():
    x = tf.placeholder(tf.float32, [None, 10], name="x")
    unknown = tf.placeholder(tf.float32)
    y = tf.matmul(x, tf.zeros([10, 3]), name="y")
    assert str(x) == 'Tensor("x:0", shape=(?, 10), dtype=float32)'
    assert repr(x) == "<tf.Tensor 'x:0' shape=(?, 10) dtype=float32>"
    assert str(unknown) == 'Tensor("Placeholder:0", dtype=float32)'
    assert repr(unknown) == "<tf.Tensor 'Placeholder:0' shape=<unknown> dtype=float32>"
    assert repr(y.op) == "<tf.Operation 'y' type=MatMul>"
    step = tf.group(y, name="step")
    assert repr(step) == "<tf.Operation 'step' type=NoOp>"
    operations = tf.get_default_graph().get_operations()
    assert [op.name for op in operations] == ["x", "Placeholder", "zeros", "y", "step"]
    assert operations[3] is y.op and y.op.type == "MatMul"
    assert [t.name for t in y.op.inputs] == ["x:0", "zeros:0"]
    assert [t.name for t in y.op.outputs] == ["y:0"] and y.op.values()[0].name == "y:0"
    assert y.op.inputs[0].op is x.op and step.op.control_inputs == [y.op]
    assert tuple(operations[2].get_attr("shape")) == (10, 3)
    with pytest.raises(ValueError, match="no attr named 'nope'"):
        y.op.get_attr("nope")


def test_finalized_graph_refuses_new_ops_as_tf():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
    assert not g.finalized
    g.finalize()
    assert g.finalized
    message = "Graph is finalized and cannot be modified."
    with g.as_default():
        for make in (lambda: tf.constant(2.0), lambda: tf.placeholder(tf.float32),
                     lambda: tf.Variable(1.0), lambda: a * 2.0):
            with pytest.raises(RuntimeError, match=message):
                make()
        assert g.get_tensor_by_name("a:0").name == "a:0"
        with tf.Session() as sess:
            assert sess.run(a) == 1.0
    tf.constant(3.0)  # the default graph is not finalized


def test_operation_run_runs_the_op_in_the_default_session():
    v = tf.Variable(0.0)
    update = tf.assign_add(v, 2.0)
    with tf.Session() as sess:
        v.initializer.run()
        assert update.op.run() is None
        assert update.op.run(session=sess) is None
        assert v.eval() == 4.0
    x = tf.placeholder(tf.float32, [])
    fed_update = tf.assign(v, x)
    sess = tf.Session()
    sess.run(v.initializer)
    fed_update.op.run({x: 7.0}, session=sess)
    assert sess.run(v) == 7.0
    with pytest.raises(ValueError, match="no default session"):
        fed_update.op.run({x: 1.0})
    sess.close()


def test_op_inputs_are_tensors():
    # TF's op.inputs are tensors: name, shape, dtype, op, and usable in new ops
    x, _, y = _model()
    relu = tf.nn.relu(y * 2.0, name="relu")
    (scaled,) = relu.op.inputs
    assert scaled.name == f"{scaled.op.name}:0" and scaled.op.type == "Mul"
    assert scaled.shape.as_list() == [None, 2] and scaled.dtype == tf.float32
    assert scaled.op.inputs[0].op is y.op and scaled.graph is tf.get_default_graph()
    assert [t.shape.as_list() for t in y.op.inputs] == [[None, 3], [3, 2]]
    doubled = tf.identity(scaled * 2 + 1 - scaled / 2)  # operators and ops take them
    halves = tf.reduce_sum(relu.op.inputs[0], 1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: np.ones((2, 3), np.float32)}
        got, want, total = sess.run([doubled, y, halves], feed)
        np.testing.assert_allclose(got, want * 2 * 2 + 1 - want * 2 / 2)
        np.testing.assert_allclose(total, (want * 2).sum(1))
        np.testing.assert_allclose(scaled.eval(feed, session=sess), want * 2)


def test_operations_and_tensors_answer_tensorflows_questions():
    a = tf.placeholder(tf.float32, [2], name="a")
    c = tf.add(a, tf.constant([1.0, 2.0], name="b"), name="c")
    d = tf.nn.relu(c, name="d")
    e, f = tf.identity(d, name="e"), tf.identity(c, name="f")
    group = tf.group([d, [e, f]], name="G")  # nested lists, as TF's nest.flatten
    graph = tf.get_default_graph()
    op = graph.get_operation_by_name("c")
    # real TF 1.15 (2.21's compat.v1 printed the same)
    assert op.type == "AddV2" and [t.name for t in op.inputs] == ["a:0", "b:0"]
    assert [o.name for o in c.consumers()] == ["d", "f"] and d.value_index == 0
    assert group.type == "NoOp" and len(group.control_inputs) == 3 and group.inputs == []
    assert tf.no_op(name="n").control_inputs == []
    assert not hasattr(c, "type")  # a tensor has none
    missing = "refers to a Tensor which does not exist. The operation,"
    form = 'Tensor names must be of the form "<op_name>:<output_index>".'
    for name, error, text in [
            ("zzz:0", KeyError, f"'zzz:0' {missing} 'zzz', does not exist in the graph."),
            ("c:3", KeyError, f"'c:3' {missing} 'c', exists but only has 1 outputs."),
            ("c", ValueError, f"'c' refers to an Operation, not a Tensor. {form}"),
            ("zzz", ValueError, "'zzz' looks like an (invalid) Operation name, not a Tensor."),
            ("c:x", ValueError, "'c:x' looks a like a Tensor name, but is not a valid one.")]:
        with pytest.raises(error) as raised:
            graph.get_tensor_by_name(name)
        assert f"The name {text}" in str(raised.value)
    with pytest.raises(KeyError, match="The name 'zzz' refers to an Operation not in the graph"):
        graph.get_operation_by_name("zzz")


def test_op_type_is_tensorflows():
    # the types TensorFlow gives these ops, from real TF (tensorflow 2.21's tf.compat.v1 in
    # graph mode, as 1.15: x + y is AddV2 since 1.15, a tf.Variable's op VariableV2)
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    W = tf.Variable(tf.zeros([4, 3]), name="W")
    y = tf.matmul(x, W)
    img = tf.placeholder(tf.float32, [2, 6, 6, 3])
    tf_types = {"MatMul": y, "AddV2": y + y, "Mul": y * 2.0, "RealDiv": y / 2.0, "Neg": -y,
                "Relu": tf.nn.relu(y), "Softmax": tf.nn.softmax(y), "Sum": tf.reduce_sum(y),
                "Mean": tf.reduce_mean(y), "Const": tf.constant(1.0),
                "ConcatV2": tf.concat([y, y], 1), "GatherV2": tf.gather(y, [0]),
                "Shape": tf.shape(y), "Select": tf.where(y > 0, y, y),
                "TopKV2": tf.nn.top_k(y, 2).values, "Identity": tf.identity(y),
                "Cast": tf.cast(y, tf.int32), "Transpose": tf.transpose(y),
                "Conv2D": tf.nn.conv2d(img, tf.zeros([3, 3, 3, 2]), [1, 1, 1, 1], "SAME"),
                "MaxPool": tf.nn.max_pool(img, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
                "BiasAdd": tf.nn.bias_add(img, tf.zeros([3])), "LRN": tf.nn.lrn(img),
                "Tanh": tf.tanh(y), "ArgMax": tf.argmax(y, 1), "Pack": tf.stack([y, y]),
                "Reshape": tf.reshape(y, [-1]), "Sub": y - y, "Pow": y ** 2.0, "Exp": tf.exp(y),
                "AddN": tf.add_n([y, y, y]), "LogSoftmax": tf.nn.log_softmax(y)}
    assert {name: t.op.type for name, t in tf_types.items()} == {
        name: name for name in tf_types}
    assert x.op.type == "Placeholder" and W.op.type == "VariableV2"
    assert repr(y.op) == f"<tf.Operation '{y.op.name}' type=MatMul>"


def test_an_empty_int_constant_and_one_grad_ys_tensor_as_tf_takes_them():
    # TF 1.15: tf.constant([], tf.int32) is an empty int32 tensor (no Python float in it), and
    # tf.gradients(y, x, grad_ys=t) takes one tensor for one y (values checked with real TF:
    # [6, 6, 6] for y = 2x and grad_ys 3)
    empty = tf.constant([], tf.int32)
    x = tf.placeholder(tf.float32, [3])
    (grad,) = tf.gradients(x * 2.0, x, grad_ys=tf.ones([3]) * 3.0)
    sess = tf.Session()
    value = sess.run(empty)
    assert value.dtype == np.int32 and value.shape == (0,)
    assert sess.run(grad, {x: [1.0, 2.0, 3.0]}).tolist() == [6.0, 6.0, 6.0]
    with pytest.raises(TypeError, match="Python floats do not convert"):
        tf.constant([1.5], tf.int32)


def test_operators_take_numpy_arrays_and_lists_as_tf_converts_them():
    # TF 1.15: x * np.array([...]) and x + [...] convert the array to a constant of x's dtype
    # (x * np.ones(3) was a TypeError: float() of an array)
    x = tf.placeholder(tf.float32, [2, 3])
    i = tf.placeholder(tf.int32, [3])
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    row = np.array([1.0, 2.0, 3.0])
    sess = tf.Session()
    got = sess.run([x * row, row * x, x + [1, 2, 3], [1.0, 1.0, 1.0] - x, x < row,
                    i * np.array([1, 2, 3])], {x: value, i: [2, 2, 2]})
    np.testing.assert_array_equal(got[0], value * row)
    np.testing.assert_array_equal(got[1], row * value)
    np.testing.assert_array_equal(got[2], value + [1, 2, 3])
    np.testing.assert_array_equal(got[3], 1.0 - value)
    np.testing.assert_array_equal(got[4], value < row)
    assert got[0].dtype == np.float32 and got[5].dtype == np.int32
    assert got[5].tolist() == [2, 4, 6]
    scalar = tf.placeholder(tf.float32, [])  # a scalar tensor is a tensor, not a number
    assert sess.run(x * scalar, {x: value, scalar: 2.0}).tolist() == (value * 2).tolist()
