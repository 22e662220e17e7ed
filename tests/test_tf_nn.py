"""tf.nn as TensorFlow 1.15 has it: values against PyTorch or TF's formulas, gradients against
torch autograd and finite differences (memory planning on and off), NHWC as channels-last views,
the seed's calls still told apart, and an mnist_deep-style network against the same network in
PyTorch."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.lua_ops.conv import kernels as conv_kernels

pytestmark = [pytest.mark.usefixtures("fresh_graph", "torch_seed"),
              pytest.mark.filterwarnings("error:An output with one or more elements was resized")]
F64 = torch.float64


def _rand(*shape, seed=0, scale=1.0):
    return (np.random.default_rng([seed, *shape]).standard_normal(shape) * scale).astype(
        np.float32)


def compare(build, ref, values, plan_memory, config="cpu", wrt=None, atol=1e-4):
    """``build(*placeholders)`` forward and its gradients (head r) against the float64 torch
    twin ``ref`` and its autograd; ``wrt``: the inputs with a gradient (default all)."""
    wrt = range(len(values)) if wrt is None else wrt
    xs = [tf.placeholder(tf.as_dtype(v.dtype), shape=v.shape) for v in values]
    out = build(*xs)
    tensors = [torch.tensor(v, dtype=F64 if v.dtype.kind == "f" else None,
                            requires_grad=i in wrt) for i, v in enumerate(values)]
    expected = ref(*tensors)
    head = _rand(*expected.shape, seed=9)
    r = tf.placeholder(tf.float32, shape=head.shape)
    grads = tf.gradients(out, [xs[i] for i in wrt], grad_ys=[r]) if wrt else []
    grads = [tf.convert_to_tensor(g) for g in grads]  # a lookup's IndexedSlices as torch's
    with tf.Session(config, plan_memory=plan_memory) as sess:
        got = sess.run([out] + grads, {**dict(zip(xs, values)), r: head})
    np.testing.assert_allclose(got[0], expected.detach().numpy(), rtol=1e-4, atol=atol)
    if wrt:
        (expected * torch.tensor(head, dtype=F64)).sum().backward()
    for i, g in zip(wrt, got[1:]):
        np.testing.assert_allclose(g, tensors[i].grad.numpy(), rtol=1e-4, atol=atol,
                                   err_msg=f"gradient of input {i}")
    return got


def tf_pad(x, kernel, stride, padding, value=0.0):
    """NCHW x padded as TensorFlow pads it (the odd pixel after)."""
    if padding == "VALID":
        return x
    pads = []
    for size, k, s in zip(x.shape[2:], kernel, stride):
        total = max((-(-size // s) - 1) * s + k - size, 0)
        pads.append((total // 2, total - total // 2))
    return F.pad(x, (*pads[1], *pads[0]), value=value)


def nhwc(function):
    """A torch NCHW function as one on NHWC tensors."""
    return lambda x, *rest: function(x.permute(0, 3, 1, 2), *rest).permute(0, 2, 3, 1)


def torch_conv(x, w, stride, padding):  # x NCHW, w HWIO
    return F.conv2d(tf_pad(x, w.shape[:2], stride, padding), w.permute(3, 2, 0, 1),
                    stride=stride)


# -- convolution and pooling ----------------------------------------------------------------
CONVS = [((2, 7, 6, 3), (3, 3, 3, 4), (1, 1), "SAME"), ((2, 8, 7, 3), (3, 2, 3, 5), (2, 2), "SAME"),
         ((2, 9, 8, 2), (3, 3, 2, 4), (2, 3), "VALID"),
         ((1, 5, 5, 1), (5, 5, 1, 2), (1, 1), "SAME")]


@pytest.mark.parametrize("case", CONVS, ids=lambda c: f"{c[3]}-s{c[2]}-k{c[1][:2]}")
def test_conv2d_nhwc(case, plan_memory, config):
    shape, filter_shape, stride, padding = case
    compare(lambda x, w: tf.nn.conv2d(x, w, strides=[1, *stride, 1], padding=padding),
            lambda x, w: nhwc(torch_conv)(x, w, stride, padding),
            [_rand(*shape), _rand(*filter_shape, scale=0.3)], plan_memory, config)


def test_conv2d_nchw_with_tf_filter(plan_memory):
    compare(lambda x, w: tf.nn.conv2d(x, w, [1, 1, 2, 2], "SAME", data_format="NCHW"),
            lambda x, w: torch_conv(x, w, (2, 2), "SAME"),
            [_rand(2, 3, 7, 6), _rand(3, 3, 3, 4, scale=0.3)], plan_memory)


def test_conv2d_gradients_against_finite_differences(plan_memory):
    for data_format, shape in (("NHWC", (1, 5, 4, 2)), ("NCHW", (1, 2, 5, 4))):
        check_gradients(lambda x, w, f=data_format: tf.nn.conv2d(
            x, w, 2, "SAME", data_format=f), inputs=[_rand(*shape), _rand(3, 3, 2, 3)],
            plan_memory=plan_memory, name=f"conv2d-{data_format}")


POOLS = [((2, 8, 8, 3), (2, 2), (2, 2), "VALID"), ((2, 8, 7, 3), (3, 3), (2, 2), "SAME"),
         ((1, 5, 5, 2), (4, 4), (2, 2), "SAME"), ((2, 6, 7, 2), (3, 2), (1, 2), "SAME")]


def _distinct(shape):
    return (np.random.default_rng(3).permutation(np.prod(shape)).reshape(shape) / 10).astype(
        np.float32)


@pytest.mark.parametrize("case", POOLS, ids=lambda c: f"{c[3]}-k{c[1]}-s{c[2]}")
def test_pools_nhwc(case, plan_memory, config):
    shape, kernel, stride, padding = case

    def avg(x):  # padding not counted
        sums = F.avg_pool2d(tf_pad(x, kernel, stride, padding), kernel, stride,
                            divisor_override=1)
        ones = tf_pad(torch.ones_like(x[:1, :1]), kernel, stride, padding)
        return sums / F.avg_pool2d(ones, kernel, stride, divisor_override=1)
    compare(lambda x: tf.nn.max_pool(x, [1, *kernel, 1], [1, *stride, 1], padding),
            nhwc(lambda x: F.max_pool2d(tf_pad(x, kernel, stride, padding, -np.inf), kernel,
                                        stride)), [_distinct(shape)], plan_memory, config)
    compare(lambda x: tf.nn.avg_pool(x, ksize=kernel, strides=stride, padding=padding),
            nhwc(avg), [_rand(*shape)], plan_memory, config)
    check_gradients(lambda x: tf.nn.avg_pool(x, kernel, stride, padding), inputs=[_rand(*shape)],
                    plan_memory=plan_memory, name="avg_pool-NHWC")


def test_nhwc_is_a_channels_last_view_not_a_copy():
    x = torch.randn(2, 5, 4, 3)
    view = conv_kernels.nchw_view(x, "NHWC")
    assert view.shape == (2, 3, 5, 4) and view.data_ptr() == x.data_ptr()
    assert view.is_contiguous(memory_format=torch.channels_last)
    w = torch.randn(3, 3, 3, 8)
    assert conv_kernels.oihw_view(w, "HWIO").shape == (8, 3, 3, 3)
    assert conv_kernels.oihw_view(w, "HWIO").data_ptr() == w.data_ptr()
    assert conv_kernels.nchw_view(x, None) is x


def test_layout_that_cannot_be_right_names_op_and_shape():
    x = tf.placeholder(tf.float32)
    pooled = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")  # TF: NHWC
    with pytest.raises(tf.ShapeError, match=r"op 'max_pool2d'.*window 2 is larger.*\(4, 1, 28"):
        tf.Session().run(pooled, {x: np.zeros((4, 1, 28, 28))})  # NCHW data
    w = tf.placeholder(tf.float32)
    conv = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
    with pytest.raises(tf.ShapeError, match=r"op 'conv2d'.*weight must be \(5, 5, 3, 32\).*"
                                            r"\(4, 28, 28, 3\)"):
        tf.Session().run(conv, {x: np.zeros((4, 28, 28, 3)), w: np.zeros((5, 5, 1, 32))})


def test_tf_argument_errors():
    x = tf.placeholder(tf.float32)
    with pytest.raises(TypeError, match="strides and padding"):
        tf.nn.conv2d(x, tf.placeholder(tf.float32))
    with pytest.raises(ValueError, match=r"dilations \[2, 2, 2, 1\] must be \[1, h, w, 1\]"):
        tf.nn.conv2d(x, x, [1, 1, 1, 1], "SAME", dilations=[2, 2, 2, 1])
    with pytest.raises(ValueError, match=r"ksize .*\[1, h, w, 1\]"):
        tf.nn.max_pool(x, [2, 2, 2, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="data_format"):
        tf.nn.avg_pool(x, 2, 2, "VALID", data_format="NCDHW")


def test_seed_calls_keep_their_meaning():
    x = tf.placeholder(tf.float32)
    seed_conv = tf.nn.conv2d(x, num_filter=4, ksize=[1, 3, 3, 1], name="c")  # NCHW, variables
    pooled = tf.nn.max_pool(seed_conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    assert [v.op.name for v in tf.trainable_variables()] == ["c_weight"]
    assert pooled.node.attrs.get("data_format") in (None, "NCHW")
    bn = tf.nn.batch_normalization(pooled, "bn")
    assert [v.op.name for v in tf.trainable_variables()] == ["c_weight", "bn_gamma", "bn_beta"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(bn, {x: _rand(2, 1, 10, 10)}).shape == (2, 4, 4, 4)


def test_pooling_the_seed_layers_nchw_data_follows_the_data():
    # the seed's mnist/cifar scripts: TF-style padding on the seed conv's NCHW output
    x = tf.placeholder(tf.float32, [2, 3, 9, 9])
    conv = tf.nn.relu(tf.nn.conv2d(x, num_filter=4, ksize=[1, 3, 3, 1], name="c"))
    pooled = tf.nn.max_pool(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    averaged = tf.nn.avg_pool(conv, ksize=2, strides=2, padding="SAME")
    assert pooled.get_shape().as_list() == [2, 4, 3, 3]
    assert averaged.get_shape().as_list() == [2, 4, 4, 4]
    said = tf.nn.max_pool(conv, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", data_format="NHWC")
    assert said.get_shape().as_list() == [2, 2, 3, 7]  # data_format given: as told
    nhwc = tf.placeholder(tf.float32, [2, 9, 9, 3])
    assert tf.nn.max_pool(nhwc, [1, 2, 2, 1], [1, 2, 2, 1], "VALID").get_shape().as_list() == [
        2, 4, 4, 3]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        features, got = sess.run([conv, pooled], {x: _rand(2, 3, 9, 9)})
    want = F.max_pool2d(torch.tensor(features), 2, 2).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)


# -- activations, bias_add, softmax ---------------------------------------------------------
ACTIVATIONS = {
    "relu6": (tf.nn.relu6, lambda x: torch.clamp(x, 0, 6)),
    "elu": (tf.nn.elu, F.elu),
    "leaky_relu": (lambda x: tf.nn.leaky_relu(x, alpha=0.3), lambda x: F.leaky_relu(x, 0.3)),
    "softplus": (tf.nn.softplus, F.softplus),
    "softsign": (tf.nn.softsign, F.softsign),
    "sigmoid": (tf.nn.sigmoid, torch.sigmoid),
    "tanh": (tf.nn.tanh, torch.tanh),
    "relu": (tf.nn.relu, torch.relu),
}


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activations(name, plan_memory):
    build, ref = ACTIVATIONS[name]
    values = np.array([[-30.0, -3.0, -0.7, -0.2], [0.3, 1.1, 7.5, 40.0]], np.float32)
    compare(build, ref, [values], plan_memory)
    check_gradients(build, inputs=[_rand(3, 4) * 2], plan_memory=plan_memory, name=name)


def test_activation_gradients_at_the_kinks_are_tensorflows():
    x = tf.placeholder(tf.float32, shape=[2])
    at = np.array([0.0, 0.0], np.float32)
    expected = {tf.nn.relu: 0.0, tf.nn.relu6: 0.0, tf.nn.elu: 1.0, tf.nn.softplus: 0.5,
                lambda v: tf.nn.leaky_relu(v, 0.2): 0.2}
    with tf.Session() as sess:
        for function, slope in expected.items():
            (grad,) = sess.run(tf.gradients(function(x), [x]), {x: at})
            np.testing.assert_allclose(grad, [slope, slope], rtol=1e-6)


@pytest.mark.parametrize("data_format", ["NHWC", None, "NCHW"])
def test_bias_add(data_format, plan_memory):
    nchw = data_format == "NCHW"
    compare(lambda x, b: tf.nn.bias_add(x, b, data_format=data_format),
            lambda x, b: x + (b.view(3, 1, 1) if nchw else b),
            [_rand(2, 3, 4, 3), _rand(3)], plan_memory)
    with pytest.raises(tf.ShapeError, match="bias"):
        tf.Session().run(tf.nn.bias_add(tf.constant(_rand(2, 4)), tf.constant(_rand(3))))


def test_softmax_axis_and_dim(plan_memory):
    compare(lambda x: tf.nn.softmax(x, dim=0), lambda x: torch.softmax(x, 0),
            [_rand(3, 4)], plan_memory)
    compare(lambda x: tf.nn.log_softmax(x, axis=1), lambda x: torch.log_softmax(x, 1),
            [_rand(2, 3, 4)], plan_memory)


def test_l2_loss(plan_memory):
    compare(tf.nn.l2_loss, lambda t: (t ** 2).sum() / 2, [_rand(3, 5)], plan_memory)


def test_dropout_tf_signature(plan_memory):
    x = tf.placeholder(tf.float32, shape=[300, 40])
    keep = tf.placeholder(tf.float32)
    value = np.abs(_rand(300, 40)) + 0.5
    by_rate = tf.nn.dropout(x, rate=0.25)
    by_keep = tf.nn.dropout(x, keep_prob=keep)
    shared = tf.nn.dropout(x, 0.5, noise_shape=[300, 1])
    with tf.Session(plan_memory=plan_memory) as sess:
        out = sess.run(by_rate, {x: value})
        assert abs((out > 0).mean() - 0.75) < 0.03
        np.testing.assert_allclose(out[out > 0], (value / 0.75)[out > 0], rtol=1e-6)
        np.testing.assert_array_equal(sess.run(by_keep, {x: value, keep: 1.0}), value)
        rows = sess.run(shared, {x: value})
        assert all(len(set(row > 0)) == 1 for row in rows)  # one draw per row
    for bad in ({"keep_prob": 0.5, "rate": 0.5}, {"rate": 1.0}, {"keep_prob": 0.0}, {}):
        with pytest.raises(ValueError):
            tf.nn.dropout(x, **bad)


# -- losses ---------------------------------------------------------------------------------
def test_softmax_cross_entropy_v1_and_v2(plan_memory):
    logits, labels = _rand(4, 5), torch.softmax(torch.tensor(_rand(4, 5, seed=1)), 1).numpy()
    xent = lambda z, y: -(y * torch.log_softmax(z, 1)).sum(1)
    compare(lambda z, y: tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=z), xent,
            [logits, labels], plan_memory)
    compare(lambda z, y: tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=z), xent,
            [logits, labels], plan_memory, wrt=[0])
    z, y = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    assert tf.gradients(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=z), [y]) == [
        None]
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.softmax_cross_entropy_with_logits(y, z)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_sparse_softmax_cross_entropy(dtype, plan_memory):
    labels = np.array([0, 3, 2, 4, 1, 3], dtype)
    compare(lambda z, y: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=z),
            lambda z, y: F.cross_entropy(z, y.long(), reduction="none"),
            [_rand(6, 5) * 3, labels], plan_memory, wrt=[0])
    check_gradients(lambda z: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant(labels), logits=z), inputs=[_rand(6, 5)], plan_memory=plan_memory)


def test_sparse_softmax_cross_entropy_bad_labels():
    z = tf.placeholder(tf.float32)
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.placeholder(tf.float32),
                                                       logits=z)
    y = tf.placeholder(tf.int64)
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=z)
    with pytest.raises(tf.TinyflowError, match="label 5 is outside the valid range"):
        tf.Session().run(loss, {z: _rand(2, 5), y: np.array([0, 5])})
    with pytest.raises(tf.ShapeError, match="labels"):
        tf.Session().run(loss, {z: _rand(2, 5), y: np.array([[0], [1]])})


def test_sigmoid_cross_entropy_with_logits(plan_memory):
    logits = np.array([[-80.0, -2.0, 0.0, 0.5], [3.0, 0.0, 50.0, -0.1]], np.float32)
    labels = np.array([[0.0, 1.0, 0.3, 1.0], [0.0, 1.0, 1.0, 0.5]], np.float32)
    compare(lambda z, y: tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=z),
            lambda z, y: F.binary_cross_entropy_with_logits(z, y, reduction="none"),
            [logits, labels], plan_memory)
    check_gradients(lambda z, y: tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=z),
                    inputs=[_rand(3, 4), _rand(3, 4) ** 2], plan_memory=plan_memory)


# -- lookups, statistics, normalisation ----------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_embedding_lookup(dtype, plan_memory):
    ids = np.array([[1, 4, 1], [0, 1, 3]], dtype)  # repeated ids: their gradients add
    compare(lambda p, i: tf.nn.embedding_lookup(p, i), lambda p, i: p[i.long()],
            [_rand(5, 3), ids], plan_memory, wrt=[0])
    compare(lambda p: tf.nn.embedding_lookup([p], ids), lambda p: p[torch.tensor(ids).long()],
            [_rand(5, 2, 2)], plan_memory)
    with pytest.raises(tf.TinyflowError, match="id 7 is outside"):
        tf.Session().run(tf.nn.embedding_lookup(tf.constant(_rand(5, 3)), np.array([7])))


@pytest.mark.parametrize("strategy, want", [
    # the first column of each row, as real TF prints it (tf.compat.v1, the same shards: rows
    # 0..3, 100.., 200.., ids 0..9)
    ("mod", [0, 100, 200, 2, 102, 202, 4, 104, 204, 6]),
    ("div", [0, 2, 4, 6, 100, 102, 104, 200, 202, 204])])
def test_embedding_lookup_of_shards(strategy, want, plan_memory):
    shards = [np.arange(8, dtype=np.float32).reshape(4, 2) + offset * 100
              for offset in range(3)]
    shards[1], shards[2] = shards[1][:3], shards[2][:3]
    params = [tf.constant(s) for s in shards]
    rows = tf.nn.embedding_lookup(params, np.arange(10), partition_strategy=strategy)
    picked = [1, 4, 4, 9]
    grads = tf.gradients(tf.reduce_sum(tf.nn.embedding_lookup(
        params, picked, partition_strategy=strategy)), params)
    assert all(isinstance(g, tf.IndexedSlices) for g in grads)  # each shard's own, as TF's
    grads = [tf.convert_to_tensor(g) for g in grads]
    with tf.Session(plan_memory=plan_memory) as sess:
        got, got_grads = sess.run([rows, grads])
    assert got[:, 0].tolist() == want
    expected = [np.zeros_like(g) for g in got_grads]
    for i in picked:  # id i's row: where want says it is (shard * 100 + row * 2)
        expected[want[i] // 100][(want[i] % 100) // 2] += 1.0
    for got_grad, want_grad in zip(got_grads, expected):
        np.testing.assert_array_equal(got_grad, want_grad)
    with pytest.raises(ValueError, match="Unrecognized partition strategy: lol"):
        tf.nn.embedding_lookup(params, [0], partition_strategy="lol")


def test_in_top_k():
    predictions = np.array([[0.1, 0.5, 0.5, 0.2], [0.3, 0.2, 0.1, 0.0],
                            [0.9, 0.9, 0.9, 0.1], [np.nan, 0.2, 0.1, 0.0]], np.float32)
    targets = np.array([2, 1, 0, 0], np.int32)
    p, t = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    with tf.Session() as sess:
        top1, top2 = sess.run([tf.nn.in_top_k(p, t, 1), tf.nn.in_top_k(p, t, 2)],
                              {p: predictions, t: targets})
        outside = sess.run(tf.nn.in_top_k(p, t, 3), {p: predictions, t: [9, 1, 0, 1]})
    assert top1.dtype == np.bool_
    np.testing.assert_array_equal(top1, [True, False, True, False])  # ties count as in
    np.testing.assert_array_equal(top2, [True, True, True, False])
    np.testing.assert_array_equal(outside, [False, True, True, True])


@pytest.mark.parametrize("keep_dims", [False, True])
def test_moments(keep_dims, plan_memory):
    x = _rand(4, 3, 5)
    for i, ref in enumerate((lambda t: t.mean((0, 2), keepdim=keep_dims),
                             lambda t: t.var((0, 2), unbiased=False, keepdim=keep_dims))):
        compare(lambda t, i=i: tf.nn.moments(t, [0, 2], keep_dims=keep_dims)[i], ref, [x],
                plan_memory)


def test_batch_normalization_tf_formula(plan_memory):
    def ref(x, mean, var, offset, scale):
        return (x - mean) * scale / torch.sqrt(var + 1e-3) + offset
    values = [_rand(4, 3), _rand(3), np.abs(_rand(3, seed=2)) + 0.5, _rand(3, seed=3),
              _rand(3, seed=4)]
    compare(lambda *a: tf.nn.batch_normalization(*a, variance_epsilon=1e-3), ref, values,
            plan_memory)
    compare(lambda x, m, v: tf.nn.batch_normalization(x, m, v, None, None, 1e-3),
            lambda x, m, v: (x - m) / torch.sqrt(v + 1e-3), values[:3], plan_memory)


# -- a whole network ------------------------------------------------------------------------
def _deep_weights():
    rng = np.random.default_rng(5)
    shapes = {"w1": (5, 5, 1, 32), "b1": (32,), "w2": (5, 5, 32, 64), "b2": (64,),
              "w3": (7 * 7 * 64, 64), "b3": (64,), "w4": (64, 10), "b4": (10,)}
    return {k: (rng.standard_normal(s) * 0.05).astype(np.float32) for k, s in shapes.items()}


def _deep_tinyflow(weights, images, labels, steps):
    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.float32, [None, 10])
    keep_prob = tf.placeholder(tf.float32)
    v = {k: tf.Variable(tf.constant(w)) for k, w in weights.items()}
    h = tf.reshape(x, [-1, 28, 28, 1])
    for w, b in (("w1", "b1"), ("w2", "b2")):
        h = tf.nn.relu(tf.nn.conv2d(h, v[w], strides=[1, 1, 1, 1], padding="SAME") + v[b])
        h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    h = tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 7 * 7 * 64]), v["w3"]) + v["b3"])
    logits = tf.matmul(tf.nn.dropout(h, keep_prob), v["w4"]) + v["b4"]
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feed = {x: images, y_: labels, keep_prob: 1.0}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(steps):
            losses.append(sess.run(loss, feed))
            sess.run(step, feed)
        return losses, sess.run(logits, feed)


def _deep_torch(weights, images, labels, steps):
    p = {k: torch.tensor(w, requires_grad=True) for k, w in weights.items()}
    x, y = torch.tensor(images).view(-1, 1, 28, 28), torch.tensor(labels)
    losses = []
    for step in range(steps + 1):
        h = x
        for w, b in (("w1", "b1"), ("w2", "b2")):
            h = F.relu(F.conv2d(h, p[w].permute(3, 2, 0, 1), p[b], padding=2))
            h = F.max_pool2d(h, 2, 2)
        h = F.relu(h.permute(0, 2, 3, 1).reshape(-1, 7 * 7 * 64) @ p["w3"] + p["b3"])
        logits = h @ p["w4"] + p["b4"]
        if step == steps:
            return losses, logits.detach().numpy()
        loss = -(y * torch.log_softmax(logits, 1)).sum(1).mean()
        losses.append(loss.item())
        grads = torch.autograd.grad(loss, list(p.values()))
        with torch.no_grad():
            for value, grad in zip(p.values(), grads):
                value -= 0.1 * grad


def test_mnist_deep_network_matches_pytorch():
    weights = _deep_weights()
    rng = np.random.default_rng(6)
    images = rng.uniform(0, 1, (8, 784)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 8)]
    got_losses, got_logits = _deep_tinyflow(weights, images, labels, steps=3)
    want_losses, want_logits = _deep_torch(weights, images, labels, steps=3)
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_logits, want_logits, rtol=1e-3, atol=1e-4)
    assert got_losses[-1] < got_losses[0]
