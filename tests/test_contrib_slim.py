"""tf.contrib.slim, tf.contrib.framework.arg_scope and TF-Slim's tf.contrib.layers: variable
names and shapes as TensorFlow 1.15's contrib code gives them (written down from tf_slim 1.1.0,
TF 1.15's contrib/layers code, run on /work/tfvenv's TensorFlow), values against numpy and
torch with constant initializers, arg_scope's nesting, a slim CNN trained against a torch
replica."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")
slim = tf.contrib.slim


def _run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def test_slim_is_reachable_and_names_tf_objects():
    assert slim.conv2d is tf.contrib.layers.conv2d is tf.contrib.layers.convolution2d
    assert slim.arg_scope is tf.contrib.framework.arg_scope
    assert slim.losses is tf.contrib.losses
    assert slim.fully_connected is tf.contrib.layers.fully_connected
    assert slim.layers is tf.contrib.layers
    assert slim.get_or_create_global_step is tf.train.get_or_create_global_step
    with pytest.raises(AttributeError, match="tf.contrib.slim.nets is not supported"):
        _ = slim.nets
    with pytest.raises(AttributeError, match="tf.contrib.framework.zero_initializer is not "
                                             "supported"):
        _ = tf.contrib.framework.zero_initializer


def test_a_slim_model_has_tf_variable_names_and_shapes():
    x = tf.placeholder(tf.float32, [2, 8, 8, 3])
    with slim.arg_scope([slim.conv2d, slim.fully_connected],
                        weights_regularizer=slim.l2_regularizer(0.1)):
        net = slim.conv2d(x, 4, [3, 3])
        net = slim.conv2d(net, 4, 3, normalizer_fn=slim.batch_norm)
        net = slim.max_pool2d(net, [2, 2])
        net = slim.avg_pool2d(net, 2)
        net = slim.repeat(net, 2, slim.conv2d, 5, [3, 3], scope="conv3")
        net = slim.stack(net, slim.conv2d, [(6, [3, 3]), (7, [1, 1])], scope="stk")
        net = slim.conv2d_transpose(net, 3, 3, stride=2)
        net = slim.separable_conv2d(net, 4, 3, depth_multiplier=2)
        net = slim.separable_conv2d(net, None, 3, depth_multiplier=1)
        net = slim.layer_norm(net)
        net = slim.flatten(net)
        net = slim.dropout(net, 0.5)
        net = slim.fully_connected(net, 10)
        net = slim.stack(net, slim.fully_connected, [5, 4])
        net = slim.batch_norm(net, scale=True)
    embedded = tf.contrib.layers.embed_sequence(tf.placeholder(tf.int32, [2, 5]), 10, 3)
    assert net.get_shape().as_list() == [2, 4]
    assert embedded.get_shape().as_list() == [2, 5, 3]
    # TensorFlow 1.15 (tf_slim 1.1.0): name, shape, trainable; all are model variables
    want = [
        ("Conv/weights", (3, 3, 3, 4), True), ("Conv/biases", (4,), True),
        ("Conv_1/weights", (3, 3, 4, 4), True), ("Conv_1/BatchNorm/beta", (4,), True),
        ("Conv_1/BatchNorm/moving_mean", (4,), False),
        ("Conv_1/BatchNorm/moving_variance", (4,), False),
        ("conv3/conv3_1/weights", (3, 3, 4, 5), True), ("conv3/conv3_1/biases", (5,), True),
        ("conv3/conv3_2/weights", (3, 3, 5, 5), True), ("conv3/conv3_2/biases", (5,), True),
        ("stk/stk_1/weights", (3, 3, 5, 6), True), ("stk/stk_1/biases", (6,), True),
        ("stk/stk_2/weights", (1, 1, 6, 7), True), ("stk/stk_2/biases", (7,), True),
        ("Conv2d_transpose/weights", (3, 3, 3, 7), True),
        ("Conv2d_transpose/biases", (3,), True),
        ("SeparableConv2d/depthwise_weights", (3, 3, 3, 2), True),
        ("SeparableConv2d/pointwise_weights", (1, 1, 6, 4), True),
        ("SeparableConv2d/biases", (4,), True),
        ("SeparableConv2d_1/depthwise_weights", (3, 3, 4, 1), True),
        ("SeparableConv2d_1/biases", (4,), True),
        ("LayerNorm/beta", (4,), True), ("LayerNorm/gamma", (4,), True),
        ("fully_connected/weights", (64, 10), True), ("fully_connected/biases", (10,), True),
        ("Stack/fully_connected_1/weights", (10, 5), True),
        ("Stack/fully_connected_1/biases", (5,), True),
        ("Stack/fully_connected_2/weights", (5, 4), True),
        ("Stack/fully_connected_2/biases", (4,), True),
        ("BatchNorm/beta", (4,), True), ("BatchNorm/gamma", (4,), True),
        ("BatchNorm/moving_mean", (4,), False), ("BatchNorm/moving_variance", (4,), False),
        ("EmbedSequence/embeddings", (10, 3), True)]
    got = {v.op.name: (tuple(v.get_shape().as_list()), v in tf.trainable_variables())
           for v in tf.global_variables()}
    assert got == {name: (shape, trainable) for name, shape, trainable in want}
    assert {v.op.name for v in slim.get_model_variables()} == set(got)
    # TF: 9 weight penalties (conv and fully_connected weights), 4 moving-average updates
    assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 9
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 4
    assert [v.op.name for v in slim.get_variables("stk")] == [
        "stk/stk_1/weights", "stk/stk_1/biases", "stk/stk_2/weights", "stk/stk_2/biases"]
    assert [v.op.name for v in slim.get_variables(suffix="depthwise_weights")] == [
        "SeparableConv2d/depthwise_weights", "SeparableConv2d_1/depthwise_weights"]
    restore = slim.get_variables_to_restore(exclude=["Conv", "conv3", "stk", "Stack",
                                                     "SeparableConv2d", "EmbedSequence"])
    assert [v.op.name for v in restore] == [  # "Conv" is a prefix of Conv2d_transpose (as TF)
        "LayerNorm/beta",
        "LayerNorm/gamma", "fully_connected/weights", "fully_connected/biases",
        "BatchNorm/gamma", "BatchNorm/beta", "BatchNorm/moving_mean",
        "BatchNorm/moving_variance"]


# -- arg_scope ---------------------------------------------------------------------------------
def test_arg_scope_nesting_rules():
    @slim.add_arg_scope
    def f(a, b=1, c=2):
        return a, b, c

    @slim.add_arg_scope
    def g(a, b=10):
        return a, b

    assert slim.arg_scoped_arguments(f) == ("b", "c")
    with slim.arg_scope([f, g], b=5):
        assert f(0) == (0, 5, 2) and g(0) == (0, 5)
        with slim.arg_scope([f], c=7) as inner:
            assert f(0) == (0, 5, 7)  # the outer b kept, the inner c added
            assert f(0, b=3) == (0, 3, 7)  # the call wins
            assert g(0) == (0, 5)
            with slim.arg_scope([f], b=9):
                assert f(0) == (0, 9, 7)
        assert f(0) == (0, 5, 2)
    assert f(0) == (0, 1, 2)
    with slim.arg_scope(inner):
        assert f(0) == (0, 5, 7) and g(0) == (0, 5)
    with pytest.raises(ValueError, match="kwargs must be empty"), slim.arg_scope(inner, b=1):
        pass
    with pytest.raises(ValueError, match="not decorated with @add_arg_scope"), \
            slim.arg_scope([lambda x: x], b=1):
        pass
    with pytest.raises(TypeError, match="list/tuple"), slim.arg_scope(f, b=1):
        pass
    assert f(0) == (0, 1, 2)  # the failed scopes left nothing open


def test_arg_scope_sets_layer_defaults():
    x = tf.constant(np.ones((1, 4, 4, 2), np.float32))
    with slim.arg_scope([slim.conv2d], padding="VALID", activation_fn=None,
                        weights_initializer=tf.constant_initializer(0.5)):
        valid = slim.conv2d(x, 3, 3)
        same = slim.conv2d(x, 3, 3, padding="SAME")
    assert valid.get_shape().as_list() == [1, 2, 2, 3]
    assert same.get_shape().as_list() == [1, 4, 4, 3]
    np.testing.assert_allclose(_run(valid), np.full((1, 2, 2, 3), 9.0))


# -- values ------------------------------------------------------------------------------------
def test_conv_pool_and_transpose_values_against_torch():
    rng = np.random.default_rng(1)
    x_np = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    w_np = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    t_np = rng.standard_normal((2, 2, 5, 4)).astype(np.float32)
    x = tf.constant(x_np)
    conv = slim.conv2d(x, 4, 3, stride=2, weights_initializer=tf.constant_initializer(w_np),
                       biases_initializer=tf.constant_initializer(0.25))
    dilated = slim.conv2d(x, 4, 3, rate=2, padding="VALID", activation_fn=None,
                          weights_initializer=tf.constant_initializer(w_np))
    pooled = slim.max_pool2d(x, 3, stride=2, padding="SAME")
    averaged = slim.avg_pool2d(x, [2, 2])
    up = slim.conv2d_transpose(conv, 5, 2, stride=2, padding="VALID", activation_fn=None,
                               weights_initializer=tf.constant_initializer(t_np))
    got = _run([conv, dilated, pooled, averaged, up])
    xt = torch.from_numpy(x_np).permute(0, 3, 1, 2)
    wt = torch.from_numpy(w_np).permute(3, 2, 0, 1)
    # SAME with stride 2 on 6: TF pads 0 before, 1 after
    conv_t = F.relu(F.conv2d(F.pad(xt, (0, 1, 0, 1)), wt, stride=2) + 0.25)
    want = [conv_t, F.conv2d(xt, wt, dilation=2),
            F.max_pool2d(F.pad(xt, (0, 1, 0, 1), value=-np.inf), 3, 2), F.avg_pool2d(xt, 2),
            F.conv_transpose2d(conv_t, torch.from_numpy(t_np).permute(3, 2, 0, 1), stride=2)]
    for value, ref in zip(got, want):
        np.testing.assert_allclose(value, ref.permute(0, 2, 3, 1).numpy(), rtol=1e-4,
                                   atol=1e-4)


def test_separable_conv_layer_norm_one_hot_embed_values():
    rng = np.random.default_rng(2)
    x_np = rng.standard_normal((2, 5, 5, 3)).astype(np.float32)
    d_np = rng.standard_normal((3, 3, 3, 2)).astype(np.float32)
    p_np = rng.standard_normal((1, 1, 6, 4)).astype(np.float32)
    sep = slim.separable_conv2d(tf.constant(x_np), 4, 3, depth_multiplier=2,
                                activation_fn=None,
                                weights_initializer=tf.constant_initializer(d_np),
                                pointwise_initializer=tf.constant_initializer(p_np))
    normed = slim.layer_norm(tf.constant(x_np))
    hot = slim.one_hot_encoding(tf.constant([2, 0]), 3)
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    embedded = tf.contrib.layers.embed_sequence(tf.constant([[1, 3], [0, 1]]), 4, 3,
                                                initializer=tf.constant_initializer(table))
    got = _run([sep, normed, hot, embedded])
    xt = torch.from_numpy(x_np).permute(0, 3, 1, 2)
    depthwise = torch.from_numpy(d_np).permute(2, 3, 0, 1).reshape(6, 1, 3, 3)
    mid = F.conv2d(F.pad(xt, (1, 1, 1, 1)), depthwise, groups=3)
    want = F.conv2d(mid, torch.from_numpy(p_np).permute(3, 2, 0, 1)).permute(0, 2, 3, 1)
    np.testing.assert_allclose(got[0], want.numpy(), rtol=1e-4, atol=1e-4)
    mean = x_np.mean(axis=(1, 2, 3), keepdims=True)
    var = x_np.var(axis=(1, 2, 3), keepdims=True)
    np.testing.assert_allclose(got[1], (x_np - mean) / np.sqrt(var + 1e-12), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_array_equal(got[2], [[0, 0, 1], [1, 0, 0]])
    np.testing.assert_array_equal(got[3], table[[[1, 3], [0, 1]]])


def test_same_padded_transpose_and_dilated_separable_give_tf_numbers():
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((2, 7, 7, 3)).astype(np.float32)
    k, t = (rng.standard_normal(s).astype(np.float32) for s in [(3, 3, 3, 4), (3, 3, 5, 4)])
    d, p = (rng.standard_normal(s).astype(np.float32) for s in [(3, 3, 3, 2), (1, 1, 6, 4)])
    x, init = tf.constant(x_np), tf.constant_initializer
    up = slim.conv2d_transpose(slim.conv2d(x, 4, 3, weights_initializer=init(k)), 5, 3,
                               stride=2, weights_initializer=init(t))
    dilated = slim.separable_conv2d(x, 4, 3, depth_multiplier=2, rate=2,
                                    weights_initializer=init(d), pointwise_initializer=init(p))
    strided = slim.separable_conv2d(x, None, 3, depth_multiplier=2, stride=2,
                                    weights_initializer=init(d))
    got = _run([up, dilated, strided])
    # TensorFlow 2.21's tf.compat.v1 running tf_slim 1.1.0 (TF 1.15's contrib layers), the
    # same arrays: sum, sum of squares, out[0, 1, 2], out[1, -1, -1]
    want = [(6323.350246607559, 76949.89606533735, [0.0, 0.0, 0.0, 1.615912914276123, 0.0],
             [0.0, 2.076524257659912, 0.8919651508331299, 0.0, 4.326467514038086]),
            (749.6612342391163, 4594.123112582567,
             [1.869155764579773, 0.0, 1.333328366279602, 1.0299389362335205],
             [3.0652661323547363, 0.0, 4.733299732208252, 4.624275207519531]),
            (192.67012272868305, 672.8742894050321,
             [1.480494737625122, 3.995159149169922, 0.9472129344940186, 2.811899423599243,
              2.247936725616455, 3.2047441005706787],
             [0.0, 1.467329978942871, 0.0, 1.9509130716323853, 0.5624222159385681, 0.0])]
    assert [v.shape for v in got] == [(2, 14, 14, 5), (2, 7, 7, 4), (2, 4, 4, 6)]
    for value, (total, squares, first, last) in zip(got, want):
        value = value.astype(np.float64)
        np.testing.assert_allclose([value.sum(), (value ** 2).sum()], [total, squares],
                                   rtol=1e-5)
        np.testing.assert_allclose(value[0, 1, 2], first, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(value[1, -1, -1], last, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(4, 3, 3, 2), (6, 2), (4, 3, 2)])
@pytest.mark.parametrize("updates_collections", ["update_ops", None])
def test_batch_norm_training_and_moving_averages(updates_collections, shape):
    rng = np.random.default_rng(3)
    x_np = rng.standard_normal(shape).astype(np.float32) * 2 + 1
    x = tf.placeholder(tf.float32, shape)
    out = slim.batch_norm(x, decay=0.9, scale=True, updates_collections=updates_collections,
                          param_initializers={"gamma": tf.constant_initializer(2.0),
                                              "beta": tf.constant_initializer(0.5)})
    infer = slim.batch_norm(x, scale=True, is_training=False, scope="BatchNorm", reuse=True)
    mean_var = slim.get_variables("BatchNorm/moving")
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(updates) == (2 if updates_collections else 0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(out, {x: x_np})
        sess.run(updates, {x: x_np})  # the update, when in a collection (None: run with out)
        moving = sess.run(mean_var)
        inferred = sess.run(infer, {x: x_np})
    axes = tuple(range(len(shape) - 1))
    mean, var, count = x_np.mean(axis=axes), x_np.var(axis=axes), np.prod(shape[:-1])
    np.testing.assert_allclose(got, 2 * (x_np - mean) / np.sqrt(var + 1e-3) + 0.5, rtol=1e-4,
                               atol=1e-4)
    # one update of decay 0.9; TF 1.15 (tf_slim run on real TF, all six cases): inputs of
    # rank 2 or 4 take the fused kernel, whose moving variance moves towards the unbiased one
    unbiased = count / (count - 1) if len(shape) in (2, 4) else 1.0
    np.testing.assert_allclose(moving[0], 0.1 * mean, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(moving[1], 0.9 + 0.1 * var * unbiased, rtol=1e-4)
    np.testing.assert_allclose(inferred, 2 * (x_np - moving[0]) / np.sqrt(moving[1] + 1e-3)
                               + 0.5, rtol=1e-4, atol=1e-4)


def test_batch_norm_is_training_tensor_and_nchw():
    x_np = np.random.default_rng(5).standard_normal((4, 2, 3, 3)).astype(np.float32)
    x, training = tf.constant(x_np), tf.placeholder(tf.bool, [])
    out = slim.batch_norm(x, data_format="NCHW", is_training=training, center=False)
    moving = slim.get_model_variables()
    assert [v.op.name for v in moving] == ["BatchNorm/moving_mean", "BatchNorm/moving_variance"]
    assert moving[0].get_shape().as_list() == [2]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        frozen = sess.run(out, {training: False})  # moving statistics: 0 and 1
        trained = sess.run(out, {training: True})
    np.testing.assert_allclose(frozen, x_np / np.sqrt(1 + 1e-3), rtol=1e-5)
    mean = x_np.mean(axis=(0, 2, 3), keepdims=True)
    var = x_np.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(trained, (x_np - mean) / np.sqrt(var + 1e-3), rtol=1e-4,
                               atol=1e-4)


def test_dropout_is_training_and_errors():
    x = tf.constant(np.ones((50, 40), np.float32))
    kept = slim.dropout(x, 0.5, is_training=False)
    dropped = slim.dropout(x, 0.25, seed=1)
    got_kept, got_dropped = _run([kept, dropped])
    np.testing.assert_array_equal(got_kept, 1.0)
    assert set(np.unique(got_dropped)) <= {0.0, 4.0}
    assert 0.15 < (got_dropped > 0).mean() < 0.35
    with pytest.raises(ValueError, match="rank 4"):
        slim.conv2d(x, 3, 3)
    with pytest.raises(ValueError, match="renorm not supported"):
        slim.batch_norm(x, renorm=True)
    with pytest.raises(ValueError, match="stack_args"):
        slim.stack(x, slim.fully_connected, 3)
    assert [v.op.name for v in tf.global_variables()] == []


def test_dropout_of_a_keep_prob_tensor_and_slim_variables():
    keep_prob, training = tf.placeholder(tf.float32, []), tf.placeholder(tf.bool, [])
    x = tf.constant(np.ones((100, 50), np.float32))
    dropped, switched = slim.dropout(x, keep_prob), slim.dropout(x, 0.5, is_training=training)
    with slim.arg_scope([slim.variable], device="/cpu:0"):
        made = slim.model_variable("v", [3], initializer=tf.zeros_initializer())
    mine = slim.variable("w", [2], collections=["mine"], trainable=False)
    assert slim.get_model_variables() == [made]
    assert tf.get_collection("mine") == [mine] and tf.global_variables() == [made, mine]
    assert tf.trainable_variables() == [made]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        quarter = sess.run(dropped, {keep_prob: 0.25})
        np.testing.assert_array_equal(sess.run(dropped, {keep_prob: 1.0}), 1.0)
        np.testing.assert_array_equal(sess.run(switched, {training: False}), 1.0)
        assert set(np.unique(sess.run(switched, {training: True}))) == {0.0, 2.0}
    assert set(np.unique(quarter)) == {0.0, 4.0} and 0.2 < (quarter > 0).mean() < 0.3


def test_slim_losses_take_tf1_argument_order():
    logits = tf.constant([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]])
    labels = tf.constant([[1.0, 0, 0], [0, 0, 1.0]])
    loss = slim.losses.softmax_cross_entropy(logits, labels)
    w = slim.model_variable("w", [2], initializer=tf.constant_initializer(3.0),
                            regularizer=slim.l2_regularizer(0.5))
    total = slim.losses.get_total_loss()
    got_loss, got_total, _ = _run([loss, total, w])
    z = np.array([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]])
    ce = -(z - np.log(np.exp(z).sum(1, keepdims=True)))[[0, 1], [0, 2]].mean()
    np.testing.assert_allclose(got_loss, ce, rtol=1e-5)
    np.testing.assert_allclose(got_total, ce + 0.5 * 9.0, rtol=1e-5)  # 0.5 * sum(w^2) / 2


# -- training ----------------------------------------------------------------------------------
def test_a_slim_cnn_trains_like_its_torch_replica():
    rng = np.random.default_rng(4)
    images = rng.standard_normal((8, 6, 6, 1)).astype(np.float32)
    labels = rng.integers(0, 3, 8)
    w1 = rng.standard_normal((3, 3, 1, 4)).astype(np.float32) * 0.5
    w2 = rng.standard_normal((36, 3)).astype(np.float32) * 0.3
    x = tf.constant(images)
    with slim.arg_scope([slim.conv2d, slim.fully_connected],
                        weights_regularizer=slim.l2_regularizer(0.01)):
        net = slim.conv2d(x, 4, 3, weights_initializer=tf.constant_initializer(w1),
                          scope="conv1")
        net = slim.max_pool2d(net, 2)
        net = slim.flatten(net)
        logits = slim.fully_connected(net, 3, activation_fn=None,
                                      weights_initializer=tf.constant_initializer(w2),
                                      scope="logits")
    slim.losses.softmax_cross_entropy(logits, slim.one_hot_encoding(labels, 3))
    total = slim.losses.get_total_loss()
    train = tf.train.GradientDescentOptimizer(0.5).minimize(total)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([total, train])[0] for _ in range(5)]
    params = [torch.tensor(w1).permute(3, 2, 0, 1).requires_grad_(),
              torch.zeros(4, requires_grad=True), torch.tensor(w2).requires_grad_(),
              torch.zeros(3, requires_grad=True)]
    want = []
    for _ in range(5):
        hidden = F.relu(F.conv2d(torch.from_numpy(images).permute(0, 3, 1, 2), params[0],
                                 params[1], padding=1))
        flat = F.max_pool2d(hidden, 2).permute(0, 2, 3, 1).reshape(8, -1)
        loss = F.cross_entropy(flat @ params[2] + params[3], torch.from_numpy(labels))
        loss = loss + 0.01 * ((params[0] ** 2).sum() + (params[2] ** 2).sum()) / 2
        want.append(loss.item())
        grads = torch.autograd.grad(loss, params)
        params = [(p - 0.5 * g).detach().requires_grad_() for p, g in zip(params, grads)]
    np.testing.assert_allclose(losses, want, rtol=1e-4)
    assert losses[-1] < losses[0]
