"""tinyflow.examples.tutorials.mnist.input_data against TensorFlow 1.15's loader.

Real Fashion-MNIST (Debian's files) for shapes, dtypes and values; small generated files for the
options and downloads (served on 127.0.0.1); and a transcription of TensorFlow's
``DataSet.next_batch`` for the batch order and epoch rules.
"""
import os
from pathlib import Path

import numpy as np
import pytest
import test_datasets
from test_datasets import gzip_files, mnist_arrays, use_checksums, write_files

import tinyflow as tf
from tinyflow.datasets import DatasetError, formats
from tinyflow.examples.tutorials.mnist import input_data

REAL = Path("/usr/share/datasets/fashion-mnist")
NAMES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
         "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")
# test_datasets' fixtures: a file server on 127.0.0.1, and HOME, the mirrors and the system
# folders pointed at nothing (autouse), so no test reaches the network or the user's cache
server = test_datasets.server
isolated = test_datasets.isolated
needs_real = pytest.mark.skipif(not all((REAL / name).is_file() for name in NAMES),
                                reason="Fashion-MNIST is not installed in " + str(REAL))


# ---------------------------------------------------------------------------
# TensorFlow's DataSet.next_batch, transcribed: numpy's global generator seeded at construction


class ReferenceDataSet:
    """What TensorFlow 1.15's DataSet does with the arrays it holds (no conversions)."""

    def __init__(self, images, labels, seed):
        np.random.seed(seed)
        self.images, self.labels = images, labels
        self.epochs_completed = 0
        self.index_in_epoch = 0

    def permute(self):
        perm = np.arange(len(self.images))
        np.random.shuffle(perm)
        self.images, self.labels = self.images[perm], self.labels[perm]

    def next_batch(self, batch_size, shuffle=True):
        start = self.index_in_epoch
        if self.epochs_completed == 0 and start == 0 and shuffle:
            self.permute()
        if start + batch_size > len(self.images):
            self.epochs_completed += 1
            rest_images, rest_labels = self.images[start:], self.labels[start:]
            if shuffle:
                self.permute()
            rest_num_examples = len(self.images) - start  # negative after an oversized batch
            self.index_in_epoch = batch_size - rest_num_examples
            end = self.index_in_epoch
            return (np.concatenate((rest_images, self.images[:end])),
                    np.concatenate((rest_labels, self.labels[:end])))
        self.index_in_epoch += batch_size
        return (self.images[start:self.index_in_epoch],
                self.labels[start:self.index_in_epoch])


@pytest.fixture
def global_numpy_state():
    """The reference seeds numpy's global generator: put it back afterwards."""
    state = np.random.get_state()
    yield
    np.random.set_state(state)


def small_images(count, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 256, (count, 28, 28, 1), dtype=np.uint8),
            rng.integers(0, 10, count, dtype=np.uint8))


def assert_same_batches(ours, reference, sizes, shuffle=True):
    for size in sizes:
        images, labels = ours.next_batch(size, shuffle=shuffle)
        expected_images, expected_labels = reference.next_batch(size, shuffle=shuffle)
        np.testing.assert_array_equal(images, expected_images)
        np.testing.assert_array_equal(labels, expected_labels)
        assert ours.epochs_completed == reference.epochs_completed


# Batches that end exactly on an epoch, cross one, and exceed the whole split.
SIZES = [3, 4, 3, 5, 1, 10, 2, 7, 7, 25, 4]


@pytest.mark.parametrize("seed", [0, 7, 2**31 + 5])
def test_next_batch_matches_tensorflow(seed, global_numpy_state):
    images, labels = small_images(10)
    ours = input_data.DataSet(images, labels, dtype=tf.uint8, reshape=False, seed=seed)
    reference = ReferenceDataSet(images, labels, seed % (2**31 - 1))
    assert_same_batches(ours, reference, SIZES)
    # TensorFlow reorders the arrays themselves
    np.testing.assert_array_equal(ours.images, reference.images)
    np.testing.assert_array_equal(ours.labels, reference.labels)


