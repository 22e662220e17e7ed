"""``tf.Session``: a variable store, cached executors, feed validation and ``run``."""
from __future__ import annotations

import contextlib
import functools
import math
import numbers
import threading
import time
import weakref
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import torch

from ..executor import (
    ClosureReport,
    Executor,
    ExecutorCache,
    MemoryPlanReport,
    bind_executor,
    closure_report,
    collect_lua_garbage,
    memory_plan_report,
    release,
)
from ..executor.memory import Buffer, ResourceExhaustedError, check_fits
from ..nnvm.composite import CompositeTensor
from ..nnvm.errors import GraphError, InvalidArgumentError, ShapeError
from ..nnvm.symbol import (
    Node,
    NodeEntry,
    Symbol,
    current_context,
    default_session,
    get_default_session,
)
from .options import session_options, step_stats
from .pull import fetched_strings, pull_feeds, string_feed
from .variables import Initializer, SessionClosedError, VariableStore

__all__ = ["InteractiveSession", "Session", "SessionClosedError", "get_default_session"]


@functools.cache
def _numpy_dtype(name: str) -> np.dtype:
    return np.dtype(name)


def _feed_array(node, value, dtype) -> np.ndarray:
    """A feed for placeholder ``node`` as a C-order array of ``dtype`` (converted as
    TensorFlow does; 0-d feeds stay 0-d), or TypeError / ValueError naming the placeholder."""
    if isinstance(value, torch.Tensor):
        if value.device.type != "cpu":  # .cpu() copies it to the host: sized first
            check_fits([Buffer(value.numel() * value.element_size(), node, tuple(value.shape),
                               dtype, "feed, copied to the host")], torch.device("cpu"))
        value = value.detach().cpu().numpy()
    if not isinstance(value, np.ndarray) and (  # arrays first: the usual feed
            isinstance(value, (str, bytes))
            or not isinstance(value, (numbers.Number, list, tuple))):
        raise TypeError(f"{_feed_of(node)} must be numeric, got {type(value).__name__}")
    try:
        array = np.asarray(value)
    except ValueError as err:
        raise ValueError(f"{_feed_of(node)} is not a regular array: {err}") from None
    except MemoryError:  # nested lists sharing one row: numpy's error names no placeholder
        raise ResourceExhaustedError(f"{_feed_of(node)} does not fit in memory as an array",
                                     node) from None
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{_feed_of(node)} must be numeric, got dtype {array.dtype} "
                        f"(shape {array.shape})")
    _check_copy(node, array, _numpy_dtype(dtype))
    return np.asarray(array, dtype=dtype, order="C")


def _check_copy(node, array: np.ndarray, dtype: np.dtype) -> None:
    """ResourceExhaustedError naming the placeholder when the C-order copy of ``array`` in
    ``dtype`` a feed needs (a view, a zero-stride one too, or another dtype) does not fit in
    the host's memory: checked from shape x itemsize, before anything is copied."""
    if array.dtype == dtype and array.flags.c_contiguous:
        return  # no copy: the feed is used as it is
    nbytes = math.prod(array.shape) * dtype.itemsize
    check_fits([Buffer(nbytes, node, array.shape, dtype.name, "feed, as a C-order copy")],
               torch.device("cpu"))


def _feed_of(node) -> str:
    """How feed errors name the placeholder, or the tensor a fed input stands for (built only
    when one is raised)."""
    what = "tensor" if node.attrs.get("fed_tensor") else "placeholder"
    return f"feed for {what} '{node.name}' (created at {node.source})"


def _flat_feeds(feed_dict):
    """``(key, value)`` pairs of ``feed_dict``, a tuple key (``LSTMStateTuple(c, h)``, any
    tuple, list or namedtuple of tensors) paired element by element with its value, as TF."""
    pairs = []
    for key, value in feed_dict.items():
        stack = [(key, value)]
        while stack:
            key, value = stack.pop()
            if isinstance(key, CompositeTensor):  # a tf.SparseTensor: its parts, checked
                stack.extend(key._feed_components(value))
                continue
            if not isinstance(key, (tuple, list)):
                pairs.append((key, value))
                continue
            if not isinstance(value, (tuple, list)) or len(value) != len(key):
                raise ValueError(f"a feed_dict key that is a tuple of {len(key)} tensors needs "
                                 f"a tuple or list of {len(key)} values, got "
                                 f"{type(value).__name__}")
            stack.extend(zip(key, value))
    return pairs


