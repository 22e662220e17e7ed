"""The passes binding a graph runs, declared once: :data:`PIPELINE`, in the order they run.

Each stage is a registered pass, its kind and when it runs.  *Core* stages are the engine a
reader learns from: fed tensors made inputs (CutFeeds), shape arguments folded
(FoldShapeArguments), shapes and types, shape-only inputs cut (MaterializeShapes), every reader
of a variable before its writers (OrderMutation), storage planned (PlanMemory).  The others are
*optimisations*: the same values for less time or memory; ``tf.Session(optimize=False)`` runs
the core alone.  Gradient is core too, but runs when the graph is built (``tf.gradients``).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

__all__ = ["CORE", "OPTIMISATION", "PIPELINE", "Stage", "bind_passes"]

CORE, OPTIMISATION = "core", "optimisation"


def always(options, hinted: bool) -> bool:
    """Whatever the options (an optimisation among these still needs ``optimize``)."""
    return True


def on_cpu(options, hinted: bool) -> bool:
    """oneDNN's fused convolutions and channels-last layouts; the GPU keeps contiguous tensors."""
    return options.device_type == "cpu"


def fusing(options, hinted: bool) -> bool:
    """``config='cpu fusion'`` (or ``fusion-eager``, ``gpu fusion``)."""
    return options.fusion is not None


def recomputing(options, hinted: bool) -> bool:
    """A ``memory=`` policy, or ``tf.recompute_scope`` hints in the graph (``hinted``)."""
    return options.memory_policy is not None or hinted


class Stage(NamedTuple):
    """One pass of the bind pipeline."""

    name: str                                   # the pass, as registered (nnvm/passes/)
    kind: str                                   # CORE or OPTIMISATION
    when: Callable[[object, bool], bool]        # (session options, recompute hints?) -> runs?


PIPELINE = (
    #     pass                    kind          runs when
    # (Gradient, core, has run already: tf.gradients and minimize build the backward graph)
    Stage("CutFeeds",             CORE,         always),  # first: the checks see the cut graph
    Stage("FoldShapeArguments",   CORE,         always),
    Stage("InferShape",           CORE,         always),
    Stage("InferType",            CORE,         always),
    Stage("MaterializeShapes",    CORE,         always),
    Stage("PoolBeforeActivation", OPTIMISATION, always),
    Stage("Mirror",               OPTIMISATION, recomputing),
    Stage("FuseElemwise",         OPTIMISATION, fusing),  # after Mirror: recomputed ops fuse too
    Stage("FuseConvActivation",   OPTIMISATION, on_cpu),
    Stage("PruneArgmax",          OPTIMISATION, on_cpu),
    Stage("KeepOneStep",          OPTIMISATION, always),
    Stage("OrderMutation",        CORE,         always),
    Stage("ChooseLayout",         OPTIMISATION, on_cpu),
    Stage("PlanMemory",           CORE,         always),
)


def bind_passes(options, hinted: bool = False) -> list[str]:
    """The names of the passes an executor runs at bind, in order.

    Parameters
    ----------
    options : tinyflow.session.options.SessionOptions
        The session's options (``device_type``, ``fusion``, ``memory_policy``, ``optimize``).
    hinted : bool
        The graph has ``tf.recompute_scope`` hints (the Mirror pass runs without a policy).
    """
    return [stage.name for stage in PIPELINE
            if (stage.kind == CORE or options.optimize) and stage.when(options, hinted)]
