"""What the examples share: command-line flags, the dataset, a training loop with a progress
bar and the test accuracy.  The models themselves stay in the example files, as in the seed."""
from __future__ import annotations

import argparse

import numpy as np
from tqdm import tqdm

from tinyflow import datasets

LOADERS = {"mnist": datasets.get_mnist, "fashion-mnist": datasets.get_fashion_mnist,
           "cifar10": datasets.get_cifar10}


def parse_args(description, epochs=1, batch_size=100, datasets_allowed=("mnist",
                                                                         "fashion-mnist")):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--dataset", choices=datasets_allowed, default=datasets_allowed[0])
    parser.add_argument("--epochs", type=float, default=epochs,
                        help="passes over the training set (fractions allowed)")
    parser.add_argument("--batch-size", type=int, default=batch_size)
    parser.add_argument("--config", choices=("cpu", "gpu"), default="cpu")
    parser.add_argument("--data-dir", default=None, help="folder holding the dataset files")
    return parser.parse_args()


def load(args, flatten=False, onehot=False):
    return LOADERS[args.dataset](flatten=flatten, onehot=onehot, data_dir=args.data_dir)


def train(sess, train_step, loss, data, args, feed):
    """Run ``train_step`` for ``args.epochs`` epochs; ``feed(images, labels)`` -> feed_dict."""
    steps = max(1, int(args.epochs * data.train.num_examples / args.batch_size))
    running = None
    with tqdm(range(steps), desc="training", unit="batch", mininterval=0.5) as bar:
        for _ in bar:
            images, labels = data.train.next_batch(args.batch_size)
            _, value = sess.run([train_step, loss], feed_dict=feed(images, labels))
            running = value if running is None else 0.95 * running + 0.05 * value
            bar.set_postfix(loss=f"{running:.4f}", refresh=False)


def test_accuracy(sess, accuracy, data, feed, batch_size=1000):
    """Accuracy over the whole test set, in batches; prints and returns it."""
    images, labels = data.test.images, data.test.labels
    total = 0.0
    for start in range(0, len(images), batch_size):
        part = slice(start, start + batch_size)
        total += float(sess.run(accuracy, feed_dict=feed(images[part], labels[part]))) * len(
            images[part])
    result = total / len(images)
    print(f"test accuracy: {result:.4f}")
    return result


__all__ = ["load", "np", "parse_args", "test_accuracy", "train"]
