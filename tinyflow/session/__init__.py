"""The session: the top of the engine.  A :class:`Session` holds a
:class:`~tinyflow.session.variables.VariableStore` (a tensor per variable, the random streams)
and executors cached per fetch set and feed shapes; :mod:`.options` parses what ``Session(...)``
is asked for once, into :class:`~tinyflow.session.options.SessionOptions`."""
from .session import InteractiveSession, Session, get_default_session
from .variables import SessionClosedError, VariableStore, initial_shapes

__all__ = ["InteractiveSession", "Session", "SessionClosedError", "VariableStore",
           "get_default_session", "initial_shapes"]
