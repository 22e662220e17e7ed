"""tf.keras' recurrent layers (LSTM, GRU, SimpleRNN, RNN over cells, StackedRNNCells,
Bidirectional, TimeDistributed) and masks (Embedding(mask_zero), Masking), against numbers from
real TensorFlow written down below (tensorflow 2.21's tf.compat.v1 in graph mode with tf-keras
2.21's v1 classes, TF_USE_LEGACY_KERAS=1: TF 1.15's defaults, hard_sigmoid gates and GRU's
reset_after=False) and numpy: values, gradients, a small model's training losses, TF's
variable names, return_state, go_backwards, time_major, dropout, and the clear errors."""
import gc

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.session.session import Session

pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed", "sessions_closed")


@pytest.fixture
def sessions_closed():
    """Close the sessions a test left open (tf.keras.backend.set_session's): an open session
    whose executors hold loops stays alive through the Lua runtime (a cycle Python's collector
    cannot see), and a growing Lua heap slows every later session's close."""
    yield
    for session in [o for o in gc.get_objects() if type(o) is Session and not o.closed]:
        session.close()
layers = tf.keras.layers

X = np.random.RandomState(0).uniform(-1, 1, (2, 4, 3)).astype(np.float32)
X[0, 3] = 0.0  # masked steps (Masking(0.)): the last of example 0, the second of example 1
X[1, 1] = 0.0
COEF = np.random.RandomState(1).uniform(-1, 1, (2, 4, 2)).astype(np.float32)


def _weights(layer, seed=5):
    rs = np.random.RandomState(seed)
    return [rs.uniform(-0.8, 0.8, w.get_shape().as_list()).astype(np.float32)
            for w in layer.weights]


# Real TensorFlow's numbers (tf_keras 2.21's v1 classes, graph mode, TF_USE_LEGACY_KERAS=1,
# the script that made them: the inputs X through Masking(0.), weights from _weights(layer, 5)):
# name: (each output flattened, the gradients of sum(output[0] * COEF) with respect to the
# inputs and the kernel, flattened)
TF_NUMBERS = {
    "lstm": (
        [[-0.174185, -0.075999, -0.273658, -0.044156, -0.348587, -0.120184, -0.348587, -0.120184,
        -0.234573, -0.046076, -0.234573, -0.046076, -0.26995, -0.125455, -0.311488, -0.101491],
         [-0.348587, -0.120184, -0.311488, -0.101491],
         [-0.533268, -0.351194, -0.484503, -0.235697]],
        [[-0.044492, -0.020266, -0.061757, -0.070404, 0.11757, -0.011157, -0.004903, 0.02472,
        -0.07086, 0.0, 0.0, 0.0, -0.005017, -0.159097, -0.154066, 0.0, 0.0, 0.0, -0.055159,
        -0.064692, -0.066631, -0.001577, -0.036632, -0.077956],
         [0.142975, -0.029402, 0.048597, -0.009895, -0.188277, 0.172254, 0.083307, -0.055188,
        0.323411, -0.010882, 0.077809, -0.000854, -0.375666, 0.309094, 0.159914, -0.002622,
        0.199632, 0.016945, 0.148121, -0.002737, -0.312233, -0.210295, 0.23034, 0.009564]]),
    "gru_back": (
        [[0.0, 0.0, -0.525756, 0.069196, -0.515972, 0.078603, -0.663448, 0.224458, -0.479678,
        0.010994, -0.739013, 0.189429, -0.739013, 0.189429, -0.762351, 0.433731]],
        [[-0.0007, 0.050575, 0.068951, -0.080069, 0.083902, 0.231818, 0.000251, -0.188339,
        0.195668, 0.0, 0.0, 0.0, 0.003584, 0.195392, 0.016604, 0.0, 0.0, 0.0, 0.115225,
        0.345251, -0.141233, 0.074494, 0.211017, -0.003951],
         [-0.08327, -0.040985, 0.005018, -0.001834, -0.349118, 0.482431, -0.217966, -0.057771,
        0.009822, -0.008157, -0.428803, 0.190938, -0.302388, -0.017587, 0.00893, 0.005872,
        -0.431471, -0.033962]]),
    "simple": (
        [[-0.877173, 0.741156, -0.9161, 0.359354]],
        [[0.016261, 0.018299, 0.004683, -0.049885, -0.056439, -0.015427, 0.134821, 0.15097,
        0.036216, 0.0, 0.0, 0.0, 0.00166, 0.001866, 0.000469, 0.0, 0.0, 0.0, -0.005208,
        -0.005918, -0.0017, 0.054867, 0.060858, 0.012703],
         [-0.016236, 0.00542, -0.028785, 0.169903, -0.056333, 0.190713]]),
    "bi_concat": (
        [[0.050515, -0.058306, 0.004165, -0.036971, -0.003731, -0.20146, 0.0, 0.0, 0.186507,
        -0.086995, 0.0, 0.0, 0.049183, -0.235462, -0.083141, -0.084879]],
        []),
    "bi_sum": (
        [[-0.007791, -0.032806, -0.205191, 0.0, 0.099511, 0.0, -0.186279, -0.168021]],
        []),
    "bi_ave": (
        [[-0.003895, -0.016403, -0.102596, 0.0, 0.049756, 0.0, -0.09314, -0.08401]],
        []),
    "bi_mul": (
        [[-0.002945, -0.000154, 0.000752, 0.0, -0.016225, 0.0, -0.011581, 0.007057]],
        []),
    "bi_last": (
        [[0.402707, -0.359387, 0.233891, -0.329755]],
        []),
    "stacked": (
        [[0.553555, 0.197097, 0.047733, -0.247837, 0.561424, 0.249496, 0.561424, 0.249496,
        0.54141, 0.192085, 0.54141, 0.192085, 0.026659, -0.23629, 0.585199, 0.260391]],
        []),
}

