"""tf.train optimizers against torch.optim, and a LeNet-sized net that learns."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed")


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


def test_gradient_descent_matches_torch(plan_memory):
    _steps_against_torch(lambda: tf.train.GradientDescentOptimizer(0.5),
                         lambda p: torch.optim.SGD(p, lr=0.5), plan_memory)


class _SignDescent(tf.train.Optimizer):
    """A user's optimizer written as an assign graph through ``update``: var - lr * sign(g)."""

    def update(self, grad, var):
        return var - 0.1 * tf.sign(grad)


def test_a_custom_optimizer_update_rule_matches_torch(plan_memory):
    class TorchSignDescent(torch.optim.Optimizer):
        def step(self):
            for p in self.param_groups[0]["params"]:
                p.data -= 0.1 * torch.sign(p.grad)
    _steps_against_torch(_SignDescent, lambda p: TorchSignDescent(p, {}), plan_memory)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_matches_torch(plan_memory, nesterov):
    _steps_against_torch(lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=nesterov),
                         lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=nesterov),
                         plan_memory)


class _TensorFlowAdam(torch.optim.Optimizer):
    """TF 1.15's AdamOptimizer written in torch (its ApplyAdam, float32 beta powers): epsilon is
    added after the bias correction, unlike torch.optim.Adam's."""

    def __init__(self, params, lr, beta1, beta2, epsilon):
        super().__init__(params, {})
        self.lr, self.betas, self.epsilon = lr, (beta1, beta2), epsilon
        self.powers = [torch.tensor(beta, dtype=torch.float32) for beta in self.betas]

    def step(self):
        (beta1, beta2), (power1, power2) = self.betas, self.powers
        rate = self.lr * torch.sqrt(1 - power2) / (1 - power1)
        for p in self.param_groups[0]["params"]:
            m, v = (self.state[p].setdefault(k, torch.zeros_like(p)) for k in "mv")
            m += (p.grad - m) * (1 - beta1)
            v += (p.grad * p.grad - v) * (1 - beta2)
            p.data -= rate * m / (torch.sqrt(v) + self.epsilon)
        self.powers = [power1 * beta1, power2 * beta2]


@pytest.mark.parametrize("hyper", [{}, {"learning_rate": 0.05, "beta1": 0.5, "beta2": 0.9,
                                        "epsilon": 1e-3}, {"learning_rate": 0.1, "epsilon": 1.0}],
                         ids=["defaults", "custom", "inception epsilon"])
def test_adam_matches_tensorflows_adam_written_in_torch(plan_memory, hyper):
    # an epsilon of 1.0 (TF's advice for Inception) tells TF's formula from torch.optim.Adam's
    lr, epsilon = hyper.get("learning_rate", 0.001), hyper.get("epsilon", 1e-8)
    betas = (hyper.get("beta1", 0.9), hyper.get("beta2", 0.999))
    _steps_against_torch(lambda: tf.train.AdamOptimizer(**hyper),
                         lambda p: _TensorFlowAdam(p, lr, *betas, epsilon), plan_memory)


def test_slots_are_not_trainable_and_named_after_their_variable():
    x = tf.placeholder(tf.float32)
    loss = tf.reduce_sum(tf.nn.linear(x, 2, name="fc"))
    tf.train.AdamOptimizer().minimize(loss)
    tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    assert [v.op.name for v in tf.trainable_variables()] == ["fc_weight"]
    assert [v.op.name for v in tf.all_variables()] == [
        "fc_weight", "beta1_power", "beta2_power", "fc_weight/Adam", "fc_weight/Adam_1",
        "fc_weight/Momentum"]


