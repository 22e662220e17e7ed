"""Partitioned variables (``partitioner=``) as TF 1.15 has them.

Shard names and shapes are the ones real TensorFlow gave (tensorflow-cpu 2.21,
``tf.compat.v1`` graph mode), written down here; values and gradients are checked against numpy;
a partitioned model's training steps against the same model unpartitioned (whose own steps
test_train.py checks); checkpoints against one real TensorFlow wrote
(``tests/data/tf_partitioned/model``: ``emb`` [7, 3] = arange(21) in 3 shards, ``wide`` [2, 5] =
arange(10) / 10 in 2 shards along axis 1, ``b`` = [1, 2, 3] unpartitioned).
"""
from pathlib import Path

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend import checkpoint_format as fmt

TF_CHECKPOINT = str(Path(__file__).parent / "data" / "tf_partitioned" / "model")
EMB = np.arange(21, dtype=np.float32).reshape(7, 3)

# (shape, partitioner, [shard shapes]): what real TensorFlow made of `tf.get_variable("a",
# shape, partitioner=...)`, its shards named a/part_0, a/part_1...
TF_SHARDS = [
    ([10, 3], tf.fixed_size_partitioner(3), [[4, 3], [3, 3], [3, 3]]),
    ([10, 3], tf.fixed_size_partitioner(4), [[3, 3], [3, 3], [2, 3], [2, 3]]),
    ([2, 3], tf.fixed_size_partitioner(4), [[1, 3], [1, 3]]),
    ([7], tf.fixed_size_partitioner(3), [[3], [2], [2]]),
    ([10, 3], tf.fixed_size_partitioner(2, axis=1), [[10, 2], [10, 1]]),
    ([1000, 64], tf.variable_axis_size_partitioner(max_shard_bytes=40000),
     [[143, 64]] * 6 + [[142, 64]]),
    ([1000, 64], tf.variable_axis_size_partitioner(max_shard_bytes=40000, max_shards=3),
     [[334, 64], [333, 64], [333, 64]]),
    ([1000, 64], tf.variable_axis_size_partitioner(max_shard_bytes=40000, axis=1),
     [[1000, 10]] + [[1000, 9]] * 6),
    ([1000, 64], tf.variable_axis_size_partitioner(max_shard_bytes=2 ** 20), [[1000, 64]]),
    ([1000, 64], tf.min_max_variable_partitioner(max_partitions=4, min_slice_size=64 << 10),
     [[250, 64]] * 4),
    ([1000, 64], tf.min_max_variable_partitioner(max_partitions=8, min_slice_size=16 << 10),
     [[125, 64]] * 8),
    ([1000, 64], tf.min_max_variable_partitioner(max_partitions=8, min_slice_size=16 << 10,
                                                 axis=1), [[1000, 8]] * 8),
    ([100, 64], tf.min_max_variable_partitioner(max_partitions=8), [[100, 64]]),
    ([10, 3], lambda shape, dtype: [1, 1], [[10, 3]]),
    ([10, 3], lambda shape, dtype: [5, 1], [[2, 3]] * 5),
]


@pytest.mark.parametrize("shape, partitioner, shards", TF_SHARDS)
def test_shard_names_and_shapes_are_tensorflows(shape, partitioner, shards):
    with tf.Graph().as_default():
        variable = tf.get_variable("a", shape, partitioner=partitioner)
        assert isinstance(variable, tf.PartitionedVariable)
        assert [(v.op.name, v.get_shape().as_list()) for v in variable] == [
            (f"a/part_{i}", s) for i, s in enumerate(shards)]
        assert len(variable) == len(shards) and variable.get_shape().as_list() == shape
        assert variable.name == "a" and variable.dtype == tf.float32


