"""tf.nn's and tf.layers' convolutions past conv2d (conv1d, atrous and dilated, depthwise,
separable, convolution, pool, Conv1D, SeparableConv2D, the 1-D poolings) and selu, crelu,
weighted_cross_entropy_with_logits: shapes and values TensorFlow gives (numbers from real TF,
tf.compat.v1, written down), values and gradients against PyTorch autograd (F.conv1d / conv2d
with groups and dilation) and finite differences, memory planning on and off.  The ops
themselves (conv2d's dilation, its depthwise filters) are in test_ops' table
(op_cases_conv_dilation_depthwise.py)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = [pytest.mark.usefixtures("fresh_graph", "torch_seed"),
              pytest.mark.filterwarnings("error:An output with one or more elements was resized")]
F64 = torch.float64


def _rand(*shape, seed=0):
    return np.random.default_rng([seed, *shape]).standard_normal(shape).astype(np.float32)


def compare(build, ref, values, plan_memory, atol=1e-4):
    """``build(*placeholders)`` and its gradients (head r) for every input against the float64
    torch twin ``ref`` and its autograd."""
    xs = [tf.placeholder(tf.float32, shape=v.shape) for v in values]
    out = build(*xs)
    tensors = [torch.tensor(v, dtype=F64, requires_grad=True) for v in values]
    expected = ref(*tensors)
    head = _rand(*expected.shape, seed=9)
    r = tf.placeholder(tf.float32, shape=head.shape)
    grads = tf.gradients(out, xs, grad_ys=[r])
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run([out] + grads, {**dict(zip(xs, values)), r: head})
    assert tuple(out.get_shape().as_list()) == tuple(expected.shape)  # the static shape too
    np.testing.assert_allclose(got[0], expected.detach().numpy(), rtol=1e-4, atol=atol)
    (expected * torch.tensor(head, dtype=F64)).sum().backward()
    for i, g in enumerate(got[1:]):
        np.testing.assert_allclose(g, tensors[i].grad.numpy(), rtol=1e-4, atol=atol,
                                   err_msg=f"gradient of input {i}")
    return got


def tf_pad_1d(x, extent, stride, padding):
    """(batch, channels, width) x padded as TensorFlow pads it (the odd pixel after)."""
    if padding == "VALID":
        return x
    total = max((-(-x.shape[2] // stride) - 1) * stride + extent - x.shape[2], 0)
    return F.pad(x, (total // 2, total - total // 2))


def torch_conv1d(x, w, stride, padding, dilation=1):
    """TF's conv1d of NCW x with a filter [k, in, out]."""
    extent = (w.shape[0] - 1) * dilation + 1
    return F.conv1d(tf_pad_1d(x, extent, stride, padding), w.permute(2, 1, 0), stride=stride,
                    dilation=dilation)


def depthwise_oihw(w):
    kh, kw, channels, multiplier = w.shape
    return w.reshape(kh, kw, 1, channels * multiplier).permute(3, 2, 0, 1)


# -- what TensorFlow gives -------------------------------------------------------------------
def test_shapes_as_tensorflow():
    # from real TF (tf.compat.v1, graph mode): the static shapes of each call
    x7 = tf.placeholder(tf.float32, [2, 7, 3])
    assert tf.nn.conv1d(x7, tf.zeros([3, 3, 4]), 2, "SAME").get_shape().as_list() == [2, 4, 4]
    assert tf.nn.conv1d(x7, tf.zeros([3, 3, 4]), 2, "VALID").get_shape().as_list() == [2, 3, 4]
    x9, w = tf.placeholder(tf.float32, [1, 9, 9, 2]), tf.zeros([3, 3, 2, 3])
    assert tf.nn.atrous_conv2d(x9, w, 2, "SAME").get_shape().as_list() == [1, 9, 9, 3]
    assert tf.nn.atrous_conv2d(x9, w, 2, "VALID").get_shape().as_list() == [1, 5, 5, 3]
    assert tf.nn.conv2d(x9, w, [1, 2, 2, 1], "SAME", dilations=[1, 2, 2, 1]).get_shape(
        ).as_list() == [1, 5, 5, 3]
    assert tf.nn.depthwise_conv2d(tf.zeros([1, 5, 5, 2]), w, [1, 2, 2, 1], "SAME").get_shape(
        ).as_list() == [1, 3, 3, 6]
    assert tf.nn.separable_conv2d(tf.zeros([1, 4, 4, 2]), w, tf.zeros([1, 1, 6, 5]),
                                  [1, 1, 1, 1], "SAME").get_shape().as_list() == [1, 4, 4, 5]
    assert tf.nn.pool(x7, [3], "MAX", "SAME", strides=[2]).get_shape().as_list() == [2, 4, 3]
    assert tf.nn.pool(tf.zeros([2, 7, 7, 3]), [3, 3], "AVG", "VALID", strides=[2, 2]).get_shape(
        ).as_list() == [2, 3, 3, 3]


