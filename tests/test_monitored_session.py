"""tf.train's monitored sessions and hooks (issue 24 item 5), against TensorFlow 1.15's
behaviour: the call orders, steps and files below are what TensorFlow 2.21's tf.compat.v1 gave
for the same programs (run by hand; noted where used), the trained values numpy's."""
import logging
import os

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
from tensorboard.compat.proto import event_pb2

import tinyflow as tf
from tinyflow.frontend.session_run_hooks import SummaryWriterCache

pytestmark = pytest.mark.usefixtures("fresh_graph")


@pytest.fixture(autouse=True)
def _writers():
    yield
    SummaryWriterCache.clear()


class Recorder(tf.train.SessionRunHook):
    """Records each call; asks for the global step at every step."""

    def __init__(self, calls, step):
        self.calls, self.step = calls, step

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")

    def before_run(self, run_context):
        self.calls.append("before_run")
        return tf.train.SessionRunArgs({"step": self.step})

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        assert set(run_values.results) == {"step"}

    def end(self, session):
        self.calls.append("end")


def quadratic():
    """``w * w`` from w = 1 by gradient descent at 0.1 (w <- 0.8 w), with a global step."""
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    loss = w * w
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return step, w, loss, train


def test_hooks_are_called_in_tensorflows_order(tmp_path):
    step, _w, _loss, train = quadratic()
    calls = []
    hooks = [Recorder(calls, step), tf.train.StopAtStepHook(num_steps=3)]
    runs = 0
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), hooks=hooks) as sess:
        assert tf.get_default_graph().finalized  # Scaffold.finalize, as TF's
        while not sess.should_stop():
            assert sess.run(train) is None
            runs += 1
        with pytest.raises(RuntimeError, match="Run called even after should_stop"):
            sess.run(train)
    assert runs == 3
    # TF: begin, after_create_session, (before_run, after_run) per step, end
    assert calls == ["begin", "after_create_session"] + ["before_run", "after_run"] * 3 + ["end"]
    assert not tf.get_default_graph().finalized  # as it was before
    assert sess.should_stop() and sess.graph is None


def test_checkpoints_are_saved_and_a_new_session_restores_them(tmp_path):
    step, w, _loss, train = quadratic()
    final = tf.train.FinalOpsHook([w, step])
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), save_checkpoint_steps=2,
                                           hooks=[tf.train.StopAtStepHook(last_step=5),
                                                  final]) as sess:
        while not sess.should_stop():
            sess.run(train)
    assert final.final_ops_values[1] == 5
    np.testing.assert_allclose(final.final_ops_values[0], 0.8 ** 5, rtol=1e-6)
    # TF: saved at the session's creation, every 2 steps, and at the end
    saved = sorted(f for f in os.listdir(tmp_path)
                   if f.startswith("model.ckpt") and f.endswith(".index"))
    assert saved == ["model.ckpt-0.index", "model.ckpt-2.index", "model.ckpt-4.index",
                     "model.ckpt-5.index"]
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-5")

    # a new session restores step 5 and w, and the step goes on from there
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path),
                                           hooks=[tf.train.StopAtStepHook(num_steps=2)]) as sess:
        assert sess.run(step) == 5
        np.testing.assert_allclose(sess.run(w), 0.8 ** 5, rtol=1e-6)
        runs = 0
        while not sess.should_stop():
            sess.run(train)
            runs += 1
    assert runs == 2
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-7")


def test_summaries_and_steps_per_second_are_written(tmp_path):
    _step, _w, loss, train = quadratic()
    tf.summary.scalar("loss", loss)
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), save_summaries_steps=2,
                                           log_step_count_steps=2, save_checkpoint_steps=2,
                                           hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
        while not sess.should_stop():
            sess.run(train)
    files = [f for f in os.listdir(tmp_path) if f.startswith("events.out.tfevents")]
    assert len(files) == 1  # one writer per folder (TF's FileWriterCache)
    records = [event_pb2.Event.FromString(r)
               for r in RawEventFileLoader(str(tmp_path / files[0])).Load()]
    values = [(e.step, v.tag, v.simple_value) for e in records
              if e.WhichOneof("what") == "summary" for v in e.summary.value]
    # TF: the loss at the step after each summarised run (1, 3, 5: the loss each of those
    # runs computed), global_step/sec from the second trigger on (3, 5)
    assert [(s, round(v, 4)) for s, tag, v in values if tag == "loss"] == [
        (1, 1.0), (3, 0.4096), (5, 0.1678)]
    assert [s for s, tag, v in values if tag == "global_step/sec"] == [3, 5]
    assert all(v > 0 for _, tag, v in values if tag == "global_step/sec")
    logs = [(e.step, e.session_log.status) for e in records
            if e.WhichOneof("what") == "session_log"]
    start, checkpoint = event_pb2.SessionLog.START, event_pb2.SessionLog.CHECKPOINT
    assert logs == [(0, checkpoint), (1, start), (2, checkpoint), (4, checkpoint),
                    (5, checkpoint)]
    assert any(e.WhichOneof("what") == "graph_def" for e in records)


