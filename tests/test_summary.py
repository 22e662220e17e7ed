"""tf.summary, event files, tf.gfile and tf.errors against real TensorFlow's bytes.

GOLDEN holds bytes made by TensorFlow 2.21's ``tf.compat.v1`` (graph mode: TF 1.x's
ScalarSummary, HistogramSummary, ImageSummary and MergeSummary kernels), its protobuf classes
(Event, GraphDef, RunMetadata, serialized deterministically) and ``tf.io.TFRecordWriter``,
printed by ``tools/summary_golden.py`` (not run here: tests do not need TensorFlow).  Images are
the pixels ``tf.io.decode_png`` reads from TF's PNGs: PNG compression may differ, pixels not.
"""
import os
import struct
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

import tinyflow as tf
from tinyflow import events
from tinyflow.config import DeviceStepStats, NodeExecStats

pytestmark = pytest.mark.usefixtures("fresh_graph")

GOLDEN = {
    "event_metadata": (
        "09000000000000f03f100342670a0773746570303031125c0a5a0a580a2c2f6a6f623a6c6f63616c"
        "686f73742f7265706c6963613a302f7461736b3a302f6465766963653a4350553a3012280a066d61"
        "746d756c108080f9c0c1c48203200c280c42116d61746d756c203d206d61746d756c2829"),
    "event_summary": "0900000000004a934010072a0a0a080a0161150000803f",
    "event_version": "0900000000004a93401a0d627261696e2e4576656e743a32",
    "graph_def": (
        "0a3b0a0178120b506c616365686f6c6465722a0b0a056474797065120230012a1c0a057368617065"
        "12133a11120b08ffffffffffffffffff01120208030a790a0c6c617965722f6d61746d756c12066d"
        "61746d756c1a01781a03773a311a055e696e69742a070a0154120230012a0e0a05616c7068611205"
        "250000003f2a130a0461786973120b18feffffffffffffffff012a110a0770616464696e67120612"
        "0453414d452a110a0b7472616e73706f73655f6112022800"),
    "run_metadata": (
        "0a5a0a580a2c2f6a6f623a6c6f63616c686f73742f7265706c6963613a302f7461736b3a302f6465"
        "766963653a4350553a3012280a066d61746d756c108080f9c0c1c48203200c280c42116d61746d75"
        "6c203d206d61746d756c2829"),
    "tfrecords": (
        "000000000000000029039807d8ea82a20500000000000000eab2043e68656c6c6fbb1f1c19000200"
        "000000000035a3b778000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e"
        "1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40414243444546"
        "4748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e"
        "6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f90919293949596"
        "9798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbe"
        "bfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6"
        "e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff000102030405060708090a0b0c0d0e"
        "0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f30313233343536"
        "3738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e"
        "5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f80818283848586"
        "8788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadae"
        "afb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6"
        "d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfe"
        "fff946387f"),
    "image input/image/0 3 4 1": "91bd9f9070aa73ebfe65d18b",
    "image input/image/1 3 4 1": "fff00e1201d8c9e1fecf75ca",
    "image rgba_1/image 2 2 4": "26e8f4114f84692aba1f780141e7a939",
    "image_feed": (
        "0b7f8c3fa616b73fb34e9a3f777d8b3f48e9583f5159a53f6e0b603f3c4be43f9ab2f63f7252443f"
        "7eaeca3fa865873f0000c07fcee7593f2aa15bbfca6353bfefa575bf264d2a3f906a0e3f3c723d3f"
        "760d753f502b193fd0c79dbd86a10f3fdd39723eddd1a33f34cb923ed2d5f13fda97853f924e543f"
        "d573073f2e34c63f898c693fe384913f11ed193d5c1d9e3f"),
    "rgba_feed": "26e8f4114f84692aba1f780141e7a939",
    "count": "0a130a0c6c61796572312f636f756e74150000e040",
    "empty_histogram": (
        "0a380a0e6c61796572312f776569676874732a2609ffffffffffffef7f11ffffffffffffefff3208"
        "ffffffffffffef7f3a080000000000000000"),
    "histogram": (
        "0a86030a0e6c61796572312f776569676874732af30209000000000000f8bf1100000060e458e143"
        "190000000000002a402100000060e458e1432940b2db28d3ced24732a001794cfae2d3fff9bf8545"
        "cc9fc0a2f7bfcf4361b44793d4bf5f2641bb6fb4d2bf11ea2d81999771bd000000000000000011ea"
        "2d819997713d382f9a43f9d6b73f2567f6634539ba3fdc94cd2e8d75ff3fe011f10c744d01400d9c"
        "c5a02955094075f872caaddd0b402988ead0c2261b40612f354cd6dd1d407e0a0eff699c5d40f9b8"
        "474c3a4960403fc6384296c4df433da0053eec78e143ffffffffffffef7f3aa00100000000000000"
        "00000000000000f03f0000000000000000000000000000f03f0000000000000000000000000000f0"
        "3f0000000000000840000000000000000000000000000000400000000000000000000000000000f0"
        "3f0000000000000000000000000000f03f0000000000000000000000000000f03f00000000000000"
        "00000000000000f03f0000000000000000000000000000f03f0000000000000000"),
    "loss": "0a1e0a17747261696e2f6c61796572312f747261696e2f6c6f73731500006040",
    "mean": "0a120a0b6c61796572312f6d65616e1500006040",
    "merged": (
        "0a120a0b6c61796572312f6d65616e15000060400a86030a0e6c61796572312f776569676874732a"
        "f30209000000000000f8bf1100000060e458e143190000000000002a402100000060e458e1432940"
        "b2db28d3ced24732a001794cfae2d3fff9bf8545cc9fc0a2f7bfcf4361b44793d4bf5f2641bb6fb4"
        "d2bf11ea2d81999771bd000000000000000011ea2d819997713d382f9a43f9d6b73f2567f6634539"
        "ba3fdc94cd2e8d75ff3fe011f10c744d01400d9cc5a02955094075f872caaddd0b402988ead0c226"
        "1b40612f354cd6dd1d407e0a0eff699c5d40f9b8474c3a4960403fc6384296c4df433da0053eec78"
        "e143ffffffffffffef7f3aa0010000000000000000000000000000f03f0000000000000000000000"
        "000000f03f0000000000000000000000000000f03f00000000000008400000000000000000000000"
        "00000000400000000000000000000000000000f03f0000000000000000000000000000f03f000000"
        "0000000000000000000000f03f0000000000000000000000000000f03f0000000000000000000000"
        "000000f03f0000000000000000"),
    "text": "0a1e0a056e6f746573420b08071200420568656c6c6f4a080a060a0474657874",
    "zero": "0a120a0b6c61796572312f6d65616e1500000000",

}
HISTOGRAM_VALUES = np.array([-1.5, 0, 0, 2.0, 3.25, 1e-13, -1e-15, 1e19, 123.456, 7.0, 0.1, 0.1,
                             -0.3], np.float32)
CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def golden(key) -> bytes:
    return bytes.fromhex(GOLDEN[key])


def _varint(data, position):
    value = shift = 0
    while True:
        byte = data[position]
        value, position, shift = value | (byte & 0x7F) << shift, position + 1, shift + 7
        if byte < 0x80:
            return value, position


def fields(data) -> list:
    """A protobuf message read back: ``(field number, value)`` in order, an int for a varint,
    bytes otherwise (a reader written from the wire format spec, for the tests only)."""
    out, position = [], 0
    while position < len(data):
        key, position = _varint(data, position)
        if key & 7 == 0:
            value, position = _varint(data, position)
        else:
            size = {1: 8, 5: 4}.get(key & 7)
            if size is None:
                size, position = _varint(data, position)
            value, position = data[position:position + size], position + size
        out.append((key >> 3, value))
    return out


def field(data, number):
    return [value for n, value in fields(data) if n == number]


# -- the wire format and the file format ---------------------------------------------------
def test_crc32c_rfc3720_vectors():
    # RFC 3720 (iSCSI), appendix B.4, and the CRC catalogue's check value for "123456789"
    assert events.crc32c(bytes(32)) == 0x8A9136AA
    assert events.crc32c(b"\xff" * 32) == 0x62A8AB43
    assert events.crc32c(bytes(range(32))) == 0x46DD794E
    assert events.crc32c(bytes(range(31, -1, -1))) == 0x113FDB5C
    assert events.crc32c(b"123456789") == 0xE3069283
    assert events.crc32c(b"") == 0


