"""Random ops, seeds and initializers against TensorFlow 1.15's semantics (random_ops.py,
framework/random_seed.py, init_ops.py).

The statistical checks draw at least 20000 samples from fixed seeds and allow several standard
errors, so they cannot flake: a seeded op gives the same numbers on every run of the suite.
"""
import itertools
import json
import math
import runpy
import subprocess
import sys

import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.frontend.init_ops import compute_fans
from tinyflow.nnvm.symbol import DEFAULT_GRAPH_SEED
from tinyflow.nnvm.tensor_shape import TensorShape
from tinyflow.session.random_streams import stream_seed

pytestmark = pytest.mark.usefixtures("fresh_graph")

MAXINT32 = 2**31 - 1
TRUNCATED_STD = 0.87962566103423978  # std of N(0, 1) cut at +-2


def run(*fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(list(fetches), feed_dict)


# -- distributions ---------------------------------------------------------------------------
def test_random_normal_moments(plan_memory):
    x = tf.random_normal([400, 250], mean=1.5, stddev=2.0, seed=1)
    with tf.Session(plan_memory=plan_memory) as sess:
        (value,) = sess.run([x])
    assert value.shape == (400, 250) and value.dtype == np.float32
    # 100000 samples: standard errors 0.006 (mean) and 0.0045 (std)
    assert abs(value.mean() - 1.5) < 0.04 and abs(value.std() - 2.0) < 0.03
    assert abs(np.mean(value < 1.5) - 0.5) < 0.01
    assert abs(np.mean(np.abs(value - 1.5) < 2.0) - 0.6827) < 0.01  # one deviation
    assert value.min() < 1.5 - 7.0 and value.max() > 1.5 + 7.0  # tails are not cut


def test_truncated_normal_is_cut_at_two_deviations(plan_memory):
    x = tf.truncated_normal([400, 250], mean=-1.0, stddev=3.0, seed=2)
    with tf.Session(plan_memory=plan_memory) as sess:
        (value,) = sess.run([x])
    assert value.min() >= -7.0 and value.max() <= 5.0
    assert value.min() < -6.9 and value.max() > 4.9  # the whole range is reached
    assert abs(value.mean() + 1.0) < 0.04
    assert abs(value.std() - 3.0 * TRUNCATED_STD) < 0.03
    # redrawing what falls outside leaves P(|z| < 1 | |z| < 2) = 0.6827 / 0.9545 inside 1 std
    assert abs(np.mean(np.abs(value + 1.0) < 3.0) - 0.6827 / 0.9545) < 0.01


def test_random_uniform_float(plan_memory):
    x = tf.random_uniform([400, 250], minval=-1.0, maxval=3.0, seed=3)
    unit = tf.random_uniform([20000], seed=4)  # maxval defaults to 1
    with tf.Session(plan_memory=plan_memory) as sess:
        value, unit_value = sess.run([x, unit])
    assert value.min() >= -1.0 and value.max() < 3.0
    assert abs(value.mean() - 1.0) < 0.02 and abs(value.var() - 16 / 12) < 0.02
    assert abs(np.mean(value < 0.0) - 0.25) < 0.01
    assert unit_value.min() >= 0.0 and unit_value.max() < 1.0
    assert abs(unit_value.mean() - 0.5) < 0.01


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_random_uniform_int(dtype):
    x = tf.random_uniform([20000], minval=-3, maxval=4, dtype=dtype, seed=5)
    (value,) = run(x)
    assert value.dtype == dtype.as_numpy_dtype
    assert set(np.unique(value)) == set(range(-3, 4))  # maxval excluded
    counts = np.bincount(value + 3)
    assert np.all(np.abs(counts / 20000 - 1 / 7) < 0.015)


@pytest.mark.parametrize("make", [
    lambda dtype: tf.random_normal([2000], dtype=dtype, seed=1),
    lambda dtype: tf.truncated_normal([2000], dtype=dtype, seed=1),
    lambda dtype: tf.random_uniform([2000], dtype=dtype, seed=1)], ids=["normal", "truncated",
                                                                     "uniform"])
@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64])
def test_float_dtypes(make, dtype):
    x = make(dtype)
    assert x.dtype == dtype
    (value,) = run(x)
    assert value.dtype == dtype.as_numpy_dtype and np.all(np.isfinite(value))
    assert value.std() > 0.25


