"""Check TinyFlow's checkpoints against real TensorFlow, both ways (not run by tests: they do not
need TensorFlow; tests/test_checkpoint_format.py compares with golden files TensorFlow wrote).

    PYTHONPATH=. python tools/checkpoint_crosscheck.py [/work/tfvenv/bin/python]

For a small conv + dense model and each optimizer, TinyFlow trains two steps and saves; then, in
TensorFlow (``tf.compat.v1``, graph mode), the same graph's ``tf.train.Saver`` restores that
checkpoint (which needs every name TF expects: slots, beta powers, global_step), the values are
compared with TinyFlow's, TF lists the checkpoint (``tf.train.list_variables``), trains one step
and saves; TinyFlow restores TF's checkpoint and compares every value with what TF saved.
Then the same both ways for mutable tables (TABLES: a string -> int64 MutableHashTable, an
int64 -> string-vector one and a DenseHashTable): each program fills its tables, saves, and
the other restores into tables it had filled otherwise and compares every lookup.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

OPTIMIZERS = {  # name -> the expression building it, the same in both
    "adam": "train.AdamOptimizer(0.01)",
    "momentum": "train.MomentumOptimizer(0.01, 0.9)",
    "rmsprop": "train.RMSPropOptimizer(0.01, momentum=0.5)",
    "centered": "train.RMSPropOptimizer(0.01, momentum=0.5, centered=True)",
    "adagrad": "train.AdagradOptimizer(0.1)",
    "adadelta": "train.AdadeltaOptimizer(1.0)",
}

MODEL = """
def model(tf, train, optimizer):
    x = tf.constant(np.random.default_rng(1).standard_normal((2, 5, 5, 1)).astype(np.float32))
    with tf.variable_scope("conv"):
        k = tf.get_variable("kernel", [3, 3, 1, 4], initializer=tf.ones_initializer())
    with tf.variable_scope("fc"):
        w = tf.get_variable("w", [4, 3], initializer=tf.ones_initializer())
        b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    step = train.get_or_create_global_step()
    h = tf.reduce_mean(tf.nn.relu(tf.nn.conv2d(x, k * 0.1, [1, 1, 1, 1], "SAME")), [1, 2])
    loss = tf.reduce_sum(tf.square(tf.matmul(h, w) + b - 1.0))
    return eval(optimizer).minimize(loss, global_step=step)
"""

TINYFLOW = MODEL + """
import sys, json, numpy as np, tinyflow as tf
from tinyflow import train
folder, optimizer, phase = sys.argv[1:4]
step = model(tf, train, optimizer)
sess = tf.Session()
names = lambda: {getattr(v, "checkpoint_name", None) or v.op.name: v for v in tf.global_variables()}
if phase == "save":
    sess.run(tf.global_variables_initializer())
    sess.run(step); sess.run(step)
    path = tf.train.Saver().save(sess, folder + "/tiny/model", global_step=2)
    np.savez(folder + "/tiny.npz", **{n.replace("/", "|"): sess.run(v) for n, v in names().items()})
else:
    tf.train.Saver().restore(sess, tf.train.latest_checkpoint(folder + "/tf"))
    want = np.load(folder + "/tf.npz")
    for name, var in names().items():
        if name.replace("/", "|") in want.files:
            assert np.array_equal(sess.run(var), want[name.replace("/", "|")]), name
    print("TinyFlow restored TensorFlow's checkpoint exactly")
"""

TENSORFLOW = MODEL + """
import os, sys, numpy as np
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
train = tf.train
folder, optimizer = sys.argv[1:3]
step = model(tf, train, optimizer)
tiny = np.load(folder + "/tiny.npz")
with tf.Session() as sess:
    saver = tf.train.Saver()
    saver.restore(sess, tf.train.latest_checkpoint(folder + "/tiny"))
    for v in tf.global_variables():
        key = v.op.name.replace("/", "|")
        if key in tiny.files:
            assert np.array_equal(sess.run(v), tiny[key]), v.op.name
    listed = tf.train.list_variables(folder + "/tiny")
    sess.run(step)
    saver.save(sess, folder + "/tf/model", global_step=3)
    np.savez(folder + "/tf.npz", **{v.op.name.replace("/", "|"): sess.run(v)
                                    for v in tf.global_variables()})