CASES = {
    "lstm": lambda: layers.LSTM(2, return_sequences=True, return_state=True),
    "gru_back": lambda: layers.GRU(2, return_sequences=True, go_backwards=True),
    "simple": lambda: layers.SimpleRNN(2),
    "bi_concat": lambda: layers.Bidirectional(layers.LSTM(1, return_sequences=True)),
    "bi_sum": lambda: layers.Bidirectional(layers.LSTM(1, return_sequences=True), "sum"),
    "bi_ave": lambda: layers.Bidirectional(layers.LSTM(1, return_sequences=True), "ave"),
    "bi_mul": lambda: layers.Bidirectional(layers.LSTM(1, return_sequences=True), "mul"),
    "bi_last": lambda: layers.Bidirectional(layers.GRU(1)),
    "stacked": lambda: layers.RNN(layers.StackedRNNCells(
        [layers.LSTMCell(2), layers.SimpleRNNCell(2)]), return_sequences=True),
}


def _run_case(name, steps):
    sess = tf.Session()
    tf.keras.backend.set_session(sess)
    x = tf.placeholder(tf.float32, [2, steps, 3])
    layer = CASES[name]()
    result = layer(layers.Masking(0.0)(x))
    first = result[0] if isinstance(result, list) else result
    coef = COEF if first.get_shape().ndims == 3 else COEF[:, 0]
    loss = tf.reduce_sum(first * coef[..., :first.get_shape().as_list()[-1]])
    grads = tf.gradients(loss, [x, layer.weights[0]])
    sess.run(tf.global_variables_initializer())
    layer.set_weights(_weights(layer))
    return layer, sess.run([result, grads], {x: X})


# the number of steps known (the cell called once per step) and unknown (a while_loop)
@pytest.mark.parametrize("steps", [4, None])
@pytest.mark.parametrize("name", sorted(TF_NUMBERS))
def test_values_and_gradients_match_real_tf(name, steps):
    _, (outputs, grads) = _run_case(name, steps)
    want_outputs, want_grads = TF_NUMBERS[name]
    outputs = outputs if isinstance(outputs, list) else [outputs]
    assert len(outputs) == len(want_outputs)
    for got, want in zip(outputs, want_outputs):
        np.testing.assert_allclose(np.ravel(got), want, atol=2e-6)
    for got, want in zip(grads, want_grads):
        np.testing.assert_allclose(np.ravel(got), want, atol=2e-6)


