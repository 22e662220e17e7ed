"""TF-1 control flow and state ops beyond :mod:`tinyflow.frontend.api`: ``tf.cond``, ``tf.case``,
``tf.Print``, ``tf.Assert``, ``tf.py_func`` and the scatter writes into a variable's rows (TensorFlow 1.15 semantics).

``tf.cond``: guarded branches and a select, or one node running one branch
    Only the branch taken runs (docs/control_flow.md).  Branches without side effects stay
    ops of the graph, open to every pass, each output picked with ``where(pred, true,
    false)``; each branch's ops depend on a ``branch_guard`` (TGuard) and run only when it
    holds, and read the float tensors from outside through ``branch_input`` (TF's Switch; in
    the bound graph, the tensor itself), whose gradient is the branch's only where ``pred``
    chose it.  A branch making an op that writes a variable (assign, assign_add, scatter_*,
    an optimizer update) or runs Python (``tf.Print``, ``tf.py_func``) makes ``cond`` one
    ``if`` node holding each branch as a subgraph (:mod:`tinyflow.ops.loop`, as
    ``tf.while_loop``'s body), whose gradient is an ``if`` over the branches' gradients; so
    do branches whose tensors differ in static shape: the ``if`` sizes such an output by the
    branch taken, its static shape TF's Merge's (the dims both branches give).

``tf.Print``, ``tf.Assert`` and ``tf.py_func``: Python at run time
    Their ops (``print``, ``assert``, ``py_func`` in :mod:`tinyflow.ops.control`) have no Lua body but an
    FPythonCompute: the node's ``func`` attribute, a Python callable, gives its value from its
    inputs' values.  A fetched one is computed by the session once the executor has computed
    its inputs; one read by other ops runs inside the executor, in graph order, and then its
    output shape must be known when the graph is bound (a ``py_func``'s comes only from the
    ops reading it; fetch a ``py_func`` whose shape cannot be inferred directly).  As
    TensorFlow's py_func token, ``func`` does not serialise (SaveJSON).
"""
from __future__ import annotations

import collections
import functools
import sys

import numpy as np

from ..nnvm.symbol import Node, Symbol, create_op, current_context
from ..nnvm.tensor_shape import TensorShape
from ..ops import state  # noqa: F401 - registers the scatter and random_shuffle ops
from ..ops.loop import one_static_shape
from .api import _tensor, assign_add, cast, constant, identity, less, reduce_any, reduce_sum
from .array_ops import ones_like, stack
from .dtypes import as_dtype
from .errors import (
    InvalidArgumentError,
    OpError,
    OutOfRangeError,
    ResourceExhaustedError,
    UnimplementedError,
    UnknownError,
)
from .loops import branch_node
from .nest import describe_structure, flatten, pack, structure_of

__all__ = ["Assert", "Print", "case", "cond", "count_up_to", "numpy_function", "py_func", "scatter_add", "scatter_sub",
           "scatter_update", "switch_case"]


