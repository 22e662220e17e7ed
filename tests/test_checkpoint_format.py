"""TensorFlow's V2 checkpoint format (tinyflow/frontend/checkpoint_format.py) and the Saver over it.

The golden files under tests/data/tf_checkpoint/ were written by real TensorFlow 2.21's
``tf.compat.v1.train.Saver`` (``tools/checkpoint_golden.py`` says exactly how): TinyFlow must
restore them to the values TensorFlow's session held (``expected.npz``, also TensorFlow's), and
its own save of those values must be the same bytes.  crc32c is checked against the standard's
test vectors and a plain byte-at-a-time reference.
"""
import json
import os
import shutil
import struct

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend import checkpoint_format as fmt
from tinyflow.frontend.saver import CheckpointError, Saver
from tinyflow.nnvm.errors import GraphError

GOLDEN = os.path.join(os.path.dirname(__file__), "data", "tf_checkpoint")
EXPECTED = dict(np.load(os.path.join(GOLDEN, "expected.npz")))
PLAIN = ["layer/w", "layer/b", "d64", "i32", "global_step", "flags", "pixels", "half"]

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _expected(name):
    return EXPECTED[name.replace("/", "|")]


def _reference_crc32c(data: bytes) -> int:
    """CRC-32C bit by bit, straight from its definition (reflected polynomial 0x82F63B78)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


# -- crc32c --------------------------------------------------------------------------------------
def test_crc32c_known_vectors():
    assert fmt.crc32c(b"123456789") == 0xE3069283  # the check value of CRC-32C
    assert fmt.crc32c(b"") == 0
    assert fmt.crc32c(bytes(32)) == 0x8A9136AA  # RFC 3720 (iSCSI) B.4: 32 bytes of zeros
    assert fmt.crc32c(b"\xff" * 32) == 0x62A8AB43  # 32 bytes of ones
    assert fmt.crc32c(bytes(range(32))) == 0x46DD794E  # incrementing
    assert fmt.crc32c(bytes(range(31, -1, -1))) == 0x113FDB5C  # RFC 3720 B.4: decrementing
    read_pdu = bytes.fromhex("01c00000000000000000000000000000" "14000000000004000000001400000018"
                             "28000000000000000200000000000000")
    assert fmt.crc32c(read_pdu) == 0xD9963A56  # RFC 3720 B.4: an iSCSI SCSI Read (10) PDU


@pytest.mark.parametrize("size", [1, 255, 256, 257, 1023, 1024, 3 * 1024 + 17, 8 * 1024 - 1,
                                  8 * 1024, 8 * 1024 + 3, 1 << 20, 4096 * 1024 + 1000,
                                  3 * 4096 * 1024 + 5])
def test_crc32c_against_a_bitwise_reference(size):
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes()
    if size > 100_000:  # the reference is slow: compare the large sizes through linearity
        assert fmt.crc32c(data) == fmt._raw_crc(data, 0xFFFFFFFF) ^ 0xFFFFFFFF
        assert fmt._raw_crc(data[:5000], 0xFFFFFFFF) ^ 0xFFFFFFFF == \
            _reference_crc32c(data[:5000])
    else:
        assert fmt.crc32c(data) == _reference_crc32c(data)


def test_masking_round_trips():
    for crc in (0, 1, 0xE3069283, 0xFFFFFFFF):
        assert fmt.unmask_crc(fmt.mask_crc(crc)) == crc
    assert fmt.mask_crc(0) == 0xA282EAD8  # leveldb's kMaskDelta


# -- the golden files: TensorFlow's bytes --------------------------------------------------------
def _golden(name):
    with open(os.path.join(GOLDEN, name), "rb") as file:
        return file.read()


def test_the_golden_index_reads_as_tensorflow_wrote_it():
    shards, entries = fmt.read_index(_golden("model-2.index"))
    assert shards == 1
    assert sorted(entries) == sorted(
        PLAIN + ["beta1_power", "beta2_power", "layer/w/Adam", "layer/w/Adam_1",
                 "layer/b/Adam", "layer/b/Adam_1"])
    data = _golden("model-2.data-00000-of-00001")
    for name, entry in entries.items():
        array = np.frombuffer(data[entry.offset:entry.offset + entry.size], entry.dtype)
        np.testing.assert_array_equal(array.reshape(entry.shape), _expected(name))
        assert entry.dtype == _expected(name).dtype.name


def test_writing_the_same_values_gives_tensorflows_bytes(tmp_path):
    arrays = {name: _expected(name) for name in PLAIN}
    with open(tmp_path / "data", "wb") as data:
        index = fmt.write_index(arrays, data)
    assert index == _golden("plain.index")
    assert (tmp_path / "data").read_bytes() == _golden("plain.data-00000-of-00001")


def test_tables_of_many_blocks_round_trip():
    # past the 256 KiB block size, with shared prefixes and restart points every 16 keys
    items = [(f"layer{i // 7}/w{i:05d}".encode(), bytes([i % 251]) * (i * 37 % 3000))
             for i in range(600)]
    items.sort()
    table = fmt.write_table(items)
    assert fmt.read_table(table) == dict(items)


# -- the Saver against the golden files ----------------------------------------------------------
def _golden_graph():
    """TensorFlow's graph of tools/checkpoint_golden.py, in TinyFlow."""
    x, y = EXPECTED["x"], EXPECTED["y"]
    with tf.variable_scope("layer"):
        w = tf.Variable(np.zeros((3, 4), np.float32), name="w")
        b = tf.Variable(np.zeros(4, np.float32), name="b")
    others = [tf.Variable(np.zeros((2, 2)), name="d64"),
              tf.Variable(np.zeros(5, np.int32), name="i32"),
              tf.train.get_or_create_global_step(),
              tf.Variable(np.zeros(3, bool), name="flags"),
              tf.Variable(np.zeros((2, 3), np.uint8), name="pixels"),
              tf.Variable(np.zeros(3, np.float16), name="half")]
    loss = tf.reduce_sum(tf.square(tf.matmul(tf.constant(x), w) + b - tf.constant(y)))
    train = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=others[2])
    return [w, b, *others], train


