"""The operator bridge: Lua bodies for the registered ops, run on PyTorch tensors.

Each built-in op's compute body is the file ``tinyflow/lua_ops/ops/<op name>.lua``; importing
this package attaches every file to the op of that name as its ``FLuaCompute`` attribute.
Ops whose body is another op's, word for word, are listed in :data:`SHARED_BODIES`.
Importing it does not start Lua or import torch: the runtime (:mod:`.runtime`) starts on first
use.
"""
from __future__ import annotations

from importlib import resources

from ..nnvm.op import Op

__all__ = ["SHARED_BODIES", "attach_lua_bodies", "read_body"]

# op -> the op whose body file it runs (views of the same elements: only the shape differs;
# concat's and split's bodies serve the ops that lay out or cut apart pieces the same way;
# conv2d's and linear's run _fused_conv2d and _fused_linear, the activation in kwarg)
SHARED_BODIES = {"reshape_like": "reshape", "flatten": "reshape",
                 "expand_dims": "reshape", "squeeze": "reshape", "stack": "concat",
                 "unstack": "split", "_concat_backward": "split", "fill_like": "fill",
                 "_fused_conv2d": "conv2d", "_fused_linear": "linear"}


def read_body(op_name: str) -> str:
    """The Lua source of a built-in op body."""
    return resources.files(__package__).joinpath("ops", f"{op_name}.lua").read_text()


def attach_lua_bodies() -> list[str]:
    """Attach ``ops/<name>.lua`` to op ``<name>`` as FLuaCompute; returns the op names."""
    names = []
    for entry in sorted(resources.files(__package__).joinpath("ops").iterdir(),
                        key=lambda e: e.name):
        if entry.name.endswith(".lua"):
            name = entry.name[:-len(".lua")]
            Op.get(name).set_attr("FLuaCompute", entry.read_text(), overwrite=True)
            names.append(name)
    for name, body_of in SHARED_BODIES.items():
        Op.get(name).set_attr("FLuaCompute", read_body(body_of), overwrite=True)
        names.append(name)
    return names
