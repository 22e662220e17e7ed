"""Serving examples: :class:`DataSet` splits in shuffled mini-batches, :class:`Datasets` pairs.

:func:`make_datasets` scales the pixels to float32 in [0, 1], shapes them as images (or
rows) and one-hot encodes the labels when asked. numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .formats import NUM_CLASSES

__all__ = [
    "DataSet",
    "Datasets",
    "make_datasets",
]


class DataSet:
    """One split of a data set, served in shuffled mini-batches.

    Parameters
    ----------
    images : numpy.ndarray
        Examples, first axis indexing them.
    labels : numpy.ndarray
        One label (or one-hot row) per example.
    seed : int or numpy.random.SeedSequence, optional
        Seed of the generator that orders the examples in each epoch.

    Attributes
    ----------
    epochs_completed : int
        How many full passes over the examples :meth:`next_batch` has made.
    """

    def __init__(self, images: np.ndarray, labels: np.ndarray, *,
                 seed: int | np.random.SeedSequence = 0) -> None:
        if len(images) != len(labels):
            raise ValueError(f"{len(images)} images but {len(labels)} labels")
        self._images = images
        self._labels = labels
        self._rng = np.random.default_rng(seed)
        self._order = self._rng.permutation(len(images))
        self._position = 0
        self.epochs_completed = 0

    @property
    def images(self) -> np.ndarray:
        """numpy.ndarray: All the examples, in file order."""
        return self._images

    @property
    def labels(self) -> np.ndarray:
        """numpy.ndarray: All the labels, in file order."""
        return self._labels

    @property
    def num_examples(self) -> int:
        """int: Number of examples in the split."""
        return len(self._images)

    def next_batch(self, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
        """Return the next ``batch_size`` examples and their labels.

        Every example appears exactly once per epoch; the order is reshuffled at
        the start of each epoch, and a batch that crosses an epoch boundary ends
        with the first examples of the next epoch.

        Parameters
        ----------
        batch_size : int
            Number of examples to return, at least 1.

        Returns
        -------
        images, labels : tuple of numpy.ndarray
            Copies of the selected examples and of their labels.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
            raise TypeError(f"batch_size must be an int, not {type(batch_size).__name__}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        count = self.num_examples
        if count == 0:
            raise ValueError("cannot draw a batch from an empty data set")
        parts = []
        remaining = int(batch_size)
        while remaining:
            if self._position == count:
                self._order = self._rng.permutation(count)
                self._position = 0
            take = min(remaining, count - self._position)
            parts.append(self._order[self._position:self._position + take])
            self._position += take
            remaining -= take
            if self._position == count:
                self.epochs_completed += 1
        index = np.concatenate(parts)
        return self._images[index], self._labels[index]

    def __repr__(self) -> str:
        return (f"DataSet(images={self._images.shape}, labels={self._labels.shape}, "
                f"epochs_completed={self.epochs_completed})")


@dataclass(frozen=True)
class Datasets:
    """The training and test splits of a data set.

    Attributes
    ----------
    train : DataSet
        The training split.
    test : DataSet
        The test split.
    """

    train: DataSet
    test: DataSet


def make_datasets(train_images: np.ndarray, train_labels: np.ndarray,
                  test_images: np.ndarray, test_labels: np.ndarray,
                  image_shape: tuple[int, ...], flatten: bool, onehot: bool,
                  seed: int) -> Datasets:
    """Turn the pixels and class ids read from the files into shuffled splits.

    Parameters
    ----------
    train_images, test_images : numpy.ndarray
        uint8 pixels, first axis indexing the examples, ``prod(image_shape)`` values each.
    train_labels, test_labels : numpy.ndarray
        Integer class ids below :data:`~tinyflow.datasets.formats.NUM_CLASSES`.
    image_shape : tuple of int
        Shape of one image, channels first: ``(1, 28, 28)`` or ``(3, 32, 32)``.
    flatten : bool
        Whether images become rows instead of ``image_shape`` arrays.
    onehot : bool
        Whether labels become one-hot rows instead of class ids.
    seed : int
        Seed from which each split's batch order gets its own child seed.

    Returns
    -------
    Datasets
        Both splits, images float32 in [0, 1], labels float32.
    """
    train_seed, test_seed = np.random.SeedSequence(seed).spawn(2)
    return Datasets(
        train=DataSet(_to_images(train_images, image_shape, flatten),
                      _to_labels(train_labels, onehot), seed=train_seed),
        test=DataSet(_to_images(test_images, image_shape, flatten),
                     _to_labels(test_labels, onehot), seed=test_seed),
    )


def _to_images(pixels: np.ndarray, image_shape: tuple[int, ...],
               flatten: bool) -> np.ndarray:
    images = pixels.astype(np.float32)
    images /= 255.0
    shape = (-1, int(np.prod(image_shape))) if flatten else (-1, *image_shape)
    return images.reshape(shape)


def _to_labels(labels: np.ndarray, onehot: bool) -> np.ndarray:
    if onehot:
        return np.eye(NUM_CLASSES, dtype=np.float32)[labels]
    return labels.astype(np.float32)

