"""Sparse tensors' ops (TensorFlow 1.15's SparseToDense, SparseTensorDenseMatMul and
EditDistance): a sparse
tensor is its three dense parts, ``indices`` (int64 ``[N, rank]``), ``values`` (``[N]``) and
``dense_shape`` (int64 ``[rank]``), so these ops take them as inputs.

Both outputs are sized by ``dense_shape``'s value, read when the op runs (TShapeAtRunTime: a
sparse placeholder's shape is fed).  Every index is read on the host and checked against it
(TF's InvalidArgumentError text), and the output's bytes are checked before it is allocated;
bodies: ``tinyflow/lua_ops/sparse/`` over this family's kernels.  The other ``tf.sparse.*``
functions compose these with gather, segment and scatter ops (tinyflow/frontend/sparse_ops.py).
"""
from __future__ import annotations

from ..nnvm.attrs import no_gradient
from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op

__all__: list = []


def _int_type(kind, what):
    if kind is not None and kind not in ("int32", "int64"):
        raise TypeError(f"{what} must be int32 or int64, got {kind}")


def _check_parts(indices, values, shape, what):
    """ShapeError unless indices is [N, rank], values [N] and the dense shape [rank]."""
    if indices is not None and len(indices) != 2:
        raise ShapeError(f"{what}: indices must be a matrix [N, rank], got shape {indices}")
    if shape is not None and len(shape) != 1:
        raise ShapeError(f"{what}: the dense shape must be a vector, got shape {shape}")
    if indices is not None and shape is not None and indices[1] != shape[0]:
        raise ShapeError(f"{what}: indices of shape {indices} do not match a dense shape of "
                         f"{shape[0]} dims")
    if values is not None and indices is not None and (len(values) != 1
                                                        or values[0] != indices[0]):
        raise ShapeError(f"{what}: values must be a vector of the {indices[0]} indices' "
                         f"values, got shape {values}")


# -- sparse_to_dense -------------------------------------------------------------------------
def _to_dense_shape(attrs, in_shapes, out_shapes):
    indices, shape, values, default = in_shapes
    _check_parts(indices, values, shape, "sparse_to_dense")
    if default is not None and len(default) != 0:
        raise ShapeError(f"sparse_to_dense: default_value must be a scalar, got shape {default}")
    return in_shapes, list(out_shapes)  # sized by the dense shape's value when it runs


def _to_dense_type(attrs, in_types, out_types):
    indices, shape, values, default = in_types
    _int_type(indices, "sparse_to_dense's indices")
    _int_type(shape, "sparse_to_dense's output shape")
    if None not in (values, default) and values != default:
        raise TypeError(f"sparse_to_dense: default_value ({default}) must have the values' "
                        f"dtype ({values})")
    return in_types, [values or default or out_types[0]]


def _to_dense_gradient(node, grads):
    # TF's _SparseToDenseGrad: each value gets the gradient at its coordinates, the default
    # value the rest of the gradient's sum (all of it when the values add to the default)
    values_grad = create_op("gather_nd", grads[0], node.inputs[0])
    default_grad = create_op("reduce_sum", grads[0], axis=None)
    if not node.attrs.get("accumulate"):
        default_grad = default_grad - create_op("reduce_sum", values_grad, axis=None)
    return [None, None, values_grad, default_grad]


(register_op("sparse_to_dense")
 .describe("dense[indices[i]] = values[i], default_value elsewhere, of the shape the value of "
           "input 1 gives (TF's SparseToDense); attr validate_indices: indices must be "
           "ordered and distinct; attr accumulate: the values add to the default (repeated indices "
           "sum; else the last wins).")
 .set_num_inputs(4).set_attr("FInferShape", _to_dense_shape)
 .set_attr("FInferType", _to_dense_type).set_attr("FGradient", _to_dense_gradient)
 .set_attr("TShapeAtRunTime", True).set_attr("TUncapturable", True)  # indices read on the host
 .set_attr("TTFType", "SparseToDense"))


