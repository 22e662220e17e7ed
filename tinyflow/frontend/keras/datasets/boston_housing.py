"""``tf.keras.datasets.boston_housing``: Boston's house prices (:mod:`.sequences`)."""
from .sequences import load_boston_housing as load_data

__all__ = ["load_data"]
