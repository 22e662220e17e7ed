"""Training steps on the GPU: TinyFlow ``gpu``, ``gpu graph``, ``gpu fusion`` and ``gpu fusion
graph`` against PyTorch eager and ``torch.compile(mode="reduce-overhead")`` (``--torch-graph``:
also PyTorch eager replayed as one CUDA graph), measured side by side (alternating rounds,
medians).

    python benchmarks/gpu_step.py [--rounds 7] [--steps 20] [--torch-graph]

Workloads: the seed's LeNet Adam step (benchmarks/lenet_step.py) and the GELU MLP of
benchmarks/fusion.py (SGD), at batch 100 and at batch 1, where a step is almost all launch
overhead (the per-step cost CUDA graphs remove).  Without CUDA it says so and exits 0.
"""
import argparse
import functools
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from fusion import gelu_mlp_graph
from lenet_step import lenet_graph

import tinyflow as tf

CONFIGS = ("gpu", "gpu graph", "gpu fusion", "gpu fusion graph")


def data(workload, batch):
    rng = np.random.default_rng(0)
    if workload == "LeNet":
        return rng.uniform(size=(batch, 1, 28, 28)).astype(np.float32), \
            rng.integers(0, 10, batch).astype(np.float32)
    return rng.uniform(size=(batch, 784)).astype(np.float32), \
        np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]


def tinyflow_steps(workload, batch):
    """``{config: step}`` for every TinyFlow config, and the op counts unfused / fused."""
    tf.reset_default_graph()
    x, label, *_, train = lenet_graph() if workload == "LeNet" else gelu_mlp_graph(batch)
    images, labels = data(workload, batch)
    feed = {x: images, label: labels}
    steps, counts = {}, {}
    for config in CONFIGS:
        sess = tf.Session(config)
        sess.run(tf.global_variables_initializer())
        sess.run(train, feed)
        counts[config] = len(sess.closures(train, feed).rows)
        steps[config] = functools.partial(sess.run, train, feed)
    return steps, counts


def torch_lenet(images, labels, set_to_none=False):
    """LeNet in PyTorch on CUDA (as benchmarks/lenet_step.py), with a capturable Adam."""
    torch.manual_seed(0)
    shapes = [(20, 1, 5, 5), (20,), (50, 20, 5, 5), (50,), (500, 800), (10, 500)]
    params = [(torch.randn(*s, device="cuda") * 0.05).requires_grad_(True) for s in shapes]
    optimizer = torch.optim.Adam(params, lr=0.001, capturable=True)
    xs = torch.from_numpy(images).cuda()
    ys = torch.from_numpy(labels).long().cuda()

    def step():
        w1, b1, w2, b2, w3, w4 = params
        h = F.max_pool2d(torch.tanh(F.conv2d(xs, w1, b1)), 2)
        h = F.max_pool2d(torch.tanh(F.conv2d(h, w2, b2)), 2)
        loss = F.cross_entropy(torch.tanh(h.flatten(1) @ w3.t()) @ w4.t(), ys)
        optimizer.zero_grad(set_to_none=set_to_none)
        loss.backward()
        optimizer.step()
    return step, params


def torch_gelu_mlp(images, labels, set_to_none=False):
    """The GELU MLP in PyTorch on CUDA, plain SGD."""
    torch.manual_seed(0)
    sizes = [(784, 1024), (1024, 1024), (1024, 10)]
    params = []
    for fan_in, fan_out in sizes:
        params += [(torch.randn(fan_in, fan_out, device="cuda") * 0.03).requires_grad_(True),
                   torch.zeros(fan_out, device="cuda", requires_grad=True)]
    optimizer = torch.optim.SGD(params, lr=0.1)
    xs, ys = torch.from_numpy(images).cuda(), torch.from_numpy(labels).cuda()

    def step():
        h = xs
        for i in range(0, 4, 2):
            h = F.gelu(h @ params[i] + params[i + 1], approximate="tanh")
        y = torch.softmax(h @ params[4] + params[5], 1)
        loss = torch.mean(-torch.sum(ys * torch.log(y + 1e-8), 1))
        optimizer.zero_grad(set_to_none=set_to_none)
        loss.backward()
        optimizer.step()
    return step, params


def graphed(step):
    """``step`` captured once as a CUDA graph (after warm-up on a side stream), replayed."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    return graph.replay


def torch_steps(workload, batch, hand_graph=False):
    make = torch_lenet if workload == "LeNet" else torch_gelu_mlp
    images, labels = data(workload, batch)
    steps = {"torch eager": make(images, labels)[0]}
    # compiled whole, gradients set to None (its CUDA graphs own them), each call a new step
    compiled = torch.compile(make(images, labels, set_to_none=True)[0], mode="reduce-overhead")

    def compiled_step():
        torch.compiler.cudagraph_mark_step_begin()
        compiled()
    try:
        for _ in range(3):
            compiled_step()  # compiles, then records its CUDA graphs
        steps["torch.compile reduce-overhead"] = compiled_step
    except Exception as err:  # noqa: BLE001 - reported, the other peers still measured
        print(f"  torch.compile reduce-overhead failed: {type(err).__name__}: {err}"[:300])
    if hand_graph:  # PyTorch's whole-network recipe: gradients set to None, so the captured
        # backward allocates them in the graph's pool.  Its replays failed in this process on an
        # H200 (torch 2.11): an illegal memory access, or nll_loss's label assert, whether
        # torch.compile recorded before or after the capture; alone in a process it ran
        steps["torch CUDA graph"] = graphed(make(images, labels, set_to_none=True)[0])
    return steps


def timed(steps, rounds, count):
    """Median ms per step of each of ``steps``, run alternately."""
    times = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(count):
                step()
            torch.cuda.synchronize()
            times[name].append((time.perf_counter() - start) / count * 1e3)
    return {name: statistics.median(t) for name, t in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--torch-graph", action="store_true",
                        help="also PyTorch eager replayed as one hand-captured CUDA graph (its "
                        "replays failed beside torch.compile's graphs: see torch_steps)")
    parser.add_argument("--skip", action="append", default=[], metavar="NAME",
                        help="leave out this step (e.g. 'gpu graph'); may be repeated")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("benchmarks/gpu_step.py needs CUDA: torch sees no CUDA device here")
        return 0
    print(f"device: {torch.cuda.get_device_name()}")
    for workload in ("LeNet", "GELU MLP"):
        for batch in (100, 1):
            ours, counts = tinyflow_steps(workload, batch)
            steps = {**ours, **torch_steps(workload, batch, args.torch_graph)}
            steps = {name: step for name, step in steps.items() if name not in args.skip}
            for name, step in steps.items():  # warm-up: graphs captured on their second run
                print(f"  warming up: {name}")  # the last one named is the one that failed
                for _ in range(3):
                    step()
                torch.cuda.synchronize()
            medians = timed(steps, args.rounds, args.steps)
            base = medians["torch eager"]
            print(f"{workload}, batch {batch}: ops per step {counts['gpu']} unfused, "
                  f"{counts['gpu fusion']} fused")
            for name, ms in medians.items():
                print(f"  {name:<32}{ms:9.3f} ms/step  {ms / base:6.2f}x torch eager")
    return 0


if __name__ == "__main__":
    sys.exit(main())