@pytest.mark.parametrize("partitioner, message", [
    (lambda shape, dtype: [2, 2], "Can only slice a variable along one dimension"),
    (lambda shape, dtype: [2], "does not match the Variable's rank"),
    (lambda shape, dtype: [0, 1], "zero partitions"),
    (lambda shape, dtype: [5, 1], "into 5 shards"),
])
def test_bad_partitions_are_valueerrors_naming_the_variable(partitioner, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            tf.get_variable("r", [4, 2], partitioner=partitioner)
        assert tf.global_variables() == []


def test_scope_partitioner_is_inherited_and_shards_join_tf_collections():
    with tf.Graph().as_default():
        with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(2)):
            w = tf.get_variable("w", [5, 2])
            with tf.variable_scope("inner"):
                u = tf.get_variable("u", [4, 2])
            b = tf.get_variable("b", [3], partitioner=tf.fixed_size_partitioner(1))
        plain = tf.get_variable("plain", [3])
        assert [v.op.name for v in w.get_variable_list()] == ["s/w/part_0", "s/w/part_1"]
        assert isinstance(u, tf.PartitionedVariable) and len(b) == 1
        assert not isinstance(plain, tf.PartitionedVariable)
        # TF lists the shards themselves as global and trainable variables
        names = ["s/w/part_0:0", "s/w/part_1:0", "s/inner/u/part_0:0", "s/inner/u/part_1:0",
                 "s/b/part_0:0", "plain:0"]
        assert [v.name for v in tf.global_variables()] == names
        assert [v.name for v in tf.trainable_variables()] == names
        assert list(w)[1].save_slice_info.spec == "5 2 3,2:0,2"  # TF's spec of s/w/part_1
        with tf.variable_scope("s", reuse=True):
            assert tf.get_variable("w", [5, 2], partitioner=tf.fixed_size_partitioner(2)) is w
            assert tf.get_variable("w") is w
            with pytest.raises(ValueError, match=r"specified partitions \[3, 1\] and found "
                                                 r"partitions \[2, 1\]"):
                tf.get_variable("w", [5, 2], partitioner=tf.fixed_size_partitioner(3))
        with pytest.raises(ValueError, match="s/w/part_0 already exists"), \
                tf.variable_scope("s"):
            tf.get_variable("w/part_0", [3, 2])


def test_used_as_a_tensor_it_is_the_concatenation():
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [7, 3], initializer=tf.constant_initializer(EMB),
                              partitioner=tf.fixed_size_partitioner(3))
        wide = tf.get_variable("wide", [3, 5], partitioner=tf.fixed_size_partitioner(2, axis=1),
                               initializer=np.arange(15, dtype=np.float32).reshape(3, 5))
        tensor = tf.convert_to_tensor(emb)
        assert tensor.name == "emb:0" and emb.as_tensor().name == "emb_1:0"  # TF's names
        product = tf.matmul(emb, wide)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            shards, full, got = sess.run([list(emb), tensor, product])
    assert [s.shape for s in shards] == [(3, 3), (2, 3), (2, 3)]
    np.testing.assert_array_equal(full, EMB)
    np.testing.assert_allclose(got, EMB @ np.arange(15.).reshape(3, 5), rtol=1e-6)


def test_assign_gives_each_shard_its_part():
    """TF's PartitionedVariable.assign / assign_add: a list of the shards' assigns."""
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [7, 3], partitioner=tf.fixed_size_partitioner(3))
        assigns = emb.assign(EMB)
        adds = emb.assign_add(tf.ones([7, 3]))
        assert isinstance(assigns, list) and len(assigns) == 3
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(assigns)
            np.testing.assert_array_equal(sess.run(emb.as_tensor()), EMB)
            sess.run(adds)
            np.testing.assert_array_equal(np.concatenate(sess.run(list(emb))), EMB + 1)


