"""The TFRecord / tf.train.Example input pipeline against real TensorFlow.

Every hex string and expected value here was recorded from TensorFlow 2.21's tf.compat.v1
(tensorflow-cpu in /work/tfvenv): the Examples' bytes (``SerializeToString(deterministic=True)``,
protobuf's ordered map, which is what TinyFlow writes), the TFRecord files its
``tf.io.TFRecordWriter`` wrote, and what its ``tf.parse_example`` / ``parse_single_example``
gave for them, errors included.  Untrusted bytes (a damaged file, garbage or hostile protobuf)
must give TF's error class, never a crash, a hang or an allocation past the input's size.
"""
from __future__ import annotations

import gzip
import struct
import zlib

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.checkpoint_format import crc32c, mask_crc
from tinyflow.frontend.example_proto import DecodeError

# -- bytes TF 2.21 compat.v1 wrote -------------------------------------------------------------
# Example(features={"a": int64_list [1, -2, 300]})
E_INT = "0a180a160a016112111a0f0a0d01feffffffffffffffff01ac02"
# Example(features={"f": float_list [0.5, -1.25, 0.1]})
E_FLOAT = "0a170a150a01661210120e0a0c0000003f0000a0bfcdcccc3d"
# Example(features={"b": bytes_list [b"hi", b""]})
E_BYTES = "0a0f0a0d0a016212080a060a0268690a00"
# Example(features={"z": int64_list [], "y": float_list [2.0], "x": bytes_list [b"abc"]})
E_MIXED = ("0a260a0c0a017812070a050a036162630a0d0a0179120812060a04000000400a070a017a12021a00")
# Example(features={"q": Feature()}), a feature with no list
E_NO_LIST = "0a070a050a01711200"
# e = Example(); e.features.feature["k"].int64_list.value.extend([7, 8])
E_BUILT = "0a0d0a0b0a016b12061a040a020708"
# SequenceExample(context={"c": int64 [5]}, feature_lists={"t": [float [1, 2], float [3, 4]]})
SEQ = ("0a0c0a0a0a016312051a030a010512230a210a0174121c0a0c120a0a080000803f000000400a0c120a0a08"
       "0000404000008040")
# three examples, parsed below: a = {x: [1, 2], y: [0.5], s: [b"cat"], v: [4, 5, 6]},
# b = {x: [3, 4], y: [1.5], s: [b"dog"], v: []}, c = {x: [5, 6], v: [7]}
A = ("0a380a0c0a017312070a050a036361740a0c0a017612071a050a030405060a0b0a017812061a040a020102"
     "0a0d0a0179120812060a040000003f")
B = ("0a330a0c0a017312070a050a03646f670a070a017612021a000a0b0a017812061a040a0203040a0d0a0179"
     "120812060a040000c03f")
C = "0a190a0a0a017612051a030a01070a0b0a017812061a040a020506"
# tf.io.TFRecordWriter's files of the records A, B, C: uncompressed and GZIP
FILE_ABC = (
    "3a000000000000001295eae2" + A + "4f765c2c" + "3500000000000000d6c55de6" + B + "0ed5e81a"
    + "1b000000000000001a0d9e13" + C + "61628db3")
FILE_ABC_GZIP = (
    "1f8b0800000000000003b3628000a1a9af1e715970f17031160bb173b1723127279680786542ec52401e0b2b"
    "1b1737176385109b140b17132313172f1763a51087101b170b50b3bd7f598c8e29d4a46b47639f7119239994"
    "929fcec50e3289498a01c910661614430ed8f35d7d21250d35448a779e3097241717481bab143317233b924e"
    "56b6c4a4decd00652fedc4ba000000")
# the ZLIB file of the records E_INT, E_FLOAT, E_MIXED
FILE_ZLIB = (
    "789c93628000a1d93774b924b8c4b818138504a5f8b97819fffd8702c6354c7fdb36fc9384aaecfec8a1c125"
    "ce25cac598262420c4c7c50314b3676058b0ffec9933b6cb6e6cd7d1802afc5f20e6c5a5c6c5c3c55821c4ce"
    "c5cac59c9894ccc5cbc55829c421c4c6c50254e1c0c5cec55825c424c5a02ad95a010013252059")

F = tf.train.Feature


def _example(**features) -> tf.train.Example:
    return tf.train.Example(features=tf.train.Features(feature=features))


def _ints(*values):
    return F(int64_list=tf.train.Int64List(value=values))


def _floats(*values):
    return F(float_list=tf.train.FloatList(value=values))


def _bytes(*values):
    return F(bytes_list=tf.train.BytesList(value=values))


FEATURES = {"x": tf.FixedLenFeature([2], tf.int64),
            "y": tf.FixedLenFeature([], tf.float32, default_value=-1.0),
            "s": tf.FixedLenFeature([], tf.string, default_value=b"none"),
            "v": tf.VarLenFeature(tf.int64)}


