"""tf.nn.ctc_loss against real TensorFlow's (tf.compat.v1 in /work/tfvenv, the same program,
numbers written down here): losses, gradients, time-major or not, the example whose labels
cannot be aligned (inf, the softmax as its gradient), ignore_longer_outputs_than_inputs, and
TF's errors.  Values against torch's CTC: tests/op_cases_ctc.py."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.nnvm.errors import GraphError

pytestmark = pytest.mark.usefixtures("fresh_graph")
T, B, C = 6, 2, 5
LOGITS = np.random.RandomState(0).randn(T, B, C).astype(np.float32)
# real TF's, for labels [1, 2] and [3, 3, 0] and sequence lengths [6, 5]
LOSSES = [6.572630405426025, 7.563510894775391]
GRAD_T0 = [0.2256486564874649, -0.13464342057704926, 0.10289045423269272, 0.36351478099823,
           -0.5574105978012085, 0.1207851767539978, 0.8299619555473328, 0.27587124705314636,
           -1.0367789268493652, -0.18983930349349976]
GRAD_T5 = [0.10861754417419434, 0.3915848135948181, -0.35787826776504517, 0.081668421626091,
           -0.22399228811264038, 0.0, 0.0, 0.0, 0.0, 0.0]


def _labels():
    return tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]],
                           np.int32([1, 2, 3, 3, 0]), [2, 3])


def test_losses_and_gradients_as_tf(plan_memory):
    x = tf.constant(LOGITS)
    loss = tf.nn.ctc_loss(_labels(), x, [6, 5])
    grad = tf.gradients(tf.reduce_sum(loss * [1.0, 2.0]), x)[0]
    batch_major = tf.nn.ctc_loss(_labels(), tf.constant(np.transpose(LOGITS, (1, 0, 2))),
                                 [6, 5], time_major=False)
    with tf.Session(plan_memory=plan_memory) as sess:
        got, g, other = sess.run([loss, grad, batch_major])
    np.testing.assert_allclose(got, LOSSES, rtol=1e-6)
    np.testing.assert_allclose(other, LOSSES, rtol=1e-6)
    np.testing.assert_allclose(g[0].ravel(), GRAD_T0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g[5].ravel(), GRAD_T5, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("ignore", [False, True])
def test_unalignable_and_too_long_examples_as_tf(ignore):
    x = tf.constant(LOGITS)
    # [3, 3, 0] in 3 steps: long enough by TF's count, but the repeat needs a blank: inf, and
    # (real TF's) the softmax over its 3 steps as its gradient
    loss = tf.nn.ctc_loss(_labels(), x, [6, 3], ignore_longer_outputs_than_inputs=ignore)
    grad = tf.gradients(tf.reduce_sum(loss), x)[0]
    short = tf.nn.ctc_loss(_labels(), x, [6, 2], ignore_longer_outputs_than_inputs=ignore)
    short_grad = tf.gradients(tf.reduce_sum(short), x)[0]
    with tf.Session() as sess:
        got, g = sess.run([loss, grad])
        assert got[1] == np.inf and got[0] == pytest.approx(LOSSES[0], rel=1e-6)
        np.testing.assert_allclose(g[2, 1], [0.02106, 0.09442, 0.0748, 0.41769, 0.39203],
                                   atol=1e-5)
        assert np.abs(g[:, 1]).sum() == pytest.approx(3.0, rel=1e-6)
        if ignore:  # labels longer than the sequence: loss 0, no gradient (TF's)
            got, g = sess.run([short, short_grad])
            assert got[1] == 0.0 and not g[:, 1].any()
        else:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Not enough time for target transition sequence "
                                     r"\(required: 3, available: 2\)1You can turn"):
                sess.run(short)


def test_tensorflows_refusals():
    x = tf.constant(LOGITS)
    empty_row = tf.SparseTensor([[0, 0]], np.int32([1]), [2, 1])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Labels length is zero in batch 1"):
            sess.run(tf.nn.ctc_loss(empty_row, x, [6, 6]))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"sequence_length\(0\) <= 6"):
            sess.run(tf.nn.ctc_loss(_labels(), x, [7, 6]))
        blank = tf.SparseTensor([[0, 0], [1, 0]], np.int32([4, 1]), [2, 1])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Labels must be in \[0, 4\)"):
            sess.run(tf.nn.ctc_loss(blank, x, [6, 6]))
    with pytest.raises(TypeError, match="labels .* to be a SparseTensor"):
        tf.nn.ctc_loss(tf.zeros([2, 3], tf.int32), x, [6, 6])
    with pytest.raises(ValueError, match="only ctc_merge_repeated=True"):
        tf.nn.ctc_loss(_labels(), x, [6, 6], ctc_merge_repeated=False)


def test_no_second_derivative_as_tf():
    x = tf.constant(LOGITS)
    first = tf.gradients(tf.reduce_sum(tf.nn.ctc_loss(_labels(), x, [6, 5])), x)[0]
    with pytest.raises(GraphError, match="no way to take the second derivative of ctc_loss"):
        tf.gradients(tf.reduce_sum(first * first), x)


@pytest.mark.parametrize("merge, indices, values, dense_shape", [
    # real TF's, for the paths below (blank 3), sequence lengths [7, 7, 5]
    (True, [[0, 0], [0, 1], [0, 2], [0, 3], [2, 0], [2, 1]], [1, 1, 2, 0, 0, 2], [3, 4]),
    (False, [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [2, 0], [2, 1], [2, 2]],
     [1, 1, 1, 2, 2, 0, 0, 2, 2], [3, 6])])
def test_greedy_decoder_as_tf(merge, indices, values, dense_shape):
    steps, batch, classes = 7, 3, 4
    logits = np.random.RandomState(1).randn(steps, batch, classes).astype(np.float32)
    paths = [[1, 1, 3, 1, 2, 2, 0], [3] * 7, [0, 2, 2, 3, 3, 1, 1]]  # each step's best class
    for b, path in enumerate(paths):
        logits[np.arange(steps), b, path] += 5.0
    (decoded,), neg_sum = tf.nn.ctc_greedy_decoder(tf.constant(logits), [7, 7, 5],
                                                   merge_repeated=merge)
    with tf.Session() as sess:
        got = sess.run([decoded.indices, decoded.values, decoded.dense_shape, neg_sum])
    assert got[0].tolist() == indices and got[1].tolist() == values
    assert got[2].tolist() == dense_shape
    np.testing.assert_allclose(got[3].ravel(), [-34.276, -38.9858, -28.5348], atol=1e-4)


@pytest.mark.parametrize("shape", [[7, None, 4], [None, None, 4]])
def test_greedy_decoder_of_fed_logits_as_tf(shape):
    # the logits of the test above fed, their batch (and time) unknown as the graph is built:
    # real TF's decoding of them (merge_repeated) is the same as of the constant
    logits = np.random.RandomState(1).randn(7, 3, 4).astype(np.float32)
    paths = [[1, 1, 3, 1, 2, 2, 0], [3] * 7, [0, 2, 2, 3, 3, 1, 1]]
    for b, path in enumerate(paths):
        logits[np.arange(7), b, path] += 5.0
    x = tf.placeholder(tf.float32, shape)
    (decoded,), neg_sum = tf.nn.ctc_greedy_decoder(x, [7, 7, 5])
    with tf.Session() as sess:
        got = sess.run([decoded.indices, decoded.values, decoded.dense_shape, neg_sum],
                       {x: logits})
    assert got[0].tolist() == [[0, 0], [0, 1], [0, 2], [0, 3], [2, 0], [2, 1]]
    assert got[1].tolist() == [1, 1, 2, 0, 0, 2] and got[2].tolist() == [3, 4]
    np.testing.assert_allclose(got[3].ravel(), [-34.276, -38.9858, -28.5348], atol=1e-4)
