"""tf.image and tf.random_crop: TensorFlow 1.15's semantics, checked against numbers from real
TensorFlow (tf.compat.v1 of TF 2.21, graph mode; written down where they are used), numpy,
torch's interpolation and autograd, and finite differences."""
import re

import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")

IMAGE = np.random.default_rng(0).random((4, 5, 3)).astype(np.float32)
BATCH = np.random.default_rng(1).random((6, 4, 5, 3)).astype(np.float32)


def run(fetches, feeds=None, plan_memory=True):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches, feeds)


def test_the_names():
    assert tf.image.random_crop is tf.random_crop is tf.compat.v1.random_crop
    assert tf.compat.v1.image.resize_images is tf.image.resize_images
    assert (tf.image.ResizeMethod.BILINEAR, tf.image.ResizeMethod.NEAREST_NEIGHBOR,
            tf.image.ResizeMethod.BICUBIC, tf.image.ResizeMethod.AREA) == (0, 1, 2, 3)  # TF's
    with pytest.raises(AttributeError, match="tf.image.decode_jpeg is TensorFlow 1.15's, but"):
        tf.image.decode_jpeg  # noqa: B018  (string tensors, which TinyFlow lacks)
    assert tf.image.resize is tf.image.resize_images  # as TF 1.15
    assert tf.image.resize_with_crop_or_pad is tf.image.resize_image_with_crop_or_pad
    assert tf.image.transpose is tf.image.transpose_image
    with pytest.raises(AttributeError, match="did you mean tf.image.resize_images"):
        tf.image.resize_imags  # noqa: B018


@pytest.mark.parametrize("plan_memory", [True, False])
def test_flips_rotations_and_transposes_against_numpy(plan_memory):
    fns = [tf.image.flip_left_right, tf.image.flip_up_down, tf.image.transpose_image,
           lambda x: tf.image.rot90(x, 1), lambda x: tf.image.rot90(x, 2),
           lambda x: tf.image.rot90(x, 3), lambda x: tf.image.rot90(x, -1),
           lambda x: tf.image.rot90(x, 4)]
    got = run([f(IMAGE) for f in fns] + [f(BATCH) for f in fns], plan_memory=plan_memory)
    for offset, image, axes in ((0, IMAGE, (0, 1)), (len(fns), BATCH, (1, 2))):
        want = [np.flip(image, axes[1]), np.flip(image, axes[0]), np.swapaxes(image, *axes),
                np.rot90(image, 1, axes), np.rot90(image, 2, axes), np.rot90(image, 3, axes),
                np.rot90(image, 3, axes), image]
        for value, expected in zip(got[offset:], want):
            np.testing.assert_array_equal(value, expected)
    # real TF: rot90 of arange(12).reshape(2, 3, 2), channel 0, k=1 and k=3
    x = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    k1, k3 = run([tf.image.rot90(x, 1), tf.image.rot90(x, 3)])
    np.testing.assert_array_equal(k1[:, :, 0], [[4, 10], [2, 8], [0, 6]])
    np.testing.assert_array_equal(k3[:, :, 0], [[6, 0], [8, 2], [10, 4]])


def test_per_image_standardization_as_tensorflow():
    x = np.array([[[1., 2.], [3., 4.]], [[5., 6.], [7., 9.]]], np.float32)
    got, flat, batch, from_ints = run([
        tf.image.per_image_standardization(x),
        tf.image.per_image_standardization(np.ones((2, 2, 1), np.float32)),
        tf.image.per_image_standardization(BATCH),
        tf.image.per_image_standardization(np.arange(12, dtype=np.uint8).reshape(2, 2, 3))])
    # real TF's numbers
    np.testing.assert_allclose(got, [[[-1.4518158, -1.0513149], [-0.650814, -0.25031307]],
                                     [[0.15018785, 0.55068874], [0.9511897, 1.7521915]]],
                               rtol=1e-5)
    np.testing.assert_array_equal(flat, np.zeros((2, 2, 1)))  # the adjusted stddev 1/sqrt(4)
    for image, value in zip(BATCH, batch):  # numpy: each image alone
        want = (image - image.mean()) / max(image.std(), 1 / np.sqrt(image.size))
        np.testing.assert_allclose(value, want, rtol=1e-4, atol=1e-5)
    assert from_ints.dtype == np.float32  # TF 1.15: float32 whatever the input
    check_gradients(tf.image.per_image_standardization, [(3, 4, 2)])


