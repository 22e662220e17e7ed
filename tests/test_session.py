"""Session behaviour: feeds, caching, variables per session, bad input, Lua errors, custom ops."""
import subprocess
import sys

import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow import nnvm
from tinyflow.executor import BindError
from tinyflow.lua_ops.runtime import LuaOpError, runtime_name

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _linear_model():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    W = tf.Variable(tf.ones([3, 2]), name="W")
    return x, W, tf.matmul(x, W)


def test_run_single_and_list_fetches(config):
    x, W, y = _linear_model()
    sess = tf.Session(config)
    assert sess.run(tf.global_variables_initializer()) is None
    feed = np.arange(6, dtype=np.float64).reshape(2, 3)
    out = sess.run(y, {x: feed})
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_allclose(out, feed @ np.ones((3, 2)))
    both = sess.run([y, W], {x: feed})
    assert isinstance(both, list) and len(both) == 2
    np.testing.assert_allclose(both[1], np.ones((3, 2)))


def test_int_and_scalar_feeds():
    a = tf.placeholder(tf.float32, name="a")
    b = tf.placeholder(tf.float32, name="b")
    sess = tf.Session()
    assert sess.run(a * b + 1, {a: 3, b: 4.5}) == pytest.approx(14.5)
    np.testing.assert_allclose(sess.run(a * 2, {a: np.array([1, 2], dtype=np.int64)}), [2, 4])


def test_executor_cached_and_replanned_on_new_feed_shape():
    x, _, y = _linear_model()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run(y, {x: np.ones((2, 3))})
    [first] = sess._executors.executors(tuple(y.outputs))
    sess.run(y, {x: np.ones((2, 3))})
    assert sess._executors.executors(tuple(y.outputs)) == [first]
    out = sess.run(y, {x: np.ones((5, 3))})
    assert out.shape == (5, 2)
    # a second executor for the new feed shape; the first one is kept (the cache's LRU)
    assert sess._executors.executors(tuple(y.outputs))[0] is first
    assert len(sess._executors.executors(tuple(y.outputs))) == 2


def test_outputs_are_not_overwritten_by_the_next_run():
    x, _, y = _linear_model()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    first = sess.run(y, {x: np.ones((2, 3))})
    sess.run(y, {x: np.zeros((2, 3))})
    np.testing.assert_allclose(first, 3 * np.ones((2, 2)))


def test_variables_live_per_session():
    v = tf.Variable(tf.zeros([2]), name="v")
    step = tf.assign(v, v + 1)
    s1, s2 = tf.Session(), tf.Session()
    for s in (s1, s2):
        s.run(tf.global_variables_initializer())
    s1.run(step)
    s1.run(step)
    np.testing.assert_allclose(s1.run(v), [2, 2])
    np.testing.assert_allclose(s2.run(v), [0, 0])


def test_assign_reads_old_value_before_writing():
    # Readers of W run before the assign to W, whatever the graph order.
    W = tf.Variable(tf.ones([2]), name="W")
    read = W * 10
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    out, _ = sess.run([read, tf.assign(W, W + 1)])
    np.testing.assert_allclose(out, [10, 10])
    np.testing.assert_allclose(sess.run(W), [2, 2])


def test_unfed_placeholder_names_it():
    _, _, y = _linear_model()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    with pytest.raises(BindError, match="placeholder 'x'"):
        sess.run(y)


def test_uninitialised_variable_names_it():
    x, _, y = _linear_model()
    with pytest.raises(BindError, match="variable 'W'"):
        tf.Session().run(y, {x: np.ones((2, 3))})


def test_shape_mismatch_names_op_and_shapes():
    a = tf.placeholder(tf.float32, name="a")
    b = tf.placeholder(tf.float32, name="b")
    with pytest.raises(tf.ShapeError, match=r"op 'matmul'.*\(2, 3\).*\(2, 3\)"):
        tf.Session().run(tf.matmul(a, b), {a: np.ones((2, 3)), b: np.ones((2, 3))})


def test_feed_shape_against_declared_shape():
    x, _, y = _linear_model()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    with pytest.raises(tf.ShapeError, match=r"placeholder 'x'.*\(2, 4\).*\(\?, 3\)"):
        sess.run(y, {x: np.ones((2, 4))})


