"""tf.estimator (issue 24 item 5): an Estimator trained, evaluated and run on a linear problem
whose gradient-descent steps numpy repeats exactly (the batches of numpy_input_fn without
shuffling come in order), against its known solution; errors as TensorFlow 1.15's (the
messages and the step counts were checked with tensorflow-estimator 2.15 on TensorFlow 2.21,
by hand)."""
import os

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
from tensorboard.compat.proto import event_pb2

import tinyflow as tf
from tinyflow.frontend.session_run_hooks import SummaryWriterCache

pytestmark = pytest.mark.usefixtures("fresh_graph")

RNG = np.random.RandomState(0)
X = RNG.randn(32, 3).astype(np.float32)
TRUE_W, TRUE_B = np.array([[1.0], [-2.0], [0.5]], np.float32), 0.3
Y = (X @ TRUE_W + TRUE_B).astype(np.float32)
LEARNING_RATE = 0.1


@pytest.fixture(autouse=True)
def _writers():
    yield
    SummaryWriterCache.clear()


def model_fn(features, labels, mode, params):
    """Linear regression ``x @ w + b`` by gradient descent on the mean squared error."""
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    prediction = tf.matmul(features["x"], w) + b
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": prediction,
                                                             "twice": prediction * 2})
    loss = tf.reduce_mean(tf.square(prediction - labels))
    train_op = tf.train.GradientDescentOptimizer(params["learning_rate"]).minimize(
        loss, global_step=tf.train.get_global_step())
    metrics = {"mse": tf.metrics.mean_squared_error(labels, prediction),
               "mae": tf.metrics.mean_absolute_error(labels, prediction)}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops=metrics)


def estimator(model_dir, **config):
    return tf.estimator.Estimator(model_fn, model_dir=str(model_dir),
                                  params={"learning_rate": LEARNING_RATE},
                                  config=tf.estimator.RunConfig(**config))


def train_fn(batch_size=8, num_epochs=None):
    return tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=batch_size,
                                              num_epochs=num_epochs, shuffle=False)


def numpy_descent(steps, batch_size=8, w=None, b=None):
    """The weights after ``steps`` gradient-descent steps on the rows in order, in float64."""
    w = np.zeros((3, 1)) if w is None else w
    b = np.zeros(1) if b is None else b
    rows = np.arange(steps * batch_size) % len(X)
    for step in range(steps):
        x, y = X[rows[step * batch_size:(step + 1) * batch_size]], Y[rows[
            step * batch_size:(step + 1) * batch_size]]
        error = x @ w + b - y
        w = w - LEARNING_RATE * 2 * x.T @ error / len(x)
        b = b - LEARNING_RATE * 2 * error.mean(axis=0)
    return w, b


