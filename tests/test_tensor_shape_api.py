"""tf.TensorShape and tf.Dimension as TensorFlow 1.15 has them (the V1 behaviour: a shape's
dims are Dimensions), and static shapes through tensors told their shape (``set_shape``), as
TF's shape inference carries them: against real TensorFlow's outputs, written down."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _outputs():
    S, D = tf.TensorShape, tf.Dimension
    out = []
    a, b, u = S([None, 3]), S([2, None]), S(None)
    out += [str(a.concatenate(b)), str(a.concatenate(u)), str(a + [4])]
    out += [S([2, 3, 4]).num_elements(), a.num_elements()]
    out += [str(u.with_rank(2)), str(a.with_rank_at_least(1))]
    for check in (lambda: a.with_rank(3), lambda: a.with_rank_at_least(3),
                  lambda: a.with_rank_at_most(1), lambda: a.assert_has_rank(1),
                  lambda: a.assert_is_compatible_with([2, 4]),
                  lambda: a.assert_is_fully_defined(), lambda: a.assert_same_rank([1])):
        try:
            check()
            out.append("ok")
        except ValueError as err:
            out.append(f"ValueError: {err}")
    out += [str(a.most_specific_compatible_shape([2, 3])),
            str(S([2, 3]).most_specific_compatible_shape([2, 4])), a.rank, bool(u), bool(a)]
    d3, dn = D(3), D(None)
    out += [str(d3 + 2), str(2 + d3), str(d3 * dn), str(d3 - 1), str(7 // d3), str(d3 % 2),
            d3 < 4, dn < 4, str(d3.merge_with(dn)), d3.is_compatible_with(4), d3 == 3, d3 != 3,
            dn == 3]
    try:
        d3.merge_with(4)
    except ValueError as err:
        out.append(f"ValueError: {err}")
    out += [repr(u), repr(S([])), repr(a), repr(S([4])), repr(d3), repr(dn)]
    return out


# real TF 2.21, tf.compat.v1 with tf.disable_v2_tensorshape(), the same calls
TF_OUTPUTS = [
    "(?, 3, 2, ?)", "<unknown>", "(?, 3, 4)", 24, None, "(?, ?)", "(?, 3)",
    "ValueError: Shape (?, 3) must have rank 3",
    "ValueError: Shape (?, 3) must have rank at least 3",
    "ValueError: Shape (?, 3) must have rank at most 1",
    "ValueError: Shape (?, 3) must have rank 1",
    "ValueError: Shapes (?, 3) and [2, 4] are incompatible",
    "ValueError: Shape (?, 3) is not fully defined",
    "ValueError: Shapes (?, 3) and (1,) must have the same rank",
    "(?, 3)", "(2, ?)", 2, False, True, "5", "5", "?", "2", "2", "1", True, None, "3", False,
    True, False, None, "ValueError: Dimensions 3 and 4 are not compatible",
    "TensorShape(None)", "TensorShape([])", "TensorShape([Dimension(None), Dimension(3)])",
    "TensorShape([Dimension(4)])", "Dimension(3)", "Dimension(None)"]


def test_tensor_shape_and_dimension_as_tensorflow():
    assert _outputs() == TF_OUTPUTS
    # real TF 2.21, compat.v1 with the V1 shapes (TF 1.15's repr): Dimensions in a list
    S = tf.TensorShape
    assert [repr(S([2, None])), repr(S(None)), repr(S([]))] == [
        "TensorShape([Dimension(2), Dimension(None)])", "TensorShape(None)", "TensorShape([])"]


def test_static_shapes_through_set_shape_and_sequence_masks():
    """A dynamic_rnn with sequence_length tells its outputs' shape (set_shape): what reads
    them knows it too (TF 2.21's compat.v1: (None, 6, 8), (None, 6), (None, 8))."""
    x = tf.placeholder(tf.float32, [None, 6, 3])
    lengths = tf.placeholder(tf.int32, [None])
    (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.LSTMCell(4), tf.nn.rnn_cell.GRUCell(4), x, sequence_length=lengths,
        dtype=tf.float32)
    both = tf.concat([fw, bw], -1)
    mask = tf.sequence_mask(lengths, tf.shape(x)[1], dtype=tf.float32)
    pooled = tf.reduce_sum(both * mask[:, :, None], 1)
    assert both.get_shape().as_list() == [None, 6, 8]
    assert mask.get_shape().as_list() == [None, 6]
    assert pooled.get_shape().as_list() == [None, 8]
    logits = tf.layers.dense(pooled, 2)  # needs the last dimension
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = np.random.RandomState(0).randn(3, 6, 3).astype(np.float32)
        got_mask, got = sess.run([mask, logits], {x: values, lengths: [6, 2, 4]})
        assert got.shape == (3, 2)
        np.testing.assert_array_equal(got_mask.sum(1), [6, 2, 4])


def test_an_unknown_dim_meeting_a_known_one_takes_it_as_tensorflow():
    """TF's shape functions merge an unknown dim with the known one it must equal (a batch of
    None beside a zero state of batch 4); a dim that stays free stays None.  Real TF 2.21's
    tf.compat.v1 static shapes, recorded (checked again for the re-apply, 2026-11-27)."""
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [None, None])
    state, four = tf.zeros([4, 5]), tf.zeros([4, 3])
    joined = tf.concat([x, state], 1)
    cases = [(joined, [4, 8]), (x + four, [4, 3]), (tf.stack([x, four]), [2, 4, 3]),
             (tf.where(tf.ones([4, 3]) > 0, x, four), [4, 3]),
             (tf.matmul(y, tf.zeros([5, 6])), [None, 6]), (y * tf.zeros([4, 1]), [4, None]),
             (tf.add_n([x, four]), [4, 3]), (tf.layers.dense(joined, 7), [4, 7]),
             (x + tf.zeros([3]), [None, 3]),
             # a vector condition chooses rows: TF's Select takes no dim from it (static_rnn's
             # outputs past a sequence length)
             (tf.where(tf.constant([True, False, True]), x, x), [None, 3]),
             (tf.where(tf.placeholder(tf.bool, [4]), x, tf.zeros_like(x)), [None, 3]),
             (tf.where(tf.placeholder(tf.bool, [2, 3]), x, x), [2, 3])]
    for tensor, expected in cases:
        assert tensor.shape.as_list() == expected, tensor
    with pytest.raises(tf.ShapeError):  # checked all the same, as TF's ValueError
        tf.where(tf.constant([True, False]), tf.zeros([3, 3]), tf.zeros([3, 3]))
    with tf.Session() as sess:  # and the graph runs with the batch it must have
        sess.run(tf.global_variables_initializer())
        out = sess.run(joined, {x: np.ones((4, 3), np.float32)})
    np.testing.assert_array_equal(out, np.concatenate([np.ones((4, 3)), np.zeros((4, 5))], 1))
