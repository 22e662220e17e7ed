"""``tf.train.Saver``: variable values to a checkpoint and back, in TensorFlow's own format.

Checkpoint paths and files
--------------------------
As in TensorFlow, a checkpoint is named by a *prefix* (``save`` returns it, ``restore`` and
``latest_checkpoint`` take and give it): ``save_path``, or ``<save_path>-<step>`` when ``save``
gets a ``global_step``.  Its files are TensorFlow's V2 checkpoint (``tf.train.Saver``'s default
since TF 1.0): ``<prefix>.index`` and ``<prefix>.data-00000-of-00001`` (the format:
:mod:`tinyflow.frontend.checkpoint_format`), so TensorFlow restores a checkpoint TinyFlow saved
and TinyFlow one TensorFlow saved.  ``save`` creates the checkpoint's folder when it is missing.
Each save also rewrites the index file ``checkpoint`` in the checkpoint's folder, as
TensorFlow's text format::

    model_checkpoint_path: "model-300"
    all_model_checkpoint_paths: "model-200"
    all_model_checkpoint_paths: "model-300"

listing the checkpoints this saver keeps, oldest first (paths relative to the folder when the
saved path was relative, else absolute); :func:`latest_checkpoint` reads it.  A saver keeps its
``max_to_keep`` newest checkpoints and deletes the files of older ones it wrote.  With
``write_meta_graph`` (the default) a save also writes ``<prefix>.meta``, the graph with its
variables and collections in TinyFlow's own format, which :func:`import_meta_graph` reads.

Names in the checkpoint
-----------------------
A variable is stored under its node name (``scope/name``), or the key given in a ``var_list``
dict.  An optimizer's variables have TensorFlow's names (``<var>/Adam`` and ``<var>/Adam_1``
for Adam's m and v, ``beta1_power`` and ``beta2_power``, ``<var>/Momentum``...: see
:mod:`tinyflow.frontend.train`), so a checkpoint of a training program holds the names
TensorFlow's would.

Writing
-------
Values are saved as the session holds them (little-endian, C order).  Each file is written to a
temporary file ``.<file name>.XXXXXXXX.tmp`` beside it and renamed over it (``os.replace``,
atomic on POSIX and Windows), the data file before the index, so a crash during a save leaves
the previous checkpoint intact; the file ``checkpoint`` is replaced the same way, last.  A
process killed during a save (``kill -9``) leaves its temporary files behind: the next save of
the same file deletes the temporary files of that file (only names of that exact pattern, last
written before this process started).  Files get the mode the user's umask gives a new file
(``0o666 & ~umask``), as ``open`` would.  A save never replaces a symbolic link or anything but
a regular file (a device, a FIFO, a folder): that is a CheckpointError naming the path.  Any
OSError or MemoryError while writing or reading is a CheckpointError naming the path (the
original error chained).

Restoring
---------
A checkpoint's files are untrusted.  Restoring reads the index, then the entries of the saver's
variables only, and checks everything before writing any variable: every variable of the saver
must be in the file with the variable's dtype and shape, its bytes inside its data file and
matching its crc32c.  What the restore allocates (the index file, each tensor read, and the
variable's tensor where the session holds none yet) is counted before it is allocated: over the
Saver's ``max_restore_bytes`` (default: the memory available now, as the allocation check sees
it) is a CheckpointError naming the variable.  Any problem is a CheckpointError naming the file
and every variable concerned, and no variable changes.  Names in the file that the saver does
not hold are ignored, as in TensorFlow, so a saver over some variables can restore them from a
checkpoint of all of them.

TinyFlow's earlier checkpoints, one NumPy ``.npz`` file (``<prefix>.npz``, or the path of the
file itself), are still restored: a ZIP of ``<name>.npy`` members, each member's size checked
against its header before its data is read, any integer or float dtype converted to the
variable's.
"""
from __future__ import annotations

import contextlib
import glob
import json
import math
import os
import re
import stat
import tempfile
import time
import tokenize
import warnings
import zipfile
from typing import NamedTuple

import numpy as np

from ..nnvm import host_memory
from ..nnvm.dtypes import as_dtype
from ..nnvm.errors import GraphError, InvalidArgumentError, NotFoundError, TinyflowError
from ..nnvm.symbol import Symbol, current_context
from ..ops.mutable_tables import export_arrays, import_arrays
from ..session.variables import Variable, initial_shapes
from . import checkpoint_format as fmt
from .meta_graph import export_meta_graph, import_graph
from .mutable_tables import MutableHashTable
from .partitioned_variables import PartitionedVariable, assemble, saved_groups, split

__all__ = [
    "CheckpointError",
    "CheckpointReader",
    "CheckpointState",
    "NewCheckpointReader",
    "Saver",
    "SaverDef",
    "checkpoint_exists",
    "get_checkpoint_state",
    "import_meta_graph",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
]


class SaverDef:
    """TF's ``tf.train.SaverDef``'s checkpoint format versions, for ``Saver(write_version=)``;
    the protocol buffer itself is not supported."""

    LEGACY, V1, V2 = 0, 1, 2

    def __init__(self, *args, **kwargs):
        raise TypeError("tf.train.SaverDef (the protocol buffer) is not supported by TinyFlow; "
                        "its versions SaverDef.V1 / V2 are")


class CheckpointError(TinyflowError, ValueError):
    """A checkpoint that cannot be written or read, or does not fit the variables it is restored
    into; names the path."""


class CheckpointKeyError(CheckpointError, NotFoundError):
    """A variable's name missing from the checkpoint: TF 1.15's NotFoundError ("Key ... not
    found in checkpoint"), and a CheckpointError naming the path."""

    def __init__(self, message: str) -> None:
        NotFoundError.__init__(self, None, None, message)


