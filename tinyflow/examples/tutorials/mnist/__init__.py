"""``tinyflow.examples.tutorials.mnist``: TensorFlow 1.x's MNIST tutorial loader, ``input_data``."""
from . import input_data

__all__ = ["input_data"]
