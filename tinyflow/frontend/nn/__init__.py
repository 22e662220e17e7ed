"""``tf.nn``: TensorFlow 1.15's neural-network functions (:mod:`.functions`, with the seed's
layers, :mod:`.seed_layers`), its recurrent cells (``tf.nn.rnn_cell``, :mod:`.rnn_cell`) and the
functions that run them (:mod:`.rnn`), ``conv2d_transpose``, ``conv1d_transpose`` and
conv2d's gradients (:mod:`.conv_transpose`), the convolutions past conv2d (conv1d, depthwise,
separable, atrous: :mod:`.convolutions`), those over volumes (conv3d, max_pool3d, avg_pool3d:
:mod:`.volume`), the sampled losses with their candidate samplers (:mod:`.sampled`), fused and
global batch norm (:mod:`.normalization`), the pooling aliases and morphology
(:mod:`.pooling`), ``log_poisson_loss`` (:mod:`.losses`) and the statistics past ``moments``
(:mod:`.statistics`), ``with_space_to_batch`` (:mod:`.space_batch`)."""
from ..array_ops import depth_to_space, space_to_depth
from ..unsupported import unsupported
from . import rnn_cell
from .conv_transpose import (
    atrous_conv2d_transpose,
    conv1d_transpose,
    conv2d_backprop_filter,
    conv2d_backprop_input,
    conv2d_transpose,
)
from .convolutions import *
from .convolutions import __all__ as _convolution_all
from .ctc import (
    collapse_repeated,
    ctc_beam_search_decoder,
    ctc_greedy_decoder,
    ctc_loss,
    ctc_unique_labels,
)
from .functions import *
from .functions import __all__ as _functions_all
from .losses import compute_average_loss, log_poisson_loss, scale_regularization_loss
from .normalization import *
from .normalization import __all__ as _normalization_all
from .pooling import *
from .pooling import __all__ as _pooling_all
from .rnn import *
from .rnn import __all__ as _rnn_all
from .sampled import *
from .sampled import __all__ as _sampled_all
from .space_batch import space_to_batch, with_space_to_batch
from .sparse_lookup import embedding_lookup_sparse, safe_embedding_lookup_sparse
from .statistics import *
from .statistics import __all__ as _statistics_all
from .volume import *
from .volume import __all__ as _volume_all

__all__ = (list(_functions_all) + list(_rnn_all) + list(_sampled_all)
           + list(_convolution_all) + list(_normalization_all) + list(_pooling_all)
           + list(_statistics_all) + list(_volume_all)
           + ["atrous_conv2d_transpose", "conv1d_transpose", "conv2d_backprop_filter", "conv2d_backprop_input",
              "conv2d_transpose", "collapse_repeated", "ctc_beam_search_decoder", "ctc_greedy_decoder", "ctc_loss",
              "ctc_unique_labels", "depth_to_space", "embedding_lookup_sparse",
              "compute_average_loss", "log_poisson_loss", "rnn_cell",
              "scale_regularization_loss", "space_to_batch", "with_space_to_batch", "safe_embedding_lookup_sparse", "space_to_depth"])


def __getattr__(name):
    raise unsupported("tf.nn.", "tinyflow.nn", name, {"tf.nn.": __all__})
