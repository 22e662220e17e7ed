"""The Mirror pass (sublinear memory, issue 14): alone on graphs, then through sessions.

Alone: which nodes it recomputes, that the input graph is left as it was, that the same graph
gives the same result, and the real memory plan (PlanMemory after it) of deep chains: lower,
and growing as sqrt(n) rather than n.  Through sessions: the same losses and weights with and
without it (a 100-layer MLP, a residual conv net with batch norm, dropout, every example), no
assign, random op or Python op run twice, the errors.
"""
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend import viz
from tinyflow.nnvm import Graph, GraphError, apply_passes

pytestmark = pytest.mark.usefixtures("fresh_graph")
ROOT = Path(__file__).resolve().parent.parent
BIND = ["InferShape", "InferType", "MaterializeShapes"]
PLAN = ["OrderMutation", "PlanMemory"]


def mlp(layers, width=16, batch=4, dropout=None):
    """A relu MLP trained by gradient descent: (x, y, loss, train op)."""
    x = tf.placeholder(tf.float32, [batch, width])
    y = tf.placeholder(tf.float32, [batch, width])
    h = x
    for i in range(layers):
        w = tf.Variable(tf.random_normal([width, width], stddev=0.5, seed=i), name=f"W{i}")
        b = tf.Variable(tf.fill([width], 0.01), name=f"b{i}")
        h = tf.nn.relu(tf.matmul(h, w) + b)
        if dropout is not None and i == layers // 2:
            h = tf.nn.dropout(h, dropout, seed=7)
    loss = tf.reduce_mean(tf.square(h - y))
    return x, y, loss, tf.train.GradientDescentOptimizer(0.1).minimize(loss)


def planned(train, policy=None, budget=None):
    """The graph the executor would plan (Mirror between MaterializeShapes and OrderMutation)."""
    graph = apply_passes(Graph(train.outputs), BIND)
    if policy is not None:
        graph = apply_passes(graph.with_attrs(mirror_policy=policy, mirror_budget_bytes=budget),
                             ["Mirror"])
    return apply_passes(graph, PLAN)


def planned_bytes(train, policy=None):
    return sum(planned(train, policy).attrs["storage_size"])


def train_steps(memory, build, steps=3, seed=0):
    """Losses of ``steps`` training steps and the final trainable variables, in a session with
    ``memory``, of the graph ``build()`` returns as (feeds, loss, train op)."""
    tf.reset_default_graph()
    feeds, loss, train = build()
    sess = tf.Session(memory=memory)
    sess.run(tf.global_variables_initializer())
    losses = [sess.run([loss, train], feeds)[0] for _ in range(steps)]
    return losses, sess.run(tf.trainable_variables()), sess


# -- the pass alone -------------------------------------------------------------------------------
def test_mirrors_replace_activations_in_the_backward_graph_only():
    _, _, _, train = mlp(12)
    before = apply_passes(Graph(train.outputs), BIND)
    inputs_before = {n: list(n.inputs) for n in before.indexed.nodes}
    after = apply_passes(before.with_attrs(mirror_policy="sqrt"), ["Mirror"])
    plan = after.attrs["mirror_plan"]
    mirrors = [n for n in after.indexed.nodes if n.name.endswith(".mirror")]
    assert mirrors and {n.name for n in mirrors} == plan.recomputed_names
    assert all(not n.name.startswith("gradients/") and n.op.name in ("matmul", "elemwise_add",
               "relu") for n in mirrors)
    # only backward nodes read mirrors; forward nodes still read the forward values
    for node in after.indexed.nodes:
        if any(e.node in mirrors for e in node.inputs):
            assert node in mirrors or node.name.startswith("gradients/"), node.name
    assert {n: list(n.inputs) for n in before.indexed.nodes} == inputs_before  # pure
    again = apply_passes(before.with_attrs(mirror_policy="sqrt"), ["Mirror"])
    assert [n.name for n in again.indexed.nodes] == [n.name for n in after.indexed.nodes]
    assert len(after.attrs["shape"]) == after.indexed.num_entries


