"""tf.contrib.seq2seq (TF 1.15 semantics): an encoder dynamic_rnn, a BasicDecoder trained with
TrainingHelper and sequence_loss, decoding with GreedyEmbeddingHelper (impute_finished,
maximum_iterations, end tokens); values and gradients against PyTorch autograd over the same
computation unrolled by hand from TF 1.15's dynamic_decode (tensorflow 2.x has no
tf.contrib.seq2seq to take numbers from); sequence_loss's reductions against numpy; memory
planning on and off."""
import numpy as np
import pytest
import torch

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed")
F64 = torch.float64
V, E, H, M = 7, 3, 5, 6  # vocabulary, embedding, units, maximum_iterations
GO, END = 1, 2
SRC = np.array([[3, 4, 5, 6, 3], [4, 6, 3, 0, 0], [6, 5, 0, 0, 0], [5, 5, 5, 4, 0]], np.int32)
SRC_LEN = np.array([5, 3, 2, 4], np.int32)
DEC_IN = np.array([[1, 6, 5, 4, 3], [1, 3, 6, 4, 0], [1, 5, 6, 0, 0], [1, 4, 5, 5, 5]], np.int32)
DEC_OUT = np.array([[6, 5, 4, 3, 2], [3, 6, 4, 2, 0], [5, 6, 2, 0, 0], [4, 5, 5, 5, 2]], np.int32)
DEC_LEN = np.array([5, 4, 3, 5], np.int32)


def _rand(*shape, seed=0, scale=1.0):
    return (np.random.default_rng([seed, *shape]).standard_normal(shape) * scale).astype(
        np.float32)


def build(seq2seq):
    """The usual program: the encoder's final state starts a decoder trained with teacher
    forcing and run greedily for inference, sharing its variables."""
    x, x_len = tf.placeholder(tf.int32, [None, None]), tf.placeholder(tf.int32, [None])
    d_in, d_out = tf.placeholder(tf.int32, [None, None]), tf.placeholder(tf.int32, [None, None])
    d_len = tf.placeholder(tf.int32, [None])
    embedding = tf.get_variable("embedding", [V, E])
    _, encoded = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(H), tf.nn.embedding_lookup(
        embedding, x), sequence_length=x_len, dtype=tf.float32, scope="encoder")
    cell = tf.nn.rnn_cell.GRUCell(H, name="decoder_cell")
    projection = tf.layers.Dense(V, name="projection")
    with tf.variable_scope("decode"):
        helper = seq2seq.TrainingHelper(tf.nn.embedding_lookup(embedding, d_in), d_len)
        train, train_state, train_len = seq2seq.dynamic_decode(
            seq2seq.BasicDecoder(cell, helper, encoded, output_layer=projection))
    with tf.variable_scope("decode", reuse=True):
        greedy = seq2seq.GreedyEmbeddingHelper(embedding, tf.fill([tf.shape(x)[0]], GO), END)
        infer, infer_state, infer_len = seq2seq.dynamic_decode(
            seq2seq.BasicDecoder(cell, greedy, encoded, output_layer=projection),
            impute_finished=True, maximum_iterations=M)
    mask = tf.sequence_mask(d_len, DEC_IN.shape[1], dtype=tf.float32)
    loss = seq2seq.sequence_loss(train.rnn_output, d_out, mask)
    feeds = {x: SRC, x_len: SRC_LEN, d_in: DEC_IN, d_out: DEC_OUT, d_len: DEC_LEN}
    return feeds, loss, [train.rnn_output, train.sample_id, train_state, train_len,
                         infer.rnn_output, infer.sample_id, infer_state, infer_len]


# -- the reference: TF 1.15's dynamic_decode unrolled in torch ----------------------------------
def gru(x, h, w):
    """TF's GRUCell: gates (r, u) from [x, h], candidate from [x, r * h]."""
    r, u = torch.sigmoid(torch.cat([x, h], 1) @ w["gk"] + w["gb"]).chunk(2, 1)
    c = torch.tanh(torch.cat([x, r * h], 1) @ w["ck"] + w["cb"])
    return u * h + (1 - u) * c


def torch_program(w):
    emb = w["embedding"]
    enc = {k[4:]: v for k, v in w.items() if k.startswith("enc_")}
    dec = {k[4:]: v for k, v in w.items() if k.startswith("dec_")}
    h = torch.zeros(len(SRC), H, dtype=F64)
    for t in range(SRC.shape[1]):  # dynamic_rnn with copy-through
        new = gru(emb[torch.tensor(SRC[:, t]).long()], h, enc)
        h = torch.where(torch.tensor(t < SRC_LEN)[:, None], new, h)
    encoded = h
    logits, state = [], encoded
    for t in range(DEC_IN.shape[1]):  # TrainingHelper: runs until every t + 1 >= length
        state = gru(emb[torch.tensor(DEC_IN[:, t]).long()], state, dec)
        logits.append(state @ w["proj_k"] + w["proj_b"])
    logits = torch.stack(logits, 1)
    train = [logits, logits.argmax(-1), state, torch.tensor(DEC_LEN)]
    mask = torch.tensor(np.arange(DEC_IN.shape[1])[None] < DEC_LEN[:, None], dtype=F64)
    crossent = torch.nn.functional.cross_entropy(logits.reshape(-1, V),
                                                 torch.tensor(DEC_OUT).long().reshape(-1),
                                                 reduction="none").reshape(mask.shape)
    loss = (crossent * mask).sum() / mask.sum()
    return loss, train + greedy_decode(emb, encoded.detach(), dec, w)


