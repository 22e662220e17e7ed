"""Checkpoints under stress (issue 12): kill -9 during saves, file modes, links and devices,
zip bombs, member names, errors naming the path."""
import os
import queue
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc
import zipfile

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend import checkpoint_format
from tinyflow.frontend import saver as saver_module
from tinyflow.frontend.saver import CheckpointError, Saver

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _session(**values):
    """A session holding a variable per keyword (its initial value)."""
    variables = {name: tf.Variable(tf.constant(np.asarray(value, np.float32)), name=name)
                 for name, value in values.items()}
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return sess, variables


def _temps(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# -- kill -9 during saves ------------------------------------------------------------------------
CHILD = """
import os, sys
import numpy as np
import tinyflow as tf
path = sys.argv[1]
big = tf.Variable(tf.zeros([8_000_000]), name="big")   # 32 MB: a save takes a while
count = tf.Variable(0.0, name="count")
step = tf.group(tf.assign_add(big, tf.ones([8_000_000])), tf.assign_add(count, 1.0))
sess = tf.Session()
saver = tf.train.Saver()
if tf.train.checkpoint_exists(path):
    saver.restore(sess, path)   # what the killed process saved last
else:
    sess.run(tf.global_variables_initializer())
while True:
    sess.run(step)
    print("saving", flush=True)
    saver.save(sess, path)
    print("saved", flush=True)
"""


def _start_saving(script, path):
    process = subprocess.Popen([sys.executable, str(script), str(path)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=_child_env())
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.strip()) for line in process.stdout]
                     + [lines.put(None)], daemon=True).start()
    return process, lines


def _child_env():
    root = os.path.dirname(os.path.dirname(os.path.abspath(tf.__file__)))
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [root] + [p for p in [os.environ.get("PYTHONPATH")] if p])}


def test_kill_9_during_saves_keeps_a_readable_checkpoint_and_no_growing_temps(tmp_path):
    script = tmp_path / "saver_child.py"
    script.write_text(textwrap.dedent(CHILD))
    path = tmp_path / "model"
    left_behind = []
    for kill in range(3):
        process, lines = _start_saving(script, path)
        try:
            for _ in range(2):  # a save done by this process, then into the next one
                assert lines.get(timeout=120) == "saving"
                assert lines.get(timeout=120) == "saved"
            # this process's first save removed the temp files killed processes left
            assert len(_temps(tmp_path)) <= 2
            assert lines.get(timeout=120) == "saving"
            time.sleep(0.005 * (kill + 1))  # into that save (a save takes ~30 ms)
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
        finally:
            process.kill()
            process.wait()
        left_behind.append(len(_temps(tmp_path)))
        reader = tf.train.NewCheckpointReader(path)  # the previous checkpoint
        big, count = reader.get_tensor("big"), reader.get_tensor("count")
        assert big.shape == (8_000_000,) and np.all(big == count), "a torn checkpoint"
    assert max(left_behind) >= 1, f"no kill landed inside a save: {left_behind}"
    # a save here cleans what the last child left, once it is older than this process (it is
    # not: this process started first, so it is aged as a file from before a restart would be)
    sess, _ = _session(big=np.zeros(3), count=0.0)
    old = time.time() - 3600
    for name in _temps(tmp_path):
        os.utime(tmp_path / name, (old, old))
    Saver().save(sess, path)
    assert _temps(tmp_path) == []


def test_only_stale_temps_of_the_same_file_are_removed(tmp_path):
    sess, _ = _session(w=[1.0, 2.0])
    old = time.time() - 3600
    names = {"stale": ".model.index.ab_cd123.tmp", "live": ".model.index.zz99zz99.tmp",
             "stale data": ".model.data-00000-of-00001.x1y2z3w4.tmp",
             "other file": ".other.index.ab_cd123.tmp", "not ours": ".model.index.abc.tmp",
             "stale index": ".checkpoint.k2j4h6g8.tmp"}
    for label, name in names.items():
        (tmp_path / name).write_bytes(b"partial")
        if label != "live":  # "live": a save in progress elsewhere, written just now
            os.utime(tmp_path / name, (old, old))
    Saver().save(sess, tmp_path / "model")
    assert _temps(tmp_path) == sorted([names["live"], names["other file"], names["not ours"]])


