"""``tf.while_loop`` (TensorFlow 1.15's semantics) as one graph node holding its cond and body.

The loop is TensorFlow 2's functional While: ``cond`` and ``body`` are called once, on
placeholders of the loop variables' structure, and what they build becomes two subgraphs of
one ``while_loop`` node (:mod:`tinyflow.ops.loop`).  Tensors of the enclosing graph they read
become extra inputs of the node (captures), and so do variables read inside; a variable the
body writes is written by the session every iteration.  At run time the node's Lua body loops
over the body's closures inside one call into Lua (``docs/control_flow.md``).
"""
from __future__ import annotations

from ..nnvm.subgraph import Subgraph, close_over, placeholder_like
from ..nnvm.symbol import NodeEntry, Symbol, create_op, current_context
from ..nnvm.tensor_shape import TensorShape
from .api import _tensor
from .nest import describe_structure, flatten, pack, structure_of
from .tensor_array import TensorArray
from .tf_nest import assert_same_structure

__all__ = ["while_loop"]


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None,
               return_same_structure=False):
    """Repeat ``body`` while ``cond`` is true, as TensorFlow 1.15's ``tf.while_loop``.

    Parameters
    ----------
    cond : callable
        ``cond(*loop_vars)`` -> a scalar bool tensor.
    body : callable
        ``body(*loop_vars)`` -> the next loop variables, of ``loop_vars``' structure (a list
        or tuple of one element, or one tensor, for a single loop variable).
    loop_vars : tensor, or (nested) list, tuple, namedtuple or dict of tensors
        The first values (numbers become constants).  A single tensor, or one not in a list,
        is passed to ``cond`` and ``body`` as their one argument.
    shape_invariants : structure of TensorShape, optional
        Per loop variable, the shape it may take (None where a dimension may vary).  Without
        one, a loop variable whose static shape an iteration changes is a ValueError.  A
        shape that changes while the loop runs is then known once it ran: the ops reading it
        are bound at it (``docs/control_flow.md``).  A ``dynamic_size`` TensorArray among the
        loop variables grows at the indices the body writes (its shape invariant is ignored).
    parallel_iterations, swap_memory : int, bool
        Accepted; TinyFlow runs one iteration after the other, in memory.
    back_prop : bool
        False: no gradient flows through the loop.
    maximum_iterations : int, optional
        Stop after that many iterations even if ``cond`` is still true.
    name : str, optional
        The name scope (default ``"while"``).
    return_same_structure : bool
        False (TF 1.15's default): a single loop variable comes back as a tensor.

    Returns
    -------
    The loop variables after the last iteration, in ``loop_vars``' structure.

    Raises
    ------
    TypeError
        ``cond`` or ``body`` not callable, ``cond`` not giving a bool, a loop variable's dtype
        changed by the body.
    ValueError
        No loop variables, ``cond`` not giving a scalar, ``body`` giving another structure, or
        a loop variable's shape changed without a shape invariant allowing it (naming it).
    """
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    if isinstance(maximum_iterations, Symbol):  # TF 1.15's way: a counter beside the loop
        return _counted(cond, body, loop_vars, shape_invariants, back_prop,
                        maximum_iterations, name, return_same_structure)
    if any(isinstance(v, TensorArray) and v.dynamic_size for v in flatten(loop_vars)):
        return _growing(cond, body, loop_vars, shape_invariants,
                        {"back_prop": back_prop, "maximum_iterations": maximum_iterations,
                         "name": name}, return_same_structure)
    if maximum_iterations is not None:
        body = _counted_body(body, loop_vars, return_same_structure)
    protos = [v if isinstance(v, TensorArray) else None for v in flatten(loop_vars)]
    leaves = [v._buffer if isinstance(v, TensorArray) else _tensor(v)
              for v in flatten(loop_vars)]  # None: an array whose element shape is unknown
    if not leaves:
        raise ValueError("No loop variables provided")
    invariants = _invariants(loop_vars, leaves, shape_invariants)
    limit = -1 if maximum_iterations is None else _limit(maximum_iterations)
    graph = current_context()
    with graph.name_scope(name or "while"):
        outputs = _build(graph, cond, body, loop_vars, (leaves, protos), invariants, limit,
                         back_prop)
    result = pack(loop_vars, iter(outputs)) if isinstance(loop_vars, (list, tuple, dict)) \
        else outputs[0]
    if not return_same_structure and len(outputs) == 1:
        return outputs[0]
    return result