def checkpoint_values(model_dir):
    """The variables of the latest checkpoint (TensorFlow's format, read by its reader)."""
    reader = tf.train.load_checkpoint(str(model_dir))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def test_train_reaches_the_solution_and_a_second_train_resumes(tmp_path):
    est = estimator(tmp_path, save_checkpoints_steps=20)
    assert est.train(train_fn(), steps=30) is est
    saved = checkpoint_values(tmp_path)
    assert saved["global_step"] == 30
    w, b = numpy_descent(30)
    np.testing.assert_allclose(saved["w"], w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(saved["b"], b, rtol=1e-4, atol=1e-5)

    # the second train restores step 30 and the weights, and goes on from there; as TF's, its
    # input starts again from the first batch
    est.train(train_fn(), steps=270)
    saved = checkpoint_values(tmp_path)
    assert saved["global_step"] == 300
    w, b = numpy_descent(270, w=w, b=b)
    np.testing.assert_allclose(saved["w"], w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(saved["w"], TRUE_W, atol=1e-4)
    np.testing.assert_allclose(saved["b"], [TRUE_B], atol=1e-4)
    names = sorted(f for f in os.listdir(tmp_path)
                   if f.startswith("model.ckpt") and f.endswith(".index"))
    # TF: at the start of each train (30), every 20 steps (50... 290), and at the end; the
    # newest 5 kept, those of the first train counted too
    assert names == ["model.ckpt-230.index", "model.ckpt-250.index", "model.ckpt-270.index",
                     "model.ckpt-290.index", "model.ckpt-300.index"]

    est.train(train_fn(), max_steps=300)  # there already: nothing runs
    assert checkpoint_values(tmp_path)["global_step"] == 300
    est.train(train_fn(), max_steps=305)
    assert checkpoint_values(tmp_path)["global_step"] == 305


def test_the_end_of_the_input_ends_training(tmp_path):
    est = estimator(tmp_path)
    est.train(train_fn(batch_size=10, num_epochs=2))
    # 64 rows in batches of 10, the epochs running on into each other: 7 steps (TF: 7)
    assert checkpoint_values(tmp_path)["global_step"] == 7


def test_evaluate_gives_the_metrics_numpy_computes(tmp_path):
    est = estimator(tmp_path)
    est.train(train_fn(), steps=5)
    saved = checkpoint_values(tmp_path)
    results = est.evaluate(train_fn(batch_size=10, num_epochs=1))
    assert set(results) == {"loss", "mse", "mae", "global_step"}
    assert results["global_step"] == 5
    error = (X @ saved["w"] + saved["b"] - Y).ravel()
    np.testing.assert_allclose(results["mse"], np.mean(error ** 2), rtol=1e-5)
    np.testing.assert_allclose(results["mae"], np.mean(np.abs(error)), rtol=1e-5)
    # TF: "loss" is the mean of the batches' losses (10, 10, 10 and 2 rows), not of the rows
    batches = np.split(error, [10, 20, 30])
    np.testing.assert_allclose(results["loss"], np.mean([np.mean(e ** 2) for e in batches]),
                               rtol=1e-5)
    assert not np.isclose(results["loss"], results["mse"], rtol=1e-3)

    # steps=2: the first two batches
    two = est.evaluate(train_fn(batch_size=10, num_epochs=1), steps=2, name="two")
    np.testing.assert_allclose(two["mse"], np.mean(error[:20] ** 2), rtol=1e-5)
    files = {d: [f for f in os.listdir(tmp_path / d) if f.startswith("events")]
             for d in ("eval", "eval_two")}
    records = [event_pb2.Event.FromString(r) for r in RawEventFileLoader(
        str(tmp_path / "eval" / files["eval"][0])).Load()]
    written = {v.tag: (e.step, v.simple_value) for e in records
               if e.WhichOneof("what") == "summary" for v in e.summary.value}
    assert written == {key: (5, pytest.approx(float(results[key]), rel=1e-6))
                       for key in ("loss", "mse", "mae")}
    assert len(files["eval_two"]) == 1


def test_predict_yields_one_dict_per_example(tmp_path):
    est = estimator(tmp_path)
    est.train(train_fn(), steps=5)
    saved = checkpoint_values(tmp_path)
    expected = X[:5] @ saved["w"] + saved["b"]
    predict_fn = tf.estimator.inputs.numpy_input_fn({"x": X[:5]}, batch_size=2, shuffle=False)
    predictions = list(est.predict(predict_fn))
    assert len(predictions) == 5 and set(predictions[0]) == {"y", "twice"}
    np.testing.assert_allclose([p["y"] for p in predictions], expected, rtol=1e-5)
    assert predictions[0]["y"].shape == (1,)
    only = list(est.predict(predict_fn, predict_keys=["twice"]))
    np.testing.assert_allclose([p["twice"] for p in only], 2 * expected, rtol=1e-5)
    batches = list(est.predict(predict_fn, yield_single_examples=False))
    assert [len(b["y"]) for b in batches] == [2, 2, 1]
    with pytest.raises(ValueError, match="Expected to run at least one output from"):
        list(est.predict(predict_fn, predict_keys=["nothing"]))


def test_a_dataset_input_fn_and_hooks(tmp_path):
    calls = []

    class Count(tf.train.SessionRunHook):
        def begin(self):
            calls.append("begin")

        def before_run(self, run_context):
            calls.append("step")

        def end(self, session):
            calls.append("end")

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(16)

    est = estimator(tmp_path)
    est.train(input_fn, hooks=[Count()])
    # two batches, then a third step whose run ends the input (TF: its before_run, no after_run)
    assert calls == ["begin", "step", "step", "step", "end"]
    assert checkpoint_values(tmp_path)["global_step"] == 2
    assert est.evaluate(input_fn)["global_step"] == 2


def test_model_fn_gets_the_arguments_it_names(tmp_path):
    seen = {}

    def features_only(features, config):  # no labels: the input_fn must give none
        seen["config"] = config
        w = tf.Variable(1.0)
        loss = tf.reduce_mean(features * w)
        return tf.estimator.EstimatorSpec(
            "train", loss=loss, train_op=tf.assign_add(tf.train.get_global_step(), 1))

    est = tf.estimator.Estimator(features_only, model_dir=str(tmp_path))
    est.train(lambda: tf.constant([1.0, 2.0]), steps=2)
    assert seen["config"].model_dir == str(tmp_path)
    with pytest.raises(ValueError, match="model_fn does not take labels, but input_fn returns"):
        est.train(lambda: (tf.constant([1.0]), tf.constant([1.0])), steps=1)


def test_summaries_of_the_loss_are_written(tmp_path):
    estimator(tmp_path, save_summary_steps=10).train(train_fn(), steps=25)
    files = [f for f in os.listdir(tmp_path) if f.startswith("events")]
    records = [event_pb2.Event.FromString(r)
               for f in files for r in RawEventFileLoader(str(tmp_path / f)).Load()]
    steps = [e.step for e in records if e.WhichOneof("what") == "summary"
             for v in e.summary.value if v.tag == "loss"]
    # the step after each summarised run, the runs 10 steps apart as the hook counts them from
    # the step read before each run's increment (TF's stale_global_step; TF 2.21's first read
    # races the increment and gives 1, 10, 20)
    assert steps == [1, 11, 21]


def test_errors_are_tensorflows(tmp_path):
    def missing_loss(features, labels, mode):
        return tf.estimator.EstimatorSpec(mode, train_op=tf.no_op())

    def missing_train_op(features, labels, mode):
        return tf.estimator.EstimatorSpec(mode, loss=tf.reduce_sum(features))

    def not_a_spec(features, labels, mode):
        return {"loss": tf.reduce_sum(features)}

    def input_fn():
        return tf.constant([1.0]), tf.constant([1.0])

    for fn, message in ((missing_loss, "Missing loss."), (missing_train_op, "Missing train_op."),
                        (not_a_spec, "model_fn should return an EstimatorSpec.")):
        with pytest.raises(ValueError, match=message):
            tf.estimator.Estimator(fn, model_dir=str(tmp_path)).train(input_fn, steps=1)
    with pytest.raises(ValueError, match="Missing predictions."):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT)
    with pytest.raises(ValueError, match="Loss must be scalar"):
        tf.estimator.EstimatorSpec("eval", loss=tf.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match="eval_metric_ops must be a dict"):
        tf.estimator.EstimatorSpec("eval", loss=tf.constant(1.0), eval_metric_ops=[1])
    with pytest.raises(ValueError, match="must include features argument"):
        tf.estimator.Estimator(lambda x, labels: None)
    with pytest.raises(ValueError, match="does not include params argument"):
        tf.estimator.Estimator(missing_loss, params={"a": 1})
    with pytest.raises(ValueError, match=r"has following not expected args: \['extra'\]"):
        tf.estimator.Estimator(lambda features, extra: None)
    est = estimator(tmp_path)
    with pytest.raises(ValueError, match="Can not provide both steps and max_steps."):
        est.train(train_fn(), steps=1, max_steps=1)
    with pytest.raises(ValueError, match="Must specify steps > 0, given: 0"):
        est.train(train_fn(), steps=0)
    with pytest.raises(ValueError, match="shuffle must be provided and explicitly set"):
        tf.estimator.inputs.numpy_input_fn({"x": X}, Y)
    with pytest.raises(ValueError, match="Length of tensors in x and y is mismatched"):
        tf.estimator.inputs.numpy_input_fn({"x": X}, Y[:3], shuffle=False)()
    with pytest.raises(ValueError, match="save_checkpoints_steps and save_checkpoints_secs"):
        tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)
    with pytest.raises(AttributeError, match="tf.estimator.BoostedTreesClassifier is not supported"):
        tf.estimator.BoostedTreesClassifier  # noqa: B018
    with pytest.raises(AttributeError, match="Estimator.experimental_export_all_saved_models is "
                       "not supported"):
        est.experimental_export_all_saved_models  # noqa: B018