def test_tfrecord_framing_matches_tensorflow():
    records = [b"", b"hello", bytes(range(256)) * 2]
    assert b"".join(events.tfrecord(r) for r in records) == golden("tfrecords")


def test_event_messages_match_tensorflow():
    assert events.event(1234.5, file_version="brain.Event:2") == golden("event_version")
    summary = events.summary_value("a", simple_value=1.0)
    assert events.event(1234.5, 7, summary=summary) == golden("event_summary")
    metadata = tf.RunMetadata()
    metadata.step_stats.dev_stats.append(DeviceStepStats(device=CPU, node_stats=[
        NodeExecStats(node_name="matmul", all_start_micros=1700000000000000,
                      op_end_rel_micros=12, all_end_rel_micros=12,
                      timeline_label="matmul = matmul()")]))
    assert metadata.SerializeToString() == golden("run_metadata")
    assert events.event(1.0, 3, tagged_run_metadata=(
        "step001", metadata.SerializeToString())) == golden("event_metadata")


def test_graph_def_matches_tensorflow():
    nodes = [events.node_def("x", "Placeholder", attrs={"dtype": "float32", "shape": (None, 3)}),
             events.node_def("layer/matmul", "matmul", ["x", "w:1", "^init"],
                             {"T": "float32", "transpose_a": False, "padding": "SAME",
                              "axis": -2, "alpha": 0.5})]
    assert events.graph_def(nodes) == golden("graph_def")


