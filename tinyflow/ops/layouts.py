"""Which ops take channels-last tensors (``TChannelsLast``, read by the ChooseLayout pass,
tinyflow/nnvm/passes/layout.py), in one table.

``"any"``: the body runs on each 4-d NCHW-shaped input and output in either layout (torch's
convolution, pooling and reduction kernels take any strides; the bodies never view the bytes).
``"same"``: elementwise bodies, which may run in place: any layout, one for all 4-d operands
(``_fused`` too: its generated torch code takes any strides, and its reductions name logical
dimensions).
"""
from __future__ import annotations

from ..nnvm.op import Op
from . import conv, elemwise, fused, reduce  # noqa: F401  (the ops below, registered first)

__all__ = ["ANY_LAYOUT", "SAME_LAYOUT"]

ANY_LAYOUT = ("conv2d", "_fused_conv2d", "_conv2d_backward_data", "_conv2d_backward_weight",
              "max_pool2d", "_max_pool2d_backward", "reduce_sum")
SAME_LAYOUT = ("tanh", "relu", "sigmoid", "_tanh_backward", "_relu_backward",
               "_sigmoid_backward", "copy", "negative", "elemwise_add", "elemwise_sub",
               "elemwise_mul", "elemwise_sum", "__add_scalar__", "__sub_scalar__",
               "__mul_scalar__", "_fused")

for _name in ANY_LAYOUT:
    Op.get(_name).set_attr("TChannelsLast", "any")
for _name in SAME_LAYOUT:
    Op.get(_name).set_attr("TChannelsLast", "same")
