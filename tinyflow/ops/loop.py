"""Loops as one node holding subgraphs: ``while_loop`` and its gradient ``_while_loop_backward``
(TensorFlow 2's functional While; ``tf.while_loop`` in :mod:`tinyflow.frontend.loops`).

``while_loop``
    inputs: the ``num_vars`` loop variables (flat), then the tensors its subgraphs capture;
    outputs: the loop variables after the last iteration.  Attributes ``cond`` and ``body``
    are :class:`~tinyflow.nnvm.subgraph.Subgraph` s over one input list (the node's inputs, by
    position): ``cond`` gives one bool scalar, ``body`` the next values of the loop variables.
    ``maximum_iterations`` (-1: none) stops it there; ``names`` (the loop variables' for
    errors), ``invariant`` (per variable, whether ``shape_invariants`` let its shape vary:
    when an iteration changes it, the output is sized when the loop runs, TShapeAtRunTime).
``_while_loop_backward``
    inputs: the forward's outputs (``num_vars``; their node's state holds the loop variables of
    every iteration: ``TStateOfInput`` 0), the captured tensors (``num_captured``), the
    gradients of the outputs; outputs: the gradients of the loop variables' first values, then
    of the captured tensors.  ``grad_body``: a subgraph over the body's inputs then the
    gradients of its outputs, giving the gradients of its inputs (one iteration's backward,
    with the body's forward in it).  ``kept`` (``TKeep``): a subgraph over the body's inputs
    whose outputs are the body's intermediates that ``grad_body``'s gradient nodes read (TF's
    stacks): the forward keeps them per iteration and ``grad_body`` is bound reading them
    instead of recomputing the body (a session's ``memory=`` policy recomputes instead).  With
    ``num_firsts`` (a loop with shape_invariants), the forward's first loop variables follow,
    read for their shapes only: a gradient of a variable whose shape varies has its first's.

Bodies: ``tinyflow/lua_ops/loop/<name>.lua``; what the executor gives them:
``tinyflow/executor/subgraphs.py``.
"""
from __future__ import annotations

from ..nnvm.attrs import inplace_first, no_gradient, shape_str
from ..nnvm.errors import GraphError, ShapeError
from ..nnvm.graph import Graph, apply_passes, rewrite
from ..nnvm.op import Op, register_op
from ..nnvm.subgraph import Subgraph, infer_shapes, placeholder_like
from ..nnvm.symbol import Node, NodeEntry, Symbol, create_op, current_context

__all__: list[str] = ["one_static_shape"]

FLOATS = ("float16", "bfloat16", "float32", "float64")


def _while_shape(attrs, in_shapes, out_shapes):
    """The loop variables keep their shapes: the body's outputs are inferred from its inputs'
    shapes, and a variable whose shape an iteration changes is an error unless its
    shape_invariants let it vary: then its shape after the loop is known once the loop ran
    (TShapeAtRunTime; the body is bound again per shapes the loop variables take)."""
    n = attrs["num_vars"]
    ins = [s if s is not None else o for s, o in zip(in_shapes[:n], out_shapes)]
    ins = ins + list(in_shapes[n:])
    if any(s is None for s in ins):
        return ins, list(out_shapes)
    body_out = infer_shapes(attrs["body"], ins)
    outs = list(ins[:n])
    for index, (before, after) in enumerate(zip(ins, body_out)):
        if after is None and attrs["invariant"][index]:  # the body sizes it as it runs
            outs[index] = None
        elif after is not None and tuple(after) != tuple(before):
            if not attrs["invariant"][index]:
                raise ShapeError(f"loop variable {attrs['names'][index]} enters the loop with "
                                 f"shape {shape_str(before)}, but has shape {shape_str(after)} "
                                 f"after one iteration (use shape_invariants to let it vary)")
            outs[index] = None  # sized by the loop when it runs
    return ins, outs


def _while_type(attrs, in_types, out_types):
    n = attrs["num_vars"]
    ins = [t or o for t, o in zip(in_types[:n], out_types)] + list(in_types[n:])
    return ins, ins[:n]