def test_parameters_as_scalar_tensors():
    mean, stddev = tf.placeholder(tf.float32, shape=()), tf.constant(0.5)
    low, high = tf.placeholder(tf.float32, shape=()), tf.constant(4.0)
    normal = tf.random_normal([20000], mean=mean, stddev=stddev, seed=6)
    truncated = tf.truncated_normal([20000], mean=mean, stddev=stddev, seed=7)
    uniform = tf.random_uniform([20000], minval=low, maxval=high, seed=8)
    half_tensor = tf.random_uniform([20000], minval=2.0, maxval=high, seed=9)
    values = run(normal, truncated, uniform, half_tensor, feed_dict={mean: 10.0, low: 3.0})
    normal, truncated, uniform, half_tensor = values
    assert abs(normal.mean() - 10.0) < 0.02 and abs(normal.std() - 0.5) < 0.02
    assert truncated.min() >= 9.0 and truncated.max() <= 11.0
    assert uniform.min() >= 3.0 and uniform.max() < 4.0 and abs(uniform.mean() - 3.5) < 0.01
    assert half_tensor.min() >= 2.0 and abs(half_tensor.mean() - 3.0) < 0.02


def test_unchecked_parameters_as_tensorflow():
    # TF does not check stddev >= 0 or minval < maxval for floats: z * stddev + mean,
    # u * (maxval - minval) + minval.
    normal = tf.random_normal([20000], stddev=-2.0, seed=1)
    uniform = tf.random_uniform([20000], minval=3.0, maxval=1.0, seed=2)
    constant = tf.random_uniform([10], minval=2.0, maxval=2.0, seed=3)
    normal, uniform, constant = run(normal, uniform, constant)
    assert abs(normal.std() - 2.0) < 0.05
    assert uniform.min() > 1.0 and uniform.max() <= 3.0 and abs(uniform.mean() - 2.0) < 0.02
    np.testing.assert_array_equal(constant, np.full(10, 2.0, np.float32))


def test_bad_arguments():
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
        tf.random_uniform([3], dtype=tf.int32)
    with pytest.raises(ValueError, match="Invalid dtype"):
        tf.random_uniform([3], maxval=2, dtype=tf.bool)
    with pytest.raises(TypeError, match="int32"):
        tf.random_normal([3], dtype=tf.int32)
    with pytest.raises(TypeError, match="int64"):
        tf.truncated_normal([3], dtype="int64")
    with pytest.raises(TypeError, match="integers"):
        tf.random_uniform([3], maxval=2.5, dtype=tf.int32)
    with pytest.raises(ValueError, match="fully known"):
        tf.random_normal([None, 3])
    empty = tf.random_uniform([3], minval=5, maxval=5, dtype=tf.int64)
    with pytest.raises(tf.TinyflowError):  # an empty integer range fails when run, as in TF
        run(empty)
    with pytest.raises(TypeError, match="Python integers only"):  # TF takes tensors there
        tf.random_uniform([3], maxval=tf.constant(4), dtype=tf.int32)
    shape = tf.placeholder(tf.int32, [2])  # a fed shape: the rest bound per its value
    assert run(tf.random_normal(shape), feed_dict={shape: [2, 3]})[0].shape == (2, 3)


def test_shape_from_a_tensor(plan_memory):
    # tf.random_normal(tf.shape(x)): the shape x has when the graph runs, one stream throughout
    x = tf.placeholder(tf.float32, [None, 3])
    noise = tf.random_normal(tf.shape(x), seed=4)
    shifted = tf.random_uniform(tf.shape(x), minval=tf.reduce_sum(x), maxval=5.0, seed=5)
    cut = tf.truncated_normal(tf.shape(tf.ones([2, 5])), seed=6)  # a static shape: a constant
    assert noise.get_shape().as_list() == [None, 3] and cut.get_shape().as_list() == [2, 5]
    generator = torch.Generator().manual_seed(stream_seed(*(noise.node.attrs[k] for k in
                                                             ("seed", "seed2"))))
    with tf.Session(plan_memory=plan_memory) as sess:
        for batch in (4, 7, 4):
            feed = {x: np.ones((batch, 3), np.float32)}
            values, low_values = sess.run([noise, shifted], feed)
            expected = torch.empty(batch, 3).normal_(generator=generator).numpy()
            np.testing.assert_array_equal(values, expected)
            # minval 3 * batch > maxval: TF's u * (max - min) + min
            assert low_values.shape == (batch, 3)
            assert low_values.min() > 5.0 and low_values.max() <= 3.0 * batch
        assert sess.run(cut).shape == (2, 5)


