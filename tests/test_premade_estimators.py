"""tf.estimator's premade estimators (TF 1.15's DNNClassifier, DNNRegressor, LinearClassifier,
LinearRegressor, DNNLinearCombinedClassifier) trained 3 steps on a tiny dataset from fixed
initial weights (warm_start_from a checkpoint of known values), then evaluated and run: the
metrics, a prediction and the trained variables against the numbers real TensorFlow gave for
the same program (tensorflow-estimator 2.15 on tensorflow-cpu 2.15, whose
tf.compat.v1.estimator classes are TF 1.15's canned estimators, run by hand, the numbers
written below, rounded to 6 decimals)."""
import os

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.session_run_hooks import SummaryWriterCache

pytestmark = pytest.mark.usefixtures("fresh_graph")

X = np.array([[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0], [1.0, 1.0], [0.0, -0.5], [2.0, 0.5]],
             np.float32)
FEATURES = {"x": X, "c": np.array([[0], [2], [1], [2], [0], [1]], np.int64),
            "w": np.array([1.0, 2.0, 0.5, 1.0, 1.5, 1.0], np.float32)}
LABELS = {"binary": np.array([0, 1, 1, 0, 1, 0], np.int64),
          "three": np.array([0, 2, 1, 0, 1, 2], np.int64),
          "real": np.array([0.5, 1.5, -1.0, 2.0, 0.0, 1.0], np.float32)}


@pytest.fixture(autouse=True)
def _writers():
    yield
    SummaryWriterCache.clear()


def _initial(shape, index):
    """The warm-start values, the same in the TF run: 0.5 cos(1.7 i + index), row-major."""
    size = int(np.prod(shape))
    return (np.cos(np.arange(size) * 1.7 + index) * 0.5).astype(np.float32).reshape(shape)


def _warm_start(folder, specs) -> str:
    """A checkpoint holding ``specs``' variables (name, shape) at their initial values."""
    path = os.path.join(folder, "warm", "warm.ckpt")
    with tf.Graph().as_default():
        variables = [tf.Variable(_initial(shape, i), name=name)
                     for i, (name, shape) in enumerate(specs)]
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            tf.train.Saver(variables).save(session, path)
    return path


def _dnn(inputs, hidden, outputs):
    return [("dnn/hiddenlayer_0/kernel", (inputs, hidden)), ("dnn/hiddenlayer_0/bias", (hidden,)),
            ("dnn/logits/kernel", (hidden, outputs)), ("dnn/logits/bias", (outputs,))]


def _estimator(case, folder, **classifier):
    fc, est = tf.feature_column, tf.estimator
    x, kind = fc.numeric_column("x", shape=[2]), fc.categorical_column_with_identity("c", 3)
    model_dir = os.path.join(folder, "model")
    if case == "dnn_binary":
        return est.DNNClassifier([3], [x], model_dir=model_dir, **classifier,
                                 warm_start_from=_warm_start(folder, _dnn(2, 3, 1)))
    if case == "dnn_multi":
        embedding = "dnn/input_from_feature_columns/input_layer/c_embedding/embedding_weights"
        return est.DNNClassifier([3], [x, fc.embedding_column(kind, 2)], n_classes=3,
                                 weight_column="w", model_dir=model_dir, **classifier,
                                 warm_start_from=_warm_start(folder, _dnn(4, 3, 3) + [
                                     (embedding, (3, 2))]))
    if case == "dnn_reg":
        return est.DNNRegressor([3], [x], model_dir=model_dir,
                                warm_start_from=_warm_start(folder, _dnn(2, 3, 1)))
    linear = [("linear/linear_model/x/weights", (2, 1)), ("linear/linear_model/c/weights", (3, 1)),
              ("linear/linear_model/bias_weights", (1,))]
    if case == "linear_reg":
        return est.LinearRegressor([x, kind], model_dir=model_dir,
                                   warm_start_from=_warm_start(folder, linear))
    if case == "linear_binary":
        linear[1] = ("linear/linear_model/c_indicator/weights", (3, 1))
        return est.LinearClassifier([x, fc.indicator_column(kind)], weight_column="w",
                                    model_dir=model_dir,
                                    warm_start_from=_warm_start(folder, linear))
    assert case == "combined"
    return est.DNNLinearCombinedClassifier(
        linear_feature_columns=[kind], dnn_feature_columns=[x], dnn_hidden_units=[3],
        model_dir=model_dir, warm_start_from=_warm_start(folder, _dnn(2, 3, 1) + linear[1:]))


