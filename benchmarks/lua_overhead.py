"""How much crossing into Lua costs: per torch call, per op closure, per executor step.

Prints microseconds; compare the rows side by side (same run, same machine).
    python benchmarks/lua_overhead.py
"""

import numpy as np
import torch
from common import per_call

import tinyflow as tf
from tinyflow.lua_ops import torch_table
from tinyflow.lua_ops.runtime import lua_runtime, runtime_name


def main():
    torch.set_num_threads(1)
    a, b, out = torch.rand(10), torch.rand(10), torch.empty(10)
    lua = lua_runtime()
    direct = per_call(lambda: torch.mul(a, b, out=out), 20000)
    via_api = per_call(lambda: torch_table.cmul(out, a, b), 20000)
    closure = lua.eval("function(x, y) local cmul, p, q, r = torch.cmul, x[1], x[2], y[1] "
                       "return function() cmul(r, p, q) end end")(lua.table(a, b), lua.table(out))
    n_ops = 100
    loop = lua.eval("function(f, n) return function() for i = 1, n do f() end end end")(
        closure, n_ops)
    in_lua = per_call(loop, 500) / n_ops
    x = tf.placeholder(tf.float32, name="x")
    y = x
    for _ in range(n_ops):
        y = y * 1.0001
    sess = tf.Session()
    feed = {x: np.ones(10, dtype=np.float32)}
    step = per_call(lambda: sess.run(y, feed), 500)
    print(f"Lua runtime: {runtime_name()}")
    print(f"torch.mul(out=) from Python:             {direct:7.2f} us")
    print(f"torch_table.cmul from Python:              {via_api:7.2f} us")
    print(f"torch.cmul from a Lua closure (per op):  {in_lua:7.2f} us "
          f"(crossing cost ~{in_lua - direct:.2f} us)")
    print(f"Session.run of {n_ops} scalar-mul ops:       {step:7.1f} us "
          f"({step / n_ops:.2f} us per op, incl. feed copy and fetch)")


if __name__ == "__main__":
    main()
