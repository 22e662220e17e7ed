"""``tf.nn.embedding_lookup_sparse``: the embeddings of a sparse tensor's ids combined per row,
as TensorFlow 1.15's Python composes it (a lookup, then segment sums), so its gradient is
theirs."""
from __future__ import annotations

from ...nnvm.symbol import Symbol, current_context
from ..api import cast, sqrt
from ..array_ops import expand_dims
from ..dtypes import int32
from ..segment_ops import segment_mean, segment_sum
from ..sparse_ops import SparseTensor, segment_sqrt_n
from .functions import embedding_lookup

__all__ = ["embedding_lookup_sparse"]


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

