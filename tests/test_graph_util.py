"""tf.GraphDef (graph.as_graph_def, sess.graph_def), tf.graph_util.convert_variables_to_constants
and extract_sub_graph, tf.import_graph_def (input_map, return_elements, name) and
tf.train.write_graph on TinyFlow's graph format: frozen graphs written, read back and run in a
fresh graph, against numpy; untrusted graph defs refused with the graph left as it was."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")
RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3)).astype(np.float32)


def _mlp():
    """A trained-looking model: x -> relu(x @ w1 + b1) @ w2 + b2, and its training op."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w1 = tf.get_variable("w1", [3, 5])
    b1 = tf.get_variable("b1", [5], initializer=tf.constant_initializer(0.1))
    w2 = tf.get_variable("w2", [5, 2])
    b2 = tf.Variable([0.5, -0.5], name="b2")
    y = tf.add(tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2), b2, name="y")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y * y), name="train")
    return x, y, train, [w1, b1, w2, b2]


def _numpy_mlp(x, w1, b1, w2, b2):
    return np.maximum(x @ w1 + b1, 0) @ w2 + b2


@pytest.mark.parametrize("as_text", [False, True])
def test_freeze_write_read_import_run(tmp_path, as_text):
    x, _, train, variables = _mlp()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: X})  # the values frozen are the trained ones
        values = sess.run(variables)
        frozen = tf.graph_util.convert_variables_to_constants(sess, sess.graph_def, ["y"])
    ops = {n.name: n.op for n in frozen.node}
    assert {ops[v] for v in ("w1", "b1", "w2", "b2")} == {"Const"}
    assert "VariableV2" not in ops.values() and "train" not in ops  # only what y needs
    path = tf.train.write_graph(frozen, str(tmp_path / "model"), "frozen.pb", as_text=as_text)
    assert path == str(tmp_path / "model" / "frozen.pb") and os.path.isfile(path)
    with open(path) as written:
        assert written.read().startswith("{\n") == as_text

    tf.reset_default_graph()
    graph_def = tf.GraphDef()
    with tf.gfile.GFile(path, "rb") as f:
        graph_def.ParseFromString(f.read())
    with tf.Graph().as_default() as graph:
        tf.import_graph_def(graph_def, name="frozen")
        assert graph.get_collection("variables") == []
        with tf.Session() as sess:
            got = sess.run("frozen/y:0", {"frozen/x:0": X})
    np.testing.assert_allclose(got, _numpy_mlp(X, *values), rtol=1e-5, atol=1e-6)


def test_import_input_map_return_elements_and_names():
    _mlp()
    graph_def = tf.get_default_graph().as_graph_def()
    tf.reset_default_graph()
    z = tf.placeholder(tf.float32, [4, 3], name="z")
    out, step = tf.import_graph_def(graph_def, input_map={"x:0": z * 2.0},
                                    return_elements=["y:0", "train"])
    assert out.name == "import/y:0" and step.name == "import/train"
    assert out.get_shape().as_list() == [4, 2]
    assert tf.import_graph_def(graph_def) is None  # a second import: import_1/
    graph = tf.get_default_graph()
    assert "import_1/y" in graph.nodes_by_name and "import/x" in graph.nodes_by_name
    with tf.Session() as sess:
        sess.run([graph.get_operation_by_name(f"import/{v}/Assign")
                  for v in ("w1", "b1", "w2", "b2")])
        w1, b1, w2, b2 = sess.run([f"import/{v}:0" for v in ("w1", "b1", "w2", "b2")])
        np.testing.assert_allclose(sess.run(out, {z: X}), _numpy_mlp(X * 2, w1, b1, w2, b2),
                                   rtol=1e-5, atol=1e-6)
        sess.run(step, {z: X})  # the imported training step writes the imported variables
        assert not np.allclose(sess.run("import/w1:0"), w1)


def test_freeze_lists_and_loops():
    v = tf.Variable([1.0, 2.0], name="v")
    kept = tf.Variable(3.0, name="kept")
    x = tf.placeholder(tf.float32, [2], name="x")
    _, total = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + v * x),
                             [tf.constant(0), tf.zeros([2])])
    out = tf.identity(total * kept, name="out")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        frozen = tf.graph_util.convert_variables_to_constants(
            sess, sess.graph_def, ["out"], variable_names_blacklist=["kept"])
        only_v = tf.graph_util.convert_variables_to_constants(
            sess, sess.graph_def, ["out"], variable_names_whitelist=["kept"])
    ops = {n.name: n.op for n in frozen.node}
    assert ops["v"] == "Const" and ops["kept"] == "VariableV2"
    assert {n.name: n.op for n in only_v.node}["v"] == "VariableV2"
    tf.reset_default_graph()
    out, = tf.import_graph_def(frozen, name="", return_elements=["out:0"])
    with tf.Session() as sess:  # kept/Assign is not what out needs: kept is fed
        got = sess.run(out, {"x:0": [1.0, -1.0], "kept:0": 3.0})
    np.testing.assert_allclose(got, np.array([1.0, 2.0]) * [1.0, -1.0] * 3 * 3.0)


