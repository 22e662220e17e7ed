"""The seed's LeNet training step (batch 100, Adam): TinyFlow vs PyTorch eager, and its memory
plan (planned vs naive bytes).

    python benchmarks/lenet_step.py [--profile]
"""
import sys

import numpy as np
import torch
import torch.nn.functional as F
from common import compare

import tinyflow as tf


def lenet_graph():
    """The seed's LeNet (NCHW, the seed's layers) and its Adam step: (x, label, logits,
    train_step); benchmarks/peers.py builds the same."""
    x = tf.placeholder(tf.float32)
    conv1 = tf.nn.conv2d(x, num_filter=20, ksize=[1, 5, 5, 1], name="conv1", no_bias=False)
    pool1 = tf.nn.max_pool(tf.tanh(conv1), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    conv2 = tf.nn.conv2d(pool1, num_filter=50, ksize=[1, 5, 5, 1], name="conv2", no_bias=False)
    pool2 = tf.nn.max_pool(tf.tanh(conv2), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    fc1 = tf.nn.linear(tf.nn.flatten_layer(pool2), num_hidden=500, name="fc1")
    fc2 = tf.nn.linear(tf.tanh(fc1), num_hidden=10, name="fc2")
    label = tf.placeholder(tf.float32)
    loss = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(fc2, label)
    return x, label, fc2, tf.train.AdamOptimizer(0.001).minimize(loss)


def tinyflow_lenet(profile):
    x, label, _, train_step = lenet_graph()
    sess = tf.Session("cpu profile" if profile else "cpu")
    sess.run(tf.global_variables_initializer())
    return sess, train_step, x, label


def main():
    profile = "--profile" in sys.argv
    rng = np.random.default_rng(0)
    images = rng.uniform(size=(100, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, 100).astype(np.float32)
    print(f"torch threads: {torch.get_num_threads()}")
    sess, train_step, x, label = tinyflow_lenet(profile)
    feed = {x: images, label: labels}
    sess.run(train_step, feed)
    report = sess.memory_plan(train_step, feed)
    print(f"LeNet train step memory plan: planned {report.planned_bytes / 1e6:.2f} MB, naive "
          f"{report.naive_bytes / 1e6:.2f} MB ({report.planned_bytes / report.naive_bytes:.1%})"
          f", {report.num_storages} storages, {len(report.inplace_pairs)} in-place; "
          f"parameters {report.param_bytes / 1e6:.2f} MB; op workspace beside the plan "
          f"{report.workspace_bytes / 1e6:.2f} MB")
    print(f"targets: planned <= 50% of naive: {report.planned_bytes <= report.naive_bytes / 2}; "
          f"planned <= MXNet 1.9's 19 MB: {report.planned_bytes <= 19e6}")

    torch.manual_seed(0)
    params = [torch.randn(20, 1, 5, 5) * 0.1, torch.zeros(20), torch.randn(50, 20, 5, 5) * 0.05,
              torch.zeros(50), torch.randn(500, 800) * 0.03, torch.randn(10, 500) * 0.05]
    for p in params:
        p.requires_grad_(True)
    optimizer = torch.optim.Adam(params, lr=0.001)
    xs, ys = torch.from_numpy(images), torch.from_numpy(labels).long()

    def torch_step():
        w1, b1, w2, b2, w3, w4 = params
        h = F.max_pool2d(torch.tanh(F.conv2d(xs, w1, b1)), 2)
        h = F.max_pool2d(torch.tanh(F.conv2d(h, w2, b2)), 2)
        logits = torch.tanh(h.flatten(1) @ w3.t()) @ w4.t()
        loss = F.cross_entropy(logits, ys)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    compare("LeNet Adam step", lambda: sess.run(train_step, feed), torch_step, rounds=7,
            steps=10, warmup=3)
    if profile:
        print(sess.profile())


if __name__ == "__main__":
    main()