# -- tf.train.Example: protobuf's wire format ---------------------------------------------------
@pytest.mark.parametrize("made, tf_hex", [
    (lambda: _example(a=_ints(1, -2, 300)), E_INT),
    (lambda: _example(f=_floats(0.5, -1.25, 0.1)), E_FLOAT),
    (lambda: _example(b=_bytes(b"hi", b"")), E_BYTES),
    (lambda: _example(z=_ints(), y=_floats(2.0), x=_bytes(b"abc")), E_MIXED),
    (lambda: _example(q=F()), E_NO_LIST),
    (lambda: tf.train.SequenceExample(
        context=tf.train.Features(feature={"c": _ints(5)}),
        feature_lists=tf.train.FeatureLists(feature_list={"t": tf.train.FeatureList(
            feature=[_floats(1.0, 2.0), _floats(3.0, 4.0)])})), SEQ),
])
def test_messages_serialize_to_tensorflows_bytes_and_parse_them_back(made, tf_hex):
    message = made()
    assert message.SerializeToString().hex() == tf_hex
    again = type(message).FromString(bytes.fromhex(tf_hex))
    assert again == message and again.SerializeToString().hex() == tf_hex


def test_values_read_from_tensorflows_bytes():
    example = tf.train.Example.FromString(bytes.fromhex(E_INT))
    assert list(example.features.feature["a"].int64_list.value) == [1, -2, 300]
    floats = tf.train.Example.FromString(bytes.fromhex(E_FLOAT)).features.feature["f"]
    assert floats.WhichOneof("kind") == "float_list"
    assert list(floats.float_list.value) == [0.5, -1.25, 0.10000000149011612]  # TF's float32
    mixed = tf.train.Example.FromString(bytes.fromhex(E_MIXED)).features.feature
    assert sorted(mixed) == ["x", "y", "z"]
    assert mixed["z"].WhichOneof("kind") == "int64_list" and not mixed["z"].int64_list.value
    assert list(mixed["x"].bytes_list.value) == [b"abc"]
    sequence = tf.train.SequenceExample.FromString(bytes.fromhex(SEQ))
    steps = sequence.feature_lists.feature_list["t"].feature
    assert [list(s.float_list.value) for s in steps] == [[1.0, 2.0], [3.0, 4.0]]
    assert list(sequence.context.feature["c"].int64_list.value) == [5]


def test_attribute_access_builds_as_protobuf_does():
    example = tf.train.Example()
    example.features.feature["k"].int64_list.value.extend([7, 8])
    assert example.SerializeToString().hex() == E_BUILT
    # TF: reading a oneof member sets nothing; a change sets it and clears the other member
    feature = F()
    assert feature.WhichOneof("kind") is None
    feature.int64_list  # noqa: B018 - read only
    assert feature.WhichOneof("kind") is None
    feature.int64_list.value.append(3)
    assert feature.WhichOneof("kind") == "int64_list" and feature.HasField("int64_list")
    feature.float_list.value.append(1.0)
    assert feature.WhichOneof("kind") == "float_list" and list(feature.int64_list.value) == []
    assert "zz" not in example.features.feature and len(example.features.feature) == 1
    assert not tf.train.Example().HasField("features")
    assert tf.train.Example.FromString(b"").features.feature.get("x") is None
    copy = tf.train.Example()
    copy.CopyFrom(example)
    assert copy == example and copy.ByteSize() == len(bytes.fromhex(E_BUILT))


def test_packed_and_unpacked_fields_merges_and_unknown_fields_read_as_tensorflow():
    # TF reads an unpacked int64 list and an unpacked float the same (re-serialized packed)
    unpacked = tf.train.Example.FromString(bytes.fromhex("0a0d0a0b0a016112061a0408010802"))
    assert list(unpacked.features.feature["a"].int64_list.value) == [1, 2]
    assert unpacked.SerializeToString().hex() == "0a0d0a0b0a016112061a040a020102"  # TF's
    float_bytes = bytes.fromhex("0a0e0a0c0a0166120712050d0000803f")
    assert list(tf.train.Example.FromString(float_bytes).features.feature["f"]
                .float_list.value) == [1.0]
    # an unknown field 3 holding a group, skipped as TF skips it
    with_group = tf.train.Example.FromString(float_bytes + bytes.fromhex("1b08011c"))
    assert with_group == tf.train.Example.FromString(float_bytes)
    # a + c: c's map entries replace a's (TF: v [7], x [5, 6], s and y from a)
    merged = tf.train.Example.FromString(bytes.fromhex(A) + bytes.fromhex(C)).features.feature
    assert {k: list(getattr(v, v.WhichOneof("kind")).value) for k, v in merged.items()} == {
        "s": [b"cat"], "v": [7], "x": [5, 6], "y": [0.5]}


