"""The native 2x2 max pooling (tinyflow/lua_ops/conv/max_pool_2x2.c) against torch's kernel:
the same values, argmax and gradient bit for bit (ties, NaN, infinities, odd sizes, channels
not a multiple of 8); in a graph, the same as with ``TINYFLOW_NATIVE=0`` and as torch's
autograd; and its loader (built once per machine, None without a compiler)."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.lua_ops import native
from tinyflow.lua_ops.conv import kernels

pytestmark = pytest.mark.usefixtures("fresh_graph")
NATIVE = native.load(kernels._MAX_POOL_2X2)
needs_compiler = pytest.mark.skipif(NATIVE is None, reason="needs a C compiler (cc)")


def _lua(*sizes):
    return dict(enumerate(sizes, 1))  # as a body passes them: a Lua array


def _hostile_values(shape, seed):
    # few distinct values (ties in most windows), some NaNs and infinities
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, size=shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, flat.size // 11)] = np.nan
    flat[rng.choice(flat.size, flat.size // 13)] = np.inf
    flat[rng.choice(flat.size, flat.size // 13)] = -np.inf
    return torch.from_numpy(x).contiguous(memory_format=torch.channels_last)


@needs_compiler
@pytest.mark.parametrize("shape", [(3, 8, 4, 4), (2, 9, 6, 4), (2, 20, 24, 24), (1, 50, 7, 9),
                                   (2, 64, 14, 14), (0, 8, 4, 4), (2, 8, 3, 5)])
def test_the_kernel_gives_torchs_values_argmax_and_gradient(shape):
    x = _hostile_values(shape, seed=sum(shape))
    y, index = torch.ops.aten.max_pool2d_with_indices(x, [2, 2], [2, 2])
    out = torch.full_like(y, 7.0).contiguous(memory_format=torch.channels_last)
    at = torch.full_like(index, -1).contiguous(memory_format=torch.channels_last)
    pool = kernels.max_pool2d_native(out, at, x, _lua(2, 2), _lua(2, 2), _lua(0, 0))
    assert pool is not None
    pool()
    assert torch.equal(at, index)
    assert torch.equal(out.nan_to_num(), y.nan_to_num()) and torch.equal(out.isnan(), y.isnan())

    g = torch.from_numpy(np.random.default_rng(1).standard_normal(y.shape, np.float32))
    expected = torch.ops.aten.max_pool2d_with_indices_backward(
        g, x, [2, 2], [2, 2], [0, 0], [1, 1], False, index)
    grad = torch.full_like(x, 7.0)  # the odd row / column must come back 0
    backward = kernels.max_pool2d_backward_native(grad, g, at, _lua(2, 2), _lua(2, 2),
                                                   _lua(0, 0))
    assert backward is not None
    backward()
    assert torch.equal(grad, expected)


@pytest.mark.parametrize("why, make", [
    ("3 channels", lambda: (torch.rand(2, 3, 4, 4), (2, 2), (2, 2), (0, 0))),
    ("3x3 windows", lambda: (torch.rand(2, 8, 6, 6), (3, 3), (2, 2), (0, 0))),
    ("stride 1", lambda: (torch.rand(2, 8, 6, 6), (2, 2), (1, 1), (0, 0))),
    ("padding", lambda: (torch.rand(2, 8, 6, 6), (2, 2), (2, 2), (1, 1))),
    ("float64", lambda: (torch.rand(2, 8, 6, 6, dtype=torch.float64), (2, 2), (2, 2), (0, 0))),
    ("not channels-last", lambda: (torch.rand(2, 8, 6, 6).contiguous(), (2, 2), (2, 2), (0, 0))),
])
def test_other_pools_keep_torchs_kernel(why, make):
    x, kernel, stride, pad = make()
    x = x.contiguous(memory_format=torch.channels_last) if why != "not channels-last" else x
    y, index = torch.ops.aten.max_pool2d_with_indices(x, list(kernel), list(stride), list(pad))
    y, index = (t.contiguous(memory_format=torch.channels_last) for t in (y, index))
    pool = kernels.max_pool2d_native(y, index, x, _lua(*kernel), _lua(*stride), _lua(*pad))
    assert pool is None, why


@pytest.mark.parametrize("padding, shape", [("VALID", (2, 9, 9, 12)), ("SAME", (3, 8, 8, 16)),
                                            ("VALID", (2, 24, 24, 20))])
def test_a_graphs_pooling_is_torchs_with_and_without_the_native_kernel(
        padding, shape, plan_memory, monkeypatch):
    # NHWC, as TF-1 programs pool: ties in the values, so the gradient's choice is checked too
    values = np.random.default_rng(4).integers(-5, 6, size=shape).astype(np.float32)
    head = np.random.default_rng(5).standard_normal(
        (shape[0], shape[1] // 2, shape[2] // 2, shape[3])).astype(np.float32)

    def run():
        tf.reset_default_graph()
        x = tf.placeholder(tf.float32, shape)
        y = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], padding)
        grad, = tf.gradients(y, [x], grad_ys=[tf.constant(head)])
        with tf.Session(plan_memory=plan_memory) as sess:
            return sess.run([y, grad], {x: values})
    loaded = []
    load = native.load
    monkeypatch.setattr(native, "load", lambda source: loaded.append(load(source)) or loaded[-1])
    got = run()
    assert len(loaded) == 2 and (NATIVE is None or None not in loaded)  # forward and backward
    monkeypatch.setenv("TINYFLOW_NATIVE", "0")
    assert native.load(kernels._MAX_POOL_2X2) is None
    assert all(np.array_equal(a, b) for a, b in zip(got, run()))

    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    y = F.max_pool2d(x.permute(0, 3, 1, 2), 2, 2).permute(0, 2, 3, 1)
    (y * torch.tensor(head, dtype=torch.float64)).sum().backward()
    np.testing.assert_array_equal(got[0], y.detach().numpy())
    np.testing.assert_array_equal(got[1], x.grad.numpy())


def test_the_loader_builds_once_and_gives_none_without_a_compiler(tmp_path, monkeypatch):
    source = tmp_path / "twice.c"
    source.write_text("int twice(int x) { return 2 * x; }\n")
    monkeypatch.setenv("TINYFLOW_CACHE_DIR", str(tmp_path / "cache"))
    native._library.cache_clear()
    try:
        if native.load(source) is None:
            pytest.skip("needs a C compiler (cc)")
        assert native.load(source).twice(21) == 42
        built = list((tmp_path / "cache" / "native").iterdir())
        assert len(built) == 1 and built[0].name.startswith("twice-")  # no partial file left
        native._library.cache_clear()
        assert native.load(source).twice(4) == 8  # loaded from the cache: nothing new built
        assert list((tmp_path / "cache" / "native").iterdir()) == built

        broken = tmp_path / "broken.c"
        broken.write_text("this is not C\n")
        assert native.load(broken) is None
        assert len(list((tmp_path / "cache" / "native").iterdir())) == 1
        native._library.cache_clear()
        monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
        assert native.load(tmp_path / "other.c") is None
    finally:
        native._library.cache_clear()


def test_lenet_pools_give_the_same_step_with_and_without_the_native_kernel(monkeypatch):
    # the seed's layout (NCHW, channels-last convolutions): conv, tanh, 2x2 pool twice
    images = np.random.default_rng(0).standard_normal((4, 1, 28, 28)).astype(np.float32)

    def step():
        tf.reset_default_graph()
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32)
        net = x
        for i, filters in enumerate((20, 50)):
            net = tf.nn.conv2d(net, num_filter=filters, ksize=[1, 5, 5, 1], name=f"conv{i}")
            net = tf.nn.max_pool(tf.tanh(net), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
        loss = tf.reduce_sum(tf.square(tf.nn.flatten_layer(net)))
        grads = tf.gradients(loss, tf.trainable_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run([loss] + grads, {x: images})
    loaded = []
    load = native.load
    monkeypatch.setattr(native, "load", lambda source: loaded.append(load(source)) or loaded[-1])
    first = step()
    assert len(loaded) == 4 and (NATIVE is None or None not in loaded)  # 2 pools, 2 gradients
    monkeypatch.setenv("TINYFLOW_NATIVE", "0")
    second = step()
    assert math.isfinite(first[0])
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
