"""A sequence-to-sequence model that learns to reverse strings of digits, in the style of
TensorFlow 1's seq2seq and chatbot programs (``tf.nn.dynamic_rnn`` encoder,
``tf.contrib.seq2seq`` decoder with ``TrainingHelper`` for training and
``GreedyEmbeddingHelper`` for inference, ``sequence_loss``).

It trains on strings of 3 to 5 digits (batches padded to their longest, with per-example
lengths) and decodes held-out strings of 3 to 5 digits and longer ones, of 6 and 7 digits,
which it never saw: the encoder's loop runs as many steps as the batch is long, and decoding
stops when every example has emitted its end token.  Only the import differs from a
TensorFlow 1 program (``import tensorflow as tf``):

    python examples/tf1/seq2seq_reverse.py --steps 3000

The last line is the exact-match accuracy on the longer strings.  (``--data_dir`` is accepted
for the examples' harness; the strings are generated.)
"""
import argparse
import sys
import time

import numpy as np

import tinyflow as tf

FLAGS = None

PAD, GO, END = 0, 1, 2  # then the digits 0-9 as 3..12
VOCAB = 13
EMBEDDING = 32
UNITS = 128
BATCH_SIZE = 64
LEARNING_RATE = 0.003


def batch(rng, size, shortest, longest):
    """Digit strings and their reversals as padded id arrays, with lengths."""
    lengths = rng.integers(shortest, longest + 1, size)
    width = lengths.max()
    source = np.full((size, width), PAD, np.int32)
    decoder_in = np.full((size, width + 1), PAD, np.int32)
    target = np.full((size, width + 1), PAD, np.int32)
    for i, n in enumerate(lengths):
        digits = rng.integers(3, VOCAB, n)
        source[i, :n] = digits
        decoder_in[i, :n + 1] = np.concatenate([[GO], digits[::-1]])
        target[i, :n + 1] = np.concatenate([digits[::-1], [END]])
    weights = (np.arange(width + 1)[None] < lengths[:, None] + 1).astype(np.float32)
    return source, lengths.astype(np.int32), decoder_in, target, weights


def model():
    """The graph: placeholders, training loss and step, greedy decoding."""
    source = tf.placeholder(tf.int32, [None, None], name="source")
    source_length = tf.placeholder(tf.int32, [None], name="source_length")
    decoder_in = tf.placeholder(tf.int32, [None, None], name="decoder_in")
    target = tf.placeholder(tf.int32, [None, None], name="target")
    target_weights = tf.placeholder(tf.float32, [None, None], name="target_weights")
    target_length = tf.reduce_sum(tf.cast(target_weights, tf.int32), 1)

    embedding = tf.get_variable("embedding", [VOCAB, EMBEDDING])
    encoder_cell = tf.nn.rnn_cell.BasicLSTMCell(UNITS)
    _, encoder_state = tf.nn.dynamic_rnn(
        encoder_cell, tf.nn.embedding_lookup(embedding, source),
        sequence_length=source_length, dtype=tf.float32, scope="encoder")

    decoder_cell = tf.nn.rnn_cell.BasicLSTMCell(UNITS)
    projection = tf.layers.Dense(VOCAB, name="projection")
    with tf.variable_scope("decoder"):
        helper = tf.contrib.seq2seq.TrainingHelper(
            tf.nn.embedding_lookup(embedding, decoder_in), target_length)
        decoder = tf.contrib.seq2seq.BasicDecoder(decoder_cell, helper, encoder_state,
                                                  output_layer=projection)
        outputs, _, _ = tf.contrib.seq2seq.dynamic_decode(decoder)
    loss = tf.contrib.seq2seq.sequence_loss(outputs.rnn_output, target, target_weights)
    train_op = tf.train.AdamOptimizer(LEARNING_RATE).minimize(loss)

    with tf.variable_scope("decoder", reuse=True):
        start_tokens = tf.fill([tf.shape(source)[0]], GO)
        greedy = tf.contrib.seq2seq.GreedyEmbeddingHelper(embedding, start_tokens, END)
        decoder = tf.contrib.seq2seq.BasicDecoder(decoder_cell, greedy, encoder_state,
                                                  output_layer=projection)
        decoded, _, _ = tf.contrib.seq2seq.dynamic_decode(
            decoder, maximum_iterations=tf.shape(source)[1] + 2)
    feeds = (source, source_length, decoder_in, target, target_weights)
    return feeds, loss, train_op, decoded.sample_id


def accuracy(sess, feeds, sample_id, rng, shortest, longest, count=512):
    """Exact-match and per-digit accuracy of greedy decoding on new strings."""
    source, lengths, _, target, weights = batch(rng, count, shortest, longest)
    ids = sess.run(sample_id, {feeds[0]: source, feeds[1]: lengths})
    # as many steps as decoding ran (every string ended, or the limit): padded to compare
    ids = np.pad(ids, ((0, 0), (0, max(0, target.shape[1] - ids.shape[1]))))
    exact, digits = 0, 0
    for i, n in enumerate(lengths):
        want = target[i, :n + 1]
        got = ids[i, :n + 1]
        exact += int(np.array_equal(got, want))
        digits += int((got[:n] == want[:n]).sum())
    return exact / count, digits / lengths.sum()


def main(_):
    rng = np.random.default_rng(0)
    feeds, loss, train_op, sample_id = model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        start = time.time()
        for step in range(FLAGS.steps):
            values = batch(rng, BATCH_SIZE, 3, 5)
            feed = dict(zip(feeds, values))
            if step % 200 == 0 or step == FLAGS.steps - 1:
                print(f"step {step}, loss {sess.run(loss, feed):.4f} "
                      f"({time.time() - start:.0f} s)")
            sess.run(train_op, feed)
        test_rng = np.random.default_rng(1)
        short, short_digits = accuracy(sess, feeds, sample_id, test_rng, 3, 5)
        print(f"lengths 3-5 (held out): exact match {short:.4f}, digits {short_digits:.4f}")
        longer, longer_digits = accuracy(sess, feeds, sample_id, test_rng, 6, 7)
        print(f"lengths 6-7 (never trained on): digits {longer_digits:.4f}")
        print(f"test accuracy: {longer:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3000, help="Training steps")
    parser.add_argument("--data_dir", type=str, default=None,
                        help="Accepted for the examples' harness; the strings are generated")
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