# -- tf.cond -----------------------------------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``, as TensorFlow 1.15's ``tf.cond``.

    Parameters
    ----------
    pred : scalar bool Symbol, or Python bool
        The choice, made every run.  A Python (or numpy) bool calls the chosen function only
        and returns its result (TensorFlow's ``smart_cond``; TF 1.15's ``cond`` raises).
    true_fn, false_fn : callable
        Functions of no arguments returning a tensor, a number, or lists / tuples / dicts of
        them, both of one structure and dtypes (shapes may differ, as in TF).  ``fn1`` /
        ``fn2``: their old names.
    strict : bool
        False (TF's default) unpacks a one-element list or tuple.
    name : str, optional
        The name scope of the nodes made (default ``"cond"``).

    Returns
    -------
    The structure the functions return, each tensor ``where(pred, from true_fn,
    from false_fn)``.

    Raises
    ------
    TypeError
        A function missing or not callable, ``pred`` not bool, or structures of other types.
    ValueError
        ``pred`` not a scalar, structures or dtypes that differ, or nothing returned.
    """
    true_fn = _branch_fn(true_fn, fn1, "true_fn", "fn1")
    false_fn = _branch_fn(false_fn, fn2, "false_fn", "fn2")
    if isinstance(pred, (bool, np.bool_)):
        return true_fn() if pred else false_fn()
    pred = _predicate(pred)
    with current_context().name_scope(name or "cond"):
        true_out, true_made = _build_branch(true_fn, "true_fn", strict)
        false_out, false_made = _build_branch(false_fn, "false_fn", strict)
        true_leaves, false_leaves = _same_structure(true_out, false_out)
        if not true_leaves:
            raise ValueError("true_fn and false_fn must return at least one result.")
        merged = [_merged_shape(t, f) for t, f in zip(true_leaves, false_leaves)]
        one_shape = all(one_static_shape(t.get_shape(), f.get_shape())
                        for t, f in zip(true_leaves, false_leaves))
        if _has_side_effects(true_made | false_made) or not one_shape:  # only one branch runs
            picked = branch_node(pred, true_leaves, false_leaves, true_made | false_made)
            for leaf, shape in zip(picked, merged):  # TF's static shape: its Merge's
                leaf.graph.declared_shapes[leaf.outputs[0]] = shape
        else:
            for made, branch in ((true_made, True), (false_made, False)):
                _read_through_switches(pred, made, branch)
                _run_when_taken(pred, made, branch)
            picked = [_pick(pred, t, f) for t, f in zip(true_leaves, false_leaves)]
    return pack(true_out, iter(picked))


def _branch_fn(fn, old, name, old_name):
    """TensorFlow's handling of ``true_fn`` / ``fn1`` (and ``false_fn`` / ``fn2``)."""
    if old is not None:
        if fn is not None:
            raise TypeError(f"cond(): {name} and {old_name} may not be set simultaneously.")
        fn = old
    elif fn is None:
        raise TypeError(f"cond(): {name} argument required")
    if not callable(fn):
        raise TypeError(f"{name} must be callable.")
    return fn


def _predicate(pred) -> Symbol:
    if not isinstance(pred, Symbol):
        raise TypeError(f"tf.cond: pred must be a scalar bool tensor or a Python bool, got "
                        f"{type(pred).__name__}")
    dtype = pred.dtype.name
    if dtype != "bool":
        raise TypeError(f"tf.cond: pred must be a bool tensor, got {dtype} ('{pred.name}')")
    rank = pred.get_shape().ndims
    if rank not in (None, 0):
        raise ValueError(f"tf.cond: pred must be a scalar (rank 0), got shape "
                         f"{pred.get_shape()} ('{pred.name}')")
    return pred


def _build_branch(fn, which, strict):
    """``fn()`` and the nodes it made (unpacked as TF's ``_UnpackIfSingleton`` unless
    ``strict``)."""
    graph = current_context()
    before = set(graph.nodes_by_name.values())
    with graph.name_scope(which.split("_")[0]):
        result = _operations_as_tensors(fn(), which == "true_fn")
    made = set(graph.nodes_by_name.values()) - before
    if not strict and isinstance(result, (list, tuple)) and len(result) == 1:
        result = result[0]
    return result, made


def _operations_as_tensors(result, taken):
    """TF's rule for an operation a branch returns (``train_op``, ``tf.no_op()``): it stands
    as a bool tensor that runs after it, the branch's pivot (True from true_fn, False from
    false_fn)."""
    def stand_in(leaf):
        if not (isinstance(leaf, Node) or isinstance(leaf, Symbol) and leaf.is_operation):
            return leaf
        with current_context().control_dependencies([leaf]):
            return identity(constant(taken))
    if isinstance(result, (Node, Symbol)):
        return stand_in(result)
    return pack(result, iter([stand_in(leaf) for leaf in flatten(result)]))


def _has_side_effects(made) -> bool:
    """Whether a branch made an op writing a variable or running Python (tf.Print,
    tf.py_func; not a constant, whose value Python makes once): then the cond is an ``if``
    node."""
    return any(node.op is not None and (node.attr_list("FMutateInputs") or (
        node.op.attr("FPythonCompute") is not None and not node.op.attr("TFoldable")))
               for node in made)


def _same_structure(true_out, false_out):
    """Both branches' leaves as tensors, after checking structures and dtypes."""
    if structure_of(true_out) != structure_of(false_out):
        raise ValueError(f"tf.cond: incompatible return values of true_fn and false_fn: they "
                         f"must have one structure, got {describe_structure(true_out)} from true_fn and "
                         f"{describe_structure(false_out)} from false_fn")
    leaves = []
    for which, out in (("true_fn", true_out), ("false_fn", false_out)):
        leaves.append([_as_tensor(leaf, which) for leaf in flatten(out)])
    for t, f in zip(*leaves):
        if t.dtype.name != f.dtype.name:
            raise ValueError(f"Outputs of true_fn and false_fn must have the same type: "
                             f"{t.dtype.name}, {f.dtype.name}")
    return leaves


def _as_tensor(leaf, which) -> Symbol:

    if isinstance(leaf, Symbol):
        if leaf.is_operation or len(leaf.outputs) != 1:
            raise TypeError(f"tf.cond: {which} returned the operation '{leaf.name}': TinyFlow's "
                            f"cond selects tensors, return tensors")
        return leaf
    if leaf is None:
        raise ValueError(f"tf.cond: {which} returned None where a tensor is expected")
    return constant(leaf)


def _merged_shape(t, f) -> TensorShape:
    """TF's Merge shape: unknown where the ranks differ, else each dim where both give it."""
    t_shape, f_shape = t.get_shape(), f.get_shape()
    if t_shape.ndims is None or t_shape.ndims != f_shape.ndims:
        return TensorShape(None)
    return TensorShape([a if a == b else None for a, b in zip(t_shape.as_list(),
                                                              f_shape.as_list())])


def _read_through_switches(pred, made, branch) -> None:
    """Make the branch's nodes (``made``) read each float tensor from outside it through a
    ``branch_input`` node (TF's Switch): the forward reads the tensor itself, the gradient
    reaches it only when ``pred`` is ``branch``.  Without it the branch not taken, run for the
    select, sends its gradient too: zero, or NaN where its op's slope is not finite there
    (``tf.cond(x > 0, lambda: tf.sqrt(x), ...)`` at x < 0)."""
    switches = {}
    for node in sorted(made, key=lambda n: n.name):  # the switches' names: one order per graph
        if node.op is None:
            continue
        written = node.attr_list("FMutateInputs")
        for position, entry in enumerate(node.inputs):
            if entry.node in made or position in written:
                continue
            if entry not in switches:
                outer = Symbol([entry])
                if not outer.dtype.is_floating:
                    continue
                switches[entry] = create_op("branch_input", outer, pred, branch=branch,
                                            name="Switch").outputs[0]
            node.inputs[position] = switches[entry]


def _run_when_taken(pred, made, branch) -> None:
    """Give the branch's ops a control dependency on a ``branch_guard`` of ``pred``: they run
    only when ``pred`` is ``branch`` (TGuard), as in TensorFlow, where the branch not taken
    neither runs (an index out of range there is no error) nor draws random numbers."""
    guard = create_op("branch_guard", pred, branch=branch,
                      name="switch_t" if branch else "switch_f").outputs[0].node
    for node in made:
        if node.op is not None:
            node.control_deps.append(guard)


def _pick(pred, t, f) -> Symbol:
    """``t`` where ``pred`` else ``f``: the scalar pred made a mask of t's shape."""
    if t.get_shape().ndims == 0:
        return create_op("where", pred, t, f, name="Merge")
    mask = create_op("logical_and", pred, ones_like(t, dtype="bool"))
    return create_op("where", mask, t, f, name="Merge")


# -- tf.case: nested tf.cond, TF 1.15's checks as tf.Assert -------------------------------------
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the ``fn`` of the first ``(pred, fn)`` pair whose ``pred`` (a scalar bool
    tensor) is true, else of ``default()``, as TensorFlow 1.15's ``tf.case``: nested
    :func:`cond`.  A dict of pairs is taken in the order of its predicates' names (TF's, for a
    dict that is not an OrderedDict).  Without ``default`` the last pair's ``fn`` is the
    default and a run where no ``pred`` holds is TF's InvalidArgumentError; ``exclusive``: one
    where more than one holds is too."""
    pairs = _case_pairs(pred_fn_pairs)
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    with current_context().name_scope(name or "case"):
        preds = [pred for pred, _ in pairs]
        shown = cast(stack(preds), "int32")
        checks = []
        if exclusive and len(preds) > 1:
            names = ", ".join(p.name for p in preds)
            message = (f"Input error: exclusive=True: more than 1 conditions ({names}) "
                       f"evaluated as True:")
            checks.append(Assert(reduce_sum(shown) <= 1, [message, shown]))
        if default is None:  # the last fn, and an error when no pred holds
            (*pairs, (_, default)) = pairs
            message = "Input error: None of conditions evaluated as True:"
            checks.append(Assert(reduce_any(stack(preds)), [message, shown]))
        chosen = default
        for pred, fn in reversed(pairs):
            chosen = functools.partial(cond, pred, fn, chosen, strict)
        result = chosen()
        if not checks:
            return result
        with current_context().control_dependencies(checks):
            return pack(result, iter([create_op("copy", _tensor(leaf), name="Identity")
                                      for leaf in flatten(result)]))


def _case_pairs(pred_fn_pairs) -> list:
    """``pred_fn_pairs`` as a checked list of (pred, fn), TF's messages."""
    if isinstance(pred_fn_pairs, dict) and not isinstance(pred_fn_pairs,
                                                          collections.OrderedDict):
        pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    elif isinstance(pred_fn_pairs, (dict, list, tuple)):
        pairs = list(pred_fn_pairs.items() if isinstance(pred_fn_pairs, dict) else pred_fn_pairs)
    else:
        raise TypeError("fns must be a list, tuple, or dict")
    if not pairs:
        raise ValueError("tf.case: pred_fn_pairs must hold at least one (pred, fn) pair")
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        pred, fn = pair
        if not isinstance(pred, Symbol):
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if pred.dtype.name != "bool":
            raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    return pairs


