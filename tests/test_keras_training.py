"""tf.keras training in TF-1 graph programs (compile / fit / evaluate / predict, Keras'
optimizers, callbacks, save_weights, tf.keras.utils) against numbers from real TensorFlow:
tensorflow 2.21's tf.compat.v1 in graph mode with tf-keras 2.21 (TF_USE_LEGACY_KERAS=1, whose
compat.v1 optimizers are the OptimizerV2 classes TF 1.15's tf.keras had), the same tiny models
with the same weights, batches and numpy seeds, written down below.  History keys are TF
1.15's (``acc``, ``ce``, ``mean_absolute_error``; TF 2's Keras names them ``accuracy``...).
tests/data/keras_weights/ holds the checkpoint TF's ``model.save_weights`` wrote in case D."""
import os
from pathlib import Path

import numpy as np
import pytest

import tinyflow as tf
from tinyflow import keras

pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed")
DATA = Path(__file__).resolve().parent / "data" / "keras_weights"

X = np.sin(np.arange(40).reshape(10, 4) * 0.7).astype(np.float32)
Y = (np.arange(10) * 7) % 3
WEIGHTS = [np.cos(np.arange(12).reshape(4, 3) * 0.5).astype(np.float32) * 0.5,
           np.array([0.1, -0.1, 0.05], np.float32),
           (np.sin(np.arange(9).reshape(3, 3)) * 0.5).astype(np.float32),
           np.zeros(3, np.float32)]


def _classifier(optimizer, metrics=("accuracy",)):
    """Dense(3, tanh) -> Dense(3, softmax) with WEIGHTS, compiled for sparse labels."""
    keras.backend.clear_session()
    model = keras.Sequential([keras.layers.Dense(3, activation="tanh", input_shape=(4,)),
                              keras.layers.Dense(3, activation="softmax")])
    model.set_weights(WEIGHTS)
    model.compile(optimizer, "sparse_categorical_crossentropy", metrics=list(metrics))
    return model


O = keras.optimizers
# fit(X, Y, batch_size=4, epochs=2, shuffle=False): TF's loss and accuracy per epoch, then
# evaluate(X, Y)'s loss
OPTIMIZERS = {
    "sgd": (lambda: O.SGD(lr=0.1), [1.1031438827514648, 1.0960272550582886], [.4, .3],
            1.0803201),
    "sgd_momentum_decay": (lambda: O.SGD(lr=0.1, momentum=0.9, decay=0.01),
                           [1.101909351348877, 1.082300591468811], [.3, .4], 1.0710917),
    "sgd_nesterov": (lambda: O.SGD(learning_rate=0.1, momentum=0.9, nesterov=True),
                     [1.1110799074172975, 1.0907146692276002], [.3, .3], 1.0712578),
    "adam": (lambda: O.Adam(lr=0.01), [1.1008757591247558, 1.087320590019226], [.4, .4],
             1.0824231),
    "adam_amsgrad_decay": (lambda: O.Adam(lr=0.01, amsgrad=True, decay=0.05),
                           [1.1007472038269044, 1.0876269340515137], [.4, .4], 1.0834328),
    "rmsprop": (lambda: O.RMSprop(lr=0.01), [1.1219918251037597, 1.0964722871780395],
                [.3, .3], 1.0764182),
    "rmsprop_centered": (lambda: O.RMSprop(lr=0.01, centered=True),
                         [1.1233036994934082, 1.0962326407432557], [.3, .3], 1.0757875),
    "rmsprop_momentum": (lambda: O.RMSprop(lr=0.01, momentum=0.5),
                         [1.1176739931106567, 1.088999056816101], [.3, .5], 1.0727034),
    "rmsprop_momentum_centered": (lambda: O.RMSprop(lr=0.01, momentum=0.5, centered=True),
                                  [1.1188071727752686, 1.0888850450515748], [.3, .4],
                                  1.072496),
    "adagrad": (lambda: O.Adagrad(lr=0.1), [1.1227618932724, 1.1049782156944274], [.3, .3],
                1.0727807),
    "adadelta": (lambda: O.Adadelta(lr=1.0), [1.0950951814651488, 1.093941044807434],
                 [.5, .4], 1.0918),
    "adamax": (lambda: O.Adamax(lr=0.01), [1.100294327735901, 1.0883588314056396], [.4, .4],
               1.0845151),
    "nadam": (lambda: O.Nadam(lr=0.01), [1.1025665044784545, 1.0929091930389405], [.4, .3],
              1.0840394),
    "by_name_adam": (lambda: "adam", [1.094383668899536, 1.092936372756958], [.5, .5],
                     1.0923145),
    "by_name_rmsprop": (lambda: "rmsprop", [1.0963254928588868, 1.093358588218689], [.4, .4],
                        1.0909977),
    "tf_train_sgd": (lambda: tf.train.GradientDescentOptimizer(0.1),
                     [1.1031438827514648, 1.0960272550582886], [.4, .3], 1.0803201),
}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_each_optimizer_trains_as_tf(name):
    make, losses, accuracies, evaluated = OPTIMIZERS[name]
    model = _classifier(make())
    history = model.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    assert sorted(history.history) == ["acc", "loss"] and history.epoch == [0, 1]
    np.testing.assert_allclose(history.history["loss"], losses, rtol=1e-5)
    np.testing.assert_allclose(history.history["acc"], accuracies, rtol=1e-6)
    np.testing.assert_allclose(model.evaluate(X, Y, verbose=0)[0], evaluated, rtol=1e-5)


