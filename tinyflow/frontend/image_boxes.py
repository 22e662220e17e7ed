"""``tf.image``'s functions of boxes: TensorFlow 1.15's ``crop_and_resize``,
``draw_bounding_boxes`` and ``sample_distorted_bounding_box``, composed from the ops users
write, and its non-maximum suppressions on the ``non_max_suppression`` and
``combined_non_max_suppression`` ops (``tinyflow/ops/image.py``).

The boxes are tensors, read at run time: ``crop_and_resize`` builds each box's interpolation
weights from them (``relu(1 - |position - row|)`` is bilinear's weight of input row ``row``
at source position ``position``), so a crop is two einsums and its gradient, w.r.t. the image
and the boxes, theirs.  ``draw_bounding_boxes`` finds, for each pixel, the last box whose
outline passes through it and takes that box's colour (TF's kernel draws the boxes in order,
the later over the earlier).  ``sample_distorted_bounding_box`` draws all of TF's attempts at
once and keeps the first that fits.  The images' height and width (and crop_and_resize's
batch) must be known when the graph is built.
"""
from __future__ import annotations

import collections

import numpy as np

from ..nnvm.symbol import create_op, current_context
from ..nnvm.variables import constant
from .api import (
    abs,
    argmax,
    cast,
    control_dependencies,
    equal,
    greater_equal,
    identity,
    less_equal,
    logical_and,
    logical_or,
    maximum,
    minimum,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_sum,
    sqrt,
    where,
)
from .array_ops import (
    boolean_mask,
    expand_dims,
    gather,
    pad,
    reshape,
    stack,
    tile,
    unstack,
    zeros_like,
)
from .array_ops import range as _range
from .control_flow_ops import Assert
from .dtypes import float32, int32
from .image_ops import _height_width, _image, _int, _number
from .linalg_ops import einsum
from .math_ops import convert_to_tensor, cumsum, floor, round
from .nn.functions import relu
from .random_ops import random_uniform

__all__ = ["combined_non_max_suppression", "crop_and_resize", "draw_bounding_boxes",
           "non_max_suppression", "non_max_suppression_overlaps", "non_max_suppression_padded",
           "non_max_suppression_with_scores", "sample_distorted_bounding_box"]

# TF 1.15's DrawBoundingBoxes colours (RGBA), cycled through when ``colors`` is None
_COLOURS = [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
            [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]]


def _boxes(boxes, function, rank):
    boxes = convert_to_tensor(boxes, name="boxes")
    shape = boxes.get_shape()
    if shape.ndims != rank or shape.as_list()[-1] not in (4, None):
        raise ValueError(f"{function}: boxes must be {rank}-dimensional, the last axis 4 "
                         f"(y_min, x_min, y_max, x_max), got shape {shape}")
    return cast(boxes, float32) if boxes.dtype != float32 else boxes


