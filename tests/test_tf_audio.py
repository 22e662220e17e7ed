"""tf.audio.decode_wav / encode_wav (frontend/tf_audio.py, ops/audio.py) against real
TensorFlow (tensorflow-cpu 2.21, tf.compat.v1 graph mode): the file TF wrote for the samples
below, what TF decoded from it with each desired_channels / desired_samples, and TF's error
for each malformed header below (the files are made here with struct)."""
import struct

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.nnvm import host_memory

pytestmark = pytest.mark.usefixtures("fresh_graph")

AUDIO = np.array([[0.0, 1.0], [-1.0, 0.5], [0.25, -0.3333], [1.5, -2.0],
                  [0.00001526, -0.0000153]], np.float32)
# TF 2.21: tf.audio.encode_wav(AUDIO, 16000)
TF_WAV = (b"RIFF8\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x02\x00\x80>\x00\x00\x00\xfa\x00"
          b"\x00\x04\x00\x10\x00data\x14\x00\x00\x00\x00\x00\xff\x7f\x00\x80\x00@\x00 V\xd5\xff"
          b"\x7f\x00\x80\x01\x00\xff\xff")
TOP = 0.999969482421875  # 32767 / 32768
# TF 2.21: tf.audio.decode_wav(TF_WAV, desired_channels, desired_samples)
TF_DECODED = {
    (-1, -1): [[0.0, TOP], [-1.0, 0.5], [0.25, -0.33331298828125], [TOP, -1.0],
               [3.0517578125e-05, -3.0517578125e-05]],
    (1, -1): [[0.0], [-1.0], [0.25], [TOP], [3.0517578125e-05]],
    (3, 7): [[0.0, TOP, TOP], [-1.0, 0.5, 0.5], [0.25, -0.33331298828125, -0.33331298828125],
             [TOP, -1.0, -1.0], [3.0517578125e-05, -3.0517578125e-05, -3.0517578125e-05],
             [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
    (-1, 2): [[0.0, TOP], [-1.0, 0.5]],
}


def _wav(fmt_size=16, kind=1, channels=2, rate=16000, per_second=None, per_sample=None,
         bits=16, extra=b"", data=b"\0\0\0\0", chunks=None):
    per_sample = channels * bits // 8 if per_sample is None else per_sample
    per_second = rate * per_sample if per_second is None else per_second
    body = b"WAVEfmt " + struct.pack("<IHHIIHH", fmt_size, kind, channels, rate, per_second,
                                     per_sample, bits) + extra
    body += b"data" + struct.pack("<I", len(data)) + data if chunks is None else chunks
    return b"RIFF" + struct.pack("<I", len(body)) + body


def _chunk(kind, payload, size=None):
    return kind + struct.pack("<I", len(payload) if size is None else size) + payload


SHORT = "Data too short when trying to read string"
TF_ERRORS = {  # TF 2.21's InvalidArgumentError for each file
    b"": SHORT, _wav()[:20]: SHORT, b"RIFF\0\0\0\0WAVE": SHORT,
    b"RIFX" + _wav()[4:]: "Header mismatch: Expected RIFF but found RIFX",
    _wav(fmt_size=20): "Bad format chunk size for WAV: Expected 16 or 18, but got20",
    _wav(kind=3): r"Bad audio format for WAV: Expected 1 \(PCM\), but got3",
    _wav(channels=0): "Bad number of channels for WAV: Expected at least 1, but got 0",
    _wav(bits=8): "Can only read 16-bit WAV files, but received 8",
    _wav(per_sample=3): "Bad bytes per sample in WAV header: Expected 4 but got 3",
    _wav(per_second=5): r"Bad bytes per second in WAV header: Expected 64000 but got 5 "
                        r"\(sample_rate=16000, bytes_per_sample=4\)",
    _wav(data=b"\1\2")[:-1]: SHORT, _wav(data=b"\1\0\2\0\3"): SHORT, _wav() + b"abc": SHORT,
    _wav(chunks=_chunk(b"data", b"\0" * 4, 400)): SHORT,
    _wav(chunks=_chunk(b"LIST", b"ab")): "No data chunk found in WAV",
    _wav(chunks=_chunk(b"data", b"\0" * 4) * 2): "More than one data chunk found in WAV",
    _wav(chunks=_chunk(b"data", b"\0" * 4, 0x90000000)):
        "WAV data chunk 'data' is too large: 2415919104 bytes, but the limit is 2147483647",
}
TF_READ = {  # TF 2.21 reads these: (samples, rate)
    _wav(chunks=_chunk(b"LIST", b"abc") + _chunk(b"data", struct.pack("<hh", 16384, -32768))):
        [[0.5, -1.0]],
    _wav(fmt_size=18, extra=b"\0\0"): [[0.0, 0.0]],
    _wav(chunks=_chunk(b"data", b"\0" * 4) + _chunk(b"LIST", b"ab", 100)): [[0.0, 0.0]],
}


def test_encode_writes_tensorflows_file_and_decode_reads_it_as_tensorflow():
    audio, rate = tf.placeholder(tf.float32, [None, None]), tf.placeholder(tf.int32, [])
    contents = tf.placeholder(tf.string, [])
    sess = tf.Session()
    assert sess.run(tf.audio.encode_wav(audio, rate), {audio: AUDIO, rate: 16000}) == TF_WAV
    for (channels, samples), want in TF_DECODED.items():
        decoded = tf.audio.decode_wav(contents, channels, samples)
        assert decoded.audio.get_shape().as_list() == [None if samples < 0 else samples,
                                                       None if channels < 0 else channels]
        got, got_rate = sess.run(decoded, {contents: TF_WAV})
        assert got.dtype == np.float32 and got.tolist() == want and got_rate == 16000
    # TF 2.21: no samples is a header and an empty data chunk
    assert sess.run(tf.audio.encode_wav(np.zeros((0, 2), np.float32), 8000)) == (
        b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x02\x00@\x1f\x00\x00\x00}\x00\x00"
        b"\x04\x00\x10\x00data\x00\x00\x00\x00")


def test_malformed_files_are_tensorflows_errors_naming_the_node():
    contents = tf.placeholder(tf.string, [])
    decoded = tf.audio.decode_wav(contents, name="wav")
    sess = tf.Session()
    for data, message in TF_ERRORS.items():
        with pytest.raises(tf.errors.InvalidArgumentError, match=message + r"[\s\S]*'wav'"):
            sess.run(decoded, {contents: data})
    for data, want in TF_READ.items():
        got, got_rate = sess.run(decoded, {contents: data})
        assert got.tolist() == want and got_rate == 16000
    assert sess.run(decoded.audio, {contents: _wav(data=b"")}).shape == (0, 2)


def test_encode_errors_are_tensorflows():
    audio, rate = tf.placeholder(tf.float32, [None, None]), tf.placeholder(tf.int32, [])
    encoded = tf.audio.encode_wav(audio, rate)
    sess = tf.Session()
    for samples, sample_rate, message in (
            (AUDIO, 0, r"sample_rate must be in \(0, 2\^32\), got: 0"),
            (AUDIO, -5, r"sample_rate must be in \(0, 2\^32\), got: 18446744073709551611"),
            (np.zeros((3, 0), np.float32), 8000, r"num_channels must be in \(0, 2\^16\)")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            sess.run(encoded, {audio: samples, rate: sample_rate})
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1 for 'EncodeWav'"):
        tf.audio.encode_wav(tf.zeros([3]), 8000)
    with pytest.raises(ValueError, match="Shape must be rank 0"):
        tf.audio.decode_wav(tf.constant(np.array([b"a", b"b"], dtype=object)))
    with pytest.raises(AttributeError, match="tf.audio.decode_mp3 is not supported"):
        tf.audio.decode_mp3  # noqa: B018


def test_a_file_asking_for_more_than_the_memory_is_refused(monkeypatch):
    contents = tf.placeholder(tf.string, [])
    decoded = tf.audio.decode_wav(contents, desired_channels=2**15, desired_samples=2**30)
    monkeypatch.setattr(host_memory, "host_available_bytes", lambda: (1 << 24, "a test's"))
    with pytest.raises(tf.errors.ResourceExhaustedError, match="DecodeWav.*a test's"):
        tf.Session().run(decoded, {contents: TF_WAV})
    huge = _wav(chunks=_chunk(b"data", b"\0" * 8, 2**31 - 4))  # says 2 GB: nothing read
    with pytest.raises(tf.errors.InvalidArgumentError, match=SHORT):
        tf.Session().run(tf.audio.decode_wav(contents), {contents: huge})
