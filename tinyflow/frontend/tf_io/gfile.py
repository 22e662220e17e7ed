"""``tf.io.gfile``: TensorFlow 1.15's file API in lower case, the same functions as
``tf.gfile``'s (:mod:`tinyflow.gfile`): local paths, ``tf.errors`` raised as TF raises them."""
import os

from .. import gfile as _gfile
from ..gfile import GFile
from ..unsupported import unsupported

__all__ = ["GFile", "copy", "exists", "glob", "isdir", "listdir", "makedirs", "mkdir", "remove",
           "rename", "rmtree", "stat", "walk"]

copy, exists, glob, isdir = _gfile.Copy, _gfile.Exists, _gfile.Glob, _gfile.IsDirectory
listdir, makedirs, mkdir, remove = (_gfile.ListDirectory, _gfile.MakeDirs, _gfile.MkDir,
                                    _gfile.Remove)
rename, rmtree, stat = _gfile.Rename, _gfile.DeleteRecursively, _gfile.Stat


def walk(top, topdown: bool = True, onerror=None):
    """``(dirname, subdirs, files)`` for each directory under ``top``, parents first when
    ``topdown``; ``onerror(error)`` is called for a directory that cannot be listed."""
    return os.walk(top, topdown=topdown, onerror=onerror)


def __getattr__(name):
    raise unsupported("tf.io.gfile.", "tinyflow.io.gfile", name, {"tf.io.gfile.": __all__})
