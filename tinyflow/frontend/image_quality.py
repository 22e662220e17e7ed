"""``tf.image``'s image-quality measures: TensorFlow 1.15's ``psnr``, ``ssim`` and
``ssim_multiscale``, composed as TF composes them (a Gaussian window as a depthwise
convolution, average pools between the scales), so each gradient is its primitives'.

The images' height, width and channels must be known when the graph is built (TF checks the
window fits at run time; TinyFlow when the graph is built)."""
from __future__ import annotations

import numpy as np

from ..nnvm.symbol import current_context
from ..nnvm.variables import constant
from .api import log, pow, reduce_mean, reduce_prod, square
from .array_ops import pad, reshape, stack
from .dtypes import float32
from .image_ops import _image, convert_image_dtype
from .math_ops import convert_to_tensor
from .nn.convolutions import depthwise_conv2d
from .nn.functions import avg_pool, relu

__all__ = ["psnr", "ssim", "ssim_multiscale"]

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)  # TF 1.15's power_factors


def _pair(img1, img2, function):
    """Both images in float32 (integer images converted, as TF), their static shapes equal."""
    img1, img2 = (convert_image_dtype(_image(convert_to_tensor(i, name=n), function, (3, 4, 5)),
                                      float32) for i, n in ((img1, "img1"), (img2, "img2")))
    s1, s2 = img1.get_shape().as_list(), img2.get_shape().as_list()
    if None in s1[-3:] or s1[-3:] != s2[-3:]:
        raise ValueError(f"{function}: img1 {img1.get_shape()} and img2 {img2.get_shape()} must "
                         f"have the same height, width and channels, known when the graph is "
                         f"built")
    return img1, img2


def _max_value(max_val, dtype):
    """TF's ``convert_image_dtype(cast(max_val, dtype), float32)`` of a Python number."""
    if dtype.is_integer:
        return float(max_val) / np.iinfo(dtype.name).max
    return float(max_val)


def psnr(a, b, max_val, name=None):
    """The peak signal-to-noise ratio of ``a`` against ``b`` per image: ``20 log10(max_val)
    - 10 log10(mse)``, the mean squared error over each image's height, width and channels
    (integer images converted to float first, as TF 1.15)."""
    dtype = convert_to_tensor(a, name="a").dtype
    with current_context().name_scope(name or "PSNR"):
        a, b = _pair(a, b, "psnr")
        mse = reduce_mean(square(a - b), axis=[-3, -2, -1])
        top = np.float32(20 * np.log(np.float32(_max_value(max_val, dtype))) / np.log(10.0))
        return top - np.float32(10 / np.log(10)) * log(mse)


def _gaussian(size, sigma) -> np.ndarray:
    """TF's _fspecial_gauss: a softmax of ``-(x^2 + y^2) / (2 sigma^2)`` over the window."""
    coords = np.arange(size, dtype=np.float32) - np.float32(size - 1) / np.float32(2)
    g = np.square(coords) * np.float32(-0.5 / np.float32(sigma) ** 2)
    g = (g[None, :] + g[:, None]).reshape(-1)
    g = np.exp(g - g.max())
    return (g / g.sum(dtype=np.float32)).astype(np.float32).reshape(size, size)


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2):
    """``(ssim, cs)`` per channel (TF 1.15's _ssim_per_channel), the local means by a
    Gaussian window over the VALID positions."""
    tail = img1.get_shape().as_list()[-3:]
    if min(tail[:2]) < filter_size:
        raise ValueError(f"ssim: the images' height and width {tail[:2]} must be at least "
                         f"filter_size {filter_size}")
    window = np.tile(_gaussian(filter_size, filter_sigma)[:, :, None, None], [1, 1, tail[2], 1])
    head = img1.get_shape().as_list()[:-3]

    def reducer(x):
        y = depthwise_conv2d(reshape(x, [-1] + tail), constant(window), [1, 1, 1, 1], "VALID")
        return reshape(y, head + y.get_shape().as_list()[1:]) if len(head) != 1 else y

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mean1, mean2 = reducer(img1), reducer(img2)
    num0 = mean1 * mean2 * 2.0
    den0 = square(mean1) + square(mean2)
    luminance = (num0 + c1) / (den0 + c1)
    cs = (reducer(img1 * img2) * 2.0 - num0 + c2) / (reducer(square(img1) + square(img2))
                                                      - den0 + c2)
    return reduce_mean(luminance * cs, axis=[-3, -2]), reduce_mean(cs, axis=[-3, -2])


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
    """The structural similarity of ``img1`` and ``img2`` per image (``[..., height, width,
    channels]``), the mean over channels of TF 1.15's per-channel SSIM: an 11 x 11 Gaussian
    window of sigma 1.5 by default, ``c1 = (k1 max_val)^2``, ``c2 = (k2 max_val)^2``."""
    dtype = convert_to_tensor(img1, name="img1").dtype
    with current_context().name_scope("SSIM"):
        img1, img2 = _pair(img1, img2, "ssim")
        per_channel, _ = _ssim_per_channel(img1, img2, _max_value(max_val, dtype),
                                           int(filter_size), filter_sigma, k1, k2)
        return reduce_mean(per_channel, axis=[-1])


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
    """TF 1.15's multi-scale SSIM: ``len(power_factors)`` scales, each half the last (a 2 x 2
    average pool, an odd size padded symmetrically first), the contrast-structure terms of
    all but the last and the last scale's SSIM raised to ``power_factors`` and multiplied,
    then averaged over the channels."""
    dtype = convert_to_tensor(img1, name="img1").dtype
    max_val = _max_value(max_val, dtype)
    with current_context().name_scope("MS-SSIM"):
        images = list(_pair(img1, img2, "ssim_multiscale"))
        head, tail = images[0].get_shape().as_list()[:-3], images[0].get_shape().as_list()[-3:]
        mcs = []
        for scale in range(len(power_factors)):
            if scale > 0:
                flat = [reshape(x, [-1] + tail) for x in images]
                rest = [tail[0] % 2, tail[1] % 2]
                if any(rest):
                    flat = [pad(x, [[0, 0], [0, rest[0]], [0, rest[1]], [0, 0]], "SYMMETRIC")
                            for x in flat]
                images = [avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID") for x in flat]
                tail = images[0].get_shape().as_list()[1:]
                images = [reshape(x, head + tail) for x in images]
            per_channel, cs = _ssim_per_channel(*images, max_val, int(filter_size),
                                                filter_sigma, k1, k2)
            mcs.append(relu(cs))
        terms = stack(mcs[:-1] + [relu(per_channel)], axis=-1)
        weights = constant(np.array(power_factors, np.float32))
        return reduce_mean(reduce_prod(pow(terms, weights), axis=[-1]), axis=[-1])
