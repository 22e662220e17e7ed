"""tf.nn.nce_loss and tf.nn.sampled_softmax_loss (word2vec's) with TensorFlow 1.15's candidate
samplers: against a numpy reimplementation of TF's _compute_sampled_logits given fixed
sampled_values, against numbers real TensorFlow gave for the same inputs, gradients against
finite differences, the samplers' laws, and a small skip-gram word2vec trained with nce_loss.
"""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")

FLT_MAX = np.finfo(np.float32).max


def _data():
    """The inputs the real-TF numbers below were computed from (same generator, same order)."""
    rng = np.random.default_rng(7)
    weights = rng.standard_normal((8, 3)).astype(np.float32)
    biases = rng.standard_normal(8).astype(np.float32)
    inputs = rng.standard_normal((4, 3)).astype(np.float32)
    labels = {1: np.array([[1], [5], [0], [7]], np.int64),
              2: np.array([[1, 2], [5, 0], [0, 0], [7, 3]], np.int64)}
    true = {1: rng.uniform(0.1, 0.9, (4, 1)).astype(np.float32),
            2: rng.uniform(0.1, 0.9, (4, 2)).astype(np.float32)}
    sampled = np.array([0, 3, 6, 2, 5], np.int64)  # 0 and 5 are true classes of some rows
    return weights, biases, inputs, labels, sampled, true, rng.uniform(0.1, 0.9, 5).astype(
        np.float32)


def numpy_sampled_logits(weights, biases, labels, inputs, sampled, true_count, sampled_count,
                         remove_accidental_hits):
    """TF 1.15's nn_impl._compute_sampled_logits (subtract_log_q=True), written out in numpy
    float64."""
    weights, biases, inputs = (np.asarray(a, np.float64) for a in (weights, biases, inputs))
    num_true = labels.shape[1]
    true_logits = np.einsum("bd,btd->bt", inputs, weights[labels]) + biases[labels]
    sampled_logits = inputs @ weights[sampled].T + biases[sampled]
    if remove_accidental_hits:  # compute_accidental_hits: -FLT_MAX where a sample is a label
        hits = (labels[:, :, None] == sampled[None, None, :]).any(1)
        sampled_logits = sampled_logits + np.where(hits, -float(FLT_MAX), 0.0)
    true_logits -= np.log(true_count)
    sampled_logits -= np.log(sampled_count)
    logits = np.concatenate([true_logits, sampled_logits], 1)
    targets = np.concatenate([np.full(true_logits.shape, 1.0 / num_true),
                              np.zeros(sampled_logits.shape)], 1)
    return logits, targets


def numpy_nce(logits, targets):
    # sigmoid_cross_entropy_with_logits, summed over the classes
    return (np.maximum(logits, 0) - logits * targets + np.log1p(np.exp(-np.abs(logits)))).sum(1)


