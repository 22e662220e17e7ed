"""tinyflow.frontend.viz: DOT text for forward and gradient graphs, shapes, memory plan,
rendering."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tinyflow as tf
from tinyflow.frontend import viz
from tinyflow.nnvm import ShapeError

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _softmax_model():
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    W = tf.Variable(tf.zeros([784, 10]), name="W")
    y = tf.nn.softmax(tf.matmul(x, W), name="y")
    y_ = tf.placeholder(tf.float32, [None, 10], name="y_")
    loss = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]), name="loss")
    return x, y_, W, loss


def _nodes(dot):
    """``{node id: label}`` of the DOT text."""
    return dict(re.findall(r'^  (n\d+) \[label="([^"]*)"', dot, flags=re.MULTILINE))


def _edges(dot):
    pattern = r'^  (n\d+) -> (n\d+)(?: \[label="([^"]*)"\])?;'
    return re.findall(pattern, dot, flags=re.MULTILINE)


def test_every_node_appears_with_name_and_op():
    *_, loss = _softmax_model()
    dot = viz.to_dot(loss)
    assert dot.startswith("digraph")
    labels = _nodes(dot)
    assert sorted(label.split("\\n")[0] for label in labels.values()) == sorted(
        ["x", "y_", "W", "MatMul", "y", "Log", "mul", "Sum", "Neg", "loss"])  # TF's names
    by_name = {label.split("\\n")[0]: label for label in labels.values()}
    assert by_name["x"] == "x\\nplaceholder" and by_name["W"] == "W\\nvariable"
    assert by_name["y"] == "y\\nsoftmax" and by_name["loss"] == "loss\\nreduce_mean"
    styles = {name: re.search(rf'label="{re.escape(by_name[name])}", ([^\]]*)\]', dot).group(1)
              for name in ("x", "W", "y", "loss")}
    assert len({styles[n] for n in ("x", "W", "y")}) == 3  # placeholder, variable, op differ
    assert styles["loss"] == styles["y"] + ", peripheries=2"  # the fetched node stands out
    assert len(_edges(dot)) == 9 and all(label == "" for *_, label in _edges(dot))
    assert dot.rstrip().endswith("}")


def test_edges_carry_inferred_shapes():
    x, _, _, loss = _softmax_model()
    dot = viz.to_dot(loss, shapes={x: (100, 784), "y_": (100, 10)})
    ids = {label.split("\\n")[0]: node for node, label in _nodes(dot).items()}
    edges = {(a, b): label for a, b, label in _edges(dot)}
    assert edges[ids["x"], ids["MatMul"]] == "(100, 784)"
    assert edges[ids["W"], ids["MatMul"]] == "(784, 10)"  # from the variable's initialiser
    assert edges[ids["Sum"], ids["Neg"]] == "(100,)"
    assert "shape ()" in _nodes(dot)[ids["loss"]]  # the fetched output's own shape


def test_gradient_graph_with_memory_plan():
    x, y_, W, loss = _softmax_model()
    (grad,) = tf.gradients(loss, [W])
    dot = viz.to_dot([loss, grad], shapes={x: (100, 784), y_: (100, 10)}, plan=True)
    labels = _nodes(dot)
    ops = [label for label in labels.values()
           if not label.split("\\n")[1] in ("placeholder", "variable")]
    assert ops and all(re.search(r"\\nstorage \d+", label) for label in ops)
    assert any("_softmax_backward" in label for label in labels.values())
    assert any(re.search(r"storage \d+ in-place on \w+", label) for label in labels.values())
    storage_ids = [int(s) for s in re.findall(r"storage (\d+)", dot)]
    assert len(set(storage_ids)) < len(storage_ids)  # entries share memory
    assert re.search(r'label="memory plan: \d+ storages', dot)


def test_assign_output_is_shown_as_the_variable():
    W = tf.Variable(tf.zeros([2, 3]), name="W")
    step = tf.assign(W, W * 0.5, name="step")
    labels = _nodes(viz.to_dot(step, shapes={}, plan=True)).values()
    assert "step\\nassign\\nshape (2, 3)\\nvariable W" in labels


def test_bad_arguments():
    *_, loss = _softmax_model()
    with pytest.raises(ValueError, match="shapes"):
        viz.to_dot(loss, plan=True)
    with pytest.raises(ShapeError, match=r"cannot plan memory: the shape of x, MatMul"):
        viz.to_dot(loss, shapes={"y_": (1, 10)}, plan=True)
    with pytest.raises(TypeError):
        viz.to_dot("loss")


def test_names_are_quoted():
    a = tf.placeholder(tf.float32, [2], name='say "hi"\\')
    dot = viz.to_dot(a * 2)
    assert r'label="say \"hi\"\\\nplaceholder"' in dot


def test_building_and_drawing_does_not_import_torch():
    code = (
        "import sys\n"
        "import tinyflow as tf\n"
        "import tinyflow.frontend.viz\n"
        "x = tf.placeholder(tf.float32, [None, 4])\n"
        "W = tf.Variable(tf.zeros([4, 2]))\n"
        "loss = tf.reduce_sum(tf.nn.softmax(tf.matmul(x, W)))\n"
        "dot = tinyflow.frontend.viz.to_dot(tf.gradients(loss, [W]), shapes={x: (3, 4)},\n"
        "                                   plan=True)\n"
        "assert dot.startswith('digraph')\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_docs_example_is_what_to_dot_prints():
    page = (Path(__file__).resolve().parent.parent / "docs" / "graph_pictures.md").read_text()
    code = re.findall(r"```python\n(.*?)```", page, flags=re.DOTALL)[0]
    dots = re.findall(r"```dot\n(.*?)```", page, flags=re.DOTALL)
    printed = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                             text=True, timeout=60).stdout
    assert len(dots) == 2 and printed == "".join(d + "\n" for d in dots)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_render_svg(tmp_path):
    x, y_, _, loss = _softmax_model()
    path = viz.render(viz.to_dot(loss, shapes={x: (1, 784), y_: (1, 10)}), tmp_path / "g.svg")
    assert "<svg" in path.read_text()
    with pytest.raises(RuntimeError, match="dot"):
        viz.render("digraph {", tmp_path / "bad.svg")


def test_render_without_graphviz_says_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="install graphviz"):
        viz.render("digraph {}", tmp_path / "g.svg")