# -- multinomial / categorical ---------------------------------------------------------------
def test_multinomial_frequencies_are_softmax(plan_memory):
    probs = np.array([[0.1, 0.2, 0.7, 0.0], [0.25, 0.25, 0.25, 0.25]])
    with np.errstate(divide="ignore"):
        logits = np.log(probs).astype(np.float32) + 3.0  # a shift changes nothing
    fed = tf.placeholder(tf.float32, [None, 4])
    samples = tf.multinomial(fed, 20000, seed=1)
    as_int32 = tf.random.categorical(fed, 5, dtype=tf.int32)
    assert samples.dtype == tf.int64 and as_int32.dtype == tf.int32
    assert samples.get_shape().as_list() == [None, 20000]
    with tf.Session(plan_memory=plan_memory) as sess:
        values, small = sess.run([samples, as_int32], {fed: logits})
    assert values.shape == (2, 20000) and small.shape == (2, 5) and small.dtype == np.int32
    for row, p in zip(values, probs):  # standard errors at most 0.0035
        np.testing.assert_allclose(np.bincount(row, minlength=4) / 20000, p, atol=0.015)
    assert not np.any(values[0] == 3)  # a -inf logit is never drawn
    assert samples.op.name == "multinomial/Multinomial"  # TF's names
    assert as_int32.op.name == "categorical/Multinomial"


def test_multinomial_seeds_and_errors():
    graph = tf.Graph()
    with graph.as_default():
        samples = tf.multinomial([[0.0, 1.0, 2.0]], 50, seed=2)
    first, again = _draws(graph, [samples]), _draws(graph, [samples])
    np.testing.assert_array_equal(first[0][0], again[0][0])
    assert not np.array_equal(first[0][0], first[1][0])
    with pytest.raises(ValueError, match="matrix"):
        tf.multinomial([0.0, 1.0], 3)
    with pytest.raises(ValueError, match="output_dtype"):
        tf.multinomial([[0.0, 1.0]], 3, output_dtype=tf.float32)
    with pytest.raises(TypeError, match="num_samples"):
        tf.multinomial([[0.0, 1.0]], tf.constant(3))
    with pytest.raises(TypeError, match="int32"):
        tf.multinomial(tf.constant([[1, 2]]), 3)


def test_shapes_and_names():
    x = tf.random_normal(TensorShape([2, 3]), name="noise")
    assert x.op.name == "noise" and x.get_shape().as_list() == [2, 3]
    assert tf.random_normal([1]).name == "random_normal:0"
    assert tf.truncated_normal([1]).op.name == "truncated_normal"
    assert tf.random_uniform([1]).op.name == "random_uniform"
    assert tf.random_uniform(4).get_shape().as_list() == [4]


# -- seeds -----------------------------------------------------------------------------------
def test_get_seed_follows_tensorflow():
    assert tf.get_seed(None) == (None, None)
    assert tf.get_seed(5) == (DEFAULT_GRAPH_SEED, 5)
    assert tf.get_seed(2**40) == (DEFAULT_GRAPH_SEED, 2**40 % MAXINT32)
    tf.set_random_seed(0)
    assert tf.get_seed(0) == (0, MAXINT32)  # (0, 0) would mean "nondeterministic" in TF
    tf.set_random_seed(42)
    assert tf.get_default_graph().seed == 42
    first = tf.get_seed(None)
    tf.constant(1.0)
    second = tf.get_seed(None)
    assert first[0] == second[0] == 42 and first[1] != second[1]
    assert tf.get_seed(7) == (42, 7)
    assert tf.Graph().seed is None  # the seed belongs to a graph


def _seeded_graph(graph_seed, op_seed=None):
    graph = tf.Graph()
    with graph.as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        ops = [tf.random_normal([50], seed=op_seed), tf.random_uniform([50], seed=op_seed),
               tf.truncated_normal([50], seed=op_seed)]
    return graph, ops


def _draws(graph, ops, runs=2):
    with tf.Session(graph=graph) as sess:
        return [sess.run(ops) for _ in range(runs)]


@pytest.mark.parametrize("graph_seed, op_seed", [(1234, None), (None, 7), (1234, 7)])
def test_seeds_repeat_across_sessions_and_graphs(graph_seed, op_seed):
    graph, ops = _seeded_graph(graph_seed, op_seed)
    first = _draws(graph, ops)
    again = _draws(graph, ops)  # a new session of the same graph
    rebuilt = _draws(*_seeded_graph(graph_seed, op_seed))  # the program run again
    for values in (again, rebuilt):
        for run_a, run_b in zip(first, values):
            for a, b in zip(run_a, run_b):
                np.testing.assert_array_equal(a, b)
    for a, b in zip(*first):  # each run of an op draws new numbers
        assert not np.array_equal(a, b)


