"""tf.data with string elements and the input pipelines that start from file names
(``list_files``, ``interleave`` into the file readers, a placeholder of names, ``CsvDataset``,
``make_csv_dataset``).  Every expected value below came from real TensorFlow (tensorflow-cpu
2.21's tf.compat.v1 in graph mode, /work/tfvenv) run on the same files; an error's words are
TF's where the comment says so."""
import collections

import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _values(dataset, limit=50, initializer_feed=None):
    """The elements an iterator over ``dataset`` gives, until its end (or ``limit``)."""
    if initializer_feed is None:
        iterator = dataset.make_one_shot_iterator()
    else:
        iterator = dataset.make_initializable_iterator()
    element, values = iterator.get_next(), []
    with tf.Session() as sess:
        if initializer_feed is not None:
            sess.run(iterator.initializer, initializer_feed)
        for _ in range(limit):
            try:
                values.append(sess.run(element))
            except tf.errors.OutOfRangeError:
                break
    return values


def _example(i, name):
    return tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5, -i])),
        "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[name.encode()])),
        "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))})).SerializeToString()


@pytest.fixture
def files(tmp_path):
    """Text files f0..f2 (i + 2 lines each), TFRecord files train-0..2 (k + 2 examples) and
    CSV files a.csv, b.csv, c.csv, m1.csv, m2.csv: the files the TF runs read."""
    for i in range(3):
        (tmp_path / f"f{i}.txt").write_text("".join(f"l{i}-{j}\n" for j in range(i + 2)))
        with tf.python_io.TFRecordWriter(str(tmp_path / f"train-{i}.tfrecord")) as writer:
            for j in range(i + 2):
                writer.write(_example(10 * i + j, f"n{i}{j}"))
    (tmp_path / "a.csv").write_text('id,name,score,flag\n1,"x, y",0.5,3\n2,bob,,4000000000\n'
                                    '3,"q""t",1e3,\n')
    (tmp_path / "b.csv").write_text("id,name,score,flag\n4,zed,2.5,7\n")
    (tmp_path / "c.csv").write_text('1,"multi\nline",2\n\n3, 4 ,5\r\n6,x,7')
    (tmp_path / "m1.csv").write_text("a,b,c,d,e,f\n1,x,0.5,,4000000000,1e40\n2,y,1,,5,2\n"
                                     '3,"z, w",2,,6,3\n')
    (tmp_path / "m2.csv").write_text("a,b,c,d,e,f\n4,v,3.5,,7,4\n5,u,4,,8,5\n")
    return tmp_path


def _names(files, pattern):
    return sorted(str(p) for p in files.glob(pattern))


# -- string elements through the transformations --------------------------------------------
def test_string_slices_dicts_and_batches():
    assert _values(tf.data.Dataset.from_tensor_slices(["a", "bc"])) == [b"a", b"bc"]
    mixed = tf.data.Dataset.from_tensor_slices(({"s": ["a", "b"], "n": [1, 2]}, [0.5, 1.5]))
    assert mixed.output_types == ({"s": tf.string, "n": tf.int32}, tf.float32)
    (features, labels), = _values(mixed.batch(2))
    assert features["s"].dtype == object and features["s"].tolist() == [b"a", b"b"]
    assert features["n"].tolist() == [1, 2] and labels.tolist() == [0.5, 1.5]
    # an estimator's input_fn: numpy columns of str (object and '<U' arrays), int64 labels
    columns = {"city": np.array(["paris", "rome", "oslo"], dtype=object),
               "age": np.array([30, 40, 50]), "tags": np.array([["a", "b"], ["c", "d"],
                                                                ["e", "f"]])}
    pipeline = tf.data.Dataset.from_tensor_slices((columns, np.array([1, 0, 1])))
    assert pipeline.output_types == ({"city": tf.string, "age": tf.int64, "tags": tf.string},
                                     tf.int64)
    batches = _values(pipeline.shuffle(10, seed=1).repeat(2).batch(4))
    assert [len(b[1]) for b in batches] == [4, 2]
    assert sorted(c for b in batches for c in b[0]["city"].tolist()) == [
        b"oslo", b"oslo", b"paris", b"paris", b"rome", b"rome"]
    assert batches[0][0]["tags"].shape == (4, 2)
    whole, = _values(tf.data.Dataset.from_tensors(["a", "b"]))
    assert whole.dtype == object and whole.tolist() == [b"a", b"b"]
    assert _values(tf.data.Dataset.from_tensor_slices(tf.constant(["p", "q"]))) == [b"p", b"q"]