def numpy_sampled_softmax(logits, targets):
    shifted = logits - logits.max(1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    return -(targets * log_softmax).sum(1)


# nce_loss and sampled_softmax_loss of _data(), from real TensorFlow (tensorflow-cpu 2.21,
# tf.compat.v1.nn, graph mode; nn_impl.py's sampled losses are 1.15's), per (num_true,
# remove_accidental_hits): [nce per example], [sampled softmax per example]
REAL_TF = {
    (1, False): ([4.004305362701416, 3.3455545902252197, 4.060466289520264, 4.822014808654785],
                 [1.5844457149505615, 1.0658164024353027, 1.3887042999267578,
                  1.1936051845550537]),
    (1, True): ([4.004305362701416, 2.7977750301361084, 2.747337818145752, 4.822014808654785],
                [1.5844457149505615, 0.9629698395729065, 0.9892088770866394,
                 1.1936051845550537]),
    (2, False): ([5.8345723152160645, 4.7781782150268555, 5.315951824188232, 6.816953182220459],
                 [3.434807300567627, 1.6918972730636597, 1.4278643131256104,
                  2.4394280910491943]),
    (2, True): ([5.8087615966796875, 3.0516719818115234, 4.002823352813721, 6.510814189910889],
                [3.4310030937194824, 1.4015105962753296, 1.1693000793457031,
                 2.4261648654937744]),
}


@pytest.mark.parametrize("num_true, hits", sorted(REAL_TF))
def test_sampled_losses_match_tf_and_numpy(num_true, hits, plan_memory):
    weights, biases, inputs, labels, sampled, true, sampled_count = _data()
    values = (tf.constant(sampled), tf.constant(true[num_true]), tf.constant(sampled_count))
    args = (tf.constant(weights), tf.constant(biases), tf.constant(labels[num_true]),
            tf.constant(inputs), 5, 8)
    nce = tf.nn.nce_loss(*args, num_true=num_true, sampled_values=values,
                         remove_accidental_hits=hits)
    softmax = tf.nn.sampled_softmax_loss(*args, num_true=num_true, sampled_values=values,
                                         remove_accidental_hits=hits)
    got = tf.Session(plan_memory=plan_memory).run([nce, softmax])
    logits, targets = numpy_sampled_logits(weights, biases, labels[num_true], inputs, sampled,
                                           true[num_true], sampled_count, hits)
    np.testing.assert_allclose(got[0], numpy_nce(logits, targets), rtol=1e-5)
    np.testing.assert_allclose(got[1], numpy_sampled_softmax(logits, targets), rtol=1e-5)
    np.testing.assert_allclose(got, REAL_TF[num_true, hits], rtol=1e-5)
    assert nce.get_shape().as_list() == [4] and softmax.get_shape().as_list() == [4]


@pytest.mark.parametrize("loss", ["nce_loss", "sampled_softmax_loss"])
def test_sampled_loss_gradients_against_finite_differences(loss):
    weights, biases, inputs, labels, sampled, true, sampled_count = _data()

    def build(w, b, x):
        values = (tf.constant(sampled), tf.constant(true[2]), tf.constant(sampled_count))
        return getattr(tf.nn, loss)(w, b, tf.constant(labels[2]), x, 5, 8, num_true=2,
                                    sampled_values=values, remove_accidental_hits=True)
    check_gradients(build, inputs=[weights, biases, inputs], name=loss)


def test_sampled_values_get_no_gradient_and_sharded_weights_are_refused():
    weights, biases, inputs, labels, sampled, true, _ = _data()
    counts = tf.placeholder(tf.float32, [5])
    loss = tf.nn.nce_loss(weights, biases, labels[1], inputs, 5, 8,
                          sampled_values=(sampled, true[1], counts))
    assert tf.gradients(loss, counts) == [None]  # TF's stop_gradient on sampled_values
    with pytest.raises(ValueError, match="nce_loss: sharded weights \\(2 tensors\\)"):
        tf.nn.nce_loss([weights, weights], biases, labels[1], inputs, 5, 8)


# -- the candidate samplers -------------------------------------------------------------------
# true_expected_count of classes [[0], [5], [99]] (range_max 100, num_sampled 10, unique=False:
# P(c) * 10), from real TensorFlow as above
TF_TRUE_COUNTS = {"log_uniform_candidate_sampler": [1.501904845237732, 0.3340122401714325,
                                                    0.02156028337776661],
                  "uniform_candidate_sampler": [0.09999999403953552] * 3}


@pytest.mark.parametrize("sampler", sorted(TF_TRUE_COUNTS))
def test_samplers_draw_as_tensorflow(sampler):
    classes = np.array([[0], [5], [99]], np.int64)
    draw = getattr(tf.nn, sampler)
    assert getattr(tf.random, sampler) is draw
    sampled, true_count, sampled_count = draw(classes, 1, 10, False, 100, seed=1)
    distinct = draw(classes, 1, 50, True, 60, seed=2)
    sess = tf.Session()
    ids, counts, sample_counts = sess.run([sampled, true_count, sampled_count])
    np.testing.assert_allclose(counts.ravel(), TF_TRUE_COUNTS[sampler], rtol=1e-6)
    assert ids.dtype == np.int64 and ids.shape == (10,) and ids.min() >= 0 and ids.max() < 100
    probability = (np.log((ids + 2.0) / (ids + 1.0)) / np.log(101.0)
                   if sampler.startswith("log") else np.full(10, 0.01))
    np.testing.assert_allclose(sample_counts, probability * 10, rtol=1e-6)
    # unique: distinct classes, each expected count 1 - (1 - p) ** tries for one count of tries
    ids, counts, sample_counts = sess.run(distinct)
    assert len(set(ids.tolist())) == 50 and ids.max() < 60
    p = (np.log((ids + 2.0) / (ids + 1.0)) / np.log(61.0) if sampler.startswith("log")
         else np.full(50, 1 / 60))
    resolved = sample_counts < 0.99  # a float32 count of ~1 no longer tells the tries
    tries = np.log1p(-sample_counts[resolved].astype(np.float64)) / np.log1p(-p[resolved])
    assert resolved.sum() > 10 and tries.min() > 50 - 0.05
    np.testing.assert_allclose(tries, np.round(np.median(tries)), atol=0.05)


def test_fixed_unigram_sampler_as_tensorflow():
    classes = np.array([[0], [3], [5]], np.int64)
    sampled, true_count, sampled_count = tf.nn.fixed_unigram_candidate_sampler(
        classes, 1, 4, False, 6, distortion=0.75, num_reserved_ids=1, unigrams=[1, 2, 3, 4, 10],
        seed=1)
    ids, counts, sample_counts = tf.Session().run([sampled, true_count, sampled_count])
    # from real TensorFlow as above: the reserved id 0 is never drawn, P(c) ~ unigram ** 0.75
    np.testing.assert_allclose(counts.ravel(), [0.0, 0.679783284664154, 1.6769863367080688],
                               rtol=1e-6)
    law = np.array([0, 1, 2, 3, 4, 10]) ** 0.75 * np.array([0, 1, 1, 1, 1, 1])
    np.testing.assert_allclose(sample_counts, law[ids] / law.sum() * 4, rtol=1e-6)
    assert ids.min() >= 1 and ids.max() <= 5
    distinct = tf.nn.fixed_unigram_candidate_sampler(classes, 1, 5, True, 6, num_reserved_ids=1,
                                                     unigrams=[1, 2, 3, 4, 10])
    assert sorted(tf.Session().run(distinct[0]).tolist()) == [1, 2, 3, 4, 5]
    with pytest.raises(ValueError, match="range_max 7 must be the number of class "
                                         "probabilities, 5"):
        tf.nn.fixed_unigram_candidate_sampler(classes, 1, 4, False, 7, unigrams=[1, 2, 3, 4, 10])
    with pytest.raises(ValueError, match="cannot draw 6 distinct classes of the 5"):
        tf.nn.fixed_unigram_candidate_sampler(classes, 1, 6, True, 6, num_reserved_ids=1,
                                              unigrams=[1, 2, 3, 4, 10])
    with pytest.raises(ValueError, match="vocab_file and sharding"):
        tf.nn.fixed_unigram_candidate_sampler(classes, 1, 4, False, 6, vocab_file="v.txt")


def test_log_uniform_frequencies_and_seeds():
    classes = np.zeros((1, 1), np.int64)
    sampled, _, _ = tf.nn.log_uniform_candidate_sampler(classes, 1, 20000, False, 50, seed=4)
    first = tf.Session().run(sampled)
    again = tf.Session().run(sampled)  # an op seed: each new session repeats the draws
    np.testing.assert_array_equal(first, again)
    frequency = np.bincount(first, minlength=50) / first.size
    law = np.log((np.arange(50) + 2.0) / (np.arange(50) + 1.0)) / np.log(51.0)
    np.testing.assert_allclose(frequency[:5], law[:5], atol=0.01)  # 20000 draws: +-0.005
    with pytest.raises(ValueError, match="cannot draw 5 distinct classes of 4"):
        tf.nn.uniform_candidate_sampler(classes, 1, 5, True, 4)


# -- word2vec -------------------------------------------------------------------------------
def test_skip_gram_word2vec_trains_with_nce():
    text = ("the quick brown fox jumps over the lazy dog the dog sleeps the fox runs "
            "a quick fox and a lazy dog")
    corpus = text.split(" ") * 8
    vocab = sorted(set(corpus))
    ids = np.array([vocab.index(w) for w in corpus])
    pairs = [(ids[i], ids[j]) for i in range(len(ids))
             for j in (i - 2, i - 1, i + 1, i + 2) if 0 <= j < len(ids)]
    centres = np.array([p[0] for p in pairs], np.int32)
    contexts = np.array([[p[1]] for p in pairs], np.int64)
    tf.set_random_seed(0)
    size, dim = len(vocab), 8
    embeddings = tf.Variable(tf.random_uniform([size, dim], -1.0, 1.0))
    nce_weights = tf.Variable(tf.truncated_normal([size, dim], stddev=1.0 / np.sqrt(dim)))
    nce_biases = tf.Variable(tf.zeros([size]))
    train_inputs = tf.placeholder(tf.int32, [None])
    train_labels = tf.placeholder(tf.int64, [None, 1])
    embed = tf.nn.embedding_lookup(embeddings, train_inputs)
    loss = tf.reduce_mean(tf.nn.nce_loss(nce_weights, nce_biases, train_labels, embed,
                                         num_sampled=4, num_classes=size))
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    feed = {train_inputs: centres, train_labels: contexts}
    before = np.mean([sess.run(loss, feed) for _ in range(10)])  # the sampler draws anew
    for _ in range(150):
        sess.run(step, feed)
    after = np.mean([sess.run(loss, feed) for _ in range(10)])
    assert after < 0.7 * before, (before, after)
