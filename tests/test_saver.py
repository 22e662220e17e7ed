"""tf.train.Saver: round trips, restoring under bound executors, checks, atomic saves."""
import os
from types import SimpleNamespace

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend import checkpoint_format
from tinyflow.frontend.saver import CheckpointError, Saver

RNG = np.random.default_rng(0)
XS = RNG.standard_normal((8, 4)).astype(np.float32)
YS = np.eye(3, dtype=np.float32)[RNG.integers(0, 3, 8)]


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _model():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y_ = tf.placeholder(tf.float32, [None, 3], name="y_")
    W = tf.Variable(tf.random_normal([4, 3]), name="W")
    b = tf.Variable(tf.zeros([3]), name="b")
    y = tf.nn.softmax(tf.matmul(x, W) + b)
    loss = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return SimpleNamespace(x=x, y_=y_, W=W, b=b, y=y, train_step=train_step)


def _checkpoint(path) -> dict:
    """``{name: array}`` of the checkpoint ``path``, as TensorFlow's reader gives them."""
    reader = tf.train.NewCheckpointReader(path)
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def _trained_session(m, steps=3, config="cpu"):
    sess = tf.Session(config)
    sess.run(tf.global_variables_initializer())
    for _ in range(steps):
        sess.run(m.train_step, {m.x: XS, m.y_: YS})
    return sess


def test_exported_as_tf_train_saver():
    assert tf.train.Saver is Saver


def test_round_trip_into_a_new_session(tmp_path, config):
    m = _model()
    sess = _trained_session(m, config=config)
    saver = tf.train.Saver()
    path = tmp_path / "model"
    assert saver.save(sess, path) == str(path)
    saved = _checkpoint(path)  # TensorFlow's format (tests/test_checkpoint_format.py)
    assert sorted(saved) == ["W", "b"]
    np.testing.assert_array_equal(saved["W"], sess.run(m.W))
    fresh = tf.Session(config)
    saver.restore(fresh, path)  # no initializer run: restored variables count as initialised
    np.testing.assert_array_equal(fresh.run(m.y, {m.x: XS}), sess.run(m.y, {m.x: XS}))
    fresh.run(m.train_step, {m.x: XS, m.y_: YS})  # training goes on from the checkpoint
    sess.run(m.train_step, {m.x: XS, m.y_: YS})
    np.testing.assert_allclose(fresh.run(m.W), sess.run(m.W), rtol=1e-6)


def test_restore_updates_values_seen_by_a_bound_executor(tmp_path, config):
    m = _model()
    trained = _trained_session(m, steps=5)
    path = Saver().save(trained, tmp_path / "trained")
    sess = tf.Session(config)
    sess.run(tf.global_variables_initializer())
    before = sess.run(m.y, {m.x: XS})  # binds an executor to sess's W and b tensors
    tensor = sess.variable_store[m.W.node]
    Saver().restore(sess, path)
    assert sess.variable_store[m.W.node] is tensor  # written in place, not replaced
    after = sess.run(m.y, {m.x: XS})
    assert not np.allclose(before, after)
    np.testing.assert_allclose(after, trained.run(m.y, {m.x: XS}), rtol=1e-5, atol=1e-7)


def test_var_list_as_list_and_dict(tmp_path):
    m = _model()
    sess = _trained_session(m)
    path = Saver({"weights": m.W}).save(sess, tmp_path / "w")
    assert list(_checkpoint(path)) == ["weights"]
    other = tf.Session()
    other.run(tf.global_variables_initializer())
    Saver({"weights": m.W}).restore(other, path)
    np.testing.assert_array_equal(other.run(m.W), sess.run(m.W))
    np.testing.assert_array_equal(other.run(m.b), np.zeros(3))  # not in the saver: untouched
    Saver([m.b]).save(sess, tmp_path / "b")
    with pytest.raises(TypeError, match="tf.Variables"):
        Saver([m.x])