def _crop_weights(low, high, size, crop, nearest):
    """``(weights [boxes, crop, size], inside [boxes, crop])`` along one axis: TF's source
    positions ``low * (size - 1) + i * (high - low) * (size - 1) / (crop - 1)`` (the centre
    for a crop of 1) and whether each lies inside the image."""
    steps = constant(np.arange(crop, dtype=np.float32))
    if crop > 1:
        position = (expand_dims(low * (size - 1), 1)
                    + steps * expand_dims((high - low) * (size - 1) / (crop - 1), 1))
    else:
        position = expand_dims(0.5 * (low + high) * (size - 1), 1)
    position = expand_dims(position, 2)  # [boxes, crop, 1] against the rows [size]
    rows = constant(np.arange(size, dtype=np.float32))
    if nearest:  # TF's roundf, half away from 0; the positions used are >= 0
        weights = cast(equal(floor(position + 0.5), rows), float32)
    else:
        weights = relu(1 - abs(position - rows))
    inside = logical_and(greater_equal(position[:, :, 0], 0.0),
                         less_equal(position[:, :, 0], float(size - 1)))
    return weights, cast(inside, float32)


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear",
                    extrapolation_value=0, name=None, box_indices=None):
    """Crops of ``image`` ``[batch, height, width, channels]`` at ``boxes`` ``[num_boxes, 4]``
    (normalised ``y1, x1, y2, x2``; ``y1 > y2`` flips the crop), each from image
    ``box_ind[i]``, resized to ``crop_size`` (two Python ints) by bilinear or nearest
    interpolation as TF 1.15's CropAndResize: float32 ``[num_boxes, crop_height, crop_width,
    channels]``, a position outside the image ``extrapolation_value``.  Differentiable
    w.r.t. the image and the boxes; a ``box_ind`` outside ``[0, batch)`` is the gather's
    error naming it."""
    function = "crop_and_resize"
    box_ind = box_indices if box_ind is None else box_ind
    if box_ind is None or crop_size is None:
        raise TypeError(f"{function}: box_ind and crop_size are required")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"{function}: method must be 'bilinear' or 'nearest', got {method!r}")
    image = _image(image, function, ranks=(4,))
    height, width = _height_width(image, function)
    batch = image.get_shape().as_list()[0]
    if batch is None:
        raise ValueError(f"{function}: TinyFlow needs the image's batch size known when the "
                         f"graph is built, got shape {image.get_shape()}")
    rows, cols = (_int(s, "crop_size's entries", function) for s in crop_size)
    if rows <= 0 or cols <= 0:
        raise ValueError(f"{function}: crop_size must be positive, got {list(crop_size)}")
    with current_context().name_scope(name or "CropAndResize"):
        boxes = _boxes(boxes, function, 2)
        box_ind = convert_to_tensor(box_ind, name="box_ind")
        # row i of the identity is image i's one-hot: gather checks box_ind's range
        which = gather(constant(np.eye(batch, dtype=np.float32)), box_ind)
        y1, x1, y2, x2 = unstack(boxes, axis=1)
        along_h, inside_h = _crop_weights(y1, y2, height, rows, method == "nearest")
        along_w, inside_w = _crop_weights(x1, x2, width, cols, method == "nearest")
        image = cast(image, float32) if image.dtype != float32 else image
        crops = einsum("bn,bih,nhwc->biwc", which, along_h, image)
        crops = einsum("bjw,biwc->bijc", along_w, crops)
        inside = reshape(inside_h, [-1, rows, 1, 1]) * reshape(inside_w, [-1, 1, cols, 1])
        return crops * inside + (1 - inside) * float(extrapolation_value)


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """``images`` ``[batch, height, width, depth]`` (depth 1, 3 or 4) with the outlines of
    ``boxes`` ``[batch, num_boxes, 4]`` (normalised ``y_min, x_min, y_max, x_max``) drawn one
    pixel wide, as TF 1.15's DrawBoundingBoxes: corners at ``int(y * (height - 1))`` (toward
    zero), the box cut at the image's border (a side outside the image is not drawn), box j
    in ``colors[j % len(colors)]`` (default TF's ten), later boxes over earlier ones."""
    function = "draw_bounding_boxes"
    images = _image(images, function, ranks=(4,))
    height, width = _height_width(images, function)
    depth = images.get_shape().as_list()[-1]
    if not images.dtype.is_floating:
        raise TypeError(f"{function}: the images must be float (TF 1.15's kernel's), got "
                        f"{images.dtype.name}")
    if depth not in (1, 3, 4):
        raise ValueError(f"{function}: the images' depth must be 1, 3 or 4, got shape "
                         f"{images.get_shape()}")
    table = np.asarray(_COLOURS if colors is None else colors, np.float32)
    if table.ndim != 2 or table.shape[1] < depth or not len(table):
        raise ValueError(f"{function}: colors must be a list of at least one colour of "
                         f"{depth} or more channels, got shape {table.shape}")
    with current_context().name_scope(name or "DrawBoundingBoxes"):
        corners = cast(_boxes(boxes, function, 3) * [height - 1, width - 1, height - 1,
                                                     width - 1], int32)  # toward zero
        top, left, bottom, right = (expand_dims(expand_dims(c, 2), 3)
                                    for c in unstack(corners, axis=2))  # [batch, boxes, 1, 1]
        row = constant(np.arange(height, dtype=np.int32).reshape(height, 1))
        col = constant(np.arange(width, dtype=np.int32).reshape(1, width))
        in_cols = logical_and(greater_equal(col, maximum(left, 0)),
                              less_equal(col, minimum(right, width - 1)))
        in_rows = logical_and(greater_equal(row, maximum(top, 0)),
                              less_equal(row, minimum(bottom, height - 1)))
        outline = logical_or(
            logical_and(logical_or(equal(row, top), equal(row, bottom)), in_cols),
            logical_and(logical_or(equal(col, left), equal(col, right)), in_rows))
        drawn = logical_and(outline, logical_and(less_equal(top, bottom),
                                                 less_equal(left, right)))
        ones = cast(greater_equal(corners[0:1, :, 0], -(2 ** 30)), int32)  # [1, boxes] of 1s
        numbers = expand_dims(expand_dims(cumsum(ones, axis=1), 2), 3)  # 1, 2, ... per box
        number = cast(drawn, int32) * numbers  # [batch, boxes, height, width]
        number = pad(number, [[0, 0], [1, 0], [0, 0], [0, 0]])  # a 0 for no box at all
        last = reduce_max(number, axis=1)  # the last box drawn at each pixel, 1-based; 0: none
        ink = np.concatenate([np.zeros((1, depth), np.float32), table[:, :depth]])
        colour = gather(constant(ink), where(last > 0, (last - 1) % len(table) + 1, last))
        colour = cast(colour, images.dtype) if images.dtype != float32 else colour
        # a pixel some box's outline passes through takes the last such box's colour
        return where(tile(expand_dims(last > 0, 3), [1, 1, 1, depth]), colour, images)



