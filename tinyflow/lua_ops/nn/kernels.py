"""Kernels of the tf.nn bodies (tinyflow/ops/nn.py): ids and labels read as TensorFlow's CPU
kernels check them, sparse cross entropy, embedding_lookup, in_top_k, top_k and lrn's sums."""
from __future__ import annotations

import math

import torch

from ...nnvm.errors import InvalidArgumentError
from ..array.kernels import check_range
from ..scratch import scratch

__all__ = ["bias_view", "candidate_sampler", "class_table", "column_view", "ctc_loss",
           "embedding_lookup", "embedding_lookup_backward",
           "ids_buffer", "in_top_k", "in_top_k_buffers", "sparse_xent",
           "sparse_xent_backward", "top_k", "top_k_backward", "top_k_buffers", "window_sum"]


def bias_view(bias, value, data_format=None):
    """bias (C,) viewed to broadcast along value's channel axis: 1 for NCHW, else the last."""
    if data_format == "NCHW":
        return bias.view((-1,) + (1,) * (value.dim() - 2))
    return bias


def column_view(x):
    """x with a trailing axis of size 1 (a view)."""
    return x.unsqueeze(-1)


def ids_buffer(ids, trailing_one=False):
    """int64 scratch for ids: flat, or ids' shape + (1,)."""
    shape = tuple(ids.shape) + (1,) if trailing_one else (ids.numel(),)
    return scratch(torch.empty(shape, dtype=torch.int64, device=ids.device))


def read_ids(index, ids, size, what):
    """Class ids / indices of any dtype into the int64 buffer, checked as TensorFlow's CPU
    kernels check them (an index out of range would be a device assert on a GPU)."""
    index.copy_(ids.reshape(index.shape))
    if index.numel():
        low, high = (int(v) for v in torch.aminmax(index))  # ints: no tensor per comparison
        if low < 0 or high >= size:
            bad = low if low < 0 else high
            raise IndexError(f"{what} {bad} is outside the valid range [0, {size})")


def _read_labels(index, labels, classes):
    # a NaN label reads as -9223372036854775808 once converted to an int64 id
    try:
        read_ids(index, labels, classes, "label")
    except IndexError as err:
        raise IndexError(f"labels must be class ids in [0, {classes}), integers (not NaN): "
                         f"{err}") from None


def sparse_xent(res, logits, labels, log_probs, index):
    """res = -log_softmax(logits)[labels] along the last dim; index from ids_buffer(l, true)."""
    _read_labels(index, labels, logits.shape[-1])
    torch.log_softmax(logits, -1, out=log_probs)
    torch.gather(log_probs, -1, index, out=res.unsqueeze(-1))
    res.neg_()


def sparse_xent_backward(res, g_column, logits, labels, index, minus_ones):
    """res = (softmax(logits) - onehot(labels)) * g_column."""
    _read_labels(index, labels, logits.shape[-1])
    torch.softmax(logits, -1, out=res)
    res.scatter_add_(-1, index, minus_ones)
    res.mul_(g_column)


def embedding_lookup(res, params, ids, index):
    """Rows of params at ids (gather along dim 1)."""
    read_ids(index, ids, params.shape[0], "id")
    torch.index_select(params, 0, index, out=res.view((-1,) + tuple(params.shape[1:])))


def embedding_lookup_backward(res, g, ids, index):
    """Rows of g summed into zeros at ids."""
    read_ids(index, ids, res.shape[0], "id")
    res.zero_()
    res.index_add_(0, index, g.reshape((-1,) + tuple(res.shape[1:])))


def in_top_k_buffers(predictions):
    batch, classes = predictions.shape
    device = predictions.device
    return [scratch(t) for t in (
        torch.empty((batch, 1), dtype=torch.int64, device=device),      # target ids
        torch.empty((batch, 1), dtype=predictions.dtype, device=device),  # their predictions
        torch.empty((batch, classes), dtype=torch.bool, device=device),   # beats the target
        torch.empty((batch,), dtype=torch.int64, device=device),          # how many beat it
        torch.empty((batch, 1), dtype=torch.bool, device=device),         # valid target
        torch.empty((batch, 1), dtype=torch.bool, device=device))]


def in_top_k(res, predictions, targets, k, buffers):
    # TensorFlow's rule: true when fewer than k classes score strictly higher than the target
    # (ties straddling the boundary count as in); false for a target out of range or whose
    # prediction is not finite
    index, target, beats, count, valid, check = buffers
    classes = predictions.shape[1]
    index.copy_(targets.view(-1, 1))
    torch.ge(index, 0, out=valid)
    valid.logical_and_(torch.lt(index, classes, out=check))
    index.clamp_(0, classes - 1)
    torch.gather(predictions, 1, index, out=target)
    valid.logical_and_(torch.lt(torch.abs(target, out=target), float("inf"), out=check))
    torch.gather(predictions, 1, index, out=target)  # again: abs overwrote it
    torch.gt(predictions, target, out=beats)
    torch.sum(beats, 1, out=count)
    torch.lt(count, int(k), out=res)
    res.logical_and_(valid.view(-1))


def top_k_buffers(x):
    """A sorted copy of x and its int64 order (setup only)."""
    return [scratch(torch.empty_like(x)),
            scratch(torch.empty(x.shape, dtype=torch.int64, device=x.device))]


def top_k(values, indices, x, k, buffers):
    # a stable descending sort gives TensorFlow's order for ties (the lower index first), which
    # torch.topk does not promise
    ordered, order = buffers
    torch.sort(x, dim=-1, descending=True, stable=True, out=(ordered, order))
    k = int(k)
    values.copy_(ordered[..., :k])
    indices.copy_(order[..., :k])


