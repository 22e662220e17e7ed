"""Errors point at the user's code.

Every error raised while inferring shapes or running an op names the op, the node, the shapes
involved and the file:line that created the node; here that is a line of this file, found with
:func:`here` rather than written down.  After each error the session runs on: no variable has
changed and the next training step works.
"""
import inspect
from types import SimpleNamespace

import numpy as np
import pytest

import tinyflow as tf
from tinyflow import nnvm
from tinyflow.executor import BindError

pytestmark = pytest.mark.usefixtures("fresh_graph")  # names start over: "a" is "a", not "a_1"
from tinyflow.lua_ops.runtime import LuaOpError
from tinyflow.nnvm import Graph, apply_passes


def here() -> str:
    """``file:line`` of the line calling this, as ``Node.source`` records where a node was made.

    Call it on the line that creates the node: ``y, site = tf.matmul(a, b), here()``.
    """
    caller = inspect.currentframe().f_back
    return f"{caller.f_code.co_filename}:{caller.f_lineno}"


def assert_names(err, *parts):
    message = str(err.value)
    for part in parts:
        assert part in message, f"{part!r} is missing from the message: {message}"


@pytest.fixture(params=["cpu", "cpu profile"])
def model(request):
    """A linear model that has trained one step; each error below must leave it as it is.

    Both configs, since a profiled session runs the closures one by one instead of in one
    call into Lua.
    """
    tf.reset_default_graph()
    x, x_site = tf.placeholder(tf.float32, [None, 3], name="model_x"), here()
    W = tf.Variable(tf.ones([3, 2]), name="model_W")
    loss = tf.reduce_sum(tf.matmul(x, W) ** 2)
    step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    sess = tf.Session(request.param)
    sess.run(tf.global_variables_initializer())
    sess.run(step, {x: np.ones((4, 3))})
    return SimpleNamespace(sess=sess, x=x, x_site=x_site, W=W, step=step, before=sess.run(W))


def assert_session_survives(model):
    np.testing.assert_array_equal(model.sess.run(model.W), model.before)
    model.sess.run(model.step, {model.x: np.ones((4, 3))})
    assert not np.array_equal(model.sess.run(model.W), model.before), "the step did not run"


# -- shapes that do not fit, found by InferShape before anything runs --------------------------
def test_matmul_of_incompatible_shapes(model):
    a = tf.placeholder(tf.float32, name="a")  # no static shape: found at run
    y, site = tf.matmul(a, model.W, name="bad_matmul"), here()
    with pytest.raises(tf.ShapeError) as err:
        model.sess.run(y, {a: np.ones((2, 4))})
    assert_names(err, "op 'matmul'", "node 'bad_matmul'", "(2, 4)", "(3, 2)",
                 f"created at {site}")
    assert_session_survives(model)


def test_the_pass_alone_gives_the_same_message():
    a = tf.placeholder(tf.float32, name="a")
    W = tf.Variable(tf.zeros([3, 2]), name="W")
    y, site = tf.matmul(a, W, name="bad_matmul"), here()
    graph = Graph(y, {"shape_inputs": {"a": (2, 4), "W": (3, 2)}})
    with pytest.raises(tf.ShapeError) as err:
        apply_passes(graph, "InferShape")  # no session, no torch: the graph layer alone
    assert_names(err, "op 'matmul'", "node 'bad_matmul'", "(2, 4)", "(3, 2)",
                 f"created at {site}")


def test_static_shapes_that_cannot_fit_are_refused_when_the_op_is_made():
    # TF 1.15 raises ValueError as the op is built, not at run
    site = f"{__file__}:{inspect.currentframe().f_lineno + 2}"
    with pytest.raises(ValueError) as err:
        tf.matmul(tf.zeros([3, 4]), tf.zeros([5, 6]), name="bad_matmul")
    assert_names(err, "op 'matmul'", "node 'bad_matmul'", "(3, 4)", "(5, 6)",
                 f"created at {site}")
    with pytest.raises(ValueError) as err:
        tf.constant([1., 2, 3]) + tf.constant([1., 2, 3, 4])
    assert_names(err, "op 'elemwise_add'", "(3,)", "(4,)")
    assert isinstance(err.value, tf.ShapeError)
    # what a feed could still make fit is accepted, as in TF
    a = tf.placeholder(tf.float32, [None, 4])
    assert tf.matmul(a, tf.zeros([4, 6])).get_shape().as_list() == [None, 6]
    tf.matmul(tf.placeholder(tf.float32), tf.zeros([5, 6]))
    tf.add(tf.placeholder(tf.float32, [None, 3]), tf.zeros([4, 3]))
    assert (tf.zeros([3, 1]) + tf.zeros([1, 4])).get_shape().as_list() == [3, 4]


