"""InferShape and InferType: fill per-entry ``shape`` / ``dtype`` by running each op's rule.

Both run forward and backward sweeps until nothing changes, so a shape can flow from an op's
output back to its inputs (``assign(var, zeros([3, 4]))`` gives ``var`` its shape).
"""
from __future__ import annotations

from ..attrs import same_type, shape_str
from ..dtypes import TORCH_NAMES, as_dtype
from ..errors import DTypeError, GraphError, RunShapeError, ShapeError
from ..graph import Graph, register_pass
from ..symbol import NodeEntry

__all__ = ["DTYPE_SIZE", "infer_shape", "infer_type"]

DTYPE_SIZE = {name: as_dtype(name).size for name in TORCH_NAMES}  # bytes per element


def _known_inputs(graph: Graph, key: str, normalize) -> dict[int, object]:
    """Map node id -> value from ``graph.attrs[key]`` (keyed by Node or by node name)."""
    indexed = graph.indexed
    by_name = {indexed.nodes[i].name: i for i in indexed.input_nodes}
    known = {}
    for k, value in graph.attrs.get(key, {}).items():
        nid = indexed.node_id.get(k) if not isinstance(k, str) else by_name.get(k)
        if nid is not None and value is not None:
            known[nid] = normalize(value)
    return known


def _infer(graph: Graph, key: str, attr_name: str, default_rule, normalize, fmt, initial,
           hints=None):
    indexed = graph.indexed
    values = [None] * indexed.num_entries
    for nid in indexed.input_nodes:
        init = initial(indexed.nodes[nid])
        if init is not None:
            values[indexed.entry_id((nid, 0))] = init
    for nid, value in _known_inputs(graph, key, normalize).items():
        values[indexed.entry_id((nid, 0))] = value
    for eid, value in (hints or {}).items():
        values[eid] = value
    order = [i for i, n in enumerate(indexed.nodes) if n.op is not None]
    sweeps = [order, order[::-1]]
    changed, rounds = True, 0
    while changed:
        changed = False
        rounds += 1
        for nid in sweeps[(rounds + 1) % 2]:
            changed |= _apply_rule(indexed, nid, values, attr_name, default_rule, fmt)
        if rounds > 2 * len(order) + 4:
            raise GraphError(f"{attr_name} did not converge")
    return values


def _apply_rule(indexed, nid, values, attr_name, default_rule, fmt) -> bool:
    node = indexed.nodes[nid]
    rule = node.op.attr(attr_name, default_rule)
    in_ids = indexed.input_entries[nid]
    out_ids = [indexed.entry_rptr[nid] + i for i in range(node.num_outputs())]
    ins, outs = [values[e] for e in in_ids], [values[e] for e in out_ids]
    # a rule refusing shapes: TF's op raises InvalidArgumentError as it runs (RunShapeError is
    # both); its ValueError where the graph is built
    what, error = ("shapes", RunShapeError) if attr_name == "FInferShape" else ("types",
                                                                               DTypeError)
    if rule is None:
        if None in outs:
            return False
        raise GraphError(f"{node.describe()} has no {attr_name} rule")
    try:
        new_ins, new_outs = rule(node.attrs, list(ins), list(outs))
    except (ShapeError, DTypeError) as err:
        raise (error if type(err) is ShapeError else type(err))(
            f"{node.describe()}: {err}; input {what} {', '.join(fmt(s) for s in ins)}") from None
    except Exception as err:  # a bug in a (user's) rule: still say which node it was running on
        raise GraphError(
            f"{node.describe()}: its {attr_name} rule raised {type(err).__name__}: {err}; "
            f"input {what} {', '.join(fmt(s) for s in ins)}") from err
    changed = False
    for ids, old, new in ((in_ids, ins, new_ins), (out_ids, outs, new_outs)):
        for eid, before, after in zip(ids, old, new):
            if after is None:
                continue
            if before is not None and before != after:
                raise error(
                    f"{node.describe()}: inferred {fmt(after)} for an entry known to be "
                    f"{fmt(before)}; input {what} {', '.join(fmt(s) for s in ins)}")
            if values[eid] is None:
                values[eid] = after
                changed = True
            elif values[eid] != after:
                raise error(f"{node.describe()}: conflicting {fmt(values[eid])} and "
                            f"{fmt(after)} for one entry; input {what} "
                            f"{', '.join(fmt(s) for s in ins)}")
    return changed


def _declared_shape(node):
    shape = node.attrs.get("shape")
    if shape is None or any(d is None or d < 0 for d in shape):
        return None
    return tuple(int(d) for d in shape)


def _shape_hints(indexed) -> dict:
    """``{entry id: shape}`` of op outputs given a fully known shape by ``tensor.set_shape``
    (a ``tf.py_func``'s output, whose op cannot know it)."""
    hints = {}
    for nid, node in enumerate(indexed.nodes):
        known = getattr(node.graph, "shape_hints", None) if node.op is not None else None
        for index in range(node.num_outputs() if known else 0):
            hint = known.get(NodeEntry(node, index))
            if hint is not None and hint.is_fully_defined():
                hints[indexed.entry_id((nid, index))] = tuple(hint.as_list())
    return hints


@register_pass("InferShape", provides=("shape", "shape_num_unknown_nodes"))
def infer_shape(graph: Graph) -> Graph:
    """Infer every entry's shape.

    Reads ``graph.attrs["shape_inputs"]`` (``{variable node or name: shape}``, optional), the
    fully known ``shape`` attribute of variables and the fully known shapes ``set_shape`` gave
    op outputs; provides ``shape`` (a list indexed by entry id,
    ``None`` where unknown) and ``shape_num_unknown_nodes``.
    """
    shapes = _infer(graph, "shape_inputs", "FInferShape", None,
                    lambda s: tuple(int(d) for d in s), shape_str, _declared_shape,
                    _shape_hints(graph.indexed))
    return graph.with_attrs(shape=shapes,
                            shape_num_unknown_nodes=sum(s is None for s in shapes))


@register_pass("InferType", provides=("dtype", "dtype_num_unknown_nodes"))
def infer_type(graph: Graph) -> Graph:
    """Infer every entry's dtype name; variables default to their ``dtype`` attribute or float32.

    Reads ``graph.attrs["dtype_inputs"]`` (optional), provides ``dtype``.
    """
    dtypes = _infer(graph, "dtype_inputs", "FInferType", same_type, str, str,
                    lambda node: node.attrs.get("dtype", "float32"))
    return graph.with_attrs(dtype=dtypes, dtype_num_unknown_nodes=sum(t is None for t in dtypes))
