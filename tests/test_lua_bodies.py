"""The kernels behind the built-in op bodies: the window padding of conv2d and pooling
(``kernels.window_input`` / ``kernels.window_grad`` in lua_ops/conv/kernels.lua) and the
softmax backward functions of lua_ops/softmax/kernels.py, against PyTorch."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.lua_ops.runtime import family_kernels, lua_runtime
from tinyflow.lua_ops.scratch import scratch_scope
from tinyflow.lua_ops.softmax import kernels as softmax_kernels

pytestmark = [
    # An op body must write into the buffer the plan gave it, never have torch resize it.
    pytest.mark.filterwarnings("error:An output with one or more elements was resized"),
    pytest.mark.usefixtures("fresh_graph"),
]


# -- softmax backward in the tensors' dtype ----------------------------------------------------
# (PyTorch's CPU kernels ignore the input dtype argument; its CUDA kernels reject a wrong one.)
@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs CUDA"))])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("lua_dim", [1, 2, -1])  # Lua dims: 1-based, negative from the end
def test_softmax_backward_in_float64(name, lua_dim, device):
    x = torch.randn(3, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    x = x.to(device).requires_grad_()
    y = getattr(torch, name)(x, lua_dim - 1 if lua_dim > 0 else lua_dim)
    g = torch.randn_like(y)
    y.backward(g)
    res = torch.empty_like(x)
    getattr(softmax_kernels, f"{name}_backward")(res, g, y.detach(), lua_dim)
    assert res.dtype == torch.float64
    torch.testing.assert_close(res, x.grad, rtol=1e-12, atol=1e-12)


# -- window padding -----------------------------------------------------------------------------
def _same_pads(size, kernel, stride):
    """TensorFlow's SAME padding (before, after) along one axis: the odd pixel after."""
    total = max((-(-size // stride) - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def _tf_same_pad(x, kernel, stride, value=0.0):
    (top, bottom), (left, right) = (_same_pads(size, kernel, stride) for size in x.shape[2:])
    return F.pad(x, (left, right, top, bottom), value=value)


@pytest.mark.parametrize("size, kernel, stride", [(6, 3, 1), (7, 2, 2), (6, 2, 2)],
                         ids=["even", "uneven", "none"])
def test_window_helpers(size, kernel, stride):
    lua = lua_runtime()
    conv = family_kernels("conv")
    window_input, window_grad = conv.window_input, conv.window_grad
    x = torch.randn(2, 3, size, size)
    out = -(-size // stride)
    y, grad_x = torch.empty(2, 3, out, out), torch.empty_like(x)
    top, bottom = _same_pads(size, kernel, stride)
    kernel, stride = lua.table(kernel, kernel), lua.table(stride, stride)
    with scratch_scope() as scratch:
        pad, tensor, fill = window_input(x, y, kernel, stride, -math.inf)
        grad_pad, grad_tensor, take_inside = window_grad(x, y, grad_x, kernel, stride)
    if top == bottom:  # torch pads by itself: the kernel runs on x (and grad_x) as they are
        assert list(pad.values()) == list(grad_pad.values()) == [top, top]
        assert tensor is x and grad_tensor is grad_x and fill is None and take_inside is None
        assert scratch == []
        return
    assert list(pad.values()) == list(grad_pad.values()) == [0, 0]
    assert tensor.shape == grad_tensor.shape == (2, 3, size + top + bottom, size + top + bottom)
    assert [t.data_ptr() for t in scratch] == [tensor.data_ptr(), grad_tensor.data_ptr()]
    fill()
    assert torch.equal(tensor, F.pad(x, (top, bottom, top, bottom), value=-math.inf))
    grad_tensor.copy_(torch.randn_like(grad_tensor))
    take_inside()
    assert torch.equal(grad_x, grad_tensor[:, :, top:top + size, top:top + size])


SAME_CASES = [(size, kernel, stride) for size in (6, 7) for kernel in (2, 3) for stride in (1, 2)]


def _check_same_layer(build, ref, values, plan_memory, config):
    """``build(*placeholders)`` forward and backward (head gradient r) against the float64 torch
    twin ``ref(*tensors)`` and its autograd."""
    xs = [tf.placeholder(tf.float32, shape=v.shape) for v in values]
    out = build(*xs)
    tensors = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    expected = ref(*tensors)
    head = np.random.default_rng(1).standard_normal(expected.shape).astype(np.float32)
    r = tf.placeholder(tf.float32, shape=head.shape)
    grads = tf.gradients(out, xs, grad_ys=[r])
    with tf.Session(config, plan_memory=plan_memory) as sess:
        got = sess.run([out] + grads, {**dict(zip(xs, values)), r: head})
    (expected * torch.tensor(head, dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(got[0], expected.detach().numpy(), rtol=1e-4, atol=1e-4)
    for i, (g, t) in enumerate(zip(got[1:], tensors)):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-4, atol=1e-4,
                                   err_msg=f"gradient of input {i}")


def _rand(*shape):
    return np.random.default_rng([0, *shape]).standard_normal(shape).astype(np.float32)


def _case_id(case):
    size, kernel, stride = case
    top, bottom = _same_pads(size, kernel, stride)
    return f"{size}-k{kernel}-s{stride}-{'uneven' if top != bottom else 'even'}"


@pytest.mark.parametrize("case", SAME_CASES, ids=_case_id)
def test_conv2d_same(case, plan_memory, config):
    size, kernel, stride = case
    values = [_rand(2, 3, size, size), _rand(4, 3, kernel, kernel) * 0.3]
    _check_same_layer(
        lambda x, w: tf.nn.conv2d(x, w, num_filter=4, ksize=[1, kernel, kernel, 1],
                                  strides=[1, stride, stride, 1], padding="SAME"),
        lambda x, w: F.conv2d(_tf_same_pad(x, kernel, stride), w, stride=stride),
        values, plan_memory, config)


@pytest.mark.parametrize("case", SAME_CASES, ids=_case_id)
def test_max_pool_same(case, plan_memory, config):
    size, kernel, stride = case
    shape = (2, 3, size, size)
    # distinct values: no ties, so the gradient is unambiguous
    values = [np.random.default_rng(3).permutation(math.prod(shape)).reshape(shape)
              .astype(np.float32) / 10]
    _check_same_layer(
        lambda x: tf.nn.max_pool(x, [1, 1, kernel, kernel], [1, 1, stride, stride], "SAME",
                                 data_format="NCHW"),
        lambda x: F.max_pool2d(_tf_same_pad(x, kernel, stride, -math.inf), kernel, stride),
        values, plan_memory, config)


@pytest.mark.parametrize("case", SAME_CASES, ids=_case_id)
def test_avg_pool_same(case, plan_memory, config):
    size, kernel, stride = case

    def ref(x):  # TensorFlow's mean: padding is not counted
        sums = F.avg_pool2d(_tf_same_pad(x, kernel, stride), kernel, stride, divisor_override=1)
        ones = _tf_same_pad(torch.ones_like(x[:1, :1]), kernel, stride)
        return sums / F.avg_pool2d(ones, kernel, stride, divisor_override=1)
    _check_same_layer(
        lambda x: tf.nn.avg_pool(x, [1, 1, kernel, kernel], [1, 1, stride, stride], "SAME",
                                 data_format="NCHW"),
        ref, [_rand(2, 3, size, size)], plan_memory, config)