def test_padded_batch_pads_strings_with_empty_bytes():
    words = tf.data.Dataset.from_tensor_slices(["a b", "c", "d e f"]).map(
        lambda s: tf.string_split([s]).values)
    assert [b.tolist() for b in _values(words.padded_batch(2, [None]))] == [
        [[b"a", b"b"], [b"c", b""]], [[b"d", b"e", b"f"]]]
    assert _values(words.take(2).padded_batch(2, [3], padding_values="<p>"))[0].tolist() == [
        [b"a", b"b", b"<p>"], [b"c", b"<p>", b"<p>"]]
    pairs = tf.data.Dataset.from_tensor_slices({"w": ["a b c", "d"], "n": [1, 2]}).map(
        lambda d: {"w": tf.string_split([d["w"]]).values, "n": d["n"]})
    batch, = _values(pairs.padded_batch(2, {"w": [None], "n": []},
                                        padding_values={"w": "PAD", "n": -1}))
    assert batch["w"].tolist() == [[b"a", b"b", b"c"], [b"d", b"PAD", b"PAD"]]
    assert batch["n"].tolist() == [1, 2]
    with pytest.raises(TypeError, match="values type <dtype: 'int32'> does not match type "
                                        "<dtype: 'string'>"):  # TF's words
        words.padded_batch(2, [3], padding_values=0)


def test_string_transformations_as_real_tf():
    letters = tf.data.Dataset.from_tensor_slices(["a", "b", "c"])
    assert _values(letters.skip(1).repeat(2).take(3)) == [b"b", b"c", b"b"]
    assert _values(tf.data.Dataset.zip((letters.take(2), tf.data.Dataset.range(5)))) == [
        (b"a", 0), (b"b", 1)]
    assert _values(tf.data.Dataset.zip({"s": letters.skip(1), "i": tf.data.Dataset.range(
        10).take(5)})) == [{"s": b"b", "i": 0}, {"s": b"c", "i": 1}]
    assert _values(letters.take(2).concatenate(tf.data.Dataset.from_tensors("c"))) == [
        b"a", b"b", b"c"]
    assert _values(tf.data.Dataset.from_tensor_slices(["a", "b", "a", "c", "b"]).apply(
        tf.data.experimental.unique())) == [b"a", b"b", b"c"]
    assert _values(tf.data.Dataset.from_tensors(["a", "b"]).unbatch()) == [b"a", b"b"]
    assert _values(letters.take(2).cache().repeat(2)) == [b"a", b"b", b"a", b"b"]
    assert [w.tolist() for w in _values(letters.window(2).flat_map(lambda w: w.batch(2)))] == [
        [b"a", b"b"], [b"c"]]
    assert _values(tf.data.Dataset.range(2).map(lambda i: (i, "tag"))) == [(0, b"tag"),
                                                                            (1, b"tag")]
    generated, = _values(tf.data.Dataset.from_generator(
        lambda: iter(["a", b"b"]), tf.string, tf.TensorShape([])).batch(2))
    assert generated.tolist() == [b"a", b"b"]
    with tf.Session() as sess:
        assert sess.run(letters.reduce(tf.constant(""), lambda s, x: tf.strings.join(
            [s, x]))) == b"abc"
    epochs = _values(letters.apply(tf.data.experimental.shuffle_and_repeat(3, 2, seed=4)))
    assert sorted(epochs[:3]) == sorted(epochs[3:]) == [b"a", b"b", b"c"]
    assert _values(tf.contrib.data.shuffle_and_repeat(3, 2, seed=4)(letters)) == epochs
    with pytest.raises(TypeError, match="must be strings"):
        tf.data.Dataset.from_tensor_slices(np.array(["a", 1], dtype=object))


