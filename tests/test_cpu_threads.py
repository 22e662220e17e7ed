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
    """A fake ``time`` module for ThreadChoice: a run on ``count`` threads lasts
    ``seconds(count)`` and the process's CPU time over it is ``cpu(count)`` x that (default:
    every thread on a core all the time, a quiet machine).  Reads come in pairs, ``begin``'s
    and ``end``'s: the second of each pair moves the clock on by one run."""

    def __init__(self, seconds, cpu=lambda count: count, idle=1.0):
        self.seconds, self.cpu, self.counts, self.idle = seconds, cpu, [], idle
        self.now, self.cpu_now, self.reads, self.cpu_reads = 0.0, 0.0, 0, 0

    def perf_counter(self):
        self.reads += 1
        if self.reads % 2 == 0:
            self.now += self.seconds(torch.get_num_threads())
        return self.now

    def process_time(self):
        self.cpu_reads += 1
        if self.cpu_reads % 2 == 0:
            count = torch.get_num_threads()
            self.cpu_now += self.cpu(count) * self.seconds(count)
        return self.cpu_now

    def idle_seconds(self):
        """The cores' idle seconds so far: ``idle`` cores idle all along (the fake wall time)."""
        return self.idle * self.now

    def run(self, choice):
        choice.begin()
        self.counts.append(torch.get_num_threads())
        choice.end()


def _install(monkeypatch, clock):
    """ThreadChoice reads its times and the cores' idle time from ``clock``."""
    monkeypatch.setattr(threads_module, "time", clock)
    monkeypatch.setattr(threads_module, "_idle_seconds", clock.idle_seconds)


def _busy(count):
    """Process CPU time per wall second of a run on ``count`` threads with one of two cores
    busy: the threads share what is left (CFS: 2 cores among count + 1 threads)."""
    return count * 2 / (count + 1)


@pytest.fixture
def two_threads(monkeypatch):
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("faster", [1, 2])
def test_thread_choice_settles_on_the_faster_count_and_restores_torchs(
        monkeypatch, two_threads, faster):
    clock = _Clock(lambda count: 1.0 if count == faster else 2.0, _busy)  # threads starved
    _install(monkeypatch, clock)
    choice = ThreadChoice()
    for _ in range(60):
        clock.run(choice)
        assert torch.get_num_threads() == 2  # the user's count between runs
    assert set(clock.counts) == {1, 2}  # both were tried
    assert clock.counts[-10:].count(faster) >= 10 - ThreadChoice.PROBE_RUNS  # kept, probes aside
    assert choice.current == ("one" if faster == 1 else "all")


def test_thread_choice_never_tries_one_thread_on_a_quiet_machine(monkeypatch, two_threads):
    clock = _Clock(lambda count: 0.5 if count == 1 else 1.0)  # would be faster, but not starved
    _install(monkeypatch, clock)
    choice = ThreadChoice()
    for _ in range(300):
        clock.run(choice)
    assert set(clock.counts) == {2}  # no probe: the quiet step pays nothing for the choice


def test_thread_choice_switches_on_strong_evidence_only(monkeypatch, two_threads):
    clock = _Clock(lambda count: 0.95 if count == 1 else 1.0, _busy)  # one thread 5% faster
    _install(monkeypatch, clock)
    choice = ThreadChoice()
    for _ in range(300):
        clock.run(choice)
    assert choice.current == "all" and 1 in clock.counts  # probed, under BETTER: not switched
    assert clock.counts[-150:].count(1) <= 2 * ThreadChoice.PROBE_RUNS  # probes grew apart


def test_thread_choice_pays_back_what_probes_cost(monkeypatch, two_threads):
    seconds = {1: 0.02, 2: 2.0}  # a small step with a core busy: 2 threads 100x slower
    clock = _Clock(seconds.get, _busy)
    _install(monkeypatch, clock)
    choice = ThreadChoice()
    for _ in range(3000):
        clock.run(choice)
    assert choice.current == "one"
    total = sum(seconds[n] for n in clock.counts)
    probes = sum(seconds[n] for n in clock.counts[10:] if n == 2)  # after choosing one
    one_probe = ThreadChoice.PROBE_RUNS * seconds[2]  # not 3 runs of 2 s every 128 runs
    assert probes <= total / ThreadChoice.PAYBACK + one_probe


def test_thread_choice_follows_a_change_of_load(monkeypatch, two_threads):
    load = {"busy": False}  # quiet: 2 threads faster; a core busy: 2 threads 5x slower
    clock = _Clock(lambda count: (5.0 if count == 2 else 1.6) if load["busy"] else
                   (1.0 if count == 2 else 1.6),
                   lambda count: _busy(count) if load["busy"] else count)
    _install(monkeypatch, clock)
    choice = ThreadChoice()
    for _ in range(40):
        clock.run(choice)
    assert choice.current == "all" and set(clock.counts) == {2}
    load["busy"], clock.idle = True, 0.0  # no core idle while the busy process runs
    for _ in range(5):
        clock.run(choice)
    assert choice.current == "one"  # noticed within a few runs
    clock.counts.clear()
    for _ in range(3 * ThreadChoice.PROBE_MOST):
        clock.run(choice)
    assert set(clock.counts) == {1}  # no core idle: all threads not even probed
    load["busy"], clock.idle = False, 1.0
    for _ in range(ThreadChoice.PROBE_MOST + 10):
        clock.run(choice)
    assert choice.current == "all"


