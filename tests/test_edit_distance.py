"""tf.edit_distance (TF 1.15's EditDistance on two SparseTensors): values, shapes and errors
recorded from real TensorFlow (tensorflow-cpu 2.21's tf.compat.v1, graph mode), and random
sequences against the textbook Levenshtein table."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.nnvm.errors import InvalidArgumentError

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _docs_example():
    # TF's docstring example, with integer ids for its strings: a = 1, b = 2, c = 3
    hypothesis = tf.SparseTensor([[0, 0, 0], [1, 0, 0]], [1, 2], (2, 1, 1))
    truth = tf.SparseTensor([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], [1, 2, 3, 1],
                            (2, 2, 2))
    return hypothesis, truth


def test_the_documented_example_as_tensorflow():
    hypothesis, truth = _docs_example()
    normalized = tf.edit_distance(hypothesis, truth)
    counted = tf.edit_distance(hypothesis, truth, normalize=False)
    assert (normalized.name, normalized.op.type) == ("edit_distance:0", "EditDistance")
    assert normalized.get_shape().as_list() == [2, 2]  # both dense shapes constants
    with tf.Session() as sess:
        got = sess.run([normalized, counted])
    assert got[0].dtype == np.float32
    assert got[0].tolist() == [[np.inf, 1.0], [0.5, 1.0]]  # TF's values
    assert got[1].tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_sequences_missing_on_either_side_and_float_values():
    hypothesis = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [3, 0]],
                                 [1, 2, 3, 4, 5, 6], [4, 3])
    truth = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 0]],
                            [1, 3, 4, 5, 7, 9], [3, 3])
    floats = tf.edit_distance(tf.SparseTensor([[0, 0], [0, 1]], [1.5, 2.5], [1, 2]),
                              tf.SparseTensor([[0, 0]], [2.5], [1, 2]))
    outs = [tf.edit_distance(hypothesis, truth), tf.edit_distance(hypothesis, truth, False),
            floats]
    assert outs[0].get_shape().as_list() == [4]  # the larger leading dims, as TF's
    with tf.Session() as sess:
        got = sess.run(outs)
    np.testing.assert_array_equal(got[0], np.float32([0.5, 1 / 3, 1.0, np.inf]))  # TF's
    assert got[1].tolist() == [1.0, 1.0, 1.0, 1.0] and got[2].tolist() == [1.0]


def test_fed_sparse_tensors_have_no_static_shape():
    fed = tf.sparse_placeholder(tf.int64, name="p")
    truth = tf.SparseTensor([[0, 0]], np.array([3], np.int64), [1, 1])
    distance = tf.edit_distance(fed, truth)
    assert str(distance.get_shape()) == "<unknown>"  # TF's: a dense shape not constant
    with tf.Session() as sess:
        value = tf.SparseTensorValue([[0, 0], [0, 1], [1, 0]], np.array([3, 4, 5], np.int64),
                                     [2, 2])
        assert sess.run(distance, {fed: value}).tolist() == [1.0, np.inf]  # TF's
        assert sess.run(distance, {fed: ([[0, 0]], np.array([3], np.int64), [1, 1])}
                        ).tolist() == [0.0]


def _levenshtein(a, b):
    table = np.zeros((len(a) + 1, len(b) + 1), int)
    table[:, 0], table[0, :] = range(len(a) + 1), range(len(b) + 1)
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i, j] = min(table[i - 1, j] + 1, table[i, j - 1] + 1,
                              table[i - 1, j - 1] + (a[i - 1] != b[j - 1]))
    return table[-1, -1]


def _sparse_rows(rows, width):
    indices = [[r, k] for r, row in enumerate(rows) for k in range(len(row))]
    values = [v for row in rows for v in row]
    return (np.array(indices, np.int64).reshape(-1, 2), np.array(values, np.int64),
            np.array([len(rows), width], np.int64))


def test_random_sequences_against_the_levenshtein_table():
    rng = np.random.default_rng(5)
    hyp_rows = [list(rng.integers(0, 3, rng.integers(0, 9))) for _ in range(30)]
    truth_rows = [list(rng.integers(0, 3, rng.integers(1, 9))) for _ in range(30)]
    hyp, truth = (tf.sparse_placeholder(tf.int64, name=n) for n in ("hyp", "truth"))
    counted, normalized = (tf.edit_distance(hyp, truth, normalize=n) for n in (False, True))
    with tf.Session() as sess:
        feed = {hyp: _sparse_rows(hyp_rows, 9), truth: _sparse_rows(truth_rows, 9)}
        got, ratio = sess.run([counted, normalized], feed)
    want = [_levenshtein(t, h) for h, t in zip(hyp_rows, truth_rows)]
    assert got.tolist() == want
    np.testing.assert_allclose(ratio, np.float32(want) / [len(t) for t in truth_rows])


def test_bad_sparse_tensors_are_errors_naming_the_op():
    hypothesis, truth = _docs_example()
    with pytest.raises(ValueError, match="Num elements of hypothesis_shape does not match "
                                         "truth_shape: 3 vs. 2"):  # TF raises as it is made
        tf.edit_distance(hypothesis, tf.SparseTensor([[0, 0]], [1], [1, 1]))
    with pytest.raises(TypeError, match="truth values \\(int32\\) must have the dtype of the "
                                        "hypothesis values \\(float32\\)"):
        tf.edit_distance(tf.SparseTensor([[0, 0]], [1.5], [1, 1]), truth)
    fed = tf.sparse_placeholder(tf.int64, name="fed")
    distance = tf.edit_distance(fed, tf.SparseTensor([[0, 0]], np.array([3], np.int64),
                                                     [1, 1]))
    outside = tf.edit_distance(tf.SparseTensor([[5, 0]], [1], [1, 1]),
                               tf.SparseTensor([[0, 0]], [1], [1, 1]))
    with tf.Session() as sess:
        # an index outside its dense shape: an error naming the node, never a write outside
        with pytest.raises(InvalidArgumentError, match="edit_distance_3.*indices\\[0\\] = "
                                                       "\\[5,0\\] is out of bounds"):
            sess.run(outside)
        with pytest.raises(ValueError, match="sparse placeholder 'fed'.* out of bounds"):
            sess.run(distance, {fed: ([[5, 0]], np.array([1], np.int64), [1, 1])})
        with pytest.raises(tf.errors.ResourceExhaustedError):
            sess.run(distance, {fed: ([[0, 0]], np.array([1], np.int64), [2 ** 40, 1])})
        assert sess.run(distance, {fed: ([[0, 0]], np.array([3], np.int64), [1, 1])}) == [0.0]
