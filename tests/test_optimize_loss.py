"""tf.contrib.layers.optimize_loss (TF 1.15's contrib optimizers.py; TF 2.21 has no contrib, so
the references are TF's formulas by hand): the returned loss is the one before the update, the
update by the named optimizer with the gradients clipped by global norm, the learning rate a
variable 'OptimizeLoss/learning_rate', UPDATE_OPS first, TF's summary tags and errors."""
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _quadratic():
    w = tf.Variable(3.0, name="w")
    return w, tf.square(w)


def test_sgd_by_name_with_clipping_and_the_global_step():
    w, loss = _quadratic()
    step = tf.train.get_or_create_global_step()
    train = tf.contrib.layers.optimize_loss(loss, step, 0.5, "SGD", clip_gradients=1.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(train) == 9.0  # the loss before the update
        # gradient 6 clipped to norm 1: w = 3 - 0.5 * 1
        assert sess.run([w, step]) == [2.5, 1]
    names = [v.op.name for v in tf.global_variables()]
    assert "OptimizeLoss/learning_rate" in names


@pytest.mark.parametrize("how", ["class", "instance", "callable", "tensor rate"])
def test_optimizer_given_as_class_instance_or_function(how):
    w, loss = _quadratic()
    optimizer, rate = {
        "class": (tf.train.GradientDescentOptimizer, 0.25),
        "instance": (tf.train.GradientDescentOptimizer(0.25), None),
        "callable": (lambda lr: tf.train.GradientDescentOptimizer(lr), 0.25),
        "tensor rate": ("SGD", tf.constant(0.25))}[how]
    train = tf.contrib.layers.optimize_loss(loss, None, rate, optimizer,
                                            increment_global_step=False, summaries=[])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run(w) == 1.5  # 3 - 0.25 * 6


def test_update_ops_run_first_and_the_summaries_are_tfs():
    _, loss = _quadratic()
    counter = tf.Variable(0.0, name="counter")
    tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, tf.assign_add(counter, 1.0))
    train = tf.contrib.layers.optimize_loss(
        loss, tf.train.get_or_create_global_step(), 0.1, "Momentum", clip_gradients=1.0,
        summaries=["loss", "learning_rate", "gradients", "gradient_norm",
                   "global_gradient_norm"])
    tags = sorted(node.name for node in tf.get_default_graph().get_operations()
                  if node.op is not None and "summary" in node.op.name)
    # the rate's summary named after its variable OptimizeLoss/learning_rate, uniquely (TF's
    # graph names it so too)
    for tag in ("OptimizeLoss/loss", "OptimizeLoss/learning_rate_1",
                "OptimizeLoss/global_norm/gradient_norm",
                "OptimizeLoss/global_norm/clipped_gradient_norm",
                "OptimizeLoss/gradients/w_0", "OptimizeLoss/gradient_norm/w_0"):
        assert tag in tags, tags
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run(counter) == 1.0  # the UPDATE_OPS ran with the step


def test_tensorflows_errors():
    _, loss = _quadratic()
    step = tf.train.get_or_create_global_step()
    with pytest.raises(ValueError, match="Optimizer name should be one of"):
        tf.contrib.layers.optimize_loss(loss, step, 0.1, "Nadam")
    with pytest.raises(ValueError, match="Invalid learning_rate -1.0"):
        tf.contrib.layers.optimize_loss(loss, step, -1.0, "SGD")
    with pytest.raises(ValueError, match="Summaries should be one of"):
        tf.contrib.layers.optimize_loss(loss, step, 0.1, "SGD", summaries=["weights"])
    with pytest.raises(ValueError, match="Learning rate is None"):
        tf.contrib.layers.optimize_loss(loss, step, None, "SGD")
