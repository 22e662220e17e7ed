"""tf.layers and tf.nn.conv2d_transpose as TensorFlow 1.15 has them: variable names and shapes,
reuse through scopes and the layers' own name / reuse, values and gradients against PyTorch
(dense, conv2d, conv2d_transpose, pooling, batch norm in training and inference with its moving
statistics, dropout), memory planning on and off, and the errors TF raises, naming the layer,
scope or shapes."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from op_cases_conv_transpose import torch_conv2d_transpose

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed")
F64 = torch.float64


def _rand(*shape, seed=0, scale=1.0):
    return (np.random.default_rng([seed, *shape]).standard_normal(shape) * scale).astype(
        np.float32)


def _t(value, grad=False):
    return torch.tensor(value, dtype=F64, requires_grad=grad)


def _session(plan_memory):
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    return sess


def _names():
    return {v.name: tuple(v.get_shape().as_list()) for v in tf.global_variables()}


# -- names, shapes, reuse --------------------------------------------------------------------
def test_variable_names_and_shapes_as_tf():
    x = tf.placeholder(tf.float32, [None, 4])
    images = tf.placeholder(tf.float32, [None, 8, 8, 3])
    tf.layers.dense(tf.layers.dense(x, 5), 2)
    with tf.variable_scope("net"):
        tf.layers.dense(x, 3)
        conv = tf.layers.conv2d(images, 6, (3, 2))
        tf.layers.conv2d_transpose(conv, 4, 3)
        tf.layers.batch_normalization(conv)
    assert _names() == {
        "dense/kernel:0": (4, 5), "dense/bias:0": (5,), "dense_1/kernel:0": (5, 2),
        "dense_1/bias:0": (2,), "net/dense/kernel:0": (4, 3), "net/dense/bias:0": (3,),
        "net/conv2d/kernel:0": (3, 2, 3, 6), "net/conv2d/bias:0": (6,),
        "net/conv2d_transpose/kernel:0": (3, 3, 4, 6), "net/conv2d_transpose/bias:0": (4,),
        "net/batch_normalization/gamma:0": (6,), "net/batch_normalization/beta:0": (6,),
        "net/batch_normalization/moving_mean:0": (6,),
        "net/batch_normalization/moving_variance:0": (6,)}
    trainable = {v.name for v in tf.trainable_variables()}
    assert "net/batch_normalization/moving_mean:0" not in trainable
    assert "net/batch_normalization/gamma:0" in trainable and len(trainable) == 12


def test_reuse_by_name_and_scope():
    x = tf.placeholder(tf.float32, [None, 4])
    a = tf.layers.dense(x, 3, name="fc")
    b = tf.layers.dense(x, 3, name="fc", reuse=True)
    with tf.variable_scope("outer"):
        c = tf.layers.dense(x, 3, name="fc")
    with tf.variable_scope("outer", reuse=True):
        d = tf.layers.dense(x, 3, name="fc")
    with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
        e1, e2 = (tf.layers.conv2d(tf.zeros([1, 5, 5, 2]), 3, 3, name="c") for _ in range(2))
    assert sorted(_names()) == ["auto/c/bias:0", "auto/c/kernel:0", "fc/bias:0", "fc/kernel:0",
                                "outer/fc/bias:0", "outer/fc/kernel:0"]
    sess = _session(True)
    value = _rand(2, 4)
    got = sess.run([a, b, c, d, e1, e2], {x: value})
    np.testing.assert_array_equal(got[0], got[1])
    np.testing.assert_array_equal(got[2], got[3])
    np.testing.assert_array_equal(got[4], got[5])
    assert not np.allclose(got[0], got[2])  # two layers, two Glorot draws


def test_scope_entered_again_names_its_layers_again():
    # TF closes a scope's sub-scopes when it is left: entered again with reuse, its unnamed
    # layers are conv2d, dense... again and find their variables (a GAN's discriminator)
    def discriminator(images, reuse=False):
        with tf.variable_scope("discriminator", reuse=reuse):
            hidden = tf.layers.conv2d(images, 2, 3, activation=tf.nn.leaky_relu)
            return tf.layers.dense(tf.layers.flatten(hidden), 1)
    real, fake = tf.placeholder(tf.float32, [None, 5, 5, 1]), tf.zeros([1, 5, 5, 1])
    a, b = discriminator(real), discriminator(fake, reuse=True)
    assert sorted(_names()) == ["discriminator/conv2d/bias:0", "discriminator/conv2d/kernel:0",
                                "discriminator/dense/bias:0", "discriminator/dense/kernel:0"]
    for _ in range(2):
        tf.layers.dense(tf.zeros([1, 2]), 1)
    assert {"dense/kernel:0", "dense_1/kernel:0"} <= set(_names())  # the root stays open
    sess = _session(True)
    np.testing.assert_array_equal(*sess.run([a, b], {real: np.zeros((1, 5, 5, 1))}))


def test_class_called_twice_shares_and_lists_its_weights():
    layer = tf.layers.Dense(3, activation=tf.nn.relu, name="head")
    x, y = tf.placeholder(tf.float32, [None, 4]), tf.placeholder(tf.float32, [None, 4])
    layer(x), layer.apply(y)
    assert [v.name for v in layer.trainable_weights] == ["head/kernel:0", "head/bias:0"]
    assert layer.kernel is layer.variables[0] and layer.bias is layer.weights[1]
    assert layer.non_trainable_weights == [] and layer.name == "head"
    second = tf.layers.Dense(2, name="head")  # a class made unique by its name, as TF's
    second(x)
    assert second.scope_name == "head_1"
    bn = tf.layers.BatchNormalization()
    bn(tf.placeholder(tf.float32, [None, 3]), training=True)
    assert [v.name for v in bn.non_trainable_weights] == [
        "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
    assert len(bn.updates) == 2 and len(bn.trainable_variables) == 2
    frozen = tf.layers.Dense(2, trainable=False)
    frozen(x)
    assert frozen.trainable_weights == [] and len(frozen.non_trainable_weights) == 2
    assert not any(v in tf.trainable_variables() for v in frozen.variables)


def test_reuse_errors_name_the_variable_and_shapes():
    x4, x5 = tf.placeholder(tf.float32, [None, 4]), tf.placeholder(tf.float32, [None, 5])
    tf.layers.dense(x4, 3, name="fc")
    with pytest.raises(ValueError, match="Variable fc/kernel already exists"):
        tf.layers.dense(x4, 3, name="fc")
    with pytest.raises(ValueError, match=r"share variable fc/kernel.*\(5, 3\).*\(4, 3\)"):
        tf.layers.dense(x5, 3, name="fc", reuse=True)
    with pytest.raises(ValueError, match="Variable nope/kernel does not exist"):
        tf.layers.dense(x4, 3, name="nope", reuse=True)
    with tf.variable_scope("s", reuse=True), pytest.raises(
            ValueError, match="Variable s/dense/kernel does not exist"):
        tf.layers.dense(x4, 3)
    layer = tf.layers.Dense(2)
    layer(x4)
    with pytest.raises(ValueError, match=r"layer dense is incompatible.*axis -1 .* value 4 "
                                         r"but received input with shape \[None, 5\]"):
        layer(x5)
    with pytest.raises(ValueError, match=r"last dimension of the inputs to `Dense` should be "
                                         r"defined.*dense_1.*\(\?, \?\)"):
        tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 3)
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=2"):
        tf.layers.conv2d(x4, 3, 3)
    with pytest.raises(ValueError, match="channel dimension of the inputs should be defined"):
        tf.layers.conv2d(tf.placeholder(tf.float32, [None, 5, 5, None]), 3, 3)


def test_bad_arguments_and_unsupported_names():
    x = tf.placeholder(tf.float32, [None, 6, 6, 2])
    with pytest.raises(ValueError, match='`padding` argument must be one of "valid", "same"'):
        tf.layers.conv2d(x, 2, 3, padding="full")
    with pytest.raises(ValueError, match="`data_format` argument must be one of"):
        tf.layers.max_pooling2d(x, 2, 2, data_format="NHWC")
    with pytest.raises(ValueError, match="`kernel_size` argument must be a tuple of 2"):
        tf.layers.conv2d(x, 2, (3, 3, 3))
    with pytest.raises(ValueError, match="strides > 1 not supported in conjunction with "
                                         "dilation_rate > 1"):  # as TensorFlow
        tf.layers.conv2d(x, 2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match='must be one of "valid", "same". Received: .causal'):
        tf.layers.conv2d(x, 2, 3, padding="causal")  # Conv1D's only
    with pytest.raises(ValueError, match="kernel_constraint not supported by TinyFlow"):
        tf.layers.dense(tf.zeros([2, 3]), 2, kernel_constraint=lambda w: w)
    with pytest.raises(ValueError, match="renorm.*not supported by TinyFlow"):
        tf.layers.batch_normalization(x, renorm=True)
    with pytest.raises(AttributeError, match="tf.layers.conv3d_transpose is not supported by TinyFlow"):
        tf.layers.conv3d_transpose  # noqa: B018
    with pytest.raises(TypeError, match="not understood"):
        tf.layers.Dense(3, kernal_initializer=None)


# -- values and gradients against torch --------------------------------------------------------
def _compare(build, torch_ref, feeds, plan_memory, atol=1e-4):
    """``build(*placeholders) -> (out, variables)`` against ``torch_ref(*inputs, *variable
    values)`` (float64): the output and the gradients of sum(out * r) for every input and
    variable, the variables' values taken from the session."""
    xs = [tf.placeholder(tf.float32, [None, *v.shape[1:]]) for v in feeds]
    out, variables = build(*xs)
    sess = _session(plan_memory)
    values = sess.run(variables)
    head = _rand(*sess.run(out, dict(zip(xs, feeds))).shape, seed=7)
    grads = tf.gradients(out, xs + variables, grad_ys=[tf.constant(head)])
    got = sess.run([out] + grads, dict(zip(xs, feeds)))
    tensors = [_t(v, grad=True) for v in list(feeds) + values]
    expected = torch_ref(*tensors)
    np.testing.assert_allclose(got[0], expected.detach().numpy(), rtol=1e-4, atol=atol)
    (expected * _t(head)).sum().backward()
    for i, (g, t) in enumerate(zip(got[1:], tensors)):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-4, atol=atol,
                                   err_msg=f"gradient {i}")


