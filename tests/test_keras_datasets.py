"""tf.keras.datasets, tf.keras.utils' get_file (keras/data_utils.py) and the safe reading of
pickled data set files: small files in each data set's exact format (keras_dataset_files.py)
served from 127.0.0.1, cached under tmp_path ($KERAS_HOME), never the internet or ~/.keras.

The expected values are what TF 2.21's tf_keras loaders (tf.compat.v1, TF_USE_LEGACY_KERAS=1)
returned for the same files, recorded as literals."""
import hashlib
import http.server
import io
import os
import pickle
import random
import tarfile
import threading
import zipfile
from functools import partial
from types import MappingProxyType

import numpy as np
import pytest
from keras_dataset_files import all_files, cifar10_tar, mnist_npz, npz, tar_gz, word_lists

import tinyflow as tf
from tinyflow.datasets import DatasetError, sources
from tinyflow.frontend.keras.data_utils import get_file, validate_file
from tinyflow.frontend.keras.datasets import images
from tinyflow.frontend.keras.datasets.safe_pickle import read_pickle


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.requests.append(self.path)
        super().do_GET()


@pytest.fixture(scope="module")
def files():
    return all_files()


@pytest.fixture
def server(tmp_path, monkeypatch, files):
    """A server of the data set files; Keras' cache in tmp_path; their hashes expected."""
    root = tmp_path / "served"
    root.mkdir()
    for name, data in files.items():
        (root / name).write_bytes(data)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            partial(_Handler, directory=str(root)))
    httpd.requests = []
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_port}/"
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(images, "KERAS_DATASETS_URL", url)
    monkeypatch.setattr(images, "CIFAR_URL", url)
    monkeypatch.setattr(images, "FILE_HASHES", MappingProxyType({
        name: (hashlib.md5 if name.endswith(".json") else hashlib.sha256)(data).hexdigest()
        for name, data in files.items() if "ubyte" not in name}))
    try:
        yield url, httpd.requests, root
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def _lists(array):
    assert array.dtype == object and array.ndim == 1
    return [list(x) for x in array]


# TF 2.21 compat.v1 (tf_keras) imdb.load_data on keras_dataset_files.imdb_npz():
# defaults, then num_words=20, skip_top=3, seed=7, index_from=2
IMDB = ([[1, 2, 5], [1, 27, 4, 27, 17, 18, 22], [1, 7, 5, 4], [1, 15, 20], [1], [1, 2]],
        [0, 1, 1, 0, 1, 0],
        [[1, 5, 31, 20, 30, 11], [1, 22], [1, 10, 12, 16, 11, 2, 9], [1, 29, 9, 5],
         [1, 27, 28, 7, 15, 22, 18, 23, 23]], [0, 0, 1, 1, 1])
IMDB_NUM_WORDS = ([[2, 6, 4, 3], [2, 2], [2, 2, 3, 2, 16, 17, 2], [2, 14, 19], [2, 2, 4], [2]],
                  [1, 0, 1, 0, 0, 1],
                  [[2, 4, 2, 19, 2, 10], [2, 2, 8, 4], [2, 2, 2, 6, 14, 2, 17, 2, 2],
                   [2, 9, 11, 15, 10, 2, 8], [2, 2]], [0, 1, 1, 1, 0])
# maxlen=8, start_char=None, oov_char=None, num_words=25
IMDB_MAXLEN = ([[5], [4, 17, 18, 22], [7, 5, 4], [15, 20], [], []], [0, 1, 1, 0, 1, 0],
               [[5, 20, 11], [22], [10, 12, 16, 11, 9], [9, 5]], [0, 0, 1, 1])


@pytest.mark.parametrize("kwargs, expected", [
    ({}, IMDB), ({"num_words": 20, "skip_top": 3, "seed": 7, "oov_char": 2, "index_from": 2},
                 IMDB_NUM_WORDS),
    ({"maxlen": 8, "start_char": None, "oov_char": None, "num_words": 25}, IMDB_MAXLEN)])
