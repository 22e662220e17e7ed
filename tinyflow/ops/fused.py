"""``_fused``: a group of elementwise ops (and, on the CPU, reductions) as one node, made by
the FuseElemwise pass (tinyflow/nnvm/optimizations/fuse_elemwise.py) at bind time, never by a user.

Its attributes hold the generated code (``source``: a Python function over torch;
``cuda_source``: a jiterator C++ function or None), ``members`` (one line per op it contains)
and its outputs' ``shapes`` and ``dtypes``, known when the pass ran.  The body
(``lua_ops/fused/_fused.lua``) gets the compiled kernel once, in its setup.  Its outputs may take
over its inputs' storage (FInplaceOption): the kernel returns new tensors, copied into the
outputs once it has read every input (tinyflow/lua_ops/fused/kernels.py).  It has no gradient:
fusion runs after the Gradient pass, on the backward graph too.
"""
from __future__ import annotations

from ..nnvm.op import register_op

__all__ = []


def _declared(key):
    """FInferShape / FInferType: the outputs' values the pass recorded."""
    def rule(attrs, ins, outs):
        return ins, [tuple(v) if key == "shapes" else v for v in attrs[key]]
    return rule


(register_op("_fused")
 .describe("Elementwise ops (and reductions, on the CPU) fused into one kernel (FuseElemwise): "
           "attrs source, cuda_source, members, shapes, dtypes, backend ('compiled' or "
           "'eager').")
 .set_num_inputs(lambda attrs: attrs["num_args"])
 .set_num_outputs(lambda attrs: attrs["num_outputs"])
 .set_attr("FInferShape", _declared("shapes"))
 .set_attr("FInferType", _declared("dtypes"))
 # any output may take over any input's storage (PlanMemory checks bytes, dtype and that
 # nothing else reads it): the kernel reads all its inputs before the step copies an output
 .set_attr("FInplaceOption", lambda attrs: [(i, j) for j in range(attrs["num_outputs"])
                                            for i in range(attrs["num_args"])])
 # its generated torch code takes any strides and its reductions name logical dimensions
 .set_attr("TChannelsLast", "same").set_attr("TInternal", "FuseElemwise"))
