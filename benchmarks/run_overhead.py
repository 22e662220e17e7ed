"""Where a ``Session.run`` spends its time when the ops are tiny: the per-run overhead.

    python benchmarks/run_overhead.py [--threads 1] [--rounds 7]
    python benchmarks/run_overhead.py --against /work/main   # this tree vs another, A/B

1. A 1-op graph (``a + 1.0`` on a fed (100, 10) array): ``sess.run`` in total, then each stage
   of it timed alone (fetch flattening, feed conversion np -> torch, executor check-out and
   check-in with its locks, the feed copy into the planned buffer, the one call into Lua, the
   result copied out to numpy, the variables' bookkeeping); "rest" is what the stages leave.
2. What a closure costs inside the Lua run loop: one call of 101 empty closures against 1.
3. The softmax-regression train step (784 -> 10, batch 100, SGD; benchmarks/peers.py's
   graph): ``sess.run``, ``Executor.run`` (feed copies + Lua), the Lua call alone, and each
   closure alone (its torch kernel plus one crossing into Lua and back).

Stages are timed alternately, ``--rounds`` rounds, medians printed.  ``--against TREE`` runs
the 1-op run and the softmax step in two worker processes, this tree's tinyflow and TREE's,
alternating round by round, and prints both and their ratio.  torch runs ``--threads`` intra-op
threads (default 1: on a shared machine OpenMP's spinning threads drown microseconds).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import torch
from common import alternating_medians, per_call

HERE = os.path.dirname(os.path.abspath(__file__))


def medians(rows, rounds, calls):
    """``{name: median microseconds}`` of ``rows`` ({name: fn}) timed in alternating rounds."""
    return alternating_medians(rows, rounds, lambda fn: per_call(fn, calls))


def softmax_session(tf):
    """The softmax-regression step of benchmarks/peers.py: (session, train op, feed)."""
    sys.path.insert(0, HERE)
    from peers import make_data, softmax_graph
    tf.reset_default_graph()
    train, feed, _ = softmax_graph(tf, *make_data("softmax"))
    sess = tf.Session("cpu")
    sess.run(tf.global_variables_initializer())
    return sess, train, feed


def one_op_session(tf):
    """A 1-op graph: (session, fetch, feed)."""
    tf.reset_default_graph()
    a = tf.placeholder(tf.float32, [None, 10])
    sess = tf.Session("cpu")
    return sess, a + 1.0, {a: np.ones((100, 10), np.float32)}


def checked_out(sess, fetch, feed):
    """The executor a run of ``fetch`` takes, and what check-out / check-in needs."""
    symbols, _ = sess._flatten_fetches(fetch)
    feeds = sess._convert_feeds(feed)
    entries = tuple(e for s in symbols for e in s.outputs)
    with sess._checked_out(entries, feeds) as executor:
        pass
    return executor, entries, feeds


class StageClock:
    """Wraps functions so that each call adds its seconds to ``seconds[stage]``: the stages
    are timed inside real runs (timed alone, in a loop of their own, each looks cheaper)."""

    def __init__(self):
        self.seconds = {}

    def wrap(self, owner, name, stage):
        function = getattr(owner, name, None)
        if function is None:  # another tree (--against) may not have this function
            return

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[stage] = (self.seconds.get(stage, 0.0)
                                       + time.perf_counter() - start)
        setattr(owner, name, timed)


def one_op_stages(tf, rounds):
    """Part 1: ``{stage: us}`` of a 1-op ``sess.run``, each stage timed inside the runs (less
    what the timing wrapper itself costs); "the rest" is what they leave of the total, which is
    timed without wrappers."""
    from tinyflow import session as session_module
    sess, fetch, feed = one_op_session(tf)
    executor, _, _ = checked_out(sess, fetch, feed)
    runs = 3000
    total = statistics.median(per_call(lambda: sess.run(fetch, feed), runs)
                              for _ in range(rounds))
    clock = StageClock()
    for owner, name, stage in [
            (sess, "_flatten_fetches", "fetch flattening"),
            (session_module, "_python_nodes", "looking for Python-computed fetches"),
            (sess, "_convert_feeds", "feed conversion (np -> torch)"),
            (sess, "_checkout", "executor check-out (cache, locks, pending initialisers)"),
            (sess._executors, "checkin", "executor check-in"),
            (executor, "run", "Executor.run: feed copy into its buffer"),
            (executor, "run_closures", "the one call into Lua (1 op)"),
            (sess, "_to_numpy", "result to numpy (a copy)")]:
        clock.wrap(owner, name, stage)
    wrapper = StageClock()
    wrapper.wrap(wrapper, "__init__", "wrapper")  # an instance attribute: a no-op to time
    cost = per_call(wrapper.__init__, runs * 10) - per_call(lambda: None, runs * 10)
    timed = []
    for _ in range(rounds):
        clock.seconds.clear()
        per_call(lambda: sess.run(fetch, feed), runs)
        timed.append({stage: s / (runs + 1) * 1e6 - cost for stage, s in clock.seconds.items()})
    result = {"sess.run (total)": total}
    result.update({stage: statistics.median(t[stage] for t in timed) for stage in timed[0]})
    result["Executor.run: feed copy into its buffer"] -= result["the one call into Lua (1 op)"]
    if "executor check-in" not in result:  # a tree without _checkout: both in the rest
        result["executor check-in"] = 0.0
    result["the rest of Session.run's lines"] = 2 * total - sum(result.values())
    return result


def closure_cost(rounds):
    """Part 2: microseconds per empty closure inside one Lua run loop, and per loop."""
    from tinyflow.lua_ops.runtime import lua_runtime, lua_table, run_closures
    empty = lua_runtime().eval("function() end")
    one, many = lua_table([empty]), lua_table([empty] * 101)
    result = medians({"1": lambda: run_closures(one, 1),
                      "101": lambda: run_closures(many, 101)}, rounds, 3000)
    return (result["101"] - result["1"]) / 100, result["1"]


def softmax_stages(tf, rounds):
    """Part 3: ``{row: us}`` of the softmax step, then one row per closure."""
    from tinyflow.lua_ops.runtime import lua_table, run_closures
    sess, train, feed = softmax_session(tf)
    executor, _, feeds = checked_out(sess, train, feed)
    count = len(executor.closures)
    rows = {"sess.run (total)": lambda: sess.run(train, feed),
            "Executor.run (feed copies + Lua)": lambda: executor.run(feeds),
            f"run_closures ({count} closures)": lambda: run_closures(executor.lua_closures,
                                                                     count)}
    for i, closure in enumerate(executor.closures):
        node = executor.indexed.nodes[executor.op_nodes[i]]
        alone = lua_table([closure])
        rows[f"  {i:2d} {node.op.name} {node.name}"] = lambda t=alone: run_closures(t, 1)
    return medians(rows, rounds, 1000)


def print_table(title, rows):
    print(f"\n{title}")
    for name, us in rows.items():
        print(f"  {name:<52}{us:9.2f} us")


def worker(threads):
    """``--worker``: build the 1-op run and the softmax step, print ``ready``, then answer
    each stdin line ``<workload> <steps>`` with the seconds those steps took."""
    import tinyflow as tf
    torch.set_num_threads(threads)
    steps = {}
    for name, build in (("one-op", one_op_session), ("softmax", softmax_session)):
        sess, fetch, feed = build(tf)
        steps[name] = (lambda s=sess, f=fetch, d=feed: s.run(f, d))
        for _ in range(200):
            steps[name]()
    print("ready", tf.__file__, flush=True)
    for line in sys.stdin:
        name, count = line.split()
        start = time.perf_counter()
        for _ in range(int(count)):
            steps[name]()
        print(f"{time.perf_counter() - start:.6f}", flush=True)


def against(tree, threads, rounds):
    """This tree's tinyflow and ``tree``'s, in two workers, alternating round by round."""
    trees = {"this tree": os.path.dirname(HERE), "--against": os.path.abspath(tree)}
    workers = {}
    for label, root in trees.items():
        workers[label] = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", "--threads", str(threads)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env=dict(os.environ, PYTHONPATH=root))
        print(f"{label}: {workers[label].stdout.readline().split()[1]}")
    for name, count in (("one-op", 2000), ("softmax", 500)):
        times = {label: [] for label in workers}
        for _ in range(rounds):
            for label, proc in workers.items():
                proc.stdin.write(f"{name} {count}\n")
                proc.stdin.flush()
                times[label].append(float(proc.stdout.readline()) / count * 1e6)
        mine, other = (statistics.median(t) for t in times.values())
        print(f"{name:>8}: this tree {mine:8.1f} us/run, --against {other:8.1f} us/run, "
              f"ratio {mine / other:.2f}x (median of {rounds} alternating rounds)")
    for proc in workers.values():
        proc.stdin.close()
        proc.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--against", metavar="TREE", help="another checkout to compare with")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.threads)
    if args.against:
        return against(args.against, args.threads, args.rounds)
    import tinyflow as tf
    torch.set_num_threads(args.threads)
    print(f"torch threads: {args.threads}; load average: {os.getloadavg()[0]:.2f}")
    print_table("1. A 1-op sess.run, stage by stage", one_op_stages(tf, args.rounds))
    per_closure, loop = closure_cost(args.rounds)
    print(f"\n2. Lua run loop: {per_closure:.2f} us per (empty) closure; one call into Lua "
          f"with 1 closure: {loop:.2f} us")
    print_table("3. The softmax-regression step", softmax_stages(tf, args.rounds))


if __name__ == "__main__":
    main()