@pytest.mark.parametrize("bad", ["abc", {"a": 1}, [[1, 2], [3]], np.array(["a", "b"])])
def test_non_numeric_feed(bad):
    x, _, y = _linear_model()
    with pytest.raises((TypeError, ValueError), match="placeholder 'x'"):
        tf.Session().run(y, {x: bad})


def test_rejected_run_changes_no_variable():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    W = tf.Variable(tf.ones([3, 2]), name="W")
    loss = tf.reduce_sum(tf.matmul(x, W))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run(step, {x: np.ones((4, 3))})
    before = sess.run(W)
    for feed in ({x: np.ones((4, 5))}, {}, {x: "text"}):
        with pytest.raises((TypeError, ValueError, BindError)):
            sess.run(step, feed)
    np.testing.assert_array_equal(sess.run(W), before)
    sess.run(step, {x: np.ones((4, 3))})  # the session still works
    assert not np.array_equal(sess.run(W), before)


def test_failed_build_leaves_no_variable_behind():
    v = tf.Variable(tf.zeros([3]), name="v")
    extra = tf.placeholder(tf.float32, [None])  # (4,) only when fed: the build fails at run
    bad = tf.assign(v, tf.zeros([3])) + extra
    sess = tf.Session()
    with pytest.raises(tf.ShapeError):
        sess.run(bad, {extra: np.zeros(4)})
    assert len(sess.variable_store) == 0 and not sess.variable_store.is_initialized(v.node)


def test_gpu_config_without_cuda_is_a_clear_error():
    if torch.cuda.is_available():
        pytest.skip("CUDA present")
    with pytest.raises(RuntimeError, match="CUDA"):
        tf.Session("gpu")


def test_bad_config():
    with pytest.raises(ValueError, match="config"):
        tf.Session("tpu")


def test_config_proto_and_run_options_as_tensorflow_programs_set_them():
    config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False,
                            device_count={"GPU": 0}, intra_op_parallelism_threads=2)
    config.gpu_options.allow_growth = True
    config.gpu_options.per_process_gpu_memory_fraction = 0.5
    x = tf.placeholder(tf.float32, name="x")
    for session in (tf.Session(config=config), tf.Session(config=None), tf.InteractiveSession(
            config=tf.ConfigProto(gpu_options=tf.GPUOptions(allow_growth=True)))):
        assert session.device.type == "cpu"  # a ConfigProto never asks for CUDA here
        options = tf.RunOptions(trace_level=tf.RunOptions.NO_TRACE)
        metadata = tf.RunMetadata()
        assert session.run(x * 2, {x: 3.0}, options=options, run_metadata=metadata) == 6.0
        assert metadata.step_stats.dev_stats == []  # traced only with a trace level
        session.close()
    with pytest.raises(ValueError, match='ConfigProto has no "allow_growth" field'):
        tf.ConfigProto(allow_growth=True)
    with pytest.raises(AttributeError, match='no field "allow_grwth"'):
        config.gpu_options.allow_grwth = True
    assert tf.RunOptions.FULL_TRACE == 3 and tf.RunOptions().trace_level == 0


def _register(name, body, **attrs):
    op = nnvm.register_op(name).set_num_inputs(1).set_attr("FInferShape", nnvm.same_shape)
    op.set_attr("FLuaCompute", body, overwrite=True)
    for key, value in attrs.items():
        op.set_attr(key, value, overwrite=True)
    return op


def test_custom_lua_op_end_to_end():
    _register("test_cube", """
    -- y = x ^ 3 (result-first Torch7 style)
    function(x, y, kwarg)
      local pow, src, out = torch.pow, x[1], y[1]
      return function() pow(out, src, 3) end
    end""", FGradient=lambda n, g: [g[0] * 3 * n.inputs[0] * n.inputs[0]])
    x = tf.placeholder(tf.float32, name="x")
    y = nnvm.symbol.test_cube(x)
    (dx,) = tf.gradients(tf.reduce_sum(y), [x])
    value = np.array([1.0, -2.0, 0.5], dtype=np.float32)
    out, grad = tf.Session().run([y, dx], {x: value})
    np.testing.assert_allclose(out, value ** 3, rtol=1e-6)
    np.testing.assert_allclose(grad, 3 * value ** 2, rtol=1e-6)


