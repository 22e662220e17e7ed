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
    parser = argparse.ArgumentParser(description=description, formatter_class=_HelpFormatter)
    parser.add_argument("--dataset", choices=datasets_allowed, default=datasets_allowed[0],
                        help="the data set to train and test on")
    parser.add_argument("--epochs", type=float, default=epochs,
                        help="passes over the training set (fractions allowed)")
    parser.add_argument("--batch-size", type=int, default=batch_size,
                        help="examples per training step")
    parser.add_argument("--config", type=_config, default="cpu",
                        help='the session config: "cpu" or "gpu", then any of fusion, '
                             'fusion-eager, graph, profile (e.g. "cpu fusion")')
    parser.add_argument("--profile", action="store_true",
                        help="time every op and print the per-op table of the training "
                             "steps at the end (adds profile to --config)")
    parser.add_argument("--data-dir", default=None,
                        help="folder holding the dataset files (default: downloaded into "
                             "~/.cache/tinyflow, or found in $TINYFLOW_DATA)")
    parser.add_argument("--distributed", action="store_true",
                        help="data-parallel over the ranks torchrun starts (tinyflow.distributed)")
    args = parser.parse_args()
    if args.profile and "profile" not in args.config.split():
        args.config += " profile"
    return args


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The docstring as written, and each flag's default after its help (on/off flags and
    those whose help says what their absence means show none)."""

    def _get_help_string(self, action):
        if action.default in (None, False, argparse.SUPPRESS):
            return action.help
        return f"{action.help} (default: %(default)s)"


def _config(text):
    """``--config``: a session config string, checked as tf.Session checks it."""
    from tinyflow.session.options import session_options
    try:
        session_options(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def distributed(args):
    """``tinyflow.distributed`` joined (under torchrun) with ``--distributed``, else None."""
    if not args.distributed:
        return None
    import tinyflow.distributed as hvd
    hvd.init()
    return hvd


def optimizer(opt, hvd):
    """``opt``, wrapped to average gradients over the ranks when distributed."""
    return opt if hvd is None else hvd.DistributedOptimizer(opt)


def start(sess, hvd, loss, feed):
    """After initialising: every rank takes rank 0's weights.  A forward pass on ``feed``
    first gives the weights shaped by inference their values."""
    if hvd is not None:
        import tinyflow as tf
        sess.run(loss, feed_dict=feed)
        sess.run(hvd.broadcast_variables(tf.trainable_variables(), 0))


def shard(data, hvd):
    """Each rank's share of the training examples (the test set stays whole)."""
    if hvd is None or hvd.size() == 1:
        return data
    train = data.train
    part = datasets.DataSet(train.images[hvd.rank()::hvd.size()],
                            train.labels[hvd.rank()::hvd.size()], seed=hvd.rank())
    return datasets.Datasets(train=part, test=data.test)


def load(args, flatten=False, onehot=False):
    """The data set ``--dataset`` names; without its files (offline, say) one short message
    saying what to do instead of a traceback."""
    try:
        return LOADERS[args.dataset](flatten=flatten, onehot=onehot, data_dir=args.data_dir)
    except datasets.DatasetError as err:
        first = str(err).splitlines()[0]
        if "missing file" not in first:  # a corrupt file: its own message says which
            raise SystemExit(f"error: {err}") from None
        hint = ("run with --dataset fashion-mnist (Debian's dataset-fashion-mnist package "
                "needs no download), or " if args.dataset == "mnist" else "")
        raise SystemExit(f"{first}\nCould not download it (no internet?): {hint}put the "
                         "files in a folder and pass --data-dir FOLDER.") from None


def train(sess, train_step, loss, data, args, feed, hvd=None):
    """Run ``train_step`` for ``args.epochs`` epochs; ``feed(images, labels)`` -> feed_dict.
    Distributed, every rank runs as many steps (its share of an epoch), rank 0 shows them."""
    steps = max(1, int(args.epochs * data.train.num_examples / args.batch_size))
    running = None
    quiet = hvd is not None and hvd.rank() != 0
    start(sess, hvd, loss, feed(*data.train.next_batch(args.batch_size)))
    with tqdm(range(steps), desc="training", unit="batch", mininterval=0.5,
              disable=quiet) as bar:
        for _ in bar:
            images, labels = data.train.next_batch(args.batch_size)
            _, value = sess.run([train_step, loss], feed_dict=feed(images, labels))
            running = value if running is None else 0.95 * running + 0.05 * value
            bar.set_postfix(loss=f"{running:.4f}", refresh=False)


def test_accuracy(sess, accuracy, data, feed, batch_size=1000, hvd=None):
    """Accuracy over the whole test set, in batches; prints (rank 0 only) and returns it.
    With ``--profile``, then prints the per-op time of the training steps."""
    profiled = sess.options.profile
    table = sess.profile(reset=True) if profiled else None  # training only, not the test
    images, labels = data.test.images, data.test.labels
    total = 0.0
    for start in range(0, len(images), batch_size):
        part = slice(start, start + batch_size)
        total += float(sess.run(accuracy, feed_dict=feed(images[part], labels[part]))) * len(
            images[part])
    result = total / len(images)
    if hvd is None or hvd.rank() == 0:
        print(f"test accuracy: {result:.4f}")
        if profiled:
            print("\nper-op time of the training steps (--profile):")
            print(table)
    return result


__all__ = ["distributed", "load", "np", "optimizer", "parse_args", "shard", "start",
           "test_accuracy", "train"]