# -- tf.switch_case: an integer-indexed tf.case ------------------------------------------------
def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """The result of ``branch_fns[branch_index]()``, as TensorFlow 1.15's ``tf.switch_case``:
    nested :func:`cond` on ``branch_index == i`` (only the branch taken runs).

    Parameters
    ----------
    branch_index : int32 or int64 scalar tensor
    branch_fns : list or tuple of callables, of ``(key, fn)`` pairs, or dict key -> fn
        The keys must be the ints ``0 .. len - 1``, in any order.
    default : callable, optional
        What an index outside ``[0, len)`` runs; without it the last branch does, as
        TensorFlow's.
    name : str
    """
    fns = _switch_branches(branch_index, branch_fns, default)
    with current_context().name_scope(name or "switch_case"):
        chosen = fns[-1]
        for index in reversed(range(len(fns) - 1)):
            pred = create_op("equal", branch_index, constant(index, dtype=branch_index.dtype))
            chosen = functools.partial(cond, pred, fns[index], chosen)
        return chosen()


def _switch_branches(branch_index, branch_fns, default) -> list:
    """The branches in key order, ``default`` last when given: TF's
    ``_indexed_case_verify_and_canonicalize_args``, its messages."""
    if not isinstance(branch_index, Symbol):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        if not isinstance(pair[0], int):
            raise TypeError(f"key must be a Python `int`, got {type(pair[0])}")
        if not callable(pair[1]):
            raise TypeError(f"fn for key {pair[0]} must be callable.")
    keys = sorted(key for key, _ in pairs)
    if keys != list(range(len(keys))):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to "
                         f"{len(keys)}) but found {{{','.join(map(str, keys))}}}")
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    return [fn for _, fn in sorted(pairs, key=lambda pair: pair[0])] + (
        [default] if default is not None else [])