def _while_gradient(node, ograds):
    """One backward node: the body's gradient subgraph run over the kept iterations in
    reverse.  Integer loop variables and captures get no gradient."""
    n = node.attrs["num_vars"]
    if not node.attrs.get("back_prop", True):
        return [None] * len(node.inputs)
    body = node.attrs["body"]
    # a zero gradient carried through keeps its last shape: not for a variable whose shape varies
    varies = node.attrs.get("invariant") or [False] * n
    grad_body = _gradient_subgraph(body, n, {j for j in _zero_heads(body, n, ograds)
                                             if not varies[j]})
    captured = node.inputs[n:]
    # a loop variable whose shape may vary: its gradient has its first value's shape (read
    # for its shape only)
    firsts = node.inputs[:n] if any(node.attrs.get("invariant", ())) else []
    out = create_op("_while_loop_backward", *node.outputs, *captured, *ograds, *firsts,
                    grad_body=grad_body, kept=_kept_intermediates(body, grad_body),
                    num_vars=n, num_captured=len(captured), num_firsts=len(firsts),
                    name=f"{node.name}_grad")
    types = [p.attrs.get("dtype", "float32") for p in body.inputs]
    return [out[i] if types[i] in FLOATS else None for i in range(len(node.inputs))]


def _zero_heads(body: Subgraph, n: int, ograds) -> set:
    """The loop variables whose gradient is zero in every iteration: integer ones, and those
    whose output nothing reads (their ``ograds`` are the Gradient pass's zeros) and whose
    value reaches only outputs of such variables (a dynamic_rnn's output buffer when only its
    final state is used).  Their gradient is their head's, unchanged: zero."""
    depends = {p: {i} for i, p in enumerate(body.inputs)}  # node -> the inputs it depends on
    for member in body.nodes():
        if member.op is not None:
            depends[member] = set().union(*(depends.get(e.node, set()) for e in member.inputs))
    reaches = [{k for k, out in enumerate(body.outputs) if j in depends.get(out.node, ())}
               for j in range(n)]
    zero = {j for j in range(n) if body.inputs[j].attrs.get("dtype", "float32") not in FLOATS
            or _is_zeros(ograds[j])}
    while any(not reaches[j] <= zero for j in zero):
        zero = {j for j in zero if reaches[j] <= zero}
    return zero


def _is_zeros(symbol) -> bool:
    """Whether ``symbol`` is the Gradient pass's zeros for an output nothing reads."""
    op = symbol.outputs[0].node.op
    return op is not None and op.attr("TGradientRole") == "zero"


def _gradient_subgraph(body: Subgraph, n: int, zero: set) -> Subgraph:
    """``body``'s inputs and one gradient placeholder per loop variable in; the gradients of
    all the body's inputs out (zeros for those the outputs do not reach; the placeholder
    itself for those in ``zero``: the loop carries it through untouched)."""
    graph = current_context()
    heads, ys, head_grads = [], [], []
    for index, entry in enumerate(body.outputs):
        placeholder = body.inputs[index]
        dtype = placeholder.attrs.get("dtype", "float32")
        head = placeholder_like(graph, "grad_ys", placeholder.attrs.get("shape"), dtype)
        heads.append(head)
        if index not in zero:
            ys.append(entry)
            head_grads.append(Symbol([NodeEntry(head, 0)]))
    xs = [NodeEntry(p, 0) for p in body.inputs]
    if ys:  # a subgraph of its own: the control dependencies of a with block around do not
        with graph.control_dependencies(None):  # reach into it (TF's while loop's gradient)
            grads = apply_passes(Graph(ys, {"grad_xs": xs, "grad_ys_out_grad": head_grads,
                                            "grad_name_prefix": "while_grad/"}), ["Gradient"])
        outputs = list(grads.outputs)
    else:
        outputs = [create_op("zeros_like", Symbol([x])).outputs[0] for x in xs]
    for j in zero:
        outputs[j] = NodeEntry(heads[j], 0)
    return Subgraph(tuple(body.inputs) + tuple(heads), tuple(outputs))


