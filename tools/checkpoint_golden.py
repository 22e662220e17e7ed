"""Write the golden checkpoint of tests/test_checkpoint_format.py with real TensorFlow (not run by
tests: they do not need TensorFlow).

    /work/tfvenv/bin/python tools/checkpoint_golden.py

TensorFlow's ``tf.compat.v1.train.Saver`` (graph mode) saves, into tests/data/tf_checkpoint/:

* ``model-2.index``, ``model-2.data-00000-of-00001``, ``checkpoint``: variables of every dtype
  the tests read (``layer/w`` and ``layer/b`` float32, ``d64`` float64, ``i32`` int32,
  ``global_step`` int64, ``flags`` bool, ``pixels`` uint8, ``half`` float16) after two Adam
  steps of ``loss = sum((x @ w + b - y)^2)`` on ``layer/w`` and ``layer/b``, with TF's slots
  ``layer/w/Adam``, ``layer/w/Adam_1``, ``layer/b/Adam``, ``layer/b/Adam_1`` and
  ``beta1_power``, ``beta2_power``;
* ``expected.npz``: the values ``sess.run`` gave for each variable at the save (``<name>``,
  ``/`` as ``|``), the inputs ``x`` and ``y``, and ``w_step3`` / ``b_step3``, the weights after
  a third Adam step;
* ``plain.index``, ``plain.data-00000-of-00001``: a Saver over the variables without the
  optimizer's (what TinyFlow's save of the same values must reproduce byte for byte);
* ``object-1.index``, ``object-1.data-00000-of-00001``: TensorFlow 2's object-based
  ``tf.train.Checkpoint(v=tf.Variable([1.5, -2.0, 3.25]))`` (eager), whose index also holds the
  string tensor ``_CHECKPOINTABLE_OBJECT_GRAPH`` TinyFlow does not read (the variable's key is
  ``v/.ATTRIBUTES/VARIABLE_VALUE``);
* ``tables-1.index``, ``tables-1.data-00000-of-00001``: ``tf.train.Saver()`` over the
  SAVEABLE_OBJECTS of three ``tf.lookup.experimental`` tables (:func:`tables`): a
  MutableHashTable ``words`` (string -> int64, TF's ``words-keys`` / ``words-values``), one
  ``names`` (int64 -> string vectors of 2) and a DenseHashTable ``dense`` (int64 -> float32,
  8 buckets, a removed key's bucket holding ``deleted_key``).
"""
import os
import shutil

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "tf_checkpoint")


def object_checkpoint():
    """TensorFlow 2's object-based checkpoint (eager), before graph mode is switched on."""
    tf.train.Checkpoint(v=tf.Variable([1.5, -2.0, 3.25])).write(os.path.join(OUT, "object-1"))


def tables():
    """The table checkpoint (graph mode; its own graph)."""
    with v1.Graph().as_default(), v1.Session() as sess:
        words = v1.lookup.experimental.MutableHashTable(v1.string, v1.int64, -1, name="words")
        names = v1.lookup.experimental.MutableHashTable(v1.int64, v1.string, ["?", "?"],
                                                        name="names")
        dense = v1.lookup.experimental.DenseHashTable(v1.int64, v1.float32, -1.0, empty_key=0,
                                                      deleted_key=-1, initial_num_buckets=8,
                                                      name="dense")
        sess.run([words.insert(["a", "bb", "", "ccc"], [1, 2, 3, 4]),
                  names.insert([7, -3], [["seven", "7"], ["minus", "three"]]),
                  dense.insert([3, 11, 4, 20], [0.5, 1.5, 2.5, 3.5])])
        sess.run(dense.remove(v1.constant([4], v1.int64)))
        v1.train.Saver().save(sess, os.path.join(OUT, "tables-1"), write_meta_graph=False,
                              write_state=False)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    object_checkpoint()
    v1.disable_eager_execution()
    tables()
    rng = np.random.default_rng(24)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    y = rng.standard_normal((5, 4)).astype(np.float32)
    with v1.variable_scope("layer"):
        w = v1.Variable(rng.standard_normal((3, 4)).astype(np.float32), name="w")
        b = v1.Variable(np.array([0.1, -0.2, 0.3, 0.0], np.float32), name="b")
    plain = [w, b,
             v1.Variable(np.array([[1.5, -2.25], [1e-300, 3.0]]), name="d64"),
             v1.Variable(np.array([1, -2, 3, 2**31 - 1, -2**31], np.int32), name="i32"),
             v1.train.get_or_create_global_step(),
             v1.Variable(np.array([True, False, True]), name="flags"),
             v1.Variable(np.array([[0, 7, 255], [128, 1, 2]], np.uint8), name="pixels"),
             v1.Variable(np.array([0.5, -65504, 1e-3], np.float16), name="half")]
    loss = v1.reduce_sum(v1.square(v1.matmul(x, w) + b - y))
    train = v1.train.AdamOptimizer(0.1).minimize(loss, global_step=plain[4])
    os.chdir(OUT)  # relative paths in the file "checkpoint"
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        sess.run(train)
        sess.run(train)
        values = {v.op.name.replace("/", "|"): sess.run(v) for v in v1.global_variables()}
        v1.train.Saver().save(sess, "model", global_step=2, write_meta_graph=False)
        v1.train.Saver(plain).save(sess, "plain", write_state=False, write_meta_graph=False)
        sess.run(train)
        np.savez(os.path.join(OUT, "expected.npz"), x=x, y=y, w_step3=sess.run(w),
                 b_step3=sess.run(b), **values)
    for name in sorted(os.listdir(OUT)):
        print(name, os.path.getsize(name))


if __name__ == "__main__":
    main()
