"""tf.TensorArray (issue 25): read/write/stack/unstack/gather/scatter/concat/size outside and
inside tf.while_loop, values against numpy, gradients against PyTorch autograd and finite
differences, with memory planning on and off."""
import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_write_read_stack_and_their_gradients(plan_memory):
    v = tf.placeholder(tf.float32, [2])
    ta = tf.TensorArray(tf.float32, size=3).write(0, v * 2.0).write(2, v * v)
    assert ta.element_shape.as_list() == [2]
    loss = tf.reduce_sum(ta.stack() * tf.constant([[1.0], [5.0], [3.0]]))
    (grad,) = tf.gradients(loss, v)
    sess = tf.Session(plan_memory=plan_memory)
    stacked, row, size, joined, got = sess.run(
        [ta.stack(), ta.read(2), ta.size(), ta.concat(), grad], {v: [1.0, 3.0]})
    np.testing.assert_array_equal(stacked, [[2, 6], [0, 0], [1, 9]])  # row 1 never written
    np.testing.assert_array_equal(row, [1, 9])
    assert size == 3
    np.testing.assert_array_equal(joined, [2, 6, 0, 0, 1, 9])
    reference = torch.tensor([1.0, 3.0], requires_grad=True)
    (2 * reference * 1 + reference * reference * 3).sum().backward()
    np.testing.assert_allclose(got, reference.grad.numpy())


def test_unstack_read_gather_and_the_gradient_into_the_input(plan_memory):
    x = tf.placeholder(tf.float32, [4, 3])
    ta = tf.TensorArray(tf.float32, size=4).unstack(x)
    product = tf.reduce_sum(ta.read(1) * ta.read(3)) + tf.reduce_sum(ta.gather([0, 0]))
    (grad,) = tf.gradients(product, x)
    values = np.arange(12, dtype=np.float32).reshape(4, 3)
    sess = tf.Session(plan_memory=plan_memory)
    got, got_grad = sess.run([product, grad], {x: values})
    reference = torch.tensor(values, requires_grad=True)
    expected = (reference[1] * reference[3]).sum() + reference[[0, 0]].sum()
    expected.backward()
    assert got == pytest.approx(expected.item())
    np.testing.assert_allclose(got_grad, reference.grad.numpy())


def test_scatter_and_a_dynamic_array_growing_at_python_indices(plan_memory):
    v = tf.placeholder(tf.float32, [2, 2])
    scattered = tf.TensorArray(tf.float32, size=3, element_shape=[2]).scatter([2, 0], v)
    grown = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(0, v[0]).write(2, v[1])
    sess = tf.Session(plan_memory=plan_memory)
    values = np.array([[1, 2], [3, 4]], np.float32)
    got_scattered, got_grown, size = sess.run([scattered.stack(), grown.stack(), grown.size()],
                                              {v: values})
    np.testing.assert_array_equal(got_scattered, [[3, 4], [0, 0], [1, 2]])
    np.testing.assert_array_equal(got_grown, [[1, 2], [0, 0], [3, 4]])
    assert size == 3


def test_write_gradient_by_finite_differences():
    # the buffer's rows kept and the value written, through tensor_array_write
    def build(buffer, value):
        ta = tf.TensorArray(tf.float32, size=3).unstack(buffer)
        return ta.write(1, value).stack() * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    check_gradients(build, [(3, 2), (2,)])