def _kept_intermediates(body: Subgraph, grad_body: Subgraph) -> Subgraph:
    """The entries of ``body``'s ops that ``grad_body``'s gradient nodes read for their values
    (not those read for their shapes only: FIgnoreInputs), or that it gives out; as a subgraph
    over the body's inputs.  Kept by the forward, they spare the backward a recompute.  A loop
    inside the body runs again in ``grad_body``: its backward reads its iterations (its
    TStateOfInput), which only running it there records."""
    forward = set(body.nodes())
    kept = {}
    for node in grad_body.nodes():
        if node in forward or node.op is None:
            continue
        ignored = node.attr_list("FIgnoreInputs")
        state = node.op.attr("TStateOfInput")
        rerun = node.inputs[state].node if state is not None else None
        for position, entry in enumerate(node.inputs):
            if position not in ignored and entry.node in forward and \
                    entry.node.op is not None and entry.node is not rerun:
                kept.setdefault(entry, None)
    for entry in grad_body.outputs:
        if entry.node in forward and entry.node.op is not None:
            kept.setdefault(entry, None)
    return Subgraph(body.inputs, tuple(kept))


def _backward_shape(attrs, in_shapes, out_shapes):
    n, count = attrs["num_vars"], attrs["num_vars"] + attrs["num_captured"]
    known = list(in_shapes[count + n:] or in_shapes[:n]) + list(in_shapes[n:count])
    return list(in_shapes), [s if s is not None else o for s, o in zip(known, out_shapes)]


def _backward_type(attrs, in_types, out_types):
    count = attrs["num_vars"] + attrs["num_captured"]
    return list(in_types), [t or o for t, o in zip(in_types[:count], out_types)]


def _backward_donated(attrs):
    """The loop variables and their gradients: reloaded every iteration (the captured tensors
    once)."""
    n, m = attrs["num_vars"], attrs["num_captured"]
    return {"grad_body": list(range(n)) + list(range(n + m, 2 * n + m))}


(register_op("while_loop")
 .describe("The loop variables (inputs 0 .. num_vars-1) through subgraph body while subgraph "
           "cond gives true, at most maximum_iterations times (tf.while_loop); the other "
           "inputs are the tensors the subgraphs capture.")
 .set_num_inputs(lambda attrs: attrs["num_vars"] + attrs["num_captured"])
 .set_num_outputs(lambda attrs: attrs["num_vars"])
 .set_attr("FInferShape", _while_shape).set_attr("FInferType", _while_type)
 .set_attr("FGradient", _while_gradient)
 .set_attr("TSubgraphs", ("cond", "body")).set_attr("TShapeAtRunTime", True)
 .set_attr("FSubgraphArity", lambda attrs: {
     "cond": (attrs["num_vars"] + attrs["num_captured"], 1),
     "body": (attrs["num_vars"] + attrs["num_captured"], attrs["num_vars"])})
 .set_attr("TDonatedInputs", lambda attrs: {"body": list(range(attrs["num_vars"]))})
 .set_attr("TUncapturable", True))

(register_op("_while_loop_backward")
 .describe("The gradients of a while_loop's first loop variables and captured tensors: "
           "subgraph grad_body over the iterations the forward kept, last first.")
 .set_num_inputs(lambda attrs: 2 * attrs["num_vars"] + attrs["num_captured"]
                 + attrs.get("num_firsts", 0))
 .set_num_outputs(lambda attrs: attrs["num_vars"] + attrs["num_captured"])
 .set_attr("FInferShape", _backward_shape).set_attr("FInferType", _backward_type)
 .set_attr("FIgnoreInputs", lambda attrs: list(range(
     2 * attrs["num_vars"] + attrs["num_captured"], 2 * attrs["num_vars"]
     + attrs["num_captured"] + attrs.get("num_firsts", 0))))
 .set_attr("TSubgraphs", ("grad_body",)).set_attr("TStateOfInput", 0)
 .set_attr("FSubgraphArity", lambda attrs: {"grad_body": (
     2 * attrs["num_vars"] + attrs["num_captured"], attrs["num_vars"] + attrs["num_captured"]),
     "kept": (attrs["num_vars"] + attrs["num_captured"], None)})
 .set_attr("TKeep", ("kept", "body", "grad_body"))
 .set_attr("TSkippableOutputs", lambda attrs: {"grad_body": list(range(
     attrs["num_vars"], attrs["num_vars"] + attrs["num_captured"]))})
 .set_attr("TDonatedInputs", _backward_donated)
 .set_attr("TIsBackward", True).set_attr("TUncapturable", True))


