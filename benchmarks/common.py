"""Side-by-side timing: run step functions alternately, report medians (and their ratio)."""
import statistics
import time


def compare(name, tinyflow_step, torch_step, rounds=15, steps=50, warmup=10):
    """Print median per-step time of each and the ratio TinyFlow / PyTorch."""
    for _ in range(warmup):
        tinyflow_step()
        torch_step()
    times = {"tinyflow": [], "torch": []}
    for _ in range(rounds):
        for key, step in (("tinyflow", tinyflow_step), ("torch", torch_step)):
            start = time.perf_counter()
            for _ in range(steps):
                step()
            times[key].append((time.perf_counter() - start) / steps)
    tf_ms = statistics.median(times["tinyflow"]) * 1e3
    pt_ms = statistics.median(times["torch"]) * 1e3
    print(f"{name}: TinyFlow {tf_ms:.3f} ms/step, PyTorch eager {pt_ms:.3f} ms/step, "
          f"ratio TinyFlow/PyTorch = {tf_ms / pt_ms:.2f}x (median of {rounds} rounds x "
          f"{steps} steps)")
    return tf_ms / pt_ms


def per_call(fn, calls):
    """Microseconds per call of ``fn`` (after one warm call)."""
    fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def alternating_medians(rows, rounds, measure):
    """``{name: median of measure(fn)}`` of ``rows`` ({name: fn}), the rows measured one after
    the other in each of ``rounds`` rounds (a drifting machine moves them alike)."""
    values = {name: [] for name in rows}
    for _ in range(rounds):
        for name, fn in rows.items():
            values[name].append(measure(fn))
    return {name: statistics.median(v) for name, v in values.items()}
