"""tf.train optimizers against torch.optim, and a LeNet-sized net that learns."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf

PLANS = pytest.mark.parametrize("plan_memory", [True, False], ids=["planned", "unplanned"])


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    torch.manual_seed(0)


def _problem():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((8, 5)).astype(np.float32),
            rng.integers(0, 3, 8).astype(np.float32),
            rng.standard_normal((3, 5)).astype(np.float32),
            rng.standard_normal(3).astype(np.float32))


def _steps_against_torch(make_tf, make_torch, plan_memory, steps=6):
    """Train a linear softmax classifier both ways; the variables must agree at every step."""
    x_value, labels, w0, b0 = _problem()
    x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32)
    w = tf.Variable(tf.constant(w0), name="w")
    b = tf.Variable(tf.constant(b0), name="b")
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(
        tf.nn.linear(x, 3, weight=w, bias=b), y)
    train_step = make_tf().minimize(loss)
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    tw, tb = torch.tensor(w0, requires_grad=True), torch.tensor(b0, requires_grad=True)
    optimizer = make_torch([tw, tb])
    for step in range(steps):
        loss_value, _ = sess.run([loss, train_step], {x: x_value, y: labels})
        optimizer.zero_grad()
        torch_loss = F.cross_entropy(F.linear(torch.tensor(x_value), tw, tb),
                                     torch.tensor(labels).long())
        torch_loss.backward()
        optimizer.step()
        np.testing.assert_allclose(loss_value, torch_loss.item(), rtol=1e-5)
        got_w, got_b = sess.run([w, b])
        np.testing.assert_allclose(got_w, tw.detach().numpy(), rtol=1e-4, atol=1e-6,
                                   err_msg=f"step {step}")
        np.testing.assert_allclose(got_b, tb.detach().numpy(), rtol=1e-4, atol=1e-6)


@PLANS
def test_gradient_descent_matches_torch(plan_memory):
    _steps_against_torch(lambda: tf.train.GradientDescentOptimizer(0.5),
                         lambda p: torch.optim.SGD(p, lr=0.5), plan_memory)


class _SignDescent(tf.train.Optimizer):
    """A user's optimizer written as an assign graph through ``update``: var - lr * sign(g)."""

    def update(self, grad, var):
        return var - 0.1 * tf.sign(grad)


@PLANS
def test_a_custom_optimizer_update_rule_matches_torch(plan_memory):
    class TorchSignDescent(torch.optim.Optimizer):
        def step(self):
            for p in self.param_groups[0]["params"]:
                p.data -= 0.1 * torch.sign(p.grad)
    _steps_against_torch(_SignDescent, lambda p: TorchSignDescent(p, {}), plan_memory)


@PLANS
@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_matches_torch(plan_memory, nesterov):
    _steps_against_torch(lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=nesterov),
                         lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=nesterov),
                         plan_memory)


@PLANS
@pytest.mark.parametrize("hyper", [{}, {"learning_rate": 0.05, "beta1": 0.5, "beta2": 0.9,
                                        "epsilon": 1e-3}], ids=["defaults", "custom"])
def test_adam_matches_torch(plan_memory, hyper):
    lr = hyper.get("learning_rate", 0.001)
    betas = (hyper.get("beta1", 0.9), hyper.get("beta2", 0.999))
    _steps_against_torch(lambda: tf.train.AdamOptimizer(**hyper),
                         lambda p: torch.optim.Adam(p, lr=lr, betas=betas,
                                                    eps=hyper.get("epsilon", 1e-8)),
                         plan_memory)


def test_slots_are_not_trainable_and_named_after_their_variable():
    x = tf.placeholder(tf.float32)
    loss = tf.reduce_sum(tf.nn.linear(x, 2, name="fc"))
    tf.train.AdamOptimizer().minimize(loss)
    tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    assert [v.name for v in tf.trainable_variables()] == ["fc_weight"]
    assert {v.name for v in tf.all_variables()} == {
        "fc_weight", "Adam_step0", "fc_weight_adam_m", "fc_weight_adam_v", "fc_weight_momentum"}


def test_adam_on_automatic_variables_initialises_in_one_run():
    # weights and slots whose shapes come from the feeds: one initialiser run, then training
    x = tf.placeholder(tf.float32)
    label = tf.placeholder(tf.float32)
    net = tf.nn.relu(tf.nn.linear(x, num_hidden=32, name="fc1", no_bias=False))
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(
        tf.nn.linear(net, 4, name="fc2"), label)
    train_step = tf.train.AdamOptimizer(0.01).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    rng = np.random.default_rng(0)
    feed = {x: rng.standard_normal((16, 10)).astype(np.float32),
            label: rng.integers(0, 4, 16).astype(np.float32)}
    losses = [sess.run([loss, train_step], feed)[0] for _ in range(30)]
    assert losses[-1] < 0.2 * losses[0]
    step = next(v for v in tf.all_variables() if v.name == "Adam_step0")
    assert sess.run(step) == 30


def _synthetic_images(n, rng):
    """Ten classes of 1x28x28 images: a bright 7x7 square at a class-given place, plus noise."""
    labels = rng.integers(0, 10, n)
    images = rng.normal(0.0, 0.3, (n, 1, 28, 28)).astype(np.float32)
    for i, c in enumerate(labels):
        row, col = divmod(int(c), 5)
        images[i, 0, 3 + 12 * row:10 + 12 * row, 1 + 5 * col:8 + 5 * col] += 1.0
    return images, labels.astype(np.float32)


def test_lenet_trains():
    x = tf.placeholder(tf.float32)
    label = tf.placeholder(tf.float32)
    net = tf.nn.conv2d(x, num_filter=20, ksize=[1, 5, 5, 1], name="conv1", no_bias=False)
    net = tf.nn.max_pool(tf.tanh(net), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    net = tf.nn.conv2d(net, num_filter=50, ksize=[1, 5, 5, 1], name="conv2", no_bias=False)
    net = tf.nn.max_pool(tf.tanh(net), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    net = tf.tanh(tf.nn.linear(tf.nn.flatten_layer(net), num_hidden=500, name="fc1"))
    fc2 = tf.nn.linear(net, num_hidden=10, name="fc2")
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(fc2, label)
    train_step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    accuracy = tf.reduce_mean(tf.equal(tf.argmax(fc2, 1), label))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    rng = np.random.default_rng(0)
    images, labels = _synthetic_images(400, rng)
    first = None
    for epoch in range(2):
        for i in range(0, 400, 50):
            value, _ = sess.run([loss, train_step], {x: images[i:i + 50],
                                                     label: labels[i:i + 50]})
            first = value if first is None else first
    test_images, test_labels = _synthetic_images(200, rng)
    assert sess.run(loss, {x: test_images, label: test_labels}) < 0.5 * first
    assert sess.run(accuracy, {x: test_images, label: test_labels}) > 0.8
