"""``tf.keras.preprocessing.text``: splitting text into words, hashing words to ids, and
``Tokenizer``, which ranks the words of a corpus and turns texts into id sequences or
matrices, as TF 1.15 (keras_preprocessing 1.1) does."""
from __future__ import annotations

import collections
import hashlib
import json

import numpy as np

from ...unsupported import unsupported

__all__ = ["Tokenizer", "hashing_trick", "one_hot", "text_to_word_sequence",
           "tokenizer_from_json"]

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(text, filters=_FILTERS, lower=True, split=" "):
    """The words of ``text``: lower-cased, ``filters`` characters made separators, split.

    Parameters
    ----------
    text : str
    filters : str
        Characters removed (each becomes ``split``).
    lower : bool
    split : str
        The separator.

    Returns
    -------
    list of str
    """
    if lower:
        text = text.lower()
    text = text.translate(str.maketrans({c: split for c in filters}))
    return [word for word in text.split(split) if word]


def hashing_trick(text, n, hash_function=None, filters=_FILTERS, lower=True, split=" "):
    """Each word of ``text`` as ``hash_function(word) % (n - 1) + 1``.

    Parameters
    ----------
    text : str
    n : int
        The ids run from 1 to ``n - 1``.
    hash_function : callable or "md5", optional
        Default Python's ``hash`` (salted per process unless ``PYTHONHASHSEED`` is set, as
        in Keras); ``"md5"`` is stable.
    filters, lower, split
        As :func:`text_to_word_sequence`'s.

    Returns
    -------
    list of int
    """
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        def hash_function(word):
            return int(hashlib.md5(word.encode()).hexdigest(), 16)
    words = text_to_word_sequence(text, filters=filters, lower=lower, split=split)
    return [hash_function(word) % (n - 1) + 1 for word in words]


def one_hot(text, n, filters=_FILTERS, lower=True, split=" "):
    """:func:`hashing_trick` with Python's ``hash`` (Keras' name for it).

    Parameters
    ----------
    text : str
    n : int
    filters, lower, split
        As :func:`text_to_word_sequence`'s.
    """
    return hashing_trick(text, n, hash_function=hash, filters=filters, lower=lower, split=split)