def test_a_missing_key_is_not_found_and_a_meta_graph_keeps_the_savers_names(tmp_path):
    w = tf.Variable([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], name="w")
    b = tf.Variable([1.0, 2.0, 3.0], name="b")
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    tf.add(tf.matmul(x, w), b, name="y")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    path = Saver({"weights": w, "bias": b}).save(sess, tmp_path / "dict")
    with pytest.raises(tf.errors.NotFoundError, match="'nothere' is not in the file"):
        Saver({"nothere": b}).restore(sess, path)  # TF 1.15: NotFoundError, key not found
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"has shape \[3\] in the file "
                                                             r"but \[2, 3\] in the graph"):
        Saver({"bias": w}).restore(sess, path)  # TF 1.15: InvalidArgumentError
    with pytest.raises(ValueError, match="The passed save_path is not a valid checkpoint"):
        Saver().restore(sess, tmp_path / "nothere")  # TF 1.15's ValueError
    with pytest.raises(ValueError, match="The same saveable will be restored with two names"):
        Saver({"a": w, "b": w})  # TF 1.15's
    tf.reset_default_graph()
    saver = tf.train.import_meta_graph(path + ".meta")  # TF's SaverDef: the dict's names
    graph = tf.get_default_graph()
    fresh = tf.Session()
    saver.restore(fresh, path)
    got = fresh.run(graph.get_tensor_by_name("y:0"), {graph.get_tensor_by_name("x:0"): [[1, 1]]})
    np.testing.assert_array_equal(got, [[4.0, 7.0, 10.0]])  # real TF 1.15: [[4, 7, 10]]


def test_extra_names_in_the_file_are_ignored(tmp_path):
    m = _model()
    sess = _trained_session(m)
    path = Saver().save(sess, tmp_path / "all")
    other = tf.Session()
    Saver([m.W]).restore(other, path)
    np.testing.assert_array_equal(other.run(m.W), sess.run(m.W))


def test_restore_wins_over_an_initialiser_waiting_for_its_shape(tmp_path):
    if not hasattr(tf.nn, "linear"):
        pytest.skip("needs layers whose weights get their shape from the data (tf.nn.linear)")
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    h = tf.nn.linear(x, 3, name="fc", no_bias=False)
    trained = tf.Session()
    trained.run(tf.global_variables_initializer())
    expected = trained.run(h, {x: XS})  # Glorot-uniform weights, shaped by this run
    path = Saver().save(trained, tmp_path / "layer.npz")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())  # fc_weight's shape is not known yet
    Saver().restore(sess, path)
    np.testing.assert_array_equal(sess.run(h, {x: XS}), expected)


def test_restores_any_byte_order_and_number_type(tmp_path):
    m = _model()
    path = tmp_path / "foreign.npz"
    np.savez(path, W=np.arange(12, dtype=">f8").reshape(4, 3), b=np.array([1, 2, 3], "<i4"))
    sess = tf.Session()
    Saver().restore(sess, path)
    np.testing.assert_array_equal(sess.run(m.W), np.arange(12).reshape(4, 3))
    assert sess.run(m.b).dtype == np.float32


def test_variables_named_like_savez_arguments(tmp_path):
    a = tf.Variable(tf.ones([2]), name="file")
    c = tf.Variable(tf.zeros([2]), name="allow_pickle")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    path = Saver().save(sess, tmp_path / "odd.npz")
    other = tf.Session()
    Saver().restore(other, path)
    np.testing.assert_array_equal(other.run(a), [1, 1])
    np.testing.assert_array_equal(other.run(c), [0, 0])


def _values(sess, *variables):
    return [sess.run(v).copy() for v in variables]


def test_shape_mismatch_names_variable_and_shapes_and_changes_nothing(tmp_path):
    m = _model()
    sess = _trained_session(m)
    before = _values(sess, m.W, m.b)
    path = tmp_path / "bad.npz"
    np.savez(path, W=np.full((4, 3), 7, np.float32), b=np.zeros(5, np.float32))
    with pytest.raises(CheckpointError, match=r"'b' has shape \(5,\) in the file but "
                                              r"\(3,\) in the graph"):
        Saver().restore(sess, path)
    for got, want in zip(_values(sess, m.W, m.b), before):  # W was valid, yet not written
        np.testing.assert_array_equal(got, want)
    fresh = tf.Session()  # no value yet: checked against the initialiser's shape
    with pytest.raises(CheckpointError, match=r"\(3,\) in the graph"):
        Saver().restore(fresh, path)
    assert len(fresh.variable_store) == 0