def test_initialisation_runs_global_and_local_initialisers():
    tf.train.get_or_create_global_step()
    labels = tf.constant([1, 0, 1, 1])
    predictions = tf.constant([1, 1, 1, 0])
    accuracy, update = tf.metrics.accuracy(labels, predictions)
    with tf.train.MonitoredSession() as sess:  # no checkpoint_dir: the init ops
        assert sess.run(accuracy) == 0.0
        sess.run(update)
        assert sess.run(accuracy) == 0.5


def test_the_end_of_the_input_ends_the_with_block_quietly():
    step = tf.train.get_or_create_global_step()
    increment = tf.assign_add(step, 1)
    calls = []

    def feed_fn():  # an input with two batches (TF's feeding functions end this way)
        if len(calls) == 2:
            raise tf.errors.OutOfRangeError(None, None, "End of sequence")
        calls.append("fed")
        return {}

    recorder = Recorder([], step)
    with tf.train.MonitoredSession(hooks=[tf.train.FeedFnHook(feed_fn), recorder]) as sess:
        while not sess.should_stop():
            sess.run(increment)
        pytest.fail("the loop ends only through the OutOfRangeError")  # pragma: no cover
    assert calls == ["fed", "fed"]
    assert recorder.calls[-1] == "end"  # TF: the hooks' end runs, nothing is raised
    assert sess.should_stop()


def test_the_end_of_a_dataset_ends_the_training_loop(tmp_path):
    step = tf.train.get_or_create_global_step()
    batch = tf.data.Dataset.from_tensor_slices(np.arange(5, dtype=np.float32)).batch(2).make_one_shot_iterator()
    total = tf.Variable(0.0)
    train = tf.group(tf.assign_add(total, tf.reduce_sum(batch.get_next())),
                     tf.assign_add(step, 1))
    recorder = Recorder([], step)
    runs = 0
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path),
                                           hooks=[recorder]) as sess:
        while not sess.should_stop():
            sess.run(train)
            runs += 1
    assert runs == 3  # batches [0, 1], [2, 3], [4]; the fourth run ends the input
    # TF: that run's before_run, no after_run, then end; the last checkpoint is saved at end
    assert recorder.calls == (["begin", "after_create_session"]
                              + ["before_run", "after_run"] * 3 + ["before_run", "end"])
    saved = tf.train.load_checkpoint(str(tmp_path))
    assert saved.get_tensor("global_step") == 3 and saved.get_tensor(total.op.name) == 10.0


def test_an_error_in_the_block_skips_end_and_propagates():
    step = tf.train.get_or_create_global_step()
    recorder = Recorder([], step)
    with pytest.raises(ZeroDivisionError), tf.train.MonitoredSession(hooks=[recorder]) as sess:
        sess.run(step)
        raise ZeroDivisionError
    assert "end" not in recorder.calls and sess.should_stop()
    assert not tf.get_default_graph().finalized


def test_hooks_feeds_and_fetches_join_the_callers_run():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.placeholder(tf.float32, [], name="y")
    total = x + y
    scaled = total * 10  # before the session: it finalizes the graph, as TF's
    seen = []

    class Watch(tf.train.SessionRunHook):
        def before_run(self, run_context):
            seen.append(run_context.original_args.fetches is total)
            return tf.train.SessionRunArgs(scaled, feed_dict={y: 2.0})

        def after_run(self, run_context, run_values):
            seen.append(float(run_values.results))

    with tf.train.MonitoredSession(hooks=[Watch()]) as sess:
        assert sess.run(total, feed_dict={x: 1.0}) == 3.0
        with pytest.raises(RuntimeError, match="Same tensor is fed by a SessionRunHook and user"):
            sess.run(total, feed_dict={x: 1.0, y: 5.0})
    assert seen[:2] == [True, 30.0]
    with pytest.raises(RuntimeError, match="Same tensor is fed by two hooks"), \
            tf.train.MonitoredSession(hooks=[Watch(), Watch()]) as sess:
        sess.run(total, feed_dict={x: 1.0})


