"""``tf.config.threading``: the thread counts of the sessions a program makes from now on
without a ``ConfigProto`` (TensorFlow's context configuration, which such a session takes).

``set_intra_op_parallelism_threads(N)``, N > 0, runs those sessions' steps on N of torch's
threads, fixed, as ``ConfigProto(intra_op_parallelism_threads=N)`` does; 0 (the default) lets
each executor choose between torch's count and one by timing its runs (docs/performance.md,
"Threads: what you can set").  The inter-op count is recorded and reported: TinyFlow runs the
ops of a step one after the other.  TensorFlow refuses a change once its runtime started;
TinyFlow has no such moment: a change applies to the sessions made after it.
"""
from __future__ import annotations

from ...session.options import ThreadDefaults
from ..unsupported import unsupported

__all__ = ["get_inter_op_parallelism_threads", "get_intra_op_parallelism_threads",
           "set_inter_op_parallelism_threads", "set_intra_op_parallelism_threads"]


def _count(num_threads, what: str) -> int:
    if isinstance(num_threads, bool) or not isinstance(num_threads, int):
        raise TypeError(f"tf.config.threading.set_{what}_parallelism_threads: num_threads "
                        f"must be an int, got {num_threads!r}")
    return num_threads


def get_intra_op_parallelism_threads() -> int:
    """The intra-op count sessions made without a ConfigProto take (0: chosen by TinyFlow)."""
    return ThreadDefaults.intra_op


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Run the steps of sessions made from now on without a ConfigProto on ``num_threads`` of
    torch's threads (0 or less: each executor chooses, as by default)."""
    ThreadDefaults.intra_op = _count(num_threads, "intra_op")


def get_inter_op_parallelism_threads() -> int:
    """The inter-op count recorded (0: the default)."""
    return ThreadDefaults.inter_op


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Record the inter-op count; TinyFlow runs a step's ops one after the other."""
    ThreadDefaults.inter_op = _count(num_threads, "inter_op")


def __getattr__(name):
    raise unsupported("tf.config.threading.", "tinyflow.config.threading", name,
                      {"tf.config.threading.": __all__})
