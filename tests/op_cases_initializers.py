"""test_ops' table for the op tf.orthogonal_initializer computes with (2026-11-27):
orthogonalize, the Q of a matrix's reduced QR with its columns' signs those of R's diagonal,
against torch's QR in float64; an initializer's op, no gradient (the orthogonal initializer's
tests in tests/test_tf_random.py check the values it gives)."""
import torch

from tinyflow.nnvm.symbol import create_op


def _signed_q(a):
    q, r = torch.linalg.qr(a)
    return q * torch.sign(torch.diagonal(r))


def add_cases(add):
    """Tall and square matrices, and one column."""
    for shape in ((5, 3), (4, 4), (6, 1)):
        add("orthogonalize", f"{shape}", lambda a: create_op("orthogonalize", a), [shape],
            _signed_q, check_gradient=False)
