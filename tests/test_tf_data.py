"""tf.data for TF-1 programs (issue 24 item 3), against numpy and TensorFlow 1.15's documented
semantics; where an edge case's answer came from real TensorFlow (tensorflow-cpu 2.21's
tf.compat.v1 in graph mode, /work/tfvenv), the comment says so."""
import collections

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


# -- iterators over several datasets ---------------------------------------------------------
def test_from_structure_switches_between_train_and_test_datasets():
    train = tf.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.float32)).batch(4)
    test = tf.data.Dataset.from_tensor_slices(np.arange(100, 103, dtype=np.float32)).batch(2)
    iterator = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    assert iterator.output_types == tf.float32
    assert iterator.output_shapes.as_list() == [None]
    batch = iterator.get_next()
    total = tf.reduce_sum(batch)
    train_init, test_init = iterator.make_initializer(train), iterator.make_initializer(test)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(total)
        sess.run(train_init)
        assert sess.run(total) == 0 + 1 + 2 + 3
        sess.run(test_init)  # switching starts the test dataset from its first element
        assert [float(t) for t in _drain(sess, total)] == [201.0, 102.0]
        sess.run(train_init)
        assert [float(t) for t in _drain(sess, total)] == [6.0, 22.0, 17.0]
    with pytest.raises(TypeError, match="Expected output types"):
        iterator.make_initializer(tf.data.Dataset.range(3))  # int64, not float32
    with pytest.raises(ValueError, match="does not have an initializer"):
        _ = iterator.initializer


def test_nested_elements_namedtuples_and_dicts():
    Pair = collections.namedtuple("Pair", "left right")
    ds = tf.data.Dataset.from_tensors(
        ({"b": np.float32([1, 2]), "a": np.int32(3)}, Pair(np.float64(0.5), np.int64([4]))))
    types = ds.output_types
    assert types[0] == {"a": tf.int32, "b": tf.float32}
    assert isinstance(types[1], Pair) and types[1].right == tf.int64
    mapped = ds.map(lambda d, pair: (d["a"] + 1, Pair(pair.left * 2.0, pair.right)))
    got = sess_run_once(mapped)
    assert got[0] == 4 and isinstance(got[1], Pair)
    assert got[1].left == 1.0 and got[1].right.tolist() == [4]


def sess_run_once(ds):
    with tf.Session() as sess:
        return sess.run(ds.make_one_shot_iterator().get_next())


# -- every source and transformation against numpy / TF's answers -----------------------------
def test_range_take_skip_filter_zip_concatenate_cache():
    # real TF: take(-1) all, skip(-1) / skip(7) / take(0) / repeat(0) nothing; range(2, 10, 3)
    # [2, 5, 8]; zip stops at the shortest
    def values(ds):
        return [np.asarray(v).tolist() for v in _drain(tf.Session(),
                                                       ds.make_one_shot_iterator().get_next())]
    r = tf.data.Dataset.range
    assert values(r(5).take(-1)) == [0, 1, 2, 3, 4]
    assert values(r(5).skip(-1)) == values(r(5).skip(7)) == values(r(5).take(0)) == []
    assert values(r(3).repeat(0)) == []
    assert values(r(2, 10, 3)) == [2, 5, 8] and values(r(5).skip(2).take(2)) == [2, 3]
    assert values(r(6).filter(lambda x: tf.equal(x % 2, 0))) == [0, 2, 4]
    assert values(tf.data.Dataset.zip((r(3), r(10, 15)))) == [[0, 10], [1, 11], [2, 12]]
    zipped = tf.data.Dataset.zip({"a": r(2), "b": r(5).batch(2)})
    assert zipped.output_shapes["b"].as_list() == [None]
    assert values(r(2).concatenate(r(7, 9))) == [0, 1, 7, 8]
    # real TF: concatenating (?,) and (3,) batches gives (?,)
    both = r(3).batch(2).concatenate(r(3).batch(3, drop_remainder=True))
    assert both.output_shapes.as_list() == [None]
    assert values(r(4).prefetch(2)) == [0, 1, 2, 3]
    calls = []

    def counted():
        calls.append(1)
        yield from range(3)
    cached = tf.data.Dataset.from_generator(counted, tf.int64, []).cache().repeat(3)
    assert values(cached) == [0, 1, 2] * 3 and len(calls) == 1  # read once, replayed
    with pytest.raises(ValueError, match="scalar boolean"):
        r(3).filter(lambda x: x)  # real TF: ValueError, predicate must give a tf.bool scalar