def test_imdb_equals_tensorflows(server, kwargs, expected):
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.imdb.load_data(**kwargs)
    assert (_lists(x_train), y_train.tolist(), _lists(x_test), y_test.tolist()) == expected
    assert y_train.dtype == np.int64 and all(type(w) is int for w in x_train[1])


def test_imdb_reviews_stored_as_arrays_or_of_one_length(server, monkeypatch):
    _, _, root = server
    rng = np.random.default_rng(5)  # keras_dataset_files.imdb_npz's reviews, as int32 arrays
    x_train, x_test = word_lists(rng, 6), word_lists(rng, 5)
    arrays = {name: np.empty(len(x), dtype=object) for name, x in (("x_train", x_train),
                                                                    ("x_test", x_test))}
    for name, x in (("x_train", x_train), ("x_test", x_test)):
        for i, review in enumerate(x):
            arrays[name][i] = np.array(review, np.int32)
    (root / "imdb.npz").write_bytes(npz(y_train=np.array([1, 0, 0, 1, 1, 0]),
                                        y_test=np.array([0, 1, 1, 0, 1]), **arrays))
    monkeypatch.setattr(images, "FILE_HASHES", {})
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.imdb.load_data()
    assert (_lists(x_train), y_train.tolist(), _lists(x_test), y_test.tolist()) == IMDB
    # reviews all of one length: np.array of them is a matrix, int64 as with TF 1.15's numpy
    # (TF 2.21 gives the values [[1, 9, 2], [1, 7, 8]] as an object matrix)
    same = np.empty(2, dtype=object)
    same[0], same[1] = [4, 5], [6, 7]
    (root / "imdb.npz").write_bytes(npz(x_train=same, y_train=np.arange(2), x_test=same,
                                        y_test=np.arange(2)))
    os.remove(os.path.join(os.environ["KERAS_HOME"], "datasets", "imdb.npz"))
    (x_train, _), _ = tf.keras.datasets.imdb.load_data(seed=0)
    assert x_train.dtype == np.int64 and x_train.tolist() == [[1, 9, 2], [1, 7, 8]]


def test_imdb_errors_and_word_index(server):
    with pytest.raises(ValueError, match="no sequence was kept. Increase maxlen"):
        tf.keras.datasets.imdb.load_data(maxlen=1)
    with pytest.raises(TypeError, match="Unrecognized keyword arguments"):
        tf.keras.datasets.imdb.load_data(bogus=1)
    # TF: {'the': 1, 'and': 2, 'a': 3, 'film': 19}; the md5 of FILE_HASHES checked
    assert tf.keras.datasets.imdb.get_word_index() == {"the": 1, "and": 2, "a": 3, "film": 19}
    assert tf.keras.datasets.reuters.get_word_index()["film"] == 19


def test_reuters_equals_tensorflows(server):
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.reuters.load_data()
    assert _lists(x_train) == [[1, 28, 26, 8, 19], [1, 7, 21, 5, 29], [1, 19, 22, 26],
                               [1, 23, 14, 17], [1, 19, 19, 13, 31], [1, 26],
                               [1, 28, 4, 2, 2, 20, 27, 26], [1, 20]]
    assert y_train.tolist() == [26, 39, 43, 4, 2, 20, 9, 5]
    assert _lists(x_test) == [[1, 9, 22, 16, 23, 25, 13, 23, 23], [1, 8, 5, 11, 10, 19, 28, 25]]
    assert y_test.tolist() == [21, 6]
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.reuters.load_data(
        test_split=0.3, seed=1, maxlen=7, num_words=15)
    assert _lists(x_train) == [[1, 2, 2, 8, 2], [1, 2, 2, 2], [1, 2, 2, 13, 2], [1, 7, 2, 5, 2]]
    assert (y_train.tolist(), _lists(x_test), y_test.tolist()) == (
        [26, 43, 2, 39], [[1, 2, 14, 2], [1, 2], [1, 2]], [4, 20, 5])


