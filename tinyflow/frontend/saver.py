"""``tf.train.Saver``: variable values to a checkpoint file and back, TensorFlow's API.

Checkpoint paths and files
--------------------------
As in TensorFlow, a checkpoint is named by a *path* (``save`` returns it, ``restore`` and
``latest_checkpoint`` take and give it): ``save_path``, or ``<save_path>-<step>`` when ``save``
gets a ``global_step``.  Where TensorFlow writes ``<path>.index`` and ``<path>.data-...``
beside that prefix, TinyFlow writes one file, ``<path>.npz`` (a path already ending in ``.npz``
is the file itself, and its step goes before the extension: ``model.npz`` with step 5 is
``model-5.npz``).  ``restore`` also opens a file at exactly the path given.  No ``.meta`` graph
file is written.  Each save also rewrites the index file ``checkpoint`` in the checkpoint's
folder, as TensorFlow's text format::

    model_checkpoint_path: "model-300"
    all_model_checkpoint_paths: "model-200"
    all_model_checkpoint_paths: "model-300"

listing the checkpoints this saver keeps, oldest first (paths relative to the folder when the
saved path was relative, else absolute); :func:`latest_checkpoint` reads it.  A saver keeps its
``max_to_keep`` newest checkpoints and deletes the files of older ones it wrote.

Checkpoint format
-----------------
A checkpoint is a NumPy ``.npz`` file: a ZIP archive (stored, not compressed) holding one
``<name>.npy`` member per variable in NumPy's ``.npy`` format (a small text header giving dtype,
byte order and shape, then the raw C-order data).  ``<name>`` is the variable's node name, or the
key given in a ``var_list`` dict.  Values are saved as the session holds them: arrays of the
variable's shape and dtype (``'<f4'`` for float32 on little-endian machines, ``'<i8'`` for the
int64 global step; a scalar variable is a 0-d array).  No pickle is written or read, so NumPy
(``np.load(path, allow_pickle=False)``) or any ZIP-and-npy reader can open it; it is what
``np.savez(path, **{name: value})`` writes.  Restoring accepts any byte order and any integer or
float dtype, converted to the variable's dtype.

Saving writes a temporary file ``.<file name>.XXXXXXXX.tmp`` beside the checkpoint file and
renames it over that file (``os.replace``, atomic on POSIX and Windows), so a crash during a save
leaves the previous checkpoint intact; the index file is replaced the same way, after the
checkpoint is written.  A process killed during a save (``kill -9``) leaves its temporary file
behind: the next save of the same file deletes the temporary files of that file (only names of
that exact pattern, last written before this process started).  The file gets the mode the
user's umask gives a new file (``0o666 & ~umask``), as ``open`` would.  A save never replaces a
symbolic link or anything but a regular file (a device, a FIFO, a folder): that is a
CheckpointError naming the path.  Any OSError or MemoryError while writing or reading is a
CheckpointError naming the path (the original error chained).

Restoring reads the members of the saver's variables only (``<name>.npy`` exactly: names ``a``
and ``a.npy`` are two members) and checks them before writing any variable: every variable of
the saver must be in the file with the variable's shape.  Each member's size in the ZIP
directory is checked against its ``.npy`` header and the variable's shape before its data is
read, so a member claiming more bytes than its array (a zip bomb) costs nothing; and what the
restore allocates (each array read, and the variable's tensor where the session holds none yet)
is counted from the headers' shapes and dtypes before it is allocated: over the Saver's
``max_restore_bytes`` (default: the memory available now, as the allocation check sees it) is a
CheckpointError naming the variable, so a small compressed file cannot restore a huge tensor.
Names in the file that the saver does not hold are ignored (never decompressed), as in TensorFlow,
so a saver over some variables can restore them from a checkpoint of all of them.
"""
from __future__ import annotations

import contextlib
import math
import os
import re
import stat
import tempfile
import time
import tokenize
import zipfile
from typing import NamedTuple

import numpy as np