def test_a_loop_writes_what_it_reads_and_the_gradient_flows_back(plan_memory, config):
    # out[t] = 2 * (x[0] + ... + x[t]): an array read inside the loop, one written
    x = tf.placeholder(tf.float32, [5, 3])
    inputs = tf.TensorArray(tf.float32, size=5).unstack(x)

    def body(t, total, outputs):
        total = total + inputs.read(t)
        return t + 1, total, outputs.write(t, total * 2.0)
    _, _, outputs = tf.while_loop(lambda t, total, outputs: t < 5, body,
                                  (tf.constant(0), tf.zeros([3]),
                                   tf.TensorArray(tf.float32, size=5)))
    assert isinstance(outputs, tf.TensorArray)
    result = outputs.stack()
    (grad,) = tf.gradients(tf.reduce_sum(result * result), x)
    values = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    sess = tf.Session(config, plan_memory=plan_memory)
    got, got_grad = sess.run([result, grad], {x: values})
    # the array written flows through the loop's body without copies, and through the
    # gradient's with the gradient of total (an add in place); the integer counter's gradient
    # (zero) passes through the gradient's body untouched, planned or not
    carried = sess.memory_plan([result, grad], {x: values}).carried
    assert sorted(carried.values()) == ([2, 2] if plan_memory else [0, 1])
    reference = torch.tensor(values, requires_grad=True)
    expected = torch.cumsum(reference, 0) * 2
    (expected * expected).sum().backward()
    np.testing.assert_allclose(got, expected.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(got_grad, reference.grad.numpy(), rtol=1e-5)


def test_a_loops_write_is_in_place_into_the_carried_buffer(plan_memory):
    # the array a loop writes flows through its body (and its gradient through the gradient's
    # body) without a copy per iteration when memory planning is on: the plan's count of carried
    # loop variables says so; the body also reads the array it writes (the previous row), so
    # the write goes after that read; values and gradients against PyTorch autograd (the
    # previous test's write-only loop carries the gradient's buffer too)
    x = tf.placeholder(tf.float32, [6, 4])

    def body(t, rows):
        previous = rows.read(tf.maximum(t - 1, 0))
        return t + 1, rows.write(t, tf.tanh(tf.gather(x, t) + previous * 0.5))
    _, rows = tf.while_loop(lambda t, rows: t < 6, body,
                            (tf.constant(0), tf.TensorArray(tf.float32, size=6, element_shape=[4])))
    result = rows.stack()
    (grad,) = tf.gradients(tf.reduce_sum(result * result), x)
    values = np.random.default_rng(1).normal(size=(6, 4)).astype(np.float32)
    sess = tf.Session(plan_memory=plan_memory)
    got, got_grad = sess.run([result, grad], {x: values})
    report = sess.memory_plan([result, grad], {x: values})
    # the forward's write runs in place; the gradient's buffer is the sum of the write's and
    # the read's gradients, a new tensor: copied per iteration (the counter's gradient, zero,
    # passes through untouched, planned or not)
    assert report.carried == ({"while/while": 1, "gradients/while/while_grad": 1}
                              if plan_memory else {"while/while": 0,
                                                   "gradients/while/while_grad": 1})
    assert "1 loop variables carried without copies" in str(report) or not plan_memory
    reference = torch.tensor(values, requires_grad=True)
    out, previous = [], torch.zeros(4)
    for t in range(6):
        previous = torch.tanh(reference[t] + previous * 0.5)
        out.append(previous)
    expected = torch.stack(out)
    (expected * expected).sum().backward()
    np.testing.assert_allclose(got, expected.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_grad, reference.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_errors_name_the_array():
    ta = tf.TensorArray(tf.float32, size=2, name="steps")
    with pytest.raises(ValueError, match="'steps': read before the element shape is known"):
        ta.read(0)
    ta = ta.write(0, tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="incompatible with the TensorArray's inferred element"):
        ta.write(1, tf.constant([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="dtype is float32"):
        ta.write(1, tf.constant([1, 2]))
    with pytest.raises(ValueError, match="Size must be provided"):
        tf.TensorArray(tf.float32)
    index = tf.placeholder(tf.int32, [])
    late = ta.write(index, tf.constant([3.0, 4.0]))
    with pytest.raises(tf.TinyflowError, match="steps_write"):
        tf.Session().run(late.stack(), {index: 5})


def test_an_rnn_of_unknown_batch_and_length_against_torch(plan_memory):
    # what dynamic_rnn builds: arrays sized by a tensor, the output array's element shape
    # learnt from the body's first write only when the graph is bound
    x = tf.placeholder(tf.float32, [None, None, 3])  # time, batch, features
    steps = tf.shape(x)[0]
    inputs = tf.TensorArray(tf.float32, size=steps).unstack(x)
    w = tf.Variable(np.random.default_rng(2).normal(0, 0.5, (3, 3)).astype(np.float32))

    def body(t, h, outputs):
        h = tf.tanh(tf.matmul(inputs.read(t), w) + h)
        return t + 1, h, outputs.write(t, h * 2.0)
    _, last, outputs = tf.while_loop(
        lambda t, h, outputs: t < steps, body,
        (tf.constant(0), tf.zeros_like(inputs.read(0)), tf.TensorArray(tf.float32, size=steps)))
    stacked = outputs.stack()
    (grad,) = tf.gradients(tf.reduce_sum(stacked * stacked), w)
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    weights = sess.run(w)
    for shape in ((4, 2, 3), (2, 5, 3)):
        values = np.random.default_rng(shape[0]).normal(size=shape).astype(np.float32)
        got, got_last, got_grad = sess.run([stacked, last, grad], {x: values})
        tw = torch.tensor(weights, requires_grad=True)
        h, rows = torch.zeros(shape[1:]), []
        for step in torch.tensor(values):
            h = torch.tanh(step @ tw + h)
            rows.append(h * 2.0)
        reference = torch.stack(rows)
        (reference * reference).sum().backward()
        np.testing.assert_allclose(got, reference.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_last, h.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_grad, tw.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_tensorflows_methods_beyond_one_tensor_say_so():
    ta = tf.TensorArray(tf.float32, size=2)
    for name in ("grad", "handle"):
        with pytest.raises(AttributeError, match=f"TensorArray.{name} is not supported"):
            getattr(ta, name)


def test_stack_has_tf_1_15s_static_shape_an_unknown_first_dimension():
    # TF 1.15's stack() is gather(range(size())): [None] + the element shape, whether the size
    # is known or not (real TF 2.21's compat.v1 prints (None, 3) for the dynamic_size and
    # placeholder-size arrays below; it sets a known size after 1.15, which TF 1.15 does not)
    row = tf.constant([1.0, 2.0, 3.0])
    size = tf.compat.v1.placeholder(tf.int32, [])
    arrays = [tf.TensorArray(tf.float32, 3).write(0, row).write(1, row).write(2, row),
              tf.TensorArray(tf.float32, 3, element_shape=[3]),
              tf.TensorArray(tf.float32, 0, dynamic_size=True).write(0, row),
              tf.TensorArray(tf.float32, 0, dynamic_size=True, element_shape=[3]),
              tf.TensorArray(tf.float32, size).write(0, row),
              tf.TensorArray(tf.float32, 2).unstack(tf.constant(np.ones((2, 3), np.float32)))]
    for array in arrays:
        assert array.stack().shape.as_list() == [None, 3]
        assert (array.stack() * 2).shape.as_list() == [None, 3]
        assert array.concat().shape.as_list() == [None]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(arrays[0].stack()), np.tile([1, 2, 3], (3, 1)))
        np.testing.assert_array_equal(sess.run(arrays[4].stack(), {size: 1}), [[1, 2, 3]])


def test_split_into_equal_pieces_as_real_tf():
    # values printed by real TF (tf.compat.v1) for the same splits; TF reads pieces of unequal
    # lengths one by one, which TinyFlow's one tensor of elements cannot hold: a ValueError
    value = tf.constant(np.arange(8, dtype=np.float32).reshape(4, 2))
    pieces = tf.TensorArray(tf.float32, 2).split(value, [2, 2])
    assert pieces.element_shape.as_list() == [2, 2]  # TF's infer_shape of equal lengths
    flat = tf.TensorArray(tf.float32, 3).split(tf.constant([1., 2, 3, 4, 5, 6]),
                                               tf.constant([2, 2, 2]))
    with tf.Session() as sess:
        got = sess.run([pieces.stack(), pieces.read(1), flat.stack(), flat.concat()])
    np.testing.assert_array_equal(got[0], [[[0, 1], [2, 3]], [[4, 5], [6, 7]]])
    np.testing.assert_array_equal(got[1], [[4, 5], [6, 7]])
    np.testing.assert_array_equal(got[2], [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(got[3], [1, 2, 3, 4, 5, 6])
    with pytest.raises(ValueError, match="lengths must be known and equal"):
        tf.TensorArray(tf.float32, 2).split(value, [1, 3])
    with pytest.raises(ValueError, match="Expected sum of lengths to be equal"):
        tf.TensorArray(tf.float32, 2).split(value, [1, 1])
    (grad,) = tf.gradients(tf.reduce_sum(pieces.read(1) * 3.0), value)
    np.testing.assert_array_equal(tf.Session().run(grad), [[0, 0], [0, 0], [3, 3], [3, 3]])