class Session:
    """A place to run graphs: holds variable values (:attr:`variable_store`) and executors per
    fetch set and feed shapes.

    Parameters
    ----------
    config : str or tf.ConfigProto
        ``"cpu"`` or ``"gpu"`` (CUDA), optionally followed by ``"profile"`` to time every op
        (see :meth:`profile`), ``"fusion"`` (elementwise chains compiled into one kernel) and
        ``"graph"`` (the step replayed as CUDA graphs): see
        :func:`tinyflow.session.options.session_options`; a ``tf.ConfigProto`` or None: ``"cpu"``.
    plan_memory : bool
        False gives every entry its own storage (no sharing, no in-place): for tests and
        teaching.
    graph : tf.Graph, optional
        The graph whose tensors this session runs (default: the default graph now).
    executor_cache_size : int
        Feed signatures (the shapes of a run's feeds) whose executors are kept per fetch set,
        least recently used dropped first (default 8): a run whose feeds change shape binds a
        new executor, so alternating batch sizes costs a bind only the first time.  Each one
        holds its plan's storage until it is dropped.
    memory : str or dict, optional
        How much of the forward pass a training step keeps for its backward pass.  None (the
        default, unless the environment variable ``TINYFLOW_MEMORY`` names a policy): every
        activation the gradient reads is kept.  ``"sublinear"`` (or ``"sqrt"``): Chen's
        checkpointing, segments of about sqrt(n) layers recomputed in the backward pass;
        ``"mirror"``: recompute cheap elementwise ops, keep matmul / convolution outputs;
        ``{"policy": "budget", "budget_bytes": N}``: Chen's greedy segmenting with at most
        about N bytes recomputed per segment.  See :mod:`tinyflow.nnvm.optimizations.mirror` and
        :meth:`memory_plan`.
    optimize : bool
        False runs the core passes only (InferShape, InferType, MaterializeShapes,
        OrderMutation, PlanMemory; the table is :data:`tinyflow.executor.pipeline.PIPELINE`):
        the teaching engine alone, computing the same values as the optimised one.  It cannot
        go with ``fusion`` or ``memory=``.

    All of these are parsed once into :attr:`options`, a frozen
    :class:`~tinyflow.session.options.SessionOptions` every executor of the session takes.

    ``with tf.Session() as sess:`` makes it the default session (``tensor.eval()``) and its
    graph the default graph inside the block, and closes it at the end, as in TensorFlow.

    **Threads.**  One session may run steps from several threads, as TensorFlow's can.  A run
    checks an executor out of the cache for itself: a second run of the same fetches and feed
    shapes going on at once binds a second executor (at most 4 are kept idle per signature), so
    two runs never share planned storage.  What runs in parallel: feed conversion, copying the
    results out, and the torch kernels' own threads.  What is serialised: every call into the
    one Lua runtime (lupa lets one thread in at a time, so a step's closures run as one block:
    a profiled or traced run, which calls Lua per op, may interleave with another), and binding
    executors and the bookkeeping of variables (a lock per session).  Variable updates from
    concurrent steps may interleave as in TensorFlow (``use_locking=False``): each step reads
    the values some order of the steps gives.  Sessions of their own per thread share nothing
    but the Lua runtime.

    **Memory.**  :meth:`close`, or dropping the last reference to the session, frees its
    variables' tensors and every executor's storage at once (it runs Lua's collector, since
    Lua's closures hold the tensors); so does dropping an executor from the cache.  A closed
    session refuses any use with :class:`SessionClosedError`.  Before allocating, a plan is
    checked against the memory the device can give: too much raises
    :class:`~tinyflow.executor.ResourceExhaustedError` naming the op, node, shape and bytes,
    and the session stays usable with its variables unchanged.

    **fork.**  A process forked after a session ran can hang in torch's intra-op thread pool
    (OpenMP).  In the child call ``torch.set_num_threads(1)`` before running anything, or
    start children with ``multiprocessing.get_context("spawn")``.  Fork only while no other
    thread is inside a run (the Lua runtime's lock would stay taken in the child).
    """

    def __init__(self, config="cpu", plan_memory: bool = True, graph=None, *,
                 executor_cache_size: int = 8, memory=None, optimize: bool = True) -> None:
        self.options = session_options(config, plan_memory, memory, optimize)
        if self.options.device == "gpu" and not torch.cuda.is_available():
            raise RuntimeError("Session(config='gpu') needs CUDA, and torch sees no CUDA "
                               "device here; use config='cpu'")
        if self.options.device == "gpu":  # float32 convolutions in float32, as TF 1.15 (no TF32)
            torch.backends.cudnn.allow_tf32 = False
        self.device = torch.device(self.options.device_type)
        self.graph = graph if graph is not None else current_context()
        self._profile = {} if self.options.profile else None
        self.variable_store = VariableStore()
        self._executors = ExecutorCache(executor_cache_size)
        self._fed_inputs = {}  # NodeEntry of a fed tensor -> the input node standing for it
        self._pulled = {}  # fetched entries -> the FPullOutputs nodes they need (pull.py)
        self._state_lock = threading.RLock()  # builds, waiting initialisers, the store's marks
        self._entered = contextlib.ExitStack()
        # frees the tensors when the session is closed or becomes garbage (not self: it would
        # keep the session alive)
        self._free = weakref.finalize(self, _free_session, self._executors, self.variable_store)
        self._free.atexit = False

    # -- public ---------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Compute ``fetches`` given ``feed_dict``.

        ``fetches`` is a symbol, a tensor or operation name (``"accuracy:0"``, ``"train"``), or
        a list, tuple, namedtuple or dict of those, nested as deep as wanted; the result has
        the same structure, with a numpy array per tensor and ``None`` per operation (``tf.group``,
        an optimizer's ``minimize``).  ``feed_dict`` keys are tensors or their names
        (``"x:0"``), or tuples of them (an ``LSTMStateTuple``) with a tuple of values.  A fed
        tensor that is not a placeholder (an LSTM's state, ``x / 255.``, a ``tf.Variable``)
        takes the fed value for this run: what only its producers needed does not run (nor
        need feeding), a fed variable keeps its stored value, and fetching it gives the fed
        value, as in TensorFlow.
        Feeds, shapes and variable state are all checked before the first op runs; a run
        rejected then changes nothing.  An error inside an op body stops the run there: ops that
        ran before it (including assigns) keep their effect.  ``tf.global_variables_initializer()``
        leaves a variable whose shape is not known yet (a layer weight shaped by the feeds) to
        the first run that infers its shape.  ``options=tf.RunOptions(trace_level=FULL_TRACE)``
        with ``run_metadata=tf.RunMetadata()`` times each op into ``run_metadata.step_stats``.
        """
        self._check_open()
        symbols, rebuild = self._flatten_fetches(fetches)
        trace = [] if run_metadata is not None and getattr(options, "trace_level", 0) else None
        feeds = self._convert_feeds(feed_dict) if feed_dict else {}
        timeout_ms = getattr(options, "timeout_in_ms", 0)
        strings = {}
        if self.graph.pulls_outputs or any(type(v) is np.ndarray for v in feeds.values()):
            # a tf.data iterator's next element, a string fed (session/pull.py)
            feeds, strings = pull_feeds(self, symbols, feeds, timeout_ms)
        results = fetched_strings(symbols, strings, lambda rest: self._run_symbols(
            rest, feeds, trace, timeout_ms=timeout_ms)) if strings else self._run_symbols(
            symbols, feeds, trace, timeout_ms=timeout_ms)
        if trace is not None:
            run_metadata.step_stats = step_stats(self.device.type, trace)
        return rebuild(results)

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """TF's ``Session.make_callable``: a function running ``fetches`` fed the values it is
        given, in the order of ``feed_list``'s tensors (with ``accept_options``, it also takes
        ``options=`` and ``run_metadata=``)."""
        feed_list = list(feed_list or [])

        def call(*feed_values, options=None, run_metadata=None):
            if len(feed_values) != len(feed_list):
                raise InvalidArgumentError(None, None, f"Expected {len(feed_list)} input "
                                           f"tensors, but got {len(feed_values)}")
            if not accept_options and (options is not None or run_metadata is not None):
                raise TypeError("this callable was made without accept_options=True")
            return self.run(fetches, dict(zip(feed_list, feed_values)), options, run_metadata)
        return call

    def _run_symbols(self, symbols, feeds, trace=None, python=True, timeout_ms=0) -> list:
        fed = self._fed_among(feeds) if feeds else {}
        python_nodes = _python_nodes(symbols, fed) if python else []
        if python_nodes:
            return self._run_python(symbols, python_nodes, feeds, trace, timeout_ms, fed)
        store = self.variable_store
        run_symbols = symbols
        if any(isinstance(s, Initializer) for s in symbols):  # the state lock only for them
            with self._state_lock:
                feed_shapes = {n: tuple(v.shape) for n, v in feeds.items()}
                run_symbols = [store.initializing(s, feed_shapes) if isinstance(s, Initializer)
                               else s for s in symbols]
        entries = (tuple(run_symbols[0].outputs) if len(run_symbols) == 1
                   else tuple(e for s in run_symbols for e in s.outputs))
        # _checkout, not the _checked_out generator: this runs every step
        executor, signature = self._checkout(entries, feeds)
        try:
            # feeds it does not read: skipped
            outputs = executor.run(feeds, self._profile, trace, timeout_ms)
            results, position = [], 0
            for s, ran in zip(symbols, run_symbols):
                # an operation (an optimizer step) gives None: its outputs are not copied out
                results.append(None if s.is_operation else self._to_numpy(outputs[position]))
                position += len(ran.outputs)
        finally:
            self._executors.checkin(entries, signature, executor)
        initialised = set()
        if run_symbols is not symbols:  # initialisers ran: the variables they set
            initialised = {e.node.inputs[0].node for s, ran in zip(symbols, run_symbols)
                           if isinstance(s, Initializer) for e in ran.outputs}
        if executor.assigned_variables or initialised:
            with self._state_lock:
                store.mark_assigned(executor.assigned_variables, by_initializer=initialised)
        return results

    def _run_python(self, symbols, python_nodes, feeds, trace, timeout_ms, fed) -> list:
        """The executor runs the other fetches and what ``python_nodes`` (inputs first) read,
        then each one's FPythonCompute builds its value from its inputs' values."""
        self._check_graph(python_nodes[::-1])  # fetched ones last in python_nodes
        direct = [s for s in symbols if not _is_python(s, fed)]
        # one the executor runs anyway (the other fetches read it) is taken from it, so its
        # function (a tf.Print's, a tf.py_func's) runs once a run
        inside = _ancestors(e.node for s in direct for e in s.outputs)
        python_nodes = [n for n in python_nodes if n not in inside]
        reads = list(dict.fromkeys(
            [e for n in python_nodes for e in n.inputs
             if _python_compute(e.node) is None or e in fed or e.node in inside]
            + [s.outputs[0] for s in symbols if _is_python(s, fed)
               and s.outputs[0].node in inside]))
        # a string fed or pulled (pull.py), by its placeholder or the node fed in its stead
        strings = {e: feeds[fed.get(e, e.node)] for e in reads
                   if type(feeds.get(fed.get(e, e.node))) is np.ndarray}
        reads = [e for e in reads if e not in strings]  # a string fed (pull.py) is its value
        engine = direct + [Symbol([e]) for e in reads]
        values = dict(zip(direct + reads, self._run_symbols(engine, feeds, trace, False,
                                                            timeout_ms)
                          if engine else []))  # by fetched symbol, and by entry read
        values.update(strings)
        for node in python_nodes:
            start, clock = time.time(), time.perf_counter()
            inputs = [values[e] for e in node.inputs]
            value = (_python_compute(node)(node, inputs, self.variable_store.resources)
                     if node.op.attr("TSessionState") else _python_compute(node)(node, inputs))
            count = node.num_outputs()  # several outputs: a list of values (py_func's)
            values.update(zip([NodeEntry(node, i) for i in range(count)],
                              [value] if count == 1 else value))
            if trace is not None:
                trace.append((node, start, time.perf_counter() - clock))
        return [None if s.is_operation else values[s.outputs[0] if _is_python(s, fed) else s]
                for s in symbols]

    def memory_plan(self, fetch, feed_dict=None) -> MemoryPlanReport:
        """The memory plan the executor for ``fetch`` uses with these feeds' shapes (binds the
        executor if needed; runs nothing).  ``str()`` of the result is a readable table; with
        a ``memory=`` policy it also says which ops are recomputed, their bytes and FLOPs
        (``report.recomputed``, ``report.extra_flops``) and the forward bytes kept for the
        backward pass (``report.kept_bytes``, against ``report.kept_bytes_before``)."""
        return memory_plan_report(self._bind(fetch, feed_dict))

    def closures(self, fetch, feed_dict=None) -> ClosureReport:
        """The Lua closures a run of ``fetch`` makes with these feeds' shapes, in the order
        they run (binds the executor if needed; runs nothing).  ``str()`` of the result lists
        them with their shapes; its ``rows`` hold each one's Lua body."""
        return closure_report(self._bind(fetch, feed_dict))

    def profile(self, reset: bool = False) -> str:
        """Per-op time of the runs so far (needs ``Session(config='cpu profile')``)."""
        if self._profile is None:
            raise RuntimeError("profiling is off: create the session with config='cpu profile'")
        total = sum(t for t, _ in self._profile.values()) or 1.0
        lines = [f"{'op':<28}{'calls':>8}{'total ms':>12}{'share':>8}"]
        for name, (t, calls) in sorted(self._profile.items(), key=lambda kv: -kv[1][0]):
            lines.append(f"{name:<28}{calls:>8}{t * 1e3:>12.3f}{t / total:>8.1%}")
        if reset:
            self._profile.clear()
        return "\n".join(lines)

    def close(self) -> None:
        """Free the variables' tensors and the executors' storage now (and stop being the
        default session); any later use raises :class:`SessionClosedError`.  A run going on
        in another thread meanwhile fails with that error or finishes."""
        self._entered.close()
        self._free()  # runs once: closing twice is fine

    @property
    def graph_def(self):
        """The session's graph in TinyFlow's graph format (``self.graph.as_graph_def()``)."""
        return self.graph.as_graph_def()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self.variable_store.closed

    def _check_open(self):
        if self.variable_store.closed:
            raise SessionClosedError("Attempted to use a closed Session: Session.close() (or "
                                     "the end of its with block) freed its variables and "
                                     "executors; create a new session")

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Session]:
        """Make this the default session of this thread inside the ``with`` block."""
        with default_session(self):
            yield self

    def __enter__(self):
        self._entered.enter_context(self.graph.as_default())
        self._entered.enter_context(self.as_default())
        return self

    def __exit__(self, *exc):
        self.close()

    # -- helpers -------------------------------------------------------------------------
    def _flatten_fetches(self, fetches):
        """``(symbols, rebuild)``: the symbols in ``fetches`` and the function putting one
        result per symbol back into the structure of ``fetches``."""
        if isinstance(fetches, (Symbol, str, Node)):
            return [self._as_symbol(fetches)], lambda results: results[0]
        if isinstance(fetches, CompositeTensor):  # a tf.SparseTensor: a SparseTensorValue
            return list(fetches._components()), fetches._from_components
        if isinstance(fetches, dict):
            keys = list(fetches)
            parts = [self._flatten_fetches(fetches[k]) for k in keys]
        elif isinstance(fetches, (list, tuple)):
            keys = None
            parts = [self._flatten_fetches(f) for f in fetches]
        else:
            raise TypeError(f"can only fetch symbols, tensor or operation names, and lists, "
                            f"tuples or dicts of them, got {type(fetches).__name__}")
        symbols = [s for part, _ in parts for s in part]
        counts = [len(part) for part, _ in parts]

        def rebuild(results):
            values, start = [], 0
            for (_, inner), count in zip(parts, counts):
                values.append(inner(results[start:start + count]))
                start += count
            if keys is not None:
                return type(fetches)(zip(keys, values))
            if hasattr(fetches, "_fields"):  # a namedtuple
                return type(fetches)(*values)
            return type(fetches)(values)
        return symbols, rebuild

    def _as_symbol(self, fetch) -> Symbol:
        if isinstance(fetch, str):
            return (self.graph.get_tensor_by_name(fetch) if ":" in fetch
                    else self.graph.get_operation_by_name(fetch))
        if isinstance(fetch, Node):  # an operation (tensor.op): run, giving None
            return Symbol([NodeEntry(fetch, i) for i in range(fetch.num_outputs())],
                          is_operation=True)
        return fetch

    def _convert_feeds(self, feed_dict) -> dict:
        """``{input Node: tensor}``: each fed value checked and converted as TensorFlow does,
        keyed by its placeholder, or by the input node standing for a fed tensor (a string's:
        a numpy array of bytes)."""
        feeds = {}
        for key, value in _flat_feeds(feed_dict):
            node = self._feed_node(key)
            dtype = node.attrs.get("dtype", "float32")
            # the usual feed, a numeric array, skips _feed_array's checks (and dtype.name: 2 us)
            if dtype == "string":  # only ops pulled before the run read it (pull.py)
                value = string_feed(_feed_of(node), value)
            elif type(value) is np.ndarray and value.dtype.kind in "biuf":
                _check_copy(node, value, _numpy_dtype(dtype))
                value = np.asarray(value, dtype=_numpy_dtype(dtype), order="C")
            else:
                value = _feed_array(node, value, dtype)
            declared = node.attrs.get("shape")
            if declared is not None and (len(declared) != value.ndim or any(
                    d is not None and d >= 0 and d != s for d, s in zip(declared, value.shape))):
                shown = ", ".join("?" if d is None or d < 0 else str(d) for d in declared)
                what = ("the tensor has" if node.attrs.get("fed_tensor")
                        else "the placeholder was declared with")
                raise ShapeError(f"{_feed_of(node)} has shape {value.shape}, but {what} "
                                 f"shape ({shown})")
            feeds[node] = value if dtype == "string" else torch.from_numpy(value)
        return feeds

    def _feed_node(self, key) -> Node:
        """The input node a feed_dict key is fed through: a placeholder's own node, else the
        one standing for the tensor (made once per tensor and session, so executors bound
        with it are cached under it)."""
        key = self.graph.get_tensor_by_name(key) if isinstance(key, str) else key
        if not isinstance(key, Symbol) or key.is_operation or len(key.outputs) != 1:
            raise TypeError(f"feed_dict keys must be tensors (a placeholder, any tensor, a "
                            f"tf.Variable), tensor names ('x:0') or tuples of them, got {key!r}")
        entry = key.outputs[0]
        if entry.node.kind == "placeholder":
            return entry.node
        visible = entry.node.op is not None and entry.node.op.attr("FNumVisibleOutputs")
        if visible and entry.index >= visible(entry.node.attrs):  # max_pool2d's argmax
            raise GraphError(f"{key.name} is a hidden output of op '{entry.node.op.name}' "
                             f"(kept for its gradient): it cannot be fed")
        node = self._fed_inputs.get(entry)
        if node is None:
            static = key.get_shape()
            shape = None if static.ndims is None else tuple(
                -1 if d is None else d for d in static.as_list())
            dtype = (entry.node.attrs.get("dtype", "float32") if entry.node.op is None
                     else key.dtype.name)
            node = self._fed_inputs.setdefault(entry, Node(
                None, f"{entry.node.name}:{entry.index}",
                {"kind": "placeholder", "dtype": dtype, "shape": shape, "fed_tensor": True},
                source=entry.node.source, graph=entry.node.graph))
        return node

    def _fed_among(self, feeds) -> dict:
        """``{NodeEntry: input Node}`` of the fed tensors among ``feeds`` that are not
        placeholders."""
        if not self._fed_inputs:
            return {}
        return {entry: node for entry, node in self._fed_inputs.items() if node in feeds}

    def _bind(self, fetch, feed_dict) -> Executor:
        """The executor a run of ``fetch`` with these feeds' shapes takes (bound now if none
        is cached); for reports: it is back in the cache, for any run to take."""
        symbols, _ = self._flatten_fetches(fetch)
        feeds = self._convert_feeds(feed_dict or {})
        with self._checked_out(tuple(e for s in symbols for e in s.outputs), feeds) as executor:
            return executor

    @contextlib.contextmanager
    def _checked_out(self, entries, feeds):
        """An executor for ``entries`` bound to the shapes of ``feeds``, this thread's alone
        inside the block (see :meth:`_checkout`)."""
        executor, signature = self._checkout(entries, feeds)
        try:
            yield executor
        finally:
            self._executors.checkin(entries, signature, executor)

    def _checkout(self, entries, feeds):
        """``(executor, signature)``: an executor for ``entries`` bound to the shapes of
        ``feeds``, from the cache or bound now (the waiting initialisers of the variables it
        reads run first), this thread's alone until checked in with ``signature``."""
        signature = frozenset((node, tuple(value.shape)) for node, value in feeds.items())
        with self._state_lock:
            self._check_open()
            executor = self._executors.checkout(entries, signature)
            if executor is None:
                executor = self._build(entries, feeds)
                self._executors.add(entries, signature, executor)
            try:
                self._run_pending(executor)
            except BaseException:
                self._executors.checkin(entries, signature, executor)
                raise
        return executor, signature

    def _build(self, entries, feeds, options=None) -> Executor:
        """Bind an executor, have the store make the tensors of the variables it shaped first
        (so every executor of the session shares one tensor per variable), then allocate."""
        self._check_graph([e.node for e in entries] + list(feeds))
        store = self.variable_store
        executor = bind_executor(list(entries), {n: tuple(v.shape) for n, v in feeds.items()},
                                 store, options or self.options, self._fed_among(feeds))
        created = store.create(executor.unstored_variables(store), self.device)
        try:
            executor.allocate(store)
        except BaseException:
            store.discard(created)  # a build that failed leaves the store as it was
            raise
        return executor

    def _check_graph(self, nodes):
        foreign = [n for n in nodes if n.graph is not self.graph]
        if foreign:
            raise GraphError(f"{foreign[0].describe()} is not an element of this session's "
                             f"graph: build it in the session's graph, or create the session "
                             f"with graph= its graph")

    def _run_pending(self, executor):
        """Run the waiting initialisers of the variables ``executor`` reads, now that it gave
        them shapes (and the store tensors, when it was built)."""
        store = self.variable_store
        if not store.pending_among(executor.read_variables):  # most runs: no order to work out
            return
        created = {v.node: i for i, v in enumerate(self.graph.variables)}
        # in the order the variables were made, not the plan's: a graph draws the same initial
        # values whatever the memory policy orders (unseeded ones from torch's one stream)
        read = sorted((n for n in executor.indexed.nodes if n in executor.read_variables),
                      key=lambda n: created.get(n, len(created)))
        ready = store.pending_among(read)
        if ready:  # built as any executor, run once, not cached; no fusion or memory policy,
            # as before: a fused kernel could round an initial value differently
            once = self._build(ready, {}, replace(self.options, fusion=None, graph=False,
                                                  memory_policy=None, memory_budget_bytes=None))
            try:
                once.run({})
            finally:
                release([once])
            store.mark_assigned([e.node.inputs[0].node for e in ready],
                                by_initializer=[e.node.inputs[0].node for e in ready])

    def _to_numpy(self, tensor):
        if self.device.type == "cpu":  # planned and variable tensors never require grad
            array = tensor.numpy().copy()  # the planned storage is reused by the next run
        else:
            array = tensor.detach().cpu().numpy()
        return array[()] if array.ndim == 0 else array

    def __repr__(self):
        if self.closed:
            return f"<tinyflow.Session {self.device.type} closed>"
        return f"<tinyflow.Session {self.device.type} variables={len(self.variable_store)}>"


