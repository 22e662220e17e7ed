"""tf.contrib.seq2seq's attention and beam search (TF 1.15 semantics).  TensorFlow 2.x has no
tf.contrib.seq2seq to take numbers from, so the references are TF r1.15's formulas
(attention_wrapper.py, beam_search_decoder.py, beam_search_ops.cc) written again here in
PyTorch / numpy: LuongAttention and BahdanauAttention (scale, normalize, memory masking),
AttentionWrapper's step over dynamic_rnn (values and gradients by torch autograd) and under a
BasicDecoder (alignment_history), gather_tree, and BeamSearchDecoder against a numpy beam
search of the same steps and against brute force over every sequence of a tiny vocabulary;
variable names and shapes as in TF's source."""
import itertools

import numpy as np
import pytest
import torch

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed")
F64 = torch.float64
B, T, D, U, X = 3, 5, 4, 6, 2  # batch, memory time, memory depth, units, input depth
MEM_LEN = np.array([5, 3, 1], np.int32)


def _rand(*shape, seed=0):
    return np.random.default_rng([seed, *shape]).standard_normal(shape).astype(np.float32)


def _values(sess):
    return {v.name.split(":")[0]: sess.run(v) for v in tf.global_variables()}


def _t(array):
    return torch.tensor(np.asarray(array), dtype=F64, requires_grad=True)


# -- the references: TF r1.15's formulas ---------------------------------------------------
def ref_score(kind, query, keys, w, scope, normalize_or_scale):
    """TF's _luong_score / _bahdanau_score; ``w`` maps variable names (below ``scope``)."""
    if kind == "luong":
        score = torch.einsum("bd,btd->bt", query, keys)
        return score * w[scope + "luong_attention/attention_g"] if normalize_or_scale else score
    processed = (query @ w[scope + "bahdanau_attention/query_layer/kernel"])[:, None, :]
    v = w[scope + "bahdanau_attention/attention_v"]
    if not normalize_or_scale:
        return (v * torch.tanh(keys + processed)).sum(2)
    g, b = (w[scope + "bahdanau_attention/attention_g"],
            w[scope + "bahdanau_attention/attention_b"])
    return (g * v / torch.sqrt((v * v).sum()) * torch.tanh(keys + processed + b)).sum(2)


def ref_alignments(kind, query, memory, lengths, w, scope, flag, mechanism_scope=""):
    """(alignments, masked memory): TF's _prepare_memory, memory_layer, score, mask, softmax."""
    mask = torch.arange(memory.shape[1])[None, :] < torch.as_tensor(lengths)[:, None]
    values = memory * mask[:, :, None].to(memory.dtype)
    keys = values @ w[mechanism_scope + "memory_layer/kernel"]
    score = ref_score(kind, query, keys, w, scope, flag)
    score = torch.where(mask, score, torch.full_like(score, float("-inf")))
    return torch.softmax(score, 1), values


def ref_wrapper(kind, inputs, memory, lengths, w, flag, scope="rnn/attention_wrapper/"):
    """AttentionWrapper(BasicRNNCell(U), mechanism, attention_layer_size=U) over ``inputs``
    [batch, time, X]: (outputs, alignments per step)."""
    h = torch.zeros(inputs.shape[0], U, dtype=F64)
    attention = torch.zeros(inputs.shape[0], U, dtype=F64)
    outputs, alignments = [], []
    for step in range(inputs.shape[1]):
        cell_in = torch.cat([inputs[:, step], attention], 1)
        h = torch.tanh(torch.cat([cell_in, h], 1) @ w[scope + "basic_rnn_cell/kernel"] +
                       w[scope + "basic_rnn_cell/bias"])
        align, values = ref_alignments(kind, h, memory, lengths, w, scope, flag)
        context = torch.einsum("bt,btd->bd", align, values)
        attention = torch.cat([h, context], 1) @ w[scope + "attention_layer/kernel"]
        outputs.append(attention)
        alignments.append(align)
    return torch.stack(outputs, 1), torch.stack(alignments, 1)


def _mechanism(kind, memory, flag, lengths=MEM_LEN, **kwargs):
    seq2seq = tf.contrib.seq2seq
    if kind == "luong":
        return seq2seq.LuongAttention(U, memory, memory_sequence_length=lengths, scale=flag,
                                      **kwargs)
    return seq2seq.BahdanauAttention(U, memory, memory_sequence_length=lengths, normalize=flag,
                                     **kwargs)


# -- attention mechanisms and the wrapper ----------------------------------------------------
@pytest.mark.parametrize("kind,flag", [("luong", False), ("luong", True), ("bahdanau", False),
                                       ("bahdanau", True)])
