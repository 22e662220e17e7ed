"""tf.lookup's tables and tf.contrib.lookup's vocabulary tables (frontend/lookup_ops.py,
ops/lookup_tables.py), against values and errors recorded from TensorFlow 2.21's compat.v1
(graph mode: tf.compat.v1.lookup.StaticHashTable..., and tensorflow.python.ops.lookup_ops'
index_table_from_file... for tf.contrib.lookup's)."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.nnvm.errors import BindError

pytestmark = pytest.mark.usefixtures("fresh_graph")
TextFileIndex = tf.lookup.TextFileIndex
contrib_lookup = tf.contrib.lookup


@pytest.fixture
def files(tmp_path):
    """The vocabulary files the recorded values were computed from."""
    contents = {"kv": b"apple\t10\nbanana\t20\ncherry\t30\n", "vocab": b"emerson\nlake\npalmer\n",
                "bad": b"a\t1\nb\n", "badval": b"a\tx\n", "crlf": b"x\r\ny\nz",
                "empty_line": b"a\n\n"}
    for name, data in contents.items():
        (tmp_path / f"{name}.txt").write_bytes(data)
    return {name: str(tmp_path / f"{name}.txt") for name in contents}


def _run(fetch, feed_dict=None):
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        return sess.run(fetch, feed_dict)


def _string_table():
    init = tf.lookup.KeyValueTensorInitializer(["a", "b"], np.array([1, 2], np.int64))
    return tf.lookup.StaticHashTable(init, -1)


def test_lookup_before_and_after_initialization():
    table = _string_table()
    keys = tf.placeholder(tf.string, [None])
    assert (table.key_dtype, table.value_dtype) == (tf.string, tf.int64)  # TF's DTypes
    assert isinstance(table.key_dtype, tf.DType)
    assert table.init is table.initializer
    with tf.Session() as sess:
        assert sess.run(table.size()) == 0  # TF: 0 before the initializer ran
        with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized."):
            sess.run(table.lookup(keys), {keys: ["a"]})
        sess.run(tf.initializers.tables_initializer())
        assert sess.run(table.size()) == 2
        got = sess.run(table.lookup(tf.constant([["a", "z"], ["b", "a"]])))
        np.testing.assert_array_equal(got, [[1, -1], [2, 1]])  # TF's
        # the ids flow into the ops after them
        np.testing.assert_array_equal(sess.run(table.lookup(keys) * 10, {keys: ["b", "q"]}),
                                      [20, -10])
    # each session's tables are its own
    with tf.Session() as sess, pytest.raises(tf.errors.FailedPreconditionError,
                                             match="Table not initialized."):
        sess.run(table.lookup(keys), {keys: ["a"]})


def test_value_and_key_dtypes():
    to_string = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([1, 5], tf.int64), tf.constant(["x", "y"])), "?")
    to_float = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([1, 5], tf.int64), tf.constant([0.5, 1.5])), -1.0)
    from_string = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        ["a"], [1.5]), -1.0)
    keys = tf.constant([5, 1, 2], tf.int64)
    strings, floats, by_string = _run([to_string.lookup(keys), to_float.lookup(keys),
                                       from_string.lookup(tf.constant(["a", "b"]))])
    assert strings.tolist() == [b"y", b"x", b"?"]  # TF's
    np.testing.assert_array_equal(floats, np.float32([1.5, 0.5, -1.0]))
    np.testing.assert_array_equal(by_string, np.float32([1.5, -1.0]))
    assert floats.dtype == np.float32


def test_table_errors():
    with pytest.raises(TypeError, match=r"Dtype of argument `keys` must be <dtype: 'string'>, "
                                        r"received: <dtype: 'int64'>"):  # TF's
        _string_table().lookup(tf.constant([1], tf.int64))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 1"):
        tf.lookup.KeyValueTensorInitializer(["a", "b"], [1])
    twice = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2]),
                                      -1)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match=(
                "HashTable has different value for same key. Key a has 1 and trying to add "
                "value 2")):  # TF's
            sess.run(twice.initializer)
        with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized."):
            sess.run(twice.lookup(tf.constant(["a"])))  # a failed initializer left it empty
    with pytest.raises(AttributeError, match="tf.lookup.MutableHashTable is not supported"):
        tf.lookup.MutableHashTable  # noqa: B018


def test_vocabulary_table_hashes_out_of_vocabulary_keys():
    strings = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        ["emerson", "lake"], tf.constant([0, 1], tf.int64)), 3)
    ints = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([7, 9], tf.int64), tf.constant([0, 1], tf.int64)), 3)
    got = _run([strings.lookup(tf.constant(["emerson", "palmer", "lake", "tarkus",
                                            "karn evil 9"])),
                ints.lookup(tf.constant([7, 9, 11, 12, 13, -4], tf.int64)), strings.size()])
    np.testing.assert_array_equal(got[0], [0, 2, 1, 4, 2])  # TF's
    np.testing.assert_array_equal(got[1], [0, 1, 3, 3, 4, 3])  # TF's (as decimal strings)
    assert got[2] == 5  # TF's: the entries and the buckets


def test_text_file_initializer(files):
    kv = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        files["kv"], tf.string, 0, tf.int64, 1, delimiter="\t"), -1)
    line_numbers = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        files["vocab"], tf.string, TextFileIndex.WHOLE_LINE, tf.int64,
        TextFileIndex.LINE_NUMBER), -1)
    lines = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        files["vocab"], tf.int64, TextFileIndex.LINE_NUMBER, tf.string,
        TextFileIndex.WHOLE_LINE), "UNK")
    first_two = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        files["vocab"], tf.string, TextFileIndex.WHOLE_LINE, tf.int64,
        TextFileIndex.LINE_NUMBER, vocab_size=2), -1)
    floats = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        files["kv"], tf.string, 0, tf.float32, 1, delimiter="\t"), -1.0)
    got = _run([kv.lookup(tf.constant(["banana", "apple", "kiwi"])),
                line_numbers.lookup(tf.constant(["lake", "palmer", "x"])),
                lines.lookup(tf.constant([2, 0, 5], tf.int64)),
                first_two.lookup(tf.constant(["lake", "palmer"])),
                floats.lookup(tf.constant(["banana"]))])
    np.testing.assert_array_equal(got[0], [20, 10, -1])  # TF's, all five
    np.testing.assert_array_equal(got[1], [1, 2, -1])
    assert got[2].tolist() == [b"palmer", b"emerson", b"UNK"]
    np.testing.assert_array_equal(got[3], [1, -1])
    np.testing.assert_array_equal(got[4], np.float32([20.0]))


@pytest.mark.parametrize(("name", "key_index", "value_index", "vocab_size", "error", "message"), [
    ("vocab", TextFileIndex.WHOLE_LINE, TextFileIndex.LINE_NUMBER, 5,
     tf.errors.InvalidArgumentError, "Invalid vocab_size in {}: expected 5 but got 3"),
    ("bad", 0, 1, None, tf.errors.InvalidArgumentError,
     "Invalid number of columns in {} line 1 (b) : expected at least 2 got 1"),
    ("badval", 0, 1, None, tf.errors.InvalidArgumentError,
     "Field x in line 0 is not a valid int64."),
    ("kv", 2, 1, None, tf.errors.InvalidArgumentError,
     "Invalid number of columns in {} line 0 (apple\t10) : expected at least 3 got 2"),
    ("empty_line", TextFileIndex.WHOLE_LINE, TextFileIndex.LINE_NUMBER, None,
     tf.errors.InvalidArgumentError, "Invalid content in {}: empty line found at position 3."),
    ("missing", 0, 1, None, tf.errors.NotFoundError, "{}; No such file or directory"),
])
def test_text_file_errors(files, name, key_index, value_index, vocab_size, error, message):
    """TF's errors (recorded), naming the file and line; the table stays uninitialised."""
    path = files.get(name, files["kv"] + ".missing")
    key_dtype = tf.int64 if key_index == TextFileIndex.LINE_NUMBER else tf.string
    table = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        path, key_dtype, key_index, tf.int64, value_index, vocab_size=vocab_size), -1)
    with tf.Session() as sess:
        with pytest.raises(error) as caught:
            sess.run(tf.tables_initializer())
        assert message.format(path) in str(caught.value)
        with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized."):
            sess.run(table.lookup(tf.constant(["a"])))


