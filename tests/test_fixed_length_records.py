"""``tf.data.FixedLengthRecordDataset`` against real TensorFlow.

Every expected record and error text here was recorded from TensorFlow 2.21's tf.compat.v1
(tensorflow-cpu in /work/tfvenv; its FixedLengthRecordDatasetV2 kernel is TF 1.15's): the
records of ``bytes(range(40))`` written plain, gzip'd and zlib'd, with headers and footers,
and the errors of sizes out of range and of bodies not a whole number of records.  A file is
untrusted: a record length past the host's memory is refused before any read.
"""
from __future__ import annotations

import gzip
import tracemalloc
import zlib

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.nnvm import host_memory

pytestmark = pytest.mark.usefixtures("fresh_graph")

DATA = bytes(range(40))
# TF 2.21: FixedLengthRecordDataset(f, 4, header_bytes=3, footer_bytes=5), plain or GZIP
RECORDS_4_3_5 = [bytes(range(s, s + 4)) for s in range(3, 35, 4)]
# TF 2.21 (GZIP, record_bytes 5, header 3, footer 5): six records, then a DataLossError
RECORDS_5_3_5 = [bytes(range(s, s + 5)) for s in range(3, 33, 5)]
# TF 2.21's message (its uncompressed case an InvalidArgumentError before any record)
NOT_WHOLE = ('Excluding the header (3 bytes) and footer (5 bytes), input file "{}" has body '
             'length 32 bytes, which is not an exact multiple of the record length (5 bytes).')


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a.bin").write_bytes(DATA)
    (tmp_path / "a.gz").write_bytes(gzip.compress(DATA))
    (tmp_path / "a.z").write_bytes(zlib.compress(DATA))
    (tmp_path / "empty.bin").write_bytes(b"")
    return tmp_path


def _all(dataset, feed=None):
    element = tf.data.make_one_shot_iterator(dataset).get_next() if feed is None else None
    if feed is not None:
        iterator = tf.data.make_initializable_iterator(dataset)
        element = iterator.get_next()
    out = []
    with tf.Session() as session:
        if feed is not None:
            session.run(iterator.initializer, feed)
        try:
            while True:
                out.append(session.run(element))
        except tf.errors.OutOfRangeError:
            return out


@pytest.mark.parametrize("name, compression", [("a.bin", None), ("a.gz", "GZIP")])
def test_records_between_header_and_footer(files, name, compression):
    dataset = tf.data.FixedLengthRecordDataset(str(files / name), 4, header_bytes=3,
                                               footer_bytes=5, compression_type=compression)
    assert dataset.output_types == tf.string and dataset.output_shapes.as_list() == []
    assert _all(dataset) == RECORDS_4_3_5


def test_zlib_two_files_and_an_empty_one(files):
    # TF 2.21: record_bytes 8, ZLIB: five records; [a.bin, a.bin], 20: four; an empty file none
    assert _all(tf.data.FixedLengthRecordDataset(str(files / "a.z"), 8, compression_type="ZLIB",
                                                 buffer_size=3)) == [
        DATA[s:s + 8] for s in range(0, 40, 8)]
    names = [str(files / "a.bin"), str(files / "empty.bin"), str(files / "a.bin")]
    assert _all(tf.data.FixedLengthRecordDataset(names, 20)) == [DATA[:20], DATA[20:]] * 2


def test_sizes_as_tensors(files):
    size = tf.placeholder(tf.int64, [])
    dataset = tf.data.FixedLengthRecordDataset(str(files / "a.bin"), size, header_bytes=3,
                                               footer_bytes=5)
    assert _all(dataset, {size: 4}) == RECORDS_4_3_5
    assert _all(dataset, {size: 8}) == [DATA[s:s + 8] for s in range(3, 35, 8)]


def test_a_body_not_a_whole_number_of_records(files):
    plain = tf.data.FixedLengthRecordDataset(str(files / "a.bin"), 5, 3, 5)
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        _all(plain)  # before any record
    assert NOT_WHOLE.format(files / "a.bin") in str(caught.value)
    element = tf.data.make_one_shot_iterator(tf.data.FixedLengthRecordDataset(
        str(files / "a.gz"), 5, 3, 5, compression_type="GZIP")).get_next()
    with tf.Session() as session:
        assert [session.run(element) for _ in range(6)] == RECORDS_5_3_5
        with pytest.raises(tf.errors.DataLossError) as caught:
            session.run(element)
    assert NOT_WHOLE.format(files / "a.gz") in str(caught.value)
    # shorter than header and footer: TF 2.21 wraps the body length around (2**64 - 5);
    # TinyFlow says -5
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"body length -5 bytes"):
        _all(tf.data.FixedLengthRecordDataset(str(files / "a.bin"), 5, 30, 15))


@pytest.mark.parametrize("arguments, message", [
    # TF 2.21's texts, raised when the iterator runs
    ({"record_bytes": 0}, "`record_bytes` must be > 0"),
    ({"record_bytes": -1}, "`record_bytes` must be > 0"),
    ({"record_bytes": 4, "header_bytes": -1}, "`header_bytes` must be >= 0"),
    ({"record_bytes": 4, "footer_bytes": -1}, "`footer_bytes` must be >= 0"),
    ({"record_bytes": 4, "buffer_size": -5}, "`buffer_size` must be >= 0"),
])
def test_sizes_out_of_range(files, arguments, message):
    dataset = tf.data.FixedLengthRecordDataset(str(files / "a.bin"), **arguments)
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _all(dataset)


def test_missing_files_and_bad_arguments(files):
    with pytest.raises(tf.errors.NotFoundError, match=r"nope.bin; No such file or directory"):
        _all(tf.data.FixedLengthRecordDataset(str(files / "nope.bin"), 4))
    with pytest.raises(ValueError, match="compression_type"):
        tf.data.FixedLengthRecordDataset(str(files / "a.bin"), 4, compression_type="LZ")
    with pytest.raises(TypeError, match="record_bytes must be an int"):
        tf.data.FixedLengthRecordDataset(str(files / "a.bin"), 4.5)


@pytest.mark.parametrize("name, compression", [("a.bin", None), ("a.z", "ZLIB")])
def test_a_record_length_past_the_memory_is_refused_before_reading(files, monkeypatch, name,
                                                                   compression):
    monkeypatch.setattr(host_memory, "host_available_bytes", lambda: (64 << 20, "a test's"))
    dataset = tf.data.FixedLengthRecordDataset(str(files / name), 1 << 40,
                                               compression_type=compression)
    tracemalloc.start()
    try:
        with pytest.raises(tf.errors.ResourceExhaustedError,
                           match=r"records of 1099511627776 bytes .* more than the 67108864"):
            _all(dataset)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20


def test_large_compressed_records_in_pieces(files):
    # 40 MB of 1000-byte records, past the 16 MB a read asks for: none lost at a piece's edge
    block = np.random.RandomState(0).bytes(1000)
    (files / "big.z").write_bytes(zlib.compress(block * 40_000))
    got = _all(tf.data.FixedLengthRecordDataset(str(files / "big.z"), 1000,
                                                compression_type="ZLIB").batch(10_000))
    assert [len(batch) for batch in got] == [10_000] * 4
    assert all(record == block for batch in got for record in batch.tolist())
