"""The kernels of fused nodes (``_fused``, made by the FuseElemwise pass; docs/fusion.md),
reachable from _fused's built-in body only (``kernels.fused_step``): it runs generated code.

The generated code is compiled once per expression, device and input signature (the CPU:
``make_fx``, then TorchInductor's C++ backend; CUDA: jiterator; ``backend="eager"``: none).
The kernel returns new tensors, copied into the planned outputs once it has read every input,
so an output may share an input's storage (FInplaceOption).  Writing into the outputs directly
cost more (torch.compile's guards: 25 us a call; inductor lost large results in place).
"""
from __future__ import annotations

import functools
import threading
import traceback

import torch

__all__ = ["fused_step"]  # the one kernel _fused's body sees (compile_kernel: Python's only)


def fused_step(kwarg, x, y):
    """Setup of a ``_fused`` node's body (its attributes ``kwarg``, Lua arrays x and y): the
    per-step function, as :func:`step_function`."""
    return step_function(kwarg, list(x.values()), list(y.values()))


def step_function(attrs, inputs, outputs):
    """The per-step function of a ``_fused`` node (its attributes ``attrs``): its kernel
    (compiled here, or found in the cache) applied to ``inputs``, the results copied into
    ``outputs``.  An error, here or in a step, names the member it comes from."""
    signature = tuple((tuple(t.shape), t.stride(), str(t.dtype)) for t in inputs)
    device = inputs[0].device.type if inputs else outputs[0].device.type
    source, cuda_source, backend = str(attrs["source"]), attrs["cuda_source"], attrs["backend"]
    try:
        if not (backend == "compiled" and device == "cuda" and cuda_source is not None):
            _check_results(attrs, signature, outputs[0].dtype)  # jiterator: not this code
        kernel = compile_kernel(source, cuda_source, backend, device, signature, len(outputs))
    except Exception as err:
        raise RuntimeError(_blame(err, attrs)) from err
    # storages an output shares with an input (in place, PlanMemory): a result that is a view
    # of such an input (an identity or expand member) is cloned before any output is written
    shared = {t.untyped_storage().data_ptr() for t in inputs} & {
        t.untyped_storage().data_ptr() for t in outputs}

    def step():
        try:
            values = kernel(*inputs)
        except Exception as err:
            raise RuntimeError(_blame(err, attrs)) from err
        if shared:
            values = [v.clone() if v.untyped_storage().data_ptr() in shared else v
                      for v in values]
        for out, value in zip(outputs, values):
            out.copy_(value)
    return step


# each member's result has its shape in the graph and the node's dtype (copy_ would broadcast
# or cast a wrong one into the outputs silently): the code run once on meta tensors
def _check_results(attrs, signature, dtype):
    examples = [torch.empty_strided(shape, stride, dtype=getattr(torch, name[6:]), device="meta")
                for shape, stride, name in signature]
    source = str(attrs["source"]).replace("    return (", "    return locals()  # (")
    values = _function(source)(*examples)  # every value: x0, ..., v0, v1, ...
    for i, shape in enumerate(map(tuple, map(_list, _list(attrs["member_shapes"])))):
        if (tuple(values[f"v{i}"].shape), values[f"v{i}"].dtype) != (shape, dtype):
            err = ValueError(f"its result is {tuple(values[f'v{i}'].shape)} "
                             f"{values[f'v{i}'].dtype}, the graph says {shape} {dtype}")
            err.member = i
            raise err


def _list(value):  # a Lua table (the attributes as the body got them) as a list
    return list(value.values()) if hasattr(value, "values") else value


# err with the member it comes from: the one whose result is wrong, or the generated line
# (file <fused>) a traceback frame points at, eager or being traced; else every member
def _blame(err, attrs) -> str:
    members, described = _list(attrs["members"]), _list(attrs["member_ops"])
    index = getattr(err, "member", None)
    for cause in (err, err.__cause__, err.__context__):
        lines = [f.lineno - 2 for f in traceback.extract_tb(getattr(cause, "__traceback__", None))
                 if f.filename == "<fused>" and 0 <= f.lineno - 2 < len(members)]
        index = lines[-1] if lines and index is None else index
    if index is None:  # a compiled kernel failing as a whole: every member may be the cause
        return f"in the fused ops {'; '.join(described)}: {type(err).__name__}: {err}"
    return (f"in {described[index]}, fused as `{members[index].split('  # ')[0]}`: "
            f"{type(err).__name__}: {err}")


# inductor's compile is not thread-safe (two threads at once: one fails, CURRENT_PATCHER), and
# a second thread asking for a kernel being compiled should wait for it, not compile it again
_COMPILING = threading.Lock()


def compile_kernel(source: str, cuda_source, backend: str, device: str, signature: tuple,
                   num_outputs: int):
    """The kernel of one generated expression, cached by the code, the backend, the device and
    the inputs' ``(shape, stride, dtype)``: ``kernel(*inputs) -> sequence of tensors``.  One
    thread compiles at a time; the others wait and find its kernel in the cache.

    Raises ValueError for a ``backend`` other than ``"compiled"`` or ``"eager"``, and
    RuntimeError, naming what to use instead, where inductor cannot compile (no C++ compiler).
    """
    with _COMPILING:
        return _compile_kernel(source, cuda_source, backend, device, signature, num_outputs)


@functools.lru_cache(maxsize=1024)
def _compile_kernel(source, cuda_source, backend, device, signature, num_outputs):
    if backend not in ("compiled", "eager"):
        raise ValueError(f"a fused node's backend must be 'compiled' or 'eager', got "
                         f"{backend!r}")
    if backend == "compiled" and device == "cuda" and cuda_source is not None:
        return _jiterator(cuda_source, num_outputs)
    function = _function(source)
    if backend == "eager":
        return function
    from torch._inductor import compile as inductor_compile
    from torch.fx.experimental.proxy_tensor import make_fx
    examples = [torch.empty_strided(shape, stride, dtype=getattr(torch, name[6:]),
                                    device=device).zero_() for shape, stride, name in signature]
    try:
        return inductor_compile(make_fx(function)(*examples), examples)
    except Exception as err:  # no C++ compiler, an inductor bug: say what still works
        raise RuntimeError(f"compiling a fused kernel with TorchInductor failed "
                           f"({type(err).__name__}: {str(err).splitlines()[0]}); "
                           f"config 'cpu fusion-eager' runs the fused code uncompiled, "
                           f"'cpu' does not fuse") from err


def _function(source: str):  # the generated Python function (its frames' file: <fused>)
    namespace = {"torch": torch}
    exec(compile(source, "<fused>", "exec"), namespace)  # noqa: S102 (code FuseElemwise wrote)
    return namespace["fused"]


def _jiterator(cuda_source: str, num_outputs: int):
    """A jiterator kernel (NVRTC) returning a tuple of ``num_outputs`` tensors."""
    jitted = torch.cuda.jiterator._create_multi_output_jit_fn(cuda_source, num_outputs)

    def kernel(*inputs):
        result = jitted(*inputs)
        return (result,) if isinstance(result, torch.Tensor) else result
    return kernel


compile_kernel.cache_clear = _compile_kernel.cache_clear  # tests start from an empty cache