class CheckpointMismatchError(CheckpointError, InvalidArgumentError):
    """A variable whose dtype or shape differs from the checkpoint's: TF 1.15's
    InvalidArgumentError, and a CheckpointError naming the path."""

    def __init__(self, message: str) -> None:
        InvalidArgumentError.__init__(self, None, None, message)


class _NoCheckpoint(FileNotFoundError, ValueError):
    """No checkpoint at a restore's path: TF 1.15's ValueError ("The passed save_path is not
    a valid checkpoint"), and a FileNotFoundError."""


def _check_restored(where: str, arrays: dict) -> dict:
    """``arrays`` (``{name: array}``), unless some are strings saying what is wrong: then the
    error of a restore from ``where`` naming each, of TF 1.15's class: a name missing
    (NotFoundError), a dtype or shape that differs (InvalidArgumentError)."""
    wrong = {name: a for name, a in arrays.items() if isinstance(a, str)}
    if not wrong:
        return arrays
    kind = (CheckpointKeyError if any(a.startswith("is not in the file") for a in wrong.values())
            else CheckpointMismatchError if any(" in the file but " in a for a in wrong.values())
            else CheckpointError)
    raise kind(f"cannot restore from '{where}': "
               + "; ".join(f"variable '{name}' {a}" for name, a in wrong.items()))


# Temporary files of saves last written before this moment are stale (their process died).
_STARTED = time.time()