def _counted(cond, body, loop_vars, shape_invariants, back_prop, limit, name, same):
    """A loop stopped by an int scalar tensor: a counter as one more loop variable, and cond
    ``counter < limit and cond(...)``, as TensorFlow 1.15 builds it."""
    def args(values):
        return list(values) if isinstance(loop_vars, (list, tuple, dict)) else [values]

    def counted_cond(counter, values):
        return create_op("logical_and", counter < limit, cond(*args(values)))

    checked = _counted_body(body, loop_vars, same)

    def counted_body(counter, values):
        return counter + 1, checked(*args(values))
    invariants = None if shape_invariants is None else (TensorShape([]), shape_invariants)
    counter = create_op("cast", _tensor(0), dtype=limit.dtype.name)
    _, result = while_loop(counted_cond, counted_body, (counter, loop_vars), invariants,
                           back_prop=back_prop, name=name, return_same_structure=True)
    flat = flatten(result)
    return flat[0] if not same and len(flat) == 1 else result


def _counted_body(body, loop_vars, same):
    """``body`` checked as TF 1.15 checks it under ``maximum_iterations``, which nests the loop
    variables beside a counter: list and tuple told apart at every level (TypeError), and a
    single loop variable (unless ``same``) the body's one result, not a sequence of it."""
    def checked(*args):
        result = body(*args)
        if not isinstance(loop_vars, (list, tuple, dict)):  # one given alone (TinyFlow's)
            return result[0] if isinstance(result, (list, tuple)) else result
        if not same and len(loop_vars) == 1 and not isinstance(loop_vars, dict):
            assert_same_structure(loop_vars[0], result)
            return type(loop_vars)([result])
        assert_same_structure(loop_vars, result)
        return result
    return checked


def _growing(cond, body, loop_vars, shape_invariants, options, same):
    """A loop over dynamic_size TensorArrays, each as two loop variables: its elements, whose
    capacity grows at indices found at run time (any shape: a shape known once the loop ran),
    and the count of rows written (TensorArray._growing)."""
    leaves = flatten(loop_vars)
    arrays = [v if isinstance(v, TensorArray) and v.dynamic_size else None for v in leaves]
    given = [None] * len(leaves) if shape_invariants is None else \
        [leaf.shape for leaf in flatten(_as_leaf_structure(shape_invariants))]
    shapes = [(TensorShape(None), TensorShape([])) if array is not None else
              TensorShape(inv) if inv is not None else _tensor(v).get_shape()
              for v, array, inv in zip(leaves, arrays, given)]
    element_shapes = [None] * len(leaves)  # the arrays' after the body wrote them

    def split(values):
        return pack(loop_vars, iter([(v._buffer, v.size()) if a is not None else v
                                     for v, a in zip(flatten(values), arrays)]))

    def join(args):
        flat = iter(flatten(list(args)))
        values = pack(loop_vars, iter([a._growing(next(flat), next(flat)) if a is not None
                                       else next(flat) for a in arrays]))
        return list(values) if isinstance(loop_vars, (list, tuple, dict)) else [values]

    def grown_body(*args):
        result = body(*join(args))
        if not isinstance(loop_vars, (list, tuple, dict)) and isinstance(result, (list, tuple)):
            result = result[0]
        element_shapes[:] = [v.element_shape if isinstance(v, TensorArray) else None
                             for v in flatten(result)]
        return split(result)

    first = pack(loop_vars, iter([(a._first_elements(), a.size()) if a is not None else v
                                  for v, a in zip(leaves, arrays)]))
    result = while_loop(lambda *args: cond(*join(args)), grown_body, first,
                        pack(loop_vars, iter(shapes)), return_same_structure=True, **options)
    flat = iter(flatten(result))
    outputs = [a._growing(next(flat), next(flat), shape) if a is not None else next(flat)
               for a, shape in zip(arrays, element_shapes)]
    if not same and len(outputs) == 1:
        return outputs[0]
    return pack(loop_vars, iter(outputs))


def _limit(maximum_iterations) -> int:
    limit = int(maximum_iterations)
    if limit < 0:
        raise ValueError(f"maximum_iterations must be non-negative, got {limit}")
    return limit


def _invariants(loop_vars, leaves, shape_invariants) -> list:
    """Per leaf, its TensorShape invariant or None; checked against the first values."""
    if shape_invariants is None:
        return [None] * len(leaves)
    if isinstance(loop_vars, (list, tuple, dict)) and structure_of(
            _as_leaf_structure(shape_invariants)) != structure_of(loop_vars):
        raise ValueError("The two structures don't have the same nested structure: "
                         f"loop_vars {describe_structure(loop_vars)} and shape_invariants "
                         f"{describe_structure(_as_leaf_structure(shape_invariants))}")
    shapes = [TensorShape(s.shape) for s in flatten(_as_leaf_structure(shape_invariants))]
    for leaf, shape in zip(leaves, shapes):
        if leaf is None:
            continue
        if not leaf.get_shape().is_compatible_with(shape) or not _at_most(leaf.get_shape(),
                                                                           shape):
            raise ValueError(f"The shape invariant specified for {leaf.name} is not compatible "
                             f"with the initial shape of the loop variable. It enters the loop "
                             f"with shape {leaf.get_shape()}, but the specified shape "
                             f"invariant is {shape}.")
    return shapes


