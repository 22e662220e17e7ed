"""Tests of tinyflow.datasets against small generated files served on 127.0.0.1."""

import ast
import gzip
import hashlib
import http.server
import io
import os
import pickle
import re
import socket
import sys
import tarfile
import threading
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

from tinyflow import datasets
from tinyflow.datasets import sources

MNIST_NAMES = (
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
)
N_TRAIN = 20
N_TEST = 10
DEBIAN_FASHION_MNIST = Path("/usr/share/datasets/fashion-mnist")


# ---------------------------------------------------------------------------
# Generated files


def idx_bytes(array):
    """Encode a uint8 array as an (uncompressed) IDX file."""
    array = np.asarray(array, dtype=np.uint8)
    header = bytes([0, 0, 0x08, array.ndim])
    header += b"".join(int(size).to_bytes(4, "big") for size in array.shape)
    return header + array.tobytes()


def mnist_arrays(seed=0, n_train=N_TRAIN, n_test=N_TEST):
    rng = np.random.default_rng(seed)
    return {
        "train-images-idx3-ubyte.gz": rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8),
        "train-labels-idx1-ubyte.gz": rng.integers(0, 10, n_train, dtype=np.uint8),
        "t10k-images-idx3-ubyte.gz": rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8),
        "t10k-labels-idx1-ubyte.gz": rng.integers(0, 10, n_test, dtype=np.uint8),
    }


def gzip_files(arrays):
    return {name: gzip.compress(idx_bytes(array)) for name, array in arrays.items()}


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def use_checksums(monkeypatch, key, files):
    """Make ``files`` (name -> bytes) the expected downloads of data set ``key``."""
    table = dict(sources.SHA256)
    table[key] = {name: sha256(data) for name, data in files.items()}
    monkeypatch.setattr(sources, "SHA256", MappingProxyType(table))


def write_files(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)


def save_py2_string(pickler, obj):
    """Write a str or bytes the way Python 2 wrote its strings."""
    if isinstance(obj, str):
        obj = obj.encode("latin1")
    if len(obj) < 256:
        pickler.write(pickle.SHORT_BINSTRING + bytes([len(obj)]) + obj)
    else:
        pickler.write(pickle.BINSTRING + len(obj).to_bytes(4, "little") + obj)
    pickler.memoize(obj)


class Py2Pickler(pickle._Pickler):
    """Pickler writing every str and bytes as a Python 2 string, as CIFAR's files hold."""

    dispatch = MappingProxyType(
        {**pickle._Pickler.dispatch, bytes: save_py2_string, str: save_py2_string})


def cifar_batch(data, labels):
    buffer = io.BytesIO()
    Py2Pickler(buffer, protocol=2).dump({
        "batch_label": "generated batch",
        "labels": [int(label) for label in labels],
        "data": data,
        "filenames": [f"image_{i}.png" for i in range(len(data))],
    })
    # The real files were written with numpy 1.x, whose arrays live in numpy.core.
    return buffer.getvalue().replace(b"numpy._core.multiarray\n", b"numpy.core.multiarray\n")


def cifar_batches(seed=0, per_batch=4, n_test=3):
    """Return {batch name: (pixels (n, 3072), labels)} for the five training batches and test."""
    rng = np.random.default_rng(seed)
    names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    return {
        name: (rng.integers(0, 256, (n_test if name == "test_batch" else per_batch, 3072),
                            dtype=np.uint8),
               rng.integers(0, 10, n_test if name == "test_batch" else per_batch))
        for name in names
    }


def cifar_tarball(batches, skip=()):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, (data, labels) in batches.items():
            if name in skip:
                continue
            payload = cifar_batch(data, labels)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(payload)
            archive.addfile(info, io.BytesIO(payload))
    return buffer.getvalue()


# ---------------------------------------------------------------------------
# Local HTTP server


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Static file handler that records requests and can cut a body short."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.requests.append(self.path)
        name = self.path.lstrip("/")
        if name in self.server.cut_short:
            body = (Path(self.directory) / name).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.close_connection = True
            return
        super().do_GET()


@dataclass
class Served:
    root: Path
    url: str
    requests: list
    cut_short: set = field(default_factory=set)

    def publish(self, files):
        write_files(self.root, files)


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(QuietHandler, directory=str(root)))
    httpd.requests = []
    httpd.cut_short = set()
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield Served(root, f"http://127.0.0.1:{httpd.server_port}/", httpd.requests,
                     httpd.cut_short)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def closed_port_url():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