# real TF's numbers: evaluate() on batches of 4 (a full one, then 2), predict()'s second
# example, the trained variables (checkpoint names; 'classes' and 'all_classes', strings, are
# checked apart: TF 1.15's head.py makes them of 'class_ids' with as_string)
TF_RESULTS = {
    "dnn_binary": {
        "labels": "binary",
        "eval": {"accuracy": 0.5, "accuracy_baseline": 0.5, "auc": 0.777778,
                 "auc_precision_recall": 0.85, "average_loss": 0.709481, "global_step": 3.0,
                 "label/mean": 0.5, "loss": 2.128444, "precision": 0.0,
                 "prediction/mean": 0.372133, "recall": 0.0},
        "prediction_1": {"class_ids": [0], "logistic": [0.354461], "logits": [-0.599486],
                         "probabilities": [0.645539, 0.354461]},
        "variables": {"dnn/hiddenlayer_0/bias": [0.206217, -0.53207, -0.153666],
                      "dnn/hiddenlayer_0/kernel": [[0.554549, 0.0046, -0.483399],
                                                   [0.118914, 0.336185, -0.301006]],
                      "dnn/logits/bias": [-0.389367],
                      "dnn/logits/kernel": [[-0.196783], [-0.354057], [0.317346]]}},
    "dnn_multi": {
        "labels": "three",
        "eval": {"accuracy": 0.428571, "average_loss": 1.056325, "global_step": 3.0,
                 "loss": 3.697139},
        "prediction_1": {"class_ids": [2], "logits": [-0.195851, -0.350346, 0.321941],
                         "probabilities": [0.282872, 0.242378, 0.474749]},
        "variables": {"dnn/hiddenlayer_0/bias": [0.168098, -0.343405, -0.256887],
                      "dnn/hiddenlayer_0/kernel": [[0.585275, -0.139648, -0.515511],
                                                   [0.100205, 0.531517, -0.288648],
                                                   [-0.399329, 0.487818, 0.147512],
                                                   [-0.363213, -0.176906, 0.564268]],
                      "dnn/input_from_feature_columns/input_layer/c_embedding/embedding_weights":
                          [[-0.424998, 0.461162], [0.289869, -0.437466], [-0.04998, 0.577592]],
                      "dnn/logits/bias": [-0.411635, -0.019112, 0.41294],
                      "dnn/logits/kernel": [[-0.14586, -0.348569, 0.231579],
                                            [0.327902, -0.503338, -0.13828],
                                            [0.46745, 0.068845, -0.450618]]}},
    "dnn_reg": {
        "labels": "real",
        "eval": {"average_loss": 2.194481, "global_step": 3.0, "label/mean": 0.666667,
                 "loss": 6.583442, "prediction/mean": -0.484346},
        "prediction_1": {"predictions": [-0.464896]},
        "variables": {"dnn/hiddenlayer_0/bias": [0.171257, -0.446749, -0.153666],
                      "dnn/hiddenlayer_0/kernel": [[0.400809, -0.158765, -0.483399],
                                                   [0.093135, 0.461099, -0.301006]],
                      "dnn/logits/bias": [-0.383472],
                      "dnn/logits/kernel": [[-0.102322], [-0.511947], [0.317346]]}},
    "linear_reg": {
        "labels": "real",
        "eval": {"average_loss": 0.145988, "global_step": 3.0, "label/mean": 0.666667,
                 "loss": 0.437964, "prediction/mean": 0.622346},
        "prediction_1": {"predictions": [1.467012]},
        "variables": {"linear/linear_model/bias_weights": [0.055732],
                      "linear/linear_model/c/weights": [[0.100413], [-0.411489], [0.204131]],
                      "linear/linear_model/x/weights": [[0.783866], [0.125397]]}},
    "linear_binary": {
        "labels": "binary",
        "eval": {"accuracy": 0.714286, "accuracy_baseline": 0.571429, "auc": 0.625,
                 "auc_precision_recall": 0.51894, "average_loss": 0.648285, "global_step": 3.0,
                 "label/mean": 0.571429, "loss": 2.268998, "precision": 0.666667,
                 "prediction/mean": 0.561094, "recall": 1.0},
        "prediction_1": {"class_ids": [1], "logistic": [0.589137], "logits": [0.360397],
                         "probabilities": [0.410863, 0.589137]},
        "variables": {"linear/linear_model/bias_weights": [0.160706],
                      "linear/linear_model/c_indicator/weights": [[0.247769], [-0.386276],
                                                                  [0.260075]],
                      "linear/linear_model/x/weights": [[-0.064963], [0.148242]]}},
    "combined": {
        "labels": "binary",
        "eval": {"accuracy": 0.5, "accuracy_baseline": 0.5, "auc": 0.555556,
                 "auc_precision_recall": 0.655555, "average_loss": 0.732919, "global_step": 3.0,
                 "label/mean": 0.5, "loss": 2.198758, "precision": 0.0,
                 "prediction/mean": 0.356022, "recall": 0.0},
        "prediction_1": {"class_ids": [0], "logistic": [0.356265], "logits": [-0.591613],
                         "probabilities": [0.643735, 0.356265]},
        "variables": {"dnn/hiddenlayer_0/bias": [0.268872, -0.453704, -0.153666],
                      "dnn/hiddenlayer_0/kernel": [[0.501277, -0.062995, -0.483399],
                                                   [0.187651, 0.432596, -0.301006]],
                      "dnn/logits/bias": [-0.492708],
                      "dnn/logits/kernel": [[-0.20837], [-0.422313], [0.317346]],
                      "linear/linear_model/bias_weights": [0.089124],
                      "linear/linear_model/c/weights": [[-0.099509], [0.028002], [0.034448]]}},
}


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("case", sorted(TF_RESULTS))
def test_trained_evaluated_and_run_as_real_tf(case, tmp_path):
    want = TF_RESULTS[case]
    labels = LABELS[want["labels"]]
    estimator = _estimator(case, str(tmp_path))
    estimator.train(tf.estimator.inputs.numpy_input_fn(
        FEATURES, labels, batch_size=6, num_epochs=None, shuffle=False), steps=3)
    results = estimator.evaluate(tf.estimator.inputs.numpy_input_fn(
        FEATURES, labels, batch_size=4, num_epochs=1, shuffle=False))
    assert sorted(results) == sorted(want["eval"])
    for key, value in want["eval"].items():
        _close(results[key], value)
    predictions = list(estimator.predict(tf.estimator.inputs.numpy_input_fn(
        FEATURES, batch_size=6, num_epochs=1, shuffle=False)))
    assert len(predictions) == 6
    assert sorted(set(predictions[1]) - {"all_class_ids", "classes", "all_classes"}) == sorted(
        want["prediction_1"])
    for key, value in want["prediction_1"].items():
        _close(predictions[1][key], value)
    if "class_ids" in want["prediction_1"]:  # TF's all_class_ids: int32 0 .. n_classes - 1
        classes = len(want["prediction_1"]["probabilities"])
        assert predictions[1]["all_class_ids"].dtype == np.int32
        np.testing.assert_array_equal(predictions[1]["all_class_ids"], np.arange(classes))
        _check_classes(predictions, [str(i).encode() for i in range(classes)])
    names = estimator.get_variable_names()
    model = [n for n in names if not n.endswith(("Adagrad", "Ftrl", "Ftrl_1"))]
    assert sorted(model) == sorted([*want["variables"], "global_step"])
    for name, value in want["variables"].items():
        _close(estimator.get_variable_value(name), value)
    assert estimator.get_variable_value("global_step") == 3


