"""Every op attribute TinyFlow knows, with its signature, and the ready-made rules.

Attribute names follow NNVM: ``F*`` attributes are functions, ``T*`` attributes are plain values.
They are attached with ``register_op(name).set_attr(key, value)`` and read by the passes and the
executor with ``op.attr(key)``, ``Op.get_attr(key)`` or ``Op.with_attr(key, value)``.  Every fact
about an op is set where the op is registered (its family file in tinyflow/ops/); a pass asks the
op for the attribute and never tests its name.

==================  ==========================================================================
attribute           contract
==================  ==========================================================================
FInferShape         ``f(attrs, in_shapes, out_shapes) -> (in_shapes, out_shapes)``.  Shapes are
                    tuples of ints, or ``None`` when not known yet.  The rule returns both lists
                    with whatever it can fill in (inference runs forward *and* backward, which is
                    how a variable's shape is found from its use) and raises
                    :class:`~tinyflow.nnvm.errors.ShapeError` when the known shapes disagree.
FInferType          ``f(attrs, in_types, out_types) -> (in_types, out_types)``; types are dtype
                    names (``"float32"``) or ``None``.  Missing: every type equals the first
                    known one (:func:`same_type`).
FInplaceOption      ``f(attrs) -> [(input_index, output_index), ...]`` or that list itself: pairs
                    whose memory the Lua body can share (it reads the input element before it
                    writes the output element).  PlanMemory uses a pair only when the input has
                    no other reader and the same shape as the output, unless FInplaceIdentity.
FInplaceIdentity    ``f(attrs) -> [bool, ...]`` or the list, one per FInplaceOption pair: the
                    output is the input's elements unchanged under a new shape (``reshape``), so
                    the pair may share memory across shapes (torch refuses an elementwise op
                    writing ``(1, 4)`` over its ``(4,)`` input: a partial overlap to it).
FIgnoreInputs       ``f(attrs) -> [input_index, ...]`` or the list: inputs the op reads only for
                    their shape (``ones_like``'s x, ``broadcast_like``'s like).  The body may
                    look at their sizes in its setup, never at their values: MaterializeShapes
                    swaps them for data-less ``shape`` nodes.
FNumVisibleOutputs  ``f(attrs) -> int``: how many leading outputs a call returns; the rest are
                    kept for the gradient (``max_pool2d``'s argmax indices).
FMutateInputs       ``f(attrs) -> [input_index, ...]`` or the list: inputs the op writes to
                    (``assign`` writes its variable).  Readers of a mutated variable run first.
FGradient           ``f(node, out_grads) -> [grad_of_input_0, ...]``.  ``node.inputs``,
                    ``node.outputs`` and ``out_grads`` are symbols, so a rule is written with the
                    ordinary operators: ``[ograds[0] * node.inputs[0] * 2]``.  ``None`` in the
                    result means "no gradient flows to this input".  ``node.attrs`` holds the
                    op's attributes and ``node.name`` its name.
FLuaCompute         Lua source ``function(x, y, kwarg) <setup> return function() <compute> end
                    end`` (a leading ``return`` is allowed).  ``x`` and ``y`` are 1-based arrays
                    of input and output tensors, already allocated by the memory plan; ``kwarg``
                    holds the node's attributes, and for a node with a ``seed`` its session's
                    ``generator`` (session/random_streams.py).  The setup runs once per executor,
                    the inner closure every step and allocates nothing.  Each node's body runs
                    in an environment of its own: ``torch`` (read-only), copies of ``math``,
                    ``string`` and ``table``, and the safe base functions (no ``os``, ``io``,
                    ``debug``, ``package``, ``require``, ``load*``, ``dofile``, ``python``);
                    globals it sets stay its own.  ``torch`` is the generic table of
                    tinyflow/lua_ops/torch_table.py; a built-in body (the very source tinyflow
                    attached) also sees ``kernels``, its family's engine kernels
                    (tinyflow/lua_ops/<family>/kernels.*).  See tinyflow/lua_ops/runtime.py.
FLuaTrusted         ``True``: the op's body runs with the Lua runtime's full globals instead of
                    a sandbox (``os``, ``io``, ``debug``, ``python``...; globals shared with
                    every trusted body, ``torch`` writable, no ``kernels``).  Only for bodies
                    you wrote: such a
                    body can read and write files, run programs and break other ops.
FPythonCompute      ``f(node, inputs) -> value``: the node's value (a list of values for an op
                    with several outputs), built in Python from its inputs' values (numpy
                    arrays).  A fetched node with it is computed by the session once the
                    executor has computed its inputs (or the values of other such nodes: a
                    merge of summaries).  A node other ops read runs inside the executor
                    instead, in graph order, its value copied into the planned outputs: its
                    shape must be known at bind time (``tf.Print``, or a ``tf.py_func`` given
                    one by ``set_shape``); summaries, whose outputs are strings, can only be
                    fetched or read by such ops.  ``constant`` has both: a fetched constant is
                    answered from its attributes (a string one too).
FPullOutputs        ``f(node, resources, evaluate, deadline) -> [array, ...]``: the op's
                    outputs come from Python state, pulled once per run that needs them,
                    before binding (an iterator's ``get_next``): the session feeds them as the
                    node's values, so their shapes may differ from run to run as a feed's.
                    ``resources`` is the session's dict of such state (TF's resource manager),
                    ``evaluate(symbols)`` runs tensors in the session with this run's feeds (an
                    input pulled before it in this run gives that value; string outputs are not
                    fed, only such ops read them); ``deadline`` (``time.monotonic()``'s clock, or None) ends a
                    wait with DeadlineExceededError (a queue's dequeue: ``timeout_in_ms``).
                    Creating a node of such an op marks its graph (``pulls_outputs``).
TSessionState       ``True``: the op's FPythonCompute is called ``f(node, inputs, resources)``,
                    ``resources`` the session's dict of Python state (an iterator's
                    initializer resets its position there).
FListInputNames     ``f(attrs) -> [name, ...]``: input names.  A call that leaves trailing
                    inputs out creates variables ``<node name>_<input name>`` for them.
FSetInputVarAttrOnCompose
                    ``f(attrs, var_node, input_index)``: called on each variable a call creates
                    for a left-out input (NNVM's hook); layers use it to record the variable in
                    the graph context with its initial value (Glorot weights, zero biases...).
FFuseExpr           ``(python, cuda)``, or ``f(attrs, in_shapes) -> (python, cuda) | None``: the op
                    as one expression of an elementwise kernel, for the FuseElemwise pass.  Both
                    are ``str.format`` templates: ``{0}``, ``{1}``... are the inputs' values,
                    ``{scalar}`` and other names the node's attributes (numbers written as
                    literals).  ``python`` is a torch expression (compiled by inductor), ``cuda`` a
                    C++ one over ``T`` (a jiterator kernel), or None when the op is not fused on
                    CUDA.  Only ops that compute each output element from the same element of their
                    (broadcast) inputs may declare it (or, through the function, where its inputs'
                    shapes make it so: ``_collapse_sum_like`` when nothing was broadcast), and the
                    reductions (``TOpPattern`` "reduce", CPU only); a fused op keeps its dtype
                    (float in, float out).
TOpPattern          NNVM's op pattern, as far as FuseElemwise needs it: ``"reduce"`` for the
                    reductions that fuse on the CPU with the elementwise ops around them
                    (``reduce_sum``/``mean``/``max``/``min``, ``_collapse_sum_like``); they
                    take only inputs of their output's dtype.  Unset: elementwise.
TGuard              ``True``: an op with a control dependency on a node of this op runs only
                    when the node's value (a bool scalar) is true, else it is skipped and its
                    outputs hold what they held (``branch_guard``: a tf.cond branch's ops run
                    only when it is taken).  The Gradient pass gives the nodes an FGradient
                    rule builds the guards of the node it differentiates; PlanMemory keeps the
                    guard's value until its last dependent ran; FuseElemwise fuses only ops of
                    one set of guards; such ops are never in a CUDA graph.
TUncapturable       ``True`` for ops a CUDA graph cannot capture (a host sync, a collective):
                    ``config='gpu graph'`` runs them between captured segments.  Python ops
                    (FPythonCompute) and seeded random ops are never captured and need no
                    declaration.
FShapeCheckedInputs ``f(input dims) -> (input index, ...)``: inputs whose shape the op checks
                    but whose dims its static output shape does not take as an op is made
                    (``where``'s condition of a lower rank than x: TF's Select).
TSubgraphs          ``(attr name, ...)``: the node's attributes holding a
                    :class:`~tinyflow.nnvm.subgraph.Subgraph` it runs itself (``while_loop``'s
                    ``cond`` and ``body``), whose inputs are the node's inputs by position.  The
                    executor binds each as an executor of its own (its own passes and memory
                    plan, allocated once) and gives the body ``kwarg[name]`` = ``{closures,
                    count, names, inputs, outputs}`` and ``kwarg.state``, a Lua table of the
                    node's (tinyflow/executor/subgraphs.py).  Variables the subgraphs read count
                    as read by the node.
TShapeSubgraphs     ``(attr name, ...)``: attributes holding a Subgraph the op's shape rule reads
                    but nothing runs (``tensor_array_zeros``' ``value``); SaveJSON / LoadJSON
                    write and read them as they do TSubgraphs.
FSubgraphArity      ``f(attrs) -> {attr name: (number of inputs, number of outputs)}``: what
                    each subgraph of a node of these attributes must take and give (None: any
                    number of outputs; LoadJSON checks a document's subgraphs against it).
TDonatedInputs      ``fn(attrs) -> {subgraph attr name: [input position, ...]}``: the inputs of
                    a TSubgraphs node's subgraph that its Lua body reloads before every run of
                    it (a loop's loop variables): the subgraph's plan may write them in place
                    (Executor ``donated``), so that a loop variable flows through the body
                    without copies (``while_loop.lua``'s carried variables).
TShapeAtRunTime     ``True``: an output whose shape FInferShape leaves ``None`` once the inputs'
                    shapes are known is sized by the op's body when it runs (``where_true``'s
                    coordinates, a loop variable whose shape_invariants let it vary): the
                    executor gives it a tensor of its own, which the body resizes, and binds
                    the nodes downstream of it only once it ran, at the shape it got
                    (tinyflow/executor/stages.py).  Its body gets ``kwarg.check_fits(bytes,
                    shape)`` (an error naming the node when the device cannot hold them) and
                    ``kwarg.in_place`` (it may make its output input 0's storage: input 0 is
                    a loop variable it alone reads, reloaded before each run).
TSkippableOutputs   ``fn(attrs) -> {subgraph attr name: [position, ...]}``: outputs of a
                    TSubgraphs node that are its subgraph's outputs at those positions and
                    nothing more (a loop's backward's gradients of its captured tensors, summed
                    over the iterations): one the graph does not read, the executor binds the
                    subgraph without (nil in the body's ``outputs``; the node leaves it as is).
TStateOfInput       ``k``: the node's ``kwarg.state`` is that of the node computing its input
                    ``k`` (a TSubgraphs node), which sets ``state.record``: a loop's backward
                    reads the loop variables its forward kept per iteration.
TKeep               ``(attr, forward subgraph, own subgraph)``, with TStateOfInput: the node's
                    attribute ``attr`` is a Subgraph whose outputs are entries of the forward
                    node's subgraph ``forward subgraph`` that the node's subgraph ``own
                    subgraph`` reads.  The forward binds its subgraph with them as extra outputs
                    and keeps them per iteration; this node's subgraph reads the kept values
                    through placeholders (CutFeeds) instead of recomputing them (TF's stacks).
                    A session's ``memory=`` policy keeps none, so the backward recomputes.
TIsBackward         ``True`` for the ops FGradient rules build for a gradient (every
                    ``_<op>_backward``, ``_collapse_sum_like``...): graph pictures draw them as
                    backward.  A node of one may still run forward (conv2d_transpose is
                    ``_conv2d_backward_data``): the Mirror pass tells backward nodes by the
                    Gradient pass's name scope instead.
TFoldable           ``True``: the output is a cheap, pure function of the values of the inputs
                    the op reads (no state, no randomness): a node whose inputs are all
                    shape-only or such nodes is computed once when the executor is built (the
                    loss's seed gradient, a ``constant``, ``ones_like`` -> ...), not each step.
FFoldValue          ``f(attrs, in_values, in_shapes) -> [value, ...]``: the outputs' values as
                    numpy arrays, from the inputs' values (None for FIgnoreInputs ones) and
                    shapes: the small int ops a shape argument is computed with (``shape_of``,
                    ``constant``, ``stack``, ``strided_slice``, arithmetic...), which
                    FoldShapeArguments folds at bind (``tf.zeros(tf.stack([tf.shape(x)[0], 3]))``).
TShapedByValue      ``True`` on ``shaped_by_value``, the op standing for op attr ``target`` whose
                    attribute ``shape_attr`` is its last input's value: FoldShapeArguments
                    rebuilds each such node as its target once that value is folded.
FShapeValueGradient ``f(node, out_grads) -> [grad, ...]``: the op's gradient when it is the
                    target of a ``shaped_by_value`` node (its attribute not known yet):
                    ``reshape``'s and ``tile``'s.  Missing: no gradient.
FTensorIndex        ``f(tensor, index) -> Symbol`` on ``strided_slice``: ``tensor[index]`` for an
                    index holding int tensors (``x[i]``, ``x[1:n]``), which Symbol.__getitem__
                    hands it (tinyflow/ops/indexing.py).
TSameShapeIdentity  ``True``: where the output has input 0's shape and dtype, the op is the
                    identity (``_collapse_sum_like`` of an add's gradient): MaterializeShapes
                    lets its readers read input 0 instead.
TChannelsLast       ``"any"``: the body takes each 4-d (NCHW) input and output contiguous or
                    channels-last; ``"prefer"``: either, and runs faster on channels-last
                    (oneDNN's convolutions and pooling, their gradients): ChooseLayout makes
                    their entries channels-last where nothing pins them; ``"same"``: either,
                    one for all its 4-d operands (elementwise, in place).  Missing: contiguous
                    only.  Read by ChooseLayout.
TWriteOnly          ``True`` for ops that overwrite their mutated inputs without reading them
                    (``assign``): such a variable needs no value before.  Other mutating ops
                    (``assign_add``, the optimizer updates) read what they write.
TActivation         ``"<backward op>"`` on an activation y = f(x) that is elementwise and never
                    decreases (``tanh``, ``relu``, ``sigmoid``): it commutes with a max over
                    windows (PoolBeforeActivation); ``_fused_conv2d`` / ``_fused_linear`` apply
                    it by name (attr ``activation``; FuseConvActivation); the value is the op
                    its FGradient builds from (g, y).
TArgmaxOutput       ``int``: the index of an output holding, for each element of output 0, which
                    input element of its window was the largest (``max_pool2d``'s argmax, kept
                    for the gradient, which reads it as its input 2).  Output 0 is then a max
                    over windows (PoolBeforeActivation); the output exists only while the
                    node's attr ``argmax`` is true (default), which PruneArgmax sets False when
                    nothing reads it.
TOneStepOutputs     ``tuple[int]``: outputs holding one row per step (``[T, ...]``) that the op
                    can give as a single step's row (``[1, ...]``, each step writing it over the
                    last) when nothing reads them: ``lstm_block``'s c, gates and tanh(c), kept
                    for the gradient.  The node's attr ``one_step`` lists the outputs so given;
                    KeepOneStep sets it in a forward-only graph.
FBiasLayout         ``f(attrs) -> "NCHW" | "NHWC"``: the op adds input 1, when a vector of C
                    values, to input 0 along its channels in that layout (axis 1 or the last):
                    ``bias_add``, ``elemwise_add`` (broadcasting).  FuseConvActivation folds
                    such an add into the layer before it.
FDataLayout         ``f(attrs) -> "NCHW" | "NHWC"``: the layout of the op's 4-d output 0 (the
                    convolutions, pooling, ``batch_norm``, ``bias_add``).  ``tf.nn.max_pool``
                    given no data_format pools data whose layer made it NCHW (through
                    elementwise ops) as NCHW.
TFusedWithActivation
                    ``"<op>"``: the op computing this layer, plus a bias and an activation, in
                    one kernel (``conv2d`` -> ``_fused_conv2d``, ``linear`` ->
                    ``_fused_linear``), with this op's attributes and ``activation``; built by
                    FuseConvActivation.
TInternal           ``"<pass>"``: the op is made only by that pass, never by a user
                    (``_fused``: FuseElemwise, which finds the op it builds by this value;
                    ``_fused_conv2d``, ``_fused_linear``: FuseConvActivation).
TPythonAttrs        ``("<attr>", ...)``: attributes holding a Python object (``py_func``'s
                    function, an iterator's pipeline): a node of the op never comes from a
                    document (LoadJSON refuses it).
FCheckNode          ``f(node) -> str | None``: why a node of the op cannot run (None: it can);
                    create_op and LoadJSON refuse it saying so.  ``_max_pool2d_backward`` writes
                    through its argmax unchecked: it must be its own pool's.
TGradientRole       ``"sum"`` | ``"one"`` | ``"zero"``: the op the Gradient pass builds to add
                    the gradients an entry receives (``elemwise_sum``, attr ``num_args``), for
                    the head gradient (``ones_like``) and for an unreached x
                    (``zeros_like``).  One op per role.
FIndexedSlices      ``f(attrs) -> (grad, indices, shaped) | None`` or the tuple, on a backward
                    op adding rows into zeros (``_gather_backward``, ``_embedding_lookup_...``):
                    its output is TF's ``IndexedSlices`` of values ``grad`` (the indices' axes
                    flattened), ``indices`` flattened and ``shaped``'s shape, or (None) dense as
                    TF's (a gather on another axis, or with ``dense_gradient``).  Read by
                    ``tf.gradients`` (tinyflow/frontend/indexed_slices.py).
TCutsRows           ``True`` on ``_concat_backward``: output k is the part of input 0 along attr
                    ``axis`` of input k + 1's shape; ``tf.gradients`` cuts an IndexedSlices so
                    (the shards of an embedding lookup's table, each its own, as TF's).
TTFType             ``"<type>"``: TensorFlow's name of the op's type, what ``op.type`` and the
                    graph TensorBoard shows say (``matmul`` -> ``"MatMul"``, ``elemwise_add``
                    -> ``"AddV2"``, ``constant`` -> ``"Const"``); missing: the op's name in
                    CamelCase (``tanh`` -> ``"Tanh"``).
TRandom             ``True``: the op draws random numbers (``dropout``, ``normal``,
                    ``_variable_init``...): a second run gives other values, so Mirror never
                    recomputes one.
FFlops              ``f(attrs, in_shapes, out_shapes) -> int | None``: an estimate of the FLOPs
                    of one run (matmul, convolutions, linear, pooling); None, or missing: one
                    per element of the largest input or output.  Read by Mirror's policies.
==================  ==========================================================================
"""
from __future__ import annotations

