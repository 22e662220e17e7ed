"""tf.feature_column (TF 1.15's v1 behaviour): input_layer and linear_model against the numbers
real TensorFlow gave for the same program and variable values (tensorflow 2.21's
tf.compat.v1.feature_column, graph mode, which keeps TF 1.15's v1 functions; run by hand, the
numbers written below), the variable names, and the errors for what TinyFlow cannot hold
(strings, crossed columns); the hashed and vocabulary-file columns are
test_feature_column_lookup.py's."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")

FEATURES = {"price": np.array([[1.0, 2.0], [-3.0, 0.5], [0.25, 4.0]], np.float32),
            "age": np.array([15.0, 35.0, 70.0], np.float32),
            "kind": np.array([[2, -1], [0, 0], [-1, -1]], np.int64),
            "code": np.array([[30], [10], [99]], np.int64)}
EMBEDDING = np.arange(6, dtype=np.float32).reshape(3, 2) / 10 - 0.2


def _columns(combiner):
    fc = tf.feature_column
    price = fc.numeric_column("price", shape=[2], normalizer_fn=lambda x: x * 2.0 - 1.0)
    ages = fc.bucketized_column(fc.numeric_column("age"), [18.0, 35.0, 60.0])
    kind = fc.categorical_column_with_identity("kind", 3)
    code = fc.categorical_column_with_vocabulary_list("code", [10, 20, 30], default_value=1)
    dense = [price, ages, fc.indicator_column(kind), fc.indicator_column(code),
             fc.embedding_column(kind, 2, combiner=combiner,
                                 initializer=tf.constant_initializer(EMBEDDING))]
    return dense, [price, ages, kind, code]


# real TF's input_layer rows (the columns sorted by name: age_bucketized, code_indicator,
# kind_embedding, kind_indicator, price); they differ by combiner in kind_embedding alone
def _tf_input_layer(embedding_row_1):
    return np.array([[1, 0, 0, 0, 0, 0, 1, 0.2, 0.3, 0, 0, 1, 1, 3],
                     [0, 0, 1, 0, 1, 0, 0, *embedding_row_1, 2, 0, 0, -7, 0],
                     [0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, -0.5, 7]], np.float32)


TF_RESULTS = {  # combiner: (input_layer, linear_model with the weights set below), real TF's
    "mean": (_tf_input_layer([-0.2, -0.1]),
             [[1.8, 2.6000001], [0.25, -0.05], [2.675, 3.6250005]]),
    "sqrtn": (_tf_input_layer([-0.2828427, -0.1414214]),
              [[1.8, 2.6000001], [0.2707107, 0.012132], [2.675, 3.6250005]]),
    "sum": (_tf_input_layer([-0.4, -0.2]),
            [[1.8, 2.6000001], [0.3, 0.0999999], [2.675, 3.6250005]])}
TF_VARIABLES = ["input_layer/kind_embedding/embedding_weights:0",
                "linear_model/age_bucketized/weights:0", "linear_model/bias_weights:0",
                "linear_model/code/weights:0", "linear_model/kind/weights:0",
                "linear_model/price/weights:0"]


@pytest.mark.parametrize("combiner", ["mean", "sqrtn", "sum"])
def test_input_layer_and_linear_model_as_real_tf(combiner):
    dense, linear = _columns(combiner)
    net = tf.feature_column.input_layer(FEATURES, dense)
    logits = tf.feature_column.linear_model(FEATURES, linear, units=2, sparse_combiner=combiner)
    assert sorted(v.name for v in tf.global_variables()) == TF_VARIABLES
    assert net.get_shape().as_list() == [3, 14]
    # every linear_model variable set to 0.05, 0.15, 0.25... (row-major), in TF as here
    assigns = [tf.assign(v, np.arange(np.prod(v.get_shape().as_list()), dtype=np.float32)
                         .reshape(v.get_shape().as_list()) * 0.1 + 0.05)
               for v in tf.global_variables() if "linear_model" in v.name]
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        session.run(assigns)
        got_net, got_logits = session.run([net, logits])
    want_net, want_logits = TF_RESULTS[combiner]
    np.testing.assert_allclose(got_net, want_net, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got_logits, want_logits, rtol=1e-6, atol=1e-6)


def test_defaults_out_of_range_and_multi_dimensional_columns_as_real_tf():
    fc = tf.feature_column
    features = {"a": np.array([[-2, 1], [-1, 3], [1, 7]], np.int64),
                "b": np.array([[-2, 1], [-1, 3], [1, 7]], np.int64),
                "v": np.array([[-2], [9], [-1]], np.int64),
                "m": np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[0, 0.5], [1.5, 2.5]]],
                              np.float32)}
    with_default = fc.categorical_column_with_identity("a", 3, default_value=2)
    vocabulary = fc.categorical_column_with_vocabulary_list("v", [9, 4, 3], default_value=1)
    plain = fc.categorical_column_with_identity("b", 8)
    net = fc.input_layer(features, [
        fc.indicator_column(with_default), fc.indicator_column(vocabulary),
        fc.indicator_column(plain), fc.numeric_column("m", shape=[2, 2]),
        fc.embedding_column(plain, 1, initializer=tf.constant_initializer(
            np.arange(8.0).reshape(8, 1)))])
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        got = session.run(net)
    # real TF's (a_indicator, b_embedding, b_indicator, m, v_indicator): -1 is no id, -2 and 3
    # take a's default 2, v's -2 and a missing value take v's default 1
    want = [[0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 0, 1, 0],
            [0, 0, 1, 3, 0, 0, 0, 1, 0, 0, 0, 0, 5, 6, 7, 8, 1, 0, 0],
            [0, 1, 1, 4, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0.5, 1.5, 2.5, 0, 0, 0]]
    np.testing.assert_allclose(got, want)


def test_bucketized_multi_dimensional_as_a_linear_models_categorical_column():
    fc = tf.feature_column
    buckets = fc.bucketized_column(fc.numeric_column("m", shape=[4]), [1.0, 4.0])
    features = {"m": np.array([[1, 2, 3, 4], [5, 6, 7, 8], [0, 0.5, 1.5, 2.5]], np.float32)}
    logits = fc.linear_model(features, [buckets])
    weights, = [v for v in tf.global_variables() if v.name.endswith("/weights:0")]
    assert weights.name == "linear_model/m_bucketized/weights:0"
    assert weights.get_shape().as_list() == [12, 1]
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        session.run([tf.assign(v, np.arange(np.prod(v.get_shape().as_list()), dtype=np.float32)
                               .reshape(v.get_shape().as_list()) + 1.0)
                     for v in tf.global_variables()])
        np.testing.assert_allclose(session.run(logits), [[28], [31], [25]])  # real TF's


def test_ids_past_the_buckets_are_an_error_naming_the_column_in_lookups():
    fc = tf.feature_column
    column = fc.categorical_column_with_identity("a", 3)
    features = {"a": np.array([[3], [0]], np.int64)}
    indicator = fc.input_layer(features, [fc.indicator_column(column)])
    embedded = fc.input_layer(features, [fc.embedding_column(column, 2)])
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        np.testing.assert_allclose(session.run(indicator), [[0, 0, 0], [1, 0, 0]])  # TF's
        with pytest.raises(tf.errors.InvalidArgumentError, match="a_embedding"):
            session.run(embedded)


def test_strings_and_hashing_are_clear_errors():
    fc = tf.feature_column
    with pytest.raises(ValueError, match="Column 'name': feature 'name' holds strings"):
        fc.input_layer({"name": np.array([["a"], ["b"]])}, [fc.numeric_column("name")])
    with pytest.raises(AttributeError, match="sequence_categorical_column_with_identity is "
                                             "not supported by TinyFlow"):
        fc.sequence_categorical_column_with_identity("a", 10)
    with pytest.raises(ValueError, match="Column 'n': feature 'n' must be of an integer type"):
        fc.input_layer({"n": np.ones((2, 1), np.float32)},
                       [fc.indicator_column(fc.categorical_column_with_identity("n", 2))])
    with pytest.raises(ValueError, match="must be a _DenseColumn"):
        fc.input_layer({"n": np.ones((2, 1), np.int64)},
                       [fc.categorical_column_with_identity("n", 2)])
    with pytest.raises(ValueError, match="boundaries must be a sorted list"):
        fc.bucketized_column(fc.numeric_column("x"), [2.0, 1.0])
    with pytest.raises(ValueError, match="'missing'.*not in features"):
        fc.input_layer({"x": np.ones((2, 1), np.float32)}, [fc.numeric_column("missing")])


def test_numpy_input_fn_refuses_string_features_by_name():
    input_fn = tf.estimator.inputs.numpy_input_fn({"city": np.array(["a", "b"])},
                                                  np.array([0, 1]), shuffle=False)
    with pytest.raises(ValueError, match=r"x\['city'\] holds strings"):
        input_fn()


def test_cols_to_vars_and_outputs():
    fc = tf.feature_column
    kind = fc.categorical_column_with_identity("kind", 3)
    embedding, price = fc.embedding_column(kind, 2), fc.numeric_column("price", shape=[2])
    cols_to_vars, cols_to_outputs = {}, {}
    fc.input_layer(FEATURES, [price, embedding], cols_to_vars=cols_to_vars,
                   cols_to_output_tensors=cols_to_outputs)
    assert [v.name for v in cols_to_vars[embedding]] == [
        "input_layer/kind_embedding/embedding_weights:0"]
    assert cols_to_vars[price] == []
    assert cols_to_outputs[price].get_shape().as_list() == [3, 2]
    linear_vars = {}
    fc.linear_model(FEATURES, [kind], cols_to_vars=linear_vars)
    assert [v.name for v in linear_vars[kind]] == ["linear_model/kind/weights:0"]
    assert [v.name for v in linear_vars["bias"]] == ["linear_model/bias_weights:0"]


def test_sparse_ids_as_real_tf():
    fc = tf.feature_column
    ids = tf.SparseTensor(indices=[[0, 0], [0, 2], [2, 1]],
                          values=np.array([2, 0, 1], np.int64), dense_shape=[3, 3])
    kind = fc.categorical_column_with_identity("k", 3)
    net = fc.input_layer({"k": ids}, [fc.indicator_column(kind), fc.embedding_column(
        kind, 1, combiner="sqrtn", initializer=tf.constant_initializer([[1.0], [2.0], [4.0]]))])
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        got = session.run(net)
    np.testing.assert_allclose(got, [[3.535534, 1, 0, 1], [0, 0, 0, 0], [2, 0, 1, 0]],
                               rtol=1e-6)  # real TF's
    with pytest.raises(ValueError, match="SparseTensor is not supported. key: k"):
        fc.input_layer({"k": ids}, [fc.numeric_column("k")])


def test_a_feature_of_another_size_than_its_column_is_an_error_naming_it():
    fc = tf.feature_column
    with pytest.raises(ValueError, match="Column 'x' holds 2 values per example.*shape \\[2, 3\\]"):
        fc.input_layer({"x": np.ones((2, 3), np.float32)}, [fc.numeric_column("x", shape=[2])])
    with pytest.raises(ValueError, match="Column 'x' holds 2 values per example"):
        fc.linear_model({"x": np.ones((2, 3), np.float32)}, [fc.numeric_column("x", shape=[2])])
