"""TF-1's queue-based input pipelines: tf.FIFOQueue, tf.RandomShuffleQueue, tf.train.Coordinator,
QueueRunner, start_queue_runners, the input producers and tf.train.batch / shuffle_batch.

The expected values were taken from real TensorFlow (tensorflow-cpu 2.21's tf.compat.v1, graph
mode, in /work/tfvenv), by running the same programs; each says so.  Every test runs under an
alarm (a hang fails it) and checks that no queue-runner thread outlives it.
"""
import signal
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import tinyflow as tf


@pytest.fixture(autouse=True)
def bounded_and_no_threads_left():
    """Each test fails after 60 s instead of hanging, and leaves no thread running."""
    before = set(threading.enumerate())

    def expire(signum, frame):
        raise TimeoutError("the test ran past its 60 s bound")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and set(threading.enumerate()) - before:
        time.sleep(0.02)
    assert not set(threading.enumerate()) - before, "threads left running"


def _run_pipeline(build, fetch_many=None):
    """The TF-1 loop over ``build()``'s fetches: Coordinator, start_queue_runners, run until
    OutOfRangeError, request_stop, join.  Returns the runs' values and the end's message."""
    graph = tf.Graph()
    with graph.as_default():
        fetch = build()
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            values, end = [], None
            try:
                while not coord.should_stop():
                    values.append(sess.run(fetch))
            except tf.errors.OutOfRangeError as err:
                end = err.message
            finally:
                coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    return values, end


def test_slice_input_producer_and_batch_give_tensorflows_batches_in_order():
    def build():
        x, y = tf.train.slice_input_producer([np.arange(10), np.arange(10) * 10.],
                                            num_epochs=2, shuffle=False)
        return tf.train.batch([x, y], batch_size=3)

    values, end = _run_pipeline(build)
    # real TF: six full batches over the two epochs, then the two left over are not enough
    assert [(a.tolist(), b.tolist()) for a, b in values] == [
        ([0, 1, 2], [0.0, 10.0, 20.0]), ([3, 4, 5], [30.0, 40.0, 50.0]),
        ([6, 7, 8], [60.0, 70.0, 80.0]), ([9, 0, 1], [90.0, 0.0, 10.0]),
        ([2, 3, 4], [20.0, 30.0, 40.0]), ([5, 6, 7], [50.0, 60.0, 70.0])]
    assert values[0][0].dtype == np.int64 and values[0][1].dtype == np.float64
    # real TF's message (its queue's name aside)
    assert end.endswith("is closed and has insufficient elements (requested 3, current size 2)")


def test_allow_smaller_final_batch_gives_the_rest():
    def build():
        x = tf.train.slice_input_producer([np.arange(10)], num_epochs=2, shuffle=False)[0]
        return tf.train.batch([x], batch_size=3, allow_smaller_final_batch=True)

    values, end = _run_pipeline(build)
    # real TF: a single tensor comes back as a tensor, and the last batch holds [8, 9]
    assert [v.tolist() for v in values] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 0, 1],
                                            [2, 3, 4], [5, 6, 7], [8, 9]]
    assert end.endswith("(requested 3, current size 0)")


def test_input_producer_one_epoch_of_rows():
    values, _ = _run_pipeline(lambda: tf.train.input_producer(
        np.arange(6).reshape(3, 2), num_epochs=1, shuffle=False).dequeue())
    assert [v.tolist() for v in values] == [[0, 1], [2, 3], [4, 5]]  # real TF's


def test_shuffle_batch_gives_each_element_once_per_epoch():
    def build():
        x, y = tf.train.slice_input_producer([np.arange(10), np.arange(10) * 2], num_epochs=2,
                                            shuffle=True, seed=5)
        bx, by = tf.train.shuffle_batch([x, y], batch_size=4, capacity=12, min_after_dequeue=5,
                                        seed=7)
        assert bx.shape.as_list() == [4] and by.shape.as_list() == [4]  # real TF's
        return [bx, by]

    values, _ = _run_pipeline(build)
    # real TF: 5 batches, the multiset of two epochs; x and y stay paired
    assert len(values) == 5
    assert sorted(np.concatenate([v[0] for v in values]).tolist()) == sorted(
        list(range(10)) * 2)
    assert all((by == 2 * bx).all() for bx, by in values)


