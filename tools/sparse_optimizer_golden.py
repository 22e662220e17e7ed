"""Print the golden numbers of tests/test_sparse_optimizers.py, made by real TensorFlow (not run
by tests: they do not need TensorFlow).

    /work/tfvenv/bin/python tools/sparse_optimizer_golden.py > /tmp/golden.py

TF 1.15 semantics through tensorflow 2.21's ``tf.compat.v1`` with v2 behaviour disabled: the
variables are RefVariables, so ``apply_gradients`` takes each optimizer's ``_apply_sparse`` path
(the duplicates summed first, except GradientDescent's scatter_sub).  The model: an embedding
``emb`` of 6 rows of 3, ``loss = sum(weights * e + 0.5 * e^2)`` of ``e = embedding_lookup(emb,
ids)``, three steps with the ids of ``STEPS`` (duplicates; rows 0 and 5 looked up at one step
only, row 2 never).  For each case and step: the variable, then its slots by slot name, then
the optimizer's other variables (Adam's beta powers), each as a flat list.  SHARDED_MOD and
SHARDED_DIV: Momentum on the embedding split in two shards of 3 rows, each shard's own
IndexedSlices, as TF's embedding_lookup of a list of shards gives them.
"""
import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
STEPS = [[1, 3, 1, 4], [0, 1, 0, 4], [3, 5, 3, 3]]
INITIAL = (np.arange(18, dtype=np.float32).reshape(6, 3) / 7.0 - 1.2).astype(np.float32)
WEIGHTS = (np.arange(12, dtype=np.float32).reshape(4, 3) / 5.0 - 0.9).astype(np.float32)

CASES = {
    "sgd": lambda lr: v1.train.GradientDescentOptimizer(lr),
    "momentum": lambda lr: v1.train.MomentumOptimizer(lr, 0.9),
    "nesterov": lambda lr: v1.train.MomentumOptimizer(lr, 0.8, use_nesterov=True),
    "momentum_tensor_lr": lambda lr: v1.train.MomentumOptimizer(tf.constant(lr), 0.9),
    "adam": lambda lr: v1.train.AdamOptimizer(lr),
    "adagrad": lambda lr: v1.train.AdagradOptimizer(lr),
    "rmsprop": lambda lr: v1.train.RMSPropOptimizer(lr, decay=0.8, momentum=0.5),
    "centered_rmsprop": lambda lr: v1.train.RMSPropOptimizer(lr, decay=0.8, momentum=0.3,
                                                             centered=True),
    "adadelta": lambda lr: v1.train.AdadeltaOptimizer(lr * 10, rho=0.9, epsilon=1e-3),
    "ftrl": lambda lr: v1.train.FtrlOptimizer(lr, l1_regularization_strength=0.05,
                                              l2_regularization_strength=0.2),
    "ftrl_shrinkage": lambda lr: v1.train.FtrlOptimizer(
        lr, learning_rate_power=-0.7, l1_regularization_strength=0.01,
        l2_shrinkage_regularization_strength=0.1),
    "proximal_adagrad": lambda lr: v1.train.ProximalAdagradOptimizer(
        lr, l1_regularization_strength=0.05, l2_regularization_strength=0.2),
    "proximal_sgd": lambda lr: v1.train.ProximalGradientDescentOptimizer(
        lr, l1_regularization_strength=0.05, l2_regularization_strength=0.2),
}


def run(make):
    graph = tf.Graph()
    with graph.as_default():
        emb = v1.Variable(INITIAL, name="emb")
        ids = v1.placeholder(tf.int32, [4], name="ids")
        looked = tf.nn.embedding_lookup(emb, ids)
        loss = tf.reduce_sum(WEIGHTS * looked + 0.5 * looked * looked)
        opt = make(0.3)
        (grad, _), = opt.compute_gradients(loss, [emb])
        assert isinstance(grad, tf.IndexedSlices), type(grad)
        step = opt.apply_gradients([(grad, emb)])
        slots = [opt.get_slot(emb, name) for name in sorted(opt.get_slot_names())]
        others = [v for v in opt.variables() if all(v is not s for s in slots)]
        watched = [emb] + slots + sorted(others, key=lambda v: v.op.name)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            rows = []
            for batch in STEPS:
                sess.run(step, {ids: batch})
                rows.append([sess.run(v).ravel().tolist() for v in watched])
    return [v.op.name for v in watched], rows


def run_sharded(strategy):
    """Momentum on an embedding split in two shards of 3 rows (``partition_strategy``),
    the model and steps above: the shards after each step."""
    graph = tf.Graph()
    with graph.as_default():
        shards = [v1.Variable(INITIAL[:3], name="shard0"), v1.Variable(INITIAL[3:], name="shard1")]
        ids = v1.placeholder(tf.int32, [4], name="ids")
        looked = v1.nn.embedding_lookup(shards, ids, partition_strategy=strategy)
        loss = tf.reduce_sum(WEIGHTS * looked + 0.5 * looked * looked)
        opt = v1.train.MomentumOptimizer(0.3, 0.9)
        grads = opt.compute_gradients(loss, shards)
        assert all(isinstance(g, tf.IndexedSlices) for g, _ in grads)
        step = opt.apply_gradients(grads)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            rows = []
            for batch in STEPS:
                sess.run(step, {ids: batch})
                rows.append([sess.run(v).ravel().tolist() for v in shards])
    return rows


def main():
    v1.disable_v2_behavior()
    for strategy in ("mod", "div"):
        print(f"SHARDED_{strategy.upper()} = [")
        for row in run_sharded(strategy):
            print("    [" + ",\n     ".join(
                "[" + ", ".join(str(np.float32(x)) for x in values) + "]"
                for values in row) + "],")
        print("]")
    print("GOLDEN = {")
    for name, make in CASES.items():
        names, rows = run(make)
        print(f"    {name!r}: ({names!r}, [")
        for row in rows:
            print("        [" + ",\n         ".join(
                "[" + ", ".join(str(np.float32(x)) for x in values) + "]"
                for values in row) + "],")
        print("    ]),")
    print("}")


if __name__ == "__main__":
    main()