@pytest.mark.parametrize("build, names", [
    (lambda a: tf.matmul(a, tf.zeros([5, 6])), ["op 'matmul'", "(?, 4)", "(5, 6)"]),
    (lambda a: tf.matmul(tf.nn.relu(a) * 2.0, tf.zeros([5, 6])), ["(?, 4)", "(5, 6)"]),
    (lambda a: tf.reshape(a, [5]), ["op 'reshape'", "(?, 4)"]),
    (lambda a: tf.concat([a, tf.zeros([2, 5, 1])], 1), ["op 'concat'"]),
    (lambda a: a + tf.zeros([3]), ["op 'elemwise_add'", "(?, 4)", "(3,)"])])
def test_an_unknown_dim_does_not_hide_what_cannot_fit(build, names):
    # TF 1.15 raises ValueError as the op is built: the known dims alone cannot fit, whatever
    # the ? turns out to be (a [None, 4] placeholder, and what ops make of it)
    a = tf.placeholder(tf.float32, [None, 4])
    with pytest.raises(ValueError) as err:
        build(a)
    assert_names(err, *names)


def test_an_unknown_dim_that_some_feed_fits_is_accepted():
    # as in TF, where some value of the ? fits, the op is made (the feed decides at run)
    a, b = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [None, None])
    assert tf.reshape(a, [-1, 7]).get_shape().as_list() == [None, 7]
    tf.reshape(a, [5, 6])  # a feed of 10 rows fits
    tf.reshape(a, [7, 9])  # 21 rows
    c = tf.placeholder(tf.float32, [None, None, None])
    tf.reshape(tf.placeholder(tf.float32, [None, 8]), tf.shape(c))  # (2, 1, 8) for one
    tf.gradients(tf.reduce_sum(tf.reshape(c, [-1, 8])), c)
    tf.concat([b, tf.zeros([5, 6])], 0)  # b of 6 columns fits
    tf.matmul(b, tf.zeros([5, 6]))
    b + tf.zeros([5, 6])
    assert tf.matmul(tf.nn.relu(a), tf.zeros([3, 2])).get_shape().as_list() == [None, 2]


def test_elemwise_add_of_shapes_that_do_not_broadcast(model):
    a = tf.placeholder(tf.float32, [None, 3], name="a")  # known only when fed: found at run
    b = tf.placeholder(tf.float32, [4, 3], name="b")
    y, site = tf.add(a, b, name="bad_add"), here()
    with pytest.raises(tf.ShapeError) as err:
        model.sess.run(y, {a: np.ones((2, 3)), b: np.ones((4, 3))})
    assert_names(err, "op 'elemwise_add'", "node 'bad_add'", "(2, 3)", "(4, 3)",
                 f"created at {site}")
    assert_session_survives(model)


def test_reshape_to_a_different_size(model):
    a = tf.placeholder(tf.float32, name="a")
    y, site = tf.reshape(a, [5], name="bad_reshape"), here()
    with pytest.raises(tf.ShapeError) as err:
        model.sess.run(y, {a: np.ones((2, 3))})
    assert_names(err, "op 'reshape'", "node 'bad_reshape'", "(2, 3)", "(5,)",
                 f"created at {site}")
    assert_session_survives(model)


def test_conv2d_on_the_wrong_rank(model):
    images = tf.placeholder(tf.float32, name="images")  # fed without a height axis
    kernel = tf.placeholder(tf.float32, [4, 3, 3, 3], name="kernel")
    y, site = tf.nn.conv2d(images, weight=kernel, name="bad_conv"), here()
    with pytest.raises(tf.ShapeError) as err:
        model.sess.run(y, {images: np.ones((2, 3, 8)), kernel: np.ones((4, 3, 3, 3))})
    assert_names(err, "op 'conv2d'", "node 'bad_conv'", "rank 4", "(2, 3, 8)", "(4, 3, 3, 3)",
                 f"created at {site}")
    assert_session_survives(model)