def test_batch_of_a_dict_and_the_local_epoch_counter():
    with tf.Graph().as_default():
        batch = tf.train.batch({"b": tf.constant([1., 2.]), "a": tf.constant(3)}, batch_size=2)
        # real TF: a dict in, a dict out, each component batched
        assert sorted(batch) == ["a", "b"]
        assert batch["a"].shape.as_list() == [2] and batch["b"].shape.as_list() == [2, 2]
        tf.train.slice_input_producer([np.arange(3)], num_epochs=1)
        # real TF: 'input_producer/input_producer/limit_epochs/epochs:0', a local variable
        assert [v.name for v in tf.local_variables()] == [
            "input_producer/input_producer/limit_epochs/epochs:0"]
        assert not tf.global_variables()


def test_fifo_queue_by_hand():
    queue = tf.FIFOQueue(5, [tf.int32], shapes=[[2]])
    # real TF: the static shapes of each dequeue
    assert queue.dequeue().shape.as_list() == [2]
    assert queue.dequeue_many(3).shape.as_list() == [3, 2]
    assert queue.dequeue_up_to(3).shape.as_list() == [None, 2]
    enqueue = queue.enqueue_many([[[1, 2], [3, 4], [5, 6]]])
    size, one, two = queue.size(), queue.dequeue(), queue.dequeue_many(2)
    with tf.Session() as sess:
        sess.run(enqueue)
        assert sess.run(size) == 3
        assert sess.run(one).tolist() == [1, 2]
        assert sess.run(size) == 2
        sess.run(queue.close())
        # real TF: a closed queue with 2 elements refuses 3 and keeps them...
        with pytest.raises(tf.errors.OutOfRangeError, match=r"FIFOQueue '.*fifo_queue' is "
                           r"closed and has insufficient elements \(requested 3, current "
                           r"size 2\)"):
            sess.run(queue.dequeue_many(3))
        assert sess.run(two).tolist() == [[3, 4], [5, 6]]  # ...and gives them to 2
        with pytest.raises(tf.errors.OutOfRangeError, match=r"requested 1, current size 0"):
            sess.run(one)
        with pytest.raises(tf.errors.CancelledError, match="fifo_queue' is closed."):
            sess.run(enqueue)


def test_a_dequeued_string_feeds_another_queues_enqueue():
    first = tf.FIFOQueue(10, [tf.string, tf.int32], shapes=[[], []])
    second = tf.FIFOQueue(10, [tf.string, tf.int32], shapes=[[], []])
    fill = first.enqueue_many([["a", "bb"], [1, 2]])
    move = second.enqueue(first.dequeue())  # the string component pulled, then enqueued
    words = tf.FIFOQueue(10, [tf.string])
    fill_words = words.enqueue_many([["x", "yz"]])
    move_word = second.enqueue([words.dequeue(), tf.constant(7)])
    with tf.Session() as sess:
        sess.run(fill)
        sess.run(move)
        sess.run(move)
        sess.run(fill_words)
        sess.run(move_word)
        # real TF: [array([b'a', b'bb'], dtype=object), array([1, 2], dtype=int32)], then
        # the moved word and its 7; the first queue empty
        strings, numbers = sess.run(second.dequeue_many(2))
        assert strings.tolist() == [b"a", b"bb"] and numbers.tolist() == [1, 2]
        assert sess.run(second.dequeue()) == [b"x", 7]
        assert sess.run(first.size()) == 0 and sess.run(words.size()) == 1


def test_queue_shapes_and_types_are_checked():
    queue = tf.FIFOQueue(3, [tf.int32], shapes=[[2]])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        queue.enqueue([[1, 2, 3]])  # real TF's message
    bare = tf.FIFOQueue(3, tf.float32)
    assert bare.dequeue().shape.dims is None and bare.shapes[0].dims is None  # real TF
    with tf.Session() as sess:
        sess.run(bare.enqueue([1.0]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="FIFOQueue's DequeueMany and "
                           "DequeueUpTo require the components to have specified shapes."):
            sess.run(bare.dequeue_many(1))  # real TF's message; the element stays
        assert sess.run(bare.dequeue()) == 1.0
    named = tf.FIFOQueue(3, [tf.int32, tf.float32], names=["a", "b"], shapes=[[], []])
    assert sorted(named.dequeue()) == ["a", "b"]  # real TF: a dict by name
    x = tf.placeholder(tf.int32, [None])
    enqueue = queue.enqueue([x])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch in tuple "
                           r"component 0. Expected \[2\], got \[3\]"):
            sess.run(enqueue, {x: [1, 2, 3]})
        assert sess.run(queue.size()) == 0


