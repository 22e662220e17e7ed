"""tf.keras in TF-1 graph programs, against numbers from real TensorFlow (tensorflow 2.21's
tf.compat.v1 in graph mode with tf-keras 2.21, TF_USE_LEGACY_KERAS=1: Keras 2 as TF 1.15 had
it, written down below), numpy, and finite differences: variable names, sharing by calling a
layer or a model again, the learning phase, regularization losses and updates kept on the
layer, losses and activations, Sequential / functional models, get/set_weights, summary(),
a small training program, and the names TinyFlow does not support."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed")
keras = tf.keras


def _rand(*shape, seed=0):
    return np.random.default_rng([seed, *shape]).standard_normal(shape).astype(np.float32)


def _session():
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return sess


# -- names, sharing, collections ---------------------------------------------------------------
def test_variable_names_as_tf_and_kept_off_the_collections():
    x = tf.placeholder(tf.float32, [None, 4])
    dense = keras.layers.Dense(3, activation="relu",
                               kernel_regularizer=keras.regularizers.l2(0.01))
    h = dense(x)
    dense(x)  # the same layer object again: its variables, no new ones
    with tf.variable_scope("foo"):
        keras.layers.Dense(2)(h)
    with tf.name_scope("bar"):
        keras.layers.Dense(2, name="mine")(h)
    norm = keras.layers.BatchNormalization()
    norm(h)
    keras.layers.Dropout(0.5)(h)
    # real TF (tf-keras, graph mode): these names; no UPDATE_OPS and no REGULARIZATION_LOSSES
    # (TF 1.15's Keras layers keep both on the layer, unlike tf.layers)
    assert [v.name for v in tf.global_variables()] == [
        "dense/kernel:0", "dense/bias:0", "foo/dense_1/kernel:0", "foo/dense_1/bias:0",
        "bar/mine/kernel:0", "bar/mine/bias:0", "batch_normalization/gamma:0",
        "batch_normalization/beta:0", "batch_normalization/moving_mean:0",
        "batch_normalization/moving_variance:0"]
    assert len(tf.trainable_variables()) == 8
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == []
    assert len(dense.losses) == 1 and len(norm.updates) == 2
    assert dense.name == "dense" and [w.name for w in dense.weights] == [
        "dense/kernel:0", "dense/bias:0"]
    sess = _session()
    kernel = sess.run(dense.kernel)
    np.testing.assert_allclose(sess.run(dense.losses[0]), 0.01 * np.sum(kernel ** 2),
                               rtol=1e-5)


def test_learning_phase_is_a_placeholder_with_default_false():
    phase = keras.backend.learning_phase()
    assert phase.name == "keras_learning_phase:0" and phase.dtype == tf.bool
    assert phase.get_shape().as_list() == []
    assert keras.backend.learning_phase() is phase
    x = tf.constant(np.ones((200, 50), np.float32))
    dropped = keras.layers.Dropout(0.5)(x)
    sess = _session()
    np.testing.assert_array_equal(sess.run(dropped), np.ones((200, 50)))
    trained = sess.run(dropped, {phase: True})
    assert set(np.unique(trained)) == {0.0, 2.0} and 0.4 < (trained == 0).mean() < 0.6
    keras.backend.set_learning_phase(1)
    assert keras.backend.learning_phase() == 1
    assert (sess.run(keras.layers.Dropout(0.5)(x)) == 0).any()
    keras.backend.clear_session()  # a new default graph: names and learning phase anew
    assert keras.layers.Dense(1).name == "dense"
    assert keras.backend.learning_phase().name == "keras_learning_phase:0"


def test_batch_normalization_follows_the_learning_phase_and_updates_on_request():
    x = _rand(6, 3) * 2 + 1
    norm = keras.layers.BatchNormalization(momentum=0.5)
    out = norm(tf.constant(x))
    sess = _session()
    np.testing.assert_allclose(sess.run(out), x / np.sqrt(1 + 1e-3), rtol=1e-5)  # moving 0 / 1
    phase = keras.backend.learning_phase()
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(sess.run(out, {phase: True}), (x - mean) / np.sqrt(var + 1e-3),
                               rtol=1e-4, atol=1e-5)
    sess.run(norm.updates, {phase: True})
    np.testing.assert_allclose(sess.run(norm.moving_mean), 0.5 * mean, rtol=1e-5)
    np.testing.assert_allclose(sess.run(norm.moving_variance), 0.5 + 0.5 * var, rtol=1e-5)


def test_reusing_a_layer_shares_its_variables():
    dense = keras.layers.Dense(2)
    a, b = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [None, 3])
    ya, yb = dense(a), dense(b)
    assert len(tf.global_variables()) == 2
    sess = _session()
    value = _rand(4, 3)
    first, second = sess.run([ya, yb], {a: value, b: value})
    np.testing.assert_array_equal(first, second)
    kernel, bias = sess.run(dense.weights)
    np.testing.assert_allclose(first, value @ kernel + bias, rtol=1e-5, atol=1e-6)


def test_get_and_set_weights_in_the_default_session():
    dense = keras.layers.Dense(2, input_shape=(3,))
    out = dense(tf.constant(np.eye(3, dtype=np.float32)))
    with tf.Session() as sess:  # get_session initializes what the session has no value for
        kernel, bias = dense.get_weights()
        assert kernel.shape == (3, 2) and np.all(bias == 0)
        assert np.abs(kernel).max() <= np.sqrt(6 / 5)  # glorot_uniform's limit
        new = [np.arange(6, dtype=np.float32).reshape(3, 2), np.array([1, -1], np.float32)]
        dense.set_weights(new)
        np.testing.assert_array_equal(sess.run(out), new[0] + new[1])
        with pytest.raises(ValueError, match=r"not compatible .*\(2, 3\).*dense/kernel"):
            dense.set_weights([np.zeros((2, 3)), np.zeros(2)])
        with pytest.raises(ValueError, match="expecting 2 weights"):
            dense.set_weights([np.zeros((3, 2))])
        np.testing.assert_array_equal(sess.run(out), new[0] + new[1])  # left as it was


# -- losses, activations, shapes against real TF ---------------------------------------------------
PROBS = np.array([[0.2, 0.5, 0.3], [0.9, 0.05, 0.05], [0.0, 0.3, 0.7]], np.float32)
UNNORM = np.array([[1.0, 2.0, 1.0], [0.5, 0.1, 0.4], [3.0, 0.0, 1.0]], np.float32)
LOGITS = np.array([[1.0, -2.0, 0.5], [0.3, 0.2, -0.1], [-1.0, 2.0, 3.0]], np.float32)
ONEHOT = np.eye(3, dtype=np.float32)[[1, 0, 2]]
SPARSE = np.array([1, 0, 2])
BIN_TRUE = np.array([[1., 0.], [0., 1.], [1., 1.]], np.float32)
BIN_PRED = np.array([[0.9, 0.2], [0.6, 0.0], [0.3, 1.0]], np.float32)
WEIGHTS = np.array([1.0, 0.5, 2.0], np.float32)
LOSSES = keras.losses


def _c(value):
    return tf.constant(value)


# name -> (the TinyFlow expression, real TF's value)
LOSS_CASES = {
    "scce_probs": (lambda: LOSSES.sparse_categorical_crossentropy(SPARSE, _c(PROBS)),
                   [0.6931472, 0.10536056, 0.35667506]),
    "scce_logits": (lambda: LOSSES.sparse_categorical_crossentropy(SPARSE, _c(LOGITS), True),
                    [3.504597, 0.94591063, 0.32656264]),
    "cce_unnormalized": (lambda: LOSSES.categorical_crossentropy(_c(ONEHOT), _c(UNNORM)),
                         [0.6931472, 0.6931472, 1.3862944]),
    "cce_logits_smoothed": (lambda: LOSSES.categorical_crossentropy(
        _c(ONEHOT), _c(LOGITS), from_logits=True, label_smoothing=0.1),
        [3.3212638, 0.96257734, 0.49322933]),
    "bce_probs": (lambda: LOSSES.binary_crossentropy(_c(BIN_TRUE), _c(BIN_PRED)),
                  [0.1642519, 8.17062, 0.6019862]),
    "bce_logits": (lambda: LOSSES.binary_crossentropy(_c(BIN_TRUE), _c(LOGITS[:, :2]), True),
                   [0.22009484, 0.7262471, 0.72009486]),
    "mse": (lambda: LOSSES.mse(_c(BIN_TRUE), _c(BIN_PRED)), [0.025, 0.68, 0.245]),
    "mae": (lambda: LOSSES.MAE(_c(BIN_TRUE), _c(BIN_PRED)), [0.15, 0.8, 0.35]),
    "hinge": (lambda: LOSSES.hinge(_c(BIN_TRUE), _c(LOGITS[:, :2])), [0.0, 1.05, 1.0]),
    "squared_hinge": (lambda: LOSSES.squared_hinge(_c(BIN_TRUE), _c(LOGITS[:, :2])),
                      [0.0, 1.165, 2.0]),
    "SparseCategoricalCrossentropy_weighted": (
        lambda: LOSSES.SparseCategoricalCrossentropy(from_logits=True)(
            SPARSE, _c(LOGITS), sample_weight=WEIGHTS), 1.5435591),
    "CategoricalCrossentropy": (lambda: LOSSES.CategoricalCrossentropy()(ONEHOT, _c(PROBS)),
                                0.38506088),
    "MeanSquaredError_sum": (lambda: LOSSES.MeanSquaredError(reduction="sum")(
        BIN_TRUE, _c(BIN_PRED)), 0.95),
    "BinaryCrossentropy_weighted": (lambda: LOSSES.BinaryCrossentropy(from_logits=True)(
        BIN_TRUE, _c(LOGITS[:, :2]), sample_weight=WEIGHTS), 0.6744694),
    # a softmax's or sigmoid's output: Keras takes its input as the logits (no clipping)
    "scce_of_softmax": (lambda: LOSSES.sparse_categorical_crossentropy(
        SPARSE, tf.nn.softmax(_c(LOGITS * 40))), [120.0, 0.018150078, 0.0]),
    "cce_of_softmax": (lambda: LOSSES.categorical_crossentropy(
        _c(ONEHOT), tf.nn.softmax(_c(LOGITS * 40))), [120.0, 0.018150078, 0.0]),
    "bce_of_sigmoid": (lambda: LOSSES.binary_crossentropy(
        _c(ONEHOT), tf.nn.sigmoid(_c(LOGITS * 40))), [46.666668, 2.6728306, 26.666666]),
}

# tf.keras.metrics' functions: real TF's values (tensorflow 2.21 compat.v1, tf-keras)
METRICS = keras.metrics
METRIC_CASES = {
    "binary_accuracy": (lambda: METRICS.binary_accuracy(_c(BIN_TRUE), _c(BIN_PRED)),
                        [1.0, 0.0, 0.5]),
    "binary_accuracy_threshold": (lambda: METRICS.binary_accuracy(
        _c(BIN_TRUE), _c(BIN_PRED), threshold=0.95), [0.5, 0.5, 0.5]),
    "categorical_accuracy": (lambda: METRICS.categorical_accuracy(_c(ONEHOT), _c(LOGITS)),
                             [0.0, 1.0, 1.0]),
    "sparse_categorical_accuracy": (lambda: METRICS.sparse_categorical_accuracy(
        SPARSE, _c(LOGITS)), [0.0, 1.0, 1.0]),
    "sparse_categorical_accuracy_column": (lambda: METRICS.sparse_categorical_accuracy(
        _c(SPARSE[:, None].astype(np.float32)), _c(LOGITS)), [0.0, 1.0, 1.0]),
    "top_k_categorical_accuracy": (lambda: METRICS.top_k_categorical_accuracy(
        _c(ONEHOT), _c(LOGITS), k=2), [0.0, 1.0, 1.0]),
    "sparse_top_k_categorical_accuracy": (lambda: METRICS.sparse_top_k_categorical_accuracy(
        SPARSE, _c(LOGITS), k=1), [0.0, 1.0, 1.0]),
    "metric_mse": (lambda: METRICS.mse(_c(BIN_TRUE), _c(BIN_PRED)), [0.025, 0.68, 0.245]),
}

ACTIVATION_CASES = {
    "relu_all": (lambda: keras.activations.relu(_c(LOGITS), alpha=0.1, max_value=2.5,
                                                threshold=0.25),
                 [[1.0, -0.225, 0.5], [0.3, -0.005, -0.035], [-0.125, 2.0, 2.5]]),
    "relu_max6": (lambda: keras.activations.relu(_c(LOGITS * 3), max_value=6),
                  [[3.0, 0.0, 1.5], [0.9, 0.6, 0.0], [0.0, 6.0, 6.0]]),
    "hard_sigmoid": (lambda: keras.activations.get("hard_sigmoid")(_c(LOGITS * 2)),
                     [[0.9, 0.0, 0.7], [0.62, 0.58, 0.46], [0.1, 1.0, 1.0]]),
    "elu_alpha": (lambda: keras.activations.elu(_c(LOGITS), alpha=0.5),
                  [[1.0, -0.43233237, 0.5], [0.3, 0.2, -0.04758132], [-0.31606027, 2.0, 3.0]]),
    "LeakyReLU": (lambda: keras.layers.LeakyReLU()(LOGITS),
                  [[1.0, -0.6, 0.5], [0.3, 0.2, -0.03], [-0.3, 2.0, 3.0]]),
    "ReLU": (lambda: keras.layers.ReLU(max_value=1.0, negative_slope=0.2, threshold=0.1)(LOGITS),
             [[1.0, -0.42, 0.5], [0.3, 0.2, -0.04], [-0.22, 1.0, 1.0]]),
    "l1_l2": (lambda: keras.regularizers.l1_l2(0.01, 0.02)(_c(LOGITS)), 0.48879996),
    "GlobalAveragePooling2D": (lambda: keras.layers.GlobalAveragePooling2D()(IMAGES),
                               [[0.8, 0.9], [2.6, 2.7]]),
    "GlobalMaxPooling2D": (lambda: keras.layers.GlobalMaxPooling2D()(IMAGES),
                           [[1.6, 1.7], [3.4, 3.5]]),
    "ZeroPadding2D_shape": (lambda: tf.shape(keras.layers.ZeroPadding2D(((1, 0), (2, 1)))(
        IMAGES)), [2, 4, 6, 2]),
    "Reshape_shape": (lambda: tf.shape(keras.layers.Reshape((-1, 2))(IMAGES)), [2, 9, 2]),
    "Permute_shape": (lambda: tf.shape(keras.layers.Permute((3, 1, 2))(IMAGES)), [2, 2, 3, 3]),
}
IMAGES = np.arange(36, dtype=np.float32).reshape(2, 3, 3, 2) / 10


@pytest.mark.parametrize("case", [*LOSS_CASES, *METRIC_CASES, *ACTIVATION_CASES])
def test_values_as_real_tf(case):
    build, expected = {**LOSS_CASES, **METRIC_CASES, **ACTIVATION_CASES}[case]
    result = build()
    np.testing.assert_allclose(_session().run(result), expected, rtol=2e-5, atol=1e-6)


def test_loss_gradients_against_finite_differences():
    check_gradients(lambda p: LOSSES.categorical_crossentropy(_c(ONEHOT), p),
                    inputs=[UNNORM], name="categorical_crossentropy")
    check_gradients(lambda p: LOSSES.binary_crossentropy(_c(BIN_TRUE), p),
                    inputs=[np.clip(BIN_PRED, 0.1, 0.9)], name="binary_crossentropy")
    check_gradients(lambda z: LOSSES.SparseCategoricalCrossentropy(from_logits=True)(
        SPARSE, z, sample_weight=WEIGHTS), inputs=[LOGITS], name="scce")


def test_weight_gradients_of_a_model_against_finite_differences():
    """tf.gradients of a Sequential model's loss with respect to its variables, against
    central differences of the loss as set_weights moves each variable."""
    model = keras.Sequential([keras.layers.Dense(4, activation="tanh", input_shape=(3,)),
                              keras.layers.Dense(2)])
    x, labels = _rand(5, 3), np.array([0, 1, 1, 0, 1])
    loss = tf.reduce_mean(LOSSES.sparse_categorical_crossentropy(
        labels, model(tf.constant(x)), from_logits=True))
    grads = tf.gradients(loss, model.trainable_variables)
    with tf.Session() as sess:
        weights = model.get_weights()
        symbolic = sess.run(grads)
        for i, weight in enumerate(weights):
            numeric = np.zeros_like(weight)
            for index in np.ndindex(weight.shape):
                values = []
                for step in (1e-2, -1e-2):
                    moved = [w.copy() for w in weights]
                    moved[i][index] += step
                    model.set_weights(moved)
                    values.append(sess.run(loss))
                numeric[index] = (values[0] - values[1]) / 2e-2
            np.testing.assert_allclose(symbolic[i], numeric, rtol=2e-2, atol=2e-3)


# -- models --------------------------------------------------------------------------------
SUMMARY = """\
Model: "sequential"
_________________________________________________________________
Layer (type)                 Output Shape              Param #   
=================================================================
conv2d (Conv2D)              (None, 6, 6, 4)           40        
_________________________________________________________________
max_pooling2d (MaxPooling2D) (None, 3, 3, 4)           0         
_________________________________________________________________
batch_normalization (BatchNor(None, 3, 3, 4)           16        
_________________________________________________________________
flatten (Flatten)            (None, 36)                0         
_________________________________________________________________
dropout (Dropout)            (None, 36)                0         
_________________________________________________________________
dense (Dense)                (None, 3)                 111       
=================================================================
Total params: 167
Trainable params: 159
Non-trainable params: 8
_________________________________________________________________"""


def test_sequential_builds_on_its_input_shape_and_prints_keras_summary():
    model = keras.Sequential([
        keras.layers.Conv2D(4, 3, input_shape=(8, 8, 1), activation="relu"),
        keras.layers.MaxPooling2D(), keras.layers.BatchNormalization(),
        keras.layers.Flatten(), keras.layers.Dropout(0.5), keras.layers.Dense(3)])
    # real TF: these names, the input conv2d_input:0 [None, 8, 8, 1], output dense/BiasAdd:0,
    # and its table's rows and counts (TF 1.15 prints them in the layout below)
    assert [v.name for v in model.variables] == [
        "conv2d/kernel:0", "conv2d/bias:0", "batch_normalization/gamma:0",
        "batch_normalization/beta:0", "batch_normalization/moving_mean:0",
        "batch_normalization/moving_variance:0", "dense/kernel:0", "dense/bias:0"]
    assert model.input.name == "conv2d_input:0"
    assert model.input.get_shape().as_list() == [None, 8, 8, 1]
    assert model.output.name == "dense/BiasAdd:0"
    lines = []
    model.summary(print_fn=lines.append)
    assert "\n".join(lines) == SUMMARY
    assert len(model.trainable_variables) == 6 and len(model.updates) == 2


def test_a_functional_model_applies_to_new_inputs_sharing_weights():
    inputs = keras.Input((5,))
    assert inputs.name == "input_1:0" and inputs.op.type == "Placeholder"
    left = keras.layers.Dense(3, activation="relu")(inputs)
    right = keras.layers.Dense(2)(inputs)
    joined = keras.layers.concatenate([left, right])
    outputs = keras.layers.Dense(1)(keras.layers.add([joined, joined]))
    model = keras.Model(inputs=inputs, outputs=outputs)
    assert [type(layer).__name__ for layer in model.layers] == [
        "InputLayer", "Dense", "Dense", "Concatenate", "Add", "Dense"]
    assert model.layers[0].name == "input_1" and model.layers[0].output is inputs
    other = tf.placeholder(tf.float32, [None, 5])
    again = model(other)
    assert len(tf.global_variables()) == 6 and len(model.trainable_variables) == 6
    sess = _session()
    value = _rand(4, 5)
    first, second = sess.run([outputs, again], {inputs: value, other: value})
    np.testing.assert_allclose(first, second, rtol=1e-6)
    k1, b1, k2, b2, k3, b3 = sess.run(model.weights)
    hidden = np.concatenate([np.maximum(value @ k1 + b1, 0), value @ k2 + b2], axis=1)
    np.testing.assert_allclose(first, 2 * hidden @ k3 + b3, rtol=1e-5, atol=1e-6)
    stray = tf.placeholder(tf.float32, [None, 5])
    with pytest.raises(ValueError, match="Graph disconnected.*Placeholder"):
        keras.Model(inputs, keras.layers.Dense(1)(stray))


def test_model_subclass_tracks_its_layers_and_saving_is_refused():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = keras.layers.Dense(4, activation="relu")
            self.out = keras.layers.Dense(2)

        def call(self, inputs):
            return self.out(self.hidden(inputs))

    net = Net()
    result = net(tf.placeholder(tf.float32, [None, 3]))
    assert net.name == "net" and result.get_shape().as_list() == [None, 2]
    assert [v.name for v in net.trainable_variables] == [
        "net/dense/kernel:0", "net/dense/bias:0", "net/dense_1/kernel:0", "net/dense_1/bias:0"]
    with pytest.raises(NotImplementedError, match="save is not supported by TinyFlow"):
        net.save("model.h5")
    with pytest.raises(NotImplementedError, match="compile of a model without exactly one"):
        net.compile("adam", "mse")  # a subclassed model has no inputs to train from


def test_models_built_on_their_first_call_name_variables_in_their_scope():
    model = keras.Sequential([keras.layers.Dense(3), keras.layers.Dense(1)])
    out = model(tf.placeholder(tf.float32, [None, 3]))
    inputs = keras.Input((5,))
    functional = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    again = functional(tf.placeholder(tf.float32, [None, 5]))
    # real TF's names
    assert [v.name for v in model.trainable_variables] == [
        "sequential/dense/kernel:0", "sequential/dense/bias:0", "sequential/dense_1/kernel:0",
        "sequential/dense_1/bias:0"]
    assert out.name == "sequential/dense_1/BiasAdd:0"
    assert again.name == "model/dense_2/BiasAdd:0" and functional.name == "model"


def test_a_custom_layer_with_add_weight():
    class Scale(keras.layers.Layer):
        def __init__(self, factor, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def build(self, input_shape):
            self.w = self.add_weight(name="w", shape=[int(input_shape[-1])],
                                     initializer="ones", regularizer="l1")
            super().build(input_shape)

        def call(self, inputs):
            return inputs * self.w * self.factor

    layer = Scale(3.0)
    out = layer(tf.constant(np.ones((2, 4), np.float32)))
    assert layer.name == "scale" and layer.trainable_weights[0].name == "scale/w:0"
    sess = _session()
    np.testing.assert_array_equal(sess.run(out), np.full((2, 4), 3.0))
    np.testing.assert_allclose(sess.run(layer.losses[0]), 0.04)  # "l1": 0.01 * sum(|w|)


def test_more_layers_shapes_and_values():
    ids = tf.constant(np.array([[1, 2], [3, 9]], np.int32))
    embedding = keras.layers.Embedding(10, 3)
    looked_up = embedding(ids)
    assert embedding.weights[0].name == "embedding/embeddings:0"
    images = tf.placeholder(tf.float32, [None, 8, 8, 3])
    shapes = {
        "conv1d": keras.layers.Conv1D(4, 3, padding="causal")(
            tf.placeholder(tf.float32, [None, 10, 2])),
        "separable": keras.layers.SeparableConv2D(5, 3, padding="same")(images),
        "transpose": keras.layers.Conv2DTranspose(2, 3, strides=2)(images),
        "avg1d": keras.layers.AveragePooling1D()(tf.placeholder(tf.float32, [None, 10, 2])),
        "avg2d": keras.layers.AveragePooling2D(3, 2)(images),
        "gap1d": keras.layers.GlobalMaxPooling1D()(tf.placeholder(tf.float32, [None, 7, 2])),
        "softmax": keras.layers.Softmax()(images),
        "activation": keras.layers.Activation("tanh")(images),
        "lambda": keras.layers.Lambda(lambda t, k: t * k, arguments={"k": 2.0})(images),
        "multiply": keras.layers.Multiply()([images, images]),
    }
    assert {k: v.get_shape().as_list() for k, v in shapes.items()} == {
        "conv1d": [None, 10, 4], "separable": [None, 8, 8, 5], "transpose": [None, 17, 17, 2],
        "avg1d": [None, 5, 2], "avg2d": [None, 3, 3, 3], "gap1d": [None, 2],
        "softmax": [None, 8, 8, 3], "activation": [None, 8, 8, 3], "lambda": [None, 8, 8, 3],
        "multiply": [None, 8, 8, 3]}
    zeros = keras.layers.Dense(2, kernel_initializer="zeros", bias_initializer="ones")(
        tf.constant(np.ones((1, 3), np.float32)))
    sess = _session()
    table, rows = sess.run([embedding.embeddings, looked_up])
    np.testing.assert_array_equal(rows, table[[[1, 2], [3, 9]]])
    assert np.abs(table).max() <= 0.05  # Keras' "uniform": U(-0.05, 0.05)
    np.testing.assert_array_equal(sess.run(zeros), [[1.0, 1.0]])


def test_an_mnist_like_program_trains():
    """The program of TF 1.15's tutorials, Keras layers in a tf.Session loop, on synthetic
    10-class data (each class a noisy template): the loss must fall well below its start."""
    rng = np.random.default_rng(0)
    templates = rng.standard_normal((10, 64)).astype(np.float32)
    labels = rng.integers(0, 10, 512)
    images = templates[labels] + 0.5 * rng.standard_normal((512, 64)).astype(np.float32)
    x, y = tf.placeholder(tf.float32, [None, 64]), tf.placeholder(tf.int64, [None])
    hidden = keras.layers.Dense(32, activation="relu")(x)
    logits = keras.layers.Dense(10)(keras.layers.Dropout(0.2)(hidden))
    loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, logits,
                                                                        from_logits=True))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    sess = _session()
    phase = keras.backend.learning_phase()
    start = sess.run(loss, {x: images, y: labels})
    for step in range(60):
        batch = slice(step % 8 * 64, step % 8 * 64 + 64)
        sess.run(train, {x: images[batch], y: labels[batch], phase: True})
    end, predicted = sess.run([loss, logits], {x: images, y: labels})
    assert end < 0.25 * start
    assert (predicted.argmax(1) == labels).mean() > 0.9


@pytest.mark.parametrize("build, message", [
    (lambda: keras.layers.Dense(2)(tf.placeholder(tf.float32, [None])),
     r"layer dense is incompatible .*expected min_ndim=2, found ndim=1"),
    (lambda: keras.layers.Conv2D(2, 3)(tf.placeholder(tf.float32, [None, 4, 4])),
     r"layer conv2d is incompatible .*expected ndim=4, found ndim=3"),
    (lambda: keras.layers.Reshape((-1, 4))(tf.placeholder(tf.float32, [None, 3, 3])),
     r"layer 'reshape': input shape \[None, 3, 3\], target \(-1, 4\)"),
    (lambda: keras.layers.Add()(tf.placeholder(tf.float32, [None, 3])),
     "`Add` layer should be called on a list of at least 2 inputs"),
])
def test_bad_inputs_are_errors_naming_the_layer(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_a_model_called_on_the_wrong_number_of_inputs():
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras.layers.Dense(1)(inputs))
    with pytest.raises(ValueError, match="Model model expects 1 input"):
        model([tf.placeholder(tf.float32, [None, 3])] * 2)


# -- compile / fit / evaluate / predict ------------------------------------------------------
def _numpy_dense(x, weights):
    kernel, bias = weights
    return x @ kernel + bias


def test_train_on_batch_takes_one_sgd_step_as_numpy():
    model = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])
    model.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
    x, y = _rand(4, 3), _rand(4, 2, seed=1)
    with tf.Session():
        before = model.get_weights()
        error = _numpy_dense(x, before) - y
        loss = model.train_on_batch(x, y)
        after = model.get_weights()
    np.testing.assert_allclose(loss, np.mean(error ** 2), rtol=1e-5)
    grad_kernel = 2 * x.T @ error / error.size  # d mean((xW + b - y)**2)
    np.testing.assert_allclose(after[0], before[0] - 0.1 * grad_kernel, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(after[1], before[1] - 0.1 * 2 * error.sum(0) / error.size,
                               rtol=1e-5, atol=1e-6)


def test_fit_evaluate_predict():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((300, 4)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    model = keras.Sequential([keras.layers.Dense(8, activation="tanh", input_shape=(4,)),
                              keras.layers.Dropout(0.1),
                              keras.layers.Dense(2, activation="softmax")])
    model.compile(tf.train.AdamOptimizer(0.05), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    np.random.seed(0)  # fit shuffles with numpy's global generator, as Keras
    with tf.Session():
        history = model.fit(x, y, batch_size=30, epochs=8, verbose=0,
                            validation_data=(x[:50], y[:50]))
        loss, accuracy = model.evaluate(x, y, verbose=0)
        probabilities = model.predict(x, batch_size=64)
        k1, b1, k2, b2 = model.get_weights()
    assert sorted(history.history) == ["acc", "loss", "val_acc", "val_loss"]
    assert history.epoch == list(range(8)) and len(history.history["loss"]) == 8
    assert history.history["loss"][-1] < 0.7 * history.history["loss"][0]
    logits = np.tanh(x @ k1 + b1) @ k2 + b2  # dropout off outside fit: numpy's forward
    expected = np.exp(logits - logits.max(1, keepdims=True))
    expected /= expected.sum(1, keepdims=True)
    np.testing.assert_allclose(probabilities, expected, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(loss, -np.log(expected[np.arange(300), y]).mean(), rtol=1e-4)
    np.testing.assert_allclose(accuracy, (expected.argmax(1) == y).mean())
    assert accuracy > 0.9


def test_training_errors_name_what_is_missing():
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    with pytest.raises(RuntimeError, match="must compile your model"):
        model.fit(np.zeros((2, 2)), np.zeros((2, 1)))
    model.compile("sgd", "mse")
    with pytest.raises(TypeError, match="callbacks must be tf.keras.callbacks.Callback"):
        model.fit(np.zeros((2, 2)), np.zeros((2, 1)), callbacks=[object()])
    with pytest.raises(ValueError, match="Found 2 input samples and 3 target samples"):
        model.fit(np.zeros((2, 2)), np.zeros((3, 1)), verbose=0)
    with pytest.raises(ValueError, match="Unknown optimizer: ftrl"):
        model.compile("ftrl", "mse")


# -- what is not there -------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["keras.optimizers.Ftrl", "keras.layers.ConvLSTM2D",
                                  "keras.layers.DepthwiseConv2D", "keras.utils.plot_model",
                                  "keras.callbacks.RemoteMonitor", "keras.applications",
                                  "keras.losses.poisson", "keras.metrics.AUC"])
def test_names_not_supported_say_so(path):
    module, name = path.rsplit(".", 1)
    owner = tf
    for part in module.split("."):
        owner = getattr(owner, part)
    with pytest.raises(AttributeError, match="not supported by TinyFlow"):
        getattr(owner, name)


def test_dir_lists_public_names_only():
    assert dir(tf.layers) == sorted(tf.layers.__all__)
    assert not {"np", "re", "math", "contextlib", "api", "nn", "Symbol"} & set(dir(tf.layers))
    assert {"Dense", "Embedding", "concatenate", "Input"} <= set(dir(keras.layers))
    assert "np" not in dir(keras.layers) and "Sequential" in dir(keras)