# -- summary ops -----------------------------------------------------------------------------
def _png_pixels(png, height, width, channels) -> bytes:
    """The pixels of one of our PNGs, its chunks' CRCs and header checked (PNG spec)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, position = {}, 8
    while position < len(png):
        (length,), kind = struct.unpack(">I", png[position:position + 4]), png[
            position + 4:position + 8]
        data = png[position + 8:position + 8 + length]
        (crc,) = struct.unpack(">I", png[position + 8 + length:position + 12 + length])
        assert crc == zlib.crc32(kind + data)
        chunks[kind], position = data, position + 12 + length
    color = {1: 0, 3: 2, 4: 6}[channels]
    assert struct.unpack(">IIBBBBB", chunks[b"IHDR"]) == (width, height, 8, color, 0, 0, 0)
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, -1)
    assert (rows[:, 0] == 0).all()  # each row: filter type 0, then its pixels
    return rows[:, 1:].tobytes()


def _images(summary) -> list:
    """``(tag, height, width, colorspace, pixels)`` per image value of a Summary."""
    out = []
    for value in field(summary, 1):
        (tag,), (image,) = field(value, 1), field(value, 4)
        height, width, colorspace = (field(image, n)[0] for n in (1, 2, 3))
        pixels = _png_pixels(field(image, 4)[0], height, width, colorspace)
        out.append((tag.decode(), height, width, colorspace, pixels.hex()))
    return out


def test_summary_ops_match_tensorflow(plan_memory):
    x = tf.placeholder(tf.float32, [], name="x")
    values = tf.placeholder(tf.float32, [None], name="values")
    images = tf.placeholder(tf.float32, [None, 3, 4, 1], name="images")
    rgba = tf.placeholder(tf.uint8, [None, 2, 2, 4], name="rgba")
    with tf.name_scope("layer1"):
        mean = tf.summary.scalar("mean", x)
        loss = tf.summary.scalar("loss", x, family="train")
        count = tf.summary.scalar("count", tf.constant(7))
        histo = tf.summary.histogram("weights", values)
    picture = tf.summary.image("input", images, max_outputs=2)
    single = tf.summary.image("rgba", rgba, max_outputs=1)
    notes = tf.summary.text("notes", tf.constant("hello"))
    merged = tf.summary.merge([mean, histo])
    image_feed = np.frombuffer(golden("image_feed"), np.float32).reshape(3, 3, 4, 1).copy()
    feed = {x: 3.5, values: HISTOGRAM_VALUES, images: image_feed,
            rgba: np.frombuffer(golden("rgba_feed"), np.uint8).reshape(1, 2, 2, 4).copy()}
    sess = tf.Session(plan_memory=plan_memory)
    out = sess.run({"mean": mean, "loss": loss, "count": count, "histogram": histo,
                    "merged": merged, "text": notes, "picture": picture, "single": single}, feed)
    out["zero"] = sess.run(mean, {x: 0.0})
    out["empty_histogram"] = sess.run(histo, {values: np.zeros(0, np.float32)})
    for key in ("mean", "loss", "count", "histogram", "merged", "text", "zero",
                "empty_histogram"):
        assert out[key] == golden(key), key
    expected = [tuple(key.split()[1:]) + (GOLDEN[key],) for key in GOLDEN
                if key.startswith("image ")]
    found = [(t, str(h), str(w), str(c), p) for t, h, w, c, p in
             _images(out["picture"]) + _images(out["single"])]
    assert found == expected


def test_summaries_are_graph_nodes_in_the_summaries_collection():
    x = tf.placeholder(tf.float32, [], name="x")
    assert tf.summary.merge_all() is None
    with tf.name_scope("layer1"):
        first = tf.summary.scalar("mean", x)
        second = tf.summary.scalar("mean", x)
        hidden = tf.summary.scalar("hidden", x, collections=[])
    tf.summary.histogram("top/weights", x, collections=["mine", tf.GraphKeys.SUMMARIES])
    assert [first.op.name, second.op.name] == ["layer1/mean", "layer1/mean_1"]
    assert tf.get_default_graph().get_operation_by_name("layer1/mean_1").op is second.op
    assert first.dtype == tf.string and first.get_shape().as_list() == []
    assert [s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)] == [
        "layer1/mean", "layer1/mean_1", "top/weights"]
    assert len(tf.get_collection("mine")) == 1 and hidden.op.name == "layer1/hidden"
    merged = tf.summary.merge_all()
    assert merged.op.name == "Merge/MergeSummary"
    assert tf.summary.merge_all(scope="layer1").op.name == "Merge_1/MergeSummary"
    both = tf.Session().run(merged, {x: 2.0})
    tags = [field(v, 1)[0].decode() for v in field(both, 1)]
    assert tags == ["layer1/mean", "layer1/mean_1", "top/weights"]
    # a merge of merges and an operation fetch of a summary
    nested = tf.summary.merge([tf.summary.merge([first]), hidden], name="nested")
    assert nested.op.name == "nested/nested"
    result, op = tf.Session().run([nested, "layer1/mean"], {x: 2.0})
    assert op is None and [field(v, 1)[0] for v in field(result, 1)] == [
        b"layer1/mean", b"layer1/hidden"]


def test_summary_errors_are_tensorflows():
    x = tf.placeholder(tf.float32, name="x")
    sess = tf.Session()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Nan in summary histogram for: h"):
        sess.run(tf.summary.histogram("h", x), {x: [1.0, np.nan]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Infinity in summary histogram"):
        sess.run(tf.summary.histogram("h", x), {x: [np.inf]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[\] != \[2\]"):
        sess.run(tf.summary.scalar("s", x), {x: [1.0, 2.0]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="4-D"):
        sess.run(tf.summary.image("i", x), {x: [1.0, 2.0]})
    s = tf.summary.scalar("twice", x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Duplicate tag twice"):
        sess.run(tf.summary.merge([s, s]), {x: 1.0})
    with pytest.raises(AttributeError, match="not supported by TinyFlow"):
        tf.summary.audio  # noqa: B018
    with tf.Graph().as_default():
        other = tf.summary.scalar("other", tf.constant(1.0))
    with pytest.raises(tf.GraphError, match="'other'.*not an element of this session's graph"):
        sess.run(other)


# -- FileWriter ------------------------------------------------------------------------------
def _records(path) -> list:
    """The records of a TFRecord file, each one's length and data CRCs checked."""
    data, out, position = Path(path).read_bytes(), [], 0
    while position < len(data):
        header = data[position:position + 8]
        (length,) = struct.unpack("<Q", header)
        record = data[position + 12:position + 12 + length]
        assert struct.unpack("<I", data[position + 8:position + 12])[0] == \
            events.masked_crc32c(header)
        assert struct.unpack("<I", data[position + 12 + length:position + 16 + length])[0] == \
            events.masked_crc32c(record)
        out.append(record)
        position += 16 + length
    return out


