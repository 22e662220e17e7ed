"""Small files in the exact formats of tf.keras.datasets' downloads (numpy and the standard
library only, so TensorFlow's own loaders can read the same files): test_keras_datasets.py
serves them and compares TinyFlow's arrays with the ones TF 2.21's loaders gave for them."""
import gzip
import io
import json
import pickle
import struct
import tarfile
from types import MappingProxyType

import numpy as np


def npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def word_lists(rng, count, top=30, longest=9) -> np.ndarray:
    """An object vector of lists of Python ints, as IMDB's and Reuters' npz hold."""
    out = np.empty(count, dtype=object)
    out[:] = [[int(w) for w in rng.integers(1, top, rng.integers(0, longest))]
              for _ in range(count)]
    return out


def mnist_npz() -> bytes:
    rng = np.random.default_rng(1)
    return npz(x_train=rng.integers(0, 256, (3, 28, 28), dtype=np.uint8),
               y_train=np.array([5, 0, 4], np.uint8),
               x_test=rng.integers(0, 256, (2, 28, 28), dtype=np.uint8),
               y_test=np.array([7, 2], np.uint8))


def idx_gz(array: np.ndarray) -> bytes:
    header = struct.pack(">BBBB", 0, 0, 8, array.ndim) + struct.pack(
        f">{array.ndim}I", *array.shape)
    return gzip.compress(header + array.tobytes(), mtime=0)


def fashion_files() -> dict:
    rng = np.random.default_rng(2)
    return {"train-labels-idx1-ubyte.gz": idx_gz(np.array([9, 0, 3], np.uint8)),
            "train-images-idx3-ubyte.gz": idx_gz(rng.integers(0, 256, (3, 28, 28), np.uint8)),
            "t10k-labels-idx1-ubyte.gz": idx_gz(np.array([1, 8], np.uint8)),
            "t10k-images-idx3-ubyte.gz": idx_gz(rng.integers(0, 256, (2, 28, 28), np.uint8))}


def py2_pickle(obj) -> bytes:
    """A protocol-2 pickle whose strings are Python 2 strs, as CIFAR's batches were written."""
    class Py2Pickler(pickle._Pickler):
        def save_str(self, text):
            raw = text.encode("latin1") if isinstance(text, str) else text
            self.write((pickle.SHORT_BINSTRING + bytes([len(raw)]) if len(raw) < 256 else
                        pickle.BINSTRING + len(raw).to_bytes(4, "little")) + raw)
            self.memoize(text)
        dispatch = MappingProxyType(
            {**pickle._Pickler.dispatch, bytes: save_str, str: save_str})
    buffer = io.BytesIO()
    Py2Pickler(buffer, protocol=2).dump(obj)
    return buffer.getvalue().replace(b"numpy._core.multiarray\n", b"numpy.core.multiarray\n")


def tar_gz(members: dict) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, payload in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            archive.addfile(info, io.BytesIO(payload))
    return buffer.getvalue()


def cifar10_tar(per_batch=2) -> bytes:
    rng = np.random.default_rng(3)
    members = {}
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        members[f"cifar-10-batches-py/{name}"] = py2_pickle({
            "batch_label": name, "labels": [int(v) for v in rng.integers(0, 10, per_batch)],
            "data": rng.integers(0, 256, (per_batch, 3072), dtype=np.uint8),
            "filenames": [f"{name}_{i}.png" for i in range(per_batch)]})
    return tar_gz(members)


def cifar100_tar() -> bytes:
    rng = np.random.default_rng(4)
    members = {}
    for name, count in (("train", 3), ("test", 2)):
        members[f"cifar-100-python/{name}"] = py2_pickle({
            "filenames": [f"{name}_{i}.png" for i in range(count)], "batch_label": name,
            "fine_labels": [int(v) for v in rng.integers(0, 100, count)],
            "coarse_labels": [int(v) for v in rng.integers(0, 20, count)],
            "data": rng.integers(0, 256, (count, 3072), dtype=np.uint8)})
    return tar_gz(members)


def imdb_npz() -> bytes:
    rng = np.random.default_rng(5)
    return npz(x_train=word_lists(rng, 6), y_train=np.array([1, 0, 0, 1, 1, 0]),
               x_test=word_lists(rng, 5), y_test=np.array([0, 1, 1, 0, 1]))


def reuters_npz() -> bytes:
    rng = np.random.default_rng(6)
    return npz(x=word_lists(rng, 10), y=rng.integers(0, 46, 10))


def boston_npz() -> bytes:
    rng = np.random.default_rng(7)
    return npz(x=np.round(rng.random((7, 13)) * 100, 2), y=np.round(rng.random(7) * 50, 1))


def word_index_json() -> bytes:
    return json.dumps({"the": 1, "and": 2, "a": 3, "film": 19}).encode()


def all_files() -> dict:
    """``{name served: bytes}`` for every loader's files."""
    return {"mnist.npz": mnist_npz(), **fashion_files(),
            "cifar-10-python.tar.gz": cifar10_tar(), "cifar-100-python.tar.gz": cifar100_tar(),
            "imdb.npz": imdb_npz(), "reuters.npz": reuters_npz(),
            "boston_housing.npz": boston_npz(), "imdb_word_index.json": word_index_json(),
            "reuters_word_index.json": word_index_json()}