def test_huge_vocabulary_file_is_refused(files, tmp_path, monkeypatch):
    """A file past the host's free memory: ResourceExhaustedError naming it and the line
    (read no further); the lines vocab_size asks for are read alone."""
    monkeypatch.setattr("tinyflow.nnvm.host_memory.host_available_bytes",
                        lambda: (10_000, "a test's limit"))
    huge = tmp_path / "huge.txt"
    huge.write_bytes(b"a\nb\nc\n" + b"x" * 1_000_000)  # a last line without an end
    whole = contrib_lookup.index_table_from_file(str(huge))
    first = contrib_lookup.index_table_from_file(str(huge), vocab_size=3)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.ResourceExhaustedError,
                           match=f"vocabulary file {huge} at line 3 needs more than the 10000"):
            sess.run(whole.initializer)
        sess.run(first.initializer)
        np.testing.assert_array_equal(sess.run(first.lookup(tf.constant(["c", "a", "x"]))),
                                      [2, 0, -1])


def test_carriage_returns_and_a_last_line_without_newline(files):
    table = contrib_lookup.index_table_from_file(files["crlf"])
    got = _run(table.lookup(tf.constant(["x", "x\r", "y", "", "z"])))
    np.testing.assert_array_equal(got, [0, -1, 1, -1, 2])  # TF's


