"""Untrusted feeds, checkpoints and event-file paths (issue 23): sizes are checked from shape x
itemsize before anything is copied or allocated, with errors naming the placeholder or the
variable; bad files are a CheckpointError; nothing is changed by a refused input."""
import tracemalloc

import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.executor import ResourceExhaustedError, memory

pytestmark = pytest.mark.usefixtures("fresh_graph")

LIMIT = 100 << 20


@pytest.fixture
def small_host(monkeypatch):
    """A host with 100 MB available, as the allocation check sees it."""
    monkeypatch.setattr(memory, "available_bytes", lambda device: (LIMIT, "the test's limit"))


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