def top_k_backward(res, g, indices, index):
    """Zeros with g put at indices along the last dim; index: int64 scratch like indices."""
    index.copy_(indices)
    if index.is_cuda:  # torch's GPU scatter would assert on the device
        check_range(index, res.shape[-1], "indices")
    res.zero_()
    res.scatter_(-1, index, g)


def window_sum(res, x, radius):
    # one avg_pool2d over rows (1, depth) with divisor 1: a sum over 2 * radius + 1 elements,
    # zero padding radius on both sides (its limit of half the window holds)
    radius, depth = int(radius), x.shape[-1]
    if x.numel() == 0:
        return
    rows = (-1, 1, 1, depth)
    torch.ops.aten.avg_pool2d.out(x.reshape(rows), (1, 2 * radius + 1), (1, 1), (0, radius),
                                  False, True, 1, out=res.view(rows))


def class_table(probabilities):
    """The fixed unigram sampler's probabilities (a Lua list) as a float64 tensor (setup)."""
    return torch.tensor(list(probabilities.values()), dtype=torch.float64)


def _draws(distribution, range_max, count, gen, table=None):
    """``count`` classes of [0, range_max) as TensorFlow's samplers draw them (a list)."""
    device = gen.device if gen is not None else "cpu"
    if distribution == "fixed_unigram":
        return torch.multinomial(table.to(device), count, True, generator=gen).tolist()
    u = torch.rand(count, generator=gen, dtype=torch.float64, device=device)
    if distribution == "uniform":
        return (u * range_max).long().clamp_(max=range_max - 1).tolist()
    # TF's LogUniformSampler: exp(u * log(range_max + 1)) - 1, mod range_max (roundoff)
    return ((torch.exp(u * math.log(range_max + 1)).long() - 1) % range_max).tolist()


def _probability(distribution, classes, range_max, table=None):
    if distribution == "fixed_unigram":
        return table[classes.long()]
    if distribution == "uniform":
        return torch.full(classes.shape, 1.0 / range_max, dtype=torch.float64)
    classes = classes.double()
    return torch.log((classes + 2.0) / (classes + 1.0)) / math.log(range_max + 1)


def candidate_sampler(sampled, true_count, sampled_count, classes, distribution, range_max,
                      unique=True, gen=None, table=None):
    # TF's RangeSampler::SampleBatchGetExpectedCountAvoid: with unique, draw until num_sampled
    # distinct classes, counting every try; a class's expected count among them is
    # 1 - (1 - p) ** tries then, p * num_sampled without unique
    count, range_max, picked, seen, tries = sampled.numel(), int(range_max), [], set(), 0
    while len(picked) < count:
        for value in _draws(distribution, range_max, count, gen, table):
            tries += 1
            if not unique or value not in seen:
                seen.add(value)
                picked.append(value)
                if len(picked) == count:
                    break
    chosen = torch.tensor(picked, dtype=torch.int64)
    sampled.copy_(chosen)

    def expected(p):
        return p * count if not unique else -torch.expm1(tries * torch.log1p(-p))
    true_count.copy_(expected(_probability(distribution, classes.cpu(), range_max, table)))
    sampled_count.copy_(expected(_probability(distribution, chosen, range_max, table)))



def ctc_loss(loss, grad, logits, labels, label_lengths, lengths, ignore_longer) -> None:
    """TF's CTCLoss by torch's: ``loss`` [B] the negative log probabilities, ``grad`` [T, B,
    C] their gradients by ``logits`` (softmax inside, the blank the last class).  As TF's
    kernel: the lengths and labels checked on the host first, with its messages; labels longer
    than their sequence an error, or loss 0 and no gradient when ``ignore_longer``; an alignment
    that cannot be (repeats without room for a blank between) loss inf and the softmax as the
    gradient over the sequence."""
    steps, batch, classes = logits.shape
    targets = labels.to(torch.int64).cpu()
    target_lengths, input_lengths = (t.to(torch.int64).cpu() for t in (label_lengths, lengths))
    ignored = []
    for b in range(batch):
        n, t = int(target_lengths[b]), int(input_lengths[b])
        if not 0 <= t <= steps:
            raise InvalidArgumentError(None, None, f"sequence_length({b}) <= {steps}")
        if n == 0:
            raise InvalidArgumentError(None, None, f"Labels length is zero in batch {b}")
        row = targets[b, :n]
        if int(row.min()) < 0 or int(row.max()) >= classes - 1:
            raise InvalidArgumentError(None, None, f"Labels must be in [0, {classes - 1}) "
                                                   f"(the blank is {classes - 1}): batch {b}")
        if n > t:
            if not ignore_longer:
                raise InvalidArgumentError(None, None, (
                    f"Not enough time for target transition sequence (required: {n}, "
                    f"available: {t}){b}You can turn this error into a warning by using the "
                    f"flag ignore_longer_outputs_than_inputs"))
            ignored.append(b)
    ctc = torch.nn.functional.ctc_loss
    with torch.enable_grad():
        x = logits.detach().clone().requires_grad_(True)
        log_probs = torch.log_softmax(x, -1)
        losses = ctc(log_probs, targets.to(x.device), input_lengths, target_lengths,
                     blank=classes - 1, reduction="none", zero_infinity=True)
        (gradient,) = torch.autograd.grad(losses.sum(), x)
    exact = ctc(log_probs.detach(), targets.to(x.device), input_lengths, target_lengths,
                blank=classes - 1, reduction="none")
    for b in torch.nonzero(torch.isinf(exact)).flatten().tolist():
        t = int(input_lengths[b])
        if b in ignored:
            exact[b] = 0.0
        else:  # TF's: no alignment, so no posterior to take from the softmax
            gradient[:t, b] = torch.softmax(logits[:t, b], -1)
    loss.copy_(exact)
    grad.copy_(gradient)
