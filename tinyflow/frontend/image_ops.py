"""``tf.image``: TensorFlow 1.15's image functions (``tensorflow/python/ops/image_ops_impl.py``),
composed from the ops users write, as TF composes them, so each gradient is its primitives'.

An image is ``[height, width, channels]`` or a batch ``[batch, height, width, channels]``; the
functions that TF 1.15 gives both take both.  Sizes, offsets and fractions are Python numbers
and the image's height and width must be known when the graph is built (the boxes and the
interpolation weights are computed then); a tensor there is a TypeError saying so.

Resizing is :mod:`.image_resize`'s.

Colour: YUV and YIQ are TF's 3 x 3 matrices; ``rgb_to_hsv`` / ``hsv_to_rgb`` compute TF's
kernels' formulas with selects and clamps; ``adjust_hue`` / ``adjust_saturation`` go through
them, as TF's kernels do inside.

The random functions draw with :func:`~tinyflow.frontend.random_ops.random_uniform` and its
seeds (``seed=``, ``tf.set_random_seed``), so a graph seed reproduces their choices.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..nnvm.symbol import Symbol, current_context
from ..nnvm.variables import constant
from .api import abs as _abs
from .api import (
    add,
    add_n,
    cast,
    clip_by_value,
    equal,
    floordiv,
    less,
    maximum,
    minimum,
    pow,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_sum,
    rsqrt,
    sqrt,
    square,
    subtract,
    where,
)
from .array_ops import (
    expand_dims,
    gather_dense,
    pad,
    reshape,
    reverse,
    slice,
    squeeze,
    stack,
    tile,
    unstack,
    zeros_like,
)
from .array_ops import range as _range
from .array_ops import shape as dynamic_shape
from .array_ops import transpose as _transpose
from .control_flow_ops import cond
from .dtypes import as_dtype, float32, int32
from .linalg_ops import einsum
from .math_ops import convert_to_tensor, round
from .nn.functions import relu
from .random_ops import random_uniform

__all__ = [
    "adjust_brightness",
    "adjust_contrast",
    "adjust_gamma",
    "adjust_hue",
    "adjust_saturation",
    "central_crop",
    "convert_image_dtype",
    "crop_to_bounding_box",
    "flip_left_right",
    "flip_up_down",
    "grayscale_to_rgb",
    "hsv_to_rgb",
    "image_gradients",
    "pad_to_bounding_box",
    "per_image_standardization",
    "random_brightness",
    "random_contrast",
    "random_crop",
    "random_flip_left_right",
    "random_flip_up_down",
    "random_hue",
    "random_saturation",
    "resize_image_with_crop_or_pad",
    "resize_with_crop_or_pad",
    "rgb_to_grayscale",
    "rgb_to_hsv",
    "rgb_to_yiq",
    "rgb_to_yuv",
    "rot90",
    "sobel_edges",
    "total_variation",
    "transpose",
    "transpose_image",
    "yiq_to_rgb",
    "yuv_to_rgb",
]


# -- shapes -------------------------------------------------------------------------------
def _image(image, function, ranks=(3, 4)) -> Symbol:
    """``image`` as a tensor of a rank in ``ranks`` (TF's _Assert3DImage / _Assert4DImage)."""
    image = convert_to_tensor(image, name="image")
    shape = image.get_shape()
    if shape.ndims not in ranks:
        want = " or ".join(str(r) for r in ranks)
        raise ValueError(f"{function}: 'image' (shape {shape}) must be {want}-dimensional")
    return image


def _height_width(image, function) -> tuple:
    """The image's static (height, width)."""
    dims = image.get_shape().as_list()[-3:-1]
    if None in dims:
        raise ValueError(f"{function}: TinyFlow needs the image's height and width known when "
                         f"the graph is built, got shape {image.get_shape()}")
    return tuple(dims)


def _int(value, what, function) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{function}: TinyFlow takes {what} as a Python int, got "
                        f"{type(value).__name__} {value!r}")
    return int(value)


def _number(value, what, function) -> float:
    if isinstance(value, Symbol):
        raise TypeError(f"{function}: TinyFlow takes {what} as a Python number, not a tensor")
    return float(value)