def test_random_shuffle_queue_keeps_min_after_dequeue():
    queue = tf.RandomShuffleQueue(20, 10, tf.int32, shapes=[()], seed=3)
    enqueue = queue.enqueue_many([np.arange(12, dtype=np.int32)])
    with tf.Session() as sess:
        sess.run(enqueue)
        first = sess.run(queue.dequeue_many(2)).tolist()
        assert sess.run(queue.size()) == 10  # real TF
        # real TF: a third dequeue would leave fewer than 10: it waits (here, past the run's
        # timeout)
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(queue.dequeue(), options=tf.RunOptions(timeout_in_ms=300))
        sess.run(queue.close())  # closed: min_after_dequeue no longer holds (real TF)
        rest = sess.run(queue.dequeue_many(10)).tolist()
        assert sorted(first + rest) == list(range(12)) and sess.run(queue.size()) == 0


def test_seeded_shuffle_queue_repeats_its_order_per_session():
    orders = []
    queue = tf.RandomShuffleQueue(10, 0, tf.int32, shapes=[()], seed=11)
    enqueue, dequeue = queue.enqueue_many([np.arange(8, dtype=np.int32)]), queue.dequeue_many(8)
    for _ in range(2):
        with tf.Session() as sess:
            sess.run(enqueue)
            orders.append(sess.run(dequeue).tolist())
    assert orders[0] == orders[1] and sorted(orders[0]) == list(range(8))


def test_coordinator_reraises_a_threads_exception_and_stops_cleanly_on_out_of_range():
    coord = tf.train.Coordinator()

    def fails():
        with coord.stop_on_exception():
            raise ValueError("boom")

    thread = threading.Thread(target=fails)
    thread.start()
    with pytest.raises(ValueError, match="boom"):  # real TF: join re-raises it
        coord.join([thread])
    clean = tf.train.Coordinator()
    clean.request_stop(tf.errors.OutOfRangeError(None, None, "end"))
    clean.join([])  # real TF: OutOfRangeError is a clean stop
    assert clean.should_stop() and clean.joined


def test_an_uninitialised_epoch_counter_stops_the_coordinator_with_the_error():
    with tf.Graph().as_default():
        x = tf.train.input_producer(np.arange(4), num_epochs=1, shuffle=False).dequeue()
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            # real TF: the run fails (the runner closed the queue), and join raises the
            # runner's error about the uninitialised 'epochs' variable
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(x)
            coord.request_stop()
            with pytest.raises(Exception, match="epochs"):
                coord.join(threads, stop_grace_period_secs=10)


def test_closing_the_session_stops_runners_blocked_on_a_full_queue():
    with tf.Graph().as_default():
        x = tf.train.input_producer(np.arange(100), shuffle=False, capacity=4).dequeue()
        batch = tf.train.batch([x], batch_size=2, capacity=2, num_threads=3)
        sess = tf.Session()
        try:
            threads = tf.train.start_queue_runners(sess)  # no coordinator: closing stops them
            # three threads run the same enqueue: the order between them is not fixed (in TF
            # neither), the elements are the first ones
            assert set(sess.run(batch).tolist()) <= set(range(6))
            time.sleep(0.3)  # the queues fill up; the runners wait for room
        finally:
            sess.close()
        for thread in threads:
            thread.join(5)
        assert not any(t.is_alive() for t in threads)


