"""The session: the top of the engine.  A :class:`Session` holds a
:class:`~tinyflow.session.variables.VariableStore` (a tensor per variable, the random streams)
and executors cached per fetch set and feed shapes; :mod:`.options` parses what ``Session(...)``
is asked for once, into :class:`~tinyflow.session.options.SessionOptions`.

Importing this package does not import torch (the options and the store are read while graphs
are built); :mod:`.session` does, on first use of ``Session``.
"""
from .variables import SessionClosedError, VariableStore, initial_shapes

__all__ = ["InteractiveSession", "Session", "SessionClosedError", "VariableStore",
           "get_default_session", "initial_shapes"]


def __getattr__(name):
    if name in ("Session", "InteractiveSession", "get_default_session"):
        from . import session  # imports torch and lupa: only when a session is made
        return getattr(session, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
