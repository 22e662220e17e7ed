"""tf.extract_image_patches / tf.image.extract_patches and tf.histogram_fixed_width against
numpy loops and numbers from real TensorFlow; the patches' gradient against finite
differences."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")

IMAGES = np.arange(2 * 5 * 6 * 3, dtype=np.float32).reshape(2, 5, 6, 3)
# (ksizes, strides, rates, padding) -> real TensorFlow's shape, sum and out[1, 1, 1, :7]
PATCHES = [
    (([1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 1, 1], "SAME"),
     (2, 3, 6, 18), 42960.0, [126, 127, 128, 129, 130, 131, 132]),
    (([1, 2, 2, 1], [1, 2, 3, 1], [1, 2, 1, 1], "VALID"),
     (2, 2, 2, 12), 8448.0, [135, 136, 137, 138, 139, 140, 171]),
    (([1, 3, 2, 1], [1, 3, 2, 1], [1, 1, 2, 1], "SAME"),
     (2, 2, 3, 18), 13380.0, [150, 151, 152, 156, 157, 158, 168]),
]


def numpy_patches(images, ksizes, strides, rates, padding):
    """TF's definition, element by element: zeros outside the (SAME-padded) image."""
    (_, kr, kc, _), (_, sr, sc, _), (_, rr, rc, _) = ksizes, strides, rates
    batch, rows, cols, depth = images.shape
    extents = ((kr - 1) * rr + 1, (kc - 1) * rc + 1)
    outs, befores = [], []
    for size, extent, s in zip((rows, cols), extents, (sr, sc)):
        out = -(-size // s) if padding == "SAME" else (size - extent) // s + 1
        outs.append(out)
        befores.append(max((out - 1) * s + extent - size, 0) // 2)
    result = np.zeros((batch, *outs, kr * kc * depth), np.float32)
    for y, x, i, j in np.ndindex(outs[0], outs[1], kr, kc):
        row, col = y * sr + i * rr - befores[0], x * sc + j * rc - befores[1]
        if 0 <= row < rows and 0 <= col < cols:
            result[:, y, x, (i * kc + j) * depth:(i * kc + j + 1) * depth] = images[:, row, col]
    return result


@pytest.mark.parametrize("args, shape, total, row", PATCHES)
def test_extract_image_patches_match_tensorflow(args, shape, total, row, plan_memory):
    images = tf.placeholder(tf.float32, IMAGES.shape)
    patches = tf.extract_image_patches(images, *args)
    assert patches.get_shape().as_list() == list(shape)
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run(patches, {images: IMAGES})
    np.testing.assert_array_equal(got, numpy_patches(IMAGES, *args))
    assert got.sum() == total
    np.testing.assert_array_equal(got[1, 1, 1, :7], row)


@pytest.mark.parametrize("plan", [True, False])
def test_extract_patches_gradient_matches_finite_differences(plan):
    def patches(images):
        return tf.image.extract_patches(images, sizes=[1, 2, 3, 1], strides=[1, 2, 1, 1],
                                        rates=[1, 1, 2, 1], padding="SAME")
    check_gradients(patches, [(1, 4, 6, 2)], plan_memory=plan)


def test_extract_image_patches_refuse_bad_arguments():
    with pytest.raises(ValueError, match=r"strides must be \[1, rows, cols, 1\]"):
        tf.extract_image_patches(IMAGES, [1, 2, 2, 1], [2, 1, 1, 1], [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="does not fit 5"):
        tf.extract_image_patches(IMAGES, [1, 3, 2, 1], [1, 1, 1, 1], [1, 3, 1, 1], "VALID")
    with pytest.raises(ValueError, match="known rows and cols"):
        tf.extract_image_patches(tf.placeholder(tf.float32, [None, None, 4, 3]),
                                 [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME")


def test_histogram_fixed_width_matches_tensorflow(plan_memory):
    normal = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    outside = tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0, np.inf, -np.inf, 4.999])
    fetches = [tf.histogram_fixed_width(outside, [0.0, 5.0], nbins=5),
               tf.histogram_fixed_width(tf.constant(np.arange(12).reshape(3, 4), tf.int32),
                                        tf.constant([2, 9]), nbins=3, dtype=tf.int64),
               tf.histogram_fixed_width(normal, [-2.0, 2.5], nbins=7)]
    assert [(f.get_shape().as_list(), f.dtype) for f in fetches] == [
        ([5], tf.int32), ([3], tf.int64), ([7], tf.int32)]
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run(fetches)
    # real TensorFlow's counts
    np.testing.assert_array_equal(got[0], [3, 1, 1, 0, 4])
    np.testing.assert_array_equal(got[1], [5, 2, 5])
    np.testing.assert_array_equal(got[2], [79, 158, 264, 237, 159, 79, 24])
    assert got[2].sum() == 1000


def test_histogram_fixed_width_refuses_bad_arguments():
    with pytest.raises(ValueError, match="nbins must be a positive int"):
        tf.histogram_fixed_width([1.0], [0.0, 1.0], nbins=0)
    with pytest.raises(TypeError, match="dtype must be int32 or int64"):
        tf.histogram_fixed_width([1.0], [0.0, 1.0], dtype=tf.float32)
    with pytest.raises(ValueError, match=r"value_range must be \[lo, hi\]"):
        tf.histogram_fixed_width([1.0], [0.0, 1.0, 2.0])
