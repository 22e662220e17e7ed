"""test_ops' table for the ops whose output's shape is known once they ran (TShapeAtRunTime):
where_true (tf.where with one argument), the coordinates of the nonzero elements against
torch.nonzero, forward only (an int output has no gradient); a dynamic_size TensorArray's
ops, which a loop's body runs, each with tests of its own (tests/test_runtime_shapes.py, which
also runs the ops reading their outputs)."""
import numpy as np
import torch

import tinyflow as tf

F64 = torch.float64
_RT = "test_runtime_shapes.py::"
SPECIAL_TESTS = {
    op: [_RT + "test_a_dynamic_array_grows_at_indices_the_loop_finds",
         _RT + "test_gradient_through_a_growing_array",
         _RT + "test_gradient_through_a_growing_array_against_finite_differences"]
    for op in ("tensor_array_grow", "tensor_array_rows", "_tensor_array_grow_backward",
               "_tensor_array_rows_backward")}


def _nonzero(x):
    return torch.nonzero(x).to(F64)


def add_cases(add):
    """Zeros among random values in 1 to 3 axes, all zeros (no rows) and none."""
    for shape in ((7,), (3, 4), (2, 3, 4)):
        add("where_true", f"{shape}", tf.where, ref=_nonzero, check_gradient=False,
            inputs=lambda rng, s=shape: [rng.standard_normal(s) * (rng.random(s) < 0.5)])
    add("where_true", "all-zero", tf.where, ref=_nonzero, check_gradient=False,
        inputs=lambda rng: [np.zeros((2, 3))])
    add("where_true", "no-zero", tf.where, ref=_nonzero, check_gradient=False,
        inputs=lambda rng: [np.ones((2, 3))])
