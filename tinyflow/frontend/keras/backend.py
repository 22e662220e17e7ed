"""``tf.keras.backend`` as TensorFlow 1.15 has it in graph mode: the learning phase, the
session Keras uses, and the per-graph names of layers.

The learning phase is ``placeholder_with_default(False, [], name="keras_learning_phase")``,
one per graph, unless :func:`set_learning_phase` fixed it to 0 or 1 for that graph: layers
whose result depends on training (Dropout, BatchNormalization) read it when they are called
without ``training=``.  This state lives on the graph (``graph.keras``), so
:func:`clear_session` (TF's ``reset_default_graph``) forgets it.
"""
from __future__ import annotations

from ...nnvm.symbol import current_context, reset_default_graph
from .. import api

__all__ = [
    "clear_session", "epsilon", "floatx", "get_session", "get_uid", "get_value",
    "image_data_format", "learning_phase", "set_learning_phase", "set_session", "set_value",
]

_EPSILON, _FLOATX = 1e-7, "float32"  # TF 1.15's constants (backend.epsilon(), floatx())


def _state() -> dict:
    return current_context().keras


def floatx() -> str:
    """The default float type of Keras, ``"float32"``."""
    return _FLOATX


def epsilon() -> float:
    """The fuzz factor Keras' losses clip probabilities by, ``1e-7``."""
    return _EPSILON


def image_data_format() -> str:
    """``"channels_last"``."""
    return "channels_last"


def get_uid(prefix="") -> int:
    """1, 2, 3... per ``prefix`` in the default graph (Keras' ``input_1``, ``input_2``)."""
    uids = _state().setdefault("uids", {})
    uids[prefix] = uids.get(prefix, 0) + 1
    return uids[prefix]


def unique_object_name(base: str) -> str:
    """``base``, then ``base_1``, ``base_2``... per graph: a Keras layer's default name."""
    used = get_uid(base) - 1
    return base if used == 0 else f"{base}_{used}"


def learning_phase():
    """The graph's learning phase: the int :func:`set_learning_phase` gave, else a bool
    placeholder defaulting to False (``keras_learning_phase:0``), made once per graph."""
    state = _state()
    if "learning_phase" not in state:
        graph = current_context()
        with graph.name_scope(None):
            state["learning_phase"] = api.placeholder_with_default(
                False, [], name="keras_learning_phase")
    return state.get("fixed_learning_phase", state["learning_phase"])


def set_learning_phase(value) -> None:
    """Fix the graph's learning phase to 0 (test) or 1 (training)."""
    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")
    _state()["fixed_learning_phase"] = int(value)


def set_session(session) -> None:
    """The session :func:`get_session` gives when no session is the default."""
    _state()["session"] = session


def get_session():
    """The default session, else Keras' own for the default graph (made on first use); the
    graph's variables the session has no value for are initialized in it first, as TF's."""
    from ...session import session as sessions  # deferred: a session imports torch
    graph, state = current_context(), _state()
    session = sessions.get_default_session()
    if session is None:
        if state.get("session") is None or state["session"].closed:
            _close_owned()  # one Keras session at a time, as TF's (_SESSION)
            state["session"] = sessions.Session(graph=graph)
            _OWNED.append(state["session"])
        session = state["session"]
    missing = [v for v in graph.variables if v.node not in session.variable_store]
    if missing:
        session.run(api.variables_initializer(missing))
    return session


def get_value(x):
    """The value of the variable (or tensor) ``x`` in :func:`get_session`'s session."""
    return get_session().run(x)


def set_value(x, value) -> None:
    """Write ``value`` into the variable ``x`` in :func:`get_session`'s session."""
    x.load(value, get_session())


def clear_session() -> None:
    """A new default graph (TF 1.15's ``reset_default_graph``): layer names start again from
    ``dense``, and the learning phase and Keras' session are those of the new graph (the old
    one closed)."""
    _close_owned()
    reset_default_graph()


# The sessions Keras made itself (get_session), closed when it makes the next (TF 1.15 keeps one,
# _SESSION): a session left open holds its executors, and an executor of a loop or a Python op
# is held by the Lua runtime too, which Python's collector cannot see through.
_OWNED: list = []


def _close_owned() -> None:
    while _OWNED:
        _OWNED.pop().close()
