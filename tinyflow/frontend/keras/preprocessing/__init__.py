"""``tf.keras.preprocessing``: :mod:`.sequence` (``pad_sequences``, ``skipgrams``,
``make_sampling_table``) and :mod:`.text` (``Tokenizer``, ``text_to_word_sequence``,
``one_hot``, ``hashing_trick``), as TF 1.15 has them (keras_preprocessing 1.1).
``tf.keras.preprocessing.image`` is not supported: an AttributeError says so."""
from __future__ import annotations

from ...unsupported import unsupported
from . import sequence, text

__all__ = ["sequence", "text"]


def __getattr__(name):
    raise unsupported("tf.keras.preprocessing.", "tinyflow.keras.preprocessing", name,
                      {"tf.keras.preprocessing.": __all__})


def __dir__():
    return sorted(__all__)
