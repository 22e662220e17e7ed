"""Matrix and shape ops: matmul, einsum, orthogonalize, reshape, pad, and TF 1.15's band and
diagonals of the last two axes (matrix_band_part, matrix_diag, matrix_diag_part,
matrix_set_diag).  Bodies:
``tinyflow/lua_ops/matrix/<name>.lua``."""
from __future__ import annotations

import math
import re

from ..nnvm.attrs import no_gradient, same_shape, same_type
from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op
from .elemwise import FLOAT, dtype_rule

__all__ = ["einsum_terms", "register_view_op"]


def _matmul_shape(attrs, in_shapes, out_shapes):
    a, b = in_shapes
    out = out_shapes[0]
    ta, tb = attrs.get("transpose_a", False), attrs.get("transpose_b", False)
    for s in (a, b, out):
        if s is not None and len(s) != 2:
            raise ShapeError(f"matmul takes 2-D matrices, got {a} and {b}")
    if a is not None and b is not None:
        m, k = a[::-1] if ta else a
        k2, n = b[::-1] if tb else b
        if k != k2:
            raise ShapeError(f"inner dimensions differ: {a}{'^T' if ta else ''} @ "
                             f"{b}{'^T' if tb else ''}")
        return [a, b], [(m, n)]
    if out is not None and a is not None:  # backward: b from a and out
        k = a[0] if ta else a[1]
        b = (out[1], k) if tb else (k, out[1])
    elif out is not None and b is not None:
        k = b[1] if tb else b[0]
        a = (k, out[0]) if ta else (out[0], k)
    return [a, b], [out]


def _matmul_grad(node, grads):
    a, b = node.inputs
    g = grads[0]
    ta, tb = node.attrs.get("transpose_a", False), node.attrs.get("transpose_b", False)
    mm = lambda x, y, tx=False, ty=False: create_op(
        "matmul", x, y, transpose_a=tx, transpose_b=ty)
    if not ta and not tb:
        return [mm(g, b, ty=True), mm(a, g, tx=True)]
    if ta and not tb:
        return [mm(b, g, ty=True), mm(a, g)]
    if not ta and tb:
        return [mm(g, b), mm(g, a, tx=True)]
    return [mm(b, g, True, True), mm(g, a, True, True)]


def _matmul_flops(attrs, in_shapes, out_shapes):
    """FFlops: 2 m n k, with k^2 = (m k)(k n) / (m n)."""
    ins, out = [math.prod(s) for s in in_shapes], sum(math.prod(s) for s in out_shapes)
    if len(ins) != 2 or not out:
        return None
    return 2 * out * round(math.sqrt(ins[0] * ins[1] / out))


(register_op("matmul").describe("Matrix product of 2-D a and b; transpose_a / transpose_b "
                                "use a^T / b^T.")
 .set_num_inputs(2).set_attr("FInferShape", _matmul_shape)
 .set_attr("FGradient", _matmul_grad).set_attr("FFlops", _matmul_flops))