# -- file names: list_files, flat_map / interleave into the readers, a placeholder of names ---
def test_list_files_sorted_shuffled_and_no_match(files):
    pattern = str(files / "f*.txt")
    names = [n.encode() for n in _names(files, "f*.txt")]
    listed = tf.data.Dataset.list_files(pattern, shuffle=False)
    assert listed.output_types == tf.string and listed.output_shapes.as_list() == []
    assert _values(listed) == names
    assert _values(tf.data.Dataset.list_files([str(files / "f2*"), str(files / "f0*")],
                                              shuffle=False)) == [names[0], names[2]]
    shuffled = [_values(tf.data.Dataset.list_files(pattern, seed=7).repeat(3)) for _ in "ab"]
    assert shuffled[0] == shuffled[1]  # a seed: the same orders
    assert all(sorted(shuffled[0][i:i + 3]) == names for i in (0, 3, 6))  # each a permutation
    assert len({tuple(shuffled[0][i:i + 3]) for i in (0, 3, 6)}) > 1  # shuffle=None shuffles
    # real TF: "assertion failed: [No files matched pattern: <pattern>]"
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"No files matched pattern: .*nope\*\.txt"):
        _values(tf.data.Dataset.list_files(str(files / "nope*.txt")))
    fed = tf.placeholder(tf.string, [])
    lines = tf.data.Dataset.list_files(fed, shuffle=False).interleave(
        tf.data.TextLineDataset, cycle_length=2)
    assert _values(lines, initializer_feed={fed: str(files / "f[01].txt")}) == [
        b"l0-0", b"l1-0", b"l0-1", b"l1-1", b"l1-2"]


def test_file_names_into_text_lines_as_real_tf(files):
    names = _names(files, "f*.txt")
    by_name = tf.data.Dataset.from_tensor_slices(names)
    assert _values(by_name.flat_map(tf.data.TextLineDataset)) == [
        b"l0-0", b"l0-1", b"l1-0", b"l1-1", b"l1-2", b"l2-0", b"l2-1", b"l2-2", b"l2-3"]
    assert _values(by_name.interleave(tf.data.TextLineDataset, cycle_length=2,
                                      block_length=2)) == [
        b"l0-0", b"l0-1", b"l1-0", b"l1-1", b"l1-2", b"l2-0", b"l2-1", b"l2-2", b"l2-3"]
    reversed_names = tf.data.Dataset.from_tensor_slices(names[::-1])
    expected = [b"l2-0", b"l1-0", b"l2-1", b"l1-1", b"l2-2", b"l1-2", b"l2-3", b"l0-0", b"l0-1"]
    assert _values(reversed_names.apply(tf.data.experimental.parallel_interleave(
        tf.data.TextLineDataset, cycle_length=2))) == expected
    assert _values(reversed_names.apply(tf.contrib.data.parallel_interleave(
        tf.data.TextLineDataset, cycle_length=2, sloppy=True))) == expected
    assert _values(tf.data.TextLineDataset(names).filter(
        lambda line: tf.strings.regex_full_match(line, ".*-1"))) == [b"l0-1", b"l1-1", b"l2-1"]
    (upper, pieces, numbers, lengths), = _values(tf.data.TextLineDataset(names[1]).map(
        lambda line: (tf.strings.upper(line), tf.strings.substr(line, 1, 2),
                      tf.strings.to_number(tf.strings.substr(line, 3, 1), tf.int32),
                      tf.strings.length(line))).batch(3))
    assert upper.tolist() == [b"L1-0", b"L1-1", b"L1-2"] and pieces.tolist() == [b"1-"] * 3
    assert numbers.tolist() == [0, 1, 2] and lengths.tolist() == [4, 4, 4]
    assert numbers.dtype == np.int32
    assert _values(by_name.take(2).map(tf.io.read_file)) == [b"l0-0\nl0-1\n",
                                                             b"l1-0\nl1-1\nl1-2\n"]
    (files / "bin.dat").write_bytes(b"HDabcdefghFT")
    assert _values(tf.data.Dataset.from_tensors(str(files / "bin.dat")).repeat(2).flat_map(
        lambda f: tf.data.FixedLengthRecordDataset(f, 3, header_bytes=2, footer_bytes=1))) == [
        b"abc", b"def", b"ghF"] * 2


def _parse(record):
    parsed = tf.parse_single_example(record, {
        "x": tf.FixedLenFeature([2], tf.float32), "name": tf.FixedLenFeature([], tf.string),
        "y": tf.FixedLenFeature([], tf.int64)})
    return {"x": parsed["x"], "name": parsed["name"]}, parsed["y"]