def test_boston_housing_equals_tensorflows(server):
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.boston_housing.load_data()
    assert x_train.shape == (5, 13) and x_train.dtype == np.float64
    np.testing.assert_allclose(x_train.sum(1), [648.5, 701.21, 662.48, 572.88, 557.11])
    assert y_train.tolist() == [23.4, 16.1, 43.8, 18.6, 27.4] and y_test.tolist() == [37.6, 1.3]
    assert x_test[1].tolist()[:3] == [23.96, 40.25, 9.67]
    (_, y_train), (_, y_test) = tf.keras.datasets.boston_housing.load_data(test_split=0.5,
                                                                           seed=3)
    assert (y_train.tolist(), y_test.tolist()) == ([37.6, 18.6, 1.3], [16.1, 23.4, 43.8, 27.4])


def test_mnist_and_fashion_mnist_equal_tensorflows(server):
    _url, requests, _ = server
    for module, labels, sums in ((tf.keras.datasets.mnist, ([5, 0, 4], [7, 2]),
                                  (297436, 200459)),
                                 (tf.keras.datasets.fashion_mnist, ([9, 0, 3], [1, 8]),
                                  (298793, 204470))):
        (x_train, y_train), (x_test, y_test) = module.load_data()
        assert [(a.dtype, a.shape) for a in (x_train, y_train, x_test, y_test)] == [
            (np.uint8, (3, 28, 28)), (np.uint8, (3,)), (np.uint8, (2, 28, 28)),
            (np.uint8, (2,))]
        assert (y_train.tolist(), y_test.tolist()) == labels
        assert (int(x_train.sum()), int(x_test.sum())) == sums
    cache = os.environ["KERAS_HOME"]
    assert os.path.isfile(os.path.join(cache, "datasets", "mnist.npz"))
    assert os.path.isfile(os.path.join(cache, "datasets", "fashion-mnist",
                                       "t10k-labels-idx1-ubyte.gz"))
    count = len(requests)
    tf.keras.datasets.mnist.load_data()
    assert len(requests) == count  # cached: not downloaded again


def test_cifar100_equals_tensorflows(server):
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar100.load_data("coarse")
    assert [(a.dtype, a.shape) for a in (x_train, y_train, x_test, y_test)] == [
        (np.uint8, (3, 32, 32, 3)), (np.int64, (3, 1)), (np.uint8, (2, 32, 32, 3)),
        (np.int64, (2, 1))]
    assert (y_train.tolist(), y_test.tolist()) == ([[10], [18], [19]], [[7], [3]])
    assert (int(x_train.sum()), int(x_test.sum()), int(x_train[1, 2, 3, 1])) == (
        1180842, 784129, 59)
    (_, y_train), (_, y_test) = tf.keras.datasets.cifar100.load_data()
    assert (y_train.tolist(), y_test.tolist()) == ([[72], [94], [88]], [[90], [76]])
    with pytest.raises(ValueError, match="label_mode"):
        tf.keras.datasets.cifar100.load_data("medium")


def test_cifar10_batches_equal_tensorflows(server, monkeypatch):
    # TF's load_data needs 10000 images a batch; its load_batch on the small batches gave
    # data_batch_2: labels [5, 0], pixel sum 793377, x[1, 2, 3, 4] 213; test_batch [4, 9]
    monkeypatch.setattr(images, "CIFAR10_BATCH_SIZE", 2)
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar10.load_data()
    assert [(a.dtype, a.shape) for a in (x_train, y_train, x_test, y_test)] == [
        (np.uint8, (10, 32, 32, 3)), (np.uint8, (10, 1)), (np.uint8, (2, 32, 32, 3)),
        (np.uint8, (2, 1))]
    batch2 = x_train[2:4].transpose(0, 3, 1, 2)
    assert (y_train[2:4, 0].tolist(), int(batch2.sum()), int(batch2[1, 2, 3, 4])) == (
        [5, 0], 793377, 213)
    assert y_test[:, 0].tolist() == [4, 9] and int(x_test.sum()) == 779495
    monkeypatch.setattr(images, "CIFAR10_BATCH_SIZE", 3)
    with pytest.raises(DatasetError, match="does not hold 3 images"):
        tf.keras.datasets.cifar10.load_data()