def _reshape_shape(attrs, in_shapes, out_shapes):
    x = in_shapes[0]
    target = tuple(attrs["shape"])
    if x is None:
        return in_shapes, [target] if -1 not in target else out_shapes
    size = math.prod(x)
    if target.count(-1) > 1:
        raise ShapeError(f"at most one -1 in shape {target}")
    if -1 in target:
        known = math.prod(d for d in target if d != -1)
        if known == 0 or size % known:
            raise ShapeError(f"cannot reshape {x} to {target}")
        target = tuple(size // known if d == -1 else d for d in target)
    if math.prod(target) != size:
        raise ShapeError(f"cannot reshape {x} ({size} elements) to {target}")
    return in_shapes, [target]


def register_view_op(name, doc, shape_rule):
    """Register an op giving its one input a new shape over the same elements (in place); its
    gradient is the output's gradient reshaped back."""
    (register_op(name).describe(doc)
     .set_num_inputs(1).set_attr("FInferShape", shape_rule)
     .set_attr("FInplaceOption", [(0, 0)]).set_attr("FInplaceIdentity", [True])
     .set_attr("FGradient", lambda n, g: [create_op("reshape_like", g[0], n.inputs[0])]))


register_view_op("reshape", "x with a new shape (one -1 is inferred); shares memory.",
                 _reshape_shape)
# reshape(x, tf.stack([...])) (op shaped_by_value, folded at bind): the same gradient
register_op("reshape").set_attr("FShapeValueGradient", lambda n, g: [
    create_op("reshape_like", g[0], n.inputs[0])])


def _reshape_like_shape(attrs, in_shapes, out_shapes):
    x, like = in_shapes
    out = like if like is not None else out_shapes[0]
    if x is not None and out is not None and math.prod(x) != math.prod(out):
        raise ShapeError(f"cannot reshape {x} to {out}")
    return [x, out], [out]


(register_op("reshape_like").describe("Input 0 reshaped to the shape of input 1 (shape-only).")
 .set_num_inputs(2).set_attr("FInferShape", _reshape_like_shape)
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("FInplaceIdentity", [True])
 .set_attr("FIgnoreInputs", [1])
 .set_attr("FGradient", lambda n, g: [create_op("reshape_like", g[0], n.inputs[0]), None]))


def _pad_shape(attrs, in_shapes, out_shapes):
    x, out = in_shapes[0], out_shapes[0]
    dim, pad = attrs["dim"], attrs["pad"]
    if x is not None:
        if not -len(x) <= dim < len(x):
            raise ShapeError(f"dim {dim} is out of range for shape {x}")
        out = tuple(d + abs(pad) if i == dim % len(x) else d for i, d in enumerate(x))
    elif out is not None:
        x = tuple(d - abs(pad) if i == dim % len(out) else d for i, d in enumerate(out))
    return [x], [out]


(register_op("pad").describe("Pad x along dim with |pad| copies of value (attr, default 0; "
                             "TF's constant_values): in front when pad < 0, behind when pad > 0.")
 .set_num_inputs(1).set_attr("FInferShape", _pad_shape)
 .set_attr("FGradient", lambda n, g: [create_op("_pad_backward", g[0], dim=n.attrs["dim"],
                                                pad=n.attrs["pad"])]))


def _pad_backward_shape(attrs, in_shapes, out_shapes):
    new_out, new_in = _pad_shape(attrs, out_shapes, in_shapes)
    return new_in, new_out


(register_op("_pad_backward").describe("The part of g that pad's input came from (a crop).")
 .set_num_inputs(1).set_attr("FInferShape", _pad_backward_shape)
 .set_attr("FGradient", lambda n, g: [create_op("pad", g[0], dim=n.attrs["dim"],
                                                pad=n.attrs["pad"])])
 .set_attr("TIsBackward", True))


# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase
# -- einsum ------------------------------------------------------------------------------------
_EINSUM = re.compile(r"([a-zA-Z]*(?:,[a-zA-Z]*)*)->([a-zA-Z]*)")


def einsum_terms(equation):
    """``(input label strings, output labels)`` of a ``"ab,bc->ac"`` equation: one or two
    terms of letters, no label twice in one, every output label in some input (else a
    ShapeError)."""
    match = _EINSUM.fullmatch(equation) if isinstance(equation, str) else None
    if match is None:
        raise ShapeError(f"einsum equation must be letters, commas and '->', got {equation!r}")
    terms, output = match[1].split(","), match[2]
    if len(terms) > 2:  # torch's left-to-right products could outgrow the planned buffers
        raise ShapeError(f"einsum takes one or two inputs, got {len(terms)} in {equation!r}")
    for term in terms + [output]:
        if len(set(term)) != len(term):
            raise ShapeError(f"einsum: a label appears twice in {term!r} of {equation!r}")
    if set(output) - set("".join(terms)):
        raise ShapeError(f"einsum: output labels {output!r} not all in the inputs of "
                         f"{equation!r}")
    return terms, output


def _einsum_shape(attrs, in_shapes, out_shapes):
    terms, output = einsum_terms(attrs["equation"])
    sizes = {}
    for term, shape in zip(terms, in_shapes):
        if shape is None:
            continue
        if len(shape) != len(term):
            raise ShapeError(f"einsum: input {term!r} of {attrs['equation']!r} has rank "
                             f"{len(term)}, got shape {shape}")
        for label, size in zip(term, shape):
            if sizes.setdefault(label, size) != size:
                raise ShapeError(f"einsum {attrs['equation']!r}: label {label!r} has sizes "
                                 f"{sizes[label]} and {size} (shapes {in_shapes})")
    known = all(label in sizes for label in output)
    return in_shapes, [tuple(sizes[label] for label in output) if known else out_shapes[0]]


def _einsum_grad(node, grads):
    # d/dx_k: the einsum of the output gradient and the other input into x_k's labels, then
    # broadcast along the labels only x_k has (summed out there alone)
    terms, output = einsum_terms(node.attrs["equation"])
    result = []
    for k, term in enumerate(terms):
        pairs = [(output, grads[0])] + [(t, x) for i, (t, x) in enumerate(
            zip(terms, node.inputs)) if i != k]
        reached = set("".join(t for t, _ in pairs))
        target = "".join(label for label in term if label in reached)
        grad = grads[0] if len(pairs) == 1 and target == output else create_op(
            "einsum", *(x for _, x in pairs), equation=",".join(t for t, _ in pairs) + "->" +
            target)
        if target != term:
            grad = create_op("broadcast_like", grad, node.inputs[k], axis=tuple(
                i for i, label in enumerate(term) if label not in reached))
        result.append(grad)
    return result


(register_op("einsum").describe("Einstein summation of one or two inputs by attr equation "
                                "(\"ab,bc->ac\": letters, the output explicit, no label twice in "
                                "a term; a label's sizes agree: no broadcasting).")
 .set_num_inputs(lambda attrs: str(attrs.get("equation", "")).count(",") + 1)
 .set_attr("FInferShape", _einsum_shape).set_attr("FInferType", dtype_rule())
 .set_attr("FGradient", _einsum_grad))
register_op("matmul").set_attr("TTFType", "MatMul")


# -- the diagonal and band of the last two axes (TF 1.15's matrix_* ops) -------------------------
def _rank_at_least(shape, rank, what):
    if shape is not None and len(shape) < rank:
        raise ShapeError(f"{what} must be at least rank {rank}, got shape {shape}")


def _band_shape(attrs, in_shapes, out_shapes):
    x = in_shapes[0] or out_shapes[0]
    _rank_at_least(x, 2, "matrix_band_part's input")
    for name in ("num_lower", "num_upper"):
        if not isinstance(attrs.get(name), int) or isinstance(attrs.get(name), bool):
            raise ShapeError(f"{name} must be an integer, got {attrs.get(name)!r}")
    return [x], [x]


def _diag_shape(attrs, in_shapes, out_shapes):
    d = in_shapes[0]
    _rank_at_least(d, 1, "matrix_diag's diagonal")
    return in_shapes, [None if d is None else tuple(d) + (d[-1],)]


def _diag_part_shape(attrs, in_shapes, out_shapes):
    x = in_shapes[0]
    _rank_at_least(x, 2, "matrix_diag_part's input")
    return in_shapes, [None if x is None else tuple(x[:-2]) + (min(x[-2:]),)]


def _set_diag_shape(attrs, in_shapes, out_shapes):
    x, d = in_shapes
    x = x or out_shapes[0]
    _rank_at_least(x, 2, "matrix_set_diag's input")
    if x is not None and d is not None and tuple(d) != tuple(x[:-2]) + (min(x[-2:]),):
        raise ShapeError(f"matrix_set_diag: diagonal of shape {d} does not fit input of shape "
                         f"{x} (it must be {tuple(x[:-2]) + (min(x[-2:]),)})")
    return [x, d], [x]


def _diag_part_grad(node, grads):
    # TF's _MatrixDiagPartGrad: the gradient on the diagonal of zeros of the input's shape
    zeros = create_op("zeros_like", node.inputs[0])
    return [create_op("matrix_set_diag", zeros, grads[0])]


(register_op("matrix_band_part").describe("x with, in each matrix of its last two axes, the "
                                          "elements off the band zeroed: kept where i - j <= "
                                          "num_lower and j - i <= num_upper (negative: all).")
 .set_num_inputs(1).set_attr("FInferShape", _band_shape).set_attr("FInferType", same_type)
 .set_attr("FGradient", lambda n, g: [create_op("matrix_band_part", g[0], **n.attrs)]))
(register_op("matrix_diag").describe("Matrices [..., N, N] with diagonal [..., N] on the "
                                     "diagonal, zeros elsewhere.")
 .set_num_inputs(1).set_attr("FInferShape", _diag_shape).set_attr("FInferType", same_type)
 .set_attr("FGradient", lambda n, g: [create_op("matrix_diag_part", g[0])]))
(register_op("matrix_diag_part").describe("The diagonals [..., min(M, N)] of matrices "
                                          "[..., M, N].")
 .set_num_inputs(1).set_attr("FInferShape", _diag_part_shape)
 .set_attr("FInferType", same_type).set_attr("FGradient", _diag_part_grad))
(register_op("matrix_set_diag").describe("x with the diagonals of its matrices replaced by "
                                         "diagonal (input 1).")
 .set_num_inputs(2).set_attr("FInferShape", _set_diag_shape).set_attr("FInferType", same_type)
 .set_attr("FGradient", lambda n, g: [
     create_op("matrix_set_diag", g[0], create_op("zeros_like", n.inputs[1])),
     create_op("matrix_diag_part", g[0])]))
def _tall_matrix_shape(attrs, in_shapes, out_shapes):
    in_shapes, out_shapes = same_shape(attrs, in_shapes, out_shapes)
    if in_shapes[0] is not None and (len(in_shapes[0]) != 2 or in_shapes[0][0] < in_shapes[0][1]):
        raise ShapeError(f"orthogonalize takes a matrix with at least as many rows as columns, "
                         f"got shape {in_shapes[0]}")
    return in_shapes, out_shapes


# What tf.orthogonal_initializer makes of a normal sample (TF 1.15's composition qr, diag_part,
# sign); an initializer's value, so no gradient (TF's goes through its QR: no initializer's does)
(register_op("orthogonalize").describe("Q of the reduced QR factorisation of a (rows >= "
                                       "columns), each column's sign that of R's diagonal: "
                                       "orthonormal columns (tf.orthogonal_initializer).")
 .set_num_inputs(1).set_attr("FInferShape", _tall_matrix_shape)
 .set_attr("FInferType", FLOAT).set_attr("FGradient", no_gradient))