def test_crops_and_pads_as_tensorflow():
    central = [tf.image.central_crop(tf.placeholder(tf.float32, [h, w, 3]), f).get_shape()
               for h, w, f in ((5, 7, 0.5), (10, 10, 0.3), (32, 32, 0.875), (3, 3, 0.1))]
    assert [s.as_list() for s in central] == [[3, 5, 3], [4, 4, 3], [28, 28, 3], [1, 1, 3]]  # TF
    x = np.arange(15, dtype=np.float32).reshape(5, 3, 1)
    got = run([tf.image.resize_image_with_crop_or_pad(x, 3, 6),
               tf.image.crop_to_bounding_box(BATCH, 1, 2, 2, 3),
               tf.image.pad_to_bounding_box(IMAGE, 1, 2, 7, 8),
               tf.image.central_crop(BATCH, 0.5), tf.image.central_crop(IMAGE, 1.0)])
    # real TF: 5x3 -> 3x6, the crop keeps rows 1..3, the pad puts one column before
    np.testing.assert_array_equal(got[0][:, :, 0], [[0, 3, 4, 5, 0, 0], [0, 6, 7, 8, 0, 0],
                                                    [0, 9, 10, 11, 0, 0]])
    np.testing.assert_array_equal(got[1], BATCH[:, 1:3, 2:5])
    want = np.zeros((7, 8, 3), np.float32)
    want[1:5, 2:7] = IMAGE
    np.testing.assert_array_equal(got[2], want)
    np.testing.assert_array_equal(got[3], BATCH[:, 1:3, 1:4])
    np.testing.assert_array_equal(got[4], IMAGE)
    check_gradients(lambda t: tf.image.resize_image_with_crop_or_pad(t, 3, 6), [(4, 4, 2)])


