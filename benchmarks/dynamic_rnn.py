"""dynamic_rnn as a loop against the unrolled static_rnn (issue 25): an LSTM of 128 units over
28 steps of 28 inputs, batch 128, softmax over 10 classes from the last output, Adam; step time
and the memory plan's bytes, side by side in one run.

    nice python benchmarks/dynamic_rnn.py [--rounds 5] [--steps 20] [--no-tf]

Variants, each in a fresh process, taken in turn every round (a drifting machine moves them
alike): ``static_rnn`` (the graph unrolled, 28 cell calls), ``dynamic_rnn [None, 28, 28]``
(a static number of steps: TinyFlow unrolls it too), ``dynamic_rnn [None, None, 28]`` (the
steps known at bind: the while_loop), ``dynamic_rnn + sequence_length`` (the loop, with TF's
copy-through, every length 28), and TensorFlow 1's dynamic_rnn (``/work/tfvenv``, graph mode,
if present).  Per variant: the median over rounds of each process's median step time (after 3
warm steps), the same of the CPU time a step takes (the process's, all threads: on a shared
machine it drifts less than the wall clock; the ratio to static_rnn's), and TinyFlow's planned
bytes: the outer plan, plus for the loop its subgraphs' own plans and what the forward keeps
for the backward (bytes per iteration x trips).  Torch and TF run on one thread.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TFVENV = Path("/work/tfvenv/bin/python")
BATCH, STEPS, DEPTH, UNITS, CLASSES = 128, 28, 28, 128, 10
VARIANTS = ("static_rnn", "dynamic_static", "dynamic_loop", "dynamic_lengths", "tf1")


def build(tf, variant):
    """The graph of one variant: (feeds, train op, loss)."""
    time_steps = None if variant in ("dynamic_loop",) else STEPS
    x = tf.placeholder(tf.float32, [None, time_steps, DEPTH])
    y = tf.placeholder(tf.int64, [None])
    cell = tf.nn.rnn_cell.BasicLSTMCell(UNITS)
    if variant == "static_rnn":
        outputs, _ = tf.nn.static_rnn(cell, tf.unstack(x, STEPS, 1), dtype=tf.float32)
        last = outputs[-1]
    else:
        lengths = tf.placeholder_with_default(tf.fill([BATCH], STEPS), [None]) \
            if variant == "dynamic_lengths" else None
        outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
        last = state.h
    logits = tf.layers.dense(last, CLASSES)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    return (x, y), tf.train.AdamOptimizer(1e-3).minimize(loss), loss


def planned(sess, train, feeds) -> dict:
    report = sess.memory_plan(train, feeds)
    loops = sum(sub + per_iteration * trips for _, sub, per_iteration, trips in report.loops)
    return {"planned_bytes": report.planned_bytes + loops, "outer_bytes": report.planned_bytes,
            "loop_bytes": loops}


def child(variant, steps):
    """Run in the child: time ``steps`` train steps of ``variant``; print one JSON line."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((BATCH, STEPS, DEPTH)).astype(np.float32)
    ys = rng.integers(0, CLASSES, BATCH)
    if variant == "tf1":
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf2
        tf = tf2.compat.v1
        tf.disable_eager_execution()
        config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
        (x, y), train, loss = build(tf, "dynamic_loop")
        sess = tf.Session(config=config)
        extra = {}
    else:
        import torch
        torch.set_num_threads(1)
        import tinyflow as tf
        (x, y), train, loss = build(tf, variant)
        sess = tf.Session()
        extra = None
    sess.run(tf.global_variables_initializer())
    feeds = {x: xs, y: ys}
    for _ in range(3):
        sess.run(train, feeds)
    times, cpu = [], []
    for _ in range(steps):
        start, start_cpu = time.perf_counter(), time.process_time()
        sess.run(train, feeds)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    if extra is None:
        extra = planned(sess, train, feeds)
    print(json.dumps({"variant": variant, "ms": statistics.median(times) * 1e3,
                      "cpu_ms": statistics.median(cpu) * 1e3,
                      "loss": float(sess.run(loss, feeds)), **extra}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--no-tf", action="store_true")
    parser.add_argument("--child")
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.steps)
    variants = [v for v in VARIANTS if v != "tf1" or (TFVENV.exists() and not args.no_tf)]
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="3")
    results = {v: [] for v in variants}
    for _ in range(args.rounds):
        for variant in variants:
            python = str(TFVENV) if variant == "tf1" else sys.executable
            out = subprocess.run([python, __file__, "--child", variant, "--steps",
                                  str(args.steps)], env=env, capture_output=True, text=True,
                                 check=False)
            if out.returncode:
                sys.exit(f"{variant} failed:\n{out.stderr[-3000:]}")
            results[variant].append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"LSTM {UNITS}, batch {BATCH}, {STEPS} steps, Adam; median of {args.rounds} fresh "
          f"processes x {args.steps} steps; uptime: {os.popen('uptime').read().strip()}")
    base = statistics.median(r["cpu_ms"] for r in results["static_rnn"])
    for variant, rows in results.items():
        ms = statistics.median(r["ms"] for r in rows)
        cpu = statistics.median(r["cpu_ms"] for r in rows)
        plan = rows[-1].get("planned_bytes")
        memory = "" if plan is None else (
            f"  planned {plan / 2**20:7.2f} MiB (outer {rows[-1]['outer_bytes'] / 2**20:.2f}, "
            f"loop {rows[-1]['loop_bytes'] / 2**20:.2f})")
        print(f"{variant:16s} {ms:8.2f} ms/step, cpu {cpu:6.2f} ms ({cpu / base:4.2f}x){memory}  "
              "[" + ", ".join(f"{r['ms']:.1f}" for r in rows) + "]")


if __name__ == "__main__":
    main()