# -- sparse_tensor_dense_matmul --------------------------------------------------------------
def _matmul_shape(attrs, in_shapes, out_shapes):
    indices, values, shape, b = in_shapes
    _check_parts(indices, values, shape, "sparse_tensor_dense_matmul")
    if (indices is not None and indices[1] != 2) or (shape is not None and shape[0] != 2):
        raise ShapeError(f"sparse_tensor_dense_matmul: the sparse operand must be a matrix "
                         f"(indices {indices}, dense shape {shape})")
    if b is not None and len(b) != 2:
        raise ShapeError(f"sparse_tensor_dense_matmul: b must be a matrix, got shape {b}")
    return in_shapes, list(out_shapes)  # [rows of op(a), columns of op(b)] once it runs


def _matmul_type(attrs, in_types, out_types):
    indices, values, shape, b = in_types
    _int_type(indices, "sparse_tensor_dense_matmul's indices")
    _int_type(shape, "sparse_tensor_dense_matmul's dense shape")
    if None not in (values, b) and values != b:
        raise TypeError(f"sparse_tensor_dense_matmul: a's values ({values}) and b ({b}) must "
                        f"have one dtype")
    return in_types, [values or b or out_types[0]]


def _column(indices, k):
    return create_op("gather", indices, create_op("constant", value=(k,), shape=(),
                                                  dtype="int64"), axis=1)


def _matmul_gradient(node, grads):
    # TF's _SparseTensorDenseMatMulGrad: d b = op(a)^T g (op(b)'s transpose if adjoint_b);
    # d values[i] = <g[row i of op(a)], op(b)[column i of op(a)]>
    indices, values, shape, b = node.inputs
    adjoint_a, adjoint_b = node.attrs.get("adjoint_a", False), node.attrs.get("adjoint_b", False)
    b_grad = create_op("sparse_tensor_dense_matmul", indices, values, shape, grads[0],
                       adjoint_a=not adjoint_a, adjoint_b=False)
    if adjoint_b:
        b_grad = create_op("transpose", b_grad, perm=(1, 0))
    rows, cols = _column(indices, 0), _column(indices, 1)
    if adjoint_a:
        rows, cols = cols, rows
    dense = create_op("transpose", b, perm=(1, 0)) if adjoint_b else b
    picked = (create_op("gather", grads[0], rows, axis=0)
              * create_op("gather", dense, cols, axis=0))
    return [None, create_op("reduce_sum", picked, axis=(1,)), None, b_grad]


(register_op("sparse_tensor_dense_matmul")
 .describe("op(a) @ op(b), a the sparse matrix of inputs (indices, values, dense shape), b "
           "dense; op transposes when attr adjoint_a / adjoint_b (TF's "
           "SparseTensorDenseMatMul).")
 .set_num_inputs(4).set_attr("FInferShape", _matmul_shape)
 .set_attr("FInferType", _matmul_type).set_attr("FGradient", _matmul_gradient)
 .set_attr("TShapeAtRunTime", True).set_attr("TUncapturable", True)  # indices read on the host
 .set_attr("TTFType", "SparseTensorDenseMatMul"))


# -- edit_distance ---------------------------------------------------------------------------
def _edit_distance_shape(attrs, in_shapes, out_shapes):
    for part, what in ((0, "hypothesis"), (3, "truth")):
        _check_parts(*in_shapes[part:part + 3], f"edit_distance's {what}")
    hypothesis, truth = in_shapes[2], in_shapes[5]
    if hypothesis is not None and truth is not None and hypothesis != truth:
        raise ShapeError(f"Num elements of hypothesis_shape does not match truth_shape: "
                         f"{hypothesis[0]} vs. {truth[0]}")
    return in_shapes, list(out_shapes)  # the larger dense shape's leading dims, once it runs