class Saver:
    """Saves and restores variable values.

    Parameters
    ----------
    var_list : list of variable symbols, or dict ``{name: variable symbol}``, optional
        The variables to save and restore, stored under their names (list: the node name,
        ``scope/name``) or under the dict's keys.  Default: every variable of the current graph context at construction time.
    max_to_keep : int or None
        How many of its newest checkpoints the saver keeps (5); saving one more deletes the
        oldest.  None or 0 keeps them all.
    keep_checkpoint_every_n_hours : float
        Also keep, for good, one checkpoint of those ``max_to_keep`` drops every so many hours
        (TF's rule: the first dropped one saved that long after the saver was made, then
        every that long after).
    pad_step_number : bool
        Write the step in ``<save_path>-<step>`` as 8 digits (``model-00000100``).
    save_relative_paths : bool
        Write the index file's paths relative to its folder.
    allow_empty : bool
        With no variables, a saver whose ``save`` returns None and ``restore`` does nothing
        (else ValueError).
    sharded, write_version, name, restore_sequentially, filename
        TF's; one device, so every checkpoint is one shard of TF's V2 format (also for
        ``write_version=SaverDef.V1``).  ``reshape``, ``saver_def``, ``builder`` and
        ``defer_build`` are not supported (TypeError).
    max_restore_bytes : int or None
        The most bytes a restore may allocate (arrays read, new variable tensors); None: the
        host's available memory when the restore starts.
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                 saver_def=None, builder=None, defer_build=False, allow_empty=False,
                 write_version=2, pad_step_number=False, save_relative_paths=False,
                 filename=None, *, max_restore_bytes=None):
        unsupported = [k for k, v in (("reshape", reshape), ("saver_def", saver_def),
                                      ("builder", builder), ("defer_build", defer_build)) if v]
        if unsupported:
            raise TypeError(f"Saver: {', '.join(unsupported)} not supported by TinyFlow")
        self._every = float(keep_checkpoint_every_n_hours) * 3600
        self._next_kept_time = time.time() + self._every
        self._saved_at: dict[str, float] = {}  # path -> when this saver wrote it
        self._pad, self._relative = pad_step_number, save_relative_paths
        if var_list is None:  # TF's: every variable but the local ones (metrics' counters)
            local = {id(v) for v in current_context().get_collection("local_variables")}
            var_list = [v for v in current_context().variables if id(v) not in local]
            var_list += current_context().get_collection("saveable_objects")  # tables
        self._tables, var_list = _tables(var_list)
        if isinstance(var_list, dict):  # a PartitionedVariable is stored whole, by slices
            pairs = [(k, v.get_variable_list() if isinstance(v, PartitionedVariable) else v)
                     for k, v in var_list.items()]
        else:  # TF's: the shards of a partitioned variable as one tensor of its name
            pairs = saved_groups(var_list)
        self._variables: dict[str, Symbol | list] = {}
        for key, var in pairs:
            for one in var if isinstance(var, list) else [var]:
                if not (isinstance(one, Symbol) and not isinstance(one, PartitionedVariable)
                        and len(one.outputs) == 1 and one.node.kind == "variable"):
                    raise TypeError(f"Saver saves tf.Variables, got {one!r}")
                if isinstance(var, list) and getattr(one, "save_slice_info", None) is None:
                    raise TypeError(f"Saver: {one!r}, in a list of slices, is no shard of a "
                                    f"partitioned variable")
            name = var.op.name if key is None else key
            if not isinstance(name, str) or not name:
                raise TypeError(f"checkpoint names must be non-empty strings, got {name!r}")
            if name in self._variables:
                raise ValueError(f"two variables are named '{name}'; pass var_list as a dict "
                                 f"{{name: variable}} to store them under different names")
            if any(var is other for other in self._variables.values()):  # TF 1.15's check
                raise ValueError(f"The same saveable will be restored with two names: {name}")
            self._variables[name] = var
        if not self._variables and not self._tables and not allow_empty:
            raise ValueError("no variables to save: create tf.Variables before the Saver, or "
                             "pass var_list")
        self.max_to_keep = max_to_keep
        self.max_restore_bytes = max_restore_bytes
        self._last_checkpoints: list[str] = []  # paths this saver wrote and keeps, oldest first

    @property
    def var_list(self) -> dict:
        """``{name in the checkpoint: variable symbol, or a partitioned variable's shards}``."""
        return dict(self._variables)

    @property
    def last_checkpoints(self) -> list[str]:
        """The paths of the checkpoints this saver keeps, oldest first."""
        return list(self._last_checkpoints)

    def recover_last_checkpoints(self, checkpoint_paths) -> None:
        """Take ``checkpoint_paths`` (oldest first, as an index file lists them) as the
        checkpoints this saver keeps, those whose file is gone left out: a saver made after a
        restart deletes the old ones beyond ``max_to_keep`` too (TF's)."""
        self._last_checkpoints = [os.fspath(p) for p in checkpoint_paths
                                  if checkpoint_exists(os.fspath(p))]

    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False) -> str:
        """Write the values the variables hold in ``sess`` to a checkpoint.

        Parameters
        ----------
        sess : Session
        save_path : str or os.PathLike
            The checkpoint's prefix (see the module's docstring for its files); its folder is
            created when missing.  Existing files are replaced only once the new ones are
            completely written.
        global_step : int, or the global step variable (or any integer scalar), optional
            Appended to the path: ``<save_path>-<step>``.
        latest_filename : str, optional
            The index file's name in the folder (``checkpoint``).
        meta_graph_suffix : str
            The meta graph file's extension (``<path>.meta``).
        write_meta_graph : bool
            Write the saver's graph, its variables and collections to ``<path>.meta`` (for
            :func:`import_meta_graph`; TinyFlow's own format, not TensorFlow's MetaGraphDef).
            A graph holding a Python object (a ``tf.py_func``'s function, a ``tf.data``
            iterator) gets none, with a warning; the checkpoint is saved.  Loops and conds are
            written (their subgraphs: ``nnvm/passes/serialize_subgraphs.py``).
        write_state : bool
            Update the index file and delete the checkpoints beyond ``max_to_keep``.

        Returns
        -------
        str
            The checkpoint's path, for ``restore``.

        Raises
        ------
        CheckpointError
            A variable has no value in ``sess`` yet (it is named), or a dtype the format does
            not hold; a file cannot be written (OSError, MemoryError: the path is named); a
            file's path is a symbolic link or not a regular file.
        ValueError
            ``latest_filename`` holds a folder, or is the checkpoint's own name.
        """
        if not self._variables and not self._tables:  # allow_empty: nothing to save, as TF
            return None
        path = os.fspath(save_path)
        latest_filename = latest_filename or "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = int(sess.run(global_step))
            path = f"{path}-{int(global_step):08d}" if self._pad else f"{path}-{int(global_step)}"
        elif os.path.basename(path) == latest_filename:
            raise ValueError(f"'latest_filename' collides with 'save_path': "
                             f"'{latest_filename}' and '{path}'")
        arrays = self._values(sess)
        folder = os.path.dirname(os.path.abspath(path))
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as err:
            raise CheckpointError(f"cannot save checkpoint '{path}': cannot create its folder "
                                  f"'{folder}': {err}") from err
        # both files written and synced before either is renamed, the data file first: an old
        # index naming new data is caught by the entries' checksums
        with _replacing(path + ".index") as index_file, _replacing(fmt.data_file(path)) as data:
            try:
                index_file.write(fmt.write_index(arrays, data))
            except TypeError as err:
                raise CheckpointError(f"cannot save checkpoint '{path}': {err}") from None
            index_file.flush()
            os.fsync(index_file.fileno())
        if write_meta_graph:
            try:
                meta = json.dumps(export_meta_graph(graph=self._graph(),
                                                    saver_names=self._names())).encode()
            except GraphError as err:  # a node with a Python object (tf.py_func's function)
                # no path in the text: Python shows one warning per graph and line, not per save
                warnings.warn(f"no meta graph (.meta) written beside this graph's checkpoints: "
                              f"{err}", stacklevel=2)
            else:
                with _replacing(f"{path}.{meta_graph_suffix}") as file:
                    file.write(meta)
        if write_state:
            self._keep(path, latest_filename)
        return path

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False,
                          **kwargs) -> dict:
        """Write the saver's graph, its variables and collections to ``filename`` (TinyFlow's
        meta graph: :mod:`tinyflow.frontend.meta_graph`); return what was written."""
        return export_meta_graph(filename, collection_list, graph=self._graph(),
                                 saver_names=self._names())

    def _names(self) -> dict | None:
        """``{name in the checkpoint: variable}`` for the meta graph; None when a partitioned
        variable's shards are among them (its importer's Saver takes the graph's names)."""
        if any(isinstance(v, list) for v in self._variables.values()):
            return None
        return dict(self._variables)

    def _graph(self):
        """The graph of the saver's variables (whichever graph is the default now)."""
        if not self._variables:  # tables only
            return current_context()
        return _shards(next(iter(self._variables.values())))[0].graph

    def _values(self, sess) -> dict:
        """``{name: numpy array}`` of the variables in ``sess``; CheckpointError naming those
        without a value."""
        store = sess.variable_store
        unset = [f"'{v.node.name}' (created at {v.node.source})"
                 for var in self._variables.values() for v in _shards(var)
                 if not store.is_initialized(v.node)]
        if unset:
            raise CheckpointError(f"cannot save variable(s) {', '.join(unset)}: no value in this "
                                  f"session yet; run tf.global_variables_initializer() (a "
                                  f"layer's weights get theirs at the first run feeding the "
                                  f"layer) or restore them first")
        values = {}
        for name, var in self._variables.items():
            arrays = [store[v.node].detach().cpu().numpy() for v in _shards(var)]
            try:
                values[name] = assemble(var, arrays) if isinstance(var, list) else arrays[0]
            except ValueError as err:
                raise CheckpointError(f"cannot save: {err}") from None
        for name, table in self._tables.items():  # TF's MutableHashTable._Saveable
            values[f"{name}-keys"], values[f"{name}-values"] = export_arrays(
                table, sess.variable_store.resources)
        return values

    def _keep(self, path: str, latest_filename: str) -> None:
        """Record ``path`` as the newest checkpoint, rewrite the index, delete the files of the
        checkpoints beyond ``max_to_keep`` (TensorFlow's order)."""
        deleted = []
        self._saved_at[path] = time.time()
        if self.max_to_keep:
            self._last_checkpoints = [p for p in self._last_checkpoints if p != path] + [path]
            while len(self._last_checkpoints) > self.max_to_keep:
                old = self._last_checkpoints.pop(0)
                if self._saved_at.get(old, 0.0) > self._next_kept_time:  # kept for good
                    self._next_kept_time += self._every
                else:
                    deleted.append(old)
        folder = os.path.dirname(path)
        with _replacing(os.path.join(folder, latest_filename)) as file:
            file.write(_index_text(folder, path, self._last_checkpoints or [path],
                                   self._relative).encode())
        for old in deleted:
            remove_checkpoint_files(old)

    def restore(self, sess, save_path) -> None:
        """Load the variables' values from the checkpoint ``save_path`` (a prefix ``save`` or
        ``latest_checkpoint`` gave, TensorFlow's or TinyFlow's; or an earlier TinyFlow ``.npz``
        file) into ``sess``; they count as initialised.

        Everything is checked before any variable changes: a failed restore leaves ``sess`` as
        it was.  A variable ``sess`` already holds is written in place, so executors already
        bound to it see the new value.  A restored value counts as set by the user: an
        initialiser still waiting for the variable's shape is dropped, and a layer's variable
        keeps it when ``tf.global_variables_initializer()`` runs later.

        Raises
        ------
        ValueError
            ``save_path`` is None.
        FileNotFoundError
            No checkpoint at ``save_path`` (it is named); a ValueError too, as TF 1.15's.
        CheckpointKeyError, CheckpointMismatchError
            A variable's name is not in the checkpoint, or its dtype or shape differs (TF's
            ``tf.errors.NotFoundError``, ``InvalidArgumentError``; both CheckpointErrors).
        CheckpointError
            A file is not a readable checkpoint (corrupt, cut short, checksums wrong), lacks a
            variable, or holds a value whose dtype or shape differs from the variable's, or
            that does not fit ``max_restore_bytes`` (the message names the file and every such
            variable).
        """
        import torch  # only here: building graphs (and this module) must not import torch

        if not self._variables and not self._tables:  # allow_empty: nothing to restore, as TF
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        path = os.fspath(save_path)
        limit, source = ((self.max_restore_bytes, "the Saver's max_restore_bytes")
                         if self.max_restore_bytes is not None
                         else host_memory.host_available_bytes())
        held = sess.variable_store.shapes()
        new = {name: v for name, v in self._variables.items()
               if any(s.node not in held for s in _shards(v))}
        budget = _RestoreBudget(limit, source, set(new))
        if os.path.isfile(path + ".index"):
            values = self._read_bundle(path, sess, budget)
        else:
            values = self._read_legacy(path, sess, budget)
        for name, table in self._tables.items():  # TF's LookupTableImportV2: replaced
            import_arrays(table, sess.variable_store.resources, *values[name])
        for name, var in self._variables.items():
            arrays = split(var, values[name]) if isinstance(var, list) else [values[name]]
            for shard, array in zip(_shards(var), arrays):
                # torch takes native byte order only; files written on big-endian machines differ
                value = torch.from_numpy(array.astype(array.dtype.newbyteorder("="), copy=False))
                sess.variable_store.restore(shard.node, value, sess.device)

    def _read_bundle(self, prefix: str, sess, budget) -> dict:
        """``{name: array}`` of every variable, from the V2 checkpoint ``prefix``, every entry
        checked against the variable (dtype, shape), its data file and its crc32c."""
        expected = self._expected_shapes(sess)
        wanted = {name: (_shards(var)[0].node.attrs.get("dtype", "float32"), expected[name])
                  for name, var in self._variables.items()}
        for name, table in self._tables.items():
            wanted[f"{name}-keys"], wanted[f"{name}-values"] = (table.key_type, None), (
                table.value_type, None)
        arrays = _read_entries(prefix, wanted, budget)
        checked = {name: arrays[name] for name in self._variables}
        for name, table in self._tables.items():  # a missing tensor by its own name
            missing = {n: arrays[n] for n in (f"{name}-keys", f"{name}-values")
                       if isinstance(arrays[n], str)}
            checked.update(missing or {name: _table_arrays(name, table, arrays, budget)})
            arrays[name] = checked.get(name)
        _check_restored(f"{prefix}.index", checked)
        return arrays

    def _read_legacy(self, path: str, sess, budget) -> dict:
        """``{name: array}`` of every variable, from an earlier TinyFlow ``.npz`` checkpoint."""
        if not os.path.isfile(path) and os.path.isfile(path + ".npz"):
            path += ".npz"
        if not os.path.isfile(path):
            raise _NoCheckpoint(f"The passed save_path is not a valid checkpoint: {path} (no "
                                f"file '{path}.index')")
        if self._tables:
            raise CheckpointError(f"cannot restore tables {sorted(self._tables)} from '{path}': "
                                  f"an earlier TinyFlow .npz checkpoint holds no tables")
        arrays = _read_npz(path, self._expected_shapes(sess), budget)
        return _check_restored(path, {name: arrays.get(name, "is not in the file")
                                      for name in self._variables})

    def _expected_shapes(self, sess) -> dict:
        """``{name: shape}``: the session's value, else the shape of the variable's initial
        value (None when that needs feeds: then the file's shape is taken as it is)."""
        known = sess.variable_store.shapes()
        declared = [v for v in self._variables.values()
                    if isinstance(v, Variable) and v.node not in known]
        try:
            known.update(initial_shapes(declared))
        except TinyflowError:  # an initial value that does not fit: the file's shape is taken
            pass
        return {name: tuple(v[0].save_slice_info.full_shape) if isinstance(v, list)
                else known.get(v.node) for name, v in self._variables.items()}

    def __repr__(self):
        return f"<tinyflow.train.Saver {sorted(self._variables)}>"


