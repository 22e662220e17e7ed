"""Mutable tables in checkpoints (frontend/saver.py, ops/mutable_tables.py): TF 1.15's
``<table name>-keys`` / ``<table name>-values`` tensors (strings as TF's tensor bundle writes
them, checkpoint_format.py), saved by ``tf.train.Saver()`` from the SAVEABLE_OBJECTS
collection or from ``var_list``, restored replacing the session's contents; the checkpoint
``tests/data/tf_checkpoint/tables-1`` was written by TF 2.21's tf.compat.v1 Saver
(tools/checkpoint_golden.py), and every value below came from TF for the same program."""
import os
from pathlib import Path

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend import checkpoint_format as fmt
from tinyflow.frontend.saver import CheckpointError, CheckpointKeyError
from tinyflow.nnvm import host_memory

pytestmark = pytest.mark.usefixtures("fresh_graph")
GOLDEN = os.path.join(os.path.dirname(__file__), "data", "tf_checkpoint", "tables-1")


def _tables():
    """The golden checkpoint's tables, as tools/checkpoint_golden.py makes them in TF."""
    words = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1, name="words")
    names = tf.lookup.experimental.MutableHashTable(tf.int64, tf.string, ["?", "?"],
                                                    name="names")
    dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, -1.0, empty_key=0,
                                                  deleted_key=-1, initial_num_buckets=8,
                                                  name="dense")
    return words, names, dense


def _fill(sess, words, names, dense):
    sess.run([words.insert(np.array(["a", "bb", "", "ccc"], dtype=object), [1, 2, 3, 4]),
              names.insert([7, -3], np.array([["seven", "7"], ["minus", "three"]], object)),
              dense.insert([3, 11, 4, 20], [0.5, 1.5, 2.5, 3.5])])
    sess.run(dense.remove([4]))


def _lookups(words, names, dense):
    return [words.lookup(np.array(["a", "", "ccc", "x"], dtype=object)),
            names.lookup([7, -3, 1]), dense.lookup([3, 11, 4, 20, 5]), words.size(),
            dense.size()]


def _check_golden_values(got):
    # TF 2.21 compat.v1 after restoring tables-1: [1 3 4 -1], [[seven 7] [minus three]
    # [? ?]], [0.5 1.5 -1 3.5 -1], 4, 3
    assert got[0].tolist() == [1, 3, 4, -1]
    assert got[1].tolist() == [[b"seven", b"7"], [b"minus", b"three"], [b"?", b"?"]]
    assert got[2].tolist() == [0.5, 1.5, -1.0, 3.5, -1.0]
    assert (got[3], got[4]) == (4, 3)


def test_tensorflows_table_checkpoint_restores_replacing_the_contents():
    words, names, dense = _tables()
    sess = tf.Session()
    sess.run(words.insert(np.array(["zzz"], dtype=object), [5]))  # replaced, as TF's import
    tf.train.Saver().restore(sess, GOLDEN)
    got = sess.run(_lookups(words, names, dense) + [words.lookup(np.array(["zzz"], object))])
    _check_golden_values(got)
    assert got[5].tolist() == [-1]


def test_saved_tables_have_tensorflows_names_and_layout(tmp_path):
    words, names, dense = _tables()
    v = tf.Variable(2.5, name="v")
    unsaved = tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, 0, name="off",
                                                      checkpoint=False)
    assert tf.get_collection(tf.GraphKeys.SAVEABLE_OBJECTS) == [words, names, dense]
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    _fill(sess, words, names, dense)
    sess.run(unsaved.insert([1], [1]))
    path = tf.train.Saver().save(sess, str(tmp_path / "model"), write_meta_graph=False)
    ours, golden = tf.train.load_checkpoint(path), tf.train.load_checkpoint(GOLDEN)
    assert tf.train.list_variables(path) == [  # TF's, and the variable's
        ("dense-keys", [8, 1]), ("dense-values", [8, 1]), ("names-keys", [2]),
        ("names-values", [2, 2]), ("v", []), ("words-keys", [4]), ("words-values", [4])]
    for name in ("dense-keys", "dense-values"):  # TF's buckets, the removed key's included
        np.testing.assert_array_equal(ours.get_tensor(name), golden.get_tensor(name))
    for table in ("words", "names"):  # TF's entries (its order is its hash map's)
        def entries(reader, table=table):
            return sorted(zip(reader.get_tensor(f"{table}-keys").tolist(),
                              map(str, reader.get_tensor(f"{table}-values").tolist())))
        assert entries(ours) == entries(golden)
    fresh = tf.Session()
    tf.train.Saver().restore(fresh, path)
    _check_golden_values(fresh.run(_lookups(words, names, dense)))
    assert fresh.run(v) == 2.5 and fresh.run(unsaved.size()) == 0