# -- non-maximum suppression ------------------------------------------------------------------
def _suppress(boxes, scores, max_output_size, threshold, score_threshold, overlaps, function):
    """The ``non_max_suppression`` op's (indices, scores, count), its outputs padded to
    ``max_output_size`` (a Python int)."""
    limit = _int(max_output_size, "max_output_size", function)
    if limit < 0:
        raise ValueError(f"{function}: max_output_size must be non-negative, got {limit}")
    threshold = _number(threshold, "the threshold", function)
    if not overlaps and not 0 <= threshold <= 1:
        raise ValueError(f"{function}: iou_threshold must be in [0, 1], got {threshold}")
    what = "overlaps" if overlaps else "boxes"
    return create_op("non_max_suppression", convert_to_tensor(boxes, name=what),
                     convert_to_tensor(scores, name="scores"), max_output_size=limit,
                     threshold=threshold, overlaps=overlaps,
                     score_threshold=_number(score_threshold, "score_threshold", function))


def _kept(padded, count, limit):
    """The first ``count`` (a run-time scalar) elements of ``padded`` (``limit`` long): a shape
    known once it ran, as tf.boolean_mask's."""
    mask = _range(limit) < count
    mask.set_shape([limit])  # known even where a placeholder's stand-in dims hide it
    return boolean_mask(padded, mask)


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """The indices (int32, at most ``max_output_size``, a Python int) of the boxes ``[n, 4]``
    (corners in either order) TF 1.15's greedy non-maximum suppression keeps: by score, ties
    the lower index first, scores above ``score_threshold`` only, none whose IoU with a box
    kept before is above ``iou_threshold``.  Its length is known once it ran."""
    with current_context().name_scope(name or "non_max_suppression"):
        indices, _, count = _suppress(boxes, scores, max_output_size, iou_threshold,
                                      score_threshold, False, "non_max_suppression")
        return _kept(indices, count, max_output_size)


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """``(indices, their scores)`` of :func:`non_max_suppression` (hard suppression only:
    TinyFlow has no soft-NMS, ``soft_nms_sigma`` must be 0)."""
    if _number(soft_nms_sigma, "soft_nms_sigma", "non_max_suppression_with_scores") != 0:
        raise ValueError("non_max_suppression_with_scores: TinyFlow has no soft-NMS: "
                         "soft_nms_sigma must be 0")
    with current_context().name_scope(name or "non_max_suppression_with_scores"):
        indices, kept, count = _suppress(boxes, scores, max_output_size, iou_threshold,
                                         score_threshold, False,
                                         "non_max_suppression_with_scores")
        return _kept(indices, count, max_output_size), _kept(kept, count, max_output_size)


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """:func:`non_max_suppression` given the boxes' similarities ``overlaps`` ``[n, n]``
    instead of boxes: a candidate is dropped when ``overlaps[candidate, kept]`` is above
    ``overlap_threshold`` for a box kept before."""
    with current_context().name_scope(name or "non_max_suppression_overlaps"):
        indices, _, count = _suppress(overlaps, scores, max_output_size, overlap_threshold,
                                      score_threshold, True, "non_max_suppression_overlaps")
        return _kept(indices, count, max_output_size)


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None):
    """``(indices, valid_outputs)`` of :func:`non_max_suppression`: with
    ``pad_to_max_output_size`` the indices padded with zeros to ``max_output_size``."""
    with current_context().name_scope(name or "non_max_suppression_padded"):
        indices, _, count = _suppress(boxes, scores, max_output_size, iou_threshold,
                                      score_threshold, False, "non_max_suppression_padded")
        if not pad_to_max_output_size:
            indices = _kept(indices, count, max_output_size)
        return indices, count


