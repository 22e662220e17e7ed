"""One session's random streams (TensorFlow keeps one random stream per stateful op per session).

A seeded node's stream (``seed``, ``seed2`` attributes: TF's rule in
:meth:`~tinyflow.nnvm.symbol.GraphContext.op_seeds`) is a ``torch.Generator`` that lives in its
session's :class:`RandomStreams`, which the session's ``VariableStore`` holds
(``store.random_streams``), keyed by the node.  It is made the first time an executor of that
session binds the node, and seeded with :func:`stream_seed` ``(seed, seed2)``.  The executor hands
it to the node's Lua body as ``kwarg.generator``; every run of the body draws from it and so
advances it, whichever fetch set runs it.  A new session has new streams; ``Session.close`` drops
them.  A node without a seed draws from torch's global generator.
"""
from __future__ import annotations

import numpy as np

__all__ = ["RandomStreams", "stream_seed"]


def stream_seed(seed: int, seed2: int) -> int:
    """The 64-bit ``torch.Generator`` seed of a node seeded ``(seed, seed2)``.

    Both seeds are mixed by NumPy's ``SeedSequence``: torch's CPU generator (mt19937) keeps only
    the low 32 bits of its seed, so ``(seed << 31) + seed2`` would give graph seeds 2 and 4 one
    stream; mixed, every bit of both seeds reaches those 32.
    """
    # any int (a document's: negative, past 64 bits) as the uint64 TensorFlow's kernels take
    words = np.random.SeedSequence([int(seed) % 2 ** 64, int(seed2) % 2 ** 64]).generate_state(
        2, np.uint32)
    return int(words[0]) | int(words[1]) << 32


class RandomStreams:
    """One session's random streams: a ``torch.Generator`` per seeded random node.

    The session's ``VariableStore`` holds one; see the module docstring for the whole story.
    """

    def __init__(self) -> None:
        # node name -> torch.Generator: by name, since a pass that rewrites a node's inputs
        # (MaterializeShapes cutting a shape-only edge) binds a copy of it, the same op
        self._generators: dict = {}

    def generator(self, node, device):
        """The generator of ``node`` (a node with ``seed`` and ``seed2`` attributes) in this
        session, made and seeded with :func:`stream_seed` on first use."""
        generator = self._generators.get(node.name)
        if generator is None:
            import torch  # building graphs does not import torch

            generator = self._generators[node.name] = torch.Generator(device=device)
            generator.manual_seed(stream_seed(node.attrs["seed"], node.attrs.get("seed2", 0)))
        return generator

    def clear(self) -> None:
        """Forget every stream (a closing session)."""
        self._generators.clear()

    def __len__(self) -> int:
        return len(self._generators)