def test_var_list_names_a_table_by_its_name_or_the_dicts_key(tmp_path):
    words, names, dense = _tables()
    sess = tf.Session()
    _fill(sess, words, names, dense)
    listed = tf.train.Saver([words]).save(sess, str(tmp_path / "a"), write_meta_graph=False)
    keyed = tf.train.Saver({"foo": dense}).save(sess, str(tmp_path / "b"),
                                                write_meta_graph=False)
    assert [n for n, _ in tf.train.list_variables(listed)] == ["words-keys", "words-values"]
    assert [n for n, _ in tf.train.list_variables(keyed)] == ["foo-keys", "foo-values"]
    other = tf.Session()
    tf.train.Saver({"foo": dense}).restore(other, keyed)
    assert other.run(dense.lookup([20, 11])).tolist() == [3.5, 1.5]
    with pytest.raises(CheckpointKeyError, match="'words-keys' is not in the file"):
        tf.train.Saver([words]).restore(other, keyed)


def test_string_tensors_are_written_as_tensorflow_writes_them():
    golden = fmt.read_index(Path(GOLDEN + ".index").read_bytes())[1]["words-keys"]
    with open(GOLDEN + ".data-00000-of-00001", "rb") as file:
        file.seek(golden.offset)
        raw = file.read(golden.size)
    written = fmt.string_bytes([b"ccc", b"", b"bb", b"a"])  # TF's order in tables-1
    assert written == (raw, fmt.unmask_crc(golden.crc32c))
    assert fmt.read_strings(raw, 4, written[1]) == [b"ccc", b"", b"bb", b"a"]
    assert raw[:4] == b"\x03\x00\x02\x01"  # the lengths: then swapped, their sum kept
    for bad in (raw[:-1], raw[:1] + b"\1" + raw[2:], b"\x02\x00\x03" + raw[3:]):
        with pytest.raises(fmt.FormatError, match="string tensor"):
            fmt.read_strings(bad, 4, written[1])


def _hostile(tmp_path, keys, values):
    """A checkpoint of the table ``words`` holding ``keys`` and ``values`` as they are."""
    with open(tmp_path / "bad.data-00000-of-00001", "wb") as data:
        (tmp_path / "bad.index").write_bytes(fmt.write_index(
            {"words-keys": keys, "words-values": values}, data))
    return str(tmp_path / "bad")


def test_hostile_table_checkpoints_are_refused_before_the_table_changes(tmp_path, monkeypatch):
    words = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1, name="words")
    dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, empty_key=0,
                                                  deleted_key=-1, initial_num_buckets=4,
                                                  name="words")
    sess = tf.Session()
    sess.run(words.insert(np.array(["kept"], dtype=object), [7]))
    many = np.array([b"k%d" % i for i in range(2000)], dtype=object)
    path = _hostile(tmp_path, many, np.arange(2000))
    with pytest.raises(CheckpointError, match="words.*max_restore_bytes"):
        tf.train.Saver([words], max_restore_bytes=20000).restore(sess, path)
    monkeypatch.setattr(host_memory, "host_available_bytes", lambda: (20000, "a test's"))
    with pytest.raises(CheckpointError, match="words.*20000.*a test's"):
        tf.train.Saver([words]).restore(sess, path)
    monkeypatch.undo()
    for keys, values, match in (
            (many[:3], np.arange(2), r"keys of shape \[3\] and values of shape \[2\]"),
            (np.arange(3), np.arange(3), "has dtype int64 in the file but string"),
            (many[:2], np.arange(2.0), "has dtype float64 in the file but int64")):
        with pytest.raises(CheckpointError, match=match):
            tf.train.Saver([words]).restore(sess, _hostile(tmp_path, keys, values))
    with pytest.raises(CheckpointError, match="buckets a power of two"):
        tf.train.Saver({"words": dense}).restore(sess, _hostile(
            tmp_path, np.arange(6).reshape(6, 1), np.arange(6).reshape(6, 1)))
    path = _hostile(tmp_path, many[:2], np.arange(2))
    raw = bytearray((tmp_path / "bad.data-00000-of-00001").read_bytes())
    raw[0] = 9  # a string's length no longer what the bytes hold
    (tmp_path / "bad.data-00000-of-00001").write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match="words-keys.*corrupt.*string tensor"):
        tf.train.Saver([words]).restore(sess, path)
    assert sess.run(words.lookup(np.array(["kept"], dtype=object))).tolist() == [7]


def test_a_string_entry_too_small_for_its_shape_is_refused():
    entry = fmt._entry_bytes(fmt.STRING_CODE, (1 << 40,), 0, 100, 0)
    with pytest.raises(fmt.FormatError, match="too few for a string tensor"):
        fmt._parse_entry("huge", entry)
