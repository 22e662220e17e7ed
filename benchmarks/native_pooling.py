"""The native 2x2 max pooling (tinyflow/lua_ops/conv/max_pool_2x2.c) against torch's kernel:
the kernels alone on LeNet's and mnist_deep's pools, then whole training steps in fresh
processes alternating, ``TINYFLOW_NATIVE=1`` against ``=0``, on one thread and on torch's
default count.

    python benchmarks/native_pooling.py [--rounds 4] [--workloads lenet,deep]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import torch
from common import per_call

STEPS = 30
POOLS = {"LeNet pool1": (100, 20, 24, 24), "LeNet pool2": (100, 50, 8, 8),
         "mnist_deep pool1": (50, 32, 28, 28), "mnist_deep pool2": (50, 64, 14, 14)}


def pool_timings(shape):
    """Microseconds a call: torch's forward, the native one, torch's backward, the native one."""
    from tinyflow.lua_ops.conv import kernels
    two, none, aten = {1: 2, 2: 2}, {1: 0, 2: 0}, torch.ops.aten  # Lua arrays, as bodies pass
    x = torch.randn(shape).contiguous(memory_format=torch.channels_last)
    y, index = aten.max_pool2d_with_indices(x, [2, 2], [2, 2])
    g, grad = torch.randn_like(y), torch.empty_like(x)
    native = kernels.max_pool2d_native(y, index, x, two, two, none)
    backward = kernels.max_pool2d_backward_native(grad, g, index, two, two, none)
    if native is None:
        sys.exit("no native kernel here (no C compiler, or TINYFLOW_NATIVE=0)")
    return [per_call(f, 200) for f in (
        lambda: aten.max_pool2d_with_indices.out(x, [2, 2], [2, 2], out=y, indices=index),
        native,
        lambda: aten.max_pool2d_with_indices_backward.grad_input(
            g, x, [2, 2], [2, 2], [0, 0], [1, 1], False, index, grad_input=grad),
        backward)]


def kernels_alone(threads):
    torch.set_num_threads(threads)
    for name, shape in POOLS.items():
        times = pool_timings(shape)
        print(f"  {name} {list(shape)}: forward torch {times[0]:.0f} us, native {times[1]:.0f}"
              f" ({times[1] / times[0]:.2f}x); backward torch {times[2]:.0f} us, native "
              f"{times[3]:.0f} ({times[3] / times[2]:.2f}x)")


def worker(workload, threads):
    from peers import tinyflow_step
    torch.set_num_threads(threads)
    step = tinyflow_step(workload)
    for _ in range(10):
        step()
    start = time.perf_counter()
    for _ in range(STEPS):
        step()
    print((time.perf_counter() - start) / STEPS * 1e3)


def step_ms(workload, threads, native):
    env = {**os.environ, "TINYFLOW_NATIVE": "1" if native else "0"}
    out = subprocess.run([sys.executable, __file__, "--worker", workload, str(threads)],
                         env=env, capture_output=True, text=True, check=True).stdout
    return float(out.split()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--workloads", default="lenet,deep")
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]))
        return
    for threads in (1, torch.get_num_threads()):
        print(f"kernels alone, {threads} thread(s):")
        kernels_alone(threads)
    for workload in args.workloads.split(","):
        for threads in (1, torch.get_num_threads()):
            times = {True: [], False: []}
            for _ in range(args.rounds):
                for native in (True, False):
                    times[native].append(step_ms(workload, threads, native))
            on, off = (statistics.median(times[k]) for k in (True, False))
            print(f"{workload} step, {threads} thread(s), fresh processes alternating, median of "
                  f"{args.rounds}: native {on:.2f} ms, torch's {off:.2f} ms, ratio {on / off:.2f}x"
                  f" (rounds: {', '.join(f'{a:.1f}/{b:.1f}' for a, b in zip(*times.values()))})")


if __name__ == "__main__":
    main()
