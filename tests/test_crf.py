"""tf.contrib.crf (TF 1.15 semantics) against a brute-force numpy CRF that enumerates every tag
sequence of a tiny problem (3 tags, up to 4 steps, lengths 4..0): scores, log-norms,
log-likelihoods and their gradients (the enumerated marginals, and central finite differences
of the forward), crf_decode against the enumerated argmax and viterbi_decode; the padding
conventions of crf_decode against numbers from real TensorFlow (TF 1.15's crf.py run on
tf.compat.v1 of tensorflow 2.21, which has no tf.contrib); a small BiLSTM-CRF whose loss goes
down.  Memory planning on and off; steps known when the graph is built and only when it runs."""
import itertools

import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")
O = 3                       # tags
LENS = np.array([4, 3, 2, 1, 0], np.int32)
crf = tf.contrib.crf


def _problem(steps=4, lens=LENS, seed=0):
    rng = np.random.default_rng([seed, steps])
    x = rng.standard_normal((len(lens), steps, O)).astype(np.float32)
    tags = rng.integers(0, O, (len(lens), steps)).astype(np.int32)
    trans = rng.standard_normal((O, O)).astype(np.float32)
    return x, tags, np.asarray(lens, np.int32), trans


# -- the reference: every tag sequence of each example, enumerated ------------------------------
def _score(x, y, trans):
    """The score of tags ``y`` over the first len(y) steps of one example's ``x`` (float64)."""
    return (sum(float(x[t, y[t]]) for t in range(len(y)))
            + sum(float(trans[y[t - 1], y[t]]) for t in range(1, len(y))))


def _enumerated(x, n, trans):
    """Every sequence of length n, its score, and the log of the summed exp (0 when n == 0)."""
    paths = list(itertools.product(range(O), repeat=n))
    scores = np.array([_score(x, y, trans) for y in paths])
    if n == 0:
        return paths, scores, 0.0
    top = scores.max()
    return paths, scores, top + np.log(np.exp(scores - top).sum())


def brute_force(x, tags, lens, trans, weights):
    """Per example: sequence score, log-norm; and the gradients of ``sum(weights * ll)`` with
    respect to ``x`` and ``trans``: the gold tags' counts less their expectations."""
    scores, norms = [], []
    grad_x, grad_trans = np.zeros(x.shape), np.zeros(trans.shape)
    for b, n in enumerate(lens):
        paths, path_scores, norm = _enumerated(x[b], n, trans)
        scores.append(_score(x[b], tags[b, :n], trans))
        norms.append(norm)
        for y, s in zip(paths, path_scores):
            p = np.exp(s - norm) if n else 0.0
            for t in range(n):
                grad_x[b, t, y[t]] -= weights[b] * p
                grad_trans[y[t - 1], y[t]] -= weights[b] * p * (t > 0)
        for t in range(n):
            grad_x[b, t, tags[b, t]] += weights[b]
            grad_trans[tags[b, t - 1], tags[b, t]] += weights[b] * (t > 0)
    return np.array(scores), np.array(norms), grad_x, grad_trans


def best_path(x, n, trans):
    """The enumerated best sequence of length n >= 1 and its score."""
    paths, scores, _ = _enumerated(x, n, trans)
    return list(paths[int(np.argmax(scores))]), scores.max()


def _placeholders(steps, static):
    batch = len(LENS) if static else None
    return (tf.placeholder(tf.float32, [batch, steps if static else None, O], name="unary"),
            tf.placeholder(tf.int32, [batch, steps if static else None], name="gold"),
            tf.placeholder(tf.int32, [batch], name="lengths"))


