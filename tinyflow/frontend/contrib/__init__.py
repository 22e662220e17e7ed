"""``tf.contrib``: of TensorFlow 1.x's contributed modules TinyFlow has ``rnn`` (the cells and
RNN functions, :mod:`tinyflow.contrib.rnn`), ``seq2seq`` (BasicDecoder, its helpers,
dynamic_decode, sequence_loss, attention, beam search), ``layers`` (TF-Slim's layers, the xavier and variance-scaling
initializers, the regularizers: :mod:`tinyflow.contrib.layers`), ``framework`` (``arg_scope``,
the model variables), ``losses`` (the deprecated argument orders), ``slim`` (their aliases) and
``distributions`` (tf.distributions' families and MultivariateNormalDiag), ``metrics`` (the
``streaming_*`` metrics), ``training`` (``HParams``), ``crf`` (the linear-chain CRF:
log-likelihood, Viterbi decoding), ``lookup`` (tf.lookup's tables and the vocabulary
tables: :mod:`tinyflow.contrib.lookup`), ``data`` (``tf.data.experimental``'s
``parallel_interleave``, ``shuffle_and_repeat``, ``CsvDataset``, ``make_csv_dataset``...),
``opt`` (AdamW, MomentumW, LazyAdam, PowerSign, AddSign: :mod:`tinyflow.contrib.opt`),
``signal`` (tf.signal's frames, windows and mel matrices);
``tf.contrib.<other>`` is an AttributeError saying TinyFlow does not support it."""
import importlib

_SUBMODULES = ("crf", "data", "distributions", "framework", "layers", "lookup", "losses",
               "metrics", "opt", "rnn", "seq2seq", "signal", "slim", "training")
__all__ = list(_SUBMODULES)


def __dir__():
    return sorted(__all__)  # TF's names, not the modules behind them (seq2seq_attention...)


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"tf.contrib.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib' has no attribute {name!r})")
