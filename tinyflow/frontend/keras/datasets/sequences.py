"""The text and table data sets of ``tf.keras.datasets`` (imdb, reuters, boston_housing), read
as TF 1.15 reads them: the same files, URLs and hashes, the same shuffles (numpy's
``RandomState(seed)``, the order TF's ``np.random.seed(seed)`` then ``np.random.shuffle``
gives, without reseeding the caller's global numpy generator) and the same arrays.

Their ``.npz`` files hold the reviews as pickled object arrays (TF loads them with
``allow_pickle=True``, which runs any code a tampered file names): here they are read by
:func:`.safe_pickle.read_npz`, and a review must be a list of ints.
"""
from __future__ import annotations

import json

import numpy as np

from ....datasets.formats import DatasetError
from ..preprocessing.sequence import remove_long_sequences
from .images import fetch, npz_arrays
from .safe_pickle import object_vector

__all__ = ["get_imdb_word_index", "get_reuters_word_index", "load_boston_housing",
           "load_imdb", "load_reuters"]


def _word_list(seq) -> list | None:
    """A review as a list of Python ints (a list of ints, or a vector of integers), else None."""
    if isinstance(seq, np.ndarray) and seq.ndim == 1 and seq.dtype.kind in "iu":
        return seq.tolist()
    if isinstance(seq, list) and all(type(w) is int for w in seq):
        return seq
    return None


def _word_lists(array: np.ndarray, where: str) -> np.ndarray:
    """``array`` as the object array of int lists TF's loaders expect, or DatasetError."""
    lists = [_word_list(seq) for seq in array] if array.dtype == object else None
    if array.ndim != 1 or lists is None or any(seq is None for seq in lists):
        raise DatasetError(f"{where}: expected a vector of lists of word ids (ints), got "
                           f"{array.dtype} of shape {array.shape}; refusing to read it")
    return object_vector(lists)


def _as_returned(sequences: list) -> np.ndarray:
    """``np.array(sequences)`` as TF 1.15's numpy made it: ragged lists give a vector of
    lists (numpy 2 refuses to guess), lists all as long a 2-D int array."""
    try:
        return np.array(sequences)
    except ValueError:
        return object_vector(sequences)


def _index_words(xs, start_char, index_from):
    if start_char is not None:
        return [[start_char] + [w + index_from for w in x] for x in xs]
    if index_from:
        return [[w + index_from for w in x] for x in xs]
    return [list(x) for x in xs]


def _keep_words(xs, num_words, skip_top, oov_char):
    """Words outside ``[skip_top, num_words)`` become ``oov_char`` (or go)."""
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]


def _check_kwargs(kwargs: dict, num_words):
    if "nb_words" in kwargs:  # Keras 1's name, as TF accepts it
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
    return num_words


def _shuffled(rng: np.random.RandomState, where: str, *arrays: np.ndarray) -> list[np.ndarray]:
    if len({len(array) for array in arrays}) != 1:
        raise DatasetError(f"{where}: {' and '.join(str(len(a)) for a in arrays)} items do not "
                           "pair up")
    indices = np.arange(len(arrays[0]))
    rng.shuffle(indices)
    return [array[indices] for array in arrays]