def _free_session(executors, variable_store):
    """What closing (or collecting) a session does: free the executors' storage and the
    variables' tensors, then run Lua's collector, which drops the closures' references."""
    executors.clear()
    variable_store.close()
    collect_lua_garbage()


def _python_compute(node):
    """The FPythonCompute of ``node``'s op (nnvm/attrs.py): how its fetch is built, or None."""
    return node.op.attr("FPythonCompute") if node.op is not None else None


def _is_python(symbol, fed=()) -> bool:
    """A fetch computed in Python (not one fed: the executor gives it its fed value)."""
    return (len(symbol.outputs) == 1 and _python_compute(symbol.outputs[0].node) is not None
            and symbol.outputs[0] not in fed)


def _ancestors(nodes) -> set:
    """``nodes`` and every node they depend on (inputs and control dependencies), not through
    a pulled node's inputs (its pull reads them: the executor is fed its value)."""
    seen, stack = set(), list(nodes)
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            if node.op is None or node.op.attr("FPullOutputs") is None:
                stack.extend(e.node for e in node.inputs)
            stack.extend(node.control_deps)
    return seen


def _python_nodes(symbols, fed=()) -> list:
    """The fetched nodes computed in Python and the ones they read, inputs first (fed entries
    come from the executor)."""
    order, seen = [], set()
    stack = [(s.outputs[0].node, False) for s in reversed(symbols) if _is_python(s, fed)]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            order.append(node)
        elif node not in seen:
            seen.add(node)
            stack.append((node, True))
            stack.extend((e.node, False) for e in reversed(node.inputs)
                         if _python_compute(e.node) is not None and e not in fed)
    return order


class InteractiveSession(Session):
    """A session that makes itself the default one when created (for shells and notebooks),
    until :meth:`close`: ``tensor.eval()`` works without a ``with`` block."""

    def __init__(self, config="cpu", plan_memory: bool = True, graph=None) -> None:
        super().__init__(config, plan_memory, graph)
        self._entered.enter_context(self.as_default())