def test_optimizers_variables_names_and_errors():
    model = _classifier(O.Adam(0.01, name="Adam"))
    optimizer = model.optimizer
    assert optimizer.lr is optimizer.learning_rate
    assert (optimizer.iterations.op.name, optimizer.lr.op.name) == ("Adam/iter",
                                                                    "Adam/learning_rate")
    assert optimizer.get_slot(model.weights[0], "m").op.name == "dense/kernel/m"
    model.train_on_batch(X[:4], Y[:4])
    assert keras.backend.get_value(optimizer.iterations) == 1
    keras.backend.set_value(optimizer.lr, 0.5)
    assert keras.backend.get_value(optimizer.lr) == np.float32(0.5)
    optimizer.lr = 0.25  # Keras' hyperparameter assignment
    assert keras.backend.get_value(optimizer.learning_rate) == np.float32(0.25)
    config = keras.optimizers.serialize(O.Nadam(0.02, beta_1=0.8))
    assert config["class_name"] == "Nadam" and config["config"]["beta_1"] == 0.8
    assert keras.optimizers.deserialize(config).get_config() == config["config"]
    with pytest.raises(TypeError, match="Unexpected keyword argument passed to optimizer: "
                                        "betas"):
        O.Adam(betas=0.9)
    with pytest.raises(ValueError, match="Unknown optimizer: ftrl"):
        keras.optimizers.get("ftrl")
    with pytest.raises(AttributeError, match="not supported by TinyFlow"):
        _ = keras.optimizers.Ftrl


def test_clipnorm_clips_each_gradient():
    x = tf.placeholder(tf.float32, [2])
    w = tf.Variable([1.0, 2.0])
    step = O.SGD(1.0, clipnorm=0.5).minimize(tf.reduce_sum(w * x), [w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step, {x: [3.0, 4.0]})  # gradient (3, 4), norm 5: clipped to (0.3, 0.4)
        np.testing.assert_allclose(sess.run(w), [0.7, 1.6], rtol=1e-6)


# -- compile / fit's arguments ------------------------------------------------------------------
def test_regression_with_validation_split_and_regularization():
    x = np.cos(np.arange(40).reshape(10, 4) * 0.3).astype(np.float32)
    y = (x @ np.array([[1.], [-1.], [0.5], [2.]], np.float32)) * 0.5 + 0.1
    model = keras.Sequential([keras.layers.Dense(
        1, input_shape=(4,), kernel_regularizer=keras.regularizers.l2(0.01))])
    model.set_weights([0.1 * np.arange(4, dtype=np.float32).reshape(4, 1) - 0.1,
                       np.zeros(1, np.float32)])
    model.compile(keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=3, epochs=2, shuffle=False, verbose=0,
                        validation_split=0.3)
    assert model.metrics_names == ["loss", "mean_absolute_error"]  # TF 1.15's name
    expected = {"loss": [0.35701033589430153, 0.1520727381908468],  # the l2 term included
                "mean_absolute_error": [0.4941217303276062, 0.3297388255596161],
                "val_loss": [0.17261259257793427, 0.08675811439752579],
                "val_mean_absolute_error": [0.4037739336490631, 0.27760395407676697]}
    assert sorted(history.history) == sorted(expected)
    for key, values in expected.items():
        np.testing.assert_allclose(history.history[key], values, rtol=1e-5)
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0, batch_size=4),
                               [0.08364777, 0.2540461], rtol=1e-5)


