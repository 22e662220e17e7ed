"""test_ops' table for ctc_loss: its values and its gradient (the one it keeps from the forward,
TF's way) against torch's CTC on float64 logits with the softmax taken inside, and finite
differences; memory planning on and off.  TF's numbers, the infinite and ignored examples
and the errors: tests/test_ctc.py.  The beam search decoder, computed in Python, against TF's
recorded paths: tests/test_ctc_beam_search.py."""
import torch

import tinyflow as tf

# two examples over 6 steps of 5 classes (4 the blank): labels [1, 2] and [3, 0, 3]
_INDICES = [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]]
_VALUES = [1, 2, 3, 0, 3]
_TARGETS = torch.tensor([[1, 2, 0], [3, 0, 3]])


def _loss(logits):
    labels = tf.SparseTensor(_INDICES, tf.constant(_VALUES, tf.int32), [2, 3])
    return tf.nn.ctc_loss(labels, logits, [6, 5])


def _reference(logits):
    return torch.nn.functional.ctc_loss(torch.log_softmax(logits, -1), _TARGETS,
                                        torch.tensor([6, 5]), torch.tensor([2, 3]), blank=4,
                                        reduction="none")


SPECIAL_TESTS = {"ctc_beam_search_decoder": [
    "test_ctc_beam_search.py::test_paths_and_log_probabilities_as_tf",
    "test_ctc_beam_search.py::test_errors_as_tf"]}


def add_cases(add):
    add("ctc_loss", "time-major", _loss, [(6, 2, 5)], _reference)
