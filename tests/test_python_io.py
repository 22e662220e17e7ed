"""tf.python_io (and tf.io's names): TFRecord files as TensorFlow writes them, and
tf.train.summary_iterator.  tests/data/tfrecord/ holds files real TF wrote
(tf.compat.v1.python_io.TFRecordWriter, tensorflow-cpu 2.21, records bytes(range(3 * i)) for
i < 4, uncompressed, GZIP and ZLIB): TinyFlow reads them, and its uncompressed file is TF's
byte for byte.  A damaged file is a DataLossError naming it, never a crash or a huge read."""
import gzip
import os
import struct
from pathlib import Path

import pytest

import tinyflow as tf
from tinyflow.frontend.checkpoint_format import crc32c, mask_crc

DATA = Path(__file__).parent / "data" / "tfrecord"
RECORDS = [bytes(range(3 * i)) for i in range(4)]
KINDS = {"": "tf_written.tfrecord", "GZIP": "tf_written_gzip.tfrecord",
         "ZLIB": "tf_written_zlib.tfrecord"}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_reads_tensorflows_files_and_writes_its_format(tmp_path, kind):
    options = tf.python_io.TFRecordOptions(kind)
    assert list(tf.python_io.tf_record_iterator(DATA / KINDS[kind], options)) == RECORDS
    path = tmp_path / "mine.tfrecord"
    with tf.io.TFRecordWriter(str(path), options) as writer:
        for record in RECORDS:
            writer.write(record)
    assert list(tf.io.tf_record_iterator(str(path), options)) == RECORDS
    if not kind:
        assert path.read_bytes() == (DATA / KINDS[kind]).read_bytes()


def test_compression_types_and_bad_options():
    kind = tf.python_io.TFRecordCompressionType
    assert [tf.python_io.TFRecordOptions(k).compression_type for k in
            (kind.NONE, kind.ZLIB, kind.GZIP, None)] == ["", "ZLIB", "GZIP", ""]
    with pytest.raises(ValueError, match="compression_type must be one of"):
        tf.python_io.TFRecordOptions("LZ4")


def test_a_damaged_file_is_a_data_loss_error(tmp_path):
    whole = (DATA / KINDS[""]).read_bytes()
    cases = {
        "truncated": whole[:-3],
        "flipped": whole[:30] + bytes([whole[30] ^ 1]) + whole[31:],
        # a length field claiming 2**62 bytes, its own checksum right: refused before any read
        "huge": _header(2 ** 62) + b"x" * 8,
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(tf.errors.DataLossError, match=str(path)):
            list(tf.python_io.tf_record_iterator(str(path)))
    gz = tmp_path / "huge.gz"  # compressed: the length is checked as the data comes
    gz.write_bytes(gzip.compress(_header(2 ** 62) + b"short"))
    with pytest.raises(tf.errors.DataLossError, match="truncated record at 0"):
        list(tf.python_io.tf_record_iterator(str(gz), tf.python_io.TFRecordOptions("GZIP")))


def _header(length: int) -> bytes:
    packed = struct.pack("<Q", length)
    return packed + struct.pack("<I", mask_crc(crc32c(packed)))


def test_summary_iterator_reads_a_file_writers_events(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=0.25)]), 3)
    writer.close()
    [path] = [os.path.join(tmp_path, f) for f in os.listdir(tmp_path)]
    events = list(tf.train.summary_iterator(path))
    assert events[0].file_version == "brain.Event:2"
    values = [(e.step, v.tag, v.simple_value) for e in events for v in e.summary.value]
    assert values == [(3, "loss", 0.25)]