def test_graph_seed_gives_ops_distinct_seeds():
    tf.set_random_seed(99)
    a, b = tf.random_normal([100]), tf.random_normal([100])
    a_value, b_value = run(a, b)
    assert not np.array_equal(a_value, b_value)
    assert a.node.attrs["seed"] == b.node.attrs["seed"] == 99
    assert a.node.attrs["seed2"] != b.node.attrs["seed2"]


def test_same_op_seed_same_numbers_and_seeds_matter():
    a, b = tf.random_uniform([100], seed=3), tf.random_uniform([100], seed=3)
    c = tf.random_uniform([100], seed=4)
    a_value, b_value, c_value = run(a, b, c)
    np.testing.assert_array_equal(a_value, b_value)  # TF: same seeds, same sequence
    assert not np.array_equal(a_value, c_value)
    first = _draws(*_seeded_graph(1, 5), runs=1)[0]
    other_graph_seed = _draws(*_seeded_graph(2, 5), runs=1)[0]
    for x, y in zip(first, other_graph_seed):
        assert not np.array_equal(x, y)


def test_unseeded_ops_differ_across_sessions():
    graph, ops = _seeded_graph(None)
    first, second = _draws(graph, ops, runs=1), _draws(graph, ops, runs=1)
    for a, b in zip(first[0], second[0]):
        assert not np.array_equal(a, b)


def test_seeded_ops_leave_torch_global_generator_alone():
    x = tf.random_normal([1000], seed=11)
    dropped = tf.nn.dropout(tf.ones([1000]), 0.5, seed=12)
    torch.manual_seed(0)
    expected = torch.rand(5)
    torch.manual_seed(0)
    run(x, dropped)
    torch.testing.assert_close(torch.rand(5), expected)


def test_every_seed_pair_has_its_own_stream():
    # torch's CPU generator keeps 32 bits of its seed: pairs that agree there must differ too
    pairs = [(2, 5), (4, 5), (6, 5), (5, 2), (5, 4), (0, 5), (5, 0), (1, 2), (2, 1)]
    firsts = []
    for graph_seed, op_seed in pairs:
        with tf.Graph().as_default():
            tf.set_random_seed(graph_seed)
            firsts.append(tuple(run(tf.random_uniform([8], seed=op_seed))[0]))
    assert len(set(firsts)) == len(pairs)
    assert len({stream_seed(a, b) % 2**32 for a in range(40) for b in range(40)}) == 1600


# -- one stream per op and session (TF: a stateful op's kernel lives as long as its session) ------
def _node_stream(op, shape, draw, runs):
    """What a node seeded (seed, seed2) draws in ``runs`` runs, from torch itself: a generator
    seeded with stream_seed, advanced by each draw."""
    generator = torch.Generator().manual_seed(stream_seed(op.node.attrs["seed"],
                                                          op.node.attrs["seed2"]))
    return [draw(torch.empty(shape), generator).numpy() for _ in range(runs)]


def _dropout_draw(keep_prob):
    def draw(tensor, generator):  # TF's mask: kept where U(0, 1) >= rate, scaled by 1 / keep
        return (tensor.uniform_(generator=generator) < keep_prob).float() / keep_prob
    return draw


@pytest.mark.parametrize("kind", ["normal", "dropout"])
def test_one_stream_per_op_and_session(kind, plan_memory):
    tf.set_random_seed(3)
    if kind == "normal":
        x = tf.random_normal([6], seed=1)
        expected = _node_stream(x, (6,), lambda t, g: t.normal_(generator=g), 5)
    else:
        x = tf.nn.dropout(tf.ones([20]), keep_prob=0.5, seed=1)
        expected = _node_stream(x, (20,), _dropout_draw(0.5), 5)
    other = tf.random_uniform([4])  # graph-seeded: its own stream
    p = tf.placeholder(tf.float32, [None])
    doubled = p * 2.0
    with tf.Session(plan_memory=plan_memory) as sess:
        alone = [sess.run(x) for _ in range(5)]
    with tf.Session(plan_memory=plan_memory) as sess:  # a new session starts again
        mixed = [sess.run(x), sess.run([other, x])[1],
                 sess.run({"x": x, "d": doubled}, {p: [1.0]})["x"],
                 sess.run([doubled, x], {p: [1.0, 2.0]})[1],  # new feed shapes: new executor
                 x.eval()]
        assert len(sess.variable_store.random_streams) == 2
    assert len(sess.variable_store.random_streams) == 0  # closing drops the streams
    for a, b, want in zip(alone, mixed, expected):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, want)
    assert all(not np.array_equal(a, b) for a, b in itertools.pairwise(alone))