def greedy_decode(emb, state, dec, w):
    """GreedyEmbeddingHelper with impute_finished and maximum_iterations M; rows after the
    loop's end zeros, as TinyFlow's buffers (TF's outputs stop there)."""
    batch = len(SRC)
    ids = torch.full((batch,), GO, dtype=torch.long)
    finished = torch.zeros(batch, dtype=torch.bool)
    lengths = torch.zeros(batch, dtype=torch.long)
    outs = torch.zeros(M, batch, V, dtype=F64)
    samples = torch.zeros(M, batch, dtype=torch.long)
    for t in range(M):
        if finished.all():
            break
        new = gru(emb[ids].detach(), state, {k: v.detach() for k, v in dec.items()})
        logit = new @ w["proj_k"].detach() + w["proj_b"].detach()
        sample = logit.argmax(-1)
        outs[t] = torch.where(finished[:, None], torch.zeros_like(logit), logit)
        samples[t] = torch.where(finished, torch.zeros_like(sample), sample)
        state = torch.where(finished[:, None], state, new)
        lengths = torch.where(finished, lengths, torch.full_like(lengths, t + 1))
        finished = finished | (sample == END) | (t + 1 >= M)
        ids = sample
    return [outs.transpose(0, 1), samples.t(), state, lengths]


NAMES = {"embedding": "embedding", "enc_gk": "encoder/gru_cell/gates/kernel",
         "enc_gb": "encoder/gru_cell/gates/bias", "enc_ck": "encoder/gru_cell/candidate/kernel",
         "enc_cb": "encoder/gru_cell/candidate/bias",
         "dec_gk": "decode/decoder/decoder_cell/gates/kernel",
         "dec_gb": "decode/decoder/decoder_cell/gates/bias",
         "dec_ck": "decode/decoder/decoder_cell/candidate/kernel",
         "dec_cb": "decode/decoder/decoder_cell/candidate/bias",
         "proj_k": "decode/decoder/projection/kernel", "proj_b": "decode/decoder/projection/bias"}


@pytest.mark.parametrize("plan_memory", [True, False])
def test_seq2seq_program_against_torch(plan_memory):
    feeds, loss, results = build(tf.contrib.seq2seq)
    variables = {v.op.name: v for v in tf.trainable_variables()}
    assert sorted(variables) == sorted(NAMES.values())  # TF's names
    keys = list(NAMES)
    grads = tf.gradients(loss, [variables[NAMES[k]] for k in keys])
    grads = [tf.convert_to_tensor(g) for g in grads]  # the embedding's: TF's IndexedSlices
    values = {k: _rand(*variables[NAMES[k]].get_shape().as_list(), seed=i, scale=1.5)
              for i, k in enumerate(keys)}
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for k in keys:
            variables[NAMES[k]].load(values[k], sess)
        got = sess.run([loss, results, grads], feeds)
    w = {k: torch.tensor(v, dtype=F64, requires_grad=True) for k, v in values.items()}
    want_loss, want = torch_program(w)
    want_loss.backward()
    np.testing.assert_allclose(got[0], want_loss.item(), rtol=1e-5)
    for i, (a, b) in enumerate(zip(got[1], want)):
        np.testing.assert_allclose(a, b.detach().numpy(), rtol=1e-4, atol=1e-5, err_msg=str(i))
    for k, g in zip(keys, got[2]):
        np.testing.assert_allclose(g, w[k].grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=k)
    lengths = got[1][7]
    assert 0 < lengths.min() < M and lengths.max() == M  # some stop at END, one runs to M


def test_greedy_decoding_stops_when_every_example_ended():
    """Every example emits END at its first step (a projection whose bias favours it): the
    loop runs once, lengths are 1, and the outputs have one step (TF's: as many as it ran)."""
    feeds, _, results = build(tf.contrib.seq2seq)
    bias = next(v for v in tf.trainable_variables() if v.op.name.endswith("projection/bias"))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        bias.load(np.where(np.arange(V) == END, 100.0, 0.0).astype(np.float32), sess)
        outputs, samples, lengths = sess.run([results[4], results[5], results[7]], feeds)
    assert lengths.tolist() == [1] * len(SRC)
    assert samples.tolist() == [[END]] * len(SRC)
    assert outputs.shape == (len(SRC), 1, V)