def test_next_batch_without_shuffle_matches_tensorflow(global_numpy_state):
    images, labels = small_images(10)
    ours = input_data.DataSet(images, labels, dtype=tf.uint8, reshape=False, seed=1)
    reference = ReferenceDataSet(images, labels, 1)
    assert_same_batches(ours, reference, SIZES, shuffle=False)
    np.testing.assert_array_equal(ours.images, images)


def test_epoch_boundaries():
    images, labels = small_images(10)
    data = input_data.DataSet(images, labels, dtype="uint8", reshape=False, seed=3)
    first, _ = data.next_batch(6)
    assert data.epochs_completed == 0
    assert {bytes(image) for image in first} <= {bytes(image) for image in images}
    data.next_batch(4)
    assert data.epochs_completed == 0  # an exact end is counted by the next call
    # TensorFlow's quirks with a batch larger than the split: it is cut to the new epoch's
    # 10 examples, and the overshoot (13 - 10) carries over: the next batch of 2 is 5 long.
    crossing, crossing_labels = data.next_batch(13)
    assert data.epochs_completed == 1 and len(crossing) == len(crossing_labels) == 10
    after, _ = data.next_batch(2)
    assert data.epochs_completed == 2 and len(after) == 5


def test_seed_none_draws_different_orders():
    images, labels = small_images(50)
    orders = {tuple(input_data.DataSet(images, labels, dtype=tf.uint8, reshape=False)
                    .next_batch(50)[1]) for _ in range(4)}
    assert len(orders) > 1


def test_dataset_checks_its_inputs():
    images, labels = small_images(4)
    with pytest.raises(TypeError, match="Invalid image dtype"):
        input_data.DataSet(images, labels, dtype=tf.int32)
    with pytest.raises(ValueError, match="labels.shape"):
        input_data.DataSet(images, labels[:3])
    with pytest.raises(ValueError, match="reshape"):
        input_data.DataSet(images[..., 0], labels)


def test_fake_data():
    data = input_data.read_data_sets("unused", fake_data=True, one_hot=True)
    assert data.train.num_examples == data.validation.num_examples == 10000
    images, labels = data.train.next_batch(3, fake_data=True)
    assert images == [[1] * 784] * 3 and labels == [[1] + [0] * 9] * 3
    _, labels = input_data.read_data_sets("unused", fake_data=True).test.next_batch(
        2, fake_data=True)
    assert labels == [0, 0]


def test_dense_to_one_hot():
    one_hot = input_data.dense_to_one_hot(np.array([2, 0, 9], dtype=np.uint8), 10)
    assert one_hot.dtype == np.float64 and one_hot.shape == (3, 10)
    np.testing.assert_array_equal(one_hot.argmax(1), [2, 0, 9])
    assert one_hot.sum() == 3


# ---------------------------------------------------------------------------
# Options on small generated files


@pytest.fixture
def small_dir(tmp_path):
    """A train_dir holding generated MNIST files: 20 training and 10 test examples."""
    folder = tmp_path / "MNIST_data"
    arrays = mnist_arrays()
    write_files(folder, gzip_files(arrays))
    return folder, arrays


@pytest.mark.parametrize("dtype", [tf.float32, "float32", np.float32, np.dtype("float32")])
@pytest.mark.parametrize("reshape", [True, False])
def test_float_images(small_dir, dtype, reshape):
    folder, arrays = small_dir
    data = input_data.read_data_sets(str(folder), dtype=dtype, reshape=reshape,
                                     validation_size=5)
    shape = (10, 784) if reshape else (10, 28, 28, 1)
    assert data.test.images.shape == shape and data.test.images.dtype == np.float32
    pixels = arrays["t10k-images-idx3-ubyte.gz"].reshape(shape)
    np.testing.assert_array_equal(data.test.images,
                                  np.multiply(pixels.astype(np.float32), 1.0 / 255.0))
    assert data.train.images.shape[0] == 15 and data.validation.images.shape[0] == 5


