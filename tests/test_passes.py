"""The graph passes tested alone: no Session, no executor, no torch.

InferShape (forward and backward), InferType, Gradient, PlanMemory, SaveJSON / LoadJSON, and the
execution order IndexedGraph gives (deep chains, readers of a variable before its assign).
Gradient graphs are checked by value with a small numpy interpreter of the graph.
"""
import math
import subprocess
import sys

import numpy as np
import pytest

import tinyflow as tf
from tinyflow import nnvm
from tinyflow.nnvm import Graph, GraphError, IndexedGraph, ShapeError, apply_passes
from tinyflow.nnvm.passes import EXTERNAL
from tinyflow.nnvm.symbol import NodeEntry, Symbol, create_op

pytestmark = pytest.mark.usefixtures("fresh_graph")


def infer(outputs, shape_inputs=None, passes=("InferShape",), **attrs):
    """Run ``passes`` on a graph of ``outputs`` (a symbol, or a list of symbols or entries)."""
    outputs = [outputs] if isinstance(outputs, Symbol) else outputs
    outputs = [e for s in outputs for e in (s.outputs if isinstance(s, Symbol) else [s])]
    graph = Graph(outputs, {"shape_inputs": shape_inputs or {}, **attrs})
    return apply_passes(graph, list(passes))


def shape_of(graph, symbol):
    return graph.attrs["shape"][graph.indexed.entry_id(symbol.outputs[0])]


def dtype_of(graph, symbol):
    return graph.attrs["dtype"][graph.indexed.entry_id(symbol.outputs[0])]


# -- a numpy interpreter of graphs, to check gradient graphs by value ----------------------
def _collapse_sum(g, like):
    g = g.sum(axis=tuple(range(g.ndim - like.ndim)))
    axes = tuple(i for i, d in enumerate(like.shape) if d == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True)


NUMPY_OPS = {
    "elemwise_add": lambda a, b: a + b, "elemwise_sub": lambda a, b: a - b,
    "elemwise_mul": lambda a, b: a * b, "elemwise_div": lambda a, b: a / b,
    "elemwise_sum": lambda *xs: sum(xs), "negative": lambda x: -x, "exp": np.exp,
    "ones_like": np.ones_like, "zeros_like": np.zeros_like, "_collapse_sum_like": _collapse_sum,
}


def evaluate(outputs, feeds):
    """Values of ``outputs`` (list of symbols) given ``{placeholder symbol: array}``."""
    graph = Graph([s.outputs[0] for s in outputs])
    indexed = graph.indexed
    values = {}
    given = {s.node: np.asarray(v, np.float64) for s, v in feeds.items()}
    for nid, node in enumerate(indexed.nodes):
        if node.op is None:
            values[indexed.entry_id((nid, 0))] = given[node]
        else:
            args = [values[e] for e in indexed.input_entries[nid]]
            values[indexed.entry_id((nid, 0))] = NUMPY_OPS[node.op.name](*args)
    return [values[e] for e in indexed.outputs]


# -- InferShape ------------------------------------------------------------------------------
def test_infer_shape_forward():
    x = tf.placeholder(shape=(None, 784), name="x")
    w = tf.Variable(tf.zeros([784, 10]), name="W")
    logits = tf.matmul(x, w)
    probs = tf.nn.softmax(logits)
    loss = tf.reduce_mean(-tf.reduce_sum(probs * 2, axis=1, keepdims=True))
    graph = infer(loss, {"x": (32, 784), w.node: (784, 10)})
    assert shape_of(graph, logits) == (32, 10)
    assert shape_of(graph, probs) == (32, 10)
    assert shape_of(graph, loss) == ()
    assert graph.attrs["shape_num_unknown_nodes"] == 0
    # Without the feed shape, what depends on x stays unknown.
    partial = infer(loss, {w.node: (784, 10)})
    assert shape_of(partial, logits) is None and partial.attrs["shape_num_unknown_nodes"] > 0