def test_request_stop_from_after_run():
    step = tf.train.get_or_create_global_step()
    increment = tf.assign_add(step, 1)

    class StopAtTwo(tf.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            if run_context.session.run(step) == 2:
                run_context.request_stop()

    with tf.train.SingularMonitoredSession(hooks=[StopAtTwo()]) as sess:
        while not sess.should_stop():
            sess.run(increment)
        assert sess.raw_session().run(step) == 2


def test_logging_tensor_hook_every_n_iter_and_formatter(caplog):
    step, _w, loss, train = quadratic()
    logged = []
    hook = tf.train.LoggingTensorHook({"loss": loss, "step": step}, every_n_iter=2,
                                      formatter=lambda values: logged.append(dict(values)))
    plain = tf.train.LoggingTensorHook([loss.name], every_n_iter=3, at_end=True)
    tf.logging.set_verbosity(tf.logging.INFO)
    try:
        with caplog.at_level(logging.INFO, logger="tensorflow"), tf.train.MonitoredSession(
                hooks=[hook, plain, tf.train.StopAtStepHook(last_step=5)]) as sess:
            while not sess.should_stop():
                sess.run(train)
    finally:
        tf.logging.set_verbosity(tf.logging.WARN)
    # TF: iterations 0, 2 and 4 are logged, with the loss each of those runs computed
    np.testing.assert_allclose([v["loss"] for v in logged], [1.0, 0.8 ** 4, 0.8 ** 8],
                               rtol=1e-6)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith(loss.name)]
    assert len(lines) == 3  # iterations 0 and 3, and at the end
    assert lines[0] == f"{loss.name} = 1.0"
    assert lines[1].startswith(f"{loss.name} = 0.26214397 (") and lines[1].endswith(" sec)")


def test_nan_tensor_hook():
    tf.train.get_or_create_global_step()
    x = tf.placeholder(tf.float32, [])
    loss = tf.log(x)
    with pytest.raises(tf.train.NanLossDuringTrainingError, match="NaN loss during training"), \
            tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss)]) as sess:
        sess.run(loss, {x: 1.0})
        sess.run(loss, {x: -1.0})
    with tf.train.MonitoredSession(
            hooks=[tf.train.NanTensorHook(loss, fail_on_nan_loss=False)]) as sess:
        sess.run(loss, {x: -1.0})
        assert sess.should_stop()


def test_errors_are_tensorflows():
    with pytest.raises(ValueError, match="One of num_steps or last_step"):
        tf.train.StopAtStepHook()
    with pytest.raises(ValueError, match="Only one of num_steps or last_step"):
        tf.train.StopAtStepHook(num_steps=1, last_step=1)
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        tf.train.LoggingTensorHook(["x"])
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
        tf.train.SummarySaverHook(save_steps=1)
    with pytest.raises(ValueError, match="Can not provide both every_secs and every_steps"):
        tf.train.CheckpointSaverHook("/nonexistent", save_secs=1, save_steps=1)
    tf.Variable(1.0)
    with pytest.raises(RuntimeError, match="Global step should be created to use StopAtStep"):
        tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=1)])
    assert not tf.get_default_graph().finalized
    with pytest.raises(ValueError, match="master='grpc://host:2222'"):
        tf.train.MonitoredTrainingSession(master="grpc://host:2222")
    with pytest.raises(ValueError, match="is_chief=False"):
        tf.train.MonitoredTrainingSession(is_chief=False)
    with pytest.raises(AttributeError, match="tf.train.Server"):
        tf.train.Server  # noqa: B018


def test_scaffold_init_fn_and_saver_collection(tmp_path):
    w = tf.Variable(1.0, name="w")
    seen = []
    scaffold = tf.train.Scaffold(init_fn=lambda scaffold, sess: seen.append(
        (scaffold is not None, float(sess.run(w)))))
    with tf.train.SingularMonitoredSession(scaffold=scaffold) as sess:
        assert scaffold.saver is tf.get_collection("savers")[0]
        assert scaffold.init_op is tf.get_collection("init_op")[0]
        scaffold.saver.save(sess.raw_session(), str(tmp_path / "model.ckpt"))
    assert seen == [(True, 1.0)]
    with tf.train.SingularMonitoredSession(checkpoint_filename_with_path=str(
            tmp_path / "model.ckpt")) as sess:
        assert sess.run(w) == 1.0
    assert seen == [(True, 1.0)]  # restored: no init_fn


def test_a_failed_restore_leaves_the_graph_as_it_was(tmp_path):
    tf.train.get_or_create_global_step()
    (tmp_path / "model.ckpt-3.index").write_bytes(b"not a checkpoint")
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-3"\n')
    with pytest.raises(ValueError, match="model.ckpt-3"):  # the Saver's CheckpointError
        tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path))
    assert not tf.get_default_graph().finalized

