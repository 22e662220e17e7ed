"""``tf.saved_model.loader.load`` (TensorFlow 1.15's ``tf.saved_model.load`` too): a saved
model TinyFlow wrote (:mod:`.builder`) back into a session, for serving.

A saved model directory is untrusted.  ``saved_model.json`` is read only after its size is
checked (at most ``MAX_DOCUMENT_BYTES``, and what parsing it may take must fit the memory
available now); every field is checked, its graph goes through ``tf.train.import_meta_graph``'s
checks (LoadJSON: nothing in a document runs code) and every signature's tensor must be one of
that graph; the variables are restored by ``tf.train.Saver.restore``, whose checks (names,
dtypes, shapes, checksums, the allocation check) come first; the main op runs under a deadline
(``MAIN_OP_TIMEOUT_MS``: a DeadlineExceededError, not a hang).  Anything wrong is a
:class:`SavedModelError` naming the directory and what is wrong, and the session's graph and
variables are left as they were.  A directory TensorFlow wrote (``saved_model.pb``, a graph of
TensorFlow's ops) is a SavedModelError saying so: TinyFlow cannot run TensorFlow's graphs.
"""
from __future__ import annotations

import json
import os

from ...nnvm import host_memory
from ...nnvm.errors import GraphError
from ...session.options import RunOptions
from ..meta_graph import MAX_META_BYTES, read_meta_graph
from ..saver import Saver
from . import constants
from .signature_def_utils import SignatureDef, TensorInfo

__all__ = ["MetaGraphDef", "SavedModelError", "contains_saved_model", "load",
           "maybe_saved_model_directory"]

MAX_DOCUMENT_BYTES = MAX_META_BYTES
# the main op runs on load, unasked: one of a hostile document (a loop that never ends, a
# dequeue nothing feeds) is a DeadlineExceededError after this long, not a hang
MAIN_OP_TIMEOUT_MS = 60_000
PARSE_BYTES_PER_BYTE = 16  # what json.load may take per byte of text, at most (Python objects)


class SavedModelError(GraphError):
    """A saved model directory TinyFlow cannot load: TensorFlow's, or malformed (the
    directory and the problem are named)."""


class MetaInfoDef:
    """TensorFlow's MetaInfoDef: the meta graph's ``tags``."""

    def __init__(self, tags: list) -> None:
        self.tags = list(tags)


class MetaGraphDef:
    """What :func:`load` returns, as TensorFlow's MetaGraphDef: ``signature_def`` (``{key:
    SignatureDef}``) and ``meta_info_def.tags``; ``collection_def``: ``{key: the items
    loaded}`` (tensors, operations, variables), not TensorFlow's CollectionDef protos."""

    def __init__(self, tags: list, signature_def: dict, collections: dict) -> None:
        self.meta_info_def = MetaInfoDef(tags)
        self.signature_def = signature_def
        self.collection_def = {key: list(items) for key, items in collections.items()}


def _path(export_dir) -> str:
    path = os.fspath(export_dir)
    return path.decode() if isinstance(path, bytes) else path


def maybe_saved_model_directory(export_dir) -> bool:
    """Whether ``export_dir`` holds a saved model: TinyFlow's ``saved_model.json``, or
    TensorFlow's ``saved_model.pb`` / ``.pbtxt`` (which :func:`load` refuses, saying why)."""
    folder = _path(export_dir)
    return any(os.path.isfile(os.path.join(folder, name)) for name in (
        constants.SAVED_MODEL_FILENAME_JSON, constants.SAVED_MODEL_FILENAME_PB,
        constants.SAVED_MODEL_FILENAME_PBTXT))


contains_saved_model = maybe_saved_model_directory


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs) -> MetaGraphDef:
    """Load the meta graph of ``export_dir`` tagged exactly ``tags`` into ``sess``'s graph,
    restore its variables into ``sess``, run its main op; return its :class:`MetaGraphDef`,
    whose signatures name the tensors to feed and fetch.

    Raises
    ------
    OSError
        No saved model at ``export_dir`` (TensorFlow's text).
    RuntimeError
        No meta graph of these tags (TensorFlow's text, with the tag sets there are).
    SavedModelError
        The directory is TensorFlow's, or malformed; its graph's node names are taken in
        ``sess``'s graph.
    CheckpointError
        The variables cannot be restored (the file and variables are named).
    DeadlineExceededError
        The main op ran past ``MAIN_OP_TIMEOUT_MS``.
    """
    folder = _path(export_dir)
    tags = [tags] if isinstance(tags, str) else list(tags)
    doc = _read_document(folder)
    where = f"SavedModel '{folder}'"
    meta_graphs = _field(doc, "meta_graphs", list, where)
    for i, meta in enumerate(meta_graphs):
        _check(isinstance(meta, dict) and isinstance(meta.get("tags"), list) and all(
            isinstance(t, str) for t in meta["tags"]), where, f"meta graph {i}'s tags")
    chosen = next((m for m in meta_graphs if set(m["tags"]) == set(tags)), None)
    if chosen is None:  # TensorFlow's error and text (tensorflow 2.21's compat.v1 loader)
        available = [set(m["tags"]) for m in meta_graphs]
        raise RuntimeError(f"MetaGraphDef associated with tags {str(tags).strip('[]')} could "
                           f"not be found in SavedModel, with available tags '{available}'. "
                           f"To inspect available tag-sets in the SavedModel, please use the "
                           f"SavedModel CLI: `saved_model_cli`.")
    with sess.graph.as_default():
        try:
            imported = read_meta_graph(_field(chosen, "meta_graph", dict, where), import_scope)
        except GraphError as err:
            raise SavedModelError(f"cannot load {where}: {err}") from None
        signatures = {key: _signature(key, spec, imported.nodes, where) for key, spec in
                      _field(chosen, "signature_def", dict, where).items()}
        main_op = (imported.collections.get(constants.MAIN_OP_KEY)
                   or imported.collections.get(constants.LEGACY_INIT_OP_KEY) or [None])[0]
        if imported.variables:
            saver = Saver(imported.saver or list(imported.variables.values()), **saver_kwargs)
            saver.restore(sess, os.path.join(folder, constants.VARIABLES_DIRECTORY,
                                             constants.VARIABLES_FILENAME))
        imported.add_to(sess.graph)  # only now: every check above passed
    if main_op is not None:
        sess.run(main_op, options=RunOptions(timeout_in_ms=MAIN_OP_TIMEOUT_MS))
    return MetaGraphDef(chosen["tags"], signatures, imported.collections)