def _copy_golden(tmp_path):
    for name in os.listdir(GOLDEN):
        shutil.copy(os.path.join(GOLDEN, name), tmp_path / name)
    return str(tmp_path / "model-2")


def test_tensorflows_checkpoint_restores_exactly_and_trains_on(tmp_path):
    variables, train = _golden_graph()
    prefix = _copy_golden(tmp_path)
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix
    sess = tf.Session()
    Saver().restore(sess, prefix)
    for var, name in zip(variables, PLAIN):
        value = sess.run(var)
        assert value.dtype == _expected(name).dtype
        np.testing.assert_array_equal(value, _expected(name))
    by_name = {v.op.name: v for v in tf.global_variables()}  # TF's names, TinyFlow's too
    for name in ["beta1_power", "beta2_power", "layer/w/Adam", "layer/w/Adam_1",
                 "layer/b/Adam", "layer/b/Adam_1"]:
        np.testing.assert_array_equal(sess.run(by_name[name]), _expected(name))
    # TensorFlow's third step (its ApplyAdam, as TinyFlow's), to float32 rounding
    sess.run(train)
    np.testing.assert_allclose(sess.run(variables[0]), EXPECTED["w_step3"], rtol=1e-6)
    np.testing.assert_allclose(sess.run(variables[1]), EXPECTED["b_step3"], rtol=1e-6)
    assert sess.run(variables[4]) == 3
    # 0.9 ** 4 as TF's float32 products 0.9 * 0.9 * 0.9 * 0.9 (the next step's power)
    powers = np.multiply.accumulate(np.full(4, np.float32(0.9)))
    assert sess.run(by_name["beta1_power"]) == powers[-1]


def test_tinyflows_save_is_tensorflows_checkpoint(tmp_path):
    variables, _ = _golden_graph()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for var, name in zip(variables, PLAIN):
        sess.run(tf.assign(var, _expected(name)))
    Saver(variables).save(sess, tmp_path / "plain", write_state=False)
    assert (tmp_path / "plain.index").read_bytes() == _golden("plain.index")
    assert (tmp_path / "plain.data-00000-of-00001").read_bytes() == \
        _golden("plain.data-00000-of-00001")
    # the whole graph: TensorFlow's names for the slots and Adam's step
    Saver().restore(sess, _copy_golden(tmp_path))
    path = Saver().save(sess, tmp_path / "again" / "model", global_step=2)  # makes the folder
    assert path == str(tmp_path / "again" / "model-2")
    _shards, entries = fmt.read_index((tmp_path / "again" / "model-2.index").read_bytes())
    golden = fmt.read_index(_golden("model-2.index"))[1]
    assert {n: (e.dtype, e.shape) for n, e in entries.items()} == \
        {n: (e.dtype, e.shape) for n, e in golden.items()}
    reader = tf.train.NewCheckpointReader(path)
    for name in golden:  # beta1_power = 0.9 ** 2 in float32 is TensorFlow's 0.9 * 0.9
        np.testing.assert_array_equal(reader.get_tensor(name), _expected(name))


