"""A session under threads, memory given back, the executor cache, allocation bombs, fork.

Every test with threads or subprocesses is bounded by a timeout: a hang fails, it does not
stall the suite.
"""
import gc
import os
import sys
import textwrap
import threading
import time
import weakref

import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.executor import ResourceExhaustedError
from tinyflow.lua_ops.runtime import lua_runtime
from tinyflow.session import SessionClosedError

pytestmark = pytest.mark.usefixtures("fresh_graph")

THREAD_TIMEOUT = 120  # seconds; a run that deadlocks fails the test instead of hanging it


def _in_threads(target, args_list):
    """Run ``target(*args)`` per entry of ``args_list``, one thread each; re-raise the first
    error; fail if a thread is still running after THREAD_TIMEOUT seconds."""
    errors = []

    def guarded(*args):
        try:
            target(*args)
        except Exception as err:  # noqa: BLE001 (re-raised in the test's thread)
            errors.append(err)

    threads = [threading.Thread(target=guarded, args=args, daemon=True) for args in args_list]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + THREAD_TIMEOUT
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "threads still running: a deadlock?"
    if errors:
        raise errors[0]


def _tanh_model():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    W = tf.Variable(tf.random_normal([4, 3], seed=1), name="W")
    return x, W, tf.tanh(tf.matmul(x, W))


# -- threads ------------------------------------------------------------------------------------
def test_lua_runtime_lets_one_thread_in_at_a_time():
    # lupa's runtime lock is held for a whole call into Lua, even while a Python callback
    # releases the GIL: the executor relies on it (one Lua state, not thread-safe)
    inside, most = [0], [0]

    def callback():
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        time.sleep(0.002)  # lets the other thread run Python meanwhile
        inside[0] -= 1

    calls = lua_runtime().eval("function(f, n) for i = 1, n do f() end return n end")
    _in_threads(lambda: calls(callback, 25), [()] * 3)
    assert most[0] == 1


def test_one_session_from_threads_gives_the_single_threaded_results():
    x, _, y = _tanh_model()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    rng = np.random.RandomState(0)
    feeds = [rng.randn(5 if i % 2 else 7, 4).astype(np.float32) for i in range(4)]
    expected = [sess.run(y, {x: f}) for f in feeds]  # one thread: the reference
    wrong = []

    def work(i):
        for _ in range(300):
            out = sess.run(y, {x: feeds[i]})
            if not np.array_equal(out, expected[i]):
                wrong.append(i)

    _in_threads(work, [(i,) for i in range(4)])
    assert wrong == []


def test_a_run_never_takes_an_executor_another_run_holds():
    # deterministic form of the thread race: while one run's executor is checked out (its
    # outputs not yet copied), another run of the same signature binds a second instance
    x, _, y = _tanh_model()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    one, other = np.ones((2, 4), np.float32), np.full((2, 4), -3.0, np.float32)
    expected = sess.run(y, {x: one})
    held_feed = {x.node: torch.from_numpy(one)}
    with sess._checked_out(tuple(y.outputs), held_feed) as held:
        held_out = held.run(held_feed)[0]
        sess.run(y, {x: other})  # would overwrite held_out if it shared the storage
        np.testing.assert_array_equal(held_out.numpy(), expected)
        assert len(sess._executors.executors(tuple(y.outputs))) == 1  # the other instance
    assert len(sess._executors.executors(tuple(y.outputs))) == 2  # both kept, both idle


def test_concurrent_train_steps_lose_no_update():
    # each untimed step runs as one call into Lua, so concurrent assign_adds all land
    counter = tf.Variable(0.0, name="counter")
    W = tf.Variable(tf.zeros([3]), name="W")
    step = tf.train.GradientDescentOptimizer(1.0).minimize(tf.reduce_sum(W))
    add = tf.assign_add(counter, 1.0)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    _in_threads(lambda op: [sess.run(op) for _ in range(250)], [(step,), (step,), (add,)])
    np.testing.assert_array_equal(sess.run(W), [-500.0] * 3)  # d(sum W)/dW = 1 per step
    assert sess.run(counter) == 250.0


def test_threads_with_a_session_each_still_work():
    def work(seed, results):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, [None, 3])
            W = tf.Variable(tf.fill([3, 2], float(seed)))
            y = tf.matmul(x, W) + seed
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(100):
                    results.append(sess.run(y, {x: np.ones((2, 3))}))

    results = {seed: [] for seed in range(3)}
    _in_threads(work, [(seed, results[seed]) for seed in results])
    for seed, outs in results.items():
        assert len(outs) == 100
        for out in outs:
            np.testing.assert_array_equal(out, np.full((2, 2), 4.0 * seed))


# -- memory given back --------------------------------------------------------------------------
@pytest.fixture
def lua_collector_stopped():
    """Lua's automatic collector off: only what the session frees itself is freed (else a
    collection started by other allocations could free the tensors by chance)."""
    lua = lua_runtime()
    lua.execute("collectgarbage('stop')")
    try:
        yield
    finally:
        lua.execute("collectgarbage('restart')")