def test_several_threads_run_the_same_session():
    with tf.Graph().as_default():
        x, y = tf.train.slice_input_producer([np.arange(50), np.arange(50) * 3], num_epochs=1,
                                            shuffle=False)
        bx, by = tf.train.batch([x * 1, y], batch_size=5, num_threads=4, capacity=8)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            seen = []
            try:
                while True:
                    a, b = sess.run([bx, by])
                    assert (b == 3 * a).all()
                    seen.extend(a.tolist())
            except tf.errors.OutOfRangeError:
                coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    assert sorted(seen) == list(range(50))


def test_start_queue_runners_needs_a_session():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="No default session"):
        tf.train.start_queue_runners()


def test_a_program_that_never_joins_exits_and_ctrl_c_ends_a_waiting_dequeue(programs):
    code = textwrap.dedent("""
        import signal, threading, time, numpy as np, tinyflow as tf
        x = tf.train.input_producer(np.arange(10), shuffle=False, capacity=2).dequeue()
        sess = tf.Session()
        tf.train.start_queue_runners(sess)  # never joined nor stopped
        print(sess.run(x), flush=True)
        queue = tf.FIFOQueue(2, tf.float32)
        main = threading.get_ident()
        threading.Timer(0.5, lambda: signal.pthread_kill(main, signal.SIGINT)).start()
        try:
            sess.run(queue.dequeue())  # empty: waits until Ctrl-C
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """)
    result = programs.run([sys.executable, "-c", code], timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0", "interrupted"]


def _cifar_files(directory, files=2, records=5):
    """CIFAR-10's binary format: per record 1 label byte, then 3072 image bytes (depth major).
    Returns the paths, and each record's label and image (32, 32, 3) as numpy reads them."""
    rng = np.random.RandomState(0)
    paths, expected = [], []
    for f in range(files):
        chunks = []
        for r in range(records):
            label, image = f * records + r, rng.randint(0, 256, 3072).astype(np.uint8)
            chunks.append(bytes([label]) + image.tobytes())
            expected.append((label, image.reshape(3, 32, 32).transpose(1, 2, 0)))
        path = directory / f"data_batch_{f}.bin"
        path.write_bytes(b"".join(chunks))
        paths.append(str(path))
    return paths, expected


def test_cifar10_input_reads_the_binary_format(tmp_path):
    paths, expected = _cifar_files(tmp_path)

    def build():  # cifar10_input.py's read_cifar10 and batching
        filename_queue = tf.train.string_input_producer(paths, num_epochs=1, shuffle=False)
        reader = tf.FixedLengthRecordReader(record_bytes=1 + 3072)
        _, value = reader.read(filename_queue)
        record_bytes = tf.decode_raw(value, tf.uint8)
        assert record_bytes.shape.as_list() == [None]  # real TF's static shape
        label = tf.cast(tf.strided_slice(record_bytes, [0], [1]), tf.int32)
        depth_major = tf.reshape(tf.strided_slice(record_bytes, [1], [1 + 3072]), [3, 32, 32])
        image = tf.cast(tf.transpose(depth_major, [1, 2, 0]), tf.float32)
        image.set_shape([32, 32, 3])
        label.set_shape([1])
        return tf.train.batch([image, label], batch_size=3, capacity=20,
                              allow_smaller_final_batch=True)

    values, _ = _run_pipeline(build)
    # real TF: batches of 3, 3, 3 and 1, the records in the files' order
    assert [len(labels) for _, labels in values] == [3, 3, 3, 1]
    images = np.concatenate([v[0] for v in values])
    labels = np.concatenate([v[1] for v in values]).ravel()
    assert labels.tolist() == [label for label, _ in expected]
    np.testing.assert_array_equal(images, np.stack([image for _, image in expected]))
    assert images.dtype == np.float32


def test_cifar_records_through_shuffle_batch(tmp_path):
    paths, expected = _cifar_files(tmp_path, files=2, records=6)

    def build():
        queue = tf.train.string_input_producer(paths, num_epochs=2, shuffle=True, seed=3)
        _, value = tf.FixedLengthRecordReader(record_bytes=3073).read(queue)
        record = tf.decode_raw(value, tf.uint8)
        label = tf.cast(record[0], tf.int32)
        first_pixel = tf.cast(record[1], tf.int32)  # the red value of pixel (0, 0)
        return tf.train.shuffle_batch([label, first_pixel], batch_size=4, capacity=16,
                                      min_after_dequeue=6, num_threads=2, seed=4)

    values, _ = _run_pipeline(build)
    labels = np.concatenate([v[0] for v in values]).tolist()
    assert len(values) == 6 and sorted(labels) == sorted(list(range(12)) * 2)
    red = {label: int(image[0, 0, 0]) for label, image in expected}
    assert all(red[a] == b for v in values for a, b in zip(*v))  # each label with its image


def _read_all(queue, reader):
    _, value = reader.read(queue)
    return tf.shape(tf.decode_raw(value, tf.uint8))[0]


def test_text_line_and_whole_file_readers(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"head\nl1\r\nl2\n\nl4")
    (tmp_path / "b.txt").write_bytes(b"x\ny\n")
    files = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    def lines():
        queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
        return list(tf.TextLineReader(skip_header_lines=1).read(queue))

    records, _ = _run_pipeline(lines)
    # real TF: each file's header skipped, '\r\n' ends a line too, keys '<file>:<line>'
    assert [(k.decode().replace(str(tmp_path), "D"), v) for k, v in records] == [
        ("D/a.txt:2", b"l1"), ("D/a.txt:3", b"l2"), ("D/a.txt:4", b""), ("D/a.txt:5", b"l4"),
        ("D/b.txt:2", b"y")]
    sizes, _ = _run_pipeline(lambda: _read_all(
        tf.train.string_input_producer(files, num_epochs=2, seed=1), tf.WholeFileReader()))
    assert sorted(int(n) for n in sizes) == [4, 4, 15, 15]  # real TF: each file, twice


def test_decode_raw_of_strings():
    x = tf.decode_raw(tf.constant([b"\x00\x00\x80\x3f\x00\x00\x00\x40",
                                   b"\x00\x00\x40\x40\x00\x00\x80\x40"]), tf.float32)
    assert x.shape.as_list() == [2, None]  # real TF's
    odd = tf.decode_raw(tf.constant(b"\x01\x02\x03"), tf.int16)
    big = tf.decode_raw(tf.constant(b"\x00\x01"), tf.int16, little_endian=False)
    with tf.Session() as sess:
        assert sess.run(x).tolist() == [[1.0, 2.0], [3.0, 4.0]]  # real TF's
        assert sess.run(big).tolist() == [1]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input to DecodeRaw has "
                           "length 3 that is not a multiple of 2, the size of int16"):
            sess.run(odd)  # real TF's message