def test_adam_trains_float64_variables_as_tensorflow(plan_memory):
    # TF casts its float32 beta powers, learning rate, betas and epsilon to the variable's
    # dtype: values from TF 2.21 compat.v1 (three steps, a dense and a gathered variable)
    w = tf.Variable(np.array([1.0, -2.0, 3.0]), dtype=tf.float64)
    table = tf.Variable(np.arange(12.0).reshape(4, 3), dtype=tf.float64)
    rows = tf.nn.embedding_lookup(table, [0, 2])
    loss = tf.reduce_sum(tf.square(w)) + tf.reduce_sum(rows * rows)
    step = tf.train.AdamOptimizer(0.1).minimize(loss)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(step)
        got_w, got_table = sess.run([w, table])
    np.testing.assert_allclose(got_w, [0.70158733, -1.70062443, 2.70038256], rtol=1e-8)
    np.testing.assert_allclose(got_table[[0, 2]], [
        [0.0, 0.7015873258432849, 1.7006244343970733],
        [5.7001756038812275, 6.700148739058657, 7.70012901969018]], rtol=1e-12)
    np.testing.assert_array_equal(got_table[[1, 3]], [[3.0, 4.0, 5.0], [9.0, 10.0, 11.0]])


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
    power = next(v for v in tf.all_variables() if v.op.name == "beta1_power")
    assert sess.run(power) == np.multiply.accumulate(np.full(31, np.float32(0.9)))[-1]


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


# -- every optimizer, one step at a time, against TensorFlow 1.15's update formulas ----------------
# Each twin is one step of the TF kernel (training_ops.cc) in numpy, float64: state is
# [var, slots...] in the order of the optimizer's slot list.
def _sgd(state, grad, lr, t):
    (var,) = state
    return [var - lr * grad]


def _momentum(momentum, nesterov):
    def step(state, grad, lr, t):
        var, accum = state
        accum = accum * momentum + grad
        return [var - lr * (grad + momentum * accum if nesterov else accum), accum]
    return step


def _adam(beta1, beta2, epsilon):  # ApplyAdam: epsilon after the bias correction
    def step(state, grad, lr, t):
        var, m, v = state
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad ** 2
        rate = lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        return [var - rate * m / (np.sqrt(v) + epsilon), m, v]
    return step


def _rmsprop(rho, momentum, epsilon):  # ApplyRMSProp: epsilon inside the square root
    def step(state, grad, lr, t):
        var, ms, mom = state
        ms = ms + (grad ** 2 - ms) * (1 - rho)
        mom = mom * momentum + grad * lr / np.sqrt(ms + epsilon)
        return [var - mom, ms, mom]
    return step


def _centered_rmsprop(rho, momentum, epsilon):  # ApplyCenteredRMSProp
    def step(state, grad, lr, t):
        var, mg, ms, mom = state
        ms = ms + (grad ** 2 - ms) * (1 - rho)
        mg = mg + (grad - mg) * (1 - rho)
        mom = mom * momentum + grad * lr / np.sqrt(ms - mg ** 2 + epsilon)
        return [var - mom, mg, ms, mom]
    return step


def _adagrad(state, grad, lr, t):  # ApplyAdagrad: no epsilon
    var, accum = state
    accum = accum + grad ** 2
    return [var - grad * lr / np.sqrt(accum), accum]


def _adadelta(rho, epsilon):  # ApplyAdadelta
    def step(state, grad, lr, t):
        var, accum, accum_update = state
        accum = accum * rho + grad ** 2 * (1 - rho)
        update = np.sqrt(accum_update + epsilon) / np.sqrt(accum + epsilon) * grad
        accum_update = accum_update * rho + update ** 2 * (1 - rho)
        return [var - update * lr, accum, accum_update]
    return step


