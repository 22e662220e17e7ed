"""``tf.audio`` (TensorFlow 1.15): ``decode_wav`` and ``encode_wav``, 16-bit PCM WAV files as
TF reads and writes them (:mod:`tinyflow.ops.audio`, computed in Python before the run from a
string tensor: ``tf.read_file``'s, a fed one, a dataset element's); a malformed file is TF's
InvalidArgumentError naming the node, with TF's message.  Any other ``tf.audio.X`` is an
AttributeError saying TinyFlow does not support it."""
from __future__ import annotations

from typing import NamedTuple

from ..nnvm.symbol import NodeEntry, Symbol, create_op
from .io_ops import _string
from .math_ops import convert_to_tensor
from .unsupported import unsupported

__all__ = ["decode_wav", "encode_wav"]


class DecodeWav(NamedTuple):
    """``decode_wav``'s result: float32 ``audio`` ``[samples, channels]``, int32
    ``sample_rate``."""

    audio: Symbol
    sample_rate: Symbol


def _count(value, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < -1:
        raise ValueError(f"decode_wav: {what} must be an int, -1 or more, got {value!r}")
    return value


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None) -> DecodeWav:
    """The samples of the 16-bit PCM WAV file ``contents`` (a string scalar), scaled to
    [-1, 1): ``desired_samples`` cuts them or pads them with zeros, ``desired_channels``
    keeps the first ones or repeats the last (-1: the file's); and its sample rate."""
    node = create_op("decode_wav", _string(contents, "DecodeWav", (0,)),
                     desired_channels=_count(desired_channels, "desired_channels"),
                     desired_samples=_count(desired_samples, "desired_samples"),
                     name=name or "DecodeWav").outputs[0].node
    return DecodeWav(Symbol([NodeEntry(node, 0)]), Symbol([NodeEntry(node, 1)]))


def encode_wav(audio, sample_rate, name=None) -> Symbol:
    """The 16-bit PCM WAV file (a string scalar) of float32 ``audio`` ``[samples,
    channels]`` (each sample times 32768, rounded, clamped to int16) at the int32 scalar
    ``sample_rate``."""
    audio = convert_to_tensor(audio, dtype="float32")
    sample_rate = convert_to_tensor(sample_rate, dtype="int32")
    for what, tensor, rank in (("audio", audio, 2), ("sample_rate", sample_rate, 0)):
        if tensor.get_shape().ndims not in (None, rank):
            raise ValueError(f"Shape must be rank {rank} but is rank "
                             f"{tensor.get_shape().ndims} for 'EncodeWav' ({what}) with input "
                             f"shape {tensor.get_shape()}")
    return create_op("encode_wav", audio, sample_rate, name=name or "EncodeWav")


def __getattr__(name):
    raise unsupported("tf.audio.", "tinyflow.audio", name, {"tf.audio.": __all__})
