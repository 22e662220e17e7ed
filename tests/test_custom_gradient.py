"""tf.custom_gradient, tf.RegisterGradient and Graph.gradient_override_map, as TF 1.15's graph
mode: values against numpy, gradients against the rule the program gives (numbers from real
TensorFlow, tf.compat.v1 in /work/tfvenv, written down where said), documents refused."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.nnvm import Graph, GraphError, apply_passes
from tinyflow.nnvm.passes.serialize import load_json, save_json

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _run(fetches, plan_memory=True, init=False):
    with tf.Session(plan_memory=plan_memory) as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


@tf.custom_gradient
def _log1pexp(x):
    e = tf.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return tf.log(1 + e), grad


def test_log1pexp_value_and_its_stable_gradient(plan_memory):
    x = tf.constant([0.0, 1.0, 100.0])
    y = _log1pexp(x)
    assert y.op.type == "IdentityN"  # TF's op type too
    value, (grad,) = _run([y, tf.gradients(y, x)], plan_memory)
    np.testing.assert_allclose(value[:2], np.log1p(np.exp([0.0, 1.0])), rtol=1e-6)
    assert np.isinf(value[2])  # log(1 + e^100) in float32, as TF's
    # real TF 1.15 semantics (tf.compat.v1): [0.5, 0.7310586, 1.0], the custom rule's, not NaN
    np.testing.assert_allclose(grad, 1 / (1 + np.exp(-np.array([0.0, 1.0, 100.0]))), rtol=1e-6)


def test_several_args_and_results(plan_memory):
    @tf.custom_gradient
    def f(a, b):
        def grad(da, db):
            return [da * 3 + db, db * 5]
        return (a * b, a + b), grad
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    product, total = f(a, b)
    grads = tf.gradients(product * 2 + total * 7, [a, b])
    got_product, got_total, got_a, got_b = _run([product, total, *grads], plan_memory)
    np.testing.assert_allclose(got_product, [3.0, 8.0])
    np.testing.assert_allclose(got_total, [4.0, 6.0])
    # real TF: [13, 13] and [35, 35]: da = 2, db = 7 go through the rule only
    np.testing.assert_allclose(got_a, [13.0, 13.0])
    np.testing.assert_allclose(got_b, [35.0, 35.0])


def test_variables_read_inside_get_the_rules_gradients():
    w = tf.get_variable("w", initializer=[2.0, 3.0])

    @tf.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            assert variables == [w]
            return dy * 10.0, [dy * 100.0 * tf.ones_like(variables[0])]
        return x * w, grad
    x = tf.constant([1.0, 1.0])
    got = _run(tf.gradients(tf.reduce_sum(f(x)), [x, w]), init=True)
    np.testing.assert_allclose(got[0], [10.0, 10.0])  # real TF: [10, 10], [100, 100]
    np.testing.assert_allclose(got[1], [100.0, 100.0])


def test_a_variable_trained_through_a_custom_gradient():
    w = tf.Variable([1.0, -1.0])

    @tf.custom_gradient
    def clipped_square(v):
        def grad(dy, variables=None):  # the gradient of sum(v * w * w), clipped to [-1, 1]
            return dy * w * w, [tf.clip_by_value(dy * 2 * v * variables[0], -1.0, 1.0)]
        return v * w * w, grad
    step = tf.train.GradientDescentOptimizer(0.5).minimize(
        tf.reduce_sum(clipped_square(tf.constant([3.0, 0.25]))))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)
        # numpy: w - 0.5 * clip(2 * v * w, -1, 1) = [1 - 0.5, -1 + 0.5 * 0.5]
        np.testing.assert_allclose(sess.run(w), [0.5, -0.75])


def test_misuse_is_refused_as_tf_does():
    w = tf.Variable([1.0])

    @tf.custom_gradient
    def no_variables_argument(x):
        return x * w, lambda dy: dy
    with pytest.raises(TypeError, match="must accept a keyword argument 'variables'"):
        no_variables_argument(tf.constant([1.0]))
    with pytest.raises(ValueError, match="keywords arguments only when eager"):
        _log1pexp(x=tf.constant(1.0))

    @tf.custom_gradient
    def too_few(a, b):
        return a + b, lambda dy: [dy]
    a = tf.constant(1.0)
    with pytest.raises(GraphError, match="returned 1 gradients for 2 arguments"):
        tf.gradients(too_few(a, tf.constant(2.0)), a)


@tf.RegisterGradient("TestGradReverse")  # process-wide, as TF's registry: once per module
def _reverse(op, grad):
    assert op.type == "Identity" and len(op.inputs) == 1
    return -2.0 * grad


def test_override_map_uses_the_registered_gradient_and_op_types_own(plan_memory):
    with pytest.raises(KeyError, match="Registering two gradient with name 'TestGradReverse'"):
        tf.RegisterGradient("TestGradReverse")(_reverse)
    z = tf.constant([1.5, -2.5])
    graph = tf.get_default_graph()
    with graph.gradient_override_map({"Identity": "TestGradReverse", "Sign": "Identity",
                                      "Round": "Identity"}):
        identity, sign, rounded = tf.identity(z), tf.sign(z), tf.round(z)
    outside = tf.identity(z)
    assert identity.op.get_attr("_gradient_op_type") == "TestGradReverse"
    assert "_gradient_op_type" not in outside.op.attrs
    loss = tf.reduce_sum(identity * 3.0 + sign * 5.0 + rounded * 7.0 + outside)
    values, (grad,) = _run([[identity, sign, rounded], tf.gradients(loss, z)], plan_memory)
    np.testing.assert_allclose(values, [[1.5, -2.5], [1.0, -1.0], [2.0, -2.0]])
    # real TF: [6, 6] without the outside identity (-6 + 5 + 7, sign and round straight through)
    np.testing.assert_allclose(grad, [7.0, 7.0])


def test_an_unregistered_override_is_an_error_naming_it():
    z = tf.constant([1.0])
    with tf.get_default_graph().gradient_override_map({"Exp": "NoSuchGradient"}):
        y = tf.exp(z)
    with pytest.raises(GraphError, match="no gradient is registered under the name "
                                         "'NoSuchGradient'"):
        tf.gradients(y, z)
    with pytest.raises(TypeError, match="must be strings"), \
            tf.get_default_graph().gradient_override_map({"Exp": 3}):
        pass


def test_a_document_names_an_override_and_never_holds_a_custom_gradient():
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.get_default_graph().gradient_override_map({"Exp": "TestDocExp"}):
        y = tf.exp(x)
    loaded = load_json(save_json(Graph(y.outputs)))
    assert loaded.outputs[0].node.attrs["_gradient_op_type"] == "TestDocExp"
    # a custom_gradient node's function: no document can give one (test_untrusted_graphs
    # walks every op holding Python objects)
    doc = ('{"nodes": [{"op": "null", "name": "x", "inputs": [], "attrs": {"kind": "placeholder"}},'
           ' {"op": "custom_gradient", "name": "n", "inputs": [[0, 0]], "attrs": {"num_args": 1,'
           ' "num_results": 1, "grad_fn": "os.system"}}], "heads": [[1, 0]]}')
    with pytest.raises(GraphError, match="'custom_gradient' must be one of plain attributes"):
        apply_passes(Graph([], {"json": doc}), "LoadJSON")


def test_hessians_as_tensorflows(plan_memory):
    w = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    u = tf.constant([0.5, -1.0])
    f = (tf.reduce_sum(tf.exp(tf.reshape(w, [-1]) * 0.3) * tf.reduce_sum(w * w))
         + tf.reduce_sum(u ** 3) * tf.reduce_sum(w))
    h_w, h_u = _run(tf.hessians(f, [w, u]), plan_memory)
    # numpy: f(w) = e(w) * s(w) with e = sum exp(0.3 w), s = sum w^2, plus (sum u^3) sum w;
    # d2f/dwi dwj = 0.09 exp(0.3 wi) s [i == j] + 0.6 (exp(0.3 wi) wj + exp(0.3 wj) wi) + 2 e [i == j]
    flat = np.float64([1, 2, 3, 4])
    exp = np.exp(0.3 * flat)
    want = (np.diag(0.09 * exp * (flat ** 2).sum() + 2 * exp.sum())
            + 0.6 * (np.outer(exp, flat) + np.outer(flat, exp)))
    np.testing.assert_allclose(h_w, want.reshape(2, 2, 2, 2), rtol=1e-5)
    np.testing.assert_allclose(h_u, np.diag(6 * np.float64([0.5, -1.0]) * 10), atol=1e-5)
    # real TF: h_w[0, 0] = [[23.167845, 2.713102], [3.9055083, 5.231732]], h_u [[30, 0], [0, -60]]
    np.testing.assert_allclose(h_w[0, 0], [[23.167845, 2.713102], [3.9055083, 5.231732]],
                               rtol=1e-5)