def test_infer_shape_broadcasting_and_reductions():
    a, b = tf.placeholder(shape=(2, 3, 4)), tf.placeholder(shape=(3, 1))
    total = a * b
    cases = {tf.reduce_sum(total, axis=1): (2, 4), tf.reduce_max(total, axis=(0, -1)): (3,),
             tf.reduce_mean(total, keepdims=True): (1, 1, 1),
             tf.reduce_sum(total, axis=-1, keepdims=True): (2, 3, 1),
             tf.argmax(total, axis=2): (2, 3), tf.reshape(total, (-1, 6)): (4, 6),
             tf.pad(total, 1, -2): (2, 5, 4), tf.matmul(b, b, transpose_a=True): (1, 1)}
    graph = infer(list(cases))
    assert shape_of(graph, total) == (2, 3, 4)
    for symbol, shape in cases.items():
        assert shape_of(graph, symbol) == shape, symbol


def test_infer_shape_backward_from_assign():
    var = nnvm.graph_input("unshaped")
    graph = infer(tf.assign(var, tf.zeros([3, 4])))
    assert shape_of(graph, var) == (3, 4)


@pytest.mark.parametrize("transpose_b", [False, True])
def test_infer_shape_backward_through_matmul(transpose_b):
    x = tf.placeholder(shape=(2, 3), name="x")
    w = nnvm.graph_input("W")
    target = nnvm.graph_input("target")
    product = tf.matmul(x, w, transpose_b=transpose_b)
    graph = infer(tf.assign(target, product), {"target": (2, 5)})
    assert shape_of(graph, product) == (2, 5)
    assert shape_of(graph, w) == ((5, 3) if transpose_b else (3, 5))
    # And the left operand from the right one and the output.
    v = nnvm.graph_input("V")
    left = tf.matmul(v, tf.placeholder(shape=(3, 5)), transpose_a=True)
    graph = infer(tf.assign(target, left), {"target": (2, 5)})
    assert shape_of(graph, v) == (3, 2)


def test_shape_error_names_op_node_and_shapes():
    a, b = tf.placeholder(shape=(2, 3)), tf.placeholder(shape=(4, 5))
    with pytest.raises(ShapeError) as err:
        infer(tf.matmul(a, b, name="bad_product"))
    message = str(err.value)
    for part in ("op 'matmul'", "'bad_product'", "(2, 3)", "(4, 5)", "test_passes.py"):
        assert part in message, message
    with pytest.raises(ShapeError, match=r"op 'elemwise_add'.*\(3, 4\).*\(5,\)"):
        infer(tf.add(tf.placeholder(shape=(3, 4)), tf.placeholder(shape=(5,))))
    with pytest.raises(ShapeError, match=r"op 'reshape' \(node 'flat'.*\(3, 4\)"):
        infer(tf.reshape(tf.placeholder(shape=(3, 4)), (5, -1), name="flat"))
    var = nnvm.graph_input("W")
    with pytest.raises(ShapeError, match=r"op 'assign'.*\(3, 4\).*\(2, 2\)"):
        infer(tf.assign(var, tf.zeros([2, 2])), {"W": (3, 4)})


# -- InferType -------------------------------------------------------------------------------
def test_infer_type():
    x = tf.placeholder(shape=(2, 3))
    y = tf.exp(x) + tf.zeros([2, 3])
    graph = infer(y, passes=["InferType"])
    assert set(graph.attrs["dtype"]) == {"float32"}
    assert graph.attrs["dtype_num_unknown_nodes"] == 0
    # A typed placeholder's dtype flows through, and dtype_inputs override.
    h = tf.placeholder("float16", shape=(2, 3))
    z = tf.exp(h) * h
    assert dtype_of(infer(z, passes=["InferType"]), z) == "float16"
    graph = infer(z, passes=["InferType"], dtype_inputs={h.node: "float64"})
    assert dtype_of(graph, z) == "float64"
    # Ops without inputs have a type of their own.
    alone = tf.zeros([2])
    assert dtype_of(infer(alone, passes=["InferType"]), alone) == "float32"