def _tables(var_list) -> tuple[dict, list | dict]:
    """``({name: table}, var_list without them)``: the mutable tables of a Saver's
    ``var_list``, under their own names (a list's; two of one name: the last, as TF's
    ``op_list_to_dict``) or the dict's keys."""
    if isinstance(var_list, dict):
        tables = {k: v for k, v in var_list.items() if isinstance(v, MutableHashTable)}
        return tables, {k: v for k, v in var_list.items() if k not in tables}
    if isinstance(var_list, (Symbol, PartitionedVariable)) or not hasattr(var_list, "__iter__"):
        return {}, var_list  # one variable: saved_groups says what it takes
    var_list = list(var_list)
    return ({t.name: t for t in var_list if isinstance(t, MutableHashTable)},
            [v for v in var_list if not isinstance(v, MutableHashTable)])


_TABLE_ENTRY_BYTES = 240  # a restored entry in a table's Python dict or buckets, and its row


def _table_arrays(name: str, table, arrays: dict, budget: _RestoreBudget):
    """``(keys, values)`` of ``table`` read as ``<name>-keys`` / ``<name>-values``, or a str
    saying what is wrong: their shapes the table's ``export_shapes`` (a DenseHashTable's, a
    power of two of buckets), its Python contents counted by ``budget``."""
    keys, values = arrays[f"{name}-keys"], arrays[f"{name}-values"]
    (_, *key_tail), (_, *value_tail) = table.export_shapes
    count = len(keys) if keys.ndim else -1
    if (list(keys.shape) != [count, *key_tail] or list(values.shape) != [count, *value_tail]
            or count < 0 or table.dense and count & (count - 1)):
        return (f"(a table of {table.key_type} keys and {table.value_type} values of shape "
                f"{list(table.value_shape)}) has keys of shape {list(keys.shape)} and values "
                f"of shape {list(values.shape)} in the file"
                + (", buckets a power of two" if table.dense else ""))
    problem = budget.take(name, _TABLE_ENTRY_BYTES * count * (1 + values[:1].size))
    return f"(a table) {problem}" if problem else (keys, values)