def _greedy(favoured, maximum_iterations=None):
    """Greedy decoding of 4 examples whose projection's bias makes every step emit token
    ``favoured``: ``(outputs, sample ids, lengths)`` as run."""
    seq2seq = tf.contrib.seq2seq
    embedding = tf.get_variable("embedding", [V, E])
    cell = tf.nn.rnn_cell.GRUCell(H)
    projection = tf.layers.Dense(V, name="projection")
    greedy = seq2seq.GreedyEmbeddingHelper(embedding, tf.fill([4], GO), END)
    decoder = seq2seq.BasicDecoder(cell, greedy, cell.zero_state(4, tf.float32),
                                   output_layer=projection)
    outputs, _, lengths = seq2seq.dynamic_decode(decoder, maximum_iterations=maximum_iterations)
    return outputs.rnn_output, outputs.sample_id, lengths, projection


@pytest.mark.parametrize("plan_memory", [True, False])
def test_decoding_runs_until_every_example_ended_or_a_bound_from_fed_values(plan_memory):
    """TF 1.15: without maximum_iterations the loop runs until every example emitted END;
    maximum_iterations may come from fed values (twice the longest source, as the NMT
    tutorial's); the outputs have as many steps as the loop ran."""
    source_lengths = tf.placeholder(tf.int32, [None])
    rnn_output, sample_id, lengths, projection = _greedy(
        3, maximum_iterations=tf.reduce_max(source_lengths) * 2)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        projection.bias.load(np.where(np.arange(V) == 3, 100.0, 0.0).astype(np.float32), sess)
        for longest in (2, 5):
            got = sess.run([rnn_output, sample_id, lengths],
                           {source_lengths: [1, longest, 2]})
            assert got[0].shape == (4, 2 * longest, V)
            assert (got[1] == 3).all() and got[2].tolist() == [2 * longest] * 4
    tf.reset_default_graph()
    rnn_output, sample_id, lengths, projection = _greedy(END)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        projection.bias.load(np.where(np.arange(V) == END, 100.0, 0.0).astype(np.float32),
                             sess)
        got = sess.run([rnn_output, sample_id, lengths])
    assert got[0].shape == (4, 1, V) and got[1].tolist() == [[END]] * 4
    assert got[2].tolist() == [1] * 4


@pytest.mark.parametrize("across_time, across_batch, sum_time, sum_batch", [
    (True, True, False, False), (False, True, False, False), (True, False, False, False),
    (False, False, False, False), (False, False, True, True), (False, False, True, False),
    (False, False, False, True)])
def test_sequence_loss_reductions_against_numpy(across_time, across_batch, sum_time,
                                                sum_batch):
    logits = _rand(3, 4, 5, seed=1)
    targets = np.array([[1, 2, 3, 4], [0, 1, 0, 0], [4, 4, 4, 4]], np.int32)
    weights = np.array([[1, 1, 0.5, 0], [1, 0, 0, 0], [0, 0, 0, 0]], np.float32)
    got = tf.contrib.seq2seq.sequence_loss(
        tf.constant(logits), tf.constant(targets), tf.constant(weights), across_time,
        across_batch, sum_over_timesteps=sum_time, sum_over_batch=sum_batch)
    with tf.Session() as sess:
        got = sess.run(got)
    z = logits - logits.max(-1, keepdims=True)
    crossent = -(z - np.log(np.exp(z).sum(-1, keepdims=True)))[
        np.arange(3)[:, None], np.arange(4)[None], targets] * weights
    counts = (weights != 0).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        if across_time and across_batch:
            want = crossent.sum() / weights.sum()
        elif sum_time and sum_batch:
            want = crossent.sum() / counts.sum()
        elif across_time or across_batch:
            axis = 0 if across_batch else 1
            want = np.nan_to_num(crossent.sum(axis) / weights.sum(axis))
        elif sum_time or sum_batch:
            axis = 0 if sum_batch else 1
            want = np.nan_to_num(crossent.sum(axis) / counts.sum(axis))
        else:
            want = crossent
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_errors_and_unsupported_names():
    seq2seq = tf.contrib.seq2seq
    cell = tf.nn.rnn_cell.GRUCell(3)
    embedding = tf.get_variable("embedding", [V, E])
    greedy = seq2seq.GreedyEmbeddingHelper(embedding, tf.fill([2], GO), END)
    decoder = seq2seq.BasicDecoder(cell, greedy, cell.zero_state(2, tf.float32))
    with pytest.raises(ValueError, match="maximum_iterations must be a scalar"):
        seq2seq.dynamic_decode(decoder, maximum_iterations=tf.constant([1, 2]))
    with pytest.raises(TypeError, match="Expected decoder to be type Decoder"):
        seq2seq.dynamic_decode(cell)
    with pytest.raises(ValueError, match="cannot be set to True at same time"):
        seq2seq.sequence_loss(tf.zeros([1, 2, 3]), tf.zeros([1, 2], tf.int32), tf.ones([1, 2]),
                              sum_over_timesteps=True)
    with pytest.raises(ValueError, match=r"Logits must be a \[batch_size x sequence_length"):
        seq2seq.sequence_loss(tf.zeros([2, 3]), tf.zeros([1, 2], tf.int32), tf.ones([1, 2]))
    with pytest.raises(AttributeError, match="tf.contrib.seq2seq.LuongMonotonicAttention is not "
                       "supported by TinyFlow"):
        seq2seq.LuongMonotonicAttention  # noqa: B018
