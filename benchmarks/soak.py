"""Soak test: many training steps, then many executor rebuilds; RSS and live tensors must stay flat.

    nice python benchmarks/soak.py                        # 100k steps, 10k rebuilds (minutes)
    python benchmarks/soak.py --steps 5000 --rebuilds 500  # a quick look

Phase 1 trains the MNIST softmax regression (784x10, batch 100, SGD 0.01 on uniform random
images) for ``--steps`` steps.
Phase 2 runs one fetch set cycling through ``--batch-sizes`` batch sizes, more than the
session's executor cache keeps (8), so every run binds a new executor and evicts one: the
evicted executors' storage must be freed.  At intervals it prints the process's RSS and the
number of live torch tensors (gc-tracked tensor objects); the last line compares the end of
each phase with its start.
"""
import argparse
import gc
import time
import warnings

import numpy as np
import torch

import tinyflow as tf


def rss_mb() -> float:
    """Resident set size of this process in MB (VmRSS in /proc/self/status)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def live_tensors() -> int:
    """Torch tensors alive now (after a collection), as the garbage collector tracks them."""
    gc.collect()
    with warnings.catch_warnings():  # isinstance on torch's deprecated module aliases warns
        warnings.simplefilter("ignore")
        return sum(1 for obj in gc.get_objects() if isinstance(obj, torch.Tensor))


def report(phase, done, start, samples):
    tensors, rss = live_tensors(), rss_mb()
    samples.append((tensors, rss))
    print(f"{phase:<9}{done:>9}  {done / (time.perf_counter() - start):>9.0f}/s  "
          f"RSS {rss:>8.1f} MB  live tensors {tensors:>6}", flush=True)


def train(steps, every):
    """Phase 1: softmax regression steps on fixed random data."""
    rng = np.random.default_rng(0)
    images = rng.uniform(size=(100, 784)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 100)]
    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.float32, [None, 10])
    W = tf.Variable(tf.zeros([784, 10]))
    b = tf.Variable(tf.zeros([10]))
    y = tf.nn.softmax(tf.matmul(x, W) + b)
    loss = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    samples = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        start = time.perf_counter()
        for i in range(1, steps + 1):
            sess.run(step, {x: images, y_: labels})
            if i % every == 0 or i == steps:
                report("train", i, start, samples)
        print(f"final loss {sess.run(loss, {x: images, y_: labels}):.4f}")
    return samples


def rebuild(rebuilds, every, batch_sizes):
    """Phase 2: a run per batch size in turn, each one a cache miss (bind, evict, free)."""
    x = tf.placeholder(tf.float32, [None, 784])
    W = tf.Variable(tf.random_normal([784, 10], seed=1))
    y = tf.nn.softmax(tf.matmul(x, W))
    feeds = [np.ones((batch, 784), np.float32) for batch in range(1, batch_sizes + 1)]
    samples = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        start = time.perf_counter()
        for i in range(1, rebuilds + 1):
            sess.run(y, {x: feeds[i % batch_sizes]})
            if i % every == 0 or i == rebuilds:
                report("rebuild", i, start, samples)
        cache = sess._executors
        print(f"cache: {cache.misses} builds, {cache.hits} hits, {cache.evictions} evictions, "
              f"{len(cache)} executors kept")
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--rebuilds", type=int, default=10_000)
    parser.add_argument("--batch-sizes", type=int, default=10, help="cycled (cache keeps 8)")
    parser.add_argument("--torch-threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.torch_threads)
    print(f"torch intra-op threads {torch.get_num_threads()}; start: RSS {rss_mb():.1f} MB, "
          f"live tensors {live_tensors()}")
    trained = train(args.steps, max(1, args.steps // 10))
    rebuilt = rebuild(args.rebuilds, max(1, args.rebuilds // 10), args.batch_sizes)
    print(f"end: RSS {rss_mb():.1f} MB, live tensors {live_tensors()} (sessions closed)")
    for phase, samples in (("train", trained), ("rebuild", rebuilt)):
        (t0, r0), (t1, r1) = samples[0], samples[-1]
        print(f"{phase}: live tensors {t0} -> {t1}, RSS {r0:.1f} -> {r1:.1f} MB "
              f"(first report to last)")


if __name__ == "__main__":
    main()
