"""``tf.keras.datasets.imdb``: IMDB's reviews (:mod:`.sequences`)."""
from .sequences import get_imdb_word_index as get_word_index
from .sequences import load_imdb as load_data

__all__ = ["get_word_index", "load_data"]
