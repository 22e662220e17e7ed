"""Untrusted feeds, checkpoints and event-file paths (issue 23): sizes are checked from shape x
itemsize before anything is copied or allocated, with errors naming the placeholder or the
variable; bad files are a CheckpointError; nothing is changed by a refused input."""
import errno
import os
import tracemalloc
import zipfile

import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.executor import ResourceExhaustedError
from tinyflow.frontend import events
from tinyflow.frontend.saver import CheckpointError
from tinyflow.nnvm import host_memory

pytestmark = pytest.mark.usefixtures("fresh_graph")

LIMIT = 100 << 20


@pytest.fixture
def small_host(monkeypatch):
    """A host with 100 MB available, as the allocation check sees it."""
    monkeypatch.setattr(host_memory, "host_available_bytes",
                        lambda: (LIMIT, "the test's limit"))


def _peak(function):
    """``(error raised, peak bytes traced)`` of ``function()``."""
    tracemalloc.start()
    try:
        function()
    except Exception as err:  # noqa: BLE001 (returned for the test to check)
        return err, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return None, 0


# -- feeds ---------------------------------------------------------------------------------------
FEEDS = {
    "zero-stride view, another dtype": lambda: np.broadcast_to(np.float64(0), (50_000_000,)),
    "4 TB zero-stride view": lambda: np.broadcast_to(np.float32(0), (10 ** 12,)),
    "strided view": lambda: np.zeros(60_000_000, np.int8)[::2].view(np.int8),
    "torch expanded tensor": lambda: torch.zeros(1).expand(50_000_000),
}


@pytest.mark.parametrize("make", FEEDS.values(), ids=FEEDS.keys())
def test_a_feed_is_sized_before_it_is_copied(small_host, make):
    x = tf.placeholder(tf.float32, shape=(None,), name="big_feed")
    y = x * 2.0
    session = tf.Session()
    value = make()
    err, peak = _peak(lambda: session.run(y, {x: value}))
    assert isinstance(err, ResourceExhaustedError), err
    assert "placeholder 'big_feed'" in str(err) and "feed, as a C-order copy" in str(err)
    assert peak < 10 << 20, f"{peak} bytes allocated before the error"
    assert list(session.run(y, {x: np.ones(2, np.float32)})) == [2.0, 2.0]  # still usable


def test_a_device_tensor_is_sized_before_it_is_copied_to_the_host(small_host):
    x = tf.placeholder(tf.float32, shape=(None,), name="device_feed")
    value = torch.empty(10 ** 12, device="meta")  # stands for a CUDA tensor: not on the host
    with pytest.raises(ResourceExhaustedError, match="placeholder 'device_feed'.*copied to the "
                                                     "host"):
        tf.Session().run(x * 2.0, {x: value})


def test_a_list_too_big_for_memory_names_the_placeholder(monkeypatch):
    x = tf.placeholder(tf.float32, shape=(None, None), name="rows")

    def failing(value, *args, **kwargs):
        raise MemoryError("Unable to allocate 7.28 TiB")
    session = tf.Session()
    monkeypatch.setattr(np, "asarray", failing)
    with pytest.raises(ResourceExhaustedError, match="placeholder 'rows'.*does not fit"):
        session.run(x + 1.0, {x: [[0.0] * 3] * 3})


def test_a_feed_used_as_it_is_is_not_checked_again(small_host):
    x = tf.placeholder(tf.float32, shape=(None,), name="x")
    value = np.ones(5, np.float32)
    assert list(tf.Session().run(x * 2.0, {x: value})) == [2.0] * 5


# -- checkpoints ---------------------------------------------------------------------------------
def _bomb(path, name, count, deflate=True):
    """A checkpoint whose member ``name`` holds ``count`` float32 zeros, compressed to little."""
    method = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", compression=method) as archive, \
            archive.open(f"{name}.npy", "w", force_zip64=True) as member:
        np.lib.format.write_array_header_1_0(
            member, {"descr": "<f4", "fortran_order": False, "shape": (count,)})
        for start in range(0, count * 4, 1 << 20):
            member.write(bytes(min(1 << 20, count * 4 - start)))
    return str(path)


