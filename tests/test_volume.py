"""tf.layers.conv3d / max_pooling3d / average_pooling3d and tf.nn's 3-D functions: the layers
against numbers from real TensorFlow, and their errors.  (The ops themselves, forward and
gradients against torch and finite differences: tests/op_cases_volume.py in test_ops' table.)"""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")

X = np.random.default_rng(3).standard_normal((2, 5, 6, 4, 3)).astype(np.float32)
KERNEL = np.arange(2 * 3 * 2 * 3 * 4).reshape(2, 3, 2, 3, 4) % 7 * 0.05 - 0.1
# Real TensorFlow (tf.compat.v1.layers of tensorflow-cpu 2.21 with tf-keras) on X: shapes,
# sums and one element each of conv3d(4, (2, 3, 2), strides (1, 2, 1), "same", relu, KERNEL,
# bias 0.1), max_pooling3d(2, 2, "same") of it and average_pooling3d((2, 2, 1), (1, 2, 1))
TENSORFLOW = {
    "channels_last": ([(2, 5, 3, 4, 4), (2, 3, 2, 2, 4), (2, 4, 1, 4, 4)],
                      [157.85956, 76.82531, 46.055588], [0.0, 1.478469967842102,
                                                         0.44192710518836975]),
    "channels_first": ([(2, 4, 5, 3, 4), (2, 4, 3, 2, 2), (2, 4, 4, 1, 4)],
                       [157.85956, 76.82532, 46.055584], [0.8112282156944275, 1.40383780002594,
                                                          0.3996633291244507]),
}


@pytest.mark.parametrize("data_format", sorted(TENSORFLOW))
def test_layers_match_tensorflow(data_format, plan_memory):
    x = X if data_format == "channels_last" else X.transpose(0, 4, 1, 2, 3)
    y = tf.layers.conv3d(tf.constant(x), 4, (2, 3, 2), strides=(1, 2, 1), padding="same",
                         data_format=data_format, activation=tf.nn.relu,
                         kernel_initializer=tf.constant_initializer(KERNEL),
                         bias_initializer=tf.constant_initializer(0.1))
    pooled = [tf.layers.max_pooling3d(y, 2, 2, padding="same", data_format=data_format),
              tf.layers.average_pooling3d(y, (2, 2, 1), (1, 2, 1), data_format=data_format)]
    assert [v.name for v in tf.global_variables()] == ["conv3d/kernel:0", "conv3d/bias:0"]
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([y, *pooled])
    shapes, sums, elements = TENSORFLOW[data_format]
    assert [g.shape for g in got] == shapes
    assert [t.get_shape().as_list() for t in (y, *pooled)] == [list(s) for s in shapes]
    np.testing.assert_allclose([g.sum() for g in got], sums, rtol=1e-5)
    np.testing.assert_allclose([got[0].ravel()[17], got[1].ravel()[5], got[2].ravel()[9]],
                               elements, rtol=1e-5, atol=1e-6)


def test_conv3d_layer_trains(plan_memory):
    # one SGD step lowers a squared loss (gradients flow to the kernel and the bias)
    target = tf.constant(np.ones((2, 5, 6, 4, 2), np.float32))
    y = tf.layers.conv3d(tf.constant(X), 2, 3, padding="same")
    loss = tf.reduce_mean(tf.square(y - target))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(loss)
        sess.run(step)
        assert sess.run(loss) < before


def test_volume_functions_refuse_bad_arguments():
    x = tf.constant(X)
    with pytest.raises(ValueError, match=r"strides \[2, 1, 1, 1, 1\] must be \[1, d, h, w, 1\]"):
        tf.nn.conv3d(x, tf.zeros([2, 2, 2, 3, 4]), [2, 1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="dilations .* not supported"):
        tf.nn.conv3d(x, tf.zeros([2, 2, 2, 3, 4]), 1, "SAME", dilations=[1, 2, 2, 2, 1])
    with pytest.raises(tf.ShapeError, match="takes 5 input channels"):
        tf.nn.conv3d(x, tf.zeros([2, 2, 2, 5, 4]), 1, "SAME")
    with pytest.raises(tf.ShapeError, match="larger than the input's width"):
        tf.nn.max_pool3d(x, [1, 2, 2, 5, 1], 1, "VALID")
    with pytest.raises(ValueError, match="data_format must be 'NDHWC' or 'NCDHW'"):
        tf.nn.avg_pool3d(x, 2, 2, "SAME", data_format="NHWC")
    with pytest.raises(ValueError, match="ksize must be a positive int"):
        tf.nn.avg_pool3d(x, [2, 2], 2, "SAME")
    with pytest.raises(ValueError, match="padding must be 'VALID' or 'SAME'"):
        tf.nn.max_pool3d(x, 2, 2, "FULL")