def test_wrapper_over_dynamic_rnn_values_gradients_and_variables(kind, flag, plan_memory,
                                                                 config):
    """AttentionWrapper over dynamic_rnn: outputs, final alignments and the gradients of a loss
    with respect to the memory, the inputs and every variable, against torch autograd; the
    variables are TF's (memory_layer outside the wrapper, the rest in its scope)."""
    memory, inputs = tf.constant(_rand(B, T, D, seed=1)), tf.constant(_rand(B, 3, X, seed=2))
    mechanism = _mechanism(kind, memory, flag)
    cell = tf.contrib.seq2seq.AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(U), mechanism,
                                               attention_layer_size=U)
    outputs, state = tf.nn.dynamic_rnn(cell, inputs, initial_state=cell.zero_state(
        B, tf.float32))
    loss = tf.reduce_sum(outputs * tf.constant(_rand(B, 3, U, seed=3)))
    variables = tf.global_variables()
    names = {v.name: v.get_shape().as_list() for v in variables}
    expected = {"memory_layer/kernel:0": [D, U],
                "rnn/attention_wrapper/basic_rnn_cell/kernel:0": [X + U + U, U],
                "rnn/attention_wrapper/basic_rnn_cell/bias:0": [U],
                "rnn/attention_wrapper/attention_layer/kernel:0": [U + D, U]}
    inner = "rnn/attention_wrapper/" + kind + "_attention/"
    if kind == "luong" and flag:
        expected[inner + "attention_g:0"] = []
    if kind == "bahdanau":
        expected.update({inner + "query_layer/kernel:0": [U, U], inner + "attention_v:0": [U]})
        if flag:
            expected.update({inner + "attention_g:0": [], inner + "attention_b:0": [U]})
    assert names == expected
    grads = tf.gradients(loss, [memory, inputs] + variables)
    with tf.Session(config=config, plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        if kind == "bahdanau" and flag:  # away from its initial zeros, so that it counts
            bias = next(v for v in variables if v.name.endswith("attention_b:0"))
            sess.run(tf.assign(bias, _rand(U, seed=4)))
        got_out, got_align, *got_grads = sess.run([outputs, state.alignments] + grads)
        w = {name: _t(value) for name, value in _values(sess).items()}
    mem, inp = _t(memory_value := _rand(B, T, D, seed=1)), _t(_rand(B, 3, X, seed=2))
    want_out, want_align = ref_wrapper(kind, inp, mem, MEM_LEN, w, flag)
    (want_out * torch.tensor(_rand(B, 3, U, seed=3), dtype=F64)).sum().backward()
    np.testing.assert_allclose(got_out, want_out.detach(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_align, want_align[:, -1].detach(), rtol=1e-4, atol=1e-6)
    assert (got_align[1, 3:] == 0).all() and (got_align[2, 1:] == 0).all()  # masked memory
    want_grads = [mem.grad, inp.grad] + [w[v.name.split(":")[0]].grad for v in variables]
    for got, want in zip(got_grads, want_grads):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)
    assert memory_value.shape == (B, T, D)


def test_mechanism_alone_probability_fn_and_hardmax():
    """A mechanism called on a query: TF's alignments; probability_fn=hardmax gives the one-hot
    of the best unmasked score; score_mask_value replaces -inf before it; hardmax alone."""
    memory, query = _rand(B, T, D, seed=5), _rand(B, U, seed=6)
    with tf.variable_scope("attn"):
        mechanism = _mechanism("luong", tf.constant(memory), False,
                               probability_fn=tf.contrib.seq2seq.hardmax)
        hard, state = mechanism(tf.constant(query), state=None)
        soft_mechanism = _mechanism("luong", tf.constant(memory), False,
                                    score_mask_value=-1.0)
        masked, _ = soft_mechanism(tf.constant(query), state=None)
    logits = _rand(2, 3, 4, seed=7)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_hard, got_state, got_masked, got_hardmax = sess.run(
            [hard, state, masked, tf.contrib.seq2seq.hardmax(tf.constant(logits))])
        values = _values(sess)
    assert sorted(values) == ["attn/memory_layer/kernel", "attn/memory_layer_1/kernel"]
    inside = np.arange(T) < MEM_LEN[:, None]
    keys = (memory * inside[:, :, None]).astype(np.float64)
    score = np.einsum("bd,btd->bt", query, keys @ values["attn/memory_layer/kernel"])
    np.testing.assert_array_equal(got_hard, np.eye(T)[np.where(inside, score, -np.inf)
                                                      .argmax(1)])
    np.testing.assert_array_equal(got_state, got_hard)
    score2 = np.einsum("bd,btd->bt", query, keys @ values["attn/memory_layer_1/kernel"])
    score2 = np.where(inside, score2, -1.0)
    want = np.exp(score2 - score2.max(1, keepdims=True))
    np.testing.assert_allclose(got_masked, want / want.sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(got_hardmax, np.eye(4)[logits.argmax(-1)])


def test_alignment_history_clone_and_options_under_basic_decoder(plan_memory):
    """Under a BasicDecoder: zero_state(...).clone(cell_state=...), alignment_history (one
    [batch, memory time] row per step), output_attention=False (the cell's output) and a
    cell_input_fn, against the same steps in torch."""
    seq2seq = tf.contrib.seq2seq
    memory, start = _rand(B, T, D, seed=8), _rand(B, U, seed=9)
    inputs = _rand(B, 4, X, seed=10)
    mechanism = _mechanism("bahdanau", tf.constant(memory), False)
    cell = seq2seq.AttentionWrapper(
        tf.nn.rnn_cell.BasicRNNCell(U), mechanism, attention_layer_size=U,
        alignment_history=True, output_attention=False,
        cell_input_fn=lambda x, attention: tf.concat([attention, x * 2.0], -1))
    initial = cell.zero_state(B, tf.float32).clone(cell_state=tf.constant(start))
    assert isinstance(initial, seq2seq.AttentionWrapperState)
    assert cell.state_size.attention == U and cell.output_size == U
    helper = seq2seq.TrainingHelper(tf.constant(inputs), tf.constant([4, 4, 4]))
    outputs, state, _ = seq2seq.dynamic_decode(seq2seq.BasicDecoder(cell, helper,
                                                                          initial))
    with pytest.raises(ValueError, match="clone"):
        initial.clone(attention=tf.zeros([B, U + 1]))
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        got_out, got_history, got_time = sess.run([outputs.rnn_output,
                                                   state.alignment_history.stack(),
                                                   state.time])
        w = {name: torch.tensor(v, dtype=F64) for name, v in _values(sess).items()}
    scope = "decoder/attention_wrapper/"
    h, attention = torch.tensor(start, dtype=F64), torch.zeros(B, U, dtype=F64)
    mem = torch.tensor(memory, dtype=F64)
    for step in range(4):
        cell_in = torch.cat([attention, torch.tensor(inputs[:, step], dtype=F64) * 2.0], 1)
        h = torch.tanh(torch.cat([cell_in, h], 1) @ w[scope + "basic_rnn_cell/kernel"] +
                       w[scope + "basic_rnn_cell/bias"])
        align, values = ref_alignments("bahdanau", h, mem, MEM_LEN, w, scope, False)
        attention = torch.cat([h, torch.einsum("bt,btd->bd", align, values)], 1) @ \
            w[scope + "attention_layer/kernel"]
        np.testing.assert_allclose(got_out[:, step], h, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got_history[step], align, rtol=1e-4, atol=1e-6)
    assert got_time == 4


def test_namespace_lists_tf_names_only_and_errors():
    """dir(tf.contrib.seq2seq) holds TF 1.15's names only (none of the module's imports); TF's
    errors for a wrong mechanism, mismatched layer sizes, a Luong query of the wrong depth."""
    seq2seq = tf.contrib.seq2seq
    names = [n for n in dir(seq2seq) if not n.startswith("_")]
    assert {"AttentionWrapper", "BeamSearchDecoder", "tile_batch", "gather_tree", "hardmax",
            "LuongAttention", "BahdanauAttention", "dynamic_decode"} <= set(names)
    assert not {"annotations", "cast", "Symbol", "collections"} & set(names)
    assert set(names) == set(seq2seq.__all__)
    assert not {n for n in dir(tf.contrib) if not n.startswith("_")} - set(tf.contrib.__all__)
    with pytest.raises(AttributeError, match="InferenceHelper is not supported"):
        seq2seq.InferenceHelper  # noqa: B018
    memory = tf.zeros([2, 3, 4])
    cell = tf.nn.rnn_cell.BasicRNNCell(U)
    with pytest.raises(TypeError, match="attention_mechanism must be an AttentionMechanism"):
        seq2seq.AttentionWrapper(cell, memory)
    mechanism = seq2seq.LuongAttention(U, memory)
    with pytest.raises(ValueError, match="exactly one integer per attention_mechanism"):
        seq2seq.AttentionWrapper(cell, mechanism, attention_layer_size=[3, 4])
    with pytest.raises(ValueError, match="Only one of attention_layer_size and attention_layer"):
        seq2seq.AttentionWrapper(cell, mechanism, attention_layer_size=3,
                                 attention_layer=tf.layers.Dense(3))
    with pytest.raises(ValueError, match="Incompatible or unknown inner dimensions"):
        seq2seq.LuongAttention(7, memory)(tf.zeros([2, 5]), state=None)
    with pytest.raises(ValueError, match="memory_sequence_length and memory tensor batch"):
        seq2seq.BahdanauAttention(3, memory, memory_sequence_length=[1, 2, 3])
    with pytest.raises(ValueError, match="beam_width must be a positive int"):
        seq2seq.BeamSearchDecoder(cell, tf.zeros([4, 2]), [1], 2, tf.zeros([1, U]), 0)
    with pytest.raises(ValueError, match="coverage_penalty_weight is not supported"):
        seq2seq.BeamSearchDecoder(cell, tf.zeros([4, 2]), [1], 2, tf.zeros([1, U]), 1,
                                  coverage_penalty_weight=0.5)
    with pytest.raises(ValueError, match="start_tokens must be a vector"):
        seq2seq.BeamSearchDecoder(cell, tf.zeros([4, 2]), 1, 2, tf.zeros([1, U]), 1)
    with pytest.raises(ValueError, match="gather_tree: step_ids of shape"):
        seq2seq.gather_tree(tf.zeros([2, 1, 3], tf.int32), tf.zeros([2, 1, 4], tf.int32), [2], 0)
    with pytest.raises(TypeError, match="Expected state to be instance of AttentionWrapper"):
        seq2seq.AttentionWrapper(cell, mechanism)(tf.zeros([2, 1]), tf.zeros([2, U]))


# -- beam search ---------------------------------------------------------------------------
def np_gather_tree(step_ids, parent_ids, max_lengths, end_token):
    """TF's GatherTree kernel (beam_search_ops.cc), loop for loop."""
    max_time, batch, beams = step_ids.shape
    out = np.full_like(step_ids, end_token)
    for b in range(batch):
        for k in range(beams):
            length = min(max_time, max_lengths[b])
            if length <= 0:
                continue
            out[length - 1, b, k] = step_ids[length - 1, b, k]
            parent = parent_ids[length - 1, b, k]
            for level in range(length - 2, -1, -1):
                if parent < 0 or parent >= beams:
                    out[level, b, k], parent = -1, -1
                    continue
                out[level, b, k] = step_ids[level, b, parent]
                parent = parent_ids[level, b, parent]
            ended = False
            for time in range(length):
                if ended:
                    out[time, b, k] = end_token
                elif out[time, b, k] == end_token:
                    ended = True
    return out


def test_gather_tree_against_the_kernel():
    """gather_tree against TF's kernel rewritten in numpy: parents followed back, steps past
    each example's length and after a beam's first end token are end_token, a parent outside
    [0, beam) gives -1 from there back, a length past max_time is cut to it."""
    rng = np.random.default_rng(11)
    steps = rng.integers(0, 5, (6, 3, 4)).astype(np.int32)
    parents = rng.integers(0, 4, (6, 3, 4)).astype(np.int32)
    parents[3, 1, 2] = 7  # out of range
    parents[2, 2, 0] = -3
    lengths = np.array([4, 9, 6], np.int32)
    feeds = [tf.placeholder(tf.int32, [None, 3, 4]) for _ in range(2)]
    got = tf.Session().run(tf.contrib.seq2seq.gather_tree(feeds[0], feeds[1], lengths, 2),
                           {feeds[0]: steps, feeds[1]: parents})
    want = np_gather_tree(steps, parents, lengths, 2)
    np.testing.assert_array_equal(got, want)
    assert (want == -1).any() and (want == 2).any()


VOCAB, EMB, BEAMS, START, END_ID = 5, 3, 3, 1, 2


def np_log_softmax(logits):
    shifted = logits - logits.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def np_beam_search(step, state, batch, beams, vocab, end, iterations, weight):
    """TF 1.15's BeamSearchDecoder under dynamic_decode, in numpy: ``step(ids [batch, beam],
    state) -> (logits [batch, beam, vocab], state)``, states [batch, beam, ...]."""
    lowest = np.finfo(np.float32).min
    log_probs = np.where(np.arange(beams) == 0, 0.0, -np.inf) * np.ones((batch, 1))
    finished = (np.arange(beams) > 0) & np.ones((batch, 1), bool)
    lengths, decoded = np.zeros((batch, beams), np.int64), np.zeros((batch, beams), np.int32)
    ids, outputs = np.full((batch, beams), START), []
    rows = np.arange(batch)[:, None]
    for time in range(iterations):
        if finished.all():
            break
        logits, new_state = step(ids, state)
        step_lp = np_log_softmax(logits.astype(np.float64))
        step_lp = np.where(finished[..., None], np.where(np.arange(vocab) == end, 0.0, lowest),
                           step_lp)
        total = log_probs[..., None] + step_lp
        grown = lengths[..., None] + (np.arange(vocab) != end) * ~finished[..., None]
        scores = total / ((5.0 + grown) / 6.0) ** weight if weight else total
        flat = scores.reshape(batch, -1)
        index = np.argsort(-flat, axis=1, kind="stable")[:, :beams]
        word, parent = index % vocab, index // vocab
        was = finished[rows, parent]
        decoded = np.where(~finished, time + 1, decoded)
        outputs.append((flat[rows, index], word, parent))
        log_probs = total.reshape(batch, -1)[rows, index]
        lengths = lengths[rows, parent] + ~was
        finished = was | (word == end)
        state = [s[rows, parent] for s in new_state]
        ids = word
    scores, words, parents = (np.stack(o) for o in zip(*outputs))
    return scores, words, parents, lengths, decoded


def _rnn_decoder_weights(sess, scope):
    values = _values(sess)
    return (values["embedding"], values[scope + "basic_rnn_cell/kernel"],
            values[scope + "basic_rnn_cell/bias"], values["decoder/projection/kernel"],
            values["decoder/projection/bias"])


def _np_rnn_step(weights):
    embedding, kernel, bias, projection, projection_bias = (w.astype(np.float64)
                                                            for w in weights)

    def step(ids, state):
        h = np.tanh(np.concatenate([embedding[ids], state[0]], -1) @ kernel + bias)
        return h @ projection + projection_bias, [h]
    return step


def _beam_program(batch, beams, weight, iterations, start_state, cell=None, tokens=None):
    seq2seq = tf.contrib.seq2seq
    embedding = tf.get_variable("embedding", [VOCAB, EMB])
    cell = cell or tf.nn.rnn_cell.BasicRNNCell(U)
    decoder = seq2seq.BeamSearchDecoder(
        cell, embedding, tf.fill([batch], START) if tokens is None else tokens, END_ID,
        start_state, beams,
        output_layer=tf.layers.Dense(VOCAB, name="projection"), length_penalty_weight=weight)
    return seq2seq.dynamic_decode(decoder, maximum_iterations=iterations)


@pytest.mark.parametrize("weight", [0.0, 0.8])
def test_beam_search_against_numpy_steps(weight, plan_memory, config):
    """BeamSearchDecoder (tile_batch of the start state) with and without a length penalty:
    the steps' scores, tokens and parents, the final lengths and dynamic_decode's lengths,
    and predicted_ids (gather_tree), against TF's steps in numpy."""
    start = _rand(2, U, seed=12)
    outputs, state, lengths = _beam_program(2, BEAMS, weight, 7, tf.contrib.seq2seq.tile_batch(
        tf.constant(start), BEAMS))
    assert outputs.predicted_ids.get_shape().as_list() == [2, None, BEAMS]
    with tf.Session(config=config, plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        bias = next(v for v in tf.global_variables() if v.name == "decoder/projection/bias:0")
        sess.run(tf.assign(bias, _rand(VOCAB, seed=13) + np.eye(VOCAB)[END_ID] * 2.5))
        got = sess.run([outputs, state.lengths, lengths, state.log_probs])
        step = _np_rnn_step(_rnn_decoder_weights(sess, "decoder/"))
    scores, words, parents, final_lengths, decoded = np_beam_search(
        step, [np.repeat(start[:, None], BEAMS, 1).astype(np.float64)], 2, BEAMS, VOCAB,
        END_ID, 7, weight)
    assert (words == END_ID).any() and (final_lengths < 7).any()  # beams that finished
    steps = got[0].beam_search_decoder_output
    np.testing.assert_array_equal(steps.predicted_ids, words.transpose(1, 0, 2))
    np.testing.assert_array_equal(steps.parent_ids, parents.transpose(1, 0, 2))
    np.testing.assert_allclose(steps.scores, scores.transpose(1, 0, 2), rtol=1e-4)
    np.testing.assert_array_equal(got[1], final_lengths)
    np.testing.assert_array_equal(got[2], decoded)
    want_ids = np_gather_tree(words, parents, final_lengths.max(1), END_ID)
    np.testing.assert_array_equal(got[0].predicted_ids, want_ids.transpose(1, 0, 2))


def test_beam_search_finds_the_best_sequence_by_brute_force():
    """With a beam as wide as every hypothesis of two steps over a vocabulary of 3 (9 beams),
    the first final beam is the most probable of all sequences (scored as TF's: a finished
    sequence keeps its log-probability), found by enumerating them with the model in numpy."""
    global VOCAB
    vocab_before, VOCAB = VOCAB, 3
    try:
        start = _rand(1, U, seed=14)
        outputs, _, _ = _beam_program(1, 9, 0.0, 2, tf.contrib.seq2seq.tile_batch(
            tf.constant(start), 9))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(outputs)
            step = _np_rnn_step(_rnn_decoder_weights(sess, "decoder/"))
    finally:
        VOCAB = vocab_before
    best = {}
    for first, second in itertools.product(range(3), repeat=2):
        logits, (h,) = step(np.array([[START]]), [start[None].astype(np.float64)])
        score = np_log_softmax(logits)[0, 0, first]
        if first == END_ID:
            best[(first, END_ID)] = score
            continue
        logits, _ = step(np.array([[first]]), [h])
        best[(first, second)] = score + np_log_softmax(logits)[0, 0, second]
    winner = max(best, key=best.get)
    assert tuple(got.predicted_ids[0, :, 0]) == winner
    np.testing.assert_allclose(got.beam_search_decoder_output.scores[0, -1, 0], best[winner],
                               rtol=1e-5)


@pytest.mark.parametrize("fed", [False, True])
def test_beam_search_over_attention_wrapper_with_tiled_memory(fed, plan_memory, config):
    """Beam search over an AttentionWrapper whose memory, lengths and start state are tiled
    with tile_batch (the NMT tutorial's inference graph), of a batch known when the graph is
    built or fed: against the numpy beam search over the wrapper's step written from TF's
    formulas.  The final state's alignment_history is, as TF 1.15's, reordered as the final
    beams' ancestors (gather_tree_from_array) when the batch is fed, and left a TensorArray
    when batch and memory time are known (TF's _check_static_batch_beam_maybe refuses
    [batch * beam, time] then)."""
    seq2seq = tf.contrib.seq2seq
    batch, beams = 2, BEAMS
    memory, start = _rand(batch, T, D, seed=15), _rand(batch, U, seed=16)
    lengths = np.array([4, 2], np.int32)
    inputs = [tf.placeholder(tf.float32, [None, T, D]), tf.placeholder(tf.float32, [None, U]),
              tf.placeholder(tf.int32, [None])] if fed else [tf.constant(memory),
                                                             tf.constant(start), None]
    feeds = dict(zip(inputs, [memory, start, np.full(batch, START)])) if fed else {}
    tiled = seq2seq.tile_batch(inputs[0], beams)
    assert tiled.get_shape().as_list() == [None if fed else batch * beams, T, D]
    mechanism = seq2seq.LuongAttention(U, tiled, scale=True,
                                       memory_sequence_length=seq2seq.tile_batch(lengths, beams))
    cell = seq2seq.AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(U), mechanism,
                                    attention_layer_size=U, alignment_history=True)
    initial = cell.zero_state(tf.shape(tiled)[0] if fed else batch * beams, tf.float32).clone(
        cell_state=seq2seq.tile_batch(inputs[1], beams))
    outputs, state, _ = _beam_program(batch, beams, 0.5, 6, initial, cell=cell,
                                      tokens=inputs[2])
    history_got = state.cell_state.alignment_history
    assert isinstance(history_got, tf.TensorArray) != fed
    with tf.Session(config=config, plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([outputs, state.lengths,
                        history_got if fed else history_got.stack()], feeds)
        w = {name: torch.tensor(v, dtype=F64) for name, v in _values(sess).items()}
    scope = "decoder/attention_wrapper/"
    mem = torch.tensor(np.repeat(memory, beams, 0), dtype=F64)
    history = []

    def step(ids, state):
        h, attention = (torch.tensor(s.reshape(batch * beams, -1)) for s in state)
        x = w["embedding"][torch.tensor(ids.reshape(-1))]
        h = torch.tanh(torch.cat([x, attention, h], 1) @ w[scope + "basic_rnn_cell/kernel"] +
                       w[scope + "basic_rnn_cell/bias"])
        align, values = ref_alignments("luong", h, mem, np.repeat(lengths, beams), w, scope,
                                       True)
        attention = torch.cat([h, torch.einsum("bt,btd->bd", align, values)], 1) @ \
            w[scope + "attention_layer/kernel"]
        history.append(align.reshape(batch, beams, T).numpy())
        logits = attention @ w["decoder/projection/kernel"] + w["decoder/projection/bias"]
        return (logits.reshape(batch, beams, -1).numpy(),
                [h.reshape(batch, beams, -1).numpy(), attention.reshape(batch, beams, -1)
                 .numpy()])
    first = np.repeat(start[:, None], beams, 1).astype(np.float64)
    scores, words, parents, final_lengths, _ = np_beam_search(
        step, [first, np.zeros((batch, beams, U))], batch, beams, VOCAB, END_ID, 6, 0.5)
    steps = got[0].beam_search_decoder_output
    np.testing.assert_array_equal(steps.predicted_ids, words.transpose(1, 0, 2))
    np.testing.assert_array_equal(steps.parent_ids, parents.transpose(1, 0, 2))
    np.testing.assert_allclose(steps.scores, scores.transpose(1, 0, 2), rtol=1e-4)
    np.testing.assert_array_equal(got[1], final_lengths)
    want_ids = np_gather_tree(words, parents, final_lengths.max(1), END_ID)
    np.testing.assert_array_equal(got[0].predicted_ids, want_ids.transpose(1, 0, 2))
    own = np.zeros_like(parents) + np.arange(beams)
    ancestors = np_gather_tree(own, parents, final_lengths.max(1), beams + 1)
    inside = np.arange(len(history))[:, None, None] < final_lengths[None]
    ancestors = np.where(inside, ancestors, own)
    history = np.stack(history)
    sorted_history = np.take_along_axis(history, ancestors[..., None], axis=2)
    assert not np.allclose(sorted_history, history)  # the beams were reordered
    want = sorted_history if fed else history
    np.testing.assert_allclose(got[2], want.reshape(len(history), batch * beams, T),
                               rtol=1e-4, atol=1e-6)


def test_alignment_history_over_dynamic_rnn():
    """dynamic_rnn over an AttentionWrapper keeping its alignment_history (a TensorArray in the
    state): one row per step, the alignments of TF's step in torch."""
    memory, inputs = _rand(B, T, D, seed=17), _rand(B, 3, X, seed=18)
    cell = tf.contrib.seq2seq.AttentionWrapper(
        tf.nn.rnn_cell.BasicRNNCell(U), _mechanism("luong", tf.constant(memory), True),
        attention_layer_size=U, alignment_history=True)
    _, state = tf.nn.dynamic_rnn(cell, tf.constant(inputs), dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        history = sess.run(state.alignment_history.stack())
        w = {name: torch.tensor(v, dtype=F64) for name, v in _values(sess).items()}
    _, want = ref_wrapper("luong", torch.tensor(inputs, dtype=F64),
                          torch.tensor(memory, dtype=F64), MEM_LEN, w, True)
    np.testing.assert_allclose(history, want.transpose(0, 1), rtol=1e-4, atol=1e-6)


# -- sampling helpers ----------------------------------------------------------------------
def test_sample_embedding_helper_draws_from_the_tempered_softmax():
    """SampleEmbeddingHelper: the first step's ids over 4000 examples (all of the same logits)
    are distributed as softmax(logits / softmax_temperature); each next step reads the drawn
    id's embedding (examples that drew the same id then have the same logits)."""
    seq2seq = tf.contrib.seq2seq
    n, temperature = 4000, 2.0
    embedding = tf.get_variable("embedding", [VOCAB, EMB])
    cell = tf.nn.rnn_cell.BasicRNNCell(U)
    tokens = tf.placeholder(tf.int32, [None])  # a batch known when it runs, as in programs
    helper = seq2seq.SampleEmbeddingHelper(embedding, tokens, END_ID,
                                           softmax_temperature=temperature, seed=3)
    decoder = seq2seq.BasicDecoder(cell, helper, cell.zero_state(tf.shape(tokens)[0],
                                                                 tf.float32),
                                   output_layer=tf.layers.Dense(VOCAB, name="projection"))
    outputs, _, _ = seq2seq.dynamic_decode(decoder, maximum_iterations=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        logits, ids = sess.run([outputs.rnn_output, outputs.sample_id],
                               {tokens: np.full(n, START)})
    want = np.exp(logits[0, 0] / temperature)
    counts = np.bincount(ids[:, 0], minlength=VOCAB) / n
    np.testing.assert_allclose(counts, want / want.sum(), atol=0.03)
    ended = ids[:, 0] == END_ID
    for token in set(ids[~ended, 0]):
        rows = logits[(ids[:, 0] == token) & ~ended, 1]
        np.testing.assert_allclose(rows, np.broadcast_to(rows[0], rows.shape), rtol=1e-5)


@pytest.mark.parametrize("probability", [0.0, 0.5, 1.0])
def test_scheduled_sampling_feeds_drawn_ids_where_it_sampled(probability):
    """ScheduledEmbeddingTrainingHelper: where an example sampled (sample id >= 0, about
    ``sampling_probability`` of the steps) the next input is that id's embedding, else the
    teacher's input; the outputs against the same RNN in numpy fed so."""
    seq2seq = tf.contrib.seq2seq
    n, steps = 400, 3
    inputs = _rand(n, steps, EMB, seed=19)
    embedding = tf.get_variable("embedding", [VOCAB, EMB])
    cell = tf.nn.rnn_cell.BasicRNNCell(U)
    helper = seq2seq.ScheduledEmbeddingTrainingHelper(
        tf.constant(inputs), tf.fill([n], steps), embedding, probability, seed=1,
        scheduling_seed=2)
    decoder = seq2seq.BasicDecoder(cell, helper, cell.zero_state(n, tf.float32),
                                   output_layer=tf.layers.Dense(VOCAB, name="projection"))
    outputs, _, _ = seq2seq.dynamic_decode(decoder)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        logits, ids = sess.run([outputs.rnn_output, outputs.sample_id])
        values = _values(sess)
    sampled = ids >= 0
    assert abs(sampled.mean() - probability) < 0.06
    h, x = np.zeros((n, U)), inputs[:, 0].astype(np.float64)
    for step in range(steps):
        h = np.tanh(np.concatenate([x, h], 1) @ values["decoder/basic_rnn_cell/kernel"] +
                    values["decoder/basic_rnn_cell/bias"])
        want = h @ values["decoder/projection/kernel"] + values["decoder/projection/bias"]
        np.testing.assert_allclose(logits[:, step], want, rtol=1e-4, atol=1e-5)
        if step + 1 < steps:
            x = np.where(sampled[:, step, None], values["embedding"][np.maximum(
                ids[:, step], 0)], inputs[:, step + 1])


def test_nmt_inference_graph_of_fed_batch_and_memory_time():
    """The NMT tutorial's beam-search inference graph, every size fed (batch, source time): a
    GRU encoder with sequence_length, Bahdanau attention over its tiled outputs, the encoder
    state tiled into zero_state(batch * beam).clone(...), maximum_iterations twice the longest
    source; predicted_ids are gather_tree of the steps (the numpy kernel), the sorted
    alignment_history one row per step and beam, summing to 1 over each source's length."""
    seq2seq = tf.contrib.seq2seq
    source = tf.placeholder(tf.float32, [None, None, D])
    source_length = tf.placeholder(tf.int32, [None])
    batch = tf.size(source_length)
    encoded, encoder_state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(U), source,
                                               sequence_length=source_length,
                                               dtype=tf.float32, scope="encoder")
    mechanism = seq2seq.BahdanauAttention(U, seq2seq.tile_batch(encoded, BEAMS),
                                          memory_sequence_length=seq2seq.tile_batch(
                                              source_length, BEAMS), normalize=True)
    cell = seq2seq.AttentionWrapper(tf.nn.rnn_cell.GRUCell(U), mechanism,
                                    attention_layer_size=U, alignment_history=True)
    initial = cell.zero_state(batch * BEAMS, tf.float32).clone(
        cell_state=seq2seq.tile_batch(encoder_state, BEAMS))
    embedding = tf.get_variable("embedding", [VOCAB, EMB])
    decoder = seq2seq.BeamSearchDecoder(cell, embedding, tf.fill([batch], START), END_ID,
                                        initial, BEAMS, output_layer=tf.layers.Dense(VOCAB),
                                        length_penalty_weight=1.0)
    outputs, state, _ = seq2seq.dynamic_decode(
        decoder, maximum_iterations=tf.reduce_max(source_length) * 2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, lengths, history = sess.run(
            [outputs, state.lengths, state.cell_state.alignment_history],
            {source: _rand(2, 4, D, seed=20), source_length: [4, 2]})
    steps = got.beam_search_decoder_output
    assert got.predicted_ids.shape == (2, 8, BEAMS) and history.shape == (8, 2 * BEAMS, 4)
    want = np_gather_tree(steps.predicted_ids.transpose(1, 0, 2),
                          steps.parent_ids.transpose(1, 0, 2), lengths.max(1), END_ID)
    np.testing.assert_array_equal(got.predicted_ids, want.transpose(1, 0, 2))
    np.testing.assert_allclose(history.sum(-1), 1.0, rtol=1e-5)
    assert (history[:, BEAMS:, 2:] == 0).all()  # the second source has 2 steps


def test_a_memory_length_of_zero_is_refused_when_it_runs():
    """TF's _maybe_mask_score asserts every memory_sequence_length is positive: a fed 0 is an
    InvalidArgumentError saying so (not alignments of NaN)."""
    lengths = tf.placeholder(tf.int32, [B])
    mechanism = _mechanism("luong", tf.constant(_rand(B, T, D, seed=21)), False,
                           lengths=lengths)
    alignments, _ = mechanism(tf.constant(_rand(B, U, seed=22)), state=None)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(alignments, {lengths: [1, 2, 5]}).shape == (B, T)
        with pytest.raises(tf.errors.InvalidArgumentError, match="must greater than zero"):
            sess.run(alignments, {lengths: [1, 0, 5]})