# -- Gradient --------------------------------------------------------------------------------
def test_gradient_of_a_reused_entry_is_summed():
    x = tf.placeholder(shape=(3,), name="x")
    y = x * x + x
    (grad,) = tf.gradients(y, x)
    assert grad.node.op.name == "elemwise_sum"
    assert grad.node.attrs["num_args"] == 3 and len(grad.node.inputs) == 3
    value = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(evaluate([grad], {x: value})[0], 2 * value + 1)


def test_gradient_through_broadcasting_and_reuse_by_value():
    x, w = tf.placeholder(shape=(4,)), tf.placeholder(shape=(3, 4))
    e = tf.exp(x * w)
    loss = e * e - e / w
    gx, gw = tf.gradients(loss, [x, w])
    xv = np.linspace(-1, 1, 4)
    wv = np.linspace(0.5, 2, 12).reshape(3, 4)
    ev = np.exp(xv * wv)
    got_x, got_w = evaluate([gx, gw], {x: xv, w: wv})
    common = 2 * ev * ev - ev / wv
    np.testing.assert_allclose(got_x, (common * wv).sum(axis=0))
    np.testing.assert_allclose(got_w, common * xv + ev / wv ** 2)


def test_gradient_head_gradients_and_unreached_inputs():
    x, y, head = (tf.placeholder(shape=(2,)) for _ in range(3))
    out = -x
    gx, gy = tf.gradients(out, [x, y], grad_ys=[head])
    assert gy is None
    np.testing.assert_allclose(evaluate([gx], {x: [1, 2], head: [3, 4]})[0], [-3, -4])
    (zero,) = nnvm.gradients(out, [y])  # the graph-layer form gives zeros, not None
    assert zero.node.op.name == "zeros_like"
    graph = apply_passes(Graph(out.outputs, {"grad_xs": [x.outputs[0], y.outputs[0]]}),
                         "Gradient")
    assert graph.attrs["grad_outputs"] == [True, False]


def test_missing_gradient_rule_names_the_op():
    # every built-in op has a rule (backward ops too: tests/test_second_order.py): one of ours
    if "test_passes_no_rule" not in nnvm.list_ops():
        (nnvm.register_op("test_passes_no_rule").set_num_inputs(2)
         .set_attr("FInferShape", nnvm.same_shape))
    g, y = tf.placeholder(shape=(2, 3)), tf.placeholder(shape=(2, 3))
    out = create_op("test_passes_no_rule", g, y, name="no_rule")
    with pytest.raises(GraphError, match=r"op 'test_passes_no_rule' \(node 'no_rule'.*FGradient"):
        tf.gradients(tf.reduce_sum(out), g)


def test_gradient_pass_leaves_its_input_graph_alone():
    x = tf.placeholder(shape=(2,))
    graph = Graph((x * 3).outputs, {"grad_xs": [x.outputs[0]]})
    before = dict(graph.attrs)
    result = apply_passes(graph, "Gradient")
    assert graph.attrs == before and result is not graph
    with pytest.raises(GraphError, match="needs graph attribute"):
        apply_passes(Graph((x * 3).outputs), "Gradient")
    with pytest.raises(GraphError, match="no pass named 'Nope'"):
        apply_passes(graph, "Nope")


# -- PlanMemory ------------------------------------------------------------------------------
def plan(symbols, shape_inputs=None, **attrs):
    return infer(symbols, shape_inputs, ("InferShape", "InferType", "PlanMemory"), **attrs)


