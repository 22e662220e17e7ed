"""``tf.compat.v1.estimator`` for the TensorFlow side of tools/tf1_side_by_side.py.

TensorFlow 2.16 dropped ``tf.estimator``; its last release, tensorflow-estimator 2.15, still
runs on TensorFlow 2.21 once the four TPU and distribute-coordinator modules it imports (and an
Estimator on one CPU never uses) exist, and ``tf_export`` knows its API name.  Put this folder
and that package on ``PYTHONPATH`` (docs/tf1_side_by_side.md says how); in an interpreter
without TensorFlow (TinyFlow's side) it does nothing but answer for those four module names.
"""
import importlib.abc
import importlib.machinery
import sys
import types

_MISSING = ("tensorflow.python.distribute.estimator_training",
            "tensorflow.python.tpu.session_support", "tensorflow.python.tpu.tpu_embedding",
            "tensorflow.python.tpu.tpu_embedding_gradient")


class _Stub(types.ModuleType):
    """A module whose every public name is an empty class (imported, never used)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (), {})


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        return importlib.machinery.ModuleSpec(name, self) if name in _MISSING else None

    def create_module(self, spec):
        return _Stub(spec.name)

    def exec_module(self, module):
        pass


def _attach_estimator():
    import tensorflow.compat.v1 as v1  # noqa: PLR0402 - the module itself, not compat.v1
    from tensorflow.python.util import tf_export

    tf_export.ESTIMATOR_API_NAME = "estimator"
    for table, suffix in ((tf_export.API_ATTRS, ""), (tf_export.API_ATTRS_V1, "_v1")):
        table["estimator"] = tf_export._Attributes(f"_estimator_api_names{suffix}",
                                                   f"_estimator_api_constants{suffix}")
    from tensorflow_estimator.python.estimator.api._v1 import estimator

    for module in (v1, getattr(v1, "_tfmw_wrapped_module", None),
                   sys.modules.get("tensorflow.compat.v1")):
        if module is not None:
            try:  # past TF's module wrapper's __setattr__, onto the wrapped module itself
                object.__setattr__(module, "estimator", estimator)
            except (AttributeError, TypeError):
                module.estimator = estimator


sys.meta_path.insert(0, _StubFinder())
try:
    import tensorflow  # noqa: F401 - only the TensorFlow side has it
except ImportError:
    pass
else:
    _attach_estimator()
