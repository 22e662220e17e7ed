"""TF 1.15's hashed, vocabulary-file and weighted feature columns and make_parse_example_spec
(frontend/feature_column_lookup.py): input_layer and linear_model against the numbers real
TensorFlow gave for the same program, feeds and variable values (TF 2.21's
tf.compat.v1.feature_column, graph mode; the variables set explicitly in both to
sin(0.7 i + 1) / 2 in row-major order), and TF's errors (recorded the same way)."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")
fc = tf.feature_column

FEEDS = {"city": np.array([["paris", "rome"], ["tokyo", ""], ["", ""]], object),
         "zip": np.array([[75001], [100], [-1]], np.int64),
         "band": np.array([["lake", "tarkus"], ["emerson", "palmer"], ["x", ""]], object),
         "member": np.array([["palmer"], ["lake"], ["zzz"]], object),
         "item": np.array([[0, 2], [3, -1], [1, 2]], np.int64),
         "item_weight": np.array([[0.5, 2.0], [1.5, 0.0], [1.0, -1.0]], np.float32)}

# Recorded from TF 2.21's compat.v1: input_layer of the six columns of _input_columns
INPUT_LAYER = [
    [0, 1, 0, 1, 0, -0.30592895, -0.48876506, -0.19475134, -0.35391474, 0.5, 0, 2, 0,
     0.42073548, 0.4958324, 0.3377316, 0, 0, 1, 0, 0, 0, 0],
    [1, 0, 1, 0, 0, -0.30592895, -0.48876506, -0.4417273, -0.18693833, 0, 0, 0, 1.5,
     0.02079033, -0.30592895, -0.48876506, 0, 0, 0, 0, 1, 0, 0],
    [0, 0, 0, 1, 0, 0, 0, 0.3377316, 0.02079033, 0, 1, -1, 0, 0.42073548, 0.4958324,
     0.3377316, 0, 0, 0, 0, 0, 0, 0]]
# Recorded from TF 2.21's compat.v1: linear_model(units=2) of the five categorical columns
LINEAR_MODEL = {
    "sum": [[-0.5818018, -1.3703923], [0.06052434, 0.17973584], [1.0434041, 1.314282]],
    "mean": [[0.01701915, -0.36078492], [0.22398473, 0.26967132], [0.7374752, 0.8255168]],
    "sqrtn": [[-0.16539425, -0.6597173], [0.24776198, 0.27113503], [0.7374752, 0.8255168]]}
LINEAR_VARIABLES = [  # TF's names and shapes, in tf.global_variables()'s order
    ("linear_model/band/weights", [5, 2]), ("linear_model/city/weights", [5, 2]),
    ("linear_model/item_weighted_by_item_weight/weights", [4, 2]),
    ("linear_model/member/weights", [2, 2]), ("linear_model/zip/weights", [7, 2]),
    ("linear_model/bias_weights", [2])]


@pytest.fixture
def vocabulary(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"emerson\nlake\npalmer\n")
    return str(path)


def _columns(vocabulary):
    return (fc.categorical_column_with_hash_bucket("city", 5),
            fc.categorical_column_with_hash_bucket("zip", 7, dtype=tf.int64),
            fc.categorical_column_with_vocabulary_file("band", vocabulary, num_oov_buckets=2),
            fc.categorical_column_with_vocabulary_file("member", vocabulary, vocabulary_size=2,
                                                       default_value=0),
            fc.weighted_categorical_column(fc.categorical_column_with_identity("item", 4),
                                           "item_weight"))


def _run(output):
    """``output`` fed FEEDS through placeholders, the variables set as in TF's run."""
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        for variable in tf.global_variables():
            shape = variable.get_shape().as_list()
            values = np.sin(np.arange(int(np.prod(shape))) * 0.7 + 1.0) * 0.5
            sess.run(variable.assign(values.reshape(shape).astype(np.float32)))
        return sess.run(output, {_PLACEHOLDERS[k]: v for k, v in FEEDS.items()})


_PLACEHOLDERS = {}


def _features():
    _PLACEHOLDERS.clear()
    _PLACEHOLDERS.update({k: tf.placeholder(tf.string if v.dtype == object else v.dtype,
                                            [None, v.shape[1]], name=k)
                          for k, v in FEEDS.items()})
    return dict(_PLACEHOLDERS)


