"""``tensorflow.python.client.timeline``: a traced run's ops in Chrome's trace format, as TF-1
programs profile a step::

    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    run_metadata = tf.RunMetadata()
    sess.run(train_op, feed, options=options, run_metadata=run_metadata)
    trace = timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format()
    open("timeline.json", "w").write(trace)   # chrome://tracing or ui.perfetto.dev

TensorFlow's layout: per device a "Compute" process whose ops (``X`` events named by their op,
``args`` naming the node and its inputs, TF's ``name = op(input, ...)`` labels parsed) sit in
lanes that never overlap, and a "Tensors" process; with ``show_dataflow`` an arrow from the op
making each input to the op reading it when they sit in different lanes.  TinyFlow's step stats
carry no allocations, so ``show_memory`` adds no memory counters.
"""
from __future__ import annotations

import json
import re

__all__ = ["Timeline"]


def _parse_label(label: str):
    """``(node, op, inputs)`` of a ``"name = op(a, b)"`` timeline label."""
    match = re.match(r"(.*) = (.*)\((.*)\)", label)
    if match is None:
        return "unknown", "unknown", []
    name, op, inputs = match.groups()
    return name, op, inputs.split(", ") if inputs else []


class Timeline:
    """The ops of ``step_stats`` (a ``tf.RunMetadata``'s, or a ``StepStats`` protobuf) as a
    Chrome trace; ``graph`` is accepted as TensorFlow's and not needed."""

    def __init__(self, step_stats, graph=None):
        self._step_stats, self._graph = step_stats, graph

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False,
                                     op_time="schedule") -> str:
        """The trace as JSON text (``{"traceEvents": [...]}``)."""
        del show_memory, op_time  # no allocations recorded; ops are scheduled as they run
        metadata, events = [_process("Allocators", 0)], []
        made = {}  # tensor name -> (end, pid, lane) of the op that made it
        pid = 1
        for device in self._step_stats.dev_stats:
            compute, pid = pid, pid + 2
            metadata += [_process(f"{device.device} Compute", compute),
                         _process(f"{device.device} Tensors", compute + 1)]
            lanes, ends = [], []
            for stats in device.node_stats:
                start, duration = stats.all_start_micros, stats.all_end_rel_micros
                lane = next((i for i, end in enumerate(ends) if start > end), len(ends))
                ends[lane:lane + 1] = [start + duration]
                lanes.append(lane)
                _, op, inputs = _parse_label(stats.timeline_label)
                args = {"name": stats.node_name, "op": op}
                args.update({f"input{i}": name for i, name in enumerate(inputs)})
                events.append({"ph": "X", "cat": "Op", "name": op, "pid": compute, "tid": lane,
                               "ts": start, "dur": duration, "args": args})
                for name in inputs if show_dataflow else ():
                    origin = made.get(re.sub(r":\d+$", "", name))  # its node's op
                    if origin is not None and origin[1:] != (compute, lane):
                        flow = len(events)
                        events += [_flow("s", name, *origin, flow),
                                   _flow("t", name, start, compute, lane, flow)]
                made[stats.node_name] = (start + duration, compute, lane)
        return json.dumps({"traceEvents": metadata + events}, separators=(",", ":"))


def _process(name, pid):
    return {"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}}


def _flow(phase, name, timestamp, pid, lane, flow):
    return {"ph": phase, "cat": "DataFlow", "name": name, "pid": pid, "tid": lane,
            "ts": timestamp, "id": flow}