def _binary(optimizer, metrics):
    model = keras.Sequential([keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.set_weights([np.array([[0.2], [-0.3], [0.1]], np.float32), np.zeros(1, np.float32)])
    model.compile(optimizer, "binary_crossentropy", metrics=metrics)
    return model


XB = np.sin(np.arange(30).reshape(10, 3) * 1.3).astype(np.float32)
YB = (np.arange(10) % 3 == 0).astype(np.float32)


def test_class_weight_validation_data_and_binary_metrics():
    model = _binary(keras.optimizers.Adam(0.05), ["accuracy", "crossentropy"])
    history = model.fit(XB, YB, batch_size=4, epochs=2, shuffle=False, verbose=0,
                        class_weight={0: 1.0, 1: 3.0}, validation_data=(XB[:5], YB[:5]))
    expected = {"loss": [1.281561517715454, 1.1289910793304443], "acc": [0.3, 0.7],
                "ce": [0.7176741361618042, 0.674399197101593],
                "val_loss": [0.7212640047073364, 0.7007592916488647], "val_acc": [0.6, 0.6],
                "val_ce": [0.7212640047073364, 0.7007592916488647]}
    assert sorted(history.history) == sorted(expected)
    for key, values in expected.items():
        np.testing.assert_allclose(history.history[key], values, rtol=1e-5)
    with pytest.raises(ValueError, match=r"The classes \{1\} exist in the data but not"):
        model.fit(XB, YB, class_weight={0: 1.0}, verbose=0)


def test_sample_weight_in_fit_evaluate_and_batches():
    model = _binary(keras.optimizers.SGD(0.5), ["accuracy"])
    weights = np.linspace(0.5, 2.0, 10).astype(np.float32)
    history = model.fit(XB, YB, batch_size=4, epochs=2, shuffle=False, verbose=0,
                        sample_weight=weights)
    np.testing.assert_allclose(history.history["loss"], [0.8581312656402588,
                                                         0.7075557708740234], rtol=1e-5)
    np.testing.assert_allclose(history.history["acc"], [0.5, 0.6], rtol=1e-6)
    np.testing.assert_allclose(model.evaluate(XB, YB, verbose=0, sample_weight=weights),
                               [0.6176807, 0.7], rtol=1e-5)
    np.testing.assert_allclose(model.evaluate(XB, YB, verbose=0), [0.59091336, 0.7],
                               rtol=1e-5)
    # the batch's loss before the step (TF 2's Keras reports an accuracy accumulated since
    # the last evaluate here; TF 1.15's train_on_batch resets it: this batch's, 0.5)
    np.testing.assert_allclose(model.train_on_batch(XB[:4], YB[:4]), [0.8408891, 0.5],
                               rtol=1e-5)
    np.testing.assert_allclose(model.test_on_batch(XB[:4], YB[:4]), [0.7538439, 0.5],
                               rtol=1e-5)
    with pytest.raises(ValueError, match=r"sample_weight should have shape \(10,\)"):
        model.fit(XB, YB, sample_weight=weights[:3], verbose=0)


def test_shuffling_draws_numpy_as_keras():
    np.random.seed(0)  # Keras shuffles with numpy's global generator, its validation too
    history = _classifier(O.SGD(0.1)).fit(X, Y, batch_size=3, epochs=2, verbose=0,
                                          validation_split=0.2).history
    np.testing.assert_allclose(history["loss"], [1.1194720566272736, 1.1189201325178146],
                               rtol=1e-5)
    np.testing.assert_allclose(history["val_loss"], [1.0581135749816895, 1.0886121988296509],
                               rtol=1e-5)
    assert history["acc"] == pytest.approx([0.375, 0.25]) and history["val_acc"] == [1.0, 0.0]
    np.random.seed(1)
    history = _classifier(O.SGD(0.1)).fit(X, Y, batch_size=3, epochs=2, verbose=0,
                                          shuffle="batch").history
    np.testing.assert_allclose(history["loss"], [1.1007206916809082, 1.0872042417526244],
                               rtol=1e-5)


def test_initial_epoch_and_verbose_lines(capsys):
    model = _classifier(O.SGD(0.1))
    history = model.fit(X, Y, batch_size=4, epochs=3, shuffle=False, verbose=2,
                        initial_epoch=1, validation_data=(X[:4], Y[:4]))
    assert history.epoch == [1, 2]
    np.testing.assert_allclose(history.history["val_loss"], [1.086358904838562,
                                                             1.0793452262878418], rtol=1e-5)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["Train on 10 samples, validate on 4 samples", "Epoch 2/3"]
    assert lines[2] == ("10/10 - 0s - loss: 1.1031 - acc: 0.4000 - val_loss: 1.0864 - "
                        "val_acc: 0.2500")
    model.evaluate(X, Y, verbose=1)
    assert capsys.readouterr().out.startswith("10/10 [" + "=" * 30 + "] - 0s")


# -- callbacks ---------------------------------------------------------------------------------
def test_early_stopping_restores_the_best_weights():
    model = _classifier(O.SGD(3.0))
    stop = keras.callbacks.EarlyStopping(monitor="loss", patience=1, restore_best_weights=True)
    history = model.fit(X, Y, batch_size=4, epochs=8, shuffle=False, verbose=0,
                        callbacks=[stop])
    assert history.epoch == [0, 1] and stop.stopped_epoch == 1
    np.testing.assert_allclose(history.history["loss"], [1.4159719467163085, 2.22566704750061],
                               rtol=1e-5)
    np.testing.assert_allclose(model.evaluate(X, Y, verbose=0), [2.0181746, 0.3], rtol=1e-5)


def test_learning_rate_scheduler_and_lambda_callback():
    seen = []
    spy = keras.callbacks.LambdaCallback(
        on_epoch_begin=lambda epoch, logs: seen.append(("epoch", epoch)),
        on_batch_end=lambda batch, logs: seen.append(("batch", batch, sorted(logs))),
        on_train_end=lambda logs: seen.append("end"))
    schedule = keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
    history = _classifier(O.SGD(0.1)).fit(X, Y, batch_size=4, epochs=3, shuffle=False,
                                          verbose=0, callbacks=[schedule, spy])
    np.testing.assert_allclose(history.history["loss"], [1.0983467102050781,
                                                         1.0918943166732789,
                                                         1.0888635635375976], rtol=1e-5)
    np.testing.assert_allclose(history.history["lr"], [0.05, 0.025, 0.0125])
    assert seen[:3] == [("epoch", 0), ("batch", 0, ["acc", "batch", "loss", "size"]),
                        ("batch", 1, ["acc", "batch", "loss", "size"])]
    assert seen[4] == ("epoch", 1) and seen[-1] == "end" and len(seen) == 13
    with pytest.raises(TypeError, match="tf.keras.callbacks.Callback objects"):
        _classifier("sgd").fit(X, Y, callbacks=[object()], verbose=0)


def test_model_checkpoint_saves_the_best_weights_and_load_weights_reads_them(tmp_path):
    model = _classifier(O.SGD(3.0))
    path = str(tmp_path / "w.{epoch:02d}")
    checkpoint = keras.callbacks.ModelCheckpoint(path, monitor="loss", save_best_only=True,
                                                 save_weights_only=True)
    model.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0, callbacks=[checkpoint])
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "w.01.data-00000-of-00001",
                                            "w.01.index"]  # epoch 2's loss was worse
    model.load_weights(str(tmp_path / "w.01"))
    np.testing.assert_allclose(model.evaluate(X, Y, verbose=0), [2.0181746, 0.3], rtol=1e-5)
    with pytest.raises(NotImplementedError, match="save_weights_only=True"):
        keras.callbacks.ModelCheckpoint(path)
    with pytest.raises(NotImplementedError, match="HDF5"):
        model.save_weights(str(tmp_path / "w.h5"))


