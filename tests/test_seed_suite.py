"""The seed's own test suite (tqchen/tinyflow tests/python: test_ops.py, test_gradients.py,
test_states.py), rewritten for TinyFlow: every seed test keeps its seed-API calls
(``reduction_indices``, ``tf.pad(x, dim=, pad=)``, ``tf.initialize_all_variables``, Python-number
operands, placeholders without a shape), its inputs and its NumPy reference, and runs with memory
planning on and off (and on CUDA where there is one).  Each test names the seed test it mirrors.

The last section runs the graphs of the seed's example programs (example/mnist_softmax.py,
mnist_softmax_minimum.py, mnist_lenet.py) for a few steps on generated data against NumPy and
PyTorch, and pins the places where TensorFlow 1.15 overrides what a seed example wrote.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _run(config, plan_memory, fetches, feed=None):
    """``fetches`` run twice in one session (the second run reuses the cached executor and must
    give the same); the first result."""
    with tf.Session(config, plan_memory=plan_memory) as sess:
        got = sess.run(fetches, feed)
        again = sess.run(fetches, feed)
    for a, b in zip(got if isinstance(got, list) else [got],
                    again if isinstance(again, list) else [again]):
        np.testing.assert_array_equal(a, b)
    return got


# -- test_ops.py -----------------------------------------------------------------------------
BINARY = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "div": lambda a, b: a / b, "pow": lambda a, b: a ** b}


def _operands(values):
    """The seed's operands (ones and fours) or random positive ones (where ``1 ** y`` and
    ``x * 1`` cannot hide a wrong operand order)."""
    if values == "seed":
        return np.ones((2, 3)), np.ones((2, 3)) * 4
    rng = np.random.default_rng(7)
    return rng.uniform(0.5, 2.0, (2, 3)), rng.uniform(0.5, 2.0, (2, 3))


@pytest.mark.parametrize("values", ["seed", "random"])
@pytest.mark.parametrize("op", list(BINARY))
def test_ewise_tensor_tensor(op, values, config, plan_memory):
    # test_ops.py::test_ewise, its check_ewise part: two placeholders
    ax, ay = _operands(values)
    x, y = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    z = BINARY[op](x, y)
    got = _run(config, plan_memory, z, {x: ax, y: ay})
    assert got.dtype == np.float32  # the seed fed float64 arrays into float32 placeholders
    np.testing.assert_almost_equal(got, BINARY[op](ax, ay), decimal=6)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_ewise_tensor_scalar(op, config, plan_memory):
    # test_ops.py::test_ewise, its check_ewise_scalar part: tensor (op) 10
    x = tf.placeholder(tf.float32)
    ax = np.random.default_rng(1).uniform(0.5, 2.0, (2, 3))
    for feed in (np.ones((2, 3)), ax):
        got = _run(config, plan_memory, BINARY[op](x, 10), {x: feed})
        np.testing.assert_almost_equal(got, BINARY[op](feed, 10), decimal=6)


@pytest.mark.parametrize("op", ["sub", "pow"])
def test_ewise_scalar_tensor(op, config, plan_memory):
    # test_ops.py::test_ewise, its check_ewise_rscalar part: 10 (op) tensor
    y = tf.placeholder(tf.float32)
    ay = np.random.default_rng(2).uniform(0.5, 2.0, (2, 3))
    for feed in (np.ones((2, 3)), ay):
        got = _run(config, plan_memory, BINARY[op](10, y), {y: feed})
        np.testing.assert_allclose(got, BINARY[op](10, feed), rtol=1e-6)


@pytest.mark.parametrize("name, tf_fn, np_fn", [
    ("exp", tf.exp, np.exp),      # test_ops.py::test_exp
    ("log", tf.log, np.log),      # test_ops.py::test_log
    ("sqrt", tf.sqrt, np.sqrt),   # test_ops.py::test_sqrt
])
def test_unary(name, tf_fn, np_fn, config, plan_memory):
    x = tf.placeholder(tf.float32)
    ax = np.ones((2, 3)) * 2
    np.testing.assert_almost_equal(_run(config, plan_memory, tf_fn(x), {x: ax}), np_fn(ax),
                                   decimal=6)


def test_softmax(config, plan_memory):
    # test_ops.py::test_softmax: equal logits give equal probabilities; then random ones
    # against exp(x) / sum(exp(x)) over the last axis
    x = tf.placeholder(tf.float32)
    y = tf.nn.softmax(x)
    ax = np.ones((2, 4))
    np.testing.assert_almost_equal(_run(config, plan_memory, y, {x: ax}),
                                   ax / np.sum(ax, axis=1, keepdims=True))
    ax = np.random.default_rng(3).standard_normal((2, 4))
    expected = np.exp(ax) / np.exp(ax).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(_run(config, plan_memory, y, {x: ax}), expected, rtol=1e-5)


def test_matmul(config, plan_memory):
    # test_ops.py::test_matmul
    x, y = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    ax, ay = np.ones((2, 3)), np.ones((3, 4)) * 4
    got = _run(config, plan_memory, tf.matmul(x, y) * 4, {x: ax, y: ay})
    np.testing.assert_almost_equal(got, np.dot(ax, ay) * 4)


@pytest.mark.parametrize("reduce, np_reduce", [
    (tf.reduce_sum, np.sum),    # test_ops.py::test_sum
    (tf.reduce_mean, np.mean),  # test_ops.py::test_mean
])
def test_reduce_over_axes_1_and_3(reduce, np_reduce, config, plan_memory):
    axis = [1, 3]
    x = tf.placeholder(tf.float32)
    y = reduce(x, reduction_indices=axis)  # the seed's (TF 0.x) name of axis
    ax = np.random.default_rng(4).uniform(size=(2, 4, 8, 7))
    got = _run(config, plan_memory, y, {x: ax})
    expected = np_reduce(ax.astype(np.float32), axis=tuple(axis))
    assert got.shape == expected.shape == (2, 8)
    assert np.mean(np.abs(got - expected)) < 1e-6


def test_argmax(config, plan_memory):
    # test_ops.py::test_argmax; TF gives int64 indices
    x = tf.placeholder(tf.float32)
    ax = np.random.default_rng(5).uniform(size=(700, 10))
    got = _run(config, plan_memory, tf.argmax(x, 1), {x: ax})
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.argmax(ax.astype(np.float32), 1))


def test_pad_along_one_dim(config, plan_memory):
    # test_ops.py::test_pad: the seed's tf.pad(x, dim, pad) puts -pad zeros in front when pad < 0
    # and pad zeros behind when pad > 0, so the two calls pad the channels as np.pad((3, 3)) does
    # (TensorFlow's tf.pad(tensor, paddings) has other arguments: a seed call names dim and pad)
    out_filter, in_filter = 10, 4
    pad_width = (out_filter - in_filter) // 2
    x = tf.placeholder(tf.float32)
    z = tf.pad(tf.pad(x, dim=1, pad=-pad_width), dim=1, pad=pad_width)
    nx = np.random.default_rng(6).standard_normal((100, 4, 28, 28))
    expected = np.pad(nx, ((0, 0), (pad_width, pad_width), (0, 0), (0, 0)), mode="constant",
                      constant_values=0)
    with tf.Session(config, plan_memory=plan_memory) as sess:
        assert sess.run(tf.initialize_all_variables()) is None  # a graph with no variables
        got = sess.run(z, feed_dict={x: nx})
    assert got.shape == expected.shape == (100, 10, 28, 28)
    assert np.mean(np.abs(got - expected)) < 1e-6


# -- test_gradients.py -----------------------------------------------------------------------
def test_add_grad(config, plan_memory):
    # test_gradients.py::test_add_grad: z = x + y is not a scalar; the implicit head gradient is
    # ones (TF's grad_ys default), so both gradients are ones
    x, y = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    gx, gy = tf.gradients(x + y, [x, y])
    got = _run(config, plan_memory, [gx, gy], {x: np.ones((2, 3)), y: np.ones((2, 3)) * 4})
    for g in got:
        np.testing.assert_almost_equal(g, np.ones((2, 3)))


def test_mul_grad(config, plan_memory):
    # test_gradients.py::test_mul_grad
    x = tf.placeholder(tf.float32)
    gx = tf.gradients(x * 14, [x])[0]
    got = _run(config, plan_memory, gx, {x: np.ones((2, 3))})
    np.testing.assert_almost_equal(got, np.ones((2, 3)) * 14)


def test_sum_grad(config, plan_memory):
    # test_gradients.py::test_sum_grad
    x = tf.placeholder(tf.float32)
    gx = tf.gradients(-tf.reduce_sum(x) * 14, [x])[0]
    got = _run(config, plan_memory, gx, {x: np.ones((2, 3))})
    np.testing.assert_almost_equal(got, -np.ones((2, 3)) * 14)


def test_mean_grad(config, plan_memory):
    # test_gradients.py::test_mean_grad.  TF's mean gradient divides the incoming gradient by
    # N (Mean's gradient: broadcast, then truediv by the element count); g * (1 / N) lands one
    # float32 step away (-2.3333335), which the seed's 7-decimal check already rejects.  The
    # float32 value TF computes is -14 / 6 rounded once.
    x = tf.placeholder(tf.float32)
    gx = tf.gradients(-tf.reduce_mean(x) * 14, [x])[0]
    got = _run(config, plan_memory, gx, {x: np.ones((2, 3))})
    np.testing.assert_almost_equal(got, -np.ones((2, 3)) * 14 / 6.0)
    np.testing.assert_array_equal(got, np.full((2, 3), np.float32(-14) / np.float32(6)))


def test_matmul_grad(config, plan_memory):
    # test_gradients.py::test_matmul_grad: the two gradients fetched in two runs
    x, y = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    ax, ay = np.ones((2, 3)), np.ones((3, 4)) * 4
    gx, gy = tf.gradients(tf.matmul(x, y) * 4, [x, y])
    with tf.Session(config, plan_memory=plan_memory) as sess:
        agx = sess.run(gx, feed_dict={x: ax, y: ay})
        agy = sess.run(gy, feed_dict={x: ax, y: ay})
    np.testing.assert_almost_equal(agx, np.dot(np.ones((2, 4)), ay.T) * 4)
    np.testing.assert_almost_equal(agy, np.dot(ax.T, np.ones((2, 4))) * 4)


# -- test_states.py --------------------------------------------------------------------------
def test_assign(config, plan_memory):
    # test_states.py::test_assign: assigning a variable never initialised gives it a value
    x = tf.Variable(tf.zeros(shape=[2, 3]))
    with tf.Session(config, plan_memory=plan_memory) as sess:
        sess.run(tf.assign(x, tf.ones(shape=[2, 3]) * 3))
        np.testing.assert_almost_equal(sess.run(x), np.full((2, 3), 3.0))
        sess.run(tf.assign(x, tf.zeros(shape=[2, 3])))  # the seed's own assignment
        np.testing.assert_almost_equal(sess.run(x), np.zeros((2, 3)))


def test_group(config, plan_memory):
    # test_states.py::test_group: one run of the group performs both assignments
    x1 = tf.Variable(tf.zeros(shape=[2, 3]))
    x2 = tf.Variable(tf.zeros(shape=[2, 3]))
    a1 = tf.assign(x1, tf.zeros(shape=[2, 3]))
    a2 = tf.assign(x2, tf.ones(shape=[2, 3]))
    with tf.Session(config, plan_memory=plan_memory) as sess:
        assert sess.run(tf.group(a1, a2)) is None
        np.testing.assert_almost_equal(sess.run(x1), np.zeros((2, 3)))
        np.testing.assert_almost_equal(sess.run(x2), np.ones((2, 3)))


def test_init(config, plan_memory):
    # test_states.py::test_init
    x1 = tf.Variable(tf.ones(shape=[2, 3]))
    x2 = tf.Variable(tf.zeros(shape=[2, 3]))
    with tf.Session(config, plan_memory=plan_memory) as sess:
        sess.run(tf.initialize_all_variables())
        np.testing.assert_almost_equal(sess.run(x1), np.ones((2, 3)))
        np.testing.assert_almost_equal(sess.run(x2), np.zeros((2, 3)))


# -- the seed's example programs -------------------------------------------------------------
def _softmax_batches(steps, batch=20, seed=0):
    """Generated batches: (784 pixels in [0, 0.05], one-hot labels).  Dim pixels keep the
    seed's unguarded log(softmax) finite at learning rate 0.5 (MNIST's are mostly 0)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield (rng.uniform(0, 0.05, size=(batch, 784)).astype(np.float32),
               np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)])


