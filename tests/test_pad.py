"""The ``pad`` op (the seed's ``tf.pad(x, dim, pad)``, with a fill ``value`` for TensorFlow's
``constant_values``): values against ``torch.nn.functional.pad``, gradients (a crop) against
torch autograd, integer tensors, memory planning on and off."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _torch_pad(x, dim, pad, value):
    """``x`` with |pad| ``value``s along ``dim``, in front when pad < 0 (F.pad lists (front,
    back) pairs from the last dim back)."""
    widths = [0, 0] * (x.dim() - dim)
    widths[-2 if pad < 0 else -1] = abs(pad)
    return F.pad(x, widths, value=value)


@pytest.mark.parametrize("dim, pad, value", [(1, -3, 0.0), (1, 2, -1.5), (0, 1, 7.0),
                                             (2, -1, 0.25), (-1, 2, 3.0), (1, 0, 9.0)])
def test_pad_value_and_gradient(dim, pad, value, config, plan_memory):
    rng = np.random.default_rng(abs(pad) + dim)
    values = rng.standard_normal((2, 3, 4)).astype(np.float32)
    x = tf.placeholder(tf.float32, values.shape)
    y = create_op("pad", x, dim=dim, pad=pad, value=value)
    ref = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    expected = _torch_pad(ref, dim % 3, pad, value)
    head = rng.standard_normal(tuple(expected.shape)).astype(np.float32)
    r = tf.placeholder(tf.float32, head.shape)
    (grad,) = tf.gradients(y, [x], grad_ys=[r])
    with tf.Session(config, plan_memory=plan_memory) as sess:
        got, got_grad = sess.run([y, grad], {x: values, r: head})
    (expected * torch.tensor(head, dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(got, expected.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(got_grad, ref.grad.numpy(), rtol=1e-6)


def test_pad_integer_tensor_keeps_dtype(plan_memory):
    x = tf.placeholder(tf.int32, [2, 2])
    y = create_op("pad", create_op("pad", x, dim=0, pad=-1, value=5), dim=1, pad=1, value=-2)
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run(y, {x: np.array([[1, 2], [3, 4]], np.int32)})
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [[5, 5, -2], [1, 2, -2], [3, 4, -2]])


def test_seed_pad_fills_zeros_by_default(plan_memory):
    # tf.pad(x, dim=, pad=) (the seed's call) gives no value: zeros, as the seed's op did
    x = tf.placeholder(tf.float32)
    y = tf.pad(x, dim=0, pad=2)
    with tf.Session(plan_memory=plan_memory) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0]}), [1.0, 2.0, 0.0, 0.0])


# -- TensorFlow's tf.pad ----------------------------------------------------------------------
def _index_map(shape, paddings, mode):
    """Which input element (flat index, -1: the constant) each output element of np.pad is."""
    index = np.arange(int(np.prod(shape))).reshape(shape)
    if mode == "constant":
        return np.pad(index, paddings, mode="constant", constant_values=-1)
    return np.pad(index, paddings, mode=mode)


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC", "symmetric"])
@pytest.mark.parametrize("paddings", [[[1, 2], [0, 3], [2, 0]], [[2, 2], [1, 1], [0, 4]],
                                      [[0, 0], [0, 0], [0, 0]]])
@pytest.mark.parametrize("known_shape", [True, False], ids=["static", "fed"])
def test_tf_pad_against_numpy(mode, paddings, known_shape, plan_memory):
    # TF's tf.pad is numpy's np.pad in these three modes; its gradient sums the output's
    # gradient over the copies of each input element (TF's MirrorPadGrad, Pad's slice)
    shape, np_mode = (3, 4, 5), mode.lower()
    rng = np.random.default_rng(len(mode) + paddings[0][0])
    values = rng.standard_normal(shape).astype(np.float32)
    x = tf.placeholder(tf.float32, shape if known_shape else None)
    y = tf.pad(x, paddings, mode=mode, constant_values=1.5)
    kw = {"constant_values": 1.5} if np_mode == "constant" else {}
    expected = np.pad(values, paddings, mode=np_mode, **kw)
    head = rng.standard_normal(expected.shape).astype(np.float32)
    r = tf.placeholder(tf.float32)
    (grad,) = tf.gradients(y, [x], grad_ys=[r])
    with tf.Session(plan_memory=plan_memory) as sess:
        got, got_grad = sess.run([y, grad], {x: values, r: head})
    np.testing.assert_array_equal(got, expected)
    index, expected_grad = _index_map(shape, paddings, np_mode).ravel(), np.zeros(values.size)
    np.add.at(expected_grad, index[index >= 0], head.ravel()[index >= 0])
    np.testing.assert_allclose(got_grad, expected_grad.reshape(shape), rtol=1e-5, atol=1e-6)
    assert y.op.name == ("Pad" if mode == "CONSTANT" else "MirrorPad")


def test_tf_pad_integers_and_seed_calls(plan_memory):
    x = tf.placeholder(tf.int32, [2])
    feed = {x: np.array([1, 2], np.int32)}
    with tf.Session(plan_memory=plan_memory) as sess:
        padded = sess.run(tf.pad(x, [[1, 2]], constant_values=7), feed)
        np.testing.assert_array_equal(padded, [7, 1, 2, 7, 7])
        assert padded.dtype == np.int32
        # the seed's calls, keyword and positional
        np.testing.assert_array_equal(sess.run(tf.pad(x, dim=0, pad=-2), feed), [0, 0, 1, 2])
        np.testing.assert_array_equal(sess.run(tf.pad(x, 0, 1), feed), [1, 2, 0])


@pytest.mark.parametrize("call, error, message", [
    (lambda x: tf.pad(x, [[1, 1], [0, 0]]), ValueError, r"2 rows for a tensor of rank 1"),
    (lambda x: tf.pad(x, [[-1, 0]]), ValueError, "non-negative"),
    (lambda x: tf.pad(x, [[2, 0]], "REFLECT"), ValueError, "at most 1 for its size 2"),
    (lambda x: tf.pad(x, [[3, 0]], "SYMMETRIC"), ValueError, "at most 2 for its size 2"),
    (lambda x: tf.pad(x, [[1, 0]], "WRAP"), ValueError, "mode must be"),
    (lambda x: tf.pad(x, [1, 2]), ValueError, r"\[rank, 2\] array of ints"),
    (lambda x: tf.pad(x, tf.constant([[1, 1]])), TypeError, "not a tensor"),
    (lambda x: tf.pad(x, dim=0), TypeError, "pad()"),
])
def test_tf_pad_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call(tf.placeholder(tf.int32, [2]))