# ---------------------------------------------------------------------------
# get_file


def test_get_file_caches_checks_hashes_and_extracts(server, tmp_path):
    url, requests, root = server
    data = (root / "mnist.npz").read_bytes()
    md5, sha = hashlib.md5(data).hexdigest(), hashlib.sha256(data).hexdigest()
    cache = tmp_path / "c"
    path = get_file("m.npz", url + "mnist.npz", md5_hash=md5, cache_dir=str(cache))
    assert path == str(cache / "datasets" / "m.npz") and validate_file(path, sha)
    assert validate_file(path, md5) and not validate_file(path, md5, algorithm="sha256")
    (cache / "datasets" / "m.npz").write_bytes(b"stale")  # a wrong cached file: again
    get_file("m.npz", url + "mnist.npz", file_hash=sha, cache_dir=str(cache))
    assert (cache / "datasets" / "m.npz").read_bytes() == data and len(requests) == 2
    with pytest.raises(ValueError, match="sha256 file hash does not match"):
        get_file("n.npz", url + "mnist.npz", file_hash="0" * 64, cache_dir=str(cache))
    assert sorted(os.listdir(cache / "datasets")) == ["m.npz"]  # no partial file left
    folder = get_file("cifar-10-batches-py", url + "cifar-10-python.tar.gz", untar=True,
                      cache_dir=str(cache))
    assert sorted(os.listdir(folder))[:2] == ["data_batch_1", "data_batch_2"]
    (root / "z.zip").write_bytes(_zip({"inner/a.txt": b"hi"}))
    get_file("z.zip", url + "z.zip", extract=True, cache_dir=str(cache), cache_subdir="zips")
    assert (cache / "zips" / "inner" / "a.txt").read_bytes() == b"hi"


def test_get_file_download_failures_name_the_url(server, tmp_path, monkeypatch):
    url, _, _ = server
    with pytest.raises(DatasetError, match=r"URL fetch failure on .*missing.npz: HTTP Error 404"):
        get_file("x", url + "missing.npz", cache_dir=str(tmp_path))
    monkeypatch.setattr(sources, "DOWNLOAD_MAX_BYTES", 100)
    with pytest.raises(DatasetError, match=r"more than the 100 allowed \(max_bytes\)"):
        get_file("y", url + "mnist.npz", cache_dir=str(tmp_path))
    assert os.listdir(tmp_path / "datasets") == []


def _zip(members) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _tar_with_link(name, target, kind=tarfile.SYMTYPE) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        info = tarfile.TarInfo(name)
        info.type, info.linkname = kind, target
        archive.addfile(info)
    return buffer.getvalue()


@pytest.mark.parametrize("name, data, why", [
    ("up.tar.gz", tar_gz({"ok.txt": b"1", "../escaped.txt": b"x"}), "outside the folder"),
    ("abs.tar.gz", tar_gz({"/tmp/absolute.txt": b"x"}), "outside the folder"),
    ("link.tar", _tar_with_link("link", "/etc/passwd"), "a link"),
    ("hard.tar", _tar_with_link("hard", "../../x", tarfile.LNKTYPE), "a link"),
    ("up.zip", _zip({"ok.txt": b"1", "../escaped.txt": b"x"}), "outside the folder"),
], ids=["dotdot", "absolute", "symlink", "hardlink", "zip-dotdot"])
def test_a_hostile_archive_is_refused_and_nothing_extracted(server, tmp_path, name, data, why):
    url, _, root = server
    (root / name).write_bytes(data)
    with pytest.raises(ValueError, match=why):
        get_file(name, url + name, extract=True, cache_dir=str(tmp_path / "c"))
    assert os.listdir(tmp_path / "c" / "datasets") == [name]
    assert not (tmp_path / "c" / "escaped.txt").exists()