print("TensorFlow restored TinyFlow's checkpoint:", [name for name, _ in listed])
"""


TABLES = """
import sys, numpy as np
tinyflow = sys.argv[3] == "tinyflow"
if tinyflow:
    import tinyflow as tf
else:
    import os; os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow.compat.v1 as tf; tf.disable_eager_execution()
folder, phase = sys.argv[1], sys.argv[2]
experimental = tf.lookup.experimental
words = experimental.MutableHashTable(tf.string, tf.int64, -1, name="words")
names = experimental.MutableHashTable(tf.int64, tf.string, ["?", "?"], name="names")
dense = experimental.DenseHashTable(tf.int64, tf.float32, -1.0, empty_key=0, deleted_key=-1,
                                    initial_num_buckets=8, name="dense")
ints = lambda *v: tf.constant(list(v), tf.int64)
strings = lambda *v: tf.constant(np.array(v, dtype=object))
lookups = [words.lookup(strings("a", "", "ccc", "x", "stale")), names.lookup(ints(7, -3, 1)),
           dense.lookup(ints(3, 11, 4, 20, 5)), words.size(), dense.size()]
expected = [[1, 3, 4, -1, -1], [[b"seven", b"7"], [b"minus", b"three"], [b"?", b"?"]],
            [0.5, 1.5, -1.0, 3.5, -1.0], 4, 3]
sess = tf.Session()
if phase == "save":
    sess.run([words.insert(strings("a", "bb", "", "ccc"), ints(1, 2, 3, 4)),
              names.insert(ints(7, -3), strings(["seven", "7"], ["minus", "three"])),
              dense.insert(ints(3, 11, 4, 20), tf.constant([0.5, 1.5, 2.5, 3.5]))])
    sess.run(dense.remove(ints(4)))
    tf.train.Saver().save(sess, folder + "/" + sys.argv[3], write_meta_graph=False)
else:
    sess.run(words.insert(strings("stale"), ints(9)))  # replaced by the restore
    tf.train.Saver().restore(sess, folder + "/" + sys.argv[4])
    got = sess.run(lookups)
    assert all(np.array_equal(g, e) for g, e in zip(got, expected)), got
    print(sys.argv[3], "restored the tables of", sys.argv[4])
"""


def _run(python, script, folder, name, optimizer, *args) -> str:
    out = subprocess.run([python, "-c", script, folder, optimizer, *args], check=False,
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{name}: {out.stderr[-3000:]}")
    return (out.stdout.strip().splitlines() or [""])[-1]


def main():
    python_tf = sys.argv[1] if len(sys.argv) > 1 else "/work/tfvenv/bin/python"
    for name, optimizer in OPTIMIZERS.items():
        with tempfile.TemporaryDirectory() as folder:
            _run(sys.executable, TINYFLOW, folder, name, optimizer, "save")
            print(name, _run(python_tf, TENSORFLOW, folder, name, optimizer))
            print(name, _run(sys.executable, TINYFLOW, folder, name, optimizer, "restore"))
    with tempfile.TemporaryDirectory() as folder:
        for python, which in ((sys.executable, "tinyflow"), (python_tf, "tensorflow")):
            _run(python, TABLES, folder, "tables", "save", which)
        for python, which, other in ((python_tf, "tensorflow", "tinyflow"),
                                     (sys.executable, "tinyflow", "tensorflow")):
            print("tables:", _run(python, TABLES, folder, "tables", "restore", which, other))
    print(json.dumps({"ok": True}))


if __name__ == "__main__":
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    np.seterr(all="ignore")
    main()
