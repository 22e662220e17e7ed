"""tf.data for TF-1 programs (issue 24 item 3), against numpy and TensorFlow 1.15's documented
semantics; where an edge case's answer came from real TensorFlow (tensorflow-cpu 2.21's
tf.compat.v1 in graph mode, /work/tfvenv), the comment says so."""

import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _drain(sess, fetch, feed_dict=None):
    """Every value ``fetch`` gives until OutOfRangeError (the TF-1 loop)."""
    values = []
    while True:
        try:
            values.append(sess.run(fetch, feed_dict))
        except tf.errors.OutOfRangeError:
            return values


# -- the core: slices, batch, repeat, map, one-shot and initializable iterators ---------------
def test_slices_batch_values_and_static_shapes():
    features = np.arange(10, dtype=np.float32).reshape(5, 2)
    labels = np.arange(5)
    ds = tf.data.Dataset.from_tensor_slices((features, labels))
    assert ds.output_types == (tf.float32, tf.int64)
    assert [s.as_list() for s in ds.output_shapes] == [[2], []]
    batched = ds.batch(2)
    # real TF: (None, 2), (None,); drop_remainder=True: (2, 2), (2,)
    assert [s.as_list() for s in tf.compat.v1.data.get_output_shapes(batched)] == [
        [None, 2], [None]]
    assert [s.as_list() for s in ds.batch(2, drop_remainder=True).output_shapes] == [
        [2, 2], [2]]
    x, y = tf.compat.v1.data.make_one_shot_iterator(batched).get_next()
    assert x.get_shape().as_list() == [None, 2]
    doubled = x * 2.0
    with tf.Session() as sess:
        got = _drain(sess, [doubled, y])
        with pytest.raises(tf.errors.OutOfRangeError):  # stays at its end (real TF: the same)
            sess.run(y)
    assert [len(b) for _, b in got] == [2, 2, 1]  # the last batch is partial, as TF's
    np.testing.assert_array_equal(np.concatenate([a for a, _ in got]), features * 2)
    np.testing.assert_array_equal(np.concatenate([b for _, b in got]), labels)


def test_get_next_advances_once_per_run():
    # real TF: sess.run([a, a]) -> [0, 0]; [a, b] of two get_next ops -> [1, 2]; [a + 1, a]
    # -> [4, 3]
    iterator = tf.data.Dataset.range(10).make_one_shot_iterator()
    a, b = iterator.get_next(), iterator.get_next()
    with tf.Session() as sess:
        assert sess.run([a, a]) == [0, 0]
        assert sess.run([a, b]) == [1, 2]
        assert sess.run([a + 1, a]) == [4, 3]


def test_out_of_range_leaves_variables_and_session_usable():
    v = tf.Variable(0.0)
    x = tf.data.Dataset.from_tensor_slices(np.array([1.0, 2.0, 3.0], np.float32)) \
        .make_initializable_iterator()
    step = tf.assign_add(v, x.get_next())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(x.initializer)
        assert len(_drain(sess, step)) == 3
        assert sess.run(v) == 6.0  # the failed run assigned nothing
        sess.run(x.initializer)  # re-running the initializer restarts
        assert len(_drain(sess, step)) == 3
        assert sess.run(v) == 12.0


def test_initializable_iterator_fed_from_placeholders():
    features = tf.placeholder(tf.float32, [None, 3])
    labels = tf.placeholder(tf.int64, [None])
    ds = tf.data.Dataset.from_tensor_slices({"x": features, "y": labels}).batch(3)
    iterator = ds.make_initializable_iterator()
    element = iterator.get_next()
    assert sorted(element) == ["x", "y"]
    total = tf.reduce_sum(element["x"], axis=1)
    with tf.Session() as sess:
        for rows in (4, 7):
            data = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
            sess.run(iterator.initializer, {features: data, labels: np.arange(rows)})
            got = _drain(sess, [total, element["y"]])
            np.testing.assert_allclose(np.concatenate([t for t, _ in got]), data.sum(1))
            np.testing.assert_array_equal(np.concatenate([y for _, y in got]),
                                          np.arange(rows))
        with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
            sess2 = tf.Session()
            sess2.run(total)  # each session has the iterator's position of its own


def test_one_shot_iterator_refuses_a_placeholder():
    # real TF: ValueError "Cannot capture a placeholder (name:Placeholder, type:Placeholder)
    # by value."
    p = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="Cannot capture a placeholder"):
        tf.data.Dataset.from_tensor_slices(p).make_one_shot_iterator()
    with pytest.raises(ValueError, match="does not have an initializer"):
        _ = tf.data.Dataset.range(2).make_one_shot_iterator().initializer


def test_map_runs_traced_tf_ops_on_nested_elements():
    calls = []

    def fn(features, label):
        calls.append(1)  # traced once, not per element
        return {"sq": tf.square(features["a"]) + features["b"], "label": tf.cast(label, tf.int32)}

    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    b = np.float32([1, 2, 3])
    ds = tf.data.Dataset.from_tensor_slices(({"a": a, "b": b}, np.arange(3)))
    mapped = ds.map(fn, num_parallel_calls=4)
    assert mapped.output_types == {"label": tf.int32, "sq": tf.float32}
    assert mapped.output_shapes["sq"].as_list() == [2]
    element = mapped.batch(3).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = sess.run(element)
    np.testing.assert_allclose(got["sq"], a ** 2 + b[:, None])
    np.testing.assert_array_equal(got["label"], [0, 1, 2])
    assert got["label"].dtype == np.int32 and len(calls) == 1


def test_map_converts_numbers_and_refuses_other_values():
    # real TF: lambda x: 1 -> int32 (); lambda x: (x, 2.5) -> (int64, float32); object() ->
    # TypeError "Unsupported return value from function passed to Dataset.map(): ..."
    ds = tf.data.Dataset.range(3)
    assert ds.map(lambda x: 1).output_types == tf.int32
    assert ds.map(lambda x: (x, 2.5)).output_types == (tf.int64, tf.float32)
    assert ds.map(lambda x: [x, x]).output_types == (tf.int64, tf.int64)
    with pytest.raises(TypeError, match="Unsupported return value .*Dataset.map"):
        ds.map(lambda x: object())


def test_repeat_and_shuffle_values():
    ds = tf.data.Dataset.range(10).shuffle(4, seed=3).repeat(3)
    values = np.array(_drain(tf.Session(), ds.make_one_shot_iterator().get_next()))
    epochs = values.reshape(3, 10)
    for epoch in epochs:  # each epoch a permutation, in an order of its own
        assert sorted(epoch) == list(range(10))
    assert len({tuple(e) for e in epochs}) == 3
    # a buffer of 4: the first output is one of the first 4 elements
    assert epochs[0][0] < 4


def test_training_loop_over_a_dataset():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((64, 3)).astype(np.float32)
    ys = (xs @ np.float32([1.0, -2.0, 0.5]) + 0.3).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((xs, ys)).shuffle(64, seed=1).batch(16).repeat(20)
    x, y = ds.make_one_shot_iterator().get_next()
    w = tf.Variable(tf.zeros([3, 1]))
    b = tf.Variable(0.0)
    loss = tf.reduce_mean(tf.square(tf.reshape(tf.matmul(x, w), [-1]) + b - y))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [l for _, l in _drain(sess, [train, loss])]
        assert len(losses) == 4 * 20
        assert losses[-1] < losses[0] / 100
        np.testing.assert_allclose(sess.run(w).ravel(), [1.0, -2.0, 0.5], atol=1e-2)