def test_recomputation_runs_late_each_segment_after_the_one_above():
    # the executor's order: a segment's mirrors run after the backward work of the segments
    # above (their weight updates), so they do not live through the whole backward pass
    _, _, _, train = mlp(24)
    graph = planned(train, "sqrt")
    order = {n.name: i for i, n in enumerate(graph.indexed.nodes)}
    assert min(i for name, i in order.items() if name.endswith(".mirror")) > order["Relu_23"]
    recomputed = [int(name[7:-7]) for name in order if name.startswith("MatMul_")
                  and name.endswith(".mirror")]  # MatMul_<k>.mirror
    assert len(recomputed) >= 6

    def update(index):  # W_m, b_m: GradientDescent/ApplyGradientDescent_<2m>, _<2m + 1>
        name = f"ApplyGradientDescent_{index}" if index else "ApplyGradientDescent"
        return order[f"GradientDescent/{name}"]
    for k in recomputed:
        start = order[f"MatMul_{k}.mirror"]
        for m in range(k + 2, 24):  # layer k + 1 reads this segment
            assert update(2 * m) < start and update(2 * m + 1) < start, (k, m)
        assert update(2 * k) > start


@pytest.mark.parametrize("policy", ["sqrt", "budget", "mirror"])
def test_planned_memory_of_a_deep_chain_drops(policy):
    _, _, _, train = mlp(60, width=32)
    graph = apply_passes(Graph(train.outputs), BIND)
    before = sum(apply_passes(graph, PLAN).attrs["storage_size"])
    after_graph = apply_passes(graph.with_attrs(mirror_policy=policy,
                                                mirror_budget_bytes=6000), ["Mirror"] + PLAN)
    after = sum(after_graph.attrs["storage_size"])
    # before: 65024 bytes since MaterializeShapes skips the add gradients' identity
    # _collapse_sum_like copies (95744 with them, when sqrt's 17408 was 0.18 of it)
    assert after <= {"sqrt": 0.3, "budget": 0.35, "mirror": 0.6}[policy] * before, (after, before)


def test_sqrt_policy_grows_as_sqrt_of_depth():
    sizes = {}
    for layers in (25, 100):
        tf.reset_default_graph()
        _, _, _, train = mlp(layers, width=32)
        sizes[layers] = planned_bytes(train, "sqrt"), planned_bytes(train)
    assert sizes[100][1] / sizes[25][1] > 3.5  # today's plan: linear
    assert sizes[100][0] / sizes[25][0] < 2.6  # sqrt(4) = 2, with some slack


def test_nothing_to_recompute_leaves_the_graph():
    x = tf.placeholder(tf.float32, [2, 3])
    loss = tf.reduce_sum(tf.exp(x))
    graph = apply_passes(Graph(loss.outputs), BIND)
    after = apply_passes(graph.with_attrs(mirror_policy="sqrt"), ["Mirror"])
    assert after.outputs == graph.outputs and after.attrs["mirror_plan"].recomputed == []


def test_budget_smaller_than_one_op_names_the_op_and_its_bytes():
    _, _, _, train = mlp(4, width=16, batch=4)  # the first add reads 256 bytes, writes 256
    graph = apply_passes(Graph(train.outputs), BIND)
    with pytest.raises(GraphError, match=r"budget of 300 bytes .* op 'elemwise_add' \(node "
                                         r"'add', created at .*test_mirror.py:\d+\) "
                                         r"needs by itself: 512 bytes"):
        apply_passes(graph.with_attrs(mirror_policy="budget", mirror_budget_bytes=300),
                     ["Mirror"])
    with pytest.raises(GraphError, match="unknown mirror policy 'fast'"):
        apply_passes(graph.with_attrs(mirror_policy="fast"), ["Mirror"])


# -- through sessions: same values ----------------------------------------------------------------
def _mlp_build(layers, dropout=None):
    def build():
        x, y, loss, train = mlp(layers, dropout=dropout)
        rng = np.random.default_rng(1)
        return ({x: rng.normal(size=(4, 16)), y: rng.normal(size=(4, 16))}, loss, train)
    return build


@pytest.mark.parametrize("memory", ["sublinear", "mirror", {"policy": "budget",
                                                             "budget_bytes": 2000}])
def test_hundred_layer_mlp_same_losses_and_weights(memory):
    build = _mlp_build(100)
    losses, weights, _ = train_steps(None, build)
    got_losses, got_weights, sess = train_steps(memory, build)
    np.testing.assert_allclose(got_losses, losses, rtol=1e-6)
    for got, want in zip(got_weights, weights):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert sess.memory_plan(*_train_and_feeds()).recomputed  # the pass did run


def _train_and_feeds():
    graph = tf.get_default_graph()
    train = graph.get_operation_by_name("GradientDescent")
    feeds = {graph.get_tensor_by_name(n): np.zeros((4, 16)) for n in
             ("Placeholder:0", "Placeholder_1:0")}
    return train, feeds


