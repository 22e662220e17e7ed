"""Kernels of the image bodies (tinyflow/ops/image.py): greedy non-maximum suppression, alone
and per class of a batch (combined), on the host in float32 as TF's CPU kernels compute it."""
from __future__ import annotations

import numpy as np
import torch

__all__ = ["combined_non_max_suppression", "non_max_suppression"]


def _iou_with(boxes, areas, i) -> np.ndarray:
    """TF's IOU of box ``i`` with every box (corners in any order; 0 where an area is not
    positive)."""
    low, high = np.minimum(boxes[:, :2], boxes[:, 2:]), np.maximum(boxes[:, :2], boxes[:, 2:])
    inner = np.maximum(np.minimum(high[i], high) - np.maximum(low[i], low), np.float32(0))
    inter = inner[:, 0] * inner[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (areas[i] + areas - inter)
    return np.where((areas[i] > 0) & (areas > 0), iou, np.float32(0))


def _greedy(table, score, limit, threshold, floor, overlaps) -> list:
    """The indices kept greedily by score (ties: lower index first), none whose similarity
    to a kept one is above threshold, at most limit (numpy float32 in, as TF's CPU kernel)."""
    areas = None if overlaps else (np.abs(table[:, 2] - table[:, 0])
                                   * np.abs(table[:, 3] - table[:, 1]))
    order = np.argsort(-score, kind="stable")
    order = order[score[order] > np.float32(floor)]  # NaN scores are never candidates
    suppressed = np.zeros(score.shape[0], bool)
    kept = []
    for i in order:
        if len(kept) >= int(limit):
            break
        if suppressed[i]:
            continue
        kept.append(int(i))
        similar = table[:, i] if overlaps else _iou_with(table, areas, i)
        suppressed |= similar > np.float32(threshold)
    return kept


def _host(tensor) -> np.ndarray:
    return tensor.detach().to("cpu", torch.float32).numpy()


def non_max_suppression(indices, kept_scores, count, boxes, scores, limit, threshold, floor,
                        overlaps) -> None:
    """indices[:k], kept_scores[:k] = the boxes kept greedily (``_greedy``); zeros after;
    count = k."""
    kept = _greedy(_host(boxes), _host(scores), limit, threshold, floor, overlaps)
    indices.zero_()
    kept_scores.zero_()
    if kept:
        where = torch.tensor(kept, dtype=torch.int64)
        indices[:len(kept)] = where.to(indices.device, indices.dtype)
        kept_scores[:len(kept)] = scores.detach()[where.to(scores.device)]
    count.fill_(len(kept))


def combined_non_max_suppression(out_boxes, out_scores, out_classes, valid, boxes, scores,
                                 per_class, total, threshold, floor, clip) -> None:
    """TF 1.15's CombinedNonMaxSuppression: per image, each class's boxes kept greedily (at
    most per_class), all of them by score (ties: class, then box order), the first of them
    (out_boxes' length) written, clipped to [0, 1] with clip, zeros after; valid = how many."""
    table, score = _host(boxes), _host(scores)  # [batch, n, q, 4], [batch, n, classes]
    for tensor in (out_boxes, out_scores, out_classes):
        tensor.zero_()
    rows = out_boxes.shape[1]
    for image in range(score.shape[0]):
        found = []
        for label in range(score.shape[2]):
            candidates = table[image, :, label if table.shape[2] > 1 else 0]
            for i in _greedy(candidates, score[image, :, label], per_class, threshold, floor,
                             False):
                found.append((-score[image, i, label], label, i))
        found = sorted(found)[:min(rows, int(total))]
        for row, (negative, label, i) in enumerate(found):
            box = table[image, i, label if table.shape[2] > 1 else 0]
            box = np.clip(box, 0, 1) if clip else box
            out_boxes[image, row] = torch.from_numpy(box.copy()).to(out_boxes.device)
            out_scores[image, row] = float(-negative)
            out_classes[image, row] = float(label)
        valid[image] = len(found)
