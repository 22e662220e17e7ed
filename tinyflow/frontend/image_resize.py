"""``tf.image``'s resizing: TensorFlow 1.15's ResizeBilinear, ResizeBicubic, ResizeArea and
ResizeNearestNeighbor kernels, and the functions on them (resize_images / resize,
resize_image_with_pad).

Bilinear, bicubic and area resizing are each a linear map on each of the two axes: output
row i is ``R[i] @ input rows``, so a resize is ``einsum("ih,nhwc->niwc", R_height, images)``
then the same along the width, ``R`` the weights TF 1.15's kernel uses (its source positions
in float32, ``align_corners``, the legacy ``in = out * scale`` mapping or ``half_pixel_centers``;
bicubic's tabulated Keys kernel, area's overlaps), built once with numpy; the gradient w.r.t.
the image is einsum's.  Nearest neighbour gathers the rows and columns TF's kernel picks.
"""
from __future__ import annotations

import numpy as np

from ..nnvm.symbol import Symbol, current_context
from ..nnvm.variables import constant
from .api import cast
from .array_ops import gather_dense
from .dtypes import float32
from .image_ops import _batched, _height_width, _image, _int, pad_to_bounding_box
from .linalg_ops import einsum

__all__ = [
    "ResizeMethod",
    "resize",
    "resize_area",
    "resize_bicubic",
    "resize_bilinear",
    "resize_image_with_pad",
    "resize_images",
    "resize_nearest_neighbor",
]


class ResizeMethod:
    """TF 1.15's ``tf.image.ResizeMethod``: the ints ``resize_images`` takes."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


def _source_positions(out_size, in_size, align_corners, half_pixel_centers):
    """Where TF 1.15's resize kernels read output row i from, in float32 as they compute it."""
    if align_corners and half_pixel_centers:
        raise ValueError("resize: if half_pixel_centers is True, align_corners must be False.")
    scale = np.float32((in_size - 1) / (out_size - 1) if align_corners and out_size > 1
                       else in_size / out_size)
    index = np.arange(out_size, dtype=np.float32)
    return scale, index


def _bilinear_weights(out_size, in_size, align_corners, half_pixel_centers) -> np.ndarray:
    """``R`` ``[out_size, in_size]``: output row i is ``R[i] @ input rows`` (the weights of
    TF's ResizeBilinear: lerp between floor and ceil of the source position)."""
    scale, index = _source_positions(out_size, in_size, align_corners, half_pixel_centers)
    position = (index + np.float32(0.5)) * scale - np.float32(0.5) if half_pixel_centers else (
        index * scale)
    floor = np.floor(position)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(position), in_size - 1).astype(np.int64)
    lerp = (position - floor).astype(np.float32)
    weights = np.zeros((out_size, in_size), np.float32)
    np.add.at(weights, (np.arange(out_size), lower), 1 - lerp)
    np.add.at(weights, (np.arange(out_size), upper), lerp)
    return weights


def _nearest_rows(out_size, in_size, align_corners, half_pixel_centers) -> np.ndarray:
    """The input row TF's ResizeNearestNeighbor copies into each output row."""
    scale, index = _source_positions(out_size, in_size, align_corners, half_pixel_centers)
    position = (index + np.float32(0.5)) * scale if half_pixel_centers else index * scale
    rows = np.floor(position + np.float32(0.5)) if align_corners else np.floor(position)
    return np.minimum(rows, in_size - 1).astype(np.int32)


def _cubic_table(a) -> tuple:
    """TF's tabulated cubic kernel (1024 steps): the near taps' weights at ``x`` in [0, 1] and
    the far taps' at ``x + 1``, Keys' cubic with ``a`` (-0.75 legacy, -0.5 half-pixel)."""
    x = np.arange(1025, dtype=np.float64) / 1024
    near = (((a + 2) * x - (a + 3)) * x * x + 1).astype(np.float32)
    x = x + 1
    return near, ((((a * x) - 5 * a) * x + 8 * a) * x - 4 * a).astype(np.float32)