def test_compat_v1_names():
    from tinyflow.compat import v1

    assert v1.estimator.inputs.numpy_input_fn is tf.estimator.inputs.numpy_input_fn
    assert v1.estimator.Estimator is tf.estimator.Estimator
    assert tf.estimator.ModeKeys.PREDICT == "infer"


def test_numpy_input_fn_batches_as_tensorflow():
    x, y = np.arange(10, dtype=np.float32).reshape(5, 2), np.arange(5)
    # an array x gives a tensor; 2 epochs of 5 rows in batches of 3 run on into each other
    fn = tf.estimator.inputs.numpy_input_fn(x, y, batch_size=3, num_epochs=2, shuffle=False)
    features, labels = fn().make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        batches = [sess.run([features, labels]) for _ in range(4)]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(features)
    assert [len(b[1]) for b in batches] == [3, 3, 3, 1]
    np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]), np.tile(y, 2))
    np.testing.assert_array_equal(np.concatenate([b[0] for b in batches]), np.tile(x, (2, 1)))

    # dicts: features and labels keep their keys; shuffling permutes the rows within an epoch
    fn = tf.estimator.inputs.numpy_input_fn({"a": x, "b": y}, {"label": y * 10},
                                            batch_size=5, num_epochs=1, shuffle=True)
    features, labels = fn().make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got_features, got_labels = sess.run([features, labels])
    assert set(got_features) == {"a", "b"} and set(got_labels) == {"label"}
    assert sorted(got_features["b"]) == list(y)
    np.testing.assert_array_equal(got_labels["label"], got_features["b"] * 10)
    np.testing.assert_array_equal(got_features["a"], x[got_features["b"]])
    only_x = tf.estimator.inputs.numpy_input_fn({"a": x}, batch_size=2, shuffle=False)()
    assert set(only_x.make_one_shot_iterator().get_next()) == {"a"}  # features alone
    with pytest.raises(ValueError, match="1 duplicate keys are found in both x and y"):
        tf.estimator.inputs.numpy_input_fn({"a": x}, {"a": y}, shuffle=False)()
    with pytest.raises(TypeError, match="x must be a dict or array; got list"):
        tf.estimator.inputs.numpy_input_fn([1, 2], shuffle=False)()