def test_contrib_vocabulary_tables(files):
    oov = contrib_lookup.index_table_from_file(files["vocab"], num_oov_buckets=2)
    short = contrib_lookup.index_table_from_file(files["vocab"], vocab_size=2,
                                                 default_value=-5)
    listed = contrib_lookup.index_table_from_tensor(["a", "b", "c"], num_oov_buckets=1)
    int_listed = contrib_lookup.index_table_from_tensor(tf.constant([3, 7], tf.int64),
                                                        num_oov_buckets=2, dtype=tf.int64)
    names = contrib_lookup.index_to_string_table_from_file(files["vocab"],
                                                           default_value="NONE")
    two_names = contrib_lookup.index_to_string_table_from_file(files["vocab"], vocab_size=2)
    tensor_names = contrib_lookup.index_to_string_table_from_tensor(["x", "y"])
    got = _run([oov.lookup(tf.constant(["palmer", "emerson", "trilogy", "x"])),
                short.lookup(tf.constant(["palmer", "emerson", "trilogy"])),
                listed.lookup(tf.constant(["c", "zz", "a"])),
                int_listed.lookup(tf.constant([7, 3, 8, 100], tf.int64)),
                names.lookup(tf.constant([1, 0, 3, -1], tf.int64)),
                two_names.lookup(tf.constant([1, 2], tf.int64)),
                tensor_names.lookup(tf.constant([1, 2], tf.int64))])
    np.testing.assert_array_equal(got[0], [2, 0, 3, 3])  # TF's, all seven
    np.testing.assert_array_equal(got[1], [-5, 0, -5])
    np.testing.assert_array_equal(got[2], [2, 3, 0])
    np.testing.assert_array_equal(got[3], [1, 0, 3, 3])
    assert got[4].tolist() == [b"lake", b"emerson", b"NONE", b"NONE"]
    assert got[5].tolist() == [b"lake", b"UNK"]
    assert got[6].tolist() == [b"y", b"UNK"]
    assert contrib_lookup.HashTable is tf.lookup.StaticHashTable


