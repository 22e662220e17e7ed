"""TF 1.15's v1 shared_embedding_columns (frontend/feature_column_shared.py): the variable's
name and sharing, input_layer and linear_model against the numbers real TensorFlow gave for
the same program, feeds and variable values (TF 2.21's tf.compat.v1.feature_column, graph
mode; the variables set explicitly in both to sin(0.7 i + 1) / 2 in row-major order), and
TF's errors (recorded the same way)."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")
fc = tf.feature_column

FEEDS = {"item": np.array([[0, 2], [3, -1], [1, 2]], np.int64),
         "other": np.array([[1, -1], [2, 2], [-1, -1]], np.int64),
         "zip": np.array([[75001], [100], [-1]], np.int64)}
_PLACEHOLDERS = {}


def _features():
    _PLACEHOLDERS.clear()
    _PLACEHOLDERS.update({k: tf.placeholder(v.dtype, [None, v.shape[1]], name=k)
                          for k, v in FEEDS.items()})
    return dict(_PLACEHOLDERS)


def _run(output):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for variable in tf.global_variables():
            shape = variable.get_shape().as_list()
            values = np.sin(np.arange(int(np.prod(shape))) * 0.7 + 1.0) * 0.5
            sess.run(variable.assign(values.reshape(shape).astype(np.float32)))
        return sess.run(output, {_PLACEHOLDERS[k]: v for k, v in FEEDS.items()})


def _identity(key, buckets=4):
    return fc.categorical_column_with_identity(key, buckets)


def _names():
    return [(v.name, v.get_shape().as_list()) for v in tf.global_variables()]


# Recorded from TF 2.21's compat.v1: input_layer of shared_embedding_columns([other, item], 3,
# combiner="sqrtn") and numeric_column("zip")
INPUT_LAYER = [
    [-1.4843487e-02, 2.1842110e-01, 3.4895879e-01, 2.0790331e-02, -3.0592895e-01,
     -4.8876506e-01, 75001],
    [4.2521831e-01, 4.9467912e-01, 3.3148462e-01, -6.2469679e-01, -2.6437071e-01,
     2.2029300e-01, 100],
    [-2.9764742e-01, -3.4850979e-01, -2.3546259e-01, 0, 0, 0, -1]]


def test_input_layer_is_tensorflows():
    columns = fc.shared_embedding_columns([_identity("other"), _identity("item")], 3,
                                          combiner="sqrtn")
    assert [c.name for c in columns] == ["other_shared_embedding", "item_shared_embedding"]
    assert columns[0].shared_embedding_collection_name == "item_other_shared_embedding"
    output = fc.input_layer(_features(), [*columns, fc.numeric_column("zip")])
    assert _names() == [("input_layer/item_other_shared_embedding/embedding_weights:0", [4, 3])]
    assert tf.get_collection("item_other_shared_embedding") == tf.global_variables()
    np.testing.assert_allclose(_run(output), INPUT_LAYER, rtol=1e-5, atol=1e-6)


# Recorded from TF 2.21's compat.v1: two input_layers of shared_embedding_columns([item,
# other], 2, shared_embedding_collection_name="shared"), both columns, then the second alone
TWO_LAYERS = ([[0.05740327, 0.00353368, 0.3377316, 0.02079033],
               [-0.44172734, -0.18693833, -0.30592895, -0.48876506],
               [0.01590133, -0.23398736, 0, 0]],
              [[0.3377316, 0.02079033], [-0.30592895, -0.48876506], [0, 0]])


def test_a_second_input_layer_reads_the_same_variable():
    columns = fc.shared_embedding_columns([_identity("item"), _identity("other")], 2,
                                          shared_embedding_collection_name="shared")
    features = _features()
    outputs = [fc.input_layer(features, columns), fc.input_layer(features, columns[1:])]
    assert _names() == [("input_layer/shared/embedding_weights:0", [4, 2])]
    for got, expected in zip(_run(outputs), TWO_LAYERS):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


# Recorded from TF 2.21's compat.v1: linear_model of shared_embedding_columns([item, other], 2)
LINEAR_MODEL = [[0.59904337], [-0.22886568], [0.3114072]]


def test_linear_model_is_tensorflows():
    columns = fc.shared_embedding_columns([_identity("item"), _identity("other")], 2)
    output = fc.linear_model(_features(), columns)
    assert _names() == [
        ("linear_model/item_other_shared_embedding/weights:0", [2, 1]),
        ("linear_model/item_other_shared_embedding/embedding_weights:0", [4, 2]),
        ("linear_model/item_other_shared_embedding_1/weights:0", [2, 1]),
        ("linear_model/bias_weights:0", [1])]
    np.testing.assert_allclose(_run(output), LINEAR_MODEL, rtol=1e-5, atol=1e-6)


def test_weighted_and_plain_columns_share():
    # TF accepts a weighted column beside its kind (recorded: no error, the name below)
    columns = fc.shared_embedding_columns([_identity("a", 3), fc.weighted_categorical_column(
        _identity("b", 3), "w")], 2)
    assert columns[1].shared_embedding_collection_name == "a_b_weighted_by_w_shared_embedding"
    assert fc.make_parse_example_spec(columns) == {
        "a": tf.VarLenFeature(tf.int64), "b": tf.VarLenFeature(tf.int64),
        "w": tf.VarLenFeature(tf.float32)}


@pytest.mark.parametrize("make, message", [  # TF's messages, recorded as above
    (lambda: fc.shared_embedding_columns([_identity("a", 3), _identity("b")], 2),
     "must have the same number of buckets"),
    (lambda: fc.shared_embedding_columns([_identity("a", 3)], 0), "Invalid dimension 0"),
    (lambda: fc.shared_embedding_columns([_identity("a", 3)], 2, initializer=3),
     "initializer must be callable if specified"),
    (lambda: fc.shared_embedding_columns([_identity("item"), fc.
                                          categorical_column_with_vocabulary_list(
                                              "city", [1, 2, 3, 4])], 2),
     "must have the same type"),
    (lambda: fc.shared_embedding_columns([fc.numeric_column("a")], 2),
     "must be subclasses of _CategoricalColumn"),
])
def test_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_variable_of_another_shape_in_the_collection_is_an_error():
    tf.add_to_collection("shared", tf.Variable(np.zeros((2, 2), np.float32)))
    columns = fc.shared_embedding_columns([_identity("item")], 2,
                                          shared_embedding_collection_name="shared")
    with pytest.raises(ValueError, match=r"shared contains variable .* of unexpected shape "
                                         r"\[2, 2\]. Expected shape is \[4, 2\]"):
        fc.input_layer(_features(), columns)
