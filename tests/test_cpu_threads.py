"""The CPU thread policy (issue 26): numpy's BLAS on the calling thread, and each executor's thread count chosen by timing its runs,
overridable by the user.  Behaviour only: no assertion here is about time."""

import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.executor import threads as threads_module
from tinyflow.executor.threads import ThreadChoice
from tinyflow.lua_ops.threads import _openblas_local, numpy_blas_single


def test_numpy_blas_single_runs_on_one_thread_and_restores_the_count():
    local = _openblas_local()
    if local is None:
        pytest.skip("numpy's BLAS is not an OpenBLAS with per-thread counts")
    a, b = np.random.default_rng(0).normal(size=(2, 100, 300)).astype(np.float32)
    out, counts = np.empty((100, 100), np.float32), []

    def run():
        counts.append(local(1))  # the count this call ran under; put back as it was
        local(counts[-1])
        np.matmul(a, b.T, out=out)

    before = local(3)
    numpy_blas_single(run)()
    assert counts == [1] and local(before) == 3
    np.testing.assert_allclose(out, a.astype(np.float64) @ b.T, rtol=1e-4, atol=1e-4)


class _Clock:
    """A fake ``time`` module for ThreadChoice: each run lasts what ``seconds(count)`` says."""

    def __init__(self, seconds):
        self.now, self.seconds, self.counts = 0.0, seconds, []

    def perf_counter(self):
        return self.now

    def run(self, choice):
        choice.begin()
        count = torch.get_num_threads()
        self.counts.append(count)
        self.now += self.seconds(count)
        choice.end()


@pytest.fixture
def two_threads(monkeypatch):
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("faster", [1, 2])
def test_thread_choice_settles_on_the_faster_count_and_restores_torchs(
        monkeypatch, two_threads, faster):
    clock = _Clock(lambda count: 1.0 if count == faster else 2.0)
    monkeypatch.setattr(threads_module, "time", clock)
    choice = ThreadChoice()
    for _ in range(60):
        clock.run(choice)
        assert torch.get_num_threads() == 2  # the user's count between runs
    assert set(clock.counts) == {1, 2}  # both were tried
    assert clock.counts[-10:].count(faster) >= 10 - ThreadChoice.PROBE_RUNS  # kept, probes aside
    assert choice.current == ("one" if faster == 1 else "all")


def test_thread_choice_follows_a_change_of_load(monkeypatch, two_threads):
    load = {"busy": False}  # quiet: 2 threads faster; a core busy: 2 threads 5x slower
    clock = _Clock(lambda count: (5.0 if count == 2 else 1.6) if load["busy"] else
                   (1.0 if count == 2 else 1.6))
    monkeypatch.setattr(threads_module, "time", clock)
    choice = ThreadChoice()
    for _ in range(40):
        clock.run(choice)
    assert choice.current == "all"
    load["busy"] = True
    for _ in range(5):
        clock.run(choice)
    assert choice.current == "one"  # noticed within a few runs
    load["busy"] = False
    for _ in range(ThreadChoice.PROBE_MOST + 10):
        clock.run(choice)
    assert choice.current == "all"


def test_thread_choice_fixed_count_and_a_ceiling_of_one(monkeypatch, two_threads):
    clock = _Clock(lambda count: 1.0 if count == 1 else 9.0)
    monkeypatch.setattr(threads_module, "time", clock)
    fixed = ThreadChoice(fixed=2)
    for _ in range(40):
        clock.run(fixed)
    assert set(clock.counts) == {2}  # the user's count, never probed
    torch.set_num_threads(1)
    clock.counts.clear()
    chosen = ThreadChoice()
    for _ in range(20):
        clock.run(chosen)
    assert set(clock.counts) == {1} and torch.get_num_threads() == 1


def _softmax_regression(config):
    """Ten SGD steps of a softmax regression in a session of ``config``: the weights, and the
    thread counts torch was set to during the runs."""
    tf.reset_default_graph()
    rng = np.random.default_rng(0)
    images = rng.uniform(size=(64, 784)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 64)]
    x, y_ = tf.placeholder(tf.float32, [None, 784]), tf.placeholder(tf.float32, [None, 10])
    w = tf.Variable(tf.zeros([784, 10]))
    loss = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(tf.nn.softmax(tf.matmul(x, w))), 1))
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(10):
            sess.run(step, {x: images, y_: labels})
        return sess.run(w), (images, labels)


def _reference(images, labels):
    """The same ten steps in PyTorch autograd (float64)."""
    x, y_ = torch.from_numpy(images).double(), torch.from_numpy(labels).double()
    w = torch.zeros(784, 10, dtype=torch.float64, requires_grad=True)
    for _ in range(10):
        loss = torch.mean(-torch.sum(y_ * torch.log(torch.softmax(x @ w, 1)), 1))
        loss.backward()
        with torch.no_grad():
            w -= 0.5 * w.grad
        w.grad = None
    return w.detach().numpy()


def test_intra_op_threads_fix_the_count_and_results_agree(monkeypatch, two_threads):
    counts = []
    set_num_threads = torch.set_num_threads
    monkeypatch.setattr(torch, "set_num_threads",
                        lambda n: (counts.append(n), set_num_threads(n)))
    one, data = _softmax_regression(tf.ConfigProto(intra_op_parallelism_threads=1))
    assert counts and set(counts) == {1, 2}  # 1 for each run, the user's 2 back after it
    assert counts[::2] == [1] * (len(counts) // 2) and torch.get_num_threads() == 2
    counts.clear()
    two, _ = _softmax_regression(tf.ConfigProto(intra_op_parallelism_threads=2))
    assert counts == []  # the user's count already: nothing set
    chosen, _ = _softmax_regression("cpu")
    reference = _reference(*data)
    for weights in (one, two, chosen):
        np.testing.assert_allclose(weights, reference, rtol=1e-3, atol=5e-5)  # float32
    np.testing.assert_array_equal(one, two)  # these kernels' sums do not split by thread


@pytest.mark.parametrize("threads", [-1, 1.5, True])
def test_intra_op_threads_must_be_a_count(threads):
    with pytest.raises(ValueError, match="intra_op_parallelism_threads must be an int >= 0"):
        tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=threads))


def test_thread_choice_leaves_short_runs_on_torchs_count(monkeypatch, two_threads):
    clock = _Clock(lambda count: 1e-4 if count == 1 else 5e-4)  # under ThreadChoice.WORTH
    monkeypatch.setattr(threads_module, "time", clock)
    choice = ThreadChoice()
    for _ in range(60):
        clock.run(choice)
    assert set(clock.counts) == {2}  # never switched: results stay bit-for-bit run to run
