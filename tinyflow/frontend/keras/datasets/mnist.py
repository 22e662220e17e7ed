"""``tf.keras.datasets.mnist``: MNIST's digits (:mod:`.images`)."""
from .images import load_mnist as load_data

__all__ = ["load_data"]