@pytest.mark.parametrize("graph_seed, op_seed", [(None, 7), (5, None), (5, 7)])
def test_dropout_seeds_as_random_ops(graph_seed, op_seed, plan_memory):
    def draws(seed=op_seed):
        graph = tf.Graph()
        with graph.as_default():
            if graph_seed is not None:
                tf.set_random_seed(graph_seed)
            x = tf.constant(np.arange(1.0, 3001.0, dtype=np.float32).reshape(60, 50))
            keep = tf.placeholder(tf.float32, ())
            dropped = tf.nn.dropout(x, keep, seed=seed)
            by_rate = tf.nn.dropout(x, rate=0.25, noise_shape=[60, 1], seed=seed)
            with tf.Session(graph=graph, plan_memory=plan_memory) as sess:
                return [sess.run([dropped, by_rate], {keep: 0.6}) for _ in range(2)]

    first, again = draws(), draws()
    for (a, b), (c, d) in zip(first, again):  # the same program: the same masks
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    (a, b), (c, d) = first
    assert not np.array_equal(a, c) and not np.array_equal(b, d)  # new masks every run
    x = np.arange(1.0, 3001.0, dtype=np.float32).reshape(60, 50)
    kept = a != 0
    np.testing.assert_allclose(a[kept], x[kept] / 0.6, rtol=1e-6)
    assert abs(kept.mean() - 0.6) < 0.03
    assert np.all((b == 0) == (b[:, :1] == 0))  # noise_shape [60, 1]: whole rows
    if op_seed is not None:
        other = draws(op_seed + 1)[0][0][0]
        assert not np.array_equal(a, other)


def test_unseeded_dropout_differs_across_sessions():
    dropped = tf.nn.dropout(tf.ones([1000]), 0.5)
    assert not np.array_equal(run(dropped)[0], run(dropped)[0])


# A program whose variables start from seeded random ops (graph seed, op seeds, initializers)
_SEEDED_PROGRAM = """
import json
import tinyflow as tf

def seeded_program(sessions=2):
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(21)
        w = tf.Variable(tf.truncated_normal([4, 3], stddev=0.1), name="w")
        with tf.variable_scope("layer"):
            v = tf.get_variable("v", [3, 2], initializer=tf.glorot_uniform_initializer(seed=1))
            u = tf.get_variable("u", [3, 2], initializer=tf.random_normal_initializer(seed=1))
        b = tf.Variable(tf.random_uniform([5], maxval=10, dtype=tf.int32, seed=3))
        dropped = tf.nn.dropout(tf.ones([6]), 0.5)
        values = []
        for _ in range(sessions):
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                values.append([x.tolist() for x in sess.run([w, v, u, b, dropped])])
        return values

if __name__ == "__main__":
    print(json.dumps(seeded_program(1)[0]))
"""


def test_seeded_variables_repeat_across_sessions_graphs_and_processes(tmp_path):
    script = tmp_path / "seeded_program.py"
    script.write_text(_SEEDED_PROGRAM)
    seeded_program = runpy.run_path(str(script))["seeded_program"]
    first, second = seeded_program()  # two sessions of one graph
    (rebuilt,) = seeded_program(1)    # the program run again in this process
    other_process = json.loads(subprocess.run(
        [sys.executable, str(script)], check=True, capture_output=True, text=True).stdout)
    for values in (second, rebuilt, other_process):
        for a, b in zip(first, values):
            np.testing.assert_array_equal(np.array(a), np.array(b))
    w, v, u, b, _ = (np.array(x) for x in first)
    assert np.abs(w).max() <= 0.2 and np.abs(v).max() <= math.sqrt(6 / 5) and len(set(b)) > 1
    assert not np.array_equal(v, u)


@pytest.mark.parametrize("graph_seed", [3, None])
def test_seed_layers_default_weights_follow_the_graph_seed(graph_seed):
    def outputs():
        graph = tf.Graph()
        with graph.as_default():
            if graph_seed is not None:
                tf.set_random_seed(graph_seed)
            x = tf.placeholder(tf.float32, [2, 1, 6, 6])
            conv = tf.nn.conv2d(x, num_filter=4, ksize=[1, 3, 3, 1], name="conv")
            fc = tf.nn.linear(tf.nn.flatten_layer(conv), 5, name="fc")
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                return sess.run(fc, {x: np.ones((2, 1, 6, 6), np.float32)})

    first, second = outputs(), outputs()
    assert np.array_equal(first, second) == (graph_seed is not None)


def test_unseeded_variables_differ_across_sessions():
    w = tf.Variable(tf.random_normal([10]))
    values = []
    for _ in range(2):
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values.append(sess.run(w))
    assert not np.array_equal(*values)


