"""TinyFlow example: softmax regression on MNIST, the seed's first program.

    python examples/mnist_softmax.py --dataset fashion-mnist
"""
from common import load, parse_args, test_accuracy, train

import tinyflow as tf

args = parse_args(__doc__, epochs=2)

# Create the model
x = tf.placeholder(tf.float32, [None, 784])
W = tf.Variable(tf.zeros([784, 10]))
y = tf.nn.softmax(tf.matmul(x, W))

# Define loss and optimizer
y_ = tf.placeholder(tf.float32, [None, 10])
cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)

sess = tf.Session(config=args.config)
sess.run(tf.initialize_all_variables())

# get the mnist dataset
mnist = load(args, flatten=True, onehot=True)
train(sess, train_step, cross_entropy, mnist, args, lambda xs, ys: {x: xs, y_: ys})

correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
accuracy = tf.reduce_mean(correct_prediction)
test_accuracy(sess, accuracy, mnist, lambda xs, ys: {x: xs, y_: ys})