def load_imdb(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113,
              start_char=1, oov_char=2, index_from=3, **kwargs):
    """``tf.keras.datasets.imdb.load_data``: 25,000 training and 25,000 test reviews.

    Parameters
    ----------
    path : str
        The file's name in ``~/.keras/datasets``.
    num_words : int, optional
        Keep the words ranked below it; the rest become ``oov_char``.
    skip_top : int
        Words ranked below it become ``oov_char`` too.
    maxlen : int, optional
        Drop the reviews of ``maxlen`` words or more (counting ``start_char``).
    seed : int
        The shuffle's seed.
    start_char, oov_char, index_from : int
        The first id of every review, the id of a dropped word, what word ids are shifted by.

    Returns
    -------
    tuple
        ``(x_train, y_train), (x_test, y_test)``: object vectors of lists of ints, int64
        labels.

    Raises
    ------
    ValueError
        When ``maxlen`` leaves no review in a split.

    Notes
    -----
    With ``maxlen``, TF 1.15 cut the split at the training set's size before filtering (so
    test reviews could land in ``x_train``); this filters each split apart, as TF 2 does.
    """
    num_words = _check_kwargs(kwargs, num_words)
    path = fetch(path, "imdb.npz")
    x_train, labels_train, x_test, labels_test = npz_arrays(path, "x_train", "y_train",
                                                            "x_test", "y_test")
    rng = np.random.RandomState(seed)
    x_train, labels_train = _shuffled(rng, path, _word_lists(x_train, path), labels_train)
    x_test, labels_test = _shuffled(rng, path, _word_lists(x_test, path), labels_test)
    x_train = _index_words(x_train, start_char, index_from)
    x_test = _index_words(x_test, start_char, index_from)
    if maxlen:
        x_train, labels_train = remove_long_sequences(maxlen, x_train, labels_train)
        x_test, labels_test = remove_long_sequences(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, "
                             "no sequence was kept. Increase maxlen.")
    xs = _keep_words(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([labels_train, labels_test])
    idx = len(x_train)
    return ((_as_returned(xs[:idx]), np.array(labels[:idx])),
            (_as_returned(xs[idx:]), np.array(labels[idx:])))


def load_reuters(path="reuters.npz", num_words=None, skip_top=0, maxlen=None,
                 test_split=0.2, seed=113, start_char=1, oov_char=2, index_from=3, **kwargs):
    """``tf.keras.datasets.reuters.load_data``: 11,228 newswires in 46 topics.

    Parameters
    ----------
    test_split : float
        The share of the newswires (after shuffling and ``maxlen``) kept for testing.
    path, num_words, skip_top, maxlen, seed, start_char, oov_char, index_from
        As :func:`load_imdb`'s.

    Returns
    -------
    tuple
        ``(x_train, y_train), (x_test, y_test)``: object vectors of lists of ints, int64
        topics.
    """
    num_words = _check_kwargs(kwargs, num_words)
    path = fetch(path, "reuters.npz")
    xs, labels = npz_arrays(path, "x", "y")
    xs, labels = _shuffled(np.random.RandomState(seed), path, _word_lists(xs, path),
                            labels)
    xs = _index_words(xs, start_char, index_from)
    if maxlen:
        xs, labels = remove_long_sequences(maxlen, xs, labels)
    xs = _keep_words(xs, num_words, skip_top, oov_char)
    idx = int(len(xs) * (1 - test_split))
    return ((_as_returned(xs[:idx]), np.array(labels[:idx])),
            (_as_returned(xs[idx:]), np.array(labels[idx:])))


def _word_index(fname: str, origin_name: str) -> dict:
    path = fetch(fname, origin_name)
    with open(path, encoding="utf-8") as stream:
        try:
            index = json.load(stream)
        except ValueError as exc:
            raise DatasetError(f"{path}: not JSON ({exc})") from None
    if not isinstance(index, dict):
        raise DatasetError(f"{path}: not a JSON object of words")
    return index


def get_imdb_word_index(path="imdb_word_index.json"):
    """``tf.keras.datasets.imdb.get_word_index``: ``{word: rank}`` (ranks from 1; a review's
    id is the rank plus ``index_from``).

    Parameters
    ----------
    path : str
        The file's name in ``~/.keras/datasets``.
    """
    return _word_index(path, "imdb_word_index.json")


def get_reuters_word_index(path="reuters_word_index.json"):
    """``tf.keras.datasets.reuters.get_word_index``: ``{word: rank}``, as IMDB's.

    Parameters
    ----------
    path : str
        The file's name in ``~/.keras/datasets``.
    """
    return _word_index(path, "reuters_word_index.json")


def load_boston_housing(path="boston_housing.npz", test_split=0.2, seed=113):
    """``tf.keras.datasets.boston_housing.load_data``: 506 houses, 13 float64 features and
    the float64 price, shuffled with ``seed``.

    Parameters
    ----------
    path : str
        The file's name in ``~/.keras/datasets``.
    test_split : float
        The share kept for testing, in ``[0, 1)``.
    seed : int
        The shuffle's seed.

    Returns
    -------
    tuple
        ``(x_train, y_train), (x_test, y_test)``.
    """
    assert 0 <= test_split < 1  # TF's own check
    path = fetch(path, "boston_housing.npz")
    x, y = npz_arrays(path, "x", "y")
    x, y = _shuffled(np.random.RandomState(seed), path, x, y)
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))