# -- tf.Assert ---------------------------------------------------------------------------------
def Assert(condition, data, summarize=None, name=None) -> Symbol:
    """An operation that, every time it runs, stops the run with TF's InvalidArgumentError
    ``assertion failed: [..] [..]`` when ``condition`` (a scalar bool tensor) is false: each
    item of ``data`` in brackets, a string as it is, a tensor's first ``summarize`` (default
    3) values.  Run it, or make ops depend on it with ``tf.control_dependencies``."""
    condition = _tensor(condition)
    if condition.dtype.name != "bool":
        raise TypeError(f"tf.Assert: condition must be a bool tensor, got {condition.dtype.name}")
    if isinstance(data, (Symbol, str)) or not hasattr(data, "__iter__"):
        raise TypeError(f"tf.Assert: data must be a list, got {type(data).__name__}")
    items = [d if isinstance(d, str) else _tensor(d) for d in data]
    tensors = [d for d in items if isinstance(d, Symbol)]
    summarize = 3 if summarize is None else int(summarize)
    result = create_op("assert", condition, *tensors, num_args=len(tensors) + 1,
                       summarize=summarize, func=_Asserter(items, summarize),
                       name=name or "Assert")
    return Symbol(result.outputs, is_operation=True)


class _Asserter:
    """An Assert node's run-time side: the check and TF's message."""

    def __init__(self, items, summarize: int):
        self.strings = [d if isinstance(d, str) else None for d in items]
        self.summarize = summarize

    def __call__(self, node, inputs):
        holds = np.asarray(inputs[0])
        if holds.ndim:  # TF's run-time check
            raise InvalidArgumentError(None, node.name, f"In[0] should be a scalar: "
                                                        f"[{','.join(map(str, holds.shape))}]")
        if not holds:
            values = iter(inputs[1:])
            shown = [s if s is not None else summarize_value(np.asarray(next(values)),
                                                             self.summarize)
                     for s in self.strings]
            raise InvalidArgumentError(None, node.name, "assertion failed: " + " ".join(
                f"[{s}]" for s in shown))
        return np.asarray(True)


