"""tf.nn layers against torch.nn.functional: values and gradients (planned and unplanned memory),
automatic variables and their initial values, infer_variable_shapes, and bad input."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.executor import BindError

pytestmark = [
    # An op body must write into the buffer the plan gave it, never have torch resize it.
    pytest.mark.filterwarnings("error:An output with one or more elements was resized"),
    pytest.mark.usefixtures("fresh_graph", "torch_seed"),
]


def _same_pads(size, kernel, stride):
    """TensorFlow's SAME padding (before, after) along one axis."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def _tf_pad(x, kernel, stride, padding, value=0.0):
    """x padded as TensorFlow pads it (the odd pixel after), for the torch twins."""
    if padding == "VALID":
        return x
    (top, bottom), (left, right) = (_same_pads(x.shape[2 + i], kernel[i], stride[i])
                                    for i in range(2))
    return F.pad(x, (left, right, top, bottom), value=value)


def check_layer(build, ref, values, plan_memory, config="cpu", grad_inputs=None, atol=1e-4):
    """Run ``build(*placeholders)`` forward and backward (head gradient r) and compare with the
    float64 torch twin ``ref(*tensors)`` and its autograd; ``grad_inputs``: the inputs with a
    gradient (default all)."""
    grad_inputs = range(len(values)) if grad_inputs is None else grad_inputs
    xs = [tf.placeholder(tf.float32, shape=v.shape) for v in values]
    out = build(*xs)
    tensors = [torch.tensor(v, dtype=torch.float64, requires_grad=i in grad_inputs)
               for i, v in enumerate(values)]
    expected = ref(*tensors)
    head = np.random.default_rng(1).standard_normal(expected.shape).astype(np.float32)
    r = tf.placeholder(tf.float32, shape=head.shape)
    grads = tf.gradients(out, [xs[i] for i in grad_inputs], grad_ys=[r])
    feed = {**dict(zip(xs, values)), r: head}
    with tf.Session(config, plan_memory=plan_memory) as sess:
        got = sess.run([out] + grads, feed)
        again = sess.run([out] + grads, feed)  # the cached executor gives the same
    (expected * torch.tensor(head, dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(got[0], expected.detach().numpy(), rtol=1e-4, atol=atol)
    for i, g in zip(grad_inputs, got[1:]):
        np.testing.assert_allclose(g, tensors[i].grad.numpy(), rtol=1e-4, atol=atol,
                                   err_msg=f"gradient of input {i}")
    for a, b in zip(got, again):
        np.testing.assert_array_equal(a, b)


def _rand(*shape, seed=0):
    return np.random.default_rng([seed, *shape]).standard_normal(shape).astype(np.float32)


# -- layers against torch --------------------------------------------------------------------
@pytest.mark.parametrize("bias", [False, True])
def test_linear(plan_memory, config, bias):
    values = [_rand(5, 7), _rand(3, 7)] + ([_rand(3)] if bias else [])
    check_layer(lambda x, w, *b: tf.nn.linear(x, 3, weight=w, bias=b[0] if b else None),
                lambda x, w, *b: F.linear(x, w, b[0] if b else None), values, plan_memory,
                config)


CONV_CASES = [  # (input shape, filters, kernel, stride, padding)
    ((2, 3, 9, 9), 4, (3, 3), (1, 1), "VALID"),
    ((2, 3, 9, 8), 4, (3, 2), (2, 3), "VALID"),
    ((2, 3, 8, 8), 4, (3, 3), (1, 1), "SAME"),   # symmetric padding
    ((2, 3, 8, 7), 4, (3, 3), (2, 2), "SAME"),   # the odd pixel after: asymmetric
    ((2, 2, 6, 6), 3, (2, 4), (1, 1), "SAME"),   # asymmetric at stride 1
]


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: f"{c[4]}-k{c[2]}-s{c[3]}")
def test_conv2d(case, bias, plan_memory, config):
    shape, filters, kernel, stride, padding = case
    values = [_rand(*shape), _rand(filters, shape[1], *kernel) * 0.3] + (
        [_rand(filters)] if bias else [])

    def build(x, w, *b):
        return tf.nn.conv2d(x, w, num_filter=filters, ksize=[1, *kernel, 1],
                            strides=[1, *stride, 1], padding=padding,
                            bias=b[0] if b else None)

    def ref(x, w, *b):
        return F.conv2d(_tf_pad(x, kernel, stride, padding), w, b[0] if b else None, stride)
    check_layer(build, ref, values, plan_memory, config)


POOL_CASES = [  # (input shape, kernel, stride, padding)
    ((2, 3, 8, 8), (2, 2), (2, 2), "VALID"),
    ((2, 3, 9, 7), (3, 2), (2, 1), "VALID"),
    ((2, 3, 8, 8), (3, 3), (1, 1), "SAME"),   # symmetric
    ((2, 3, 8, 7), (3, 3), (2, 2), "SAME"),   # asymmetric
    ((1, 2, 5, 5), (4, 4), (2, 2), "SAME"),   # asymmetric, windows mostly padding
]


@pytest.mark.parametrize("case", POOL_CASES, ids=lambda c: f"{c[3]}-k{c[1]}-s{c[2]}")
def test_max_pool(case, plan_memory, config):
    shape, kernel, stride, padding = case
    # distinct values: no ties, so the gradient is unambiguous
    values = [np.random.default_rng(3).permutation(math.prod(shape)).reshape(shape)
              .astype(np.float32) / 10]
    check_layer(lambda x: tf.nn.max_pool(x, [1, 1, *kernel], [1, 1, *stride], padding,
                                        data_format="NCHW"),
                lambda x: F.max_pool2d(_tf_pad(x, kernel, stride, padding, -math.inf),
                                       kernel, stride), values, plan_memory, config)


@pytest.mark.parametrize("case", POOL_CASES, ids=lambda c: f"{c[3]}-k{c[1]}-s{c[2]}")
def test_avg_pool(case, plan_memory, config):
    shape, kernel, stride, padding = case

    def ref(x):  # TensorFlow's mean: padding is not counted
        sums = F.avg_pool2d(_tf_pad(x, kernel, stride, padding), kernel, stride,
                            divisor_override=1)
        ones = _tf_pad(torch.ones_like(x[:1, :1]), kernel, stride, padding)
        return sums / F.avg_pool2d(ones, kernel, stride, divisor_override=1)
    check_layer(lambda x: tf.nn.avg_pool(x, [1, 1, *kernel], [1, 1, *stride], padding,
                                        data_format="NCHW"),
                ref, [_rand(*shape)], plan_memory, config)


@pytest.mark.parametrize("shape", [(4, 3, 5, 5), (6, 4)])
def test_batch_normalization(shape, plan_memory, config):
    channels = shape[1]
    values = [_rand(*shape) * 2 + 1, _rand(channels) + 1, _rand(channels)]
    check_layer(lambda x, g, b: tf.nn.batch_normalization(x, gamma=g, beta=b),
                lambda x, g, b: F.batch_norm(x, None, None, g, b, training=True, eps=1e-5),
                values, plan_memory, config)


def test_flatten_layer(plan_memory):
    check_layer(tf.nn.flatten_layer, lambda x: x.reshape(x.shape[0], -1), [_rand(2, 3, 4, 5)],
                plan_memory)


def test_mean_sparse_softmax_cross_entropy(plan_memory, config):
    labels = np.array([0, 3, 2, 3, 1, 4], dtype=np.float32)
    check_layer(tf.nn.mean_sparse_softmax_cross_entropy_with_logits,
                lambda z, y: F.cross_entropy(z, y.long()), [_rand(6, 5) * 3, labels],
                plan_memory, config, grad_inputs=[0])


def test_lenet_block_gradients(plan_memory):
    # conv -> tanh -> pool -> flatten -> linear -> loss: the rules compose, memory shared or not
    x_value, labels = _rand(4, 1, 12, 12), np.array([1, 0, 2, 1], dtype=np.float32)
    weights = [_rand(5, 1, 3, 3) * 0.3, _rand(5) * 0.1, _rand(3, 125) * 0.1]

    def build(x, w, b, w_fc):
        net = tf.nn.conv2d(x, w, num_filter=5, ksize=[1, 3, 3, 1], bias=b)
        net = tf.nn.max_pool(tf.tanh(net), [1, 2, 2, 1], [1, 2, 2, 1])
        logits = tf.nn.linear(tf.nn.flatten_layer(net), 3, weight=w_fc)
        return tf.nn.mean_sparse_softmax_cross_entropy_with_logits(logits, tf.constant(labels))

    def ref(x, w, b, w_fc):
        net = F.max_pool2d(torch.tanh(F.conv2d(x, w, b)), 2, 2)
        logits = F.linear(net.flatten(1), w_fc)
        return F.cross_entropy(logits, torch.tensor(labels).long())
    check_layer(build, ref, [x_value] + weights, plan_memory, grad_inputs=[1, 2, 3])


def test_dropout(plan_memory):
    x = tf.placeholder(tf.float32, shape=[200, 50])
    keep = tf.placeholder(tf.float32)
    y = tf.nn.dropout(x, keep)
    (grad,) = tf.gradients(y, [x])
    value = np.abs(_rand(200, 50)) + 0.5
    with tf.Session(plan_memory=plan_memory) as sess:
        out, g = sess.run([y, grad], {x: value, keep: 0.8})
        mask = g  # the head gradient is ones: the gradient is the mask itself
        assert set(np.unique(np.round(mask, 5))) <= {0.0, 1.25}
        np.testing.assert_allclose(out, value * mask, rtol=1e-6)
        assert abs((mask > 0).mean() - 0.8) < 0.03
        np.testing.assert_array_equal(sess.run(y, {x: value, keep: 1.0}), value)
        second = sess.run(y, {x: value, keep: 0.8})
        assert not np.array_equal(second, out)  # a new mask every step
    with pytest.raises(ValueError, match="keep_prob"):
        tf.nn.dropout(x, 0.0)


# -- automatic variables ---------------------------------------------------------------------
def _lenet(x):
    net = tf.nn.conv2d(x, num_filter=6, ksize=[1, 5, 5, 1], name="conv1", no_bias=False)
    net = tf.nn.batch_normalization(net, name="bn")
    net = tf.nn.max_pool(tf.tanh(net), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    net = tf.nn.linear(tf.nn.flatten_layer(net), num_hidden=20, name="fc1", no_bias=False)
    return tf.nn.linear(tf.nn.relu(net), 10, name="fc2")


def test_automatic_variable_names_and_shapes():
    x = tf.placeholder(tf.float32)
    label = tf.placeholder(tf.float32)
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(_lenet(x), label)
    names = ["conv1_weight", "conv1_bias", "bn_gamma", "bn_beta", "fc1_weight", "fc1_bias",
             "fc2_weight"]
    assert [v.op.name for v in tf.trainable_variables()] == names
    shapes = tf.infer_variable_shapes(loss, feed_dict={x: [8, 1, 16, 16], label: [8]})
    assert [(name, shape) for _, name, shape in shapes] == [
        ("conv1_weight", (6, 1, 5, 5)), ("conv1_bias", (6,)), ("bn_gamma", (6,)),
        ("bn_beta", (6,)), ("fc1_weight", (20, 216)), ("fc1_bias", (20,)),
        ("fc2_weight", (10, 20))]
    assert [v for v, _, _ in shapes] == tf.trainable_variables()  # the registered symbols
    again = tf.infer_variable_shapes(loss, feed_dict={x: np.zeros((8, 1, 16, 16)), label: [8]})
    assert [s for _, _, s in again] == [s for _, _, s in shapes]


def test_default_names_count_up():
    x = tf.placeholder(tf.float32)
    tf.nn.linear(tf.nn.linear(x, 3), 2)
    # TF's names
    assert [v.op.name for v in tf.all_variables()] == ["linear_weight", "linear_1_weight"]


def test_infer_variable_shapes_names_the_undetermined_variable():
    x = tf.placeholder(tf.float32, name="x")
    label = tf.placeholder(tf.float32, name="label")
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(
        tf.nn.linear(x, 10, name="fc"), label)
    with pytest.raises(tf.ShapeError, match=r"variable 'fc_weight'.*placeholder 'x'"):
        tf.infer_variable_shapes(loss, feed_dict={label: [4]})
    declared = tf.placeholder(tf.float32, shape=[4, 7])  # a declared shape needs no feed
    (_, name, shape), = tf.infer_variable_shapes(tf.nn.linear(declared, 3, name="d"))
    assert (name, shape) == ("d_weight", (3, 7))


def test_global_initializer_waits_for_the_feed_shapes(plan_memory):
    x = tf.placeholder(tf.float32)
    logits = _lenet(x)
    sess = tf.Session(plan_memory=plan_memory)
    assert sess.run(tf.global_variables_initializer()) is None  # shapes unknown: deferred
    out = sess.run(logits, {x: _rand(3, 1, 16, 16)})
    assert out.shape == (3, 10) and np.isfinite(out).all()
    values = dict(zip([v.op.name for v in tf.all_variables()], sess.run(tf.all_variables())))
    limit = math.sqrt(6 / (20 + 216))  # Glorot-uniform for fc1 (20, 216)
    assert 0.8 * limit < np.abs(values["fc1_weight"]).max() <= limit
    assert abs(values["fc1_weight"].mean()) < 0.05 * limit
    assert np.abs(values["conv1_weight"]).max() <= math.sqrt(6 / (25 + 150))
    np.testing.assert_array_equal(values["conv1_bias"], 0)
    np.testing.assert_array_equal(values["bn_gamma"], 1)
    np.testing.assert_array_equal(values["bn_beta"], 0)
    # the initial values stay put: later runs do not initialise again
    np.testing.assert_array_equal(sess.run(tf.all_variables()[0]), values["conv1_weight"])
    # once shapes are known, running the initialiser again draws new values at once
    sess.run(tf.global_variables_initializer())
    assert not np.array_equal(sess.run(tf.all_variables()[0]), values["conv1_weight"])


def test_assign_after_deferred_initialiser_wins():
    x = tf.placeholder(tf.float32)
    y = tf.nn.linear(x, 3, name="fc")
    (weight,) = tf.all_variables()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())  # deferred: fc_weight's shape is unknown
    sess.run(tf.assign(weight, tf.ones([3, 4])))
    np.testing.assert_allclose(sess.run(y, {x: np.ones((2, 4))}), np.full((2, 3), 4.0))


def test_uninitialised_automatic_variable_is_an_error():
    x = tf.placeholder(tf.float32)
    y = tf.nn.linear(x, 3, name="fc")
    with pytest.raises(BindError, match="fc_weight"):
        tf.Session().run(y, {x: _rand(2, 4)})


def test_seed_style_manual_initialisation():
    # mnist_mlp_auto_shape_inference.py: shapes from infer_variable_shapes, values by assign
    x = tf.placeholder(tf.float32)
    label = tf.placeholder(tf.float32)
    net = tf.nn.relu(tf.nn.linear(x, num_hidden=16, name="fc1", no_bias=False))
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(tf.nn.linear(net, 10, "fc2"),
                                                               label)
    train_step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    sess = tf.Session()
    init = [tf.assign(v, tf.normal(shape, 0.1)) for v, _, shape in
            tf.infer_variable_shapes(loss, feed_dict={x: [10, 12], label: [10]})]
    sess.run(init)
    feed = {x: _rand(10, 12), label: np.arange(10, dtype=np.float32)}
    first = sess.run(loss, feed)
    for _ in range(20):
        sess.run(train_step, feed)
    assert sess.run(loss, feed) < first


# -- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize("layer", [
    lambda x: tf.nn.conv2d(x, num_filter=4, ksize=[1, 3, 3, 1], name="conv1"),
    lambda x: tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1]),
    lambda x: tf.nn.avg_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1]),
], ids=["conv2d", "max_pool2d", "avg_pool2d"])
def test_wrong_rank_input_names_op_and_shape(layer):
    x = tf.placeholder(tf.float32)
    y = layer(x)
    op_name = y.node.op.name
    with pytest.raises(tf.ShapeError, match=rf"op '{op_name}'.*rank 4.*\(100, 784\)"):
        tf.infer_variable_shapes(y, feed_dict={x: [100, 784]})
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    with pytest.raises(tf.ShapeError, match=rf"op '{op_name}'.*\(100, 784\)"):
        sess.run(y, {x: _rand(100, 784)})


