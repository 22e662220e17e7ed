"""TF 1.15's crossed_column (frontend/feature_column_cross.py, ops/feature_cross.py): the ids,
input_layer and linear_model against the numbers real TensorFlow gave for the same program,
feeds and variable values (TF 2.21's tf.compat.v1.feature_column, graph mode; the variables
set explicitly in both to sin(0.7 i + 1) / 2 in row-major order), and TF's errors."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.ops.feature_cross import fingerprint_cat64

pytestmark = pytest.mark.usefixtures("fresh_graph")
fc = tf.feature_column

FEEDS = {"city": np.array([["paris", "rome"], ["tokyo", ""], ["", ""]], object),
         "zip": np.array([[75001], [100], [-1]], np.int64),
         "item": np.array([[0, 2], [3, -1], [1, 2]], np.int64),
         "band": np.array([["lake"], ["x"], ["palmer"]], object)}
_PLACEHOLDERS = {}


def _features():
    _PLACEHOLDERS.clear()
    _PLACEHOLDERS.update({k: tf.placeholder(tf.string if v.dtype == object else v.dtype,
                                            [None, v.shape[1]], name=k)
                          for k, v in FEEDS.items()})
    return dict(_PLACEHOLDERS)


def _run(output):
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        for variable in tf.global_variables():
            shape = variable.get_shape().as_list()
            values = np.sin(np.arange(int(np.prod(shape))) * 0.7 + 1.0) * 0.5
            sess.run(variable.assign(values.reshape(shape).astype(np.float32)))
        return sess.run(output, {_PLACEHOLDERS[k]: v for k, v in FEEDS.items()})


def _vocabulary(values, **kwargs):
    return fc.categorical_column_with_vocabulary_list("city", values, **kwargs)


# Recorded from TF 2.21's compat.v1: crossed_column(keys, buckets, hash_key)._get_sparse_tensors
# (_LazyBuilder(FEEDS)).id_tensor, each row's values (its indices are 0, 1, ...)
IDS = [
    (["city", "zip"], 1000, None, "city_X_zip", [[644, 596], [82, 317], [969, 969]]),
    (["zip", "item"], 10**9, None, "item_X_zip",
     [[907152276, 586654904], [153682529, 708030066], [160500648, 305598873]]),
    (["city", "band"], 97, 123, "band_X_city", [[51, 12], [45, 78], [0, 0]]),
    # a categorical column's ids go first to the op, the raw features after them
    (["band", fc.categorical_column_with_identity("item", 4), lambda: _vocabulary(
        ["rome", "tokyo", "paris"])], 50, None, "band_X_city_X_item",
     [[0, 21, 41, 4], [6], []]),
    # a vocabulary's miss (paris: id -1) is crossed, as TF crosses it
    (["band", fc.categorical_column_with_identity("item", 4), lambda: _vocabulary(
        ["rome", "tokyo"])], 50, None, "band_X_city_X_item", [[44, 21, 34, 4], [6], []]),
    # an identity column's ids out of its range are crossed too
    ([fc.categorical_column_with_identity("item", 2), "band"], 40, None, "band_X_item",
     [[31, 33], [19], [14, 15]]),
    # a crossed key's own keys are crossed flat
    ([lambda: fc.crossed_column(["city", "zip"], 10), "band"], 30, None,
     "band_X_city_X_zip", [[9, 1], [8, 17], [17, 17]]),
]


@pytest.mark.parametrize("keys, buckets, hash_key, name, expected", IDS)
def test_ids_are_tensorflows(keys, buckets, hash_key, name, expected):
    keys = [k() if callable(k) else k for k in keys]
    column = fc.crossed_column(keys, buckets, hash_key=hash_key)
    assert column.name == name and column.num_buckets == buckets
    with tf.Session() as sess:
        ids = column._ids(_features())
        sess.run(tf.tables_initializer())
        got = sess.run(ids, {_PLACEHOLDERS[k]: v for k, v in FEEDS.items()})
    assert [[i for i in row if i >= 0] for row in got.tolist()] == expected


def test_sparse_ids_are_tensorflows():
    # Recorded from TF 2.21's compat.v1 as IDS: a categorical column of a tf.SparseTensor
    features = _features()
    features["s"] = tf.SparseTensor([[0, 0], [0, 2], [2, 1]], tf.constant([5, 1, 7], tf.int64),
                                    [3, 3])
    column = fc.crossed_column([fc.categorical_column_with_identity("s", 10), "zip"], 1000)
    ids = column._ids(features)
    with tf.Session() as sess:
        got = sess.run(ids, {_PLACEHOLDERS[k]: v for k, v in FEEDS.items()})
    assert [[i for i in row if i >= 0] for row in got.tolist()] == [[871, 555], [], [121]]


def test_fingerprint_cat64_is_tensorflows():
    # FingerprintCat64 as TF's fingerprint.h writes it (kMul 0xc6a4a7935bd1e995), by hand
    mul, mask = 0xC6A4A7935BD1E995, (1 << 64) - 1
    shift = lambda v: v ^ (v >> 47)
    for first, second in [(0, 0), (0xDECAFCAFFE, 75001), (mask, 1), (12345, mask)]:
        result = first ^ mul ^ (shift((second * mul) & mask) * mul & mask)
        result = shift((shift((result * mul) & mask) * mul) & mask)
        assert fingerprint_cat64(first, second) == result


# Recorded from TF 2.21's compat.v1: input_layer of an indicator and an embedding of crosses
INPUT_LAYER = [
    [0.22300433, 0.09437509, -0.07864022, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0],
    [0.4252183, 0.49467912, 0.33148462, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]]
# Recorded from TF 2.21's compat.v1: linear_model(units=2) of two crosses
LINEAR_MODEL = [[0.48489812, 0.4423674], [-0.03793001, -0.4098684], [2.195312, 2.3099213]]


def test_input_layer_is_tensorflows():
    c1 = fc.crossed_column(["city", "zip"], 10)
    c2 = fc.crossed_column([_vocabulary(["rome", "tokyo", "paris"], num_oov_buckets=1),
                            "band"], 6)
    output = fc.input_layer(_features(), [fc.indicator_column(c1), fc.embedding_column(c2, 3)])
    assert [(v.name, v.get_shape().as_list()) for v in tf.global_variables()] == [
        ("input_layer/band_X_city_embedding/embedding_weights:0", [6, 3])]
    np.testing.assert_allclose(_run(output), INPUT_LAYER, rtol=1e-5, atol=1e-6)


def test_linear_model_is_tensorflows():
    c1 = fc.crossed_column(["city", "zip"], 10)
    c2 = fc.crossed_column([fc.categorical_column_with_identity("item", 4), "band"], 6)
    output = fc.linear_model(_features(), [c1, c2], units=2)
    assert [(v.name, v.get_shape().as_list()) for v in tf.global_variables()] == [
        ("linear_model/band_X_item/weights:0", [6, 2]),
        ("linear_model/city_X_zip/weights:0", [10, 2]), ("linear_model/bias_weights:0", [2])]
    np.testing.assert_allclose(_run(output), LINEAR_MODEL, rtol=1e-5, atol=1e-6)


def test_make_parse_example_spec_of_a_cross():
    column = fc.crossed_column(["city", fc.categorical_column_with_identity("item", 4)], 5)
    spec = fc.make_parse_example_spec([column])
    assert spec == {"city": tf.VarLenFeature(tf.string), "item": tf.VarLenFeature(tf.int64)}


# TF's messages (recorded from TF 2.21's compat.v1)
@pytest.mark.parametrize("make, message", [
    (lambda: fc.crossed_column(["a"], 5), r"keys must be a list with length > 1"),
    (lambda: fc.crossed_column(["a", "b"], 0), r"hash_bucket_size must be > 1"),
    (lambda: fc.crossed_column(["a", fc.categorical_column_with_hash_bucket("c", 3)], 5),
     r"categorical_column_with_hash_bucket is not supported for crossing"),
    (lambda: fc.crossed_column(["a", fc.numeric_column("x")], 5), r"Unsupported key type"),
])
def test_tensorflows_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_bad_features_name_the_column():
    weighted = fc.weighted_categorical_column(fc.categorical_column_with_identity("item", 4),
                                              "w")
    features = {"a": tf.constant([[1.5]]), "item": tf.constant([[1]], tf.int64),
                "w": tf.constant([[1.0]]), "s": tf.SparseTensor([[0, 0]], [1], [1, 1])}
    for keys, message in [(["a", "item"], "'a_X_item'.*strings or integers"),
                          (["item", weighted], "does not support weight_tensor"),
                          (["s", "item"], "'s' is a SparseTensor"),
                          (["nothing", "item"], "'nothing' of column 'item_X_nothing'")]:
        with pytest.raises(ValueError, match=message):
            fc.crossed_column(keys, 5)._ids(features)
