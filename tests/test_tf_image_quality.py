"""tf.image.psnr, ssim and ssim_multiscale: TensorFlow 1.15's values, checked against numbers
from real TensorFlow (tf.compat.v1 of TF 2.21, graph mode, written down below), and their
gradients against finite differences."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")

RNG = np.random.default_rng(5)
A = RNG.random((2, 16, 18, 3)).astype(np.float32)
B = np.clip(A + 0.1 * RNG.standard_normal(A.shape).astype(np.float32), 0, 1)
BIG1 = RNG.random((1, 180, 170, 1)).astype(np.float32)
BIG2 = np.clip(BIG1 + 0.2 * RNG.standard_normal(BIG1.shape).astype(np.float32), 0, 1)
U8A, U8B = (A * 255).astype(np.uint8), (B * 255).astype(np.uint8)


def run(fetches, plan_memory=True):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches)


@pytest.mark.parametrize("plan_memory", [True, False])
def test_psnr_and_ssim_as_tensorflow(plan_memory):
    got = run([tf.image.psnr(A, B, 1.0), tf.image.psnr(U8A, U8B, 255),
               tf.image.psnr(A[0], B[0], 2.0), tf.image.ssim(A, B, 1.0),
               tf.image.ssim(U8A, U8B, 255),
               tf.image.ssim(A, B, 1.0, filter_size=5, filter_sigma=1.0, k1=0.02, k2=0.05),
               tf.image.ssim_multiscale(BIG1, BIG2, 1.0),
               tf.image.ssim_multiscale(A, B, 1.0, power_factors=(0.5, 0.5), filter_size=3)],
              plan_memory=plan_memory)
    want = [[20.095196, 20.763018], [20.099585, 20.764818], 26.115795,  # real TF's psnr
            [0.9427343, 0.94354296], [0.94276875, 0.943728], [0.9389538, 0.9458771],  # ssim
            [0.856192], [0.9348407, 0.94432145]]  # real TF's ssim_multiscale
    for value, expected in zip(got, want):
        np.testing.assert_allclose(value, expected, rtol=2e-5)


def test_ssim_gradients_against_finite_differences():
    other = tf.constant(RNG.random((2, 7, 6, 2)).astype(np.float32))
    check_gradients(lambda x: tf.image.ssim(x, other, 1.0, filter_size=3), [(2, 7, 6, 2)],
                    positive=True)
    check_gradients(lambda x: tf.image.psnr(x, other, 1.0), [(2, 7, 6, 2)], positive=True)


def test_bad_images_name_the_function():
    with pytest.raises(ValueError, match="ssim: the images' height and width"):
        tf.image.ssim(A[:, :8], B[:, :8], 1.0)
    with pytest.raises(ValueError, match="psnr: img1 .* and img2 .* must have the same"):
        tf.image.psnr(A, B[:, :5], 1.0)
