"""tf.train.Supervisor, SessionManager, LooperThread and basic_train_loop with TensorFlow
1.15's behaviour (tensorflow/python/training/supervisor.py and session_manager.py): the model
initialised or restored from the logdir's latest checkpoint, the standard services' checkpoints
(model.ckpt-<global step>) and events (summaries, global_step/sec, SessionLog START / STOP /
CHECKPOINT, read back with TensorBoard's loader), an exception from the block raised after the
services stopped and the session closed, OutOfRangeError a quiet end."""
import os
import threading
import time

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
from tensorboard.compat.proto import event_pb2

import tinyflow as tf
from tinyflow.nnvm.errors import BindError

pytestmark = pytest.mark.usefixtures("fresh_graph")
XS = np.random.default_rng(0).random((32, 3), dtype=np.float32)
YS = XS @ np.float32([[1.0], [2.0], [3.0]])


def _model(summary=True):
    """A linear regression with the global step, a summary of a weight (no feed needed)."""
    tf.reset_default_graph()
    x, y = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [None, 1])
    w = tf.Variable(tf.zeros([3, 1]), name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    if summary:
        tf.summary.scalar("w0", w[0, 0])
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return {x: XS, y: YS}, w, loss, train, step


def _events(logdir) -> list:
    files = sorted(f for f in os.listdir(logdir) if f.startswith("events.out"))
    return [event_pb2.Event.FromString(r) for f in files
            for r in RawEventFileLoader(os.path.join(logdir, f)).Load()]


def test_supervisor_trains_checkpoints_writes_events_and_restores(tmp_path):
    feed, w, _, train, step = _model()
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0.2, save_summaries_secs=0.2)
    assert tf.get_default_graph().finalized
    with sv.managed_session() as sess:
        assert sess.run(step) == 0  # initialised: no checkpoint yet
        for _ in range(20):
            sess.run(train, feed)
            time.sleep(0.02)
        trained = sess.run(w)
    assert sv.should_stop()
    saved = tf.train.get_checkpoint_state(str(tmp_path)).model_checkpoint_path
    assert os.path.basename(saved).startswith("model.ckpt-")
    events = _events(tmp_path)
    tags = {v.tag for e in events if e.HasField("summary") for v in e.summary.value}
    assert {"w0", "global_step/sec"} <= tags
    logs = [e.session_log.status for e in events if e.HasField("session_log")]
    start, stop, checkpoint = (event_pb2.SessionLog.START, event_pb2.SessionLog.STOP,
                               event_pb2.SessionLog.CHECKPOINT)
    assert logs[0] == start and logs[-1] == stop and checkpoint in logs
    assert any(e.HasField("graph_def") for e in events)
    # a new program on the same logdir continues from the latest checkpoint
    feed, w, _, train, step = _model()
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)
    with sv.managed_session() as sess:
        restored_step = sess.run(step)
        # the service saves while the loop trains (as TF's): the file is named by the step it
        # read first, the values are the ones it read then
        reader = tf.train.NewCheckpointReader(saved)
        assert restored_step == reader.get_tensor("global_step") and 0 < restored_step <= 20
        np.testing.assert_array_equal(sess.run(w), reader.get_tensor("w"))
    np.testing.assert_allclose(reader.get_tensor("w"), trained, atol=0.5)


def test_out_of_range_ends_quietly_other_errors_after_closing(tmp_path):
    _model()
    sv = tf.train.Supervisor(logdir=None)
    with sv.managed_session() as sess:
        raise tf.errors.OutOfRangeError(None, None, "input exhausted")
    assert sv.should_stop() and sess.closed
    _model()
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)
    with pytest.raises(ValueError, match="boom"), sv.managed_session() as sess:
        raise ValueError("boom")
    assert sess.closed


def test_a_failing_service_stops_the_loop_and_is_raised(tmp_path):
    # TF's summary thread cannot feed placeholders: a summary reading one fails the service
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [2], name="fed_x")
    tf.summary.scalar("mean", tf.reduce_mean(x))
    tf.Variable(1.0, name="v")
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0.05)
    with pytest.raises(BindError, match="fed_x"), sv.managed_session():
        deadline = time.monotonic() + 30
        while not sv.should_stop() and time.monotonic() < deadline:
            time.sleep(0.01)


