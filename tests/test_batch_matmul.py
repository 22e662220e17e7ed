"""tf.matmul of batches of matrices (TF 1.15's BatchMatMulV2: the batch axes broadcast), against
numpy's matmul; gradients against finite differences; memory planning on and off.  The static
shapes and the errors are those real TF gives (tf.compat.v1 in /work/tfvenv, the same calls:
(2, 5, 3, 6), (2, 3, 5), (None, 7, 3), (None, 7, 7); a ValueError for batches 2 and 3, and for
transpose_a with adjoint_a)."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")
CASES = [((2, 3, 4), (2, 4, 5), {}), ((2, 3, 4), (4, 5), {}),
         ((2, 3, 4), (5, 4), {"transpose_b": True}), ((3, 4), (2, 4, 5), {}),
         ((2, 1, 3, 4), (5, 4, 6), {}), ((2, 4, 3), (2, 4, 5), {"transpose_a": True}),
         ((2, 3, 4), (2, 5, 4), {"adjoint_b": True}), ((2, 3, 4), (4, 2), {"adjoint_a": False})]


@pytest.mark.parametrize("shape_a, shape_b, flags", CASES)
def test_batches_against_numpy_and_finite_differences(plan_memory, shape_a, shape_b, flags):
    rng = np.random.default_rng(len(shape_a) * 10 + len(shape_b))
    a, b = (rng.standard_normal(s).astype(np.float32) for s in (shape_a, shape_b))
    product = tf.matmul(tf.constant(a), tf.constant(b), **flags)
    left = np.swapaxes(a, -1, -2) if flags.get("transpose_a") or flags.get("adjoint_a") else a
    right = np.swapaxes(b, -1, -2) if flags.get("transpose_b") or flags.get("adjoint_b") else b
    want = np.matmul(left, right)
    assert product.get_shape().as_list() == list(want.shape)
    with tf.Session(plan_memory=plan_memory) as sess:
        np.testing.assert_allclose(sess.run(product), want, rtol=1e-5, atol=1e-5)
    check_gradients(lambda x, y: tf.matmul(x, y, **flags), [shape_a, shape_b],
                    plan_memory=plan_memory)


def test_a_fed_batch_keeps_its_static_shape_and_values():
    rng = np.random.default_rng(1)
    x = tf.placeholder(tf.float32, [None, 7, 4])
    dense = tf.matmul(x, tf.constant(rng.standard_normal((4, 3)).astype(np.float32)))
    scores = tf.matmul(x, x, transpose_b=True)  # attention's q @ k^T
    assert dense.get_shape().as_list() == [None, 7, 3]
    assert scores.get_shape().as_list() == [None, 7, 7]
    xs = rng.standard_normal((5, 7, 4)).astype(np.float32)
    with tf.Session() as sess:
        got = sess.run(scores, {x: xs})
    np.testing.assert_allclose(got, xs @ np.swapaxes(xs, 1, 2), rtol=1e-5, atol=1e-5)


def test_an_unknown_batch_axis_broadcasts_as_tf(plan_memory):
    """An unknown batch axis against a known one is 1 or that size (TF's BatchMatMulV2): the
    static shapes real TF 2.21 gives, recorded, and numpy's values for each size fed; the
    broadcast operand's gradient summed back."""
    rng = np.random.default_rng(2)
    a = tf.placeholder(tf.float32, [None, 1, 6])
    b = tf.constant(rng.standard_normal((6, 6, 5)).astype(np.float32))
    c = tf.placeholder(tf.float32, [None, 2, 6])
    w = tf.constant(rng.standard_normal((1, 6, 5)).astype(np.float32))
    d = tf.placeholder(tf.float32, [2, None, 6])
    ab, cw, dw = tf.matmul(a, b), tf.matmul(c, w), tf.matmul(d, tf.ones([3, 1, 6, 5]))
    wc = tf.matmul(w, c, transpose_a=True, transpose_b=True)  # a batch of 1 against ?
    assert [t.get_shape().as_list() for t in (ab, cw, dw, wc)] == [
        [6, 1, 5], [None, 2, 5], [3, 2, None, 5], [None, 5, 2]]
    grad = tf.gradients(tf.reduce_sum(cw), c)[0]
    with tf.Session(plan_memory=plan_memory) as sess:
        for batch in (1, 6):
            xs = rng.standard_normal((batch, 1, 6)).astype(np.float32)
            np.testing.assert_allclose(sess.run(ab, {a: xs}), xs @ sess.run(b), rtol=1e-5,
                                       atol=1e-5)
        cs = rng.standard_normal((3, 2, 6)).astype(np.float32)
        got, g = sess.run([cw, grad], {c: cs})
        np.testing.assert_allclose(got, cs @ sess.run(w), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(sess.run(wc, {c: cs}), sess.run(w).transpose(0, 2, 1) @
                                   cs.transpose(0, 2, 1), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(g, np.broadcast_to(sess.run(w).sum(2)[:, None, :],
                                                      (3, 2, 6)), rtol=1e-5, atol=1e-5)
        assert sess.run(dw, {d: np.ones((2, 4, 6), np.float32)}).shape == (3, 2, 4, 5)


def test_refusals_as_tf():
    with pytest.raises(ValueError, match="do not broadcast"):
        tf.matmul(tf.ones([2, 3, 4]), tf.ones([3, 4, 5]))
    with pytest.raises(ValueError, match="Only one of transpose_a and adjoint_a can be True"):
        tf.matmul(tf.ones([2, 3]), tf.ones([3, 4]), transpose_a=True, adjoint_a=True)
    assert tf.linalg.matmul is tf.matmul


def test_matvec_cross_and_the_transposes(plan_memory):
    rng = np.random.default_rng(3)
    m = rng.standard_normal((2, 4, 3)).astype(np.float32)
    a, b = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2))
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run([tf.linalg.matvec(m, a), tf.cross(a, b), tf.linalg.cross(a, b),
                        tf.linalg.adjoint(m), tf.linalg.matvec(m, rng.standard_normal(
                            (2, 4)).astype(np.float32), transpose_a=True)])
    np.testing.assert_allclose(got[0], np.einsum("bij,bj->bi", m, a), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], np.cross(a, b), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], got[1])
    np.testing.assert_array_equal(got[3], np.swapaxes(m, 1, 2))
    assert got[4].shape == (2, 3)
    check_gradients(lambda x, y: tf.cross(x, y), [(2, 3), (2, 3)], plan_memory=plan_memory)
    check_gradients(lambda x, y: tf.linalg.matvec(x, y), [(2, 4, 3), (2, 3)],
                    plan_memory=plan_memory)
    with pytest.raises(ValueError, match="vectors of 3"):
        tf.cross(tf.ones([2, 4]), tf.ones([2, 4]))