# -- TensorArray's write: a copy of the rows with some replaced (tf.TensorArray, frontend) -------
def _write_shape(attrs, in_shapes, out_shapes):
    buffer, index, value = in_shapes
    buffer = buffer if buffer is not None else out_shapes[0]
    if buffer is not None and index is not None and value is not None:
        rows = () if len(index) == 0 else (index[0],)
        if len(index) > 1 or tuple(value) != rows + tuple(buffer[1:]):
            raise ShapeError(f"writing a value of shape {shape_str(value)} at indices of shape "
                             f"{shape_str(index)} into a TensorArray of elements of shape "
                             f"{shape_str(buffer[1:])}")
    return [buffer, index, value], [buffer]


def _write_type(attrs, in_types, out_types):
    dtype = in_types[0] or in_types[2] or out_types[0]
    return [dtype, in_types[1], dtype], [dtype]


def _write_gradient(node, ograds):
    """The rows written get their gradient from the value; the rows kept, from the buffer."""
    _, index, value = node.inputs
    written = create_op("gather", ograds[0], index, axis=0)
    kept = create_op("tensor_array_write", ograds[0], index, create_op("zeros_like", value))
    # after the gather: then the write is the gradient's last reader and may write it in place
    kept.outputs[0].node.control_deps.append(written.outputs[0].node)
    return [kept, None, written]


(register_op("tensor_array_write")
 .describe("A copy of input 0 (rows: a TensorArray's elements) with rows at int indices "
           "input 1 (a scalar or a vector) replaced by input 2 (TensorArray.write, scatter).")
 .set_num_inputs(3)
 .set_attr("FInferShape", _write_shape).set_attr("FInferType", _write_type)
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("FGradient", _write_gradient)
 .set_attr("TUncapturable", True))  # on a GPU, the indices are checked on the host


# -- a dynamic_size TensorArray grown at indices found at run time (frontend/tensor_array.py) ---
def _grow_shape(attrs, in_shapes, out_shapes):
    """Its capacity is known once it ran (TShapeAtRunTime); the count of rows is a scalar."""
    return list(in_shapes), [out_shapes[0], ()]


def _grow_gradient(node, ograds):
    """The rows written get their gradient from the value; the rows kept, from the elements
    (the first ones of the grown capacity)."""
    elements, _, index, _ = node.inputs
    kept = create_op("_tensor_array_grow_backward", ograds[0], elements, index)
    return [kept, None, None, create_op("gather", ograds[0], index, axis=0)]


(register_op("tensor_array_grow")
 .describe("A dynamic_size TensorArray's elements (input 0, its capacity rows; input 1 the "
           "int32 count of rows written) with rows at int indices input 2 (a scalar or a "
           "vector) set to input 3: the capacity doubled (at least) when an index lies past "
           "it, rows past the count zeros; outputs the elements and the new count.  Its "
           "capacity is known once it ran.")
 .set_num_inputs(4).set_num_outputs(2)
 .set_attr("FInferShape", _grow_shape)
 .set_attr("FInferType", lambda attrs, t, o: (t, [t[0] or t[3] or o[0], "int32"]))
 .set_attr("TShapeAtRunTime", True).set_attr("FGradient", _grow_gradient)
 .set_attr("TUncapturable", True))  # sized on the host

(register_op("_tensor_array_grow_backward")
 .describe("The gradient of tensor_array_grow's elements: the first rows of g (the grown "
           "capacity's), as many as input 1 (shape-only) has, those written (indices input "
           "2) zero.")
 .set_num_inputs(3).set_attr("FIgnoreInputs", [1]).set_attr("TIsBackward", True)
 .set_attr("FInferShape", lambda attrs, i, o: (list(i), [i[1]]))
 .set_attr("FInferType", lambda attrs, t, o: (t, [t[0] or o[0]]))
 .set_attr("FGradient", no_gradient))


(register_op("tensor_array_rows")
 .describe("The first input-1 rows of input 0 (a dynamic_size TensorArray's elements and its "
           "count of rows written: TensorArray.stack); its shape is known once it ran.")
 .set_num_inputs(2).set_attr("FInferShape", lambda attrs, i, o: (list(i), list(o)))
 .set_attr("FInferType", lambda attrs, t, o: (t, [t[0] or o[0]]))
 .set_attr("TShapeAtRunTime", True).set_attr("TUncapturable", True)
 .set_attr("FGradient", lambda node, ograds: [create_op(
     "_tensor_array_rows_backward", ograds[0], node.inputs[0]), None]))

