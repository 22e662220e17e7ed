"""``tf.signal`` (TensorFlow 1.15; ``tf.contrib.signal`` and ``tf.spectral`` hold some of its
names): ``frame``, ``overlap_and_add``, ``hann_window``, ``hamming_window``,
``inverse_stft_window_fn``, ``linear_to_mel_weight_matrix``, ``mfccs_from_log_mel_spectrograms``,
``dct`` and ``idct`` (types I-III), composed of existing ops (gather, segment sums, a matmul by
the DCT's cosine matrix) in TF's order of operations, with their gradients.  The transforms
giving complex tensors (``stft``, ``inverse_stft``, ``fft``, ``rfft``, ``irfft``...) are an
AttributeError saying so: TinyFlow has no complex tensors.  Frame lengths, steps and window
lengths are Python ints."""
from __future__ import annotations

import numpy as np

from ..nnvm.symbol import Symbol, current_context
from .api import cast, constant, cos, log, maximum, minimum
from .array_ops import (
    concat,
    expand_dims,
    gather,
    linspace,
    ones,
    pad,
    reshape,
    shape,
    split,
    tile,
    transpose,
)
from .dtypes import as_dtype
from .framework_names import range
from .math_ops import convert_to_tensor, reduce_sum, tensordot
from .segment_ops import unsorted_segment_sum
from .unsupported import unsupported

__all__ = ["dct", "frame", "hamming_window", "hann_window", "idct", "inverse_stft_window_fn",
           "linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms", "overlap_and_add"]

# the Fourier transforms: why each is missing, for the AttributeError
COMPLEX = dict.fromkeys(
    ("stft", "inverse_stft", "fft", "fft2d", "fft3d", "ifft", "ifft2d", "ifft3d", "rfft",
     "rfft2d", "rfft3d", "irfft", "irfft2d", "irfft3d", "fftshift", "ifftshift"),
    "its result is complex, and TinyFlow has no complex tensors")
_MEL_BREAK_FREQUENCY_HERTZ, _MEL_HIGH_FREQUENCY_Q = 700.0, 1127.0


def _count(value, what: str, minimum_value: int = 1) -> int:
    if isinstance(value, Symbol) or not isinstance(value, (int, np.integer)) or \
            isinstance(value, bool):
        raise TypeError(f"{what} must be a Python int in TinyFlow, got {value!r}")
    if value < minimum_value:
        raise ValueError(f"{what} must be at least {minimum_value}, got {value}")
    return int(value)