def _shards(var) -> list:
    """A saved variable's variables: a partitioned one's shards, else itself."""
    return var if isinstance(var, list) else [var]


def remove_checkpoint_files(prefix: str, meta_graph_suffix: str = "meta") -> None:
    """Delete a checkpoint's files, those that exist: ``.index``, ``.data-*``, the meta graph
    and an earlier TinyFlow ``.npz``."""
    for file in [prefix + ".index", f"{prefix}.{meta_graph_suffix}", prefix + ".npz",
                 *glob.glob(glob.escape(prefix) + ".data-?????-of-?????")]:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(file)


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None,
                      **kwargs) -> Saver | None:
    """``tf.train.import_meta_graph``: rebuild the graph a ``.meta`` file holds (TinyFlow's,
    :mod:`tinyflow.frontend.meta_graph`) in the current graph, with its variables and
    collections; return a Saver over its variables (None when it has none), under the names
    the Saver that wrote the file gave them (TF's SaverDef), else their own.  A malformed file
    is a GraphError naming it, and the current graph is left as it was."""
    variables, names = import_graph(meta_graph_or_file, import_scope)
    return Saver(names or variables) if variables else None


class CheckpointState(NamedTuple):
    """What an index file ``checkpoint`` says: the newest checkpoint's path and those kept,
    oldest first (relative paths joined to the folder)."""

    model_checkpoint_path: str
    all_model_checkpoint_paths: list


def get_checkpoint_state(checkpoint_dir, latest_filename=None) -> CheckpointState | None:
    """The index file ``checkpoint`` of ``checkpoint_dir`` (``latest_filename`` if given), or
    None when there is none or it cannot be read; ValueError when it names no checkpoint."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    index = os.path.join(checkpoint_dir, latest_filename or "checkpoint")
    try:
        with open(index, "rb") as file:
            fields = _parse_index(file.read())
    except (OSError, ValueError):
        return None
    latest = fields.get("model_checkpoint_path")
    if not latest:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}")
    paths = fields.get("all_model_checkpoint_paths", [])
    return CheckpointState(os.path.join(checkpoint_dir, latest[-1]),
                           [os.path.join(checkpoint_dir, p) for p in paths])


def latest_checkpoint(checkpoint_dir, latest_filename=None) -> str | None:
    """The path of the newest checkpoint the index file of ``checkpoint_dir`` names, for
    ``Saver.restore``; None when there is no index or that checkpoint's file is gone."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None:
        return None
    path = state.model_checkpoint_path
    return path if checkpoint_exists(path) else None


def checkpoint_exists(checkpoint_prefix) -> bool:
    """Whether a checkpoint is at ``checkpoint_prefix``: its ``.index`` file (or an earlier
    TinyFlow ``.npz`` file, at the path or ``<path>.npz``)."""
    path = os.fspath(checkpoint_prefix)
    return any(os.path.isfile(p) for p in (path + ".index", path + ".npz", path))


@contextlib.contextmanager
def _replacing(path: str):
    """A binary file to write that replaces ``path`` atomically once the block succeeds (a
    temporary file beside it, synced, then renamed); on failure ``path`` is left as it was.

    Stale temporary files of ``path`` are deleted first; the file gets the umask's mode;
    ``path`` must be a regular file or absent; OSError and MemoryError are CheckpointError."""
    folder, base = os.path.split(os.path.abspath(path))
    _refuse_special(path)
    _remove_stale_temps(folder, base)
    try:
        handle, temp_path = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
    except OSError as err:
        raise CheckpointError(f"cannot write checkpoint '{path}': {err}") from err
    try:
        with os.fdopen(handle, "wb") as file:
            os.fchmod(file.fileno(), 0o666 & ~_umask())
            yield file
            file.flush()
            os.fsync(file.fileno())  # the data is on disk before the rename publishes it
        _refuse_special(path)  # nothing put there meanwhile
        os.replace(temp_path, path)
    except BaseException as err:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_path)
        if isinstance(err, (OSError, MemoryError)):
            raise CheckpointError(f"cannot write checkpoint '{path}': "
                                  f"{type(err).__name__}: {err}") from err
        raise


