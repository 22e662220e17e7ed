"""``tf.spectral`` (TensorFlow 1.15): ``dct`` and ``idct`` (tf.signal's); its Fourier
transforms give complex tensors, which TinyFlow does not have (an AttributeError says so)."""
from .tf_signal import COMPLEX, dct, idct
from .unsupported import unsupported

__all__ = ["dct", "idct"]


def __getattr__(name):
    raise unsupported("tf.spectral.", "tinyflow.spectral", name, {"tf.spectral.": __all__},
                      why=COMPLEX.get(name))