def test_variable_names_and_defaults_as_tf_1_15():
    x = tf.placeholder(tf.float32, [2, 4, 3])
    lstm, gru = layers.LSTM(4), layers.GRU(4)
    lstm(x), gru(x)
    stacked = layers.RNN([layers.LSTMCell(2), layers.GRUCell(2)])
    stacked(x)
    bidirectional = layers.Bidirectional(layers.SimpleRNN(2))
    bidirectional(x)
    distributed = layers.TimeDistributed(layers.Dense(2))
    distributed(x)
    names = [w.name for layer in (lstm, gru, stacked, bidirectional, distributed)
             for w in layer.weights]
    assert names == [
        "lstm/kernel:0", "lstm/recurrent_kernel:0", "lstm/bias:0",
        "gru/kernel:0", "gru/recurrent_kernel:0", "gru/bias:0",
        "rnn/kernel:0", "rnn/recurrent_kernel:0", "rnn/bias:0",
        "rnn/kernel_1:0", "rnn/recurrent_kernel_1:0", "rnn/bias_1:0",
        "bidirectional/forward_simple_rnn/kernel:0",
        "bidirectional/forward_simple_rnn/recurrent_kernel:0",
        "bidirectional/forward_simple_rnn/bias:0",
        "bidirectional/backward_simple_rnn/kernel:0",
        "bidirectional/backward_simple_rnn/recurrent_kernel:0",
        "bidirectional/backward_simple_rnn/bias:0",
        "time_distributed/kernel:0", "time_distributed/bias:0"]
    assert [w.get_shape().as_list() for w in lstm.weights] == [[3, 16], [4, 16], [16]]
    assert [w.get_shape().as_list() for w in gru.weights] == [[3, 12], [4, 12], [12]]
    assert lstm.recurrent_activation is tf.keras.activations.hard_sigmoid
    assert gru.recurrent_activation is tf.keras.activations.hard_sigmoid
    assert gru.reset_after is False and lstm.units == 4
    sess = tf.Session()
    tf.keras.backend.set_session(sess)
    sess.run(tf.global_variables_initializer())
    bias = lstm.get_weights()[2]  # unit_forget_bias: the forget gate's block ones
    np.testing.assert_array_equal(bias, np.r_[np.zeros(4), np.ones(4), np.zeros(8)])


# -- numpy's Keras steps, for the options the table above leaves out ---------------------------
def _hard_sigmoid(x):
    return np.clip(0.2 * x + 0.5, 0.0, 1.0)


def _lstm_numpy(x, kernel, recurrent, bias, h=None, c=None):
    units = recurrent.shape[0]
    h = np.zeros((x.shape[0], units), np.float32) if h is None else h
    c = np.zeros_like(h) if c is None else c
    outputs = []
    for t in range(x.shape[1]):
        z = x[:, t] @ kernel + h @ recurrent + bias
        i, f, g, o = (z[:, k * units:(k + 1) * units] for k in range(4))
        c = _hard_sigmoid(f) * c + _hard_sigmoid(i) * np.tanh(g)
        h = _hard_sigmoid(o) * np.tanh(c)
        outputs.append(h)
    return np.stack(outputs, 1), h, c