def test_missing_name_is_named_and_changes_nothing(tmp_path):
    m = _model()
    sess = _trained_session(m)
    before = _values(sess, m.W, m.b)
    path = tmp_path / "partial.npz"
    np.savez(path, W=np.zeros((4, 3), np.float32))
    with pytest.raises(CheckpointError, match=r"variable 'b' is not in the file") as err:
        Saver().restore(sess, path)
    assert str(path) in str(err.value)
    for got, want in zip(_values(sess, m.W, m.b), before):
        np.testing.assert_array_equal(got, want)


def test_missing_or_unreadable_file_is_named(tmp_path):
    _model()
    sess = tf.Session()
    missing = tmp_path / "nowhere.npz"
    with pytest.raises(FileNotFoundError, match="nowhere.npz"):
        Saver().restore(sess, missing)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip file")
    with pytest.raises(CheckpointError, match="junk.npz"):
        Saver().restore(sess, junk)
    single = tmp_path / "single.npy"
    np.save(single, np.zeros(3))
    with pytest.raises(CheckpointError, match="one array"):
        Saver().restore(sess, single)
    assert not any(sess.variable_store.is_initialized(v.node) for v in tf.all_variables())


def test_saving_an_uninitialised_variable_names_it(tmp_path):
    m = _model()
    sess = tf.Session()
    sess.run(tf.assign(m.W, tf.ones([4, 3])))
    with pytest.raises(CheckpointError, match=r"'b' \(created at .*test_saver.py:\d+\)"):
        Saver().save(sess, tmp_path / "never.npz")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_save_leaves_the_previous_checkpoint(tmp_path, monkeypatch):
    m = _model()
    sess = _trained_session(m)
    path = Saver().save(sess, tmp_path / "model")
    saved = _values(sess, m.W, m.b)
    index = (tmp_path / "checkpoint").read_text()
    files = sorted(p.name for p in tmp_path.iterdir())
    sess.run(m.train_step, {m.x: XS, m.y_: YS})
    calls = []

    def fail_after_the_first_array(arrays, data):
        calls.append(1)
        data.write(b"half an array")  # some bytes already in the data file
        raise OSError("disk full")

    monkeypatch.setattr(checkpoint_format, "write_index", fail_after_the_first_array)
    with pytest.raises(CheckpointError, match=r"model\.data-00000-of-00001.*disk full") as err:
        Saver().save(sess, path)
    assert calls and isinstance(err.value.__cause__, OSError)  # the original error, chained
    monkeypatch.undo()
    # no temporary file left, and the index untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == files == [
        "checkpoint", "model.data-00000-of-00001", "model.index", "model.meta"]
    assert (tmp_path / "checkpoint").read_text() == index
    np.testing.assert_array_equal(_checkpoint(path)["W"], saved[0])
    np.testing.assert_array_equal(_checkpoint(path)["b"], saved[1])
    Saver().save(sess, path)  # and a later save replaces it
    np.testing.assert_array_equal(_checkpoint(path)["W"], sess.run(m.W))


# -- TensorFlow's checkpoint paths, steps, max_to_keep and the index file -------------------------
def _adam_model():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y_ = tf.placeholder(tf.float32, [None, 3], name="y_")
    logits = tf.nn.linear(x, 3, name="fc", no_bias=False)
    loss = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(tf.nn.softmax(logits)), reduction_indices=[1]))
    step = tf.train.get_or_create_global_step()
    train_step = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
    return SimpleNamespace(x=x, y_=y_, loss=loss, step=step, train_step=train_step)


def _all_values(sess):
    return {v.op.name: sess.run(v) for v in tf.all_variables()}