def test_conv1d_is_conv2d_over_an_expanded_axis():
    # TF's graph of conv1d: ExpandDims, ExpandDims, Conv2D, Squeeze (real TF's op types)
    y = tf.nn.conv1d(tf.placeholder(tf.float32, [2, 7, 3]), tf.zeros([3, 3, 4]), 1, "SAME")
    assert y.op.type == "Squeeze" and y.op.inputs[0].op.type == "Conv2D"
    assert [t.op.type for t in y.op.inputs[0].op.inputs] == ["ExpandDims", "ExpandDims"]
    assert y.name.startswith("conv1d/")


def test_depthwise_output_channels_as_tensorflow():
    # input channel 0 all 1, channel 1 all 100; a 1x1 filter of multiplier 3: real TF gives
    # [1, 2, 3, 1000, 2000, 3000] at every pixel (output channel c * multiplier + m)
    x = np.zeros((1, 4, 4, 2), np.float32)
    x[..., 0], x[..., 1] = 1, 100
    w = np.array([[[[1, 2, 3], [10, 20, 30]]]], np.float32)
    got = tf.Session().run(tf.nn.depthwise_conv2d(tf.constant(x), tf.constant(w),
                                                  [1, 1, 1, 1], "VALID"))
    np.testing.assert_array_equal(got[0, 2, 1], [1, 2, 3, 1000, 2000, 3000])