# -- tf.Print ----------------------------------------------------------------------------------
def Print(input_, data, message=None, first_n=None, summarize=None, name=None) -> Symbol:
    """``input_`` as it is; every time it runs, ``message`` and the values of the ``data``
    tensors are printed to stderr, as TensorFlow 1.15's ``tf.Print``.

    Parameters
    ----------
    input_ : Symbol
        The tensor passed through (gradients pass through to it too).
    data : list of Symbol
        The tensors printed, each as ``[v1 v2 v3...]`` after ``message`` on one line (nested
        brackets per dimension, TensorFlow's ``SummarizeValue``).
    message : str, optional
    first_n : int, optional
        Print the first ``first_n`` runs only (None or negative: every run), counted per node.
    summarize : int, optional
        At most this many elements of each tensor (default 3; negative: all), ``...`` after.
    name : str, optional
        The node's name (default ``"Print"``).
    """

    if isinstance(data, (Symbol, str)) or not hasattr(data, "__iter__"):
        raise TypeError(f"tf.Print: data must be a list of tensors, got {type(data).__name__}")
    inputs = [_tensor(input_)] + [_tensor(d) for d in data]
    first_n = -1 if first_n is None else int(first_n)
    summarize = 3 if summarize is None else int(summarize)
    message = "" if message is None else str(message)
    return create_op("print", *inputs, num_args=len(inputs), message=message, first_n=first_n,
                     summarize=summarize, func=_Printer(message, first_n, summarize),
                     name=name or "Print")