# ---------------------------------------------------------------------------
# Reading pickles without pickle


def test_safe_pickle_reads_data_and_refuses_code_and_huge_arrays():
    obj = {"a": [1, -2, 2 ** 40, -2 ** 70, 3.5, None, True, "é", b"x" * 300],
           "arr": np.arange(12, dtype=">i4").reshape(3, 4), "f": np.asfortranarray(np.eye(2))}
    for protocol in (2, 3, 4, 5):
        got = read_pickle(pickle.dumps(obj, protocol=protocol))
        assert got["a"] == obj["a"] and got["arr"].dtype == np.dtype(">i4")
        np.testing.assert_array_equal(got["arr"], obj["arr"])
        np.testing.assert_array_equal(got["f"], obj["f"])
    refused = [b"cos\nsystem\n(S'echo hi'\ntR.", pickle.dumps(print),
               pickle.dumps(np.ndarray),
               # ndarray((10**12,)) and _reconstruct of a terabyte: never allocated
               b"\x80\x02cnumpy\nndarray\nJ\x00\x10\xa5\xd4\x85R.",
               (b"\x80\x02cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\n"
               b"\x8a\x06\x00\x10\xa5\xd4\xe8\x00\x85C\x01b\x87R."),
               pickle.dumps(np.arange(3))[:-12]]
    for data in refused:
        with pytest.raises(DatasetError, match="refusing to read it"):
            read_pickle(data)


def test_reading_needs_the_hosts_free_memory(monkeypatch):
    from tinyflow.nnvm import host_memory
    monkeypatch.setattr(host_memory, "host_available_bytes", lambda: (1000, "a test"))
    with pytest.raises(DatasetError, match=r"more than the 1000 bytes available \(a test\)"):
        read_pickle(pickle.dumps(list(range(100))))


def test_a_cifar_batch_naming_code_is_refused(server, monkeypatch):
    _, _, root = server
    evil = pickle.dumps({b"data": os.system, b"fine_labels": []}, protocol=2)
    (root / "cifar-100-python.tar.gz").write_bytes(
        tar_gz({"cifar-100-python/train": evil, "cifar-100-python/test": evil}))
    monkeypatch.setattr(images, "FILE_HASHES", {})
    with pytest.raises(DatasetError, match=r"cifar-100-python/train: not a pickle of data \(it names posix.system\)"):
        tf.keras.datasets.cifar100.load_data()


def test_an_npz_of_other_objects_is_refused(server, monkeypatch):
    _url, _, root = server
    rng = np.random.default_rng(0)
    bad = np.empty(2, dtype=object)
    bad[:] = [[1, 2], [3, "x"]]
    (root / "imdb.npz").write_bytes(npz(x_train=bad, y_train=np.arange(2),
                                        x_test=word_lists(rng, 2), y_test=np.arange(2)))
    monkeypatch.setattr(images, "FILE_HASHES", {})  # no hash: this file is read
    with pytest.raises(DatasetError, match="lists of word ids"):
        tf.keras.datasets.imdb.load_data()


# ---------------------------------------------------------------------------
# tf.keras.preprocessing (TF 2.21 tf_keras's values)

sequence, text = tf.keras.preprocessing.sequence, tf.keras.preprocessing.text
SEQS = [[1, 2, 3], [4, 5], [6, 7, 8, 9, 10], []]