def _as_leaf_structure(invariants):
    """Shape invariants with each TensorShape (or list of dims) as one leaf."""
    if isinstance(invariants, TensorShape) or invariants is None:
        return _Leaf(invariants)
    if isinstance(invariants, dict):
        return type(invariants)((k, _as_leaf_structure(v)) for k, v in invariants.items())
    if isinstance(invariants, (list, tuple)):
        if all(isinstance(d, int) or d is None for d in invariants):  # a shape as a list
            return _Leaf(invariants)
        items = [_as_leaf_structure(v) for v in invariants]
        return type(invariants)(*items) if hasattr(invariants, "_fields") else \
            type(invariants)(items)
    return _Leaf(invariants)


class _Leaf:
    """A shape invariant, kept whole by the structure helpers."""

    def __init__(self, shape):
        self.shape = shape


def _at_most(shape: TensorShape, invariant: TensorShape) -> bool:
    """TF's _ShapeLessThanOrEqual: ``shape`` at least as specific as ``invariant``."""
    if invariant.ndims is None:
        return True
    if shape.ndims != invariant.ndims:
        return False
    return all(i is None or s == i for s, i in zip(shape.as_list(), invariant.as_list()))


def _build(graph, cond, body, loop_vars, values, invariants, limit, back_prop) -> list:
    leaves, protos = values
    placeholders = [placeholder_like(graph, "loop_var", _shape_list(
        inv if inv is not None else leaf.get_shape() if leaf is not None else TensorShape(None)),
        (leaf if leaf is not None else proto).dtype.name)
        for leaf, inv, proto in zip(leaves, invariants, protos)]
    graph.loop_inputs.update(placeholders)  # a slice's bound may not follow them (indexing)
    symbols = [Symbol([NodeEntry(p, 0)]) for p in placeholders]
    symbols = [s if proto is None else proto._like(s, proto.element_shape)
               for s, proto in zip(symbols, protos)]
    args = pack(loop_vars, iter(symbols)) if isinstance(loop_vars, (list, tuple, dict)) \
        else symbols[0]
    call_args = list(args) if isinstance(args, (list, tuple, dict)) else [args]
    before = set(graph.nodes_by_name.values())
    pred = _condition(cond(*call_args))
    result = body(*call_args)
    outs, out_protos = _body_outputs(result, call_args, leaves, protos, invariants)
    made = set(graph.nodes_by_name.values()) - before
    captures: dict = {}
    cond_out = close_over(graph, placeholders, [pred.outputs[0]], made, captures, _static)
    probes = [_written_value(out) if leaf is None else None
              for leaf, out in zip(leaves, out_protos)]
    body_out = close_over(graph, placeholders, [o.outputs[0] for o in outs] + [
        p.outputs[0] for p in probes if p is not None], made, captures, _static)
    probe_out = iter(body_out[len(outs):])
    body_out = body_out[:len(outs)]
    inputs = tuple(placeholders) + tuple(captures.values())
    known = [(i, leaf) for i, leaf in enumerate(leaves) if leaf is not None] + [
        (len(leaves) + k, Symbol([e])) for k, e in enumerate(captures)]
    leaves = [leaf if leaf is not None else  # an array the body writes first
              out._zeros(out.element_shape) if out.element_shape.is_fully_defined() else
              out._zeros_before_loop(Subgraph(inputs, (next(probe_out),)), known, len(inputs))
              for leaf, out, probe in zip(leaves, out_protos, probes)]
    node = create_op(
        "while_loop", *leaves, *[Symbol([e]) for e in captures],
        cond=Subgraph(inputs, tuple(cond_out)), body=Subgraph(inputs, tuple(body_out)),
        num_vars=len(leaves), num_captured=len(captures), maximum_iterations=limit,
        back_prop=bool(back_prop), names=tuple(f"'{leaf.name}'" for leaf in leaves),
        invariant=tuple(inv is not None for inv in invariants), name="while")
    results = [node[i] for i in range(len(leaves))] if len(leaves) > 1 else [node]
    for result, inv in zip(results, invariants):
        if inv is not None:  # TF's static shape after the loop: the invariant
            graph.declared_shapes[result.outputs[0]] = inv
    return [r if proto is None else proto._like(r, proto.element_shape)
            for r, proto in zip(results, out_protos)]