class _Printer:
    """A Print node's run-time side: counts its runs (first_n) and prints."""

    def __init__(self, message: str, first_n: int, summarize: int):
        self.message, self.first_n, self.summarize = message, first_n, summarize
        self.calls = 0

    def __call__(self, node, inputs):
        if self.first_n < 0 or self.calls < self.first_n:
            self.calls += 1
            values = "".join(f"[{summarize_value(np.asarray(v), self.summarize)}]"
                             for v in inputs[1:])
            print(self.message + values, file=sys.stderr, flush=True)
        return inputs[0]


def summarize_value(array, limit: int = 3) -> str:
    """TensorFlow's ``Tensor::SummarizeValue``: the first ``limit`` elements (all if negative)
    in row-major order, space-separated, each dimension in brackets, ``...`` where elements
    were left out (``[[1 2][3...]...`` for [[1, 2], [3, 4]] and 3)."""
    flat = array.ravel()
    limit = flat.size if limit < 0 else min(limit, flat.size)
    words = [_element(v) for v in flat[:limit]]
    if array.ndim == 0:
        text = " ".join(words)
    else:
        text = _summarize_dims(array.shape, words, limit)
    return text + ("..." if flat.size > limit else "")


def _summarize_dims(shape, words, limit) -> str:
    """TensorFlow's ``PrintOneDim`` over all dimensions, as a walk over the elements printed."""
    out, printed = [], 0

    def dim(index):
        nonlocal printed
        if printed >= limit:
            return
        if index == len(shape) - 1:
            for i in range(shape[index]):
                if printed >= limit:
                    if index != 0:
                        out.append("...")
                    return
                out.append((" " if i > 0 else "") + words[printed])
                printed += 1
            return
        for _ in range(shape[index]):
            opened = printed < limit
            if opened:
                out.append("[")
            dim(index + 1)
            if printed < limit or opened:
                out.append("]")
    dim(0)
    return "".join(out)


def _element(value) -> str:
    """One element as TensorFlow's ``StrCat`` writes it: floats with the fewest of 6 / 9
    (float32, float16) or 15 / 17 (float64) significant digits that read back the same,
    bools as 1 / 0."""
    if isinstance(value, (np.floating, float)):
        if np.isnan(value):
            return "nan"
        if np.isinf(value):
            return "inf" if value > 0 else "-inf"
        kind = np.float64 if np.asarray(value).dtype == np.float64 else np.float32
        short, long = (15, 17) if kind is np.float64 else (6, 9)
        text = f"{float(value):.{short}g}"
        return text if kind(text) == kind(value) else f"{float(value):.{long}g}"
    if isinstance(value, (np.bool_, bool)):
        return "1" if value else "0"
    if isinstance(value, bytes):  # a string tensor's: TF's CEscape, no b'' around it
        escapes = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}
        return "".join(escapes.get(b, chr(b) if 32 <= b < 127 else f"\\{b:03o}") for b in value)
    return str(value)


# -- tf.py_func --------------------------------------------------------------------------------
def py_func(func, inp, Tout, stateful=True, name=None) -> Symbol | list[Symbol]:
    """Wrap the Python function ``func`` as an op, as TensorFlow 1.15's ``tf.py_func``.

    Parameters
    ----------
    func : callable
        Called every run with one numpy array per input; returns one array per output (a list
        or tuple of them, or one array when ``Tout`` is a single dtype).  Each must have its
        ``Tout`` dtype exactly (a Python float is float64), as TensorFlow checks.
    inp : list of Symbol
        The inputs (numbers become constants).
    Tout : DType or list/tuple of DType
        The outputs' dtypes; a list gives a list of tensors, a single dtype one tensor.
    stateful : bool
        Kept as an attribute (TensorFlow's PyFunc vs PyFuncStateless).
    name : str, optional
        The node's name (default ``"PyFunc"``).

    The outputs' shapes are not known before ``func`` runs: fetch them directly, or read them
    in ops that let shape inference find them (see the module docstring).  No gradient flows
    through (``tf.gradients`` gives None for the inputs), as TensorFlow's.
    """
    return python_op(_PyCall, "tf.py_func", func, inp, Tout, stateful, name or "PyFunc")


