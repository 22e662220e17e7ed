"""``tf.contrib``: of TensorFlow 1.x's contributed modules TinyFlow has ``rnn`` (the cells and
RNN functions, :mod:`tinyflow.contrib.rnn`), ``seq2seq`` (BasicDecoder, its helpers,
dynamic_decode, sequence_loss) and ``layers`` (``fully_connected``, ``flatten``,
the xavier and variance-scaling initializers, the regularizers: :mod:`tinyflow.contrib.layers`),
``distributions`` (tf.distributions' families and MultivariateNormalDiag);
``tf.contrib.<other>`` is an AttributeError saying TinyFlow does not support it."""
import importlib

__all__ = ["distributions", "layers", "rnn", "seq2seq"]
_SUBMODULES = ("distributions", "layers", "rnn", "seq2seq")


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"tf.contrib.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib' has no attribute {name!r})")