def test_tensorflow_2s_object_checkpoint_restores_by_its_keys():
    v = tf.Variable(np.zeros(3, np.float32), name="v")
    prefix = os.path.join(GOLDEN, "object-1")
    entries = fmt.read_index(_golden("object-1.index"))[1]
    assert entries["_CHECKPOINTABLE_OBJECT_GRAPH"].dtype == "string"  # not needed...
    sess = tf.Session()
    Saver({"v/.ATTRIBUTES/VARIABLE_VALUE": v}).restore(sess, prefix)
    np.testing.assert_array_equal(sess.run(v), [1.5, -2.0, 3.25])  # tools/checkpoint_golden.py
    graph = tf.train.load_variable(prefix, "_CHECKPOINTABLE_OBJECT_GRAPH")  # ...but read
    assert graph.shape == () and b"v/.ATTRIBUTES/VARIABLE_VALUE" in graph[()]
    assert tf.train.list_variables(prefix) == [("_CHECKPOINTABLE_OBJECT_GRAPH", []),
                                               ("v/.ATTRIBUTES/VARIABLE_VALUE", [3])]


def test_reader_and_list_variables(tmp_path):
    _copy_golden(tmp_path)
    listed = tf.train.list_variables(str(tmp_path))
    assert listed[:3] == [("beta1_power", []), ("beta2_power", []), ("d64", [2, 2])]
    reader = tf.train.load_checkpoint(str(tmp_path / "model-2"))
    assert reader.get_variable_to_shape_map()["layer/w"] == [3, 4]
    assert reader.get_variable_to_dtype_map()["pixels"] == tf.uint8
    assert reader.has_tensor("half") and not reader.has_tensor("nope")
    np.testing.assert_array_equal(tf.train.load_variable(str(tmp_path), "i32:0"),
                                  _expected("i32"))
    with pytest.raises(tf.errors.NotFoundError, match="nope"):
        reader.get_tensor("nope")


# -- hostile files: a clear error naming file and variable, nothing changed -----------------------
def _corrupt_index(index: bytes, name: str, edit) -> bytes:
    """The index with the entry ``name`` replaced by ``edit(entry)`` (an index rebuilt with
    valid block checksums, so the entry's own content is what is wrong)."""
    table = fmt.read_table(index)
    table[name.encode()] = edit(table[name.encode()])
    return fmt.write_table(sorted(table.items()))


def _entry(dtype=1, shape=(3, 4), offset=0, size=48, crc=0):
    dims = b"".join(fmt._field(2, fmt._field(1, d)) for d in shape)
    return (fmt._field(1, dtype) + fmt._field(2, dims) + fmt._field(4, offset)
            + fmt._field(5, size) + struct.pack("<BI", 6 << 3 | 5, crc))


