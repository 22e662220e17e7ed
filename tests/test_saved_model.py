"""tf.saved_model: a model exported and loaded back, against the values it computed before the
export (and numpy's), and TensorFlow 1.15's behaviour and messages as real TensorFlow (2.21's
tf.compat.v1) gave them.

tests/data/tf_saved_model/ was written by real TensorFlow 2.21 (tf.compat.v1.saved_model.
simple_save of y = relu(x @ w + b), w = arange(6).reshape(3, 2), b = [0.5, -1]).  By hand,
real TensorFlow's tf.train.load_checkpoint read the variables of a TinyFlow saved model
(variables/variables: w and b, their values) and its loader refused the directory with
"SavedModel file does not exist at: .../{saved_model.pbtxt|saved_model.pb}".
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.saved_model import loader
from tinyflow.frontend.saver import CheckpointError
from tinyflow.nnvm.errors import GraphError

TF_WRITTEN = os.path.join(os.path.dirname(__file__), "data", "tf_saved_model")
W = np.arange(6, dtype=np.float32).reshape(3, 2)
B = np.array([0.5, -1.0], np.float32)
X = np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 1.0]], np.float32)


def reference(x):
    return np.maximum(x @ W + B, 0)


def build_model():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(W, name="w")
    b = tf.Variable(B, name="b")
    return x, tf.nn.relu(tf.matmul(x, w) + b, name="y")


def export(path, **kwargs):
    """A model exported with simple_save from a graph of its own; what it computed on X."""
    with tf.Graph().as_default():
        x, y = build_model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            before = sess.run(y, {x: X})
            tf.saved_model.simple_save(sess, path, inputs={"x": x}, outputs={"y": y}, **kwargs)
    return before


def node_names(graph):
    return sorted(graph.nodes_by_name)


def test_simple_save_then_load_runs_the_signature_in_a_fresh_session(tmp_path):
    path = str(tmp_path / "model")
    before = export(path)
    np.testing.assert_allclose(before, reference(X), rtol=1e-6)
    assert sorted(os.listdir(path)) == ["saved_model.json", "variables"]
    assert sorted(os.listdir(os.path.join(path, "variables"))) == [
        "variables.data-00000-of-00001", "variables.index"]
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], path)
        assert meta.meta_info_def.tags == ["serve"]
        assert [v.name for v in meta.collection_def["trainable_variables"]] == ["w:0", "b:0"]
        signature = meta.signature_def["serving_default"]
        assert signature.method_name == "tensorflow/serving/predict"
        assert signature.inputs["x"].name == "x:0" and signature.outputs["y"].name == "y:0"
        y = sess.graph.get_tensor_by_name(signature.outputs["y"].name)
        x = sess.graph.get_tensor_by_name(signature.inputs["x"].name)
        np.testing.assert_array_equal(sess.run(y, {x: X}), before)
        # the restored variables are the saved ones
        np.testing.assert_array_equal(sess.run(sess.graph.get_tensor_by_name("w:0")), W)
        np.testing.assert_array_equal(sess.run("b:0"), B)


def test_the_signature_as_tensorflow_prints_it(tmp_path):
    path = str(tmp_path / "model")
    export(path)
    with tf.Graph().as_default(), tf.Session() as sess:
        signature = tf.saved_model.load(sess, ["serve"], path).signature_def["serving_default"]
    # real TensorFlow's str() of the same model's signature (dims of x: [-1, 3], y: [-1, 2])
    dims = {"x": (-1, 3), "y": (-1, 2)}
    expected = "".join(
        f'{field} {{\n  key: "{key}"\n  value {{\n    name: "{key}:0"\n    dtype: DT_FLOAT\n'
        f"    tensor_shape {{\n" + "".join(f"      dim {{\n        size: {d}\n      }}\n"
                                        for d in dims[key]) + "    }\n  }\n}\n"
        for field, key in (("inputs", "x"), ("outputs", "y"))) + \
        'method_name: "tensorflow/serving/predict"\n'
    assert str(signature) == expected
    assert signature.inputs["x"].dtype == 1  # TF's DT_FLOAT


def test_a_fresh_process_loads_the_model_and_computes_the_same_values(tmp_path):
    path = str(tmp_path / "model")
    before = export(path)
    script = tmp_path / "serve.py"
    script.write_text(textwrap.dedent(f"""
        import json, sys
        import numpy as np
        import tinyflow as tf
        with tf.Session(graph=tf.Graph()) as sess:
            meta = tf.saved_model.loader.load(sess, ["serve"], {path!r})
            sig = meta.signature_def[tf.saved_model.signature_constants
                                     .DEFAULT_SERVING_SIGNATURE_DEF_KEY]
            out = sess.run(sig.outputs["y"].name,
                           {{sig.inputs["x"].name: np.array({X.tolist()!r}, np.float32)}})
        print(json.dumps(out.tolist()))
    """))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [os.path.dirname(os.path.dirname(tf.__file__)), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, check=False, env=env)
    assert done.returncode == 0, done.stderr
    np.testing.assert_array_equal(np.array(json.loads(done.stdout.splitlines()[-1]),
                                           np.float32), before)


def test_a_trained_model_serves_the_trained_values(tmp_path):
    path = str(tmp_path / "model")
    rng = np.random.default_rng(0)
    data, target = rng.normal(size=(32, 3)).astype(np.float32), rng.normal(size=(32, 1))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        t = tf.placeholder(tf.float32, [None, 1], name="t")
        prediction = tf.layers.dense(x, 1, name="dense")
        loss = tf.reduce_mean(tf.square(prediction - t))
        step = tf.train.AdamOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(5):
                sess.run(step, {x: data, t: target})
            kernel, bias, before = sess.run(["dense/kernel:0", "dense/bias:0", prediction],
                                            {x: data})
            builder = tf.saved_model.builder.SavedModelBuilder(path)
            builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={
                "predict": tf.saved_model.signature_def_utils.predict_signature_def(
                    {"x": x}, {"p": prediction})})
            assert builder.save() == os.path.join(path, "saved_model.json").encode()
    reader = tf.train.load_checkpoint(os.path.join(path, "variables", "variables"))
    np.testing.assert_array_equal(reader.get_tensor("dense/kernel"), kernel)
    assert "dense/kernel/Adam" in reader.get_variable_to_shape_map()  # all global variables
    with tf.Session(graph=tf.Graph()) as sess:
        signature = tf.saved_model.loader.load(sess, ["serve"], path).signature_def["predict"]
        served = sess.run(signature.outputs["p"].name, {signature.inputs["x"].name: data})
    np.testing.assert_array_equal(served, before)
    np.testing.assert_allclose(served, data @ kernel + bias, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# TensorFlow's errors


def test_an_existing_export_dir_is_tensorflows_assertion_error(tmp_path):
    path = str(tmp_path / "model")
    export(path)
    # real TensorFlow 2.21's compat.v1 text
    with pytest.raises(AssertionError, match=f"^Export directory {path} already exists, and "
                       f"isn't empty. Please choose a different export directory, or delete "
                       f"all the contents of the specified directory.$"):
        export(path)
    empty = tmp_path / "empty"
    empty.mkdir()
    export(str(empty))  # an empty one is taken, as TensorFlow's
    assert tf.saved_model.maybe_saved_model_directory(str(empty))


def test_tags_must_match_with_tensorflows_runtime_error(tmp_path):
    path = str(tmp_path / "model")
    export(path)
    with tf.Graph().as_default() as graph, tf.Session() as sess:
        # real TensorFlow's text
        with pytest.raises(RuntimeError, match=r"^MetaGraphDef associated with tags 'train' "
                           r"could not be found in SavedModel, with available tags "
                           r"'\[\{'serve'\}\]'. To inspect available tag-sets in the "
                           r"SavedModel, please use the SavedModel CLI: `saved_model_cli`.$"):
            tf.saved_model.loader.load(sess, ["train"], path)
        assert node_names(graph) == []


def test_a_missing_saved_model_is_tensorflows_os_error(tmp_path):
    with tf.Session(graph=tf.Graph()) as sess, pytest.raises(
            OSError, match="^SavedModel file does not exist at: "):
        tf.saved_model.loader.load(sess, ["serve"], str(tmp_path / "nothing"))
    assert not tf.saved_model.loader.maybe_saved_model_directory(str(tmp_path))


def test_a_directory_tensorflow_wrote_is_refused_saying_why(tmp_path):
    assert tf.saved_model.maybe_saved_model_directory(TF_WRITTEN)
    with tf.Graph().as_default() as graph, tf.Session() as sess:
        with pytest.raises(loader.SavedModelError, match="written by TensorFlow "
                           r"\(saved_model.pb.*TensorFlow's GraphDef is not supported"):
            tf.saved_model.loader.load(sess, ["serve"], TF_WRITTEN)
        assert node_names(graph) == []
    # what the message offers: its variables, as TensorFlow wrote them
    reader = tf.train.load_checkpoint(os.path.join(TF_WRITTEN, "variables", "variables"))
    np.testing.assert_array_equal(reader.get_tensor("w"), W)
    np.testing.assert_array_equal(reader.get_tensor("b"), B)


def test_builder_order_and_tag_sets_as_tensorflows(tmp_path):
    path = str(tmp_path / "model")
    with tf.Graph().as_default():
        x, y = build_model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            builder = tf.saved_model.Builder(path)
            with pytest.raises(AssertionError, match=r"^Graph state including variables and "
                               r"assets has not been saved yet. Please invoke "
                               r"`add_meta_graph_and_variables\(\)` first.$"):  # TF's text
                builder.add_meta_graph(["train"])
            builder.add_meta_graph_and_variables(sess, ["serve"])
            with pytest.raises(AssertionError, match=r"^Graph state including variables and "
                               r"assets has already been saved. Please invoke "
                               r"`add_meta_graph\(\)` instead.$"):
                builder.add_meta_graph_and_variables(sess, ["serve"])
            info = tf.saved_model.utils.build_tensor_info
            builder.add_meta_graph(["train", "gpu"], signature_def_map={
                "k": tf.saved_model.build_signature_def({"x": info(x)}, {"y": info(y)}, "m")})
            builder.save()
    with tf.Session(graph=tf.Graph()) as sess:  # a tag set matches in any order
        meta = tf.saved_model.loader.load(sess, ["gpu", "train"], path)
        signature = meta.signature_def["k"]
        assert not tf.saved_model.is_valid_signature(signature)  # method "m": TF's False
        y = tf.saved_model.utils.get_tensor_from_tensor_info(signature.outputs["y"],
                                                              sess.graph)
        np.testing.assert_allclose(sess.run(y, {"x:0": X}), reference(X), rtol=1e-6)
    with tf.Session(graph=tf.Graph()) as sess:
        assert tf.saved_model.loader.load(sess, ["serve"], path).signature_def == {}


def test_signature_helpers_as_tensorflows(tmp_path):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, name="x")
        y = tf.identity(x * 2.0, name="y")
        # real TensorFlow's text of build_tensor_info(x), x of unknown rank
        assert str(tf.saved_model.build_tensor_info(x)) == (
            'name: "x:0"\ndtype: DT_FLOAT\ntensor_shape {\n  unknown_rank: true\n}\n')
        for inputs, outputs, which in (({"x": x}, None, "outputs"), (None, {"y": y}, "inputs"),
                                       ({}, {"y": y}, "inputs")):
            with pytest.raises(ValueError, match=f"^Prediction `{which}` cannot be None or "
                               f"empty.$"):
                tf.saved_model.predict_signature_def(inputs, outputs)
        signature = tf.saved_model.predict_signature_def({"x": x}, {"y": y})
        assert tf.saved_model.is_valid_signature(signature)
        assert str(tf.saved_model.build_signature_def()) == ""  # TF's: an empty proto
        with pytest.raises(TypeError, match="build_tensor_info takes a tensor"):
            tf.saved_model.build_tensor_info(3.0)
        with pytest.raises(TypeError, match="signature_def_map maps keys to SignatureDefs"):
            tf.saved_model.builder.SavedModelBuilder(str(tmp_path)).add_meta_graph_and_variables(
                tf.Session(), ["serve"], signature_def_map={"k": "not a signature"})


def test_main_op_runs_after_the_restore(tmp_path):
    path = str(tmp_path / "model")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        scale = tf.Variable(3.0, name="scale")
        seen = tf.Variable(7.0, name="seen", trainable=False,
                           collections=[tf.GraphKeys.LOCAL_VARIABLES])
        y = tf.multiply(x * scale, seen, name="y")
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            sess.run(tf.assign(seen, 100.0))  # a local value the export does not keep
            tf.saved_model.simple_save(sess, path, {"x": x}, {"y": y},
                                       legacy_init_op=tf.saved_model.main_op.main_op())
    reader = tf.train.load_checkpoint(os.path.join(path, "variables", "variables"))
    assert list(reader.get_variable_to_shape_map()) == ["scale"]  # no local variable
    with tf.Session(graph=tf.Graph()) as sess:
        tf.saved_model.loader.load(sess, ["serve"], path)
        np.testing.assert_array_equal(sess.run("y:0", {"x:0": [1.0, 2.0]}), [21.0, 42.0])


def test_unsupported_names_say_so(tmp_path):
    with pytest.raises(AttributeError, match="tf.saved_model.save is TensorFlow 1.15's, but "
                       "TinyFlow does not have it"):
        tf.saved_model.save  # noqa: B018
    with pytest.raises(ValueError, match="assets_collection is not supported"), \
            tf.Graph().as_default():
        x, _ = build_model()
        tf.saved_model.builder.SavedModelBuilder(str(tmp_path)).add_meta_graph_and_variables(
            tf.Session(), ["serve"], assets_collection=[x])
    assert os.listdir(tmp_path) == []  # nothing written


# ---------------------------------------------------------------------------
# An untrusted directory: clear errors, the session and its graph as they were


def edit_document(path, change):
    file = os.path.join(path, "saved_model.json")
    with open(file) as handle:
        doc = json.load(handle)
    change(doc)
    with open(file, "w") as handle:
        json.dump(doc, handle)


def meta_graph(doc):
    return doc["meta_graphs"][0]


def _unknown_tensor(doc):
    meta_graph(doc)["signature_def"]["serving_default"]["outputs"]["y"]["name"] = "nothere:0"


def _code_attribute(doc):
    graph = json.loads(meta_graph(doc)["meta_graph"]["graph"])
    # a Lua body for the node (an op's body is its registration's; a document's is refused)
    graph["nodes"][-1]["attrs"]["source"] = "function() return os.exit(3) end"
    meta_graph(doc)["meta_graph"]["graph"] = json.dumps(graph)


@pytest.mark.parametrize(("change", "problem"), [
    (lambda doc: doc.update(tinyflow_saved_model=2), "not a TinyFlow saved model"),
    (lambda doc: doc.update(meta_graphs={}), "'meta_graphs' is not a list"),
    (lambda doc: meta_graph(doc).update(tags="serve"), "meta graph 0's tags"),
    (lambda doc: meta_graph(doc).pop("meta_graph"), "'meta_graph' is not an object"),
    (_unknown_tensor, "'nothere:0' is no tensor of the graph"),
    (lambda doc: meta_graph(doc)["signature_def"]["serving_default"]["inputs"]["x"].update(
        name="x:\u00b2"), "is no tensor of the graph"),
    (lambda doc: meta_graph(doc)["signature_def"]["serving_default"]["inputs"]["x"].update(
        name="x:" + "9" * 5000), "is no tensor of the graph"),
    (lambda doc: meta_graph(doc)["signature_def"]["serving_default"]["inputs"]["x"].update(
        tensor_shape=[3, "big"]), "'tensor_shape' is neither null nor a list of sizes"),
    (_code_attribute, "holds code"),
    (lambda doc: meta_graph(doc)["meta_graph"].update(graph="{"), "does not parse"),
])
def test_a_malformed_document_is_a_clear_error_and_changes_nothing(tmp_path, change, problem):
    path = str(tmp_path / "model")
    export(path)
    edit_document(path, change)
    with tf.Graph().as_default() as graph, tf.Session() as sess:
        with tf.name_scope("mine"):  # no name the import takes (it refuses a clash)
            kept = tf.Variable(1.0, name="kept")
        sess.run(kept.initializer)
        names = node_names(graph)
        with pytest.raises(loader.SavedModelError, match=problem) as caught:
            tf.saved_model.loader.load(sess, ["serve"], path)
        assert path in str(caught.value)
        assert node_names(graph) == names and sess.run(kept) == 1.0


@pytest.mark.parametrize("text", [b"\xff\xfe not json", b"[" * 100000, b"null", b""])
def test_a_corrupt_document_is_a_clear_error(tmp_path, text):
    path = tmp_path / "model"
    export(str(path))
    (path / "saved_model.json").write_bytes(text)
    with tf.Session(graph=tf.Graph()) as sess, pytest.raises(loader.SavedModelError,
                                                             match=str(path)):
        tf.saved_model.loader.load(sess, ["serve"], str(path))


def test_a_document_over_the_limits_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = str(tmp_path / "model")
    export(path)
    monkeypatch.setattr(loader, "MAX_DOCUMENT_BYTES", 100)
    with tf.Session(graph=tf.Graph()) as sess, pytest.raises(loader.SavedModelError,
                                                             match="at most 100 are read"):
        tf.saved_model.loader.load(sess, ["serve"], path)


def test_corrupt_variables_are_a_checkpoint_error_and_change_nothing(tmp_path):
    path = str(tmp_path / "model")
    export(path)
    data = os.path.join(path, "variables", "variables.data-00000-of-00001")
    with open(data, "r+b") as file:
        file.write(b"\x7f\x7f\x7f\x7f")
    with tf.Graph().as_default() as graph, tf.Session() as sess:
        with pytest.raises(CheckpointError, match="crc32c|checksum"):
            tf.saved_model.loader.load(sess, ["serve"], path)
        assert node_names(graph) == []
    os.unlink(data)
    with tf.Session(graph=tf.Graph()) as sess, pytest.raises(CheckpointError):
        tf.saved_model.loader.load(sess, ["serve"], path)


def test_loading_twice_into_one_graph_names_the_clash(tmp_path):
    path = str(tmp_path / "model")
    export(path)
    with tf.Graph().as_default() as graph, tf.Session() as sess:
        tf.saved_model.loader.load(sess, ["serve"], path)
        names = node_names(graph)
        with pytest.raises(GraphError, match="already has a node named"):
            tf.saved_model.loader.load(sess, ["serve"], path)
        assert node_names(graph) == names


# ---------------------------------------------------------------------------
# tf.estimator's export (TF 1.15's estimator code read for the rules and messages; real
# TensorFlow 2.21 no longer has tf.estimator to run)


def linear_model_fn(features, labels, mode):
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    prediction = tf.matmul(features["x"], w) + b
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": prediction,
                                                             "twice": prediction * 2})
    loss = tf.reduce_mean(tf.square(prediction - labels))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def trained_estimator(model_dir, model_fn=linear_model_fn):
    rng = np.random.default_rng(1)
    data = rng.normal(size=(16, 3)).astype(np.float32)
    target = (data @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype(np.float32)
    estimator = tf.estimator.Estimator(model_fn, model_dir=str(model_dir))
    estimator.train(tf.estimator.inputs.numpy_input_fn({"x": data}, target, batch_size=8,
                                                       shuffle=False), steps=3)
    return estimator


def serving_fn():
    with tf.Graph().as_default():  # only the feature's dtype, shape and name are taken
        feature = tf.placeholder(tf.float32, [7, 3], name="x")
    return tf.estimator.export.build_raw_serving_input_receiver_fn({"x": feature})


@pytest.mark.filterwarnings("ignore:no meta graph")  # numpy_input_fn's iterator: no .meta
def test_an_estimator_exports_the_checkpoints_model_for_serving(tmp_path):
    estimator = trained_estimator(tmp_path / "model")
    base = tmp_path / "export"
    exported = estimator.export_saved_model(str(base), serving_fn())
    assert isinstance(exported, bytes)
    assert os.listdir(base) == [os.path.basename(exported.decode())]  # no temp- folder left
    assert os.path.basename(exported).isdigit()
    values = tf.train.load_checkpoint(str(tmp_path / "model"))
    w, b = values.get_tensor("w"), values.get_tensor("b")
    assert abs(w).sum() > 0  # trained
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], exported)
        assert list(meta.signature_def) == ["serving_default"]
        signature = meta.signature_def["serving_default"]
        assert signature.inputs["x"].tensor_shape.sizes() == [-1, 3]  # the batch: any size
        assert sorted(signature.outputs) == ["twice", "y"]
        y, twice = sess.run([signature.outputs["y"].name, signature.outputs["twice"].name],
                            {signature.inputs["x"].name: data})
    np.testing.assert_allclose(y, data @ w + b, rtol=1e-5)
    np.testing.assert_allclose(twice, 2 * (data @ w + b), rtol=1e-5)
    predicted = list(estimator.predict(tf.estimator.inputs.numpy_input_fn(
        {"x": data}, batch_size=4, shuffle=False)))
    np.testing.assert_array_equal(y[:, 0], [p["y"][0] for p in predicted])


def test_export_errors_as_tensorflows(tmp_path):
    untrained = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path / "none"))
    with pytest.raises(ValueError, match="^Couldn't find trained model at "):
        untrained.export_savedmodel(str(tmp_path / "export"), serving_fn())
    with pytest.raises(ValueError, match="^An input_receiver_fn must be defined.$"):
        untrained.export_saved_model(str(tmp_path / "export"), None)
    assert not os.path.exists(tmp_path / "export")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        with pytest.raises(ValueError, match="^features must be defined.$"):
            tf.estimator.export.ServingInputReceiver(None, x)
        with pytest.raises(ValueError, match="^receiver_tensor x must be a Tensor or "
                           "SparseTensor.$"):
            tf.estimator.export.ServingInputReceiver(x, {"x": 3.0})
        receiver = tf.estimator.export.ServingInputReceiver(x, x)
        assert receiver.features == {"feature": x} and receiver.receiver_tensors == {"input": x}
        assert tf.estimator.export.TensorServingInputReceiver(x, x).features is x
        assert tf.estimator.export.PredictOutput(x).outputs == {"output": x}
    with pytest.raises(AttributeError, match="tf.estimator.export.ClassificationOutput is "
                       "not supported"):
        tf.estimator.export.ClassificationOutput  # noqa: B018


@pytest.mark.filterwarnings("ignore:no meta graph")
def test_several_export_outputs_need_a_default(tmp_path):
    def model_fn(features, labels, mode):
        spec = linear_model_fn(features, labels, mode)
        if mode != tf.estimator.ModeKeys.PREDICT:
            return spec
        outputs = {key: tf.estimator.export.PredictOutput(value)
                   for key, value in spec.predictions.items()}
        return spec._replace(export_outputs=outputs)

    estimator = trained_estimator(tmp_path / "model", model_fn)
    with pytest.raises(ValueError, match="^Multiple export_outputs were provided, but none of "
                       "them is specified as the default."):
        estimator.export_saved_model(str(tmp_path / "export"), serving_fn())
    assert os.listdir(tmp_path / "export") == []  # the temporary folder removed


def test_tensorflow_python_paths_of_saved_model():
    # `from tensorflow.python.saved_model import tag_constants...`, TF-1 serving code's imports
    from tinyflow.python.saved_model import (
        builder,
        signature_constants,
        signature_def_utils,
        tag_constants,
        utils,
    )
    from tinyflow.python.saved_model import (
        loader as python_loader,
    )
    assert builder.SavedModelBuilder is tf.saved_model.builder.SavedModelBuilder
    assert python_loader.load is tf.saved_model.loader.load
    assert tag_constants.SERVING == "serve" and utils.build_tensor_info is \
        tf.saved_model.utils.build_tensor_info
    assert signature_constants.PREDICT_METHOD_NAME == "tensorflow/serving/predict"
    with pytest.raises(AttributeError, match="classification_signature_def is not supported "
                       "by TinyFlow.*TensorFlow 1.15's module has it"):
        signature_def_utils.classification_signature_def  # noqa: B018


def test_a_main_op_that_never_ends_meets_a_deadline(tmp_path, monkeypatch):
    path = str(tmp_path / "model")
    with tf.Graph().as_default():
        x, y = build_model()
        forever = tf.while_loop(lambda i: tf.less(i, 10**15), lambda i: i + 1,
                                [tf.constant(0, tf.int64)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.saved_model.simple_save(sess, path, {"x": x}, {"y": y},
                                       legacy_init_op=tf.group(forever))
    monkeypatch.setattr(loader, "MAIN_OP_TIMEOUT_MS", 300)
    with tf.Session(graph=tf.Graph()) as sess, pytest.raises(tf.errors.DeadlineExceededError):
        tf.saved_model.loader.load(sess, ["serve"], path)


def _paths(value, prefix=()):
    """Every place in a JSON value, as a path of keys and indices."""
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else ()
    for key, item in items:
        yield from _paths(item, (*prefix, key))


def test_mutated_documents_load_or_raise_a_clear_error(tmp_path):
    # every place of the document (the graph's text parsed as JSON too) given a hostile value
    path = str(tmp_path / "model")
    export(path)
    with open(os.path.join(path, "saved_model.json")) as file:
        original = json.load(file)
    original["meta_graphs"][0]["meta_graph"]["graph"] = json.loads(
        original["meta_graphs"][0]["meta_graph"]["graph"])
    places = list(_paths(original))[1:]
    rng = np.random.default_rng(0)
    hostile = [None, -1, 2**62, "x:0", [], {}, True, [[0, 0]], "\u00b2"]
    for _ in range(200):
        doc = json.loads(json.dumps(original))
        place = places[rng.integers(len(places))]
        parent = doc
        for key in place[:-1]:
            parent = parent[key]
        parent[place[-1]] = hostile[rng.integers(len(hostile))]
        meta = doc["meta_graphs"][0] if isinstance(doc.get("meta_graphs"), list) and \
            doc["meta_graphs"] and isinstance(doc["meta_graphs"][0], dict) else {}
        if isinstance(meta.get("meta_graph"), dict) and \
                not isinstance(meta["meta_graph"].get("graph", ""), str):
            meta["meta_graph"]["graph"] = json.dumps(meta["meta_graph"]["graph"])
        with open(os.path.join(path, "saved_model.json"), "w") as file:
            json.dump(doc, file)
        with tf.Graph().as_default() as graph, tf.Session() as sess:
            try:
                meta = tf.saved_model.loader.load(sess, ["serve"], path)
            except (loader.SavedModelError, CheckpointError, RuntimeError) as err:
                assert node_names(graph) == [] or isinstance(err, RuntimeError), (place, err)
                continue
            for signature in meta.signature_def.values():  # what loaded runs, or says why not
                fetches = [info.name for info in signature.outputs.values()]
                try:
                    sess.run(fetches, {info.name: X for info in signature.inputs.values()})
                except (tf.TinyflowError, tf.errors.OpError, ValueError, KeyError) as err:
                    assert str(err), place


def test_a_partitioned_variable_is_saved_whole_and_served(tmp_path):
    path = str(tmp_path / "model")
    full = np.arange(8, dtype=np.float32).reshape(4, 2)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        w = tf.get_variable("w", [4, 2], initializer=tf.constant_initializer(full),
                            partitioner=tf.fixed_size_partitioner(2))
        y = tf.matmul(x, w, name="y")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.saved_model.simple_save(sess, path, {"x": x}, {"y": y})
    reader = tf.train.load_checkpoint(os.path.join(path, "variables", "variables"))
    np.testing.assert_array_equal(reader.get_tensor("w"), full)  # TF's: one tensor, whole
    data = np.ones((1, 4), np.float32)
    with tf.Session(graph=tf.Graph()) as sess:
        tf.saved_model.loader.load(sess, ["serve"], path)
        np.testing.assert_array_equal(sess.run("y:0", {"x:0": data}), data @ full)
    edit_document(path, lambda doc: meta_graph(doc)["meta_graph"]["variables"][1].update(
        save_slice_info=["w", [4, 2], [3, 0], [2, 2]]))  # past the end of w
    with tf.Session(graph=tf.Graph()) as sess, pytest.raises(loader.SavedModelError,
                                                             match="save_slice_info"):
        tf.saved_model.loader.load(sess, ["serve"], path)


@pytest.mark.filterwarnings("ignore:no meta graph")  # the string label constant: no .meta
def test_a_canned_classifier_serves_its_string_classes(tmp_path, plan_memory):
    # TF 1.15's canned heads' predict outputs: 'classes' the label_vocabulary entry of each
    # example's argmax (as TF's index_to_string lookup), 'all_classes' the vocabulary tiled
    vocabulary = ["cat", "dog", "eel"]
    data = np.array([[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0], [1.0, 1.0]], np.float32)
    estimator = tf.estimator.DNNClassifier(
        [3], [tf.feature_column.numeric_column("x", shape=[2])], n_classes=3,
        label_vocabulary=vocabulary, model_dir=str(tmp_path / "model"))
    estimator.train(lambda: ({"x": tf.constant(data)},
                             tf.constant(np.array([b"cat", b"eel", b"dog", b"cat"]))), steps=2)
    with tf.Graph().as_default():
        feature = tf.placeholder(tf.float32, [None, 2], name="x")
    exported = estimator.export_saved_model(
        str(tmp_path / "export"),
        tf.estimator.export.build_raw_serving_input_receiver_fn({"x": feature}))
    with tf.Session(graph=tf.Graph(), plan_memory=plan_memory) as sess:
        signature = tf.saved_model.loader.load(sess, ["serve"], exported).signature_def[
            "serving_default"]
        assert sorted(signature.outputs) == ["all_class_ids", "all_classes", "class_ids",
                                             "classes", "logits", "probabilities"]
        got = sess.run({k: v.name for k, v in signature.outputs.items()},
                       {signature.inputs["x"].name: data})
    names = np.array([v.encode() for v in vocabulary], dtype=object)
    np.testing.assert_array_equal(got["classes"][:, 0], names[got["probabilities"].argmax(1)])
    assert got["classes"].dtype == object and got["classes"].shape == (4, 1)
    assert got["all_classes"].tolist() == [names.tolist()] * 4