@pytest.mark.parametrize("call, message", [  # TF 1.15's messages
    (lambda p: tf.image.crop_to_bounding_box(p, -1, 0, 2, 2), "offset_height must be >= 0"),
    (lambda p: tf.image.crop_to_bounding_box(p, 0, 0, 0, 2), "target_height must be > 0"),
    (lambda p: tf.image.crop_to_bounding_box(p, 3, 0, 2, 2), "height must be >= target + offset"),
    (lambda p: tf.image.crop_to_bounding_box(p, 0, 4, 2, 2), "width must be >= target + offset"),
    (lambda p: tf.image.pad_to_bounding_box(p, -1, 0, 6, 6), "offset_height must be >= 0"),
    (lambda p: tf.image.pad_to_bounding_box(p, 3, 0, 6, 6), "height must be <= target - offset"),
    (lambda p: tf.image.pad_to_bounding_box(p, 0, 2, 6, 6), "width must be <= target - offset"),
    (lambda p: tf.image.central_crop(p, 0.0), "central_fraction must be within (0, 1]"),
    (lambda p: tf.image.central_crop(p, 1.5), "central_fraction must be within (0, 1]"),
    (lambda p: tf.image.resize_image_with_crop_or_pad(p, 0, 3), "target_height must be > 0"),
    (lambda p: tf.image.random_brightness(p, -1.0), "max_delta must be non-negative"),
    (lambda p: tf.image.random_contrast(p, 0.5, 0.5), "upper must be > lower"),
    (lambda p: tf.image.random_contrast(p, -0.5, 0.5), "lower must be non-negative"),
    (lambda p: tf.image.flip_left_right(p[0]), "must be 3 or 4-dimensional"),
    (lambda p: tf.image.resize_bilinear(p, [2, 2]), "must be 4-dimensional"),
    (lambda p: tf.random_crop(p, [5, 5, 3]), "Need value.shape >= size"),
    (lambda p: tf.random_crop(p, [2, 3]), "Need value.shape >= size"),
    (lambda p: tf.image.resize_images(p, [2, 2], method=4), "Resize method is not implemented"),
])
def test_bad_arguments_are_errors_naming_them(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call(tf.placeholder(tf.float32, [4, 5, 3]))


def test_tensor_arguments_and_unknown_sizes_are_refused_clearly():
    p = tf.placeholder(tf.float32, [4, 5, 3])
    with pytest.raises(TypeError, match="rot90: TinyFlow takes k as a Python int"):
        tf.image.rot90(p, tf.constant(1))
    with pytest.raises(TypeError, match="resize_images: TinyFlow takes size as two Python ints"):
        tf.image.resize_images(p, tf.constant([2, 2]))
    with pytest.raises(ValueError, match="central_crop: TinyFlow needs the image's height"):
        tf.image.central_crop(tf.placeholder(tf.float32, [None, None, 3]), 0.5)


def test_convert_image_dtype_as_tensorflow():
    u = np.array([[[0, 128, 255]]], np.uint8)
    f = np.array([0.0, 0.5, 1.0, 1.2, -0.1], np.float32)
    got = run([tf.image.convert_image_dtype(u, tf.float32),
               tf.image.convert_image_dtype(f, tf.uint8, saturate=True),
               tf.image.convert_image_dtype(f[:3], tf.uint8),
               tf.image.convert_image_dtype(u, tf.int32),
               tf.image.convert_image_dtype(np.array([0, 2**31 - 1, 2**24], np.int32), tf.uint8),
               tf.image.convert_image_dtype(f, tf.float64)])
    # real TF's numbers
    np.testing.assert_allclose(got[0], [[[0.0, 0.5019608, 1.0]]], rtol=1e-6)
    np.testing.assert_array_equal(got[1], [0, 127, 255, 255, 0])
    np.testing.assert_array_equal(got[2], [0, 127, 255])
    np.testing.assert_array_equal(got[3], [[[0, 1073741824, 2139095040]]])
    np.testing.assert_array_equal(got[4], [0, 255, 2])
    assert got[1].dtype == np.uint8 and got[3].dtype == np.int32 and got[5].dtype == np.float64


def test_brightness_contrast_gamma_grayscale_as_tensorflow():
    u = np.array([[[10, 100, 200]]], np.uint8)
    x = np.array([[[1., 2.], [3., 4.]], [[5., 6.], [7., 9.]]], np.float32)
    got = run([tf.image.adjust_brightness(np.array([[[0, 128, 255]]], np.uint8), 0.1),
               tf.image.adjust_contrast(np.array([[[10], [20]], [[30], [250]]], np.uint8), 2.0),
               tf.image.adjust_contrast(x, 2.0), tf.image.adjust_gamma(u, 2.0, 1.5),
               tf.image.adjust_gamma(np.array([[[0.1, 0.5, 0.9]]], np.float32), 0.5),
               tf.image.rgb_to_grayscale(u.astype(np.float32)), tf.image.rgb_to_grayscale(u),
               tf.image.grayscale_to_rgb(x[..., :1])])
    # real TF's numbers
    np.testing.assert_array_equal(got[0], [[[25, 153, 255]]])
    np.testing.assert_array_equal(got[1], [[[0], [0]], [[0], [255]]])
    np.testing.assert_allclose(got[2], [[[-2.0, -1.25], [2.0, 2.75]], [[6.0, 6.75], [10.0, 12.75]]])
    np.testing.assert_array_equal(got[3], [[[0, 58, 235]]])
    np.testing.assert_allclose(got[4], [[[0.31622776, 0.70710677, 0.94868326]]], rtol=1e-6)
    np.testing.assert_allclose(got[5], [[[84.489]]], rtol=1e-6)
    np.testing.assert_array_equal(got[6], [[[84]]])
    np.testing.assert_array_equal(got[7], np.repeat(x[..., :1], 3, axis=-1))
    check_gradients(lambda t: tf.image.adjust_contrast(t, 1.7), [(2, 3, 4, 2)])


def test_total_variation_and_image_gradients_as_tensorflow():
    y = np.array([[1., 4., 2.], [0., 3., 9.]], np.float32).reshape(1, 2, 3, 1)
    tv4, tv3, (dy, dx) = run([tf.image.total_variation(tf.constant(y)),
                              tf.image.total_variation(tf.constant(y[0])),
                              tf.image.image_gradients(tf.constant(y))])
    # real TF's numbers
    np.testing.assert_array_equal(tv4, [23.0])
    assert tv3 == 23.0
    np.testing.assert_array_equal(dy[0, :, :, 0], [[-1, -1, 7], [0, 0, 0]])
    np.testing.assert_array_equal(dx[0, :, :, 0], [[3, -2, 0], [3, 6, 0]])


def _tf1_bilinear(image, rows, cols, align_corners):
    """TF 1.15's ResizeBilinear kernel (half_pixel_centers=False), pixel by pixel."""
    n, h, w, c = image.shape
    out = np.zeros((n, rows, cols, c), np.float32)
    scale_h = (h - 1) / (rows - 1) if align_corners and rows > 1 else h / rows
    scale_w = (w - 1) / (cols - 1) if align_corners and cols > 1 else w / cols
    for i in range(rows):
        y = np.float32(i * np.float32(scale_h))
        y0, y1, dy = int(np.floor(y)), min(int(np.ceil(y)), h - 1), y - np.floor(y)
        for j in range(cols):
            x = np.float32(j * np.float32(scale_w))
            x0, x1, dx = int(np.floor(x)), min(int(np.ceil(x)), w - 1), x - np.floor(x)
            top = image[:, y0, x0] + (image[:, y0, x1] - image[:, y0, x0]) * dx
            bottom = image[:, y1, x0] + (image[:, y1, x1] - image[:, y1, x0]) * dx
            out[:, i, j] = top + (bottom - top) * dy
    return out


@pytest.mark.parametrize("plan_memory", [True, False])
def test_resize_bilinear_is_tf1s_not_torchs(plan_memory):
    img = np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1)
    img3 = np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1)
    got = run([tf.image.resize_bilinear(img, [3, 3]),
               tf.image.resize_bilinear(img, [3, 3], align_corners=True),
               tf.image.resize_bilinear(img3, [2, 3])], plan_memory=plan_memory)
    # real TF 1.15 (legacy mapping in = out * 2/3, not torch's half-pixel centres)
    np.testing.assert_allclose(got[0][0, :, :, 0], [[0, 2 / 3, 1], [4 / 3, 2, 7 / 3],
                                                    [2, 8 / 3, 3]], rtol=1e-6)
    np.testing.assert_allclose(got[1][0, :, :, 0], [[0, .5, 1], [1, 1.5, 2], [2, 2.5, 3]])
    np.testing.assert_allclose(got[2][0, :, :, 0], [[0, 4 / 3, 8 / 3], [6, 22 / 3, 26 / 3]],
                               rtol=1e-6)
    torch_way = torch.nn.functional.interpolate(torch.tensor(img).permute(0, 3, 1, 2), (3, 3),
                                                mode="bilinear", align_corners=False)
    assert not np.allclose(torch_way[0, 0].numpy(), got[0][0, :, :, 0])
    for shape, size, align in (((2, 5, 7, 3), (8, 3), False), ((1, 4, 4, 2), (9, 6), True),
                               ((3, 6, 5, 1), (2, 2), False), ((1, 1, 3, 1), (4, 1), True)):
        image = np.random.default_rng(2).random(shape).astype(np.float32)
        value = run(tf.image.resize_bilinear(image, size, align_corners=align))
        np.testing.assert_allclose(value, _tf1_bilinear(image, *size, align), rtol=1e-5,
                                   atol=1e-6)