(register_op("_tensor_array_rows_backward")
 .describe("g in the first rows of zeros of input 1's shape (shape-only): the gradient of "
           "tensor_array_rows.")
 .set_num_inputs(2).set_attr("FIgnoreInputs", [1]).set_attr("TIsBackward", True)
 .set_attr("FInferShape", lambda attrs, i, o: (list(i), [i[1]]))
 .set_attr("FGradient", no_gradient))


# -- if: tf.cond whose branches have side effects (frontend/control_flow_ops.py) -----------------
def _if_shape(attrs, in_shapes, out_shapes):
    if any(s is None for s in in_shapes[1:]):
        return list(in_shapes), list(out_shapes)
    taken = infer_shapes(attrs["then_branch"], in_shapes)
    other = infer_shapes(attrs["else_branch"], in_shapes)
    # an output the branches give in two shapes is sized by the branch taken (TShapeAtRunTime)
    return list(in_shapes), [None if None not in (a, b) and tuple(a) != tuple(b) else
                             a if a is not None else b for a, b in zip(taken, other)]


def _if_gradient(node, ograds):
    """TensorFlow's gradient of a cond: an ``if`` on the same predicate over each branch's
    gradient subgraph, so the gradients of the taken branch flow to the captured tensors (the
    other branch's are zeros).  A branch's forward is recomputed for its gradient without its
    writes (a write's result is the variable it wrote, as the forward left it)."""
    count = node.attrs["num_captured"]
    branches = [node.attrs[name] for name in ("then_branch", "else_branch")]
    captures = list(branches[0].inputs[1:])
    reached = set().union(*[branch.nodes() for branch in branches])
    wanted = [i for i, p in enumerate(captures)
              if p in reached and p.attrs.get("dtype", "float32") in FLOATS]
    if not wanted:
        return [None] * len(node.inputs)
    varying = {j for j, (a, b) in enumerate(zip(*(branch.outputs for branch in branches)))
               if not one_static_shape(Symbol([a]).get_shape(), Symbol([b]).get_shape())}
    grads = [_branch_gradient(branch, [captures[i] for i in wanted], varying)
             for branch in branches]
    out = create_op("if", node.inputs[0], *node.inputs[1:], *ograds, then_branch=grads[0],
                    else_branch=grads[1], num_captured=count + len(ograds),
                    Tout=tuple(captures[i].attrs.get("dtype", "float32") for i in wanted),
                    name=f"{node.name}_grad")
    result = [None] * len(node.inputs)
    for k, i in enumerate(wanted):
        result[1 + i] = out[k] if len(wanted) > 1 else out
    return result


def one_static_shape(a, b) -> bool:
    """Whether static shapes ``a`` and ``b`` say the same (a cond selects its branches' tensors
    of one such shape; others it sizes by the branch taken)."""
    return a.ndims == b.ndims if None in (a.ndims, b.ndims) else a.as_list() == b.as_list()


def _branch_gradient(branch: Subgraph, xs: list, varying: set) -> Subgraph:
    """``branch``'s inputs and one gradient placeholder per output in; the gradients of the
    captures ``xs`` out, the branch's writes replaced by a copy of what they wrote.  The head
    of an output the branches may give in two shapes (``varying``) goes through
    ``_branch_head``: the other branch's shape when this one was not taken."""
    graph = current_context()
    heads = [Symbol([NodeEntry(placeholder_like(graph, "grad_ys", None, Symbol([e]).dtype.name),
                               0)]) for e in branch.outputs]
    ys = [(e, create_op("_branch_head", h, Symbol([e])) if j in varying else h)
          for j, (e, h) in enumerate(zip(branch.outputs, heads))
          if Symbol([e]).dtype.name in FLOATS]
    xs = [NodeEntry(p, 0) for p in xs]
    with graph.control_dependencies(None):  # a subgraph: no outer with block's dependencies
        grads = apply_passes(Graph([e for e, _ in ys], {
            "grad_xs": xs, "grad_ys_out_grad": [h for _, h in ys],
            "grad_name_prefix": "cond_grad/"}), ["Gradient"]).outputs if ys else [
            create_op("zeros_like", Symbol([x])).outputs[0] for x in xs]

    def without_writes(inner):
        if inner.op is not None and inner.op.attr("TPythonAttrs"):
            raise GraphError(f"tf.gradients through tf.cond: the gradient of its branch needs "
                             f"the value of {inner.describe()}, which runs Python: TinyFlow "
                             f"recomputes a branch for its gradient and would run it again")
        written = inner.attr_list("FMutateInputs") if inner.op is not None else []
        if written and inner.num_outputs() != 1:
            raise GraphError(f"tf.gradients through tf.cond: its branch's gradient needs "
                             f"{inner.describe()}, which writes a variable and has "
                             f"{inner.num_outputs()} outputs")
        return None if not written else Node(Op.get("copy"), f"{inner.name}_value", {},
                                             [inner.inputs[written[0]]], [], inner.source)
    grads = rewrite(Graph(list(grads)), without_writes).outputs
    return Subgraph(tuple(branch.inputs) + tuple(h.node for h in heads), tuple(grads))