def test_input_layer_is_tensorflows(vocabulary):
    city, zip_code, band, member, item = _columns(vocabulary)
    columns = [fc.embedding_column(city, 2), fc.indicator_column(zip_code),
               fc.indicator_column(band), fc.embedding_column(member, 3, combiner="sum"),
               fc.indicator_column(item), fc.embedding_column(item, 2, combiner="sqrtn")]
    output = fc.input_layer(_features(), columns)
    assert [v.name for v in tf.global_variables()] == [  # TF's
        "input_layer/city_embedding/embedding_weights:0",
        "input_layer/item_weighted_by_item_weight_embedding/embedding_weights:0",
        "input_layer/member_embedding/embedding_weights:0"]
    np.testing.assert_allclose(_run(output), INPUT_LAYER, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_linear_model_is_tensorflows(vocabulary, combiner):
    output = fc.linear_model(_features(), list(_columns(vocabulary)), units=2,
                             sparse_combiner=combiner)
    assert [(v.name[:-2], v.get_shape().as_list())
            for v in tf.global_variables()] == LINEAR_VARIABLES
    np.testing.assert_allclose(_run(output), LINEAR_MODEL[combiner], rtol=1e-6, atol=1e-7)


def test_tables_initializer_is_needed(vocabulary):
    output = fc.input_layer(_features(), [fc.indicator_column(_columns(vocabulary)[2])])
    with tf.Session() as sess, pytest.raises(tf.errors.FailedPreconditionError,
                                             match="Table not initialized."):
        sess.run(output, {_PLACEHOLDERS[k]: v for k, v in FEEDS.items()})


# Recorded from TF 2.21's compat.v1: three tf.train.Example protos (city bytes, zip int64,
# item int64, item_weight float, age float), serialised
EXAMPLES = [
    ("0a670a170a0463697479120f0a0d0a0570617269730a04726f6d650a0e0a037a697012071a050a03f9c9040a"
    "0f0a03616765120812060a040000f0410a1b0a0b6974656d5f776569676874120c120a0a080000003f000000"
    "400a0e0a046974656d12061a040a020003"),
    ("0a540a0a0a046369747912020a000a0d0a037a697012061a040a0264070a0f0a03616765120812060a040000"
    "26420a170a0b6974656d5f776569676874120812060a040000c03f0a0d0a046974656d12051a030a0102"),
    ("0a4e0a110a046369747912090a070a05746f6b796f0a090a037a697012021a000a0f0a036167651208120"
    "60a04000040410a110a0b6974656d5f776569676874120212000a0a0a046974656d12021a00")]
# Recorded from TF 2.21's compat.v1: their input_layer through make_parse_example_spec
PARSED = [[30, -0.30592895, -0.48876506, 0.5, 0, 0, 2, 0, 0, 1, 0, 0, 0, 0],
          [41.5, 0, 0, 0, 0, 1.5, 0, 0, 0, 1, 0, 1, 0, 0],
          [12, -0.30592895, -0.48876506, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]


def test_parse_example_spec_and_parsed_features():
    columns = [fc.embedding_column(fc.categorical_column_with_hash_bucket("city", 5), 2),
               fc.indicator_column(fc.categorical_column_with_hash_bucket("zip", 7,
                                                                          dtype=tf.int64)),
               fc.indicator_column(fc.weighted_categorical_column(
                   fc.categorical_column_with_identity("item", 4), "item_weight")),
               fc.numeric_column("age")]
    spec = fc.make_parse_example_spec(columns)
    assert sorted(spec) == ["age", "city", "item", "item_weight", "zip"]
    assert [(type(spec[k]).__name__, spec[k].dtype) for k in sorted(spec)] == [  # TF's
        ("FixedLenFeature", "float32"), ("VarLenFeature", "string"),
        ("VarLenFeature", "int64"), ("VarLenFeature", "float32"), ("VarLenFeature", "int64")]
    serialized = tf.placeholder(tf.string, [None])
    output = fc.input_layer(tf.parse_example(serialized, spec), columns)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for variable in tf.global_variables():
            shape = variable.get_shape().as_list()
            values = np.sin(np.arange(int(np.prod(shape))) * 0.7 + 1.0) * 0.5
            sess.run(variable.assign(values.reshape(shape).astype(np.float32)))
        got = sess.run(output, {serialized: [bytes.fromhex(e) for e in EXAMPLES]})
    np.testing.assert_allclose(got, PARSED, rtol=1e-6, atol=1e-7)


def test_parse_example_spec_of_every_column(vocabulary):
    spec = fc.make_parse_example_spec([
        *_columns(vocabulary), fc.numeric_column("age", shape=(2,), default_value=1.0),
        fc.bucketized_column(fc.numeric_column("h"), [1.0, 2.0]),
        fc.embedding_column(fc.categorical_column_with_vocabulary_list("c", [3, 4]), 2)])
    shown = {k: (type(v).__name__, v.dtype, getattr(v, "shape", None),
                 getattr(v, "default_value", None)) for k, v in spec.items()}
    assert shown == {  # TF's
        "age": ("FixedLenFeature", "float32", (2,), (1.0, 1.0)),
        "band": ("VarLenFeature", "string", None, None),
        "c": ("VarLenFeature", "int64", None, None),
        "city": ("VarLenFeature", "string", None, None),
        "h": ("FixedLenFeature", "float32", (1,), None),
        "item": ("VarLenFeature", "int64", None, None),
        "item_weight": ("VarLenFeature", "float32", None, None),
        "member": ("VarLenFeature", "string", None, None),
        "zip": ("VarLenFeature", "int64", None, None)}


def test_vocabulary_lists_of_strings_and_with_oov_buckets():
    colors = np.array([["red", "green"], ["blue", ""], ["mauve", "red"]], object)
    features = {"color": tf.placeholder(tf.string, [None, 2]),
                "size": tf.placeholder(tf.int64, [None, 1])}
    features["color2"] = features["color"]
    columns = [fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"],
                                                          num_oov_buckets=2),
               fc.categorical_column_with_vocabulary_list("size", [3, 7], num_oov_buckets=3),
               fc.categorical_column_with_vocabulary_list("color2", ["red", "green", "blue"],
                                                          default_value=1)]
    assert [c.num_buckets for c in columns] == [5, 5, 3]  # TF's
    output = fc.input_layer(features, [fc.indicator_column(c) for c in columns])
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        got = sess.run(output, {features["color"]: colors,
                                features["size"]: np.array([[3], [10], [-1]], np.int64)})
    np.testing.assert_array_equal(got, [  # TF's (color2, color, size: sorted by name)
        [1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0],
        [0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1],
        [1, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0]])


def test_column_facts(vocabulary, tmp_path):
    city, _, band, member, item = _columns(vocabulary)
    assert (city.num_buckets, band.num_buckets, member.num_buckets) == (5, 5, 2)
    assert (item.name, item.num_buckets) == ("item_weighted_by_item_weight", 4)  # TF's
    unterminated = tmp_path / "last.txt"
    unterminated.write_bytes(b"x\r\ny\nz")
    assert fc.categorical_column_with_vocabulary_file("a", vocabulary).num_buckets == 3
    assert fc.categorical_column_with_vocabulary_file("a", str(unterminated)).num_buckets == 3


@pytest.mark.parametrize(("make", "message"), [  # TF's messages
    (lambda v: fc.categorical_column_with_hash_bucket("a", 0),
     "hash_bucket_size must be at least 1. hash_bucket_size: 0, key: a"),
    (lambda v: fc.categorical_column_with_hash_bucket("a", None),
     "hash_bucket_size must be set. key: a"),
    (lambda v: fc.categorical_column_with_hash_bucket("a", 3, dtype=tf.float32),
     "column_name: a dtype must be string or integer. dtype: <dtype: 'float32'>."),
    (lambda v: fc.categorical_column_with_vocabulary_file("a", v + ".none"),
     "vocabulary_file in a does not exist."),
    (lambda v: fc.categorical_column_with_vocabulary_file("a", v, num_oov_buckets=2,
                                                          default_value=1),
     "Can't specify both num_oov_buckets and default_value in a."),
    (lambda v: fc.categorical_column_with_vocabulary_file("a", v, num_oov_buckets=-1),
     "Invalid num_oov_buckets -1 in a."),
    (lambda v: fc.categorical_column_with_vocabulary_file("a", ""),
     "Missing vocabulary_file in a."),
    (lambda v: fc.categorical_column_with_vocabulary_file("a", v, vocabulary_size=0),
     "Invalid vocabulary_size in a."),
    (lambda v: fc.input_layer({"a": tf.constant([[1]], tf.int64)}, [
        fc.indicator_column(fc.categorical_column_with_hash_bucket("a", 3))]),
     ("Column dtype and SparseTensors dtype must be compatible. key: a, column dtype: "
     "<dtype: 'string'>, tensor dtype: <dtype: 'int64'>")),
    (lambda v: fc.input_layer({"i": tf.constant([[1]], tf.int64)}, [fc.indicator_column(
        fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 3), "wt"))]),
     "Feature wt is not in features dictionary."),
    (lambda v: fc.input_layer({"i": tf.constant([[1]], tf.int64),
                               "wt": tf.constant([[1]], tf.int32)}, [fc.indicator_column(
        fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 3), "wt"))]),
     "Bad dtype, expected <dtype: 'float32'>, but got <dtype: 'int32'>."),
    (lambda v: fc.make_parse_example_spec([fc.numeric_column("a"),
                                           fc.categorical_column_with_hash_bucket("a", 3)]),
     "feature_columns contain different parse_spec for key a. Given VarLenFeature"),
    (lambda v: fc.categorical_column_with_vocabulary_list("a", ["x", "y"], num_oov_buckets=2,
                                                          default_value=0),
     "Can't specify both num_oov_buckets and default_value in a."),
    (lambda v: fc.categorical_column_with_vocabulary_list("a", ["x", "y"], num_oov_buckets=-1),
     "Invalid num_oov_buckets -1 in a."),
    (lambda v: fc.categorical_column_with_vocabulary_list("a", ["x", "x"]),
     "Duplicate keys in vocabulary_list ['x', 'x'], column_name: a"),
    (lambda v: fc.categorical_column_with_vocabulary_list("a", []),
     "vocabulary_list [] must be non-empty, column_name: a"),
    (lambda v: fc.make_parse_example_spec(["x"]),
     "All feature_columns must be _FeatureColumn instances. Given: x"),
])
def test_errors(vocabulary, make, message):
    with pytest.raises(ValueError) as caught:
        make(vocabulary)
    assert message in str(caught.value)


def test_namespace():
    assert "categorical_column_with_hash_bucket" in dir(fc)
    assert "crossed_column" in dir(fc)
    with pytest.raises(AttributeError, match="sequence_categorical_column_with_identity is "
                                             "not supported by TinyFlow"):
        fc.sequence_categorical_column_with_identity("a", 10)