def _check_classes(predictions, names):
    """TF 1.15's head.py: 'classes' [1] and 'all_classes' [n_classes] of each example are
    strings (bytes, as TF fetches them): the class id's, and every class's, name in
    ``names`` (the label_vocabulary, else as_string of the ids)."""
    for prediction in predictions:
        assert prediction["classes"].dtype == object and prediction["classes"].shape == (1,)
        assert prediction["classes"].tolist() == [names[prediction["class_ids"][0]]]
        assert prediction["all_classes"].tolist() == names


def test_defaults_and_unsupported_arguments(tmp_path):
    fc, est = tf.feature_column, tf.estimator
    x = fc.numeric_column("x", shape=[2])
    with pytest.raises(ValueError, match="label_vocabulary should be a list or a tuple. Given "
                                         "type: <class 'str'>"):
        est.DNNClassifier([2], [x], label_vocabulary="no yes")
    with pytest.raises(ValueError, match="n_classes must be > 1"):
        est.LinearClassifier([x], n_classes=1)
    with pytest.raises(ValueError, match="Unsupported optimizer name: Adadelta"):
        estimator = est.DNNRegressor([2], [x], optimizer="Adadelta", model_dir=str(tmp_path))
        estimator.train(tf.estimator.inputs.numpy_input_fn(
            FEATURES, LABELS["real"], batch_size=6, shuffle=False), steps=1)
    with pytest.raises(ValueError, match="partitioner is not supported"):
        est.LinearRegressor([x], partitioner=object())
    with pytest.raises(ValueError, match="Either linear_feature_columns or dnn_feature_columns"):
        est.DNNLinearCombinedRegressor()


