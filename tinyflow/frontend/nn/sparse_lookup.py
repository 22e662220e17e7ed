"""``tf.nn.embedding_lookup_sparse``: the embeddings of a sparse tensor's ids combined per row,
as TensorFlow 1.15's Python composes it (a lookup, then segment sums), so its gradient is
theirs; ``tf.nn.safe_embedding_lookup_sparse``: the same after pruning invalid ids and weights
and filling empty rows."""
from __future__ import annotations

from ...nnvm.symbol import Symbol, current_context
from ..api import cast, greater, greater_equal, sqrt, where
from ..array_ops import expand_dims, zeros_like
from ..dtypes import int32
from ..segment_ops import segment_mean, segment_sum
from ..sparse_ops import SparseTensor, segment_sqrt_n, sparse_fill_empty_rows, sparse_retain
from .functions import embedding_lookup

__all__ = ["embedding_lookup_sparse", "safe_embedding_lookup_sparse"]


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None,
                            combiner=None, max_norm=None) -> Symbol:
    """Per row of ``sp_ids`` (a sparse [batch, ids] tensor, indices in row-major order), the
    ``combiner`` ("sum", "mean" (default), "sqrtn") of the embeddings of its ids, each weighted
    by ``sp_weights``' value (None: 1).  ``max(row) + 1`` rows, as TF's segment sums."""
    combiner = "mean" if combiner is None else combiner
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError("sp_ids must be SparseTensor")
    if sp_weights is not None and not isinstance(sp_weights, SparseTensor):
        raise TypeError("sp_weights must be either None or SparseTensor")
    with current_context().name_scope(name or "embedding_lookup_sparse"):
        segment_ids = cast(sp_ids.indices[:, 0], int32)
        embeddings = embedding_lookup(params, sp_ids.values, partition_strategy,
                                      max_norm=max_norm)
        if sp_weights is None:
            if combiner == "sum":
                return segment_sum(embeddings, segment_ids)
            if combiner == "mean":
                return segment_mean(embeddings, segment_ids)
            return segment_sqrt_n(embeddings, segment_ids)
        weights = sp_weights.values
        if weights.dtype != embeddings.dtype:
            weights = cast(weights, embeddings.dtype)
        for _ in range((embeddings.get_shape().ndims or 2) - 1):  # [N, 1...]: broadcast
            weights = expand_dims(weights, -1)
        total = segment_sum(embeddings * weights, segment_ids)
        if combiner == "sum":
            return total
        if combiner == "mean":  # TF: an empty row is 0 / 0
            return total / segment_sum(weights, segment_ids)
        return total / sqrt(segment_sum(weights * weights, segment_ids))



def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, name=None,
                                 partition_strategy="div", max_norm=None) -> Symbol:
    """embedding_lookup_sparse after dropping negative ids (and, unless ``combiner`` is "sum",
    entries whose weight is not positive): a row left empty gives the embedding of
    ``default_id``, or zeros when it is None; one row per row of ``sparse_ids`` (rank 2)."""
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")
    rank = sparse_ids.dense_shape.get_shape()
    if rank.ndims != 1 or rank[0].value != 2:
        raise ValueError(f"safe_embedding_lookup_sparse: TinyFlow takes sparse_ids of rank 2 "
                         f"(a batch of id lists), got a dense shape of shape {rank}")
    with current_context().name_scope(name or "embedding_lookup"):
        ids, weights = sparse_ids, sparse_weights
        if weights is not None:  # TF: the weights at the ids' indices
            weights = SparseTensor(ids.indices, weights.values, ids.dense_shape)
        ids, weights = _retained(ids, weights, greater_equal(ids.values, 0))
        if weights is not None and combiner != "sum":
            ids, weights = _retained(ids, weights, greater(weights.values, 0))
        ids, is_row_empty = sparse_fill_empty_rows(ids, default_id or 0)
        if weights is not None:
            weights = sparse_fill_empty_rows(weights, 1.0)[0]
        result = embedding_lookup_sparse(embedding_weights, ids, weights, partition_strategy,
                                         combiner=combiner, max_norm=max_norm)
        if default_id is None:  # an empty row: zeros, not default_id's embedding
            result = where(is_row_empty, zeros_like(result), result)
        return result


def _retained(ids, weights, keep) -> tuple:
    """The entries of ids (and weights) where ``keep``."""
    return sparse_retain(ids, keep), None if weights is None else sparse_retain(weights, keep)