def test_gradient_nodes_point_at_the_line_asking_for_the_gradient():
    # The Gradient pass builds them inside tinyflow; an error in one names the user's call.
    a = tf.placeholder(tf.float32, [None, 3], name="a")
    W = tf.Variable(tf.zeros([3, 2]), name="W")
    forward = Graph(tf.reduce_sum(tf.matmul(a, W))).indexed.nodes
    (grad,), site = tf.gradients(tf.reduce_sum(tf.matmul(a, W)), [W]), here()
    made = [n for n in Graph(grad).indexed.nodes if n.op is not None and n not in forward]
    assert made and all(n.source == site for n in made[-3:]), [n.source for n in made]


# -- feeds ---------------------------------------------------------------------------------------
def test_feed_of_the_wrong_shape(model):
    with pytest.raises(tf.ShapeError) as err:
        model.sess.run(model.step, {model.x: np.ones((4, 5))})
    assert_names(err, "placeholder 'model_x'", "(4, 5)", "(?, 3)", f"created at {model.x_site}")
    assert_session_survives(model)


def test_feed_of_the_wrong_dtype(model):
    with pytest.raises(TypeError) as err:
        model.sess.run(model.step, {model.x: np.full((4, 3), "one")})
    assert_names(err, "placeholder 'model_x'", "must be numeric", "<U3", "(4, 3)",
                 f"created at {model.x_site}")
    assert_session_survives(model)


def test_uninitialised_variable(model):
    v, site = tf.Variable(tf.zeros([3]), name="never_set"), here()
    with pytest.raises(BindError) as err:
        model.sess.run(v * 2)
    assert_names(err, "variable 'never_set'", f"created at {site}",
                 "global_variables_initializer")
    assert_session_survives(model)


# -- an op failing while it runs -----------------------------------------------------------------
def _bad_label_loss(model):
    labels = tf.placeholder(tf.float32, [None], name="labels")
    logits = tf.matmul(model.x, model.W)  # 2 classes
    cross_entropy = tf.nn.mean_sparse_softmax_cross_entropy_with_logits
    loss, site = cross_entropy(logits, labels, name="bad_labels_loss"), here()
    feeds = {model.x: np.ones((4, 3)), labels: np.array([0, 1, 5, 1])}  # label 5: out of range
    return loss, site, feeds, labels


def test_torch_error_inside_a_builtin_op(model):
    loss, site, feeds, _ = _bad_label_loss(model)
    with pytest.raises(LuaOpError) as err:
        model.sess.run(loss, feeds)
    assert_names(err, "op 'mean_sparse_softmax_cross_entropy_with_logits'",
                 "node 'bad_labels_loss'", "failed while running", "(4, 2)", "(4,)",
                 f"created at {site}")
    assert_session_survives(model)


def test_torch_error_stops_a_training_step_before_any_update(model):
    loss, site, feeds, labels = _bad_label_loss(model)
    step, step_site = tf.train.GradientDescentOptimizer(0.1).minimize(loss), here()
    with pytest.raises(LuaOpError) as err:
        model.sess.run(step, feeds)
    # The loss op or its backward op meets the label first (the step needs no loss value);
    # a backward node was made by minimize, so it names that line.
    assert_names(err, "mean_sparse_softmax_cross_entropy_with_logits", "failed while running",
                 "(4, 2)", "(4,)")
    message = str(err.value)
    assert f"created at {site}" in message or f"created at {step_site}" in message, message
    assert_session_survives(model)
    model.sess.run(step, {**feeds, labels: np.array([0, 1, 1, 1])})


def _register(name, body, infer_shape=nnvm.same_shape):
    # No FGradient: test_ops checks that every gradient rule registered in-process is tested.
    return (nnvm.register_op(name).set_num_inputs(1)
            .set_attr("FInferShape", infer_shape, overwrite=True)
            .set_attr("FLuaCompute", body, overwrite=True))


