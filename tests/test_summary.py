"""tf.summary and FileWriter: byte for byte against real TensorFlow, and read back by
TensorBoard's own EventAccumulator; tf.gfile and tf.errors.

GOLDEN holds bytes made by TensorFlow 2.21's ``tf.compat.v1`` (graph mode: TF 1.x's
ScalarSummary, HistogramSummary, ImageSummary and MergeSummary kernels), its protobuf classes
(Event, GraphDef, RunMetadata, serialized deterministically) and ``tf.io.TFRecordWriter``,
printed by ``tools/summary_golden.py`` (not run here: tests do not need TensorFlow).  Images are
the pixels ``tf.io.decode_png`` reads from TF's PNGs: PNG compression may differ, pixels not;
ours are decoded with Pillow (which tensorboard installs).  Event files are read back with
``tensorboard.backend.event_processing``: what TensorBoard's dashboards show.
"""
import io
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from PIL import Image
from tensorboard.backend.event_processing import event_accumulator
from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
from tensorboard.compat.proto import event_pb2, graph_pb2, summary_pb2

import tinyflow as tf
from tinyflow.frontend import events
from tinyflow.session.options import DeviceStepStats, NodeExecStats

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


def summary_of(data) -> summary_pb2.Summary:
    return summary_pb2.Summary.FromString(data)


# -- messages and the file format, against TensorFlow's bytes --------------------------------
def test_event_file_records_match_tensorflow(tmp_path):
    writer = events.open_event_file(str(tmp_path), ".records")
    for record in (b"", b"hello", bytes(range(256)) * 2):
        writer.write(record)
    writer.close()
    (name,) = os.listdir(tmp_path)
    assert name.startswith("events.out.tfevents.") and name.endswith(".records")
    assert (tmp_path / name).read_bytes() == golden("tfrecords")


def test_event_messages_match_tensorflow():
    assert events.serialize(events.event(wall_time=1234.5, file_version="brain.Event:2")) \
        == golden("event_version")
    summary = summary_of(events.summary_value("a", simple_value=1.0))
    assert events.serialize(events.event(7, 1234.5, summary=summary)) == golden("event_summary")
    metadata = tf.RunMetadata()
    metadata.step_stats.dev_stats.append(DeviceStepStats(device=CPU, node_stats=[
        NodeExecStats(node_name="matmul", all_start_micros=1700000000000000,
                      op_end_rel_micros=12, all_end_rel_micros=12,
                      timeline_label="matmul = matmul()")]))
    assert metadata.SerializeToString() == golden("run_metadata")
    tagged = event_pb2.TaggedRunMetadata(tag="step001",
                                         run_metadata=metadata.SerializeToString())
    assert events.serialize(events.event(3, 1.0, tagged_run_metadata=tagged)) \
        == golden("event_metadata")


def test_graph_def_matches_tensorflow():
    nodes = [events.node_def("x", "Placeholder", attrs={
                "dtype": "float32", "shape": events.tensor_shape((None, 3))}),
             events.node_def("layer/matmul", "matmul", ["x", "w:1", "^init"],
                             {"T": "float32", "transpose_a": False, "padding": "SAME",
                              "axis": -2, "alpha": 0.5})]
    assert events.serialize(graph_pb2.GraphDef(node=nodes)) == golden("graph_def")


def test_attr_values():
    assert events.attr_value([1, 2]).list.i == [1, 2]
    assert events.attr_value((0.5, 2)).list.f == [0.5, 2.0]
    assert events.attr_value(["a", 3]).list.s == [b"a", b"3"]
    shapes = events.attr_value([events.tensor_shape(None), events.tensor_shape(())])
    assert [s.unknown_rank for s in shapes.list.shape] == [True, False]
    assert events.attr_value(np.int64(3)).i == 3 and events.attr_value(True).b
    assert events.attr_value("int64").type == 9 and events.attr_value("VALID").s == b"VALID"