def python_op(call, what: str, func, inp, Tout, stateful, name):
    """The ``py_func`` node running ``call(func)`` (:class:`_PyCall` or one like it) on the
    inputs ``inp``, outputs of dtypes ``Tout``: one tensor for a single dtype, a list for a
    list; ``what`` names the TF function in errors."""
    if not callable(func):
        raise TypeError(f"{what}: func must be callable, got {type(func).__name__}")
    single = not isinstance(Tout, (list, tuple))
    touts = tuple(as_dtype(t).name for t in ([Tout] if single else Tout))
    if not touts:
        raise ValueError(f"{what} with Tout=[] (a function run for its effect only) is not "
                         f"supported by TinyFlow: give it an output")
    inputs = [_tensor(x) for x in (inp if isinstance(inp, (list, tuple)) else [inp])]
    out = create_op("py_func", *inputs, num_args=len(inputs), Tout=touts,
                    stateful=bool(stateful), func=call(func), name=name)
    if single or len(touts) == 1:  # one output: out[0] would slice it
        return out if single else [out]
    return [out[i] for i in range(len(touts))]


def numpy_function(func, inp, Tout, name=None) -> Symbol | list[Symbol]:
    """``func`` on numpy arrays as an op (TensorFlow 1.15's ``tf.numpy_function``): a
    stateful :func:`py_func`, with its arguments and results."""
    return py_func(func, inp, Tout, stateful=True, name=name)


class _PyCall:
    """A py_func node's run-time side: ``func`` on numpy arrays, its results checked against
    Tout as TensorFlow's ``FuncRegistry`` and PyFunc kernel check them."""

    def __init__(self, func):
        self.func = func

    def __call__(self, node, inputs):
        touts = node.attrs["Tout"]
        try:
            result = self.func(*[np.array(v) for v in inputs])
        except OpError:
            raise
        except Exception as err:
            raise _tf_error(err, node) from err
        values = list(result) if isinstance(result, (list, tuple)) else [result]
        if len(values) != len(touts):
            raise InvalidArgumentError(None, node, (
                f"py_func '{node.name}' returned {len(values)} values, but Tout has "
                f"{len(touts)} dtypes ({', '.join(touts)})"))
        arrays = [np.asarray(v, order="C") for v in values]
        for i, (array, dtype) in enumerate(zip(arrays, touts)):
            if dtype == "string":
                arrays[i] = _strings(values[i], array, i, node)
            elif array.dtype != np.dtype(dtype):
                raise InvalidArgumentError(None, node, (
                    f"{i}-th value returned by py_func '{node.name}' is {array.dtype}, but "
                    f"expects {dtype}"))
        arrays = [a[()] if a.ndim == 0 else a for a in arrays]  # a scalar fetched: TF's np.int64
        return arrays[0] if len(arrays) == 1 else arrays


def _strings(value, array, i, node):
    """A py_func's string result as TensorFlow 1.15's ``FuncRegistry._convert`` makes it: an
    object array of bytes; a list's ``str`` items UTF-8 encoded, an array of ``str`` ASCII."""
    if isinstance(value, np.ndarray) and array.dtype.kind == "U":
        try:
            array = array.astype(np.bytes_)
        except UnicodeEncodeError as err:
            raise _tf_error(err, node) from err
    if array.dtype.kind in "SUO":
        from ..session.pull import string_feed  # imports torch: run time only, as the session
        try:
            return string_feed(f"py_func '{node.name}'", array)  # a string feed's conversion
        except TypeError:
            pass
    raise InvalidArgumentError(None, node, (
        f"{i}-th value returned by py_func '{node.name}' is {array.dtype}, but expects "
        f"string"))