def assert_plan_valid(graph):
    """No storage holds two entries whose lives overlap, except an in-place hand-over at the
    reader that kills the input; storages are big enough; variables are only written by
    ops that mutate them."""
    indexed = graph.indexed
    storage_id, inplace_from = graph.attrs["storage_id"], graph.attrs["inplace_from"]
    shapes, sizes = graph.attrs["shape"], graph.attrs["storage_size"]
    producer = [indexed.entry_node(e)[0] for e in range(indexed.num_entries)]
    last_use = list(producer)
    for nid, inputs in enumerate(indexed.input_entries):
        for e in inputs:
            last_use[e] = max(last_use[e], nid)
    for e in indexed.outputs:
        last_use[e] = math.inf
    by_storage = {}
    for e, sid in enumerate(storage_id):
        node = indexed.nodes[producer[e]]
        if sid == EXTERNAL:
            assert node.op is None or node.op.name == "assign", f"{node} writes external memory"
            continue
        assert sizes[sid] >= 4 * math.prod(shapes[e]), f"storage {sid} too small for {node}"
        by_storage.setdefault(sid, []).append(e)
    for sid, entries in by_storage.items():
        entries.sort(key=lambda e: producer[e])
        for i, first in enumerate(entries):
            for later in entries[i + 1:]:
                if last_use[first] < producer[later]:
                    continue
                assert last_use[first] == producer[later] and inplace_from.get(later) == first, (
                    f"storage {sid}: {indexed.nodes[producer[later]]} overwrites "
                    f"{indexed.nodes[producer[first]]}, which is still read")


def test_plan_memory_reuses_freed_storage():
    x = tf.placeholder(shape=(4, 4))
    ws = [nnvm.graph_input(f"W{i}") for i in range(4)]
    h = x
    for w in ws:
        h = tf.matmul(h, w)  # no in-place option: reuse comes from the refcount
    graph = plan([h], {"W0": (4, 4), "W1": (4, 4), "W2": (4, 4), "W3": (4, 4)})
    assert_plan_valid(graph)
    assert len(graph.attrs["storage_size"]) == 2 and graph.attrs["inplace_from"] == {}


def test_plan_memory_in_place_on_a_chain():
    x = tf.placeholder(shape=(8,))
    y = tf.sigmoid(tf.tanh(tf.exp(-x) + 1))
    graph = plan([y])
    assert_plan_valid(graph)
    assert len(graph.attrs["storage_size"]) == 1
    assert len(graph.attrs["inplace_from"]) == 4


def test_plan_memory_keeps_fetched_outputs_and_variables():
    x = tf.placeholder(shape=(8,))
    w = nnvm.graph_input("W")
    y = tf.exp(x * w)
    z = tf.tanh(-y)
    graph = plan([y, z], {"W": (8,)})
    assert_plan_valid(graph)
    ids, storage_id = graph.indexed, graph.attrs["storage_id"]
    y_storage = storage_id[ids.entry_id(y.outputs[0])]
    later = [e for e in range(ids.num_entries) if ids.entry_node(e)[0] > ids.node_id[y.node]]
    assert all(storage_id[e] != y_storage for e in later), "a fetched output was overwritten"
    assert storage_id[ids.entry_id(w.outputs[0])] == EXTERNAL
    assert storage_id[ids.entry_id(x.outputs[0])] == EXTERNAL
    # x * w may not run in place in either input: both are external.
    product = y.node.inputs[0]
    assert graph.attrs["inplace_from"].get(ids.entry_id(product)) is None


def test_plan_memory_without_sharing_gives_one_storage_per_entry():
    x = tf.placeholder(shape=(8,))
    w = nnvm.graph_input("W")
    y = tf.tanh(tf.exp(x * w) + 1)
    update = tf.assign(w, w - y)
    graph = plan([y, update], {"W": (8,)}, memory_sharing=False)
    assert_plan_valid(graph)
    indexed, storage_id = graph.indexed, graph.attrs["storage_id"]
    op_entries = [e for e in range(indexed.num_entries)
                  if indexed.nodes[indexed.entry_node(e)[0]].op is not None
                  and indexed.nodes[indexed.entry_node(e)[0]].op.name != "assign"]
    assert sorted(storage_id[e] for e in op_entries) == list(range(len(op_entries)))
    assert len(graph.attrs["storage_size"]) == len(op_entries)
    assert list(graph.attrs["inplace_from"]) == [indexed.entry_id(update.outputs[0])]


def test_assign_output_aliases_the_variable():
    w = nnvm.graph_input("W")
    update = tf.assign(w, tf.exp(w) * 2)
    for sharing in (True, False):
        graph = plan([update], {"W": (3,)}, memory_sharing=sharing)
        assert_plan_valid(graph)
        indexed = graph.indexed
        out, var = indexed.entry_id(update.outputs[0]), indexed.entry_id(w.outputs[0])
        assert graph.attrs["storage_id"][out] == EXTERNAL
        assert graph.attrs["inplace_from"][out] == var