def test_tfrecord_pipelines_from_file_names(files):
    records = _names(files, "train-*.tfrecord")
    batches = _values(tf.data.Dataset.list_files(str(files / "train-*.tfrecord"),
                                                 shuffle=False).interleave(
        tf.data.TFRecordDataset, cycle_length=2).map(_parse).batch(2))
    assert [b[0]["name"].tolist() for b in batches] == [
        [b"n00", b"n10"], [b"n01", b"n11"], [b"n12", b"n20"], [b"n21", b"n22"], [b"n23"]]
    assert [b[1].tolist() for b in batches] == [[0, 10], [1, 11], [12, 20], [21, 22], [23]]
    np.testing.assert_array_equal(batches[0][0]["x"], [[0, 0], [5, -10]])
    assert _values(tf.data.Dataset.from_tensor_slices(records).flat_map(
        tf.data.TFRecordDataset).map(_parse).map(lambda f, y: (f["name"], y)))[2:5] == [
        (b"n10", 10), (b"n11", 11), (b"n12", 12)]
    fed = tf.placeholder(tf.string, [None])
    names = tf.data.TFRecordDataset(fed).map(_parse).map(lambda f, y: f["name"])
    assert _values(names, initializer_feed={fed: records[1:]}) == [
        b"n10", b"n11", b"n12", b"n20", b"n21", b"n22", b"n23"]
    fed_names = tf.placeholder(tf.string, [None])
    labels = tf.data.Dataset.from_tensor_slices(fed_names).interleave(
        lambda f: tf.data.TFRecordDataset(f).map(_parse), cycle_length=3,
        block_length=2).map(lambda f, y: y).batch(4)
    assert [b.tolist() for b in _values(labels, initializer_feed={fed_names: records})] == [
        [0, 1, 10, 11], [20, 21, 12, 22], [23]]


# -- CsvDataset ------------------------------------------------------------------------------
def test_csv_dataset_values_as_real_tf(files):
    a, b = str(files / "a.csv"), str(files / "b.csv")
    rows = tf.data.experimental.CsvDataset(
        a, [tf.constant(0, tf.int64), "", tf.constant(-1.0), tf.constant(0, tf.int64)],
        header=True)
    assert rows.output_types == (tf.int64, tf.string, tf.float32, tf.int64)
    assert _values(rows) == [(1, b"x, y", 0.5, 3), (2, b"bob", -1.0, 4000000000),
                             (3, b'q"t', 1000.0, 0)]
    selected = tf.contrib.data.CsvDataset([a, b], [tf.int32, [0.0]], header=True,
                                          select_cols=[0, 2])
    assert _values(selected) == [(1, 0.5), (2, 0.0), (3, 1000.0), (4, 2.5)]
    assert _values(tf.data.experimental.CsvDataset(
        b, [[0], ["d"], [0.0], [0]], header=True, na_value="zed")) == [(4, b"d", 2.5, 7)]
    assert _values(tf.data.experimental.CsvDataset(b, [[""]], field_delim="|")) == [
        (b"id,name,score,flag",), (b"4,zed,2.5,7",)]
    assert _values(tf.data.experimental.CsvDataset(b, [[0], [""]], header=True,
                                                   select_cols=[0, 1])) == [(4, b"zed")]
    kinds = tf.data.experimental.CsvDataset(b, [[0], [""], tf.constant([], tf.float64),
                                                tf.int64])
    assert kinds.output_types == (tf.int32, tf.string, tf.float64, tf.int64)
    # a quoted field over two lines is one field; an empty line one empty field
    multi = tf.data.experimental.CsvDataset(str(files / "c.csv"), [[""]] * 3)
    assert _values(multi.take(1)) == [(b"1", b"multi\nline", b"2")]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 3 fields but have 1"):
        _values(multi)