@pytest.mark.parametrize("align, half", [(True, False), (False, True)])
def test_resize_bilinear_value_and_gradient_against_torch(align, half):
    # TF's align_corners and half_pixel_centers are torch's align_corners True and False
    image = np.random.default_rng(3).random((2, 5, 4, 3)).astype(np.float32)
    weights = np.random.default_rng(4).random((2, 7, 9, 3)).astype(np.float32)
    x = tf.constant(image)
    resized = tf.image.resize_bilinear(x, [7, 9], align_corners=align, half_pixel_centers=half)
    loss = tf.reduce_sum(resized * tf.constant(weights))
    value, grad = run([resized, tf.gradients(loss, x)[0]])
    t = torch.tensor(image).permute(0, 3, 1, 2).requires_grad_()
    want = torch.nn.functional.interpolate(t, (7, 9), mode="bilinear", align_corners=align)
    (want * torch.tensor(weights).permute(0, 3, 1, 2)).sum().backward()
    np.testing.assert_allclose(value, want.permute(0, 2, 3, 1).detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(grad, t.grad.permute(0, 2, 3, 1).numpy(), rtol=1e-5, atol=1e-5)


def test_resize_bilinear_gradient_as_tensorflow_and_finite_differences():
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(1, 2, 3, 1))
    weights = tf.constant(np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1))
    grad = run(tf.gradients(tf.reduce_sum(tf.image.resize_bilinear(x, [3, 4]) * weights), x)[0])
    # real TF's ResizeBilinearGrad
    np.testing.assert_allclose(grad[0, :, :, 0], [[2, 4, 22 / 3], [13.75, 16.25, 68 / 3]],
                               rtol=1e-6)
    check_gradients(lambda t: tf.image.resize_bilinear(t, [5, 3]), [(2, 3, 4, 2)])


