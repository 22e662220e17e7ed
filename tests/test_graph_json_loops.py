"""Graphs with loops and conds through SaveJSON / LoadJSON and the Saver's .meta (issue 25):
save -> load -> bind -> run gives the values and gradients PyTorch autograd gives for the same
unrolled computation, and those the graph gave before it was saved; a training run resumed
from import_meta_graph + restore loses exactly what the uninterrupted run loses; hostile
documents with subgraphs load or are a GraphError, never a RecursionError or a hang."""
import gc
import json
import os
import time
import tracemalloc
import warnings

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinyflow as tf
from tinyflow.nnvm import Graph, GraphError, apply_passes
from tinyflow.nnvm.passes.serialize import MAX_ENTRIES
from tinyflow.nnvm.passes.serialize_subgraphs import MAX_NESTING
from tinyflow.nnvm.subgraph import Subgraph
from tinyflow.nnvm.symbol import NodeEntry, Symbol

pytestmark = pytest.mark.usefixtures("fresh_graph")
F64 = torch.float64
W0 = [0.5, -0.8, 1.1]
X0 = [0.3, -1.2, 0.7]


def _reimport(tmp_path, sess):
    """Save ``sess``'s variables (and the .meta, with no warning), then a new graph from the
    .meta and a new session restored from the checkpoint."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = tf.train.Saver().save(sess, str(tmp_path / "model"))
    assert os.path.exists(path + ".meta")
    tf.reset_default_graph()
    saver = tf.train.import_meta_graph(path + ".meta")
    fresh = tf.Session()
    saver.restore(fresh, path)
    return fresh, tf.get_default_graph()


# -- models: TinyFlow's graph, and the same computation unrolled in PyTorch ----------------------
def _power():
    """A loop reading a variable it does not write: a <- a * w + 1, three times."""
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.Variable(W0, name="w")
    _, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * w + 1.0),
                         [tf.constant(0), x])
    return tf.reduce_sum(y * y, name="loss")


def _power_torch(x, w):
    a = x
    for _ in range(3):
        a = a * w + 1.0
    return (a * a).sum()


def _nested():
    """A loop inside a loop: the inner one's gradient is nested in the outer one's."""
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.Variable(W0, name="w")

    def outer(i, a):
        _, inner = tf.while_loop(lambda j, b: j < 2, lambda j, b: (j + 1, tf.tanh(b * w) + x),
                                 [tf.constant(0), a])
        return i + 1, inner * 0.5
    _, y = tf.while_loop(lambda i, a: i < 3, outer, [tf.constant(0), x])
    return tf.reduce_sum(y * tf.constant([1.0, 2.0, 3.0]), name="loss")


def _nested_torch(x, w):
    a = x
    for _ in range(3):
        for _ in range(2):
            a = torch.tanh(a * w) + x
        a = a * 0.5
    return (a * torch.tensor([1.0, 2.0, 3.0], dtype=F64)).sum()


def _tensor_array():
    """A TensorArray written in the loop (its element shape from the body), stacked after."""
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.Variable(W0, name="w")
    array = tf.TensorArray(tf.float32, size=4)

    def body(i, a, out):
        a = tf.tanh(a * w)
        return i + 1, a, out.write(i, a * tf.cast(i + 1, tf.float32))
    _, _, out = tf.while_loop(lambda i, a, out: i < 4, body, [tf.constant(0), x, array])
    return tf.reduce_sum(out.stack() * out.stack(), name="loss")


def _tensor_array_torch(x, w):
    a, rows = x, []
    for i in range(4):
        a = torch.tanh(a * w)
        rows.append(a * (i + 1))
    return (torch.stack(rows) ** 2).sum()


def _scan_map():
    """tf.scan and tf.map_fn over the rows of a matrix made from x."""
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.Variable(W0, name="w")
    rows = tf.reshape(tf.tile(x, [4]), [4, 3]) * tf.constant([[1.0], [2.0], [-1.0], [0.5]])
    scanned = tf.scan(lambda acc, row: acc * w + row, rows)
    mapped = tf.map_fn(lambda row: tf.reduce_sum(tf.exp(row * w)), scanned)
    return tf.reduce_sum(mapped, name="loss")


def _scan_map_torch(x, w):
    rows = x.repeat(4).reshape(4, 3) * torch.tensor([[1.0], [2.0], [-1.0], [0.5]], dtype=F64)
    acc, total = torch.zeros(3, dtype=F64), 0.0
    for row in rows:
        acc = acc * w + row
        total = total + torch.exp(acc * w).sum()
    return total


def _dynamic_rnn():
    """dynamic_rnn as a loop, with per-example lengths (one 0, one full)."""
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.Variable(W0, name="w")
    kernel = tf.Variable(np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32), name="k")
    inputs = tf.reshape(tf.tile(x * w, [4]), [3, 4, 1])  # batch 3, 4 steps, depth 1

    class Cell(tf.nn.rnn_cell.BasicRNNCell):
        def __call__(self, step, state, scope=None):
            new = tf.tanh(tf.matmul(tf.concat([step, state], 1), kernel))
            return new, new
    out, last = tf.nn.dynamic_rnn(Cell(3), inputs, sequence_length=tf.constant([4, 0, 2]),
                                  dtype=tf.float32)
    return tf.add(tf.reduce_sum(out * out), tf.reduce_sum(last), name="loss")


def _dynamic_rnn_torch(x, w):
    kernel = torch.tensor(np.linspace(-1, 1, 12).reshape(4, 3), dtype=F64)
    steps = (x * w).repeat(4).reshape(3, 4, 1)
    state, total = torch.zeros(3, 3, dtype=F64), 0.0
    lengths = torch.tensor([4, 0, 2])
    for t in range(4):
        new = torch.tanh(torch.cat([steps[:, t], state], 1) @ kernel)
        alive = (t < lengths)[:, None]
        total = total + (torch.where(alive, new, 0.0) ** 2).sum()
        state = torch.where(alive, new, state)
    return total + state.sum()


MODELS = {"power": (_power, _power_torch), "nested": (_nested, _nested_torch),
          "tensor_array": (_tensor_array, _tensor_array_torch),
          "scan_map": (_scan_map, _scan_map_torch),
          "dynamic_rnn": (_dynamic_rnn, _dynamic_rnn_torch)}


@pytest.mark.parametrize("name", MODELS)
def test_values_and_gradients_come_back_through_the_meta_graph(tmp_path, name):
    build, reference = MODELS[name]
    loss = build()
    x, w = tf.get_default_graph().get_tensor_by_name("x:0"), tf.global_variables()[0]
    grads = tf.gradients(loss, [x, w])
    names = [loss.name] + [g.name for g in grads]
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    before = sess.run([loss] + grads, {x: X0})

    fresh, graph = _reimport(tmp_path, sess)
    after = fresh.run([graph.get_tensor_by_name(n) for n in names],
                      {graph.get_tensor_by_name("x:0"): X0})
    tx, tw = (torch.tensor(v, dtype=F64, requires_grad=True) for v in (X0, W0))
    want = reference(tx, tw)
    want.backward()
    for i, (got, ref) in enumerate(zip(after, [want, tx.grad, tw.grad])):
        np.testing.assert_allclose(got, ref.detach().numpy(), rtol=2e-5, atol=1e-5,
                                   err_msg=f"{name}: fetch {i}")
        np.testing.assert_array_equal(got, before[i])  # the graph as it was, bit for bit


def test_a_cond_writing_variables_comes_back_and_runs_only_the_taken_branch(tmp_path):
    pred = tf.placeholder(tf.bool, shape=[], name="pred")
    x = tf.placeholder(tf.float32, shape=[2], name="x")
    v = tf.Variable(tf.zeros([2]), name="v")
    w = tf.Variable(tf.zeros([2]), name="w")

    def add_to_v():
        with tf.control_dependencies([tf.assign_add(v, x)]):
            return tf.identity(x * 2.0)
    out = tf.identity(tf.cond(pred, add_to_v, lambda: tf.scatter_update(w, [1], [5.0]) + x),
                      name="out")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run(out, {pred: True, x: [1.0, 2.0]})  # v = [1, 2] is saved
    fresh, graph = _reimport(tmp_path, sess)
    run = {name: graph.get_tensor_by_name(f"{name}:0") for name in ("out", "pred", "x", "v",
                                                                     "w")}
    feed = {run["x"]: [1.0, 2.0]}
    np.testing.assert_array_equal(fresh.run(run["out"], {**feed, run["pred"]: True}), [2., 4.])
    assert fresh.run(run["v"]).tolist() == [2.0, 4.0] and fresh.run(run["w"]).tolist() == [0, 0]
    np.testing.assert_array_equal(fresh.run(run["out"], {**feed, run["pred"]: False}), [1., 7.])
    assert fresh.run(run["v"]).tolist() == [2.0, 4.0] and fresh.run(run["w"]).tolist() == [0, 5]


# -- training through dynamic_rnn's loop, interrupted and resumed from the .meta ----------------
def _seq_model():
    x = tf.placeholder(tf.float32, [None, None, 2], name="x")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    target = tf.placeholder(tf.float32, [None, 1], name="target")
    with tf.variable_scope("rnn", initializer=tf.constant_initializer(0.1)):
        _, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(6), x, sequence_length=lengths,
                                     dtype=tf.float32)
    prediction = tf.layers.dense(state, 1, kernel_initializer=tf.constant_initializer(0.2))
    loss = tf.reduce_mean(tf.square(prediction - target), name="loss")
    step = tf.train.get_or_create_global_step()
    tf.add_to_collection("train_op", tf.train.AdamOptimizer(0.05).minimize(loss, step))


def _batches():
    rng = np.random.default_rng(3)
    for steps in (3, 5, 4, 6, 2, 5):
        xv = rng.standard_normal((8, steps, 2)).astype(np.float32)
        lens = rng.integers(0, steps + 1, 8)
        want = (xv[:, :, 0] * (np.arange(steps)[None] < lens[:, None])).sum(1, keepdims=True)
        yield {"x:0": xv, "lengths:0": lens, "target:0": want.astype(np.float32)}


def _train(sess, batches):
    graph = tf.get_default_graph()
    loss, train = graph.get_tensor_by_name("loss:0"), tf.get_collection("train_op")[0]
    return [sess.run([loss, train], {graph.get_tensor_by_name(k): v for k, v in b.items()})[0]
            for b in batches]


def test_a_dynamic_rnn_model_resumed_from_its_meta_graph_trains_on_identically(tmp_path):
    batches = list(_batches())
    _seq_model()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    _train(sess, batches[:3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = tf.train.Saver().save(sess, str(tmp_path / "rnn"))
    uninterrupted = _train(sess, batches[3:])

    tf.reset_default_graph()
    saver = tf.train.import_meta_graph(path + ".meta")
    fresh = tf.Session()
    saver.restore(fresh, path)
    assert _train(fresh, batches[3:]) == uninterrupted  # bit for bit
    assert fresh.run(tf.train.get_global_step()) == 6


# -- what still writes no .meta ------------------------------------------------------------------
def test_a_py_func_inside_a_loop_still_saves_without_a_meta_graph(tmp_path):
    tf.Variable(1.0, name="v")

    def body(i):
        out = tf.py_func(lambda a: a + 1, [i], tf.float32)
        out.set_shape([])
        return out
    tf.while_loop(lambda i: i < 2.0, body, [tf.constant(0.0)])
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    with pytest.warns(UserWarning, match="no meta graph .* written beside"):
        path = tf.train.Saver().save(sess, str(tmp_path / "model"))
    assert not os.path.exists(path + ".meta")


# -- hostile documents ---------------------------------------------------------------------------
def _load(doc):
    return apply_passes(Graph([], {"json": doc if isinstance(doc, str) else json.dumps(doc)}),
                        "LoadJSON")


def _loop_doc():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [3], name="x")
    _, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), [tf.constant(0), x])
    return json.loads(apply_passes(Graph(y.outputs, {}), "SaveJSON").attrs["json"])


def _run_loaded(graph):
    x = next(n for n in graph.indexed.nodes if n.name == "x")
    return tf.Session().run(Symbol(graph.outputs), {Symbol([NodeEntry(x, 0)]): [1.0, 2.0, 3.0]})


def test_a_saved_loop_loads_back_with_its_subgraphs_and_runs():
    doc = _loop_doc()
    loop = next(n for n in doc["nodes"] if n["op"] == "while_loop")
    assert loop["attrs"]["body"]["inputs"] == loop["attrs"]["cond"]["inputs"]  # shared
    graph = _load(doc)
    node = graph.outputs[0].node
    assert isinstance(node.attrs["body"], Subgraph)
    assert node.attrs["body"].inputs == node.attrs["cond"].inputs  # still one placeholder each
    np.testing.assert_array_equal(_run_loaded(graph), [8.0, 16.0, 24.0])


def _edit_loop(edit):
    doc = _loop_doc()
    loop = next(n for n in doc["nodes"] if n["op"] == "while_loop")
    edit(doc, loop["attrs"])
    return doc


HOSTILE = {
    "body not a subgraph": (lambda d, a: a.update(body=3), r"'body' must be a subgraph"),
    "body missing": (lambda d, a: a.pop("body"), r"'body' must be a subgraph"),
    "input not a placeholder": (lambda d, a: a["body"]["inputs"].__setitem__(0, 2),
                                r"'body' input '.*' must be a placeholder"),
    "input after the node": (lambda d, a: a["body"]["inputs"].__setitem__(0, 99),
                             r"'body' input 99 must be the index of one of the"),
    "input not an int": (lambda d, a: a["cond"]["inputs"].__setitem__(0, True),
                         r"'cond' input True must be the index"),
    "output out of range": (lambda d, a: a["body"]["outputs"].__setitem__(0, [3, 5]),
                            r"'body' output \[3, 5\] must be an output of node"),
    "a body output dropped": (lambda d, a: a["body"]["outputs"].pop(),
                              r"subgraph 'body' \(2 inputs, 1 outputs\) must be 2 inputs and 2"),
    "cond with no output": (lambda d, a: a["cond"].update(outputs=[]),
                            r"subgraph 'cond' \(2 inputs, 0 outputs\) must be 2 inputs and 1"),
    "an input more": (lambda d, a: a["body"]["inputs"].append(0),
                      r"'body' \(3 inputs, 2 outputs\) must be 2 inputs"),
    "num_vars a string": (lambda d, a: a.update(num_vars="2"), r"numbers of inputs and outputs"),
    "code in a body node": (lambda d, a: d["nodes"][3]["attrs"].update(source="import os"),
                            r"attribute 'source' must be absent"),
    "a pass's op in the body": (lambda d, a: d["nodes"][3].update(op="_fused"),
                                r"made only by the FuseElemwise pass"),
}


@pytest.mark.parametrize("edit, message", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_malformed_subgraph_is_a_graph_error(edit, message):
    with pytest.raises(GraphError, match="bad graph JSON.*" + message):
        _load(_edit_loop(edit))


def _less_than_one(nodes: list, placeholder: int, level) -> None:
    """Append nodes ``placeholder < 1``: the constant 1, then the comparison."""
    nodes.append({"op": "_constant_like", "name": f"one{level}", "inputs": [[placeholder, 0]],
                  "attrs": {"value": [1], "shape": []}})
    nodes.append({"op": "less", "name": f"c{level}",
                  "inputs": [[placeholder, 0], [len(nodes) - 1, 0]]})


def _nested_doc(depth: int) -> dict:
    """A loop in a loop ... ``depth`` deep, written by hand: one counter, each body the next
    loop (a cond ``i < 1`` each: a document of a few nodes per level)."""
    nodes = [{"op": "null", "name": "x", "attrs": {"kind": "placeholder", "shape": [],
                                                   "dtype": "int32"}}]
    inner = None
    for level in range(depth + 1):
        base = len(nodes)
        nodes.append({"op": "null", "name": f"i{level}", "attrs": {
            "kind": "placeholder", "shape": [], "dtype": "int32"}})
        _less_than_one(nodes, base, level)
        if inner is None:
            nodes.append({"op": "__add_scalar__", "name": f"b{level}", "inputs": [[base, 0]],
                          "attrs": {"scalar": 1.0}})
        else:
            nodes.append({"op": "while_loop", "name": f"b{level}", "inputs": [[base, 0]],
                          "attrs": inner})
        inner = {"num_vars": 1, "num_captured": 0, "maximum_iterations": -1,
                 "back_prop": True, "names": ["'i'"], "invariant": [False],
                 "cond": {"inputs": [base], "outputs": [[base + 2, 0]]},
                 "body": {"inputs": [base], "outputs": [[base + 3, 0]]}}
    nodes.append({"op": "while_loop", "name": "top", "inputs": [[0, 0]], "attrs": inner})
    return {"nodes": nodes, "heads": [[len(nodes) - 1, 0]]}


def test_loops_nested_to_the_bound_run_and_deeper_ones_are_refused_at_once():
    graph = _load(_nested_doc(MAX_NESTING - 1))
    assert tf.Session().run(Symbol(graph.outputs), {Symbol([NodeEntry(
        graph.indexed.nodes[0], 0)]): 0}) == 1
    for depth in (MAX_NESTING, 10_000):  # a recursion bomb: a clear error, no recursion
        text = json.dumps(_nested_doc(depth))
        # "at once": about the cost of parsing the text, which any reader pays (0.5-2x here);
        # CPU seconds of this process, which a loaded machine does not stretch as it does
        # the wall clock.  Work per level over the levels below it (10**4 levels of a 5.7 MB
        # document) would take minutes
        gc.disable()  # the collector's passes over the parsed document are noise of seconds
        try:
            start = time.process_time()
            json.loads(text)
            parsed = time.process_time() - start
            with pytest.raises(GraphError, match=rf"nest {MAX_NESTING + 1} deep, which must "
                                                 rf"be at most {MAX_NESTING}"):
                _load(text)
            refused = time.process_time() - start - parsed
        finally:
            gc.enable()
        assert refused < 5 * parsed + 1.0, (refused, parsed)


def test_a_subgraph_shared_by_many_loops_cannot_multiply_a_small_document():
    """Eight loops per level, each one's body reading all eight of the level below: what
    binding would make grows eightfold per level while the document grows by a few nodes."""
    nodes = [{"op": "null", "name": "x", "attrs": {"kind": "placeholder", "shape": [],
                                                   "dtype": "float32"}}]
    below = [0]
    for level in range(10):
        base = len(nodes)
        nodes.append({"op": "null", "name": f"p{level}", "attrs": {"kind": "placeholder"}})
        nodes.append({"op": "elemwise_sum", "name": f"s{level}",
                      "inputs": [[n, 0] for n in below], "attrs": {"num_args": len(below)}})
        _less_than_one(nodes, base, level)
        loop = {"num_vars": 1, "num_captured": 0, "maximum_iterations": 1,
                "back_prop": True, "names": ["'p'"], "invariant": [False],
                "cond": {"inputs": [base], "outputs": [[base + 3, 0]]},
                "body": {"inputs": [base], "outputs": [[base + 1, 0]]}}
        below = list(range(len(nodes), len(nodes) + 8))
        nodes += [{"op": "while_loop", "name": f"w{level}_{k}", "inputs": [[0, 0]],
                   "attrs": loop} for k in range(8)]
    doc = json.dumps({"nodes": nodes, "heads": [[below[0], 0]]})
    assert len(doc) < 30_000
    tracemalloc.start()
    try:
        with pytest.raises(GraphError, match=rf"entries and edges its subgraphs make when "
                                             rf"bound \(to node .*\) must be at most "
                                             rf"{MAX_ENTRIES}"):
            _load(doc)
        assert tracemalloc.get_traced_memory()[1] < 20 << 20
    finally:
        tracemalloc.stop()


# -- property: mutations of a valid loop document ------------------------------------------------
VALID = _loop_doc()
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.sampled_from([10 ** 9, MAX_ENTRIES])
    | st.text(max_size=6), lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["inputs", "outputs", "x"]), inner, max_size=3),
    max_leaves=8)


@st.composite
def _mutated(draw):
    doc = json.loads(json.dumps(VALID))
    loop = next(n for n in doc["nodes"] if n["op"] == "while_loop")["attrs"]
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(["cond", "body", "num_vars", "num_captured"]))
        part = draw(st.sampled_from(["inputs", "outputs"]))
        if isinstance(loop.get(name), dict) and isinstance(loop[name].get(part), list) \
                and draw(st.booleans()):
            items = loop[name][part]
            if items and draw(st.booleans()):
                items[draw(st.integers(0, len(items) - 1))] = draw(VALUES)
            else:
                items.append(draw(VALUES))
        else:
            loop[name] = draw(VALUES)
    return json.dumps(doc)


@settings(max_examples=150, deadline=5000, suppress_health_check=list(HealthCheck))
@given(_mutated())
def test_any_mutated_loop_document_loads_or_is_a_graph_error(text):
    try:
        graph = _load(text)
    except GraphError:
        return
    loop = graph.outputs[0].node
    assert all(isinstance(loop.attrs[k], Subgraph) for k in ("cond", "body"))