def test_thread_choice_is_not_fooled_by_lucky_runs(monkeypatch, two_threads):
    runs = {"n": 0}

    def seconds(count):  # two starved threads: now and then both get a core (0.8), mostly 2.0
        runs["n"] += 1
        return 1.2 if count == 1 else (0.8 if runs["n"] % 4 == 0 else 2.0)
    clock = _Clock(seconds, _busy)
    _install(monkeypatch, clock)
    choice = ThreadChoice()
    for _ in range(400):
        clock.run(choice)
    assert choice.current == "one"  # the median, not the least run: 2 threads are slower
    assert clock.counts[-100:].count(2) <= 2 * ThreadChoice.PROBE_RUNS


def test_thread_choice_counts_the_stalls_of_starved_threads(monkeypatch, two_threads):
    def seconds(count):  # two starved threads: usually 1.0, but one run in five stalls (6.0)
        return 1.15 if count == 1 else (6.0 if clock.reads // 2 % 5 == 0 else 1.0)
    clock = _Clock(seconds, _busy, idle=0.0)  # a busy core: none idle
    _install(monkeypatch, clock)
    choice = ThreadChoice()
    for _ in range(400):
        clock.run(choice)
    assert choice.current == "one"  # 2 threads' mean 2.0 against 1.15: the median hid it


def test_thread_choice_fixed_count_and_a_ceiling_of_one(monkeypatch, two_threads):
    clock = _Clock(lambda count: 1.0 if count == 1 else 9.0, _busy)
    _install(monkeypatch, clock)
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
    clock = _Clock(lambda count: 1e-4 if count == 1 else 5e-4, _busy)  # under WORTH
    _install(monkeypatch, clock)
    choice = ThreadChoice()
    for _ in range(60):
        clock.run(choice)
    assert set(clock.counts) == {2}  # never switched: results stay bit-for-bit run to run


def _counts_set(monkeypatch):
    """The counts ``torch.set_num_threads`` is called with from now on (it still sets them)."""
    counts, set_num_threads = [], torch.set_num_threads
    monkeypatch.setattr(torch, "set_num_threads",
                        lambda n: (counts.append(n), set_num_threads(n)))
    return counts


@pytest.fixture
def busy_core(monkeypatch, two_threads):
    """Runs as with one of two cores busy (fake clock): 2 threads 2.5x slower than 1."""
    monkeypatch.delenv("TF_DETERMINISTIC_OPS", raising=False)
    _install(monkeypatch, _Clock(lambda n: 0.02 if n == 1 else 0.05, _busy))


def test_a_busy_core_makes_a_session_run_on_one_thread(monkeypatch, busy_core):
    counts = _counts_set(monkeypatch)
    chosen, data = _softmax_regression("cpu")
    assert 1 in counts and torch.get_num_threads() == 2  # switched per run, the user's back
    np.testing.assert_allclose(chosen, _reference(*data), rtol=1e-3, atol=5e-5)


@pytest.mark.parametrize("value", ["1", "true"])
def test_tf_deterministic_ops_keeps_torchs_count(monkeypatch, busy_core, value):
    monkeypatch.setenv("TF_DETERMINISTIC_OPS", value)
    counts = _counts_set(monkeypatch)
    weights, data = _softmax_regression("cpu")
    assert counts == []  # never switched, whatever the timings say
    np.testing.assert_allclose(weights, _reference(*data), rtol=1e-3, atol=5e-5)


def test_check_gradients_runs_every_step_on_one_count(monkeypatch, busy_core):
    from tinyflow.frontend.testing import check_gradients
    counts = _counts_set(monkeypatch)
    tf.reset_default_graph()
    # 48 elements: ~100 runs, many times the runs a switch of the count takes (PROBE_FIRST)
    check_gradients(lambda x, w: tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID"),
                    [(1, 4, 4, 2), (2, 2, 2, 2)])
    assert counts == []  # finite differences saw one function: torch's count at every run


def test_the_feeds_are_copied_on_the_runs_thread_count(monkeypatch, busy_core):
    from tinyflow.executor.executor import Executor
    seen, copy_feeds = [], Executor._copy_feeds

    def recording(self, feeds):  # torch's count while a fed batch is copied in
        seen.append(torch.get_num_threads())
        return copy_feeds(self, feeds)
    monkeypatch.setattr(Executor, "_copy_feeds", recording)
    _softmax_regression("cpu")
    assert 1 in seen and torch.get_num_threads() == 2  # on one thread once switched to it


def test_small_softmax_kernels_run_on_one_thread_whatever_the_load(monkeypatch, two_threads):
    # torch's softmax kernels wake their whole team even for a 100x10 batch (a softmax step
    # on 2 threads beside a busy process: 0.19-0.26 ms, against 0.10 on one); by size only,
    # so a graph's last bits are the same run to run
    counts, real = [], torch.softmax

    def spy(x, dim, out=None):
        counts.append((x.numel(), torch.get_num_threads()))
        return real(x, dim, out=out)
    monkeypatch.setattr(torch, "softmax", spy)
    for rows in (100, 5000):  # 1,000 elements and 50,000
        x = tf.placeholder(tf.float32, [rows, 10])
        (grad,) = tf.gradients(tf.reduce_sum(tf.nn.softmax(x) * np.arange(10.0)), [x])
        value = np.random.RandomState(0).randn(rows, 10).astype(np.float32)
        got = tf.Session(tf.ConfigProto(intra_op_parallelism_threads=2)).run(grad, {x: value})
        p = np.exp(value - value.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        expected = p * (np.arange(10.0) - (p * np.arange(10.0)).sum(1, keepdims=True))
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
    assert sorted(set(counts)) == [(1000, 1), (50000, 2)]
    assert torch.get_num_threads() == 2