(register_op("_branch_head")
 .describe("Gradient head x[1] where it has the shape of the cond branch's output x[2], else "
           "zeros of that shape (an if whose branches give that output two shapes, the other "
           "taken).")
 .set_num_inputs(2)
 .set_attr("FInferShape", lambda attrs, ins, outs: (ins, [ins[1] or outs[0]]))
 .set_attr("FInferType", lambda attrs, ins, outs: (ins, [ins[0] or ins[1] or outs[0]]))
 .set_attr("FInplaceOption", inplace_first).set_attr("FIgnoreInputs", [1])
 .set_attr("FGradient", lambda node, grads: [grads[0], None]))


(register_op("if")
 .describe("The outputs of subgraph then_branch if input 0 (a bool scalar) is true, else of "
           "else_branch; only that one runs (tf.cond whose branches write variables or run "
           "Python, or give an output in two shapes: then sized by the branch taken).  The "
           "other inputs are the tensors the branches capture; attr Tout: the outputs' "
           "dtypes.  Its gradient: an if over the branches' gradients.")
 .set_num_inputs(lambda attrs: 1 + attrs["num_captured"])
 .set_num_outputs(lambda attrs: len(attrs["Tout"]))
 .set_attr("FInferShape", _if_shape)
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, list(attrs["Tout"])))
 .set_attr("FGradient", _if_gradient)
 .set_attr("TSubgraphs", ("then_branch", "else_branch")).set_attr("TUncapturable", True)
 .set_attr("TShapeAtRunTime", True)
 .set_attr("FSubgraphArity", lambda attrs: dict.fromkeys(
     ("then_branch", "else_branch"), (1 + attrs["num_captured"], len(attrs["Tout"])))))


# -- the first elements of a TensorArray a loop writes, its element shape known at bind ----------
def _zeros_shape(attrs, in_shapes, out_shapes):
    """``rows`` + the shape of the value the loop's body writes (subgraph ``value``), from the
    shapes of the loop's other inputs (this op's inputs, at body input ``positions``)."""
    body_ins = [None] * attrs["num_body_inputs"]
    for position, shape in zip(attrs["positions"], in_shapes):
        body_ins[position] = shape
    if any(shape is None for shape in in_shapes):
        return list(in_shapes), list(out_shapes)
    (value,) = infer_shapes(attrs["value"], body_ins)
    if value is None:
        return list(in_shapes), list(out_shapes)
    return list(in_shapes), [tuple(attrs["rows"]) + tuple(value)]


(register_op("tensor_array_zeros")
 .describe("Zeros of shape attr rows + the shape of subgraph value's output when its inputs "
           "at attr positions have the shapes of this op's inputs (read for their shapes "
           "only): a TensorArray a loop writes, before its first write.")
 .set_num_inputs(lambda attrs: len(attrs["positions"]))
 .set_attr("FInferShape", _zeros_shape)
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, [attrs["dtype"]]))
 .set_attr("FIgnoreInputs", lambda attrs: list(range(len(attrs["positions"]))))
 .set_attr("TShapeSubgraphs", ("value",))
 .set_attr("FSubgraphArity", lambda attrs: {"value": (attrs["num_body_inputs"], 1)})
 .set_attr("TFoldable", True).set_attr("FGradient", lambda node, ograds: [None] * len(
     node.inputs)))


# TTFType: TensorFlow's op type (op.type), TF's functional While and If
for _name, _type in (("while_loop", "While"), ("if", "If")):
    Op.get(_name).set_attr("TTFType", _type)