@pytest.mark.parametrize("make, error, message", [
    # TF 2.21's errors for each
    (lambda: tf.train.Int64List(value=[1.5]), TypeError, "'float' object cannot be interpreted"),
    (lambda: tf.train.Int64List(value=[True]), TypeError, "Expected an int, got a boolean"),
    (lambda: tf.train.Int64List(value=[2 ** 64]), ValueError, "Value out of range"),
    (lambda: tf.train.BytesList(value=["s"]), TypeError, "expected bytes, str found"),
    (lambda: tf.train.FloatList(value=["x"]), TypeError, "must be real number, not str"),
    (lambda: tf.train.Example(feature=1), ValueError,
     'Protocol message Example has no "feature" field'),
    (lambda: F(int64_list=tf.train.FloatList()), TypeError,
     "must be dict or instance of same class"),
])
def test_wrong_values_are_tensorflows_errors(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_assignments_protobuf_refuses_are_refused():
    example = tf.train.Example()
    with pytest.raises(ValueError, match="may not be assigned"):
        example.features.feature["w"] = F()
    with pytest.raises(AttributeError, match='Assignment not allowed to message field "features"'):
        example.features = tf.train.Features()


def test_text_format_and_float32_values():
    assert str(_example(x=_bytes(b"a\n"), y=_floats(2.0, 0.1))) == (
        'features {\n  feature {\n    key: "x"\n    value {\n      bytes_list {\n        value: '
        '"a\\n"\n      }\n    }\n  }\n  feature {\n    key: "y"\n    value {\n      float_list '
        '{\n        value: 2\n        value: 0.1\n      }\n    }\n  }\n}\n')
    assert tf.train.FloatList(value=[0.1]).value[0] == 0.10000000149011612  # TF's


@pytest.mark.parametrize("data", [
    "0affffffff0f",  # a length past the end
    "0a05616263",  # the same, short
    "ff",  # a truncated varint
    "0b",  # a group never closed
    "0a020a80",  # a truncated nested varint
    "0affffffffffffffffffff01",  # a varint over 10 bytes
    "0f",  # wire type 7
    "0a040a0212ff",  # a map entry running past its feature
    "0a060a040a02ff",  # a key that is not UTF-8 (proto3)
])
def test_corrupt_protobuf_bytes_are_a_decode_error(data):
    with pytest.raises(DecodeError, match="tensorflow.Example"):
        tf.train.Example.FromString(bytes.fromhex(data))


def test_deeply_nested_groups_are_an_error_not_a_recursion():
    nested = b"\x1b" * 100_000 + b"\x1c" * 100_000  # unknown field 3, groups in groups
    with pytest.raises(DecodeError, match="nested too deeply"):
        tf.train.Example.FromString(nested)
    inside = b"\x1b" * 50 + b"\x1c" * 50  # within protobuf's depth: skipped
    assert tf.train.Example.FromString(inside) == tf.train.Example()


# -- tf.parse_example / parse_single_example ----------------------------------------------------
def _strings(*hexes):
    return [bytes.fromhex(h) for h in hexes]


def test_parse_single_example_gives_tensorflows_values():
    with tf.Session() as sess:
        parsed = tf.parse_single_example(bytes.fromhex(A), FEATURES)
        assert parsed["x"].shape.as_list() == [2] and parsed["y"].shape.as_list() == []
        assert parsed["v"].values.shape.as_list() == [None]
        got = sess.run(parsed)
        # TF: {'v': SparseTensorValue([[0], [1], [2]], [4, 5, 6], [3]), 's': b'cat',
        #      'x': [1, 2], 'y': 0.5}
        assert got["s"] == b"cat" and got["y"] == np.float32(0.5)
        np.testing.assert_array_equal(got["x"], [1, 2])
        np.testing.assert_array_equal(got["v"].indices, [[0], [1], [2]])
        np.testing.assert_array_equal(got["v"].values, [4, 5, 6])
        np.testing.assert_array_equal(got["v"].dense_shape, [3])
        assert got["x"].dtype == np.int64 and got["v"].values.dtype == np.int64
        defaults = sess.run(tf.io.parse_single_example(bytes.fromhex(C), FEATURES))
        # TF: {'s': b'none', 'y': -1.0, 'x': [5, 6], 'v': ([[0]], [7], [1])}
        assert defaults["s"] == b"none" and defaults["y"] == np.float32(-1.0)
        np.testing.assert_array_equal(defaults["v"].values, [7])


def test_parse_example_batches_as_tensorflow(config):
    serialized = tf.placeholder(tf.string, [None])
    parsed = tf.parse_example(serialized, FEATURES)
    # TF's static shapes: x (?, 2), y (?,), s (?,), v's dense_shape (2,)
    assert parsed["x"].shape.as_list() == [None, 2] and parsed["s"].shape.as_list() == [None]
    assert parsed["v"].dense_shape.shape.as_list() == [2]
    with tf.Session(config=config) as sess:
        got = sess.run(parsed, {serialized: _strings(A, B, C)})
        doubled = sess.run(parsed["y"] * 2, {serialized: _strings(A, B)})
    np.testing.assert_array_equal(got["x"], [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(got["y"], np.float32([0.5, 1.5, -1.0]))
    assert list(got["s"]) == [b"cat", b"dog", b"none"]
    np.testing.assert_array_equal(got["v"].indices, [[0, 0], [0, 1], [0, 2], [2, 0]])
    np.testing.assert_array_equal(got["v"].values, [4, 5, 6, 7])
    np.testing.assert_array_equal(got["v"].dense_shape, [3, 3])
    np.testing.assert_array_equal(doubled, np.float32([1.0, 3.0]))


def test_sequence_features_and_defaults_as_tensorflow():
    with tf.Session() as sess:
        rows = sess.run(tf.parse_example(_strings(A, B, C), {
            "v": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
            "x": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)}))
        one = sess.run(tf.parse_single_example(bytes.fromhex(A), {
            "v": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
            "q": tf.FixedLenFeature([2], tf.int64, default_value=[7, 8]),
            "x": tf.FixedLenFeature([2, 1], tf.int64)}))
    # TF: v [[4, 5, 6], [0, 0, 0], [7, 0, 0]]; x [[[1, 2]], [[3, 4]], [[5, 6]]]
    np.testing.assert_array_equal(rows["v"], [[4, 5, 6], [0, 0, 0], [7, 0, 0]])
    np.testing.assert_array_equal(rows["x"], [[[1, 2]], [[3, 4]], [[5, 6]]])
    np.testing.assert_array_equal(one["v"], [4, 5, 6])
    np.testing.assert_array_equal(one["q"], [7, 8])
    np.testing.assert_array_equal(one["x"], [[1], [2]])


def test_a_feature_with_no_list_is_missing_as_in_tensorflow():
    serialized = bytes.fromhex(E_NO_LIST)
    with tf.Session() as sess:
        assert sess.run(tf.parse_single_example(serialized, {
            "q": tf.FixedLenFeature([], tf.int64, default_value=3)}))["q"] == 3
        empty = sess.run(tf.parse_single_example(serialized, {"q": tf.VarLenFeature(tf.float32)}))
        assert empty["q"].values.shape == (0,) and empty["q"].indices.shape == (0, 1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="is required"):
            sess.run(tf.parse_single_example(serialized, {"q": tf.FixedLenFeature([], tf.int64)}))


@pytest.mark.parametrize("single, example, features, names, message", [
    # TF's messages (TF 2.21 runs parse_single_example as a batch of one: the single
    # example's are TF 1.15's ParseSingleExample's, its "Key: x." prefix)
    (True, C, {"y": tf.FixedLenFeature([], tf.float32)}, None,
     "^Feature: y \\(data type: float\\) is required but could not be found.$"),
    (True, A, {"x": tf.FixedLenFeature([2], tf.float32)}, None,
     "^Key: x.  Data types don't match. Data type: int64 but expected type: float$"),
    (True, A, {"x": tf.VarLenFeature(tf.float32)}, None,
     "^Key: x.  Data types don't match. Expected type: float, Actual type: int64$"),
    (False, C, {"y": tf.FixedLenFeature([], tf.float32)}, ["ea", "ec"],
     "^Name: ec, Feature: y \\(data type: float\\) is required but could not be found.$"),
    (False, A, {"x": tf.FixedLenFeature([3], tf.int64)}, None,
     ("^Name: <unknown>, Key: x, Index: 0.  Number of int64 values != expected.  Values size: 2 "
     "but output shape: \\[3\\]$")),
    (False, A, {"x": tf.FixedLenFeature([2], tf.float32)}, None,
     ("^Name: <unknown>, Key: x, Index: 0.  Data types don't match. Data type: int64 but "
     "expected type: float$")),
])
def test_a_feature_missing_or_of_another_type_is_tensorflows_error(single, example, features,
                                                                    names, message):
    with tf.Session() as sess:
        if single:
            parsed = tf.parse_single_example(bytes.fromhex(example), features)
        else:
            parsed = tf.parse_example(_strings(A, example), features, example_names=names)
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            sess.run(parsed)


def test_configurations_tensorflow_refuses_when_the_graph_is_built():
    serialized = bytes.fromhex(A)
    cases = [  # TF's errors
        ({"x": tf.FixedLenFeature([2], tf.int32)}, TypeError,
         "parameter 'dense_defaults' has DataType int32 not in list of allowed values"),
        ({"x": tf.FixedLenFeature([2], tf.int64, default_value=[1, 2, 3])}, ValueError,
         "Cannot reshape a tensor with 3 elements to shape \\[2\\]"),
        ({"x": tf.FixedLenFeature(None, tf.int64)}, ValueError, "Missing shape for feature x"),
        ({}, ValueError, "features cannot be empty"),
        ({"x": tf.FixedLenSequenceFeature([], tf.int64)}, ValueError,
         "FixedLenSequenceFeature requires allow_missing to be True"),
    ]
    for features, error, message in cases:
        with pytest.raises(error, match=message):
            tf.parse_single_example(serialized, features)
    with pytest.raises(ValueError, match="Input serialized must be a scalar"):
        tf.parse_single_example([serialized], FEATURES)
    assert repr(tf.FixedLenFeature([2], tf.int64)) == (
        "FixedLenFeature(shape=[2], dtype=tf.int64, default_value=None)")  # TF's repr
    with pytest.raises(AttributeError, match="tf.SparseFeature is TensorFlow 1.15's"):
        tf.SparseFeature  # noqa: B018


def test_bytes_that_are_no_example_are_an_invalid_argument_and_the_session_goes_on():
    serialized = tf.placeholder(tf.string, [None])
    parsed = tf.parse_example(serialized, {"x": tf.FixedLenFeature([2], tf.int64)})
    with tf.Session() as sess:
        for garbage in (b"\x0a", b"\xff" * 1000, b"\x1b" * 10_000):
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Could not parse example input"):
                sess.run(parsed, {serialized: [bytes.fromhex(A), garbage]})
        np.testing.assert_array_equal(sess.run(parsed["x"], {serialized: [bytes.fromhex(C)]}),
                                      [[5, 6]])


def test_string_feeds_are_checked_and_fetched_as_fed():
    text = tf.placeholder(tf.string, [None])
    with tf.Session() as sess:
        assert list(sess.run(text, {text: ["a", b"b"]})) == [b"a", b"b"]
        with pytest.raises(TypeError, match="placeholder 'Placeholder.*must be strings"):
            sess.run(text, {text: [1, 2]})


# -- TFRecord files: tf.data.TFRecordDataset, tf.TFRecordReader ----------------------------------
def _records_of(dataset) -> list:
    element = dataset.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as sess:
        try:
            while True:
                out.append(sess.run(element))
        except tf.errors.OutOfRangeError:
            return out


@pytest.mark.parametrize("compression, data, records", [
    (None, FILE_ABC, [A, B, C]), ("GZIP", FILE_ABC_GZIP, [A, B, C]),
    ("ZLIB", FILE_ZLIB, [E_INT, E_FLOAT, E_MIXED])])
def test_tensorflows_files_read_and_written_byte_for_byte(tmp_path, compression, data,
                                                          records):
    path = tmp_path / "tf.tfrecord"
    path.write_bytes(bytes.fromhex(data))
    got = _records_of(tf.data.TFRecordDataset(str(path), compression_type=compression))
    assert [r.hex() for r in got] == records
    mine = tmp_path / "mine.tfrecord"
    with tf.io.TFRecordWriter(str(mine), tf.io.TFRecordOptions(compression or "")) as writer:
        for record in records:
            writer.write(bytes.fromhex(record))
    assert mine.read_bytes().hex() == data  # TF's bytes: its gzip header has no time


def test_a_file_pipeline_parses_tensorflows_file_as_tensorflow(tmp_path):
    path = tmp_path / "abc.tfrecord"
    path.write_bytes(bytes.fromhex(FILE_ABC))
    dataset = tf.data.TFRecordDataset([str(path)]).map(
        lambda record: tf.parse_single_example(record, {
            "x": FEATURES["x"], "y": FEATURES["y"], "s": FEATURES["s"]})).batch(2)
    batches = _records_of(dataset)
    np.testing.assert_array_equal(batches[0]["x"], [[1, 2], [3, 4]])
    np.testing.assert_array_equal(batches[1]["y"], np.float32([-1.0]))
    assert list(batches[0]["s"]) == [b"cat", b"dog"]
    batched = _records_of(tf.data.TFRecordDataset(str(path)).batch(3).map(
        lambda records: tf.parse_example(records, {"x": FEATURES["x"]})))
    np.testing.assert_array_equal(batched[0]["x"], [[1, 2], [3, 4], [5, 6]])


def test_file_names_fed_to_the_initializer(tmp_path):
    paths = []
    for index in range(2):
        paths.append(str(tmp_path / f"{index}.tfrecord"))
        with tf.python_io.TFRecordWriter(paths[-1]) as writer:
            for i in range(2):
                writer.write(_example(i=_ints(10 * index + i)).SerializeToString())
    names = tf.placeholder(tf.string, [None])
    iterator = tf.data.TFRecordDataset(names).map(lambda r: tf.parse_single_example(
        r, {"i": tf.FixedLenFeature([], tf.int64)})["i"]).make_initializable_iterator()
    element = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer, {names: paths})
        assert [sess.run(element) for _ in range(4)] == [0, 1, 10, 11]
        sess.run(iterator.initializer, {names: paths[1:]})
        assert sess.run(element) == 10


def test_a_model_trains_on_a_tfrecord_pipeline(tmp_path, config):
    rng = np.random.RandomState(0)
    xs = rng.randn(24, 3).astype(np.float32)
    ys = (xs @ np.float32([1.0, -2.0, 0.5]) + 0.3).astype(np.float32)
    path = str(tmp_path / "train.tfrecord")
    with tf.python_io.TFRecordWriter(path, tf.python_io.TFRecordOptions("GZIP")) as writer:
        for x, y in zip(xs, ys):
            writer.write(_example(x=_floats(*x), y=_floats(y)).SerializeToString())

    def parse(record):
        parsed = tf.parse_single_example(record, {"x": tf.FixedLenFeature([3], tf.float32),
                                                  "y": tf.FixedLenFeature([], tf.float32)})
        return parsed["x"], parsed["y"]

    x, y = (tf.data.TFRecordDataset(path, "GZIP").map(parse).batch(8).repeat()
            .make_one_shot_iterator().get_next())
    weights, bias = tf.Variable(tf.zeros([3, 1])), tf.Variable(0.0)
    loss = tf.reduce_mean(tf.square(tf.squeeze(tf.matmul(x, weights), 1) + bias - y))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    w, b = np.zeros(3, np.float64), 0.0  # numpy's gradient descent on the same batches
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for index in range(9):
            rows = slice(8 * (index % 3), 8 * (index % 3) + 8)
            error = xs[rows] @ w + b - ys[rows]
            expected_loss = np.mean(error ** 2)
            w, b = w - 0.1 * 2 * xs[rows].T @ error / 8, b - 0.1 * 2 * error.mean()
            got_loss, _ = sess.run([loss, step])
            np.testing.assert_allclose(got_loss, expected_loss, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(sess.run(weights).ravel(), w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(sess.run(bias), b, rtol=1e-5, atol=1e-6)


def test_a_tfrecord_reader_reads_files_from_a_queue(tmp_path):
    path = tmp_path / "abc.tfrecord"
    path.write_bytes(bytes.fromhex(FILE_ABC))
    queue = tf.train.string_input_producer([str(path)], num_epochs=1, shuffle=False)
    key, value = tf.TFRecordReader().read(queue)
    x = tf.parse_single_example(value, {"x": FEATURES["x"]})["x"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        got = [sess.run([key, x]) for _ in range(3)]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(x)
        coord.request_stop()
        coord.join(threads)
    # TF's keys: <file>:<offset of the record>
    assert [k for k, _ in got] == [f"{path}:{o}".encode() for o in (0, 74, 143)]
    np.testing.assert_array_equal([v for _, v in got], [[1, 2], [3, 4], [5, 6]])


# -- untrusted files ------------------------------------------------------------------------------
def _header(length: int) -> bytes:
    packed = struct.pack("<Q", length)
    return packed + struct.pack("<I", mask_crc(crc32c(packed)))


@pytest.mark.parametrize("damage, message", [
    (lambda d: d[:-3], "truncated record at 143"),
    (lambda d: d[:20] + bytes([d[20] ^ 1]) + d[21:], "corrupted record at 0"),  # data's crc
    (lambda d: bytes([d[0] ^ 1]) + d[1:], "corrupted record at 0"),  # length's crc
    (lambda d: d[:5], "truncated record at 0"),
    (lambda d: _header(2 ** 62) + b"x" * 8, "truncated record at 0"),  # nothing allocated
    (lambda d: d + _header(2 ** 40) + d, "truncated record at 186"),
])
def test_a_damaged_file_is_a_data_loss_error_in_the_pipeline(tmp_path, damage, message):
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(damage(bytes.fromhex(FILE_ABC)))
    element = tf.data.TFRecordDataset(str(path)).make_one_shot_iterator().get_next()
    with tf.Session() as sess, pytest.raises(tf.errors.DataLossError, match=message):
        for _ in range(10):
            sess.run(element)


def test_a_compressed_length_past_the_memory_is_refused_as_the_data_comes(tmp_path,
                                                                         monkeypatch):
    from tinyflow.frontend import python_io
    monkeypatch.setattr(python_io, "_PIECE", 1024)
    monkeypatch.setattr(python_io, "_free_bytes", lambda: 4096)
    path = tmp_path / "bomb.tfrecord"  # a small file holding a huge record of zeros
    path.write_bytes(zlib.compress(_header(2 ** 40) + bytes(64 * 1024)))
    element = tf.data.TFRecordDataset(str(path), "ZLIB").make_one_shot_iterator().get_next()
    with tf.Session() as sess, pytest.raises(tf.errors.ResourceExhaustedError,
                                             match="record at 0 .* claims 1099511627776 bytes"):
        sess.run(element)


def test_a_missing_file_is_not_found(tmp_path):
    element = tf.data.TFRecordDataset(str(tmp_path / "none")).make_one_shot_iterator()
    with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError, match="none"):
        sess.run(element.get_next())


# -- tf.decode_csv, tf.read_file, tf.data.TextLineDataset -----------------------------------------
@pytest.mark.parametrize("records, defaults, options, expected", [
    # each expected value is what TF 2.21 compat.v1 gave
    (["1,2.5,a", "3,,b"], [[0], [1.0], ["x"]], {},
     [np.int32([1, 3]), np.float32([2.5, 1.0]), [b"a", b"b"]]),
    ("1,2.5,a", [[0], [1.0], ["x"]], {}, [np.int32(1), np.float32(2.5), b"a"]),
    (["1,2.5,a", ",,"], [[0], [1.0], ["x"]], {},
     [np.int32([1, 0]), np.float32([2.5, 1.0]), [b"a", b"x"]]),
    (['"a,b",2', '"say ""hi""",3'], [[""], [0]], {}, [[b"a,b", b'say "hi"'], np.int32([2, 3])]),
    ([" 1 , 2 "], [[0], [0.0]], {}, [np.int32([1]), np.float32([2.0])]),
    (["1e3,inf,nan,-0"], [[0.0], [0.0], [0.0], [tf.constant(0, tf.int64)]], {},
     [np.float32([1000.0]), np.float32([np.inf]), np.float32([np.nan]), np.int64([0])]),
    (["1;2"], [[0], [0]], {"field_delim": ";"}, [np.int32([1]), np.int32([2])]),
    (["1,NA"], [[0], [7]], {"na_value": "NA"}, [np.int32([1]), np.int32([7])]),
    (["1,2,3"], [[0], [0]], {"select_cols": [0, 2]}, [np.int32([1]), np.int32([3])]),
    ([["1,2"]], [[0], [0]], {}, [np.int32([[1]]), np.int32([[2]])]),
])
def test_decode_csv_gives_tensorflows_columns(records, defaults, options, expected):
    columns = tf.decode_csv(records, defaults, **options)
    with tf.Session() as sess:
        got = sess.run(columns)
    for column, value, want in zip(columns, got, expected):
        want = np.asarray(want, dtype=object if isinstance(want, (list, bytes)) else None)
        assert column.shape.as_list() == list(want.shape)
        if want.dtype == object:
            assert np.asarray(value, dtype=object).tolist() == want.tolist()
        else:
            assert value.dtype == want.dtype
            np.testing.assert_array_equal(value, want)


@pytest.mark.parametrize("records, defaults, message", [
    # TF's messages
    (["1,2.5,a", ",,"], [[], [1.0], ["x"]], "^Field 0 is required but missing in record 1!$"),
    (["1,2", "1,2,3"], [[0], [0]], "^Expect 2 fields but have 3 in record 1$"),
    (["x,2"], [[0], [0]], "^Field 0 in record 0 is not a valid int32: x$"),
    (["1.5,2"], [[0], [0]], "^Field 0 in record 0 is not a valid int32: 1.5$"),
    (["99999999999,1"], [[0], [0]], "^Field 0 in record 0 is not a valid int32: 99999999999$"),
    (['a"b,1'], [[""], [0]], "^Unquoted fields cannot have quotes/CRLFs inside$"),
    (['"ab,1'], [[""], [0]], "^Quoted field has to end with quote followed by delim or end$"),
    ([""], [[0]], "^Expect 1 fields but have 0 in record 0$"),
])
def test_decode_csv_errors_are_tensorflows(records, defaults, message):
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=message):
        sess.run(tf.decode_csv(records, defaults))


def test_decode_csv_refuses_what_tensorflow_refuses():
    with pytest.raises(TypeError, match="DataType bool not in list of allowed values"):
        tf.decode_csv(["1"], [[True]])
    with pytest.raises(ValueError, match="length-0 or length-1 vector, or a scalar"):
        tf.decode_csv(["1"], [[1, 2]])


def test_text_lines_read_file_and_csv_in_a_pipeline(tmp_path):
    text = tmp_path / "lines.csv"
    text.write_bytes(b"a,1\r\n\nb,2\nlast,3")
    lines = _records_of(tf.data.TextLineDataset(str(text)))
    assert lines == [b"a,1", b"", b"b,2", b"last,3"]  # TF's lines
    packed = tmp_path / "lines.csv.gz"
    packed.write_bytes(gzip.compress(text.read_bytes()))
    assert _records_of(tf.data.TextLineDataset([str(packed)], "GZIP")) == lines
    columns = _records_of(tf.data.TextLineDataset(str(text)).filter(
        lambda line: tf.not_equal(tf.size(tf.decode_raw(line, tf.uint8)), 0)).map(
        lambda line: tuple(tf.decode_csv(line, [[""], [0]]))).batch(3))
    assert list(columns[0][0]) == [b"a", b"b", b"last"]
    np.testing.assert_array_equal(columns[0][1], np.int32([1, 2, 3]))
    with tf.Session() as sess:
        assert sess.run(tf.read_file(str(text))) == text.read_bytes()
        with pytest.raises(tf.errors.NotFoundError, match="missing"):
            sess.run(tf.read_file(str(tmp_path / "missing")))


def test_a_line_longer_than_the_memory_is_refused(tmp_path, monkeypatch):
    from tinyflow.frontend import python_io
    monkeypatch.setattr(python_io, "_PIECE", 1024)
    monkeypatch.setattr(python_io, "_free_bytes", lambda: 4096)
    path = tmp_path / "one_line.gz"
    path.write_bytes(gzip.compress(b"x" * (64 * 1024)))
    element = tf.data.TextLineDataset(str(path), "GZIP").make_one_shot_iterator().get_next()
    with tf.Session() as sess, pytest.raises(tf.errors.ResourceExhaustedError, match="4096"):
        sess.run(element)


def test_a_var_len_feature_in_a_dataset_is_densified_or_refused_clearly(tmp_path):
    path = tmp_path / "abc.tfrecord"
    path.write_bytes(bytes.fromhex(FILE_ABC))
    dense = _records_of(tf.data.TFRecordDataset(str(path)).map(lambda r: tf.sparse.to_dense(
        tf.parse_single_example(r, {"v": FEATURES["v"]})["v"])))
    assert [list(v) for v in dense] == [[4, 5, 6], [], [7]]  # TF's values (see above)
    with pytest.raises(TypeError, match="dense tensors, not SparseTensors .*sparse.to_dense"):
        tf.data.TFRecordDataset(str(path)).map(
            lambda r: tf.parse_single_example(r, {"v": FEATURES["v"]}))


def test_a_message_whose_values_cannot_fit_is_refused_before_decoding(monkeypatch):
    from tinyflow.frontend import example_proto
    from tinyflow.nnvm import host_memory
    values = list(range(-500, 500))
    data = _example(a=_ints(*values)).SerializeToString()
    monkeypatch.setattr(example_proto, "_LARGE", 1024)
    assert list(tf.train.Example.FromString(data).features.feature["a"].int64_list.value) \
        == values  # checked, and it fits
    monkeypatch.setattr(host_memory, "host_available_bytes", lambda: (4096, "a test"))
    with pytest.raises(tf.errors.ResourceExhaustedError, match="more than the 4096 free"):
        tf.train.Example.FromString(data)


def test_a_large_packed_list_decodes_in_one_pass():
    values = np.random.RandomState(1).randint(-2 ** 62, 2 ** 62, size=200_000).tolist()
    data = tf.train.Int64List(value=values).SerializeToString()
    assert tf.train.Int64List.FromString(data).value == values


def test_a_damaged_file_read_by_a_tfrecord_reader_is_a_data_loss_error(tmp_path):
    path = tmp_path / "bad.tfrecord"
    data = bytes.fromhex(FILE_ABC)
    path.write_bytes(data[:80] + bytes([data[80] ^ 1]) + data[81:])  # B's data checksum
    queue = tf.train.string_input_producer([str(path)], num_epochs=1, shuffle=False)
    _, value = tf.TFRecordReader().read(queue)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert sess.run(value) == bytes.fromhex(A)
        with pytest.raises(tf.errors.DataLossError, match=f"corrupted record at 74 in '{path}'"):
            sess.run(value)
        coord.request_stop()
        coord.join(threads)


# SequenceExample(context={"c": int64 [5], "n": bytes [b"ab"]}, feature_lists={"t": [float
# [1, 2], float [3, 4], float [5, 6]], "w": [int64 [1], int64 [], int64 [2, 3]]}), TF's bytes
SEQ_PARSED = (
    "0a190a0a0a016312051a030a01050a0b0a016e12060a040a026162124b0a2f0a0174122a0a0c120a0a080000"
    "803f000000400a0c120a0a0800004040000080400a0c120a0a080000a0400000c0400a180a01771213"
    "0a051a030a01010a021a000a061a040a020203")


def test_parse_single_sequence_example_gives_tensorflows_values():
    context, sequences = tf.parse_single_sequence_example(
        bytes.fromhex(SEQ_PARSED),
        context_features={"c": tf.FixedLenFeature([], tf.int64),
                          "n": tf.FixedLenFeature([], tf.string),
                          "m": tf.FixedLenFeature([], tf.float32, default_value=0.5)},
        sequence_features={"t": tf.FixedLenSequenceFeature([2], tf.float32),
                           "w": tf.VarLenFeature(tf.int64)})
    # TF's static shapes: t (?, 2), w's indices (?, 2) and dense_shape (2,)
    assert sequences["t"].shape.as_list() == [None, 2]
    assert sequences["w"].indices.shape.as_list() == [None, 2]
    with tf.Session() as sess:
        context, sequences = sess.run([context, sequences])
    # TF: ({'c': 5, 'm': 0.5, 'n': b'ab'}, {'w': SparseTensorValue([[0, 0], [2, 0], [2, 1]],
    #      [1, 2, 3], [3, 2]), 't': [[1, 2], [3, 4], [5, 6]]})
    assert (context["c"], context["m"], context["n"]) == (5, np.float32(0.5), b"ab")
    np.testing.assert_array_equal(sequences["t"], np.float32([[1, 2], [3, 4], [5, 6]]))
    np.testing.assert_array_equal(sequences["w"].indices, [[0, 0], [2, 0], [2, 1]])
    np.testing.assert_array_equal(sequences["w"].values, [1, 2, 3])
    np.testing.assert_array_equal(sequences["w"].dense_shape, [3, 2])


@pytest.mark.parametrize("sequence_features, message", [  # TF's messages
    ({"x": tf.FixedLenSequenceFeature([2], tf.float32)},
     "^Name: <unknown>, Feature list 'x' is required but could not be found."),
    ({"t": tf.FixedLenSequenceFeature([3], tf.float32)},
     ("^Name: <unknown>, Key: t, Index: 0.  Number of values != expected.  values size: 2 but "
     "output shape: \\[3\\]$")),
    ({"t": tf.FixedLenSequenceFeature([2], tf.int64)},
     ("^Name: <unknown>, Feature list: t, Index: 0.  Data types don't match. Expected type: "
     "int64$")),
    ({"w": tf.FixedLenSequenceFeature([], tf.int64)},
     ("^Name: <unknown>, Key: w, Index: 1.  Number of values != expected.  values size: 0 but "
     "output shape: \\[\\]$")),
])
def test_sequence_features_missing_or_of_another_shape_are_tensorflows_errors(
        sequence_features, message):
    _, parsed = tf.parse_single_sequence_example(bytes.fromhex(SEQ_PARSED),
                                                 sequence_features=sequence_features)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=message):
        sess.run(parsed)


def test_sequence_example_missing_allowed_and_refused_configurations():
    serialized = bytes.fromhex(SEQ_PARSED)
    _, parsed = tf.parse_single_sequence_example(serialized, sequence_features={
        "x": tf.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)})
    with tf.Session() as sess:
        assert sess.run(parsed)["x"].shape == (0, 2)  # TF's
        with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse example"):
            sess.run(tf.parse_single_sequence_example(b"\x0a\xff", context_features={
                "z": tf.FixedLenFeature([], tf.int64)}))
    with pytest.raises(ValueError, match="Unsupported FixedLenFeature .* for key 't'"):
        tf.parse_single_sequence_example(serialized, sequence_features={
            "t": tf.FixedLenFeature([2], tf.float32)})