def test_padded_batch_against_numpy():
    # real TF: padded_batch(2, padded_shapes=[None]) of [1], [2, 2], [3, 3, 3], [4, 4, 4, 4]
    # gives [[1, 0], [2, 2]] then [[3, 3, 3, 0], [4, 4, 4, 4]], static shape (?, ?); given
    # ([5], []) with padding -1 and drop_remainder: (2, 5), (2,)
    def ragged():
        for n in range(1, 5):
            yield np.full(n, n, np.int64), n
    ds = tf.data.Dataset.from_generator(ragged, (tf.int64, tf.int64), ([None], []))
    padded = ds.map(lambda v, n: v).padded_batch(2, padded_shapes=[None])
    assert padded.output_shapes.as_list() == [None, None]
    first, second = _drain(tf.Session(), padded.make_one_shot_iterator().get_next())
    np.testing.assert_array_equal(first, [[1, 0], [2, 2]])
    np.testing.assert_array_equal(second, [[3, 3, 3, 0], [4, 4, 4, 4]])
    fixed = ds.padded_batch(2, padded_shapes=([5], []), padding_values=(
        tf.constant(-1, tf.int64), tf.constant(0, tf.int64)), drop_remainder=True)
    assert [s.as_list() for s in fixed.output_shapes] == [[2, 5], [2]]
    got = _drain(tf.Session(), fixed.make_one_shot_iterator().get_next())
    assert len(got) == 2
    np.testing.assert_array_equal(got[0][0], [[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]])
    np.testing.assert_array_equal(got[1][1], [3, 4])


def test_from_generator_values_and_errors_name_dataset_and_element():
    def gen():
        yield np.zeros(2, np.float32)
        yield [1, 2]  # converted to float32, as TF's
        yield np.zeros(3, np.float32)
    ds = tf.data.Dataset.from_generator(gen, tf.float32, tf.TensorShape([2]))
    element = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert sess.run(element).tolist() == [0.0, 0.0]
        assert sess.run(element).tolist() == [1.0, 2.0]
        # real TF: InvalidArgumentError "TypeError: `generator` yielded an element of shape
        # (3,) where an element of shape (2,) was expected."
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"GeneratorDataset \(created at .*test_tf_data.py.*element 2 "
                                 r"of shape \(3,\) where an element of shape \(2,\)"):
            sess.run(element)

    def words():
        yield "a", 1
    element = tf.data.Dataset.from_generator(words, (tf.float32, tf.int64)) \
        .make_one_shot_iterator().get_next()
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="GeneratorDataset.*expected type was float32, but element 0"):
        tf.Session().run(element)


def test_batch_of_different_shapes_names_the_component():
    def gen():
        yield np.zeros(2, np.float32)
        yield np.zeros(3, np.float32)
    ds = tf.data.Dataset.from_generator(gen, tf.float32, [None]).batch(2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="BatchDataset .*Cannot batch tensors with different shapes in "
                             r"component 0. First element had shape \[2\] and element 1"):
        sess_run_once(ds)


def test_unsupported_methods_are_attribute_errors():
    ds = tf.data.Dataset.range(3)
    for name in ("map_with_legacy_function",):
        with pytest.raises(AttributeError, match=f"tf.data.Dataset.{name} is not supported"):
            getattr(ds, name)
    with pytest.raises(AttributeError, match="tf.data.experimental.RandomDataset is not "
                                             "supported"):
        _ = tf.data.experimental.RandomDataset
    assert tf.compat.v1.data.make_one_shot_iterator is tf.data.make_one_shot_iterator


# -- shuffle: seeds and statistics -------------------------------------------------------------
def _shuffled_once(graph_seed, op_seed=None, reshuffle=True):
    tf.reset_default_graph()
    if graph_seed is not None:
        tf.set_random_seed(graph_seed)
    ds = tf.data.Dataset.range(20).shuffle(8, seed=op_seed, reshuffle_each_iteration=reshuffle)
    iterator = ds.repeat(2).make_initializable_iterator()
    element = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        first = [int(v) for v in _drain(sess, element)]
        sess.run(iterator.initializer)
        second = [int(v) for v in _drain(sess, element)]
    return first, second