OPTIMIZERS = {  # name: (optimizer for a learning rate, [(TF's slot name, initial value)], twin)
    "sgd": (tf.train.GradientDescentOptimizer, [], _sgd),
    "momentum": (lambda lr: tf.train.MomentumOptimizer(lr, 0.9), [("momentum", 0.0)],
                 _momentum(0.9, False)),
    "nesterov": (lambda lr: tf.train.MomentumOptimizer(lr, 0.9, use_nesterov=True),
                 [("momentum", 0.0)], _momentum(0.9, True)),
    "adam": (lambda lr: tf.train.AdamOptimizer(lr, 0.8, 0.9, 1e-3),
             [("m", 0.0), ("v", 0.0)], _adam(0.8, 0.9, 1e-3)),
    "rmsprop": (tf.train.RMSPropOptimizer, [("rms", 1.0), ("momentum", 0.0)],
                _rmsprop(0.9, 0.0, 1e-10)),
    "rmsprop-momentum": (lambda lr: tf.train.RMSPropOptimizer(lr, decay=0.8, momentum=0.5,
                                                               epsilon=1e-3),
                         [("rms", 1.0), ("momentum", 0.0)], _rmsprop(0.8, 0.5, 1e-3)),
    "rmsprop-centered": (lambda lr: tf.train.RMSPropOptimizer(lr, momentum=0.5, centered=True),
                         [("mg", 0.0), ("rms", 1.0), ("momentum", 0.0)],
                         _centered_rmsprop(0.9, 0.5, 1e-10)),
    "adagrad": (tf.train.AdagradOptimizer, [("accumulator", 0.1)], _adagrad),
    "adagrad-initial": (lambda lr: tf.train.AdagradOptimizer(lr, initial_accumulator_value=2.5),
                        [("accumulator", 2.5)], _adagrad),
    "adadelta": (tf.train.AdadeltaOptimizer, [("accum", 0.0), ("accum_update", 0.0)],
                 _adadelta(0.95, 1e-8)),
    "adadelta-custom": (lambda lr: tf.train.AdadeltaOptimizer(lr, rho=0.5, epsilon=1e-3),
                        [("accum", 0.0), ("accum_update", 0.0)], _adadelta(0.5, 1e-3)),
}
RATES = [0.1, 0.03, 0.2, 0.05]  # a tensor learning rate, fed anew at each step


@pytest.mark.parametrize("learning_rate", ["number", "tensor"])
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_optimizer_steps_follow_the_tf_formula(config, plan_memory, name, learning_rate):
    make, slots, twin = OPTIMIZERS[name]
    rng = np.random.default_rng(3)
    w0 = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    w = tf.Variable(tf.constant(w0), name="w")
    grad = tf.placeholder(tf.float32, [3, 4])
    lr = tf.placeholder(tf.float32, []) if learning_rate == "tensor" else RATES[0]
    optimizer = make(lr)
    train_step = optimizer.apply_gradients([(grad, w)])
    state = [w] + [optimizer.get_slot(w, slot) for slot, _ in slots]
    assert not any(v.trainable for v in state[1:])
    sess = tf.Session(config, plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    # TF's initial slot values; a slot takes its shape from the update, so the session gives it
    # its value at the first step, and the first step checks it
    expected = [np.float64(w0)] + [np.full((3, 4), initial) for _, initial in slots]
    for t, rate in enumerate(RATES if learning_rate == "tensor" else RATES[:1] * 4, start=1):
        grad_value = rng.standard_normal((3, 4)).astype(np.float32)
        feed = {grad: grad_value, **({lr: rate} if learning_rate == "tensor" else {})}
        assert sess.run(train_step, feed) is None
        expected = twin(expected, np.float64(grad_value), rate, t)
        for variable, got, want in zip(state, sess.run(state), expected):
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6,
                                       err_msg=f"{variable.op.name} after step {t}")


def test_a_tensor_learning_rate_must_be_a_scalar():
    w = tf.Variable(tf.zeros([2]), name="w")
    lr = tf.placeholder(tf.float32)
    train_step = tf.train.AdagradOptimizer(lr).minimize(tf.reduce_sum(w * w))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    with pytest.raises(tf.ShapeError, match="must be scalars"):
        sess.run(train_step, {lr: np.array([0.1, 0.2], np.float32)})