CombinedNonMaxSuppression = collections.namedtuple(
    "CombinedNonMaxSuppression", "nmsed_boxes nmsed_scores nmsed_classes valid_detections")


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True, name=None):
    """TF 1.15's non-maximum suppression per image and class: boxes ``[batch, n, q, 4]`` (q
    1, shared by the classes, or one box per class), scores ``[batch, n, classes]``; each
    class keeps at most ``max_output_size_per_class`` (a Python int) by
    :func:`non_max_suppression`'s rule, and the kept boxes of all classes, by score, fill
    ``max_total_size`` rows (with ``pad_per_class``, at most ``max_output_size_per_class *
    classes``): ``(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)``, zeros past
    each image's ``valid_detections``, the boxes clipped to [0, 1] with ``clip_boxes``."""
    function = "combined_non_max_suppression"
    per_class = _int(max_output_size_per_class, "max_output_size_per_class", function)
    total = _int(max_total_size, "max_total_size", function)
    threshold = _number(iou_threshold, "iou_threshold", function)
    if not 0 <= threshold <= 1:
        raise ValueError(f"{function}: iou_threshold must be in [0, 1], got {threshold}")
    with current_context().name_scope(name or "combined_non_max_suppression"):
        result = create_op(function, convert_to_tensor(boxes, name="boxes"),
                           convert_to_tensor(scores, name="scores"),
                           max_output_size_per_class=per_class, max_total_size=total,
                           threshold=threshold, pad_per_class=bool(pad_per_class),
                           clip_boxes=bool(clip_boxes),
                           score_threshold=_number(score_threshold, "score_threshold", function))
        return CombinedNonMaxSuppression(*(result[i] for i in range(4)))


# -- random crops covering boxes --------------------------------------------------------------
_NO_BOXES = ("No bounding boxes provided as input. One must enable "
             "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.")


def _random_crops(height, width, uniforms, area_range, ratio_range):
    """TF 1.15's GenerateRandomCrop for every attempt at once (float32, lrintf as tf.round):
    ``(y, x, crop height, crop width, valid)``, each ``[attempts]``."""
    ratio = uniforms[:, 0] * (ratio_range[1] - ratio_range[0]) + ratio_range[0]
    min_area, max_area = area_range[0] * width * height, area_range[1] * width * height
    max_height = round(sqrt(max_area / ratio))
    max_height = where(round(max_height * ratio) > width,
                       floor((width + (0.5 - 1e-7)) / ratio), max_height)
    max_height = minimum(max_height, height)
    rows = minimum(round(sqrt(min_area / ratio)), max_height)
    rows = rows + floor(uniforms[:, 1] * (max_height - rows + 1))
    for step, wrong in ((1.0, lambda area: area < min_area), (-1.0, lambda area: area > max_area)):
        cols = round(rows * ratio)
        rows = where(wrong(rows * cols), rows + step, rows)  # TF's rounding-error retries
    cols = round(rows * ratio)
    area = rows * cols
    valid = logical_and(logical_and(greater_equal(area, min_area), less_equal(area, max_area)),
                        logical_and(logical_and(cols <= width, rows <= height),
                                    logical_and(cols > 0, rows > 0)))
    top = floor(uniforms[:, 2] * maximum(height - rows, 0))
    left = floor(uniforms[:, 3] * maximum(width - cols, 0))
    return top, left, rows, cols, valid