def _random_factor(lower, upper, seed, function) -> Symbol:
    """A factor drawn uniformly from ``[lower, upper)`` every run, the bounds checked as TF
    1.15's random_contrast and random_saturation check them."""
    lower, upper = _number(lower, "lower", function), _number(upper, "upper", function)
    if upper <= lower:
        raise ValueError(f"{function}: upper must be > lower.")
    if lower < 0:
        raise ValueError(f"{function}: lower must be non-negative.")
    return random_uniform([], lower, upper, seed=seed)


def _batched(image, body):
    """``body`` applied to ``image`` as a batch: a single image gets an axis 0 for it."""
    if image.get_shape().ndims == 4:
        return body(image)
    return squeeze(body(expand_dims(image, 0)), [0])


# -- flips, rotations, transposes -----------------------------------------------------------
def _flip(image, axis, function):
    image = _image(image, function)
    batch = int(image.get_shape().ndims == 4)
    return reverse(image, [axis + batch], name=function)


def flip_left_right(image):
    """The image (or each image of a batch) mirrored: its width axis reversed."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    """The image (or each image of a batch) upside down: its height axis reversed."""
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, axis, seed, function):
    """TF 1.15's _random_flip: one coin for a single image (a cond between it and its
    mirror), one per image of a batch (``flips * mirrored + (1 - flips) * image``)."""
    image = _image(image, function)
    with current_context().name_scope(function):
        if image.get_shape().ndims == 3:
            coin = less(random_uniform([], 0, 1.0, seed=seed), 0.5)
            return cond(coin, lambda: reverse(image, [axis]), lambda: image)
        batch = image.get_shape().as_list()[0]  # a batch of unknown size: tf.shape's, at bind
        batch = [batch] if batch is not None else dynamic_shape(image)[0:1]
        flips = round(reshape(random_uniform(batch, 0, 1.0, seed=seed), [-1, 1, 1, 1]))
        flips = cast(flips, image.dtype)
        result = flips * reverse(image, [axis + 1]) + (1 - flips) * image
        result.set_shape(image.get_shape())
        return result


def random_flip_left_right(image, seed=None):
    """The image mirrored left-right with probability 1/2 (each image of a batch its own
    coin), drawn anew every run.

    Parameters
    ----------
    image : Symbol
        ``[height, width, channels]`` or ``[batch, height, width, channels]``.
    seed : int, optional
        The op-level seed (``tf.set_random_seed`` gives the graph's).
    """
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """The image flipped upside down with probability 1/2; as :func:`random_flip_left_right`."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def rot90(image, k=1, name=None):
    """The image (or each of a batch) rotated by ``k`` quarter turns counter-clockwise
    (``k`` a Python int; negative turns clockwise)."""
    image = _image(image, "rot90")
    k = _int(k, "k", "rot90") % 4
    b = int(image.get_shape().ndims == 4)
    swap = list(range(b)) + [b + 1, b] + [b + 2]  # height <-> width
    with current_context().name_scope(name or "rot90"):
        if k == 0:
            return image
        if k == 1:
            return _transpose(reverse(image, [b + 1]), swap)
        if k == 2:
            return reverse(image, [b, b + 1])
        return reverse(_transpose(image, swap), [b + 1])


def transpose_image(image):
    """The image (or each of a batch) with its height and width swapped."""
    image = _image(image, "transpose_image")
    perm = [1, 0, 2] if image.get_shape().ndims == 3 else [0, 2, 1, 3]
    return _transpose(image, perm, name="transpose_image")


transpose = transpose_image  # TF 1.15's tf.image.transpose


# -- crops and pads -------------------------------------------------------------------------
def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height x target_width`` block of the image starting at
    ``(offset_height, offset_width)``; every channel (and every image of a batch) kept.

    Raises
    ------
    ValueError
        As TF 1.15: a negative offset, a target that is not positive, or a box that does not
        fit the image.
    """
    function = "crop_to_bounding_box"
    image = _image(image, function)
    height, width = _height_width(image, function)
    top, left, rows, cols = (_int(v, what, function) for v, what in (
        (offset_height, "offset_height"), (offset_width, "offset_width"),
        (target_height, "target_height"), (target_width, "target_width")))
    checks = [(top >= 0, "offset_height must be >= 0."), (left >= 0, "offset_width must be >= 0."),
              (rows > 0, "target_height must be > 0."), (cols > 0, "target_width must be > 0."),
              (height >= rows + top, "height must be >= target + offset."),
              (width >= cols + left, "width must be >= target + offset.")]
    for ok, message in checks:
        if not ok:
            raise ValueError(f"{function}: {message} (image {image.get_shape()}, offsets "
                             f"({top}, {left}), target ({rows}, {cols}))")
    batch = [0] * (image.get_shape().ndims - 3)
    return slice(image, batch + [top, left, 0], [-1] * len(batch) + [rows, cols, -1],
                 name=function)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The image on a ``target_height x target_width`` canvas of zeros, its top-left corner at
    ``(offset_height, offset_width)``.

    Raises
    ------
    ValueError
        As TF 1.15: a negative offset, or an image that does not fit the canvas there.
    """
    function = "pad_to_bounding_box"
    image = _image(image, function)
    height, width = _height_width(image, function)
    top, left, rows, cols = (_int(v, what, function) for v, what in (
        (offset_height, "offset_height"), (offset_width, "offset_width"),
        (target_height, "target_height"), (target_width, "target_width")))
    bottom, right = rows - top - height, cols - left - width
    checks = [(top >= 0, "offset_height must be >= 0"), (left >= 0, "offset_width must be >= 0"),
              (bottom >= 0, "height must be <= target - offset"),
              (right >= 0, "width must be <= target - offset")]
    for ok, message in checks:
        if not ok:
            raise ValueError(f"{function}: {message} (image {image.get_shape()}, offsets "
                             f"({top}, {left}), target ({rows}, {cols}))")
    batch = [[0, 0]] * (image.get_shape().ndims - 3)
    return pad(image, batch + [[top, bottom], [left, right], [0, 0]], name=function)


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """The image cropped or padded with zeros, about its centre, to ``target_height x
    target_width`` (TF 1.15's offsets: a crop drops the odd row or column at the end, a pad
    adds it at the end)."""
    function = "resize_image_with_crop_or_pad"
    image = _image(image, function)
    height, width = _height_width(image, function)
    rows = _int(target_height, "target_height", function)
    cols = _int(target_width, "target_width", function)
    if rows <= 0 or cols <= 0:
        raise ValueError(f"{function}: target_{'height' if rows <= 0 else 'width'} must be > 0.")
    cropped = crop_to_bounding_box(image, max(-(rows - height) // 2, 0),
                                   max(-(cols - width) // 2, 0), min(rows, height),
                                   min(cols, width))
    return pad_to_bounding_box(cropped, max((rows - height) // 2, 0),
                               max((cols - width) // 2, 0), rows, cols)


resize_with_crop_or_pad = resize_image_with_crop_or_pad  # TF 1.15 has both names


def central_crop(image, central_fraction):
    """The central ``central_fraction`` (in (0, 1]) of the image's height and width, with TF
    1.15's rounding: the margin on each side is ``int((size - size * fraction) / 2)``."""
    image = _image(image, "central_crop")
    fraction = _number(central_fraction, "central_fraction", "central_crop")
    if fraction <= 0.0 or fraction > 1.0:
        raise ValueError("central_crop: central_fraction must be within (0, 1]")
    if fraction == 1.0:
        return image
    height, width = _height_width(image, "central_crop")
    top = int((float(height) - float(height) * fraction) / 2)
    left = int((float(width) - float(width) * fraction) / 2)
    return crop_to_bounding_box(image, top, left, height - 2 * top, width - 2 * left)


def random_crop(value, size, seed=None, name=None):
    """A block of ``size`` (one entry per axis of ``value``) at a random place in ``value``,
    drawn anew every run: TF 1.15's ``random_ops.random_crop`` (uniform offsets ``random %
    (shape - size + 1)``, then the slice), the slice taken with gathers so the offsets can be
    run-time values.

    Parameters
    ----------
    value : Symbol
        Any rank, its shape known when the graph is built.
    size : list of int
    seed : int, optional
        The op-level seed (``tf.set_random_seed`` gives the graph's).
    """
    value = convert_to_tensor(value, name="value")
    shape = value.get_shape().as_list() if value.get_shape().ndims is not None else None
    if isinstance(size, Symbol):
        raise TypeError("random_crop: TinyFlow takes size as a list of Python ints, not a tensor")
    size = [_int(s, "size's entries", "random_crop") for s in size]
    if shape is None or None in shape:
        raise ValueError(f"random_crop: TinyFlow needs value's shape known when the graph is "
                         f"built, got {value.get_shape()}")
    if len(size) != len(shape) or any(s > d or s < 0 for s, d in zip(size, shape)):
        raise ValueError(f"random_crop: Need value.shape >= size, got value's shape {shape} "
                         f"and size {size}")
    with current_context().name_scope(name or "random_crop"):
        limit = constant(np.array([d - s + 1 for d, s in zip(shape, size)], np.int32))
        offset = random_uniform([len(shape)], 0, np.iinfo(np.int32).max, dtype=int32,
                                seed=seed) % limit
        for axis, (s, d) in enumerate(zip(size, shape)):
            if s != d:
                value = gather_dense(value, offset[axis] + _range(s), axis=axis)
        return value


# -- values ---------------------------------------------------------------------------------
def convert_image_dtype(image, dtype, saturate=False, name=None):
    """The image in another dtype, its values scaled as TF 1.15 scales them: floats lie in
    [0, 1], integers in [0, the dtype's max]; ``saturate`` clips to the new dtype's range
    before casting (else a float outside [0, 1] wraps as TF's cast does).

    Parameters
    ----------
    image : Symbol
    dtype : DType or name
        float16/32/64, uint8, int8/16/32/64.
    saturate : bool
    name : str, optional
    """
    image, dtype = convert_to_tensor(image, name="image"), as_dtype(dtype)
    source = image.dtype
    if not (source.is_floating or source.is_integer) or not (
            dtype.is_floating or dtype.is_integer):
        raise TypeError(f"convert_image_dtype: converts between float and integer images, "
                        f"got {source.name} to {dtype.name}")
    with current_context().name_scope(name or "convert_image"):
        if source == dtype:
            return image
        if source.is_floating and dtype.is_floating:
            return cast(image, dtype)
        if source.is_integer and dtype.is_integer:
            scale_in, scale_out = np.iinfo(source.name).max, np.iinfo(dtype.name).max
            if scale_in > scale_out:  # scale down first, then cast
                scaled = floordiv(image, (scale_in + 1) // (scale_out + 1))
                return _saturate_cast(scaled, dtype) if saturate else cast(scaled, dtype)
            image = _saturate_cast(image, dtype) if saturate else cast(image, dtype)
            return image * ((scale_out + 1) // (scale_in + 1))  # cast first, then scale up
        if source.is_integer:
            return cast(image, dtype) * (1.0 / np.iinfo(source.name).max)
        scaled = image * (np.iinfo(dtype.name).max + 0.5)  # + 0.5: no rounding down in the cast
        return _saturate_cast(scaled, dtype) if saturate else cast(scaled, dtype)


def _saturate_cast(value, dtype):
    """TF's saturate_cast: ``value`` clipped to ``dtype``'s range, then cast."""
    info, source = np.iinfo(dtype.name), value.dtype
    limits = np.finfo(source.name) if source.is_floating else np.iinfo(source.name)
    if limits.min < info.min:
        value = maximum(value, constant(info.min, dtype=source))
    if limits.max > info.max:
        value = minimum(value, constant(info.max, dtype=source))
    return cast(value, dtype)


def _as_float(image, keep=("float16", "float32", "float64")):
    """``(image in float, its dtype)``: a float image as it is, an integer one converted."""
    if image.dtype.name in keep:
        return image, image.dtype
    return convert_image_dtype(image, float32), image.dtype


def per_image_standardization(image):
    """``(x - mean) / max(stddev, 1 / sqrt(pixels))`` per image, over its height, width and
    channels (TF 1.15's adjusted standard deviation, so a flat image gives zeros); float32,
    whatever the input's dtype, as in TF 1.15."""
    image = _image(image, "per_image_standardization")
    with current_context().name_scope("per_image_standardization"):
        pixels = image.get_shape().as_list()[-3:]
        if None in pixels:
            raise ValueError(f"per_image_standardization: TinyFlow needs the image's height, "
                             f"width and channels known when the graph is built, got shape "
                             f"{image.get_shape()}")
        pixels = int(np.prod(pixels))
        image = cast(image, float32)
        mean = reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        variance = relu(reduce_mean(square(image), axis=[-1, -2, -3], keepdims=True)
                        - square(mean))
        scale = maximum(sqrt(variance), rsqrt(constant(float(pixels))))
        return subtract(image, mean) / scale


def adjust_brightness(image, delta):
    """``image + delta`` in float (an integer image converted to float32 and back, saturating
    at its dtype's range), as TF 1.15."""
    image = convert_to_tensor(image, name="image")
    with current_context().name_scope("adjust_brightness"):
        flt, dtype = _as_float(image)
        adjusted = add(flt, cast(delta, flt.dtype) if isinstance(delta, Symbol) else delta)
        return convert_image_dtype(adjusted, dtype, saturate=True)


def adjust_contrast(images, contrast_factor):
    """``(x - mean) * contrast_factor + mean`` per image and channel, the mean over its height
    and width, in float (an integer image converted and back, saturating), as TF 1.15."""
    images = _image(images, "adjust_contrast")
    with current_context().name_scope("adjust_contrast"):
        flt, dtype = _as_float(images, keep=("float32",))
        mean = reduce_mean(flt, axis=[-3, -2], keepdims=True)
        factor = (cast(contrast_factor, flt.dtype) if isinstance(contrast_factor, Symbol)
                  else contrast_factor)
        return convert_image_dtype((flt - mean) * factor + mean, dtype, saturate=True)


def random_brightness(image, max_delta, seed=None):
    """:func:`adjust_brightness` by a delta drawn uniformly from ``[-max_delta, max_delta)``
    every run (``seed`` as :func:`random_flip_left_right`'s)."""
    max_delta = _number(max_delta, "max_delta", "random_brightness")
    if max_delta < 0:
        raise ValueError("random_brightness: max_delta must be non-negative.")
    return adjust_brightness(image, random_uniform([], -max_delta, max_delta, seed=seed))


def random_contrast(image, lower, upper, seed=None):
    """:func:`adjust_contrast` by a factor drawn uniformly from ``[lower, upper)`` every run
    (``seed`` as :func:`random_flip_left_right`'s)."""
    return adjust_contrast(image, _random_factor(lower, upper, seed, "random_contrast"))


def adjust_gamma(image, gamma=1, gain=1):
    """``gain * x ** gamma`` in float (an integer image converted and back, saturating), as
    TF 1.15; ``gamma`` must be non-negative."""
    image = convert_to_tensor(image, name="image")
    if _number(gamma, "gamma", "adjust_gamma") < 0:
        raise ValueError("adjust_gamma: Gamma should be a non-negative real number.")
    with current_context().name_scope("adjust_gamma"):
        flt, dtype = _as_float(image, keep=("float16", "float32"))
        return convert_image_dtype(gain * pow(flt, float(gamma)), dtype, saturate=True)


def rgb_to_grayscale(images, name=None):
    """The luma ``0.2989 R + 0.587 G + 0.114 B`` of RGB images, a last axis of size 1, in the
    images' dtype (an integer image converted to float and back, as TF 1.15)."""
    images = convert_to_tensor(images, name="images")
    with current_context().name_scope(name or "rgb_to_grayscale"):
        flt, dtype = _as_float(images, keep=("float32",))
        weights = constant(np.array([0.2989, 0.5870, 0.1140], np.float32), dtype=flt.dtype)
        gray = reduce_sum(flt * weights, axis=-1, keepdims=True)
        return convert_image_dtype(gray, dtype)


def grayscale_to_rgb(images, name=None):
    """Grayscale images (a last axis of size 1) with the channel repeated three times."""
    images = convert_to_tensor(images, name="images")
    shape = images.get_shape()
    if shape.ndims is None or shape.ndims < 2 or shape.as_list()[-1] not in (1, None):
        raise ValueError(f"grayscale_to_rgb: the images' last axis must have size 1, got shape "
                         f"{shape}")
    multiples = [1] * (shape.ndims - 1) + [3]
    return tile(images, multiples, name=name or "grayscale_to_rgb")


def total_variation(images, name=None):
    """The sum of the absolute differences of neighbouring pixels, down and across: a scalar
    for one image, one per image for a batch (TF 1.15's total_variation)."""
    images = _image(images, "total_variation")
    axes = [-3, -2, -1] if images.get_shape().ndims == 4 else None
    with current_context().name_scope(name or "total_variation"):
        down = images[..., 1:, :, :] - images[..., :-1, :, :]
        across = images[..., :, 1:, :] - images[..., :, :-1, :]
        return reduce_sum(_abs(down), axis=axes) + reduce_sum(_abs(across), axis=axes)


def image_gradients(image):
    """``(dy, dx)``: each pixel's forward difference down and across a batch of images
    (``[batch, height, width, channels]``), zero in the last row / column, as TF 1.15."""
    image = _image(image, "image_gradients", ranks=(4,))
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    return (pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]]),
            pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]]))


# -- colour spaces, hue and saturation ------------------------------------------------------
def _rgb(images, function) -> Symbol:
    """``images`` as a float tensor whose last axis has size 3 (TF's kernels' checks)."""
    images = convert_to_tensor(images, name="images")
    shape = images.get_shape()
    if shape.ndims is None or shape.ndims < 1 or shape.as_list()[-1] != 3:
        raise ValueError(f"{function}: the images' last dimension must be 3, got shape {shape}")
    if not images.dtype.is_floating:
        raise TypeError(f"{function}: the images must be float16, float32 or float64, got "
                        f"{images.dtype.name}")
    return images


def rgb_to_hsv(images, name=None):
    """RGB images (floats in [0, 1], last axis 3) as hue, saturation, value in [0, 1], by TF
    1.15's RGBToHSV kernel's formulas (a grey pixel has hue 0 and saturation 0); composed with
    selects, so it has a gradient, finite on grey pixels too."""
    images = _rgb(images, "rgb_to_hsv")
    with current_context().name_scope(name or "rgb_to_hsv"):
        red, green, blue = unstack(images, axis=-1)
        value = reduce_max(images, axis=-1)
        spread = value - reduce_min(images, axis=-1)
        zeros = zeros_like(value)
        saturation = where(value > 0, spread / where(value > 0, value, zeros + 1), zeros)
        norm = 1 / (6 * where(spread > 0, spread, zeros + 1))  # no 1/0 where the select drops it
        hue = where(equal(red, value), norm * (green - blue),
                    where(equal(green, value), norm * (blue - red) + 2 / 6,
                          norm * (red - green) + 4 / 6))
        hue = where(spread > 0, hue, zeros)
        hue = where(hue < 0, hue + 1, hue)
        return stack([hue, saturation, value], axis=-1)


def hsv_to_rgb(images, name=None):
    """HSV images (last axis 3) as RGB, by TF 1.15's HSVToRGB kernel's formulas (a hue outside
    [0, 1] clamped as its piecewise-linear ramps clamp it)."""
    images = _rgb(images, "hsv_to_rgb")
    with current_context().name_scope(name or "hsv_to_rgb"):
        hue, saturation, value = unstack(images, axis=-1)
        sixths = hue * 6
        ramps = [_abs(sixths - 3) - 1, 2 - _abs(sixths - 2), 2 - _abs(sixths - 4)]
        grey = 1 - saturation
        return stack([(grey + saturation * clip_by_value(ramp, 0.0, 1.0)) * value
                      for ramp in ramps], axis=-1)


def _adjust_hsv(image, change, function):
    """TF 1.15's adjust_hue / adjust_saturation: in float (an integer image converted and
    back), ``change(hue, saturation) -> (hue, saturation)`` in HSV."""
    image = convert_to_tensor(image, name="image")
    with current_context().name_scope(function):
        flt, dtype = _as_float(image, keep=("float16", "float32"))
        hue, saturation, value = unstack(rgb_to_hsv(flt), axis=-1)
        hue, saturation = change(hue, saturation)
        return convert_image_dtype(hsv_to_rgb(stack([hue, saturation, value], axis=-1)), dtype)


def adjust_hue(image, delta, name=None):
    """RGB images with ``delta`` (in [-1, 1]) added to their hue, modulo 1, as TF 1.15."""
    return _adjust_hsv(image, lambda hue, saturation: ((hue + delta) % 1.0, saturation),
                       name or "adjust_hue")


def adjust_saturation(image, saturation_factor, name=None):
    """RGB images with their saturation times ``saturation_factor``, clipped to [0, 1], as TF
    1.15."""
    return _adjust_hsv(image, lambda hue, saturation: (
        hue, clip_by_value(saturation * saturation_factor, 0.0, 1.0)),
        name or "adjust_saturation")


def random_hue(image, max_delta, seed=None):
    """:func:`adjust_hue` by a delta drawn uniformly from ``[-max_delta, max_delta)`` every
    run, ``max_delta`` in [0, 0.5] (``seed`` as :func:`random_flip_left_right`'s)."""
    max_delta = _number(max_delta, "max_delta", "random_hue")
    if max_delta > 0.5:
        raise ValueError("random_hue: max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("random_hue: max_delta must be non-negative.")
    return adjust_hue(image, random_uniform([], -max_delta, max_delta, seed=seed))


def random_saturation(image, lower, upper, seed=None):
    """:func:`adjust_saturation` by a factor drawn uniformly from ``[lower, upper)`` every run
    (``seed`` as :func:`random_flip_left_right`'s)."""
    return adjust_saturation(image, _random_factor(lower, upper, seed, "random_saturation"))


# TF 1.15's colour matrices (image_ops_impl.py): a pixel's row vector times the matrix
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]


def _colour_matrix(images, matrix, function):
    """``images`` (last axis 3) times TF's 3 x 3 colour matrix, pixel by pixel."""
    images = _rgb(images, function)
    with current_context().name_scope(function):
        return einsum("...i,ij->...j", images, constant(np.array(matrix, images.dtype.name)))


def rgb_to_yuv(images):
    """RGB images (floats in [0, 1], last axis 3) in YUV, by TF 1.15's matrix."""
    return _colour_matrix(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images):
    """YUV images (last axis 3) in RGB, by TF 1.15's matrix."""
    return _colour_matrix(images, _YUV_TO_RGB, "yuv_to_rgb")


def rgb_to_yiq(images):
    """RGB images (floats in [0, 1], last axis 3) in YIQ, by TF 1.15's matrix."""
    return _colour_matrix(images, _RGB_TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images):
    """YIQ images (last axis 3) in RGB, by TF 1.15's matrix."""
    return _colour_matrix(images, _YIQ_TO_RGB, "yiq_to_rgb")


_SOBEL = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float32)


def sobel_edges(image):
    """The Sobel filters' responses ``[batch, height, width, channels, 2]`` (dy, dx) of each
    channel of a batch of images, the border reflected, as TF 1.15 (there a depthwise
    convolution; here the nine shifted slices of the padded images, weighted and summed)."""
    image = _image(image, "sobel_edges", ranks=(4,))
    height, width = _height_width(image, "sobel_edges")
    with current_context().name_scope("sobel_edges"):
        padded = pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
        shifted = {(a, b): padded[:, a:a + height, b:b + width, :]
                   for a in range(3) for b in range(3)}
        edges = [add_n([float(k[a, b]) * shifted[a, b] for a in range(3) for b in range(3)
                        if k[a, b]]) for k in (_SOBEL, _SOBEL.T)]
        return stack(edges, axis=-1)
