"""The bind pipeline (tinyflow/executor/pipeline.py) and the session options that choose its
passes: the order for every combination of options is the one the executor ran before the table
existed (recorded at f9e4a17 in bind_passes_f9e4a17.json, by a spy on ``apply_passes`` inside
``Executor._bind``); ``optimize=False`` runs the core passes alone and trains LeNet and an LSTM
to the same losses."""
import json
import re
from pathlib import Path

import numpy as np
import pytest
from test_cpu_passes import lenet

import tinyflow as tf
from tinyflow.executor.pipeline import CORE, PIPELINE, bind_passes
from tinyflow.session.options import SessionOptions, session_options

pytestmark = pytest.mark.usefixtures("fresh_graph")

RECORDED = json.loads((Path(__file__).parent / "bind_passes_f9e4a17.json").read_text())
# passes added since the recording, which run first (issue 24: fed tensors, shape arguments)
ADDED_FIRST = ["CutFeeds", "FoldShapeArguments"]
CORE_PASSES = ADDED_FIRST + ["InferShape", "InferType", "MaterializeShapes", "OrderMutation",
                             "PlanMemory"]


def _recorded(key) -> list:
    """The recorded order with the passes added since: those run first, and KeepOneStep (an
    optimisation: a forward-only LSTM keeps one step of what nothing reads) before
    OrderMutation."""
    order = list(RECORDED[key])
    order.insert(order.index("OrderMutation"), "KeepOneStep")
    return ADDED_FIRST + order


def _options(key) -> tuple:
    """``(SessionOptions, hinted)`` of a recorded key such as ``"cpu fusion=eager memory=sqrt
    hints=True"``."""
    device, fusion, memory, hints = re.fullmatch(
        r"(\w+) fusion=(\w+) memory=(\w+) hints=(\w+)", key).groups()
    options = SessionOptions(
        "gpu" if device == "cuda" else "cpu", fusion=None if fusion == "None" else fusion,
        memory_policy=None if memory == "None" else memory,
        memory_budget_bytes=1000 if memory == "budget" else None)
    return options, hints == "True"


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_the_table_gives_the_order_the_executor_ran_before(key):
    options, hinted = _options(key)
    assert bind_passes(options, hinted) == _recorded(key)


@pytest.mark.parametrize("device", ["cpu", "gpu"])
@pytest.mark.parametrize("hinted", [False, True])
def test_optimize_false_runs_the_core_passes_only(device, hinted):
    assert [s.name for s in PIPELINE if s.kind == CORE] == CORE_PASSES
    options = session_options(device, optimize=False)
    assert bind_passes(options, hinted) == CORE_PASSES


def test_the_session_binds_the_listed_passes():
    x = tf.placeholder(tf.float32, (2, 3))
    y = tf.tanh(x) * 2.0
    feed = {x: np.ones((2, 3), np.float32)}
    for session, wanted in ((tf.Session(), _recorded("cpu fusion=None memory=None hints=False")),
                            (tf.Session(optimize=False), CORE_PASSES),
                            (tf.Session(memory="mirror"),
                             _recorded("cpu fusion=None memory=mirror hints=False"))):
        with session:
            assert session._bind(y, feed).passes == wanted


def test_options_are_parsed_once_with_todays_errors(monkeypatch):
    assert tf.Session("cpu profile", plan_memory=False, memory="sublinear").options == \
        SessionOptions("cpu", profile=True, plan_memory=False, memory_policy="sqrt")
    assert tf.Session(config=tf.ConfigProto()).options == SessionOptions()
    with pytest.raises(ValueError, match="'cpu fusoin'"):
        tf.Session("cpu fusoin")
    with pytest.raises(ValueError, match="memory policy must be one of"):
        tf.Session(memory="fast")
    for config, memory in (("cpu fusion", None), ("cpu", "mirror")):
        with pytest.raises(ValueError, match="optimize=False runs the core passes only"):
            tf.Session(config, memory=memory, optimize=False)
    monkeypatch.setenv("TINYFLOW_MEMORY", "sublinear")
    assert tf.Session().options.memory_policy == "sqrt"
    assert tf.Session(optimize=False).options.memory_policy is None  # the environment's: unused


# -- the core alone trains as the optimised engine does ------------------------------------------
def _losses(loss, step, feed, initial, steps=5, **session_args) -> list:
    """Losses of ``steps`` training steps from the trainable variables' ``initial`` values."""
    with tf.Session(**session_args) as sess:
        sess.run(tf.global_variables_initializer(), feed)
        for variable, value in zip(tf.trainable_variables(), initial):
            variable.load(value, sess)
        return [sess.run([loss, step], feed)[0] for _ in range(steps)]


def _compare(loss, step, feed):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer(), feed)
        initial = sess.run(tf.trainable_variables())
    optimised = _losses(loss, step, feed, initial)
    core = _losses(loss, step, feed, initial, optimize=False)
    assert optimised[-1] < optimised[0]  # it trains
    np.testing.assert_allclose(core, optimised, rtol=1e-5, atol=1e-6)


def test_lenet_trains_to_the_same_losses_with_the_core_alone():
    rng = np.random.default_rng(0)
    x, logits, _ = lenet((8, 1, 12, 12))  # test_cpu_passes' LeNet-shaped network
    label = tf.placeholder(tf.float32, (8,))
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(logits, label)
    step = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    feed = {x: rng.uniform(-1, 1, (8, 1, 12, 12)).astype(np.float32),
            label: rng.integers(0, 5, 8).astype(np.float32)}
    with tf.Session() as sess:  # the optimised engine really rewrites this graph
        sess.run(tf.global_variables_initializer())
        assert {"FuseConvActivation", "ChooseLayout"} <= set(sess._bind(step, feed).passes)
    _compare(loss, step, feed)


def test_an_lstm_trains_to_the_same_losses_with_the_core_alone():
    rng = np.random.default_rng(1)
    x = tf.placeholder(tf.float32, (4, 3, 5))  # time, batch, depth
    target = tf.placeholder(tf.float32, (3, 6))
    outputs, _ = tf.nn.static_rnn(tf.nn.rnn_cell.BasicLSTMCell(6), tf.unstack(x),
                                  dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(outputs[-1] - target))
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    feed = {x: rng.normal(size=(4, 3, 5)).astype(np.float32),
            target: rng.uniform(-0.5, 0.5, (3, 6)).astype(np.float32)}
    _compare(loss, step, feed)