def _written_value(array: TensorArray) -> Symbol:
    """The element a loop's body last wrote into ``array`` (whose shape its elements take)."""
    if array._value_written is None:
        raise ValueError(f"tf.while_loop: the TensorArray '{array._name}' enters the loop "
                         f"without an element shape, and the body does not write one element "
                         f"into it (give element_shape)")
    return array._value_written


def _shape_list(shape: TensorShape):
    return None if shape.ndims is None else shape.as_list()


def _static(entry: NodeEntry):
    symbol = Symbol([entry])
    return _shape_list(symbol.get_shape()), symbol.dtype.name


def _condition(pred) -> Symbol:
    """What cond gave, checked: a bool scalar tensor (TF's LoopCond input)."""
    if not isinstance(pred, Symbol):
        pred = _tensor(pred)
    if pred.dtype.name != "bool":
        raise TypeError(f"tf.while_loop: cond must return a bool tensor, got {pred.dtype.name} "
                        f"('{pred.name}') (the input of TF's LoopCond)")
    if pred.get_shape().ndims not in (None, 0):
        raise ValueError(f"tf.while_loop: cond must return a scalar, got shape "
                         f"{pred.get_shape()} ('{pred.name}')")
    return pred


def _body_outputs(result, call_args, leaves, protos, invariants):
    """The body's results as one fresh tensor per loop variable (and the TensorArrays it gave,
    None for tensors), checked as TF checks them: the structure, each dtype, each static
    shape against the loop variable's invariant."""
    if not isinstance(result, (list, tuple, dict)):
        result = [result]
    assert_same_structure(call_args, list(result))  # TF 1.15's: list vs tuple only outermost
    outs, out_protos = [], []
    for leaf, proto, inv, value in zip(leaves, protos, invariants, flatten(result)):
        if (proto is None) != (not isinstance(value, TensorArray)):
            raise TypeError(f"tf.while_loop: body returned {type(value).__name__} for a loop "
                            f"variable that enters the loop as "
                            f"{'a TensorArray' if proto is not None else 'a tensor'}")
        out = value._stacked("return from a loop body") if proto is not None else _tensor(value)
        out_protos.append(value if proto is not None else None)
        dtype = (leaf if leaf is not None else proto).dtype.name
        if out.dtype.name != dtype:
            raise TypeError(f"tf.while_loop: body returned {out.dtype.name} for the loop "
                            f"variable {leaf.name if leaf is not None else 'TensorArray'}, "
                            f"which enters the loop as {dtype}")
        wanted = inv if inv is not None else leaf.get_shape() if leaf is not None else \
            TensorShape(None)
        if not _at_most(out.get_shape(), wanted):
            raise ValueError(
                f"Input tensor '{leaf.name}' enters the loop with shape {wanted}, but has "
                f"shape {out.get_shape()} after one iteration. To allow the shape to vary "
                f"across iterations, use the `shape_invariants` argument of tf.while_loop to "
                f"specify a less-specific shape.")
        if out.node.op is None or out.node.op.attr("FMutateInputs"):
            out = create_op("copy", out, name="body_output")  # a fresh tensor per iteration
        outs.append(out)
    return outs, out_protos


def branch_node(pred: Symbol, true_leaves: list, false_leaves: list, made: set) -> list:
    """tf.cond's outputs as one ``if`` node holding each branch as a subgraph, so only the
    taken branch runs (what the branches made: ``made``; what they read outside it becomes
    the node's inputs, written variables stay themselves)."""
    graph = current_context()
    branches = []
    for leaves in (true_leaves, false_leaves):
        fresh = []
        for leaf in leaves:
            if leaf.node not in made or leaf.node.op is None:  # a fresh tensor per run
                leaf = create_op("copy", leaf, name="branch_output")
                made.add(leaf.node)
            fresh.append(leaf.outputs[0])
        branches.append(fresh)
    captures: dict = {}
    outputs = [close_over(graph, [], fresh, made, captures, _static) for fresh in branches]
    inputs = (placeholder_like(graph, "pred", [], "bool"),) + tuple(captures.values())
    node = create_op("if", pred, *[Symbol([e]) for e in captures],
                     then_branch=Subgraph(inputs, outputs[0]),
                     else_branch=Subgraph(inputs, outputs[1]), num_captured=len(captures),
                     Tout=tuple(leaf.dtype.name for leaf in true_leaves), name="If")
    return [node[i] for i in range(len(true_leaves))] if len(true_leaves) > 1 else [node]