def _axis_length(signal: Symbol, axis: int, what: str):
    """``(axis in [0, rank), its length: an int when known, else a scalar tensor)``."""
    rank = signal.get_shape().ndims
    if rank is None:
        raise ValueError(f"{what}: the signal's rank must be known, got {signal}")
    if not -rank <= axis < rank:
        raise ValueError(f"{what}: axis {axis} is outside a signal of rank {rank}")
    axis %= rank
    length = signal.get_shape().as_list()[axis]
    return axis, (shape(signal)[axis] if length is None else length)


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Frames of ``frame_length`` samples every ``frame_step`` along ``axis``: that axis
    becomes ``[frames, frame_length]``; with ``pad_end``, the last frames run past the end,
    filled with ``pad_value`` (``ceil(length / frame_step)`` frames), else only whole ones."""
    with current_context().name_scope(name or "frame"):
        signal = convert_to_tensor(signal)
        frame_length = _count(frame_length, "frame: frame_length", 0)
        frame_step = _count(frame_step, "frame: frame_step")
        axis, length = _axis_length(signal, axis, "frame")
        if pad_end:  # the last frame ends before length + frame_length - 1: pad that far
            frames = (length + frame_step - 1) // frame_step  # TF's ceiling division
            paddings = [[0, 0]] * signal.get_shape().ndims
            paddings[axis] = [0, max(0, frame_length - 1)]
            signal = pad(signal, paddings, constant_values=pad_value)
        else:
            frames = 1 + (length - frame_length) // frame_step
            frames = max(0, frames) if isinstance(frames, int) else maximum(0, frames)
        if isinstance(frames, int):
            indices = (np.arange(frames)[:, None] * frame_step
                       + np.arange(frame_length)[None, :]).astype(np.int32)
        else:
            indices = (expand_dims(range(frames), 1) * frame_step
                       + expand_dims(range(frame_length), 0))
        return gather(signal, indices, axis=axis)


def overlap_and_add(signal, frame_step, name=None):
    """The frames of ``signal`` (``[..., frames, frame_length]``, both known) added at
    ``frame_step`` apart: ``[..., (frames - 1) * frame_step + frame_length]``."""
    with current_context().name_scope(name or "overlap_and_add"):
        signal = convert_to_tensor(signal)
        frame_step = _count(frame_step, "overlap_and_add: frame_step")
        dims = signal.get_shape().as_list() if signal.get_shape().ndims is not None else None
        if dims is None or len(dims) < 2 or None in dims[-2:]:
            raise ValueError(f"overlap_and_add: TinyFlow needs a signal of rank 2 or more whose "
                             f"last two dims (frames, frame_length) are known, got {signal}")
        frames, frame_length = dims[-2:]
        if frame_step > frame_length:
            raise ValueError(f"overlap_and_add: frame_step ({frame_step}) must be at most "
                             f"frame_length ({frame_length})")
        ids = (np.arange(frames)[:, None] * frame_step + np.arange(frame_length)).ravel()
        rank = len(dims)
        flat = reshape(transpose(signal, [rank - 2, rank - 1, *np.arange(rank - 2).tolist()]),
                       concat([[frames * frame_length], shape(signal)[:-2]], 0))
        summed = unsorted_segment_sum(flat, ids.astype(np.int32),
                                      (frames - 1) * frame_step + frame_length)
        return transpose(summed, [*np.arange(1, rank - 1).tolist(), 0])


def _raised_cosine_window(what, window_length, periodic, dtype, a, b):
    """TF's ``_raised_cosine_window``: ``a - b * cos(2 pi n / N)``, N the length (periodic
    and even: plus one) less one."""
    window_length = _count(window_length, f"{what}: window_length", 0)
    dtype = as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    with current_context().name_scope(what):
        if window_length == 1:
            return ones([1], dtype)
        even = 1 - window_length % 2
        n = constant(float(window_length + int(bool(periodic)) * even - 1), dtype=dtype)
        count = cast(range(window_length), dtype)
        return constant(a, dtype=dtype) - constant(b, dtype=dtype) * cos(
            constant(2 * np.pi, dtype=dtype) * count / n)


def hann_window(window_length, periodic=True, dtype="float32", name=None):
    """The Hann window, ``0.5 - 0.5 cos(2 pi n / N)`` (periodic: N the length)."""
    return _raised_cosine_window(name or "hann_window", window_length, periodic, dtype, 0.5,
                                 0.5)


def hamming_window(window_length, periodic=True, dtype="float32", name=None):
    """The Hamming window, ``0.54 - 0.46 cos(2 pi n / N)`` (periodic: N the length)."""
    return _raised_cosine_window(name or "hamming_window", window_length, periodic, dtype,
                                 0.54, 0.46)


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """The window function of ``inverse_stft`` inverting ``forward_window_fn``'s frames
    ``frame_step`` apart (Griffin and Lim's equation 7: the window over the sum of its
    squares at each overlap)."""
    frame_step = _count(frame_step, "inverse_stft_window_fn: frame_step")

    def inverse_window(frame_length, dtype):
        frame_length = _count(frame_length, "inverse_stft_window_fn: frame_length")
        with current_context().name_scope(name or "inverse_stft_window_fn"):
            forward_window = forward_window_fn(frame_length, dtype=dtype)
            overlaps = -(-frame_length // frame_step)  # ceiling division
            denom = reshape(pad(forward_window * forward_window, [[
                0, overlaps * frame_step - frame_length]]), [overlaps, frame_step])
            total = reshape(tile(reduce_sum(denom, 0, keepdims=True), [overlaps, 1]),
                            [overlaps * frame_step])
            return forward_window / total[:frame_length]
    return inverse_window


def _hertz_to_mel(frequencies):
    return _MEL_HIGH_FREQUENCY_Q * log(1.0 + frequencies / _MEL_BREAK_FREQUENCY_HERTZ)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype="float32", name=None):
    """``[num_spectrogram_bins, num_mel_bins]``: each linear-frequency bin's weight in each
    triangular mel band (HTK's mel scale; the DC bin's row zero), as TF 1.15's."""
    dtype = as_dtype(dtype)
    num_mel_bins = _count(num_mel_bins, "num_mel_bins")
    num_spectrogram_bins = _count(num_spectrogram_bins, "num_spectrogram_bins")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz "
                         f"{upper_edge_hertz:.1f}")
    if sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if upper_edge_hertz > sample_rate / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency "
                         f"(sample_rate / 2). Got {upper_edge_hertz} for sample_rate: "
                         f"{sample_rate}")
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")
    with current_context().name_scope(name or "linear_to_mel_weight_matrix"):
        zero = constant(0.0, dtype=dtype)
        nyquist = constant(float(sample_rate), dtype=dtype) / 2.0
        linear = linspace(zero, nyquist, num_spectrogram_bins)[1:]  # HTK: no DC bin
        bins_mel = expand_dims(_hertz_to_mel(linear), 1)
        edges = frame(linspace(_hertz_to_mel(constant(float(lower_edge_hertz), dtype=dtype)),
                               _hertz_to_mel(constant(float(upper_edge_hertz), dtype=dtype)),
                               num_mel_bins + 2), 3, 1)
        lower, center, upper = (reshape(t, [1, num_mel_bins]) for t in split(edges, 3, 1))
        weights = maximum(zero, minimum((bins_mel - lower) / (center - lower),
                                        (upper - bins_mel) / (upper - center)))
        return pad(weights, [[1, 0], [0, 0]])