def _bicubic_weights(out_size, in_size, align_corners, half_pixel_centers) -> np.ndarray:
    """``R`` of TF 1.15's ResizeBicubic: four taps around the source position, their weights
    looked up at ``rint(fraction * 1024)``; legacy taps past the border read the border
    pixel, half-pixel ones weigh 0 and the rest are renormalised (TF's GetWeightsAndIndices)."""
    scale, index = _source_positions(out_size, in_size, align_corners, half_pixel_centers)
    position = ((index + np.float32(0.5)) * scale - np.float32(0.5) if half_pixel_centers
                else index * scale)
    start = np.floor(position)
    offset = np.rint((position - start) * np.float32(1024)).astype(np.int64)
    near, far = _cubic_table(-0.5 if half_pixel_centers else -0.75)
    taps = np.stack([far[offset], near[offset], near[1024 - offset], far[1024 - offset]], 1)
    source = start.astype(np.int64)[:, None] + np.arange(-1, 3)
    bounded = np.clip(source, 0, in_size - 1)
    if half_pixel_centers:
        taps = np.where(bounded == source, taps, np.float32(0))
        total = taps.sum(1, keepdims=True, dtype=np.float32)
        taps = np.where(np.abs(total) >= 1000 * np.finfo(np.float32).tiny, taps / total, taps)
    weights = np.zeros((out_size, in_size), np.float32)
    np.add.at(weights, (np.arange(out_size)[:, None], bounded), taps)
    return weights


def _area_weights(out_size, in_size, align_corners, half_pixel_centers=False) -> np.ndarray:
    """``R`` of TF 1.15's ResizeArea: output row i averages the input over ``[i * scale,
    (i + 1) * scale)``, each input row weighted by its overlap (rows past the border read
    the border row), the sum divided by ``scale``."""
    scale, index = _source_positions(out_size, in_size, align_corners, half_pixel_centers)
    weights = np.zeros((out_size, in_size), np.float32)
    for row, begin in enumerate(index * scale):
        end = (index[row] + 1) * scale
        for i in range(int(np.floor(begin)), int(np.ceil(end))):
            part = (min(i + 1, end) - begin) if i < begin else min(np.float32(1), end - i)
            weights[row, min(max(i, 0), in_size - 1)] += part
    with np.errstate(divide="ignore", invalid="ignore"):  # scale 0: TF's 0 * inf, NaN
        return (weights / scale).astype(np.float32)


def _new_size(size, function) -> tuple:
    if isinstance(size, Symbol):
        raise TypeError(f"{function}: TinyFlow takes size as two Python ints, not a tensor")
    size = tuple(size)
    if len(size) != 2:
        raise ValueError(f"{function}: size must be [new_height, new_width], got {size!r}")
    size = tuple(_int(s, "size's entries", function) for s in size)
    if min(size) <= 0:
        raise ValueError(f"{function}: size must be positive, got {size}")
    return size


