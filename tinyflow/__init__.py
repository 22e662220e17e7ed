"""TinyFlow: TensorFlow-1.x programs on an NNVM-style graph engine with Lua operator bodies.

``import tinyflow as tf`` gives the TF-1.x surface.  Building graphs does not import torch; the
:class:`Session` (and with it torch and the Lua runtime) is loaded on first use.
"""
import importlib

from . import nnvm, ops  # noqa: F401 - ops registers the built-in ops
from .frontend import dtypes, module_paths, nn, train
from .frontend.api import *
from .frontend.api import __all__ as _api_all
from .frontend.array_manip_ops import *
from .frontend.array_manip_ops import __all__ as _array_manip_ops_all
from .frontend.array_ops import *
from .frontend.array_ops import __all__ as _array_ops_all
from .frontend.check_ops import *
from .frontend.check_ops import __all__ as _check_ops_all
from .frontend.collection_ops import *
from .frontend.collection_ops import __all__ as _collection_ops_all
from .frontend.control_flow_ops import *
from .frontend.control_flow_ops import __all__ as _control_flow_ops_all
from .frontend.device_spec import DeviceSpec
from .frontend.dtypes import *
from .frontend.dtypes import __all__ as _dtypes_all
from .frontend.framework import *
from .frontend.framework import __all__ as _framework_all
from .frontend.framework_names import *
from .frontend.framework_names import __all__ as _framework_names_all
from .frontend.functional_ops import *
from .frontend.functional_ops import __all__ as _functional_ops_all
from .frontend.gradient_ops import *
from .frontend.gradient_ops import __all__ as _gradient_ops_all
from .frontend.graph_util import import_graph_def
from .frontend.image_ops import random_crop
from .frontend.indexed_slices import *  # tf.gradients giving IndexedSlices (over api's)
from .frontend.indexed_slices import __all__ as _indexed_slices_all
from .frontend.indexing_ops import *
from .frontend.indexing_ops import __all__ as _indexing_ops_all
from .frontend.init_ops import *
from .frontend.init_ops import __all__ as _init_ops_all
from .frontend.io_ops import matching_files, parse_tensor, serialize_tensor, write_file
from .frontend.linalg_ops import *
from .frontend.linalg_ops import __all__ as _linalg_ops_all
from .frontend.loops import *
from .frontend.loops import __all__ as _loops_all
from .frontend.math_ops import *
from .frontend.math_ops import __all__ as _math_ops_all
from .frontend.matmul_ops import cross
from .frontend.matmul_ops import matmul as matmul  # TF's: batches too (over api's)
from .frontend.matrix_ops import *
from .frontend.matrix_ops import __all__ as _matrix_ops_all
from .frontend.parsing_ops import *
from .frontend.parsing_ops import __all__ as _parsing_ops_all
from .frontend.partitioned_variables import *
from .frontend.partitioned_variables import __all__ as _partitioned_variables_all
from .frontend.py_function_ops import py_function, timestamp
from .frontend.queues import (
    FIFOQueue,
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)
from .frontend.random_ops import *
from .frontend.random_ops import __all__ as _random_ops_all
from .frontend.readers import (
    FixedLengthRecordReader,
    ReaderBase,
    TextLineReader,
    TFRecordReader,
    WholeFileReader,
    decode_raw,
    read_file,
)
from .frontend.safe_math_ops import (
    acosh,
    asinh,
    atanh,
    div_no_nan,
    is_non_decreasing,
    is_strictly_increasing,
    realdiv,
    saturate_cast,
    truncatediv,
    truncatemod,
)
from .frontend.scatter_updates import *
from .frontend.scatter_updates import __all__ as _scatter_updates_all
from .frontend.segment_ops import *
from .frontend.segment_ops import __all__ as _segment_ops_all
from .frontend.shapes import infer_variable_shapes
from .frontend.sort_ops import *
from .frontend.sort_ops import __all__ as _sort_ops_all
from .frontend.sparse_manip_ops import *
from .frontend.sparse_manip_ops import __all__ as _sparse_manip_all
from .frontend.sparse_ops import *
from .frontend.sparse_ops import __all__ as _sparse_ops_all
from .frontend.special_math_ops import betainc, igamma, igammac, lbeta, polygamma, zeta
from .frontend.string_hash_ops import string_to_hash_bucket, string_to_hash_bucket_fast
from .frontend.string_ops import *
from .frontend.string_ops import __all__ as _string_ops_all
from .frontend.tensor_array import TensorArray
from .frontend.tensor_util import make_ndarray, make_tensor_proto
from .frontend.tf_bitwise import bitcast
from .frontend.tf_version import COMPILER_VERSION, GIT_VERSION, VERSION
from .frontend.unsupported import unsupported
from .frontend.variable_scope import *
from .frontend.variable_scope import __all__ as _variable_scope_all
from .lua_ops import attach_lua_bodies
from .nnvm import GraphError, ShapeError, TinyflowError
from .nnvm.graph_def import GraphDef
from .nnvm.symbol import Node as Operation  # TF's names of a tensor and an operation
from .nnvm.symbol import Symbol
from .nnvm.symbol import Symbol as Tensor
from .nnvm.tensor_shape import Dimension, TensorShape
from .nnvm.variables import VariableAggregation, VariableSynchronization
from .session.options import ConfigProto, GPUOptions, RunMetadata, RunOptions

attach_lua_bodies()



