"""TensorFlow 1.15's sampled losses, ``tf.nn.nce_loss`` and ``tf.nn.sampled_softmax_loss``
(word2vec's), and the candidate samplers they draw with (``tf.nn.log_uniform_candidate_sampler``,
the default, ``uniform_candidate_sampler`` and ``fixed_unigram_candidate_sampler``).

Both losses are TF's ``_compute_sampled_logits`` (python/ops/nn_impl.py) built from ordinary
ops: the logits of the true classes and of the sampled ones (``inputs @ weights[ids]^T +
biases[ids]``), less the log of each class's expected count among the draws, with
``remove_accidental_hits`` a sampled class that is one of the row's true classes gets -FLT_MAX
added; then a sigmoid cross entropy summed over the classes (NCE) or a softmax cross entropy
(sampled softmax).  Sharded weights (a list of several tensors) are not supported.
"""
from __future__ import annotations

import numpy as np

from ...nnvm.symbol import Symbol
from ..api import cast, equal, log, matmul, reduce_any, reduce_sum, stop_gradient
from ..array_ops import concat, expand_dims, ones_like, reshape, shape, zeros_like
from ..random_ops import (
    fixed_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from .functions import (
    _symbol,
    embedding_lookup,
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
)

__all__ = ["fixed_unigram_candidate_sampler", "log_uniform_candidate_sampler", "nce_loss",
           "sampled_softmax_loss", "uniform_candidate_sampler"]

_FLT_MAX = float(np.finfo(np.float32).max)  # TF's compute_accidental_hits weight: -FLT_MAX


def _one(tensors, what):
    if isinstance(tensors, (list, tuple)):
        if len(tensors) != 1:
            raise ValueError(f"{what}: sharded weights ({len(tensors)} tensors) are not "
                             f"supported by TinyFlow; give one tensor")
        return _symbol(tensors[0])
    return _symbol(tensors)


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                    sampled_values, remove_accidental_hits, seed, what):
    """TF's _compute_sampled_logits with subtract_log_q: (logits, labels), each
    ``[batch, num_true + num_sampled]``."""
    weights, biases, inputs = _one(weights, what), _one(biases, what), _symbol(inputs)
    labels = cast(_symbol(np.asarray(labels, np.int64)) if not isinstance(labels, Symbol)
                  else labels, "int64")
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True,
                                                       num_classes, seed=seed)
    sampled, true_count, sampled_count = (stop_gradient(_symbol(v)) for v in sampled_values)
    sampled = cast(sampled, "int64")
    labels_flat = reshape(labels, [-1])
    true_w = embedding_lookup(weights, labels_flat)  # [batch * num_true, dim]
    sampled_logits = matmul(inputs, embedding_lookup(weights, sampled), transpose_b=True)
    sampled_logits = sampled_logits + embedding_lookup(biases, sampled)
    rows = reshape(true_w, concat([[-1, int(num_true)], shape(true_w)[1:2]], 0))
    true_logits = reduce_sum(rows * expand_dims(inputs, 1), 2)  # row-wise dots
    true_logits = true_logits + reshape(embedding_lookup(biases, labels_flat), [-1, num_true])
    if remove_accidental_hits:  # a sampled class among the row's true ones drops out
        hits = reduce_any(equal(expand_dims(labels, 2), reshape(sampled, [1, 1, -1])), 1)
        sampled_logits = sampled_logits + cast(hits, sampled_logits.dtype) * -_FLT_MAX
    true_logits = true_logits - log(cast(true_count, true_logits.dtype))
    sampled_logits = sampled_logits - log(cast(sampled_count, sampled_logits.dtype))
    logits = concat([true_logits, sampled_logits], 1)
    targets = concat([ones_like(true_logits) / float(num_true), zeros_like(sampled_logits)], 1)
    return logits, targets


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
             name="nce_loss", seed=None) -> Symbol:
    """Noise-contrastive estimation loss per example, ``[batch]`` (TensorFlow 1.15's).

    Parameters
    ----------
    weights, biases : Symbol
        ``[num_classes, dim]`` and ``[num_classes]`` (or lists of one such tensor).
    labels : Symbol
        int64 ``[batch, num_true]``: the true classes.
    inputs : Symbol
        ``[batch, dim]``.
    num_sampled, num_classes, num_true : int
    sampled_values : tuple, optional
        ``(sampled_candidates, true_expected_count, sampled_expected_count)`` as a candidate
        sampler returns them; default ``log_uniform_candidate_sampler(labels, num_true,
        num_sampled, True, num_classes)``.
    remove_accidental_hits : bool
        A sampled class equal to one of the row's true classes is left out (-FLT_MAX added to
        its logit).
    partition_strategy : str
        Of sharded weights, which TinyFlow does not support: ignored for one tensor.

    Returns
    -------
    Symbol: the sum over the true and sampled classes of the sigmoid cross entropy of their
    logits (less log expected counts) with 1 / num_true for the true ones, 0 for the others.
    """
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                      num_true, sampled_values, remove_accidental_hits, seed,
                                      "nce_loss")
    losses = sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
    return reduce_sum(losses, 1, name=name)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True,
                         partition_strategy="mod", name="sampled_softmax_loss",
                         seed=None) -> Symbol:
    """Sampled softmax loss per example, ``[batch]`` (TensorFlow 1.15's): the softmax cross
    entropy over the true and the sampled classes' logits (less log expected counts), the
    targets 1 / num_true on the true ones; the arguments as :func:`nce_loss`'s
    (``remove_accidental_hits`` True by default, as TF)."""
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                      num_true, sampled_values, remove_accidental_hits, seed,
                                      "sampled_softmax_loss")
    return softmax_cross_entropy_with_logits_v2(labels=stop_gradient(targets), logits=logits,
                                                name=name)