def _covers(crop, boxes, min_object_covered):
    """``[attempts]``: whether a crop covers ``min_object_covered`` of some box of area >= 1
    (boxes ``[n, 4]`` in pixels, TF's Rectangle arithmetic)."""
    top, left, rows, cols = (expand_dims(c, 1) for c in crop)  # [attempts, 1] against [n]
    y0, x0, y1, x1 = unstack(boxes, axis=1)
    area = (y1 - y0) * (x1 - x0)
    inner_h = minimum(top + rows, y1) - maximum(top, y0)
    inner_w = minimum(left + cols, x1) - maximum(left, x0)
    inner = where(logical_or(inner_h < 0, inner_w < 0), zeros_like(inner_h), inner_h * inner_w)
    covered = logical_and(greater_equal(area, 1.0),
                          greater_equal(inner / maximum(area, 1.0), min_object_covered))
    return reduce_any(covered, axis=1)


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None,
                                  min_object_covered=0.1, aspect_ratio_range=None,
                                  area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """TF 1.15's random crop for data augmentation: up to ``max_attempts`` (default 100) crops
    of an image of ``image_size`` ``[height, width, channels]`` are drawn (aspect ratio
    uniform in ``aspect_ratio_range``, default [0.75, 1.33]; area a fraction of the image in
    ``area_range``, default [0.05, 1], TF's rounding and retries), the first covering
    ``min_object_covered`` of one of ``bounding_boxes`` ``[batch, n, 4]`` (normalised ``y_min,
    x_min, y_max, x_max``) kept, else the whole image: ``(begin, size, bboxes)`` for
    ``tf.slice`` and ``draw_bounding_boxes``, drawn anew every run from ``seed`` (or ``seed2``)
    as the other random image functions.  The attempts are drawn all at once, so the crops
    follow TF's distribution, not its random stream.  A box coordinate outside [0, 1], or no
    box without ``use_image_if_no_bounding_boxes``, is TF's InvalidArgumentError at run time."""
    function = "sample_distorted_bounding_box"
    ratio_range = [float(r) for r in (aspect_ratio_range or (0.75, 1.33))]
    area_range = [float(a) for a in (area_range or (0.05, 1.0))]
    attempts = _int(100 if max_attempts is None else max_attempts, "max_attempts", function)
    if attempts < 1 or len(ratio_range) != 2 or len(area_range) != 2 or min(
            ratio_range) <= 0 or area_range[0] > area_range[1] or area_range[1] <= 0:
        raise ValueError(f"{function}: max_attempts must be positive ({attempts}), "
                         f"aspect_ratio_range two positive numbers ({ratio_range}) and "
                         f"area_range two numbers, the first at most the second, positive "
                         f"({area_range})")
    covered = _number(min_object_covered, "min_object_covered", function)
    with current_context().name_scope(name or "sample_distorted_bounding_box"):
        size = convert_to_tensor(image_size, name="image_size")
        height, width = cast(size[0], float32), cast(size[1], float32)
        boxes = reshape(_boxes(bounding_boxes, function, 3), [-1, 4])
        checks = [Assert(logical_and(reduce_all(greater_equal(boxes, 0.0)),
                                     reduce_all(less_equal(boxes, 1.0))),
                         ["All bounding box coordinates must be in [0.0, 1.0]"])]
        count = reduce_sum(cast(greater_equal(boxes[:, 0], -1.0), float32))
        if not use_image_if_no_bounding_boxes:
            checks.append(Assert(count > 0, [_NO_BOXES]))
        pixels = floor(boxes * stack([height, width, height, width]))  # TF's int32 casts
        uniforms = random_uniform([attempts, 4], seed=seed if seed else seed2)
        top, left, rows, cols, valid = _random_crops(height, width, uniforms, area_range,
                                                     ratio_range)
        crop = (top, left, rows, cols)
        whole = reshape(stack([0.0 * height, 0.0 * width, height, width]), [1, 4])
        fits = logical_or(_covers(crop, pixels, covered),
                          logical_and(count < 1, _covers(crop, whole, covered)))
        chosen = logical_and(valid, fits)
        first = argmax(cast(chosen, int32), axis=0)
        found = reduce_any(chosen)
        top, left, rows, cols = (where(found, gather(c, first), w) for c, w in zip(
            crop, (0.0 * height, 0.0 * width, height, width)))
        with control_dependencies(checks):
            dtype = size.dtype
            begin = cast(stack([top, left, 0.0 * top]), dtype)
            extent = cast(stack([rows, cols, 0.0 * top - 1]), dtype)
            bboxes = reshape(stack([top / height, left / width, (top + rows) / height,
                                    (left + cols) / width]), [1, 1, 4])
            return identity(begin), identity(extent), identity(bboxes)