def test_resize_nearest_neighbor_and_resize_images_as_tensorflow():
    img = np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1)
    n9 = np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1)
    got = run([tf.image.resize_nearest_neighbor(img, [3, 3]),
               tf.image.resize_nearest_neighbor(img, [3, 3], align_corners=True),
               tf.image.resize_nearest_neighbor(n9, [5, 4]),
               tf.image.resize_nearest_neighbor(n9, [5, 4], align_corners=True),
               tf.image.resize_nearest_neighbor(n9, [5, 4], half_pixel_centers=True)])
    # real TF's numbers
    np.testing.assert_array_equal(got[0][0, :, :, 0], [[0, 0, 1], [0, 0, 1], [2, 2, 3]])
    np.testing.assert_array_equal(got[1][0, :, :, 0], [[0, 1, 1], [2, 3, 3], [2, 3, 3]])
    np.testing.assert_array_equal(got[2][0, :, :, 0], [[0, 0, 1, 2], [0, 0, 1, 2], [3, 3, 4, 5],
                                                       [3, 3, 4, 5], [6, 6, 7, 8]])
    np.testing.assert_array_equal(got[3][0, :, :, 0], [[0, 1, 1, 2], [3, 4, 4, 5], [3, 4, 4, 5],
                                                       [6, 7, 7, 8], [6, 7, 7, 8]])
    np.testing.assert_array_equal(got[4][0, :, :, 0], [[0, 1, 1, 2], [0, 1, 1, 2], [3, 4, 4, 5],
                                                       [6, 7, 7, 8], [6, 7, 7, 8]])
    u8 = tf.placeholder(tf.uint8, [4, 4, 3])
    assert tf.image.resize_images(u8, [2, 2]).dtype == tf.float32  # TF: bilinear gives float
    assert tf.image.resize_images(u8, [2, 2], method=1).dtype == tf.uint8
    assert tf.image.resize_images(u8, [4, 4]) is u8  # TF: the image of that size unchanged
    aspect = [tf.image.resize_images(tf.placeholder(tf.float32, shape), size,
                                     preserve_aspect_ratio=True).get_shape().as_list()
              for shape, size in (([10, 20, 3], [7, 7]), ([2, 30, 20, 3], [9, 100]))]
    assert aspect == [[4, 7, 3], [2, 9, 6, 3]]  # real TF's shapes
    single, batch = run([tf.image.resize_images(IMAGE, [7, 3]),
                         tf.image.resize_images(BATCH, [7, 3], method=1)])
    np.testing.assert_allclose(single, _tf1_bilinear(IMAGE[None], 7, 3, False)[0], rtol=1e-5)
    np.testing.assert_array_equal(batch, BATCH[:, [0, 0, 1, 1, 2, 2, 3]][:, :, [0, 1, 3]])