def _place(i, sizes, strategy):
    """(shard, row) TF 1.15's embedding_lookup reads id ``i`` from: "mod" shard ``i % n``,
    "div" contiguous ranges, which are TF's shards themselves (the first ones one row larger)."""
    if strategy == "mod":
        return i % len(sizes), i // len(sizes)
    shard = int(np.searchsorted(np.cumsum(sizes), i, side="right"))
    return shard, i - sum(sizes[:shard])


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_embedding_lookup_over_the_shards_values_and_gradients(strategy):
    ids = np.array([0, 3, 4, 6, 3, 1], dtype=np.int64)
    weights = np.arange(18, dtype=np.float32).reshape(6, 3) / 7
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [7, 3], initializer=tf.constant_initializer(EMB),
                              partitioner=tf.fixed_size_partitioner(3))
        rows = tf.nn.embedding_lookup(emb, ids, partition_strategy=strategy)
        grads = tf.gradients(tf.reduce_sum(rows * weights), list(emb))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            shards = sess.run(list(emb))
            got, got_grads = sess.run([rows, [tf.convert_to_tensor(g) for g in grads]])
    sizes = [len(s) for s in shards]
    places = [_place(i, sizes, strategy) for i in ids]
    np.testing.assert_array_equal(got, [shards[s][r] for s, r in places])
    expected = [np.zeros_like(s) for s in shards]  # each row: the weights of its ids, summed
    for (shard, row), weight in zip(places, weights):
        expected[shard][row] += weight
    for g, e in zip(got_grads, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6)


def test_embedding_lookup_sparse_over_a_partitioned_variable():
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [7, 3], initializer=tf.constant_initializer(EMB),
                              partitioner=tf.fixed_size_partitioner(2))
        ids = tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]],
                              values=tf.constant([1, 4, 6, 0, 2, 5], tf.int64),
                              dense_shape=[3, 3])
        weights = tf.SparseTensor(indices=ids.indices, dense_shape=ids.dense_shape,
                                  values=tf.constant([1., 2., 3., 1., 1., 2.]))
        mean = tf.nn.embedding_lookup_sparse(emb, ids, None, combiner="mean")
        summed = tf.nn.embedding_lookup_sparse(emb, ids, weights, combiner="sum")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            shards = sess.run(list(emb))
            got_mean, got_sum = sess.run([mean, summed])

    def row(i):  # the "mod" strategy, by numpy
        return shards[i % 2][i // 2]
    np.testing.assert_allclose(got_mean, [(row(1) + row(4)) / 2, row(6),
                                          (row(0) + row(2) + row(5)) / 3], rtol=1e-6)
    np.testing.assert_allclose(got_sum, [row(1) + 2 * row(4), 3 * row(6),
                                         row(0) + row(2) + 2 * row(5)], rtol=1e-6)


def _train(partitioner, optimizer, steps=3):
    """A wide & deep-like model's embedding and dense weight after ``steps`` of
    ``optimizer``, the weights partitioned by ``partitioner`` (None: not)."""
    ids = np.array([[0, 5], [3, 3], [6, 1]], dtype=np.int32)
    labels = np.array([[1.], [0.], [1.]], dtype=np.float32)
    with tf.Graph().as_default():
        with tf.variable_scope("model", partitioner=partitioner):
            emb = tf.get_variable("emb", [7, 4], initializer=tf.constant_initializer(
                np.linspace(-1, 1, 28).reshape(7, 4)))
            dense = tf.get_variable("dense", [8, 1], initializer=tf.constant_initializer(
                np.linspace(0.5, -0.5, 8).reshape(8, 1)))
        features = tf.reshape(tf.nn.embedding_lookup(emb, ids, partition_strategy="div"),
                              [3, 8])
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            labels=labels, logits=tf.matmul(features, dense)))
        step = optimizer().minimize(loss)
        assert len(tf.trainable_variables()) == (2 if partitioner is None else 6)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(step)
            return sess.run([tf.convert_to_tensor(emb), tf.convert_to_tensor(dense)])


@pytest.mark.parametrize("optimizer", [
    lambda: tf.train.GradientDescentOptimizer(0.5),
    lambda: tf.train.AdagradOptimizer(0.3),
    lambda: tf.train.AdamOptimizer(0.1),
], ids=["sgd", "adagrad", "adam"])
def test_optimizer_steps_on_shards_equal_the_unpartitioned_model(optimizer):
    whole = _train(None, optimizer)
    sharded = _train(tf.fixed_size_partitioner(3), optimizer)
    assert not np.allclose(whole[0], np.linspace(-1, 1, 28).reshape(7, 4))  # it trained
    for a, b in zip(whole, sharded):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def _model(emb_partitioner, wide_partitioner):
    emb = tf.get_variable("emb", [7, 3], partitioner=emb_partitioner)
    wide = tf.get_variable("wide", [2, 5], partitioner=wide_partitioner)
    return emb, wide, tf.get_variable("b", [3])


