"""``tf.keras.datasets.fashion_mnist``: Fashion-MNIST (:mod:`.images`)."""
from .images import load_fashion_mnist as load_data

__all__ = ["load_data"]