def _tf_error(err, node) -> OpError:
    """The run-time error TF 1.15's PyFunc kernel makes of the Python exception ``err``."""
    try:
        text = str(err)
    except Exception:  # noqa: BLE001 - a user's exception whose __str__ fails
        text = "(its message could not be printed)"
    message = f"{type(err).__name__}: {text} (raised by the function of py_func '{node.name}')"
    if isinstance(err, MemoryError):
        return ResourceExhaustedError(message, node)
    kind = (InvalidArgumentError if isinstance(err, (ValueError, TypeError)) else
            OutOfRangeError if isinstance(err, StopIteration) else
            UnimplementedError if isinstance(err, NotImplementedError) else UnknownError)
    return kind(None, node.name, message)


# -- scatter writes into a variable --------------------------------------------------------------
def scatter_update(ref, indices, updates, use_locking=True, name=None) -> Symbol:
    """``ref[indices[i], ...] = updates[i, ...]`` for variable ``ref``; the result is the
    variable, holding its new value (TensorFlow 1.15's ``tf.scatter_update``).

    Parameters
    ----------
    ref : tf.Variable
        Of shape ``(N, ...)``.
    indices : int32 or int64 tensor, or list of ints
        Rows of ``ref``, any shape ``I``; each in ``[0, N)``.
    updates : tensor or number
        Of shape ``I + ref.shape[1:]``, or a scalar written into every row named.
    use_locking : bool
        Ignored (TinyFlow runs one op at a time).
    name : str, optional

    A row named twice gets one of its updates in TensorFlow (which one is undefined).
    """
    return _scatter("scatter_update", ref, indices, updates, name or "ScatterUpdate")


def scatter_add(ref, indices, updates, use_locking=False, name=None) -> Symbol:
    """``ref[indices[i], ...] += updates[i, ...]``: a row named several times gets all its
    updates added.  Arguments and result as :func:`scatter_update`'s."""
    return _scatter("scatter_add", ref, indices, updates, name or "ScatterAdd")


def scatter_sub(ref, indices, updates, use_locking=False, name=None) -> Symbol:
    """``ref[indices[i], ...] -= updates[i, ...]``: a row named several times gets all its
    updates taken away.  Arguments and result as :func:`scatter_update`'s."""
    return _scatter("scatter_sub", ref, indices, updates, name or "ScatterSub")


def count_up_to(ref, limit, name=None) -> Symbol:
    """Add one to the int variable ``ref`` and give its value before, as TF 1.15's
    ``tf.count_up_to``: the run that finds it at ``limit`` or more raises
    ``OutOfRangeError`` ("Reached limit of ...") and leaves it as it is."""
    if not isinstance(ref, Symbol) or ref.node.kind != "variable":
        raise TypeError(f"tf.count_up_to counts in a tf.Variable, got {ref!r}")
    with current_context().name_scope(name or "CountUpTo"):
        step = cast(less(ref, int(limit)), ref.dtype)  # 0 at the limit: the count stays
        old = assign_add(ref, step) - step
        return create_op("epoch_limit", old, old + 1, limit=int(limit), name="CountUpTo")


def _scatter(op_name, ref, indices, updates, name) -> Symbol:

    if not isinstance(ref, Symbol) or ref.node.kind != "variable":
        raise TypeError(f"tf.{op_name} writes to a tf.Variable, got {ref!r}")
    if not isinstance(indices, Symbol):
        # TF's conversion: Python ints give int32, a numpy array keeps its dtype
        indices = constant(indices, dtype=None if np.asarray(indices).size else "int32")
    if not isinstance(updates, Symbol):
        updates = constant(updates, dtype=ref.node.attrs.get("dtype", "float32"))
    return create_op(op_name, ref, indices, updates, name=name)