def test_pad_sequences_equals_tensorflows():
    padded = sequence.pad_sequences(SEQS)
    assert padded.dtype == np.int32 and padded.tolist() == [
        [0, 0, 1, 2, 3], [0, 0, 0, 4, 5], [6, 7, 8, 9, 10], [0, 0, 0, 0, 0]]
    assert sequence.pad_sequences(SEQS, maxlen=3, padding="post", truncating="post",
                                  value=-1).tolist() == [[1, 2, 3], [4, 5, -1], [6, 7, 8],
                                                         [-1, -1, -1]]
    assert sequence.pad_sequences(SEQS, maxlen=2, dtype="float32", value=0.5).tolist() == [
        [2.0, 3.0], [4.0, 5.0], [9.0, 10.0], [0.5, 0.5]]
    assert sequence.pad_sequences([["a", "b"], ["c"]], dtype=object, value="<p>").tolist() \
        == [["a", "b"], ["<p>", "c"]]
    assert sequence.pad_sequences([[[1, 2]], [[3, 4], [5, 6]]], maxlen=3).tolist() == [
        [[0, 0], [0, 0], [1, 2]], [[0, 0], [3, 4], [5, 6]]]


@pytest.mark.parametrize("args, kwargs, message", [
    (SEQS, {"padding": "mid"}, 'Padding type "mid" not understood'),
    (SEQS, {"truncating": "x"}, 'Truncating type "x" not understood'),
    (SEQS, {"value": "s"}, "`dtype` int32 is not compatible with `value`'s type"),
    ([[1], 3], {}, "must be a list of iterables. Found non-iterable: 3"),
    ([[[1, 2]], [[3, 4, 5]]], {}, (r"Shape of sample \(3,\) of sequence at position 1 is "
                                  r"different from expected shape \(2,\)")),
])
def test_pad_sequences_errors_are_tensorflows(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        sequence.pad_sequences(args, **kwargs)


def test_skipgrams_and_sampling_table_equal_tensorflows():
    np.testing.assert_allclose(sequence.make_sampling_table(6, sampling_factor=0.1), [
        0.31522478751942506, 0.31522478751942506, 0.5475972693917698, 0.7415564097374219,
        0.9128167456366163, 1.0])
    state = random.getstate()
    try:
        random.seed(3)
        assert sequence.skipgrams([1, 2, 0, 3, 4], 6, window_size=2, seed=11) == (
            [[2, 3], [4, 3], [1, 2], [1, 5], [3, 4], [3, 4], [2, 1], [3, 2], [4, 1], [2, 3],
             [3, 5], [2, 1]], [1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0])
        random.seed(5)
        assert sequence.skipgrams([3, 1, 2], 5, window_size=1, negative_samples=0.5,
                                  categorical=True, seed=2) == (
            [[1, 2], [2, 1], [1, 3], [3, 1], [1, 4], [3, 1]],
            [[0, 1], [0, 1], [0, 1], [1, 0], [1, 0], [0, 1]])
        random.seed(9)
        assert sequence.skipgrams([1, 2, 3, 4, 5], 6, window_size=1, negative_samples=0.,
                                  shuffle=False, sampling_table=[0, 0.9, 0.2, 0.7, 0.1, 0.5]) \
            == ([[1, 2], [3, 2], [3, 4], [5, 4]], [1, 1, 1, 1])
    finally:
        random.setstate(state)


TEXTS = ["The cat sat on the mat.", "The dog ate my homework!", "cat, dog; cat?"]


def test_tokenizer_equals_tensorflows():
    tok = text.Tokenizer(num_words=5, oov_token="<oov>")
    tok.fit_on_texts(TEXTS)
    assert tok.word_index == {"<oov>": 1, "the": 2, "cat": 3, "dog": 4, "sat": 5, "on": 6,
                              "mat": 7, "ate": 8, "my": 9, "homework": 10}
    assert list(tok.word_counts.items())[:4] == [("the", 3), ("cat", 3), ("sat", 1), ("on", 1)]
    assert tok.texts_to_sequences(TEXTS + ["unknown cat words"]) == [
        [2, 3, 1, 1, 2, 1], [2, 4, 1, 1, 1], [3, 4, 3], [1, 3, 1]]
    assert tok.sequences_to_texts([[1, 2, 3, 9, 4]]) == ["<oov> the cat <oov> dog"]
    expected = {
        "binary": [[0, 1, 1, 1, 0], [0, 1, 1, 0, 1], [0, 0, 0, 1, 1]],
        "count": [[0, 3, 2, 1, 0], [0, 3, 1, 0, 1], [0, 0, 0, 2, 1]],
        "freq": [[0, 0.5, 0.333333, 0.166667, 0], [0, 0.6, 0.2, 0, 0.2],
                 [0, 0, 0, 0.666667, 0.333333]],
        "tfidf": [[0, 2.909294, 1.1736, 0.693147, 0], [0, 2.909294, 0.693147, 0, 0.693147],
                  [0, 0, 0, 1.1736, 0.693147]]}
    for mode, matrix in expected.items():
        np.testing.assert_allclose(tok.texts_to_matrix(TEXTS, mode=mode), matrix, atol=1e-6)
    with pytest.raises(ValueError, match="Unknown vectorization mode"):
        tok.sequences_to_matrix([[1]], mode="bad")
    with pytest.raises(ValueError, match="Specify a dimension"):
        text.Tokenizer().sequences_to_matrix([[1]])
    again = text.tokenizer_from_json(tok.to_json())
    assert again.texts_to_sequences(TEXTS) == tok.texts_to_sequences(TEXTS)


def test_tokenizer_options_and_word_functions_equal_tensorflows():
    chars = text.Tokenizer(char_level=True, lower=False)
    chars.fit_on_texts(["abca", "Bb"])
    assert chars.word_index == {"a": 1, "b": 2, "c": 3, "B": 4}
    assert chars.texts_to_sequences(["cab"]) == [[3, 1, 2]]
    commas = text.Tokenizer(filters="", split=",")
    commas.fit_on_texts(["x,y,x", "y,z"])
    assert commas.word_index == {"x": 1, "y": 2, "z": 3}
    assert commas.sequences_to_matrix([[1, 1, 3]], mode="count").tolist() == [[0, 2, 0, 1]]
    counted = text.Tokenizer(num_words=4)
    counted.fit_on_sequences([[1, 2], [2, 2, 3]])
    np.testing.assert_allclose(counted.sequences_to_matrix([[2, 2, 3]], mode="tfidf"),
                               [[0, 0, 0.864903, 0.693147]], atol=1e-6)
    assert text.text_to_word_sequence("Hello, World!  it's\tme") == [
        "hello", "world", "it's", "me"]
    assert text.text_to_word_sequence("a-b-C", filters="", lower=False, split="-") == [
        "a", "b", "C"]
    assert text.hashing_trick("The cat sat on the mat", 7, hash_function="md5") == [
        6, 3, 1, 1, 6, 5]
    ids = text.one_hot("the cat the", 5)
    assert ids[0] == ids[2] and all(1 <= i <= 4 for i in ids)


def test_unsupported_names_say_so():
    with pytest.raises(AttributeError, match="tf.keras.datasets.svhn is not supported"):
        tf.keras.datasets.svhn  # noqa: B018
    with pytest.raises(AttributeError, match="tf.keras.preprocessing.image is not supported"):
        tf.keras.preprocessing.image  # noqa: B018


def test_cifar_test_files_read_as_pickle_reads_them():
    # the safe reader and pickle agree on the CIFAR batches keras_dataset_files writes
    with tarfile.open(fileobj=io.BytesIO(cifar10_tar())) as archive:
        member = archive.extractfile("cifar-10-batches-py/test_batch").read()
    ours, theirs = read_pickle(member, encoding="bytes"), pickle.loads(member, encoding="bytes")
    assert ours.keys() == theirs.keys() and ours[b"labels"] == theirs[b"labels"]
    np.testing.assert_array_equal(ours[b"data"], theirs[b"data"])
    assert read_pickle(pickle.dumps(np.load(io.BytesIO(mnist_npz()))["x_test"])).shape == (
        2, 28, 28)