def test_plan_memory_on_a_training_graph():
    x, labels = tf.placeholder(shape=(16, 10)), tf.placeholder(shape=(16, 3))
    w1, w2 = nnvm.graph_input("W1"), nnvm.graph_input("W2")
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
    loss = tf.reduce_mean(-tf.reduce_sum(labels * tf.nn.log_softmax(logits), axis=1))
    g1, g2 = tf.gradients(loss, [w1, w2])
    step = tf.group(tf.assign(w1, w1 - 0.1 * g1), tf.assign(w2, w2 - 0.1 * g2))
    graph = plan([loss, step], {"W1": (10, 8), "W2": (8, 3)})
    assert_plan_valid(graph)
    op_entries = sum(1 for s in graph.attrs["storage_id"] if s != EXTERNAL)
    assert len(graph.attrs["storage_size"]) < op_entries


# -- SaveJSON / LoadJSON ---------------------------------------------------------------------
def test_materialize_shapes_cuts_inputs_read_only_for_their_shape():
    x = tf.placeholder(shape=(None, 3), name="x")
    w = tf.Variable(tf.zeros([3, 2]), name="w")
    hidden = tf.matmul(x, w, name="hidden")
    loss = tf.reduce_mean(tf.log(hidden), name="loss")
    (grad,) = nnvm.gradients([loss], [w])
    shapes = {x.node: (5, 3), w.node: (3, 2)}
    graph = infer(grad, shapes, passes=("InferShape", "InferType"))
    kinds = [n.kind for n in graph.indexed.nodes]
    assert {"ones_like", "reduce_mean", "log"} <= set(kinds)
    result = apply_passes(graph, "MaterializeShapes")
    assert [n.kind for n in graph.indexed.nodes] == kinds, "the input graph is unchanged"
    fresh = apply_passes(Graph(result.outputs, {"shape_inputs": shapes}),
                         ["InferShape", "InferType"])
    for key in ("shape", "dtype"):  # carried to the new entry numbering, not inferred again
        assert result.attrs[key] == fresh.attrs[key]
    nodes = {n.name: n for n in result.indexed.nodes}
    # ones_like(loss) and broadcast_like(g, log(hidden)) read shapes: loss and log are not run
    assert "loss" not in nodes and not any(n.kind == "log" for n in nodes.values())
    assert shape_of(result, Symbol([NodeEntry(nodes["loss.shape"], 0)])) == ()
    assert nodes["loss.shape"].kind == "shape" and nodes["loss.shape"].op is None
    assert nodes["hidden"] is hidden.node, "nodes upstream of any change are shared"
    assert nodes["w"] is w.node and nodes["x"] is x.node
    assert shape_of(result, Symbol([result.outputs[0]])) == (3, 2)
    # fetching the loss too keeps it
    both = infer([grad, loss], shapes, passes=("InferShape", "InferType", "MaterializeShapes"))
    assert "loss" in {n.name for n in both.indexed.nodes}
    unchanged = infer(loss, shapes, passes=("InferShape", "InferType"))
    assert apply_passes(unchanged, "MaterializeShapes") is unchanged


