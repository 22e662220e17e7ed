"""TF's WAV files (``tf.audio.decode_wav``, ``encode_wav``; see
:mod:`tinyflow.frontend.tf_audio`): each pulled before the run as the image files are
(FPullOutputs, session/pull.py), computed in Python with numpy as TF's ``wav_io.cc`` reads and
writes 16-bit PCM: the RIFF header checked field by field with TF's messages, the chunks
walked to the one ``data`` chunk, samples scaled by 1 / 32768 (written back rounded half away
from zero, clamped to int16).  The file's bytes are untrusted: a malformed one is TF's
InvalidArgumentError naming the node, nothing is allocated before the bytes it needs were
found in the file, and the output that the attributes ``desired_samples`` /
``desired_channels`` ask for is checked against the host's memory (nnvm/host_memory.py) first.
No Lua body.
"""
from __future__ import annotations

import struct

import numpy as np

from ..nnvm import host_memory
from ..nnvm.attrs import no_gradient
from ..nnvm.op import register_op
from ..nnvm.symbol import Symbol
from .strings import _invalid

__all__ = ["wav_decode", "wav_encode"]

_SHORT = "Data too short when trying to read string"
_INT32_MAX = 2**31 - 1


class WavError(ValueError):
    """A WAV file TF's reader refuses; the message is TF's."""


def _take(data: bytes, offset: int, size: int) -> tuple[bytes, int]:
    if offset + size > len(data):
        raise WavError(_SHORT)
    return data[offset:offset + size], offset + size


def _header(data: bytes) -> tuple[dict, int]:
    """The ``fmt `` chunk's fields, checked as TF's ``DecodeLin16WaveAsFloatVector``, and the
    offset after it."""
    offset = 0
    for expected, size in ((b"RIFF", 4), (None, 4), (b"WAVE", 4), (b"fmt ", 4)):
        found, offset = _take(data, offset, size)
        if expected is not None and found != expected:
            raise WavError(f"Header mismatch: Expected {expected.decode()} but found "
                           f"{found.decode('latin-1')}")
    raw, offset = _take(data, offset, 20)
    chunk, kind, channels, rate, per_second, per_sample, bits = struct.unpack("<IHHIIHH", raw)
    if chunk not in (16, 18):
        raise WavError(f"Bad format chunk size for WAV: Expected 16 or 18, but got{chunk}")
    if kind != 1:
        raise WavError(f"Bad audio format for WAV: Expected 1 (PCM), but got{kind}")
    if channels < 1:
        raise WavError(f"Bad number of channels for WAV: Expected at least 1, but got "
                       f"{channels}")
    if bits != 16:
        raise WavError(f"Can only read 16-bit WAV files, but received {bits}")
    if per_sample != (bits * channels + 7) // 8:
        raise WavError(f"Bad bytes per sample in WAV header: Expected "
                       f"{(bits * channels + 7) // 8} but got {per_sample}")
    if per_second != (per_sample * rate) & 0xFFFFFFFF:  # TF's uint32 product
        raise WavError(f"Bad bytes per second in WAV header: Expected "
                       f"{(per_sample * rate) & 0xFFFFFFFF} but got {per_second} (sample_rate="
                       f"{rate}, bytes_per_sample={per_sample})")
    return {"channels": channels, "rate": rate, "per_sample": per_sample}, offset + (
        2 if chunk == 18 else 0)


def wav_decode(data: bytes) -> tuple[np.ndarray, int]:
    """``(int16 samples [count, channels], sample rate)`` of a 16-bit PCM WAV file, as TF's
    reader takes it: chunks other than ``data`` skipped by their size, the data chunk's whole
    samples read (its bytes inside the file), then the next chunk read from there."""
    fields, offset = _header(data)
    samples = None
    while offset < len(data):
        chunk_id, offset = _take(data, offset, 4)
        raw, offset = _take(data, offset, 4)
        (size,) = struct.unpack("<I", raw)
        if size > _INT32_MAX:
            raise WavError(f"WAV data chunk '{chunk_id.decode('latin-1')}' is too large: "
                           f"{size} bytes, but the limit is {_INT32_MAX}")
        if chunk_id != b"data":
            offset += size
            continue
        if samples is not None:
            raise WavError("More than one data chunk found in WAV")
        count = size // fields["per_sample"]
        raw, offset = _take(data, offset, 2 * count * fields["channels"])
        samples = np.frombuffer(raw, dtype="<i2").reshape(count, fields["channels"])
    if samples is None:
        raise WavError("No data chunk found in WAV")
    return samples, fields["rate"]