# -- modes, links, devices -----------------------------------------------------------------------
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_files_get_the_mode_the_umask_gives(tmp_path, umask):
    sess, _ = _session(w=[1.0])
    previous = os.umask(umask)
    try:
        Saver().save(sess, tmp_path / "model")
    finally:
        os.umask(previous)
    for name in ("model.index", "model.data-00000-of-00001", "checkpoint"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o666 & ~umask, name


def test_a_symlink_is_refused_and_left_alone(tmp_path):
    sess, _ = _session(w=[1.0])
    target = tmp_path / "elsewhere.bin"
    target.write_bytes(b"precious")
    (tmp_path / "model.index").symlink_to(target)
    with pytest.raises(CheckpointError, match=r"model\.index.*symbolic link"):
        Saver().save(sess, tmp_path / "model")
    assert (tmp_path / "model.index").is_symlink() and target.read_bytes() == b"precious"
    assert _temps(tmp_path) == [] and not (tmp_path / "checkpoint").exists()
    assert not (tmp_path / "model.data-00000-of-00001").exists()


def test_a_fifo_or_device_is_refused(tmp_path):
    sess, _ = _session(w=[1.0])
    fifo = tmp_path / "fifo.index"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match=r"fifo\.index.*not a regular file"):
        Saver().save(sess, tmp_path / "fifo")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    device = tmp_path / "full.data-00000-of-00001"
    try:  # /dev/full's numbers (root only)
        os.mknod(device, stat.S_IFCHR | 0o600, os.makedev(1, 7))
    except (PermissionError, OSError):
        return
    with pytest.raises(CheckpointError, match=r"full\.data-00000-of-00001.*not a regular file"):
        Saver().save(sess, tmp_path / "full")
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_the_index_file_is_checked_too(tmp_path):
    sess, _ = _session(w=[1.0])
    (tmp_path / "checkpoint").symlink_to(tmp_path / "nowhere")
    with pytest.raises(CheckpointError, match=r"checkpoint'.*symbolic link"):
        Saver().save(sess, tmp_path / "model")


# -- reading ---------------------------------------------------------------------------------------
def _bomb(path, members):
    """A .npz whose members are ``{name: (header array, bytes of zeros after it)}``, deflated."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for name, (array, extra) in members.items():
            with zf.open(name, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array)
                zero = bytes(1 << 20)
                for _ in range(extra >> 20):
                    member.write(zero)


@pytest.mark.parametrize("where", ["in a variable's member", "in a member nobody asked for"])
def test_a_zip_bomb_is_refused_without_reading_it(tmp_path, where):
    sess, _ = _session(w=np.zeros((4, 3)))
    path = tmp_path / "bomb.npz"
    w = np.ones((4, 3), np.float32)
    if where == "in a variable's member":
        _bomb(path, {"w.npy": (w, 64 << 20)})
    else:
        _bomb(path, {"w.npy": (w, 0), "junk.npy": (np.zeros(1), 64 << 20)})
    tracemalloc.start()
    try:
        if where == "in a variable's member":
            with pytest.raises(CheckpointError, match=r"'w' is corrupt in the file.*w\.npy"):
                Saver().restore(sess, path)
        else:
            Saver().restore(sess, path)
            np.testing.assert_array_equal(sess.run(tf.all_variables()[0]), w)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, f"restore allocated {peak} bytes"


def test_a_member_with_a_huge_shape_is_refused_before_reading(tmp_path):
    sess, _ = _session(w=np.zeros((4, 3)))
    path = tmp_path / "big.npz"
    with zipfile.ZipFile(path, "w") as zf, zf.open("w.npy", "w") as member:
        header = {"descr": "<f4", "fortran_order": False, "shape": (100000, 100000)}
        np.lib.format.write_array_header_1_0(member, header)
    with pytest.raises(CheckpointError, match=r"'w' has shape \(100000, 100000\) in the file but "
                                              r"\(4, 3\)"):
        Saver().restore(sess, path)


def test_names_a_and_a_npy_do_not_collide(tmp_path):
    sess, variables = _session(first=[1.0, 2.0], second=[3.0, 4.0])
    saver = Saver({"a": variables["first"], "a.npy": variables["second"]})
    path = saver.save(sess, tmp_path / "model")
    fresh = tf.Session()
    saver.restore(fresh, path)
    np.testing.assert_array_equal(fresh.run(variables["first"]), [1.0, 2.0])
    np.testing.assert_array_equal(fresh.run(variables["second"]), [3.0, 4.0])
    assert tf.train.list_variables(path) == [("a", [2]), ("a.npy", [2])]


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), MemoryError()])
def test_write_errors_are_checkpoint_errors_naming_the_path(tmp_path, monkeypatch, error):
    sess, _ = _session(w=[1.0])

    def fail(*args, **kwargs):
        raise error
    monkeypatch.setattr(checkpoint_format, "write_index", fail)
    with pytest.raises(CheckpointError,
                       match=r"cannot write checkpoint '.*model\.data-00000-of-00001'") as err:
        Saver().save(sess, tmp_path / "model")
    assert err.value.__cause__ is error
    assert list(tmp_path.iterdir()) == []


def test_read_errors_are_checkpoint_errors_naming_the_path(tmp_path, monkeypatch):
    sess, _ = _session(w=[1.0])
    path = Saver().save(sess, tmp_path / "model")

    def fail(*args, **kwargs):
        raise MemoryError()
    monkeypatch.setattr(saver_module, "_read_entry", fail)
    with pytest.raises(CheckpointError, match=r"cannot read checkpoint '.*model'.*Memory"):
        Saver().restore(sess, path)
    np.savez(tmp_path / "old.npz", w=[2.0])  # TinyFlow's earlier format
    monkeypatch.setattr(saver_module, "_read_member", fail)
    with pytest.raises(CheckpointError, match=r"cannot read checkpoint '.*old\.npz'.*Memory"):
        Saver().restore(sess, tmp_path / "old")
    folder = tmp_path / "folder.npz"
    folder.mkdir()
    with pytest.raises((CheckpointError, FileNotFoundError), match="folder.npz"):
        Saver().restore(sess, folder)
