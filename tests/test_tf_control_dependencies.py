"""tf.control_dependencies, tf.group / tf.no_op, tf.identity, tf.stop_gradient, stop_gradients
and variable collections, as TensorFlow 1.15 documents them."""
import numpy as np
import pytest
import torch

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_identity_under_control_dependencies_reads_the_updated_value(plan_memory):
    v = tf.Variable(1.0)
    update = tf.assign_add(v, 2.0)
    with tf.control_dependencies([update]):
        after = tf.identity(v)
    before = tf.identity(v)
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    assert sess.run(before) == 1.0  # no dependency: the update does not run
    assert sess.run(after) == 3.0 and sess.run(after) == 5.0
    assert after.op.type == "Identity" and after.op.name == "Identity"


def test_control_dependencies_nest_and_none_clears_them():
    a, b = tf.constant(1.0, name="a"), tf.constant(2.0, name="b")
    with tf.control_dependencies([a]):
        x = tf.exp(a)
        with tf.control_dependencies([b]):
            y = tf.exp(a)
            with tf.control_dependencies(None):
                z = tf.exp(a)
    assert x.op.control_deps == [a.op] and y.op.control_deps == [a.op, b.op]
    assert z.op.control_deps == []
    with pytest.raises(TypeError, match="control input"), tf.control_dependencies([1.0]):
        pass


def test_group_is_one_named_operation_running_its_inputs(plan_memory):
    v, w = tf.Variable(0.0), tf.Variable(10.0)
    train = tf.group(tf.assign_add(v, 1.0), [tf.assign_sub(w, 1.0)], name="train")
    assert train.name == "train" and train.op.type == "NoOp"
    default = tf.group(tf.no_op())
    assert default.name == "group_deps"
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    assert sess.run(train) is None and sess.run("train") is None
    train.run(session=sess)
    assert sess.run([v, w]) == [3.0, 7.0]
    with pytest.raises(TypeError, match="operation 'train'"):
        tf.exp(train)  # an operation has no value


def test_a_variable_made_inside_control_dependencies_initialises_without_them():
    counter = tf.Variable(0.0)
    bump = tf.assign_add(counter, 1.0)
    zeros = tf.zeros([2])
    with tf.control_dependencies([bump]):
        later = tf.Variable(zeros)  # TF makes its initializer in init_scope
    sess = tf.Session()
    sess.run(counter.initializer)
    sess.run(later.initializer)
    assert sess.run(counter) == 0.0


def test_stop_gradient_against_torch_detach(plan_memory):
    values = np.random.RandomState(0).randn(3).astype(np.float32)
    x = tf.placeholder(tf.float32, [3])
    y = tf.reduce_sum(x * tf.stop_gradient(x * x) + tf.exp(x))
    (grad,) = tf.gradients(y, [x])
    t = torch.tensor(values, requires_grad=True)
    (t * (t * t).detach() + t.exp()).sum().backward()
    got = tf.Session(plan_memory=plan_memory).run(grad, {x: values})
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-6)
    assert tf.gradients(tf.stop_gradient(x), [x]) == [None]


def test_gradients_stop_gradients_as_tensorflow_documents():
    # tf.gradients' docstring: a = 0; b = 2 * a; gradients(a + b, [a, b], stop_gradients=[a, b])
    # is [1.0, 1.0], where without stop_gradients it would be [3.0, 1.0]
    a = tf.constant(0.0)
    b = 2 * a
    sess = tf.Session()
    assert sess.run(tf.gradients(a + b, [a, b], stop_gradients=[a, b])) == [1.0, 1.0]
    assert sess.run(tf.gradients(a + b, [a, b])) == [3.0, 1.0]


def test_variable_collections_global_local_trainable():
    w = tf.Variable(tf.zeros([2]), name="w")
    frozen = tf.Variable(1.0, False, name="frozen")  # TF's positional order: trainable second
    count = tf.Variable(0, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES],
                        name="count")
    with tf.variable_scope("gen"):
        g = tf.get_variable("g", [3])
    assert tf.global_variables() == [w, frozen, g]
    assert tf.trainable_variables() == [w, g] and tf.local_variables() == [count]
    assert tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="gen") == [g]
    assert tf.trainable_variables("g.n/") == [g]  # scope is a regular expression
    sess = tf.Session()
    sess.run(tf.local_variables_initializer())
    assert sess.run(count) == 0
    with pytest.raises(tf.TinyflowError, match="'w'"):
        sess.run(w)  # local_variables_initializer leaves the global ones alone


def test_assign_converts_numbers_to_the_variable_dtype(plan_memory):
    f, i = tf.Variable(1.0), tf.Variable(3)
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    assert sess.run(tf.assign(f, 2)) == 2.0 and sess.run(f).dtype == np.float32
    assert sess.run(tf.assign(i, np.int64(5))) == 5 and sess.run(i).dtype == np.int32
    with pytest.raises(TypeError, match="expected int32, got 2.5"):
        tf.assign(i, 2.5)  # TF: a float does not convert to an int32 tensor
    with pytest.raises(tf.nnvm.DTypeError, match="op 'assign'.*float32.*int32"):
        sess.run(tf.assign(i, tf.constant(2.5)))
    assert sess.run(i) == 5