@pytest.mark.parametrize("dtype", [tf.uint8, "uint8", np.uint8])
@pytest.mark.parametrize("one_hot", [False, True])
def test_uint8_images_and_labels(small_dir, dtype, one_hot):
    folder, arrays = small_dir
    data = input_data.read_data_sets(folder, one_hot=one_hot, dtype=dtype, reshape=False,
                                     validation_size=5)
    train_pixels = arrays["train-images-idx3-ubyte.gz"][..., None]
    train_labels = arrays["train-labels-idx1-ubyte.gz"]
    assert data.validation.images.dtype == np.uint8
    np.testing.assert_array_equal(data.validation.images, train_pixels[:5])
    np.testing.assert_array_equal(data.train.images, train_pixels[5:])
    if one_hot:
        assert data.train.labels.dtype == np.float64 and data.train.labels.shape == (15, 10)
        np.testing.assert_array_equal(data.train.labels.argmax(1), train_labels[5:])
    else:
        assert data.train.labels.dtype == np.uint8
        np.testing.assert_array_equal(data.train.labels, train_labels[5:])


@pytest.mark.parametrize("size", [0, 20])
def test_validation_size_at_its_limits(small_dir, size):
    data = input_data.read_data_sets(small_dir[0], validation_size=size)
    assert (data.train.num_examples, data.validation.num_examples) == (20 - size, size)


@pytest.mark.parametrize("size", [-1, 21])
def test_validation_size_out_of_range(small_dir, size):
    with pytest.raises(ValueError, match=rf"between 0 and 20. Received: {size}\."):
        input_data.read_data_sets(small_dir[0], validation_size=size)


def test_bad_dtype_fails_before_reading(tmp_path):
    with pytest.raises(TypeError, match="Invalid image dtype"):
        input_data.read_data_sets(tmp_path / "nothing", dtype=tf.float64)


def test_seeded_training_batches_match_tensorflow(small_dir, global_numpy_state):
    folder, arrays = small_dir
    data = input_data.read_data_sets(folder, dtype=tf.uint8, reshape=False,
                                     validation_size=5, seed=42)
    reference = ReferenceDataSet(arrays["train-images-idx3-ubyte.gz"][5:, ..., None],
                                 arrays["train-labels-idx1-ubyte.gz"][5:], 42)
    assert_same_batches(data.train, reference, [4, 4, 4, 4, 6, 15, 3])


def test_prints_extracting_like_tensorflow(small_dir, capsys):
    input_data.read_data_sets(str(small_dir[0]), validation_size=5)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"Extracting {small_dir[0] / name}" for name in NAMES]


# ---------------------------------------------------------------------------
# Downloads (from a server on 127.0.0.1; the `isolated` fixture keeps everything else offline)


@pytest.fixture
def served(server, monkeypatch):
    """Generated MNIST files served at server.url, expected as MNIST's downloads."""
    arrays = mnist_arrays(seed=5)
    files = gzip_files(arrays)
    server.publish(files)
    use_checksums(monkeypatch, "mnist", files)
    return arrays


def test_download_into_train_dir(server, served, tmp_path):
    folder = tmp_path / "MNIST_data"
    data = input_data.read_data_sets(str(folder), source_url=server.url, validation_size=5)
    assert sorted(os.listdir(folder)) == sorted(NAMES)
    assert sorted(server.requests) == sorted("/" + name for name in NAMES)
    np.testing.assert_array_equal(data.test.labels, served["t10k-labels-idx1-ubyte.gz"])
    input_data.read_data_sets(str(folder), source_url=server.url, validation_size=5)
    assert len(server.requests) == 4  # present files are used as they are


def test_default_source_honours_the_mirror_variable(server, served, tmp_path, monkeypatch):
    monkeypatch.setenv("TINYFLOW_MNIST_MIRROR", server.url)
    data = input_data.read_data_sets(tmp_path / "data", one_hot=True, validation_size=5)
    assert data.train.labels.shape == (15, 10)
    assert len(server.requests) == 4


def test_only_missing_files_are_downloaded(server, served, small_dir):
    folder, arrays = small_dir
    (folder / "t10k-labels-idx1-ubyte.gz").unlink()
    data = input_data.read_data_sets(folder, source_url=server.url, validation_size=5)
    assert server.requests == ["/t10k-labels-idx1-ubyte.gz"]
    np.testing.assert_array_equal(data.test.labels, served["t10k-labels-idx1-ubyte.gz"])
    np.testing.assert_array_equal(data.validation.labels,
                                  arrays["train-labels-idx1-ubyte.gz"][:5])