def _hostile(kind, index: bytes, data: bytes):
    """(index, data) corrupted as ``kind`` says, and what the error says."""
    entries = fmt.read_index(index)[1]
    w = entries["layer/w"]
    if kind == "truncated index":
        return index[:-10], data, "bad magic"
    if kind == "wrong magic":
        return index[:-1] + b"\0", data, "bad magic"
    if kind == "block checksum":
        flipped = bytearray(index)
        flipped[20] ^= 1
        return bytes(flipped), data, "checksum mismatch"
    if kind == "data checksum":
        flipped = bytearray(data)
        flipped[w.offset + 5] ^= 0x40
        return index, bytes(flipped), "layer/w.*do not match their checksum"
    if kind == "truncated data":
        return index, data[:w.offset + 10], "layer/w.*run past the end"
    if kind == "offset past the end":
        return _corrupt_index(index, "layer/w", lambda _: _entry(offset=10**6, crc=w.crc32c)), \
            data, "layer/w.*offset 1000000 run past the end"
    if kind == "huge size":
        return _corrupt_index(index, "layer/w", lambda _: _entry(
            shape=(2**40, 2**20), size=2**62, crc=w.crc32c)), data, "layer/w.*shape"
    if kind == "size not the shape's":
        return _corrupt_index(index, "layer/w", lambda _: _entry(size=40)), data, \
            "layer/w.*40 bytes, not the 48"
    if kind == "dtype mismatch":
        return _corrupt_index(index, "layer/w", lambda _: _entry(dtype=2, size=96)), data, \
            "layer/w.*dtype float64 in the file but float32"
    if kind == "shape mismatch":
        return _corrupt_index(index, "layer/w", lambda _: _entry(shape=(4, 3))), data, \
            r"layer/w.*shape \[4, 3\] in the file but \[3, 4\]"
    if kind == "bad protobuf":
        return _corrupt_index(index, "layer/w", lambda e: e[:-3] + b"\x12\xff"), data, \
            "layer/w"
    if kind == "bool not 0 or 1":
        flags = entries["flags"]
        changed = bytearray(data)
        changed[flags.offset] = 7
        crc = fmt.mask_crc(fmt.crc32c(bytes(changed[flags.offset:flags.offset + 3])))
        return _corrupt_index(index, "flags", lambda _: _entry(
            dtype=10, shape=(3,), offset=flags.offset, size=3, crc=crc)), bytes(changed), \
            "flags.*neither 0 nor 1"
    if kind == "missing variable":
        table = fmt.read_table(index)
        del table[b"layer/w"]
        return fmt.write_table(sorted(table.items())), data, "layer/w.*is not in the file"
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", [
    "truncated index", "wrong magic", "block checksum", "data checksum", "truncated data",
    "offset past the end", "huge size", "size not the shape's", "dtype mismatch",
    "shape mismatch", "bad protobuf", "bool not 0 or 1", "missing variable"])
def test_a_hostile_checkpoint_is_a_clear_error_and_changes_nothing(tmp_path, kind):
    _variables, _ = _golden_graph()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    before = {v.op.name: sess.run(v) for v in tf.global_variables()}
    index, data, message = _hostile(kind, _golden("model-2.index"),
                                    _golden("model-2.data-00000-of-00001"))
    (tmp_path / "bad.index").write_bytes(index)
    (tmp_path / "bad.data-00000-of-00001").write_bytes(data)
    with pytest.raises(CheckpointError, match=f"bad.*{message}"):
        Saver().restore(sess, str(tmp_path / "bad"))
    for v in tf.global_variables():
        np.testing.assert_array_equal(sess.run(v), before[v.op.name])


def test_a_checkpoint_past_max_restore_bytes_is_refused(tmp_path):
    _golden_graph()
    sess = tf.Session()
    with pytest.raises(CheckpointError, match="layer/w.*needs 96 bytes"):
        Saver(max_restore_bytes=600).restore(sess, _copy_golden(tmp_path))
    with pytest.raises(CheckpointError, match="index file needs 464 bytes"):
        Saver(max_restore_bytes=100).restore(sess, str(tmp_path / "model-2"))


def test_missing_data_file_and_snappy_blocks(tmp_path):
    _golden_graph()
    sess = tf.Session()
    prefix = _copy_golden(tmp_path)
    os.unlink(prefix + ".data-00000-of-00001")
    with pytest.raises(CheckpointError, match="data-00000-of-00001', which is missing"):
        Saver().restore(sess, prefix)
    contents = fmt._BlockBuilder(16)
    contents.add(b"", b"x")
    block = contents.finish() + b"\x01"  # snappy-compressed, which TensorFlow never writes
    table = block + struct.pack("<I", fmt.mask_crc(fmt.crc32c(block)))
    index = fmt._BlockBuilder(1)
    index.add(b"\x01", fmt._varint(0) + fmt._varint(len(block) - 1))
    index_block = index.finish() + b"\0"
    handles = (fmt._varint(0) + fmt._varint(0) + fmt._varint(len(table))
               + fmt._varint(len(index_block) - 1))
    table += index_block + struct.pack("<I", fmt.mask_crc(fmt.crc32c(index_block)))
    table += handles + bytes(40 - len(handles)) + struct.pack("<Q", fmt.MAGIC)
    with pytest.raises(fmt.FormatError, match="snappy"):
        fmt.read_table(table)