def test_tensorboard_writes_the_logs_as_scalars(tmp_path):
    model = _classifier(O.SGD(0.1))
    model.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0,
              callbacks=[keras.callbacks.TensorBoard(str(tmp_path))])
    [name] = os.listdir(tmp_path)
    events = list(tf.train.summary_iterator(str(tmp_path / name)))
    assert any(e.HasField("graph_def") for e in events)
    values = {(e.step, v.tag): v.simple_value for e in events for v in e.summary.value}
    assert sorted(values) == [(0, "acc"), (0, "loss"), (1, "acc"), (1, "loss")]
    np.testing.assert_allclose([values[0, "loss"], values[1, "loss"]],
                               [1.1031438827514648, 1.0960272550582886], rtol=1e-5)


def test_reduce_lr_on_plateau_and_terminate_on_nan(capsys):
    model = _classifier(O.SGD(3.0))
    history = model.fit(X, Y, batch_size=4, epochs=5, shuffle=False, verbose=0, callbacks=[
        keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_lr=0.5)])
    np.testing.assert_allclose(history.history["lr"], [3.0, 3.0, 1.5, 0.75, 0.5])
    np.testing.assert_allclose(history.history["loss"], [
        1.4159719467163085, 2.22566704750061, 2.3940820693969727, 2.113265371322632,
        1.2571062713861465], rtol=1e-5)
    with pytest.raises(ValueError, match="factor >= 1.0"):
        keras.callbacks.ReduceLROnPlateau(factor=2)
    broken = X.copy()
    broken[5, 0] = np.nan  # the second batch's loss is NaN: TF stops after it
    history = _classifier(O.SGD(0.1)).fit(broken, Y, batch_size=4, epochs=3, shuffle=False,
                                          verbose=0, callbacks=[keras.callbacks.TerminateOnNaN()])
    assert history.epoch == [0] and np.isnan(history.history["loss"][0])
    assert history.history["acc"] == [0.25]
    assert capsys.readouterr().out == "Batch 1: Invalid loss, terminating training\n"


