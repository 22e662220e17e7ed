"""TinyFlow example: a two-layer MLP whose weight shapes come from shape inference.

The layers create their own variables (fc1_weight, fc1_bias, fc2_weight); their shapes are
inferred from the input shape, as NNVM does.

    python examples/mnist_mlp_auto_shape_inference.py --dataset fashion-mnist
"""
from common import distributed, load, optimizer, parse_args, shard, test_accuracy, train

import tinyflow as tf

args = parse_args(__doc__, epochs=10)
hvd = distributed(args)  # --distributed: tinyflow.distributed under torchrun, else None

# Create the model
x = tf.placeholder(tf.float32)
fc1 = tf.nn.linear(x, num_hidden=100, name="fc1", no_bias=False)
relu1 = tf.nn.relu(fc1)
fc2 = tf.nn.linear(relu1, num_hidden=10, name="fc2")
y = tf.nn.softmax(fc2)

# Define loss and optimizer
y_ = tf.placeholder(tf.float32)
cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
train_step = optimizer(tf.train.GradientDescentOptimizer(0.5), hvd).minimize(cross_entropy)

sess = tf.Session(config=args.config)

# Automatic variable shape inference API: infers the shapes and initialises the weights.
known_shape = {x: [args.batch_size, 784], y_: [args.batch_size, 10]}
init_step = []
for v, name, shape in tf.infer_variable_shapes(cross_entropy, feed_dict=known_shape):
    init_step.append(tf.assign(v, tf.normal(shape, stdev=0.01)))
    print(f"shape[{name}]={shape}")
sess.run(init_step)

# get the mnist dataset
mnist = shard(load(args, flatten=True, onehot=True), hvd)  # each rank its share
train(sess, train_step, cross_entropy, mnist, args, lambda xs, ys: {x: xs, y_: ys}, hvd)

correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
accuracy = tf.reduce_mean(correct_prediction)
test_accuracy(sess, accuracy, mnist, lambda xs, ys: {x: xs, y_: ys}, hvd=hvd)