# -- scores, log-norms, log-likelihoods ---------------------------------------------------------
@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize("plan_memory", [True, False])
def test_scores_and_log_norm_against_enumeration(static, plan_memory):
    x, tags, lens, trans = _problem()
    ref_score, ref_norm, _, _ = brute_force(x, tags, lens, trans, np.ones(len(lens)))
    unary, gold, lengths = _placeholders(4, static)
    transitions = tf.constant(trans)
    ll, given = crf.crf_log_likelihood(unary, gold, lengths, transitions)
    assert given is transitions
    fetches = [crf.crf_sequence_score(unary, gold, lengths, transitions),
               crf.crf_log_norm(unary, lengths, transitions), ll,
               crf.crf_unary_score(gold, lengths, unary) + crf.crf_binary_score(
                   gold, lengths, transitions)]
    with tf.Session(plan_memory=plan_memory) as sess:
        score, norm, likelihood, parts = sess.run(fetches, {unary: x, gold: tags,
                                                            lengths: lens})
    np.testing.assert_allclose(score, ref_score, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(parts, ref_score, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(norm, ref_norm, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(likelihood, ref_score - ref_norm, rtol=1e-5, atol=1e-5)
    assert norm[-1] == 0 and likelihood[-1] == 0  # length 0: TF 1.15 masks the log-norm


@pytest.mark.parametrize("static", [True, False])
def test_gradients_against_enumeration_and_finite_differences(static):
    x, tags, lens, trans = _problem(seed=1)
    weights = np.array([0.5, -1.0, 2.0, 1.5, 3.0])
    _, _, ref_grad_x, ref_grad_trans = brute_force(x, tags, lens, trans, weights)
    unary, gold, lengths = _placeholders(4, static)
    with tf.variable_scope("crf", initializer=tf.constant_initializer(trans)):
        ll, transitions = crf.crf_log_likelihood(unary, gold, lengths)
    objective = tf.reduce_sum(ll * weights.astype(np.float32))
    grads = tf.gradients(objective, [unary, transitions])
    feeds = {unary: x, gold: tags, lengths: lens}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        grad_x, grad_trans = sess.run(grads, feeds)
        np.testing.assert_allclose(grad_x, ref_grad_x, atol=1e-5)
        np.testing.assert_allclose(grad_trans, ref_grad_trans, atol=1e-5)

        def value(x_now, trans_now):
            transitions.load(trans_now, sess)
            return float(sess.run(objective, {**feeds, unary: x_now}))
        eps = 1e-2
        for array, grad, of_x in ((x, grad_x, True), (trans, grad_trans, False)):
            for index in np.ndindex(array.shape):
                up, down = array.copy(), array.copy()
                up[index] += eps
                down[index] -= eps
                pair = [(up, trans), (down, trans)] if of_x else [(x, up), (x, down)]
                slope = (value(*pair[0]) - value(*pair[1])) / (2 * eps)
                assert slope == pytest.approx(grad[index], abs=3e-3), (of_x, index)


def test_one_step_known_when_the_graph_is_built():
    """TF's shortcut at max_seq_len 1: the unary potentials alone, lengths 0 masked."""
    lens = np.array([1, 0, 1], np.int32)
    x, tags, lens, trans = _problem(steps=1, lens=lens)
    ref_score, ref_norm, ref_grad_x, _ = brute_force(x, tags, lens, trans, np.ones(3))
    unary = tf.placeholder(tf.float32, [None, 1, O])
    ll, transitions = crf.crf_log_likelihood(unary, tags, lens)
    decoded, best = crf.crf_decode(unary, transitions, lens)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([ll, crf.crf_log_norm(unary, lens, transitions), decoded, best,
                        tf.gradients(tf.reduce_sum(ll), unary)[0]], {unary: x})
    np.testing.assert_allclose(got[0], ref_score - ref_norm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], ref_norm, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[2], np.argmax(x, axis=2))
    assert got[2].dtype == np.int32 and got[2].shape == (3, 1)
    np.testing.assert_allclose(got[3], x.max(axis=(1, 2)))
    np.testing.assert_allclose(got[4], ref_grad_x, atol=1e-6)


# -- Viterbi ------------------------------------------------------------------------------------
@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize("plan_memory", [True, False])
def test_decode_against_enumeration_and_viterbi_decode(static, plan_memory):
    x, _, lens, trans = _problem(seed=2)
    unary, _, lengths = _placeholders(4, static)
    decoded, best = crf.crf_decode(unary, tf.constant(trans), lengths)
    with tf.Session(plan_memory=plan_memory) as sess:
        tags, scores = sess.run([decoded, best], {unary: x, lengths: lens})
    assert tags.dtype == np.int32 and tags.shape == (5, 4)
    for b, n in enumerate(lens[:-1]):
        ref_tags, ref_score = best_path(x[b], n, trans)
        assert tags[b, :n].tolist() == ref_tags
        assert not tags[b, n:].any()  # past the length: zeros
        assert scores[b] == pytest.approx(ref_score, abs=1e-5)
        viterbi, viterbi_score = crf.viterbi_decode(x[b, :n], trans)
        assert [int(t) for t in viterbi] == ref_tags
        assert viterbi_score == pytest.approx(ref_score, abs=1e-5)


@pytest.mark.parametrize("steps", [4, None])
def test_decode_padding_and_length_zero_as_tensorflow(steps):
    """Numbers from TF 1.15's crf_decode (run on tf.compat.v1): a length-0 example gets the
    best tag of its first step and its potential, the steps past each length zeros."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 4, O)).astype(np.float32)
    rng.integers(0, O, (4, 4))  # the tags TF's run drew next
    trans = rng.standard_normal((O, O)).astype(np.float32)
    unary = tf.placeholder(tf.float32, [None, steps, O])
    decoded, best = crf.crf_decode(unary, trans, tf.constant([4, 2, 1, 0]))
    with tf.Session() as sess:
        tags, scores = sess.run([decoded, best], {unary: x})
    np.testing.assert_array_equal(tags, [[2, 2, 0, 1], [2, 0, 0, 0], [0, 0, 0, 0],
                                         [2, 0, 0, 0]])
    np.testing.assert_allclose(scores, [4.4471235, -0.2388105, 0.9034702, 0.7839755],
                               rtol=1e-6)


def test_steps_known_only_when_the_graph_runs_one_step_too():
    """A [None, None, tags] placeholder fed one step: TF's one-step results."""
    lens = np.array([1, 0, 1], np.int32)
    x, tags, lens, trans = _problem(steps=1, lens=lens, seed=3)
    unary, gold = tf.placeholder(tf.float32, [None, None, O]), tf.placeholder(tf.int32,
                                                                               [None, None])
    ll, _ = crf.crf_log_likelihood(unary, gold, lens, trans)
    decoded, best = crf.crf_decode(unary, trans, lens)
    with tf.Session() as sess:
        got = sess.run([ll, decoded, best], {unary: x, gold: tags})
    ref_score, ref_norm, _, _ = brute_force(x, tags, lens, trans, np.ones(3))
    np.testing.assert_allclose(got[0], ref_score - ref_norm, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[1], np.argmax(x, axis=2))
    np.testing.assert_allclose(got[2], x.max(axis=(1, 2)))


def test_viterbi_decode_types_as_tensorflow():
    x, _, _, trans = _problem(seed=4)
    tags, score = crf.viterbi_decode(x[0], trans)
    assert isinstance(tags, list) and len(tags) == 4
    assert isinstance(score, np.float32)  # the trellis' dtype, as TF's np.max
    ref_tags, ref_score = best_path(x[0], 4, trans)
    assert tags == ref_tags and score == pytest.approx(ref_score, abs=1e-5)
    assert crf.viterbi_decode(x[0, :1], trans)[0] == [int(np.argmax(x[0, 0]))]


# -- the rest of the module ---------------------------------------------------------------------
@pytest.mark.parametrize("steps", [4, None, 1])
def test_multitag_sequence_score_against_enumeration(steps):
    lens = LENS if steps != 1 else np.array([1, 0, 1, 1, 0], np.int32)
    x, tags, lens, trans = _problem(steps=steps or 4, lens=lens, seed=5)
    bitmap = np.random.default_rng(6).random(x.shape) < 0.6
    bitmap[np.arange(5)[:, None], np.arange(x.shape[1])[None], tags] = True
    unary = tf.placeholder(tf.float32, [None, steps, O])
    allowed = tf.placeholder(tf.bool, [None, steps, O])
    multi = crf.crf_multitag_sequence_score(unary, allowed, lens, trans)
    one_hot = crf.crf_multitag_sequence_score(unary, tf.one_hot(tags, O, on_value=True,
                                                                off_value=False), lens, trans)
    with tf.Session() as sess:
        got, got_one_hot = sess.run([multi, one_hot], {unary: x, allowed: bitmap})
    ref_score, _, _, _ = brute_force(x, tags, lens, trans, np.ones(5))
    for b, n in enumerate(lens):
        if x.shape[1] == 1:  # TF's one-step branch: every allowed tag, lengths ignored
            expected = np.log(np.exp(x[b, 0][bitmap[b, 0]].astype(np.float64)).sum())
            assert got[b] == pytest.approx(expected, abs=1e-5)
            continue
        paths, scores, _ = _enumerated(x[b], n, trans)
        keep = [all(bitmap[b, t, y[t]] for t in range(n)) for y in paths]
        expected = np.log(np.exp(scores[keep]).sum()) if n else 0.0
        assert got[b] == pytest.approx(expected, abs=1e-5)
        assert got_one_hot[b] == pytest.approx(ref_score[b], abs=1e-5)


def test_transitions_variable_as_tensorflow_makes_it():
    unary = tf.placeholder(tf.float32, [None, None, O])
    with tf.variable_scope("tagger"):
        _, transitions = crf.crf_log_likelihood(unary, tf.zeros([2, 3], tf.int32), [3, 1])
    assert transitions.name == "tagger/transitions:0"
    assert transitions.get_shape().as_list() == [O, O]
    assert transitions in tf.trainable_variables()
    with tf.variable_scope("tagger", reuse=True):
        assert tf.get_variable("transitions") is transitions
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(transitions)
    assert np.abs(values).max() <= 1.0  # glorot uniform: sqrt(6 / (3 + 3))
    assert len(np.unique(values)) == O * O
    with pytest.raises(ValueError, match="number of tags.*'unknown_tags"):
        crf.crf_log_likelihood(tf.placeholder(tf.float32, [None, None, None],
                                              name="unknown_tags"), [[0]], [1])


def test_int64_tags_and_lengths():
    x, tags, lens, trans = _problem(seed=7)
    ll, _ = crf.crf_log_likelihood(x, tags.astype(np.int64), lens.astype(np.int64), trans)
    decoded, _ = crf.crf_decode(x, trans, lens.astype(np.int64))
    with tf.Session() as sess:
        got, got_tags = sess.run([ll, decoded])
    ref_score, ref_norm, _, _ = brute_force(x, tags, lens, trans, np.ones(5))
    np.testing.assert_allclose(got, ref_score - ref_norm, rtol=1e-5, atol=1e-5)
    assert got_tags[0].tolist() == best_path(x[0], 4, trans)[0]


def test_cells_one_step_against_numpy():
    rng = np.random.default_rng(8)
    inputs, state = rng.standard_normal((2, O)), rng.standard_normal((2, O))
    trans = rng.standard_normal((O, O))
    forward = crf.CrfForwardRnnCell(tf.constant(trans))
    decode = crf.CrfDecodeForwardRnnCell(tf.constant(trans))
    backward = crf.CrfDecodeBackwardRnnCell(O)
    assert (forward.state_size, forward.output_size, backward.state_size) == (O, O, 1)
    alphas, same = forward(tf.constant(inputs), tf.constant(state))
    pointers, scores = decode(tf.constant(inputs), tf.constant(state))
    tags, _ = backward(tf.constant([[2, 0, 1], [1, 1, 0]]), tf.constant([[0], [2]]))
    with tf.Session() as sess:
        got = sess.run([alphas, same, pointers, scores, tags])
    candidates = state[:, :, None] + trans[None]  # [batch, previous tag, tag]
    np.testing.assert_allclose(got[0], inputs + np.log(np.exp(candidates).sum(1)), rtol=1e-6)
    np.testing.assert_allclose(got[1], got[0])
    np.testing.assert_array_equal(got[2], candidates.argmax(1))
    assert got[2].dtype == np.int32
    np.testing.assert_allclose(got[3], inputs + candidates.max(1), rtol=1e-6)
    np.testing.assert_array_equal(got[4], [[2], [0]])


def test_dynamic_rnn_outputs_of_the_dtype_given():
    """TF's _infer_state_dtype, which crf_decode relies on: int32 backpointers from a float
    state with dtype=tf.int32, zeros past each length, the final state at each length."""
    x, _, lens, trans = _problem(seed=10)
    pointers, last = tf.nn.dynamic_rnn(
        crf.CrfDecodeForwardRnnCell(tf.constant(trans)), tf.constant(x[:, 1:]),
        sequence_length=np.maximum(lens - 1, 0), initial_state=tf.constant(x[:, 0]),
        dtype=tf.int32)
    assert pointers.dtype == tf.int32 and last.dtype == tf.float32
    with tf.Session() as sess:
        got_pointers, got_last = sess.run([pointers, last])
    for b, n in enumerate(lens):
        scores = x[b, 0].astype(np.float64)
        for t in range(1, 4):
            candidates = scores[:, None] + trans
            expected = candidates.argmax(0) if t < n else np.zeros(O)
            np.testing.assert_array_equal(got_pointers[b, t - 1], expected)
            scores = x[b, t] + candidates.max(0) if t < n else scores
        np.testing.assert_allclose(got_last[b], scores, rtol=1e-5)


def test_module_has_tensorflow_names_only():
    assert dir(crf) == sorted([  # TF 1.15's tensorflow/contrib/crf/__init__.py
        "crf_binary_score", "crf_decode", "crf_log_likelihood", "crf_log_norm",
        "crf_multitag_sequence_score", "crf_sequence_score", "crf_unary_score",
        "CrfDecodeBackwardRnnCell", "CrfDecodeForwardRnnCell", "CrfForwardRnnCell",
        "viterbi_decode"])
    from tinyflow.contrib import crf as imported
    assert imported is crf
    with pytest.raises(AttributeError, match="tf.contrib.crf.crf_forward is not supported"):
        crf.crf_forward  # noqa: B018


# -- a BiLSTM-CRF tagger ------------------------------------------------------------------------
def test_bilstm_crf_trains():
    """Embeddings, a bidirectional LSTM over padded sentences, a dense layer to the tags' unary
    scores and the CRF's negative log-likelihood: Adam lowers it and the decoded tags
    approach the gold ones (tag = word % 3, shifted by one after word 0)."""
    rng = np.random.default_rng(9)
    words = rng.integers(0, 8, (6, 5)).astype(np.int32)
    lens = np.array([5, 4, 3, 5, 2, 1], np.int32)
    gold = (words % O + np.roll(words == 0, 1, axis=1)) % O
    mask = np.arange(5)[None] < lens[:, None]
    tf.set_random_seed(0)
    ids, lengths = tf.placeholder(tf.int32, [None, None]), tf.placeholder(tf.int32, [None])
    tags = tf.placeholder(tf.int32, [None, None])
    embedded = tf.nn.embedding_lookup(tf.get_variable("embedding", [8, 6]), ids)
    (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.LSTMCell(8), tf.nn.rnn_cell.LSTMCell(8), embedded,
        sequence_length=lengths, dtype=tf.float32)
    # the classic tagger's projection: steps flattened into the batch, then put back
    projected = tf.layers.dense(tf.reshape(tf.concat([fw, bw], 2), [-1, 16]), O)
    unary = tf.reshape(projected, [-1, tf.shape(ids)[1], O])
    ll, transitions = crf.crf_log_likelihood(unary, tags, lengths)
    loss = tf.reduce_mean(-ll)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    decoded, _ = crf.crf_decode(unary, transitions, lengths)
    feeds = {ids: words, lengths: lens, tags: gold}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first, first_tags = sess.run([loss, decoded], feeds)
        for _ in range(30):
            sess.run(train, feeds)
        last, last_tags = sess.run([loss, decoded], feeds)
    assert last < 0.3 * first
    assert (last_tags == gold)[mask].mean() > max(0.9, (first_tags == gold)[mask].mean())
    assert not last_tags[~mask].any()
