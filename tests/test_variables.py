"""Variables: declaration, initialisation semantics (TensorFlow's and the seed's), the session's
VariableStore, and the one function finding shapes from initial values."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow import nnvm
from tinyflow.frontend.saver import Saver
from tinyflow.nnvm import BindError, Graph, GraphError, apply_passes, register_pass
from tinyflow.nnvm.variables import Initializer, Variable
from tinyflow.session.variables import VariableStore, initial_shapes

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _rand(*shape):
    return np.random.default_rng(0).normal(size=shape).astype(np.float32)


def test_a_variable_is_a_declared_symbol():
    v = tf.Variable(tf.zeros([2, 3]), name="v", trainable=False)
    assert isinstance(v, Variable) and isinstance(v, tf.Symbol)
    assert v.op.name == "v" and not v.trainable and not v.default
    assert v.initial_assign.node.kind == "assign"
    assert tf.all_variables() == [v] and tf.trainable_variables() == []
    assert isinstance(v.initializer, Initializer) and v.initializer.variables == [v]
    sess = tf.Session()
    assert sess.run(v.initializer) is None
    np.testing.assert_array_equal(sess.run(v), np.zeros((2, 3)))


def test_layer_variables_are_default_variables():
    x = tf.placeholder(tf.float32)
    tf.nn.linear(x, 3, name="fc", no_bias=False)
    weight, bias = tf.all_variables()
    assert (weight.op.name, bias.op.name) == ("fc_weight", "fc_bias")
    assert weight.default and bias.default and weight.trainable
    assert weight.initial_value.node.kind == "_variable_init"


def test_seed_flow_keeps_the_values_the_user_assigned():
    # the seed's mnist_mlp_auto_shape_inference: shapes from infer_variable_shapes, values by
    # assign, then initialize_all_variables() must not overwrite them with Glorot
    x = tf.placeholder(tf.float32)
    y = tf.nn.linear(tf.nn.relu(tf.nn.linear(x, 5, name="fc1", no_bias=False)), 2, name="fc2")
    sess = tf.Session()
    assigns, expected = [], {}
    for i, (v, name, shape) in enumerate(tf.infer_variable_shapes(y, {x: (4, 3)})):
        expected[name] = np.full(shape, 0.1 * (i + 1), np.float32)
        assigns.append(tf.assign(v, tf.constant(expected[name])))
    sess.run(assigns)
    sess.run(tf.initialize_all_variables())
    for v in tf.all_variables():
        np.testing.assert_array_equal(sess.run(v), expected[v.op.name])
    xs = _rand(4, 3)
    hidden = np.maximum(xs @ expected["fc1_weight"].T + expected["fc1_bias"], 0)
    np.testing.assert_allclose(sess.run(y, {x: xs}), hidden @ expected["fc2_weight"].T,
                               rtol=1e-5)


def test_tf_variable_is_initialised_by_its_initialiser_whatever_was_assigned():
    # TensorFlow: running the initialiser resets a tf.Variable to its initial value
    v = tf.Variable(tf.ones([3]), name="v")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run(tf.assign(v, tf.constant([5.0, 6.0, 7.0])))
    sess.run(tf.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(v), np.ones(3))


def test_a_restored_layer_variable_survives_the_initialiser(tmp_path):
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.nn.linear(x, 3, name="fc")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    xs = _rand(2, 4)
    expected = sess.run(y, {x: xs})
    path = Saver().save(sess, tmp_path / "fc.npz")
    other = tf.Session()
    Saver().restore(other, path)
    other.run(tf.global_variables_initializer())
    np.testing.assert_array_equal(other.run(y, {x: xs}), expected)


def test_initialiser_that_waits_is_dropped_by_an_assign():
    x = tf.placeholder(tf.float32)
    y = tf.nn.linear(x, 2, name="fc")
    (weight,) = tf.all_variables()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())  # fc_weight's shape is unknown: it waits
    assert not sess.variable_store.is_initialized(weight.node)
    sess.run(tf.assign(weight, tf.ones([2, 3])))
    assert sess.variable_store.is_initialized(weight.node)
    np.testing.assert_array_equal(sess.run(y, {x: np.ones((1, 3))}), [[3.0, 3.0]])


def test_the_store_makes_the_tensors_executors_read(monkeypatch):
    x = tf.placeholder(tf.float32)
    y = tf.nn.linear(x, 2, name="fc")
    (weight,) = tf.all_variables()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())  # waits for fc_weight's shape
    feed = {x: np.ones((1, 3), np.float32)}

    def fail(executor, variables):
        raise RuntimeError("a build failing after bind")
    with monkeypatch.context() as patch:
        patch.setattr("tinyflow.executor.Executor.allocate", fail)
        with pytest.raises(RuntimeError, match="after bind"):
            sess.run(y, feed)
    assert weight.node not in sess.variable_store  # the failed build left the store as it was
    sess.run(y, feed)
    store_tensor = sess.variable_store[weight.node]
    assert tuple(store_tensor.shape) == (2, 3) and sess.variable_store.is_initialized(weight.node)
    executor = sess._bind(y, feed)  # the executor reads the store's tensor itself
    assert any(t is store_tensor for t in executor.tensors)


def test_variables_initializer_initialises_only_its_variables():
    a, b = tf.Variable(tf.ones([2]), name="a"), tf.Variable(tf.zeros([2]), name="b")
    sess = tf.Session()
    sess.run(tf.variables_initializer([a]))
    np.testing.assert_array_equal(sess.run(a), [1.0, 1.0])
    with pytest.raises(BindError, match="variable 'b'"):
        sess.run(b)


def test_initial_shapes_from_values_known_shapes_and_feeds():
    p = tf.placeholder(tf.float32, name="p")
    fixed = tf.Variable(tf.zeros([2, 5]), name="fixed")
    fed = tf.Variable(p * 2, name="fed", validate_shape=False)  # TF: shape unknown
    x = tf.placeholder(tf.float32)
    tf.nn.linear(x, 3, name="fc")
    layer = tf.all_variables()[-1]
    shapes = initial_shapes([fixed, fed, layer])
    assert shapes == {fixed.node: (2, 5), fed.node: None, layer.node: None}
    shapes = initial_shapes([fed, layer], {p.node: (4,), layer.node: (3, 7)})
    assert shapes == {fed.node: (4,), layer.node: (3, 7)}
    with pytest.raises(tf.ShapeError):
        initial_shapes([fixed], {fixed.node: (3, 3)})


def test_variable_store_is_a_mapping_with_state():
    store = VariableStore()
    v = tf.Variable(tf.zeros([2]), name="v")
    assert len(store) == 0 and v.node not in store
    with pytest.raises(BindError, match="variable 'v'"):
        store.check_initialized([v.node])
    import torch
    store.restore(v.node, torch.ones(2), torch.device("cpu"))
    assert store.is_initialized(v.node) and store.shapes() == {v.node: (2,)}
    store.check_initialized([v.node])
    store.clear()
    assert len(store) == 0 and not store.is_initialized(v.node)


# -- passes: pure, and checked against what they declare ----------------------------------------
def test_gradient_pass_names_its_nodes_apart_from_global_state():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(tf.zeros([3, 2]), name="w")
    loss = tf.reduce_sum(tf.matmul(x, w, name="mm"))
    graph = Graph(loss.outputs, {"grad_xs": w.outputs, "grad_name_prefix": "g/"})
    first = apply_passes(graph, "Gradient")
    tf.exp(x)  # moves the global name counters
    second = apply_passes(graph, "Gradient")

    def names(g):
        return [n.name for n in g.indexed.nodes]
    assert names(first) == names(second)
    made = [n for n in first.indexed.nodes if n.name.startswith("g/")]
    assert made and all(n.op is not None for n in made)
    # each gradient node says which user line made the forward node behind it
    assert {n.source for n in made} <= {loss.node.source, w.node.source,
                                        loss.node.inputs[0].node.source}


def test_tf_gradients_names_each_call_apart():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.reduce_sum(tf.exp(x))
    (g1,), (g2,) = tf.gradients(y, [x]), tf.gradients(y, [x])
    assert g1.name.split("/")[0] != g2.name.split("/")[0]


def test_a_failing_gradient_rule_names_its_node():
    def bad_rule(node, ograds):
        raise ZeroDivisionError("rule bug")
    nnvm.register_op("test_bad_grad").set_num_inputs(1).set_attr(
        "FInferShape", nnvm.same_shape).set_attr("FGradient", bad_rule, overwrite=True)
    x = tf.placeholder(tf.float32, [2])
    y = nnvm.symbol.test_bad_grad(x, name="culprit")
    with pytest.raises(GraphError, match="culprit.*ZeroDivisionError: rule bug"):
        tf.gradients(y, [x])


def test_apply_passes_checks_what_a_pass_provides():
    @register_pass("_TestForgetful", provides=("promised",))
    def forgetful(graph):
        return graph
    with pytest.raises(GraphError, match="_TestForgetful did not provide.*promised"):
        apply_passes(Graph([]), "_TestForgetful")


def test_the_store_makes_one_tensor_per_variable_when_two_binds_race():
    """Two executors bound at once (a later stage of a graph bound in stages, in two threads)
    may both find a variable without a tensor: the first tensor made stays, the second
    create makes none (returns nothing to discard), so both executors share it."""
    v = tf.Variable(tf.zeros([2, 3]), name="shared")
    store = VariableStore()
    node = v.outputs[0].node
    assert store.create({node: ((2, 3), "float32")}, "cpu") == [node]
    first = store[node]
    assert store.create({node: ((2, 3), "float32")}, "cpu") == []
    assert store[node] is first
    store.discard([])
    assert store[node] is first


# -- an initial value whose static shape is not fully known (TF 1.15's validate_shape) --------
def test_an_initial_value_of_unknown_shape_is_refused_unless_not_validated():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    # TF's message, recorded: initial_value must have a shape specified: Tensor("mul:0", ...)
    with pytest.raises(ValueError, match=r'^initial_value must have a shape specified: '
                                         r'Tensor\("mul:0", shape=\(\?, 3\), dtype=float32\)$'):
        tf.Variable(x * 2)
    with pytest.raises(ValueError, match=r'initial_value must have a shape specified: '
                                         r'Tensor\("zeros:0", shape=\(\?, 3\)'):
        tf.Variable(tf.zeros(tf.shape(x)))
    v = tf.Variable(x * 2, validate_shape=False)
    w = tf.Variable(tf.zeros([2, 2]), validate_shape=False)
    y = v + 1.0
    # TF: no static shape for either, nor for what reads them
    assert [str(t.get_shape()) for t in (v, w, y)] == ["<unknown>"] * 3
    assert str(v.initial_value.get_shape()) == "(?, 3)"
    with tf.Session() as sess:
        sess.run(v.initializer, {x: np.ones((2, 3))})
        sess.run(w.initializer)
        # TF's values: the variable takes the value's shape when it is initialised
        assert sess.run(v).tolist() == [[2.0] * 3] * 2 and sess.run(y).tolist() == [[3.0] * 3] * 2
        assert sess.run(w).shape == (2, 2)


def test_get_variable_validates_shapes_as_tensorflow():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with pytest.raises(ValueError, match=r"initial_value must have a shape specified: "
                                         r"Tensor\(\"mul:0\", shape=\(\?, 3\)"):
        tf.get_variable("g", initializer=x * 2)
    g = tf.get_variable("g2", initializer=x * 2, validate_shape=False)
    assert str(g.get_shape()) == "<unknown>" and g.name == "g2:0"
    # TF 1.15's message (variable_scope._get_single_variable)
    with pytest.raises(ValueError, match=r"Shape of a new variable \(g3\) must be fully "
                                         r"defined, but instead was \(\?, 3\)\."):
        tf.get_variable("g3", shape=[None, 3], initializer=tf.zeros_initializer())
    with tf.Session() as sess:
        sess.run(g.initializer, {x: np.full((4, 3), 0.5)})
        assert sess.run(g).tolist() == [[1.0] * 3] * 4


def test_slots_of_a_variable_without_a_static_shape_follow_it():
    # an optimizer's slots (TF's create_slot: validate_shape only where the shape is known)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    v = tf.Variable(tf.ones_like(x), validate_shape=False)
    loss = tf.reduce_sum(v * v)
    train = tf.train.AdamOptimizer(0.1).minimize(loss, var_list=[v])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer(), {x: np.zeros((2, 3))})
        sess.run(train)
        adam_first_step = 1.0 - 0.1  # Adam moves each element by lr on its first step
        np.testing.assert_allclose(sess.run(v), np.full((2, 3), adam_first_step), rtol=1e-5)
