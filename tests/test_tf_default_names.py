"""TensorFlow 1.15's default names of ops and tensors (``a * b`` is ``mul:0``, ``tf.matmul``'s
``MatMul:0``, unique regardless of case: ``add``, ``add_1``, then ``tf.add``'s ``Add_2``), and
its operators' autopacking of a list holding tensors (``x * [t, 3.0]``).

Every expected name and value below was recorded from real TensorFlow (tensorflow-cpu 2.21's
``tf.compat.v1`` after ``disable_v2_behavior()``, whose graph-mode naming of these ops is TF
1.15's), running the same program."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _tensors():
    """The recorded program: one tensor per common op, in this order, in one graph."""
    a, b = tf.placeholder(tf.float32, [2, 3]), tf.placeholder(tf.float32, [2, 3])
    i, bo = tf.placeholder(tf.int32, [2, 3]), tf.placeholder(tf.bool, [2, 3])
    x4 = tf.placeholder(tf.float32, [1, 4, 4, 3])
    k = tf.constant(np.zeros((3, 3, 3, 2), np.float32))
    window = ([1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    out = [
        tf.constant(1.0), a + b, a + b, b - a, a * b, a / b, a // b, a % b, a ** b, -a, abs(a),
        a + 1.0, 1.0 + a, 2.0 * a, 1.0 - a, 1.0 / a, a ** 2.0,
        a < b, a <= b, a > b, a >= b, bo & bo, bo | bo, bo ^ bo, ~bo, a[0], a[:, 1:],
        tf.add(a, b), tf.subtract(a, b), tf.multiply(a, b), tf.divide(a, b), tf.div(a, b),
        tf.truediv(a, b), tf.realdiv(a, b), tf.floordiv(a, b), tf.pow(a, b), tf.negative(a),
        tf.square(a), tf.sqrt(a), tf.exp(a), tf.log(a), tf.abs(a), tf.maximum(a, b),
        tf.minimum(a, b), tf.squared_difference(a, b), tf.reciprocal(a), tf.rsqrt(a),
        tf.logical_and(bo, bo), tf.logical_or(bo, bo), tf.logical_not(bo),
        tf.logical_xor(bo, bo), tf.equal(a, b), tf.not_equal(a, b), tf.less(a, b),
        tf.greater_equal(a, b), tf.matmul(a, b, transpose_b=True), tf.transpose(a),
        tf.reshape(a, [3, 2]), tf.reduce_sum(a), tf.reduce_mean(a, 1), tf.reduce_max(a),
        tf.reduce_min(a), tf.reduce_prod(a), tf.argmax(a, 1), tf.argmin(a, 1),
        tf.cast(a, tf.int32), tf.concat([a, b], 0), tf.stack([a, b]),
        tf.squeeze(tf.expand_dims(a, 0)), tf.gather(a, [1, 0]), tf.one_hot(i[0], 4),
        tf.tile(a, [2, 1]), tf.pad(a, [[1, 0], [0, 2]]), tf.nn.relu(a), tf.sigmoid(a),
        tf.tanh(a), tf.nn.softmax(a), tf.nn.log_softmax(a), tf.nn.relu6(a), tf.nn.elu(a),
        tf.nn.softplus(a), tf.nn.leaky_relu(a), tf.nn.l2_loss(a),
        tf.nn.bias_add(a, tf.zeros([3])), tf.clip_by_value(a, 0.0, 1.0),
        tf.nn.l2_normalize(a, 1), tf.nn.sigmoid_cross_entropy_with_logits(labels=a, logits=b),
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=i[:, 0], logits=a),
        tf.nn.conv2d(x4, k, [1, 1, 1, 1], "SAME"), tf.nn.max_pool(x4, *window),
        tf.nn.avg_pool(x4, *window), tf.zeros([2]), tf.ones([2]), tf.zeros_like(a),
        tf.ones_like(a), tf.fill([2], 1.0), tf.identity(a), tf.add_n([a, b]),
        tf.where(bo, a, b)]
    with tf.name_scope("layer"):
        out += [a * b, tf.matmul(a, b, transpose_b=True), tf.constant(2.0),
                tf.add(a, b, name="s")]
    with tf.name_scope("layer"):
        out += [a * b, tf.exp(a, name="e"), tf.exp(a, name="e")]
    return out


# what TensorFlow printed for [t.name for t in _tensors()]
TF_NAMES = [
    "Const_1:0", "add:0", "add_1:0", "sub:0", "mul:0", "truediv:0", "floordiv:0", "mod:0", "pow:0",
    "Neg:0", "Abs:0", "add_2:0", "add_3:0", "mul_1:0", "sub_1:0", "truediv_1:0", "pow_1:0",
    "Less:0", "LessEqual:0", "Greater:0", "GreaterEqual:0", "and:0", "or:0", "xor:0",
    "LogicalNot:0", "strided_slice:0", "strided_slice_1:0", "Add_4:0", "Sub_2:0", "Mul_2:0",
    "truediv_2:0", "div:0", "truediv_3:0", "RealDiv:0", "floordiv_1:0", "Pow_2:0", "Neg_1:0",
    "Square:0", "Sqrt:0", "Exp:0", "Log:0", "Abs_1:0", "Maximum:0", "Minimum:0",
    "SquaredDifference:0", "Reciprocal:0", "Rsqrt:0", "LogicalAnd:0", "LogicalOr:0",
    "LogicalNot_1:0", "LogicalXor:0", "Equal:0", "NotEqual:0", "Less_1:0", "GreaterEqual_1:0",
    "MatMul:0", "transpose:0", "Reshape:0", "Sum:0", "Mean:0", "Max:0", "Min:0", "Prod:0",
    "ArgMax:0", "ArgMin:0", "Cast:0", "concat:0", "stack:0", "Squeeze:0", "GatherV2:0",
    "one_hot:0", "Tile:0", "Pad:0", "Relu:0", "Sigmoid:0", "Tanh:0", "Softmax:0",
    "LogSoftmax:0", "Relu6:0", "Elu:0", "Softplus:0", "LeakyRelu:0", "L2Loss:0", "BiasAdd:0",
    "clip_by_value:0", "l2_normalize:0", "logistic_loss:0",
    "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits:0", "Conv2D:0",
    "MaxPool:0", "AvgPool:0", "zeros_1:0", "ones:0", "zeros_like:0", "ones_like:0", "Fill:0",
    "Identity:0", "AddN:0", "Select:0", "layer/mul:0", "layer/MatMul:0", "layer/Const:0",
    "layer/s:0", "layer_1/mul:0", "layer_1/e:0", "layer_1/e_1:0"]


def test_default_names_are_tensorflows():
    tensors = _tensors()
    assert [t.name for t in tensors] == TF_NAMES
    graph = tf.get_default_graph()
    for name in ("mul:0", "MatMul:0", "Add_4:0", "layer_1/mul:0", "Relu6:0"):
        assert graph.get_tensor_by_name(name) is not None
    assert graph.get_tensor_by_name("mul:0").op.type == "Mul"


def test_names_are_unique_whatever_their_case():
    # TF: a name used in any case takes the next number, in the case asked for
    x = tf.placeholder(tf.float32, [2], name="x")
    assert [t.op.name for t in (x * x, tf.multiply(x, x), tf.exp(x, name="MUL"), x * x)] == [
        "mul", "Mul_1", "MUL_2", "mul_3"]
    assert tf.exp(x, name="X").op.name == "X_1"


def test_a_name_ending_in_a_slash_is_taken_as_it_is():
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.name_scope("block") as scope:
        y = tf.exp(x)
        z = tf.add(y, x, name=scope)  # TF: the op takes the scope's own name
    assert (y.op.name, z.op.name) == ("block/Exp", "block")


def test_variables_and_their_checkpoint_names_keep_their_names():
    x = tf.placeholder(tf.float32, [1, 3, 8, 8])
    seed_layer = tf.nn.conv2d(x, num_filter=4, ksize=(3, 3))  # NNVM's variables, by node name
    v, w = tf.Variable(tf.zeros([2])), tf.Variable(1.0, name="w")
    assert seed_layer.name == "conv2d:0"
    assert [t.name for t in tf.global_variables()] == ["conv2d_weight:0", "Variable:0", "w:0"]
    assert (v.initial_assign.op.name, tf.assign(w, 2.0).op.name) == ("Variable/Assign", "Assign")


# -- autopacking: a list holding tensors beside a tensor --------------------------------------
def test_operators_pack_lists_holding_tensors_as_tensorflow():
    x = tf.placeholder(tf.float32, [2], name="x")
    t = tf.placeholder(tf.float32, [], name="t")
    ti = tf.placeholder(tf.int32, [], name="ti")
    outs = [x * [t, 3.0], [t, 1.0] + x, x - [t, 1], x * [ti, 3], x * [[t, 1.0], [2.0, 3.0]],
            x < [t, 1.0], x * [1.0, 2.0], [2.0, t] / x]
    # TF: names, the packed operand "<op>/y" (Pack), its numbers "<op>/y/<index>" (Const), an
    # int tensor cast to x's dtype first ("mul_1/Cast")
    assert [o.name for o in outs] == ["mul:0", "add:0", "sub:0", "mul_1:0", "mul_2:0", "Less:0",
                                      "mul_3:0", "truediv:0"]
    graph = tf.get_default_graph()
    assert [(graph.get_operation_by_name(n).type) for n in (
        "mul/y", "mul/y/1", "add/x", "add/x/1", "mul_1/Cast", "mul_1/y", "mul_2/y/0")] == [
        "Pack", "Const", "Pack", "Const", "Cast", "Pack", "Pack"]
    with tf.Session() as sess:
        got = sess.run(outs, {x: [2.0, 5.0], t: 7.0, ti: 4})
    expected = [[14.0, 15.0], [9.0, 6.0], [-5.0, 4.0], [8.0, 15.0], [[14.0, 5.0], [4.0, 15.0]],
                [True, False], [2.0, 10.0], [1.0, 1.399999976158142]]  # TF's values
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-6)
    assert got[5].dtype == bool and got[0].dtype == np.float32


def test_gradients_flow_through_a_packed_operand():
    x = tf.placeholder(tf.float32, [2], name="x")
    t = tf.placeholder(tf.float32, [], name="t")
    (grad,) = tf.gradients(tf.reduce_sum(x * [t, 3.0]), [t])
    with tf.Session() as sess:
        assert sess.run(grad, {x: [2.0, 5.0], t: 7.0}) == pytest.approx(2.0)  # d/dt (x0 * t)


def test_a_list_that_cannot_be_converted_is_a_type_error():
    x = tf.placeholder(tf.float32, [2], name="x")
    t = tf.placeholder(tf.float32, [], name="t")
    with pytest.raises(TypeError, match="Expected float32, got 'a'"):
        x * [t, "a"]
    with pytest.raises(TypeError, match="Expected float32, got \\['a', 'b'\\]"):
        x * ["a", "b"]


def test_layers_and_their_variables_are_named_as_tensorflow():
    x = tf.placeholder(tf.float32, [None, 8, 8, 3], name="x")
    v = tf.placeholder(tf.float32, [None, 4, 8, 8, 3], name="v")
    h = tf.layers.conv2d(x, 4, 3, activation=tf.nn.relu)
    pooled = tf.layers.max_pooling2d(h, 2, 2)
    flat = tf.layers.flatten(pooled)
    d = tf.layers.dense(flat, 10)
    d2 = tf.layers.dense(d, 5, activation=tf.nn.relu)
    loss = tf.losses.softmax_cross_entropy(tf.ones_like(d2), d2)
    mean = tf.reduce_mean(d2)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(d2, 1), tf.argmax(d, 1)), tf.float32))
    pools = [tf.layers.average_pooling2d(x, 2, 2), tf.layers.max_pooling3d(v, 2, 2),
             tf.layers.average_pooling3d(v, 2, 2)]
    # what TensorFlow printed (TF_USE_LEGACY_KERAS=1 for tf.compat.v1.layers)
    assert [t.name for t in (h, pooled, flat, d, d2, loss, mean, accuracy, *pools)] == [
        "conv2d/Relu:0", "max_pooling2d/MaxPool:0", "flatten/Reshape:0", "dense/BiasAdd:0",
        "dense_1/Relu:0", "softmax_cross_entropy_loss/value:0", "Mean:0", "Mean_1:0",
        "average_pooling2d/AvgPool:0", "max_pooling3d/MaxPool3D:0",
        "average_pooling3d/AvgPool3D:0"]
    tf.train.AdamOptimizer(0.1).minimize(loss)
    assert [t.name for t in tf.global_variables()][:6] == [
        "conv2d/kernel:0", "conv2d/bias:0", "dense/kernel:0", "dense/bias:0",
        "dense_1/kernel:0", "dense_1/bias:0"]
    assert [t.name for t in tf.global_variables()][-2:] == ["dense_1/bias/Adam:0",
                                                          "dense_1/bias/Adam_1:0"]


def test_optimizers_name_their_ops_in_their_scope():
    x = tf.placeholder(tf.float32, [2, 2])
    w, b = tf.Variable(tf.ones([2, 2]), name="W0"), tf.Variable(tf.ones([2]), name="b0")
    loss = tf.reduce_sum(tf.matmul(x, w) + b)
    step = tf.train.get_or_create_global_step()
    plain = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    adam = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
    with tf.name_scope("train"):
        momentum = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    later = x * x  # the optimizers' own ops took no name at the root
    # what TensorFlow printed
    assert [t.name for t in (plain, adam, momentum, later)] == [
        "GradientDescent", "Adam", "train/Momentum", "mul:0"]
    assert sorted(v.name for v in tf.global_variables()) == [
        "W0/Adam:0", "W0/Adam_1:0", "W0/Momentum:0", "W0:0", "b0/Adam:0", "b0/Adam_1:0",
        "b0/Momentum:0", "b0:0", "beta1_power:0", "beta2_power:0", "global_step:0"]


def test_composed_functions_keep_their_ops_in_their_scope():
    # TF's functions composing ops name them under their scope, so the root names after them
    # are TF's too (what TensorFlow printed for each, in this order)
    a, i = tf.placeholder(tf.float32, [2, 3]), tf.placeholder(tf.int32, [2])
    outs = [tf.nn.moments(a, [0])[0], tf.log_sigmoid(a), tf.is_nan(a), tf.count_nonzero(a),
            tf.nn.in_top_k(a, i, 1), tf.norm(a), tf.global_norm([a]),
            tf.nn.xw_plus_b(a, tf.zeros([3, 2]), tf.zeros([2])),
            tf.nn.relu_layer(a, tf.zeros([3, 2]), tf.zeros([2])),
            tf.nn.weighted_cross_entropy_with_logits(a, a, 2.0), tf.nn.crelu(a),
            tf.boolean_mask(a, [True, False]), tf.matmul(tf.zeros([2, 2, 3]), tf.zeros([2, 3, 2])),
            tf.sqrt(a)]
    assert [t.name for t in outs] == [
        "moments/Squeeze:0", "LogSigmoid:0", "IsNan:0", "count_nonzero/Sum:0",
        "in_top_k/InTopKV2:0", "norm/Squeeze:0", "global_norm/global_norm:0", "xw_plus_b:0",
        "relu_layer:0", "logistic_loss:0", "CRelu/Relu:0", "boolean_mask/GatherV2:0",
        "MatMul:0", "Sqrt:0"]