def _refuse_special(path: str) -> None:
    """CheckpointError unless ``path`` is absent or a regular file (not a link to one)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as err:
        raise CheckpointError(f"cannot write checkpoint '{path}': {err}") from err
    if stat.S_ISLNK(mode):
        raise CheckpointError(f"cannot write checkpoint '{path}': it is a symbolic link, "
                              f"which a save would replace (save to its target instead)")
    if not stat.S_ISREG(mode):
        raise CheckpointError(f"cannot write checkpoint '{path}': it is not a regular file "
                              f"(a device, FIFO, socket or folder), which a save would replace")


def _temp_pattern(base: str):
    """The names ``tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp")`` gives."""
    return re.compile(rf"\.{re.escape(base)}\.[a-z0-9_]{{8}}\.tmp")


def _remove_stale_temps(folder: str, base: str) -> None:
    """Delete the temporary files of saves of ``base`` that died (kill -9): those of our
    pattern, regular files, last written before this process started."""
    pattern = _temp_pattern(base)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if pattern.fullmatch(entry.name):
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(info.st_mode) and info.st_mtime < _STARTED:
                    os.unlink(entry.path)


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # elsewhere: set and restore (not thread-safe, but brief)
    os.umask(mask)
    return mask


# -- the index file: TensorFlow's CheckpointState in protobuf text format ------------------------
_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
            ord("'"): "\\'", ord("\\"): "\\\\"}
_ESCAPED = re.compile(rb"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|(.))", re.DOTALL)
_FIELD = re.compile(rb'\s*(\w+)\s*:\s*(.*?)\s*')
_QUOTED = re.compile(rb'"((?:[^"\\]|\\.)*)"', re.DOTALL)
_PATHS = ("model_checkpoint_path", "all_model_checkpoint_paths")
_TIMESTAMPS = ("all_model_checkpoint_timestamps", "last_preserved_timestamp")


def _quote(text: str) -> str:
    """``text`` as a text-format string: quoted, UTF-8 bytes escaped as protobuf does."""
    return '"' + "".join(_ESCAPES.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}")
                         for b in text.encode("utf-8")) + '"'


def _unquote(raw: bytes) -> str:
    def one(match):
        octal, hexadecimal, char = match.groups()
        if octal or hexadecimal:
            return bytes([int(octal, 8) & 0xFF if octal else int(hexadecimal, 16)])
        return {b"n": b"\n", b"r": b"\r", b"t": b"\t"}.get(char, char)
    return _ESCAPED.sub(one, raw).decode("utf-8")


def _index_text(folder: str, latest: str, kept: list, relative=False) -> str:
    """The index file's text.  Relative paths are written relative to ``folder`` (where the
    reader joins them back), absolute ones as they are unless ``relative``: TensorFlow's rule."""
    def written(path):
        return path if os.path.isabs(path) and not relative else os.path.relpath(
            path, folder or os.curdir)
    lines = [f"model_checkpoint_path: {_quote(written(latest))}"]
    lines += [f"all_model_checkpoint_paths: {_quote(written(p))}" for p in kept]
    return "\n".join(lines) + "\n"


def _parse_index(data: bytes) -> dict:
    """``{field: [value, ...]}`` of the path fields of an index file (the timestamps TensorFlow
    may add are skipped); ValueError where TensorFlow's parser fails (another field, a line that
    is not ``field: value``, a path not quoted)."""
    fields: dict[str, list] = {}
    for line in data.splitlines():
        if not line.strip() or line.lstrip().startswith(b"#"):
            continue
        field = _FIELD.fullmatch(line)
        name = field and field[1].decode()
        if name in _TIMESTAMPS:
            continue
        quoted = field and _QUOTED.fullmatch(field[2])
        if name not in _PATHS or quoted is None:
            raise ValueError(f"not a CheckpointState line: {line!r}")
        fields.setdefault(name, []).append(_unquote(quoted[1]))
    return fields


class _RestoreBudget:
    """The bytes a restore may still allocate: each array it reads, and the tensor of a
    variable the session holds none of yet (``new``: their names)."""

    def __init__(self, limit: int, source: str, new: set):
        self.left, self.limit, self.source, self.new = limit, limit, source, new

    def take(self, name: str, nbytes: int) -> str | None:
        """Count ``nbytes`` read for ``name``; what is wrong when they do not fit."""
        needed = nbytes * (2 if name in self.new else 1)
        if needed > self.left:
            return (f"needs {needed} bytes to restore, more than the restore may still "
                    f"allocate ({self.left} of {self.limit} bytes: {self.source}); nothing "
                    f"was read into it (Saver(max_restore_bytes=...) sets the limit)")
        self.left -= needed
        return None


