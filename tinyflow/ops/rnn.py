"""The fused recurrent ops: a whole LSTM sequence as one node (TensorFlow's ``BlockLSTM``).
Bodies: ``tinyflow/lua_ops/rnn/<name>.lua``.

``static_rnn`` over a ``BasicLSTMCell`` builds one ``lstm_block`` instead of 28 unrolled cells
(tinyflow/frontend/nn/rnn_cell.py): the same values and gradients from fewer, larger kernels.
The input projections of all time steps are one GEMM, each step one ``h @ W_h`` and the gates'
elementwise functions on views of one buffer, with nothing copied between steps; the
backward's weight gradient is one GEMM over all steps.  The gate order and layout are
TensorFlow's: ``kernel`` ``[depth + units, 4 units]`` of gates i, j, f, o, ``bias`` ``[4
units]``, ``forget_bias`` added to f.
"""
from __future__ import annotations

from ..nnvm import gradients
from ..nnvm.attrs import shape_str
from ..nnvm.errors import GraphError, ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op

__all__ = []


def _lstm_sizes(in_shapes, out_shapes):
    """``(steps, batch, depth, units)`` from whichever shapes are known (None when unknown)."""
    x, c0, h0, kernel, bias = in_shapes
    ranks = (3, 2, 2, 2, 1)
    for name, shape, rank in zip(("x", "c0", "h0", "kernel", "bias"), in_shapes, ranks):
        if shape is not None and (len(shape) != rank or 0 in shape):
            raise ShapeError(f"lstm_block: {name} must be {rank}-D and not empty, got shape "
                             f"{shape_str(shape)}")
    h = out_shapes[0]
    steps, batch, depth = x if x is not None else (None, None, None)
    units = next((s[-1] for s in (c0, h0, h) if s is not None), None)
    if units is None and bias is not None:
        units = bias[0] // 4
    if steps is None and h is not None:
        steps, batch = h[0], h[1]
    if depth is None and kernel is not None and units is not None:
        depth = kernel[0] - units
    return steps, batch, depth, units


def _lstm_block_shape(attrs, in_shapes, out_shapes):
    """x [T, B, D], c0 and h0 [B, H], kernel [D + H, 4H], bias [4H] -> h and c [T, B, H],
    and (hidden) the gates' activations [T, B, 4H] and tanh(c) [T, B, H]."""
    steps, batch, depth, units = _lstm_sizes(in_shapes, out_shapes)
    if None in (steps, batch, depth, units):
        return in_shapes, out_shapes
    want = [(steps, batch, depth), (batch, units), (batch, units), (depth + units, 4 * units),
            (4 * units,)]
    for name, have, shape in zip(("x", "c0", "h0", "kernel", "bias"), in_shapes, want):
        if have is not None and tuple(have) != shape:
            raise ShapeError(f"lstm_block: {name} has shape {shape_str(have)}, expected "
                             f"{shape_str(shape)} (x {shape_str(in_shapes[0])}, {units} units)")
    out, one = (steps, batch, units), _one_step(attrs)
    outs = [out, out, (steps, batch, 4 * units), out]
    return want, [(1, *s[1:]) if i in one else s for i, s in enumerate(outs)]


def _one_step(attrs) -> tuple:
    """The outputs given one step's row (attr ``one_step``, KeepOneStep's): c, gates, tanh(c)."""
    one = attrs.get("one_step", ())
    if not isinstance(one, (tuple, list)) or not set(one) <= {1, 2, 3}:
        raise ShapeError(f"lstm_block: attr one_step must list outputs among 1, 2, 3 (c, the "
                         f"gates, tanh(c)), got {one!r}")
    return tuple(one)