def test_tf_random_namespace_and_tf_normal():
    tf.set_random_seed(5)
    a = tf.random.normal([20000], mean=1.0, stddev=0.5)
    b = tf.random.uniform([3], maxval=10, dtype=tf.int64)
    c = tf.random.truncated_normal([3])
    d = tf.normal([20000], 0.5, 1.0)  # TinyFlow's tf.normal(shape, stdev, mean)
    a_value, _, _, d_value = run(a, b, c, d)
    assert abs(a_value.std() - 0.5) < 0.02 and abs(d_value.mean() - 1.0) < 0.02
    assert abs(d_value.std() - 0.5) < 0.02
    assert tf.random.set_random_seed is tf.set_random_seed
    with pytest.raises(AttributeError, match=r"tf\.random\.stateless_normal is not supported"):
        tf.random.stateless_normal  # noqa: B018
    assert tf.random.multinomial is tf.multinomial


# -- initializers ----------------------------------------------------------------------------
@pytest.mark.parametrize("shape, fans", [
    ((), (1, 1)), ((7,), (7, 7)), ((30, 20), (30, 20)),
    ((3, 3, 16, 32), (144, 288)), ((2, 3, 3, 16, 32), (288, 576))])
def test_fans_are_tensorflows(shape, fans):
    assert compute_fans(shape) == fans  # [kh, kw, in, out]: TF's layout, not PyTorch's


def test_zeros_ones_constant():
    z = tf.zeros_initializer()([2, 3])
    o = tf.ones_initializer(dtype=tf.int32)([4])
    o64 = tf.ones_initializer()([2], dtype=tf.float64)
    c = tf.constant_initializer(2.5)([2, 2])
    padded = tf.constant_initializer([1, 2])([2, 3])  # TF 1: the last value fills the rest
    exact = tf.constant_initializer(np.arange(6).reshape(2, 3), dtype=tf.int64)([2, 3])
    values = run(z, o, o64, c, padded, exact)
    np.testing.assert_array_equal(values[0], np.zeros((2, 3), np.float32))
    assert values[1].dtype == np.int32 and values[1].tolist() == [1, 1, 1, 1]
    assert values[2].dtype == np.float64
    np.testing.assert_array_equal(values[3], np.full((2, 2), 2.5, np.float32))
    np.testing.assert_array_equal(values[4], [[1, 2, 2], [2, 2, 2]])
    assert values[5].dtype == np.int64 and values[5].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_constant_initializer_errors():
    with pytest.raises(ValueError, match="Too many elements"):
        tf.constant_initializer([1, 2, 3])([2])
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        tf.constant_initializer([1, 2], verify_shape=True)([2, 2])
    with pytest.raises(TypeError, match="Invalid type"):
        tf.constant_initializer({"a": 1})
    with pytest.raises(TypeError):  # a Python float does not become an integer, as in TF
        tf.constant_initializer(0.5, dtype=tf.int32)([2])


def test_random_initializers_moments():
    normal = tf.random_normal_initializer(mean=1.0, stddev=0.5, seed=1)([200, 100])
    truncated = tf.truncated_normal_initializer(stddev=0.5, seed=2)([200, 100])
    uniform = tf.random_uniform_initializer(-2.0, 3.0, seed=3)([200, 100])
    unit = tf.random_uniform_initializer(seed=4)([20000])
    ints = tf.random_uniform_initializer(0, 5, dtype=tf.int32, seed=5)([1000])
    normal, truncated, uniform, unit, ints = run(normal, truncated, uniform, unit, ints)
    assert abs(normal.mean() - 1.0) < 0.02 and abs(normal.std() - 0.5) < 0.02
    assert np.abs(truncated).max() <= 1.0 and abs(truncated.std() - 0.5 * TRUNCATED_STD) < 0.02
    assert uniform.min() >= -2.0 and uniform.max() < 3.0 and abs(uniform.mean() - 0.5) < 0.05
    assert unit.min() >= 0.0 and unit.max() < 1.0
    assert ints.dtype == np.int32 and set(np.unique(ints)) == set(range(5))
    with pytest.raises(ValueError, match="Must specify maxval"):
        tf.random_uniform_initializer(dtype=tf.int32)([3])
    with pytest.raises(ValueError, match="floating point"):
        tf.random_normal_initializer(dtype=tf.int32)


@pytest.mark.parametrize("shape", [(300, 200), (3, 3, 64, 128)])
def test_glorot_uniform_limit(shape):
    fan_in, fan_out = compute_fans(shape)
    limit = math.sqrt(6 / (fan_in + fan_out))
    (value,) = run(tf.glorot_uniform_initializer(seed=1)(shape))
    assert value.shape == shape
    assert np.abs(value).max() <= limit and np.abs(value).max() > 0.99 * limit
    assert abs(value.std() / (limit / math.sqrt(3)) - 1) < 0.03
    assert abs(value.mean()) < 0.02 * limit


