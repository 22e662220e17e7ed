"""``tf.io``'s files and tensor bytes against real TensorFlow: ``matching_files``,
``write_file``, ``serialize_tensor`` / ``parse_tensor`` and ``write_graph``.

Every hex string, file list and error text here was recorded from TensorFlow 2.21's
tf.compat.v1 (tensorflow-cpu in /work/tfvenv, graph mode): its SerializeTensor's bytes for each
dtype, its MatchingFiles over the folder ``_tree`` makes, its WriteFile's folders and errors.
``parse_tensor``'s bytes are untrusted: a shape claiming more than the host's memory is refused
before anything is allocated.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.nnvm import host_memory

pytestmark = pytest.mark.usefixtures("fresh_graph")

# TF 2.21: sess.run(tf.io.serialize_tensor(tf.constant(value))).hex()
SERIALIZED = [
    (np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
     "0801120812020802120208032218000000000000803e0000003f0000403f0000803f0000a03f"),
    (np.int32(-7), "080312002204f9ffffff"),
    (np.array([1, -2, 2 ** 40], np.int64),
     "080912041202080322180100000000000000feffffffffffffff0000000000010000"),
    (np.zeros((0, 3), np.float64), "08021206120012020803"),
    (np.array([True, False, True]), "080a1204120208032203010001"),
    (np.array([1, 255], np.uint8), "0804120412020802220201ff"),
    (np.array([1.5, -2], np.float16), "08131204120208022204003e00c0"),
    (np.array([b"ab", b"", b"xyz"], dtype=object), "0807120412020803420261624200420378797a"),
    (np.array(b"hello", dtype=object), "08071200420568656c6c6f"),
]


def _constant(value):
    return tf.constant(value.tolist() if value.dtype == object else value)


@pytest.mark.parametrize("value, expected", SERIALIZED, ids=[h[:12] for _, h in SERIALIZED])
def test_serialize_tensor_writes_tfs_bytes_and_parse_tensor_reads_them(value, expected):
    dtype = tf.string if value.dtype == object else value.dtype
    serialized = tf.io.serialize_tensor(_constant(value))
    parsed = tf.io.parse_tensor(serialized, dtype)  # fed from the Python op
    from_bytes = tf.io.parse_tensor(bytes.fromhex(expected), dtype)
    with tf.Session() as session:
        data, back, read = session.run([serialized, parsed, from_bytes])
    assert data.hex() == expected
    for got in (back, read):
        if value.dtype == object and value.ndim == 0:  # a string scalar runs as bytes, as TF's
            assert isinstance(got, bytes)
            got = np.array(got, dtype=object)
        assert got.shape == value.shape and got.dtype == value.dtype
        np.testing.assert_array_equal(got, value)


def test_parsed_tensors_feed_the_engine_and_typed_value_fields():
    # float_val [1.5, 2.5] in a shape of 4: TF's Tensor::FromProto repeats the last value
    typed = bytes.fromhex("08011204120208042a08" + np.array([1.5, 2.5], "<f4").tobytes().hex())
    doubled = tf.io.parse_tensor(typed, tf.float32) * 2
    placeholder = tf.placeholder(tf.string, [])
    ints = tf.io.parse_tensor(placeholder, tf.int64) + 1
    with tf.Session() as session:
        assert session.run(doubled).tolist() == [3.0, 5.0, 5.0, 5.0]
        assert session.run(ints, {placeholder: bytes.fromhex(SERIALIZED[2][1])}).tolist() == [
            2, -1, 2 ** 40 + 1]
    assert tf.io.parse_tensor(typed, tf.float32).shape.ndims is None  # TF 2.21: <unknown>


@pytest.mark.parametrize("data, dtype, message", [
    # TF 2.21's texts (TF adds the bytes in base64 to the second and third)
    (SERIALIZED[0][1], tf.int32, r"Type mismatch between parsed tensor \(float\) and dtype"),
    ("ffffff", tf.float32, "Could not parse `serialized` as TensorProto"),
    (SERIALIZED[0][1][:-6], tf.float32, "Could not parse `serialized` as TensorProto"),
    ("", tf.float32, "Cannot parse tensor from proto"),
])
def test_parse_tensor_errors(data, dtype, message):
    parsed = tf.io.parse_tensor(bytes.fromhex(data), dtype)
    with tf.Session() as session:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            session.run(parsed)
        placeholder = tf.placeholder(tf.string)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Expected `serialized` to be a scalar, got shape: \[2\]"):
            session.run(tf.io.parse_tensor(placeholder, tf.float32), {placeholder: [b"", b""]})


def test_parse_tensor_checks_the_memory_a_shape_claims(monkeypatch):
    monkeypatch.setattr(host_memory, "host_available_bytes", lambda: (1 << 20, "a test's"))
    # shape [2**40], float_val [1]: 12 bytes that would fill 4 TB
    bomb = (bytes.fromhex("08011209120708") + bytes([0x80, 0x80, 0x80, 0x80, 0x80, 0x20])
            + bytes.fromhex("2a040000803f"))
    parsed = tf.io.parse_tensor(bomb, tf.float32)
    with tf.Session() as session, pytest.raises(
            tf.errors.ResourceExhaustedError,
            match=r"\[1099511627776\] float32 needs 4398046511104 bytes, more than the 1048576"):
        session.run(parsed)


def _tree(root):
    for name in ("b.txt", "a.txt", ".hidden.txt", "c.csv", "x[1].txt"):
        (root / name).write_bytes(b"")
    (root / "sub").mkdir()
    (root / "sub" / "d.txt").write_bytes(b"")


@pytest.mark.parametrize("pattern, expected", [
    # TF 2.21 in a folder _tree made (the current directory)
    ("*.txt", ["./.hidden.txt", "./a.txt", "./b.txt", "./x[1].txt"]),
    (["*.csv", "*.txt"], ["./.hidden.txt", "./a.txt", "./b.txt", "./c.csv", "./x[1].txt"]),
    ("*/*.txt", ["./sub/d.txt"]),
    ("nomatch*", []),
    ("sub", ["sub"]),
    ("a.txt", ["a.txt"]),
    ("[ab].txt", ["./a.txt", "./b.txt"]),
    ("x\\[1\\].txt", ["./x[1].txt"]),
    ("*", ["./.hidden.txt", "./a.txt", "./b.txt", "./c.csv", "./sub", "./x[1].txt"]),
])
def test_matching_files_as_tf(tmp_path, monkeypatch, pattern, expected):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    matched = tf.io.matching_files(pattern)
    with tf.Session() as session:
        assert [os.fsdecode(n) for n in session.run(matched).tolist()] == expected
    assert matched.shape.as_list() == [None]  # TF 2.21's static shape


def test_matching_files_absolute_and_fed(tmp_path):
    _tree(tmp_path)
    pattern = tf.placeholder(tf.string, [])
    matched = tf.matching_files(pattern)
    with tf.Session() as session:
        assert session.run(matched, {pattern: f"{tmp_path}/?.txt"}).tolist() == [
            f"{tmp_path}/a.txt".encode(), f"{tmp_path}/b.txt".encode()]
        # a hostile pattern: many stars do not blow up (fnmatch's regex)
        assert session.run(matched, {pattern: f"{tmp_path}/" + "*a" * 40 + "b"}).tolist() == []
    with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
        tf.io.matching_files([["a"]])


def test_write_file_makes_folders_and_names_errors(tmp_path):
    target = tmp_path / "new" / "deep" / "out.bin"
    write = tf.io.write_file(str(target), tf.constant(b"abc"))
    assert write.is_operation
    with tf.Session() as session:
        assert session.run(write) is None
        assert target.read_bytes() == b"abc"  # TF 2.21: its folders made
        placeholder = tf.placeholder(tf.string, [])
        rewrite = tf.write_file(str(target), placeholder)
        session.run(rewrite, {placeholder: b"\x00\x01"})
        assert target.read_bytes() == b"\x00\x01"
        with pytest.raises(tf.errors.FailedPreconditionError,  # TF 2.21's text
                           match=rf"{tmp_path / 'new'}; Is a directory"):
            session.run(tf.io.write_file(str(tmp_path / "new"), tf.constant(b"x")))
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.io.write_file(str(target), tf.constant([b"x", b"y"]))


@pytest.mark.parametrize("as_text", [True, False])
def test_write_graph_returns_tfs_path_in_tinyflows_format(tmp_path, as_text):
    assert tf.io.write_graph is tf.train.write_graph  # as TF 2.21's
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(1.0, name="c")
    folder = tmp_path / "a" / "b"
    path = tf.io.write_graph(graph, str(folder), "g.pb", as_text=as_text)
    assert path == os.path.join(str(folder), "g.pb")  # TF 2.21's return, its folders made
    data = Path(path).read_bytes()
    if not as_text:
        assert data == graph.as_graph_def().SerializeToString()
    read = tf.GraphDef()
    read.ParseFromString(data)
    assert [n.name for n in read.node] == ["c"]