def test_custom_op_trains_with_optimizer():
    _register("test_scale2", """
    return function(x, y, kwarg)
      local mul, src, out = torch.mul, x[1], y[1]
      return function() mul(out, src, 2) end
    end""", FGradient=lambda n, g: [g[0] * 2])
    w = tf.Variable(tf.constant([3.0]), name="w")
    loss = tf.reduce_sum(nnvm.symbol.test_scale2(w) ** 2)  # 4 w^2, gradient 8 w
    step = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run(step)
    np.testing.assert_allclose(sess.run(w), [3.0 - 0.05 * 24], rtol=1e-6)


def test_lua_runtime_error_names_op_and_session_survives():
    _register("test_broken", """
    function(x, y, kwarg)
      return function()
        local missing = nil
        torch.copy(y[1], missing.field)
      end
    end""")
    x = tf.placeholder(tf.float32, name="x")
    sess = tf.Session()
    with pytest.raises(LuaOpError, match=r"test_broken.*test_broken\.lua:5.*nil value"):
        sess.run(nnvm.symbol.test_broken(x), {x: np.ones(2)})
    assert sess.run(x * 2, {x: np.ones(2)}).tolist() == [2, 2]


def test_lua_syntax_error_names_op():
    _register("test_syntax", "function(x, y, kwarg) return function() y[1] = = 1 end end")
    x = tf.placeholder(tf.float32, name="x")
    with pytest.raises(LuaOpError, match=r"test_syntax.*does not compile.*test_syntax\.lua:1"):
        tf.Session().run(nnvm.symbol.test_syntax(x), {x: np.ones(2)})


def test_python_error_inside_torch_call_is_caught():
    _register("test_bad_call", """
    function(x, y, kwarg)
      return function() torch.mm(y[1], x[1], x[1]) end
    end""")
    x = tf.placeholder(tf.float32, name="x")
    sess = tf.Session()
    with pytest.raises(LuaOpError, match="test_bad_call"):
        sess.run(nnvm.symbol.test_bad_call(x), {x: np.ones((2, 3))})
    assert sess.run(x + 1, {x: np.ones(1)}).tolist() == [2]


def test_lua_setup_error_names_op():
    _register("test_bad_setup", """
    function(x, y, kwarg)
      error("setup refused")
    end""")
    x = tf.placeholder(tf.float32, name="x")
    with pytest.raises(LuaOpError, match="test_bad_setup.*setup refused"):
        tf.Session().run(nnvm.symbol.test_bad_setup(x), {x: np.ones(2)})


def test_runtime_is_luajit_or_lua54():
    assert runtime_name() in ("LuaJIT 2.1", "Lua 5.4")


def test_building_graphs_does_not_import_torch():
    code = ("import sys, tinyflow as tf\n"
            "x = tf.placeholder(tf.float32, [None, 4])\n"
            "W = tf.Variable(tf.zeros([4, 2]))\n"
            "loss = tf.reduce_mean(tf.nn.softmax(tf.matmul(x, W)))\n"
            "tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
            "assert 'torch' not in sys.modules and 'lupa' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_profile_reports_ops():
    x = tf.placeholder(tf.float32, name="x")
    sess = tf.Session("cpu profile")
    sess.run(tf.exp(x) * 2, {x: np.ones(3)})
    report = sess.profile()
    assert "exp" in report and "__mul_scalar__" in report


def test_seed_softmax_program_on_synthetic_data(plan_memory):
    rng = np.random.default_rng(0)
    centers = rng.uniform(size=(10, 784)).astype(np.float32)

    def batch(n):  # MNIST-like: values in [0, 1], ten noisy prototypes
        labels = rng.integers(0, 10, n)
        images = np.clip(centers[labels] + 0.5 * rng.normal(size=(n, 784)), 0, 1)
        return images, np.eye(10, dtype=np.float32)[labels]

    x = tf.placeholder(tf.float32, [None, 784])
    W = tf.Variable(tf.zeros([784, 10]))
    y = tf.nn.softmax(tf.matmul(x, W))
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.initialize_all_variables())
    for _ in range(30):
        batch_xs, batch_ys = batch(100)
        sess.run(train_step, feed_dict={x: batch_xs, y_: batch_ys})
    correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(correct_prediction)
    test_xs, test_ys = batch(500)
    assert sess.run(accuracy, feed_dict={x: test_xs, y_: test_ys}) > 0.95