def _event_files(logdir) -> list:
    return sorted(os.path.join(logdir, f) for f in os.listdir(logdir))


def test_file_writer_writes_what_tensorboard_reads(tmp_path):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable(tf.ones([2, 1]), name="w")
    y = tf.matmul(x, w, name="y")
    loss = tf.reduce_mean(y)
    tf.summary.scalar("loss", loss)
    merged = tf.summary.merge_all()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    summary = sess.run(merged, {x: np.ones((3, 2))})
    with tf.summary.FileWriter(str(tmp_path / "train"), sess.graph, filename_suffix=".v") as writer:
        assert writer.get_logdir() == str(tmp_path / "train")
        writer.add_summary(summary, 5)
        writer.add_summary(summary, global_step=6)
    (path,) = _event_files(tmp_path / "train")
    name = os.path.basename(path).split(".")
    assert name[:3] == ["events", "out", "tfevents"] and len(name[3]) == 10 and name[-1] == "v"
    records = _records(path)
    assert field(records[0], 3) == [b"brain.Event:2"]
    (graph,) = field(records[1], 4)
    nodes = {field(n, 1)[0].decode(): n for n in field(graph, 1)}
    assert field(nodes["x"], 2) == [b"Placeholder"] and field(nodes["w"], 2) == [b"VariableV2"]
    assert field(nodes["y"], 3) == [b"x", b"w"] and field(nodes["loss"], 2) == [b"scalar_summary"]
    attrs = {field(a, 1)[0]: field(a, 2)[0] for a in field(nodes["y"], 5)}
    assert attrs[b"T"] == bytes([0x30, 1]) and attrs[b"transpose_a"] == bytes([0x28, 0])
    assert [field(r, 2) for r in records[2:]] == [[5], [6]]
    assert [field(r, 5)[0] for r in records[2:]] == [summary, summary]


def test_file_writer_queue_close_reopen_and_run_metadata(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path), max_queue=3, flush_secs=1000)
    (first,) = _event_files(tmp_path)
    assert len(_records(first)) == 1  # the file version, written at once
    summary = events.summary_value("a", simple_value=1.0)
    writer.add_summary(summary, 1)
    writer.add_summary(summary, 2)
    assert len(_records(first)) == 1  # waiting in the queue
    writer.add_summary(summary, 3)
    assert len(_records(first)) == 4
    metadata = tf.RunMetadata()
    writer.add_run_metadata(metadata, "step001", 4)
    with pytest.raises(ValueError, match="already used"):
        writer.add_run_metadata(metadata, "step001")
    writer.close()
    writer.add_summary(summary, 9)  # dropped: the writer is closed
    records = _records(first)
    assert field(field(records[-1], 8)[0], 1) == [b"step001"] and len(records) == 5
    writer.reopen()  # a new file, never the old one clobbered (same second)
    writer.add_summary(summary, 10)
    writer.flush()
    second = [f for f in _event_files(tmp_path) if f != first]
    assert len(second) == 1 and [field(r, 2) for r in _records(second[0])] == [[], [10]]
    writer.close()