def test_corrupt_download_is_rejected(server, served, tmp_path):
    name = "train-labels-idx1-ubyte.gz"
    body = bytearray((server.root / name).read_bytes())
    body[-5] ^= 0xFF
    (server.root / name).write_bytes(bytes(body))
    folder = tmp_path / "MNIST_data"
    with pytest.raises(DatasetError, match="SHA-256 mismatch") as info:
        input_data.read_data_sets(folder, source_url=server.url)
    assert name in str(info.value)
    assert os.listdir(folder) == ["train-images-idx3-ubyte.gz"]  # nothing partial left


def test_fashion_source_url_checks_fashion_checksums(server, monkeypatch, tmp_path):
    files = gzip_files(mnist_arrays(seed=9))
    write_files(server.root / "fashion", files)
    use_checksums(monkeypatch, "fashion-mnist", files)
    data = input_data.read_data_sets(tmp_path / "fashion", source_url=server.url + "fashion/",
                                     validation_size=5)
    assert data.train.num_examples == 15
    assert sorted(os.listdir(tmp_path / "fashion")) == sorted(NAMES)


# ---------------------------------------------------------------------------
# Real Fashion-MNIST


@pytest.fixture(scope="module")
def real_raw():
    """The real files' uint8 arrays, read once for the module."""
    if not all((REAL / name).is_file() for name in NAMES):
        pytest.skip(f"Fashion-MNIST is not installed in {REAL}")
    return [formats.read_idx(REAL / name).array for name in NAMES]


@pytest.fixture
def real_dir(tmp_path, real_raw):
    folder = tmp_path / "fashion"
    folder.mkdir()
    for name in NAMES:
        (folder / name).symlink_to(REAL / name)
    return folder


@needs_real
def test_real_fashion_mnist_as_tensorflow_serves_it(real_dir, real_raw):
    train_pixels, train_labels, test_pixels, _ = real_raw
    data = input_data.read_data_sets(str(real_dir))
    assert [split.num_examples for split in data] == [55000, 5000, 10000]
    assert data.train.images.shape == (55000, 784) and data.train.images.dtype == np.float32
    assert data.test.images.min() == 0.0 and data.test.images.max() == 1.0
    assert data.train.labels.dtype == np.uint8 and data.train.labels.shape == (55000,)
    np.testing.assert_array_equal(data.validation.labels, train_labels[:5000])
    np.testing.assert_array_equal(
        data.test.images, np.multiply(test_pixels.reshape(-1, 784).astype(np.float32), 1 / 255))
    # Fashion-MNIST's test split is balanced
    np.testing.assert_array_equal(np.bincount(data.test.labels), [1000] * 10)
    images, labels = data.train.next_batch(100)
    assert images.shape == (100, 784) and labels.shape == (100,)
    # the batch is whole examples: each image still carries its own label (rows keyed by an
    # exact integer projection, unique for these files)
    weights = np.random.default_rng(0).integers(0, 2**31, 784)
    label_of = dict(zip(train_pixels[5000:].reshape(-1, 784) @ weights, train_labels[5000:],
                        strict=True))
    assert len(label_of) == 55000
    keys = np.rint(images * 255).astype(np.int64) @ weights
    assert [label_of[key] for key in keys] == list(labels)


@needs_real
def test_real_fashion_mnist_uint8_one_hot_unreshaped(real_dir, real_raw):
    train_pixels, _, _, test_labels = real_raw
    data = input_data.read_data_sets(real_dir, one_hot=True, dtype=tf.uint8, reshape=False,
                                     validation_size=10000)
    assert data.train.images.shape == (50000, 28, 28, 1) and data.train.images.dtype == np.uint8
    np.testing.assert_array_equal(data.train.images[..., 0], train_pixels[10000:])
    assert data.test.labels.shape == (10000, 10) and data.test.labels.dtype == np.float64
    np.testing.assert_array_equal(data.test.labels.argmax(1), test_labels)
    np.testing.assert_array_equal(data.validation.labels.sum(1), np.ones(10000))
