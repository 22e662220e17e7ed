"""Print the golden bytes of tests/test_summary.py, made by real TensorFlow (not run by tests).

    python -m venv /work/venvs/tf && /work/venvs/tf/bin/pip install tensorflow-cpu
    /work/venvs/tf/bin/python tools/summary_golden.py

The summary ops run in TensorFlow's graph mode (``tf.compat.v1``): its ScalarSummary,
HistogramSummary, ImageSummary and MergeSummary kernels are TF 1.x's.  Events, GraphDef and
RunMetadata are TensorFlow's protobuf classes serialized (deterministic: map keys sorted), and
the TFRecord file is written by ``tf.io.TFRecordWriter``.  Images are given as the pixels
``tf.io.decode_png`` reads from TF's PNGs (PNG compression may differ; the pixels may not).
"""
import os
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.core.util.event_pb2 import TaggedRunMetadata

v1 = tf.compat.v1
HISTOGRAM_VALUES = np.array([-1.5, 0, 0, 2.0, 3.25, 1e-13, -1e-15, 1e19, 123.456, 7.0,
                             0.1, 0.1, -0.3], np.float32)


def summaries():
    v1.disable_eager_execution()
    x = v1.placeholder(tf.float32, [], name="x")
    values = v1.placeholder(tf.float32, [None], name="values")
    images = v1.placeholder(tf.float32, [None, 3, 4, 1], name="images")
    rgba = v1.placeholder(tf.uint8, [None, 2, 2, 4], name="rgba")
    with v1.name_scope("layer1"):
        mean = v1.summary.scalar("mean", x)
        loss = v1.summary.scalar("loss", x, family="train")
        count = v1.summary.scalar("count", tf.constant(7))
        histo = v1.summary.histogram("weights", values)
    picture = v1.summary.image("input", images, max_outputs=2)
    single = v1.summary.image("rgba", rgba, max_outputs=1)
    notes = v1.summary.text("notes", tf.constant("hello"))
    merged = v1.summary.merge([mean, histo])
    rng = np.random.RandomState(0)
    image_feed = rng.uniform(0, 2, (3, 3, 4, 1)).astype(np.float32)
    image_feed[1] -= 1.0
    image_feed[1, 0, 0, 0] = np.nan
    feed = {x: 3.5, values: HISTOGRAM_VALUES, images: image_feed,
            rgba: rng.randint(0, 256, (1, 2, 2, 4)).astype(np.uint8)}
    with v1.Session() as sess:
        out = sess.run({"mean": mean, "loss": loss, "count": count, "histogram": histo,
                        "merged": merged, "text": notes, "picture": picture, "single": single},
                       feed)
        out["zero"] = sess.run(mean, {x: 0.0})
        out["empty_histogram"] = sess.run(histo, {values: np.zeros(0, np.float32)})
        for key in ("picture", "single"):
            summary = v1.Summary.FromString(out.pop(key))
            for value in summary.value:
                pixels = tf.io.decode_png(value.image.encoded_image_string).eval()
                print(f"image {value.tag} {value.image.height} {value.image.width} "
                      f"{value.image.colorspace} {pixels.tobytes().hex()}")
    print("image_feed", image_feed.tobytes().hex())
    print("rgba_feed", feed[rgba].tobytes().hex())
    for key, data in sorted(out.items()):
        print(key, data.hex())


def messages():
    summary = v1.Summary(value=[v1.Summary.Value(tag="a", simple_value=1.0)])
    metadata = v1.RunMetadata()
    stats = metadata.step_stats.dev_stats.add(device="/job:localhost/replica:0/task:0/device:CPU:0")
    stats.node_stats.add(node_name="matmul", all_start_micros=1700000000000000,
                         op_end_rel_micros=12, all_end_rel_micros=12,
                         timeline_label="matmul = matmul()")
    graph = v1.GraphDef()
    node = graph.node.add(name="x", op="Placeholder")
    node.attr["dtype"].type = tf.float32.as_datatype_enum
    node.attr["shape"].shape.CopyFrom(tf.TensorShape([None, 3]).as_proto())
    node = graph.node.add(name="layer/matmul", op="matmul", input=["x", "w:1", "^init"])
    node.attr["T"].type = tf.float32.as_datatype_enum
    node.attr["transpose_a"].b = False
    node.attr["padding"].s = b"SAME"
    node.attr["axis"].i = -2
    node.attr["alpha"].f = 0.5
    out = {
        "event_version": v1.Event(wall_time=1234.5, file_version="brain.Event:2"),
        "event_summary": v1.Event(wall_time=1234.5, step=7, summary=summary),
        "event_metadata": v1.Event(wall_time=1.0, step=3, tagged_run_metadata=TaggedRunMetadata(
            tag="step001", run_metadata=metadata.SerializeToString())),
        "run_metadata": metadata, "graph_def": graph}
    for key, message in sorted(out.items()):
        print(key, message.SerializeToString(deterministic=True).hex())


def tfrecords():
    path = os.path.join(tempfile.mkdtemp(), "records")
    with tf.io.TFRecordWriter(path) as writer:
        for record in (b"", b"hello", bytes(range(256)) * 2):
            writer.write(record)
    with open(path, "rb") as f:
        print("tfrecords", f.read().hex())


if __name__ == "__main__":
    messages()
    tfrecords()
    summaries()