def _resize_linear(images, size, weights, align_corners, half_pixel_centers, function):
    """``images`` (4-d) resized to ``size`` by the axes' weight matrices ``weights(out, in,
    align_corners, half_pixel_centers)``; float32 out, an axis left alone when its map is the
    identity."""
    images = _image(images, function, ranks=(4,))
    rows, cols = _new_size(size, function)
    height, width = _height_width(images, function)
    out = cast(images, float32) if images.dtype != float32 else images
    along_h = weights(rows, height, align_corners, half_pixel_centers)
    along_w = weights(cols, width, align_corners, half_pixel_centers)
    if not (rows == height and np.array_equal(along_h, np.eye(rows))):
        out = einsum("ih,nhwc->niwc", constant(along_h), out)
    if not (cols == width and np.array_equal(along_w, np.eye(cols))):
        out = einsum("jw,nhwc->nhjc", constant(along_w), out)
    return out


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Images ``[batch, height, width, channels]`` resized to ``size`` (new height, new width)
    by bilinear interpolation exactly as TF 1.15's ResizeBilinear (float32 out): by default
    output pixel i reads the input at ``i * in / out`` (not torch's half-pixel centres);
    ``align_corners`` maps the corners onto each other; ``half_pixel_centers`` is TF2's way.
    Differentiable w.r.t. the images."""
    with current_context().name_scope(name or "ResizeBilinear"):
        return _resize_linear(images, size, _bilinear_weights, align_corners,
                              half_pixel_centers, "resize_bilinear")


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Images ``[batch, height, width, channels]`` resized to ``size`` by TF 1.15's
    ResizeBicubic (float32 out): Keys' cubic convolution with a = -0.75 and the border
    pixels repeated, or with ``half_pixel_centers`` a = -0.5 and the taps outside the image
    dropped (the rest renormalised).  Differentiable w.r.t. the images."""
    with current_context().name_scope(name or "ResizeBicubic"):
        return _resize_linear(images, size, _bicubic_weights, align_corners,
                              half_pixel_centers, "resize_bicubic")


def resize_area(images, size, align_corners=False, name=None):
    """Images ``[batch, height, width, channels]`` resized to ``size`` by TF 1.15's
    ResizeArea (float32 out): each output pixel the mean of the input over its footprint,
    partly covered pixels weighted by their overlap.  Differentiable w.r.t. the images."""
    with current_context().name_scope(name or "ResizeArea"):
        return _resize_linear(images, size, _area_weights, align_corners, False, "resize_area")


def resize_nearest_neighbor(images, size, align_corners=False, name=None,
                            half_pixel_centers=False):
    """Images ``[batch, height, width, channels]`` resized to ``size`` by copying the pixel
    TF 1.15's ResizeNearestNeighbor picks (``floor(i * in / out)``; rounded with
    ``align_corners``); the dtype is kept."""
    images = _image(images, "resize_nearest_neighbor", ranks=(4,))
    rows, cols = _new_size(size, "resize_nearest_neighbor")
    height, width = _height_width(images, "resize_nearest_neighbor")
    with current_context().name_scope(name or "ResizeNearestNeighbor"):
        out = images
        for axis, new, old in ((1, rows, height), (2, cols, width)):
            picked = _nearest_rows(new, old, align_corners, half_pixel_centers)
            if not np.array_equal(picked, np.arange(old)):
                out = gather_dense(out, constant(picked), axis=axis)
        return out


def _aspect_size(size, height, width) -> tuple:
    """TF 1.15's preserve_aspect_ratio: the largest size of the image's shape inside ``size``
    (float32 scale, rounded half to even)."""
    scale = min(np.float32(size[0]) / np.float32(height), np.float32(size[1]) / np.float32(width))
    return (int(np.round(np.float32(scale) * np.float32(height))),
            int(np.round(np.float32(scale) * np.float32(width))))


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False,
                  preserve_aspect_ratio=False, name=None):
    """One image or a batch resized to ``size`` (new height, new width) by ``method``
    (``ResizeMethod.BILINEAR``, ``BICUBIC``, ``AREA``: float32 out; ``NEAREST_NEIGHBOR``: the
    dtype kept), as TF 1.15 (``tf.image.resize`` is this function there): an image already of
    that size is returned as it is.

    Raises
    ------
    ValueError
        For a method that is not one of the four, or a size that is not two positive ints.
    """
    images = _image(images, "resize_images")
    size = _new_size(size, "resize_images")
    height, width = _height_width(images, "resize_images")
    if preserve_aspect_ratio:
        size = _aspect_size(size, height, width)
    resizes = {ResizeMethod.BILINEAR: resize_bilinear, ResizeMethod.BICUBIC: resize_bicubic,
               ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor,
               ResizeMethod.AREA: resize_area}
    if isinstance(method, bool) or method not in resizes:
        raise ValueError(f"resize_images: Resize method is not implemented: {method!r} (TF "
                         f"1.15's are ResizeMethod.BILINEAR, NEAREST_NEIGHBOR, BICUBIC, AREA)")
    if size == (height, width):
        return images
    with current_context().name_scope(name or "resize_images"):
        return _batched(images, lambda batch: resizes[method](
            batch, size, align_corners=align_corners))


resize = resize_images  # TF 1.15's tf.image.resize is resize_images


def resize_image_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                          align_corners=False):
    """The image (or batch) resized by ``method`` to the largest size of its aspect ratio
    inside ``target_height x target_width``, then centred on a canvas of zeros of that size:
    TF 1.15's sizes and offsets (float32 ratios, floored)."""
    function = "resize_image_with_pad"
    image = _image(image, function)
    height, width = _height_width(image, function)
    rows = _int(target_height, "target_height", function)
    cols = _int(target_width, "target_width", function)
    if rows <= 0 or cols <= 0:
        raise ValueError(f"{function}: target_{'height' if rows <= 0 else 'width'} must be > 0.")
    f32 = np.float32
    ratio = max(f32(width) / f32(cols), f32(height) / f32(rows))
    new_height, new_width = f32(height) / ratio, f32(width) / ratio
    top = max(0, int(np.floor((f32(rows) - new_height) / f32(2))))
    left = max(0, int(np.floor((f32(cols) - new_width) / f32(2))))
    resized = resize_images(image, [int(np.floor(new_height)), int(np.floor(new_width))],
                            method, align_corners=align_corners)
    return pad_to_bounding_box(resized, top, left, rows, cols)
