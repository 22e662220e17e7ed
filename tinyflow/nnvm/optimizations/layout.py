"""ChooseLayout: keep a convolutional network's activations channels-last between its ops.

oneDNN (PyTorch's CPU convolution and pooling) runs several times faster on channels-last
tensors, and TensorFlow runs NHWC end to end.  TinyFlow's NCHW ops keep their NCHW shapes; what
this pass decides is how an entry's planned view lays the bytes out: ``layout[eid]`` is
``"channels_last"`` (an NCHW-shaped view with strides ``(H*W*C, 1, W*C, C)``, the executor's
``_view``) or None (contiguous).  The op bodies then run on the layout they are given instead of
copying to channels-last and back around every convolution and pooling.

Ops say what they take with ``TChannelsLast``, set where each op is registered (tinyflow/ops/):

* ``"prefer"``: every 4-d input and output may have either layout, and channels-last is faster
  (convolution, pooling and their gradients), with data_format NCHW;
* ``"any"``: either layout, no faster channels-last (``reduce_sum``), with data_format NCHW;
* ``"same"``: either, as long as all its 4-d operands share one (elementwise ops, which may
  compute in place, where two layouts of one buffer would mix elements up);
* missing: contiguous only (``reshape`` views the bytes, a fetched value goes to numpy).

Entries joined by ``"same"`` ops form groups (union-find); a group goes channels-last when a
``"prefer"`` op (a convolution or pooling) reads or writes one of its entries and nothing pins it:
an entry read or written by an op without the attribute, an input node's, a fetched one, or one not
4-d with more than one channel (one channel: both layouts are the same bytes).
"""
from __future__ import annotations

from ..graph import CHANNELS_LAST, Graph, UnionFind, register_pass

__all__ = ["choose_layout"]


@register_pass("ChooseLayout", requires=("shape", "dtype"), provides=("layout",))
def choose_layout(graph: Graph) -> Graph:
    """Give each entry a layout: ``"channels_last"`` or None (contiguous); see the module."""
    indexed, shapes = graph.indexed, graph.attrs["shape"]
    groups = UnionFind(range(indexed.num_entries))
    candidate = [shapes[e] is not None and len(shapes[e]) == 4 and shapes[e][1] > 1
                 for e in range(indexed.num_entries)]
    pinned, wanted = set(indexed.outputs), set()
    for nid, node in enumerate(indexed.nodes):
        first = indexed.entry_rptr[nid]
        operands = indexed.input_entries[nid] + list(range(first, first + node.num_outputs()))
        kind = _kind(node)
        if kind is None:
            pinned.update(operands)
            continue
        four_d = [e for e in operands if candidate[e]]
        if kind == "same":
            for eid in four_d[1:]:
                groups.union(four_d[0], eid)
        elif kind == "prefer":
            wanted.update(four_d)
    pinned.update(e for e in range(indexed.num_entries) if not candidate[e])
    pinned_roots = {groups.find(e) for e in pinned}
    wanted_roots = {groups.find(e) for e in wanted} - pinned_roots
    layout = [CHANNELS_LAST if groups.find(e) in wanted_roots else None
              for e in range(indexed.num_entries)]
    return graph.with_attrs(layout=layout)


def _kind(node):
    """``"prefer"``, ``"any"``, ``"same"`` or None (contiguous only) for one node; input nodes'
    entries are tensors the executor does not plan (variables, feeds): contiguous."""
    if node.op is None:
        return None
    kind = node.op.attr("TChannelsLast")
    if kind in ("prefer", "any") and (node.attrs.get("data_format") or "NCHW") != "NCHW":
        return None  # NHWC tensors are channels-last already, in their own shape
    return kind