def test_seed_softmax_minimum_matches_numpy():
    # The seed's minimum program (explicit gradient + assign) against a numpy reference.
    rng = np.random.default_rng(1)
    xs = rng.normal(size=(8, 5)).astype(np.float32)
    ys = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 8)]
    x = tf.placeholder(tf.float32, [None, 5])
    W = tf.Variable(tf.zeros([5, 3]))
    y = tf.nn.softmax(tf.matmul(x, W))
    y_ = tf.placeholder(tf.float32, [None, 3])
    cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    W_grad = tf.gradients(cross_entropy, [W])[0]
    train_step = tf.assign(W, W - 0.5 * W_grad)
    sess = tf.Session()
    sess.run(tf.initialize_all_variables())
    w = np.zeros((5, 3))
    for _ in range(3):
        sess.run(train_step, feed_dict={x: xs, y_: ys})
        logits = xs @ w
        p = np.exp(logits - logits.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        w -= 0.5 * xs.T @ (p - ys) / len(xs)
    np.testing.assert_allclose(sess.run(W), w, rtol=1e-4, atol=1e-6)


def test_chosen_lua_runtime_keeps_python_objects_apart():
    # lupa 2.8's LuaJIT binding swaps Python objects after Lua's GC runs; the runtime chosen
    # must not (a swapped tensor would be a silently wrong result).
    from tinyflow.lua_ops.runtime import lua_runtime
    lua = lua_runtime()
    echo = lua.eval("function(obj, scratch) return obj end")
    tensors = [torch.zeros(1), torch.ones(1), torch.zeros(2)]
    assert all(echo(tensors[i % 3], lua.table()) is tensors[i % 3] for i in range(5000))


def _softmax_train_step():
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    W = tf.Variable(tf.zeros([784, 10]), name="W")
    y = tf.nn.softmax(tf.matmul(x, W))
    y_ = tf.placeholder(tf.float32, [None, 10], name="y_")
    loss = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return x, y_, step


def test_memory_plan_report_is_what_the_executor_allocates(plan_memory):
    x, y_, step = _softmax_train_step()
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    feed = {x: np.ones((100, 784)), y_: np.ones((100, 10))}
    report = sess.memory_plan(step, feed)
    [executor] = sess._executors.executors(tuple(step.outputs))
    allocated = sum(s.numel() * s.element_size() for s in executor.storages)
    assert allocated == report.planned_bytes
    assert report.param_bytes == 784 * 10 * 4 and report.input_bytes == 100 * 794 * 4
    if plan_memory:
        # W's gradient (31360 bytes) needs its own storage; the (100, 10) entries share two
        assert report.planned_bytes < 0.75 * report.naive_bytes and report.inplace_pairs
        assert report.num_storages < len(report.rows) / 2
    else:
        assert report.planned_bytes == report.naive_bytes and not report.inplace_pairs
    text = str(report)
    assert "matmul" in text and "planned" in text and "naive" in text
    sess.run(step, feed)  # the reported executor is the one that runs
    assert sess._executors.executors(tuple(step.outputs)) == [executor]


def test_one_tensor_per_variable_even_after_a_failed_run():
    # A variable first seen by a run that fails inside an op must still be one tensor shared by
    # every executor of the session.
    _register("test_fail_once", """
    function(x, y, kwarg)
      return function() error("refused") end
    end""")
    v = tf.Variable(tf.zeros([2]), name="v")
    sess = tf.Session()
    with pytest.raises(LuaOpError):
        sess.run(nnvm.symbol.test_fail_once(tf.assign(v, tf.ones([2]))))
    sess.run(tf.global_variables_initializer())
    sess.run(tf.assign(v, v + 5))
    np.testing.assert_allclose(sess.run(v), [5, 5])
    tensors = {id(e.tensors[e.indexed.entry_id((e.indexed.node_id[v.node], 0))])
               for e in sess._executors.executors() if v.node in e.indexed.node_id}
    assert len(tensors) == 1


def test_a_train_step_skips_the_loss_it_does_not_fetch():
    x, y_, step = _softmax_train_step()
    (loss_node,) = [n for n in nnvm.Graph(step.outputs).indexed.nodes if n.kind == "reduce_mean"]
    loss = nnvm.Symbol([nnvm.NodeEntry(loss_node, 0)])
    feed = {x: np.ones((100, 784)), y_: np.full((100, 10), 0.1)}
    with tf.Session("cpu profile") as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step, feed)
        assert "reduce_mean" not in sess.profile(), "ones_like(loss) became ones(shape=())"
        step_loss, _ = sess.run([loss, step], feed)
        assert "reduce_mean" in sess.profile()
    # W = 0 and uniform labels: the softmax is uniform, the gradient 0, the loss -log(0.1)
    np.testing.assert_allclose(step_loss, -np.log(0.1), rtol=1e-5)