def test_an_optimizer_instance_a_dropout_and_a_string_label(tmp_path):
    fc = tf.feature_column
    estimator = tf.estimator.DNNClassifier(
        [4, 3], [fc.numeric_column("x", shape=[2])], dropout=0.5, model_dir=str(tmp_path),
        optimizer=tf.train.GradientDescentOptimizer(0.1))
    estimator.train(tf.estimator.inputs.numpy_input_fn(
        FEATURES, LABELS["binary"], batch_size=3, num_epochs=None, shuffle=False), steps=2)
    names = estimator.get_variable_names()
    assert "dnn/hiddenlayer_1/kernel" in names and not any("Adagrad" in n for n in names)
    assert estimator.get_variable_value("global_step") == 2
    with pytest.raises(tf.errors.InvalidArgumentError, match="Labels must <= n_classes - 1"):
        estimator.evaluate(tf.estimator.inputs.numpy_input_fn(
            FEATURES, LABELS["three"], batch_size=6, shuffle=False))
    with pytest.raises(ValueError, match=r"y holds strings"):
        estimator.train(tf.estimator.inputs.numpy_input_fn(
            FEATURES, np.array(["no", "yes"] * 3), shuffle=False), steps=1)


def test_pandas_input_fn_batches_and_errors_as_real_tf():
    pd = pytest.importorskip("pandas")  # optional: not a test dependency
    x = pd.DataFrame({"a": np.arange(5, dtype=np.float32), "b": np.arange(5) * 10},
                     index=[3, 4, 5, 6, 7])
    y = pd.Series(np.arange(5, dtype=np.float32) - 2.5, index=[3, 4, 5, 6, 7])
    dataset = tf.estimator.inputs.pandas_input_fn(x, y, batch_size=2, num_epochs=1,
                                                  shuffle=False)()
    features, labels = dataset.make_one_shot_iterator().get_next()
    batches = []
    with tf.Session() as session, pytest.raises(tf.errors.OutOfRangeError):
        while True:
            batches.append(session.run([features, labels]))
    # real TF's batches (its queue-based pandas_input_fn, shuffle=False): the rows in order
    assert len(batches) == 3
    np.testing.assert_array_equal(np.concatenate([f["a"] for f, _ in batches]), x["a"])
    np.testing.assert_array_equal(np.concatenate([f["b"] for f, _ in batches]), x["b"])
    np.testing.assert_array_equal(np.concatenate([label for _, label in batches]), y)
    with pytest.raises(ValueError, match="Index for x and y are mismatched"):
        tf.estimator.inputs.pandas_input_fn(x, y.rename(index=lambda i: i + 1), shuffle=False)
    with pytest.raises(ValueError, match="Cannot use name a for target column"):
        tf.estimator.inputs.pandas_input_fn(x, y, shuffle=False, target_column="a")
    with pytest.raises(ValueError, match="shuffle must be provided"):
        tf.estimator.inputs.pandas_input_fn(x, y)
    with pytest.raises(ValueError, match=r"x\['city'\] holds strings"):
        tf.estimator.inputs.pandas_input_fn(pd.DataFrame({"city": ["a", "b"]}), shuffle=False)()


def test_labels_of_another_width_are_tensorflows_error(tmp_path):
    estimator = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x", shape=[2])],
                                             label_dimension=2, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="Expected labels dimension=2.  Received 1"):
        estimator.train(tf.estimator.inputs.numpy_input_fn(
            FEATURES, LABELS["real"], batch_size=6, shuffle=False), steps=1)


@pytest.mark.filterwarnings("ignore:no meta graph")  # the string labels' constant: no .meta
@pytest.mark.parametrize(("case", "vocabulary"), [("dnn_binary", ("no", "yes")),
                                                  ("dnn_multi", ["a", "b", "c"])])