def test_graph_seeded_shuffle_is_reproducible():
    # real TF (graph seed 3, shuffle(4).repeat(2) of range(10)): each initialisation gives the
    # same 20 values, the two epochs in different orders
    first, again = _shuffled_once(3)
    assert first == again and first == _shuffled_once(3)[0]  # the next program's run too
    assert first[:20] != first[20:] and sorted(first[:20]) == list(range(20))
    assert _shuffled_once(4)[0] != first  # another graph seed, another order
    assert _shuffled_once(None, op_seed=5)[0] == _shuffled_once(None, op_seed=5)[0]
    fixed, _ = _shuffled_once(3, reshuffle=False)
    assert fixed[:20] == fixed[20:]
    unseeded = [_shuffled_once(None)[0] for _ in range(2)]
    assert unseeded[0] != unseeded[1]


def test_shuffle_buffer_statistics():
    # a buffer of 3 over range(6): the first element is uniform over {0, 1, 2}; the second is
    # 3 with probability 1/3, each of 0, 1, 2 with 2/9 (TF's ShuffleDataset's buffer sampling)
    epochs = 3000
    ds = tf.data.Dataset.range(6).shuffle(3, seed=11).repeat(epochs).batch(6 * 500)
    values = np.concatenate(_drain(tf.Session(), ds.make_one_shot_iterator().get_next()))
    order = values.reshape(epochs, 6)
    assert all(sorted(row) == list(range(6)) for row in order[:50])
    first = np.bincount(order[:, 0], minlength=6) / epochs
    second = np.bincount(order[:, 1], minlength=6) / epochs
    np.testing.assert_allclose(first, [1 / 3] * 3 + [0] * 3, atol=0.04)
    np.testing.assert_allclose(second, [2 / 9] * 3 + [1 / 3, 0, 0], atol=0.04)


# -- captured tensors, feeds, and the initializer inside a group -----------------------------
def test_captured_tensors_batch_size_and_map_over_partial_batches():
    rows = tf.placeholder(tf.float32, [None, 2])
    batch_size = tf.placeholder(tf.int64, [])
    scale = tf.constant(3.0) * 2.0  # graph ops on constants: a one-shot iterator computes them
    ds = tf.data.Dataset.from_tensor_slices(rows).batch(batch_size) \
        .map(lambda x: tf.reduce_sum(x, axis=1), num_parallel_calls=tf.data.experimental.AUTOTUNE)
    assert ds.output_shapes.as_list() == [None]
    iterator = ds.make_initializable_iterator()
    sums = iterator.get_next()
    data = np.arange(20, dtype=np.float32).reshape(10, 2)
    with tf.Session() as sess:
        sess.run(iterator.initializer, {rows: data, batch_size: 4})
        got = _drain(sess, sums)
        assert [len(g) for g in got] == [4, 4, 2]  # the partial batch mapped too
        np.testing.assert_allclose(np.concatenate(got), data.sum(1))
        one_shot = tf.data.Dataset.from_tensors(scale).make_one_shot_iterator().get_next()
        assert sess.run(one_shot) == 6.0
    w = tf.Variable(2.0)
    with pytest.raises(ValueError, match="reads variable 'Variable' .* of the program's graph"):
        tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32) * w)