@pytest.fixture
def dead_url():
    return closed_port_url()


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    """Point HOME at a temporary folder and keep every test off the network."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("TINYFLOW_DATA", "TINYFLOW_MNIST_MIRROR", "TINYFLOW_FASHION_MNIST_MIRROR",
                 "TINYFLOW_CIFAR10_MIRROR"):
        monkeypatch.delenv(name, raising=False)
    dead = (closed_port_url(),)
    monkeypatch.setattr(sources, "MNIST_MIRRORS", dead)
    monkeypatch.setattr(sources, "FASHION_MNIST_MIRRORS", dead)
    monkeypatch.setattr(sources, "CIFAR10_MIRRORS", dead)
    monkeypatch.setattr(sources, "SYSTEM_DATA_DIRS", MappingProxyType({}))
    return home


def cache_dir(home, key):
    return home / ".cache" / "tinyflow" / key


@pytest.fixture
def mnist_served(server, monkeypatch):
    """Serve generated MNIST files and expect their checksums; return their arrays."""
    arrays = mnist_arrays()
    files = gzip_files(arrays)
    server.publish(files)
    use_checksums(monkeypatch, "mnist", files)
    return arrays


# ---------------------------------------------------------------------------
# Downloading


def test_download_lands_in_cache_and_is_not_repeated(server, mnist_served, isolated):
    data = datasets.get_mnist(mirrors=[server.url])
    cache = cache_dir(isolated, "mnist")
    assert sorted(os.listdir(cache)) == sorted(MNIST_NAMES)
    assert len(server.requests) == 4
    np.testing.assert_array_equal(
        data.train.images[:, 0] * 255, mnist_served["train-images-idx3-ubyte.gz"])
    np.testing.assert_array_equal(data.test.labels, mnist_served["t10k-labels-idx1-ubyte.gz"])

    again = datasets.get_mnist(mirrors=[server.url])
    assert len(server.requests) == 4
    np.testing.assert_array_equal(again.train.images, data.train.images)


def test_env_mirror_list_and_tinyflow_data(server, mnist_served, monkeypatch, tmp_path,
                                           dead_url, isolated):
    root = tmp_path / "data"
    monkeypatch.setenv("TINYFLOW_DATA", str(root))
    monkeypatch.setenv("TINYFLOW_MNIST_MIRROR", f"{dead_url}, {server.url}")
    data = datasets.get_mnist()
    assert data.train.num_examples == N_TRAIN
    assert sorted(os.listdir(root / "mnist")) == sorted(MNIST_NAMES)
    assert not cache_dir(isolated, "mnist").exists()


def test_data_dir_receives_downloads(server, mnist_served, tmp_path, isolated):
    folder = tmp_path / "mine"
    datasets.get_mnist(data_dir=folder, mirrors=server.url)
    assert sorted(os.listdir(folder)) == sorted(MNIST_NAMES)
    assert not cache_dir(isolated, "mnist").exists()


def test_wrong_checksum_leaves_no_file(server, mnist_served, monkeypatch, isolated):
    table = dict(sources.SHA256)
    table["mnist"] = dict(table["mnist"], **{"t10k-images-idx3-ubyte.gz": "0" * 64})
    monkeypatch.setattr(sources, "SHA256", table)
    with pytest.raises(datasets.DatasetError, match="SHA-256 mismatch") as info:
        datasets.get_mnist(mirrors=[server.url])
    assert "t10k-images-idx3-ubyte.gz" in str(info.value)
    # Only the two files fetched before the bad one; no temporary file either.
    assert sorted(os.listdir(cache_dir(isolated, "mnist"))) == [
        "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]


@pytest.mark.parametrize("how", ["truncated file", "connection cut"])
def test_truncated_download_is_an_error(server, mnist_served, isolated, how):
    name = "train-images-idx3-ubyte.gz"
    if how == "truncated file":
        full = (server.root / name).read_bytes()
        (server.root / name).write_bytes(full[:-100])
        expected = "SHA-256 mismatch"
    else:
        server.cut_short.add(name)
        expected = "connection closed after"
    with pytest.raises(datasets.DatasetError, match=expected):
        datasets.get_mnist(mirrors=[server.url])
    assert os.listdir(cache_dir(isolated, "mnist")) == []


def test_second_mirror_used_when_first_is_bad(server, mnist_served, tmp_path, isolated):
    bad_root = server.root / "bad"
    bad = gzip_files(mnist_arrays(seed=1))
    write_files(bad_root, bad)
    data = datasets.get_mnist(mirrors=[server.url + "bad/", server.url])
    np.testing.assert_array_equal(data.train.labels, mnist_served["train-labels-idx1-ubyte.gz"])


def test_server_down_says_where_to_put_files(dead_url, isolated, tmp_path):
    with pytest.raises(datasets.DatasetError) as info:
        datasets.get_mnist(data_dir=tmp_path / "mine", mirrors=[dead_url])
    message = str(info.value)
    assert dead_url in message
    assert "Folders searched" in message
    for folder in (tmp_path / "mine", tmp_path / "mine" / "mnist", cache_dir(isolated, "mnist")):
        assert f"  {folder}\n" in message
    assert "TINYFLOW_DATA" in message
    for name in MNIST_NAMES:
        assert name in message


@pytest.mark.parametrize("download", [True, False])
def test_partly_filled_folder_offline_names_missing_files(tmp_path, dead_url, download):
    files = gzip_files(mnist_arrays())
    folder = tmp_path / "mine"
    write_files(folder, {name: files[name] for name in MNIST_NAMES[:2]})
    with pytest.raises(datasets.DatasetError) as info:
        datasets.get_mnist(data_dir=folder, mirrors=[dead_url], download=download)
    first_line = str(info.value).splitlines()[0]
    assert "t10k-images-idx3-ubyte.gz" in first_line
    assert "t10k-labels-idx1-ubyte.gz" in first_line
    assert "train-" not in first_line


def test_without_tqdm_still_downloads(server, mnist_served, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    assert datasets.get_mnist(mirrors=[server.url]).test.num_examples == N_TEST


# ---------------------------------------------------------------------------
# Reading local files


def corrupt_truncated_gzip(arrays):
    return gzip.compress(idx_bytes(arrays["train-images-idx3-ubyte.gz"]))[:-300]


def corrupt_flipped_bytes(arrays):
    data = bytearray(gzip.compress(idx_bytes(arrays["train-images-idx3-ubyte.gz"])))
    middle = len(data) // 2
    data[middle:middle + 8] = bytes(255 - byte for byte in data[middle:middle + 8])
    return bytes(data)


def corrupt_bad_magic(arrays):
    return gzip.compress(b"<html>not found</html>")


def corrupt_short_payload(arrays):
    return gzip.compress(idx_bytes(arrays["train-images-idx3-ubyte.gz"])[:-5])


@pytest.mark.parametrize("corrupt", [corrupt_truncated_gzip, corrupt_flipped_bytes,
                                     corrupt_bad_magic, corrupt_short_payload])
def test_corrupt_local_file_is_named(tmp_path, corrupt):
    arrays = mnist_arrays()
    files = gzip_files(arrays)
    files["train-images-idx3-ubyte.gz"] = corrupt(arrays)
    write_files(tmp_path, files)
    bad = tmp_path / "train-images-idx3-ubyte.gz"
    with pytest.raises(datasets.DatasetError, match=re.escape(str(bad))):
        datasets.get_mnist(data_dir=tmp_path)


def test_truncated_uncompressed_file_is_named(tmp_path):
    arrays = mnist_arrays()
    for name, array in arrays.items():
        (tmp_path / name.removesuffix(".gz")).write_bytes(idx_bytes(array))
    bad = tmp_path / "t10k-images-idx3-ubyte"
    bad.write_bytes(bad.read_bytes()[:-1])
    with pytest.raises(datasets.DatasetError, match=re.escape(str(bad)) + ".*size mismatch"):
        datasets.get_mnist(data_dir=tmp_path)


def test_label_count_mismatch_is_an_error(tmp_path):
    arrays = mnist_arrays()
    arrays["train-labels-idx1-ubyte.gz"] = arrays["train-labels-idx1-ubyte.gz"][:-1]
    write_files(tmp_path, gzip_files(arrays))
    with pytest.raises(datasets.DatasetError, match="20 images .* but 19 labels"):
        datasets.get_mnist(data_dir=tmp_path)


def test_label_out_of_range_is_an_error(tmp_path):
    arrays = mnist_arrays()
    arrays["t10k-labels-idx1-ubyte.gz"][3] = 12
    write_files(tmp_path, gzip_files(arrays))
    with pytest.raises(datasets.DatasetError, match="t10k-labels-idx1-ubyte.gz.*label 12"):
        datasets.get_mnist(data_dir=tmp_path)


@pytest.mark.parametrize("flatten", [False, True])
@pytest.mark.parametrize("onehot", [False, True])
def test_shapes_dtypes_and_values(tmp_path, flatten, onehot):
    arrays = mnist_arrays()
    # Uncompressed files in the data set's subfolder of data_dir.
    for name, array in arrays.items():
        write_files(tmp_path / "mnist", {name.removesuffix(".gz"): idx_bytes(array)})
    data = datasets.get_mnist(flatten=flatten, onehot=onehot, data_dir=tmp_path)
    for split, count in ((data.train, N_TRAIN), (data.test, N_TEST)):
        assert split.num_examples == count
        assert split.images.shape == ((count, 784) if flatten else (count, 1, 28, 28))
        assert split.labels.shape == ((count, 10) if onehot else (count,))
        assert split.images.dtype == np.float32
        assert split.labels.dtype == np.float32
        assert 0.0 <= split.images.min() and split.images.max() <= 1.0
    pixels = arrays["train-images-idx3-ubyte.gz"].reshape(N_TRAIN, -1)
    np.testing.assert_allclose(data.train.images.reshape(N_TRAIN, -1), pixels / 255.0,
                               rtol=1e-6)
    labels = arrays["t10k-labels-idx1-ubyte.gz"]
    if onehot:
        assert np.all(data.test.labels.sum(axis=1) == 1)
        np.testing.assert_array_equal(data.test.labels.argmax(axis=1), labels)
    else:
        np.testing.assert_array_equal(data.test.labels, labels)


# ---------------------------------------------------------------------------
# next_batch


def test_next_batch_sees_every_example_once_per_epoch():
    images = np.arange(N_TRAIN, dtype=np.float32).reshape(N_TRAIN, 1)
    split = datasets.DataSet(images, np.arange(N_TRAIN) * 10.0, seed=3)
    drawn_images, drawn_labels = [], []
    for _ in range(9):  # 63 examples: three full epochs and three more
        batch_images, batch_labels = split.next_batch(7)
        assert batch_images.shape == (7, 1)
        drawn_images.append(batch_images[:, 0])
        drawn_labels.append(batch_labels)
    stream = np.concatenate(drawn_images)
    np.testing.assert_array_equal(np.concatenate(drawn_labels), stream * 10)
    epochs = [stream[i * N_TRAIN:(i + 1) * N_TRAIN] for i in range(3)]
    for epoch in epochs:
        np.testing.assert_array_equal(np.sort(epoch), np.arange(N_TRAIN))
    assert not np.array_equal(epochs[0], epochs[1])  # reshuffled
    assert not np.array_equal(epochs[0], np.arange(N_TRAIN))  # the first epoch too
    assert split.epochs_completed == 3


def test_next_batch_is_seeded_and_may_span_epochs():
    def stream(seed):
        split = datasets.DataSet(np.arange(5.0), np.arange(5.0), seed=seed)
        return split.next_batch(12)[0], split

    first, split = stream(0)
    np.testing.assert_array_equal(first, stream(0)[0])
    assert not np.array_equal(first, stream(1)[0])
    assert split.epochs_completed == 2
    np.testing.assert_array_equal(np.sort(first[:5]), np.arange(5.0))
    np.testing.assert_array_equal(np.sort(first[5:10]), np.arange(5.0))


@pytest.mark.parametrize("size, error", [(0, ValueError), (-1, ValueError),
                                         (2.0, TypeError), (True, TypeError)])
def test_next_batch_rejects_bad_sizes(size, error):
    split = datasets.DataSet(np.zeros((3, 2)), np.zeros(3))
    with pytest.raises(error):
        split.next_batch(size)


def test_get_mnist_batches_cover_the_training_set(tmp_path):
    arrays = mnist_arrays()
    write_files(tmp_path, gzip_files(arrays))
    data = datasets.get_mnist(flatten=True, data_dir=tmp_path, seed=5)
    images, labels = data.train.next_batch(N_TRAIN)
    order = np.lexsort(images.T)
    expected = arrays["train-images-idx3-ubyte.gz"].reshape(N_TRAIN, -1) / np.float32(255)
    expected_order = np.lexsort(expected.T)
    np.testing.assert_array_equal(images[order], expected[expected_order])
    np.testing.assert_array_equal(labels[order],
                                  arrays["train-labels-idx1-ubyte.gz"][expected_order])


# ---------------------------------------------------------------------------
# Fashion-MNIST


def test_fashion_mnist_has_its_own_folder_and_mirror(server, monkeypatch, isolated):
    files = gzip_files(mnist_arrays(seed=7))
    server.publish(files)
    use_checksums(monkeypatch, "fashion-mnist", files)
    monkeypatch.setenv("TINYFLOW_FASHION_MNIST_MIRROR", server.url)
    data = datasets.get_fashion_mnist(onehot=True)
    assert data.train.labels.shape == (N_TRAIN, 10)
    assert sorted(os.listdir(cache_dir(isolated, "fashion-mnist"))) == sorted(MNIST_NAMES)
    assert not cache_dir(isolated, "mnist").exists()


def test_fashion_mnist_reads_system_folder(tmp_path, monkeypatch):
    folder = tmp_path / "usr-share"
    write_files(folder, gzip_files(mnist_arrays()))
    monkeypatch.setattr(sources, "SYSTEM_DATA_DIRS",
                        MappingProxyType({"fashion-mnist": (str(folder),)}))
    assert datasets.get_fashion_mnist().test.num_examples == N_TEST
    with pytest.raises(datasets.DatasetError):
        datasets.get_mnist()  # the system folder belongs to Fashion-MNIST only


@pytest.mark.skipif(not DEBIAN_FASHION_MNIST.is_dir(),
                    reason="Debian's dataset-fashion-mnist is not installed")
def test_real_debian_fashion_mnist(monkeypatch):
    monkeypatch.setattr(sources, "SYSTEM_DATA_DIRS",
                        MappingProxyType({"fashion-mnist": (str(DEBIAN_FASHION_MNIST),)}))
    data = datasets.get_fashion_mnist(flatten=True)
    assert data.train.images.shape == (60000, 784)
    assert data.test.images.shape == (10000, 784)
    assert data.train.labels.shape == (60000,)
    assert data.test.labels.shape == (10000,)
    assert data.train.images.dtype == np.float32
    assert data.train.images.min() == 0.0 and data.train.images.max() == 1.0
    for split in (data.train, data.test):
        np.testing.assert_array_equal(np.unique(split.labels), np.arange(10))
    # Fashion-MNIST is balanced: 6,000 and 1,000 of each class.
    np.testing.assert_array_equal(np.bincount(data.test.labels.astype(int)), [1000] * 10)


# ---------------------------------------------------------------------------
# CIFAR-10


@pytest.mark.parametrize("flatten", [False, True])
def test_cifar10_download_and_layout(server, monkeypatch, isolated, flatten):
    batches = cifar_batches()
    archive = {"cifar-10-python.tar.gz": cifar_tarball(batches)}
    server.publish(archive)
    use_checksums(monkeypatch, "cifar-10", archive)
    data = datasets.get_cifar10(flatten=flatten, onehot=True, mirrors=[server.url])
    assert os.listdir(cache_dir(isolated, "cifar-10")) == ["cifar-10-python.tar.gz"]
    assert data.train.images.shape == ((20, 3072) if flatten else (20, 3, 32, 32))
    assert data.test.images.shape == ((3, 3072) if flatten else (3, 3, 32, 32))
    assert data.train.labels.shape == (20, 10)
    assert data.train.images.dtype == np.float32
    pixels = np.concatenate([batches[f"data_batch_{i}"][0] for i in range(1, 6)])
    labels = np.concatenate([batches[f"data_batch_{i}"][1] for i in range(1, 6)])
    images = data.train.images.reshape(20, 3, 32, 32)
    # Rows hold the red plane, then green, then blue, each row-major.
    assert images[6, 1, 2, 3] == np.float32(pixels[6, 1024 + 2 * 32 + 3] / np.float32(255))
    np.testing.assert_allclose(images.reshape(20, -1), pixels / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(data.train.labels.argmax(axis=1), labels)
    np.testing.assert_array_equal(data.test.labels.argmax(axis=1), batches["test_batch"][1])

    datasets.get_cifar10(mirrors=[server.url])
    assert len(server.requests) == 1


def test_cifar10_extracted_folder(tmp_path):
    batches = cifar_batches(n_test=2)
    folder = tmp_path / "cifar-10-batches-py"
    write_files(folder, {name: cifar_batch(*batch) for name, batch in batches.items()})
    data = datasets.get_cifar10(data_dir=tmp_path)
    assert data.train.images.shape == (20, 3, 32, 32)
    np.testing.assert_array_equal(data.test.labels, batches["test_batch"][1])


def test_cifar10_archive_missing_a_batch(tmp_path):
    archive = tmp_path / "cifar-10" / "cifar-10-python.tar.gz"
    write_files(archive.parent, {archive.name: cifar_tarball(cifar_batches(),
                                                             skip={"test_batch"})})
    with pytest.raises(datasets.DatasetError, match=re.escape(str(archive)) + ".*test_batch"):
        datasets.get_cifar10(data_dir=tmp_path)


def test_cifar10_truncated_archive_is_named(tmp_path):
    archive = tmp_path / "cifar-10-python.tar.gz"
    archive.write_bytes(cifar_tarball(cifar_batches())[:-400])
    with pytest.raises(datasets.DatasetError, match=re.escape(str(archive))):
        datasets.get_cifar10(data_dir=tmp_path)


class RunsCode:
    """Object whose pickle would call a function when loaded."""

    def __reduce__(self):
        return (os.getcwd, ())


def test_cifar10_batch_with_foreign_objects_is_refused(tmp_path):
    batches = cifar_batches()
    folder = tmp_path / "cifar-10-batches-py"
    write_files(folder, {name: cifar_batch(*batch) for name, batch in batches.items()})
    (folder / "data_batch_3").write_bytes(pickle.dumps({b"data": RunsCode(), b"labels": []}))
    with pytest.raises(datasets.DatasetError, match="data_batch_3.*unexpected global"):
        datasets.get_cifar10(data_dir=tmp_path)


@pytest.mark.parametrize("payload", [
    # ndarray((2**27,)) called: a gigabyte asked for by a few bytes (any size would do)
    b"\x80\x02}(C\x04datacnumpy\nndarray\n\x8a\x04\x00\x00\x00\x08\x85\x85Ru.",
    # numpy's _reconstruct asked for that shape instead of the empty array numpy pickles make
    (b"\x80\x02}(C\x04datacnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\n"
     b"\x8a\x04\x00\x00\x00\x08\x85C\x01b\x87Ru."),
], ids=["ndarray", "_reconstruct"])
def test_cifar10_batch_asking_for_memory_is_refused(tmp_path, payload):
    batches = cifar_batches()
    folder = tmp_path / "cifar-10-batches-py"
    write_files(folder, {name: cifar_batch(*batch) for name, batch in batches.items()})
    (folder / "data_batch_2").write_bytes(payload)
    with pytest.raises(datasets.DatasetError,
                       match="data_batch_2.*called as no numpy pickle calls it"):
        datasets.get_cifar10(data_dir=tmp_path)


def test_cifar10_label_count_mismatch(tmp_path):
    batches = cifar_batches()
    data, labels = batches["data_batch_2"]
    batches["data_batch_2"] = (data, labels[:-1])
    write_files(tmp_path / "cifar-10", {"cifar-10-python.tar.gz": cifar_tarball(batches)})
    with pytest.raises(datasets.DatasetError, match="data_batch_2: 4 images but 3 labels"):
        datasets.get_cifar10(data_dir=tmp_path)


# ---------------------------------------------------------------------------
# Module hygiene


def test_package_imports_only_stdlib_numpy_and_tqdm():
    modules = sorted(Path(datasets.__file__).parent.glob("*.py"))
    expected = {"__init__", "batches", "formats", "loaders", "sources"}
    assert {path.stem for path in modules} >= expected
    allowed = set(sys.stdlib_module_names) | {"__future__", "numpy", "tqdm"}
    for path in modules:
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                # "from .formats import ..." stays in the package; ".." would reach the rest
                # of tinyflow, as would an absolute "tinyflow" import (not in allowed).
                assert node.level <= 1, f"{path.name}: relative import of the rest of tinyflow"
                if node.level == 0:
                    imported.add(node.module.split(".")[0])
        assert imported <= allowed, (path.name, imported - allowed)


def test_public_names():
    for name in datasets.__all__:
        assert hasattr(datasets, name)