def _tensor_refs(executor):
    """Weak references to every tensor ``executor`` holds: its storages, the views of them
    (what Lua's closures hold: a view keeps the memory alive after its base's Python object
    died), feed buffers and variables."""
    tensors = [*executor.storages, *executor.tensors, *executor.feed_buffers.values()]
    return [weakref.ref(t) for t in {id(t): t for t in tensors if t is not None}.values()]


def _big_variable_session(**kwargs):
    """A session with a 4 MB variable initialised and read; weak references to the variable's
    tensor and to every tensor of its executors."""
    big = tf.Variable(tf.random_normal([1000, 1000], seed=2), name="big")
    total = tf.reduce_sum(big * 2)
    sess = tf.Session(**kwargs)
    sess.run(tf.global_variables_initializer())
    sess.run(total)
    executors = sess._executors.executors()
    assert sum(s.numel() for e in executors for s in e.storages) >= 2 * 4_000_000
    refs = [weakref.ref(sess.variable_store[big.node])]
    return sess, refs + [r for e in executors for r in _tensor_refs(e)]


def test_close_frees_variables_and_planned_storage_at_once(lua_collector_stopped):
    sess, refs = _big_variable_session()
    sess.close()  # no gc.collect(): close itself must free them
    assert [r for r in refs if r() is not None] == []


def test_dropping_a_session_frees_its_tensors(lua_collector_stopped):
    sessions = [_big_variable_session() for _ in range(5)]
    refs = [r for _, session_refs in sessions for r in session_refs]
    del sessions  # no close()
    gc.collect()  # the session's own references die with it; gc for any cycle of the caller's
    assert [r for r in refs if r() is not None] == []


def test_with_block_frees_at_its_end(lua_collector_stopped):
    with tf.Session() as sess:
        v = tf.Variable(tf.zeros([500, 500]))
        sess.run(v.initializer)
        ref = weakref.ref(sess.variable_store[v.node])
    assert ref() is None


def test_replanning_frees_the_old_plan(lua_collector_stopped):
    x = tf.placeholder(tf.float32, [None, 1000])
    y = tf.nn.softmax(x * 2)
    sess = tf.Session(executor_cache_size=1)
    sess.run(y, {x: np.ones((500, 1000))})
    [old] = sess._executors.executors(tuple(y.outputs))
    refs = _tensor_refs(old)
    sess.run(y, {x: np.ones((400, 1000))})  # a new batch size: rebinds, dropping the old plan
    assert [r for r in refs if r() is not None] == []


def test_evicted_executors_free_their_storage_and_the_bound_holds(lua_collector_stopped):
    x = tf.placeholder(tf.float32, [None, 100])
    y = tf.reduce_sum(tf.tanh(x), axis=1)
    sess = tf.Session()
    refs = {}
    for batch in range(1, 11):  # 10 signatures, 8 kept
        sess.run(y, {x: np.ones((batch, 100))})
        [newest] = [e for e in sess._executors.executors(tuple(y.outputs))
                    if e.feed_shapes[x.node] == (batch, 100)]
        refs[batch] = _tensor_refs(newest)
        if batch > 8:  # this run evicted batch - 8's executor: freed at once
            assert all(r() is None for r in refs[batch - 8]), batch - 8
    assert len(sess._executors.signatures(tuple(y.outputs))) == 8
    assert sess._executors.evictions == 2
    assert all(r() is not None for batch in range(3, 11) for r in refs[batch])


def test_an_executor_dropped_while_running_is_freed_when_given_back(lua_collector_stopped):
    x = tf.placeholder(tf.float32, [None, 10])
    y = x * 3
    sess = tf.Session(executor_cache_size=1)
    feed = {x.node: torch.ones(4, 10)}
    with sess._checked_out(tuple(y.outputs), feed) as busy:
        refs = _tensor_refs(busy)
        sess.run(y, {x: np.ones((6, 10))})  # evicts the busy one's signature
        assert all(r() is not None for r in refs)  # still running: kept
    assert all(r() is None for r in refs)


def test_closed_session_says_it_is_closed():
    v = tf.Variable(tf.ones([2]), name="v")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.close()
    sess.close()  # twice is fine
    assert sess.closed and "closed" in repr(sess)
    for use in (lambda: sess.run(v), lambda: sess.run(tf.global_variables_initializer()),
                lambda: v.load([3.0, 4.0], sess), lambda: sess.memory_plan(v)):
        with pytest.raises(SessionClosedError, match="closed Session"):
            use()
    with pytest.raises(RuntimeError, match="closed Session"):  # TF's class still catches it
        v.eval(session=sess)


# -- the executor cache ----------------------------------------------------------------------------
def test_alternating_batch_sizes_hit_the_cache():
    x, _, y = _tanh_model()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    before = (sess._executors.hits, sess._executors.misses)
    for i in range(100):
        sess.run(y, {x: np.ones((32 if i % 2 else 64, 4))})
    hits, misses = (sess._executors.hits - before[0], sess._executors.misses - before[1])
    assert (hits, misses) == (98, 2)
    assert len(sess._executors.executors(tuple(y.outputs))) == 2


