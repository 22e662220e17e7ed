"""``tf.train.Saver``: variable values to a checkpoint file and back.

Checkpoint format
-----------------
A checkpoint is a NumPy ``.npz`` file: a ZIP archive (stored, not compressed) holding one
``<name>.npy`` member per variable in NumPy's ``.npy`` format (a small text header giving dtype,
byte order and shape, then the raw C-order data).  ``<name>`` is the variable's node name, or the
key given in a ``var_list`` dict.  Values are saved as the session holds them: float32 arrays of
the variable's shape (``'<f4'`` on little-endian machines).  No pickle is written or read, so
NumPy (``np.load(path, allow_pickle=False)``) or any ZIP-and-npy reader can open it; it is what
``np.savez(path, **{name: value})`` writes.  Restoring accepts any byte order and any integer or
float dtype, converted to the variable's dtype.

Saving writes a temporary file beside ``path`` and renames it over ``path`` (``os.replace``,
atomic on POSIX and Windows), so a crash during a save leaves the previous checkpoint intact.

Restoring reads the whole file and checks it before writing any variable: every variable of the
saver must be in the file with the variable's shape.  Names in the file that the saver does not
hold are ignored, as in TensorFlow, so a saver over some variables can restore them from a
checkpoint of all of them.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
import zipfile

import numpy as np

from .nnvm.errors import TinyflowError
from .nnvm.symbol import Symbol, current_context
from .variables import Variable, initial_shapes

__all__ = ["CheckpointError", "Saver"]


class CheckpointError(TinyflowError, ValueError):
    """A checkpoint that cannot be written or does not fit the variables it is restored into."""


class Saver:
    """Saves and restores variable values.

    Parameters
    ----------
    var_list : list of variable symbols, or dict ``{name: variable symbol}``, optional
        The variables to save and restore, stored under their node names (list) or under the
        dict's keys.  Default: every variable of the current graph context at construction time.
    """

    def __init__(self, var_list=None):
        if var_list is None:
            var_list = list(current_context().variables)
        if isinstance(var_list, dict):
            pairs = list(var_list.items())
        else:
            pairs = [(None, v) for v in var_list]
        self._variables: dict[str, Symbol] = {}
        for name, var in pairs:
            if not (isinstance(var, Symbol) and len(var.outputs) == 1
                    and var.node.kind == "variable"):
                raise TypeError(f"Saver saves tf.Variables, got {var!r}")
            name = var.name if name is None else name
            if not isinstance(name, str) or not name:
                raise TypeError(f"checkpoint names must be non-empty strings, got {name!r}")
            if name in self._variables:
                raise ValueError(f"two variables are named '{name}'; pass var_list as a dict "
                                 f"{{name: variable}} to store them under different names")
            self._variables[name] = var
        if not self._variables:
            raise ValueError("no variables to save: create tf.Variables before the Saver, or "
                             "pass var_list")

    @property
    def var_list(self) -> dict:
        """``{name in the checkpoint: variable symbol}``."""
        return dict(self._variables)

    def save(self, sess, path) -> str:
        """Write the values the variables hold in ``sess`` to ``path`` (used as given).

        Parameters
        ----------
        sess : Session
        path : str or os.PathLike
            The checkpoint file; its folder must exist.  An existing file is replaced only once
            the new one is completely written.

        Returns
        -------
        str
            ``path``.

        Raises
        ------
        CheckpointError
            A variable has no value in ``sess`` yet (it is named).
        """
        path = os.fspath(path)
        store = sess.variable_store
        unset = [f"'{name}' (created at {v.node.source})" for name, v in self._variables.items()
                 if not store.is_initialized(v.node)]
        if unset:
            raise CheckpointError(f"cannot save variable(s) {', '.join(unset)}: no value in this "
                                  f"session yet; run tf.global_variables_initializer() (a "
                                  f"layer's weights get theirs at the first run feeding the "
                                  f"layer) or restore them first")
        arrays = {name: store[v.node].detach().cpu().numpy()
                  for name, v in self._variables.items()}
        folder, base = os.path.split(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise FileNotFoundError(f"cannot save checkpoint '{path}': no folder '{folder}'")
        handle, temp_path = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(handle, "wb") as file:
                _write_npz(file, arrays)
                file.flush()
                os.fsync(file.fileno())  # the data is on disk before the rename publishes it
            os.replace(temp_path, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp_path)
            raise
        return path

    def restore(self, sess, path) -> None:
        """Load the variables' values from ``path`` into ``sess``; they count as initialised.

        Everything is checked before any variable changes: a failed restore leaves ``sess`` as
        it was.  A variable ``sess`` already holds is written in place, so executors already
        bound to it see the new value.  A restored value counts as set by the user: an
        initialiser still waiting for the variable's shape is dropped, and a layer's variable
        keeps it when ``tf.global_variables_initializer()`` runs later.

        Raises
        ------
        FileNotFoundError
            No file at ``path`` (it is named).
        CheckpointError
            The file is not a readable checkpoint, lacks a variable, or holds a value whose shape
            differs from the variable's (the message names every such variable and both shapes).
        """
        import torch  # only here: building graphs (and this module) must not import torch

        path = os.fspath(path)
        arrays = _read_npz(path)
        expected = self._expected_shapes(sess)
        problems = []
        for name, var in self._variables.items():
            array = arrays.get(name)
            if array is None:
                problems.append(f"variable '{name}' is not in the file")
            elif array.dtype.kind not in "biuf":
                problems.append(f"variable '{name}' has dtype {array.dtype} in the file, not a "
                                f"number type")
            elif expected.get(name) is not None and array.shape != expected[name]:
                problems.append(f"variable '{name}' has shape {array.shape} in the file but "
                                f"{expected[name]} in the graph")
        if problems:
            raise CheckpointError(f"cannot restore from '{path}': " + "; ".join(problems))
        for name, var in self._variables.items():
            array = arrays[name]
            # torch takes native byte order only; files written on big-endian machines differ
            value = torch.from_numpy(array.astype(array.dtype.newbyteorder("="), copy=False))
            sess.variable_store.restore(var.node, value, sess.device)

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
        return {name: known.get(v.node) for name, v in self._variables.items()}

    def __repr__(self):
        return f"<tinyflow.train.Saver {sorted(self._variables)}>"


def _write_npz(file, arrays: dict) -> None:
    """What ``np.savez`` writes, without its keyword arguments (a variable may be named
    ``file`` or ``allow_pickle``)."""
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, array in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.ascontiguousarray(array),
                                          allow_pickle=False)


def _read_npz(path: str) -> dict:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no checkpoint file at '{path}'")
    try:
        archive = np.load(path, allow_pickle=False)
        if isinstance(archive, np.lib.npyio.NpzFile):
            with archive:
                return {name: archive[name] for name in archive.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise CheckpointError(f"cannot read checkpoint '{path}': {err}") from None
    raise CheckpointError(f"cannot read checkpoint '{path}': it holds one array, not a .npz "
                          f"archive of named arrays")
