"""Bad input, named: LoadJSON on malformed text, downloads with a deadline and a size
cap leaving no partial file, labels that are not class ids, the gradient of sign."""
import contextlib
import hashlib
import http.server
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.datasets import DatasetError, sources
from tinyflow.lua_ops.runtime import LuaOpError
from tinyflow.nnvm import Graph, GraphError, apply_passes

pytestmark = pytest.mark.usefixtures("fresh_graph")


# -- LoadJSON ----------------------------------------------------------------------------------
def _load(text):
    return apply_passes(Graph([], {"json": text}), "LoadJSON")


def _doc(nodes, heads=((0, 0),)):
    return json.dumps({"nodes": nodes, "arg_nodes": [], "heads": [list(h) for h in heads]})


X = {"op": "null", "name": "x", "inputs": []}
MALFORMED = {
    "not JSON": ("{nodes", "does not parse"),
    "nested too deeply": ("[" * 100_000 + "]" * 100_000, "does not parse"),
    "not an object": ("[1, 2]", "the document must be an object"),
    "nodes not a list": ('{"nodes": 5}', "'nodes' must be a list"),
    "node not an object": (_doc([7]), "node 0 must be an object"),
    "no name": (_doc([{"op": "null"}]), r"node 0 \(None\) 'name' must be a string"),
    "no op": (_doc([{"name": "x"}]), r"node 0 \('x'\) 'op' must be a string"),
    "unknown op": (_doc([X, {"op": "no_such_op", "name": "y", "inputs": [[0, 0]]}]),
                   r"node 1 \('y'\).*no_such_op"),
    "input after the node": (_doc([{**X, "inputs": [[1, 0]]}, X]),
                             r"node 0 \('x'\) input \[1, 0\] must be the index of one of the 0"),
    "negative input": (_doc([X, {"op": "exp", "name": "y", "inputs": [[-1, 0]]}]),
                       r"input \[-1, 0\] must be the index"),
    "output it lacks": (_doc([X, {"op": "exp", "name": "y", "inputs": [[0, 3]]}]),
                        r"input \[0, 3\] must be an output of node 'x' \(it has 1\)"),
    "input not a pair": (_doc([X, {"op": "exp", "name": "y", "inputs": [0]}]),
                         r"input 0 must be \[node index, output index\]"),
    "inputs not a list": (_doc([{**X, "inputs": 3}]), r"'inputs' must be a list"),
    "bad head": (_doc([X], heads=[(4, 0)]), r"head \[4, 0\] must be the index"),
    "attrs not an object": (_doc([{**X, "attrs": [1]}]), r"'attrs' must be an object"),
    "graph attribute not a list": (json.dumps({"nodes": [X], "heads": [[0, 0]],
                                               "attrs": {"shape": 3}}),
                                   r"graph attribute 'shape' must be a list"),
}