def test_lstm_time_major_initial_state_and_reversed_input_against_numpy():
    x = tf.placeholder(tf.float32, [4, 2, 3])
    h0, c0 = (tf.constant(np.full((2, 2), v, np.float32)) for v in (0.3, -0.2))
    major = layers.LSTM(2, return_sequences=True, return_state=True, time_major=True)
    result = major(x, initial_state=[h0, c0])
    backwards = layers.LSTM(2, go_backwards=True)
    last = backwards(tf.transpose(x, [1, 0, 2]))
    sess = tf.Session()
    tf.keras.backend.set_session(sess)
    sess.run(tf.global_variables_initializer())
    major.set_weights(_weights(major, 7))
    backwards.set_weights(_weights(major, 7))
    inputs = np.transpose(X, [1, 0, 2])
    (seq, h, c), got_last = sess.run([result, last], {x: inputs})
    want_seq, want_h, want_c = _lstm_numpy(X, *_weights(major, 7), np.full((2, 2), 0.3,
                                           np.float32), np.full((2, 2), -0.2, np.float32))
    np.testing.assert_allclose(seq, np.transpose(want_seq, [1, 0, 2]), atol=1e-6)
    np.testing.assert_allclose(h, want_h, atol=1e-6)
    np.testing.assert_allclose(c, want_c, atol=1e-6)
    np.testing.assert_allclose(got_last, _lstm_numpy(X[:, ::-1], *_weights(major, 7))[1],
                               atol=1e-6)


def test_time_distributed_repeat_vector_and_layer_normalization_against_numpy():
    x = tf.placeholder(tf.float32, [None, 3, 4])
    dense = layers.TimeDistributed(layers.Dense(2))
    norm = layers.LayerNormalization()
    vector = tf.placeholder(tf.float32, [None, 4])
    outputs = [dense(x), norm(x), layers.RepeatVector(3)(vector)]
    assert outputs[0].get_shape().as_list() == [None, 3, 2]
    sess = tf.Session()
    tf.keras.backend.set_session(sess)
    sess.run(tf.global_variables_initializer())
    kernel, bias = _weights(dense)
    dense.set_weights([kernel, bias])
    norm.set_weights([np.array([1., 2., .5, -1.], np.float32),
                      np.array([.1, 0, -.2, .3], np.float32)])
    inputs = np.random.RandomState(4).normal(size=(2, 3, 4)).astype(np.float32)
    got = sess.run(outputs, {x: inputs, vector: inputs[:, 0]})
    np.testing.assert_allclose(got[0], inputs @ kernel + bias, atol=1e-6)
    # real TF's LayerNormalization of inputs[0] with these gamma and beta (tf_keras v1 class)
    want = [[0.08244898, 1.3379122, -1.0080925, -0.66478],
            [0.2218785, -2.7581935, -0.28668088, -1.13058],
            [0.7011078, -3.2078297, 0.31395882, 0.32511055]]
    np.testing.assert_allclose(got[1][0], want, atol=1e-5)
    np.testing.assert_array_equal(got[2], np.repeat(inputs[:, :1], 3, axis=1))


# -- masks -------------------------------------------------------------------------------------
IDS = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 0, 0], [5, 3, 0, 0, 0], [5, 8, 9, 7, 9],
                [3, 2, 3, 8, 0], [4, 6, 0, 0, 0], [2, 6, 4, 3, 3], [8, 3, 2, 7, 0]], np.int32)
LABELS = np.array([[1], [0], [1], [0], [1], [1], [0], [0]], np.float32)


@pytest.mark.parametrize("length", [5, None])
def test_a_masked_sequential_model_trains_as_real_tf(length):
    model = tf.keras.Sequential([
        layers.Embedding(10, 3, mask_zero=True, input_shape=(length,)), layers.LSTM(4),
        layers.Dense(1, activation="sigmoid")])
    model.compile(tf.train.GradientDescentOptimizer(0.5), "binary_crossentropy")
    assert [w.name for w in model.weights] == [
        "embedding/embeddings:0", "lstm/kernel:0", "lstm/recurrent_kernel:0", "lstm/bias:0",
        "dense/kernel:0", "dense/bias:0"]
    rs = np.random.RandomState(3)
    model.set_weights([rs.uniform(-0.5, 0.5, w.get_shape().as_list()).astype(np.float32)
                       for w in model.weights])
    history = model.fit(IDS, LABELS, batch_size=4, epochs=4, shuffle=False, verbose=0)
    # real TF's (tf_keras v1 Sequential, the same weights, GradientDescentOptimizer(0.5))
    np.testing.assert_allclose(history.history["loss"],
                               [0.69548199, 0.69280919, 0.69121492, 0.6901834], atol=1e-5)
    np.testing.assert_allclose(model.predict(IDS[:2]), [[0.5155209], [0.5113432]], atol=1e-5)