def test_memory_plan_reports_the_op_workspace_beside_the_plan():
    # max_pool2d pools channels-last copies of x and y (and of its argmax, which this
    # forward-only fetch does not compute) on the CPU: scratch set up once, outside the plan
    x = tf.placeholder(tf.float32, [2, 3, 8, 8])
    pooled = tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    with tf.Session() as sess:
        report = sess.memory_plan(pooled * 2, {x: np.ones((2, 3, 8, 8))})
        plain = sess.memory_plan(x * 2, {x: np.ones((2, 3, 8, 8))})
    assert report.workspace_bytes == 2 * 3 * 8 * 8 * 4 + 2 * 3 * 4 * 4 * 4
    assert plain.workspace_bytes == 0
    assert "op workspace 0.002 MB" in str(report)


@pytest.mark.parametrize("plan_memory", [True, False])
def test_a_constant_is_computed_once_not_each_step(plan_memory):
    # TF keeps a constant's tensor: a program holding its data as one (tf.constant(images),
    # gathered by index each step) copied all of it every step (63 MB: 3.1 ms a step)
    table = np.arange(12, dtype=np.float32).reshape(3, 4)
    constant = tf.constant(table)
    x = tf.placeholder(tf.float32, [3, 4])
    total = tf.reduce_sum(constant * x + constant)
    sess = tf.Session("cpu profile", plan_memory=plan_memory)
    for scale in (1.0, 2.0, 3.0):  # the constant stays whatever the plan puts beside it
        assert sess.run(total, {x: np.full((3, 4), scale, np.float32)}) == (table * (scale + 1)).sum()
    ops = [line.split()[0] for line in sess.profile().splitlines()[1:]]
    assert "elemwise_mul" in ops and "constant" not in ops
    assert sess.run(constant).tolist() == table.tolist()  # fetched: its value


def test_make_callable_runs_fetches_fed_in_order():
    # real TF (2.21's tf.compat.v1) printed [2. 4.]; None None 2.0; [array([6.]), {'v': 2.0}];
    # InvalidArgumentError for the same program
    x = tf.placeholder(tf.float32, [None])
    y = x * 2
    v = tf.Variable(0.0)
    inc = tf.assign_add(v, 1.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        double = sess.make_callable(y, [x])
        np.testing.assert_array_equal(double([1.0, 2.0]), [2.0, 4.0])
        step = sess.make_callable(inc.op)
        assert step() is None and step() is None and sess.run(v) == 2.0
        both = sess.make_callable([y, {"v": v}], [x], accept_options=True)
        got = both(np.array([3.0]), options=tf.RunOptions())
        np.testing.assert_array_equal(got[0], [6.0])
        assert got[1] == {"v": 2.0}
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected 1 input tensors"):
            double()
        with pytest.raises(TypeError, match="accept_options"):
            double([1.0], options=tf.RunOptions())