def test_csv_logger_writes_a_row_per_epoch(tmp_path):
    path = tmp_path / "log.csv"
    model = _classifier(O.SGD(0.1))
    model.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0,
              callbacks=[keras.callbacks.CSVLogger(str(path))])
    model.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0,
              callbacks=[keras.callbacks.CSVLogger(str(path), append=True)])
    rows = [line.split(",") for line in path.read_text().splitlines()]
    assert rows[0] == ["epoch", "acc", "loss"] and [r[0] for r in rows[1:]] == ["0", "1", "0"]
    np.testing.assert_allclose([float(r[2]) for r in rows[1:3]],
                               [1.1031438827514648, 1.0960272550582886], rtol=1e-5)


def test_a_functional_model_with_a_loss_object_and_loss_weights():
    inputs = keras.Input((4,))
    logits = keras.layers.Dense(3, kernel_initializer=keras.initializers.Constant(WEIGHTS[0]),
                                bias_initializer=keras.initializers.Constant(WEIGHTS[1]))(inputs)
    model = keras.Model(inputs, logits)
    model.compile(O.Adam(0.1), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[keras.metrics.sparse_categorical_accuracy, "acc"],
                  loss_weights=[0.5])
    history = model.fit(X, Y, batch_size=5, epochs=2, shuffle=False, verbose=0)
    assert model.metrics_names == ["loss", "sparse_categorical_accuracy", "acc"]
    np.testing.assert_allclose(history.history["loss"], [0.6055229008197784,
                                                         0.5609312653541565], rtol=1e-5)
    np.testing.assert_allclose(history.history["acc"], [0.3, 0.5], rtol=1e-6)
    np.testing.assert_allclose(model.evaluate(X, Y, verbose=0), [0.54888695, 0.4, 0.4],
                               rtol=1e-5)


