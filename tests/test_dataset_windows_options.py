"""``Dataset.window`` and ``tf.data.Options`` / ``Dataset.with_options`` against real TensorFlow.

The windows' values and the errors' texts were recorded from TensorFlow 2.21's tf.compat.v1
(tensorflow-cpu in /work/tfvenv, graph mode; its WindowDataset is TF 1.15's), as were the
options' type and name errors; the merge of two options setting one differently is TF 1.15's
ValueError (its dataset_ops test ``testOptionsTwiceDifferentError``; TF 2 lets the last win).
"""
from __future__ import annotations

import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")
R = tf.data.Dataset.range


def _all(dataset):
    element = tf.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tf.Session() as session:
        try:
            while True:
                out.append(session.run(element))
        except tf.errors.OutOfRangeError:
            return out


def _batches(dataset):
    return [batch.tolist() for batch in _all(dataset)]


@pytest.mark.parametrize("count, arguments, expected", [
    # TF 2.21: range(count).window(*arguments).flat_map(lambda w: w.batch(10))
    (7, (3,), [[0, 1, 2], [3, 4, 5], [6]]),
    (7, (3, 2), [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]),
    (7, (3, 2, 1, True), [[0, 1, 2], [2, 3, 4], [4, 5, 6]]),
    (7, (3, 1, 2), [[0, 2, 4], [1, 3, 5], [2, 4, 6], [3, 5], [4, 6], [5], [6]]),
    (7, (2, 5), [[0, 1], [5, 6]]),
    (10, (3, 1, 3, True), [[0, 3, 6], [1, 4, 7], [2, 5, 8], [3, 6, 9]]),
    (0, (3,), []),
])
def test_windows_as_tf(count, arguments, expected):
    assert _batches(R(count).window(*arguments).flat_map(lambda w: w.batch(10))) == expected


def test_windows_of_tuples_and_dicts():
    # TF 2.21: a tuple element's window is a tuple of datasets, a dict's a dict of them
    pairs = tf.data.Dataset.from_tensor_slices((np.arange(1, 6, dtype=np.int32),
                                                np.arange(1, 11, dtype=np.float32).reshape(5, 2)))
    got = _all(pairs.window(2).flat_map(
        lambda x, y: tf.data.Dataset.zip((x.batch(2), y.batch(2)))))
    assert [a.tolist() for a, _ in got] == [[1, 2], [3, 4], [5]]
    assert [b.tolist() for _, b in got] == [[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10]]]
    named = tf.data.Dataset.from_tensor_slices({"a": np.array([1, 2, 3], np.int32),
                                                "b": np.array([4, 5, 6], np.int32)})
    got = _all(named.window(2).flat_map(lambda e: tf.data.Dataset.zip(e).batch(2)))
    assert [{k: v.tolist() for k, v in e.items()} for e in got] == [
        {"a": [1, 2], "b": [4, 5]}, {"a": [3], "b": [6]}]


def test_windows_interleaved_mapped_and_sized_by_a_tensor():
    # TF 2.21's values
    assert _batches(R(6).window(3).interleave(lambda w: w, cycle_length=2)) == [0, 3, 1, 4, 2, 5]
    assert _batches(R(9).window(3).interleave(lambda w: w, cycle_length=2, block_length=2)) == [
        0, 1, 3, 4, 2, 5, 6, 7, 8]
    assert _batches(R(5).window(2, 1).flat_map(lambda w: w.map(lambda x: x * 10).batch(2))) == [
        [0, 10], [10, 20], [20, 30], [30, 40], [40]]
    assert _batches(R(5).window(2).flat_map(lambda w: w)) == [0, 1, 2, 3, 4]
    size = tf.placeholder(tf.int64, [])
    iterator = tf.data.make_initializable_iterator(
        R(5).window(size).flat_map(lambda w: w.batch(5)))
    element = iterator.get_next()
    with tf.Session() as session:
        for value, expected in ((2, [[0, 1], [2, 3], [4]]), (4, [[0, 1, 2, 3], [4]])):
            session.run(iterator.initializer, {size: value})
            assert [session.run(element).tolist() for _ in expected] == expected


@pytest.mark.parametrize("arguments, message", [
    ((0,), "Window size must be greater than zero."),  # TF 2.21's texts, when it runs
    ((2, 0), "Window shift must be greater than zero."),
    ((2, 1, 0), "Window stride must be greater than zero."),
])
def test_window_sizes_out_of_range(arguments, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _all(R(5).window(*arguments).flat_map(lambda w: w.batch(3)))


def test_windows_are_read_by_flat_map_or_interleave_only():
    windows = R(5).window(2)
    for use in (lambda: windows.batch(2), lambda: windows.map(lambda w: w),
                windows.make_one_shot_iterator, lambda: tf.data.Dataset.zip((windows, R(2)))):
        with pytest.raises(TypeError, match=r"WindowDataset .* read by flat_map or interleave"):
            use()
    with pytest.raises(TypeError, match=r"a window is read .* not by an iterator or "
                                        r"Dataset.reduce"):
        windows.flat_map(lambda w: tf.data.Dataset.from_tensors(w.reduce(np.int64(0),
                                                                          lambda s, x: s + x)))
    with pytest.raises(TypeError, match="`map_func` must return a `Dataset` object"):
        windows.flat_map(lambda w: 3)
    assert windows.output_classes is tf.data.Dataset


def test_options_attach_merge_and_pass_through():
    # TF 2.21 (graph mode): both options read back through the map, the elements unchanged
    first, second = tf.data.Options(), tf.data.Options()
    first.experimental_slack = True
    second.experimental_threading.private_threadpool_size = 4
    dataset = R(3).with_options(first).map(lambda x: x + 1).with_options(second)
    options = dataset.options()
    assert options.experimental_slack is True
    assert options.experimental_threading.private_threadpool_size == 4
    assert options.experimental_deterministic is None
    assert [int(v) for v in _all(dataset)] == [1, 2, 3]
    assert first != second and tf.data.Options() == tf.data.Options()  # TF 2.21: False, True
    same = tf.data.Options()
    same.experimental_slack = True
    assert R(2).with_options(first).with_options(same).options() == first
    experimental = tf.data.experimental
    optimization = experimental.OptimizationOptions()
    optimization.map_vectorization.enabled = True
    assert isinstance(optimization.map_vectorization, experimental.MapVectorizationOptions)
    assert experimental.ThreadingOptions().max_intra_op_parallelism is None


def test_options_errors():
    options = tf.data.Options()
    # TF 2.21's texts
    with pytest.raises(TypeError, match=r"Property \"experimental_slack\" must be of type "
                                        r"<class 'bool'>, got: 1 \(type: <class 'int'>\)"):
        options.experimental_slack = 1
    with pytest.raises(TypeError, match=r"Property \"private_threadpool_size\" must be of type "
                                        r"<class 'int'>, got: x \(type: <class 'str'>\)"):
        options.experimental_threading.private_threadpool_size = "x"
    with pytest.raises(AttributeError, match=r"Cannot set the property nope on Options\."):
        options.nope = True
    # TF 1.15: options setting one option differently do not merge
    first, second = tf.data.Options(), tf.data.Options()
    first.experimental_optimization.autotune = True
    second.experimental_optimization.autotune = False
    with pytest.raises(ValueError, match="Cannot merge incompatible values"):
        R(0).with_options(first).with_options(second)
    with pytest.raises(TypeError, match="options type"):
        R(0).with_options(3)