def _resnet_build():
    def block(x, filters, stride):
        conv = tf.nn.relu(tf.nn.batch_normalization(tf.nn.conv2d(
            x, num_filter=filters, ksize=[1, 3, 3, 1], strides=[1, stride, stride, 1],
            padding="SAME")))
        conv = tf.nn.batch_normalization(tf.nn.conv2d(conv, num_filter=filters,
                                                      ksize=[1, 3, 3, 1], padding="SAME"))
        short = x if stride == 1 else tf.nn.conv2d(x, num_filter=filters, ksize=[1, 1, 1, 1],
                                                   strides=[1, 2, 2, 1])
        return tf.nn.relu(short + conv)

    def build():
        tf.set_random_seed(3)
        x, label = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        h = tf.nn.relu(tf.nn.conv2d(x, num_filter=4, ksize=[1, 3, 3, 1], padding="SAME"))
        for i in range(8):
            h = block(h, 8 if i >= 4 else 4, 2 if i == 4 else 1)
        logits = tf.nn.linear(tf.nn.flatten_layer(tf.nn.avg_pool(
            h, ksize=[1, 4, 4, 1], strides=[1, 1, 1, 1])), num_hidden=3, name="fc")
        loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(logits, label)
        rng = np.random.default_rng(2)
        feeds = {x: rng.normal(size=(2, 2, 8, 8)), label: np.array([0.0, 2.0])}
        return feeds, loss, tf.train.AdamOptimizer(0.01).minimize(loss)
    return build


@pytest.mark.parametrize("memory", ["sublinear", "mirror"])
def test_deep_residual_net_same_losses_and_weights(memory):
    losses, weights, _ = train_steps(None, _resnet_build())
    got_losses, got_weights, _ = train_steps(memory, _resnet_build())
    np.testing.assert_allclose(got_losses, losses, rtol=1e-5)
    for got, want in zip(got_weights, weights):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_dropout_mask_is_kept_not_drawn_again():
    build = _mlp_build(30, dropout=0.5)
    losses, weights, _ = train_steps(None, build)
    got_losses, got_weights, sess = train_steps("sublinear", build)
    np.testing.assert_allclose(got_losses, losses, rtol=1e-6)
    for got, want in zip(got_weights, weights):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    report = sess.memory_plan(*_train_and_feeds())
    assert report.recomputed and not any(op == "dropout" for _, op, _, _ in report.recomputed)


def test_assign_inside_a_recomputed_segment_runs_once():
    # a counter bumped in the middle of the forward chain, its new value read by the chain
    x = tf.placeholder(tf.float32, [4, 16])
    counter = tf.Variable(0.0, name="counter")
    h = x
    for i in range(20):
        w = tf.Variable(tf.random_normal([16, 16], stddev=0.3, seed=i))
        h = tf.nn.relu(tf.matmul(h, w))
        if i == 10:
            h = h + 0 * tf.assign_add(counter, 1.0)
    loss = tf.reduce_sum(h)
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    sess = tf.Session(memory="sublinear")
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train, {x: np.ones((4, 16))})
    assert sess.run(counter) == 3.0
    report = sess.memory_plan(train, {x: np.ones((4, 16))})
    recomputed_ops = {op for _, op, _, _ in report.recomputed}
    assert "matmul" in recomputed_ops and "assign_add" not in recomputed_ops


def test_python_op_in_the_forward_pass_runs_once_per_step():
    calls = []

    def double(v):
        calls.append(1)
        return (v * 2).astype(np.float32)
    x = tf.placeholder(tf.float32, [4, 16])
    h = x
    for i in range(16):
        w = tf.Variable(tf.random_normal([16, 16], stddev=0.3, seed=i))
        h = tf.nn.relu(tf.matmul(h, w))
        if i == 8:
            h = tf.py_func(double, [h], tf.float32)
            h.set_shape([4, 16])
            h = tf.stop_gradient(h) + 0 * h
    loss = tf.reduce_sum(h)
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    sess = tf.Session(memory="sublinear")
    sess.run(tf.global_variables_initializer())
    sess.run(train, {x: np.ones((4, 16))})
    assert len(calls) == 1
    assert sess.memory_plan(train, {x: np.ones((4, 16))}).recomputed


