"""The operator bridge: Lua bodies for the registered ops, run on PyTorch tensors.

Each built-in op's compute body is the file ``tinyflow/lua_ops/<family>/<op name>.lua``, the
family being the op's declaration module (``tinyflow/ops/<family>.py``); importing this package
attaches every file to the op of that name as its ``FLuaCompute`` attribute.  Ops whose body is
another op's, word for word, are listed in :data:`SHARED_BODIES`.

A family's engine kernels (``<family>/kernels.py``, whose ``__all__`` lists them, and Lua ones
in ``<family>/kernels.lua``) are the ``kernels`` table of that family's built-in bodies only:
:func:`kernels_family` tells the runtime which family a body gets, and only for the source this
package attached (a user's body, or a built-in op's body overwritten, gets none).
Importing it does not start Lua or import torch: the runtime (:mod:`.runtime`) starts on first
use.
"""
from __future__ import annotations

import functools
import types
from importlib import resources
from typing import NamedTuple

from ..nnvm.op import Op

__all__ = ["FAMILIES", "SHARED_BODIES", "Body", "attach_lua_bodies", "built_in_bodies",
           "kernels_family", "read_body"]

# the folders of bodies, one per op declaration module (tinyflow/ops/<family>.py)
FAMILIES = ("array", "collective", "control", "conv", "elemwise", "fused", "image", "indexing",
            "init", "linalg", "loop", "math", "matrix", "nn", "optim", "reduce", "rnn",
            "sampling", "segment", "softmax", "sorting", "sparse", "sparse_updates", "special",
            "state", "volume")

# op -> the op whose body file it runs (views of the same elements: only the shape differs;
# concat's and split's bodies serve the ops that lay out or cut apart pieces the same way;
# conv2d's and linear's run _fused_conv2d and _fused_linear, the activation in kwarg).  One
# table here rather than per family: a body file sits in one family's folder and an op running
# it may be declared in another (flatten, a layer op, runs matrix's reshape); the op gets the
# kernels of the family whose body it runs, as that body is written against them.
SHARED_BODIES = {"reshape_like": "reshape", "flatten": "reshape",
                 "expand_dims": "reshape", "squeeze": "reshape", "stack": "concat",
                 "unstack": "split", "_concat_backward": "split", "fill_like": "fill",
                 "_fused_conv2d": "conv2d", "_fused_linear": "linear"}

# the per-family file of Lua kernels, which is no op's body
KERNELS_LUA = "kernels.lua"
# the sandbox and host functions of the runtime (lua_ops/runtime.py), one Lua file beside it
SANDBOX_LUA = "sandbox.lua"


class Body(NamedTuple):
    """A built-in body: the family folder it sits in and its source."""
    family: str
    source: str


@functools.cache
def built_in_bodies() -> types.MappingProxyType:
    """{op name: :class:`Body`} of every built-in body, shared ones included (read-only)."""
    bodies = {}
    for family in FAMILIES:
        for entry in resources.files(__package__).joinpath(family).iterdir():
            if entry.name.endswith(".lua") and entry.name != KERNELS_LUA:
                bodies[entry.name[:-len(".lua")]] = Body(family, entry.read_text())
    for name, body_of in SHARED_BODIES.items():
        bodies[name] = bodies[body_of]
    return types.MappingProxyType(dict(sorted(bodies.items())))


def read_body(op_name: str) -> str:
    """The Lua source of a built-in op body."""
    return built_in_bodies()[op_name].source


def kernels_family(op_name: str, source: str) -> str | None:
    """The family whose kernels op ``op_name``'s body ``source`` gets: its folder's when it is
    the built-in body this package attached, else None (a user's body sees ``torch`` only)."""
    body = built_in_bodies().get(op_name)
    return body.family if body is not None and body.source == source else None


def attach_lua_bodies() -> list[str]:
    """Attach each built-in body to its op as FLuaCompute; returns the op names."""
    for name, body in built_in_bodies().items():
        Op.get(name).set_attr("FLuaCompute", body.source, overwrite=True)
    return list(built_in_bodies())
