"""LeNet training steps, 1 process x 2 threads against 2 processes x 1 thread (gloo, this
machine), batch 100 per process: step time, examples/s, bytes all-reduced per step, the seconds
waiting on communication (inside the buckets' waits) and the overlap window (start -> wait).

    python benchmarks/distributed_step.py            # launches both configurations
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

STEPS, WARMUP, BATCH = 60, 5, 100


def lenet(tf):
    x = tf.placeholder(tf.float32, [BATCH, 1, 28, 28])
    label = tf.placeholder(tf.float32, [BATCH])
    net = tf.nn.max_pool(tf.tanh(tf.nn.conv2d(x, num_filter=20, ksize=[1, 5, 5, 1], name="conv1",
                                              no_bias=False)), [1, 2, 2, 1], [1, 2, 2, 1])
    net = tf.nn.max_pool(tf.tanh(tf.nn.conv2d(net, num_filter=50, ksize=[1, 5, 5, 1],
                                              name="conv2", no_bias=False)),
                         [1, 2, 2, 1], [1, 2, 2, 1])
    net = tf.tanh(tf.nn.linear(tf.nn.flatten_layer(net), num_hidden=500, name="fc1"))
    logits = tf.nn.linear(net, num_hidden=10, name="fc2")
    return x, label, tf.nn.mean_sparse_softmax_cross_entropy_with_logits(logits, label)


def worker(distributed):
    import torch

    import tinyflow as tf
    torch.set_num_threads(1 if distributed else 2)
    hvd = None
    if distributed:
        import tinyflow.distributed as hvd
        hvd.init()
    x, label, loss = lenet(tf)
    opt = tf.train.AdamOptimizer(0.002)
    step = (hvd.DistributedOptimizer(opt) if hvd else opt).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    rng = np.random.default_rng(0)
    feed = {x: rng.random((BATCH, 1, 28, 28), dtype=np.float32),
            label: rng.integers(0, 10, BATCH).astype(np.float32)}
    for _ in range(WARMUP):
        sess.run(step, feed)
    if hvd:
        hvd.comm_stats(reset=True)
    start = time.perf_counter()
    for _ in range(STEPS):
        sess.run(step, feed)
    seconds = (time.perf_counter() - start) / STEPS
    result = {"step_ms": seconds * 1e3,
              "examples_per_s": BATCH * (hvd.size() if hvd else 1) / seconds}
    if hvd:
        stats = hvd.comm_stats()
        result.update(bytes_per_step=stats["bytes"] / STEPS,
                      buckets_per_step=stats["collectives"] / STEPS,
                      blocked_ms=stats["blocked_s"] / STEPS * 1e3,
                      window_ms=stats["overlap_s"] / STEPS * 1e3,
                      sync_allreduce_ms=_sync_allreduce_ms(stats["bytes"] // STEPS, hvd))
        if hvd.rank() != 0:
            return
    print(json.dumps(result))


def _sync_allreduce_ms(nbytes, hvd):
    """The same bytes all-reduced in one blocking call: the communication to hide."""
    import torch
    import torch.distributed as dist
    flat = torch.zeros(nbytes // 4)
    dist.all_reduce(flat)
    start = time.perf_counter()
    for _ in range(10):
        dist.all_reduce(flat)
    return (time.perf_counter() - start) / 10 * 1e3


def main():
    one = json.loads(subprocess.run([sys.executable, __file__, "single"], check=True,
                                    capture_output=True, text=True).stdout.splitlines()[-1])
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2",
                          "--master_port=29533", __file__, "ranks"], check=True, env=env,
                         capture_output=True, text=True).stdout
    two = json.loads([line for line in out.splitlines() if line.startswith("{")][-1])
    print(f"1 process x 2 threads:   {one['step_ms']:.1f} ms/step, "
          f"{one['examples_per_s']:.0f} examples/s")
    print(f"2 processes x 1 thread:  {two['step_ms']:.1f} ms/step, "
          f"{two['examples_per_s']:.0f} examples/s "
          f"({two['examples_per_s'] / one['examples_per_s']:.2f}x)")
    print(f"all-reduced per step: {two['bytes_per_step'] / 1e6:.2f} MB in "
          f"{two['buckets_per_step']:.0f} buckets; the same bytes in one blocking all-reduce: "
          f"{two['sync_allreduce_ms']:.2f} ms")
    print(f"waiting on communication: {two['blocked_ms']:.2f} ms/step "
          f"({two['blocked_ms'] / two['step_ms']:.1%} of the step); start->wait windows: "
          f"{two['window_ms']:.2f} ms/step; hidden: "
          f"{max(0.0, 1 - two['blocked_ms'] / two['sync_allreduce_ms']):.0%} of the "
          f"blocking all-reduce time")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        worker(sys.argv[1] == "ranks")
    else:
        main()
