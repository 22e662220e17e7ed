"""TF 1.15's ``checkpoint_utils`` and ``checkpoint_management`` functions beyond the Saver:
``tf.train.init_from_checkpoint`` (fine-tuning: variables initialised from a checkpoint's
tensors), ``checkpoints_iterator`` (an evaluation loop over the checkpoints a training run
writes), ``update_checkpoint_state``, ``get_checkpoint_mtimes``, ``remove_checkpoint`` and
``assert_global_step``.

``init_from_checkpoint`` reads the mapped tensors when it is called and makes each variable's
initial value a constant of it (TensorFlow's reads the file when the initializer runs); the
initializers made afterwards (``tf.global_variables_initializer()``) then load them.
"""
from __future__ import annotations

import os
import time

import numpy as np

from ..nnvm.symbol import Symbol, create_op
from ..nnvm.variables import Variable
from .api import constant
from .saver import (
    _index_text,
    _replacing,
    latest_checkpoint,
    load_checkpoint,
    remove_checkpoint_files,
)
from .tf_logging import info
from .variable_scope import _scopes

__all__ = ["assert_global_step", "checkpoints_iterator", "get_checkpoint_mtimes",
           "init_from_checkpoint", "remove_checkpoint", "update_checkpoint_state"]


def init_from_checkpoint(ckpt_dir_or_file, assignment_map) -> None:
    """Initialise variables from a checkpoint (a prefix or a folder's newest), by
    ``assignment_map`` (TF 1.15's rules): ``{"ckpt/var": "scope/var"}`` or ``{"ckpt/var":
    variable}`` one to one; ``{"ckpt_scope/": "scope/"}`` every ``tf.get_variable`` variable
    under ``scope/`` from the tensor of the same name under ``ckpt_scope/``; ``{"/":
    "scope/"}`` from the checkpoint's root.  ValueError naming a tensor the checkpoint lacks or
    a shape that differs."""
    reader = load_checkpoint(ckpt_dir_or_file)
    shapes = reader.get_variable_to_shape_map()
    store = _scopes().shared
    items = assignment_map.items() if hasattr(assignment_map, "items") else assignment_map
    for in_ckpt, target in sorted(items, key=lambda item: item[0]):
        var = target if isinstance(target, Variable) else store.get(target)
        if var is not None:
            _load(var, in_ckpt, reader, shapes, ckpt_dir_or_file)
            continue
        scope = target[:target.rindex("/")] if "/" in target else ""
        if not in_ckpt.endswith("/"):
            raise ValueError(f"Assignment map with scope only name {scope} should map to scope "
                             f"only {in_ckpt}. Should be 'scope/': 'other_scope/'.")
        for name in sorted(n for n in store if not scope or n.startswith(scope + "/")):
            tail = name[len(scope):] if target == "/" else name[len(scope) + 1:]
            full = (tail if in_ckpt == "/" else in_ckpt + tail).removesuffix("/")
            _load(store[name], full, reader, shapes, ckpt_dir_or_file,
                  (name[len(scope) + 1:], in_ckpt))


def _load(var, in_ckpt, reader, shapes, where, scoped=None) -> None:
    """Make ``var``'s initial value the checkpoint's tensor ``in_ckpt`` (``scoped``: the
    variable's name in its scope and the checkpoint's scope, for the error)."""
    if in_ckpt not in shapes:  # TF's two messages
        if scoped:
            raise ValueError(f"Tensor {in_ckpt} ({scoped[0]} in {scoped[1]}) is not found in "
                             f"{where} checkpoint")
        raise ValueError(f"Tensor {in_ckpt} is not found in {where} checkpoint "
                         f"{dict(sorted(shapes.items()))}")
    if not var.get_shape().is_compatible_with(shapes[in_ckpt]):
        raise ValueError(f"Shape of variable {var.name} ({var.get_shape()}) doesn't match with "
                         f"shape of tensor {in_ckpt} ({shapes[in_ckpt]}) from checkpoint reader.")
    value = np.asarray(reader.get_tensor(in_ckpt), dtype=var.dtype.as_numpy_dtype)
    graph = var.node.graph
    with graph.name_scope(None), graph.name_scope(var.op.name + "/"), \
            graph.control_dependencies(None):
        var.initial_value = constant(value, name="checkpoint_initializer")
        var.initial_assign = create_op("assign", var, var.initial_value, name="Assign")
    info("Initialize variable %s from checkpoint %s with %s", var.op.name, where, in_ckpt)


def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1,
                            timeout=None) -> str | None:
    """The folder's newest checkpoint once it is not ``last_checkpoint`` (None after
    ``timeout`` seconds)."""
    info("Waiting for new checkpoint at %s", checkpoint_dir)
    stop = None if timeout is None else time.time() + timeout
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            info("Found new checkpoint at %s", path)
            return path
        if stop is not None and time.time() + seconds_to_sleep > stop:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yield each new checkpoint of ``checkpoint_dir`` as it appears, at most one every
    ``min_interval_secs``; after ``timeout`` seconds without one, stop, unless ``timeout_fn()``
    says more may come."""
    path = None
    while True:
        new = wait_for_new_checkpoint(checkpoint_dir, path, timeout=timeout)
        if new is None:
            if not timeout_fn:
                info("Timed-out waiting for a checkpoint.")
                return
            if timeout_fn():
                return
            continue
        start, path = time.time(), new
        yield path
        wait = start + min_interval_secs - time.time()
        if wait > 0:
            time.sleep(wait)


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None) -> None:
    """Write the folder's index file (``checkpoint``): ``model_checkpoint_path`` newest, and
    ``all_model_checkpoint_paths`` (it is added last when missing)."""
    del all_model_checkpoint_timestamps, last_preserved_timestamp  # not in TinyFlow's index
    save_dir = os.fspath(save_dir)
    kept = list(all_model_checkpoint_paths or [])
    if not kept or kept[-1] != model_checkpoint_path:
        kept.append(model_checkpoint_path)
    with _replacing(os.path.join(save_dir, latest_filename or "checkpoint")) as file:
        file.write(_index_text(save_dir, model_checkpoint_path, kept).encode())


def get_checkpoint_mtimes(checkpoint_prefixes) -> list:
    """The modification times of the checkpoints' index files (those that exist)."""
    return [os.stat(p + ".index").st_mtime for p in map(os.fspath, checkpoint_prefixes)
            if os.path.isfile(p + ".index")]


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=2,
                      meta_graph_suffix="meta") -> None:
    """Delete a checkpoint's files: ``.index``, ``.data-*``, ``.meta``."""
    del checkpoint_format_version
    remove_checkpoint_files(os.fspath(checkpoint_prefix), meta_graph_suffix)


def assert_global_step(global_step_tensor) -> None:
    """TypeError unless ``global_step_tensor`` is a scalar integer variable or tensor."""
    if not isinstance(global_step_tensor, Symbol):
        raise TypeError(f"Existing \"global_step\" must be a Variable or Tensor: "
                        f"{global_step_tensor}.")
    if not global_step_tensor.dtype.is_integer:
        raise TypeError(f"Existing \"global_step\" does not have integer type: "
                        f"{global_step_tensor.dtype}")
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f"Existing \"global_step\" is not scalar: {shape}")
