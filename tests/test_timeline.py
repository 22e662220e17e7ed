"""tensorflow.python.client.timeline (as tinyflow.python.client.timeline) and the hooks built on
traced runs (tf.train.ProfilerHook) or the global step (GlobalStepWaiterHook): TF's Chrome trace
layout (tensorflow/python/client/timeline.py: process names, X events named by op with the node
and its inputs as args, lanes that never overlap, flow events across lanes) and TF's labels
``name = op(inputs)``."""
import itertools
import json
import os
import threading

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.session_run_hooks import SummaryWriterCache
from tinyflow.python.client import timeline
from tinyflow.session.options import DeviceStepStats, NodeExecStats, StepStats

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _traced(fetch, feed):
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(fetch, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=metadata)
    return metadata


def test_a_traced_run_as_tensorflows_chrome_trace():
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    w = tf.Variable(tf.ones([3, 2]), name="w")
    loss = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w, name="product"), name="act"), name="loss")
    metadata = _traced(loss, {x: np.ones((4, 3), np.float32)})
    labels = [s.timeline_label for d in metadata.step_stats.dev_stats for s in d.node_stats]
    assert labels == ["product = matmul(x, w)", "act = relu(product)", "loss = reduce_sum(act)"]
    trace = json.loads(timeline.Timeline(metadata.step_stats).generate_chrome_trace_format())
    events = trace["traceEvents"]
    processes = [e["args"]["name"] for e in events if e["ph"] == "M"]
    assert processes == ["Allocators", "/job:localhost/replica:0/task:0/device:CPU:0 Compute",
                         "/job:localhost/replica:0/task:0/device:CPU:0 Tensors"]
    ops = [e for e in events if e["ph"] == "X"]
    assert [(e["name"], e["args"]["name"]) for e in ops] == [
        ("matmul", "product"), ("relu", "act"), ("reduce_sum", "loss")]
    assert ops[0]["args"]["input0"] == "x" and ops[0]["args"]["input1"] == "w"
    assert all(e["pid"] == 1 and e["dur"] >= 0 for e in ops)
    for lane in {e["tid"] for e in ops}:  # TF's lanes: an op starts after its lane's last ends
        spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in ops if e["tid"] == lane)
        assert all(end < start for (_, end), (start, _) in itertools.pairwise(spans))
    # an arrow only from an op in another lane (TF's rule): as many as the lanes' changes
    arrows = [e for e in events if e["ph"] == "s"]
    changes = sum(a["tid"] != b["tid"] for a, b in itertools.pairwise(ops))
    assert len(arrows) == changes


def test_overlapping_ops_take_lanes_and_get_dataflow_arrows():
    def stats(name, label, start, duration):
        return NodeExecStats(node_name=name, all_start_micros=start,
                             all_end_rel_micros=duration, timeline_label=label)
    step_stats = StepStats(dev_stats=[DeviceStepStats(device="/cpu:0", node_stats=[
        stats("a", "a = Const()", 100, 50), stats("b", "b = Const()", 120, 10),
        stats("c", "c = Add(a, b:1)", 160, 5)])])
    events = json.loads(timeline.Timeline(step_stats).generate_chrome_trace_format())[
        "traceEvents"]
    lanes = {e["args"]["name"]: e["tid"] for e in events if e["ph"] == "X"}
    assert lanes == {"a": 0, "b": 1, "c": 0}  # b starts while a runs; c after both
    flows = [(e["ph"], e["name"], e["tid"], e["ts"]) for e in events if e["ph"] in "st"]
    assert flows == [("s", "b:1", 1, 130), ("t", "b:1", 0, 160)]  # a -> c is in one lane
    quiet = json.loads(timeline.Timeline(step_stats).generate_chrome_trace_format(
        show_dataflow=False))["traceEvents"]
    assert not [e for e in quiet if e["ph"] in "st"]


def test_profiler_hook_writes_timelines_every_n_steps(tmp_path):
    x = tf.placeholder(tf.float32, [2, 2])
    w = tf.Variable(tf.ones([2, 2]))
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(
        tf.reduce_sum(tf.matmul(x, w)), global_step=step)
    hook = tf.train.ProfilerHook(save_steps=3, output_dir=str(tmp_path))
    with tf.train.MonitoredTrainingSession(hooks=[hook]) as sess:
        for _ in range(8):
            sess.run(train, {x: np.ones((2, 2), np.float32)})
    SummaryWriterCache.clear()
    written = sorted(f for f in os.listdir(tmp_path) if f.startswith("timeline-"))
    # as real TF's hook (tf.compat.v1, the same program): none at the first step, then every 3
    # global steps (the step counted after the traced run)
    assert written == ["timeline-3.json", "timeline-6.json"]
    events = json.loads((tmp_path / "timeline-3.json").read_text())["traceEvents"]
    assert {"matmul", "assign_sub"} & {e["name"] for e in events if e["ph"] == "X"}
    with pytest.raises(RuntimeError, match="Global step should be created to use ProfilerHook"):
        tf.reset_default_graph()
        tf.train.ProfilerHook(save_steps=1, output_dir=str(tmp_path)).begin()  # not the cwd


def test_global_step_waiter_hook_waits_for_another_thread():
    step = tf.train.get_or_create_global_step()
    advance = tf.assign_add(step, 1)
    seen = []
    with tf.train.MonitoredSession(hooks=[tf.train.GlobalStepWaiterHook(3)]) as sess:
        raw = sess._tf_sess

        def other_worker():
            for _ in range(3):
                raw.run(advance)
        threading.Timer(0.6, other_worker).start()
        seen.append(sess.run(step))  # held until the other thread made 3 steps
    assert seen == [3]