def test_masks_flow_from_layer_to_layer():
    ids = tf.placeholder(tf.int32, [None, 5])
    embedded = layers.Embedding(10, 3, mask_zero=True)(ids)
    sequence = layers.LSTM(2, return_sequences=True)(embedded)
    dense = layers.TimeDistributed(layers.Dense(2))(sequence)
    last = layers.LSTM(2)(sequence)
    assert dense._keras_mask is not None and getattr(last, "_keras_mask", None) is None
    sess = tf.Session()
    tf.keras.backend.set_session(sess)
    sess.run(tf.global_variables_initializer())
    mask, seq = sess.run([dense._keras_mask, sequence], {ids: IDS})
    np.testing.assert_array_equal(mask, IDS != 0)
    # a masked step repeats the previous step's output (TF's rule outside Bidirectional)
    np.testing.assert_array_equal(seq[1, 3], seq[1, 2])
    np.testing.assert_array_equal(seq[2, 4], seq[2, 1])


def test_dropout_only_when_training():
    x = tf.placeholder(tf.float32, [2, 4, 3])
    plain = layers.GRU(3, return_sequences=True)
    dropped = layers.GRU(3, return_sequences=True, dropout=0.5, recurrent_dropout=0.5)
    outputs = [plain(x), dropped(x), dropped(x, training=True)]
    sess = tf.Session()
    tf.keras.backend.set_session(sess)
    sess.run(tf.global_variables_initializer())
    dropped.set_weights(plain.get_weights())
    same, inferred, trained = sess.run(outputs, {x: X})
    np.testing.assert_allclose(inferred, same, atol=1e-6)
    assert np.abs(trained - same).max() > 1e-3


def test_unsupported_options_are_clear_errors():
    with pytest.raises(NotImplementedError, match="stateful"):
        layers.LSTM(2, stateful=True)
    with pytest.raises(ValueError, match="expected ndim=3"):
        layers.LSTM(2)(tf.placeholder(tf.float32, [2, 3]))
    with pytest.raises(ValueError, match="initial_state.*2 state"):
        layers.LSTM(2)(tf.placeholder(tf.float32, [2, 3, 1]),
                       initial_state=[tf.zeros([2, 2])])
    with pytest.raises(ValueError, match="Invalid merge mode"):
        layers.Bidirectional(layers.LSTM(2), merge_mode="max")
    with pytest.raises(AttributeError, match="not supported by TinyFlow"):
        layers.ConvLSTM2D  # noqa: B018


def test_compiling_a_model_whose_output_has_a_mask_says_it_is_not_supported():
    model = tf.keras.Sequential([layers.Embedding(10, 3, mask_zero=True, input_shape=(5,)),
                                 layers.LSTM(2, return_sequences=True),
                                 layers.TimeDistributed(layers.Dense(1))])
    with pytest.raises(NotImplementedError, match="output has a mask"):
        model.compile("sgd", "mse")


# real TF's numbers (tf_keras 2.21's v1 classes, graph mode): X through Masking(0.), weights
# from _weights(layer, 5); each output flattened
MORE_TF_NUMBERS = {
    "gru_reset_after": (lambda: layers.GRU(2, reset_after=True, return_sequences=True), [
        [-0.681109, 0.311513, -0.588089, 0.408198, -0.814587, 0.418979, -0.814587, 0.418979,
         -0.648916, 0.381864, -0.648916, 0.381864, -0.840173, 0.499131, -0.587668,
         0.497613]]),
    "bidirectional_states_unmerged": (lambda: layers.Bidirectional(
        layers.LSTM(1, return_state=True), merge_mode=None), [
        [-0.003731, -0.083141], [-0.058306, -0.086995], [-0.003731, -0.083141],
        [-0.00639, -0.129725], [-0.058306, -0.086995], [-0.084551, -0.10316]]),
    "bidirectional_sequence_and_states": (lambda: layers.Bidirectional(
        layers.GRU(1, return_sequences=True, return_state=True)), [
        [0.233845, -0.359387, 0.348371, -0.34089, 0.402707, -0.22904, 0.0, 0.0, 0.367871,
         -0.329755, 0.0, 0.0, 0.305856, -0.470772, 0.233891, -0.320912],
        [0.402707, 0.233891], [-0.359387, -0.329755]]),
}


