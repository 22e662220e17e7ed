"""TensorFlow's shape checks as an op is made: ``tf.matmul`` of [3, 4] and [5, 6], or of a
[None, 4] placeholder and [5, 6], raises ValueError (our ShapeError) where the op is built,
naming it and its inputs' static shapes, not at run.

An unknown dim stands for any value: the op's FInferShape runs with the unknown dims set to two
stand-ins (the dims they change are unknown in what it records of the outputs), and where it
refuses them, with other values for one or two unknown dims (1..16, the known dims, the
quotients that equal sizes need): the op is refused only when none fits (with more unknown
dims, not at all), and what it records is what every fitting value gives (a concat of [?, 3]
and [4, 5] on axis 1: (4, 8)).  The InferShape pass still checks the whole graph at bind.
"""
from __future__ import annotations

import itertools
import math

from .errors import ShapeError
from .graph import NodeEntry
from .tensor_shape import _STAND_INS

__all__ = ["check_shapes"]


def _known_dims(entry: NodeEntry):
    """What is known of ``entry``'s shape before anything is fed: a tuple whose unknown dims
    are None (``(None, 4)`` for a ``[None, 4]`` placeholder), or None for an unknown rank."""
    node = entry.node
    if node.op is None:
        declared = node.attrs.get("shape")
        if declared is None:
            return None
        return tuple(None if d is None or d < 0 else int(d) for d in declared)
    graph = node.graph
    known = None if entry in graph.declared_shapes else graph.entry_shapes.get(entry)
    hint = graph.shape_hints.get(entry, graph.declared_shapes.get(entry))
    if hint is None or hint.ndims is None:
        return known
    if known is None or len(known) != hint.ndims:
        return tuple(hint.as_list())
    return tuple(d if d is not None else h for d, h in zip(known, hint.as_list()))


def _dims_str(shape) -> str:
    return "?" if shape is None else "(" + ", ".join(
        "?" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _try_rule(rule, node, in_shapes):
    """The rule's output shapes, the ShapeError it raised, or None (it needs more than it
    has here: bind says)."""
    try:
        return list(rule(node.attrs, list(in_shapes), [None] * node.num_outputs())[1] or ())
    except ShapeError as err:
        return err
    except Exception:  # noqa: BLE001
        return None


def _filled(dims, unknown, values):
    """``dims`` with the unknown dims (positions ``unknown``) set to ``values``."""
    filled = [list(d) if d is not None else None for d in dims]
    for (i, j), value in zip(unknown, values):
        filled[i][j] = value
    return [tuple(d) if d is not None else None for d in filled]


def _candidates(node, dims) -> list:
    """Values to try for an unknown dim: 1..16, 720720 (their common multiple), each known dim
    and attr int, and for the products of each input's known dims and of each attr's ints,
    one over the other's common part (what a reshape's equal sizes need)."""
    attr_ints = [tuple(v) for v in node.attrs.values() if isinstance(v, (tuple, list))
                 and v and all(isinstance(d, int) and d > 0 for d in v)]
    products = [math.prod(d for d in shape if d is not None) for shape in dims if shape]
    products += [math.prod(ints) for ints in attr_ints]
    values = set(range(1, 17)) | {720720} | {d for ints in attr_ints for d in ints}
    values |= {d for shape in dims if shape for d in shape if d is not None}
    values |= {b // math.gcd(a, b) for a in products for b in products if a and b}
    return sorted(values)


def _fitting(rule, node, dims, unknown):
    """What the rule gives for each combination of candidate values of one or two unknown dims
    that it accepts (None where it needs more than it has); more unknown dims: None (a search
    too wide, assumed to fit)."""
    if len(unknown) > 2:
        return None
    tries = itertools.product(_candidates(node, dims), repeat=len(unknown))
    runs = (_try_rule(rule, node, _filled(dims, unknown, values)) for values in tries)
    return [r for r in runs if not isinstance(r, ShapeError)]


def _unknown(dims) -> list:
    """``(input, axis)`` of each unknown dim of ``dims`` (inputs of unknown rank have none)."""
    return [(i, j) for i, shape in enumerate(dims) if shape is not None
            for j, d in enumerate(shape) if d is None]


def _runs(rule, node, dims):
    """The rule's outputs for the values the unknown dims can take, and the stand-ins' error:
    every unknown dim one stand-in, then the other (one run when no dim is unknown); where the
    rule refuses them, what each fitting value gives (:func:`_fitting`; [] where none fits)."""
    unknown = _unknown(dims)
    runs = [_try_rule(rule, node, _filled(dims, unknown, [v] * len(unknown)))
            for v in (_STAND_INS if unknown else _STAND_INS[:1])]
    error = next((r for r in runs if isinstance(r, ShapeError)), None)
    if error is not None:  # the unknown dims can take only some values: those that fit
        runs = _fitting(rule, node, dims, unknown) if unknown else []
    return runs, error


def check_shapes(node) -> None:
    """Raise a shape mismatch where the op is made, as TensorFlow does (``matmul`` of [3, 4]
    and [5, 6], or of [None, 4] and [5, 6]): the op's FInferShape on what is known of its
    inputs' shapes, an unknown dim standing for any value, so the rule refuses only what no
    feed could make fit; the InferShape pass still checks the whole graph when it is bound."""
    rule = node.op.attr("FInferShape")
    dims = [_known_dims(e) for e in node.inputs]
    if rule is None or (dims and all(s is None for s in dims)):
        return
    if _unknown(dims) and node.op.attr("TSubgraphs"):
        return  # a loop's rule infers its body: bind decides
    runs, error = _runs(rule, node, dims)
    if runs == []:  # refused: no values of the unknown dims fit
        message = str(error).replace(str(_STAND_INS[0]), "?")  # the stand-in of a ? dim
        raise ShapeError(f"{node.describe()}: {message}; input shapes "
                         f"{', '.join(_dims_str(s) for s in dims)}") from None
    checked = node.op.attr("FShapeCheckedInputs", lambda d: ())(dims)
    if checked:  # TF's shape function only checks these inputs: no dim of theirs is recorded
        runs, _ = _runs(rule, node, [None if i in checked else d for i, d in enumerate(dims)])
    if not runs or any(r is None for r in runs):
        return
    # dims the values tried changed are unknown: [?, 3] concat [4, 5] on axis 1 is (4, 8), as
    # TensorFlow's shape functions merge an unknown dim with the known one it must equal
    for index, shapes in enumerate(zip(*runs)):
        if all(s is not None for s in shapes) and len({len(s) for s in shapes}) == 1:
            node.graph.entry_shapes[NodeEntry(node, index)] = tuple(
                a if all(s[k] == a for s in shapes) else None
                for k, a in enumerate(shapes[0]))
