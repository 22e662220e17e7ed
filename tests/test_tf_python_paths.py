"""TensorFlow's ``tensorflow.python.*`` module paths, as TF-1 programs import them, answered as
``tinyflow.python.*``: the same objects as ``tf.*``, and an AttributeError saying so for a name
TinyFlow lacks."""
import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.python import reexport

pytestmark = pytest.mark.usefixtures("fresh_graph")
PACKAGE = Path(reexport.__file__).parent


def test_a_tf1_program_through_tensorflow_python_paths():
    # the imports of TF-1 code on GitHub (framework.ops, dtypes, array_ops, math_ops, nn_ops,
    # variable_scope, init_ops, rnn_cell_impl, training_util...)
    from tinyflow.python.client import session
    from tinyflow.python.framework import constant_op, dtypes, ops, tensor_shape
    from tinyflow.python.ops import (
        array_ops,
        control_flow_ops,
        init_ops,
        math_ops,
        nn_ops,
        rnn_cell_impl,
        variable_scope,
    )
    from tinyflow.python.training import training_util

    ops.reset_default_graph()
    with ops.name_scope("net"):
        x = array_ops.placeholder(dtypes.float32, [None, 3], name="x")
        with variable_scope.variable_scope("layer"):
            w = variable_scope.get_variable("w", [3, 2], initializer=init_ops.ones_initializer())
        y = nn_ops.relu(math_ops.matmul(x, w) - constant_op.constant(2.0))
    assert isinstance(y, ops.Tensor) and isinstance(y.op, ops.Operation)
    assert y.graph is ops.get_default_graph() and w.name == "layer/w:0"
    assert y.get_shape() == tensor_shape.TensorShape([None, 2])
    cell = rnn_cell_impl.BasicLSTMCell(4)
    assert isinstance(cell, rnn_cell_impl.RNNCell) and cell.state_size.c == 4
    step = training_util.get_or_create_global_step()
    bump = control_flow_ops.group(step.assign_add(1))
    with session.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(y, {x: [[1.0, 2.0, 3.0], [0.0, 0.5, 0.0]]})
        sess.run(bump)
        assert sess.run(training_util.get_global_step()) == 1
    np.testing.assert_allclose(got, [[4.0, 4.0], [0.0, 0.0]])


@pytest.mark.parametrize("path, name, same", [
    ("framework.ops", "get_default_graph", tf.get_default_graph),
    ("framework.ops", "convert_to_tensor", tf.convert_to_tensor),
    ("framework.ops", "control_dependencies", tf.control_dependencies),
    ("framework.ops", "GraphKeys", tf.GraphKeys),
    ("framework.dtypes", "int64", tf.int64),
    ("ops.array_ops", "concat", tf.concat),
    ("ops.math_ops", "reduce_sum", tf.reduce_sum),
    ("ops.nn_ops", "conv2d", tf.nn.conv2d),
    ("ops.nn", "nce_loss", tf.nn.nce_loss),
    ("ops.rnn", "dynamic_rnn", tf.nn.dynamic_rnn),
    ("ops.rnn_cell_impl", "LSTMStateTuple", tf.nn.rnn_cell.LSTMStateTuple),
    ("ops.variables", "global_variables_initializer", tf.global_variables_initializer),
    ("ops.control_flow_ops", "cond", tf.cond),
    ("ops.losses.losses", "mean_squared_error", tf.losses.mean_squared_error),
    ("training.moving_averages", "ExponentialMovingAverage", tf.train.ExponentialMovingAverage),
    ("platform.gfile", "Exists", tf.gfile.Exists),
    ("platform.tf_logging", "info", tf.logging.info)])
def test_each_name_is_tinyflows_object(path, name, same):
    module = importlib.import_module(f"tinyflow.python.{path}")
    assert getattr(module, name) is same
    assert name in module.__all__ and name in dir(module)


def test_a_name_tinyflow_lacks_is_an_attribute_error_saying_so():
    from tinyflow.python.ops import math_ops
    from tinyflow.python.training import moving_averages
    with pytest.raises(AttributeError, match=r"tensorflow.python.training.moving_averages."
                       r"assign_moving_average is not supported by TinyFlow.*TensorFlow "
                       r"1.15's module has it"):
        moving_averages.assign_moving_average  # noqa: B018
    with pytest.raises(AttributeError, match=r"tensorflow.python.ops.math_ops.no_such is not "
                       r"supported by TinyFlow \(module 'tinyflow.python.ops.math_ops'"):
        math_ops.no_such  # noqa: B018
    with pytest.raises(ImportError):
        from tinyflow.python.ops.math_ops import no_such  # noqa: F401
    assert "angle" not in math_ops.__all__  # TF's, not TinyFlow's (complex numbers)


def test_star_import_gives_what_tinyflow_has():
    namespace = {}
    exec("from tinyflow.python.ops.array_ops import *", namespace)  # noqa: S102
    assert namespace["reshape"] is tf.reshape and namespace["placeholder"] is tf.placeholder
    assert namespace["bitcast"] is tf.bitcast  # TF's array_ops' names TinyFlow has
    assert namespace["boolean_mask"] is tf.boolean_mask and "dequantize" not in namespace


def test_every_listed_module_has_its_file_and_importing_one_loads_no_torch():
    listed = set(reexport.modules())
    files = {".".join(p.relative_to(PACKAGE).with_suffix("").parts)
             for p in PACKAGE.rglob("*.py") if p.name not in ("__init__.py", "reexport.py")}
    # the modules TinyFlow writes itself rather than re-exports: client.timeline (test_timeline)
    assert listed == files - {"client.timeline"}
    code = ("import sys\nfrom tinyflow.python.framework import ops\n"
            "from tinyflow.python.ops import math_ops, nn_ops\n"
            "ops.get_default_graph(); math_ops.matmul; nn_ops.relu\n"
            "print('torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "False"


def test_tf_namespaces_import_by_tensorflows_module_paths():
    # TF-1 programs' `import tensorflow.contrib.slim as slim`, `from tensorflow.contrib import
    # rnn`, `from tensorflow.contrib.layers import xavier_initializer`: a fresh interpreter, as
    # a program starts (the namespaces must not load twice under the second name)
    program = """if True:
        import sys
        import tinyflow.contrib.slim as slim
        from tinyflow.contrib import rnn
        from tinyflow.contrib.layers import xavier_initializer
        from tinyflow.nn import rnn_cell
        from tinyflow.keras.layers import Dense
        import tinyflow as tf
        assert Dense is tf.keras.layers.Dense
        assert slim is tf.contrib.slim and rnn is tf.contrib.rnn and rnn_cell is tf.nn.rnn_cell
        assert xavier_initializer is tf.contrib.layers.xavier_initializer
        assert sys.modules["tinyflow.contrib.slim"] is sys.modules[slim.__name__]
        assert not any(m.startswith("tinyflow.contrib.") and m != "tinyflow.contrib.slim"
                       and m != "tinyflow.contrib.layers" for m in sys.modules), sys.modules
        assert "tinyflow.frontend.keras.layers" in sys.modules  # loaded once, by its name
        try:
            import tinyflow.contrib.nothing  # noqa: F401
        except ModuleNotFoundError as err:
            assert "tf.contrib.nothing is not supported by TinyFlow" in str(err), err
        else:
            raise AssertionError("imported a module TinyFlow lacks")
        print("ok")
    """
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          check=False, timeout=120, cwd=PACKAGE.parent.parent)
    assert done.stdout.strip() == "ok", done.stderr