def test_cache_bound_is_per_fetch_set_and_configurable():
    x = tf.placeholder(tf.float32, [None, 3])
    a, b = x + 1, x * 2
    sess = tf.Session(executor_cache_size=3)
    for batch in range(1, 6):
        sess.run([a], {x: np.ones((batch, 3))})
        sess.run([b], {x: np.ones((batch, 3))})
    assert [len(sess._executors.signatures(tuple(s.outputs))) for s in (a, b)] == [3, 3]
    with pytest.raises(ValueError, match="at least one"):
        tf.Session(executor_cache_size=0)


# -- allocation bombs ---------------------------------------------------------------------------
def _session_with_state():
    v = tf.Variable(tf.constant([1.0, 2.0]), name="state")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return v, sess


def test_a_plan_larger_than_memory_is_refused_by_name():
    v, sess = _session_with_state()
    bomb = tf.zeros([10 ** 6, 10 ** 6], name="bomb")
    with pytest.raises(ResourceExhaustedError) as caught:
        sess.run(tf.reduce_sum(bomb) + tf.reduce_sum(v))
    message = str(caught.value)
    for part in ("op 'zeros'", "node 'bomb'", "(1000000, 1000000)", "4000000000000 bytes",
                 "available", "no op ran"):
        assert part in message, (part, message)
    assert isinstance(caught.value, (tf.errors.OpError, MemoryError, tf.nnvm.TinyflowError))
    assert caught.value.op == "bomb"
    np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])  # unchanged, and still usable
    np.testing.assert_array_equal(sess.run(v * 2), [2.0, 4.0])


def test_a_huge_variable_is_refused_and_others_keep_their_values():
    v, sess = _session_with_state()
    huge = tf.Variable(tf.zeros([10 ** 6, 10 ** 6]), name="huge")
    with pytest.raises(ResourceExhaustedError, match="huge|zeros"):
        sess.run(tf.global_variables_initializer())
    assert huge.node not in sess.variable_store
    np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])


def test_the_sum_of_buffers_is_checked_too(monkeypatch):
    # each buffer fits, all of them do not: the error gives the total and the largest
    x = tf.placeholder(tf.float32, [None, 100], name="x")
    y = tf.exp(x, name="big_exp") + 1
    sess = tf.Session()
    monkeypatch.setattr("tinyflow.nnvm.host_memory.host_available_bytes",
                        lambda: (50_000, "a test's figure"))
    with pytest.raises(ResourceExhaustedError) as caught:
        sess.run(y, {x: np.ones((100, 100))})
    message = str(caught.value)
    assert "buffers" in message and "largest" in message and "40000 bytes" in message
    assert "a test's figure" in message
    monkeypatch.undo()
    np.testing.assert_allclose(sess.run(y, {x: np.zeros((100, 100))}), 2.0)


@pytest.mark.parametrize("shape, says", [([2 ** 40, 2 ** 40], "more than any tensor"),
                                         ([-5, 3], "-5")])
def test_absurd_shapes_fail_in_shape_inference_naming_the_op(shape, says):
    v, sess = _session_with_state()
    with pytest.raises(tf.nnvm.ShapeError, match="op 'zeros'") as caught:
        sess.run(tf.zeros(shape) * 2)
    assert says in str(caught.value)
    np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])


# -- fork ---------------------------------------------------------------------------------------
_FORK_SCRIPT = textwrap.dedent("""
    import multiprocessing, os, sys
    import numpy as np, torch
    import tinyflow as tf

    def model():
        x = tf.placeholder(tf.float32, [None, 256])
        W = tf.Variable(tf.ones([256, 256]))
        return x, tf.reduce_sum(tf.tanh(tf.matmul(x, W * 1e-3)))

    def in_spawned_child(queue):
        x, y = model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            queue.put(float(sess.run(y, {x: np.ones((512, 256))})))

    if __name__ == "__main__":
        x, y = model()
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        expected = float(sess.run(y, {x: np.ones((512, 256))}))  # the pool's threads started
        if sys.argv[1] == "fork":
            pid = os.fork()
            if pid == 0:
                torch.set_num_threads(1)  # the documented recipe
                got = float(sess.run(y, {x: np.ones((512, 256))}))
                os._exit(0 if got == expected else 3)
            _, status = os.waitpid(pid, 0)
            sys.exit(os.waitstatus_to_exitcode(status))
        context = multiprocessing.get_context("spawn")
        queue = context.Queue()
        child = context.Process(target=in_spawned_child, args=(queue,))
        child.start()
        got = queue.get(timeout=100)
        child.join(10)
        sys.exit(0 if abs(got - expected) < 1e-3 * abs(expected) else 3)
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_children_started_the_documented_way_do_not_hang(programs, tmp_path, start):
    # the parent program in a process of its own (forked by the fixture); its spawned child
    # starts a fresh interpreter, as multiprocessing's spawn does
    script = tmp_path / "child.py"
    script.write_text(_FORK_SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [os.path.dirname(os.path.dirname(tf.__file__)), os.environ.get("PYTHONPATH", "")])}
    result = programs.run([sys.executable, str(script), start], timeout=150, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