def test_adagrad_matches_torch_without_epsilon(plan_memory):
    # torch.optim.Adagrad adds eps after the square root; with eps=0 it is TF's ApplyAdagrad
    _steps_against_torch(lambda: tf.train.AdagradOptimizer(0.5, initial_accumulator_value=0.2),
                         lambda p: torch.optim.Adagrad(p, lr=0.5, initial_accumulator_value=0.2,
                                                       eps=0.0), plan_memory)


def test_adadelta_matches_torch(plan_memory):
    _steps_against_torch(lambda: tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6),
                         lambda p: torch.optim.Adadelta(p, lr=1.0, rho=0.9, eps=1e-6),
                         plan_memory)


def test_optimizers_validate_their_arguments():
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)


@pytest.mark.parametrize("make", [lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.9),
                                  lambda: tf.train.AdagradOptimizer(0.3),
                                  lambda: tf.train.AdadeltaOptimizer(1.0, epsilon=1e-3)],
                         ids=["rmsprop", "adagrad", "adadelta"])
def test_optimizers_on_automatic_variables_initialise_in_one_run(make):
    # the layers' weights and their slots get their shapes from the first run's feeds
    x = tf.placeholder(tf.float32)
    label = tf.placeholder(tf.float32)
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(
        tf.nn.linear(tf.nn.relu(tf.nn.linear(x, 16, name="fc1")), 4, name="fc2"), label)
    train_step = make().minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    rng = np.random.default_rng(0)
    feed = {x: rng.standard_normal((16, 10)).astype(np.float32),
            label: rng.integers(0, 4, 16).astype(np.float32)}
    losses = [sess.run([loss, train_step], feed)[0] for _ in range(40)]
    assert losses[-1] < 0.5 * losses[0]


# -- compute_gradients, apply_gradients, minimize ------------------------------------------------
def _two_variables():
    w = tf.Variable(tf.constant([1.0, 2.0]), name="w")
    unused = tf.Variable(tf.constant([5.0]), name="unused")
    return w, unused, tf.reduce_sum(w * w)


def test_compute_gradients_keeps_none_for_variables_the_loss_does_not_use():
    w, unused, loss = _two_variables()
    pairs = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
    assert [var for _, var in pairs] == [w, unused]
    assert pairs[0][0] is not None and pairs[1][0] is None
    with pytest.raises(ValueError, match="No variables to optimize"):
        tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss, var_list=[])


def test_apply_gradients_skips_none_and_minimize_leaves_unused_variables(plan_memory):
    w, unused, loss = _two_variables()
    optimizer = tf.train.GradientDescentOptimizer(0.25)
    train_step = optimizer.apply_gradients(optimizer.compute_gradients(loss))
    also = optimizer.minimize(loss, var_list=[w, unused])  # as TF: no error for `unused`
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    sess.run(train_step)
    np.testing.assert_allclose(sess.run(w), [0.5, 1.0])  # w - 0.25 * 2w
    sess.run(also)
    np.testing.assert_allclose(sess.run(w), [0.25, 0.5])
    np.testing.assert_array_equal(sess.run(unused), [5.0])
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        optimizer.apply_gradients([(None, w), (None, unused)])
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        optimizer.minimize(loss, var_list=[unused])


# -- the global step ------------------------------------------------------------------------------
def test_global_step_is_an_int64_scalar_variable_in_its_collection():
    from tinyflow.nnvm.symbol import current_context

    assert tf.train.get_global_step() is None
    step = tf.train.get_or_create_global_step()
    assert step.name == "global_step:0" and not step.trainable
    assert step.node.attrs["dtype"] == "int64"
    assert current_context().get_collection("global_step") == [step]
    assert tf.train.get_or_create_global_step() is step
    assert tf.train.get_global_step() is step
    assert step not in tf.trainable_variables() and step in tf.global_variables()
    with pytest.raises(ValueError, match="already exists"):
        tf.train.create_global_step()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    value = sess.run(step)
    assert isinstance(value, np.int64) and value == 0
    assert tf.train.global_step(sess, step) == 0 and type(tf.train.global_step(sess, step)) is int