@pytest.mark.parametrize("emb_shards", [3, 2, 4, 1, None])
def test_restores_tensorflows_checkpoint_into_any_partitioning(emb_shards):
    with tf.Graph().as_default():
        emb, wide, b = _model(emb_shards and tf.fixed_size_partitioner(emb_shards),
                              tf.fixed_size_partitioner(3, axis=1))
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, TF_CHECKPOINT)
            got = sess.run([tf.convert_to_tensor(emb), tf.convert_to_tensor(wide), b])
            if emb_shards:  # each shard holds its rows
                np.testing.assert_array_equal(np.concatenate(sess.run(list(emb))), EMB)
    np.testing.assert_array_equal(got[0], EMB)
    np.testing.assert_allclose(got[1], np.arange(10).reshape(2, 5) / 10, rtol=1e-6)
    np.testing.assert_array_equal(got[2], [1, 2, 3])
    reader = tf.train.NewCheckpointReader(TF_CHECKPOINT)  # its slices' keys are not listed
    assert reader.get_variable_to_shape_map() == {"emb": [7, 3], "wide": [2, 5], "b": [3]}
    np.testing.assert_array_equal(reader.get_tensor("emb"), EMB)


def test_checkpoint_written_for_tensorflow_holds_each_variable_whole(tmp_path):
    """TinyFlow writes a partitioned variable as one unsliced tensor of its name; real
    TensorFlow restores such a file into partitioned variables by slices (checked by hand: this
    test's checkpoint restored into TF's emb in 4 shards and wide in 2 gave these values)."""
    with tf.Graph().as_default():
        emb, wide, b = _model(tf.fixed_size_partitioner(2),
                              tf.fixed_size_partitioner(3, axis=1))
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, TF_CHECKPOINT)
            sess.run(list(emb)[1].assign(list(emb)[1] * 10))
            path = tf.train.Saver([emb, wide, b]).save(sess, str(tmp_path / "model"))
    with open(path + ".index", "rb") as file:
        _, entries = fmt.read_index(file.read())
    assert sorted(entries) == ["b", "emb", "wide"]
    assert entries["emb"].shape == (7, 3) and not entries["emb"].slices
    expected = EMB.copy()
    expected[4:] *= 10
    np.testing.assert_array_equal(tf.train.load_variable(path, "emb"), expected)
    with tf.Graph().as_default():  # and back, into other shards
        emb = tf.get_variable("emb", [7, 3], partitioner=tf.fixed_size_partitioner(3))
        with tf.Session() as sess:
            tf.train.Saver({"emb": emb}).restore(sess, path)
            np.testing.assert_array_equal(sess.run(emb.as_tensor()), expected)


def test_restoring_a_partitioned_variable_of_another_shape_names_it():
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [6, 3], partitioner=tf.fixed_size_partitioner(2),
                              initializer=tf.zeros_initializer())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(ValueError, match=r"variable 'emb' has shape \[7, 3\] in the "
                                                 r"file but \[6, 3\]"):
                tf.train.Saver([emb]).restore(sess, TF_CHECKPOINT)
            np.testing.assert_array_equal(sess.run(emb.as_tensor()), np.zeros((6, 3)))