def _edit_distance_type(attrs, in_types, out_types):
    for k, what in ((0, "hypothesis indices"), (2, "hypothesis shape"), (3, "truth indices"),
                    (5, "truth shape")):
        _int_type(in_types[k], f"edit_distance's {what}")
    if None not in (in_types[1], in_types[4]) and in_types[1] != in_types[4]:
        raise TypeError(f"edit_distance: truth values ({in_types[4]}) must have the dtype of "
                        f"the hypothesis values ({in_types[1]})")
    return in_types, ["float32"]


(register_op("edit_distance")
 .describe("TF's EditDistance: the Levenshtein distance between the sequences of hypothesis "
           "(inputs 0-2: indices, values, dense shape) and truth (inputs 3-5) that share their "
           "leading coordinates, float32 of the larger dense shape's leading dims; attr "
           "normalize: divided by the truth's length.")
 .set_num_inputs(6).set_attr("FInferShape", _edit_distance_shape)
 .set_attr("FInferType", _edit_distance_type).set_attr("FGradient", no_gradient)
 .set_attr("TShapeAtRunTime", True).set_attr("TUncapturable", True)  # indices read on the host
 .set_attr("TTFType", "EditDistance"))


# -- tf.sets: set operations along the last dim, sparse results sized as they run ------------
def _set_parts(attrs, in_shapes) -> list:
    """The operands' input shapes: ``[a, b]``, each one dense shape or three sparse parts."""
    sizes = [3 if attrs.get(f"{k}_sparse") else 1 for k in ("a", "b")]
    return [in_shapes[:sizes[0]], in_shapes[sizes[0]:sizes[0] + sizes[1]]]


def _set_operation_shape(attrs, in_shapes, out_shapes):
    if attrs.get("operation") not in ("intersection", "union", "a-b", "b-a"):
        raise ShapeError(f"set operation must be intersection, union, a-b or b-a, got "
                         f"{attrs.get('operation')!r}")
    for parts, what in zip(_set_parts(attrs, in_shapes), ("a", "b")):
        if len(parts) == 3:
            _check_parts(*parts, f"set operation's {what}")
        elif parts[0] is not None and len(parts[0]) < 2:
            raise ShapeError(f"Shape must be at least rank 2 but is rank {len(parts[0])} "
                             f"(set operation's {what}, shape {parts[0]})")
    return in_shapes, list(out_shapes)


def _set_operation_type(attrs, in_types, out_types):
    a, b = (parts[1 if len(parts) == 3 else 0] for parts in _set_parts(attrs, in_types))
    if None not in (a, b) and a != b:
        raise TypeError(f"Types don't match, {a} vs {b}.")
    return in_types, ["int64", a or out_types[1], "int64"]


(register_op("set_operation")
 .describe("TF's DenseToDense / DenseToSparse / SparseToSparseSetOperation: attr operation "
           "(intersection, union, a-b, b-a) of the sets in the last dim of a and b (each "
           "dense, or sparse as three inputs when attr a_sparse / b_sparse), per leading "
           "coordinate; outputs a sparse tensor's indices, values (sorted) and dense shape.")
 .set_num_inputs(lambda attrs: (3 if attrs.get("a_sparse") else 1)
                 + (3 if attrs.get("b_sparse") else 1))
 .set_num_outputs(3).set_attr("FInferShape", _set_operation_shape)
 .set_attr("FInferType", _set_operation_type).set_attr("FGradient", no_gradient)
 .set_attr("TShapeAtRunTime", True).set_attr("TUncapturable", True))  # read on the host


(register_op("set_size")
 .describe("TF's SetSize: how many distinct values each leading coordinate of the sparse "
           "tensor (inputs indices, values, dense shape) holds, int32 of its leading dims.")
 .set_num_inputs(3)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (
     _check_parts(*in_shapes, "set_size") or in_shapes, list(out_shapes)))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["int32"]))
 .set_attr("FGradient", no_gradient)
 .set_attr("TShapeAtRunTime", True).set_attr("TUncapturable", True))
for _name, _type in (("set_operation", "DenseToDenseSetOperation"), ("set_size", "SetSize")):
    register_op(_name).set_attr("TTFType", _type)
