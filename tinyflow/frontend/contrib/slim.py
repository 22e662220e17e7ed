"""``tf.contrib.slim`` (``import tensorflow.contrib.slim as slim``) as TensorFlow 1.15 has it:
the names TF-Slim model code uses, each the object of ``tf.contrib.layers`` (``slim.layers``),
``tf.contrib.framework`` or ``tf.contrib.losses`` (``slim.losses``) it is in TensorFlow.  Any
other ``slim.X`` is an AttributeError saying TinyFlow lacks it."""
from __future__ import annotations

from . import layers, losses
from .framework import (
    add_arg_scope,
    arg_scope,
    arg_scoped_arguments,
    create_global_step,
    get_global_step,
    get_model_variables,
    get_or_create_global_step,
    get_variables,
    get_variables_to_restore,
    has_arg_scope,
    model_variable,
    variable,
)
from .layers import (
    apply_regularization,
    avg_pool2d,
    batch_norm,
    conv2d,
    conv2d_transpose,
    convolution2d,
    convolution2d_transpose,
    dropout,
    flatten,
    fully_connected,
    l1_regularizer,
    l2_regularizer,
    layer_norm,
    max_pool2d,
    one_hot_encoding,
    repeat,
    separable_conv2d,
    separable_convolution2d,
    softmax,
    stack,
    variance_scaling_initializer,
    xavier_initializer,
    xavier_initializer_conv2d,
)

__all__ = [
    "add_arg_scope", "apply_regularization", "arg_scope", "arg_scoped_arguments", "avg_pool2d",
    "batch_norm", "conv2d", "conv2d_transpose", "convolution2d", "convolution2d_transpose",
    "create_global_step", "dropout", "flatten", "fully_connected", "get_global_step",
    "get_model_variables", "get_or_create_global_step", "get_variables",
    "get_variables_to_restore", "has_arg_scope", "l1_regularizer", "l2_regularizer",
    "layer_norm", "layers", "losses", "max_pool2d", "model_variable", "one_hot_encoding", "repeat",
    "separable_conv2d", "separable_convolution2d", "softmax", "stack", "variable",
    "variance_scaling_initializer", "xavier_initializer", "xavier_initializer_conv2d",
]


def __getattr__(name):
    raise AttributeError(f"tf.contrib.slim.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib.slim' has no attribute {name!r})")
