"""TF 1.15's tf.lookup.experimental.MutableHashTable / tf.contrib.lookup.MutableHashTable and
DenseHashTable (frontend/mutable_tables.py, ops/mutable_tables.py): insert, remove, lookup,
export and size
against what real TensorFlow gave for the same program and feeds (TF 2.21's tf.compat.v1,
graph mode; recorded in the comments below), and its errors."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _words(*words):
    return np.array(words, dtype=object)


def _string_table():
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    keys, values = tf.placeholder(tf.string, [None]), tf.placeholder(tf.int64, [None])
    return table, keys, values, table.insert(keys, values), table.remove(keys)


def test_insert_remove_lookup_export_size_are_tensorflows():
    table, keys, values, insert, remove = _string_table()
    lookup, size, (exported_keys, exported_values) = table.lookup(keys), table.size(), \
        table.export()
    assert (table.name, insert.name, lookup.name) == (  # TF's names, recorded
        "MutableHashTable", "MutableHashTable_lookup_table_insert/LookupTableInsertV2",
        "MutableHashTable_lookup_table_find/LookupTableFindV2:0")
    assert lookup.get_shape().as_list() == [None]
    with tf.Session() as sess:
        # TF: [-1, -1], 0 before any insert
        got = sess.run([lookup, size], {keys: _words("a", "b")})
        assert got[0].tolist() == [-1, -1] and got[1] == 0
        sess.run(insert, {keys: _words("a", "b", "c"), values: [1, 2, 3]})
        sess.run(insert, {keys: _words("a", "d"), values: [10, 4]})
        # TF: [10, 2, -1, 4], 4
        got = sess.run([lookup, size], {keys: _words("a", "b", "z", "d")})
        assert got[0].tolist() == [10, 2, -1, 4] and got[1] == 4
        sess.run(remove, {keys: _words("b", "q")})
        got_keys, got_values = sess.run([exported_keys, exported_values])
        # TF: [(b'a', 10), (b'c', 3), (b'd', 4)] (in its hash map's order), size 3
        assert sorted(zip(got_keys.tolist(), got_values.tolist())) == [
            (b"a", 10), (b"c", 3), (b"d", 4)]
        assert sess.run(size) == 3
        sess.run(insert, {keys: _words("e", "e"), values: [5, 6]})  # TF: the last, 6
        assert sess.run(lookup, {keys: _words("e")}).tolist() == [6]


def test_vector_values_and_contrib_name():
    table = tf.contrib.lookup.MutableHashTable(tf.int64, tf.float32, [0.5, -1.0], name="vec")
    keys, values = tf.placeholder(tf.int64, [None]), tf.placeholder(tf.float32, [None, 2])
    insert = table.insert(keys, values)
    lookup = table.lookup(tf.constant([[3, 4], [5, 3]], tf.int64))
    assert lookup.get_shape().as_list() == [2, 2, 2]  # TF's (2, 2, 2)
    with tf.Session() as sess:
        sess.run(insert, {keys: [3, 7], values: [[1, 2], [3, 4]]})
        # TF: [[[1, 2], [0.5, -1]], [[0.5, -1], [1, 2]]], size 2
        np.testing.assert_array_equal(sess.run(lookup), [[[1, 2], [0.5, -1]],
                                                         [[0.5, -1], [1, 2]]])
        assert sess.run(table.size()) == 2
        assert sess.run(tf.reduce_sum(lookup)) == pytest.approx(5.0)  # read by other ops
        exported = sess.run(table.export())
        assert sorted(zip(exported[0].tolist(), exported[1].tolist())) == [
            (3, [1.0, 2.0]), (7, [3.0, 4.0])]


def test_each_session_holds_its_own_table():
    table, keys, values, insert, _ = _string_table()
    with tf.Session() as sess:
        sess.run(insert, {keys: _words("a"), values: [1]})
    with tf.Session() as sess:
        assert sess.run(table.lookup(keys), {keys: _words("a")}).tolist() == [-1]


def test_a_bad_insert_leaves_the_table_as_it_was():
    table, keys, values, insert, _ = _string_table()
    with tf.Session() as sess:
        sess.run(insert, {keys: _words("a"), values: [1]})
        # TF: InvalidArgumentError "Expected shape [2] for value, got [1]"
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Expected shape \[2\] for value, got \[1\]"):
            sess.run(insert, {keys: _words("x", "y"), values: [7]})
        assert sess.run(table.size()) == 1
        assert sess.run(table.lookup(keys), {keys: _words("a", "x")}).tolist() == [1, -1]


def test_dtype_errors():
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    # TF's ValueErrors (recorded): "keys: Tensor conversion requested dtype string for Tensor
    # with dtype int64", "values: ... dtype int64 for Tensor with dtype float32"
    with pytest.raises(ValueError, match="keys: Tensor conversion requested dtype string"):
        table.lookup(tf.constant([1], tf.int64))
    with pytest.raises(ValueError, match="values: Tensor conversion requested dtype int64"):
        table.insert(tf.constant(_words("a")), tf.constant([1.5]))
    with pytest.raises(TypeError, match="default_value"):
        tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, "x")
    with pytest.raises(AttributeError, match="MutableHashTableOfTensors is not supported"):
        tf.lookup.experimental.MutableHashTableOfTensors  # noqa: B018


# -- DenseHashTable: TF's bucket layout, recorded from TF 2.21's compat.v1 --------------------
def test_dense_table_is_tensorflows():
    table = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, empty_key=0,
                                                  deleted_key=-1, initial_num_buckets=8)
    keys, values = tf.placeholder(tf.int64, [None]), tf.placeholder(tf.int64, [None])
    insert, lookup, size, erase = (table.insert(keys, values), table.lookup(keys),
                                   table.size(), table.erase(keys))
    exported = table.export()
    assert table.name == "MutableDenseHashTable"
    assert erase.name == "MutableDenseHashTable_lookup_table_remove/LookupTableRemoveV2"
    with tf.Session() as sess:
        sess.run(insert, {keys: [5, 6, 7], values: [50, 60, 70]})
        got = sess.run([lookup, size], {keys: [5, 6, 9]})
        assert got[0].tolist() == [50, 60, -1] and got[1] == 3  # TF: [50, 60, -1], 3
        got = sess.run(exported)  # TF: keys [[0]] * 5 + [[5], [6], [7]], values alike
        assert got[0].tolist() == [[0]] * 5 + [[5], [6], [7]]
        assert got[1].tolist() == [[0]] * 5 + [[50], [60], [70]]
        sess.run(insert, {keys: [11, 12, 13, 14], values: [1, 2, 3, 4]})  # 7 > 0.8 * 8
        sess.run(erase, {keys: [5, 99]})
        got = sess.run([lookup, size], {keys: [5, 6]})
        assert got[0].tolist() == [-1, 60] and got[1] == 6  # TF: [-1, 60], 6
        # TF: 16 buckets, the removed key's holding deleted_key
        assert sess.run(exported[0]).ravel().tolist() == [
            0, 0, 0, 0, 0, -1, 6, 7, 0, 0, 0, 11, 12, 13, 14, 0]
        for feed, what in [({keys: [0], values: [1]}, "empty_key"),
                           ({keys: [-1], values: [1]}, "deleted_key")]:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=f"Using the {what} as a table key is not allowed"):
                sess.run(insert, feed)
            with pytest.raises(tf.errors.InvalidArgumentError, match=what):
                sess.run(lookup, {keys: feed[keys]})
        assert sess.run(size) == 6


def test_dense_table_probes_and_strings_as_tensorflow():
    strings = tf.lookup.experimental.DenseHashTable(
        tf.string, tf.float32, [0.5, -1.0], empty_key="", deleted_key="<del>",
        initial_num_buckets=8)
    ints = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, empty_key=-1,
                                                 deleted_key=-2, initial_num_buckets=8)
    with tf.Session() as sess:
        sess.run(strings.insert(tf.constant(_words("paris", "rome", "tokyo", "lima")),
                                tf.constant([[1, 2], [3, 4], [5, 6], [7, 8]], tf.float32)))
        sess.run(strings.remove(tf.constant(_words("rome"))))
        sess.run(strings.insert(tf.constant(_words("oslo")), tf.constant([[9, 10]],
                                                                         tf.float32)))
        got = sess.run(strings.export())  # TF's buckets (a string's first: its Hash64)
        assert got[0].ravel().tolist() == [b"lima", b"", b"tokyo", b"", b"oslo", b"",
                                           b"paris", b"<del>"]
        assert got[1].tolist() == [[7, 8], [0, 0], [5, 6], [0, 0], [9, 10], [0, 0], [1, 2],
                                   [3, 4]]
        assert sess.run(strings.lookup(tf.constant(_words("lima", "rome", "oslo")))).tolist() \
            == [[7, 8], [0.5, -1], [9, 10]]
        # 3, 11, 19 share bucket 3: probed on by +1, +2...; 19 reinserted into 11's old bucket
        sess.run(ints.insert(tf.constant([3, 11, 19, 4], tf.int64),
                             tf.constant([1, 2, 3, 4], tf.int64)))
        sess.run(ints.remove(tf.constant([11], tf.int64)))
        sess.run(ints.insert(tf.constant([27, 19], tf.int64), tf.constant([5, 6], tf.int64)))
        got = sess.run(ints.export())
        assert got[0].ravel().tolist() == [-1, -1, -1, 3, 27, 4, 19, -1]
        assert got[1].ravel().tolist() == [0, 0, 0, 1, 5, 4, 6, 0]
        assert sess.run(ints.lookup(tf.constant([3, 11, 19, 27, 4, 35], tf.int64))).tolist() \
            == [1, -1, 6, 5, 4, -1]
        sess.run(ints.insert(tf.constant([40, 41, 42], tf.int64),
                             tf.constant([7, 8, 9], tf.int64)))  # grown to 16, reinserted
        got = sess.run(ints.export())
        assert got[0].ravel().tolist() == [-1, -1, -1, 3, 4, -1, 19, -1, 40, 41, 42, 27, -1,
                                           -1, -1, -1]
        assert got[1].ravel().tolist() == [0, 0, 0, 1, 4, 0, 6, 0, 7, 8, 9, 5, 0, 0, 0, 0]


def test_dense_table_construction_errors():
    dense = tf.lookup.experimental.DenseHashTable
    # TF's InvalidArgumentErrors when the table is made (recorded), here when it is declared
    with pytest.raises(ValueError, match="Empty and deleted keys cannot be equal"):
        dense(tf.int64, tf.int64, -1, 0, 0)
    with pytest.raises(ValueError, match="at least 4 and a power of 2, got: 6"):
        dense(tf.int64, tf.int64, -1, 0, 1, initial_num_buckets=6)
    with pytest.raises(ValueError, match="scalar empty_key"):
        dense(tf.int64, tf.int64, -1, [0, 0], [1, 1])