def _runs(fetch, feeds, times):
    """``times`` values of ``fetch`` from one session."""
    with tf.Session() as sess:
        return [sess.run(fetch, feeds) for _ in range(times)]


def test_random_flips_pick_the_image_or_its_mirror_per_image():
    p = tf.placeholder(tf.float32, [4, 5, 3])
    b = tf.placeholder(tf.float32, [6, 4, 5, 3])
    single = tf.image.random_flip_left_right(p)
    batch = tf.image.random_flip_up_down(b)
    seen, per_image = set(), set()
    for one, many in _runs([single, batch], {p: IMAGE, b: BATCH}, 30):
        assert np.array_equal(one, IMAGE) or np.array_equal(one, IMAGE[:, ::-1])
        seen.add(np.array_equal(one, IMAGE))
        for image, value in zip(BATCH, many):
            flipped = np.array_equal(value, image[::-1])
            assert flipped or np.array_equal(value, image)
            per_image.add(flipped)
    assert seen == {True, False} and per_image == {True, False}  # 2**-29 odds of failing


def test_random_crop_takes_a_window_and_a_graph_seed_reproduces():
    def build():
        tf.reset_default_graph()
        tf.set_random_seed(7)
        p = tf.placeholder(tf.float32, [4, 5, 3])
        crop = tf.random_crop(p, [2, 3, 3])
        return p, crop, tf.image.random_brightness(p, 0.3), tf.image.random_contrast(p, 0.2, 1.8)

    p, crop, bright, contrast = build()
    first = _runs([crop, bright, contrast], {p: IMAGE}, 20)
    offsets = set()
    for window, brighter, contrasted in first:
        found = [(i, j) for i in range(3) for j in range(3)
                 if np.array_equal(window, IMAGE[i:i + 2, j:j + 3])]
        assert found, "the crop is no window of the image"
        offsets.add(found[0])
        delta = brighter - IMAGE
        assert np.allclose(delta, delta.flat[0], atol=1e-6) and abs(delta.flat[0]) <= 0.3
        mean = IMAGE.mean(axis=(0, 1))
        factor = (contrasted - mean) / (IMAGE - mean)
        assert np.allclose(factor, factor.flat[0], rtol=1e-3) and 0.2 <= factor.flat[0] < 1.8
    assert len(offsets) > 3
    p, crop, bright, contrast = build()
    again = _runs([crop, bright, contrast], {p: IMAGE}, 20)
    for a, b in zip(first, again):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    # the gradient: the head's values in the window the same run took, zeros elsewhere
    weights = np.random.default_rng(6).random((2, 3, 3)).astype(np.float32)
    grad = tf.gradients(tf.reduce_sum(crop * tf.constant(weights)), p)[0]
    for window, g in _runs([crop, grad], {p: IMAGE}, 5):
        i, j = next((i, j) for i in range(3) for j in range(3)
                    if np.array_equal(window, IMAGE[i:i + 2, j:j + 3]))
        want = np.zeros_like(IMAGE)
        want[i:i + 2, j:j + 3] = weights
        np.testing.assert_array_equal(g, want)