def _numpy_softmax_step(w, xs, ys, learning_rate):
    """One gradient step of mean cross-entropy of softmax(xs @ w): dL/dw = xs^T (p - y) / n."""
    logits = xs.astype(np.float64) @ w
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return w - learning_rate * xs.T.astype(np.float64) @ (p - ys) / len(xs)


@pytest.mark.parametrize("program", ["mnist_softmax", "mnist_softmax_minimum"])
def test_softmax_program_steps(program, plan_memory):
    # example/mnist_softmax.py (GradientDescentOptimizer(0.5).minimize) and
    # example/mnist_softmax_minimum.py (tf.gradients and tf.assign), five steps against NumPy
    x = tf.placeholder(tf.float32, [None, 784])
    W = tf.Variable(tf.zeros([784, 10]))
    y = tf.nn.softmax(tf.matmul(x, W))
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    if program == "mnist_softmax":
        train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    else:
        train_step = tf.assign(W, W - 0.5 * tf.gradients(cross_entropy, [W])[0])
    expected = np.zeros((784, 10))
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.initialize_all_variables())
        for xs, ys in _softmax_batches(5):
            sess.run(train_step, feed_dict={x: xs, y_: ys})
            expected = _numpy_softmax_step(expected, xs, ys, 0.5)
        np.testing.assert_allclose(sess.run(W), expected, rtol=1e-4, atol=1e-5)
        # the seed's accuracy: the mean of a bool tensor (a seed extension, kept: TF refuses it)
        accuracy = tf.reduce_mean(tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1)))
        xs, ys = next(_softmax_batches(1, batch=50, seed=1))
        expected_accuracy = np.mean(np.argmax(xs @ expected, 1) == np.argmax(ys, 1))
        assert sess.run(accuracy, feed_dict={x: xs, y_: ys}) == pytest.approx(expected_accuracy)


