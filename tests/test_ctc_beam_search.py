"""tf.nn.ctc_beam_search_decoder (op ctc_beam_search_decoder, computed in Python) against the
paths and log probabilities real TensorFlow printed (tf.compat.v1 of TF 2.21 in /work/tfvenv,
graph mode) on random logits (numpy's RandomState(seed).randn(T, B, C) * 2, float32, and
lengths RandomState's randint(T // 2, T + 1) after them), with memory planning on and off;
and TF's errors."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")

# (seed, T, B, C, beam_width, top_paths, merge_repeated) -> TF's (lengths, paths[path][example],
# dense_shape[path], log_probabilities) as TF printed them (the log probabilities rounded to 5)
TF_DECODED = {
    (0, 5, 2, 4, 3, 2, True): ([4, 5], [[[0], [0, 2, 1, 0]], [[0], [0, 2, 0]]], [[2, 4], [2, 3]], [[-0.69587, -1.69879], [-2.1816, -2.18652]]),
    (1, 8, 3, 5, 10, 3, True): ([4, 7, 5], [[[0, 2], [1, 3, 0, 3], [0, 3, 2, 3]], [[0, 1, 2], [1, 3, 0, 3, 2], [0, 3]], [[0, 3, 2], [1, 3, 2], [0, 3, 2]]], [[3, 4], [3, 5], [3, 3]], [[-1.61384, -1.61571, -1.98745], [-2.64102, -2.95649, -3.59954], [-2.45946, -2.55138, -2.62128]]),
    (2, 7, 2, 3, 4, 2, False): ([3, 7], [[[1, 0], [0, 1]], [[0], [0, 1, 0]]], [[2, 2], [2, 3]], [[-0.48468, -1.16336], [-1.31179, -1.36968]]),
    (3, 10, 2, 6, 100, 1, True): ([7, 10], [[[0, 1, 2, 3, 1], [4, 1, 0, 3, 1, 3, 2]]], [[2, 7]], [[-1.82462], [-3.2204]]),
    (4, 4, 3, 3, 2, 2, False): ([2, 2, 3], [[[1], [0], [1, 0]], [[0, 1], [0, 1], [0]]], [[3, 2], [3, 2]], [[-0.39981, -1.51638], [-0.69822, -0.92526], [-0.90723, -1.46102]]),
    (5, 12, 1, 5, 8, 4, True): ([9], [[[2, 0, 3, 2, 0, 2]], [[2, 0, 3, 2, 0, 3]], [[2, 0, 3, 2, 0]], [[2, 0, 3, 2, 0, 2, 3]]], [[1, 6], [1, 6], [1, 5], [1, 7]], [[-2.65488, -3.03345, -3.34104, -3.38468]]),
}


def _inputs(seed, time, batch, classes):
    rng = np.random.RandomState(seed)
    logits = (rng.randn(time, batch, classes) * 2).astype(np.float32)
    return logits, rng.randint(time // 2, time + 1, size=batch).astype(np.int32)


@pytest.mark.parametrize("case", list(TF_DECODED))
def test_paths_and_log_probabilities_as_tf(case, plan_memory):
    seed, time, batch, classes, beam_width, top_paths, merge_repeated = case
    lengths, paths, shapes, log_probs = TF_DECODED[case]
    logits, got_lengths = _inputs(seed, time, batch, classes)
    np.testing.assert_array_equal(got_lengths, lengths)
    x = tf.placeholder(tf.float32, [None, batch, classes])
    decoded, log_probabilities = tf.nn.ctc_beam_search_decoder(
        x, got_lengths, beam_width=beam_width, top_paths=top_paths,
        merge_repeated=merge_repeated)
    assert len(decoded) == top_paths and log_probabilities.dtype == tf.float32
    with tf.Session(plan_memory=plan_memory) as sess:
        got, got_log_probs = sess.run([decoded, log_probabilities], {x: logits})
    for path, sparse in enumerate(got):
        assert sparse.indices.dtype == sparse.values.dtype == sparse.dense_shape.dtype == np.int64
        np.testing.assert_array_equal(sparse.dense_shape, shapes[path])
        rows = [[int(v) for i, v in zip(sparse.indices, sparse.values) if i[0] == b]
                for b in range(batch)]
        assert rows == paths[path]
        # the indices are row-major, each row's from column 0 on (TF's)
        expected_indices = [[b, j] for b in range(batch) for j in range(len(paths[path][b]))]
        np.testing.assert_array_equal(sparse.indices.reshape(-1, 2), expected_indices)
    np.testing.assert_allclose(got_log_probs, log_probs, rtol=1e-5, atol=2e-5)


def test_errors_as_tf():
    logits = np.zeros((2, 2, 3), np.float32)
    # TF: "Attr 'beam_width' of 'CTCBeamSearchDecoder' Op passed 0 less than minimum 1."
    with pytest.raises(ValueError, match="beam_width.*less than minimum 1"):
        tf.nn.ctc_beam_search_decoder(logits, [1, 1], beam_width=0)
    with pytest.raises(ValueError, match="top_paths.*less than minimum 1"):
        tf.nn.ctc_beam_search_decoder(logits, [1, 1], top_paths=0)
    sess = tf.Session()
    too_many = tf.nn.ctc_beam_search_decoder(logits, [1, 1], beam_width=2, top_paths=3)[1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="more paths than the beam width"):
        sess.run(too_many)
    few_leaves = tf.nn.ctc_beam_search_decoder(logits, [0, 1], beam_width=20, top_paths=3)[1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Less leaves in the beam search"):
        sess.run(few_leaves)
    too_long = tf.nn.ctc_beam_search_decoder(logits, [1, 3], beam_width=2)[1]
    with pytest.raises(tf.errors.FailedPreconditionError, match=r"sequence_length\(1\) <= 2"):
        sess.run(too_long)
    fine = tf.nn.ctc_beam_search_decoder(logits, [2, 2], beam_width=2)[1]
    assert sess.run(fine).shape == (2, 1)  # the session still runs


def test_a_huge_beam_is_checked_against_the_host_memory(monkeypatch):
    from tinyflow.nnvm import host_memory
    logits = np.random.RandomState(0).randn(12, 1, 9).astype(np.float32)
    wide = tf.nn.ctc_beam_search_decoder(logits, [12], beam_width=2 ** 62)[1]
    sess = tf.Session()
    monkeypatch.setattr(host_memory, "host_available_bytes", lambda: (4 << 20, "a test's"))
    with pytest.raises(tf.errors.ResourceExhaustedError, match="beams of width"):
        sess.run(wide)
    narrow = tf.nn.ctc_beam_search_decoder(logits, [12], beam_width=4)[1]
    assert sess.run(narrow).shape == (1, 1)  # the session still runs