def test_slice_keys_are_tensorflows():
    """checkpoint::EncodeTensorNameSlice's keys, as they are in the TF-written index."""
    with open(TF_CHECKPOINT + ".index", "rb") as file:
        _, entries = fmt.read_index(file.read())
    assert entries["emb"].slices == (((0, 3), (0, 3)), ((3, 2), (0, 3)), ((5, 2), (0, 3)))
    assert fmt.slice_key("emb", ((3, 2), (0, 3))) == b"\x00emb\x00\x01\x01\x02\x83\x82\x80\x83"
    assert all(fmt.slice_key("emb", s) in entries for s in entries["emb"].slices)
    # a full extent is -1; larger bounds take more bytes (OrderedCode's signed encoding)
    assert fmt.slice_key("a", ((0, -1),)) == b"\x00a\x00\x01\x01\x01\x80\x7f"
    assert fmt.slice_key("a", ((64, 1000),)) == b"\x00a\x00\x01\x01\x01\xc0\x40\xc3\xe8"


def test_slim_model_variable_takes_a_partitioner():
    with tf.Graph().as_default():
        weights = tf.contrib.framework.model_variable(
            "weights", [5, 2], partitioner=tf.fixed_size_partitioner(2))
        assert isinstance(weights, tf.PartitionedVariable)
        assert [v.op.name for v in tf.model_variables()] == ["weights/part_0", "weights/part_1"]


def test_saver_refuses_a_partitioned_variable_given_in_part():
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [7, 3], partitioner=tf.fixed_size_partitioner(3))
        saver = tf.train.Saver(list(emb)[:2])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(ValueError, match="cover 15 of its 21 elements"):
                saver.save(sess, "/nonexistent-folder/never-written")


def _hostile_copy(tmp_path, change):
    """The TF-written checkpoint with its index's entries changed by ``change(table)``."""
    with open(TF_CHECKPOINT + ".index", "rb") as file:
        table = fmt.read_table(file.read())
    change(table)
    tmp_path.mkdir()
    prefix = str(tmp_path / "model")
    with open(prefix + ".index", "wb") as file:
        file.write(fmt.write_table(sorted(table.items())))
    with open(TF_CHECKPOINT + ".data-00000-of-00001", "rb") as src, \
            open(fmt.data_file(prefix), "wb") as dst:
        dst.write(src.read())
    return prefix


def _sliced_entry(shape, slices):
    """A BundleEntryProto of a float32 tensor ``shape`` stored as ``slices``."""
    dims = b"".join(fmt._field(2, fmt._field(1, d)) for d in shape)
    return fmt._field(1, 1) + fmt._field(2, dims) + b"".join(
        fmt._field(7, b"".join(fmt._field(1, fmt._field(1, s) + fmt._field(2, n))
                               for s, n in extents)) for extents in slices)


def test_hostile_sliced_entries_are_errors_naming_the_variable(tmp_path):
    missing = _hostile_copy(tmp_path / "a", lambda table: table.pop(
        fmt.slice_key("emb", ((3, 2), (0, 3)))))
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [7, 3], partitioner=tf.fixed_size_partitioner(2),
                              initializer=tf.zeros_initializer())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(ValueError, match=r"variable 'emb' .*slice \(\(3, 2\), \(0, 3\)\)"
                                                 r" is missing"):
                tf.train.Saver([emb]).restore(sess, missing)
            np.testing.assert_array_equal(sess.run(emb.as_tensor()), np.zeros((7, 3)))
    # a huge shape its slices do not cover: refused before anything that size is allocated
    huge = _hostile_copy(tmp_path / "b", lambda table: table.update(
        {b"emb": _sliced_entry([2 ** 40, 3], [((0, 3), (0, 3))]),
         fmt.slice_key("emb", ((0, 3), (0, 3))): table[fmt.slice_key("emb", ((0, 3), (0, 3)))]}))
    with pytest.raises(ValueError, match="do not cover it exactly once"):
        tf.train.NewCheckpointReader(huge).get_tensor("emb")
    overlapping = _hostile_copy(tmp_path / "c", lambda table: table.update(
        {b"emb": _sliced_entry([5, 3], [((0, 3), (0, 3)), ((3, 2), (0, 3)), ((0, 3), (0, 3))])}))
    with pytest.raises(ValueError, match="do not cover it exactly once"):
        tf.train.NewCheckpointReader(overlapping).get_tensor("emb")