def test_contrib_duplicate_vocabulary():
    contrib_lookup.index_table_from_tensor(["a", "a"])  # its initializer in the collection
    with tf.Session() as sess, pytest.raises(tf.errors.FailedPreconditionError, match=(
            "HashTable has different value for same key. Key a has 0 and trying to add "
            "value 1")):  # TF's
        sess.run(tf.tables_initializer())


def test_sparse_keys_and_fed_strings():
    table = contrib_lookup.index_table_from_tensor(["a", "b"])
    sparse = table.lookup(tf.SparseTensor([[0, 0], [1, 2]], tf.constant(["b", "q"]), [2, 3]))
    keys = tf.placeholder(tf.string, [None, 2])
    values, fed = _run([sparse.values, table.lookup(keys)], {keys: [["b", "a"], ["", "b"]]})
    np.testing.assert_array_equal(values, [1, -1])  # TF's
    np.testing.assert_array_equal(fed, [[1, 0], [-1, 1]])


def test_keys_and_values_computed_by_the_graph():
    """Numeric keys and values computed by ops: the initializer's op reads them when it runs
    (the same table as TF's for these values: keys 5, 10 -> 1.5, 2.5)."""
    keys = tf.constant([1, 2], tf.int64) * 5
    values = tf.constant([0.5, 1.5]) + 1.0
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, values), -1.0)
    got = _run([table.lookup(tf.constant([10, 5, 1], tf.int64)), table.size()])
    np.testing.assert_array_equal(got[0], np.float32([2.5, 1.5, -1.0]))
    assert got[1] == 2


def test_a_dataset_map_function_looks_up_the_programs_table(tmp_path):
    """A text pipeline's usual form: each line split and looked up inside Dataset.map, the
    table initialised by the program's session (TF's function captures the table).  Recorded
    from TF 2.21's compat.v1: StaticVocabularyTable over the file, 2 OOV buckets."""
    (tmp_path / "lines.txt").write_bytes(b"the cat sat\ndog barks loud\nthe dog sat down\n")
    (tmp_path / "vocab.txt").write_bytes(b"the\ncat\ndog\nsat\n")
    table = tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
        str(tmp_path / "vocab.txt"), tf.string, TextFileIndex.WHOLE_LINE, tf.int64,
        TextFileIndex.LINE_NUMBER), 2)
    dataset = tf.data.TextLineDataset(str(tmp_path / "lines.txt")).map(
        lambda line: table.lookup(tf.string_split([line]).values)).padded_batch(2, [None])
    iterator = dataset.make_initializable_iterator()
    ids = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized"):
            sess.run(ids)
        sess.run([iterator.initializer, tf.tables_initializer()])
        np.testing.assert_array_equal(sess.run(ids), [[0, 1, 3], [2, 5, 4]])
        np.testing.assert_array_equal(sess.run(ids), [[0, 2, 3, 5]])
    with tf.Session() as other:  # its own tables: not initialised there
        other.run(iterator.initializer)
        with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized"):
            other.run(ids)


def test_a_string_inside_a_cond_branch_is_refused_saying_where_to_compute_it():
    """TF computes a lookup inside a tf.cond branch; TinyFlow's strings live outside the
    executors, so the branch taking one is refused when bound, naming it and saying what to
    do; the same lookup outside the branch works."""
    table = _string_table()
    keys, take = tf.placeholder(tf.string, [None]), tf.placeholder(tf.bool, [])
    inside = tf.cond(take, lambda: table.lookup(keys), lambda: tf.zeros([2], tf.int64))
    ids = table.lookup(keys)
    outside = tf.cond(take, lambda: ids, lambda: tf.zeros([2], tf.int64))
    feed = {keys: np.array([b"a", b"c"], dtype=object), take: True}
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        with pytest.raises(BindError,
                           match=r"node 'cond/If'.*string tensor.*outside any tf.cond branch"):
            sess.run(inside, feed)
        np.testing.assert_array_equal(sess.run(outside, feed), [1, -1])