def test_train_and_evaluate_evaluates_each_new_checkpoint_and_the_last(tmp_path):
    # TF 1.15's local train_and_evaluate: a saving listener evaluates each checkpoint but the
    # first (untrained) one, throttled (throttle_secs=0: all), and the last one at the end.
    # The metrics are those real TF (2.21, tf.compat.v1, no estimator there) gave for the same
    # 7 gradient-descent steps written by hand: rmse 0.013226375, mean loss 0.000174937
    xs = np.linspace(-1, 1, 28).astype(np.float32).reshape(14, 2)
    ys = (xs @ np.array([1.0, -2.0], np.float32) + 0.5).astype(np.float32)

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", initializer=np.array([[0.3], [0.1]], np.float32))
        b = tf.get_variable("b", initializer=np.zeros([1], np.float32))
        pred = tf.squeeze(tf.matmul(features["x"], w) + b, 1)
        loss = tf.losses.mean_squared_error(labels, pred)
        train_op = tf.train.GradientDescentOptimizer(0.2).minimize(
            loss, tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops={
            "rmse": tf.metrics.root_mean_squared_error(labels, pred)})

    seen = []

    class Recorder(tf.train.SessionRunHook):
        def end(self, session):
            seen.append(int(session.run(tf.train.get_global_step())))

    est = tf.estimator.Estimator(model_fn, str(tmp_path),
                                 tf.estimator.RunConfig(save_checkpoints_steps=3))
    train_spec = tf.estimator.TrainSpec(
        lambda: tf.data.Dataset.from_tensor_slices(({"x": xs}, ys)).batch(4).repeat(),
        max_steps=7)
    eval_spec = tf.estimator.EvalSpec(
        lambda: tf.data.Dataset.from_tensor_slices(({"x": xs}, ys)).batch(7), steps=None,
        throttle_secs=0, hooks=[Recorder()])
    metrics, exports = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    assert seen == [3, 6, 7] and exports is None and metrics["global_step"] == 7
    np.testing.assert_allclose(metrics["rmse"], 0.013226375, rtol=1e-4)
    np.testing.assert_allclose(metrics["loss"], 0.000174937, rtol=1e-3)
    seen.clear()  # max_steps reached: nothing trains, nothing is evaluated (TF: None)
    assert tf.estimator.train_and_evaluate(est, train_spec, eval_spec) == (None, None)
    assert seen == []
    with pytest.raises(TypeError, match="must have type `tf.estimator.TrainSpec`"):
        tf.estimator.train_and_evaluate(est, eval_spec, eval_spec)
    with pytest.raises(ValueError, match="max_steps > 0"):
        tf.estimator.TrainSpec(train_spec.input_fn, max_steps=0)
    with pytest.raises(TypeError, match="exporters"):
        tf.estimator.EvalSpec(train_spec.input_fn, exporters=[object()])
