"""``tf.keras.datasets.cifar10``: CIFAR-10 (:mod:`.images`)."""
from .images import load_cifar10 as load_data

__all__ = ["load_data"]
