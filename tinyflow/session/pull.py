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

import time

import numpy as np
import torch

from ..nnvm.symbol import NodeEntry, Symbol

__all__ = ["fetched_strings", "pull_feeds", "string_feed"]


def pull_feeds(session, symbols, feeds: dict, timeout_ms: int = 0) -> tuple:
    """``feeds`` plus the values pulled for the FPullOutputs nodes this run of ``symbols``
    needs, each output fed through its input node (``session._feed_node``).  What only a fed
    tensor needs is not pulled: the feed cuts it off, as in TensorFlow.  ``timeout_ms`` (the
    run's ``timeout_in_ms``) bounds the waits of a pull (a queue's dequeue); a string fed (an
    array of bytes: :func:`string_feed`) is a value pulls read as pulled ones.  Returns the
    feeds, and the fetched entries pulled or fed as strings (a reader's key) with their
    values."""
    entries = tuple(e for s in symbols for e in s.outputs)
    fed = session._fed_among(feeds) if feeds else {}
    # pulled: this run's values, by entry; a string fed is one (only pulled ops read it)
    pulled = {e: feeds[n] for e, n in [*fed.items(), *((NodeEntry(n, 0), n) for n in feeds)]
              if type(feeds[n]) is np.ndarray}
    fed = frozenset(fed)  # the strings stay fed: a Python op may read them (Session._run_python)
    nodes = session._pulled.get((entries, fed))
    if nodes is None:
        nodes = session._pulled[entries, fed] = _pulled_nodes(entries, fed)
    if not nodes:
        return feeds, {e: v for e, v in pulled.items() if e in entries}
    feeds = dict(feeds)
    resources = session.variable_store.resources
    deadline = time.monotonic() + timeout_ms / 1000 if timeout_ms else None

    def evaluate(symbols):  # an entry pulled in this run gives its value (a reader's record);
        # the rest is run with this run's feeds and the values pulled so far (inputs first),
        # pulling what it needs that is not an input of this run's nodes (a one-shot
        # iterator's captured tf.io.matching_files)
        if all(s.outputs[0] in pulled for s in symbols):
            return [pulled[s.outputs[0]] for s in symbols]
        inner, strings = pull_feeds(session, symbols, feeds, timeout_ms)
        return fetched_strings(symbols, strings, lambda rest: session._run_symbols(
            rest, inner, timeout_ms=timeout_ms))

    for node in nodes:
        values = node.op.attr("FPullOutputs")(node, resources, evaluate, deadline)
        for index, value in enumerate(values):
            array = np.asarray(value)  # a 0-d element stays 0-d
            pulled[NodeEntry(node, index)] = array
            feed_node = session._feed_node(Symbol([NodeEntry(node, index)]))
            if feed_node in feeds:  # an output the user fed keeps the fed value
                continue
            # strings are fed as a string placeholder's are (an array of bytes), read by pulled
            # or Python ops alone (a queue's enqueue of a dequeued string)
            feeds[feed_node] = array if array.dtype == object else torch.from_numpy(
                array if array.flags.c_contiguous else array.copy())
    return feeds, {e: v for e, v in pulled.items() if v.dtype == object and e in entries}


def fetched_strings(symbols, strings, run) -> list:
    """The fetches' values: a string pulled in this run (``strings``) as it was pulled, the
    rest from ``run(the rest)``."""
    pulled = [len(s.outputs) == 1 and s.outputs[0] in strings for s in symbols]
    rest = iter(run([s for s, p in zip(symbols, pulled) if not p]) if not all(pulled) else [])
    return [strings[s.outputs[0]][()] if p else next(rest) for s, p in zip(symbols, pulled)]


def _pulled_nodes(entries, fed) -> list:
    """The nodes with FPullOutputs among what ``entries`` depend on (inputs and control
    dependencies, not through the ``fed`` entries), inputs first (``tf.decode_raw`` of a
    reader's record after the reader), else in the order a depth-first walk from the first
    fetch meets them."""
    found, seen = [], set()
    stack = [(e.node, False) for e in reversed(entries) if e not in fed]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            found.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        if node.op is not None and node.op.attr("FPullOutputs") is not None:
            stack.append((node, True))
        stack.extend((n, False) for n in reversed(
            [e.node for e in node.inputs if e not in fed] + list(node.control_deps)))
    return found


def string_feed(what: str, value) -> np.ndarray:
    """A feed of a string placeholder as an array of bytes (a str as its UTF-8 bytes), or
    TypeError naming it (``what``)."""
    array = np.array(value, dtype=object)  # a copy: the user's array keeps its str
    flat = array.reshape(-1)
    for index, item in enumerate(flat):
        if isinstance(item, str):
            flat[index] = item.encode()
        elif not isinstance(item, bytes):
            raise TypeError(f"{what} must be strings (bytes or str), got "
                            f"{type(item).__name__}")
    return array
