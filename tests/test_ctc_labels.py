"""tf.nn.collapse_repeated and tf.nn.ctc_unique_labels against the values and dtypes real
TensorFlow printed (tf.compat.v1 of TF 2.21 in /work/tfvenv, graph mode, the same labels),
with memory planning on and off, and fed through placeholders of unknown batch."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")
LABELS = np.array([[1, 1, 2, 2, 3, 0], [4, 4, 4, 1, 1, 1], [2, 3, 3, 2, 5, 5]], np.int32)
ROWS = np.array([[3, 1, 3, 2, 1, 0], [5, 5, 5, 5, 5, 5], [0, 7, 0, 7, 2, 9]], np.int32)


def test_collapse_repeated_as_tf(plan_memory):
    collapsed, lengths = tf.nn.collapse_repeated(LABELS, np.int32([5, 6, 3]))
    short, short_lengths = tf.nn.collapse_repeated(LABELS, np.int64([1, 2, 1]))
    assert (collapsed.dtype, lengths.dtype, short_lengths.dtype) == (tf.int32, tf.int32,
                                                                    tf.int64)
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run([collapsed, lengths, short, short_lengths])
    # TF printed these
    np.testing.assert_array_equal(got[0], [[1, 2, 3], [4, 1, 0], [2, 3, 0]])
    np.testing.assert_array_equal(got[1], [3, 2, 2])
    np.testing.assert_array_equal(got[2], [[1], [4], [2]])
    np.testing.assert_array_equal(got[3], [1, 1, 1])


def test_collapse_repeated_fed(plan_memory):
    labels, lengths = tf.placeholder(tf.int32, [None, 6]), tf.placeholder(tf.int32, [None])
    collapsed, counts = tf.nn.collapse_repeated(labels, lengths)
    with tf.Session(plan_memory=plan_memory) as sess:
        got, got_counts = sess.run([collapsed, counts], {labels: LABELS[1:], lengths: [6, 6]})
    np.testing.assert_array_equal(got, [[4, 1, 0, 0], [2, 3, 2, 5]])
    np.testing.assert_array_equal(got_counts, [2, 4])


def test_ctc_unique_labels_as_tf(plan_memory):
    unique, index = tf.nn.ctc_unique_labels(tf.constant(ROWS))
    unique64, index64 = tf.nn.ctc_unique_labels(tf.constant([[3, 3, 1]], tf.int64))
    assert (unique.dtype, index.dtype, unique64.dtype, index64.dtype) == (
        tf.int64, tf.int32, tf.int64, tf.int32)
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run([unique, index, unique64, index64])
    # TF printed these
    np.testing.assert_array_equal(got[0], [[3, 1, 2, 0, 0, 0], [5, 0, 0, 0, 0, 0],
                                           [0, 7, 2, 9, 0, 0]])
    np.testing.assert_array_equal(got[1], [[0, 1, 0, 2, 1, 3], [0, 0, 0, 0, 0, 0],
                                           [0, 1, 0, 1, 2, 3]])
    np.testing.assert_array_equal(got[2], [[3, 1, 0]])
    np.testing.assert_array_equal(got[3], [[0, 0, 1]])


def test_ctc_unique_labels_against_numpy_unique():
    rows = np.random.default_rng(0).integers(0, 4, size=(5, 7)).astype(np.int32)
    labels = tf.placeholder(tf.int32, [None, 7])
    got_unique, got_index = tf.Session().run(tf.nn.ctc_unique_labels(labels), {labels: rows})
    for row, unique, index in zip(rows, got_unique, got_index):
        _, first = np.unique(row, return_index=True)
        order = row[np.sort(first)]  # tf.unique: in order of first appearance
        np.testing.assert_array_equal(unique, np.pad(order, (0, 7 - len(order))))
        np.testing.assert_array_equal(order[index], row)


def test_errors():
    with pytest.raises(ValueError, match="max_len"):
        tf.nn.ctc_unique_labels(tf.placeholder(tf.int32, [2, None]))
    with pytest.raises(ValueError, match="max_len"):
        tf.nn.collapse_repeated(tf.placeholder(tf.int32, [None]), [1])