# -- the user's surface -----------------------------------------------------------------------
def test_recompute_scope_hints_without_and_against_a_policy():
    x = tf.placeholder(tf.float32, [4, 16])
    w = tf.Variable(tf.random_normal([16, 16], seed=1))
    with tf.recompute_scope():
        h = tf.tanh(tf.matmul(x, w))
    with tf.recompute_scope(False):
        h = tf.nn.relu(h * 2)
    loss = tf.reduce_sum(tf.sigmoid(h))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feeds = {x: np.ones((4, 16))}
    sess = tf.Session()  # no policy: the hints alone
    sess.run(tf.global_variables_initializer())
    names = {row[0] for row in sess.memory_plan(train, feeds).recomputed}
    assert names == {"Tanh.mirror", "MatMul.mirror"}
    sess = tf.Session(memory="mirror")  # mirror would recompute the relu and the product
    sess.run(tf.global_variables_initializer())
    names = {row[0] for row in sess.memory_plan(train, feeds).recomputed}
    assert "Relu.mirror" not in names and "Tanh.mirror" in names


def test_memory_plan_report_and_picture_show_the_recomputation():
    x, y, _, train = mlp(8)
    feeds = {x: np.ones((4, 16)), y: np.ones((4, 16))}
    sess = tf.Session(memory="sublinear")
    sess.run(tf.global_variables_initializer())
    report = sess.memory_plan(train, feeds)
    text = str(report)
    assert "recomputed (sqrt policy" in text and "forward bytes kept" in text
    assert report.extra_flops > 0 and report.mirror.kept_bytes < report.mirror.kept_bytes_before
    plain = tf.Session()
    plain.run(tf.global_variables_initializer())
    assert "recomputed" not in str(plain.memory_plan(train, feeds))
    dot = viz.to_dot(train, shapes={x: (4, 16), y: (4, 16)}, memory="sublinear", plan=True)
    assert "recomputed" in dot and 'style="filled,dashed"' in dot
    assert "recomputed" not in viz.to_dot(train, shapes={x: (4, 16), y: (4, 16)}, plan=True)


@pytest.mark.parametrize("memory, error", [
    ("fast", "memory policy must be one of"),
    ({"policy": "budget"}, "budget_bytes goes with the 'budget' policy"),
    ({"policy": "budget", "budget_bytes": -1}, "positive int"),
    ({"policy": "sqrt", "budget": 3}, "unknown key"),
])
def test_bad_memory_options(memory, error):
    with pytest.raises(ValueError, match=error):
        tf.Session(memory=memory)


def test_session_budget_too_small_is_an_error_naming_the_op():
    x, y, _, train = mlp(4)
    sess = tf.Session(memory={"policy": "budget", "budget_bytes": 300})
    sess.run(tf.global_variables_initializer())
    with pytest.raises(GraphError, match="op 'elemwise_add'.* 512 bytes"):
        sess.run(train, {x: np.ones((4, 16)), y: np.ones((4, 16))})


# -- every example: the same output with the pass --------------------------------------------------
_RUN = ("import runpy, sys, numpy, torch; torch.manual_seed(0); numpy.random.seed(0); "
        "sys.argv = sys.argv[1:]; sys.path.insert(0, str(__import__('pathlib').Path("
        "sys.argv[0]).parent)); runpy.run_path(sys.argv[0], run_name='__main__')")


def _run_example(programs, path, args, memory):
    # one torch thread, as this process (tests/conftest.py): the outputs compared are the
    # program's, with and without the pass, not its speed
    env = {**os.environ, "TINYFLOW_DATA": "/nonexistent", "OMP_NUM_THREADS": "1"}
    env.pop("TINYFLOW_MEMORY", None)
    if memory:
        env["TINYFLOW_MEMORY"] = memory
    result = programs.run([sys.executable, "-c", _RUN, str(path), *args], timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    return [line for line in result.stdout.splitlines() if "ms/step" not in line
            and " s" not in line[-3:]]


EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.py") if p.name != "common.py")


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_same_output_with_sublinear_memory(programs, example, tmp_path):
    from test_datasets import cifar_batches, cifar_tarball, gzip_files, mnist_arrays
    for name, payload in gzip_files(mnist_arrays(n_train=120, n_test=40)).items():
        (tmp_path / name).write_bytes(payload)
    (tmp_path / "cifar-10-python.tar.gz").write_bytes(
        cifar_tarball(cifar_batches(per_batch=24, n_test=40)))
    dataset = "cifar10" if "cifar" in example else "fashion-mnist"
    args = ["--dataset", dataset, "--data-dir", str(tmp_path), "--epochs", "1",
            "--batch-size", "40"]
    path = ROOT / "examples" / example
    assert (_run_example(programs, path, args, "sublinear")
            == _run_example(programs, path, args, None))
