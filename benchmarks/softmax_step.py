"""The seed's softmax regression step (784x10, batch 100, SGD 0.5): TinyFlow vs PyTorch eager.

    python benchmarks/softmax_step.py [--profile]
"""
import sys

import torch
from common import compare
from peers import make_data, softmax_graph, softmax_torch

import tinyflow as tf


def main():
    images, labels = make_data("softmax")
    print(f"torch threads: {torch.get_num_threads()}")
    train_step, feed, _ = softmax_graph(tf, images, labels)
    profile = "--profile" in sys.argv
    sess = tf.Session("cpu profile" if profile else "cpu")
    sess.run(tf.global_variables_initializer())
    compare("softmax regression step", lambda: sess.run(train_step, feed_dict=feed),
            softmax_torch(images, labels))
    if profile:
        print(sess.profile())


if __name__ == "__main__":
    main()