# -- summary ops -----------------------------------------------------------------------------
def _images(summary) -> list:
    """``(tag, height, width, colorspace, pixels)`` per image value of a Summary, the PNG
    decoded by Pillow."""
    out = []
    for value in summary_of(summary).value:
        image = value.image
        png = Image.open(io.BytesIO(image.encoded_image_string))
        assert png.format == "PNG" and png.size == (image.width, image.height)
        assert png.mode == {1: "L", 3: "RGB", 4: "RGBA"}[image.colorspace]
        out.append((value.tag, str(image.height), str(image.width), str(image.colorspace),
                    png.tobytes().hex()))
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
    assert _images(out["picture"]) + _images(out["single"]) == expected


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
    assert [v.tag for v in summary_of(both).value] == [
        "layer1/mean", "layer1/mean_1", "top/weights"]
    # a merge of merges and an operation fetch of a summary
    nested = tf.summary.merge([tf.summary.merge([first]), hidden], name="nested")
    assert nested.op.name == "nested/nested"
    result, op = tf.Session().run([nested, "layer1/mean"], {x: 2.0})
    assert op is None and [v.tag for v in summary_of(result).value] == [
        "layer1/mean", "layer1/hidden"]


def test_summary_errors_are_tensorflows():
    x = tf.placeholder(tf.float32, name="x")
    sess = tf.Session()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Nan in summary histogram for: h"):
        sess.run(tf.summary.histogram("h", x), {x: [1.0, np.nan]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Infinity in summary histogram"):
        sess.run(tf.summary.histogram("h", x), {x: [np.inf]})
    with tf.name_scope("train"):
        loss = tf.summary.scalar("loss", x)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"tags and values not the same shape: \[\] != \[2\] "
                             r"\(tag 'train/loss'\)"):
        sess.run(loss, {x: [1.0, 2.0]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"4-D.*not \[2\] \(tag 'i'\)"):
        sess.run(tf.summary.image("i", x), {x: [1.0, 2.0]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="string tensor \\(tag 't'\\)"):
        sess.run(tf.summary.text("t", x), {x: 1.0})
    s = tf.summary.scalar("twice", x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Duplicate tag twice"):
        sess.run(tf.summary.merge([s, s]), {x: 1.0})
    with pytest.raises(AttributeError, match="not supported by TinyFlow"):
        tf.summary.audio  # noqa: B018
    with tf.Graph().as_default():
        other = tf.summary.scalar("other", tf.constant(1.0))
    with pytest.raises(tf.GraphError, match="'other'.*not an element of this session's graph"):
        sess.run(other)


# -- FileWriter, read back by TensorBoard ----------------------------------------------------
def _event_files(logdir) -> list:
    return sorted(os.path.join(logdir, f) for f in os.listdir(logdir))


def _events(path) -> list:
    """The Events of an event file as written, read (CRCs checked) by TensorBoard's loader."""
    return [event_pb2.Event.FromString(r) for r in RawEventFileLoader(str(path)).Load()]


def _accumulator(logdir):
    """TensorBoard's EventAccumulator over ``logdir``, keeping everything, loaded."""
    return event_accumulator.EventAccumulator(
        str(logdir), size_guidance=event_accumulator.STORE_EVERYTHING_SIZE_GUIDANCE).Reload()


def _model():
    """A small graph under name scopes with every kind of summary, merged."""
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.name_scope("layer"):
        w = tf.Variable(tf.ones([2, 1]), name="w")
        y = tf.matmul(x, w, name="y")
    loss = tf.reduce_mean(y, name="mean")
    tf.summary.scalar("loss", loss)
    tf.summary.histogram("layer/y_values", y)
    tf.summary.image("picture", tf.reshape(x, [-1, 1, 2, 1]), max_outputs=1)
    tf.summary.text("notes", tf.constant("step notes"))
    return x, tf.summary.merge_all()


def test_tensorboard_reads_scalars_histograms_images_text_and_graph(tmp_path):
    x, merged = _model()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    feeds = [np.array([[1.0, 2.0], [3.0, -4.0]]) * step for step in range(1, 4)]
    with tf.summary.FileWriter(str(tmp_path / "train"), sess.graph, filename_suffix=".v") as writer:
        assert writer.get_logdir() == str(tmp_path / "train")
        for step, feed in enumerate(feeds, 1):
            writer.add_summary(sess.run(merged, {x: feed}), global_step=10 * step)
    (path,) = _event_files(tmp_path / "train")
    name = os.path.basename(path).split(".")
    assert name[:3] == ["events", "out", "tfevents"] and len(name[3]) == 10 and name[-1] == "v"
    acc = _accumulator(tmp_path / "train")
    tags = acc.Tags()
    assert tags["scalars"] == ["loss"] and tags["histograms"] == ["layer/y_values"]
    assert tags["images"] == ["picture/image"] and tags["graph"]
    assert acc.PluginTagToContent("text") == {"notes": b""}
    scalars = acc.Scalars("loss")
    assert [s.step for s in scalars] == [10, 20, 30]
    assert [s.value for s in scalars] == pytest.approx([f.sum(1).mean() for f in feeds])
    third = acc.Histograms("layer/y_values")[2]
    histogram = third.histogram_value
    assert third.step == 30 and histogram.num == 2 and histogram.sum == pytest.approx(6.0)
    assert (histogram.min, histogram.max) == (-3.0, 9.0)
    limits, counts = np.array(histogram.bucket_limit), np.array(histogram.bucket)
    assert counts.sum() == 2 and len(np.flatnonzero(counts)) == 2
    for value, bucket in zip((-3.0, 9.0), np.flatnonzero(counts)):  # TF's 10% buckets
        assert limits[bucket - 1] <= value < limits[bucket] <= abs(limits[bucket - 1]) * 1.1
    image = acc.Images("picture/image")[0]
    assert (image.step, image.width, image.height) == (10, 2, 1)
    assert Image.open(io.BytesIO(image.encoded_image_string)).size == (2, 1)
    text = acc.Tensors("notes")
    assert [t.step for t in text] == [10, 20, 30]
    assert text[0].tensor_proto.string_val == [b"step notes"]
    assert acc.SummaryMetadata("notes").plugin_data.plugin_name == "text"


def test_graph_tab_gets_ops_names_inputs_dtypes_and_shapes(tmp_path):
    x, merged = _model()
    with tf.control_dependencies([merged]):
        after = tf.identity(x, name="after")
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_graph(tf.get_default_graph())
    graph = _accumulator(tmp_path).Graph()
    nodes = {n.name: n for n in graph.node}
    for node in graph.node:  # every input names a node of the graph
        assert all(i.lstrip("^").split(":")[0] in nodes for i in node.input), node.name
    assert nodes["x"].op == "Placeholder" and nodes["layer/w"].op == "VariableV2"
    assert nodes["layer/y"].op == "MatMul" and list(nodes["layer/y"].input) == ["x", "layer/w"]
    assert nodes["loss"].op == "ScalarSummary" and list(nodes["loss"].input) == ["mean"]
    assert after.op.name == "after" and list(nodes["after"].input) == ["x", "^Merge/MergeSummary"]

    def shapes(name):
        return [[d.size for d in s.dim] if not s.unknown_rank else None
                for s in nodes[name].attr["_output_shapes"].list.shape]
    assert shapes("x") == [[-1, 2]] and shapes("layer/w") == [[2, 1]]
    assert shapes("layer/y") == [[-1, 1]] and shapes("mean") == [[]] and shapes("loss") == [[]]
    assert nodes["x"].attr["dtype"].type == 1 and nodes["layer/y"].attr["T"].type == 1
    assert [d.size for d in nodes["x"].attr["shape"].shape.dim] == [-1, 2]
    assert nodes["layer/y"].attr["transpose_a"].b is False
    assert nodes["loss"].attr["T"].type == 7  # a summary is a string


def test_set_shape_and_unknown_rank_in_the_graph(tmp_path):
    x = tf.placeholder(tf.float32, name="anything")
    y = tf.identity(x, name="shaped")
    y.set_shape([None, 3])
    with tf.summary.FileWriter(str(tmp_path), tf.get_default_graph()):
        pass
    nodes = {n.name: n for n in _accumulator(tmp_path).Graph().node}
    assert nodes["anything"].attr["_output_shapes"].list.shape[0].unknown_rank
    assert [d.size for d in nodes["shaped"].attr["_output_shapes"].list.shape[0].dim] == [-1, 3]


def test_run_metadata_and_summary_protos(tmp_path):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.name_scope("layer"):
        y = tf.reduce_sum(tf.exp(x))
    summary = tf.summary.scalar("y", y)
    options, metadata = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), tf.RunMetadata()
    value = tf.Session().run(summary, {x: np.zeros((2, 2))}, options=options,
                             run_metadata=metadata)
    proto = summary_pb2.Summary()
    proto.value.add(tag="by_hand", simple_value=2.5)
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_run_metadata(metadata, "step001", 4)
        writer.add_summary(value, 4)
        writer.add_summary(proto, 5)
        with pytest.raises(TypeError, match="add_summary takes a Summary.*not Symbol"):
            writer.add_summary(summary, 6)
        with pytest.raises(ValueError, match="is not a serialized Summary"):
            writer.add_summary(b"\xff\xff", 6)
    acc = _accumulator(tmp_path)
    assert acc.Tags()["run_metadata"] == ["step001"]
    (device,) = acc.RunMetadata("step001").step_stats.dev_stats
    assert device.device == CPU and "layer/Exp" in [s.node_name for s in device.node_stats]
    assert all(s.all_end_rel_micros >= 0 and s.all_start_micros > 0 for s in device.node_stats)
    assert [(s.step, s.value) for s in acc.Scalars("y")] == [(4, 4.0)]
    assert [(s.step, s.value) for s in acc.Scalars("by_hand")] == [(5, 2.5)]


def test_text_metadata_only_with_a_tags_first_value(tmp_path):
    notes = tf.summary.text("notes", tf.constant("hi"))
    value = tf.Session().run(notes)
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_summary(value, 1)
        writer.add_summary(value, 2)
    written = [e.summary.value[0] for e in _events(_event_files(tmp_path)[0])[1:]]
    assert [v.HasField("metadata") for v in written] == [True, False]  # as TensorFlow's


def test_file_writer_queue_close_reopen_and_run_metadata(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path), max_queue=3, flush_secs=1000)
    (first,) = _event_files(tmp_path)
    (version,) = _events(first)  # the file version, written at once
    assert version.file_version == "brain.Event:2" and version.wall_time > 0
    summary = events.summary_value("a", simple_value=1.0)
    writer.add_summary(summary, 1)
    writer.add_summary(summary, 2)
    assert len(_events(first)) == 1  # waiting in the queue
    writer.add_summary(summary, 3)
    assert [e.step for e in _events(first)] == [0, 1, 2, 3]
    metadata = tf.RunMetadata()
    writer.add_run_metadata(metadata, "step001", 4)
    with pytest.raises(ValueError, match="already used"):
        writer.add_run_metadata(metadata, "step001")
    writer.close()
    writer.add_summary(summary, 9)  # dropped: the writer is closed
    written = _events(first)
    assert written[-1].tagged_run_metadata.tag == "step001" and len(written) == 5
    writer.reopen()  # a new file, never the old one clobbered (same second)
    writer.add_summary(summary, 10)
    writer.flush()
    second = [f for f in _event_files(tmp_path) if f != first]
    assert len(second) == 1 and [e.step for e in _events(second[0])] == [0, 10]
    writer.close()


def test_file_writer_on_an_unwritable_logdir_names_it(tmp_path):
    (tmp_path / "file").write_text("not a directory")
    logdir = str(tmp_path / "file" / "logs")
    with pytest.raises(tf.errors.OpError, match=f"FileWriter cannot write event files in "
                                                f"logdir '{logdir}'"):
        tf.summary.FileWriter(logdir)
    with pytest.raises(tf.errors.OpError, match="cannot write event files in logdir '/proc/tf"):
        tf.summary.FileWriter("/proc/tf")


def test_missing_tensorboard_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboard.compat.proto.summary_pb2", None)
    with pytest.raises(ImportError, match=r"tinyflow\[tensorboard\]"):
        events.proto("summary_pb2")
    code = "import sys, tinyflow; print(sorted(m for m in sys.modules if 'tensorboard' in m " \
           "or 'protobuf' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "[]"  # import tinyflow stays light


def test_full_trace_fills_run_metadata_with_each_op():
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
    assert device.device == CPU and names[-1] == "y" and "layer/Exp" in names
    assert all(s.all_start_micros >= before and s.all_end_rel_micros >= 0
               for s in device.node_stats)
    assert value == events.summary_value("y", simple_value=4.0)
    untraced = tf.RunMetadata()
    sess.run(y, {x: np.zeros((2, 2))}, run_metadata=untraced)  # no trace without options
    assert untraced.step_stats.dev_stats == []
    (stats,) = metadata.to_proto().step_stats.dev_stats
    assert [n.node_name for n in stats.node_stats] == names


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


def test_file_writer_without_tensorboard_names_the_extra(monkeypatch, tmp_path):
    # tensorboard is an extra: a FileWriter (the first thing writing an event file) says which
    for name in [m for m in sys.modules if m == "tensorboard" or m.startswith("tensorboard.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    with pytest.raises(ImportError, match=r'pip install "tinyflow\[tensorboard\]"'):
        tf.summary.FileWriter(str(tmp_path / "logs"))