def test_activations_and_loss_as_tensorflow():
    # values and gradients from real TF (SeluGrad gives scale at 0; crelu's relu gives 0 there)
    x = tf.constant([-1.0, 0.0, 2.0])
    z, labels = tf.constant([2.0, -1.0, 0.3]), tf.constant([1.0, 0.0, 0.5])
    wce = tf.nn.weighted_cross_entropy_with_logits(labels=labels, logits=z, pos_weight=3.0)
    crelu = tf.nn.crelu(tf.constant([[-1.0, 2.0]]))
    sess = tf.Session()
    np.testing.assert_allclose(sess.run(tf.nn.selu(x)), [-1.1113307, 0.0, 2.101402], rtol=1e-6)
    np.testing.assert_allclose(sess.run(tf.gradients(tf.nn.selu(x), x)[0]),
                               [0.64676857, 1.050701, 1.050701], rtol=1e-6)
    np.testing.assert_array_equal(sess.run(crelu), [[0.0, 2.0, 1.0, 0.0]])
    np.testing.assert_array_equal(sess.run(tf.nn.crelu(tf.constant([[-1.0, 2.0]]), axis=0)),
                                  [[0.0, 2.0], [1.0, 0.0]])
    weighted = tf.reduce_sum(tf.nn.crelu(x) * tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    np.testing.assert_array_equal(sess.run(tf.gradients(weighted, x)[0]), [-4.0, 0.0, 3.0])
    np.testing.assert_allclose(sess.run(wce), [0.380784, 0.31326175, 1.2587105], rtol=1e-5)
    np.testing.assert_allclose(sess.run(tf.gradients(wce, [z, labels])),
                               [[-0.35760877, 0.2689414, -0.35111493],
                                [-1.746144, 3.6265235, 0.8087105]], rtol=1e-5)
    same = tf.nn.weighted_cross_entropy_with_logits(targets=labels, logits=z, pos_weight=3.0)
    np.testing.assert_array_equal(sess.run(same), sess.run(wce))  # targets: the older name


def test_activations_and_loss_gradients(plan_memory):
    values = [_rand(3, 4) * 2, np.random.default_rng(1).uniform(0, 1, (3, 4)).astype(
        np.float32)]
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    compare(tf.nn.selu, lambda x: torch.where(x > 0, scale * x, scale * alpha * (
        torch.exp(x) - 1)), values[:1], plan_memory)
    compare(lambda x: tf.nn.crelu(x, axis=0), lambda x: torch.relu(torch.cat([x, -x], 0)),
            values[:1], plan_memory)
    compare(lambda z, t: tf.nn.weighted_cross_entropy_with_logits(t, z, 2.5),
            lambda z, t: (1 - t) * z + (1 + 1.5 * t) * F.softplus(-z), values, plan_memory)
    for build in (lambda x: tf.nn.selu(x), lambda x: tf.nn.crelu(x),
                  lambda z, t: tf.nn.weighted_cross_entropy_with_logits(t, z, 2.5)):
        check_gradients(build, inputs=values[:build.__code__.co_argcount],
                        plan_memory=plan_memory)


# -- convolutions against torch --------------------------------------------------------------
@pytest.mark.parametrize("data_format,stride,padding,dilation", [
    ("NWC", 1, "SAME", 1), ("NWC", 2, "SAME", 1), ("NWC", 2, "VALID", 1),
    ("NCW", 3, "SAME", 1), ("NWC", 1, "SAME", 2), ("NCW", 1, "VALID", 3)])
def test_conv1d_against_torch(data_format, stride, padding, dilation, plan_memory):
    x, w = _rand(2, 11, 3), _rand(3, 3, 4, seed=1)
    channels_last = data_format == "NWC"
    x = x if channels_last else x.transpose(0, 2, 1).copy()
    ref = lambda x, w: torch_conv1d(x if not channels_last else x.permute(0, 2, 1), w,
                                    stride, padding, dilation)
    compare(lambda x, w: tf.nn.conv1d(x, w, stride, padding, data_format=data_format,
                                      dilations=dilation),
            (lambda x, w: ref(x, w).permute(0, 2, 1)) if channels_last else ref, [x, w],
            plan_memory)
    if plan_memory:  # finite differences, once
        check_gradients(lambda x, w: tf.nn.conv1d(x, w, stride, padding,
                                                  data_format=data_format, dilations=dilation),
                        inputs=[x, w])


def test_convolution_picks_conv1d_or_conv2d(plan_memory):
    x, w = _rand(2, 9, 8, 3), _rand(3, 2, 3, 4, seed=1)
    conv = lambda x, w: F.conv2d(F.pad(x.permute(0, 3, 1, 2), (0, 1, 2, 2)),  # SAME, odd after
                                 w.permute(3, 2, 0, 1), dilation=(2, 1)).permute(0, 2, 3, 1)
    compare(lambda x, w: tf.nn.convolution(x, w, "SAME", dilation_rate=[2, 1]), conv, [x, w],
            plan_memory)
    x1, w1 = _rand(2, 10, 3), _rand(2, 3, 4, seed=1)
    compare(lambda x, w: tf.nn.convolution(x, w, "VALID", strides=[2]),
            lambda x, w: torch_conv1d(x.permute(0, 2, 1), w, 2, "VALID").permute(0, 2, 1),
            [x1, w1], plan_memory)


@pytest.mark.parametrize("rate,stride", [((1, 1), (2, 2)), ((2, 2), (1, 1))])
def test_separable_conv2d_against_torch(rate, stride, plan_memory):
    x, dw, pw = _rand(2, 8, 7, 3), _rand(3, 3, 3, 2, seed=1), _rand(1, 1, 6, 5, seed=2)

    def ref(x, dw, pw):
        extent = [(3 - 1) * r + 1 for r in rate]
        pads = [max((-(-n // s) - 1) * s + k - n, 0) for n, k, s in zip((8, 7), extent, stride)]
        padded = F.pad(x.permute(0, 3, 1, 2), (pads[1] // 2, pads[1] - pads[1] // 2,
                                               pads[0] // 2, pads[0] - pads[0] // 2))
        depthwise = F.conv2d(padded, depthwise_oihw(dw), stride=stride, dilation=rate, groups=3)
        return F.conv2d(depthwise, pw.permute(3, 2, 0, 1)).permute(0, 2, 3, 1)
    compare(lambda x, dw, pw: tf.nn.separable_conv2d(x, dw, pw, [1, *stride, 1], "SAME",
                                                     rate=list(rate)), ref, [x, dw, pw],
            plan_memory)


@pytest.mark.parametrize("pooling,padding", [("MAX", "SAME"), ("AVG", "SAME"),
                                             ("MAX", "VALID"), ("AVG", "VALID")])
def test_pool_1d_against_torch(pooling, padding, plan_memory):
    x = np.random.default_rng(3).permutation(2 * 9 * 3).reshape(2, 9, 3).astype(
        np.float32) * 0.01  # distinct: no ties for max

    def ref(x):
        x = x.permute(0, 2, 1)
        total = max((-(-9 // 2) - 1) * 2 + 3 - 9, 0) if padding == "SAME" else 0
        pads = (total // 2, total - total // 2)
        if pooling == "MAX":
            return F.max_pool1d(F.pad(x, pads, value=-np.inf), 3, 2).permute(0, 2, 1)
        counts = F.avg_pool1d(F.pad(torch.ones_like(x), pads), 3, 2)  # padding not counted
        return (F.avg_pool1d(F.pad(x, pads), 3, 2) / counts).permute(0, 2, 1)
    compare(lambda x: tf.nn.pool(x, [3], pooling, padding, strides=[2]), ref, [x], plan_memory)


# -- tf.layers ---------------------------------------------------------------------------------
def _run_layer(layer_output, feeds):
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return sess, sess.run(layer_output, feeds)


def test_conv1d_layer_causal_against_torch():
    x = tf.placeholder(tf.float32, [2, 9, 3])
    y = tf.layers.conv1d(x, 4, 3, padding="causal", dilation_rate=2, activation=tf.nn.relu,
                         bias_initializer=tf.constant_initializer(0.1))
    assert [v.name for v in tf.trainable_variables()] == ["conv1d/kernel:0", "conv1d/bias:0"]
    assert tf.trainable_variables()[0].get_shape().as_list() == [3, 3, 4]
    values = _rand(2, 9, 3)
    sess, got = _run_layer(y, {x: values})
    kernel = torch.tensor(sess.run(tf.trainable_variables()[0]), dtype=F64)
    inputs = F.pad(torch.tensor(values, dtype=F64).permute(0, 2, 1), (4, 0))  # 2 * (3 - 1)
    expected = torch.relu(F.conv1d(inputs, kernel.permute(2, 1, 0), dilation=2) + 0.1)
    np.testing.assert_allclose(got, expected.permute(0, 2, 1).numpy(), rtol=1e-5, atol=1e-6)


def test_pooling1d_layers():
    values = _rand(2, 10, 3)
    x = tf.placeholder(tf.float32, [2, 10, 3])
    top = tf.layers.max_pooling1d(x, 2, 2)
    mean = tf.layers.AveragePooling1D(3, 1, padding="same")(x)
    first = tf.layers.MaxPooling1D(2, 2, data_format="channels_first")(
        tf.transpose(x, [0, 2, 1]))
    _, (got_top, got_mean, got_first) = _run_layer([top, mean, first], {x: values})
    t = torch.tensor(values).permute(0, 2, 1)
    np.testing.assert_allclose(got_top, F.max_pool1d(t, 2, 2).permute(0, 2, 1).numpy())
    np.testing.assert_allclose(got_first, F.max_pool1d(t, 2, 2).numpy())
    expected = F.avg_pool1d(t, 3, 1, padding=1, count_include_pad=False)  # SAME, k 3, s 1
    np.testing.assert_allclose(got_mean, expected.permute(0, 2, 1).numpy(), rtol=1e-6)


def test_separable_conv2d_layer_against_torch():
    x = tf.placeholder(tf.float32, [2, 6, 6, 3])
    layer = tf.layers.SeparableConv2D(5, 3, padding="same", depth_multiplier=2,
                                      bias_initializer=tf.constant_initializer(0.5))
    y = layer(x)
    assert [v.name for v in layer.trainable_weights] == [
        "separable_conv2d/depthwise_kernel:0", "separable_conv2d/pointwise_kernel:0",
        "separable_conv2d/bias:0"]
    assert [v.get_shape().as_list() for v in layer.trainable_weights] == [
        [3, 3, 3, 2], [1, 1, 6, 5], [5]]
    values = _rand(2, 6, 6, 3)
    sess, got = _run_layer(y, {x: values})
    dw, pw = (torch.tensor(sess.run(v), dtype=F64) for v in layer.trainable_weights[:2])
    inputs = F.pad(torch.tensor(values, dtype=F64).permute(0, 3, 1, 2), (1, 1, 1, 1))
    expected = F.conv2d(F.conv2d(inputs, depthwise_oihw(dw), groups=3), pw.permute(3, 2, 0, 1))
    np.testing.assert_allclose(got, (expected + 0.5).permute(0, 2, 3, 1).numpy(), rtol=1e-5,
                               atol=1e-6)
    step = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y * y))
    before = sess.run(layer.trainable_weights)
    sess.run(step, {x: values})
    assert all(np.abs(a - b).max() > 0 for a, b in zip(before, sess.run(
        layer.trainable_weights)))


# -- errors ------------------------------------------------------------------------------------
def test_errors_name_the_argument():
    x = tf.placeholder(tf.float32, [1, 8, 8, 2])
    with pytest.raises(ValueError, match="strides > 1 not supported in conjunction with "
                                         "dilation rate > 1"):  # as TensorFlow
        tf.nn.convolution(x, tf.zeros([3, 3, 2, 3]), "SAME", strides=[2, 2],
                          dilation_rate=[2, 2])
    with pytest.raises(ValueError, match="3-D windows are not supported by TinyFlow"):
        tf.nn.convolution(tf.zeros([1, 4, 4, 4, 3]), tf.zeros([3, 3, 3, 3, 2]), "SAME")
    with pytest.raises(ValueError, match=r"pool: dilation_rate \[2, 2\] is not supported"):
        tf.nn.pool(x, [2, 2], "MAX", "SAME", dilation_rate=[2, 2])
    with pytest.raises(ValueError, match="pooling_type must be 'MAX' or 'AVG'"):
        tf.nn.pool(x, [2, 2], "MIN", "SAME")
    with pytest.raises(ValueError, match="rate 0 cannot be less than one"):
        tf.nn.atrous_conv2d(x, tf.zeros([3, 3, 2, 3]), 0, "SAME")
    with pytest.raises(ValueError, match="data_format must be \"NWC\" or \"NCW\""):
        tf.nn.conv1d(tf.zeros([1, 5, 2]), tf.zeros([3, 2, 2]), 1, "SAME", data_format="NHWC1")
    with pytest.raises(ValueError, match=r"pointwise_filter must be \[1, 1, in \* multiplier"):
        tf.nn.separable_conv2d(x, tf.zeros([3, 3, 2, 3]), tf.zeros([3, 3, 6, 5]),
                               [1, 1, 1, 1], "SAME")
    # the depthwise filter's in_channels must be the data's (TF: "Dimensions must be equal")
    with pytest.raises(tf.ShapeError, match=r"node 'depthwise'.*the depthwise filter \(3, 3, 3, "
                                            r"3\) \(HWIM\) takes 3 input channels, the input "
                                            r"\(1, 8, 8, 2\) \(NHWC\) has 2"):
        tf.nn.depthwise_conv2d(x, tf.zeros([3, 3, 3, 3]), [1, 1, 1, 1], "SAME")
    with pytest.raises(tf.ShapeError, match="node 'separable_conv2d/pointwise'.*weight must "
                                            r"be \(1, 1, 6, 5\)"):
        tf.nn.separable_conv2d(x, tf.zeros([3, 3, 2, 3]), tf.zeros([1, 1, 7, 5]),
                               [1, 1, 1, 1], "SAME")


def test_bad_feed_leaves_the_session_usable():
    x, w = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    y = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME")
    sess = tf.Session()
    with pytest.raises(tf.ShapeError, match=r"depthwise filter \(3, 3, 4, 1\) \(HWIM\) takes 4"):
        sess.run(y, {x: np.zeros((1, 5, 5, 2)), w: np.zeros((3, 3, 4, 1))})
    assert sess.run(y, {x: np.ones((1, 5, 5, 2)), w: np.ones((3, 3, 2, 1))})[0, 2, 2, 0] == 9


def test_a_dilation_past_the_input_is_refused():
    # a graph JSON could give any dilation: SAME would pad a copy of x past memory
    x = tf.placeholder(tf.float32, [1, 8, 8, 2])
    with pytest.raises(tf.ShapeError, match="dilated kernel covers 2000000001 pixels, more "
                                            "than twice the input's height 8"):
        tf.nn.conv2d(x, tf.zeros([3, 3, 2, 3]), [1, 1, 1, 1], "SAME",
                     dilations=[1, 10 ** 9, 1, 1])
    y = tf.nn.atrous_conv2d(x, tf.ones([3, 3, 2, 1]), 6, "SAME")  # 13 pixels of 8: TF's
    got = tf.Session().run(y, {x: np.ones((1, 8, 8, 2))})
    # 6 pixels of padding before: output row i reads rows i - 6, i, i + 6 of those there are
    assert got[0, 0, 0, 0] == 2 * 2 * 2 and got[0, 3, 3, 0] == 2 and got[0, 0, 3, 0] == 4