def _dct_matrix(dct_type: int, size: int, norm) -> np.ndarray:
    """``M`` with ``dct(x) = x @ M`` (float64): TF's unnormalised DCT-I/II/III, or ortho."""
    n, k = np.arange(size)[:, None], np.arange(size)[None, :]
    if dct_type == 1:
        weights = np.where((n == 0) | (n == size - 1), 1.0, 2.0)
        return weights * np.cos(np.pi * k * n / (size - 1))
    second = 2 * np.cos(np.pi * k * (2 * n + 1) / (2 * size))
    if norm == "ortho":
        second = second * np.where(k == 0, np.sqrt(1 / (4 * size)), np.sqrt(1 / (2 * size)))
    if dct_type == 2:
        return second
    if norm == "ortho":  # DCT-III ortho: the inverse, so the transpose, of DCT-II ortho
        return second.T
    return np.where(k.T == 0, 1.0, 2.0) * np.cos(np.pi * k.T * (2 * n.T + 1) / (2 * size))


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):
    """The discrete cosine transform of types I, II or III along the last axis (unnormalised
    as TF's, or ``norm="ortho"``: II and III); ``n`` cuts or zero-pads that axis first."""
    with current_context().name_scope(name or "dct"):
        signal = convert_to_tensor(input)
        if axis != -1:
            raise NotImplementedError(f"axis must be -1. Got: {axis}")
        if n is not None and n < 1:
            raise ValueError("n should be a positive integer or None")
        if type not in (1, 2, 3):
            raise ValueError("Only Types I, II and III (I)DCT are supported.")
        if norm not in (None, "ortho"):
            raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
        if type == 1 and norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        _, size = _axis_length(signal, -1, "dct")
        if not isinstance(size, int):  # a shape TinyFlow cannot use here, not a wrong type
            raise ValueError(  # noqa: TRY004
                f"dct: TinyFlow needs the last dim known, got {signal}")
        if n is not None and n != size:
            rank = signal.get_shape().ndims
            signal = (signal[..., :n] if n < size else
                      pad(signal, [[0, 0]] * (rank - 1) + [[0, n - size]]))
            size = n
        if type == 1 and size < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
        matrix = _dct_matrix(type, size, norm).astype(signal.dtype.name)
        return tensordot(signal, constant(matrix), [[signal.get_shape().ndims - 1], [0]])


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):
    """The inverse of :func:`dct` up to TF's scale: the DCT of the inverse type (I, III, II);
    ``idct(dct(x)) == 2 * N * x`` unnormalised, ``x`` with ``norm="ortho"``."""
    return dct(input, {1: 1, 2: 3, 3: 2}.get(type, type), n, axis, norm, name or "idct")


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs of ``[..., num_mel_bins]`` log-magnitude mel spectrograms: their DCT-II scaled by
    ``1 / sqrt(2 * num_mel_bins)`` (HTK's, TF 1.15's)."""
    with current_context().name_scope(name or "mfccs_from_log_mel_spectrograms"):
        spectrograms = convert_to_tensor(log_mel_spectrograms)
        _, bins = _axis_length(spectrograms, -1, "mfccs_from_log_mel_spectrograms")
        if bins == 0:
            raise ValueError(f"num_mel_bins must be positive. Got: {spectrograms}")
        transformed = dct(spectrograms, type=2)
        return transformed * constant(1.0 / np.sqrt(np.float32(bins) * 2.0),
                                      dtype=transformed.dtype)


def __getattr__(name):
    raise unsupported("tf.signal.", "tinyflow.signal", name, {"tf.signal.": __all__},
                      why=COMPLEX.get(name))
