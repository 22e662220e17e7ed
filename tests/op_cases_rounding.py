"""test_ops' table for floor, ceil and round: TF registers no gradient for them (tf.gradients
gives None), so every case is forward only, against torch (whose round also sends halves to the
even integer, as TF's banker's rounding)."""
import numpy as np
import torch

import tinyflow as tf

F64 = torch.float64
# halves of both parities and signs, integers, and values either side of them
HALVES = [[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], [-3.0, 0.0, 4.0, 0.49, -0.51, 7.25]]


def add_cases(add):
    """Two cases each for floor, ceil and round: random values and the halves above."""
    for op, api, ref in (("floor", tf.floor, torch.floor), ("ceil", tf.ceil, torch.ceil),
                         ("round", tf.round, torch.round)):
        add(op, "2d", api, [(3, 4)], ref, check_gradient=False,
            inputs=lambda rng: [rng.standard_normal((3, 4)) * 3])
        add(op, "halves", api, ref=ref, check_gradient=False,
            inputs=lambda rng: [np.array(HALVES)])
    add("round", "tf.math", tf.math.round, ref=lambda x: torch.tensor(
        [[-2.0, -2.0, -0.0, 0.0, 2.0, 2.0], [-3.0, 0.0, 4.0, 0.0, -1.0, 7.0]], dtype=F64),
        check_gradient=False, inputs=lambda rng: [np.array(HALVES)])