from ..nnvm.errors import TinyflowError
from ..nnvm.symbol import Symbol, current_context
from ..session.variables import Variable, initial_shapes

__all__ = ["CheckpointError", "CheckpointState", "Saver", "get_checkpoint_state",
           "latest_checkpoint"]


class CheckpointError(TinyflowError, ValueError):
    """A checkpoint that cannot be written or read, or does not fit the variables it is restored
    into; names the path."""


# Temporary files of saves last written before this moment are stale (their process died).
_STARTED = time.time()


class Saver:
    """Saves and restores variable values.

    Parameters
    ----------
    var_list : list of variable symbols, or dict ``{name: variable symbol}``, optional
        The variables to save and restore, stored under their node names (list) or under the
        dict's keys.  Default: every variable of the current graph context at construction time.
    max_to_keep : int or None
        How many of its newest checkpoints the saver keeps (5); saving one more deletes the
        oldest.  None or 0 keeps them all.
    max_restore_bytes : int or None
        The most bytes a restore may allocate (arrays read, new variable tensors); None: the
        host's available memory when the restore starts.
    """

    def __init__(self, var_list=None, max_to_keep=5, max_restore_bytes=None):
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
            name = var.op.name if name is None else name
            if not isinstance(name, str) or not name:
                raise TypeError(f"checkpoint names must be non-empty strings, got {name!r}")
            if "\0" in name:  # a ZIP member name ends at a NUL: it would restore another name
                raise ValueError(f"checkpoint name {name!r} holds a NUL character, which a "
                                 f"checkpoint member's name cannot hold; name the variable "
                                 f"without it, or pass var_list as a dict {{name: variable}}")
            if name in self._variables:
                raise ValueError(f"two variables are named '{name}'; pass var_list as a dict "
                                 f"{{name: variable}} to store them under different names")
            self._variables[name] = var
        if not self._variables:
            raise ValueError("no variables to save: create tf.Variables before the Saver, or "
                             "pass var_list")
        self.max_to_keep = max_to_keep
        self.max_restore_bytes = max_restore_bytes
        self._last_checkpoints: list[str] = []  # paths this saver wrote and keeps, oldest first

    @property
    def var_list(self) -> dict:
        """``{name in the checkpoint: variable symbol}``."""
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
                                  if os.path.isfile(_checkpoint_file(os.fspath(p)))]

    def save(self, sess, save_path, global_step=None, latest_filename=None,
             write_state=True) -> str:
        """Write the values the variables hold in ``sess`` to a checkpoint.

        Parameters
        ----------
        sess : Session
        save_path : str or os.PathLike
            The checkpoint's path (see the module's docstring for its file); its folder must
            exist.  An existing file is replaced only once the new one is completely written.
        global_step : int, or the global step variable (or any integer scalar), optional
            Appended to the path: ``<save_path>-<step>``.
        latest_filename : str, optional
            The index file's name in the folder (``checkpoint``).
        write_state : bool
            Update the index file and delete the checkpoints beyond ``max_to_keep``.

        Returns
        -------
        str
            The checkpoint's path, for ``restore``.

        Raises
        ------
        CheckpointError
            A variable has no value in ``sess`` yet (it is named); the file cannot be written
            (OSError, MemoryError: the path is named); the path is a symbolic link or not a
            regular file.
        FileNotFoundError
            The folder does not exist.
        ValueError
            ``latest_filename`` holds a folder, or is the checkpoint's own name.
        """
        path = os.fspath(save_path)
        latest_filename = latest_filename or "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = int(sess.run(global_step))
            stem, npz = (path[:-4], ".npz") if path.endswith(".npz") else (path, "")
            path = f"{stem}-{int(global_step)}{npz}"
        elif os.path.basename(path) == latest_filename:
            raise ValueError(f"'latest_filename' collides with 'save_path': "
                             f"'{latest_filename}' and '{path}'")
        arrays = self._values(sess)
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise FileNotFoundError(f"cannot save checkpoint '{path}': no folder '{folder}'")
        with _replacing(_checkpoint_file(path)) as file:
            _write_npz(file, arrays)
        if write_state:
            self._keep(path, latest_filename)
        return path

    def _values(self, sess) -> dict:
        """``{name: numpy array}`` of the variables in ``sess``; CheckpointError naming those
        without a value."""
        store = sess.variable_store
        unset = [f"'{name}' (created at {v.node.source})" for name, v in self._variables.items()
                 if not store.is_initialized(v.node)]
        if unset:
            raise CheckpointError(f"cannot save variable(s) {', '.join(unset)}: no value in this "
                                  f"session yet; run tf.global_variables_initializer() (a "
                                  f"layer's weights get theirs at the first run feeding the "
                                  f"layer) or restore them first")
        return {name: store[v.node].detach().cpu().numpy() for name, v in self._variables.items()}

    def _keep(self, path: str, latest_filename: str) -> None:
        """Record ``path`` as the newest checkpoint, rewrite the index, delete the files of the
        checkpoints beyond ``max_to_keep`` (TensorFlow's order)."""
        deleted = []
        if self.max_to_keep:
            self._last_checkpoints = [p for p in self._last_checkpoints if p != path] + [path]
            while len(self._last_checkpoints) > self.max_to_keep:
                deleted.append(self._last_checkpoints.pop(0))
        folder = os.path.dirname(path)
        with _replacing(os.path.join(folder, latest_filename)) as file:
            file.write(_index_text(folder, path, self._last_checkpoints or [path]).encode())
        for old in deleted:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(_checkpoint_file(old))

    def restore(self, sess, save_path) -> None:
        """Load the variables' values from the checkpoint ``save_path`` (a path ``save`` or
        ``latest_checkpoint`` gave, or a ``.npz`` file) into ``sess``; they count as initialised.

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
            No checkpoint file at ``save_path`` (it is named).
        CheckpointError
            The file is not a readable checkpoint, lacks a variable, or holds a value whose shape
            differs from the variable's (the message names every such variable and both shapes).
        """
        import torch  # only here: building graphs (and this module) must not import torch

        from ..executor.memory import available_bytes  # imports torch: only here, as above

        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        path = os.fspath(save_path)
        if not os.path.isfile(path):
            path = _checkpoint_file(path)
        expected = self._expected_shapes(sess)
        limit, source = ((self.max_restore_bytes, "the Saver's max_restore_bytes")
                         if self.max_restore_bytes is not None
                         else available_bytes(torch.device("cpu")))
        held = sess.variable_store.shapes()
        budget = _RestoreBudget(limit, source, {name for name, v in self._variables.items()
                                                if v.node not in held})
        arrays = _read_npz(path, expected, budget)
        problems = []
        for name in self._variables:
            array = arrays.get(name)
            if array is None:
                problems.append(f"variable '{name}' is not in the file")
            elif isinstance(array, str):  # what _read_member found wrong
                problems.append(f"variable '{name}' {array}")
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
    return path if os.path.isfile(_checkpoint_file(path)) or os.path.isfile(path) else None


def _checkpoint_file(path: str) -> str:
    """The file of the checkpoint ``path``: ``<path>.npz``, or ``path`` ending in ``.npz``."""
    return path if path.endswith(".npz") else path + ".npz"


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


def _index_text(folder: str, latest: str, kept: list) -> str:
    """The index file's text.  Relative paths are written relative to ``folder`` (where the
    reader joins them back), absolute ones as they are: TensorFlow's rule."""
    def written(path):
        return path if os.path.isabs(path) else os.path.relpath(path, folder or os.curdir)
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


def _write_npz(file, arrays: dict) -> None:
    """What ``np.savez`` writes, without its keyword arguments (a variable may be named
    ``file`` or ``allow_pickle``)."""
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, array in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                # np.ascontiguousarray would make a 0-d array (a scalar variable) 1-d
                np.lib.format.write_array(member, np.asarray(array, order="C"),
                                          allow_pickle=False)


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