def test_full_trace_fills_run_metadata_with_each_op(tmp_path):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.name_scope("layer"):
        y = tf.reduce_sum(tf.exp(x))
    summary = tf.summary.scalar("y", y)
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    metadata = tf.RunMetadata()
    sess = tf.Session()
    before = int(time.time() * 1e6)
    value = sess.run(summary, {x: np.zeros((2, 2))}, options=options, run_metadata=metadata)
    (device,) = metadata.step_stats.dev_stats
    names = [s.node_name for s in device.node_stats]
    assert device.device == CPU and names[-1] == "y" and "layer/exp" in names
    assert all(s.all_start_micros >= before and s.all_end_rel_micros >= 0
               for s in device.node_stats)
    assert value == events.summary_value("y", simple_value=4.0)
    untraced = tf.RunMetadata()
    sess.run(y, {x: np.zeros((2, 2))}, run_metadata=untraced)  # no trace without options
    assert untraced.step_stats.dev_stats == []
    (stats,) = field(field(metadata.SerializeToString(), 1)[0], 1)
    assert [field(n, 1)[0].decode() for n in field(stats, 2)] == names


# -- tf.gfile ------------------------------------------------------------------------------
def test_gfile(tmp_path):
    gfile, root = tf.gfile, str(tmp_path / "a")
    assert not gfile.Exists(root)
    gfile.MakeDirs(os.path.join(root, "b", "c"))
    gfile.MakeDirs(root)  # already there: fine
    assert gfile.IsDirectory(root) and gfile.ListDirectory(root) == ["b"]
    with gfile.GFile(os.path.join(root, "f.txt"), "w") as f:
        f.write("one\ntwo\n")
    with gfile.Open(os.path.join(root, "f.txt")) as f:
        assert list(f) == ["one\n", "two\n"]
    with gfile.FastGFile(os.path.join(root, "f.txt"), "rb") as f:
        assert f.read() == b"one\ntwo\n"
    gfile.Copy(os.path.join(root, "f.txt"), os.path.join(root, "g.txt"))
    with pytest.raises(tf.errors.AlreadyExistsError):
        gfile.Copy(os.path.join(root, "f.txt"), os.path.join(root, "g.txt"))
    gfile.Rename(os.path.join(root, "g.txt"), os.path.join(root, "f.txt"), overwrite=True)
    assert sorted(gfile.Glob(os.path.join(root, "*.txt"))) == [os.path.join(root, "f.txt")]
    assert [(d, sorted(s), f) for d, s, f in gfile.Walk(root)] == [
        (root, ["b"], ["f.txt"]), (os.path.join(root, "b"), ["c"], []),
        (os.path.join(root, "b", "c"), [], [])]
    gfile.Remove(os.path.join(root, "f.txt"))
    for call in (lambda: gfile.Remove(os.path.join(root, "f.txt")),
                 lambda: gfile.GFile(os.path.join(root, "f.txt")),
                 lambda: gfile.ListDirectory(os.path.join(root, "nowhere"))):
        with pytest.raises(tf.errors.NotFoundError):
            call()
    gfile.DeleteRecursively(root)
    assert not gfile.Exists(root) and list(gfile.Walk(root)) == []
    with pytest.raises(tf.errors.NotFoundError, match="No such file"):
        gfile.DeleteRecursively(root)
    assert issubclass(tf.errors.NotFoundError, tf.errors.OpError)
