"""test_ops' table for the indexing ops (tinyflow/ops/indexing.py): each against its PyTorch
twin (forward, autograd) and finite differences; their indices are constants in the graph.
Index values read when the graph runs, errors and TF's numbers: tests/test_indexing.py."""
import torch

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op


def _reversed_prefixes(x, lengths, seq_axis, batch_axis):
    out = x.clone()
    for b, length in enumerate(lengths):
        index = [slice(None)] * x.dim()
        index[batch_axis], index[seq_axis] = b, slice(0, length)
        out[tuple(index)] = x[tuple(index)].flip(seq_axis - (batch_axis < seq_axis))
    return out


def _placed(shape, index, g, accumulate=True):
    return torch.zeros(shape, dtype=g.dtype).index_put_(index, g, accumulate=accumulate)


def _select_cases(add):
    add("select_index", "x[-1]", lambda x: x[tf.constant(-1)], [(3, 4)], lambda x: x[-1])
    add("select_index", "x[:, 2]", lambda x: x[:, tf.constant(2)], [(3, 4)], lambda x: x[:, 2])
    add("select_index", "x[..., -2]-int64", lambda x: x[..., tf.constant(-2, dtype=tf.int64)],
        [(2, 3, 4)], lambda x: x[..., -2])
    add("select_index", "x[1, :, 0]", lambda x: x[tf.constant(1), :, tf.constant(0)],
        [(2, 3, 4)], lambda x: x[1, :, 0])
    add("_select_index_backward", "axis=1", lambda g, like: create_op(
        "_select_index_backward", g, tf.constant(-3), like, axis=1), [(3,), (3, 4)],
        lambda g, like: _placed((3, 4), (torch.arange(3), torch.tensor([1])), g), wrt=(0,))


def _nd_cases(add):
    points = [[0, 1], [2, 3], [0, 1]]  # one point twice: its gradient gets both
    rows, cols = torch.tensor([0, 2, 0]), torch.tensor([1, 3, 1])
    add("gather_nd", "points", lambda p: tf.gather_nd(p, points), [(3, 4)],
        lambda p: p[rows, cols])
    add("gather_nd", "rows", lambda p: tf.gather_nd(p, [[2], [0]]), [(3, 4)],
        lambda p: p[[2, 0]])
    add("gather_nd", "batch_dims=1", lambda p: tf.gather_nd(p, [[1], [2]], batch_dims=1),
        [(2, 3, 4)], lambda p: torch.stack([p[0, 1], p[1, 2]]))
    add("gather_nd", "batch_dims=1-points", lambda p: tf.gather_nd(
        p, [[[1, 2]], [[0, 3]]], batch_dims=1), [(2, 3, 4)],
        lambda p: torch.stack([p[0, 1, 2], p[1, 0, 3]])[:, None])
    add("_gather_nd_backward", "points", lambda g, like: create_op(
        "_gather_nd_backward", g, tf.constant(points), like), [(3,), (3, 4)],
        lambda g, like: _placed((3, 4), (rows, cols), g), wrt=(0,))
    add("scatter_nd", "rows-repeated", lambda u: tf.scatter_nd([[1], [1], [0]], u, [4, 2]),
        [(3, 2)], lambda u: _placed((4, 2), (torch.tensor([1, 1, 0]),), u))
    add("scatter_nd", "points", lambda u: tf.scatter_nd(points, u, tf.constant([3, 4])),
        [(3,)], lambda u: _placed((3, 4), (rows, cols), u))
    for mode, api in (("update", tf.tensor_scatter_nd_update), ("add", tf.tensor_scatter_add),
                      ("sub", tf.tensor_scatter_nd_sub)):
        at = [[2], [0]] if mode == "update" else [[1], [1]]  # repeats sum, never overwrite
        add("tensor_scatter_nd", mode, lambda t, u, api=api, at=at: api(t, at, u),
            [(3, 4), (2, 4)], lambda t, u, mode=mode, at=at: t.index_put(
                (torch.tensor(at)[:, 0],), {"update": u, "add": u, "sub": -u}[mode],
                accumulate=mode != "update"))
    for mode, api in (("max", tf.tensor_scatter_nd_max), ("min", tf.tensor_scatter_nd_min)):
        add("tensor_scatter_nd", mode, lambda t, u, api=api: api(t, [[2], [0], [2]], u),
            [(3, 4), (3, 4)], lambda t, u, mode=mode: t.scatter_reduce(
                0, torch.tensor([2, 0, 2])[:, None].expand(3, 4), u, f"a{mode}"))


def add_cases(add):
    """select_index (x[i]), gather_nd, scatter_nd, tensor_scatter_nd, reverse_sequence and
    their backward ops."""
    _select_cases(add)
    _nd_cases(add)
    add("reverse_sequence", "batch-first", lambda x: tf.reverse_sequence(
        x, [1, 3, 0, 2], seq_axis=1, batch_axis=0), [(4, 3, 2)],
        lambda x: _reversed_prefixes(x, [1, 3, 0, 2], 1, 0))
    add("reverse_sequence", "time-first", lambda x: tf.reverse_sequence(
        x, tf.constant([3, 2, 1, 0], dtype=tf.int64), seq_dim=0, batch_dim=1), [(3, 4)],
        lambda x: _reversed_prefixes(x, [3, 2, 1, 0], 0, 1))
