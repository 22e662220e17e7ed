"""``tf.matmul`` (and ``tf.linalg.matmul``) as TensorFlow 1.15's: of matrices (the ``matmul``
op, :func:`tinyflow.frontend.api.matmul`), and of batches of them, rank 3 and up, as its
``BatchMatMulV2``: the last two axes multiplied, the ones before broadcast against each other.
A batch times a matrix (``[..., M, K] @ [K, N]``, a dense layer over a sequence) is one GEMM over
all the batch's rows; other batches run the ``batch_matmul`` op (tinyflow/ops/linalg.py), the
operands broadcast to their common batch first (``broadcast_to``, whose gradient sums the
broadcast axes back)."""
from __future__ import annotations

from ..nnvm.symbol import Symbol, create_op, current_context
from .api import _tensor, constant
from .api import matmul as _matrix_product
from .array_ops import broadcast_to, concat, reshape, shape
from .framework_names import broadcast_dynamic_shape

__all__ = ["cross", "matmul", "matvec"]


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None) -> Symbol:
    """``a @ b``: matrices, or batches of matrices (rank >= 3) whose batch axes broadcast;
    ``transpose_*`` or ``adjoint_*`` (the same for real dtypes) transpose an operand's last two
    axes first.  ``a_is_sparse`` / ``b_is_sparse`` are hints TinyFlow does not need."""
    del a_is_sparse, b_is_sparse
    for transpose, adjoint, which in ((transpose_a, adjoint_a, "a"), (transpose_b, adjoint_b,
                                                                         "b")):
        if transpose and adjoint:
            raise ValueError(f"Only one of transpose_{which} and adjoint_{which} can be True.")
    ta, tb = bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b)
    a, b = _tensor(a), _tensor(b)
    ranks = a.get_shape().ndims, b.get_shape().ndims
    if all(r in (None, 2) for r in ranks):
        return _matrix_product(a, b, ta, tb, name=name)
    if None in ranks or min(ranks) < 2:
        raise ValueError(f"tf.matmul: a batch of matrices needs both operands of known rank >= "
                         f"2, got {a.get_shape()} and {b.get_shape()}")
    with current_context().name_scope(name or "MatMul") as scope:  # TF's: the op "MatMul"
        if ranks[1] == 2 and not ta:
            return _rows_times_matrix(a, b, tb, scope)
        a, b = _broadcast_batches(a, b)
        return create_op("batch_matmul", a, b, adjoint_a=ta, adjoint_b=tb, name=scope)


def _rows_times_matrix(a, b, tb, name) -> Symbol:
    """``[..., M, K] @ [K, N]``: every row of the batch in one GEMM, then the batch's shape."""
    dims = a.get_shape().as_list()
    depth = dims[-1] if dims[-1] is not None else shape(a)[-1]
    product = _matrix_product(reshape(a, [-1, depth]), b, transpose_b=tb)
    columns = b.get_shape().as_list()[0 if tb else 1]
    if None not in dims[:-1] and columns is not None:
        return reshape(product, dims[:-1] + [columns], name=name)
    result = reshape(product, concat([shape(a)[:-1], shape(product)[-1:]], 0), name=name)
    result.set_shape(dims[:-1] + [columns])  # what is known of it
    return result


def _broadcast_batches(a, b):
    """``a`` and ``b`` broadcast to their common batch axes (as given when already equal)."""
    shape_a, shape_b = a.get_shape().as_list(), b.get_shape().as_list()
    batch_a, batch_b = shape_a[:-2], shape_b[:-2]
    if batch_a == batch_b:
        return a, b
    rank = max(len(batch_a), len(batch_b))
    padded_a = [1] * (rank - len(batch_a)) + batch_a
    padded_b = [1] * (rank - len(batch_b)) + batch_b
    target = []
    for x, y in zip(padded_a, padded_b):
        if x is None or y is None:  # an unknown axis is 1 or the other's size (TF's)
            target.append(y if x in (1, None) and y != 1 else x)
        elif x != y and 1 not in (x, y):
            raise ValueError(f"tf.matmul: batch axes {batch_a} and {batch_b} do not broadcast "
                             f"(shapes {a.get_shape()} and {b.get_shape()})")
        else:
            target.append(max(x, y))
    batch = None if None not in target else broadcast_dynamic_shape(  # known at run time
        shape(a)[:-2], shape(b)[:-2])
    return _to_batch(a, padded_a, target, batch), _to_batch(b, padded_b, target, batch)


def _to_batch(x, padded, target, batch):
    dims = x.get_shape().as_list()
    if padded == target and len(dims) - 2 == len(target):
        return x
    if None not in target + dims[-2:]:
        result = broadcast_to(x, target + dims[-2:])
    else:
        batch = constant(target, dtype="int32") if batch is None else batch
        result = broadcast_to(x, concat([batch, shape(x)[-2:]], 0))
    result.set_shape(target + dims[-2:])  # what is known of it, x's unknown axes too
    return result


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None) -> Symbol:
    """``a @ b`` of matrices ``a`` ``[..., M, N]`` and vectors ``b`` ``[..., N]``: ``[..., M]``
    (``tf.linalg.matvec``: a matmul with b a one-column matrix)."""
    b = _tensor(b)
    with current_context().name_scope(name or "MatVec"):
        product = matmul(a, create_op("expand_dims", b, axis=-1), transpose_a=transpose_a,
                         adjoint_a=adjoint_a)
        return create_op("squeeze", product, axis=(-1,))


def cross(a, b, name=None) -> Symbol:
    """The cross products of the 3-vectors along the last axis of ``a`` and ``b``
    (``tf.cross`` / ``tf.linalg.cross``)."""
    a, b = _tensor(a), _tensor(b)
    for x in (a, b):
        if x.get_shape().ndims is not None and x.get_shape()[-1].value not in (None, 3):
            raise ValueError(f"tf.cross takes vectors of 3 along the last axis, got "
                             f"{a.get_shape()} and {b.get_shape()}")
    with current_context().name_scope(name or "Cross"):
        ax, ay, az = (a[..., i] for i in range(3))
        bx, by, bz = (b[..., i] for i in range(3))
        return create_op("stack", ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx,
                         num_args=3, axis=-1)
