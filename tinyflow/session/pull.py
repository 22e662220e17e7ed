"""Outputs pulled from Python before a run: nodes whose op has ``FPullOutputs`` (a tf.data
iterator's ``get_next``, see nnvm/attrs.py).

Such a node's value is not computed by the executor: before the run binds, the session asks the
op for it (once per run, however many of its outputs the run fetches, as TensorFlow runs an op
once a step) and feeds it as the node's outputs, as a fed tensor is fed (CutFeeds).  So its
shape is resolved per run as a feed's is (the last, partial batch binds an executor of its own,
cached beside the full batches' one), and an error raised while pulling (the end of the data:
``OutOfRangeError``) stops the run before anything ran: variables keep their values.
"""
from __future__ import annotations

import numpy as np
import torch

from ..nnvm.symbol import NodeEntry, Symbol

__all__ = ["pull_feeds"]


def pull_feeds(session, symbols, feeds: dict) -> dict:
    """``feeds`` plus the values pulled for the FPullOutputs nodes this run of ``symbols``
    needs, each output fed through its input node (``session._feed_node``)."""
    entries = tuple(e for s in symbols for e in s.outputs)
    nodes = session._pulled.get(entries)
    if nodes is None:
        nodes = session._pulled[entries] = _pulled_nodes(entries)
    if not nodes:
        return feeds
    feeds = dict(feeds)
    resources = session.variable_store.resources
    for node in nodes:
        fed = [session._feed_node(Symbol([NodeEntry(node, i)]))
               for i in range(node.num_outputs())]
        if all(f in feeds for f in fed):  # the user fed every output: nothing is pulled
            continue
        values = node.op.attr("FPullOutputs")(node, resources, session.run)
        for feed_node, value in zip(fed, values):
            if feed_node not in feeds:
                array = np.asarray(value)  # a 0-d element stays 0-d
                feeds[feed_node] = torch.from_numpy(
                    array if array.flags.c_contiguous else array.copy())
    return feeds


def _pulled_nodes(entries) -> list:
    """The nodes with FPullOutputs among what ``entries`` depend on (inputs and control
    dependencies), in the order a depth-first walk from the first fetch meets them."""
    found, seen, stack = [], set(), [e.node for e in reversed(entries)]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.op is not None and node.op.attr("FPullOutputs") is not None:
            found.append(node)
        stack.extend(reversed([e.node for e in node.inputs] + list(node.control_deps)))
    return found