def _lstm_block_grad(node, grads):
    """Gradients of x, c0, h0, kernel and bias from those of h and c (the hidden outputs'
    own, never read by another op, are not used).  x's is a matmul of the gates' gradients,
    apart from the backward op, so that it is not computed where nothing reads it (a fed x)."""
    if _one_step(node.attrs):
        raise GraphError(f"lstm_block '{node.name}' keeps one step of its outputs "
                         f"{list(node.attrs['one_step'])} (attr one_step): no gradient")
    backward = create_op("_lstm_block_backward", grads[0], grads[1], *node.inputs,
                         *node.outputs)
    kernel = node.inputs[3].get_shape()
    if not kernel.is_fully_defined():
        raise GraphError(f"lstm_block '{node.name}': the gradient needs the kernel's shape, "
                         f"got {kernel}")
    rows, columns = kernel.as_list()
    gates = create_op("reshape", backward[0], shape=(-1, columns))
    kernel_x = node.inputs[3][:rows - columns // 4]
    grad_x = create_op("matmul", gates, kernel_x, transpose_b=True)
    return [create_op("reshape_like", grad_x, node.inputs[0])] + [backward[i] for i in (1, 2, 3, 4)]


(register_op("lstm_block")
 .describe("An LSTM over a sequence, TensorFlow's BlockLSTM in BasicLSTMCell's layout: x [T, "
           "B, D], c0 and h0 [B, H], kernel [D + H, 4H] (gates i, j, f, o), bias [4H]; attr "
           "forget_bias.  Outputs h and c [T, B, H] (each step's), and for the gradient "
           "(hidden) the gates' activations [T, B, 4H] and tanh(c) [T, B, H]; c, gates and "
           "tanh(c) are one step [1, B, ...] where attr one_step lists them (KeepOneStep).")
 .set_num_inputs(5).set_num_outputs(4)
 .set_attr("FNumVisibleOutputs", lambda attrs: 2)
 .set_attr("FInferShape", _lstm_block_shape).set_attr("FGradient", _lstm_block_grad)
 .set_attr("TOneStepOutputs", (1, 2, 3)).set_attr("TTFType", "BlockLSTM"))


def _lstm_block_backward_shape(attrs, in_shapes, out_shapes):
    """dh, dc, x, c0, h0, kernel, bias, h, c, gates, tanh(c) -> d gates, dc0, dh0, dkernel,
    dbias."""
    forward = list(in_shapes[2:7])
    forward, outs = _lstm_block_shape({}, forward, list(in_shapes[7:11]))  # every step kept
    if None in forward:
        return in_shapes, out_shapes
    return [outs[0], outs[1], *forward, *outs], [outs[2], *forward[1:]]


def _backward_formulas(dh, dc, x, c0, h0, kernel, bias, h, c, acts, tanh_c):
    """_lstm_block_backward's outputs from its inputs as ordinary ops (its body's formulas,
    every input independent): the graph its own gradient differentiates."""
    steps, depth = x.get_shape()[0].value, x.get_shape()[2].value
    units = kernel.get_shape()[1].value // 4
    dh_carry = dc_carry = None
    w_h, step_grads = kernel[depth:], [None] * steps
    for t in reversed(range(steps)):
        i, j, f, o = (acts[t][:, k * units:(k + 1) * units] for k in range(4))
        c_prev, tc = c0 if t == 0 else c[t - 1], tanh_c[t]
        dh_t = dh[t] if dh_carry is None else dh[t] + dh_carry
        dc_t = (dc[t] if dc_carry is None else dc[t] + dc_carry) + dh_t * o * (1.0 - tc * tc)
        step_grads[t] = create_op(
            "concat", dc_t * j * (i * (1.0 - i)), dc_t * i * (1.0 - j * j),
            dc_t * c_prev * (f * (1.0 - f)), dh_t * tc * (o * (1.0 - o)), num_args=4, axis=1)
        dc_carry = dc_t * f
        dh_carry = create_op("matmul", step_grads[t], w_h, transpose_b=True)
    flat = create_op("reshape", create_op("stack", *step_grads, num_args=steps, axis=0),
                     shape=(-1, 4 * units))
    h_prev = create_op("concat", create_op("expand_dims", h0, axis=0), h[:steps - 1],
                       num_args=2, axis=0)
    dkernel = create_op("concat", *(create_op(
        "matmul", create_op("reshape", v, shape=(-1, size)), flat, transpose_a=True)
        for v, size in ((x, depth), (h_prev, units))), num_args=2, axis=0)
    return [create_op("reshape_like", flat, acts), dc_carry, dh_carry, dkernel,
            create_op("reduce_sum", flat, axis=0)]


def _lstm_block_backward_grad(node, grads):
    """The gradient of the backward op (a second-order gradient through the LSTM): its
    formulas built as ordinary ops, then differentiated by the Gradient pass."""
    inputs = list(node.inputs)
    x = inputs[2].get_shape()
    if x.ndims != 3 or None in (x[0].value, x[2].value) or not inputs[5].get_shape(
            ).is_fully_defined():
        raise GraphError(f"{node.name}: the gradient of an LSTM's gradient needs the static "
                         f"shapes of x and the kernel")
    return gradients(_backward_formulas(*inputs), inputs, grads)


(register_op("_lstm_block_backward")
 .describe("Gradients of lstm_block's gates (before their functions), c0, h0, kernel and bias "
           "from those of its outputs h "
           "and c, its inputs and its outputs (h, c, the gates' activations, which hold "
           "forget_bias already, and tanh(c)).")
 .set_num_inputs(11).set_num_outputs(5)
 .set_attr("FInferShape", _lstm_block_backward_shape).set_attr("TIsBackward", True)
 .set_attr("FGradient", _lstm_block_backward_grad)
 .set_attr("TTFType", "BlockLSTMGrad"))