def test_global_step_is_made_at_the_root_of_the_graph_asked_for():
    other = tf.Graph()
    with tf.name_scope("train"):
        step = tf.train.get_or_create_global_step(other)
    assert step.op.name == "global_step" and step.node.graph is other
    assert tf.train.get_global_step() is None and tf.train.get_global_step(other) is step
    with tf.name_scope("train"):
        assert tf.train.create_global_step().op.name == "global_step"
    float_step = tf.Graph()
    with float_step.as_default():
        tf.Variable(0.0, name="global_step")
        with pytest.raises(TypeError, match="integer type"):
            tf.train.get_global_step()


def test_a_step_checks_that_the_variables_it_updates_hold_values():
    w = tf.Variable(tf.constant([1.0, 2.0]), name="w")
    train_step = tf.train.RMSPropOptimizer(0.1).minimize(tf.reduce_sum(w * w))
    with pytest.raises(tf.TinyflowError, match="'w' .* before it is initialised"):
        tf.Session().run(train_step)


@pytest.mark.parametrize("how", ["minimize", "apply_gradients"])
def test_minimize_increments_the_global_step_after_the_updates(plan_memory, how):
    w, _, loss = _two_variables()
    step = tf.train.get_or_create_global_step()
    optimizer = tf.train.MomentumOptimizer(0.1, 0.5)
    if how == "minimize":
        train_step = optimizer.minimize(loss, global_step=step, var_list=[w], name="train")
    else:
        train_step = optimizer.apply_gradients(optimizer.compute_gradients(loss, [w]),
                                               global_step=step, name="train")
    increment = train_step.op  # TF: the step is the increment, named name=
    assert (increment.type, increment.name, train_step.name) == ("AssignAdd", "train", "train")
    updates = increment.control_deps[0]  # which waits for a group of the updates
    assert updates.type == "NoOp" and updates.name == "train/update"  # TF's name
    assert [n.type for n in updates.control_deps] == ["ApplyMomentum"]
    assert tf.get_default_graph().get_operation_by_name("train").op is increment
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    for count in range(1, 4):
        assert sess.run(train_step) is None
        assert tf.train.global_step(sess, step) == count
    assert sess.run(step).dtype == np.int64
    expected, accum = np.array([1.0, 2.0]), np.zeros(2)
    for _ in range(3):
        accum = 0.5 * accum + 2 * expected
        expected = expected - 0.1 * accum
    np.testing.assert_allclose(sess.run(w), expected, rtol=1e-6)


# -- assign_add, assign_sub, integer constants ------------------------------------------------
@pytest.mark.parametrize("dtype", [tf.float32, tf.int64])
def test_assign_add_and_sub(plan_memory, dtype):
    values = np.array([[1, -2, 3], [4, 5, -6]], dtype.as_numpy_dtype)
    v = tf.Variable(tf.constant(values, dtype=dtype), name="v", dtype=dtype)
    delta = tf.placeholder(dtype, [2, 3])
    add, sub = tf.assign_add(v, delta), tf.assign_sub(v, delta)
    # numbers become constants of the variable's dtype; as in TF, of the variable's shape
    add_one, sub_two = tf.assign_add(v, [[1] * 3] * 2), tf.assign_sub(v, [[2] * 3] * 2)
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    step = np.arange(6, dtype=dtype.as_numpy_dtype).reshape(2, 3)
    result = sess.run(add, {delta: step})  # the variable's new value
    assert result.dtype == dtype.as_numpy_dtype
    np.testing.assert_array_equal(result, values + step)
    np.testing.assert_array_equal(sess.run(sub, {delta: 3 * step}), values - 2 * step)
    np.testing.assert_array_equal(sess.run(add_one), values - 2 * step + 1)
    np.testing.assert_array_equal(sess.run(sub_two), values - 2 * step - 1)
    np.testing.assert_array_equal(sess.run(v), values - 2 * step - 1)
    with pytest.raises(TypeError, match="tf.Variable"):
        tf.assign_add(delta, 1)


