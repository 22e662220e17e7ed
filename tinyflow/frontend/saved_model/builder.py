"""``tf.saved_model.builder.SavedModelBuilder`` and ``tf.saved_model.simple_save`` (TensorFlow
1.15's): a session's model written to a directory for serving: its variables in TensorFlow's
checkpoint format, its graph and signatures in TinyFlow's (:mod:`.loader` reads it back).

The directory::

    export_dir/saved_model.json                          the meta graphs (below)
    export_dir/variables/variables.index                 TensorFlow's checkpoint bundle of the
    export_dir/variables/variables.data-00000-of-00001   variables (tf.train.Saver's files)

``saved_model.json`` stands where TensorFlow writes ``saved_model.pb``: TinyFlow's ops are
its own, so the graph cannot be a TensorFlow GraphDef, and TensorFlow cannot load the
directory (its ``tf.train.load_checkpoint`` reads the variables).  The file is JSON::

    {"tinyflow_saved_model": 1,
     "meta_graphs": [{"tags": ["serve"],
                      "signature_def": {key: {"inputs": {name: TENSOR}, "outputs": {...},
                                              "method_name": "tensorflow/serving/predict"}},
                      "meta_graph": <tf.train.export_meta_graph's document (meta_graph.py)>},
                     ...]}

where ``TENSOR`` is ``{"name": "x:0", "dtype": 1, "tensor_shape": [-1, 784]}`` (TF's DataType
number; ``null`` shape: the rank is unknown).  A ``main_op`` (or ``legacy_init_op``) is the
meta graph's collection ``saved_model_main_op``, as TensorFlow keeps it.
"""
from __future__ import annotations

import json
import os
import tempfile

from ...nnvm.symbol import Symbol, current_context
from ..meta_graph import export_meta_graph
from ..saver import Saver
from . import constants, signature_constants, tag_constants
from .signature_def_utils import SignatureDef, predict_signature_def

__all__ = ["SavedModelBuilder", "simple_save"]

VERSION = 1


def _path(export_dir) -> str:
    path = os.fspath(export_dir)
    return path.decode() if isinstance(path, bytes) else path


def _tensor_doc(info) -> dict:
    return {"name": info.name, "dtype": info.dtype, "tensor_shape": info.tensor_shape.sizes()}


