"""Cost of the Ctrl-C count hook (tinyflow/lua_ops/runtime.py): LeNet's training step with the
hook as shipped and with it cleared, alternated, plus the Lua instructions a step runs and the
hook's cost per Lua instruction (a pure-Lua loop).

    python benchmarks/lua_hook_cost.py
"""
import statistics
import time

import numpy as np
from lenet_step import tinyflow_lenet

from tinyflow.lua_ops.runtime import HOOK_COUNT, lua_runtime

SET_HOOK = "local check = ...; debug.sethook(function() check() end, '', {count})"


def lenet_step_times(lua, step, rounds=15, steps=5):
    """Median ms per step with the hook on and off, alternated round by round."""
    times = {"hook on": [], "hook off": []}
    for _ in range(rounds):
        for state, samples in times.items():
            if state == "hook on":
                lua.execute(SET_HOOK.format(count=HOOK_COUNT), lambda: None)
            else:
                lua.execute("debug.sethook()")
            start = time.perf_counter()
            for _ in range(steps):
                step()
            samples.append((time.perf_counter() - start) / steps * 1e3)
    return {state: statistics.median(t) for state, t in times.items()}


def instructions_per_step(lua, step):
    counted = [0]
    lua.execute(SET_HOOK.format(count=1), lambda: counted.__setitem__(0, counted[0] + 1))
    step()
    return counted[0]


def ns_per_instruction(lua, iterations=5_000_000):
    loop = lua.eval("function(n) local s = 0 for i = 1, n do s = s + i end return s end")

    def best():
        return min(_timed(loop, iterations) for _ in range(5))
    lua.execute("debug.sethook()")
    off = best()
    lua.execute(SET_HOOK.format(count=HOOK_COUNT), lambda: None)
    on = best()
    return (on - off) / (2 * iterations) * 1e9  # a for loop of an add: 2 instructions a turn


def _timed(function, *args):
    start = time.perf_counter()
    function(*args)
    return time.perf_counter() - start


if __name__ == "__main__":
    sess, train_step, x, label = tinyflow_lenet(False)
    rng = np.random.default_rng(0)
    feed = {x: rng.uniform(size=(100, 1, 28, 28)).astype(np.float32),
            label: rng.integers(0, 10, 100).astype(np.float32)}

    def step():
        sess.run(train_step, feed)
    step()
    lua = lua_runtime()
    print(f"Lua instructions per LeNet step: {instructions_per_step(lua, step)} "
          f"(the hook calls Python once per {HOOK_COUNT})")
    print(f"hook cost per Lua instruction: {ns_per_instruction(lua):.1f} ns")
    medians = lenet_step_times(lua, step)
    print("LeNet step: " + ", ".join(f"{k} {v:.2f} ms" for k, v in medians.items()))