class Tokenizer:
    """Ranks the words of the texts it was fitted on (most frequent first, from 1) and turns
    texts into sequences of those ranks or into ``(texts, num_words)`` matrices.

    Parameters
    ----------
    num_words : int, optional
        Only ranks below it are kept when converting (fitting ranks every word).
    filters, lower, split
        As :func:`text_to_word_sequence`'s.
    char_level : bool
        Every character is a word.
    oov_token : str, optional
        Ranked 1, and stands for words not ranked (or ranked too low) when converting.
    """

    def __init__(self, num_words=None, filters=_FILTERS, lower=True, split=" ",
                 char_level=False, oov_token=None, document_count=0, **kwargs):
        if "nb_words" in kwargs:
            num_words = kwargs.pop("nb_words")
        if kwargs:
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        self.word_counts = collections.OrderedDict()
        self.word_docs = collections.defaultdict(int)
        self.filters, self.split, self.lower = filters, split, lower
        self.num_words, self.document_count = num_words, document_count
        self.char_level, self.oov_token = char_level, oov_token
        self.index_docs = collections.defaultdict(int)
        self.word_index, self.index_word = {}, {}

    def _words(self, text):
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        return text_to_word_sequence(text, self.filters, self.lower, self.split)

    def fit_on_texts(self, texts):
        """Count the words of ``texts`` (strings, or lists of words) and rank them again."""
        for text in texts:
            self.document_count += 1
            seq = self._words(text)
            for w in seq:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(seq):
                self.word_docs[w] += 1
        wcounts = sorted(self.word_counts.items(), key=lambda x: x[1], reverse=True)
        sorted_voc = [] if self.oov_token is None else [self.oov_token]
        sorted_voc.extend(word for word, _ in wcounts)
        self.word_index = dict(zip(sorted_voc, range(1, len(sorted_voc) + 1)))
        self.index_word = {c: w for w, c in self.word_index.items()}
        for w, c in list(self.word_docs.items()):
            self.index_docs[self.word_index[w]] = c

    def fit_on_sequences(self, sequences):
        """Count the documents each id of ``sequences`` is in (for ``"tfidf"``)."""
        self.document_count += len(sequences)
        for seq in sequences:
            for i in set(seq):
                self.index_docs[i] += 1

    def texts_to_sequences_generator(self, texts):
        """Yield each text as a list of word ranks (below ``num_words``; others the
        ``oov_token``'s rank, or left out)."""
        num_words, oov_index = self.num_words, self.word_index.get(self.oov_token)
        for text in texts:
            vect = []
            for w in self._words(text):
                i = self.word_index.get(w)
                if i is not None and not (num_words and i >= num_words):
                    vect.append(i)
                elif self.oov_token is not None and (i is None or oov_index is not None):
                    vect.append(oov_index)
            yield vect

    def texts_to_sequences(self, texts):
        """:meth:`texts_to_sequences_generator`'s lists, as a list."""
        return list(self.texts_to_sequences_generator(texts))

    def sequences_to_texts_generator(self, sequences):
        """Yield each sequence of ranks as its words joined by spaces."""
        num_words, oov_index = self.num_words, self.word_index.get(self.oov_token)
        for seq in sequences:
            vect = []
            for num in seq:
                word = self.index_word.get(num)
                if word is not None and not (num_words and num >= num_words):
                    vect.append(word)
                elif self.oov_token is not None and (word is None or oov_index is not None):
                    vect.append(self.index_word[oov_index])
            yield " ".join(vect)

    def sequences_to_texts(self, sequences):
        """:meth:`sequences_to_texts_generator`'s strings, as a list."""
        return list(self.sequences_to_texts_generator(sequences))

    def texts_to_matrix(self, texts, mode="binary"):
        """:meth:`sequences_to_matrix` of the texts' sequences."""
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode="binary"):
        """A ``(len(sequences), num_words)`` float64 matrix: per id, ``"binary"`` 1,
        ``"count"`` its count, ``"freq"`` its share of the sequence, ``"tfidf"``
        ``(1 + log count) * log(1 + documents / (1 + its documents))``.

        Raises
        ------
        ValueError
            Without ``num_words`` nor a fit, for ``"tfidf"`` before a fit, or another mode.
        """
        num_words = self.num_words
        if not num_words:
            if not self.word_index:
                raise ValueError("Specify a dimension (`num_words` argument), or fit on "
                                 "some text data first.")
            num_words = len(self.word_index) + 1
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        x = np.zeros((len(sequences), num_words))
        for i, seq in enumerate(sequences):
            counts = collections.Counter(j for j in seq if j < num_words)
            for j, c in counts.items():
                x[i][j] = self._weight(mode, c, len(seq), j)
        return x

    def _weight(self, mode, count, length, j):
        if mode == "count":
            return count
        if mode == "freq":
            return count / length
        if mode == "binary":
            return 1
        if mode == "tfidf":
            idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
            return (1 + np.log(count)) * idf
        raise ValueError("Unknown vectorization mode:", mode)

    def get_config(self):
        """The tokenizer's settings and counts, the counts as JSON strings."""
        return {
            "num_words": self.num_words, "filters": self.filters, "lower": self.lower,
            "split": self.split, "char_level": self.char_level, "oov_token": self.oov_token,
            "document_count": self.document_count,
            **{key: json.dumps(getattr(self, key)) for key in (
                "word_counts", "word_docs", "index_docs", "index_word", "word_index")}}

    def to_json(self, **kwargs):
        """``{"class_name": "Tokenizer", "config": get_config()}`` as JSON."""
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()},
                          **kwargs)


def tokenizer_from_json(json_string):
    """The :class:`Tokenizer` of :meth:`Tokenizer.to_json`'s string.

    Parameters
    ----------
    json_string : str
    """
    config = dict(json.loads(json_string).get("config"))
    counts = {key: json.loads(config.pop(key)) for key in (
        "word_counts", "word_docs", "index_docs", "index_word", "word_index")}
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts, tokenizer.word_docs = counts["word_counts"], counts["word_docs"]
    tokenizer.index_docs = {int(k): v for k, v in counts["index_docs"].items()}
    tokenizer.index_word = {int(k): v for k, v in counts["index_word"].items()}
    tokenizer.word_index = counts["word_index"]
    return tokenizer


def __getattr__(name):
    raise unsupported("tf.keras.preprocessing.text.", "tinyflow.keras.preprocessing.text", name,
                      {"tf.keras.preprocessing.text.": __all__})