def test_an_adam_trained_model_restores_exactly_and_trains_on_identically(tmp_path, config,
                                                                         plan_memory):
    m = _adam_model()
    feed = {m.x: XS, m.y_: YS}
    sess = tf.Session(config, plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(m.train_step, feed)
    path = Saver().save(sess, tmp_path / "adam", global_step=m.step)
    assert path == str(tmp_path / "adam-3")
    saved = _checkpoint(path)  # scalars stay 0-d; Adam's step as TensorFlow's beta powers
    assert saved["beta1_power"].shape == () and saved["global_step"].shape == ()
    assert saved["global_step"].dtype == np.int64 and saved["global_step"] == 3
    assert saved["beta1_power"] == np.float32(0.9) * np.float32(0.9) ** 3  # as TF's products
    assert {"fc_weight/Adam", "fc_weight/Adam_1", "fc_bias/Adam"} <= set(saved)
    fresh = tf.Session(config, plan_memory=plan_memory)
    Saver().restore(fresh, path)
    saved = _all_values(sess)
    assert sorted(saved) == sorted(_all_values(fresh))
    for name, value in _all_values(fresh).items():
        assert value.dtype == saved[name].dtype and value.shape == saved[name].shape, name
        np.testing.assert_array_equal(value, saved[name], err_msg=name)
    for _ in range(2):  # the same next steps, bit for bit
        assert sess.run([m.loss, m.train_step], feed)[0] == fresh.run([m.loss, m.train_step],
                                                                      feed)[0]
    for name, value in _all_values(fresh).items():
        np.testing.assert_array_equal(value, _all_values(sess)[name], err_msg=name)
    assert tf.train.global_step(fresh, m.step) == 5


def test_save_path_with_a_step_and_the_files_it_writes(tmp_path, monkeypatch):
    m = _model()
    sess = _trained_session(m)
    saver = Saver()
    assert saver.save(sess, tmp_path / "model", global_step=7) == str(tmp_path / "model-7")
    assert saver.save(sess, str(tmp_path / "model.ckpt")) == str(tmp_path / "model.ckpt")
    step = tf.Variable(tf.constant(12, tf.int64), dtype=tf.int64, name="step")
    sess.run(step.initializer)
    path = saver.save(sess, tmp_path / "model.npz", global_step=step)
    assert path == str(tmp_path / "model.npz-12")  # TensorFlow's rule: the step at the end
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "checkpoint", "model-7.data-00000-of-00001", "model-7.index", "model-7.meta",
        "model.ckpt.data-00000-of-00001", "model.ckpt.index", "model.ckpt.meta",
        "model.npz-12.data-00000-of-00001", "model.npz-12.index", "model.npz-12.meta"]
    assert tf.train.checkpoint_exists(str(tmp_path / "model-7"))
    assert not tf.train.checkpoint_exists(str(tmp_path / "model-8"))
    fresh = tf.Session()
    saver.restore(fresh, str(tmp_path / "model-7"))  # TF's prefix
    np.testing.assert_array_equal(fresh.run(m.W), sess.run(m.W))
    np.savez(tmp_path / "old.npz", W=sess.run(m.W) + 1, b=sess.run(m.b))
    saver.restore(fresh, tmp_path / "old.npz")  # TinyFlow's earlier format: the file
    np.testing.assert_array_equal(fresh.run(m.W), sess.run(m.W) + 1)
    saver.restore(fresh, tmp_path / "old")  # or its prefix
    with pytest.raises(ValueError, match="None"):
        saver.restore(fresh, None)
    with pytest.raises(ValueError, match="collides"):
        saver.save(sess, tmp_path / "checkpoint")
    monkeypatch.chdir(tmp_path)
    assert saver.save(sess, "relative", global_step=1) == "relative-1"
    assert (tmp_path / "relative-1.index").is_file()


def test_max_to_keep_deletes_the_oldest_and_the_index_lists_the_kept(tmp_path):
    m = _model()
    sess = _trained_session(m)
    saver = Saver(max_to_keep=2)
    paths = [saver.save(sess, tmp_path / "model", global_step=step) for step in (10, 20, 30)]
    assert saver.last_checkpoints == paths[1:]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "checkpoint", "model-20.data-00000-of-00001", "model-20.index", "model-20.meta",
        "model-30.data-00000-of-00001", "model-30.index", "model-30.meta"]
    assert (tmp_path / "checkpoint").read_text() == (  # absolute paths for an absolute folder
        f'model_checkpoint_path: "{tmp_path}/model-30"\n'
        f'all_model_checkpoint_paths: "{tmp_path}/model-20"\n'
        f'all_model_checkpoint_paths: "{tmp_path}/model-30"\n')
    saver.save(sess, tmp_path / "model", global_step=20)  # saved again: newest, nothing deleted
    assert saver.last_checkpoints == [paths[2], paths[1]]
    assert len(list(tmp_path.glob("model-*.index"))) == 2
    for keep_all in (None, 0):
        saver = Saver(max_to_keep=keep_all)
        for step in range(3):
            saver.save(sess, tmp_path / f"all{keep_all}", global_step=step)
        assert len(list(tmp_path.glob(f"all{keep_all}-*.index"))) == 3
        assert saver.last_checkpoints == []  # TF keeps no list then: the index names the newest
        assert (tmp_path / "checkpoint").read_text() == (
            f'model_checkpoint_path: "{tmp_path}/all{keep_all}-2"\n'
            f'all_model_checkpoint_paths: "{tmp_path}/all{keep_all}-2"\n')


