"""``tf.contrib.signal`` (TensorFlow 1.15): tf.signal's names it holds (``frame``,
``overlap_and_add``, the windows, ``inverse_stft_window_fn``, ``linear_to_mel_weight_matrix``,
``mfccs_from_log_mel_spectrograms``); ``stft`` and ``inverse_stft`` give complex tensors, which
TinyFlow does not have (an AttributeError says so)."""
from ..tf_signal import (
    COMPLEX,
    frame,
    hamming_window,
    hann_window,
    inverse_stft_window_fn,
    linear_to_mel_weight_matrix,
    mfccs_from_log_mel_spectrograms,
    overlap_and_add,
)
from ..unsupported import unsupported

__all__ = ["frame", "hamming_window", "hann_window", "inverse_stft_window_fn",
           "linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms", "overlap_and_add"]


def __getattr__(name):
    raise unsupported("tf.contrib.signal.", "tinyflow.contrib.signal", name,
                      {"tf.contrib.signal.": __all__}, why=COMPLEX.get(name))
