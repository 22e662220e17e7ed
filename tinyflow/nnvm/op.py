"""The operator registry, column-wise as in NNVM.

An op is declared once by name with :func:`register_op`; any module may later add an attribute
to it (``register_op("exp").set_attr("FLuaCompute", source)`` attaches the Lua body).  Attribute
values are stored per attribute name (a column), so ``Op.get_attr("FGradient")`` is a lookup
table from op to rule.  The attributes and their signatures are documented in
:mod:`tinyflow.nnvm.attrs`.
"""
from __future__ import annotations

from typing import ClassVar

__all__ = ["Op", "list_ops", "register_op"]


class Op:
    """A registered operator: a name, a description, input/output counts and attributes.

    Instances are created by :func:`register_op` only; there is one per name.
    """

    # The registry itself: name -> Op and attribute name -> {Op: value}.
    _registry: ClassVar[dict[str, Op]] = {}
    _columns: ClassVar[dict[str, dict[Op, object]]] = {}

    def __init__(self, name: str):
        self.name = name
        self.description = ""
        self._num_inputs: int | object = 1
        self._num_outputs: int | object = 1

    def __repr__(self) -> str:
        return f"Op({self.name!r})"

    # -- declaration, chainable ------------------------------------------------------------
    def describe(self, text: str) -> Op:
        """Set the op's documentation text."""
        self.description = text
        return self

    def set_num_inputs(self, n) -> Op:
        """Set the input count: an int, or a function ``attrs -> int``."""
        self._num_inputs = n
        return self

    def set_num_outputs(self, n) -> Op:
        """Set the output count: an int, or a function ``attrs -> int``."""
        self._num_outputs = n
        return self

    def set_attr(self, key: str, value, overwrite: bool = False) -> Op:
        """Attach attribute ``key`` to this op.

        Setting an attribute twice is an error unless ``overwrite=True``, so two modules cannot
        silently fight over one op.
        """
        column = Op._columns.setdefault(key, {})
        if self in column and not overwrite:
            raise ValueError(f"attribute {key} of op {self.name} is already set")
        column[self] = value
        return self

    # -- queries ---------------------------------------------------------------------------
    def num_inputs(self, attrs: dict) -> int:
        n = self._num_inputs
        return n(attrs) if callable(n) else n

    def num_outputs(self, attrs: dict) -> int:
        n = self._num_outputs
        return n(attrs) if callable(n) else n

    def attr(self, key: str, default=None):
        """The value of attribute ``key`` for this op, or ``default``."""
        return Op._columns.get(key, {}).get(self, default)

    @staticmethod
    def get(name: str) -> Op:
        """The op registered under ``name``; ``KeyError`` naming it when there is none."""
        try:
            return Op._registry[name]
        except KeyError:
            raise KeyError(f"no operator named {name!r} is registered") from None

    @staticmethod
    def with_attr(key: str, value) -> Op:
        """The one op whose attribute ``key`` equals ``value`` (the op a pass builds for a role:
        ``Op.with_attr("TGradientRole", "sum")``); ``KeyError`` when none or several have it."""
        found = [op for op, v in Op._columns.get(key, {}).items() if v == value]
        if len(found) != 1:
            raise KeyError(f"{len(found)} operators have {key} = {value!r}, not one")
        return found[0]

    @staticmethod
    def get_attr(key: str) -> dict[Op, object]:
        """The whole column of attribute ``key``, as a new dict ``{op: value}`` (changing it
        does not change the registry)."""
        return dict(Op._columns.get(key, {}))


def register_op(name: str) -> Op:
    """Register op ``name`` (or return it if it exists) so attributes can be chained on it.

    Right after registration the op is callable as ``tinyflow.nnvm.symbol.<name>``.
    """
    op = Op._registry.get(name)
    if op is None:
        op = Op._registry[name] = Op(name)
    return op


def list_ops() -> list[str]:
    """Names of all registered ops, sorted."""
    return sorted(Op._registry)