@pytest.mark.parametrize("rank", [2, 3])
def test_dense_is_x_at_kernel_plus_bias(rank, plan_memory):
    shape = (3, 4) if rank == 2 else (2, 3, 4)

    def build(x):
        layer = tf.layers.Dense(5, activation=tf.nn.sigmoid)
        return layer(x), [layer.kernel, layer.bias]
    _compare(build, lambda x, w, b: torch.sigmoid(x @ w + b), [_rand(*shape)], plan_memory)


CONVS = [("valid", (1, 1), (2, 7, 6, 3)), ("same", (2, 2), (2, 7, 6, 3)),
         ("SAME", (1, 2), (1, 5, 5, 2)), ("Valid", (2, 1), (2, 8, 7, 3))]


def _tf_padded(x, kernel, stride, padding):  # NCHW x padded as TF pads it
    if padding.lower() == "valid":
        return x
    pads = []
    for size, k, s in zip(x.shape[2:], kernel, stride):
        total = max((-(-size // s) - 1) * s + k - size, 0)
        pads.append((total // 2, total - total // 2))
    return F.pad(x, (*pads[1], *pads[0]))


@pytest.mark.parametrize("padding, stride, shape", CONVS)
def test_conv2d_against_torch(padding, stride, shape, plan_memory):
    def build(x):
        layer = tf.layers.Conv2D(4, (3, 2), strides=stride, padding=padding,
                                 activation=tf.nn.relu)
        return layer(x), [layer.kernel, layer.bias]

    def ref(x, w, b):  # TF's kernel [kh, kw, in, out] is torch's weight transposed
        x = _tf_padded(x.permute(0, 3, 1, 2), (3, 2), stride, padding)
        return F.relu(F.conv2d(x, w.permute(3, 2, 0, 1), b, stride)).permute(0, 2, 3, 1)
    _compare(build, ref, [_rand(*shape)], plan_memory)


def test_conv2d_channels_first_and_pooling(plan_memory):
    def build(x):
        conv = tf.layers.Conv2D(4, 3, padding="same", data_format="channels_first")
        out = conv(x)
        pooled = tf.layers.max_pooling2d(out, 2, 2, data_format="channels_first")
        averaged = tf.layers.average_pooling2d(out, 3, 2, padding="same",
                                               data_format="channels_first")
        flat = tf.concat([tf.layers.flatten(pooled, data_format="channels_first"),
                          tf.layers.flatten(averaged, data_format="channels_first")], 1)
        return flat, [conv.kernel, conv.bias]

    def ref(x, w, b):
        y = F.conv2d(F.pad(x, (1, 1, 1, 1)), w.permute(3, 2, 0, 1), b)
        pooled = F.max_pool2d(y, 2, 2).permute(0, 2, 3, 1).reshape(len(x), -1)
        sums = F.avg_pool2d(_tf_padded(y, (3, 3), (2, 2), "same"), 3, 2, divisor_override=1)
        count = F.avg_pool2d(_tf_padded(torch.ones_like(y[:1, :1]), (3, 3), (2, 2), "same"),
                             3, 2, divisor_override=1)  # padding not counted
        averaged = (sums / count).permute(0, 2, 3, 1).reshape(len(x), -1)
        return torch.cat([pooled, averaged], 1)
    _compare(build, ref, [_rand(2, 2, 6, 7)], plan_memory)


@pytest.mark.parametrize("padding, stride, hw", [("same", 2, (3, 4)), ("valid", 2, (3, 3)),
                                                 ("valid", 1, (4, 3)), ("same", 1, (3, 5)),
                                                 ("valid", 3, (2, 3))])
def test_conv2d_transpose_layer_against_torch(padding, stride, hw, plan_memory):
    def build(x):
        layer = tf.layers.Conv2DTranspose(3, 2 if stride == 3 else 3, strides=stride,
                                          padding=padding)
        return layer(x), [layer.kernel, layer.bias]

    def ref(x, w, b):
        k = w.shape[0]
        out = [d * stride + (max(k - stride, 0) if padding == "valid" else 0) for d in hw]
        y = torch_conv2d_transpose(x.permute(0, 3, 1, 2), w, out, (stride, stride))
        return (y + b[:, None, None]).permute(0, 2, 3, 1)
    _compare(build, ref, [_rand(2, *hw, 4)], plan_memory)


# -- tf.nn.conv2d_transpose ------------------------------------------------------------------
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("stride, size", [(1, (4, 5)), (2, (3, 4)), (2, (4, 3))])
def test_nn_conv2d_transpose_against_torch(padding, stride, size, plan_memory):
    kernel = (3, 2)
    if padding == "SAME":
        out_hw = [d * stride - (stride - 1) * (i % 2) for i, d in enumerate(size)]  # odd/even
    else:
        out_hw = [(d - 1) * stride + k + (stride - 1) * (i % 2)
                  for i, (d, k) in enumerate(zip(size, kernel))]
    value, filt = _rand(2, *size, 4), _rand(*kernel, 3, 4, seed=1)

    def build(x):
        w = tf.Variable(filt)
        batch = tf.shape(x)[0]  # the batch known only when it runs: a tensor output_shape
        y = tf.nn.conv2d_transpose(x, w, tf.stack([batch, *out_hw, 3]), [1, stride, stride, 1],
                                   padding)
        assert y.get_shape().as_list() == [None, *out_hw, 3]
        return y, [w]

    def ref(x, w):
        return torch_conv2d_transpose(x.permute(0, 3, 1, 2), w, out_hw,
                                      (stride, stride)).permute(0, 2, 3, 1)
    _compare(build, ref, [value], plan_memory)


def test_nn_conv2d_transpose_is_conv2d_gradient(plan_memory):
    x = tf.placeholder(tf.float32, [2, 7, 6, 3])
    w = tf.constant(_rand(3, 3, 3, 5))
    g = tf.placeholder(tf.float32, [2, 4, 3, 5])
    conv = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
    by_gradient = tf.gradients(conv, x, grad_ys=[g])[0]
    transposed = tf.nn.conv2d_transpose(g, w, [2, 7, 6, 3], [1, 2, 2, 1], "SAME")
    feeds = {x: _rand(2, 7, 6, 3), g: _rand(2, 4, 3, 5, seed=2)}
    a, b = tf.Session(plan_memory=plan_memory).run([by_gradient, transposed], feeds)
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_nn_conv2d_transpose_gradients_against_finite_differences(plan_memory):
    for fmt, value, out in (("NHWC", (1, 3, 2, 2), [1, 6, 4, 3]),
                            ("NCHW", (1, 2, 3, 2), [1, 3, 5, 3])):
        check_gradients(lambda v, f, fmt=fmt, out=out: tf.nn.conv2d_transpose(
            v, f, out, 2, "SAME", data_format=fmt), inputs=[_rand(*value), _rand(2, 2, 3, 2)],
            plan_memory=plan_memory, name=f"conv2d_transpose-{fmt}")


def test_nn_conv2d_transpose_errors_name_the_shapes():
    x, w = tf.placeholder(tf.float32, [None, 3, 3, 4]), tf.zeros([3, 3, 2, 4])
    with pytest.raises(ValueError, match=r"output_shape does not match filter's output "
                                         r"channels, 5 != 2"):
        tf.nn.conv2d_transpose(x, w, [2, 6, 6, 5], [1, 2, 2, 1])
    with pytest.raises(ValueError, match="input channels does not match filter's input "
                                         "channels, 3 != 4"):
        tf.nn.conv2d_transpose(tf.zeros([1, 3, 3, 3]), w, [1, 6, 6, 2], [1, 2, 2, 1])
    with pytest.raises(ValueError, match=r"output height 8 .* stride 2 and padding SAME gives "
                                         r"4, value's height is 3"):
        tf.nn.conv2d_transpose(x, w, [2, 8, 6, 2], [1, 2, 2, 1])
    with pytest.raises(ValueError, match="output_shape must have shape"):
        tf.nn.conv2d_transpose(x, w, [6, 6, 2], [1, 2, 2, 1])
    with pytest.raises(ValueError, match="batch 3 is not value's 2"):
        tf.nn.conv2d_transpose(tf.zeros([2, 3, 3, 4]), w, [3, 6, 6, 2], [1, 2, 2, 1])
    with pytest.raises(ValueError, match="padding must be 'VALID' or 'SAME'"):
        tf.nn.conv2d_transpose(x, w, [2, 6, 6, 2], [1, 2, 2, 1], padding="FULL")


# -- batch normalization ---------------------------------------------------------------------
def _moments_after(x, steps, momentum, unbiased):
    mean, var = np.zeros(x.shape[-1]), np.ones(x.shape[-1])
    axes = tuple(range(x.ndim - 1))
    batch_var = x.var(axes, ddof=1 if unbiased else 0)
    for _ in range(steps):
        mean = mean * momentum + x.mean(axes) * (1 - momentum)
        var = var * momentum + batch_var * (1 - momentum)
    return mean, var


@pytest.mark.parametrize("shape", [(4, 3, 3, 5), (6, 5)], ids=["fused-4d", "2d"])
def test_batch_norm_training_and_moving_statistics(shape, plan_memory):
    value = _rand(*shape) * 2 + 1
    x = tf.placeholder(tf.float32, [None, *shape[1:]])
    out = tf.layers.batch_normalization(x, momentum=0.9, epsilon=1e-3, training=True)
    gamma, beta, moving_mean, moving_variance = tf.global_variables()
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    sess = _session(plan_memory)
    sess.run([tf.assign(gamma, _rand(shape[-1], seed=3)), tf.assign(beta, _rand(shape[-1],
                                                                                seed=4))])
    for _ in range(3):
        got = sess.run([out] + updates, {x: value})[0]
    channels_first = _t(value).movedim(-1, 1)
    expected = F.batch_norm(channels_first, None, None, _t(sess.run(gamma)),
                            _t(sess.run(beta)), training=True, eps=1e-3).movedim(1, -1)
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-4, atol=1e-4)
    # the fused kernel (4-d) feeds the moving variance the Bessel-corrected variance
    mean, var = _moments_after(value.astype(np.float64), 3, 0.9, unbiased=len(shape) == 4)
    np.testing.assert_allclose(sess.run(moving_mean), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sess.run(moving_variance), var, rtol=1e-5, atol=1e-6)
    if len(shape) == 4:  # torch keeps the unbiased running variance too
        running_mean, running_var = torch.zeros(shape[-1], dtype=F64), torch.ones(
            shape[-1], dtype=F64)
        for _ in range(3):
            F.batch_norm(channels_first, running_mean, running_var, training=True,
                         momentum=0.1)
        np.testing.assert_allclose(sess.run(moving_variance), running_var.numpy(), rtol=1e-5)


def test_batch_norm_inference_uses_moving_statistics(plan_memory):
    value = _rand(3, 4, 4, 2)
    x = tf.placeholder(tf.float32, [None, 4, 4, 2])
    out = tf.layers.batch_normalization(x, epsilon=0.01)  # training=False: TF's default
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    mean, var = np.array([0.5, -1.0], np.float32), np.array([2.0, 0.5], np.float32)
    gamma, beta, moving_mean, moving_variance = tf.global_variables()
    sess = _session(plan_memory)
    sess.run([tf.assign(moving_mean, mean), tf.assign(moving_variance, var),
              tf.assign(gamma, [1.5, 0.5]), tf.assign(beta, [0.1, 0.2])])
    expected = F.batch_norm(_t(value).movedim(-1, 1), _t(mean), _t(var), _t([1.5, 0.5]),
                            _t([0.1, 0.2]), training=False, eps=0.01).movedim(1, -1)
    np.testing.assert_allclose(sess.run(out, {x: value}), expected.numpy(), rtol=1e-5,
                               atol=1e-5)


def test_batch_norm_gradients_against_torch(plan_memory):
    def build(x):
        layer = tf.layers.BatchNormalization(axis=1, epsilon=1e-3)
        return layer(x, training=True), [layer.gamma, layer.beta]

    def ref(x, gamma, beta):
        return F.batch_norm(x, None, None, gamma, beta, training=True, eps=1e-3)
    _compare(build, ref, [_rand(4, 3, 2, 5) * 3 + 1], plan_memory, atol=1e-3)


def test_batch_norm_training_tensor_and_update_ops_with_the_train_op(plan_memory):
    value = _rand(8, 3) + 2
    x, training = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.bool, [])
    out = tf.layers.batch_normalization(x, momentum=0.5, training=training, center=False)
    loss = tf.reduce_sum(tf.square(out - 1.0))
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    gamma, moving_mean, moving_variance = tf.global_variables()
    sess = _session(plan_memory)
    inference = sess.run(out, {x: value, training: False})
    np.testing.assert_allclose(inference, value / np.sqrt(1 + 1e-3), rtol=1e-5)
    np.testing.assert_array_equal(sess.run(moving_mean), np.zeros(3))  # no update when False
    normalised = (value - value.mean(0)) / np.sqrt(value.var(0) + 1e-3)
    np.testing.assert_allclose(sess.run(out, {x: value, training: True}), normalised,
                               rtol=1e-4, atol=1e-5)
    sess.run(train, {x: value, training: True})
    np.testing.assert_allclose(sess.run(moving_mean), value.mean(0) * 0.5, rtol=1e-5)
    np.testing.assert_allclose(sess.run(moving_variance), 0.5 + value.var(0) * 0.5, rtol=1e-5)
    assert not np.allclose(sess.run(gamma), 1.0)  # the train op ran too


def test_update_ops_before_an_optimizer_with_slots(plan_memory):
    # Adam's slots are made inside control_dependencies(UPDATE_OPS): their initialisers must
    # not wait for the updates, which read the feeds (TF makes slots in an init_scope)
    x = tf.placeholder(tf.float32, [None, 2, 2, 3])
    out = tf.layers.batch_normalization(x, momentum=0.0, training=True)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.AdamOptimizer(0.01).minimize(tf.reduce_sum(tf.square(out - 1.0)))
    sess = _session(plan_memory)  # runs no update: x is not fed
    value = _rand(4, 2, 2, 3)
    sess.run(train, {x: value})
    moving_mean = tf.global_variables()[2]
    np.testing.assert_allclose(sess.run(moving_mean), value.mean((0, 1, 2)), rtol=1e-5)


# -- dropout, regularizers -------------------------------------------------------------------
def test_dropout_training_bool_and_tensor(plan_memory):
    value = np.ones((200, 50), np.float32)
    x, training = tf.placeholder(tf.float32, [None, 50]), tf.placeholder(tf.bool, [])
    off = tf.layers.dropout(x, rate=0.25)  # training=False by default, as TF
    on = tf.layers.dropout(x, rate=0.25, training=True, seed=1)
    fed = tf.layers.Dropout(0.25, seed=2).apply(x, training=training)
    sess = _session(plan_memory)
    np.testing.assert_array_equal(sess.run(off, {x: value}), value)
    for result in (sess.run(on, {x: value}), sess.run(fed, {x: value, training: True})):
        assert set(np.unique(result)) == {0.0, np.float32(1 / 0.75)}
        assert abs((result == 0).mean() - 0.25) < 0.02
    np.testing.assert_array_equal(sess.run(fed, {x: value, training: False}), value)
    grad = tf.gradients(tf.reduce_sum(on * 2.0), x)[0]
    dropped, g = sess.run([on, grad], {x: value})  # one run: one mask
    np.testing.assert_allclose(g, 2.0 * dropped, rtol=1e-6)


def test_regularizers_go_to_the_collection_once(plan_memory):
    def l2(w):
        return 0.01 * tf.nn.l2_loss(w)
    x = tf.placeholder(tf.float32, [None, 4])
    tf.layers.dense(x, 3, name="fc", kernel_regularizer=l2, bias_regularizer=l2)
    tf.layers.dense(x, 3, name="fc", kernel_regularizer=l2, reuse=True)
    activity = tf.layers.Dense(2, activity_regularizer=lambda y: tf.reduce_sum(y))
    out = activity(x)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(losses) == 3 and activity.losses == losses[2:]
    value = _rand(5, 4)
    sess = _session(plan_memory)
    kernel, bias = tf.global_variables()[:2]
    got = sess.run(losses + [kernel, bias, out], {x: value})
    np.testing.assert_allclose(got[0], 0.005 * (got[3] ** 2).sum(), rtol=1e-5)
    np.testing.assert_allclose(got[1], 0.005 * (got[4] ** 2).sum(), rtol=1e-5, atol=1e-12)
    np.testing.assert_allclose(got[2], got[5].sum() / 5, rtol=1e-5)


def test_initializers_and_enclosing_scope_default():
    x = tf.placeholder(tf.float32, [None, 3])
    with tf.variable_scope("s", initializer=tf.constant_initializer(0.5)):
        a = tf.layers.Dense(2, bias_initializer=tf.ones_initializer())
        a(x)
    b = tf.layers.Dense(2, kernel_initializer=tf.zeros_initializer())
    b(x)
    sess = _session(True)
    np.testing.assert_array_equal(sess.run(a.kernel), np.full((3, 2), 0.5))
    np.testing.assert_array_equal(sess.run(a.bias), np.ones(2))
    np.testing.assert_array_equal(sess.run(b.kernel), np.zeros((3, 2)))
    c = tf.layers.Dense(400)
    c(tf.placeholder(tf.float32, [None, 200]))
    limit = np.sqrt(6 / 600)  # Glorot-uniform, get_variable's default
    kernel = sess.run(tf.variables_initializer([c.kernel])) or sess.run(c.kernel)
    assert np.abs(kernel).max() <= limit and np.abs(kernel).max() > 0.95 * limit
    assert abs(kernel.std() - limit / np.sqrt(3)) < 0.01 * limit


def test_batch_norm_with_a_bool_placeholder_of_no_shape_keeps_the_static_shape():
    # TF 1.15: is_training = tf.placeholder(tf.bool) (no shape) then a dense on the result
    x = tf.placeholder(tf.float32, [None, 5])
    is_training = tf.placeholder(tf.bool)
    normed = tf.layers.batch_normalization(x, training=is_training)
    assert normed.get_shape().as_list() == [None, 5]
    out = tf.layers.dense(normed, 3)
    assert out.get_shape().as_list() == [None, 3]
    sess = _session(True)
    value = _rand(4, 5)
    assert sess.run(out, {x: value, is_training: True}).shape == (4, 3)
    assert sess.run(out, {x: value, is_training: False}).shape == (4, 3)