@pytest.mark.parametrize("shape", [(300, 200), (3, 3, 64, 128)])
def test_glorot_normal_scale(shape):
    fan_in, fan_out = compute_fans(shape)
    stddev = math.sqrt(2 / (fan_in + fan_out))
    (value,) = run(tf.glorot_normal_initializer(seed=2)(shape))
    assert abs(value.std() / stddev - 1) < 0.03  # the truncation is made up for
    assert np.abs(value).max() <= 2 * stddev / TRUNCATED_STD


@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "fan_avg"])
@pytest.mark.parametrize("distribution",
                         ["truncated_normal", "normal", "untruncated_normal", "uniform"])
def test_variance_scaling(mode, distribution):
    shape = (5, 5, 20, 40)  # fan_in 500, fan_out 1000: 20000 samples
    n = {"fan_in": 500, "fan_out": 1000, "fan_avg": 750}[mode]
    init = tf.variance_scaling_initializer(scale=2.0, mode=mode, distribution=distribution,
                                           seed=3)
    (value,) = run(init(shape))
    stddev = math.sqrt(2.0 / n)
    assert abs(value.std() / stddev - 1) < 0.03
    bound = {"uniform": math.sqrt(3) * stddev, "untruncated_normal": None}.get(
        distribution, 2 * stddev / TRUNCATED_STD)
    if bound is not None:
        assert np.abs(value).max() <= bound * (1 + 1e-6)
    else:
        assert np.abs(value).max() > 3.5 * stddev


def test_variance_scaling_arguments():
    with pytest.raises(ValueError, match="scale"):
        tf.variance_scaling_initializer(scale=0.0)
    with pytest.raises(ValueError, match="mode"):
        tf.variance_scaling_initializer(mode="fan_sum")
    with pytest.raises(ValueError, match="distribution"):
        tf.variance_scaling_initializer(distribution="cauchy")
    assert tf.variance_scaling_initializer(distribution="UNIFORM").distribution == "uniform"
    # partition_info: the fans of the whole variable, not of the slice asked for
    whole = type("PartitionInfo", (), {"full_shape": [4000, 1]})()
    init = tf.variance_scaling_initializer(distribution="uniform", seed=1)
    (value,) = run(init([20000, 1], partition_info=whole))
    assert np.abs(value).max() <= math.sqrt(3 / 4000)


def test_initializers_namespace_and_helpers():
    ns = tf.initializers
    assert ns.glorot_uniform is tf.glorot_uniform_initializer
    assert ns.glorot_normal is tf.glorot_normal_initializer
    assert ns.zeros is tf.zeros_initializer and ns.ones is tf.ones_initializer
    assert ns.constant is tf.constant_initializer
    assert ns.random_normal is tf.random_normal_initializer
    assert ns.random_uniform is tf.random_uniform_initializer
    assert ns.truncated_normal is tf.truncated_normal_initializer
    assert ns.variance_scaling is tf.variance_scaling_initializer
    assert ns.global_variables is tf.global_variables_initializer
    he, lecun = ns.he_uniform(seed=1), ns.lecun_normal(seed=1)
    assert (he.scale, he.mode, he.distribution) == (2.0, "fan_in", "uniform")
    assert (lecun.scale, lecun.mode, lecun.distribution) == (1.0, "fan_in", "truncated_normal")
    (value,) = run(he([1000, 20]))
    assert np.abs(value).max() <= math.sqrt(6 / 1000)
    (value,) = run(tf.uniform_unit_scaling_initializer(factor=2.0, seed=1)([10, 5, 20]))
    assert np.abs(value).max() <= 2.0 * math.sqrt(3 / 50)
    assert ns.orthogonal is tf.orthogonal_initializer
    assert ns.local_variables is tf.local_variables_initializer
    assert ns.tables_initializer is tf.tables_initializer  # a no-op: TinyFlow has no tables
    with pytest.raises(AttributeError, match="not supported"):
        ns.he_uniform_v2  # noqa: B018