def test_initializer_in_a_group_and_a_fed_get_next():
    values = tf.placeholder(tf.float32, [None])
    iterator = tf.data.Dataset.from_tensor_slices(values).make_initializable_iterator()
    element = iterator.get_next()
    counter = tf.Variable(0.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # the initializer run by the engine, as a control dependency of a group
        assert sess.run(tf.group(iterator.initializer, tf.assign_add(counter, 1.0)),
                        {values: [5.0, 6.0, 7.0]}) is None
        assert sess.run(counter) == 1.0 and sess.run(element) == 5.0
        assert sess.run(element, {element: 100.0}) == 100.0  # fed: the iterator stays
        assert sess.run(element) == 6.0


def test_a_fed_tensor_cuts_the_iterator_off():
    iterator = tf.data.Dataset.range(5).make_one_shot_iterator()
    element = iterator.get_next()
    doubled = element * 2
    tripled = doubled + element
    with tf.Session() as sess:
        assert sess.run(tripled) == 0
        # only the fed tensor needed the element: the iterator does not advance (TF's rule)
        assert sess.run(doubled * 10, {doubled: 7}) == 70
        assert sess.run([doubled, element]) == [2, 1]


def test_batches_of_slices_drop_the_remainder_and_keep_the_data_as_made():
    data = np.arange(7, dtype=np.float32)
    ds = tf.data.Dataset.from_tensor_slices(data)
    kept = ds.batch(3, drop_remainder=True)
    whole = ds.shuffle(1).batch(3, drop_remainder=True)  # batched element by element
    data[:] = -1  # as TF, the dataset holds the values it was made with
    for batched in (kept, whole):
        got = _drain(tf.Session(), batched.make_one_shot_iterator().get_next())
        np.testing.assert_array_equal(got, [[0, 1, 2], [3, 4, 5]])


@pytest.mark.parametrize("size", [0, -1])
def test_a_batch_or_buffer_size_below_one_fails_when_the_iterator_runs(size):
    # real TF (tf.compat.v1, graph mode) builds both and raises InvalidArgumentError at run:
    # "Batch size must be greater than zero." / "buffer_size must be greater than zero"
    for made, words in ((lambda d: d.batch(size), "Batch size must be greater than zero"),
                        (lambda d: d.padded_batch(size, []), "Batch size must be greater"),
                        (lambda d: d.shuffle(size), "buffer_size must be greater than zero")):
        dataset = made(tf.data.Dataset.range(5))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=words):
            sess.run(tf.compat.v1.data.make_one_shot_iterator(dataset).get_next())
        size_tensor = tf.compat.v1.placeholder(tf.int64, [])
        dataset = tf.data.Dataset.range(5).shuffle(size_tensor)
        iterator = tf.compat.v1.data.make_initializable_iterator(dataset)
        with tf.Session() as sess:
            sess.run(iterator.initializer, {size_tensor: size})
            with pytest.raises(tf.errors.InvalidArgumentError, match="buffer_size must be"):
                sess.run(iterator.get_next())


# -- enumerate, shard, unbatch, take_while, unique and tf.data.experimental's functions -------
def _values(dataset) -> list:
    with tf.Session() as sess:
        return _drain(sess, tf.compat.v1.data.make_one_shot_iterator(dataset).get_next())


def test_enumerate_shard_unbatch_take_while_unique_as_real_tf():
    # each list printed by real TF (tf.compat.v1, graph mode) for the same dataset
    pairs = _values(tf.data.Dataset.range(5).enumerate(10))
    assert [(int(i), int(v)) for i, v in pairs] == [(10, 0), (11, 1), (12, 2), (13, 3), (14, 4)]
    assert _values(tf.data.Dataset.range(10).shard(3, 1)) == [1, 4, 7]
    rows = _values(tf.data.Dataset.from_tensor_slices(np.arange(12).reshape(6, 2))
                   .batch(4).unbatch())
    np.testing.assert_array_equal(rows, np.arange(12).reshape(6, 2))
    assert _values(tf.data.Dataset.range(10).apply(
        tf.data.experimental.take_while(lambda x: x < 4))) == [0, 1, 2, 3]
    assert _values(tf.data.Dataset.from_tensor_slices(np.int64([3, 1, 3, 2, 1])).apply(
        tf.data.experimental.unique())) == [3, 1, 2]
    assert _values(tf.data.experimental.Counter(5, 2).take(4)) == [5, 7, 9, 11]
    nested = tf.data.Dataset.from_tensor_slices({"x": np.float32([[1, 2], [3, 4]])}).enumerate()
    index_shape, element_shapes = nested.output_shapes
    assert index_shape.as_list() == [] and element_shapes["x"].as_list() == [2]


