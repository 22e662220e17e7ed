"""tinyflow.distributed on one machine: ranks are processes started as torchrun does (RANK,
WORLD_SIZE, MASTER_ADDR, MASTER_PORT in their environment), talking gloo over 127.0.0.1.

Two ranks with 50 examples each follow, step by step, one process with the same 100 examples
(SGD, Momentum, Adam, gradients fused into buckets and alone); broadcast_global_variables
makes differently seeded ranks equal; the collectives' values and gradients; and the faults: a
rank that dies, a rank that raises in an op, ranks that disagree on a collective's shape and a
world that never forms all end in an error naming the collective and the ranks within the
timeout given to init, never a hang.  Every process is bounded by a subprocess timeout.

This file is also the ranks' program: ``python tests/test_distributed.py <scenario> <outdir>``.
"""
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.distributed import DistributedError
from tinyflow.lua_ops.runtime import LuaOpError

pytestmark = pytest.mark.usefixtures("fresh_graph")

OPTIMIZERS = {"sgd": lambda: tf.train.GradientDescentOptimizer(0.5),
              "momentum": lambda: tf.train.MomentumOptimizer(0.2, 0.9),
              "adam": lambda: tf.train.AdamOptimizer(0.05)}
STEPS, BATCH = 3, 100
FAULT_TIMEOUT = 4.0   # seconds each collective may wait in the fault scenarios
LAUNCH_TIMEOUT = 90   # seconds a launched world may take in all (a liveness bound)


def _examples():
    rng = np.random.default_rng(7)
    return (rng.random((BATCH, 6, 6, 1), dtype=np.float32),
            rng.integers(0, 3, BATCH).astype(np.int64))


def _model(optimizer, distributed):
    """A conv layer and a dense one with fixed initial values; returns (x, y, loss, step,
    variables).  bucket_bytes=512 puts fc_b alone before fc_w (too big: alone, in place) and
    fuses conv_b with conv_w."""
    rng = np.random.default_rng(3)
    conv_w = tf.Variable(rng.normal(0, 0.3, (3, 3, 1, 4)).astype(np.float32), name="conv_w")
    conv_b = tf.Variable(np.zeros(4, np.float32), name="conv_b")
    fc_w = tf.Variable(rng.normal(0, 0.1, (144, 3)).astype(np.float32), name="fc_w")
    fc_b = tf.Variable(np.zeros(3, np.float32), name="fc_b")
    x = tf.placeholder(tf.float32, [None, 6, 6, 1])
    y = tf.placeholder(tf.int64, [None])
    hidden = tf.nn.relu(tf.nn.conv2d(x, conv_w, [1, 1, 1, 1], "SAME") + conv_b)
    logits = tf.matmul(tf.reshape(hidden, [-1, 144]), fc_w) + fc_b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    if distributed:
        import tinyflow.distributed as hvd
        optimizer = hvd.DistributedOptimizer(optimizer, bucket_bytes=512)
    return x, y, loss, optimizer.minimize(loss), [conv_w, conv_b, fc_w, fc_b]


def _trajectory(name, distributed, rank=0, size=1):
    """Losses and variables after each of STEPS steps on this rank's share of the examples."""
    tf.reset_default_graph()
    x, y, loss, step, variables = _model(OPTIMIZERS[name](), distributed)
    images, labels = _examples()
    share = slice(rank * BATCH // size, (rank + 1) * BATCH // size)
    feed = {x: images[share], y: labels[share]}
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    losses, weights = [], []
    for _ in range(STEPS):
        losses.append(float(sess.run(loss, feed)))
        sess.run(step, feed)
        weights.append([sess.run(v).tolist() for v in variables])
    return {"losses": losses, "weights": weights}


# -- the ranks' scenarios (run in subprocesses) -----------------------------------------------
def _collective_values(hvd, rank):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [1, 2])
    c = float(rank + 1)
    w = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    mean, gathered, root1 = hvd.allreduce(x), hvd.allgather(x), hvd.broadcast(x, 1)
    total = hvd.allreduce(x, average=False)
    grads = [tf.gradients(tf.reduce_sum(mean * c), [x])[0],
             tf.gradients(tf.reduce_sum(gathered * w), [x])[0],
             tf.gradients(tf.reduce_sum(root1 * c), [x])[0]]
    sess = tf.Session()
    feed = {x: [[rank + 1.0, rank + 2.0]]}
    values = sess.run([mean, total, gathered, root1] + grads, feed)
    return [np.asarray(v).tolist() for v in values]


