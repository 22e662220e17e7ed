"""The seed's softmax regression step (784x10, batch 100, SGD 0.5): TinyFlow vs PyTorch eager.

    python benchmarks/softmax_step.py [--profile]
"""
import sys

import numpy as np
import torch
from common import compare

import tinyflow as tf


def main():
    rng = np.random.default_rng(0)
    images = rng.uniform(size=(100, 784)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 100)]
    print(f"torch threads: {torch.get_num_threads()}")

    x = tf.placeholder(tf.float32, [None, 784])
    W = tf.Variable(tf.zeros([784, 10]))
    y = tf.nn.softmax(tf.matmul(x, W))
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    profile = "--profile" in sys.argv
    sess = tf.Session("cpu profile" if profile else "cpu")
    sess.run(tf.global_variables_initializer())
    feed = {x: images, y_: labels}

    def tinyflow_step():
        sess.run(train_step, feed_dict=feed)

    w = torch.zeros(784, 10, requires_grad=True)

    def torch_step():
        xs, ys = torch.from_numpy(images), torch.from_numpy(labels)
        loss = torch.mean(-torch.sum(ys * torch.log(torch.softmax(xs @ w, 1)), 1))
        loss.backward()
        with torch.no_grad():
            w.sub_(0.5 * w.grad)
        w.grad = None

    compare("softmax regression step", tinyflow_step, torch_step)
    if profile:
        print(sess.profile())


if __name__ == "__main__":
    main()
