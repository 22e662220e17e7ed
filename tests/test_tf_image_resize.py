"""tf.image's bicubic and area resizing, resize_image_with_pad and the YUV / YIQ colour spaces:
TensorFlow 1.15's semantics, checked against numbers from real TensorFlow (tf.compat.v1 of TF
2.21, graph mode, written down below) and the gradients against finite differences."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")

# the input of every number below: (arange(12) ** 2 / 121) as [1, 3, 4, 1]
X = (np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1) ** 2) / 121

# real TF: resize_bicubic(X, [5, 3]) with its three mappings
BICUBIC = [[0.0, 0.014687, 0.062761], [0.038039, 0.098345, 0.192065],
           [0.214827, 0.34476, 0.508148], [0.46221, 0.644284, 0.859845],
           [0.571755, 0.777392, 1.01653]]
BICUBIC_ALIGN = [[0.0, 0.017562, 0.07438], [0.028926, 0.086777, 0.183884],
                 [0.132231, 0.248967, 0.404959], [0.342975, 0.518595, 0.733471],
                 [0.528926, 0.744835, 1.0]]
BICUBIC_HALF = [[-0.009831, 0.001118, 0.045487], [0.031412, 0.077632, 0.157271],
                [0.139717, 0.25, 0.393702], [0.407749, 0.582095, 0.78986],
                [0.573702, 0.783318, 1.026354]]
# real TF: resize_area(X, [2, 3]), (X, [4, 6]) and (X, [2, 3], align_corners=True)
AREA = [[0.051653, 0.097796, 0.168733], [0.426309, 0.582645, 0.763774]]
AREA_UP = [[0.0, 0.004132, 0.008264, 0.033058, 0.053719, 0.07438],
           [0.088154, 0.114325, 0.140496, 0.209366, 0.252066, 0.294766],
           [0.264463, 0.312672, 0.360882, 0.473829, 0.538568, 0.603306],
           [0.528926, 0.599174, 0.669421, 0.826446, 0.913223, 1.0]]
AREA_ALIGN = [[0.07989, 0.146006, 0.239669], [0.575758, 0.774105, 1.0]]


def run(fetches, plan_memory=True):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches)


@pytest.mark.parametrize("plan_memory", [True, False])
def test_bicubic_and_area_as_tensorflow(plan_memory):
    got = run([tf.image.resize_bicubic(X, [5, 3]),
               tf.image.resize_bicubic(X, [5, 3], align_corners=True),
               tf.image.resize_bicubic(X, [5, 3], half_pixel_centers=True),
               tf.image.resize_area(X, [2, 3]), tf.image.resize_area(X, [4, 6]),
               tf.image.resize_area(X, [2, 3], align_corners=True),
               tf.image.resize_images(X[0], [2, 2], method=tf.image.ResizeMethod.BICUBIC),
               tf.image.resize(X, [2, 3], method=tf.image.ResizeMethod.AREA)],
              plan_memory=plan_memory)
    # real TF: resize_images(X[0], [2, 2], 2) is the seventh
    want = [BICUBIC, BICUBIC_ALIGN, BICUBIC_HALF, AREA, AREA_UP, AREA_ALIGN,
            [[0.0, 0.033058], [0.342975, 0.586777]], AREA]
    for value, expected in zip(got, want):
        assert value.dtype == np.float32
        np.testing.assert_allclose(np.squeeze(value), expected, atol=2e-6)


def test_integer_images_resize_to_float32():
    u8 = tf.constant((X * 255).astype(np.uint8))
    for method in (2, 3):
        resized = tf.image.resize_images(u8, [5, 3], method=method)
        assert resized.dtype == tf.float32
    value = run(tf.image.resize_bicubic(u8, [5, 3]))
    np.testing.assert_allclose(np.squeeze(value), run(tf.image.resize_bicubic(
        (X * 255).astype(np.uint8).astype(np.float32), [5, 3]))[0, :, :, 0], rtol=1e-6)


@pytest.mark.parametrize("resize", [
    lambda t: tf.image.resize_bicubic(t, [5, 7]),
    lambda t: tf.image.resize_bicubic(t, [2, 3], align_corners=True),
    lambda t: tf.image.resize_bicubic(t, [6, 2], half_pixel_centers=True),
    lambda t: tf.image.resize_area(t, [2, 5]),
    lambda t: tf.image.resize_image_with_pad(t, 5, 5)])
def test_resize_gradients_against_finite_differences(resize):
    check_gradients(resize, [(2, 4, 3, 2)])


def test_resize_image_with_pad_as_tensorflow():
    got = run([tf.image.resize_image_with_pad(X[0], 4, 7),
               tf.image.resize_image_with_pad(X, 6, 3, method=1)])
    # real TF: resize_image_with_pad(X[0], 4, 7) (bilinear to 4 x 5, 2 columns of zeros right)
    pad = [[0.0, 0.006612, 0.02314, 0.049587, 0.07438, 0.0, 0.0],
           [0.099174, 0.145455, 0.201653, 0.267769, 0.322314, 0.0, 0.0],
           [0.330578, 0.416529, 0.512397, 0.618182, 0.702479, 0.0, 0.0],
           [0.528926, 0.641322, 0.763636, 0.895868, 1.0, 0.0, 0.0]]
    # real TF: resize_image_with_pad(X, 6, 3, method=NEAREST_NEIGHBOR)
    pad_nearest = [[0.0, 0.0, 0.0], [0.0, 0.008264, 0.033058], [0.132231, 0.206612, 0.297521],
                   [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    np.testing.assert_allclose(np.squeeze(got[0]), pad, atol=2e-6)
    np.testing.assert_allclose(np.squeeze(got[1]), pad_nearest, atol=2e-6)
    assert got[0].shape == (4, 7, 1) and got[1].shape == (1, 6, 3, 1)


def test_colour_spaces_as_tensorflow():
    pixels = X.reshape(4, 3)
    got = run([tf.image.rgb_to_yuv(pixels), tf.image.rgb_to_yiq(pixels),
               tf.image.yuv_to_rgb(pixels), tf.image.yiq_to_rgb(pixels),
               tf.image.yuv_to_rgb(tf.image.rgb_to_yuv(pixels)),
               tf.image.yiq_to_rgb(tf.image.rgb_to_yiq(pixels))])
    want = [  # real TF, the four functions of X as 4 pixels
        [[0.00862, 0.012026, -0.007562], [0.123413, 0.040943, -0.043016],
         [0.386967, 0.069859, -0.07847], [0.799281, 0.098776, -0.113924]],
        [[0.00862, -0.012892, 0.005967], [0.123413, -0.058375, 0.010907],
         [0.386967, -0.103858, 0.01584], [0.799281, -0.149342, 0.020769]],
        [[0.037682, -0.022456, 0.016794], [0.309893, -0.097767, 0.343083],
         [0.900434, -0.169399, 1.120422], [1.809304, -0.237351, 2.348812]],
        [[0.028424, -0.023643, 0.047192], [0.329061, -0.095308, 0.280148],
         [1.013026, -0.154956, 0.750748], [2.080318, -0.202587, 1.458991]]]
    for value, expected in zip(got, want):
        np.testing.assert_allclose(value, expected, atol=2e-6)
    np.testing.assert_allclose(got[4], pixels, atol=1e-4)  # TF's inverses, to 1e-4
    np.testing.assert_allclose(got[5], pixels, atol=1e-4)
    check_gradients(tf.image.rgb_to_yiq, [(2, 3, 3)])


def test_bad_arguments_name_the_function():
    with pytest.raises(ValueError, match="rgb_to_yuv: the images' last dimension must be 3"):
        tf.image.rgb_to_yuv(np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="resize_image_with_pad: target_width must be > 0"):
        tf.image.resize_image_with_pad(X, 3, 0)
    with pytest.raises(ValueError, match="half_pixel_centers is True, align_corners must be"):
        tf.image.resize_bicubic(X, [2, 2], align_corners=True, half_pixel_centers=True)