def _broadcast_variables(hvd, rank):
    tf.reset_default_graph()
    tf.set_random_seed(100 + rank)
    v = tf.Variable(tf.random_normal([3, 2]), name="v")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    before = sess.run(v).tolist()
    sess.run(hvd.broadcast_global_variables(0))
    return {"before": before, "after": sess.run(v).tolist()}


def _mismatch(hvd, rank):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32)
    try:
        tf.Session().run(hvd.allreduce(x, name="mismatched"), {x: np.ones(3 + rank)})
    except (LuaOpError, DistributedError) as err:
        return str(err)
    return "no error"


def _cached_mismatch(hvd, rank):
    """Both ranks run (4, 3), then (2, 6) (both signatures agreed, both executors cached), then
    rank 0 runs (4, 3) while rank 1 runs (2, 6): the same bytes, which must not be summed."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, None])
    total = hvd.allreduce(x, average=False, name="cached")
    sess = tf.Session()
    a, b = np.ones((4, 3), np.float32), np.ones((2, 6), np.float32)
    agreed = [sess.run(total, {x: a}).sum(), sess.run(total, {x: b}).sum()]
    try:
        value = sess.run(total, {x: a if rank == 0 else b})
    except (LuaOpError, DistributedError) as err:
        return {"agreed": [float(v) for v in agreed], "error": str(err),
                "after": float(sess.run(total, {x: b}).sum())}  # the world still works
    return {"agreed": [float(v) for v in agreed], "error": None, "value": value.tolist()}


def _train_then_fault(hvd, rank, fault, outdir):
    """One good step, then rank 1 dies or raises in an op (labels out of range) and stays
    alive until rank 0 has its result (its next step must fail on the timeout, not on a rank
    gone), or past the timeout at most."""
    tf.reset_default_graph()
    x, y, _, step, _ = _model(tf.train.GradientDescentOptimizer(0.1), True)
    images, labels = _examples()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run(step, {x: images[:50], y: labels[:50]})
    if rank == 1:
        if fault == "dies":
            os._exit(7)
        try:
            sess.run(step, {x: images[:50], y: labels[:50] + 99})
        except (LuaOpError, DistributedError) as err:
            deadline = time.monotonic() + FAULT_TIMEOUT + 3
            while time.monotonic() < deadline and not Path(outdir, "rank0.json").exists():
                time.sleep(0.05)
            return "rank 1 raised: " + str(err)
        return "rank 1: no error"
    started = time.perf_counter()
    try:
        sess.run(step, {x: images[:50], y: labels[:50]})
    except (LuaOpError, DistributedError) as err:
        return {"error": str(err), "seconds": time.perf_counter() - started}
    return {"error": None, "seconds": time.perf_counter() - started}


def _worker(scenario, outdir):
    import torch

    import tinyflow.distributed as hvd
    torch.set_num_threads(1)
    if scenario == "never_forms":
        started = time.perf_counter()
        try:
            hvd.init(timeout=1.0)
            result = {"error": None}
        except hvd.DistributedError as err:
            result = {"error": str(err)}
        result["seconds"] = time.perf_counter() - started
    else:
        hvd.init(timeout=FAULT_TIMEOUT if scenario in ("dies", "raises") else 30.0)
        rank = hvd.rank()
        if scenario == "train":
            result = {name: _trajectory(name, True, rank, hvd.size()) for name in OPTIMIZERS}
            result["values"] = _collective_values(hvd, rank)
            result["broadcast"] = _broadcast_variables(hvd, rank)
            result["cached_mismatch"] = _cached_mismatch(hvd, rank)
            result["mismatch"] = _mismatch(hvd, rank)
        else:
            result = _train_then_fault(hvd, rank, scenario, outdir)
    rank = int(os.environ.get("RANK", "0"))
    Path(outdir, f"rank{rank}.json").write_text(json.dumps(result))
    os._exit(0)  # no teardown handshake with a rank that is gone


# -- launching a world --------------------------------------------------------------------------
def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch(programs, scenario, tmp_path, nprocs=2, world_size=2):
    """Start ``nprocs`` ranks of a world of ``world_size`` as torchrun would (processes forked
    by the ``programs`` fixture); each rank's JSON result (None for a rank that wrote none) and
    the seconds the world took."""
    env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(_free_port()),
           "WORLD_SIZE": str(world_size), "OMP_NUM_THREADS": "1"}
    started = time.perf_counter()
    pids = [programs.start([sys.executable, __file__, scenario, str(tmp_path)],
                           env={**env, "RANK": str(r), "LOCAL_RANK": str(r)})
            for r in range(nprocs)]
    logs = []
    for index, pid in enumerate(pids):
        try:
            done = programs.wait(pid, timeout=LAUNCH_TIMEOUT)
        except subprocess.TimeoutExpired:
            for other in pids[index + 1:]:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    programs.wait(other, timeout=0)
            pytest.fail(f"{scenario}: the world hung past {LAUNCH_TIMEOUT} s")
        logs.append(done.stdout + done.stderr)
    results = []
    for r in range(nprocs):
        path = Path(tmp_path, f"rank{r}.json")
        results.append(json.loads(path.read_text()) if path.exists() else None)
    return results, time.perf_counter() - started, logs


@pytest.fixture(scope="module")
def trained(programs, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("train")
    results, _, logs = _launch(programs, "train", tmp)
    assert all(results), f"a rank wrote no result:\n{logs}"
    return results


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_two_ranks_follow_one_process_with_the_whole_batch(trained, name):
    single = _trajectory(name, distributed=False)
    rank0, rank1 = trained[0][name], trained[1][name]
    for step in range(STEPS):
        # each rank's loss is the mean over its half: their mean is the whole batch's
        np.testing.assert_allclose((rank0["losses"][step] + rank1["losses"][step]) / 2,
                                   single["losses"][step], rtol=1e-5, err_msg=f"step {step}")
        for v, (w0, w1, want) in enumerate(zip(rank0["weights"][step], rank1["weights"][step],
                                               single["weights"][step])):
            np.testing.assert_array_equal(w0, w1, err_msg=f"{name} step {step} variable {v}")
            np.testing.assert_allclose(w0, want, rtol=1e-4, atol=1e-6,
                                       err_msg=f"{name} step {step} variable {v}")
    assert single["losses"][-1] < single["losses"][0]  # it trains at all


def test_collective_values_and_gradients(trained):
    for rank, result in enumerate(trained):
        mean, total, gathered, root1, g_mean, g_gathered, g_root = result["values"]
        np.testing.assert_allclose(mean, [[1.5, 2.5]])
        np.testing.assert_allclose(total, [[3.0, 5.0]])
        np.testing.assert_allclose(gathered, [[1.0, 2.0], [2.0, 3.0]])
        np.testing.assert_allclose(root1, [[2.0, 3.0]])
        np.testing.assert_allclose(g_mean, [[1.5, 1.5]])  # (1 + 2) / 2 from both ranks
        np.testing.assert_allclose(g_gathered, [[2.0, 4.0]] if rank == 0 else [[6.0, 8.0]])
        np.testing.assert_allclose(g_root, [[0.0, 0.0]] if rank == 0 else [[3.0, 3.0]])


def test_broadcast_global_variables_makes_ranks_equal(trained):
    first, second = trained[0]["broadcast"], trained[1]["broadcast"]
    assert not np.allclose(first["before"], second["before"])  # seeded differently
    np.testing.assert_array_equal(first["after"], first["before"])
    np.testing.assert_array_equal(second["after"], first["before"])


def test_ranks_disagreeing_on_a_shape_get_a_clear_error(trained):
    for rank, result in enumerate(trained):
        assert "ranks disagree" in result["mismatch"], result["mismatch"]
        assert "rank 0: allreduce 'mismatched of" in result["mismatch"]
        assert "shape (3,)" in result["mismatch"] and "shape (4,)" in result["mismatch"]


def test_ranks_running_executors_cached_for_other_shapes_get_a_clear_error(trained):
    for result in trained:
        got = result["cached_mismatch"]
        assert got["agreed"] == [24.0, 24.0], got
        error = got["error"]
        assert error is not None, f"summed silently: {got}"
        assert "allreduce 'cached" in error and "ranks disagree" in error, error
        assert "rank 0: allreduce" in error and "shape (4, 3)" in error, error
        assert "rank 1: allreduce" in error and "shape (2, 6)" in error, error
        assert got["after"] == 24.0


@pytest.mark.parametrize("fault", ["dies", "raises"])
def test_a_failing_rank_makes_the_others_fail_in_bounded_time(programs, tmp_path, fault):
    results, _, logs = _launch(programs, fault, tmp_path)
    survivor = results[0]
    assert survivor is not None, logs[0]
    assert survivor["error"] is not None, "rank 0 did not fail"
    assert survivor["seconds"] < FAULT_TIMEOUT + 5, survivor
    message = survivor["error"]
    assert "allreduce 'bucket" in message and "on rank 0 of 2" in message, message
    assert "rank(s) [1]" in message, message  # the peer it was waiting for
    if fault == "raises":
        assert "label" in results[1].lower(), results[1]  # rank 1's own error, in its op


def test_a_world_that_never_forms_times_out(programs, tmp_path):
    results, _, logs = _launch(programs, "never_forms", tmp_path, nprocs=1, world_size=2)
    error = results[0]["error"]
    assert error is not None and "could not form the world" in error, logs
    assert "rank 0 of 2" in error and "127.0.0.1" in error
    assert results[0]["seconds"] < 15


def test_world_of_one_and_errors():
    import tinyflow.distributed as hvd
    if not hvd.is_initialized():
        with pytest.raises(hvd.DistributedError, match="init"):
            hvd.rank()
    with pytest.raises(TypeError, match="wraps a tf.train optimizer"):
        hvd.DistributedOptimizer(object())


def test_horovod_start_broadcasts_adam_slots_before_any_step():
    # sess.run(init); sess.run(hvd.broadcast_global_variables(0)) before the first train step:
    # the slots of a variable of known shape have that shape when made, as in TensorFlow
    import tinyflow.distributed as hvd
    hvd.init()
    x = tf.placeholder(tf.float32, [None, 3])
    weight = tf.Variable(tf.ones([3, 2]))
    adam = tf.train.AdamOptimizer(0.1)
    optimizer = hvd.DistributedOptimizer(adam)
    train = optimizer.minimize(tf.reduce_sum(tf.matmul(x, weight)))
    slots = [v for v in tf.global_variables() if v.op.name.startswith("Variable/Adam")]
    assert [v.get_shape().as_list() for v in slots] == [[3, 2], [3, 2]]
    # Horovod's wrapper answers for the slots of the optimizer it wraps
    assert optimizer.get_slot(weight, "m") is adam.get_slot(weight, "m") is slots[0]
    assert optimizer.get_slot_names() == ["m", "v"]
    assert [v.op.name for v in optimizer.variables()] == [
        "Variable/Adam", "Variable/Adam_1", "beta1_power", "beta2_power"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(hvd.broadcast_global_variables(0))
        sess.run(train, {x: np.ones((4, 3), np.float32)})
        np.testing.assert_allclose(sess.run(weight), np.full((3, 2), 0.9), rtol=1e-6)


if __name__ == "__main__":
    _worker(sys.argv[1], sys.argv[2])
