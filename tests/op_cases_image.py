"""test_ops' table for the image ops (tinyflow/ops/image.py): non_max_suppression against a
plain greedy loop (by score, ties the lower index first, IoU from the corners in either order,
zero-area boxes never suppressing), boxes and overlaps, padded outputs; no gradient (TF has
none).  TF's own numbers are checked in tests/test_tf_image_boxes.py."""
import numpy as np
import torch

from tinyflow.nnvm.symbol import create_op

F64 = torch.float64


def _similarity(boxes, i, j, overlaps):
    if overlaps:
        return boxes[i, j]
    a, b = boxes[i], boxes[j]
    area = lambda r: abs(r[2] - r[0]) * abs(r[3] - r[1])
    if area(a) <= 0 or area(b) <= 0:
        return 0.0
    inter = [max(min(max(a[k], a[k + 2]), max(b[k], b[k + 2]))
                 - max(min(a[k], a[k + 2]), min(b[k], b[k + 2])), 0) for k in (0, 1)]
    inter = inter[0] * inter[1]
    return inter / (area(a) + area(b) - inter)


def _nms_ref(limit, threshold, floor, overlaps):
    def ref(boxes, scores):
        b, s = boxes.numpy().astype(np.float32), scores.numpy().astype(np.float32)
        kept = []
        for i in sorted(range(len(s)), key=lambda i: (-s[i], i)):
            if len(kept) < limit and s[i] > floor and all(
                    _similarity(b, i, k, overlaps) <= threshold for k in kept):
                kept.append(i)
        indices, values = np.zeros(limit), np.zeros(limit)
        indices[:len(kept)], values[:len(kept)] = kept, s[kept]
        return (torch.tensor(indices, dtype=F64), torch.tensor(values, dtype=F64),
                torch.tensor(float(len(kept)), dtype=F64))
    return ref


def _boxes(rng, n=9):
    corners = rng.random((n, 2))
    boxes = np.concatenate([corners, corners + rng.random((n, 2)) / 2], 1)
    boxes[1] = boxes[1][[2, 3, 0, 1]]  # corners in the other order
    boxes[2, 2] = boxes[2, 0]  # no area
    scores = rng.random(n)
    scores[4] = scores[3]  # a tie
    return [boxes, scores]


def add_cases(add):
    """boxes with every limit (none, some, more than the boxes), thresholds on IoU and on the
    scores; an overlaps matrix."""
    for limit, threshold, floor in ((4, 0.5, -np.inf), (12, 0.2, 0.3), (0, 0.5, -np.inf)):
        add("non_max_suppression", f"boxes-{limit}-{threshold}-{floor}",
            lambda b, s, m=limit, t=threshold, f=floor: create_op(
                "non_max_suppression", b, s, max_output_size=m, threshold=t,
                score_threshold=f, overlaps=False),
            ref=_nms_ref(limit, threshold, floor, False), inputs=_boxes, check_gradient=False)
    add("non_max_suppression", "overlaps", lambda o, s: create_op(
        "non_max_suppression", o, s, max_output_size=5, threshold=0.4,
        score_threshold=0.1, overlaps=True), ref=_nms_ref(5, 0.4, 0.1, True),
        inputs=lambda rng: [rng.random((6, 6)), rng.random(6)], check_gradient=False)