def test_in_a_tf_data_map_function():
    # the CIFAR-10 tutorial's distortions, on a pipeline
    images = np.random.default_rng(5).integers(0, 256, (8, 32, 32, 3)).astype(np.uint8)

    def distort(image):
        image = tf.cast(image, tf.float32)
        image = tf.random_crop(image, [24, 24, 3])
        image = tf.image.random_flip_left_right(image)
        image = tf.image.random_brightness(image, max_delta=63)
        image = tf.image.random_contrast(image, lower=0.2, upper=1.8)
        return tf.image.per_image_standardization(image)

    dataset = tf.data.Dataset.from_tensor_slices(images).map(distort).batch(4)
    batch = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
    value = run(batch)
    assert value.shape == (4, 24, 24, 3) and value.dtype == np.float32
    np.testing.assert_allclose(value.mean(axis=(1, 2, 3)), 0, atol=1e-4)
    np.testing.assert_allclose(value.std(axis=(1, 2, 3)), 1, rtol=1e-3)


RGB = np.array([[[0.2, 0.4, 0.6], [0.9, 0.1, 0.1], [0.5, 0.5, 0.5], [0., 0., 0.], [0.3, 0.8, 0.2],
                 [0.7, 0.2, 0.9], [1.0, 1.0, 0.0]]], np.float32)


def test_hsv_conversions_as_tensorflow():
    hsv = np.array([[[1.0, 1, 1], [0.999, 1, 1], [1.2, 1, 1], [-0.1, 1, 1], [0.5, 0.5, 0.8],
                     [0.1, 0.3, 0.7], [2.5, 1, 1]]], np.float32)
    to_hsv, to_rgb, round_trip = run([tf.image.rgb_to_hsv(RGB), tf.image.hsv_to_rgb(hsv),
                                      tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(BATCH[..., :3]))])
    # real TF's numbers (a hue outside [0, 1] clamps to red)
    np.testing.assert_allclose(to_hsv, [[[0.58333337, 0.6666667, 0.6], [0, 0.8888888, 0.9],
                                         [0, 0, 0.5], [0, 0, 0], [0.30555555, 0.75, 0.8],
                                         [0.7857143, 0.7777778, 0.9], [0.16666667, 1, 1]]],
                               rtol=1e-6)
    np.testing.assert_allclose(to_rgb, [[[1, 0, 0], [1, 0, 0.006000042], [1, 0, 0], [1, 0, 0],
                                         [0.4, 0.8, 0.8], [0.7, 0.616, 0.49], [1, 0, 0]]],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(round_trip, BATCH[..., :3], atol=1e-6)
    check_gradients(tf.image.rgb_to_hsv, inputs=[RGB[:, [0, 4, 5]]])  # no ties: differentiable
    check_gradients(tf.image.hsv_to_rgb, inputs=[[[[0.3, 0.5, 0.8], [0.7, 0.2, 0.4]]]])
    with pytest.raises(ValueError, match="rgb_to_hsv: the images' last dimension must be 3"):
        tf.image.rgb_to_hsv(RGB[..., :2])
    with pytest.raises(TypeError, match="must be float16, float32 or float64, got uint8"):
        tf.image.rgb_to_hsv(RGB.astype(np.uint8))


def test_hue_saturation_and_sobel_as_tensorflow():
    u = (RGB * 255).astype(np.uint8)
    got = run([tf.image.adjust_hue(RGB, 0.3), tf.image.adjust_hue(RGB, -0.7),
               tf.image.adjust_saturation(RGB, 1.7), tf.image.adjust_saturation(RGB, 0.3),
               tf.image.adjust_hue(u, 0.3), tf.image.adjust_saturation(u, 1.7)])
    # real TF's numbers
    hue = [[[0.6, 0.2, 0.48], [0.26, 0.9, 0.1], [0.5, 0.5, 0.5], [0, 0, 0], [0.2, 0.42, 0.8],
            [0.9, 0.56, 0.2], [0, 1, 0.8]]]
    np.testing.assert_allclose(got[0], hue, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], hue, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], [[[0, 0.3, 0.6], [0.9, 0, 0], [0.5, 0.5, 0.5], [0, 0, 0],
                                         [0.1333334, 0.8, 0], [0.64285725, 0, 0.9], [1, 1, 0]]],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[3], [[[0.48, 0.54, 0.6], [0.9, 0.66, 0.66], [0.5, 0.5, 0.5],
                                         [0, 0, 0], [0.65, 0.8, 0.62], [0.84, 0.69, 0.9],
                                         [1, 1, 0.7]]], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[4], [[[153, 51, 122], [65, 229, 25], [127, 127, 127],
                                            [0, 0, 0], [51, 106, 204], [229, 142, 51],
                                            [0, 255, 204]]])
    np.testing.assert_array_equal(got[5], [[[0, 76, 153], [229, 0, 0], [127, 127, 127],
                                            [0, 0, 0], [33, 204, 0], [163, 0, 229], [255, 255, 0]]])
    x = np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1) ** 2
    edges = run(tf.image.sobel_edges(tf.constant(x)))
    assert edges.shape == (1, 3, 4, 1, 2)  # real TF's numbers: dy, then dx
    np.testing.assert_array_equal(edges[0, :, :, 0, 0], [[0, 0, 0, 0], [288, 320, 384, 416],
                                                         [0, 0, 0, 0]])
    np.testing.assert_array_equal(edges[0, :, :, 0, 1], [[0, 48, 64, 0], [0, 80, 96, 0],
                                                         [0, 112, 128, 0]])
    for call, message in ((lambda: tf.image.random_hue(RGB, 0.6), "max_delta must be <= 0.5."),
                          (lambda: tf.image.random_hue(RGB, -0.1), "max_delta must be non-neg"),
                          (lambda: tf.image.random_saturation(RGB, 1, 1), "upper must be > lo"),
                          (lambda: tf.image.random_saturation(RGB, -1, 1), "lower must be non")):
        with pytest.raises(ValueError, match=re.escape(message)):  # TF 1.15's messages
            call()