# -- a LeNet-like model: save, then a new graph from the .meta file, restore, train on ---------------
def _lenet():
    x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="x")
    labels = tf.placeholder(tf.float32, [None, 3], name="labels")
    h = tf.layers.conv2d(x, 4, 3, activation=tf.nn.relu, name="conv1")
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.dense(tf.reshape(h, [-1, 3 * 3 * 4]), 8, activation=tf.nn.relu, name="fc1")
    logits = tf.layers.dense(h, 3, name="fc2")
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels,
                                                                      logits=logits), name="loss")
    step = tf.train.get_or_create_global_step()
    train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=step)
    tf.add_to_collection("train_op", train)
    return x, labels, loss, train


def test_lenet_with_adam_restored_from_its_meta_graph_trains_on_identically(tmp_path):
    rng = np.random.default_rng(6)
    xs = rng.standard_normal((16, 8, 8, 1)).astype(np.float32)
    ys = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 16)]
    x, labels, loss, train = _lenet()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train, {x: xs, labels: ys})
    path = Saver().save(sess, tmp_path / "lenet", global_step=tf.train.get_global_step())
    names = sorted(tf.train.NewCheckpointReader(path).get_variable_to_shape_map())
    assert names == sorted(["beta1_power", "beta2_power", "global_step"] + [
        f"{layer}/{kind}{slot}" for layer in ("conv1", "fc1", "fc2")
        for kind in ("kernel", "bias") for slot in ("", "/Adam", "/Adam_1")])
    uninterrupted = [sess.run([loss, train], {x: xs, labels: ys})[0] for _ in range(3)]
    weights = {v.op.name: sess.run(v) for v in tf.global_variables()}

    tf.reset_default_graph()
    saver = tf.train.import_meta_graph(path + ".meta")
    graph = tf.get_default_graph()
    fresh = tf.Session()
    saver.restore(fresh, path)
    x, labels = graph.get_tensor_by_name("x:0"), graph.get_tensor_by_name("labels:0")
    loss, train = graph.get_tensor_by_name("loss:0"), tf.get_collection("train_op")[0]
    resumed = [fresh.run([loss, train], {x: xs, labels: ys})[0] for _ in range(3)]
    assert resumed == uninterrupted  # bit for bit
    for v in tf.global_variables():
        np.testing.assert_array_equal(fresh.run(v), weights[v.op.name], err_msg=v.op.name)
    assert fresh.run(tf.train.get_global_step()) == 6


def test_a_graph_with_a_python_function_saves_without_a_meta_graph(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    tf.py_func(lambda a: a * 2, [v], tf.float32)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    with pytest.warns(UserWarning, match="no meta graph .* written beside"):
        path = Saver().save(sess, tmp_path / "model")
    with pytest.raises(GraphError, match="node 'PyFunc' \\(op 'py_func'\\) holds a Python object"):
        tf.train.export_meta_graph()
    assert not os.path.exists(path + ".meta")
    assert tf.train.list_variables(path) == [("v", [2])]


@pytest.mark.parametrize("edit, message", [
    (lambda doc: "not json {", "cannot read"),
    (lambda doc: {**doc, "tinyflow_meta_graph": 2}, "not a TinyFlow meta graph"),
    (lambda doc: {**doc, "graph": "[1, 2"}, "bad graph JSON"),
    (lambda doc: {**doc, "variables": [{"name": "nowhere"}]}, "names no variable node"),
    (lambda doc: {**doc, "variables": [{**doc["variables"][0], "initial_value": ["w", 7]}]},
     "not an output of a node"),
    (lambda doc: {**doc, "collections": {"train_op": [{"entries": [["w", -1]]}]}},
     "not an output of a node"),
    (lambda doc: {**doc, "collections": {"variables": [{"variable": "ghost"}]}},
     "names no variable"),
])
def test_a_malformed_meta_graph_is_a_clear_error_and_changes_nothing(tmp_path, edit, message):
    tf.Variable([1.0, 2.0], name="w")
    doc = tf.train.export_meta_graph()
    tf.reset_default_graph()
    bad = edit(doc)
    (tmp_path / "bad.meta").write_text(bad if isinstance(bad, str) else json.dumps(bad))
    graph = tf.get_default_graph()
    with pytest.raises(GraphError, match=message):
        tf.train.import_meta_graph(str(tmp_path / "bad.meta"))
    assert graph.get_operations() == [] and tf.global_variables() == []
    tf.train.import_meta_graph(doc)  # the good one imports; twice is a clash of names
    with pytest.raises(GraphError, match="already has a node named"):
        tf.train.import_meta_graph(doc)