@pytest.mark.parametrize("name", sorted(MORE_TF_NUMBERS))
def test_reset_after_and_bidirectional_states_match_real_tf(name):
    make, want = MORE_TF_NUMBERS[name]
    x = tf.placeholder(tf.float32, [2, 4, 3])
    layer = make()
    result = layer(layers.Masking(0.0)(x))
    sess = tf.Session()
    tf.keras.backend.set_session(sess)
    sess.run(tf.global_variables_initializer())
    layer.set_weights(_weights(layer))
    got = sess.run(result if isinstance(result, list) else [result], {x: X})
    assert len(got) == len(want)
    for value, expected in zip(got, want):
        np.testing.assert_allclose(np.ravel(value), expected, atol=2e-6)


def test_a_functional_model_called_again_keeps_its_masks_and_saves_by_tf_names(tmp_path):
    ids = tf.keras.Input((None,), dtype="int32")
    embedded = layers.Embedding(10, 3, mask_zero=True)(ids)
    encoded = layers.Bidirectional(layers.LSTM(2, return_sequences=True))(embedded)
    model = tf.keras.Model(ids, layers.GRU(2)(encoded))
    again = tf.placeholder(tf.int32, [None, None])
    outputs = [model.output, model(again)]
    saver = tf.train.Saver()
    sess = tf.Session()
    tf.keras.backend.set_session(sess)
    sess.run(tf.global_variables_initializer())
    first, second = sess.run(outputs, {ids: IDS, again: IDS})
    np.testing.assert_allclose(second, first, atol=1e-6)
    # the padding changes nothing: example 1 ([9, 2, 6, 0, 0]) as the 3 steps it has
    short = sess.run(model.output, {ids: IDS[1:2, :3]})
    np.testing.assert_allclose(short, first[1:2], atol=1e-6)
    path = saver.save(sess, str(tmp_path / "model"))
    names = sorted(name for name, _ in tf.train.list_variables(path))
    assert "bidirectional/backward_lstm/kernel" in names and "gru/recurrent_kernel" in names


def test_a_backward_layer_given_runs_the_other_way_against_numpy():
    x = tf.placeholder(tf.float32, [2, 4, 3])
    backward = layers.LSTM(2, go_backwards=True)
    both = layers.Bidirectional(layers.LSTM(2), merge_mode=None, backward_layer=backward)
    forward_out, backward_out = both(x)
    assert [backward.weights[0].name, both.weights[0].name] == [
        "bidirectional/backward_lstm/kernel:0", "bidirectional/forward_lstm_1/kernel:0"]
    sess = tf.Session()
    tf.keras.backend.set_session(sess)
    sess.run(tf.global_variables_initializer())
    forward_weights, backward_weights = _weights(both)[:3], _weights(both, 6)[3:]
    both.set_weights(forward_weights + backward_weights)
    got_forward, got_backward = sess.run([forward_out, backward_out], {x: X})
    np.testing.assert_allclose(got_forward, _lstm_numpy(X, *forward_weights)[1], atol=1e-6)
    np.testing.assert_allclose(got_backward, _lstm_numpy(X[:, ::-1], *backward_weights)[1],
                               atol=1e-6)
    with pytest.raises(ValueError, match="different `go_backwards`"):
        layers.Bidirectional(layers.LSTM(2), backward_layer=layers.LSTM(2))
