"""Dataset.reduce (TF 1.15's): values, static shapes and errors recorded from real TensorFlow
(tensorflow-cpu 2.21's tf.compat.v1, graph mode)."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_reductions_of_scalars_tuples_dicts_and_a_growing_state():
    total = tf.data.Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x)
    pairs = tf.data.Dataset.from_tensor_slices((np.arange(4, dtype=np.float32),
                                                np.array([1, 0, 1, 1], np.int32)))
    weighted = pairs.reduce((tf.constant(0.0), tf.constant(0)), lambda s, e: (
        s[0] + e[0] * tf.cast(e[1], tf.float32), s[1] + e[1]))
    counts = tf.data.Dataset.range(3).reduce({"n": np.int64(0), "sq": np.int64(0)},
                                             lambda s, x: {"n": s["n"] + 1,
                                                           "sq": s["sq"] + x * x})
    empty = tf.data.Dataset.range(0).reduce(np.int64(7), lambda s, x: s + x)
    grown = tf.data.Dataset.range(4).reduce(tf.zeros([0], tf.int64),
                                            lambda s, x: tf.concat([s, [x]], 0))
    assert total.name == "ReduceDataset:0"
    # TF's static shapes: the state's, a dim reduce_func changes unknown
    assert [str(t.get_shape()) for t in (total, weighted[0], grown)] == ["()", "()", "(?,)"]
    with tf.Session() as sess:
        assert sess.run(total) == 10 and sess.run(total) == 10  # each run from the start
        got = sess.run(weighted)
        assert got == (5.0, 3) and isinstance(got, tuple)
        assert got[0].dtype == np.float32 and got[1].dtype == np.int32
        assert sess.run(counts) == {"n": 3, "sq": 5}
        assert sess.run(empty) == 7  # no element: the initial state
        assert sess.run(grown).tolist() == [0, 1, 2, 3]


def test_a_state_of_another_dtype_is_refused_as_tensorflow():
    with pytest.raises(TypeError, match=r"The element types for the new state must match the "
                                        r"initial state. Expected <dtype: 'int64'> but got "
                                        r"<dtype: 'float32'>."):
        tf.data.Dataset.range(3).reduce(np.int64(0), lambda s, x: tf.cast(s, tf.float32))
    with pytest.raises(TypeError, match="float32 and int64"):  # TF: a TypeError in user code
        tf.data.Dataset.range(3).reduce(0.0, lambda s, x: s + x)
    with pytest.raises(TypeError, match="structure of the new state"):
        tf.data.Dataset.range(3).reduce((np.int64(0), np.int64(1)), lambda s, x: s[0] + x)
