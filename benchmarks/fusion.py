"""Elementwise fusion on the CPU (``Session(config='cpu fusion')``) against the same session
without it: the op count a step runs, before and after, and the step time, measured side by
side (alternating rounds, medians) in one process.

    python benchmarks/fusion.py [--rounds 7] [--steps 10] [--threads N] [--only LeNet]

Workloads: the seed's LeNet Adam step (benchmarks/lenet_step.py), the example MLP
(examples/mnist_mlp_auto_shape_inference.py: 784-100-10, relu, softmax, SGD), a wider MLP
with a GELU (tanh form: eight elementwise ops per activation) and one with a layer norm written
with tf ops (two means per row, and in the backward pass the sums of the gradients over rows
and over the batch: reductions fused with the elementwise ops around them), batch 100.  The first step of a
fused session compiles its kernels (inductor; cached on disk for the next process).
"""
import argparse
import statistics
import time

import numpy as np
import torch
from lenet_step import lenet_graph

import tinyflow as tf


def mlp_graph():
    """The example MLP: (x, label, train_step)."""
    x, y_ = tf.placeholder(tf.float32, [100, 784]), tf.placeholder(tf.float32, [100, 10])
    hidden = tf.nn.relu(tf.nn.linear(x, num_hidden=100, name="fc1", no_bias=False))
    y = tf.nn.softmax(tf.nn.linear(hidden, num_hidden=10, name="fc2"))
    loss = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    return x, y_, tf.train.GradientDescentOptimizer(0.5).minimize(loss)


def gelu(h):
    """GELU, tanh form: 0.5 h (1 + tanh(sqrt(2 / pi) (h + 0.044715 h^3)))."""
    return 0.5 * h * (1.0 + tf.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))


def gelu_mlp_graph(batch=100):
    """784-1024-1024-10 with GELUs and a bias each: (x, label, train_step)."""
    x, y_ = tf.placeholder(tf.float32, [batch, 784]), tf.placeholder(tf.float32, [batch, 10])
    h = x
    for i, width in enumerate((1024, 1024)):
        h = gelu(tf.nn.linear(h, num_hidden=width, name=f"fc{i + 1}", no_bias=False))
    y = tf.nn.softmax(tf.nn.linear(h, num_hidden=10, name="out"))
    loss = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y + 1e-8), reduction_indices=[1]))
    return x, y_, tf.train.GradientDescentOptimizer(0.1).minimize(loss)


def layer_norm(h, width, eps=1e-5):
    """A layer norm from tf ops: (h - mean) / sqrt(var + eps) * gamma + beta, per row."""
    gamma, beta = tf.Variable(tf.ones([width])), tf.Variable(tf.zeros([width]))
    centred = h - tf.reduce_mean(h, axis=1, keepdims=True)
    variance = tf.reduce_mean(centred * centred, axis=1, keepdims=True)
    return centred / tf.sqrt(variance + eps) * gamma + beta


def layer_norm_mlp_graph(batch=100):
    """784-1024-1024-10, each hidden layer linear, layer norm, GELU: (x, label, train_step)."""
    x, y_ = tf.placeholder(tf.float32, [batch, 784]), tf.placeholder(tf.float32, [batch, 10])
    h = x
    for i, width in enumerate((1024, 1024)):
        h = gelu(layer_norm(tf.nn.linear(h, num_hidden=width, name=f"fc{i + 1}"), width))
    y = tf.nn.softmax(tf.nn.linear(h, num_hidden=10, name="out"))
    loss = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y + 1e-8), reduction_indices=[1]))
    return x, y_, tf.train.GradientDescentOptimizer(0.1).minimize(loss)


def feeds(name, x, label):
    rng = np.random.default_rng(0)
    if name == "LeNet":
        return {x: rng.uniform(size=(100, 1, 28, 28)).astype(np.float32),
                label: rng.integers(0, 10, 100).astype(np.float32)}
    return {x: rng.uniform(size=(100, 784)).astype(np.float32),
            label: np.eye(10, dtype=np.float32)[rng.integers(0, 10, 100)]}


def run(name, build, rounds, steps):
    tf.reset_default_graph()
    built = build()
    x, label, train = built[0], built[1], built[-1]
    feed = feeds(name, x, label)
    sessions = {}
    for config in ("cpu", "cpu fusion"):
        sess = tf.Session(config)
        sess.run(tf.global_variables_initializer())
        start = time.perf_counter()
        sess.run(train, feed)  # binds (and compiles the fused kernels)
        first = time.perf_counter() - start
        report = sess.closures(train, feed)
        inside = sum(len(lines) for lines in report.fused.values())
        planned = sess.memory_plan(train, feed).planned_bytes / 2 ** 20
        print(f"{name} [{config}]: {len(report.rows)} ops per step ({len(report.fused)} fused "
              f"nodes holding {inside} ops); planned {planned:.2f} MB; first step "
              f"(bind{' + compile' * (config != 'cpu')}) {first:.2f} s")
        sessions[config] = sess
    times = {config: [] for config in sessions}
    for _ in range(rounds):
        for config, sess in sessions.items():
            start = time.perf_counter()
            for _ in range(steps):
                sess.run(train, feed)
            times[config].append((time.perf_counter() - start) / steps * 1e3)
    plain, fused = (statistics.median(times[c]) for c in ("cpu", "cpu fusion"))
    print(f"{name}: unfused {plain:.3f} ms/step, fused {fused:.3f} ms/step, ratio fused/unfused "
          f"= {fused / plain:.2f}x (median of {rounds} rounds x {steps} steps)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's)")
    parser.add_argument("--only", action="append", help="a workload to run (repeatable)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch threads: {torch.get_num_threads()}")
    for name, build in (("LeNet", lenet_graph), ("MLP", mlp_graph),
                        ("GELU MLP", gelu_mlp_graph), ("LayerNorm MLP", layer_norm_mlp_graph)):
        if not args.only or name in args.only:
            run(name, build, args.rounds, args.steps)


if __name__ == "__main__":
    main()
