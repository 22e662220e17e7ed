"""tf.train.init_from_checkpoint (TF 1.15's assignment-map rules and error messages, from
tensorflow/python/training/checkpoint_utils.py), checkpoints_iterator, update_checkpoint_state,
get_checkpoint_mtimes, remove_checkpoint and assert_global_step; values against what was saved."""
import functools
import os
import threading
import time

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend import checkpoint_utils

pytestmark = pytest.mark.usefixtures("fresh_graph")
A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.float32([7, 8, 9])


def _saved(folder) -> str:
    """A checkpoint holding old/a (A) and old/inner/b (B)."""
    with tf.variable_scope("old"):
        a = tf.get_variable("a", [2, 3])
        with tf.variable_scope("inner"):
            b = tf.get_variable("b", [3])
    with tf.Session() as sess:
        sess.run([tf.assign(a, A), tf.assign(b, B)])
        path = tf.train.Saver().save(sess, os.path.join(folder, "model"))
    tf.reset_default_graph()
    return path


def _model():
    with tf.variable_scope("new"):
        a = tf.get_variable("a", [2, 3], initializer=tf.zeros_initializer())
        with tf.variable_scope("inner"):
            b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    c = tf.get_variable("c", [3], initializer=tf.ones_initializer())
    return a, b, c


def _initialised(*variables):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(list(variables))


def test_scope_to_scope_and_one_to_one(tmp_path):
    _saved(tmp_path)
    a, b, c = _model()
    tf.train.init_from_checkpoint(str(tmp_path), {"old/": "new/", "old/inner/b": c})
    got = _initialised(a, b, c)
    for value, want in zip(got, [A, B, B]):
        np.testing.assert_array_equal(value, want)


def test_a_sub_scope_by_name_leaves_the_others(tmp_path):
    path = _saved(tmp_path)
    a, b, c = _model()
    tf.train.init_from_checkpoint(path, {"old/inner/": "new/inner/", "old/a": "new/a"})
    got = _initialised(a, b, c)
    np.testing.assert_array_equal(got[0], A)
    np.testing.assert_array_equal(got[1], B)
    np.testing.assert_array_equal(got[2], np.ones(3))  # not mapped: its own initializer


def test_a_checkpoint_scope_onto_the_root(tmp_path):
    # {"old/": "/"}: every get_variable variable from the tensor of its name under old/
    path = _saved(tmp_path)
    a = tf.get_variable("a", [2, 3], initializer=tf.zeros_initializer())
    with tf.variable_scope("inner"):
        b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    tf.train.init_from_checkpoint(path, {"old/": "/"})
    got = _initialised(a, b)
    np.testing.assert_array_equal(got[0], A)
    np.testing.assert_array_equal(got[1], B)


def test_tensorflows_errors(tmp_path):
    path = _saved(tmp_path)
    _, _, c = _model()
    with pytest.raises(ValueError, match="Tensor old/zz is not found in .* checkpoint"):
        tf.train.init_from_checkpoint(path, {"old/zz": "new/a"})
    with pytest.raises(ValueError, match=r"Shape of variable c:0 \(\(3,\)\) doesn't match with "
                                         r"shape of tensor old/a \(\[2, 3\]\)"):
        tf.train.init_from_checkpoint(path, {"old/a": c})
    with pytest.raises(ValueError, match="should map to scope only old/a"):
        tf.train.init_from_checkpoint(path, {"old/a": "nothing/"})
    # as real TF (tf.compat.v1, the same program) says it: the name past its first character
    with pytest.raises(ValueError, match=r"Tensor old/c \( in old/\) is not found in .* "
                                         r"checkpoint$"):
        tf.train.init_from_checkpoint(path, {"old/": "/"})


def test_checkpoints_iterator_yields_each_new_checkpoint(tmp_path, monkeypatch):
    # TF's iterator looks once a second; the test's looks every 50 ms (the same loop)
    monkeypatch.setattr(checkpoint_utils, "wait_for_new_checkpoint", functools.partial(
        checkpoint_utils.wait_for_new_checkpoint, seconds_to_sleep=0.05))
    v = tf.Variable(1.0, name="v")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    saver = tf.train.Saver()

    def training():  # saves slower than the iterator looks
        for step in range(2):
            time.sleep(0.3)
            saver.save(sess, str(tmp_path / "model"), global_step=step)
    writer = threading.Thread(target=training)
    writer.start()
    seen = list(tf.train.checkpoints_iterator(str(tmp_path), timeout=0.6))
    writer.join()
    assert [os.path.basename(p) for p in seen] == ["model-0", "model-1"]
    assert tf.train.get_checkpoint_mtimes(seen) == [
        os.stat(p + ".index").st_mtime for p in seen]
    del v


def test_checkpoint_state_files(tmp_path):
    path = _saved(tmp_path)
    tf.train.update_checkpoint_state(str(tmp_path), path, [path + "-old"])
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == path
    assert state.all_model_checkpoint_paths == [path + "-old", path]
    tf.train.remove_checkpoint(path)
    assert not any(f.startswith("model.") for f in os.listdir(tmp_path))
    assert tf.train.latest_checkpoint(str(tmp_path)) is None


def test_assert_global_step():
    tf.train.assert_global_step(tf.train.get_or_create_global_step())
    with pytest.raises(TypeError, match="does not have integer type"):
        tf.train.assert_global_step(tf.Variable(0.0))
    with pytest.raises(TypeError, match="is not scalar"):
        tf.train.assert_global_step(tf.Variable([0, 1]))
    with pytest.raises(TypeError, match="must be a Variable or Tensor"):
        tf.train.assert_global_step(3)
