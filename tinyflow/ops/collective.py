"""Collectives over the ranks of ``tinyflow.distributed``: graph ops like every other, so the
memory planner gives them their buffers and the executor runs them in its order.  Bodies
(``tinyflow/lua_ops/collective/<name>.lua``) call their family's kernels (kernels.py there),
which run ``torch.distributed`` on the planned buffer in place.

Every body checks at setup that all ranks bring the same collective (kind, name, shape, dtype)
before it first runs.  Attrs: ``label`` (the name errors give), ``average``, ``root``, ``rank``
and ``size`` (the world's, when the graph was built).

Gradients, as Horovod's: allreduce's is the allreduce of the incoming gradient (averaged
likewise); broadcast's is the gradients of every rank summed at the root (zero elsewhere);
allgather's is this rank's rows of the summed gradient.

They wait for the other ranks through ``torch.distributed``, which a CUDA graph cannot capture
(``TUncapturable``).
"""
from __future__ import annotations

from ..nnvm.attrs import inplace_first, no_gradient, same_shape, same_type
from ..nnvm.errors import DTypeError, ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op

__all__: list[str] = []


def _allreduce_gradient(node, ograds):
    # d(sum_r x_r)/dx_r = 1: every rank's output gradient summed (averaged) again
    return [create_op("_allreduce", ograds[0], average=node.attrs["average"],
                      label=f"gradient of {node.attrs['label']}")]


(register_op("_allreduce")
 .describe("x summed over every rank (divided by their number with attr average), in place.")
 .set_num_inputs(1).set_attr("FInferShape", same_shape).set_attr("FInferType", same_type)
 .set_attr("FInplaceOption", inplace_first).set_attr("FGradient", _allreduce_gradient)
 .set_attr("TUncapturable", True))


def _broadcast_gradient(node, ograds):
    # y_r = x_root on every rank: the root's x gets every rank's gradient, the others none
    summed = create_op("_allreduce", ograds[0], average=False,
                       label=f"gradient of {node.attrs['label']}")
    return [summed if node.attrs["rank"] == node.attrs["root"] else summed * 0.0]


(register_op("_broadcast")
 .describe("Rank attr root's x on every rank, in place.")
 .set_num_inputs(1).set_attr("FInferShape", same_shape).set_attr("FInferType", same_type)
 .set_attr("FInplaceOption", inplace_first).set_attr("FGradient", _broadcast_gradient)
 .set_attr("TUncapturable", True))


def _allgather_shape(attrs, in_shapes, out_shapes):
    x, size = in_shapes[0], attrs["size"]
    if x is not None and not x:
        raise ShapeError("allgather concatenates along dim 0: x must have at least one "
                         "dimension, got a scalar")
    if x is None:
        return in_shapes, out_shapes
    return in_shapes, [(x[0] * size,) + tuple(x[1:])]


def _allgather_gradient(node, ograds):
    # y = concat_r x_r: x_r's gradient is rows r of every rank's gradient, summed
    summed = create_op("_allreduce", ograds[0], average=False,
                       label=f"gradient of {node.attrs['label']}")
    size, x = node.attrs["size"], node.inputs[0]
    pieces = create_op("_concat_backward", summed, *[x] * size, num_args=size, axis=0)
    return [pieces[node.attrs["rank"]] if size > 1 else pieces]


(register_op("_allgather")
 .describe("Every rank's x (all of one shape) concatenated along dim 0 in rank order.")
 .set_num_inputs(1).set_attr("FInferShape", _allgather_shape)
 .set_attr("FInferType", same_type).set_attr("FGradient", _allgather_gradient)
 .set_attr("TUncapturable", True))


# -- the buckets of DistributedOptimizer (tinyflow/distributed.py) ---------------------------
def _numel(shape):
    count = 1
    for dim in shape:
        count *= dim
    return count


def _start_shape(attrs, in_shapes, out_shapes):
    if attrs["num_args"] == 1:  # alone: reduced in place
        return same_shape(attrs, in_shapes, out_shapes)
    if any(s is None for s in in_shapes):
        return in_shapes, out_shapes
    return in_shapes, [(sum(_numel(s) for s in in_shapes),)]


def _bucket_type(attrs, in_types, out_types):
    known = {t for t in in_types if t is not None}
    if len(known) > 1:
        raise DTypeError(f"a bucket's gradients must share one dtype, got {sorted(known)}")
    return same_type(attrs, in_types, out_types)


(register_op("_allreduce_start")
 .describe("Start summing gradients x[1..num_args] over every rank, not waiting: the bucket's "
           "flat buffer (x[1] itself, in place, when alone); _allreduce_wait waits.")
 .set_num_inputs(lambda attrs: attrs["num_args"])
 .set_attr("FInferShape", _start_shape).set_attr("FInferType", _bucket_type)
 .set_attr("FInplaceOption", lambda attrs: [(0, 0)] if attrs["num_args"] == 1 else [])
 .set_attr("FGradient", no_gradient).set_attr("TUncapturable", True))


def _wait_shape(attrs, in_shapes, out_shapes):
    likes = in_shapes[1:]
    if attrs["num_args"] == 1:
        shape = in_shapes[0] if in_shapes[0] is not None else likes[0]
        return [shape, shape], [shape]
    if all(s is not None for s in likes) and in_shapes[0] is not None:
        total = sum(_numel(s) for s in likes)
        if tuple(in_shapes[0]) != (total,):
            raise ShapeError(f"the bucket holds {in_shapes[0]} elements, its gradients "
                             f"{total}")
    return in_shapes, list(likes)


(register_op("_allreduce_wait")
 .describe("Wait for _allreduce_start's reduction of the bucket (input 0) and give each "
           "gradient's part (averaged with attr average) in the shape of inputs 1..num_args "
           "(shape-only).")
 .set_num_inputs(lambda attrs: attrs["num_args"] + 1)
 .set_num_outputs(lambda attrs: attrs["num_args"])
 .set_attr("FInferShape", _wait_shape).set_attr("FInferType", _bucket_type)
 .set_attr("FIgnoreInputs", lambda attrs: list(range(1, attrs["num_args"] + 1)))
 .set_attr("FInplaceOption", lambda attrs: [(0, 0)] if attrs["num_args"] == 1 else [])
 .set_attr("FGradient", no_gradient).set_attr("TUncapturable", True))