from .errors import ShapeError

__all__ = [
    "broadcast_shapes",
    "inplace_first",
    "no_gradient",
    "same_as_input",
    "same_shape",
    "same_type",
    "shape_str",
]


def shape_str(shape) -> str:
    """``(2, 3)`` -> ``"(2, 3)"``; ``None`` -> ``"?"``."""
    return "?" if shape is None else str(tuple(shape))


def same_shape(attrs, in_shapes, out_shapes) -> tuple[list, list]:
    """FInferShape for ops whose inputs and outputs all have one shape."""
    known = [s for s in list(in_shapes) + list(out_shapes) if s is not None]
    if not known:
        return in_shapes, out_shapes
    shape = known[0]
    for s in known[1:]:
        if s != shape:
            raise ShapeError(
                "all inputs and outputs must have one shape, got "
                + ", ".join(shape_str(x) for x in in_shapes + out_shapes))
    return [shape] * len(in_shapes), [shape] * len(out_shapes)


def same_as_input(index):
    """FInferShape of an op whose only output has the shape of input ``index`` (a backward op
    giving that input's gradient)."""
    def rule(attrs, in_shapes, out_shapes):
        shape = in_shapes[index] if in_shapes[index] is not None else out_shapes[0]
        in_shapes = list(in_shapes)
        in_shapes[index] = shape
        return in_shapes, [shape]
    return rule


def same_type(attrs, in_types, out_types) -> tuple[list, list]:
    """FInferType for ops whose inputs and outputs all have one dtype (the default)."""
    known = [t for t in list(in_types) + list(out_types) if t is not None]
    if not known:
        return in_types, out_types
    return [known[0]] * len(in_types), [known[0]] * len(out_types)


def broadcast_shapes(a, b) -> tuple:
    """Numpy broadcasting of two shapes; ``ShapeError`` when they do not broadcast."""
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise ShapeError(f"shapes {a} and {b} do not broadcast")
        out.append(y if x == 1 else x)
    return tuple(out)


def inplace_first(attrs) -> list[tuple[int, int]]:
    """FInplaceOption: output 0 may reuse input 0's memory."""
    return [(0, 0)]


def no_gradient(node, out_grads) -> list[None]:
    """FGradient of ops through which no gradient flows (argmax, equal, zeros_like...)."""
    return [None] * len(node.inputs)
