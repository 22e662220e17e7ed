"""Image ops of TensorFlow 1.15 that no composition of other ops gives: greedy non-maximum
suppression (TF's NonMaxSuppressionV3/V4/V5 and NonMaxSuppressionWithOverlaps; per image and
class, CombinedNonMaxSuppression).

``non_max_suppression`` takes boxes ``[n, 4]`` (or, attr ``overlaps``, an ``[n, n]`` matrix of
similarities) and their scores ``[n]``; the candidates are the boxes scoring above attr
``score_threshold``, visited by score (ties: the lower index first), each kept unless its IoU
(or overlap) with a box kept before is above attr ``threshold``, until attr
``max_output_size`` are kept.  Its outputs have a static shape: the kept indices (int32) and
their scores, each padded with zeros to ``max_output_size``, and how many were kept (int32
scalar); ``tf.image.non_max_suppression`` cuts the first two at the count.
``combined_non_max_suppression`` runs it per image ``[batch, n, q, 4]`` and class (scores
``[batch, n, classes]``; q is 1 or the classes) and writes the kept boxes of all classes by
score, padded.  No gradient (TF has none).  Body: ``tinyflow/lua_ops/image/``.
"""
from __future__ import annotations

import numbers

from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op

__all__ = []


def _fits(dim, want) -> bool:
    return dim is None or want is None or dim == want


def _nms_shape(attrs, in_shapes, out_shapes):
    boxes, scores = in_shapes
    limit = attrs.get("max_output_size")
    if not isinstance(limit, numbers.Integral) or isinstance(limit, bool) or limit < 0:
        raise ShapeError(f"non_max_suppression: max_output_size must be a non-negative int, "
                         f"got {limit!r}")
    if scores is not None and len(scores) != 1:
        raise ShapeError(f"non_max_suppression: scores must be 1-D, got shape {scores}")
    overlaps = bool(attrs.get("overlaps"))
    what, want = ("overlaps", "[n, n]") if overlaps else ("boxes", "[n, 4]")
    if boxes is not None:
        n = scores[0] if scores is not None else None
        n = boxes[0] if n is None and len(boxes) == 2 else n
        if len(boxes) != 2 or not (_fits(boxes[0], n) and _fits(boxes[1], n if overlaps else 4)):
            raise ShapeError(f"non_max_suppression: {what} must be {want} for scores of n, got "
                             f"{what} {boxes} and scores {scores}")
    return in_shapes, [(limit,), (limit,), ()]


def _nms_type(attrs, in_types, out_types):
    for dtype, what in zip(in_types, ("boxes", "scores")):
        if dtype is not None and dtype not in ("float16", "float32"):
            raise TypeError(f"non_max_suppression: {what} must be float32 or float16, got "
                            f"{dtype}")
    return in_types, ["int32", in_types[1], "int32"]


(register_op("non_max_suppression")
 .describe("Greedy non-maximum suppression: the indices of the boxes kept (by score, none "
           "whose IoU with a kept one is above attr threshold) and their scores, padded with "
           "zeros to attr max_output_size, and how many were kept.")
 .set_num_inputs(2).set_num_outputs(3)
 .set_attr("FInferShape", _nms_shape).set_attr("FInferType", _nms_type)
 .set_attr("TUncapturable", True)  # reads the scores on the host
 .set_attr("TTFType", "NonMaxSuppressionV5"))


def _combined_shape(attrs, in_shapes, out_shapes):
    boxes, scores = in_shapes
    per_class, total = attrs.get("max_output_size_per_class"), attrs.get("max_total_size")
    for value, what in ((per_class, "max_output_size_per_class"), (total, "max_total_size")):
        if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 0:
            raise ShapeError(f"combined_non_max_suppression: {what} must be a non-negative "
                             f"int, got {value!r}")
    if scores is not None and len(scores) != 3:
        raise ShapeError(f"combined_non_max_suppression: scores must be [batch, boxes, "
                         f"classes], got {scores}")
    if boxes is not None and (len(boxes) != 4 or boxes[3] not in (4, None) or scores is not None
                              and not (_fits(boxes[0], scores[0]) and _fits(boxes[1], scores[1])
                                       and boxes[2] in (1, scores[2], None))):
        raise ShapeError(f"combined_non_max_suppression: boxes must be [batch, boxes, 1 or "
                         f"classes, 4] for scores [batch, boxes, classes], got boxes {boxes} "
                         f"and scores {scores}")
    batch = scores[0] if scores is not None else (boxes[0] if boxes is not None else None)
    classes = scores[2] if scores is not None else None
    if batch is None or classes is None:
        return in_shapes, list(out_shapes)
    rows = min(per_class * classes, total) if attrs.get("pad_per_class") else total
    return in_shapes, [(batch, rows, 4), (batch, rows), (batch, rows), (batch,)]


def _combined_type(attrs, in_types, out_types):
    for dtype, what in zip(in_types, ("boxes", "scores")):
        if dtype is not None and dtype != "float32":
            raise TypeError(f"combined_non_max_suppression: {what} must be float32, got {dtype}")
    return in_types, ["float32", "float32", "float32", "int32"]


(register_op("combined_non_max_suppression")
 .describe("non_max_suppression per image and class (attr max_output_size_per_class each), "
           "the kept boxes of all classes by score, the first attr max_total_size (or, attr "
           "pad_per_class, fewer) written with their scores and classes, zeros after, and how "
           "many per image.")
 .set_num_inputs(2).set_num_outputs(4)
 .set_attr("FInferShape", _combined_shape).set_attr("FInferType", _combined_type)
 .set_attr("TUncapturable", True)  # reads the scores on the host
 .set_attr("TTFType", "CombinedNonMaxSuppression"))