def test_services_off_and_init_fn_feed_and_ready_op():
    tf.reset_default_graph()
    start = tf.placeholder(tf.float32, [], name="start")
    v = tf.Variable(start, name="v")
    called = []
    sv = tf.train.Supervisor(logdir=None, summary_op=None, saver=None, global_step=None,
                             init_feed_dict={start: 4.0},
                             init_fn=lambda sess: called.append(sess.run(v)))
    with sv.managed_session() as sess:
        assert sess.run(v) == 4.0 and called == [4.0]
    # a ready_op reporting something not ready: TF's RuntimeError
    tf.reset_default_graph()
    tf.Variable(1.0, name="v")
    manager = tf.train.SessionManager(ready_op=tf.constant(["v"]))
    with pytest.raises(RuntimeError, match="did not make model ready.*Variables not "
                                           "initialized: v"):
        manager.prepare_session("", init_op=tf.global_variables_initializer())
    with pytest.raises(RuntimeError, match="no init_op or init_fn or local_init_op"):
        tf.train.SessionManager().prepare_session("")


def test_session_manager_recovers_from_a_checkpoint(tmp_path):
    feed, w, _, train, step = _model(summary=False)
    saver = tf.train.Saver()
    manager = tf.train.SessionManager()
    sess, recovered = manager.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
    assert not recovered
    sess.run(tf.global_variables_initializer())
    sess.run(train, feed)
    saver.save(sess, str(tmp_path / "model.ckpt"), global_step=step)
    weights = sess.run(w)
    sess.close()
    sess, recovered = manager.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
    assert recovered
    np.testing.assert_array_equal(sess.run(w), weights)
    with pytest.raises(ValueError, match="master='grpc://x:1'"):
        manager.prepare_session("grpc://x:1")
    with pytest.raises(ValueError, match="is_chief=False"):
        tf.train.Supervisor(is_chief=False)


def test_looper_threads_and_basic_train_loop():
    coord = tf.train.Coordinator()
    calls = []
    looper = tf.train.LooperThread.loop(coord, 0.05, calls.append, args=(1,))
    time.sleep(0.3)
    coord.request_stop()
    coord.join()  # the looper registered itself
    assert not looper.is_alive() and 2 <= len(calls) <= 10  # at once, then every 0.05 s
    with pytest.raises(ValueError, match="require that you also pass 'target'"):
        tf.train.LooperThread(tf.train.Coordinator(), 1.0, args=(1,))
    # a looper's exception stops the coordinator and is raised by join
    coord = tf.train.Coordinator()
    tf.train.LooperThread.loop(coord, None, lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        coord.join()
    # basic_train_loop: steps until a stop is requested, a new session after an AbortedError
    feed, _, _, train, step = _model(summary=False)
    sv = tf.train.Supervisor(logdir=None, summary_op=None)
    sessions, lock = [], threading.Lock()

    def train_step(sess, feed_dict):
        with lock:
            if sess not in sessions:
                sessions.append(sess)
        done = sess.run([train, step], feed_dict)[1]
        if len(sessions) == 1 and done == 3:
            raise tf.errors.AbortedError(None, None, "preempted")
        if done == 5:
            sv.request_stop()
    tf.train.basic_train_loop(sv, train_step, args=(feed,))
    assert len(sessions) == 2 and all(s.closed for s in sessions)


def test_summary_protos_as_tf_names_them(tmp_path):
    summary = tf.Summary(value=[tf.Summary.Value(tag="accuracy", simple_value=0.5)])
    assert tf.summary.Summary is tf.Summary
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_summary(summary, 7)
    writer.add_session_log(tf.SessionLog(status=tf.SessionLog.START), 7)
    writer.close()
    events = _events(tmp_path)
    [value] = [v for e in events if e.HasField("summary") for v in e.summary.value]
    assert (value.tag, value.simple_value) == ("accuracy", 0.5)
    assert [e.step for e in events if e.HasField("session_log")] == [7]
