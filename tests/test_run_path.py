"""The per-run path of Session.run: feeds used as they are when they can be, results copied
out, feeds the graph does not read ignored, identity gradients planned in place."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_a_feed_used_as_it_is_is_not_held_past_the_run():
    x = tf.placeholder(tf.float32, [None, 3])
    y = x * 2.0
    sess = tf.Session()
    feed = np.arange(6, dtype=np.float32).reshape(2, 3)
    first = sess.run(y, {x: feed})
    feed += 10  # the caller's array changes after the run: the result already taken does not
    second = sess.run(y, {x: feed})
    np.testing.assert_array_equal(first, np.arange(6).reshape(2, 3) * 2)
    np.testing.assert_array_equal(second, (np.arange(6).reshape(2, 3) + 10) * 2)


@pytest.mark.parametrize("feed", [
    np.arange(6, dtype=np.float64).reshape(2, 3),            # another dtype
    np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),  # Fortran order
    np.arange(6, dtype=">f4").reshape(2, 3),                  # big-endian
    np.arange(12, dtype=np.float32).reshape(2, 6)[:, ::2],    # strided view
    [[0, 1, 2], [3, 4, 5]],                                   # nested lists
], ids=["float64", "fortran", "big-endian", "strided", "list"])
def test_feeds_needing_conversion_are_converted(feed):
    x = tf.placeholder(tf.float32, [None, 3])
    out = tf.Session().run(x + 0.0, {x: feed})
    assert out.dtype == np.float32 and out.flags.c_contiguous
    np.testing.assert_array_equal(out, np.asarray(feed, dtype=np.float32))


def test_a_feed_of_a_placeholder_the_fetch_does_not_read_is_ignored():
    x = tf.placeholder(tf.float32, [2])
    unused = tf.placeholder(tf.float32, [5])
    sess = tf.Session()
    out = sess.run(x * 3.0, {x: np.ones(2, np.float32), unused: np.zeros(5, np.float32)})
    np.testing.assert_array_equal(out, [3.0, 3.0])


def _identity_collapse_graph():
    """d(sum(a * b))/da, with b fed: the product's gradient for ``a`` needs no sum (the
    shapes agree), a _collapse_sum_like the plan can put in its gradient's memory."""
    a = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = tf.placeholder(tf.float32, [2, 3])
    return b, tf.gradients(tf.reduce_sum(a * b), [a])[0]


def test_an_identity_collapse_sum_is_planned_in_place_and_exact(plan_memory):
    b, grad = _identity_collapse_graph()
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    feed = {b: np.arange(6, 12, dtype=np.float32).reshape(2, 3)}
    np.testing.assert_array_equal(sess.run(grad, feed), feed[b])
    executor = sess._bind(grad, feed)
    indexed, inplace = executor.indexed, executor.graph.attrs["inplace_from"]
    collapses = [indexed.entry_rptr[nid] for nid, node in enumerate(indexed.nodes)
                 if node.op is not None and node.op.name == "_collapse_sum_like"]
    assert collapses
    assert all((eid in inplace) == plan_memory for eid in collapses)


def test_a_reducing_collapse_sum_is_not_in_place():
    a = tf.Variable(np.ones(3, np.float32))
    b = tf.placeholder(tf.float32, [2, 3])
    grad = tf.gradients(tf.reduce_sum(a * b), [a])[0]
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    feed = {b: np.arange(6, dtype=np.float32).reshape(2, 3)}
    np.testing.assert_array_equal(sess.run(grad, feed), feed[b].sum(0))