def _read_npz(path: str, expected: dict, budget: _RestoreBudget) -> dict:
    """``{name: array, or a str saying what is wrong with its member}`` for the names of
    ``expected`` (``{name: shape or None}``) found in the checkpoint file; only those members
    are read, each after its size in the ZIP directory and ``budget`` are checked."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no checkpoint file at '{path}'")
    try:
        with zipfile.ZipFile(path) as archive:
            members = {info.filename: info for info in archive.infolist()}
            return {name: _read_member(archive, members[f"{name}.npy"], shape,
                                       lambda nbytes, name=name: budget.take(name, nbytes))
                    for name, shape in expected.items() if f"{name}.npy" in members}
    except zipfile.BadZipFile as err:
        if _is_npy(path):
            raise CheckpointError(f"cannot read checkpoint '{path}': it holds one array, not "
                                  f"a .npz archive of named arrays") from None
        raise CheckpointError(f"cannot read checkpoint '{path}': {err}") from None
    except (OSError, ValueError, EOFError, MemoryError, zipfile.LargeZipFile,
            tokenize.TokenError, SyntaxError) as err:  # the last two: a header's broken text
        raise CheckpointError(f"cannot read checkpoint '{path}': {type(err).__name__}: "
                              f"{err}") from None


def _is_npy(path: str) -> bool:
    try:
        with open(path, "rb") as file:
            np.lib.format.read_magic(file)
        return True
    except (OSError, ValueError):
        return False


def _read_member(archive, info, shape, take):
    """The array of one ``.npy`` member, or a str saying what is wrong with it.  Its header is
    read first; the data only when the member's size is the header's plus the array's bytes,
    the array has ``shape`` (when known) and ``take(nbytes)`` finds nothing wrong."""
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                  else np.lib.format.read_array_header_2_0)
        file_shape, fortran, dtype = header(member)
        if dtype.hasobject or dtype.kind not in "biuf":
            return f"has dtype {dtype} in the file, not a number type"
        if shape is not None and tuple(file_shape) != tuple(shape):
            return f"has shape {tuple(file_shape)} in the file but {tuple(shape)} in the graph"
        nbytes = math.prod(file_shape) * dtype.itemsize
        if info.file_size != member.tell() + nbytes:
            return (f"is corrupt in the file: its member '{info.filename}' says it holds "
                    f"{info.file_size} bytes, not the {member.tell() + nbytes} of a "
                    f"{dtype} array of shape {tuple(file_shape)}")
        problem = take(nbytes)
        if problem:
            return f"has shape {tuple(file_shape)} {dtype} in the file: it {problem}"
        array = np.empty(file_shape, dtype=dtype, order="F" if fortran else "C")
        buffer, filled = memoryview(array.reshape(-1, order="A")).cast("B"), 0
        while filled < array.nbytes:
            count = member.readinto(buffer[filled:])
            if not count:
                return f"is corrupt in the file: its member '{info.filename}' is cut short"
            filled += count
    return array


# -- TensorFlow's V2 checkpoints: reading, every byte untrusted -----------------------------------
def _read_index(prefix: str, budget: _RestoreBudget | None) -> tuple[int, dict]:
    """``(shards, {name: BundleEntry})`` of ``<prefix>.index``; its size is taken from
    ``budget`` before it is read."""
    index = prefix + ".index"
    try:
        with open(index, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            problem = budget and budget.take("", size)
            if problem:
                raise CheckpointError(f"cannot read checkpoint '{index}': the index file "
                                      f"{problem}")
            return fmt.read_index(file.read())
    except fmt.FormatError as err:
        raise CheckpointError(f"cannot read checkpoint '{index}': {err}") from None
    except (OSError, MemoryError) as err:
        raise CheckpointError(f"cannot read checkpoint '{index}': {type(err).__name__}: "
                              f"{err}") from None


def _read_entries(prefix: str, wanted: dict, budget: _RestoreBudget | None) -> dict:
    """``{name: array, or a str saying what is wrong}`` for ``wanted`` (``{name: (dtype name,
    shape or None)}``) from the V2 checkpoint ``prefix``: each entry's dtype and shape checked
    against the wanted ones, its bytes inside its data file, counted by ``budget``, then read
    and checked against its crc32c."""
    shards, entries = _read_index(prefix, budget)
    found, files = {}, {}
    try:
        with contextlib.ExitStack() as stack:
            def read(entry, dtype, shape, name):
                path = fmt.data_file(prefix, getattr(entry, "shard_id", 0), shards)
                if path not in files:
                    files[path] = (stack.enter_context(open(path, "rb"))
                                   if os.path.isfile(path) else None)
                return _read_entry(entry, path, files[path], dtype, shape, budget, name)
            for name, (dtype, shape) in wanted.items():
                entry = entries.get(name)
                if entry is None:
                    found[name] = f"is not in the file '{prefix}.index'"
                elif isinstance(entry, fmt.BundleEntry) and entry.slices:
                    found[name] = _read_sliced(name, entry, entries, read, (dtype, shape),
                                               budget)
                else:
                    found[name] = read(entry, dtype, shape, name)
    except (OSError, MemoryError) as err:
        raise CheckpointError(f"cannot read checkpoint '{prefix}': {type(err).__name__}: "
                              f"{err}") from None
    return found


def _read_sliced(name, entry, entries, read, wanted, budget):
    """A partitioned variable's full array from the entries of its slices (TF's
    ``GetSliceValue``), or a str saying what is wrong: each slice read and checked as an entry
    (so bounded by the data file) before the whole is allocated, together covering it once."""
    dtype, shape = wanted
    if dtype is not None and entry.dtype != dtype:
        return f"has dtype {entry.dtype} in the file but {dtype} in the graph"
    if shape is not None and tuple(entry.shape) != tuple(shape):
        return f"has shape {list(entry.shape)} in the file but {list(shape)} in the graph"
    places, parts = [], []
    for extents in entry.slices:
        places.append(tuple(slice(0, size) if length == -1 else slice(start, start + length)
                            for (start, length), size in zip(extents, entry.shape)))
        part = entries.get(fmt.slice_key(name, extents))
        if part is None:
            return f"is partitioned in the file, but its slice {extents} is missing"
        parts.append(read(part, entry.dtype, tuple(p.stop - p.start for p in places[-1]), name))
        if isinstance(parts[-1], str):
            return f"slice {extents} {parts[-1]}"
    bounds = np.array([[(p.start, p.stop) for p in place] for place in places]).reshape(
        len(places), len(entry.shape), 2)
    overlap = any(np.all((bounds[k + 1:, :, 0] < bounds[k, :, 1])
                         & (bounds[k, :, 0] < bounds[k + 1:, :, 1]), axis=1).any()
                  for k in range(len(places)))
    if overlap or sum(p.size for p in parts) != math.prod(entry.shape):
        return "is partitioned in the file into slices that do not cover it exactly once"
    problem = budget and budget.take(name, sum(p.nbytes for p in parts))
    if problem:
        return f"has shape {list(entry.shape)} {entry.dtype} in the file: it {problem}"
    full = np.empty(entry.shape, dtype=parts[0].dtype if parts else np.dtype(entry.dtype))
    for place, part in zip(places, parts):
        full[place] = part
    return full


_STRING_OBJECT_BYTES = 64  # a string element read: its bytes object and the array's pointer


def _read_entry(entry, path: str, file, dtype, shape, budget, name):
    """One entry's array from its data file ``file`` (None: missing), or a str saying what is
    wrong with it."""
    if isinstance(entry, str):  # what the index's reader found wrong
        return f"cannot be read: {entry}"
    if dtype is not None and entry.dtype != dtype:
        return f"has dtype {entry.dtype} in the file but {dtype} in the graph"
    if shape is not None and tuple(entry.shape) != tuple(shape):
        return f"has shape {list(entry.shape)} in the file but {list(shape)} in the graph"
    if file is None:
        return f"is in the data file '{path}', which is missing"
    size = os.fstat(file.fileno()).st_size
    if entry.offset + entry.size > size:
        return (f"is corrupt in the file: its {entry.size} bytes at offset {entry.offset} run "
                f"past the end of '{path}' ({size} bytes)")
    count = math.prod(entry.shape)  # strings: their bytes, copied twice, an object each
    problem = budget and budget.take(name, entry.size + (
        2 * entry.size + _STRING_OBJECT_BYTES * count if entry.dtype == "string" else 0))
    if problem:
        return f"has shape {list(entry.shape)} {entry.dtype} in the file: it {problem}"
    array = np.empty(entry.shape if entry.dtype != "string" else entry.size, dtype=np.uint8
                     if entry.dtype == "string" else np.dtype(entry.dtype).newbyteorder("<"))
    raw = memoryview(array.reshape(-1)).cast("B")
    file.seek(entry.offset)
    if file.readinto(raw) != entry.size:
        return f"is corrupt in the file: '{path}' is cut short"
    if entry.dtype == "string":
        try:
            strings = fmt.read_strings(raw, count, fmt.unmask_crc(entry.crc32c))
        except fmt.FormatError as err:
            return f"is corrupt in the file '{path}': {err}"
        array = np.empty(count, dtype=object)
        array[:] = strings
        return array.reshape(entry.shape)
    if fmt.crc32c(raw) != fmt.unmask_crc(entry.crc32c):
        return f"is corrupt in the file: its bytes in '{path}' do not match their checksum"
    if array.dtype == bool and array.size and array.view(np.uint8).max() > 1:
        return f"is corrupt in the file: a bool in '{path}' is neither 0 nor 1"
    return array


class CheckpointReader:
    """The tensors of a checkpoint, by name (``tf.train.NewCheckpointReader``).  Tensors of a
    dtype TinyFlow does not read (complex numbers) are left out of its maps.

    Parameters
    ----------
    prefix : str or os.PathLike
        A checkpoint's prefix (its ``.index`` file is read here, and checked).
    """

    def __init__(self, prefix):
        self.prefix = os.fspath(prefix)
        if not os.path.isfile(self.prefix + ".index"):
            raise FileNotFoundError(f"no checkpoint at '{self.prefix}': no file "
                                    f"'{self.prefix}.index'")
        _, entries = _read_index(self.prefix, None)
        entries = {n: e for n, e in entries.items() if isinstance(n, str)}  # no slices' keys
        self._entries = {n: e for n, e in entries.items() if not isinstance(e, str)}
        self._unreadable = {n: e for n, e in entries.items() if isinstance(e, str)}

    def has_tensor(self, name: str) -> bool:
        return name in self._entries

    def get_variable_to_shape_map(self) -> dict:
        """``{name: shape as a list}``."""
        return {name: list(e.shape) for name, e in self._entries.items()}

    def get_variable_to_dtype_map(self) -> dict:
        """``{name: tf DType}``."""
        return {name: as_dtype(e.dtype) for name, e in self._entries.items()}

    def get_tensor(self, name: str) -> np.ndarray:
        """The tensor ``name`` as a numpy array (its bytes checked against their crc32c);
        NotFoundError when the checkpoint has none of that name."""
        if name in self._unreadable:
            raise CheckpointError(f"cannot read '{name}' from '{self.prefix}': "
                                  f"{self._unreadable[name]}")
        if name not in self._entries:
            raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
        array = _read_entries(self.prefix, {name: (None, None)}, None)[name]
        if isinstance(array, str):
            raise CheckpointError(f"cannot read '{name}' from '{self.prefix}': {array}")
        return array if array.dtype == object else array.astype(
            array.dtype.newbyteorder("="), copy=False)

    def debug_string(self) -> bytes:
        return "".join(f"{n} ({e.dtype}) {list(e.shape)}\n"
                       for n, e in sorted(self._entries.items())).encode()


def NewCheckpointReader(filepattern) -> CheckpointReader:
    """``tf.train.NewCheckpointReader``: a :class:`CheckpointReader` of a checkpoint prefix."""
    return CheckpointReader(filepattern)


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """``tf.train.load_checkpoint``: the reader of a checkpoint prefix, or of the newest
    checkpoint of a folder (its file ``checkpoint``)."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {path}")
        path = latest
    return CheckpointReader(path)


def list_variables(ckpt_dir_or_file) -> list:
    """``tf.train.list_variables``: ``[(name, shape as a list)]``, sorted by name."""
    return sorted(load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map().items())


def load_variable(ckpt_dir_or_file, name: str) -> np.ndarray:
    """``tf.train.load_variable``: one tensor of a checkpoint (a ``:0`` suffix is dropped)."""
    name = name.removesuffix(":0")
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