def test_materialize_shapes_skips_ops_that_are_the_identity_at_these_shapes():
    # the gradient of h + b towards h is _collapse_sum_like(g, h): nothing was broadcast, so
    # its reader (exp's gradient) reads g itself; towards b (a (2,) row) it sums
    x = tf.placeholder(shape=(None, 2), name="x")
    b = tf.Variable(tf.zeros([2]), name="b")
    h = tf.exp(x)
    loss = tf.reduce_sum(tf.tanh(h + b))
    grad_x, grad_b = nnvm.gradients([loss], [x, b])
    shapes = {x.node: (4, 2), b.node: (2,)}
    graph = infer([grad_x, grad_b], shapes, passes=("InferShape", "InferType"))
    before = [n for n in graph.indexed.nodes if n.kind == "_collapse_sum_like"]
    assert len(before) == 2
    result = apply_passes(graph, "MaterializeShapes")
    (summed,) = [n for n in result.indexed.nodes if n.kind == "_collapse_sum_like"]
    assert shape_of(result, Symbol([NodeEntry(summed, 0)])) == (2,)
    g = summed.inputs[0]  # tanh's gradient
    assert g.node.kind == "_tanh_backward"
    assert all(n.kind != "_collapse_sum_like" for n in result.indexed.nodes
               if g in n.inputs and n is not summed)
    fresh = apply_passes(Graph(result.outputs, {"shape_inputs": shapes}),
                         ["InferShape", "InferType"])
    assert result.attrs["shape"] == fresh.attrs["shape"]
    # fetched, it stays (the plan aliases it to g instead)
    identity = next(n for n in before if n.inputs[1].node is h.node)
    fetched = infer([Symbol([NodeEntry(identity, 0)]), grad_b], shapes,
                    passes=("InferShape", "InferType", "MaterializeShapes"))
    assert sum(n.kind == "_collapse_sum_like" for n in fetched.indexed.nodes) == 2


def test_json_round_trip():
    x = tf.placeholder(shape=(None, 6), name="x")
    w = tf.Variable(tf.constant(np.full((6, 4), 0.5, np.float32)), name="W")
    y = tf.pad(tf.nn.softmax(tf.matmul(x, w), axis=-1), 1, -2)
    loss = tf.reduce_sum(tf.reshape(y, (-1,)) ** 2, axis=0, keepdims=True)
    (grad,) = tf.gradients(loss, w)
    outputs = [loss.outputs[0], grad.outputs[0]]
    graph = infer(outputs, {"x": (5, 6), "W": (6, 4)}, ("InferShape", "InferType", "PlanMemory"))
    text = apply_passes(graph, "SaveJSON").attrs["json"]
    loaded = apply_passes(Graph([], {"json": text}), "LoadJSON")
    old, new = graph.indexed, loaded.indexed
    assert new.num_nodes == old.num_nodes and new.num_entries == old.num_entries
    for a, b in zip(old.nodes, new.nodes):
        assert (a.op, a.name, a.attrs, a.source) == (b.op, b.name, b.attrs, b.source)
        assert [(old.node_id[e.node], e.index) for e in a.inputs] == \
            [(new.node_id[e.node], e.index) for e in b.inputs]
    assert new.outputs == old.outputs
    for key in ("shape", "dtype", "storage_id", "storage_size"):
        assert loaded.attrs[key] == graph.attrs[key], key
    # The loaded graph infers the same shapes again, and saves to the same text.
    again = infer(loaded.outputs, {"x": (5, 6), "W": (6, 4)})
    assert again.attrs["shape"] == graph.attrs["shape"]
    assert apply_passes(loaded, "SaveJSON").attrs["json"] == text
    with pytest.raises(GraphError, match="bad graph JSON"):
        apply_passes(Graph([], {"json": text.replace('"softmax"', '"no_such_op"')}),
                     "LoadJSON")


# -- IndexedGraph: deep graphs and execution order -------------------------------------------
def test_deep_chain_has_no_recursion_limit():
    depth = 5000
    x = tf.placeholder(shape=(2,))
    y = x
    for _ in range(depth):
        y = tf.exp(y)
    indexed = IndexedGraph(y.outputs)
    assert indexed.num_nodes == depth + 1
    assert all(indexed.node_id[n.inputs[0].node] < i
               for i, n in enumerate(indexed.nodes) if n.op is not None)
    graph = plan([y])
    assert len(graph.attrs["storage_size"]) == 1
    (grad,) = tf.gradients(y, x)
    assert IndexedGraph(grad.outputs).num_nodes > 2 * depth
    text = apply_passes(Graph(y.outputs), "SaveJSON").attrs["json"]
    assert apply_passes(Graph([], {"json": text}), "LoadJSON").indexed.num_nodes == depth + 1