@pytest.mark.parametrize("text, message", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_json_is_a_graph_error_saying_what(text, message):
    with pytest.raises(GraphError, match="bad graph JSON.*" + message):
        _load(text)


def test_well_formed_json_still_loads():
    graph = _load(_doc([X, {"op": "exp", "name": "y", "inputs": [[0, 0]]}], heads=[(1, 0)]))
    assert [n.name for n in graph.indexed.nodes] == ["x", "y"]


# -- downloads -----------------------------------------------------------------------------------
CONTENT = os.urandom(64 << 10)
SPEC = sources.Spec("reliability-test", "Test data", (("file.bin",),), "TINYFLOW_TEST_MIRROR")


class _Handler(http.server.BaseHTTPRequestHandler):
    """/fast/file.bin: the file; /slow/file.bin: 1 KiB every 50 ms; /stalled/file.bin: answers
    after 2 s (as a loaded machine may); /huge/file.bin: announces 1 GiB; /endless/file.bin: no
    length, 256 KiB chunks for ever."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        kind = self.path.split("/")[1]
        with contextlib.suppress(OSError):  # the client gone: nothing to answer
            if kind == "stalled":
                time.sleep(2)
            self.send_response(200)
            if kind != "endless":
                self.send_header("Content-Length",
                                 str(1 << 30 if kind == "huge" else len(CONTENT)))
            self.end_headers()
            if kind == "fast":
                self.wfile.write(CONTENT)
            elif kind == "slow":
                for start in range(0, len(CONTENT), 1024):
                    self.wfile.write(CONTENT[start:start + 1024])
                    self.wfile.flush()
                    time.sleep(0.05)
            elif kind == "endless":
                while True:
                    self.wfile.write(bytes(256 << 10))


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def known(monkeypatch):
    sha = hashlib.sha256(CONTENT).hexdigest()
    monkeypatch.setattr(sources, "SHA256", {SPEC.key: {"file.bin": sha}})


def _parts(folder):
    return [p.name for p in Path(folder).iterdir() if p.name.endswith(".part")]


def test_a_download_completes_within_its_limits(server, known, tmp_path):
    (path,) = sources.locate(SPEC, tmp_path, [f"{server}/fast"], True, deadline_s=60,
                             max_bytes=len(CONTENT))
    assert path.read_bytes() == CONTENT and _parts(tmp_path) == []


@pytest.mark.parametrize("mirror, limits, message", [
    ("slow", {"deadline_s": 0.5}, "not done by the deadline"),
    # the socket's timeout (what was left of the deadline) is the deadline's error too: under
    # load the slow mirror's first bytes came late and the error was a bare "timed out"
    ("stalled", {"deadline_s": 0.5}, r"not done by the deadline \(deadline_s\): timed out"),
    ("huge", {}, r"1073741824 bytes, more than the 1048576 allowed"),
    ("endless", {}, r"more than the 1048576 bytes allowed"),
], ids=["deadline", "deadline before an answer", "announced size", "endless body"])
def test_deadline_and_size_cap_fail_the_mirror_and_leave_no_part(server, known, tmp_path, mirror,
                                                                  limits, message):
    limits = {"max_bytes": 1 << 20, **limits}
    started = time.monotonic()
    with pytest.raises(DatasetError, match=message):
        sources.locate(SPEC, tmp_path, [f"{server}/{mirror}"], True, **limits)
    assert time.monotonic() - started < 30  # liveness: the slow mirror would take 3 s
    assert list(tmp_path.iterdir()) == []


def test_keyboard_interrupt_and_system_exit_leave_no_part(server, known, tmp_path, monkeypatch):
    import _thread
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sources.locate(SPEC, tmp_path, [f"{server}/slow"], True)
    timer.join()
    assert _parts(tmp_path) == []

    @contextlib.contextmanager
    def exiting_bar(total, description):
        def advance(count):
            raise SystemExit(3)
        yield advance
    monkeypatch.setattr(sources, "_progress_bar", exiting_bar)
    with pytest.raises(SystemExit):
        sources.locate(SPEC, tmp_path, [f"{server}/fast"], True)
    assert list(tmp_path.iterdir()) == []


CHILD = """
import sys
from tinyflow.datasets import sources
sources.SHA256 = {"reliability-test": {"file.bin": sys.argv[3]}}
spec = sources.Spec("reliability-test", "Test data", (("file.bin",),), "TINYFLOW_TEST_MIRROR")
print(sources.locate(spec, sys.argv[1], [sys.argv[2]], True)[0], flush=True)
"""


def test_a_part_left_by_sigterm_is_removed_by_the_next_download(server, tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(tf.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [root] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
    sha = hashlib.sha256(CONTENT).hexdigest()
    data = tmp_path / "data"
    data.mkdir()

    def child(mirror):
        return subprocess.Popen([sys.executable, "-c", textwrap.dedent(CHILD), str(data),
                                 f"{server}/{mirror}", sha], stdout=subprocess.PIPE, text=True,
                                env=env)
    slow = child("slow")
    try:
        deadline = time.monotonic() + 60
        while not _parts(data) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _parts(data), "the download never started"
        slow.send_signal(signal.SIGTERM)  # no handler: the process ends at once
        assert slow.wait(timeout=30) == -signal.SIGTERM
    finally:
        slow.kill()
        slow.wait()
    assert len(_parts(data)) == 1, "SIGTERM leaves the partial file"
    fast = child("fast")
    out, _ = fast.communicate(timeout=60)
    assert Path(out.strip()).read_bytes() == CONTENT
    assert _parts(data) == []


# -- labels --------------------------------------------------------------------------------------
@pytest.mark.parametrize("label", [float("nan"), 3.0, -1.0, 1e30])
def test_seed_loss_with_a_bad_float_label_says_what_labels_must_be(label):
    logits = tf.placeholder(tf.float32, [2, 3])
    labels = tf.placeholder(tf.float32, [2])
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(logits, labels)
    (grad,) = tf.gradients(loss, logits)
    sess = tf.Session()
    feed = {logits: np.zeros((2, 3), np.float32), labels: np.array([0.0, label], np.float32)}
    for fetch in (loss, grad):
        with pytest.raises(LuaOpError, match=r"op '_?mean_sparse_softmax_cross_entropy_with_"
                                             r"logits.*labels must be class ids in \[0, 3\)"):
            sess.run(fetch, feed)
    feed[labels] = np.array([0.0, 2.0], np.float32)  # and the session goes on
    np.testing.assert_allclose(sess.run(loss, feed), np.log(3.0), rtol=1e-6)


@pytest.mark.parametrize("label", [3, -1])
def test_tf_loss_with_a_label_out_of_range_says_what_labels_must_be(label):
    logits = tf.placeholder(tf.float32, [2, 3])
    labels = tf.placeholder(tf.int32, [2])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    (grad,) = tf.gradients(tf.reduce_sum(loss), logits)
    sess = tf.Session()
    feed = {logits: np.zeros((2, 3), np.float32), labels: np.array([0, label], np.int32)}
    for fetch in (loss, grad):
        with pytest.raises(LuaOpError, match=r"sparse_softmax_cross_entropy_with_logits.*"
                                             r"labels must be class ids in \[0, 3\)"):
            sess.run(fetch, feed)


def test_seed_loss_and_gradient_match_torch():
    import torch
    rng = np.random.default_rng(0)
    z, ids = rng.normal(size=(5, 4)).astype(np.float32), np.array([0, 3, 1, 2, 3])
    logits = tf.placeholder(tf.float32, [5, 4])
    labels = tf.placeholder(tf.float32, [5])
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(logits, labels)
    (grad,) = tf.gradients(loss, logits)
    got = tf.Session().run([loss, grad], {logits: z, labels: ids.astype(np.float32)})
    zt = torch.tensor(z, requires_grad=True)
    want = torch.nn.functional.cross_entropy(zt, torch.tensor(ids))
    want.backward()
    np.testing.assert_allclose(got[0], want.item(), rtol=1e-5)
    np.testing.assert_allclose(got[1], zt.grad.numpy(), rtol=1e-5, atol=1e-7)


# -- sign ------------------------------------------------------------------------------------------
def test_sign_has_a_zero_gradient_as_in_tensorflow():
    x = tf.placeholder(tf.float32, [4])
    (grad,) = tf.gradients(tf.sign(x), x)
    assert grad is not None
    (through,) = tf.gradients(tf.reduce_sum(tf.sign(x) * x), x)
    sess = tf.Session()
    values = np.array([-2.0, 0.0, 0.5, 3.0], np.float32)
    np.testing.assert_array_equal(sess.run(grad, {x: values}), np.zeros(4))
    np.testing.assert_array_equal(sess.run(through, {x: values}), np.sign(values))
