"""What the CPU fast paths of several body families share: numpy views of tensors, whether
oneDNN's fused kernels can run, the channels-last test, and the timer that picks a kernel."""
from __future__ import annotations

import time

import torch

__all__ = ["ONEDNN_POINTWISE", "channels_last", "numpy_views", "onednn", "seconds"]

ONEDNN_POINTWISE = torch.backends.mkldnn.is_available() and hasattr(
    torch.ops.mkldnn, "_convolution_pointwise")


def onednn(x) -> bool:
    """Whether oneDNN's pointwise-fused kernels take x (a CPU float32 tensor)."""
    return x.device.type == "cpu" and x.dtype == torch.float32 and ONEDNN_POINTWISE


def numpy_views(*tensors):
    """numpy arrays sharing the memory of CPU float tensors, else None."""
    if not all(t.device.type == "cpu" and t.dtype in (torch.float32, torch.float64)
               for t in tensors):
        return None
    return [t.detach().numpy() for t in tensors]


def channels_last(*tensors) -> bool:
    """Whether any of the tensors is a 4-D channels-last (and not contiguous) one."""
    return any(t.dim() == 4 and not t.is_contiguous()
               and t.is_contiguous(memory_format=torch.channels_last) for t in tensors)


def seconds(runs, repeats=3) -> list:
    """The best of ``repeats`` timings of each of ``runs`` (after one each to warm up), timed
    in turns: a burst of other work during the timings slows them alike, not one of them."""
    for run in runs:
        run()
    best = [float("inf")] * len(runs)
    for _ in range(repeats):
        for i, run in enumerate(runs):
            start = time.perf_counter()
            run()
            best[i] = min(best[i], time.perf_counter() - start)
    return best