@pytest.mark.parametrize("reader_first", [True, False])
def test_readers_of_a_variable_run_before_its_assign(reader_first):
    w, g = nnvm.graph_input("W"), tf.placeholder(shape=(3,))
    update = tf.assign(w, w - g)
    total = tf.reduce_sum(w)
    doubled = tf.exp(w * 2)
    after = update * 1  # reads the new value: must come after
    parts = [total, doubled, update, after] if reader_first else [update, after, doubled, total]
    graph = Graph(tf.group(*parts).outputs)
    ordered = apply_passes(graph, "OrderMutation")
    position = {n.name: i for i, n in enumerate(ordered.indexed.nodes)}
    readers = [n.name for n in ordered.indexed.nodes if any(e.node is w.node for e in n.inputs)
               and n.name != update.op.name]
    assert len(readers) == 3  # w - g, reduce_sum(w), w * 2
    assert all(position[r] < position[update.op.name] for r in readers)
    assert position[after.op.name] > position[update.op.name]
    assert update.node.control_deps == [], "the pass rebuilds the writer, never mutates it"
    if not reader_first:  # a plain post-order would run the assign first
        plain = [n.name for n in graph.indexed.nodes]
        assert plain.index(update.op.name) < plain.index(total.op.name)


def test_order_mutation_finds_no_order_for_crossed_writes():
    a, b = nnvm.graph_input("a"), nnvm.graph_input("b")
    swapped = tf.group(tf.assign(a, b * 1), tf.assign(b, a * 1))  # both products run first
    order = [n.kind for n in apply_passes(Graph(swapped.outputs), "OrderMutation").indexed.nodes]
    assert order.index("assign") > max(i for i, k in enumerate(order) if k == "__mul_scalar__")
    crossed = tf.group(tf.assign(a, b), tf.assign(b, a))  # each writer reads the other variable
    with pytest.raises(GraphError, match="cannot order the graph"):
        apply_passes(Graph(crossed.outputs), "OrderMutation")


def test_passes_do_not_import_torch():
    code = ("import sys, tinyflow as tf\n"
            "from tinyflow.nnvm import Graph, apply_passes\n"
            "x = tf.placeholder(shape=(2, 3)); w = tf.Variable(tf.zeros([3, 4]))\n"
            "loss = tf.reduce_sum(tf.nn.softmax(tf.matmul(x, w)))\n"
            "g = tf.gradients(loss, w)[0]\n"
            "shapes = {x.node: (2, 3), w.node: (3, 4)}\n"
            "graph = Graph(loss.outputs + g.outputs, {'shape_inputs': shapes})\n"
            "apply_passes(graph, ['InferShape', 'InferType', 'PlanMemory', 'SaveJSON'])\n"
            "assert 'torch' not in sys.modules and 'lupa' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_plan_memory_shares_across_shapes_only_for_a_reshape():
    # an elementwise op writing (1, 4) over its (4,) input is a partial overlap torch refuses;
    # a reshape's output is its input's elements under a new shape (FInplaceIdentity)
    x = tf.placeholder(tf.float32, [4, 4])
    y = tf.reduce_mean(x * 2., axis=0) + tf.reduce_mean(x * 3., axis=0, keepdims=True)
    flat = tf.reshape(x * 2., [16])
    value = np.arange(16, dtype=np.float32).reshape(4, 4)
    got, got_flat = tf.Session().run([y, flat], {x: value})
    np.testing.assert_allclose(got, (value * 2).mean(0) + (value * 3).mean(0, keepdims=True))
    np.testing.assert_allclose(got_flat, (value * 2).reshape(16))
    graph = Graph([y.outputs[0], flat.outputs[0]], {"shape_inputs": {x.node: (4, 4)}})
    graph = apply_passes(graph, ["InferShape", "InferType", "PlanMemory"])
    shapes, pairs = graph.attrs["shape"], graph.attrs["inplace_from"]
    ops = {graph.indexed.nodes[graph.indexed.entry_node(o)[0]].op.name: (shapes[i], shapes[o])
           for o, i in pairs.items()}
    assert ops["reshape"] == ((4, 4), (16,))
    assert ops["elemwise_add"] == ((1, 4), (1, 4))  # the keepdims mean, not the (4,) one
