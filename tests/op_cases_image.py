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


def _combined_ref(per_class, total, threshold, floor, clip):
    def ref(boxes, scores):
        b, s = boxes.numpy().astype(np.float32), scores.numpy().astype(np.float32)
        batch, _, classes = s.shape
        out = [np.zeros((batch, total, 4)), np.zeros((batch, total)), np.zeros((batch, total)),
               np.zeros(batch)]
        for image in range(batch):
            found = []
            for label in range(classes):
                table = b[image, :, label if b.shape[2] > 1 else 0]
                kept = _nms_ref(per_class, threshold, floor, False)(
                    torch.tensor(table), torch.tensor(s[image, :, label]))
                count = int(kept[2])
                found += [(-s[image, int(i), label], label, int(i))
                          for i in kept[0][:count].tolist()]
            for row, (negative, label, i) in enumerate(sorted(found)[:total]):
                box = b[image, i, label if b.shape[2] > 1 else 0]
                out[0][image, row] = np.clip(box, 0, 1) if clip else box
                out[1][image, row], out[2][image, row] = -negative, label
            out[3][image] = min(len(found), total)
        return tuple(torch.tensor(o, dtype=F64) for o in out)
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
    for q, clip in ((1, True), (3, False)):
        add("combined_non_max_suppression", f"q={q}-clip={clip}", lambda b, s, c=clip: create_op(
            "combined_non_max_suppression", b, s, max_output_size_per_class=2, max_total_size=5,
            threshold=0.3, score_threshold=0.1, pad_per_class=False, clip_boxes=c),
            ref=_combined_ref(2, 5, 0.3, 0.1, clip), check_gradient=False,
            inputs=lambda rng, q=q: [np.concatenate([rng.random((2, 7, q, 2)),
                                                     rng.random((2, 7, q, 2)) + 0.6], -1),
                                     rng.random((2, 7, 3))])