def test_a_missing_or_too_large_file_is_reported_by_the_coordinator(tmp_path, monkeypatch):
    from tinyflow.nnvm import host_memory
    (tmp_path / "big.bin").write_bytes(bytes(4096))
    for name, error in (("missing.bin", tf.errors.NotFoundError),
                        ("big.bin", tf.errors.ResourceExhaustedError)):
        monkeypatch.setattr(host_memory, "host_available_bytes",
                            lambda: (1000, "a test's limit"))
        with tf.Graph().as_default():
            size = _read_all(tf.train.string_input_producer([str(tmp_path / name)]),
                             tf.WholeFileReader())
            batch = tf.train.batch([size], batch_size=1)
            with tf.Session() as sess:
                coord = tf.train.Coordinator()
                threads = tf.train.start_queue_runners(sess, coord)
                with pytest.raises(tf.errors.OutOfRangeError):  # the runner closed the queue
                    while True:
                        sess.run(batch, options=tf.RunOptions(timeout_in_ms=20000))
                with pytest.raises(error, match=name):
                    coord.join(threads, stop_grace_period_secs=10)


def test_monitored_training_session_runs_the_queue_runners():
    with tf.Graph().as_default():
        x = tf.train.slice_input_producer([np.arange(10.)], num_epochs=1, shuffle=False)[0]
        batch = tf.train.batch([x], batch_size=5)
        seen = []
        # TF's monitored sessions start the graph's queue runners with a coordinator, run the
        # local init op (the epoch counter), and end the with block quietly at the input's end
        with tf.train.MonitoredTrainingSession() as sess:
            while not sess.should_stop():
                seen.append(sess.run(batch).tolist())
    assert seen == [[0., 1., 2., 3., 4.], [5., 6., 7., 8., 9.]]
