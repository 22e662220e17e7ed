"""TinyFlow against its peers on the CPU: PyTorch eager, ``torch.compile`` and TensorFlow 1.

Three training steps, each run alternately on every peer in one process tree (medians of
``--rounds`` alternating rounds of ``--steps`` warm steps, 25x as many for the softmax
step, after warm-up), with generated
data (random images, fixed seed), 2 threads everywhere:

- ``lenet``: the seed's LeNet (benchmarks/lenet_step.py: conv 20 and 50 of 5x5, tanh, 2x2 max
  pool, fc 500 tanh, fc 10, no fc bias), batch 100, Adam 1e-3; NCHW for TinyFlow and
  PyTorch, NHWC for TF1;
- ``softmax``: softmax regression 784x10, batch 100, SGD 0.5;
- ``deep``: TF1's ``mnist_deep`` (NHWC, 5x5 conv 32 and 64 with ReLU, 2x2 max pool, fc 1024,
  dropout 0.5, Adam 1e-4), batch 50; TinyFlow and TF1 run the same TF-1 code, PyTorch eager
  its NCHW equivalent;
- ``lstm``: an LSTM classifier, 28 steps x 28 inputs, 128 units (``static_rnn`` +
  ``BasicLSTMCell``), fc 10, Adam 1e-3, batch 128; TinyFlow and TF1 run the same TF-1 code,
  PyTorch eager ``nn.LSTM`` (torch.compile left out: minutes of compiling).

``--background-load N`` times every workload twice: quiet, then with N busy processes
(``while True: pass``) that it starts before and stops after, and prints both tables and each
peer's slowdown.  TinyFlow is imported before torch, so its OpenMP wait policy
(tinyflow/lua_ops/threads.py) is the process's: eager and compile run under it too.

TF1 is ``tf.compat.v1`` graph mode of the TensorFlow in ``--tf-python`` (default
/work/venvs/tf/bin/python), driven in a subprocess of that interpreter round by round, so it
alternates with the others; TensorFlow is never imported here.  A peer that is not installed
is skipped with a line saying so.  Then, for LeNet, each peer runs a whole program (train
``--rss-steps`` steps, then score 10,000 images in one run) in a fresh subprocess and its
peak RSS (VmHWM) is printed, with TinyFlow's broken down by stage.

    python benchmarks/peers.py [--rounds 3] [--steps 20] [--workloads lenet,softmax,deep,lstm]
                               [--skip-peer compile] [--no-rss] [--background-load 1]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

PEERS = ("tinyflow", "eager", "compile", "tf1")
WORKLOADS = ("lenet", "softmax", "deep", "lstm")
TF_PYTHON = "/work/tfvenv/bin/python"
# every peer's thread count (the TF worker subprocess inherits the variable); 1 compares the
# kernels alone on a loaded machine, where two threads fall off the cliff (docs/performance.md)
THREADS = int(os.environ.get("TINYFLOW_PEERS_THREADS", "2"))


def lenet_flops():
    """Multiply-add FLOPs of one LeNet train step (convolutions and matmuls only).

    Returns
    -------
    (float, str)
        FLOPs and how they were counted.  Forward layers are counted once, the backward as a
        weight gradient for every layer plus a data gradient for every layer but the first.
    """
    batch = 100
    conv1 = 2 * batch * 20 * 24 * 24 * (1 * 5 * 5)
    conv2 = 2 * batch * 50 * 8 * 8 * (20 * 5 * 5)
    fc1, fc2 = 2 * batch * 800 * 500, 2 * batch * 500 * 10
    forward = conv1 + conv2 + fc1 + fc2
    return 3 * forward - conv1, (f"fwd {forward / 1e6:.1f} MFLOP (conv1 {conv1 / 1e6:.1f}, "
                                 f"conv2 {conv2 / 1e6:.1f}, fc1 {fc1 / 1e6:.1f}, fc2 "
                                 f"{fc2 / 1e6:.1f}) x3 - conv1 data grad")


def softmax_flops():
    """FLOPs of one softmax-regression step: the 100x784x10 matmul and its weight gradient.

    Returns
    -------
    (float, str)
    """
    mm = 2 * 100 * 784 * 10
    return 2 * mm, f"fwd {mm / 1e6:.2f} MFLOP x2 (no data grad)"


def deep_flops():
    """FLOPs of one ``mnist_deep`` step (batch 50, SAME convolutions).

    Returns
    -------
    (float, str)
    """
    batch = 50
    conv1 = 2 * batch * 32 * 28 * 28 * (1 * 5 * 5)
    conv2 = 2 * batch * 64 * 14 * 14 * (32 * 5 * 5)
    fc1, fc2 = 2 * batch * 3136 * 1024, 2 * batch * 1024 * 10
    forward = conv1 + conv2 + fc1 + fc2
    return 3 * forward - conv1, (f"fwd {forward / 1e6:.1f} MFLOP (conv1 {conv1 / 1e6:.1f}, "
                                 f"conv2 {conv2 / 1e6:.1f}, fc1 {fc1 / 1e6:.1f}, fc2 "
                                 f"{fc2 / 1e6:.1f}) x3 - conv1 data grad")


def lstm_flops():
    """FLOPs of one LSTM step: the gates' matmuls of 28 time steps and the fc layer.

    Returns
    -------
    (float, str)
    """
    batch, steps, inputs, units = 128, 28, 28, 128
    gates = 2 * batch * (inputs + units) * 4 * units * steps
    fc = 2 * batch * units * 10
    forward = gates + fc
    first = 2 * batch * inputs * 4 * units * steps  # the inputs' data gradient, not needed
    return 3 * forward - first, (f"fwd {forward / 1e6:.1f} MFLOP (gates {gates / 1e6:.1f}, fc "
                                 f"{fc / 1e6:.2f}) x3 - the inputs' data grad")


FLOPS = {"lenet": lenet_flops, "softmax": softmax_flops, "deep": deep_flops, "lstm": lstm_flops}


def peak_flops():
    """The assumed fp32 peak of this machine's 2 cores.

    Returns
    -------
    (float, str)
        FLOP/s and the formula: cores x 2 FMA units x 16 fp32 lanes (AVX-512) x 2 FLOP per
        FMA x the clock read from /proc/cpuinfo ("cpu MHz", the first core's).
    """
    with open("/proc/cpuinfo") as f:
        text = f.read()
    mhz = float(re.search(r"cpu MHz\s*:\s*([\d.]+)", text).group(1))
    model = re.search(r"model name\s*:\s*(.*)", text).group(1).strip()
    peak = THREADS * 2 * 16 * 2 * mhz * 1e6
    return peak, (f"{THREADS} cores x 2 FMA units x 16 fp32 (AVX-512) x 2 FLOP/FMA x "
                  f"{mhz:.0f} MHz ('cpu MHz' in /proc/cpuinfo, {model}) = {peak / 1e9:.0f} "
                  "GFLOP/s")


def make_data(workload, nhwc=False, test=False):
    """Generated inputs for ``workload`` (fixed seed): images and labels of one batch.

    Parameters
    ----------
    workload : str
    nhwc : bool
        LeNet images as (N, 28, 28, 1) instead of (N, 1, 28, 28).
    test : bool
        10,000 images (the evaluation set) instead of one batch.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        float32 images; float32 class indices (lenet) or one-hot rows (softmax, deep).
    """
    rng = np.random.default_rng(1 if test else 0)
    n = 10000 if test else {"lenet": 100, "softmax": 100, "deep": 50, "lstm": 128}[workload]
    if workload == "lstm":  # 28 time steps of 28 inputs (an image's rows)
        return (rng.uniform(size=(n, 28, 28)).astype(np.float32),
                np.eye(10, dtype=np.float32)[rng.integers(0, 10, n)])
    if workload == "lenet":
        shape = (n, 28, 28, 1) if nhwc else (n, 1, 28, 28)
        return (rng.uniform(size=shape).astype(np.float32),
                rng.integers(0, 10, n).astype(np.float32))
    images = rng.uniform(size=(n, 784)).astype(np.float32)
    return images, np.eye(10, dtype=np.float32)[rng.integers(0, 10, n)]


# ---------------------------------------------------------------- TF-1 programs (both engines)

def softmax_graph(tf, images, labels):
    """The seed's softmax regression in TF-1 code; ``tf`` is tinyflow or tf.compat.v1.

    Returns
    -------
    (train_step, feed_dict, None)
    """
    x = tf.placeholder(tf.float32, [None, 784])
    W = tf.Variable(tf.zeros([784, 10]))
    y = tf.nn.softmax(tf.matmul(x, W))
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    return train_step, {x: images, y_: labels}, None


def deep_graph(tf, images, labels):
    """TF1's ``mnist_deep`` network and Adam 1e-4 step; ``tf`` is tinyflow or tf.compat.v1.

    Returns
    -------
    (train_step, feed_dict, None)
    """
    def weight(shape):
        return tf.Variable(tf.truncated_normal(shape, stddev=0.1))

    def bias(shape):
        return tf.Variable(tf.constant(0.1, shape=shape))

    def conv_pool(h, w_shape):
        h = tf.nn.relu(tf.nn.conv2d(h, weight(w_shape), strides=[1, 1, 1, 1], padding="SAME")
                       + bias(w_shape[-1:]))
        return tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")

    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.float32, [None, 10])
    h = conv_pool(tf.reshape(x, [-1, 28, 28, 1]), [5, 5, 1, 32])
    h = conv_pool(h, [5, 5, 32, 64])
    h = tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 7 * 7 * 64]), weight([3136, 1024]))
                   + bias([1024]))
    keep_prob = tf.placeholder(tf.float32)
    logits = tf.matmul(tf.nn.dropout(h, keep_prob), weight([1024, 10])) + bias([10])
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
    train_step = tf.train.AdamOptimizer(1e-4).minimize(loss)
    return train_step, {x: images, y_: labels, keep_prob: 0.5}, None


def lstm_graph(tf, images, labels):
    """An LSTM classifier in TF-1 code (static_rnn + BasicLSTMCell over 28 time steps, fc 10,
    Adam 1e-3); ``tf`` is tinyflow or tf.compat.v1.

    Returns
    -------
    (train_step, feed_dict, None)
    """
    x = tf.placeholder(tf.float32, [None, 28, 28])
    y_ = tf.placeholder(tf.float32, [None, 10])
    cell = tf.nn.rnn_cell.BasicLSTMCell(128)
    outputs, _ = tf.nn.static_rnn(cell, tf.unstack(x, 28, 1), dtype=tf.float32)
    w = tf.Variable(tf.truncated_normal([128, 10], stddev=0.1))
    logits = tf.matmul(outputs[-1], w) + tf.Variable(tf.zeros([10]))
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
    train_step = tf.train.AdamOptimizer(1e-3).minimize(loss)
    return train_step, {x: images, y_: labels}, None


GRAPHS = {"softmax": softmax_graph, "deep": deep_graph, "lstm": lstm_graph}


def lenet_tf1_graph(tf, images, labels):
    """LeNet in TF1's natural form: NHWC, HWIO filters, conv + bias_add, no fc bias.

    Returns
    -------
    (train_step, feed_dict, (accuracy, x, label))
    """
    def var(shape, std):
        return tf.Variable(tf.random_normal(shape, stddev=std)) if std else \
            tf.Variable(tf.zeros(shape))

    def conv_tanh_pool(h, w_shape, std):
        h = tf.nn.conv2d(h, var(w_shape, std), strides=[1, 1, 1, 1], padding="VALID")
        h = tf.tanh(tf.nn.bias_add(h, var(w_shape[-1:], 0)))
        return tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")

    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    label = tf.placeholder(tf.int32, [None])
    h = conv_tanh_pool(x, [5, 5, 1, 20], 0.1)
    h = conv_tanh_pool(h, [5, 5, 20, 50], 0.05)
    h = tf.tanh(tf.matmul(tf.reshape(h, [-1, 800]), var([800, 500], 0.03)))
    logits = tf.matmul(h, var([500, 10], 0.05))
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=label,
                                                                         logits=logits))
    train_step = tf.train.AdamOptimizer(0.001).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), label),
                                      tf.float32))
    return train_step, {x: images, label: labels.astype(np.int32)}, (accuracy, x, label)


def lenet_tinyflow_graph(tf, images, labels):
    """The seed's LeNet exactly as benchmarks/lenet_step.py builds it (NCHW, seed layers).

    Returns
    -------
    (train_step, feed_dict, (accuracy, x, label))
    """
    from lenet_step import lenet_graph  # benchmarks/ is this script's folder

    x, label, logits, train_step = lenet_graph()
    accuracy = tf.reduce_mean(tf.equal(tf.argmax(logits, 1), label))
    return train_step, {x: images, label: labels}, (accuracy, x, label)


def tf1_session(tf):
    """A TF1 session on 2 intra-op threads and 1 inter-op thread."""
    return tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=THREADS,
                                            inter_op_parallelism_threads=1))


def tf1_worker(workload, warmup):
    """The TF1 side, in the TF interpreter: build, warm up, then answer the parent line by line.

    Prints ``ready <setup seconds>``; then each stdin line ``<n>`` runs ``n`` steps and prints
    their seconds; ``quit`` ends.
    """
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow.compat.v1 as tf
    tf.disable_eager_execution()
    tf.set_random_seed(0)
    build = {"lenet": lenet_tf1_graph, **GRAPHS}[workload]
    start = time.perf_counter()
    train_step, feed, _ = build(tf, *make_data(workload, nhwc=True))
    sess = tf1_session(tf)
    sess.run(tf.global_variables_initializer())
    for _ in range(warmup):
        sess.run(train_step, feed)
    print(f"ready {time.perf_counter() - start:.3f}", flush=True)
    for line in sys.stdin:
        if line.strip() == "quit":
            break
        steps = int(line)
        start = time.perf_counter()
        for _ in range(steps):
            sess.run(train_step, feed)
        print(f"{time.perf_counter() - start:.6f}", flush=True)


# ---------------------------------------------------------------- runners (this interpreter)

class TF1Peer:
    """The parent's handle on a :func:`tf1_worker` subprocess."""

    def __init__(self, python, workload, warmup):
        self.proc = subprocess.Popen(
            [python, os.path.abspath(__file__), "--tf-worker", workload, "--warmup",
             str(warmup)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            stderr=subprocess.PIPE, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3",
                                             CUDA_VISIBLE_DEVICES="", TF_USE_LEGACY_KERAS="1"))
        line = self.proc.stdout.readline().split()
        if not line or line[0] != "ready":
            raise RuntimeError(f"TF1 worker failed: {self.proc.stderr.read()[-2000:]}")
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()  # TF's warnings
        self.setup_s = float(line[1])

    def rounds(self, steps):
        """Run ``steps`` steps in the worker; their wall time in seconds."""
        self.proc.stdin.write(f"{steps}\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self):
        """End the worker."""
        self.proc.stdin.write("quit\n")
        self.proc.stdin.close()
        self.proc.wait()


def tinyflow_step(workload):
    """A TinyFlow train step for ``workload`` (graph built, variables initialised)."""
    import tinyflow as tf
    tf.reset_default_graph()
    build = {"lenet": lenet_tinyflow_graph, **GRAPHS}
    train_step, feed, _ = build[workload](tf, *make_data(workload))
    sess = tf.Session("cpu")
    sess.run(tf.global_variables_initializer())
    return lambda: sess.run(train_step, feed)


def lenet_torch(images, labels):
    """LeNet in PyTorch (benchmarks/lenet_step.py's peer too): (step, forward)."""
    import torch
    import torch.nn.functional as F
    torch.manual_seed(0)
    params = [torch.randn(20, 1, 5, 5) * 0.1, torch.zeros(20), torch.randn(50, 20, 5, 5) * 0.05,
              torch.zeros(50), torch.randn(500, 800) * 0.03, torch.randn(10, 500) * 0.05]
    for p in params:
        p.requires_grad_(True)
    optimizer = torch.optim.Adam(params, lr=0.001)
    xs, ys = torch.from_numpy(images), torch.from_numpy(labels).long()

    def forward(x):
        w1, b1, w2, b2, w3, w4 = params
        h = F.max_pool2d(torch.tanh(F.conv2d(x, w1, b1)), 2)
        h = F.max_pool2d(torch.tanh(F.conv2d(h, w2, b2)), 2)
        return torch.tanh(h.flatten(1) @ w3.t()) @ w4.t()

    def step():
        loss = F.cross_entropy(forward(xs), ys)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    return step, forward


def softmax_torch(images, labels):
    """Softmax regression in PyTorch (benchmarks/softmax_step.py's peer too): the step
    function."""
    import torch
    w = torch.zeros(784, 10, requires_grad=True)
    xs, ys = torch.from_numpy(images), torch.from_numpy(labels)

    def step():
        loss = torch.mean(-torch.sum(ys * torch.log(torch.softmax(xs @ w, 1)), 1))
        loss.backward()
        with torch.no_grad():
            w.sub_(0.5 * w.grad)
        w.grad = None

    return step


def deep_torch(images, labels):
    """``mnist_deep`` in PyTorch's natural NCHW form (padding 2 = SAME): the step function."""
    import torch
    import torch.nn.functional as F
    torch.manual_seed(0)

    def weight(*shape):
        return (torch.randn(*shape) * 0.1).clamp_(-0.2, 0.2).requires_grad_(True)

    def bias(n):
        return torch.full((n,), 0.1, requires_grad=True)

    params = [weight(32, 1, 5, 5), bias(32), weight(64, 32, 5, 5), bias(64),
              weight(1024, 3136), bias(1024), weight(10, 1024), bias(10)]
    optimizer = torch.optim.Adam(params, lr=1e-4)
    xs, ys = torch.from_numpy(images).view(-1, 1, 28, 28), torch.from_numpy(labels)

    def step():
        w1, b1, w2, b2, w3, b3, w4, b4 = params
        h = F.max_pool2d(F.relu(F.conv2d(xs, w1, b1, padding=2)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, w2, b2, padding=2)), 2)
        h = F.dropout(F.relu(F.linear(h.flatten(1), w3, b3)), 0.5)
        loss = F.cross_entropy(F.linear(h, w4, b4), ys)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    return step


def lstm_torch(images, labels):
    """The LSTM classifier in PyTorch's natural form (``nn.LSTM``, batch first): the step."""
    import torch
    torch.manual_seed(0)
    lstm, fc = torch.nn.LSTM(28, 128, batch_first=True), torch.nn.Linear(128, 10)
    optimizer = torch.optim.Adam([*lstm.parameters(), *fc.parameters()], lr=1e-3)
    xs, ys = torch.from_numpy(images), torch.from_numpy(labels)

    def step():
        outputs, _ = lstm(xs)
        loss = torch.nn.functional.cross_entropy(fc(outputs[:, -1]), ys)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    return step


def torch_step(workload, compiled):
    """A PyTorch train step for ``workload``, eager or under ``torch.compile`` (inductor)."""
    import torch
    data = make_data(workload)
    if workload == "lenet":
        step = lenet_torch(*data)[0]
    else:
        step = {"softmax": softmax_torch, "deep": deep_torch, "lstm": lstm_torch}[workload](*data)
    return torch.compile(step) if compiled else step


def bench(args, workload, out, label="quiet"):
    """Time ``workload`` on every peer alternately, print its table rows (titled ``label``)
    and return ``{peer: median seconds per step}``."""
    import torch
    peers, setup = {}, {}
    for peer in PEERS:
        if peer in args.skip_peer or (peer == "compile" and workload in ("deep", "lstm")):
            continue
        start = time.perf_counter()
        if peer == "tinyflow":
            peers[peer] = tinyflow_step(workload)
        elif peer in ("eager", "compile"):
            peers[peer] = torch_step(workload, peer == "compile")
        elif args.tf_python:
            try:
                tf1 = TF1Peer(args.tf_python, workload, args.warmup)
            except RuntimeError as error:
                out(f"  TF1 skipped: {error}")
                continue
            peers[peer] = tf1
        if peer != "tf1":
            first = time.perf_counter()
            peers[peer]()  # the first call: binding / tracing / compiling
            setup[peer] = (first - start, time.perf_counter() - first)
            for _ in range(args.warmup):
                peers[peer]()
        else:
            setup[peer] = (peers[peer].setup_s, None)
    times = {peer: [] for peer in peers}
    steps = args.steps * (25 if workload == "softmax" else 1)  # its step is ~100x shorter
    for _ in range(args.rounds):
        for peer, step in peers.items():
            if peer == "tf1":
                times[peer].append(step.rounds(steps) / steps)
                continue
            start = time.perf_counter()
            for _ in range(steps):
                step()
            times[peer].append((time.perf_counter() - start) / steps)
    if "tf1" in peers:
        peers["tf1"].close()
    flops, how = FLOPS[workload]()
    peak, _ = peak_flops()
    out(f"\n{workload}, {label}: {flops / 1e9:.4f} GFLOP/step ({how}); medians of {args.rounds} "
        f"alternating rounds x {steps} steps after {args.warmup} warm-up steps; tinyflow/peer: "
        f"the median (and range) of the rounds' ratios, each round's peers run back to back")
    out(f"  {'peer':<10}{'ms/step':>9}{'GFLOP/s':>9}{'% peak':>8}{'tinyflow/peer':>22}"
        f"   rounds (ms)")
    base = times.get("tinyflow")
    for peer, ts in times.items():
        ms = statistics.median(ts) * 1e3
        ratio = "-"
        if base:  # paired by round: the machine's drift moves both sides of a ratio alike
            ratios = [b / t for b, t in zip(base, ts)]
            ratio = (f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-"
                     f"{max(ratios):.2f})")
        rounds = " ".join(f"{t * 1e3:.3f}" for t in ts)
        out(f"  {peer:<10}{ms:>9.3f}{flops / ms / 1e6:>9.1f}"
            f"{flops / ms / 1e6 / (peak / 1e9):>8.1%}{ratio:>22}   {rounds}")
    notes = [f"{peer} setup {a:.2f} s" + (f" + first step {b:.2f} s" if b is not None else "")
             for peer, (a, b) in setup.items()]
    out("  " + "; ".join(notes) + " (compile: the first step is the inductor compile, "
        "excluded from the timings, quicker when inductor's caches under /tmp hit; tf1: "
        "graph, session and warm-up)")
    del torch
    return {peer: statistics.median(ts) for peer, ts in times.items()}


def loaded(args, workload, out, quiet):
    """Time ``workload`` again with ``args.background_load`` busy processes, then print each
    peer's slowdown from ``quiet`` ({peer: seconds})."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(args.background_load)]
    try:
        with open("/proc/loadavg") as f:
            out(f"\n(load average with {len(busy)} busy processes started: "
                f"{' '.join(f.read().split()[:3])})")
        medians = bench(args, workload, out, f"{len(busy)} busy process(es) beside it")
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
    out(f"  {workload} slowdown from quiet with {len(busy)} busy: " + ", ".join(
        f"{peer} {medians[peer] / quiet[peer]:.2f}x" for peer in medians if peer in quiet))


# ---------------------------------------------------------------- peak RSS (fresh processes)

def vm(field):
    """``VmRSS`` / ``VmHWM`` of this process in MiB (from /proc/self/status)."""
    with open("/proc/self/status") as f:
        return int(re.search(rf"{field}:\s*(\d+)", f.read()).group(1)) / 1024


def rss_worker(peer, steps):
    """A whole LeNet program in this fresh process: ``steps`` train steps, then the 10,000
    test images scored in one run; prints ``stage <name> <VmRSS MiB> <VmHWM MiB> [note]``."""
    def stage(name, note=""):
        print(f"stage {name.replace(' ', '_')} {vm('VmRSS'):.1f} {vm('VmHWM'):.1f} {note}", flush=True)

    stage("python+numpy")
    images, labels = make_data("lenet", nhwc=peer == "tf1")
    test_images, test_labels = make_data("lenet", nhwc=peer == "tf1", test=True)
    stage("data")
    if peer == "tf1":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow.compat.v1 as tf
        tf.disable_eager_execution()
        stage("import")
        train_step, feed, (accuracy, x, label) = lenet_tf1_graph(tf, images, labels)
        sess = tf1_session(tf)
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train_step, feed)
        stage("train")
        sess.run(accuracy, {x: test_images, label: test_labels.astype(np.int32)})
        stage("eval")
        return
    import torch
    torch.set_num_threads(THREADS)
    stage("import torch")
    if peer == "eager":
        step, forward = lenet_torch(images, labels)
        for _ in range(steps):
            step()
        stage("train")
        with torch.no_grad():
            forward(torch.from_numpy(test_images)).argmax(1)
        stage("eval")
        return
    import tinyflow as tf
    stage("import tinyflow")
    train_step, feed, (accuracy, x, label) = lenet_tinyflow_graph(tf, images, labels)
    sess = tf.Session("cpu")
    sess.run(tf.global_variables_initializer())
    stage("session+init", "(Lua runtime, variables)")
    sess.run(train_step, feed)
    report = sess.memory_plan(train_step, feed)
    stage("train executor", f"(plan {report.planned_bytes / 2**20:.1f} MiB, workspace "
          f"{report.workspace_bytes / 2**20:.1f} MiB, params {report.param_bytes / 2**20:.1f}"
          " MiB)")
    for _ in range(steps - 1):
        sess.run(train_step, feed)
    stage("train")
    eval_feed = {x: test_images, label: test_labels}
    report = sess.memory_plan(accuracy, eval_feed)
    stage("eval executor", f"(plan {report.planned_bytes / 2**20:.1f} MiB of naive "
          f"{report.naive_bytes / 2**20:.1f}, workspace {report.workspace_bytes / 2**20:.1f} "
          f"MiB, inputs {report.input_bytes / 2**20:.1f} MiB)")
    sess.run(accuracy, eval_feed)
    stage("eval")


def rss(args, out):
    """Run :func:`rss_worker` for each peer in a fresh subprocess and print the peaks."""
    out(f"\nLeNet peak RSS: a fresh process per peer trains {args.rss_steps} steps then scores "
        "10,000 images in one run (VmHWM; wait4's ru_maxrss agrees)")
    peaks = {}
    for peer in ("tinyflow", "tf1", "eager"):
        if peer in args.skip_peer or (peer == "tf1" and not args.tf_python):
            continue
        python = args.tf_python if peer == "tf1" else sys.executable
        proc = subprocess.Popen([python, os.path.abspath(__file__), "--rss-worker", peer,
                                 "--rss-steps", str(args.rss_steps)], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True,
                                env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3",
                                         CUDA_VISIBLE_DEVICES=""))
        lines = proc.stdout.read().splitlines()
        _, status, usage = os.wait4(proc.pid, 0)
        if status:
            out(f"  {peer}: worker failed (status {status})")
            continue
        peaks[peer] = usage.ru_maxrss / 1024
        out(f"  {peer}: peak {peaks[peer]:.0f} MiB; by stage (VmRSS / VmHWM MiB after it):")
        for line in lines:
            if line.startswith("stage "):
                _, name, now, high, *note = line.split(" ", 4)
                out(f"    {name.replace('_', ' '):<16}{float(now):>8.0f}{float(high):>8.0f}  {' '.join(note)}")
    out("  " + " / ".join(f"{p} {m:.0f} MiB" for p, m in peaks.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--steps", type=int, default=10, help="timed steps per round")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--skip-peer", default="", help="comma list of " + ",".join(PEERS))
    parser.add_argument("--tf-python", default=TF_PYTHON)
    parser.add_argument("--rss-steps", type=int, default=20)
    parser.add_argument("--no-rss", action="store_true")
    parser.add_argument("--background-load", type=int, default=0, metavar="N",
                        help="also time every workload with N busy processes beside it")
    parser.add_argument("--tf-worker", help=argparse.SUPPRESS)
    parser.add_argument("--rss-worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tf_worker:
        return tf1_worker(args.tf_worker, args.warmup)
    if args.rss_worker:
        return rss_worker(args.rss_worker, args.rss_steps)
    args.skip_peer = set(filter(None, args.skip_peer.split(",")))

    def out(line):
        print(line, flush=True)

    import tinyflow  # noqa: F401, I001 - first: its OpenMP wait policy (lua_ops/threads.py)
    import torch
    torch.set_num_threads(THREADS)
    if args.tf_python and not (shutil.which(args.tf_python) and subprocess.run(
            [args.tf_python, "-c", "import tensorflow"], capture_output=True, check=False).returncode == 0):
        out(f"TF1 skipped: no TensorFlow at {args.tf_python}")
        args.tf_python = None
    if "compile" not in args.skip_peer:
        try:
            import torch._inductor
        except ImportError:
            out("torch.compile skipped: inductor not available")
            args.skip_peer.add("compile")
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    out(f"load average before: {' '.join(load)}; threads: torch.set_num_threads({THREADS}), "
        f"TF ConfigProto intra_op {THREADS} / inter_op 1; torch {torch.__version__}")
    out(f"peak assumed: {peak_flops()[1]}")
    out(f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')} GOMP_SPINCOUNT="
        f"{os.environ.get('GOMP_SPINCOUNT')} when torch loaded")
    for workload in args.workloads.split(","):
        quiet = bench(args, workload, out)
        if args.background_load:
            loaded(args, workload, out, quiet)
    if not args.no_rss and "lenet" in args.workloads:
        rss(args, out)
    with open("/proc/loadavg") as f:
        out(f"\nload average after: {' '.join(f.read().split()[:3])}")


if __name__ == "__main__":
    main()