def test_label_count_mismatch():
    logits = tf.placeholder(tf.float32)
    labels = tf.placeholder(tf.float32)
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(logits, labels)
    with pytest.raises(tf.ShapeError, match=r"5 labels for a batch of 4 logits"):
        tf.Session().run(loss, {logits: _rand(4, 3), labels: np.zeros(5)})
    with pytest.raises(tf.ShapeError, match=r"labels must be a vector"):
        tf.Session().run(loss, {logits: _rand(4, 3), labels: np.zeros((4, 3))})


def test_label_out_of_range_names_the_op():
    logits = tf.placeholder(tf.float32)
    labels = tf.placeholder(tf.float32)
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(logits, labels)
    with pytest.raises(tf.TinyflowError, match="mean_sparse_softmax_cross_entropy"):
        tf.Session().run(loss, {logits: _rand(2, 3), labels: np.array([0.0, 3.0])})


def test_layer_shape_errors():
    x = tf.placeholder(tf.float32)
    with pytest.raises(tf.ShapeError, match=r"op 'linear'.*rank 2.*flatten_layer"):
        tf.infer_variable_shapes(tf.nn.linear(x, 3), {x: [2, 3, 4]})
    with pytest.raises(tf.ShapeError, match="kernel 5 is larger"):
        tf.infer_variable_shapes(tf.nn.conv2d(x, num_filter=2, ksize=[1, 5, 5, 1]),
                                 {x: [1, 1, 4, 4]})
    w = tf.placeholder(tf.float32)
    with pytest.raises(tf.ShapeError, match=r"weight must be \(2, 3, 3, 3\)"):
        tf.infer_variable_shapes(tf.nn.conv2d(x, w, num_filter=2, ksize=[1, 3, 3, 1]),
                                 {x: [1, 3, 8, 8], w: [2, 1, 3, 3]})


def test_wrapper_argument_errors():
    x = tf.placeholder(tf.float32)
    with pytest.raises(ValueError, match="ksize"):
        tf.nn.max_pool(x, ksize=[1, 1, 2, 2])  # TF's NCHW spelling: ambiguous, refused
    with pytest.raises(ValueError, match="padding"):
        tf.nn.avg_pool(x, ksize=[1, 2, 2, 1], padding="FULL")
    with pytest.raises(ValueError, match="NCHW"):
        tf.nn.conv2d(x, num_filter=2, ksize=[1, 3, 3, 1], data_format="NHWC")
    with pytest.raises(ValueError, match="num_filter"):
        tf.nn.conv2d(x, ksize=[1, 3, 3, 1])
