"""Which ops a CUDA graph cannot capture (``TUncapturable``, tinyflow/nnvm/attrs.py), declared
column-wise on ops registered elsewhere: ``config='gpu graph'`` runs them between captured
segments (tinyflow/executor/cuda_graph.py).  Python ops and seeded random ops are never
captured and need no declaration."""
from __future__ import annotations

from ..nnvm.op import register_op

__all__ = []

# their bodies check class ids / indices on the host (torch.aminmax, then a comparison in
# Python), as TensorFlow's CPU kernels do: a sync a capture refuses
_CHECK_IDS = ("sparse_softmax_cross_entropy_with_logits",
              "_sparse_softmax_cross_entropy_with_logits_backward",
              "mean_sparse_softmax_cross_entropy_with_logits",
              "_mean_sparse_softmax_cross_entropy_with_logits_backward",
              "embedding_lookup", "_embedding_lookup_backward", "confusion_matrix")
# collectives wait for the other ranks through torch.distributed (tinyflow/distributed.py)
_COLLECTIVES = ("_allreduce", "_broadcast", "_allgather", "_allreduce_start", "_allreduce_wait")

for _name in _CHECK_IDS + _COLLECTIVES:
    register_op(_name).set_attr("TUncapturable", True)
