"""TinyFlow example: a small ResNet (conv + batch norm + relu blocks, residual sums) on CIFAR-10.

    python examples/cifar_resnet.py --epochs 1
"""
from common import load, parse_args, test_accuracy, train

import tinyflow as tf

args = parse_args(__doc__, epochs=1, batch_size=100, datasets_allowed=("cifar10",))


def conv_factory(x, filter_size, out_filters, stride=1):
    x = tf.nn.conv2d(x, num_filter=out_filters, ksize=[1, filter_size, filter_size, 1],
                     strides=[1, stride, stride, 1], padding="SAME")
    x = tf.nn.batch_normalization(x)
    return tf.nn.relu(x)


def residual_factory(x, in_filters, out_filters):
    stride = 1 if in_filters == out_filters else 2
    conv1 = conv_factory(x, 3, out_filters, stride)
    conv2 = tf.nn.batch_normalization(tf.nn.conv2d(
        conv1, num_filter=out_filters, ksize=[1, 3, 3, 1], padding="SAME"))
    shortcut = x if stride == 1 else tf.nn.batch_normalization(tf.nn.conv2d(
        x, num_filter=out_filters, ksize=[1, 1, 1, 1], strides=[1, 2, 2, 1]))
    return tf.nn.relu(shortcut + conv2)


def resnet(x, n=1):
    x = conv_factory(x, 3, 16)
    for in_filters, out_filters in ((16, 16), (16, 32), (32, 64)):
        x = residual_factory(x, in_filters, out_filters)
        for _ in range(n - 1):
            x = residual_factory(x, out_filters, out_filters)
    x = tf.nn.avg_pool(x, ksize=[1, 8, 8, 1], strides=[1, 1, 1, 1])
    x = tf.nn.flatten_layer(x)
    return tf.nn.linear(x, num_hidden=10, name="fc", no_bias=False)


x = tf.placeholder(tf.float32)
label = tf.placeholder(tf.float32)
logits = resnet(x)
cross_entropy = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(logits, label)
train_step = tf.train.AdamOptimizer(0.002).minimize(cross_entropy)

sess = tf.Session(config=args.config)
sess.run(tf.initialize_all_variables())

cifar = load(args, flatten=False, onehot=False)
train(sess, train_step, cross_entropy, cifar, args, lambda xs, ys: {x: xs, label: ys})

correct_prediction = tf.equal(tf.argmax(logits, 1), label)
accuracy = tf.reduce_mean(correct_prediction)
test_accuracy(sess, accuracy, cifar, lambda xs, ys: {x: xs, label: ys}, batch_size=500)
