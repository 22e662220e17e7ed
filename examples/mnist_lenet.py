"""TinyFlow example: LeNet (two tanh conv layers, max pooling, two linear layers) with Adam.

    python examples/mnist_lenet.py --dataset fashion-mnist
"""
from common import distributed, load, optimizer, parse_args, shard, test_accuracy, train

import tinyflow as tf

args = parse_args(__doc__, epochs=1)
hvd = distributed(args)  # --distributed: tinyflow.distributed under torchrun, else None

# Create the model
x = tf.placeholder(tf.float32)
conv1 = tf.nn.conv2d(x, num_filter=20, ksize=[1, 5, 5, 1], name="conv1", no_bias=False)
tanh1 = tf.tanh(conv1)
pool1 = tf.nn.max_pool(tanh1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
conv2 = tf.nn.conv2d(pool1, num_filter=50, ksize=[1, 5, 5, 1], name="conv2", no_bias=False)
tanh2 = tf.tanh(conv2)
pool2 = tf.nn.max_pool(tanh2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
flatten = tf.nn.flatten_layer(pool2)
fc1 = tf.nn.linear(flatten, num_hidden=500, name="fc1")
tanh3 = tf.tanh(fc1)
fc2 = tf.nn.linear(tanh3, num_hidden=10, name="fc2")

# define loss
label = tf.placeholder(tf.float32)
cross_entropy = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(fc2, label)
train_step = optimizer(tf.train.AdamOptimizer(0.002), hvd).minimize(cross_entropy)

sess = tf.Session(config=args.config)
# Weights are created by the layers with shapes inferred from the first batch.
sess.run(tf.initialize_all_variables())

# get the mnist dataset
mnist = shard(load(args, flatten=False, onehot=False), hvd)  # each rank its share
train(sess, train_step, cross_entropy, mnist, args, lambda xs, ys: {x: xs, label: ys}, hvd)

correct_prediction = tf.equal(tf.argmax(fc2, 1), label)
accuracy = tf.reduce_mean(correct_prediction)
test_accuracy(sess, accuracy, mnist, lambda xs, ys: {x: xs, label: ys}, hvd=hvd)
