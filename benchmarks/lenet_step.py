"""The seed's LeNet training step (batch 100, Adam): TinyFlow vs PyTorch eager, and its memory
plan (planned vs naive bytes).

    python benchmarks/lenet_step.py [--profile]
"""
import sys

import torch
from common import compare
from peers import lenet_torch, make_data

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
    images, labels = make_data("lenet")
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

    torch_step, _ = lenet_torch(images, labels)
    compare("LeNet Adam step", lambda: sess.run(train_step, feed), torch_step, rounds=7,
            steps=10, warmup=3)
    if profile:
        print(sess.profile())


if __name__ == "__main__":
    main()
