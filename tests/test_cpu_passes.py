"""The CPU passes: FuseConvActivation, PruneArgmax and ChooseLayout alone (no executor),
then a LeNet-shaped network through a session against PyTorch autograd (values, gradients and
Adam steps), memory planning on and off, on every device."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.lua_ops.conv import kernels as conv_kernels
from tinyflow.lua_ops.matrix import kernels as matrix_kernels
from tinyflow.nnvm import Graph, apply_passes
from tinyflow.nnvm.graph import CHANNELS_LAST

pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed")


def lenet(batch_shape=(None, 1, 12, 12)):
    """conv(3x3) -> tanh -> pool -> conv(3x3) -> tanh -> pool -> flatten -> linear: (x, y, logits,
    params)."""
    x = tf.placeholder(tf.float32, batch_shape)
    rng = np.random.default_rng(1)
    w1, b1, w2, b2, w3 = (tf.Variable(value.astype(np.float32)) for value in (
        rng.normal(0, 0.3, (4, 1, 3, 3)), np.full(4, 0.1), rng.normal(0, 0.3, (6, 4, 3, 3)),
        np.full(6, -0.1), rng.normal(0, 0.3, (5, 6))))
    conv1 = tf.nn.conv2d(x, weight=w1, bias=b1, strides=(1, 1), padding="VALID")
    pool1 = tf.nn.max_pool(tf.tanh(conv1), ksize=(2, 2), strides=(2, 2), data_format="NCHW")
    conv2 = tf.nn.conv2d(pool1, weight=w2, bias=b2, strides=(1, 1), padding="VALID")
    pool2 = tf.nn.max_pool(tf.tanh(conv2), ksize=(3, 3), strides=(3, 3), data_format="NCHW")
    logits = tf.nn.linear(tf.nn.flatten_layer(pool2), 5, weight=w3)
    return x, logits, [w1, b1, w2, b2, w3]


def torch_lenet(x, w1, b1, w2, b2, w3):
    h = F.max_pool2d(torch.tanh(F.conv2d(x, w1, b1)), 2)
    h = F.max_pool2d(torch.tanh(F.conv2d(h, w2, b2)), 3)
    return h.flatten(1) @ w3.t()


def passes(outputs, x, shape, names):
    graph = Graph([e for s in outputs for e in s.outputs], {"shape_inputs": {x.node: shape}})
    return apply_passes(graph, ["InferShape", "InferType", "MaterializeShapes"] + names)


def nodes_named(graph, op_name):
    return [n for n in graph.indexed.nodes if n.op is not None and n.op.name == op_name]


# -- the passes alone -------------------------------------------------------------------------
def test_fuse_conv_activation_fuses_a_conv_read_by_its_activation_alone():
    x, logits, _ = lenet()
    graph = passes([logits], x, (2, 1, 12, 12), ["FuseConvActivation"])
    fused = nodes_named(graph, "_fused_conv2d")
    assert [n.attrs["activation"] for n in fused] == ["tanh", "tanh"]
    assert not nodes_named(graph, "conv2d") and not nodes_named(graph, "tanh")
    assert nodes_named(graph, "linear")  # the logits: no activation after them
    shapes = [graph.attrs["shape"][graph.indexed.entry_id((n, 0))] for n in fused]
    assert shapes == [(2, 4, 10, 10), (2, 6, 3, 3)]


def test_fuse_conv_activation_keeps_a_conv_that_something_else_reads():
    x, logits, _ = lenet()
    pre = next(n for n in Graph(logits.outputs).indexed.nodes if n.kind == "conv2d")
    graph = passes([logits, *pre.outputs], x, (2, 1, 12, 12), ["FuseConvActivation"])
    assert len(nodes_named(graph, "conv2d")) == 1  # the fetched one
    assert len(nodes_named(graph, "_fused_conv2d")) == 1


def test_pool_before_activation_pools_first_and_swaps_the_gradients_too():
    x, logits, params = lenet()
    grads = tf.gradients(tf.reduce_sum(logits), params)
    graph = passes(grads + [logits], x, (2, 1, 12, 12), ["PoolBeforeActivation"])
    indexed, shapes = graph.indexed, graph.attrs["shape"]
    for pool, size in zip(nodes_named(graph, "max_pool2d"), [(2, 4, 5, 5), (2, 6, 1, 1)]):
        assert pool.inputs[0].node.kind == "conv2d"  # z, not tanh(z)
        (tanh,) = [n for n in indexed.nodes if n.kind == "tanh" and n.inputs[0].node is pool]
        assert shapes[indexed.entry_id((tanh, 0))] == size  # on the pooled tensor
        # g_q = _tanh_backward(g_p, p), then the pool's gradient scatters g_q through the argmax
        (pool_grad,) = [n for n in indexed.nodes if n.kind == "_max_pool2d_backward"
                        and n.inputs[2] == (pool, 1)]
        tanh_grad = pool_grad.inputs[0].node
        assert tanh_grad.kind == "_tanh_backward" and tanh_grad.inputs[1] == (tanh, 0)
        assert shapes[indexed.entry_id((tanh_grad, 0))] == size
        assert shapes[indexed.entry_id((pool_grad, 0))] == shapes[indexed.entry_id(pool.inputs[0])]
    assert len(nodes_named(graph, "tanh")) == 2 and len(nodes_named(graph, "_tanh_backward")) == 2


def test_pool_before_activation_leaves_what_it_cannot_swap():
    x, logits, _ = lenet()
    tanh1 = next(n for n in Graph(logits.outputs).indexed.nodes if n.kind == "tanh")
    graph = passes([logits, *tanh1.outputs], x, (2, 1, 12, 12), ["PoolBeforeActivation"])
    kinds = [n.inputs[0].node.kind for n in nodes_named(graph, "max_pool2d")]
    assert kinds == ["tanh", "conv2d"]  # a fetched activation stays; the other one swaps
    # a window moved by 1 keeps every element: nothing to win, the activation stays first
    h = tf.placeholder(tf.float32, (2, 3, 6, 6))
    pooled = tf.nn.max_pool(tf.sigmoid(h), ksize=(3, 3), strides=(1, 1), padding="SAME",
                            data_format="NCHW")
    graph = passes([pooled], h, (2, 3, 6, 6), [])
    assert apply_passes(graph, "PoolBeforeActivation") is graph  # nothing to swap
    # an activation something else reads too stays where it is
    y = tf.nn.relu(h)
    both = tf.reduce_sum(tf.nn.max_pool(y, ksize=(2, 2), strides=(2, 2), data_format="NCHW")) + \
        tf.reduce_sum(y)
    graph = passes(tf.gradients(both, [h]), h, (2, 3, 6, 6), ["PoolBeforeActivation"])
    assert nodes_named(graph, "max_pool2d")[0].inputs[0].node.kind == "relu"


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "relu"])
def test_pooling_before_the_activation_keeps_values_and_gradients(activation, plan_memory):
    # NHWC, TensorFlow's SAME padding (uneven: a 7x7 input), against PyTorch in the original
    # order; zero images make whole windows of equal z (the bias): the gradient must still go
    # to the window's first element, as it does pooling after the activation
    rng = np.random.default_rng(9)
    x = tf.placeholder(tf.float32, (None, 7, 7, 2))
    w = tf.Variable(rng.normal(0, 0.8, (3, 3, 2, 4)).astype(np.float32))
    b = tf.Variable(rng.normal(0, 0.5, (4,)).astype(np.float32))
    act = getattr(tf.nn, activation) if activation == "relu" else getattr(tf, activation)
    h = act(tf.nn.bias_add(tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME"), b))
    y = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    scale = rng.normal(0, 1, (3, 4, 4, 4)).astype(np.float32)
    loss = tf.reduce_sum(y * tf.constant(scale))
    grads = tf.gradients(loss, [x, w, b])
    sess = tf.Session("cpu", plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    images = rng.uniform(-1, 1, (3, 7, 7, 2)).astype(np.float32)
    images[1] = 0.0
    got = sess.run([y] + grads, {x: images})
    executor = next(e for e in sess._executors.executors() if len(e.output_tensors) == 4)
    pool = next(n for n in executor.indexed.nodes if n.kind == "max_pool2d")
    conv = pool.inputs[0].node  # swapped; the bias joined the convolution (FuseConvActivation)
    assert conv.kind == "conv2d" and conv.attrs["no_bias"] is False and len(conv.inputs) == 3
    xt, wt, bt = (torch.tensor(v, dtype=torch.float64, requires_grad=True)
                  for v in (images, *sess.run([w, b])))
    z = F.conv2d(F.pad(xt.permute(0, 3, 1, 2), (1, 1, 1, 1)), wt.permute(3, 2, 0, 1), bt)
    pooled = F.max_pool2d(F.pad(getattr(torch, activation)(z), (0, 1, 0, 1),
                                value=-float("inf")), 2).permute(0, 2, 3, 1)
    (pooled * torch.tensor(scale, dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(got[0], pooled.detach().numpy(), rtol=1e-5, atol=1e-6)
    for value, ref in zip(got[1:], (xt.grad, wt.grad, bt.grad)):
        np.testing.assert_allclose(value, ref.numpy(), rtol=1e-4, atol=1e-5)


def test_prune_argmax_drops_the_argmax_only_when_no_gradient_reads_it():
    x, logits, params = lenet()
    forward = passes([logits], x, (2, 1, 12, 12), ["PruneArgmax"])
    assert [n.num_outputs() for n in nodes_named(forward, "max_pool2d")] == [1, 1]
    assert "int64" not in forward.attrs["dtype"]
    grads = tf.gradients(tf.reduce_sum(logits), params)
    training = passes(grads, x, (2, 1, 12, 12), ["PruneArgmax"])
    assert [n.num_outputs() for n in nodes_named(training, "max_pool2d")] == [2, 2]


def test_choose_layout_keeps_channels_last_between_convolutions_and_pools():
    x, logits, params = lenet()
    grads = tf.gradients(tf.reduce_sum(logits), params)
    graph = passes(grads + [logits], x, (2, 1, 12, 12), ["ChooseLayout"])
    layout, indexed = graph.attrs["layout"], graph.indexed
    of = {n.name: layout[indexed.entry_id((n, 0))] for n in indexed.nodes}
    conv1, conv2 = nodes_named(graph, "conv2d")
    pool1, pool2 = nodes_named(graph, "max_pool2d")
    assert of[conv1.name] == of[conv2.name] == of[pool1.name] == CHANNELS_LAST
    assert layout[indexed.entry_id((pool1, 1))] == CHANNELS_LAST  # its argmax too
    assert of[pool2.name] is None  # flatten views its bytes: contiguous
    assert of[x.node.name] is None  # fed: not planned
    for tanh in nodes_named(graph, "tanh"):  # in place on a conv output: the same layout
        assert of[tanh.name] == of[tanh.inputs[0].node.name]


def test_choose_layout_keeps_channels_last_through_elementwise_fusion():
    # FuseElemwise ('cpu fusion') puts the tanh gradient and the bias-gradient sum in a _fused
    # node reading the activations: ChooseLayout must not pin them contiguous for it (LeNet's
    # pools ran 4x slower, the step 1.4x, with fusion on before _fused took "same")
    x, logits, params = lenet()
    grads = tf.gradients(tf.reduce_sum(logits), params)
    graph = passes(grads + [logits], x, (2, 1, 12, 12), ["FuseConvActivation", "PruneArgmax"])
    graph = apply_passes(graph.with_attrs(fusion_target="cpu", fusion_backend="eager"),
                         ["FuseElemwise", "OrderMutation", "ChooseLayout"])
    layout, indexed = graph.attrs["layout"], graph.indexed
    assert nodes_named(graph, "_fused")
    for pool in nodes_named(graph, "max_pool2d"):
        assert layout[indexed.entry_id(pool.inputs[0])] == CHANNELS_LAST


def test_choose_layout_leaves_a_fetched_activation_contiguous():
    x, logits, _ = lenet()
    tanh = next(n for n in Graph(logits.outputs).indexed.nodes if n.kind == "tanh")
    graph = passes([logits, *tanh.outputs], x, (2, 1, 12, 12), ["ChooseLayout"])
    layout, indexed = graph.attrs["layout"], graph.indexed
    conv1 = nodes_named(graph, "conv2d")[0]
    assert layout[indexed.entry_id((tanh, 0))] is None
    assert layout[indexed.entry_id((conv1, 0))] is None  # tanh may run in place on it


# -- through a session, against PyTorch --------------------------------------------------------
def test_lenet_values_and_gradients_match_torch(config, plan_memory):
    x, logits, params = lenet()
    loss = tf.reduce_sum(logits * logits)
    grads = tf.gradients(loss, params)
    sess = tf.Session(config, plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    images = np.random.default_rng(0).uniform(-1, 1, (3, 1, 12, 12)).astype(np.float32)
    values = sess.run([logits] + grads, {x: images})
    weights = [torch.tensor(v, dtype=torch.float64, requires_grad=True)
               for v in sess.run(params)]
    ref = torch_lenet(torch.tensor(images, dtype=torch.float64), *weights)
    (ref * ref).sum().backward()
    np.testing.assert_allclose(values[0], ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    for got, w in zip(values[1:], weights):
        np.testing.assert_allclose(got, w.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_lenet_adam_steps_match_torch(plan_memory):
    x, logits, params = lenet()
    label = tf.placeholder(tf.float32)
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(logits, label)
    step = tf.train.AdamOptimizer(0.01).minimize(loss)
    sess = tf.Session("cpu", plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    weights = [torch.tensor(v, requires_grad=True) for v in sess.run(params)]
    optimizer = torch.optim.Adam(weights, lr=0.01)
    rng = np.random.default_rng(0)
    images = rng.uniform(-1, 1, (8, 1, 12, 12)).astype(np.float32)
    labels = rng.integers(0, 5, 8).astype(np.float32)
    for _ in range(3):
        sess.run(step, {x: images, label: labels})
        optimizer.zero_grad()
        F.cross_entropy(torch_lenet(torch.tensor(images), *weights),
                        torch.tensor(labels).long()).backward()
        optimizer.step()
    for got, w in zip(sess.run(params), weights):
        np.testing.assert_allclose(got, w.detach().numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("slice_bytes", [None, 300], ids=["whole-batch", "sliced"])
def test_the_cpu_executor_runs_the_fused_channels_last_graph(plan_memory, slice_bytes,
                                                             monkeypatch):
    if slice_bytes is not None:  # convolutions and pooling by slices of a few images
        monkeypatch.setattr(conv_kernels, "_CHUNK_BYTES", slice_bytes)
    x, logits, params = lenet()
    sess = tf.Session("cpu", plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    images = np.random.default_rng(0).uniform(-1, 1, (5, 1, 12, 12)).astype(np.float32)
    got = sess.run(logits, {x: images})
    weights = [torch.tensor(v, dtype=torch.float64) for v in sess.run(params)]
    want = torch_lenet(torch.tensor(images, dtype=torch.float64), *weights)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-5)
    executor = next(e for e in sess._executors.executors()  # the logits' executor
                    if any(n.kind == "flatten" for n in e.indexed.nodes))
    names = [n.kind for n in executor.indexed.nodes]
    # the pools come before the tanh (PoolBeforeActivation): the convolutions have none to fuse
    assert names.count("conv2d") == 2 and "_fused_conv2d" not in names
    convs = [executor.tensors[executor.indexed.entry_rptr[i]]
             for i, n in enumerate(executor.indexed.nodes) if n.kind == "conv2d"]
    assert all(t.is_contiguous(memory_format=torch.channels_last) and not t.is_contiguous()
               for t in convs)
    assert "int64" not in executor.graph.attrs["dtype"]  # no argmax in a forward-only run


def tf_style(add_bias, activation=tf.nn.relu):
    """TensorFlow's way: NHWC, an HWIO filter, conv2d then a bias added (``add_bias(h, b)``),
    then the activation: (x, y, [w, b])."""
    rng = np.random.default_rng(4)
    x = tf.placeholder(tf.float32, (None, 6, 6, 2))
    w = tf.Variable(rng.normal(0, 0.4, (3, 3, 2, 4)).astype(np.float32))
    b = tf.Variable(rng.normal(0, 0.4, (4,)).astype(np.float32))
    h = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")
    return x, activation(add_bias(h, b)), [w, b]


@pytest.mark.parametrize("add_bias", [tf.nn.bias_add, lambda h, b: h + b],
                         ids=["bias_add", "plus"])
def test_fuse_conv_activation_takes_in_tensorflows_bias(add_bias, plan_memory):
    x, y, params = tf_style(add_bias, tf.tanh)
    graph = passes([y], x, (2, 6, 6, 2), ["FuseConvActivation"])
    (fused,) = nodes_named(graph, "_fused_conv2d")
    assert fused.attrs["no_bias"] is False and len(fused.inputs) == 3
    assert not nodes_named(graph, "conv2d")
    grads = tf.gradients(tf.reduce_sum(y * y), params)
    sess = tf.Session("cpu", plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    images = np.random.default_rng(0).uniform(-1, 1, (2, 6, 6, 2)).astype(np.float32)
    values = sess.run([y] + grads, {x: images})
    w, b = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in sess.run(params))
    ref = torch.tanh(F.conv2d(torch.tensor(images, dtype=torch.float64).permute(0, 3, 1, 2),
                              w.permute(3, 2, 0, 1), b, padding=1)).permute(0, 2, 3, 1)
    (ref * ref).sum().backward()
    np.testing.assert_allclose(values[0], ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    for got, want in zip(values[1:], (w.grad, b.grad)):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("add_bias", [tf.nn.bias_add, lambda h, b: h + b],
                         ids=["bias_add", "plus"])
def test_fuse_conv_activation_takes_in_a_bias_with_no_activation_after_it(add_bias):
    x, y, _ = tf_style(add_bias, lambda h: tf.nn.max_pool(h, ksize=[1, 2, 2, 1],
                                                         strides=[1, 2, 2, 1], padding="SAME"))
    graph = passes([y], x, (2, 6, 6, 2), ["FuseConvActivation"])
    (conv,) = nodes_named(graph, "conv2d")
    assert conv.attrs["no_bias"] is False and len(conv.inputs) == 3
    assert not nodes_named(graph, "bias_add") and not nodes_named(graph, "elemwise_add")
    assert nodes_named(graph, "max_pool2d")[0].inputs[0].node is conv
    # a conv2d output something else reads keeps its bias addition
    x, y, _ = tf_style(add_bias, lambda h: h)
    conv_out = next(n for n in Graph(y.outputs).indexed.nodes if n.kind == "conv2d")
    graph = passes([y, *conv_out.outputs], x, (2, 6, 6, 2), ["FuseConvActivation"])
    assert nodes_named(graph, "conv2d")[0].attrs["no_bias"] is True


def test_fuse_conv_activation_takes_in_linear_and_its_bias(plan_memory):
    rng = np.random.default_rng(6)
    x = tf.placeholder(tf.float32, (None, 3))
    w = tf.Variable(rng.normal(0, 0.5, (3, 4)).astype(np.float32))
    b = tf.Variable(rng.normal(0, 0.5, (4,)).astype(np.float32))
    y = tf.tanh(tf.nn.linear(x, 4, weight=tf.transpose(w)) + b)
    graph = passes([y], x, (2, 3), ["FuseConvActivation"])
    (fused,) = nodes_named(graph, "_fused_linear")
    assert fused.attrs["no_bias"] is False and len(fused.inputs) == 3
    grads = tf.gradients(tf.reduce_sum(y * y), [w, b])
    sess = tf.Session("cpu", plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    values = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    got = sess.run([y] + grads, {x: values})
    w_t, b_t = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in sess.run([w, b]))
    want = torch.tanh(torch.tensor(values, dtype=torch.float64) @ w_t + b_t)
    (want * want).sum().backward()
    for value, ref in zip(got, (want.detach(), w_t.grad, b_t.grad)):
        np.testing.assert_allclose(value, ref.numpy(), rtol=1e-4, atol=1e-5)


def test_fuse_conv_activation_leaves_a_vector_added_along_nchw_width():
    x = tf.placeholder(tf.float32, (2, 3, 5, 4))
    w = tf.Variable(np.ones((4, 3, 1, 1), np.float32))
    y = tf.nn.relu(tf.nn.conv2d(x, weight=w, padding="VALID") + tf.constant(np.ones(4, np.float32)))
    graph = passes([y], x, (2, 3, 5, 4), ["FuseConvActivation"])
    assert not nodes_named(graph, "_fused_conv2d")  # (4,) broadcasts along W here, not C


def test_an_in_place_activation_between_a_pool_and_a_flatten_keeps_its_values(plan_memory):
    # tanh may run in place on the pool's output, and flatten reads the bytes of tanh's: both
    # must share one layout (ChooseLayout's groups), or the elements would mix up
    rng = np.random.default_rng(5)
    x = tf.placeholder(tf.float32, (None, 2, 6, 6))
    w = tf.Variable(rng.normal(0, 0.4, (3, 2, 3, 3)).astype(np.float32))
    pooled = tf.nn.max_pool(tf.nn.conv2d(x, weight=w, padding="VALID"), ksize=(2, 2),
                            strides=(2, 2), data_format="NCHW")
    y = tf.nn.flatten_layer(tf.tanh(pooled))
    (grad,) = tf.gradients(tf.reduce_sum(y * y), [w])
    sess = tf.Session("cpu", plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    images = rng.uniform(-1, 1, (2, 2, 6, 6)).astype(np.float32)
    got, got_grad = sess.run([y, grad], {x: images})
    weight = torch.tensor(sess.run(w), dtype=torch.float64, requires_grad=True)
    want = torch.tanh(F.max_pool2d(F.conv2d(torch.tensor(images, dtype=torch.float64), weight),
                                   2)).flatten(1)
    (want * want).sum().backward()
    np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_grad, weight.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_fused_ops_in_float64_take_the_unfused_kernels(plan_memory):
    # oneDNN's fused kernels are float32 only: float64 runs conv2d / matmul, then the activation
    rng = np.random.default_rng(7)
    x = tf.placeholder(tf.float64, (None, 2, 5, 5))
    w = tf.Variable(rng.normal(0, 0.4, (3, 2, 3, 3)))
    w_fc = tf.Variable(rng.normal(0, 0.4, (4, 27)))
    h = tf.nn.flatten_layer(tf.tanh(tf.nn.conv2d(x, weight=w, padding="VALID")))
    y = tf.sigmoid(tf.nn.linear(h, 4, weight=w_fc))
    sess = tf.Session("cpu", plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    images = rng.uniform(-1, 1, (2, 2, 5, 5))
    got = sess.run(y, {x: images})
    executor = next(e for e in sess._executors.executors()
                    if any(n.kind == "flatten" for n in e.indexed.nodes))
    kinds = [n.kind for n in executor.indexed.nodes]
    assert "_fused_conv2d" in kinds and "_fused_linear" in kinds
    weight, weight_fc = (torch.tensor(v) for v in sess.run([w, w_fc]))
    want = torch.sigmoid(torch.tanh(F.conv2d(torch.tensor(images), weight)).flatten(1)
                         @ weight_fc.t())
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-10)


@pytest.mark.parametrize("activation", ["relu", "tanh", "sigmoid", None])
@pytest.mark.parametrize("layouts", ["nchw", "channels_last", "mixed", "one_channel"])
def test_conv2d_activation_writes_every_element_of_its_result(activation, layouts):
    # relu's in-place oneDNN path writes into the result (zeroed first): NaN left there from an
    # earlier use of the planned storage must not leak into y, whatever the layouts
    channels = 1 if layouts == "one_channel" else 3
    x = torch.randn(2, channels, 7, 7)
    weight, bias = torch.randn(4, channels, 3, 3), torch.randn(4)
    res = torch.full((2, 4, 7, 7), float("nan"))
    if layouts in ("channels_last", "one_channel"):
        x = x.contiguous(memory_format=torch.channels_last)
    if layouts != "nchw":
        res = res.contiguous(memory_format=torch.channels_last)
    conv_kernels.conv2d_activation(res, x, weight, bias, {1: 1, 2: 1}, {1: 1, 2: 1}, activation)
    want = F.conv2d(x, weight, bias, padding=1)
    if activation is not None:
        want = getattr(torch, activation)(want)
    torch.testing.assert_close(res, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("gemm", ["mkl", "onednn", None])
@pytest.mark.parametrize("transpose", ["none", "a", "b"])
def test_matmul_takes_either_of_the_timed_gemms(gemm, transpose, monkeypatch):
    # above _TIMED_MACS the matmul body runs the GEMM timed faster for its shapes; each one
    # (forced here; None: timed) on transposed views too
    monkeypatch.setattr(matrix_kernels, "_TIMED_MACS", 1000)
    timed = matrix_kernels._gemm_choice
    timed.cache_clear()
    if gemm is not None:
        monkeypatch.setattr(matrix_kernels, "_gemm_choice", lambda *key: gemm)
    rng = np.random.default_rng(11)
    a_value = rng.normal(size=(12, 30) if transpose == "a" else (30, 12)).astype(np.float32)
    b_value = rng.normal(size=(20, 12) if transpose == "b" else (12, 20)).astype(np.float32)
    a, b = tf.placeholder(tf.float32), tf.Variable(b_value)
    y = tf.matmul(a, b, transpose_a=transpose == "a", transpose_b=transpose == "b")
    (grad,) = tf.gradients(tf.reduce_sum(y * y), [b])
    sess = tf.Session("cpu")
    sess.run(tf.global_variables_initializer())
    got, got_grad = sess.run([y, grad], {a: a_value})
    a_t = a_value.T if transpose == "a" else a_value
    b_t = torch.tensor(b_value, dtype=torch.float64, requires_grad=True)
    want = torch.tensor(a_t, dtype=torch.float64) @ (b_t.t() if transpose == "b" else b_t)
    (want * want).sum().backward()
    np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_grad, b_t.grad.numpy(), rtol=1e-5, atol=1e-4)
    if gemm is None:  # timed once per shape: y's product and the gradient's two
        assert timed.cache_info().currsize >= 2


def test_timed_choices_time_their_candidates_in_turns():
    from tinyflow.lua_ops.cpu import seconds
    calls = []
    times = seconds([lambda: calls.append("a"), lambda: calls.append("b")], repeats=3)
    assert calls == ["a", "b"] * 4  # one each to warm up, then a and b alternating
    assert len(times) == 2 and all(t >= 0 for t in times)