@pytest.mark.parametrize("defaults, options, message", [  # TF's words, each at its record
    ([tf.int32, tf.string, tf.float32, tf.int64], {"header": True},
     "Field 2 is required but missing in record 3"),
    ([tf.int32, tf.string, tf.float32, tf.int64], {},
     "Field 0 in record 1 .* is not a valid int32: id"),
    ([[0], [""], [0.0], [0]], {"header": True},
     "Field 3 in record 3 .* is not a valid int32: 4000000000"),
    ([tf.int32, tf.string], {"header": True}, "Expect 2 fields but have more in record 2"),
    ([tf.int32, tf.string], {"header": True, "select_cols": [0, 9]},
     "Expect 2 fields but have 1 in record 2"),
    ([tf.int32, tf.string], {"select_cols": [2, 0]},
     "select_cols should be strictly increasing indices"),
    ([tf.int32, tf.string], {"select_cols": [0]}, "select_cols should match output size"),
    ([[1]], {"select_cols": [-1]}, "select_cols should be non-negative indices"),
    ([[1]], {"field_delim": "ab"}, "field_delim should be only 1 char"),
    ([[""]] * 4, {"header": True, "use_quote_delim": False},
     "Expect 4 fields but have more in record 2"),
])
def test_csv_dataset_errors_as_real_tf(files, defaults, options, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _values(tf.data.experimental.CsvDataset(str(files / "a.csv"), defaults, **options))


def test_csv_dataset_argument_errors(files):
    with pytest.raises(TypeError, match="has DataType bool not in list"):  # TF's words
        tf.data.experimental.CsvDataset(str(files / "b.csv"), [[True]])
    with pytest.raises(ValueError, match="Shape of a default must be a length-0 or length-1"):
        tf.data.experimental.CsvDataset(str(files / "b.csv"), [[1, 2]])
    with pytest.raises(tf.errors.NotFoundError, match="zz.csv; No such file or directory"):
        _values(tf.data.experimental.CsvDataset(str(files / "zz.csv"), [[0]]))


# -- make_csv_dataset -------------------------------------------------------------------------
def test_make_csv_dataset_infers_types_and_batches_as_real_tf(files):
    make = tf.data.experimental.make_csv_dataset
    pattern = str(files / "m*.csv")
    forever = make(pattern, 2, shuffle=False)
    assert list(forever.output_types.items()) == [
        ("a", tf.int32), ("b", tf.string), ("c", tf.float32), ("d", tf.string),
        ("e", tf.int64), ("f", tf.float64)]
    assert all(s.as_list() == [2] for s in forever.output_shapes.values())
    first, second, last = _values(make(pattern, 2, shuffle=False, num_epochs=1))
    assert isinstance(first, collections.OrderedDict) and list(first) == list("abcdef")
    assert first["b"].tolist() == [b"x", b"y"] and second["b"].tolist() == [b"z, w", b"v"]
    assert first["d"].tolist() == [b"", b""] and first["e"].tolist() == [4000000000, 5]
    np.testing.assert_array_equal(first["f"], [1e40, 2.0])
    assert last["a"].tolist() == [5] and last["c"].dtype == np.float32
    labelled = _values(make(pattern, 2, shuffle=False, num_epochs=1, label_name="a",
                            select_columns=["a", "b", "e"]))
    assert [(list(f), f["b"].tolist(), y.tolist()) for f, y in labelled] == [
        (["b", "e"], [b"x", b"y"], [1, 2]), (["b", "e"], [b"z, w", b"v"], [3, 4]),
        (["b", "e"], [b"u"], [5])]
    assert [b["a"].tolist() for b in _values(make(pattern, 2, shuffle=False,
                                                  select_columns=[0]), 4)] == [
        [1, 2], [3, 4], [5, 1], [2, 3]]  # repeated forever, every batch full
    given, = _values(make(str(files / "m2.csv"), 3, shuffle=False, num_epochs=1,
                          column_defaults=[0, "", 0.0, 0.0, tf.int64, [0.0]]))
    assert given["d"].tolist() == [0.0, 0.0] and given["f"].dtype == np.float32
    assert [b["a"].tolist() for b in _values(make(
        [str(files / "m1.csv"), str(files / "m2.csv")], 1, shuffle=False, num_epochs=1,
        num_parallel_reads=2, select_columns=["a"]))] == [[1], [4], [2], [5], [3]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Field 3 is required but missing in record 2"):
        _values(make(str(files / "m2.csv"), 3, column_names=list("pqrstu"), header=False,
                     shuffle=False, num_epochs=1, column_defaults=[tf.string] * 6))
    shuffled = [sorted(v for b in _values(make(pattern, 5, num_epochs=1, shuffle_seed=3,
                                               select_columns=["a"])) for v in b["a"])
                for _ in "ab"]
    assert shuffled[0] == shuffled[1] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("arguments, message", [  # TF's words
    ({"label_name": "zz"}, r"`label_name` provided must be one of the columns: \['a'"),
    ({"header": False}, "Expected `column_names` or `header` arguments"),
    ({"select_columns": ["q"]}, "Column q specified in `select_columns` must be of one of"),
    ({"select_columns": ["a", 0]}, "The `select_columns` argument contains duplicate"),
    ({"select_columns": ["a", "b"], "column_defaults": [0]},
     "`column_defaults` has length 1, `select_columns` has length 2"),
])
def test_make_csv_dataset_errors_as_real_tf(files, arguments, message):
    with pytest.raises(ValueError, match=message):
        tf.data.experimental.make_csv_dataset(str(files / "m*.csv"), 2, **arguments)
    with pytest.raises(ValueError, match="No files match `file_pattern`"):
        tf.data.experimental.make_csv_dataset(str(files / "none*.csv"), 2)


def test_make_csv_dataset_ignore_errors_skips_bad_records(tmp_path):
    (tmp_path / "bad.csv").write_text("a,b\n1,2\nx,3\n4,5\n")
    batch, = _values(tf.data.experimental.make_csv_dataset(
        str(tmp_path / "bad.csv"), 5, column_defaults=[tf.int32, tf.int32], shuffle=False,
        num_epochs=1, ignore_errors=True))
    assert batch["a"].tolist() == [1, 4] and batch["b"].tolist() == [2, 5]
    with pytest.raises(AttributeError, match="tf.contrib.data.sliding_window_batch"):
        tf.contrib.data.sliding_window_batch  # noqa: B018


def test_csv_files_are_read_within_the_free_memory(tmp_path, monkeypatch):
    from tinyflow.frontend import python_io
    from tinyflow.nnvm import host_memory
    monkeypatch.setattr(python_io, "_PIECE", 64)  # pieces of 64 bytes: the checks come early
    monkeypatch.setattr(host_memory, "host_available_bytes", lambda: (1000, "a test's"))
    (tmp_path / "open.csv").write_text('1,"never closed\n' + "more text\n" * 200)
    with pytest.raises(tf.errors.ResourceExhaustedError, match="a quoted CSV field of"):
        _values(tf.data.experimental.CsvDataset(str(tmp_path / "open.csv"), [[0], [""]]))
    (tmp_path / "wide.csv").write_text("a" * 5000 + "\n1\n")
    with pytest.raises(tf.errors.ResourceExhaustedError, match="wide.csv holds more than"):
        tf.data.experimental.make_csv_dataset(str(tmp_path / "wide.csv"), 1)


# -- an estimator's input_fn of string columns ---------------------------------------------
def test_monitored_session_initializes_tables_as_tf():
    # TF's Scaffold.default_local_init_op groups the local variables' and the tables'
    # initializers: a MonitoredTrainingSession looks a table up without tables_initializer()
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        ["paris", "rome"], [1, 2]), -1)
    found = table.lookup(tf.constant(["rome", "oslo"]))
    with tf.train.MonitoredTrainingSession() as sess:
        assert sess.run(found).tolist() == [2, -1]
    with tf.train.Supervisor(logdir=None).managed_session() as sess:  # its default: the same
        assert sess.run(found).tolist() == [2, -1]


@pytest.mark.filterwarnings("ignore:no meta graph")  # a dataset's iterator is no graph JSON
def test_estimator_trains_on_an_input_fn_of_string_columns(tmp_path):
    def input_fn():
        features = {"city": np.array(["paris", "rome", "oslo", "rome"], dtype=object),
                    "age": np.float32([30, 40, 50, 20])}
        return tf.data.Dataset.from_tensor_slices((features, np.array([1, 0, 1, 0]))).repeat(
            3).batch(2)
    city = tf.feature_column.categorical_column_with_vocabulary_list(
        "city", ["paris", "rome", "oslo"])
    estimator = tf.estimator.DNNClassifier(
        hidden_units=[4], model_dir=str(tmp_path), feature_columns=[
            tf.feature_column.numeric_column("age"), tf.feature_column.indicator_column(city)])
    estimator.train(input_fn, steps=3)
    assert estimator.evaluate(input_fn, steps=2)["global_step"] == 3
    classes = [p["classes"].tolist() for p in estimator.predict(lambda: input_fn().take(1))]
    assert len(classes) == 2 and all(c in ([b"0"], [b"1"]) for c in classes)