def _seed_lenet(x):
    """example/mnist_lenet.py's network, as written there (seed layers, NCHW)."""
    conv1 = tf.nn.conv2d(x, num_filter=20, ksize=[1, 5, 5, 1], name="conv1", no_bias=False)
    pool1 = tf.nn.max_pool(tf.tanh(conv1), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    conv2 = tf.nn.conv2d(pool1, num_filter=50, ksize=[1, 5, 5, 1], name="conv2", no_bias=False)
    pool2 = tf.nn.max_pool(tf.tanh(conv2), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    fc1 = tf.nn.linear(tf.nn.flatten_layer(pool2), num_hidden=500, name="fc1")
    return tf.nn.linear(tf.tanh(fc1), num_hidden=10, name="fc2")


def _torch_lenet(w, images):
    """The same network in PyTorch; ``w`` maps the seed's variable names to tensors."""
    h = F.max_pool2d(torch.tanh(F.conv2d(images, w["conv1_weight"], w["conv1_bias"])), 2, 2)
    h = F.max_pool2d(torch.tanh(F.conv2d(h, w["conv2_weight"], w["conv2_bias"])), 2, 2)
    return torch.tanh(h.flatten(1) @ w["fc1_weight"].T) @ w["fc2_weight"].T


def test_lenet_program_steps(plan_memory):
    # example/mnist_lenet.py: variables made by the layers, shapes from tf.infer_variable_shapes,
    # values given by tf.assign, then SGD(0.5) on the mean sparse cross-entropy; three steps
    # against PyTorch's SGD from the same weights
    batch = 8
    x, label = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    cross_entropy = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(_seed_lenet(x), label)
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    shapes = tf.infer_variable_shapes(cross_entropy, feed_dict={x: [batch, 1, 28, 28],
                                                                label: [batch]})
    assert [(name, tuple(shape)) for _, name, shape in shapes] == [
        ("conv1_weight", (20, 1, 5, 5)), ("conv1_bias", (20,)), ("conv2_weight", (50, 20, 5, 5)),
        ("conv2_bias", (50,)), ("fc1_weight", (500, 800)), ("fc2_weight", (10, 500))]
    rng = np.random.default_rng(8)
    start = {name: (rng.standard_normal(shape) * 0.1).astype(np.float32)
             for _, name, shape in shapes}
    variables = [v for v, _, _ in shapes]
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run([tf.assign(v, tf.constant(start[name])) for v, name, _ in shapes])
        for _ in range(3):
            # each step from TinyFlow's own weights: by the third step conv2's pre-activations
            # reach |z| ~ 290 (lr 0.5) and the trajectory amplifies float32 rounding (PyTorch's
            # own float32 run ends 1e-5 from its float64 one, TinyFlow's 1e-4), so steps are
            # compared one at a time, each to float64
            weights = {name: torch.tensor(value, dtype=torch.float64, requires_grad=True)
                       for (_, name, _), value in zip(shapes, sess.run(variables))}
            images = rng.uniform(size=(batch, 1, 28, 28)).astype(np.float32)
            labels = rng.integers(0, 10, batch).astype(np.float32)
            loss, _ = sess.run([cross_entropy, train_step], {x: images, label: labels})
            expected = F.cross_entropy(_torch_lenet(weights, torch.tensor(images, dtype=float)),
                                       torch.tensor(labels).long())
            expected.backward()
            torch.optim.SGD(weights.values(), lr=0.5).step()
            assert loss == pytest.approx(expected.item(), rel=1e-4)
            for (v, name, _), got in zip(shapes, sess.run(variables)):
                np.testing.assert_allclose(got, weights[name].detach().numpy(), rtol=1e-4,
                                           atol=1e-5, err_msg=name)  # float32, lr 0.5


def test_example_calls_tensorflow_overrides():
    # Where a seed example's call contradicts TensorFlow 1.15, TensorFlow wins:
    # example/mnist_sparse_softmax_cross_entropy_with_logits.py passes (logit, label)
    # positionally with float labels; TF 1.15 takes only named arguments and int labels
    logits, label = tf.placeholder(tf.float32, [None, 10]), tf.placeholder(tf.float32)
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(logits, label)
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(logits=logits, labels=label)
    # example/mnist_with_auto_shape_inference.py (replaced in the seed by
    # mnist_mlp_auto_shape_inference.py, which says tf.nn.linear / tf.nn.relu) used the seed's
    # top-level tf.linear and tf.relu, names TensorFlow does not have
    for name in ("linear", "relu"):
        with pytest.raises(AttributeError, match=f"tf.{name} is not supported by TinyFlow"):
            getattr(tf, name)


def test_seed_nchw_pool_with_padding(plan_memory):
    # example/cifar_resnet.py: tf.nn.avg_pool(res, ksize=[1, 4, 4, 1], strides=[1, 2, 2, 1],
    # padding='SAME', data_format='NCHW') writes the window the seed's way ([1, h, w, 1] for
    # NCHW data); TF has no meaning for it (a window over the channels), so it is the seed's
    values = np.random.default_rng(9).standard_normal((2, 3, 9, 9)).astype(np.float32)
    x = tf.placeholder(tf.float32)
    avg = tf.nn.avg_pool(x, ksize=[1, 4, 4, 1], strides=[1, 2, 2, 1], padding="SAME",
                         data_format="NCHW")
    top = tf.nn.max_pool(x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="VALID",
                         data_format="NCHW")
    with tf.Session(plan_memory=plan_memory) as sess:
        got_avg, got_max = sess.run([avg, top], {x: values})
    t = torch.tensor(values)
    # SAME for 9 with window 4, stride 2: 5 outputs, padding 1 before and 2 after, the padded
    # cells not counted in the mean (TF's rule)
    ones = F.pad(torch.ones_like(t), (1, 2, 1, 2))
    expected_avg = (F.avg_pool2d(F.pad(t, (1, 2, 1, 2)), 4, 2, divisor_override=1)
                    / F.avg_pool2d(ones, 4, 2, divisor_override=1))
    np.testing.assert_allclose(got_avg, expected_avg.numpy(), rtol=1e-5)
    np.testing.assert_array_equal(got_max, F.max_pool2d(t, 3, 2).numpy())
    with pytest.raises(ValueError, match=r"\[1, 1, h, w\]"):  # still TF's error otherwise
        tf.nn.avg_pool(x, ksize=[1, 2, 2, 2], strides=[1, 1, 1, 1], padding="SAME",
                       data_format="NCHW")