def test_integer_constants_are_exact():
    big = [2 ** 62 + 1, -(2 ** 63), 2 ** 63 - 1, 2 ** 53 + 1, -5]
    sess = tf.Session()
    got = sess.run(tf.constant(big, dtype=tf.int64))
    assert got.dtype == np.int64 and got.tolist() == big
    assert sess.run(tf.constant(7, tf.int32)).dtype == np.int32
    np.testing.assert_array_equal(sess.run(tf.constant(np.array([1.7, -2.2]), tf.int64)),
                                  [1, -2])  # numpy arrays are cast, as in TF
    with pytest.raises(TypeError, match="int64"):
        tf.constant(1.5, dtype=tf.int64)  # a Python float is not, as in TF
    counter = tf.Variable(2 ** 60, dtype=tf.int64, name="counter")
    sess.run(counter.initializer)
    assert sess.run(tf.assign_add(counter, 3)) == 2 ** 60 + 3


# -- proximal optimizers and FTRL: three steps against real TF 1.15's kernels' numbers
# (tf.compat.v1 in /work/tfvenv; loss sum(c * v^2 + d * v) from v = [1, -2, 0.5, 0, 3])
_PROXIMAL_CASES = {
    "proximal_sgd_l1_l2": (lambda lr: tf.train.ProximalGradientDescentOptimizer(
        lr, l1_regularization_strength=0.05, l2_regularization_strength=0.2), 0.1, [
        [0.75, -1.1519608, 0.4264706, 0.0, 2.97549],
        [0.5539216, -0.65311426, 0.36159173, 0.0, 2.9519413],
        [0.40013456, -0.35967505, 0.30434564, 0.0, 2.929316]]),
    "proximal_sgd_plain": (lambda lr: tf.train.ProximalGradientDescentOptimizer(lr), 0.1, [
        [0.77, -1.1800001, 0.44, -0.005, 3.04],
        [0.58599997, -0.6880001, 0.386, -0.009000001, 3.0792],
        [0.43879998, -0.39280003, 0.33740002, -0.012200001, 3.117616]]),
    "proximal_adagrad_l1_l2": (lambda lr: tf.train.ProximalAdagradOptimizer(
        lr, initial_accumulator_value=0.2, l1_regularization_strength=0.05,
        l2_regularization_strength=0.2), 0.3, [
        [0.68165785, -1.6862981, 0.22164883, 0.0, 2.8863635],
        [0.49249583, -1.4829063, 0.07895082, 0.0, 2.8090756],
        [0.3584274, -1.3266835, 0.0, 0.0, 2.7521362]]),
    "proximal_adagrad_plain": (lambda lr: tf.train.ProximalAdagradOptimizer(lr), 0.3, [
        [0.702796, -1.7002227, 0.23460448, -0.046852127, 3.2353394],
        [0.52517986, -1.5055134, 0.10187416, -0.006275699, 3.4060771],
        [0.3978511, -1.3556154, 0.024504028, -0.040813006, 3.543234]]),
    "ftrl_l1_l2": (lambda lr: tf.train.FtrlOptimizer(
        lr, l1_regularization_strength=0.05, l2_regularization_strength=0.2), 0.3, [
        [0.53259736, -1.5979561, 0.0, 0.0, 1.0890943],
        [0.387017, -1.4121974, -0.017375857, -0.03378097, 1.3117884],
        [0.28030846, -1.2679207, -0.047957517, -0.021928476, 1.4807237]]),
    "ftrl_power": (lambda lr: tf.train.FtrlOptimizer(
        lr, learning_rate_power=-0.7, initial_accumulator_value=0.5,
        l1_regularization_strength=0.01), 0.3, [
        [0.6172433, -1.8068378, -0.038767338, -0.019426119, 0.6863683],
        [0.51120234, -1.7300565, -0.059120547, -0.024839127, 0.8904354],
        [0.43144995, -1.6722568, -0.07269015, -0.024995355, 1.0381169]]),
    "ftrl_shrinkage": (lambda lr: tf.train.FtrlOptimizer(
        lr, l2_regularization_strength=0.1, l2_shrinkage_regularization_strength=0.3), 0.3, [
        [0.47673488, -1.5678183, -0.1205546, -0.039457466, 0.28254426],
        [0.3055771, -1.3562636, -0.08282336, 0.001901665, 0.48757482],
        [0.19041926, -1.1943268, -0.069618545, -0.040808838, 0.6127625]]),
}


