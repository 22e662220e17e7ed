"""``Estimator.export_saved_model`` (TensorFlow 1.15's): the model of a checkpoint as a saved
model for serving (:mod:`tinyflow.frontend.saved_model`), in a new folder
``<export_dir_base>/<timestamp>``.

Its graph is built as :meth:`Estimator.predict`'s, but with the features of
``serving_input_receiver_fn()`` (a :class:`~.export.ServingInputReceiver`); its signatures
are the model_fn's ``export_outputs`` (default: ``{"serving_default": PredictOutput(
predictions)}``) over the receiver's tensors; its variables the checkpoint's.  The folder is
written as ``temp-<timestamp>`` and renamed when complete.
"""
from __future__ import annotations

import os
import shutil
import time

from ..framework import Graph
from ..saved_model import builder as saved_model_builder
from ..saved_model import main_op as saved_model_main_op
from ..saved_model import signature_constants, signature_def_utils, tag_constants
from ..saver import CheckpointKeyError, Saver, latest_checkpoint
from ..tf_logging import info, warning
from .export import ExportOutput, PredictOutput
from .model_fn import ModeKeys

__all__ = ["export_outputs_for_predict", "export_saved_model", "timestamped_export_dir"]

MAX_DIRECTORY_CREATION_ATTEMPTS = 10


def timestamped_export_dir(export_dir_base: str) -> str:
    """``<export_dir_base>/<seconds since the epoch>``, one not there yet (TF's: waits a
    second and tries again, 10 times)."""
    for attempt in range(MAX_DIRECTORY_CREATION_ATTEMPTS):
        result = os.path.join(export_dir_base, str(int(time.time())))
        if not os.path.exists(result):
            return result
        time.sleep(1)
        warning("Directory %s already exists; retrying (attempt %s/%s)", result, attempt + 1,
                MAX_DIRECTORY_CREATION_ATTEMPTS)
    raise RuntimeError(f"Failed to obtain a unique export directory name after "
                       f"{MAX_DIRECTORY_CREATION_ATTEMPTS} attempts.")


def export_outputs_for_predict(export_outputs, predictions) -> dict:
    """The spec's ``export_outputs``, checked, with TF's default serving output added."""
    if export_outputs is None:
        export_outputs = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                          PredictOutput(predictions)}
    if not isinstance(export_outputs, dict):
        raise TypeError(f"export_outputs must be dict, given: {export_outputs}")
    if not all(isinstance(v, ExportOutput) for v in export_outputs.values()):
        raise TypeError(f"Values in export_outputs must be ExportOutput objects. Given: "
                        f"{export_outputs}")
    export_outputs = dict(export_outputs)
    default = signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    if len(export_outputs) == 1:
        export_outputs.setdefault(default, next(iter(export_outputs.values())))
    elif default not in export_outputs:
        raise ValueError("Multiple export_outputs were provided, but none of them is specified "
                         "as the default.  Do this by naming one of them with "
                         "signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY.")
    return export_outputs


def _signature_defs(receiver, export_outputs) -> dict:
    """TF's ``build_all_signature_defs``: a signature per output over the receiver's tensors
    and per alternative receiver (``<receiver>:<output>``); one that cannot be made is left
    out, and said."""
    receivers = [(None, receiver.receiver_tensors)] + list(
        (receiver.receiver_tensors_alternatives or {}).items())
    signatures, excluded = {}, {}
    for receiver_name, tensors in receivers:
        for key, output in export_outputs.items():
            name = str(key) if receiver_name is None else f"{receiver_name}:{key}"
            try:
                signatures[name] = output.as_signature_def(tensors)
            except ValueError as err:
                excluded[name] = str(err)
    for name, reason in excluded.items():
        warning("Signature %s excluded from export: %s", name, reason)
    return {k: v for k, v in signatures.items() if signature_def_utils.is_valid_signature(v)}


def export_saved_model(estimator, export_dir_base, serving_input_receiver_fn,
                       assets_extra=None, as_text=False, checkpoint_path=None) -> bytes:
    """Export ``estimator``'s model (see the module's docstring); return the new folder's
    path, as bytes (TF's)."""
    if not serving_input_receiver_fn:
        raise ValueError("An input_receiver_fn must be defined.")
    checkpoint_path = checkpoint_path or latest_checkpoint(estimator.model_dir)
    if not checkpoint_path:
        raise ValueError(f"Couldn't find trained model at {estimator.model_dir}.")
    export_dir_base = os.fsdecode(export_dir_base)
    export_dir = timestamped_export_dir(export_dir_base)
    temp_dir = os.path.join(export_dir_base, "temp-" + os.path.basename(export_dir))
    try:
        builder = saved_model_builder.SavedModelBuilder(temp_dir)
        _add_meta_graph(estimator, builder, serving_input_receiver_fn, checkpoint_path)
        builder.save(as_text)
        for destination, source in (assets_extra or {}).items():  # copied as TF's
            target = os.path.join(temp_dir, "assets.extra", destination)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
        os.rename(temp_dir, export_dir)
    except BaseException:
        shutil.rmtree(temp_dir, ignore_errors=True)
        raise
    info("SavedModel written to: %s", export_dir)
    return export_dir.encode()


def _add_meta_graph(estimator, builder, serving_input_receiver_fn, checkpoint_path) -> None:
    """The serving graph, its signatures and the checkpoint's variables, into ``builder``."""
    from ...session.session import Session  # imports torch: only when a session is made

    with Graph().as_default() as graph:
        estimator._new_graph(graph)
        receiver = serving_input_receiver_fn()
        spec = estimator._call_model_fn(receiver.features, None, ModeKeys.PREDICT,
                                        estimator.config)
        export_outputs = export_outputs_for_predict(spec.export_outputs, spec.predictions)
        signatures = _signature_defs(receiver, export_outputs)
        main_op = spec.scaffold.local_init_op or saved_model_main_op.main_op()
        saver = spec.scaffold.saver or Saver()
        with Session(graph=graph, config=estimator.config.session_config) as session:
            try:
                saver.restore(session, checkpoint_path)
            except CheckpointKeyError as err:
                raise ValueError(
                    f"Could not load all requested variables from checkpoint. Please make sure "
                    f"your model_fn does not expect variables that were not saved in the "
                    f"checkpoint.\n\nEncountered error with mode `{ModeKeys.PREDICT}` while "
                    f"restoring checkpoint from: `{checkpoint_path}`. Full Traceback:\n\n"
                    f"{err}") from err
            builder.add_meta_graph_and_variables(
                session, [tag_constants.SERVING], signature_def_map=signatures,
                main_op=main_op, saver=saver)