def test_dataset_transformations_refuse_as_tf():
    with pytest.raises(ValueError, match="Cannot unbatch an input with scalar components"):
        tf.data.Dataset.range(3).unbatch()
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Index must be between 0 and 2 \(currently index = 3\)"):
        _values(tf.data.Dataset.range(10).shard(3, 3))
    with pytest.raises(TypeError, match="only supports datasets with a single tf.int32"):
        tf.data.Dataset.from_tensor_slices(np.float32([1, 2])).unique()
    uneven = tf.data.Dataset.zip((tf.data.Dataset.range(4).batch(2),
                                  tf.data.Dataset.range(6).batch(3)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="the same batch size"):
        _values(uneven.unbatch())


def test_shuffle_and_repeat_and_map_and_batch():
    epochs = _values(tf.data.Dataset.range(4).apply(
        tf.data.experimental.shuffle_and_repeat(4, count=3, seed=1)))
    assert len(epochs) == 12
    assert all(sorted(epochs[i:i + 4]) == [0, 1, 2, 3] for i in (0, 4, 8))  # each epoch whole
    batches = _values(tf.data.Dataset.range(5).apply(
        tf.data.experimental.map_and_batch(lambda x: x * 2, 2)))
    assert [b.tolist() for b in batches] == [[0, 2], [4, 6], [8]]
    assert "Counter" in dir(tf.data.experimental)
    with pytest.raises(AttributeError, match="tf.data.experimental.ignore_errors"):
        tf.data.experimental.ignore_errors  # noqa: B018


def test_flat_map_and_interleave_in_tensorflows_order():
    def pairs(i):  # a list holding tensors: TF packs it into one tensor
        return tf.data.Dataset.from_tensor_slices([i, -i])
    flat = tf.data.Dataset.range(4).flat_map(pairs)
    twice = tf.data.Dataset.range(5).interleave(
        lambda i: tf.data.Dataset.from_tensors(i).repeat(2), cycle_length=2, block_length=1)
    blocks = tf.data.Dataset.range(1, 4).interleave(
        lambda i: tf.data.Dataset.range(10 * i, 10 * i + i), cycle_length=2, block_length=2)
    assert flat.output_types == tf.int64 and flat.output_shapes.as_list() == []
    with tf.Session() as sess:
        got = [_drain(sess, tf.data.make_one_shot_iterator(d).get_next())
               for d in (flat, twice, blocks)]
    # real TF 1.15's order (2.21's compat.v1 printed the same)
    assert got[0] == [0, 0, 1, -1, 2, -2, 3, -3]
    assert got[1] == [0, 1, 0, 1, 2, 3, 2, 3, 4, 4]
    assert got[2] == [10, 20, 21, 30, 31, 32]
    with pytest.raises(TypeError, match="must return a `Dataset`"):
        tf.data.Dataset.range(3).flat_map(lambda i: i * 2)
    # a list of Python floats is float32, as TF converts it
    assert tf.data.Dataset.from_tensors([1.0, 2.0]).output_types == tf.float32
    stop = tf.placeholder(tf.int64, [])
    fed = tf.data.make_initializable_iterator(tf.data.Dataset.range(1, stop, 2))
    with tf.Session() as sess:
        sess.run(fed.initializer, {stop: 8})
        assert _drain(sess, fed.get_next()) == [1, 3, 5, 7]
        zero = tf.data.make_initializable_iterator(tf.data.Dataset.range(0, 4, stop))
        with pytest.raises(tf.errors.InvalidArgumentError, match="must not be zero"):
            sess.run(zero.initializer, {stop: 0})
            sess.run(zero.get_next())


def test_functions_nested_in_flat_map_read_the_enclosing_functions_tensors():
    # a map / filter inside flat_map's or interleave's function reading that function's
    # argument (TF captures it); every list printed by real TF (2.21, tf.compat.v1 graph mode)
    divisible = tf.data.Dataset.range(1, 4).flat_map(
        lambda n: tf.data.Dataset.range(7).filter(lambda k: tf.equal(k % n, 0))
        .map(lambda k: (k, k * n + 1)))
    assert [tuple(int(v) for v in p) for p in _values(divisible)] == [
        (0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7),
        (0, 1), (2, 5), (4, 9), (6, 13), (0, 1), (3, 10), (6, 19)]
    twice_nested = tf.data.Dataset.range(1, 3).flat_map(
        lambda n: tf.data.Dataset.range(2).flat_map(
            lambda m: tf.data.Dataset.range(3).map(lambda k: k + 100 * m + 1000 * n)))
    assert _values(twice_nested) == [1000, 1001, 1002, 1100, 1101, 1102,
                                     2000, 2001, 2002, 2100, 2101, 2102]
    scaled = tf.data.Dataset.from_tensor_slices(np.float32([1.5, 2.5])).interleave(
        lambda x: tf.data.Dataset.range(3).map(
            lambda k: tf.cast(k, tf.float32) * x + tf.constant(0.25)), cycle_length=2)
    np.testing.assert_allclose(_values(scaled), [0.25, 0.25, 1.75, 2.75, 3.25, 5.25])
    itself = tf.data.Dataset.range(3).flat_map(
        lambda n: tf.data.Dataset.range(2).map(lambda k: (n, k)))
    assert [tuple(int(v) for v in p) for p in _values(itself)] == [
        (0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    # the program's placeholders stay out of a traced function's reach
    x = tf.placeholder(tf.int64, [])
    with pytest.raises(ValueError, match="reads placeholder"):
        tf.data.Dataset.range(3).flat_map(lambda n: tf.data.Dataset.range(2).map(
            lambda k: k + x))


def test_feedable_iterator_pulls_from_the_iterator_its_fed_handle_names():
    # the TF guide's feedable iterator; every value and error class printed by real TF (2.21's
    # tf.compat.v1, graph mode) for this program
    train = tf.data.Dataset.range(5).map(lambda v: (v, v * v)).batch(2).repeat()
    val = tf.data.Dataset.range(10, 13).map(lambda v: (v, -v)).batch(2)
    handle = tf.placeholder(tf.string, [])
    it = tf.data.Iterator.from_string_handle(handle, train.output_types, train.output_shapes)
    a, b = it.get_next()
    total = a + b
    assert a.shape.as_list() == [None] and b.shape.as_list() == [None]
    ti = tf.data.make_one_shot_iterator(train)
    vi = tf.data.make_initializable_iterator(val)
    other = tf.data.make_one_shot_iterator(tf.data.Dataset.range(3))
    with tf.Session() as sess:
        th, vh, oh = sess.run([ti.string_handle(), vi.string_handle(), other.string_handle()])
        assert isinstance(th, bytes) and th == sess.run(ti.string_handle()) and th != vh
        got = [sess.run(total, {handle: th}).tolist(), sess.run(total, {handle: th}).tolist()]
        sess.run(vi.initializer)
        got += [sess.run(total, {handle: h}).tolist() for h in (vh, th, vh)]
        assert got == [[0, 2], [6, 12], [0, 0], [20], [0]]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(total, {handle: vh})
        with pytest.raises(tf.errors.InvalidArgumentError, match="names no iterator"):
            sess.run(total, {handle: b"nonsense"})
        with pytest.raises(tf.errors.InvalidArgumentError, match="but the iterator its handle"):
            sess.run(total, {handle: oh})  # int64 scalars where (?,) pairs are wanted
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be fed"):
            sess.run(total)
        assert sess.run(total, {handle: th.decode()}).tolist() == [0, 2]  # str: encoded
    # a handle names an iterator of the session that made it
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="names no iterator"):
        sess.run(total, {handle: th})


def test_dict_elements_keep_their_key_order():
    # TF 1.15's nest packs a dict in its own key order (values filled by sorted key): real
    # TF 2.21's compat.v1 printed ['b', 'a'] and ['tokens', 'label', 'len'] here
    ds = tf.data.Dataset.from_tensor_slices({"b": np.int32([1, 2]), "a": np.int32([3, 4])})
    assert list(ds.output_types) == ["b", "a"]
    element = tf.data.make_one_shot_iterator(ds).get_next()
    assert list(element) == ["b", "a"]
    mapped = ds.map(lambda d: {"tokens": d["a"], "label": d["b"], "len": d["a"] * 0 + 1})
    assert list(mapped.output_shapes) == ["tokens", "label", "len"]
    with tf.Session() as sess:
        got = sess.run(tf.data.make_one_shot_iterator(mapped).get_next())
    assert list(got) == ["tokens", "label", "len"] and got["tokens"] == 3 and got["label"] == 1


def test_group_by_window_and_bucket_by_sequence_length_as_real_tf():
    # each list printed by real TF (2.21's tf.compat.v1, graph mode) for the same pipeline;
    # at the end of the input the open windows are reduced by increasing key
    exp = tf.data.experimental
    pairs = tf.data.Dataset.range(10).apply(exp.group_by_window(
        key_func=lambda x: x % 3, reduce_func=lambda key, w: w.batch(2), window_size=2))
    assert [b.tolist() for b in _values(pairs)] == [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]]
    sized = tf.data.Dataset.range(12).apply(exp.group_by_window(
        key_func=lambda x: x % 2,
        reduce_func=lambda key, w: w.map(lambda v: v * 10 + key).batch(10),
        window_size_func=lambda key: key + 2))
    assert [b.tolist() for b in _values(sized)] == [
        [0, 20], [11, 31, 51], [40, 60], [80, 100], [71, 91, 111]]

    def gen():
        for n in [1, 5, 2, 7, 3, 3, 8, 1, 4, 6, 2]:
            yield np.arange(n, dtype=np.int32) + 1, np.int32(n)
    seqs = tf.data.Dataset.from_generator(gen, (tf.int32, tf.int32), ([None], []))
    padded = seqs.apply(exp.bucket_by_sequence_length(
        lambda s, n: tf.shape(s)[0], [3, 6], [2, 2, 3], padding_values=(-1, 0)))
    assert [s.as_list() for s in padded.output_shapes] == [[None, None], [None]]
    assert [(s.tolist(), n.tolist()) for s, n in _values(padded)] == [
        ([[1, -1], [1, 2]], [1, 2]),
        ([[1, 2, 3, 4, 5], [1, 2, 3, -1, -1]], [5, 3]),
        ([[1, 2, 3, -1], [1, 2, 3, 4]], [3, 4]),
        ([[1, 2, 3, 4, 5, 6, 7, -1], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, -1, -1]],
         [7, 8, 6]),
        ([[1, -1], [1, 2]], [1, 2])]
    fixed = seqs.apply(exp.bucket_by_sequence_length(
        lambda s, n: n, [4], [3, 2], drop_remainder=True, padded_shapes=([8], [])))
    assert [n.tolist() for _, n in _values(fixed)] == [[5, 7], [1, 2, 3], [8, 4], [3, 1, 2]]
    plain = seqs.map(lambda s, n: n).apply(exp.bucket_by_sequence_length(
        lambda n: n, [4], [2, 2], no_padding=True))
    assert [b.tolist() for b in _values(plain)] == [[1, 2], [5, 7], [3, 3], [8, 4], [1, 2],
                                                    [6]]
    # TF 1.15 checks the sizes at once (2.21 when the transformation is applied)
    with pytest.raises(ValueError, match=r"len\(bucket_batch_sizes\) must equal"):
        exp.bucket_by_sequence_length(lambda n: n, [4], [2])
    with pytest.raises(ValueError, match="must return a single tf.int64 tensor"):
        tf.data.Dataset.range(3).apply(exp.group_by_window(
            lambda x: tf.cast(x, tf.int32), lambda k, w: w, 2))
    with pytest.raises(ValueError, match="Either the `window_size`"):
        exp.group_by_window(lambda x: x, lambda k, w: w)(tf.data.Dataset.range(3))


