"""Session.closures: the Lua closures a step runs, as the executor bound them."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_closure_report_is_what_the_executor_runs():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    W = tf.Variable(tf.ones([3, 2]), name="W")
    loss = tf.reduce_sum(tf.matmul(x, W, name="xW"))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    feed = {x: np.ones((4, 3))}

    # fetching the loss too: a bare step would not run xW, read only for its shape
    report = sess.closures([loss, step], feed)
    executor = sess._bind([loss, step], feed)  # the cached executor the report came from
    assert [row[0] for row in report.rows] == [
        executor.indexed.nodes[nid].name for nid in executor.op_nodes]
    assert len(report.rows) == len(executor.closures)
    (row,) = [row for row in report.rows if row[0] == "xW"]
    assert row[1:4] == ("matmul", [(4, 3), (3, 2)], [(4, 2)])
    assert row[4] == tf.nnvm.Op.get("matmul").attr("FLuaCompute")
    assert "xW" in str(report) and "(4, 3), (3, 2) -> (4, 2)" in str(report)
    np.testing.assert_array_equal(sess.run(W), np.ones((3, 2)))  # binding ran nothing
