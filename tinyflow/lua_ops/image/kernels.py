"""Kernels of the image bodies (tinyflow/ops/image.py): greedy non-maximum suppression, on the
host in float32 as TF's CPU kernel computes it."""
from __future__ import annotations

import numpy as np
import torch

__all__ = ["non_max_suppression"]


def _iou_with(boxes, areas, i) -> np.ndarray:
    """TF's IOU of box ``i`` with every box (corners in any order; 0 where an area is not
    positive)."""
    low, high = np.minimum(boxes[:, :2], boxes[:, 2:]), np.maximum(boxes[:, :2], boxes[:, 2:])
    inner = np.maximum(np.minimum(high[i], high) - np.maximum(low[i], low), np.float32(0))
    inter = inner[:, 0] * inner[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (areas[i] + areas - inter)
    return np.where((areas[i] > 0) & (areas > 0), iou, np.float32(0))


def non_max_suppression(indices, kept_scores, count, boxes, scores, limit, threshold, floor,
                        overlaps) -> None:
    """indices[:k], kept_scores[:k] = the boxes kept greedily by score (ties: lower index
    first), none whose similarity to a kept one is above threshold; zeros after; count = k."""
    score = scores.detach().to("cpu", torch.float32).numpy()
    table = boxes.detach().to("cpu", torch.float32).numpy()
    areas = None
    if not overlaps:
        areas = (np.abs(table[:, 2] - table[:, 0]) * np.abs(table[:, 3] - table[:, 1]))
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
    indices.zero_()
    kept_scores.zero_()
    if kept:
        where = torch.tensor(kept, dtype=torch.int64)
        indices[:len(kept)] = where.to(indices.device, indices.dtype)
        kept_scores[:len(kept)] = scores.detach()[where.to(scores.device)]
    count.fill_(len(kept))
