"""What an ``input_fn`` gives the Estimator, and ``tf.estimator.inputs``: ``numpy_input_fn``."""
from __future__ import annotations

__all__ = ["parse_input_fn_result"]


def parse_input_fn_result(result) -> tuple:
    """``(features, labels, hooks)`` of what an ``input_fn`` returned: a ``(features, labels)``
    pair, or features alone (labels None)."""
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return result[0], result[1], []
    return result, None, []
