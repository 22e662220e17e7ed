"""tf.nn.compute_average_loss and scale_regularization_loss against the values real TensorFlow
printed (tf.compat.v1 of TF 2.21 in /work/tfvenv, graph mode, the same constants), with memory
planning on and off; tf.nn.silu is swish."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_compute_average_loss_as_tf(plan_memory):
    losses = [
        tf.nn.compute_average_loss(tf.constant([1., 2., 3., 4.]),
                                   sample_weight=tf.constant([1., 0., 2., .5])),
        tf.nn.compute_average_loss(tf.constant([[1., 2.], [3., 4.]]), global_batch_size=5),
        tf.nn.compute_average_loss(tf.constant([[1., 2.], [3., 4.], [5., 6.]]), sample_weight=2.0),
        tf.nn.compute_average_loss(tf.constant([[1., 2.], [3., 4.], [5., 6.]]),
                                   sample_weight=tf.constant([1., 2., 3.])),
        tf.nn.scale_regularization_loss(tf.constant([1.5, 2.5])),
    ]
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run(losses)
    # TF printed: [2.25, 2.0, 14.0, 16.666666, 4.0]
    np.testing.assert_allclose(got, [2.25, 2.0, 14.0, 16.666666, 4.0], rtol=1e-6)


def test_batch_size_from_the_feed_and_gradient():
    x = tf.placeholder(tf.float32, [None])
    loss = tf.nn.compute_average_loss(x * x)
    grad = tf.gradients(loss, x)[0]
    values = np.float32([1, -2, 3, 0.5])
    got_loss, got_grad = tf.Session().run([loss, grad], {x: values})
    np.testing.assert_allclose(got_loss, np.sum(values ** 2) / 4, rtol=1e-6)
    np.testing.assert_allclose(got_grad, 2 * values / 4, rtol=1e-6)


def test_scalar_loss_is_an_error():
    # TF: "Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1"
    with pytest.raises(ValueError, match="at least rank 1"):
        tf.nn.compute_average_loss(tf.constant(3.0))


def test_silu_is_swish():
    x = np.float32([-2, 0, 1.5])
    got = tf.Session().run(tf.nn.silu(tf.constant(x)))
    np.testing.assert_allclose(got, x / (1 + np.exp(-x)), rtol=1e-6)
