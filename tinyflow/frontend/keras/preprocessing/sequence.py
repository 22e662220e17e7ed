"""``tf.keras.preprocessing.sequence``: padding lists of word ids into a matrix, and word2vec's
skip-gram pairs, as TF 1.15 (keras_preprocessing 1.1) makes them.

``skipgrams`` draws from Python's global ``random`` generator exactly as Keras does
(``random.seed(seed)`` before shuffling), so a program gets Keras' pairs for the same state.
"""
from __future__ import annotations

import random

import numpy as np

from ...unsupported import unsupported

__all__ = ["make_sampling_table", "pad_sequences", "remove_long_sequences", "skipgrams"]


def _lengths_and_sample_shape(sequences) -> tuple[list, tuple]:
    """Each sequence's length, and the shape of one step of the first non-empty one."""
    lengths, sample_shape = [], None
    for x in sequences:
        try:
            lengths.append(len(x))
            if sample_shape is None and len(x):
                sample_shape = np.asarray(x).shape[1:]
        except TypeError:
            raise ValueError("`sequences` must be a list of iterables. "
                             "Found non-iterable: " + str(x)) from None
    return lengths, () if sample_shape is None else sample_shape


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.):
    """Pad (or cut) every sequence to ``maxlen`` steps: a ``(len(sequences), maxlen)`` array.

    Parameters
    ----------
    sequences : list of lists
        The sequences (of numbers, or of equally shaped arrays).
    maxlen : int, optional
        The length; default the longest sequence's.
    dtype : str or numpy dtype
        The result's (``object`` or a string dtype for string values).
    padding, truncating : {"pre", "post"}
        Pad or cut at the start (``"pre"``) or the end.
    value : float or str
        The padding.

    Returns
    -------
    numpy.ndarray
        ``(num_samples, maxlen) + sample_shape``.

    Raises
    ------
    ValueError
        For a non-iterable sequence, an unknown ``padding`` / ``truncating``, a string
        ``value`` with a numeric dtype, or a sample shaped unlike the first.
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths, sample_shape = _lengths_and_sample_shape(sequences)
    if maxlen is None:
        maxlen = np.max(lengths)
    is_dtype_str = np.issubdtype(dtype, np.str_)
    if isinstance(value, str) and dtype != object and not is_dtype_str:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: "
                         f"{type(value)}\nYou should set `dtype=object` for variable length "
                         "strings.")
    x = np.full((len(sequences), maxlen) + sample_shape, value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s):
            continue
        if truncating not in ("pre", "post"):
            raise ValueError(f'Truncating type "{truncating}" not understood')
        trunc = np.asarray(s[-maxlen:] if truncating == "pre" else s[:maxlen], dtype=dtype)
        if trunc.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {trunc.shape[1:]} of sequence at position {idx} "
                             f"is different from expected shape {sample_shape}")
        if padding == "post":
            x[idx, :len(trunc)] = trunc
        elif padding == "pre":
            x[idx, -len(trunc):] = trunc
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return x


def make_sampling_table(size, sampling_factor=1e-5):
    """word2vec's probability of keeping the word of each rank (Zipf's law), for
    :func:`skipgrams`' ``sampling_table``.

    Parameters
    ----------
    size : int
        Words in the vocabulary.
    sampling_factor : float
        word2vec's ``sample``.

    Returns
    -------
    numpy.ndarray
        ``(size,)`` float64; rank 0 is treated as rank 1.
    """
    gamma = 0.577
    rank = np.arange(size)
    rank[0] = 1
    inv_fq = rank * (np.log(rank) + gamma) + 0.5 - 1. / (12. * rank)
    f = sampling_factor * inv_fq
    return np.minimum(1., f / np.sqrt(f))


def skipgrams(sequence, vocabulary_size, window_size=4, negative_samples=1., shuffle=True,
              categorical=False, sampling_table=None, seed=None):
    """word2vec's (word, context) pairs of a sequence of word ids, with negative samples.

    Parameters
    ----------
    sequence : list of int
        Word ids; 0 is skipped.
    vocabulary_size : int
        Negative samples are drawn from ``[1, vocabulary_size - 1]``.
    window_size : int
        Context words each side.
    negative_samples : float
        Negative pairs per positive one.
    shuffle : bool
        Shuffle pairs and labels together.
    categorical : bool
        Labels ``[0, 1]`` / ``[1, 0]`` instead of 1 / 0.
    sampling_table : array, optional
        A word of rank ``i`` is kept with probability ``sampling_table[i]``.
    seed : int, optional
        The shuffle's seed (Python's ``random.seed``).

    Returns
    -------
    couples, labels : list
        ``[[word, context], ...]`` and their labels.
    """
    couples, labels = [], []
    positive, negative = ([0, 1], [1, 0]) if categorical else (1, 0)
    for i, wi in enumerate(sequence):
        if not wi or (sampling_table is not None and sampling_table[wi] < random.random()):
            continue
        for j in range(max(0, i - window_size), min(len(sequence), i + window_size + 1)):
            if j != i and sequence[j]:
                couples.append([wi, sequence[j]])
                labels.append(positive)
    if negative_samples > 0:
        num_negative_samples = int(len(labels) * negative_samples)
        words = [c[0] for c in couples]
        random.shuffle(words)
        couples += [[words[i % len(words)], random.randint(1, int(vocabulary_size - 1))]
                    for i in range(num_negative_samples)]
        labels += [negative] * num_negative_samples
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(10e6))
        random.seed(seed)
        random.shuffle(couples)
        random.seed(seed)
        random.shuffle(labels)
    return couples, labels


def remove_long_sequences(maxlen, seq, label):
    """The sequences shorter than ``maxlen`` and their labels (Keras' ``_remove_long_seq``).

    Parameters
    ----------
    maxlen : int
        Sequences of this length or more go.
    seq, label : sequence
        The sequences and their labels.

    Returns
    -------
    new_seq, new_label : list
    """
    kept = [(x, y) for x, y in zip(seq, label) if len(x) < maxlen]
    return [x for x, _ in kept], [y for _, y in kept]


def __getattr__(name):
    raise unsupported("tf.keras.preprocessing.sequence.", "tinyflow.keras.preprocessing.sequence", name,
                      {"tf.keras.preprocessing.sequence.": __all__})