def _unshaped_variable():
    """A variable whose shape is known only once it is fed (a restore takes the file's)."""
    x = tf.placeholder(tf.float32, shape=(None,), name="x")
    return tf.Variable(x * 1.0, name="v", validate_shape=False)  # TF: no static shape


@pytest.mark.parametrize("limit", ["default", "max_restore_bytes"])
def test_a_small_checkpoint_cannot_restore_a_huge_tensor(tmp_path, monkeypatch, limit):
    path = _bomb(tmp_path / "bomb.npz", "v", 50_000_000)  # 200 MB of zeros
    assert os.path.getsize(path) < 1 << 20
    v = _unshaped_variable()
    if limit == "default":
        monkeypatch.setattr(host_memory, "host_available_bytes", lambda: (LIMIT, "the test's"))
        saver = tf.train.Saver([v])
    else:
        saver = tf.train.Saver([v], max_restore_bytes=LIMIT)
    session = tf.Session()
    err, peak = _peak(lambda: saver.restore(session, path))
    assert isinstance(err, CheckpointError), err
    assert "variable 'v' has shape (50000000,) float32" in str(err)
    assert "needs 400000000 bytes to restore" in str(err)  # the array and the new tensor
    assert peak < 10 << 20, f"{peak} bytes allocated before the error"
    assert v.node not in session.variable_store.shapes()  # the session is as it was


def test_a_restore_within_the_limit_still_works(tmp_path):
    path = _bomb(tmp_path / "small.npz", "v", 1000, deflate=False)
    v = _unshaped_variable()
    session = tf.Session()
    tf.train.Saver([v], max_restore_bytes=8000).restore(session, path)
    assert session.variable_store.shapes()[v.node] == (1000,)
    with pytest.raises(CheckpointError, match="variable 'v'.*needs 4000 bytes"):
        tf.train.Saver([v], max_restore_bytes=3999).restore(session, path)  # held: one copy


def test_a_header_with_an_unclosed_parenthesis_is_a_checkpoint_error(tmp_path):
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (3, }"
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    path = tmp_path / "broken.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("v.npy", b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little")
                         + header + bytes(12))
    v = tf.Variable(tf.zeros([3]), name="v")
    with pytest.raises(CheckpointError, match="cannot read checkpoint.*broken.npz"):
        tf.train.Saver([v]).restore(tf.Session(), str(path))


def test_a_name_with_a_nul_is_its_own_name_in_the_checkpoint(tmp_path):
    # TensorFlow's table keys are length-delimited: "a\0b" is not "a" (a ZIP member's was)
    a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    saver = tf.train.Saver({"a\0b": b, "a": a})
    path = saver.save(sess, tmp_path / "model")
    assert tf.train.list_variables(path) == [("a", []), ("a\0b", [])]
    fresh = tf.Session()
    saver.restore(fresh, path)
    assert fresh.run(a) == 1.0 and fresh.run(b) == 2.0


# -- event files ---------------------------------------------------------------------------------
class _FullDisk:
    """A file whose writes fail as on a full disk."""

    def __init__(self, file):
        self.file, self.name, self.closed = file, file.name, False

    def write(self, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    flush = close = lambda self: self.write(b"")


def test_a_full_disk_names_the_event_file_and_close_then_succeeds(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    inner = writer._writer._writer
    writer._writer._writer = _FullDisk(inner)
    writer.add_event(_an_event())
    with pytest.raises(OSError, match="FileWriter cannot write its event file") as err:
        writer.flush()
    assert err.value.errno == errno.ENOSPC and err.value.filename == inner.name
    assert str(tmp_path) in str(err.value)
    writer.close()
    writer.close()  # idempotent
    inner.close()
    writer.reopen()  # a new file works again
    writer.add_event(_an_event())
    writer.close()
    assert len(list(tmp_path.iterdir())) == 2


def _an_event():
    return events.event(1, file_version="brain.Event:2")
