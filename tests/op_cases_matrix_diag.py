"""test_ops' table for the band and diagonal ops of tinyflow/ops/matrix.py (matrix_band_part,
matrix_diag, matrix_diag_part, matrix_set_diag): against torch's tril / triu, diag_embed and
diagonal (float64 autograd) and finite differences, memory planning on and off, square and
oblong matrices, batches.  TF's facts checked with real TF are in
tests/test_tf_array_names.py."""
import torch

import tinyflow as tf


def _band(lower, upper):
    def ref(x):
        rows, cols = x.shape[-2:]
        i = torch.arange(rows).view(-1, 1)
        j = torch.arange(cols).view(1, -1)
        keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
        return x * keep
    return ref


def _set_diag(x, d):
    out = x.clone()
    torch.diagonal(out, dim1=-2, dim2=-1).copy_(d)
    return out


def add_cases(add):
    """The band with each bound negative, zero and positive; diagonals of square, wide and
    tall matrices and batches of them."""
    for lower, upper in ((1, 1), (-1, 0), (0, -1), (2, 0), (0, 0), (-1, -1)):
        add("matrix_band_part", f"{lower},{upper}", lambda x, lo=lower, up=upper:
            tf.matrix_band_part(x, lo, up), [(2, 4, 5)], _band(lower, upper))
    add("matrix_band_part", "tall", lambda x: tf.matrix_band_part(x, 1, 2), [(5, 3)],
        _band(1, 2))
    for shape in ((4,), (2, 3)):
        add("matrix_diag", f"{shape}", tf.matrix_diag, [shape], torch.diag_embed)
    for shape in ((4, 4), (3, 5), (5, 3), (2, 3, 4)):
        add("matrix_diag_part", f"{shape}", tf.matrix_diag_part, [shape],
            lambda x: torch.diagonal(x, dim1=-2, dim2=-1))
    for shape, diagonal in (((4, 4), (4,)), ((3, 5), (3,)), ((2, 5, 3), (2, 3))):
        add("matrix_set_diag", f"{shape}", tf.matrix_set_diag, [shape, diagonal], _set_diag)


# tf.Assert's op runs Python (FPythonCompute), tested by running it
SPECIAL_TESTS = {"assert": ["test_tf_array_names.py::test_assert_raises_tf_error_with_its_data",
                            "test_tf_array_names.py::test_case_as_tf"]}
