"""``tf.keras.datasets.cifar100``: CIFAR-100 (:mod:`.images`)."""
from .images import load_cifar100 as load_data

__all__ = ["load_data"]