def test_relative_paths_in_the_index_and_latest_checkpoint(tmp_path, monkeypatch):
    m = _model()
    sess = _trained_session(m)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run").mkdir()
    assert tf.train.latest_checkpoint("run") is None
    saver = tf.train.Saver()
    saver.save(sess, "run/model", global_step=1)
    saver.save(sess, "run/model", global_step=2)
    assert (tmp_path / "run" / "checkpoint").read_text() == (
        'model_checkpoint_path: "model-2"\n'
        'all_model_checkpoint_paths: "model-1"\n'
        'all_model_checkpoint_paths: "model-2"\n')
    latest = tf.train.latest_checkpoint("run")
    assert latest == os.path.join("run", "model-2")
    state = tf.train.get_checkpoint_state("run")
    assert state.all_model_checkpoint_paths == [os.path.join("run", "model-1"), latest]
    fresh = tf.Session()
    saver.restore(fresh, latest)
    np.testing.assert_array_equal(fresh.run(m.W), sess.run(m.W))
    os.unlink(tmp_path / "run" / "model-2.index")  # the index names a checkpoint that is gone
    assert tf.train.latest_checkpoint("run") is None
    (tmp_path / "run" / "checkpoint").write_text("not: a checkpoint state {")
    assert tf.train.latest_checkpoint("run") is None


def test_index_quotes_paths_as_protobuf_text_format(tmp_path):
    m = _model()
    sess = _trained_session(m)
    odd = 'we\'ird "name\\ é\t'
    folder = tmp_path / odd
    folder.mkdir()
    path = Saver().save(sess, folder / "model")
    text = (folder / "checkpoint").read_text()
    assert "\\'" in text and '\\"' in text and "\\\\" in text and "\\303\\251" in text
    assert "\\t" in text and text.isascii()
    assert tf.train.latest_checkpoint(folder) == path


def test_a_default_saver_leaves_local_variables_out(tmp_path):
    # TF 1.15's Saver() saves the global variables (and optimizer slots), not the local ones a
    # tf.metrics pair keeps (real TF lists no accuracy/count in such a checkpoint)
    w = tf.Variable([1.0, 2.0], name="w")
    _, update = tf.metrics.accuracy(tf.constant([1, 0]), tf.constant([1, 1]))
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        sess.run(update)
        path = saver.save(sess, str(tmp_path / "model"))
    assert [name for name, _ in tf.train.list_variables(path)] == ["w"]
    assert w.name.startswith("w")


def test_saver_takes_tensorflows_arguments(tmp_path):
    # every listing below printed by real TF (2.21's tf.compat.v1) for the same program
    tf.Variable(1.0, name="v")
    every = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1e-9,
                           pad_step_number=True)
    relative = tf.train.Saver(max_to_keep=1, save_relative_paths=True)
    empty = tf.train.Saver([], allow_empty=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            every.save(sess, str(tmp_path / "a"), global_step=step)
        # dropped from the saver's list, each kept on disk: saved after the next "keep" time
        assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".index")) == [
            "a-00000000.index", "a-00000001.index", "a-00000002.index"]
        assert [os.path.basename(p) for p in every.last_checkpoints] == ["a-00000002"]
        relative.save(sess, str(tmp_path / "b"), global_step=5)
        assert (tmp_path / "checkpoint").read_text() == (
            'model_checkpoint_path: "b-5"\nall_model_checkpoint_paths: "b-5"\n')
        assert empty.save(sess, str(tmp_path / "e")) is None
        assert empty.restore(sess, str(tmp_path / "e")) is None
        tf.train.Saver(write_version=tf.train.SaverDef.V2, sharded=True, name="s",
                       filename="f").save(sess, str(tmp_path / "w"))
        assert sorted(f for f in os.listdir(tmp_path) if f.startswith("w")) == [
            "w.data-00000-of-00001", "w.index", "w.meta"]
    assert (tf.train.SaverDef.V1, tf.train.SaverDef.V2) == (1, 2)
    with pytest.raises(ValueError, match="no variables"):
        tf.train.Saver([])
    with pytest.raises(TypeError, match="reshape not supported"):
        tf.train.Saver(reshape=True)
