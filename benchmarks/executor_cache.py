"""Runs per second with the executor cache and from threads, measured side by side.

    python benchmarks/executor_cache.py [--runs N]

1. One batch size vs two alternating, with ``executor_cache_size=1`` (what the session did
   before the cache: one executor per fetch set, rebound on every feed-shape change) and with
   the default cache (8 signatures per fetch set).
2. Two threads running one session: the session as it is (a run checks an executor out; a
   concurrent run of the same signature gets its own instance) against runs serialised by one
   lock (what a per-executor lock would give), and one thread doing all the runs.
Rounds alternate between the variants; medians are printed.  torch runs one intra-op thread
by default here (``--torch-threads``): on a busy machine OpenMP's spinning threads swamp a
small model's timing (288 runs/s with 2 threads vs 4865 with 1, measured on 2 loaded cores).
"""
import argparse
import threading
import time

import numpy as np
import torch
from common import alternating_medians

import tinyflow as tf


def _model(width):
    x = tf.placeholder(tf.float32, [None, width])
    W = tf.Variable(tf.random_normal([width, width // 2], seed=1))
    return x, tf.tanh(tf.matmul(x, W))


def _rate(fn, runs):
    start = time.perf_counter()
    fn(runs)
    return runs / (time.perf_counter() - start)


def cache_variants(x, y, feeds):
    """``{name: fn(runs)}``: one or two batch sizes, cache of 1 or 8 signatures."""
    variants = {}
    for size in (1, 8):
        sess = tf.Session(executor_cache_size=size)
        sess.run(tf.global_variables_initializer())
        for label, cycle in (("one batch size", feeds[:1]), ("two alternating", feeds)):
            def run(runs, sess=sess, cycle=cycle):
                for i in range(runs):
                    sess.run(y, {x: cycle[i % len(cycle)]})
            variants[f"cache {size}: {label}"] = run
    return variants


def thread_variants(x, y, feeds):
    """``{name: fn(runs)}``: ``runs`` runs in all, from two threads or one."""
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    serialised = threading.Lock()

    def locked_run(feed):
        with serialised:
            return sess.run(y, {x: feed})

    def in_two_threads(run_one):
        def run(runs):
            threads = [threading.Thread(target=lambda f=f: [run_one(f) for _ in range(runs // 2)])
                       for f in (feeds[0], feeds[0] * 2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(600)
        return run

    return {"2 threads, executors checked out": in_two_threads(lambda f: sess.run(y, {x: f})),
            "2 threads, one lock around runs": in_two_threads(locked_run),
            "1 thread": lambda runs: [sess.run(y, {x: feeds[0]}) for _ in range(runs)]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400, help="runs per round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--width", type=int, default=64, help="x is (batch, width)")
    args = parser.parse_args()
    torch.set_num_threads(args.torch_threads)
    print(f"torch intra-op threads: {torch.get_num_threads()}")
    x, y = _model(args.width)
    rng = np.random.default_rng(0)
    feeds = [rng.standard_normal((b, args.width)).astype(np.float32) for b in (32, 64)]
    for title, variants in (("executor cache", cache_variants(x, y, feeds)),
                            ("threads", thread_variants(x, y, feeds))):
        rates = alternating_medians(variants, args.rounds, lambda fn: _rate(fn, args.runs))
        print(f"{title} (median of {args.rounds} rounds x {args.runs} runs):")
        for name, rate in rates.items():
            print(f"  {name:<36}{rate:>10.0f} runs/s")
        if title == "executor cache":
            for size in (1, 8):
                ratio = rates[f"cache {size}: two alternating"] / rates[
                    f"cache {size}: one batch size"]
                print(f"  cache {size}: alternating / one batch size = {ratio:.2f}")


if __name__ == "__main__":
    main()