def test_choose_from_datasets_and_sample_from_datasets():
    # TF 1.15's DirectedInterleave: an ended input is skipped when chosen again; real TF
    # (2.21's tf.compat.v1) printed these values and errors for the same pipelines
    exp = tf.data.experimental
    a, b, c = (tf.data.Dataset.range(0, 3), tf.data.Dataset.range(100, 105),
               tf.data.Dataset.range(1000, 1001))
    choices = tf.data.Dataset.from_tensor_slices(np.int64([0, 1, 2, 2, 0, 1, 0, 0, 1, 1, 1, 1]))
    assert _values(exp.choose_from_datasets([a, b, c], choices)) == [
        0, 100, 1000, 1, 101, 2, 102, 103, 104]
    out_of_range = exp.choose_from_datasets([a, b], tf.data.Dataset.from_tensor_slices(
        np.int64([0, 3])))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Selector index out of range"):
        _values(out_of_range)
    rows = exp.choose_from_datasets(
        [tf.data.Dataset.from_tensor_slices(np.zeros((3, 2), np.float32)),
         tf.data.Dataset.from_tensor_slices(np.ones((2, 4), np.float32))],
        tf.data.Dataset.range(2))
    assert rows.output_shapes.as_list() == [None]
    with pytest.raises(TypeError, match="scalar `tf.int64`"):
        exp.choose_from_datasets([a, b], tf.data.Dataset.range(2).map(
            lambda x: tf.cast(x, tf.int32)))
    with pytest.raises(TypeError, match="same type"):
        exp.choose_from_datasets([a, tf.data.Dataset.from_tensors(1.0)], tf.data.Dataset.range(2))
    drawn = [int(v) for v in _values(exp.sample_from_datasets(
        [tf.data.Dataset.range(0, 50), tf.data.Dataset.range(100, 150)], [0.8, 0.2], seed=3))]
    # every element once, each input in its order, the heavier one mostly first
    assert sorted(drawn) == list(range(50)) + list(range(100, 150))
    assert [v for v in drawn if v < 100] == list(range(50))
    assert sum(v < 100 for v in drawn[:40]) > 25
    with pytest.raises(ValueError, match="non-negative"):
        exp.sample_from_datasets([a, b], [1.0, -1.0])