def _read_document(folder: str) -> dict:
    """``saved_model.json`` parsed, its size checked first; TensorFlow's OSError when there
    is no saved model, a SavedModelError for TensorFlow's own."""
    path = os.path.join(folder, constants.SAVED_MODEL_FILENAME_JSON)
    if not os.path.isfile(path):
        theirs = [name for name in (constants.SAVED_MODEL_FILENAME_PB,
                                    constants.SAVED_MODEL_FILENAME_PBTXT)
                  if os.path.isfile(os.path.join(folder, name))]
        if theirs:
            raise SavedModelError(
                f"cannot load SavedModel '{folder}': it was written by TensorFlow "
                f"({theirs[0]}: a MetaGraphDef of TensorFlow's ops), and TinyFlow does not "
                f"run TensorFlow's graphs (TensorFlow's GraphDef is not supported); TinyFlow "
                f"loads the saved models it wrote ({constants.SAVED_MODEL_FILENAME_JSON}). "
                f"Its variables can be read with tf.train.load_checkpoint('"
                f"{os.path.join(folder, 'variables', 'variables')}')")
        raise OSError(f"SavedModel file does not exist at: {folder}/"
                      f"{{{constants.SAVED_MODEL_FILENAME_JSON}}}")  # TF's text, our file
    try:
        size = os.path.getsize(path)
        available, source = host_memory.host_available_bytes()
        if size > MAX_DOCUMENT_BYTES or size * PARSE_BYTES_PER_BYTE > available:
            raise SavedModelError(
                f"cannot load SavedModel '{folder}': {path} has {size} bytes; at most "
                f"{MAX_DOCUMENT_BYTES} are read, and parsing it could take "
                f"{size * PARSE_BYTES_PER_BYTE} bytes of the {available} available ({source})")
        with open(path, encoding="utf-8") as file:
            doc = json.load(file)
    except (OSError, ValueError, RecursionError) as err:
        if isinstance(err, SavedModelError):
            raise
        raise SavedModelError(f"cannot load SavedModel '{folder}': {path} is not readable "
                              f"JSON ({type(err).__name__}: {str(err)[:200]})") from None
    _check(isinstance(doc, dict) and doc.get("tinyflow_saved_model") == 1,
           f"SavedModel '{folder}'", "it is not a TinyFlow saved model (version 1)")
    return doc


def _check(condition: bool, where: str, problem: str) -> None:
    if not condition:
        raise SavedModelError(f"bad {where}: {problem}")


def _field(doc: dict, key: str, kind: type, where: str):
    value = doc.get(key)
    _check(isinstance(value, kind), where, f"{key!r} is not a{'n object' if kind is dict else ' list'}")
    return value


def _signature(key, spec, nodes: dict, where: str) -> SignatureDef:
    """The SignatureDef of ``spec``, each of its tensors checked to be one of ``nodes``."""
    where = f"{where} signature {str(key)[:100]!r}"
    _check(isinstance(spec, dict) and isinstance(spec.get("method_name", ""), str), where,
           "not an object with a string 'method_name'")
    infos = {}
    for field in ("inputs", "outputs"):
        infos[field] = {name: _tensor_info(name, value, nodes, f"{where} {field}")
                        for name, value in _field(spec, field, dict, where).items()}
    return SignatureDef(infos["inputs"], infos["outputs"], spec.get("method_name", ""))


def _tensor_info(name, value, nodes: dict, where: str) -> TensorInfo:
    where = f"{where} {str(name)[:100]!r}"
    _check(isinstance(value, dict), where, "not an object")
    tensor, dtype, shape = value.get("name"), value.get("dtype"), value.get("tensor_shape")
    node_name, _, index = tensor.rpartition(":") if isinstance(tensor, str) else ("", "", "")
    # ASCII digits, few: int() refuses "²" and over 4300 digits, which isdigit() accepts
    _check(node_name in nodes and index.isascii() and index.isdigit() and len(index) < 10
           and int(index) < nodes[node_name].num_outputs(), where,
           f"{str(tensor)[:100]!r} is no tensor of the graph")
    _check(isinstance(dtype, int) and not isinstance(dtype, bool), where, "'dtype' not an int")
    _check(shape is None or isinstance(shape, list) and all(
        isinstance(d, int) and not isinstance(d, bool) and d >= -1 for d in shape), where,
        "'tensor_shape' is neither null nor a list of sizes")
    return TensorInfo(tensor, dtype, shape)