# -- weights files, utils, the session ----------------------------------------------------------
def test_load_weights_reads_tfs_save_weights_and_save_weights_writes_its_keys(tmp_path):
    keras.backend.clear_session()
    model = keras.Sequential([keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                              keras.layers.Dense(3, activation="softmax")])
    model.compile("sgd", "categorical_crossentropy", metrics=["acc"])
    model.load_weights(str(DATA / "w"))  # TF's, after two epochs of SGD
    np.testing.assert_allclose(model.predict(XB[:2]), [
        [0.4055938124656677, 0.3206750750541687, 0.2737311124801636],
        [0.33897799253463745, 0.33187130093574524, 0.32915064692497253]], rtol=1e-5)
    model.save_weights(str(tmp_path / "mine"))
    assert tf.train.list_variables(str(tmp_path / "mine")) == [
        ("layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE", [4]),
        ("layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE", [3, 4]),
        ("layer_with_weights-1/bias/.ATTRIBUTES/VARIABLE_VALUE", [3]),
        ("layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE", [4, 3])]  # as TF's


def test_to_categorical_and_normalize():
    one_hot = keras.utils.to_categorical(np.arange(10) % 3, 3)
    assert one_hot.dtype == np.float32 and one_hot.shape == (10, 3)
    np.testing.assert_array_equal(one_hot.argmax(1), np.arange(10) % 3)
    assert keras.utils.to_categorical([[1], [2]], 4).shape == (2, 4)
    assert keras.utils.to_categorical([[0, 1]]).shape == (1, 2, 2)
    np.testing.assert_allclose(keras.utils.normalize(np.arange(6.).reshape(2, 3)), [
        [0.0, 0.4472135954999579, 0.8944271909999159],
        [0.4242640687119285, 0.565685424949238, 0.7071067811865475]])
    np.testing.assert_allclose(keras.utils.normalize(np.arange(6.).reshape(2, 3), axis=0,
                                                     order=1),
                               [[0.0, 0.2, 0.2857142857142857], [1.0, 0.8, 0.7142857142857143]])


def test_a_tutorial_program_in_the_users_session():
    rng = np.random.default_rng(0)
    images = rng.random((60, 4, 4)).astype(np.float32)
    labels = (images[:, 0, 0] > 0.5).astype(np.int64) + (images[:, 1, 1] > 0.5)
    model = keras.Sequential([keras.layers.Flatten(input_shape=(4, 4)),
                              keras.layers.Dense(16, activation=tf.nn.relu),
                              keras.layers.Dense(3, activation=tf.nn.softmax)])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert keras.backend.get_session() is sess
        before = sess.run(model.weights[0])
        history = model.fit(images, labels, epochs=3, validation_split=0.2, verbose=0,
                            callbacks=[keras.callbacks.EarlyStopping(patience=2)])
        assert not np.allclose(sess.run(model.weights[0]), before)
        loss, accuracy = model.evaluate(images, labels, verbose=0)
        predictions = model.predict(images)
    assert sorted(history.history) == ["acc", "loss", "val_acc", "val_loss"]
    assert predictions.shape == (60, 3)
    np.testing.assert_allclose(predictions.sum(1), 1.0, rtol=1e-5)
    assert accuracy == pytest.approx((predictions.argmax(1) == labels).mean())
    picked = predictions[np.arange(60), labels]
    np.testing.assert_allclose(loss, -np.log(picked).mean(), rtol=1e-5)


def test_a_model_without_input_shape_is_built_on_the_data():
    ids = (np.arange(60).reshape(6, 10) * 7) % 20
    labels = (ids[:, 0] > 9).astype(np.float32)
    model = keras.Sequential([keras.layers.Embedding(20, 4),  # Keras' input_shape (None,)
                              keras.layers.GlobalAveragePooling1D(),
                              keras.layers.Dense(1, activation="sigmoid")])
    assert model.inputs[0].get_shape().as_list() == [None, None]
    model.compile("adam", "binary_crossentropy", metrics=["acc"])
    assert model.fit(ids, labels, epochs=2, verbose=0).epoch == [0, 1]
    deferred = keras.Sequential([keras.layers.Dense(3, activation="relu"),
                                 keras.layers.Dense(1)])
    deferred.compile(keras.optimizers.RMSprop(0.01), "mse", metrics=["mae"])
    assert deferred.inputs is None
    history = deferred.fit(X, X[:, :1], epochs=2, verbose=0)
    assert deferred.inputs[0].get_shape().as_list() == [None, 4]
    assert deferred.metrics_names == ["loss", "mean_absolute_error"]
    assert history.history["loss"][1] < history.history["loss"][0]