def test_label_vocabulary_trains_as_real_tf_on_the_ids(case, vocabulary, tmp_path):
    # TF 1.15's head.py looks each string label up in label_vocabulary (its position: the id)
    # before the loss, so training on vocabulary[id] gives real TF's numbers for the ids
    # (TF_RESULTS); predictions' 'classes' are the vocabulary's entries
    want = TF_RESULTS[case]
    ids = LABELS[want["labels"]]
    strings = np.array([vocabulary[i] for i in ids]).astype(np.bytes_)
    estimator = _estimator(case, str(tmp_path), label_vocabulary=vocabulary)

    def input_fn():  # the whole data each step, as numpy_input_fn's batches of 6 in TF's run
        return {k: tf.constant(v) for k, v in FEATURES.items()}, tf.constant(strings)

    estimator.train(input_fn, steps=3)
    for name, value in want["variables"].items():
        _close(estimator.get_variable_value(name), value)
    results = estimator.evaluate(input_fn, steps=1)  # one batch: TF's 'loss' was of two
    for key, value in want["eval"].items():
        if key != "loss":
            _close(results[key], value)
    predictions = list(estimator.predict(tf.estimator.inputs.numpy_input_fn(
        FEATURES, batch_size=4, num_epochs=1, shuffle=False)))
    _close(predictions[1]["probabilities"], want["prediction_1"]["probabilities"])
    _check_classes(predictions, [v.encode() for v in vocabulary])

    def unknown_fn():  # not in the vocabulary: id -1, TF's range check
        return {k: tf.constant(v) for k, v in FEATURES.items()}, tf.constant(
            np.array([b"maybe"] + [strings[0]] * 5))

    with pytest.raises(tf.errors.InvalidArgumentError, match="Labels must >= 0"):
        estimator.evaluate(unknown_fn, steps=1)
    numbers = TypeError if case == "dnn_binary" else ValueError  # TF's, at graph building
    message = ("Signature mismatch. Keys must be dtype <dtype: 'string'>, got <dtype: 'int64'>"
               if case == "dnn_binary" else "Labels dtype should be string if there is a "
               "vocabulary. Instead got <dtype: 'int64'>")
    with pytest.raises(numbers, match=message):
        estimator.evaluate(tf.estimator.inputs.numpy_input_fn(FEATURES, ids, shuffle=False))
    assert estimator.get_variable_value("global_step") == 3


def test_vocabulary_lookups_in_a_session(plan_memory):
    # TF's index_table_from_tensor(...).lookup (-1 out of the vocabulary),
    # index_to_string_table_from_tensor(..., default_value='UNK').lookup and as_string,
    # around an op the executor computes on the ids
    from tinyflow.nnvm.symbol import create_op
    words = tf.placeholder(tf.string, [None])
    ids = create_op("string_to_index", words, vocabulary=("x", "y"))
    doubled = ids * 2
    names = create_op("index_to_string", doubled, vocabulary=("x", "y", "z"))
    digits = create_op("index_to_string", ids)
    assert ids.dtype == tf.int64 and names.dtype == tf.string
    with tf.Session(plan_memory=plan_memory) as session:
        got = session.run([ids, doubled, names, digits],
                          {words: np.array([b"y", b"q", b"x"], dtype=object)})
    assert got[0].tolist() == [1, -1, 0] and got[1].tolist() == [2, -2, 0]
    assert got[2].tolist() == [b"z", b"UNK", b"x"] and got[3].tolist() == [b"1", b"-1", b"0"]


def test_ids_as_strings_checked_against_the_memory(monkeypatch):
    # index_to_string builds its strings beside the executor's checked buffers: more than the
    # host has is TF's ResourceExhaustedError naming the node, and the session runs on after
    from tinyflow.nnvm import host_memory
    from tinyflow.nnvm.symbol import create_op
    ids = tf.placeholder(tf.int64, [None])
    names = create_op("index_to_string", ids, name="names")
    with tf.Session() as session:
        # the executor's check reads the same figure: the 8000-byte feed buffer fits it
        monkeypatch.setattr(host_memory, "host_available_bytes",
                            lambda: (20000, "a test's figure"))
        with pytest.raises(tf.errors.ResourceExhaustedError,
                           match=r"node 'names'.* needs about 64000 bytes for the strings of 1000 ids"):
            session.run(names, {ids: np.arange(1000)})
        assert session.run(names, {ids: [3, 4]}).tolist() == [b"3", b"4"]  # 128 bytes fit
