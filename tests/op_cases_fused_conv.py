"""test_ops' table for the ops the CPU passes build: ``_fused_conv2d`` and
``_fused_linear`` (FuseConvActivation) against torch's conv2d / linear followed by the
activation (values, gradients against autograd and finite differences)."""
import torch
import torch.nn.functional as F

from tinyflow.nnvm.symbol import create_op

ACTIVATIONS = {"tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu}


def fused_conv2d(activation, stride, padding, bias):
    """The op applied to placeholders (x, w[, b]) and its PyTorch twin."""
    def build(x, w, *b):
        return create_op("_fused_conv2d", x, w, *b, activation=activation, stride=stride,
                         padding=padding, no_bias=not bias)

    def ref(x, w, *b):
        pad = w.shape[2] // 2 if padding == "SAME" else 0  # odd kernels, stride 1: even pads
        return ACTIVATIONS[activation](F.conv2d(x, w, b[0] if b else None, stride, pad))
    return build, ref


def add_cases(add):
    # (activation, stride, padding, bias); relu's kink: values only (a tie at 0 has no slope)
    for activation, stride, padding, bias in (
            ("tanh", (1, 1), "VALID", True), ("tanh", (2, 1), "VALID", False),
            ("sigmoid", (1, 1), "SAME", True), ("relu", (1, 1), "VALID", True)):
        build, ref = fused_conv2d(activation, stride, padding, bias)
        add("_fused_conv2d", f"{activation}-stride={stride}-{padding}-bias={bias}", build,
            [(2, 3, 7, 6), (4, 3, 3, 3)] + [(4,)] * bias, ref,
            check_gradient=activation != "relu")
    add_linear_cases(add)


def fused_linear(activation, bias):
    def build(x, w, *b):
        return create_op("_fused_linear", x, w, *b, activation=activation, no_bias=not bias)

    def ref(x, w, *b):
        return ACTIVATIONS[activation](F.linear(x, w, b[0] if b else None))
    return build, ref


def add_linear_cases(add):
    for activation, bias in (("tanh", True), ("tanh", False), ("sigmoid", True),
                             ("relu", True)):
        build, ref = fused_linear(activation, bias)
        add("_fused_linear", f"{activation}-bias={bias}", build,
            [(4, 3), (5, 3)] + [(5,)] * bias, ref, check_gradient=activation != "relu")