# tf.VERSION, tf.GIT_VERSION, tf.COMPILER_VERSION: TinyFlow's own (tf_version.py says why)
__version__ = VERSION
__all__ = list(_api_all) + list(_dtypes_all) + list(_framework_all) + list(
    _variable_scope_all) + list(_partitioned_variables_all) + ["dtypes", "nn", "nnvm", "train", "Session", "InteractiveSession",
           "get_default_session", "Symbol", "ShapeError", "TinyflowError", "GraphError",
           "infer_variable_shapes"]
__all__ += [
    "ConfigProto",
    "GPUOptions",
    "RunMetadata",
    "RunOptions",
    "app",
    "data",
    "distributions",
    "errors",
    "estimator",
    "feature_column",
    "flags",
    "gfile",
    "image",
    "io",
    "keras",
    "logging",
    "losses",
    "manip",
    "metrics",
    "python_io",
    "saved_model",
    "summary",
    "test",
]
__all__ += list(_array_manip_ops_all) + list(_check_ops_all) + list(_collection_ops_all) + list(
    _scatter_updates_all) + [
    "COMPILER_VERSION", "GIT_VERSION", "VERSION", "acosh", "asinh", "atanh", "debugging",
    "div_no_nan", "is_non_decreasing", "is_strictly_increasing", "nest", "realdiv",
    "saturate_cast", "truncatediv", "truncatemod"]
__all__ += list(_array_ops_all) + list(_indexing_ops_all) + list(_gradient_ops_all)
__all__ += list(_init_ops_all) + list(_random_ops_all) + list(_loops_all) + list(_functional_ops_all) + [
    "TensorArray"]
__all__ += list(_framework_names_all) + list(_parsing_ops_all) + list(_indexed_slices_all)
__all__ += list(_segment_ops_all) + list(_sort_ops_all) + list(_matrix_ops_all)
__all__ += list(_sparse_ops_all) + list(_sparse_manip_all) + ["sparse"]
__all__ += list(_math_ops_all) + list(_control_flow_ops_all) + list(_linalg_ops_all) + [
    "Dimension", "GraphDef", "TensorShape", "compat", "contrib", "layers", "linalg", "math", "Operation",
    "Tensor", "cross", "random_crop", "FIFOQueue", "QueueBase", "RandomShuffleQueue",
    "FixedLengthRecordReader", "ReaderBase", "TextLineReader", "TFRecordReader", "WholeFileReader",
    "decode_raw", "read_file", "matching_files", "parse_tensor", "serialize_tensor", "write_file",
    "graph_util", "import_graph_def"]
__all__ += ["betainc", "igamma", "igammac", "lbeta", "polygamma", "zeta"]  # TF 1.15's tf.*
__all__ += list(_string_ops_all) + ["lookup", "string_to_hash_bucket", "string_to_hash_bucket_fast", "strings"]
__all__ += [
    "DeviceSpec",
    "PaddingFIFOQueue",
    "PriorityQueue",
    "VariableAggregation",
    "VariableSynchronization",
    "bitcast",
    "bitwise",
    "config",
    "get_logger",
    "make_ndarray",
    "make_tensor_proto",
    "py_function",
    "sets",
    "timestamp",
    "version",
]


# tf.<module>: imported on first use (a program that never asks for tf.app, tf.flags or
# tf.summary does not load them, nor tensorboard's protobufs); tf.math is tf_math.py, tf.image
# tf_image.py, tf.io tf_io/, tf.test tf_testing.py (pytest collects no file named test_*)
_MODULES = {"app": "app", "contrib": "contrib", "data": "data",
            "debugging": "tf_debugging", "distributions": "distributions", "errors": "errors",
            "estimator": "estimator", "feature_column": "tf_feature_column", "flags": "flags", "gfile": "gfile",
            "graph_util": "graph_util", "image": "tf_image",
            "io": "tf_io", "keras": "keras", "layers": "layers", "manip": "tf_manip",
            "linalg": "tf_linalg", "lookup": "tf_lookup", "logging": "tf_logging", "losses": "losses", "math": "tf_math",
            "metrics": "metrics", "nest": "tf_nest", "python_io": "python_io", "saved_model": "saved_model", "sparse": "tf_sparse",
            "strings": "tf_strings", "summary": "summary", "test": "tf_testing",
            "config": "tf_config", "bitwise": "tf_bitwise", "sets": "tf_sets",
            "version": "tf_version", "signal": "tf_signal", "spectral": "tf_spectral",
            "audio": "tf_audio"}


def __getattr__(name):
    if name in ("Session", "InteractiveSession", "get_default_session"):
        from .session import session  # imports torch and lupa: only when a session is made
        return getattr(session, name)
    if name in _MODULES:
        return importlib.import_module(f".frontend.{_MODULES[name]}", __name__)
    if name == "get_logger":  # tf.logging's, which importing tinyflow does not load
        return __getattr__("logging").get_logger
    if name in ("Event", "SessionLog", "Summary"):  # tensorboard's protos, as tf.summary's
        return getattr(__getattr__("summary"), name)
    if name == "compat":  # tf.compat.v1 is this module (tinyflow/compat)
        return importlib.import_module(".compat", __name__)
    layers, math, linalg, image = (__getattr__(m) for m in ("layers", "math", "linalg", "image"))
    raise unsupported("tf.", "tinyflow", name, {
        "tf.": [*__all__, *_MODULES, "compat", "Event", "SessionLog", "Summary"],
        "tf.nn.": nn.__all__,
        "tf.train.": train.__all__, "tf.layers.": layers.__all__, "tf.math.": math.__all__,
        "tf.linalg.": linalg.__all__, "tf.image.": image.__all__})


module_paths.install()  # import tinyflow.contrib.slim as slim: TF's module paths