def test_lua_error_inside_a_custom_op(model):
    _register("test_errors_step_fails", """
    return function(x, y, kwarg)
      return function()
        error("refusing to run")
      end
    end""")
    a = tf.placeholder(tf.float32, [None, 3], name="a")
    y, site = nnvm.symbol.test_errors_step_fails(a, name="refuser"), here()
    for _ in range(2):  # the failed executor stays usable: the same error again
        with pytest.raises(LuaOpError) as err:
            model.sess.run(y, {a: np.ones((4, 3))})
        assert_names(err, "op 'test_errors_step_fails'", "node 'refuser'", "(4, 3)",
                     f"created at {site}", "test_errors_step_fails.lua:4", "refusing to run")
    assert_session_survives(model)


def test_lua_error_in_a_custom_op_setup(model):
    _register("test_errors_setup_fails", """
    return function(x, y, kwarg)
      if torch.dim(x[1]) ~= 1 then error("wants a vector") end
      return function() torch.copy(y[1], x[1]) end
    end""")
    a = tf.placeholder(tf.float32, name="a")
    y, site = nnvm.symbol.test_errors_setup_fails(a, name="picky"), here()
    with pytest.raises(LuaOpError) as err:
        model.sess.run(y, {a: np.ones((4, 3))})
    assert_names(err, "op 'test_errors_setup_fails'", "node 'picky'", "setup failed",
                 "input shapes (4, 3)", "output shapes (4, 3)", f"created at {site}",
                 "wants a vector")
    np.testing.assert_array_equal(model.sess.run(y, {a: np.ones(2)}), [1, 1])
    assert_session_survives(model)


def test_lua_syntax_error_names_the_node(model):
    _register("test_errors_syntax", "return function(x, y, kwarg) return function( end end")
    a = tf.placeholder(tf.float32, name="a")
    y, site = nnvm.symbol.test_errors_syntax(a, name="garbled"), here()
    with pytest.raises(LuaOpError) as err:
        model.sess.run(y, {a: np.ones(2)})
    assert_names(err, "op 'test_errors_syntax'", "node 'garbled'", "does not compile",
                 "test_errors_syntax.lua:1", f"created at {site}")
    assert_session_survives(model)


def test_bug_in_a_custom_shape_rule_names_the_node(model):
    def broken_rule(attrs, in_shapes, out_shapes):
        return in_shapes, [in_shapes[0][::-1] + in_shapes[1]]  # a bug: there is one input

    _register("test_errors_bad_rule", "return function(x, y, kwarg) return function() end end",
              infer_shape=broken_rule)
    a = tf.placeholder(tf.float32, name="a")
    y, site = nnvm.symbol.test_errors_bad_rule(a, name="buggy"), here()
    with pytest.raises(tf.GraphError) as err:
        model.sess.run(y, {a: np.ones((4, 3))})
    assert_names(err, "op 'test_errors_bad_rule'", "node 'buggy'", "FInferShape",
                 "IndexError", "(4, 3)", f"created at {site}")
    assert isinstance(err.value.__cause__, IndexError)
    assert_session_survives(model)


def test_errors_found_as_a_run_binds_are_tensorflows_run_time_classes():
    # the classes real TF raises from these runs (2.21's tf.compat.v1, graph mode, printed
    # FailedPreconditionError, InvalidArgumentError, InvalidArgumentError); TinyFlow's error
    # is both that class and its own ValueError subclass
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(tf.ones([3, 2]), name="w")
    y = tf.matmul(x, w)
    r = tf.reshape(x, [-1, 2])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="'w'.*before it is init"):
            sess.run(y, {x: np.ones((2, 3))})
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match="placeholder 'x'.*be fed"):
            sess.run(y)
        with pytest.raises(tf.errors.InvalidArgumentError, match="cannot reshape"):
            sess.run(r, {x: np.ones((1, 3))})
        with pytest.raises(BindError):
            sess.run(y)
        with pytest.raises(nnvm.ShapeError):
            sess.run(r, {x: np.ones((1, 3))})
        np.testing.assert_array_equal(sess.run(r, {x: np.ones((2, 3))}), np.ones((3, 2)))
    with tf.Session() as sess:  # TF's restore-or-initialise idiom
        try:
            sess.run(w)
        except tf.errors.FailedPreconditionError:
            sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(w), np.ones((3, 2)))