@pytest.mark.parametrize("shape", [[4, 3], [3, 5], [2, 3, 4], [3, 3], [1, 6]])
def test_orthogonal_initializer_gives_orthonormal_rows_or_columns(shape, plan_memory):
    init = tf.orthogonal_initializer(gain=2.0, seed=3)
    with tf.Session(plan_memory=plan_memory) as sess:
        value = sess.run(init(shape)).reshape(-1, shape[-1])
    gram = value.T @ value if value.shape[0] >= value.shape[1] else value @ value.T
    np.testing.assert_allclose(gram, 4.0 * np.eye(len(gram)), atol=1e-5)  # gain ** 2
    assert init.get_config() == {"gain": 2.0, "seed": 3, "dtype": "float32"}  # TF's keys
    with pytest.raises(ValueError, match="must be at least two-dimensional"):
        init([3])


def test_orthogonal_initializer_follows_the_seed():
    values = []
    for _ in range(2):
        with tf.Graph().as_default():
            init = tf.initializers.orthogonal(seed=5)
            values.append(tf.Session().run(init([6, 4])))
    np.testing.assert_array_equal(*values)


def test_identity_initializer():
    # real TF: gain 0.5 on [2, 3] gives [[0.5, 0, 0], [0, 0.5, 0]]
    (value,) = run(tf.initializers.identity(gain=0.5)([2, 3]))
    np.testing.assert_array_equal(value, [[0.5, 0.0, 0.0], [0.0, 0.5, 0.0]])
    with pytest.raises(ValueError, match="only be used for 2D matrices"):
        tf.initializers.identity()([2, 2, 2])


def test_initializer_config_dtype_and_determinism():
    init = tf.glorot_uniform_initializer(seed=4, dtype=tf.float64)
    again = type(init).from_config(init.get_config())
    assert again.get_config() == init.get_config() == {"seed": 4, "dtype": "float64"}
    assert init([3, 4]).dtype == tf.float64
    assert init([3, 4], dtype=tf.float32).dtype == tf.float32
    graph_values = []
    for _ in range(2):  # the same program in a new graph and session: the same initial values
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(1)
            weights = tf.Variable(tf.glorot_uniform_initializer()([30, 20]))
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                graph_values.append(sess.run(weights))
    np.testing.assert_array_equal(*graph_values)


# -- random_shuffle ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_random_shuffle_permutes_rows(plan_memory, dtype):
    # rows move whole; every order of 3 rows comes up about 1/6 of the time (6000 runs: a
    # standard error of 0.005 per frequency)
    value = (np.arange(12).reshape(4, 3) % 5).astype(dtype)
    shuffled = tf.random_shuffle(tf.constant(value), seed=7)
    with tf.Session(plan_memory=plan_memory) as sess:
        out = sess.run(shuffled)
        assert out.dtype == value.dtype and out.shape == (4, 3)
        assert sorted(map(tuple, out.tolist())) == sorted(map(tuple, value.tolist()))
    x = tf.placeholder(tf.float32, shape=[3])
    orders = tf.random_shuffle(x, seed=1)
    counts = {}
    with tf.Session(plan_memory=plan_memory) as sess:
        for _ in range(6000):
            key = tuple(sess.run(orders, {x: [0.0, 1.0, 2.0]}).astype(int))
            counts[key] = counts.get(key, 0) + 1
    assert sorted(counts) == sorted(itertools.permutations(range(3)))
    assert all(abs(c / 6000 - 1 / 6) < 0.025 for c in counts.values())


def test_random_shuffle_seeds():
    def draws(op_seed, graph_seed=None):
        tf.reset_default_graph()
        tf.set_random_seed(graph_seed)
        shuffled = tf.random_shuffle(tf.range(50), seed=op_seed)
        with tf.Session() as sess:
            return [sess.run(shuffled).tolist() for _ in range(3)]
    first = draws(5)
    assert first == draws(5)  # a new session repeats the sequence
    assert first[0] != first[1]  # each run draws a new order
    assert draws(6) != first and draws(None, 3) == draws(None, 3)
    assert all(sorted(order) == list(range(50)) for order in first)


def test_random_shuffle_edges_and_gradient():
    x = tf.placeholder(tf.float32, shape=[5, 2])
    assert tf.gradients(tf.reduce_sum(tf.random_shuffle(x) * x), x)[0] is not None
    assert tf.gradients(tf.random_shuffle(x), x) == [None]  # TF: not differentiable
    scalar, row = tf.random_shuffle(3.5), tf.random_shuffle([[1, 2, 3]])
    assert tf.random.shuffle is tf.random_shuffle
    assert tf.random_shuffle(x, name="s").name == "s:0"
    assert tf.random_shuffle(x).name == "RandomShuffle_4:0"  # TF names, after 4 before
    assert scalar.shape == TensorShape([]) and row.dtype == tf.int32
    with tf.Session() as sess:
        assert sess.run(scalar) == 3.5 and sess.run(row).tolist() == [[1, 2, 3]]