class SavedModelBuilder:
    """Writes a saved model to ``export_dir``, which must not exist or be empty (created
    now): :meth:`add_meta_graph_and_variables` once (it writes the variables), then
    :meth:`add_meta_graph` for other tag sets, then :meth:`save`."""

    def __init__(self, export_dir) -> None:
        self._export_dir = _path(export_dir)
        if os.path.exists(self._export_dir):
            if not os.path.isdir(self._export_dir) or os.listdir(self._export_dir):
                # TensorFlow's error and text (tensorflow 2.21's compat.v1 builder)
                raise AssertionError(
                    f"Export directory {self._export_dir} already exists, and isn't empty. "
                    f"Please choose a different export directory, or delete all the contents "
                    f"of the specified directory.")
        else:
            os.makedirs(self._export_dir)
        self._meta_graphs: list[dict] = []
        self._saver: Saver | None = None
        self._has_saved_variables = False

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None,
                                     assets_collection=None, legacy_init_op=None,
                                     clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None) -> None:
        """Save the variables ``sess`` holds (every variable of its graph but the local ones,
        or ``saver``'s) to ``export_dir/variables``, and the session's graph under ``tags``
        with ``signature_def_map`` (``{key: SignatureDef}``).  ``main_op`` (or
        ``legacy_init_op``): an operation :func:`~.loader.load` runs after restoring."""
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already been "
                                 "saved. Please invoke `add_meta_graph()` instead.")
        graph = sess.graph
        entry = self._meta_graph_doc(graph, tags, signature_def_map, assets_collection,
                                     main_op if main_op is not None else legacy_init_op)
        if saver is None:
            local = {id(v) for v in graph.get_collection("local_variables")}
            if any(id(v) not in local for v in graph.variables):
                with graph.as_default():
                    saver = Saver()  # TF's: the graph's global variables, the local ones not
        entry = self._with_graph(entry, graph, saver)  # a graph JSON cannot hold: said now
        folder = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY)
        os.makedirs(folder, exist_ok=True)
        if saver is not None:
            saver.save(sess, os.path.join(folder, constants.VARIABLES_FILENAME),
                       write_meta_graph=False, write_state=False)
        self._saver, self._has_saved_variables = saver, True
        self._meta_graphs.append(entry)

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None,
                       legacy_init_op=None, clear_devices=False, main_op=None,
                       strip_default_attrs=False, saver=None) -> None:
        """Add the current graph under ``tags`` with ``signature_def_map``, over the variables
        :meth:`add_meta_graph_and_variables` saved."""
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been "
                                 "saved yet. Please invoke `add_meta_graph_and_variables()` "
                                 "first.")
        graph = current_context()
        entry = self._meta_graph_doc(graph, tags, signature_def_map, assets_collection,
                                     main_op if main_op is not None else legacy_init_op)
        self._meta_graphs.append(self._with_graph(entry, graph, saver or self._saver))

    def save(self, as_text=False) -> bytes:
        """Write ``saved_model.json`` (JSON, text either way); return its path, as bytes
        (TensorFlow's return)."""
        path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_JSON)
        text = json.dumps({"tinyflow_saved_model": VERSION, "meta_graphs": self._meta_graphs})
        handle, temp = tempfile.mkstemp(prefix=".saved_model.", suffix=".tmp",
                                        dir=self._export_dir)
        try:
            with os.fdopen(handle, "w") as file:
                file.write(text)
            os.replace(temp, path)  # a reader never sees half a file
        except BaseException:
            if os.path.exists(temp):
                os.unlink(temp)
            raise
        return path.encode()

    def _meta_graph_doc(self, graph, tags, signature_def_map, assets_collection,
                        main_op) -> dict:
        """The meta graph's entry but its graph: tags, signatures, main op; every argument
        checked before anything is written."""
        tags = [tags] if isinstance(tags, str) else list(tags or ())
        if not tags or not all(isinstance(t, str) for t in tags):
            raise TypeError(f"tags must be a non-empty list of strings (tf.saved_model."
                            f"tag_constants.SERVING...), got {tags!r}")
        if assets_collection:
            raise ValueError("assets_collection is not supported by TinyFlow's saved models "
                             "(it has no asset files: no string tensors)")
        signatures = {}
        for key, signature in (signature_def_map or {}).items():
            if not isinstance(key, str) or not isinstance(signature, SignatureDef):
                raise TypeError(f"signature_def_map maps keys to SignatureDefs (tf.saved_model."
                                f"signature_def_utils.build_signature_def's), got {key!r}: "
                                f"{type(signature).__name__}")
            for info in [*signature.inputs.values(), *signature.outputs.values()]:
                graph.get_tensor_by_name(info.name)  # KeyError naming a tensor not there
            signatures[key] = {"inputs": {k: _tensor_doc(i) for k, i in signature.inputs.items()},
                               "outputs": {k: _tensor_doc(i)
                                           for k, i in signature.outputs.items()},
                               "method_name": signature.method_name}
        main = None
        if main_op is not None:
            if not isinstance(main_op, Symbol) or any(e.node.graph is not graph
                                                      for e in main_op.outputs):
                raise TypeError(f"main_op needs to be an operation of the session's graph "
                                f"(tf.group(...)), got {main_op!r}")
            main = [{"entries": [[e.node.name, e.index] for e in main_op.outputs],
                     "operation": True}]
        return {"tags": tags, "signature_def": signatures, "main_op": main}

    @staticmethod
    def _with_graph(entry: dict, graph, saver: Saver | None = None) -> dict:
        """``entry`` with the graph's meta graph document in place of its main op."""
        names = None if saver is None else saver.var_list
        if names is not None and any(isinstance(v, list) for v in names.values()):
            names = None  # a partitioned variable's shards: the importer takes their names
        doc = export_meta_graph(graph=graph, saver_names=names)
        main = entry.pop("main_op")
        if main is not None:
            doc["collections"][constants.MAIN_OP_KEY] = main
        return {**entry, "meta_graph": doc}


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None) -> None:
    """Save ``session``'s model for serving (TensorFlow 1.15's): its variables, and its graph
    tagged ``serve`` with one prediction signature, ``serving_default``, of ``inputs`` and
    ``outputs`` (``{name: tensor}``).  ``export_dir`` must not exist (or be empty)."""
    signature_def_map = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                         predict_signature_def(inputs, outputs)}
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(session, [tag_constants.SERVING],
                                         signature_def_map=signature_def_map,
                                         main_op=legacy_init_op, clear_devices=True)
    builder.save()