def wav_encode(audio: np.ndarray, rate: int) -> bytes:
    """A 16-bit PCM WAV file of float ``audio`` ``[samples, channels]`` at ``rate`` (TF's
    ``EncodeAudioAsS16LEWav``; its checks first)."""
    _, channels = audio.shape
    if not 0 < rate < 2**32:
        raise WavError(f"sample_rate must be in (0, 2^32), got: {rate % 2**64}")
    if not 0 < channels < 2**16:
        raise WavError(f"num_channels must be in (0, 2^16), got: {channels}")
    scaled = audio.astype(np.float64) * 32768.0  # exact; rounded as roundf, half away from 0
    rounded = np.where(scaled >= 0, np.floor(scaled + 0.5), np.ceil(scaled - 0.5))
    pcm = np.nan_to_num(np.clip(rounded, -32768, 32767), nan=0.0).astype("<i2")
    size = pcm.nbytes
    return (b"RIFF" + struct.pack("<I", 36 + size & 0xFFFFFFFF) + b"WAVEfmt " + struct.pack(
        "<IHHIIHH", 16, 1, channels, rate, rate * channels * 2 & 0xFFFFFFFF, channels * 2, 16)
        + b"data" + struct.pack("<I", size & 0xFFFFFFFF) + pcm.tobytes())


def _desired(node, key: str) -> int:
    value = node.attrs.get(key, -1)
    if type(value) is not int or not -1 <= value <= _INT32_MAX:
        raise _invalid(node, f"{key} must be an int from -1 to {_INT32_MAX}, got {value!r}")
    return value


def _pull_decode(node, resources, evaluate, deadline):
    """FPullOutputs of decode_wav: input 0's file as float32 samples ``[desired_samples or
    the file's, desired_channels or the file's]`` (samples past the file's zero, channels
    past its last copying that one) and its int32 sample rate."""
    value = np.asarray(evaluate([Symbol([node.inputs[0]])])[0], dtype=object)
    if value.ndim:
        raise _invalid(node, f"contents must be scalar, got shape {list(value.shape)}")
    data = value.item()
    channels, count = _desired(node, "desired_channels"), _desired(node, "desired_samples")
    try:
        samples, rate = wav_decode(data.encode() if isinstance(data, str) else bytes(data))
    except WavError as error:
        raise _invalid(node, str(error)) from None
    count = len(samples) if count == -1 else count
    channels = samples.shape[1] if channels == -1 else channels
    host_memory.check_node_fits(node, 4 * count * channels + samples.nbytes * 2,
                                f"for {count} samples of {channels} channels")
    picked = samples[:count, np.minimum(np.arange(channels), samples.shape[1] - 1)]
    audio = np.zeros((count, channels), dtype=np.float32)
    audio[:len(picked)] = picked.astype(np.float32) * np.float32(1.0 / 32768)
    return [audio, np.array(rate, dtype=np.int64).astype(np.int32)]


def _pull_encode(node, resources, evaluate, deadline):
    """FPullOutputs of encode_wav: input 0's float32 samples ``[samples, channels]`` at input
    1's sample rate as a WAV file, a string scalar."""
    audio, rate = (np.asarray(v) for v in evaluate([Symbol([e]) for e in node.inputs]))
    if audio.ndim != 2:
        raise _invalid(node, f"audio must be 2-dimensional{list(audio.shape)}")
    if rate.ndim:
        raise _invalid(node, f"Input sample_rate should be a scalar tensor, got "
                             f"{list(rate.shape)} instead.")
    if audio.size >= _INT32_MAX:
        raise _invalid(node, "Cannot encode audio with >= max int32 elements")
    host_memory.check_node_fits(node, 12 * audio.size + 1024, "to encode its WAV file")
    try:
        return [np.array(wav_encode(audio.astype(np.float32), int(rate)), dtype=object)]
    except WavError as error:
        raise _invalid(node, str(error)) from None


def _decoded_shape(attrs, in_shapes, out_shapes):
    def dim(key):
        value = attrs.get(key, -1)
        return value if type(value) is int and value >= 0 else None
    return in_shapes, [(dim("desired_samples"), dim("desired_channels")), ()]


(register_op("decode_wav")
 .describe("The float32 samples [samples, channels] and int32 sample rate of the 16-bit PCM "
           "WAV file input 0 holds (a string scalar); attrs desired_samples and "
           "desired_channels (-1: the file's); pulled before the run (tf.audio.decode_wav).")
 .set_num_inputs(1).set_num_outputs(2)
 .set_attr("FInferShape", _decoded_shape)
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["float32", "int32"]))
 .set_attr("FPullOutputs", _pull_decode).set_attr("FGradient", no_gradient))

(register_op("encode_wav")
 .describe("Input 0's float32 samples [samples, channels] at input 1's int32 sample rate as "
           "a 16-bit PCM WAV file, a string scalar pulled before the run "
           "(tf.audio.encode_wav).")
 .set_num_inputs(2)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["string"]))
 .set_attr("FPullOutputs", _pull_encode).set_attr("FGradient", no_gradient))