def test_bad_arrays_name_what_is_wrong():
    model = _classifier("sgd")
    with pytest.raises(ValueError, match=r"expected dense_input to have shape \(4,\) but got "
                                         r"array with shape \(10, 3\)"):
        model.fit(X[:, :3], Y, verbose=0)
    with pytest.raises(ValueError, match="Found 10 input samples and 9 target samples"):
        model.evaluate(X, Y[:9], verbose=0)
    regression = keras.Sequential([keras.layers.Dense(2, input_shape=(4,))])
    regression.compile("sgd", "mse")
    with pytest.raises(ValueError, match=r"expected dense_2 to have shape \(2,\) but got "
                                         r"array with shape \(10, 3\)"):
        regression.fit(X, np.zeros((10, 3)), verbose=0)
    with pytest.raises(NotImplementedError, match="fit's steps_per_epoch is not supported"):
        regression.fit(X, np.zeros((10, 2)), steps_per_epoch=2)
    with pytest.raises(ValueError, match="Please provide target data `y`"):
        regression.evaluate(X)
    with pytest.raises(NotImplementedError, match="training on generator data"):
        regression.fit((row for row in X), epochs=1)


def _dataset_model():
    model = keras.Sequential([
        keras.layers.Dense(3, activation="relu", input_shape=(4,),
                           kernel_initializer=keras.initializers.Constant(0.1)),
        keras.layers.Dense(2, activation="softmax",
                           kernel_initializer=keras.initializers.Constant(-0.2))])
    model.compile(optimizer=keras.optimizers.SGD(0.5), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def test_fit_evaluate_predict_on_a_dataset_as_tensorflow():
    # values from TF 2.21 compat.v1 (tf_keras' graph-mode loop, the same program): an epoch
    # is the whole dataset, or steps_per_epoch batches going on from the epoch before; the
    # loss is the mean over batches (8 samples in the last), the accuracy over samples;
    # validation and evaluate start from the dataset's start each time
    rng = np.random.RandomState(0)
    x = rng.randn(40, 4).astype(np.float32)
    y = (x.sum(1) > 0).astype(np.int64)
    batches = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
    model = _dataset_model()
    history = model.fit(batches, epochs=2, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [0.702959, 0.668615], atol=2e-6)
    np.testing.assert_allclose(history.history["acc"], [0.65, 0.575], atol=1e-6)
    np.testing.assert_allclose(model.evaluate(batches, verbose=0), [0.608023, 0.875],
                               atol=2e-6)
    predictions = model.predict(tf.data.Dataset.from_tensor_slices(x).batch(16))
    assert predictions.shape == (40, 2)
    np.testing.assert_allclose(predictions[:, 0].sum(), 20.21508, atol=1e-4)

    model = _dataset_model()
    repeated = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat()
    history = model.fit(repeated, epochs=3, steps_per_epoch=2, validation_data=batches,
                        validation_steps=2, verbose=0)
    expected = {"loss": [0.77092, 0.678279, 0.674854], "acc": [0.125, 0.625, 0.625],
                "val_loss": [0.682882, 0.624514, 0.570416], "val_acc": [0.53125, 0.59375, 0.59375]}
    for key, values in expected.items():
        np.testing.assert_allclose(history.history[key], values, atol=2e-6, err_msg=key)
    np.testing.assert_allclose(model.evaluate(repeated, steps=3, verbose=0), [0.612517, 0.5],
                               atol=2e-6)


def test_a_dataset_that_runs_out_stops_training_as_keras():
    x = np.ones((20, 4), np.float32)
    batches = tf.data.Dataset.from_tensor_slices((x, np.zeros(20, np.int64))).batch(5)
    model = _dataset_model()
    with pytest.warns(UserWarning, match="Your dataset ran out of data"):
        history = model.fit(batches, epochs=3, steps_per_epoch=3, verbose=0)
    assert len(history.history["loss"]) == 2  # 3 batches, then the 4th and the end
    with pytest.raises(ValueError, match="`y` argument is not supported when using dataset"):
        model.fit(batches, np.zeros(20), epochs=1)