def test_random_hue_and_saturation_stay_in_their_ranges():
    tf.set_random_seed(11)
    p = tf.placeholder(tf.float32, [1, 7, 3])
    hue, saturation = tf.image.random_hue(p, 0.2), tf.image.random_saturation(p, 0.5, 1.5)
    hsv = tf.image.rgb_to_hsv(p)
    shifted, scaled = tf.image.rgb_to_hsv(hue), tf.image.rgb_to_hsv(saturation)
    deltas, factors = set(), set()
    for original, h, s in _runs([hsv, shifted, scaled], {p: RGB}, 10):
        delta = (h[0, 0, 0] - original[0, 0, 0] + 0.5) % 1.0 - 0.5  # the first pixel's shift
        assert abs(delta) <= 0.2 + 1e-6
        coloured = original[..., 1] > 0  # a grey pixel's hue stays 0
        np.testing.assert_allclose(((h - original)[..., 0] - delta + 0.5)[coloured] % 1.0 - 0.5,
                                   0, atol=1e-5)
        np.testing.assert_allclose(h[..., 2], original[..., 2], atol=1e-6)  # the value kept
        factor = s[0, 0, 1] / original[0, 0, 1]
        assert 0.5 - 1e-6 <= factor <= 1.5
        np.testing.assert_allclose(s[..., 1], np.minimum(original[..., 1] * factor, 1), atol=1e-5)
        deltas.add(round(float(delta), 5))
        factors.add(round(float(factor), 5))
    assert len(deltas) > 5 and len(factors) > 5


def test_a_batch_of_unknown_size_flips_per_image():
    b = tf.placeholder(tf.float32, [None, 4, 5, 3])
    flipped = tf.image.random_flip_left_right(b, seed=5)
    assert flipped.get_shape().as_list() == [None, 4, 5, 3]
    standardized = tf.image.per_image_standardization(b)
    for many, _ in _runs([flipped, standardized], {b: BATCH}, 5):
        for image, value in zip(BATCH, many):
            assert np.array_equal(value, image[:, ::-1]) or np.array_equal(value, image)
