"""tf.PaddingFIFOQueue, tf.PriorityQueue and tf.train.batch(dynamic_pad=True) against
TensorFlow's: the values, static shapes and errors were recorded from TensorFlow
(tensorflow-cpu 2.21, tf.compat.v1 with v2 behaviour off, whose queues are TF 1.15's) on
2026-11-27 by running the same programs, and written here.  Each test runs under an alarm."""
import signal
import threading

import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


@pytest.fixture(autouse=True)
def bounded():
    """Each test fails after 60 s instead of hanging."""
    def expire(signum, frame):
        raise TimeoutError("the test ran past its 60 s bound")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _shapes(tensors):
    return [t.get_shape().as_list() for t in tensors]


def test_padding_fifo_queue_pads_as_tensorflow():
    queue = tf.PaddingFIFOQueue(10, [tf.int32, tf.float32], shapes=[[None], [None, 2]])
    x, y = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.float32, [None, 2])
    enqueue = queue.enqueue([x, y])
    many, one, up_to = queue.dequeue_many(2), queue.dequeue(), queue.dequeue_up_to(3)
    # recorded: [[2, None], [2, None, 2]], [[None], [None, 2]], [[None, None], [None, None, 2]]
    assert _shapes(many) == [[2, None], [2, None, 2]]
    assert _shapes(one) == [[None], [None, 2]]
    assert _shapes(up_to) == [[None, None], [None, None, 2]]
    with tf.Session() as sess:
        sess.run(enqueue, {x: [1, 2, 3], y: [[1, 2]]})
        sess.run(enqueue, {x: [4], y: [[3, 4], [5, 6], [7, 8]]})
        sess.run(enqueue, {x: [], y: np.zeros((0, 2))})
        got = sess.run(many)
        assert got[0].tolist() == [[1, 2, 3], [4, 0, 0]] and got[0].dtype == np.int32
        assert got[1].tolist() == [[[1, 2], [0, 0], [0, 0]], [[3, 4], [5, 6], [7, 8]]]
        assert [v.tolist() for v in sess.run(one)] == [[], []]
        sess.run(enqueue, {x: [9, 9], y: [[1, 1]]})
        sess.run(queue.close())
        assert [v.tolist() for v in sess.run(up_to)] == [[[9, 9]], [[[1, 1]]]]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(up_to)


def test_padding_fifo_queue_errors_as_tensorflow():
    with pytest.raises(TypeError, match="shapes"):
        tf.PaddingFIFOQueue(10, [tf.int32])  # pylint: disable=no-value-for-parameter
    with pytest.raises(ValueError, match="When providing partial shapes, a list of shapes must "
                                         "be provided."):
        tf.PaddingFIFOQueue(10, [tf.int32], shapes=[None])
    queue = tf.PaddingFIFOQueue(5, [tf.int32], shapes=[[None, 2]])
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(\?, 2\) are incompatible"):
        queue.enqueue([tf.constant([1, 2])])
    fed = tf.placeholder(tf.int32)
    enqueue = queue.enqueue([fed])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch in tuple "
                                                                 "component 0"):
            sess.run(enqueue, {fed: [1, 2, 3]})
        sess.run(enqueue, {fed: [[1, 2]]})  # the session still usable
        assert sess.run(queue.size()) == 1


def test_priority_queue_takes_the_lowest_priority_first():
    queue = tf.PriorityQueue(10, [tf.int32, tf.float32], shapes=[[], [2]])
    # recorded: the int64 priority first, a scalar
    assert queue.dtypes == [tf.int64, tf.int32, tf.float32]
    assert _shapes(queue.dequeue()) == [[], [], [2]]
    fed = [tf.placeholder(tf.int64, []), tf.placeholder(tf.int32, []),
           tf.placeholder(tf.float32, [2])]
    enqueue = queue.enqueue(fed)
    many = tf.PriorityQueue(10, [tf.int32], shapes=[[]])
    with tf.Session() as sess:
        for priority, number, pair in [(5, 50, [5, 5]), (1, 10, [1, 1]), (3, 30, [3, 3]),
                                       (-2, -20, [0, 0])]:
            sess.run(enqueue, dict(zip(fed, (priority, number, pair))))
        # recorded: -2 first, then [1, 3] by dequeue_many, one left
        first = sess.run(queue.dequeue())
        assert [first[0], first[1], first[2].tolist()] == [-2, -20, [0, 0]]
        got = sess.run(queue.dequeue_many(2))
        assert [v.tolist() for v in got] == [[1, 3], [10, 30], [[1, 1], [3, 3]]]
        assert sess.run(queue.size()) == 1
        sess.run(many.enqueue_many([tf.constant([3, 1, 2], tf.int64), tf.constant([30, 10, 20])]))
        assert [v.tolist() for v in sess.run(many.dequeue_many(3))] == [[1, 2, 3], [10, 20, 30]]


def test_priority_queue_errors_as_tensorflow():
    with pytest.raises(TypeError, match="Expected list for 'shapes' argument"):
        tf.PriorityQueue(10, [tf.int32])
    queue = tf.PriorityQueue(10, [tf.int32], shapes=[[]])
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int64 for Tensor "
                                         "with dtype float32"):  # recorded
        queue.enqueue([tf.constant(1.0), tf.constant(1)])
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(\) are incompatible"):
        queue.enqueue([tf.constant([1, 2], tf.int64), tf.constant(1)])


def test_batch_with_dynamic_pad_uses_a_padding_queue():
    source = tf.PaddingFIFOQueue(10, [tf.int32, tf.float32], shapes=[[None], [2]])
    v, n = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.float32, [2])
    fill = source.enqueue([v, n])
    x, pair = source.dequeue()
    batch = tf.train.batch([x, pair], batch_size=2, dynamic_pad=True,
                           allow_smaller_final_batch=True)
    assert _shapes(batch) == [[None, None], [None, 2]]  # recorded
    before = set(threading.enumerate())
    with tf.Session() as sess:
        for vals, numbers in [([1], [1, 1]), ([2, 3, 4], [2, 2]), ([5, 6], [3, 3]),
                              ([], [4, 4]), ([7], [5, 5])]:
            sess.run(fill, {v: vals, n: numbers})
        sess.run(source.close())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        out = []
        try:
            while True:
                out.append([b.tolist() for b in sess.run(batch)])
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads)
    # recorded from TensorFlow's tf.train.batch(dynamic_pad=True)
    assert out == [[[[1, 0, 0], [2, 3, 4]], [[1, 1], [2, 2]]],
                   [[[5, 6], [0, 0]], [[3, 3], [4, 4]]], [[[7]], [[5, 5]]]]
    assert not [t for t in set(threading.enumerate()) - before if t.is_alive()]
    with pytest.raises(ValueError, match="Cannot infer Tensor's rank"):
        tf.train.batch([tf.placeholder(tf.int32)], 2, dynamic_pad=True)
