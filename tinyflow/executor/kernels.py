"""The kernels of fused nodes (``_fused``, made by the FuseElemwise pass): the generated code
compiled once per expression, device and input signature, and the step that runs one.

On the CPU the generated Python function (torch ops, one line per fused op) is traced to an FX
graph (``make_fx``) and compiled by TorchInductor's C++ backend (``torch._inductor.compile``):
one loop over the elements computes every output.  On CUDA the generated C++ function is
compiled at run time with NVRTC through ``torch.cuda.jiterator`` (inductor's Triton backend
where a member has no C++ expression).  ``backend="eager"`` runs the Python function as it is,
op by op: the same values without a compiler, for debugging the pass.

The kernel returns new tensors, which the step copies into the outputs the memory plan gave the
node, after the whole kernel has read its inputs: so an output may share an input's storage (the
node's FInplaceOption), and a result that is itself a view of such an input is cloned first.  Writing into them directly (a function doing ``out.copy_(expr)``) costs more on the CPU:
through ``torch.compile`` about 25 us of guard checks per call, and inductor given the mutating
graph directly did not write the results back for large inputs (measured with torch 2.x).
"""
from __future__ import annotations

import functools

import torch

__all__ = ["compile_kernel", "fused_step"]


def fused_step(source: str, cuda_source, backend: str, inputs, outputs):
    """The per-step function of a ``_fused`` node: its kernel (compiled here, or found in the
    cache) applied to ``inputs``, the results copied into ``outputs``."""
    signature = tuple((tuple(t.shape), t.stride(), str(t.dtype)) for t in inputs)
    device = inputs[0].device.type if inputs else outputs[0].device.type
    kernel = compile_kernel(source, cuda_source, backend, device, signature, len(outputs))
    arguments = tuple(inputs)
    # storages an output shares with an input (in place, PlanMemory): a result that is a view
    # of such an input (an identity or expand member) is cloned before any output is written
    shared = {t.untyped_storage().data_ptr() for t in inputs} & {
        t.untyped_storage().data_ptr() for t in outputs}
    if len(outputs) == 1 and not shared:
        out = outputs[0]
        return lambda: out.copy_(kernel(*arguments)[0])

    def step():
        values = kernel(*arguments)
        if shared:
            values = [v.clone() if v.untyped_storage().data_ptr() in shared else v
                      for v in values]
        for out, value in zip(outputs, values):
            out.copy_(value)
    return step


@functools.lru_cache(maxsize=1024)
def compile_kernel(source: str, cuda_source, backend: str, device: str, signature: tuple,
                   num_outputs: int):
    """The kernel of one generated expression, cached by the code, the backend, the device and
    the inputs' ``(shape, stride, dtype)``: ``kernel(*inputs) -> sequence of tensors``.

    Raises
    ------
    ValueError
        ``backend`` is neither ``"compiled"`` nor ``"eager"``.
    RuntimeError
        Inductor could not compile the code (no C++ compiler...), naming what to use instead.
    """
    if backend not in ("compiled", "eager"):
        raise ValueError(f"a fused node's backend must be 'compiled' or 'eager', got "
                         f"{backend!r}")
    if backend == "compiled" and device == "cuda" and cuda_source is not None:
        return _jiterator(cuda_source, num_outputs)
    namespace = {"torch": torch}
    exec(compile(source, "<fused>", "exec"), namespace)  # noqa: S102 (code FuseElemwise wrote)
    function = namespace["fused"]
    if backend == "eager":
        return function
    from torch._inductor import compile as inductor_compile
    from torch.fx.experimental.proxy_tensor import make_fx
    examples = [torch.empty_strided(shape, stride, dtype=getattr(torch, dtype.split(".")[1]),
                                    device=device).zero_() for shape, stride, dtype in signature]
    try:
        return inductor_compile(make_fx(function)(*examples), examples)
    except Exception as err:  # no C++ compiler, an inductor bug: say what still works
        raise RuntimeError(f"compiling a fused kernel with TorchInductor failed "
                           f"({type(err).__name__}: {str(err).splitlines()[0]}); "
                           f"config 'cpu fusion-eager' runs the fused code uncompiled, "
                           f"'cpu' does not fuse") from err


def _jiterator(cuda_source: str, num_outputs: int):
    """A jiterator kernel (NVRTC) returning a tuple of ``num_outputs`` tensors."""
    jitted = torch.cuda.jiterator._create_multi_output_jit_fn(cuda_source, num_outputs)

    def kernel(*inputs):
        result = jitted(*inputs)
        return (result,) if isinstance(result, torch.Tensor) else result
    return kernel
