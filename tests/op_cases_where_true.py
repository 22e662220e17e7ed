"""test_ops' table for where_true (tf.where with one argument): the coordinates of the nonzero
elements against torch.nonzero, forward only (an int output has no gradient).  Its shape is
known once it ran (TShapeAtRunTime); tests/test_runtime_shapes.py runs the ops reading it."""
import numpy as np
import torch

import tinyflow as tf

F64 = torch.float64


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
