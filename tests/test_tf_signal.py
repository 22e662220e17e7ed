"""tf.signal (frontend/tf_signal.py; tf.contrib.signal's and tf.spectral's names) against TF:
frames (padded, along axis 0, of an unknown length), overlap-add, the windows, the inverse-STFT
window, the mel matrix, MFCCs, DCT types I-III and their inverses, and the gradients of frame,
overlap_and_add and the MFCCs; every value from TF 2.21's tf.compat.v1 for the same program."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")

TF = {  # TF 2.21 compat.v1 (tf.signal), for the programs of _results below
    "frame": ((1, 3, 4), [-0.5, 0, 0.5, 1, 1, 1.5, 2, 2.5, 2.5, 3, 3.5, 4]),
    "frame_pad": ((1, 4, 4), [-0.5, 0, 0.5, 1, 1, 1.5, 2, 2.5, 2.5, 3, 3.5, 4, 4, 9, 9, 9]),
    "frame_axis0": ((4, 3, 1), [-0.5, 0, 0.5, 0.5, 1, 1.5, 1.5, 2, 2.5, 2.5, 3, 3.5]),
    "ola": ((10,), [0, 1, 2, 7, 5, 6, 15, 9, 10, 11]),
    "ola_batch": ((2, 8), [0, 1, 6, 8, 14, 16, 10, 11, 12, 13, 30, 32, 38, 40, 22, 23]),
    "hann8": ((8,), [0, 0.146446645, 0.5, 0.853553355, 1, 0.853553355, 0.5, 0.146446466]),
    "hann7_sym": ((7,), [0, 0.25, 0.75, 1, 0.74999994, 0.249999821, 0]),
    "hamming8": ((8,), [0.0800000131, 0.214730918, 0.540000021, 0.865269125, 1, 0.865269125,
        0.540000021, 0.214730769]),
    "hamming1": ((1,), [1]),
    "inv_win": ((8,), [0, 0.140423432, 0.510958314, 0.872260392, 0.958871007, 0.872260392,
        0.510958314, 0.140423268]),
    "inv_win_hamming": ((5,), [0.0789889544, 0.92592591, 0.987361789, 0.92592591, 0.0789889544]),
    "mel": ((9, 4), [0, 0, 0, 0, 0.895653844, 0.104346149, 0, 0, 0, 0.869078219, 0.130921781, 0, 0,
        0.109170303, 0.890829682, 0, 0, 0, 0.505572975, 0.494427055, 0, 0, 0.00482433243,
        0.99517566, 0, 0, 0, 0.576924384, 0, 0, 0, 0.203344733, 0, 0, 0, 0]),
    "mfcc": ((2, 5), [-2.21359444, -2.20464993, 1.50789148e-07, -0.198793083, 3.76972871e-08,
        8.85437775, -2.20465016, 0, -0.198793024, 2.26183715e-07]),
    "dct1": ((2, 5), [-5.59999943, -4.77989864, 1.1920929e-07, -0.820101023, 2.38418579e-07,
        22.3999996, -4.77989864, 0, -0.820100665, 0]),
    "dct2": ((2, 5), [-7, -6.97171497, 4.76837158e-07, -0.628638923, 1.1920929e-07, 28,
        -6.97171593, 0, -0.628638744, 7.15255737e-07]),
    "dct3": ((2, 5), [-5.46295834, -4.4457984, 0.700000226, -1.15420151, -0.137041718, 16.6351719,
        -11.3149357, 4.20000076, -2.93754053, 0.417303473]),
    "dct2_ortho": ((2, 5), [-1.56524754, -2.20464993, 1.50789148e-07, -0.198793083, 3.76972871e-08,
        6.26099014, -2.20465016, 0, -0.198793024, 2.26183715e-07]),
    "idct2": ((2, 5), [-5.46295834, -4.4457984, 0.700000226, -1.15420151, -0.137041718, 16.6351719,
        -11.3149357, 4.20000076, -2.93754053, 0.417303473]),
    "dct3_ortho": ((2, 5), [-2.00260949, -1.68095517, -0.0537107475, -0.640060723, -0.318406552,
        5.44388342, -3.39471698, 1.51153708, -0.745551527, 0.315343112]),
    "idct3": ((2, 5), [-7, -6.97171497, 4.76837158e-07, -0.628638923, 1.1920929e-07, 28,
        -6.97171593, 0, -0.628638744, 7.15255737e-07]),
    "grad_frame": ((1, 10), [0, 1, 2, 7, 5, 6, 15, 9, 10, 23]),
    "grad_ola": ((3, 4), [1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10]),
    "grad_mfcc": ((2, 5), [3.52183723, -3.87030268, 1.26491141, -1.00479364, 0.0883476138,
        15.0858936, -5.39232349, 4.42718887, -0.229285479, 1.91991448]),
}


def _results():
    signal = tf.signal
    x = tf.constant(np.arange(1, 11, dtype=np.float32).reshape(1, 10) * np.float32(0.5) - 1)
    mel_in = tf.constant((np.arange(10, dtype=np.float32).reshape(2, 5) - 3.0) * np.float32(0.7))
    frames = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    out = {"frame": signal.frame(x, 4, 3),
           "frame_pad": signal.frame(x, 4, 3, pad_end=True, pad_value=9.0),
           "frame_axis0": tf.contrib.signal.frame(tf.reshape(x, [10, 1]), 3, 2, axis=0),
           "ola": signal.overlap_and_add(frames, 3),
           "ola_batch": signal.overlap_and_add(
               tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4)), 2),
           "hann8": signal.hann_window(8), "hann7_sym": signal.hann_window(7, periodic=False),
           "hamming8": signal.hamming_window(8), "hamming1": signal.hamming_window(1),
           "inv_win": signal.inverse_stft_window_fn(3)(8, tf.float32),
           "inv_win_hamming": signal.inverse_stft_window_fn(
               2, forward_window_fn=signal.hamming_window)(5, tf.float32),
           "mel": signal.linear_to_mel_weight_matrix(4, 9, 8000, 125.0, 3800.0),
           "mfcc": signal.mfccs_from_log_mel_spectrograms(mel_in)}
    for kind in (1, 2, 3):
        out[f"dct{kind}"] = signal.dct(mel_in, type=kind)
    for kind in (2, 3):
        out[f"dct{kind}_ortho"] = tf.spectral.dct(mel_in, type=kind, norm="ortho")
        out[f"idct{kind}"] = signal.idct(mel_in, type=kind)
    weights = tf.constant(np.arange(16, dtype=np.float32).reshape(1, 4, 4))
    out["grad_frame"] = tf.gradients(tf.reduce_sum(
        signal.frame(x, 4, 3, pad_end=True) * weights), x)[0]
    out["grad_ola"] = tf.gradients(tf.reduce_sum(
        signal.overlap_and_add(frames, 3) * tf.range(1.0, 11.0)), frames)[0]
    out["grad_mfcc"] = tf.gradients(tf.reduce_sum(signal.mfccs_from_log_mel_spectrograms(
        mel_in) * tf.constant(np.arange(10, dtype=np.float32).reshape(2, 5))), mel_in)[0]
    return tf.Session().run(out)


def test_values_and_gradients_are_tensorflows():
    got = _results()
    assert sorted(got) == sorted(TF)
    for name, (shape, want) in TF.items():
        assert got[name].shape == shape, name
        # the DCT is a matmul here, FFTs in TF: float32 rounding apart
        np.testing.assert_allclose(got[name].ravel(), want, rtol=1e-6,
                                   atol=2e-6 * max(1.0, np.abs(want).max()), err_msg=name)


def test_frames_of_a_length_known_only_when_run():
    signal = tf.placeholder(tf.float32, [2, None])
    whole, padded = tf.signal.frame(signal, 4, 3), tf.signal.frame(signal, 4, 3, pad_end=True,
                                                                    pad_value=-1.0)
    assert whole.get_shape().as_list() == [2, None, 4]
    sess = tf.Session()
    for length in (10, 2):
        values = np.arange(2 * length, dtype=np.float32).reshape(2, length)
        got_whole, got_padded = sess.run([whole, padded], {signal: values})
        starts = range(0, length - 3, 3)  # TF's frames: whole ones, then ceil(length / 3)
        np.testing.assert_array_equal(got_whole, np.array(
            [values[:, s:s + 4] for s in starts]).reshape(-1, 2, 4).transpose(1, 0, 2))
        extended = np.concatenate([values, np.full((2, 3), -1.0, np.float32)], 1)
        np.testing.assert_array_equal(got_padded, np.stack(
            [extended[:, s:s + 4] for s in range(0, length, 3)], 1))


def test_errors_and_complex_transforms():
    for name in ("stft", "inverse_stft", "rfft"):
        with pytest.raises(AttributeError, match=f"tf.signal.{name} is not supported by "
                                                 f"TinyFlow.*no complex tensors"):
            getattr(tf.signal, name)
    with pytest.raises(AttributeError, match="tf.contrib.signal.stft.*no complex tensors"):
        tf.contrib.signal.stft  # noqa: B018
    with pytest.raises(AttributeError, match="tf.spectral.irfft.*no complex tensors"):
        tf.spectral.irfft  # noqa: B018
    with pytest.raises(ValueError, match="Normalization is not supported for the Type-I"):
        tf.signal.dct(tf.zeros([3]), type=1, norm="ortho")
    with pytest.raises(NotImplementedError, match="axis must be -1"):
        tf.signal.dct(tf.zeros([3, 3]), axis=0)
    with pytest.raises(ValueError, match="upper_edge_hertz must not be larger than the "
                                         "Nyquist"):
        tf.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0)
    with pytest.raises(TypeError, match="frame_length must be a Python int"):
        tf.signal.frame(tf.zeros([8]), tf.constant(4), 2)
    with pytest.raises(ValueError, match="overlap_and_add: TinyFlow needs.*last two dims"):
        tf.signal.overlap_and_add(tf.placeholder(tf.float32, [None, None]), 2)