@pytest.mark.parametrize("case", sorted(_PROXIMAL_CASES))
@pytest.mark.parametrize("tensor_rate", [False, True])
def test_proximal_and_ftrl_steps_as_tensorflows(case, tensor_rate, plan_memory):
    make, rate, expected = _PROXIMAL_CASES[case]
    v = tf.Variable([1.0, -2.0, 0.5, 0.0, 3.0])
    loss = tf.reduce_sum(tf.constant([1.0, 2.0, 0.5, 1.0, 0.1]) * v * v
                         + tf.constant([0.3, -0.2, 0.1, 0.05, -1.0]) * v)
    step = make(tf.constant(rate) if tensor_rate else rate).minimize(loss)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        got = []
        for _ in range(3):
            sess.run(step)
            got.append(sess.run(v))
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-8)


def test_ftrl_slots_and_arguments_as_tensorflows():
    v = tf.Variable([1.0, 2.0], name="v")
    tf.train.FtrlOptimizer(0.1).minimize(tf.reduce_sum(v * v))
    # real TF: the slots v/Ftrl (accum, from 0.1) and v/Ftrl_1 (linear, from 0)
    slots = tf.global_variables()[1:]
    assert [s.op.name for s in slots] == ["v/Ftrl", "v/Ftrl_1"]
    with pytest.raises(ValueError, match="learning_rate_power 0.500000 needs to be negative "
                                         "or zero"):
        tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5)
    with pytest.raises(ValueError, match="l1_regularization_strength -1.000000 needs to be "
                                         "positive or zero"):
        tf.train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0)
    w = tf.Variable([1.0], name="w")
    tf.train.ProximalAdagradOptimizer(0.1).minimize(tf.reduce_sum(w))
    assert tf.global_variables()[-1].op.name == "w/ProximalAdagrad"


def test_optimizers_slots_by_tensorflows_names():
    # TF 1.15's slot names (Optimizer.get_slot_names, real TF's for the same optimizers)
    w = tf.Variable([1.0, 2.0], name="w")
    other = tf.Variable(3.0, name="other")
    cases = [(tf.train.AdamOptimizer(0.1), ["m", "v"]),
             (tf.train.MomentumOptimizer(0.1, 0.9), ["momentum"]),
             (tf.train.RMSPropOptimizer(0.1, centered=True), ["mg", "momentum", "rms"]),
             (tf.train.AdagradOptimizer(0.1), ["accumulator"]),
             (tf.train.FtrlOptimizer(0.1), ["accum", "linear"]),
             (tf.train.AdadeltaOptimizer(), ["accum", "accum_update"]),
             (tf.train.GradientDescentOptimizer(0.1), [])]
    for optimizer, names in cases:
        step = optimizer.minimize(tf.reduce_sum(w * w), var_list=[w])
        assert optimizer.get_slot_names() == names, type(optimizer).__name__
        assert all(optimizer.get_slot(w, n) is not None for n in names)
        assert optimizer.get_slot(other, names[0] if names else "m") is None
        assert len(optimizer.variables()) == len(names) + 2 * (names == ["m", "v"])
    adam = cases[0][0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)
        m = sess.run(adam.get_slot(w, "m"))
    np.testing.assert_array_equal(m, [0.0, 0.0])  # only the last optimizer ran a step