def test_extract_sub_graph():
    _mlp()
    graph_def = tf.get_default_graph().as_graph_def()
    sub = tf.graph_util.extract_sub_graph(graph_def, ["y"])
    names = {n.name for n in sub.node}
    assert {"x", "w1", "b1", "w2", "b2", "y"} <= names and "train" not in names
    with pytest.raises(AssertionError, match="nope is not in graph"):
        tf.graph_util.extract_sub_graph(graph_def, ["nope"])
    with pytest.raises(TypeError, match="dest_nodes must be a list"):
        tf.graph_util.extract_sub_graph(graph_def, "y")
    node = {n.name: n for n in graph_def.node}["y"]
    assert node.op == "AddV2" and len(node.input) == 2


def test_errors_leave_the_graph_as_it_was():
    _mlp()
    graph_def = tf.get_default_graph().as_graph_def()
    tf.reset_default_graph()
    tf.constant(1.0, name="c")
    graph = tf.get_default_graph()
    before = dict(graph.nodes_by_name)
    with pytest.raises(ValueError, match="Requested return_element 'nope:0' not found"):
        tf.import_graph_def(graph_def, return_elements=["nope:0"])
    with pytest.raises(ValueError, match=r"not found in graph_def: \['nope:0'\]"):
        tf.import_graph_def(graph_def, input_map={"nope:0": tf.zeros([1, 3])})
    with pytest.raises(ValueError, match="x:0 is float32 in the graph def, but it was given"):
        tf.import_graph_def(graph_def, input_map={"x:0": tf.zeros([1, 3], tf.int32)})
    with pytest.raises(TypeError, match="input_map must be a dictionary"):
        tf.import_graph_def(graph_def, input_map={"x:0": np.zeros((1, 3))})
    with pytest.raises(TypeError, match="graph_def must be a GraphDef"):
        tf.import_graph_def(str(graph_def))
    tf.import_graph_def(graph_def, name="")
    again = dict(graph.nodes_by_name)
    with pytest.raises(tf.GraphError, match="already has a node named"):
        tf.import_graph_def(graph_def, name="")
    assert graph.nodes_by_name == again and set(before) <= set(again)


@pytest.mark.parametrize("data, problem", [
    (b"\x00\xff not json", "not TinyFlow's graph format"),
    (b"{not json", "does not parse"),
    (json.dumps({"nodes": [{"op": "no_such_op", "name": "a", "inputs": []}],
                 "heads": []}).encode(), "no_such_op"),
    (json.dumps({"nodes": [{"op": "constant", "name": "a", "inputs": [],
                            "attrs": {"source": "os.system('x')"}}], "heads": []}).encode(),
     "holds code"),
    (json.dumps({"nodes": [{"op": "relu", "name": "a", "inputs": [[5, 0]]}],
                 "heads": []}).encode(), "input"),
])
def test_untrusted_graph_defs_are_refused(data, problem):
    graph_def = tf.GraphDef()
    with pytest.raises(tf.GraphError, match=problem):
        graph_def.ParseFromString(data)
    assert graph_def.node == []  # left empty
    with pytest.raises(TypeError, match="takes bytes"):
        graph_def.ParseFromString(12)


def test_freeze_needs_initialised_variables_and_writable_graphs():
    x = _mlp()[0]
    with tf.Session() as sess, pytest.raises(tf.nnvm.errors.BindError,
                                             match="'w1' .* is read before it is initialised"):
        tf.graph_util.convert_variables_to_constants(sess, sess.graph_def, ["y"])
    tf.py_func(lambda a: a, [x], tf.float32)
    with pytest.raises(tf.GraphError, match="cannot write the graph def"):
        tf.get_default_graph().as_graph_def()
    with pytest.raises(AttributeError, match="tf.graph_util.remove_training_nodes is not "
                                             "supported"):
        tf.graph_util.remove_training_nodes  # noqa: B018
