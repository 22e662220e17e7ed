"""TensorFlow 1.15's ``tensorflow.python`` module paths that TF-1 programs import, answered as
``tinyflow.python``: ``from tinyflow.python.framework import ops``, ``from tinyflow.python.ops
import array_ops, math_ops, nn_ops, rnn_cell_impl, variable_scope``...  Each module re-exports
TinyFlow's objects of the names TensorFlow's module holds (:mod:`.reexport`), but
``client.timeline``, which TinyFlow writes itself (a traced run as a Chrome trace)."""
