"""``tf.Session``: a variable store, cached executors, feed validation and ``run``."""
from __future__ import annotations

import numbers

import numpy as np
import torch

from .executor import (
    ClosureReport,
    Executor,
    MemoryPlanReport,
    closure_report,
    memory_plan_report,
)
from .nnvm.errors import ShapeError
from .nnvm.symbol import Symbol
from .variables import Initializer, VariableStore

__all__ = ["Session"]


def _feed_of(node) -> str:
    """How feed errors name the placeholder (built only when one is raised)."""
    return f"feed for placeholder '{node.name}' (created at {node.source})"


class Session:
    """A place to run graphs: holds variable values (:attr:`variable_store`) and one executor
    per fetch set.

    Parameters
    ----------
    config : str
        ``"cpu"`` or ``"gpu"`` (CUDA), optionally followed by ``"profile"`` to time every op
        (see :meth:`profile`).
    plan_memory : bool
        False gives every entry its own storage (no sharing, no in-place): for tests and
        teaching.
    """

    def __init__(self, config: str = "cpu", plan_memory: bool = True):
        words = str(config).split()
        if not words or words[0] not in ("cpu", "gpu") or set(words[1:]) - {"profile"}:
            raise ValueError(f"Session config must be 'cpu' or 'gpu' (optionally followed by "
                             f"'profile'), got {config!r}")
        if words[0] == "gpu":
            if not torch.cuda.is_available():
                raise RuntimeError("Session(config='gpu') needs CUDA, and torch sees no CUDA "
                                   "device here; use config='cpu'")
            self.device = torch.device("cuda")
        else:
            self.device = torch.device("cpu")
        self.plan_memory = plan_memory
        self._profile = {} if "profile" in words else None
        self.variable_store = VariableStore()
        self._executors: dict = {}  # tuple of fetched entries -> Executor

    # -- public ---------------------------------------------------------------------------
    def run(self, fetch, feed_dict=None):
        """Compute ``fetch`` (a symbol, or a list/tuple of symbols) given ``feed_dict``.

        Returns a numpy array per fetched symbol (a list for a list), ``None`` for ops such as
        ``tf.group`` or an optimizer's ``minimize``.  Feeds, shapes and variable state are all
        checked before the first op runs; a run rejected then changes nothing.  An error inside
        an op body stops the run there: ops that ran before it (including assigns) keep their
        effect.  ``tf.global_variables_initializer()`` leaves a variable whose shape is not known
        yet (a layer weight shaped by the feeds) to the first run that infers its shape.
        """
        symbols, as_list = self._fetch_list(fetch)
        feeds = self._convert_feeds(feed_dict or {})
        store = self.variable_store
        feed_shapes = {n: tuple(v.shape) for n, v in feeds.items()}
        run_symbols = [store.initializing(s, feed_shapes) if isinstance(s, Initializer) else s
                       for s in symbols]
        entries = tuple(e for s in run_symbols for e in s.outputs)
        executor = self._executor(entries, feeds)
        self._run_pending(executor)
        outputs = executor.run({n: v for n, v in feeds.items() if n in executor.feed_buffers},
                               self._profile)
        initialised = {e.node.inputs[0].node for s, ran in zip(symbols, run_symbols)
                       if isinstance(s, Initializer) for e in ran.outputs}
        store.mark_assigned(executor.assigned_variables, by_initializer=initialised)
        results, position = [], 0
        for s, ran in zip(symbols, run_symbols):
            # an operation (an optimizer step) gives None: its outputs are not copied out
            results.append(None if s.is_operation else self._to_numpy(outputs[position]))
            position += len(ran.outputs)
        return results if as_list else results[0]

    def memory_plan(self, fetch, feed_dict=None) -> MemoryPlanReport:
        """The memory plan the executor for ``fetch`` uses with these feeds' shapes (binds the
        executor if needed; runs nothing).  ``str()`` of the result is a readable table."""
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

    def close(self):
        """Drop variable values and executors."""
        self.variable_store.clear()
        self._executors.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- helpers -------------------------------------------------------------------------
    @staticmethod
    def _fetch_list(fetch):
        if isinstance(fetch, Symbol):
            return [fetch], False
        if isinstance(fetch, (list, tuple)):
            for f in fetch:
                if not isinstance(f, Symbol):
                    raise TypeError(f"can only fetch symbols, got {type(f).__name__}")
            return list(fetch), True
        raise TypeError(f"can only fetch a symbol or a list of symbols, got "
                        f"{type(fetch).__name__}")

    @staticmethod
    def _convert_feeds(feed_dict) -> dict:
        feeds = {}
        for key, value in feed_dict.items():
            if not isinstance(key, Symbol) or key.node.kind != "placeholder":
                raise TypeError(f"feed_dict keys must be placeholders, got {key!r}")
            node = key.node
            if isinstance(value, torch.Tensor):
                value = value.detach().cpu().numpy()
            if isinstance(value, (str, bytes)) or not (
                    isinstance(value, (numbers.Number, np.ndarray, list, tuple))):
                raise TypeError(f"{_feed_of(node)} must be numeric, got {type(value).__name__}")
            try:
                array = np.asarray(value)
            except ValueError as err:
                raise ValueError(f"{_feed_of(node)} is not a regular array: {err}") from None
            if array.dtype.kind not in "biuf":
                raise TypeError(f"{_feed_of(node)} must be numeric, got dtype {array.dtype} "
                                f"(shape {array.shape})")
            array = np.asarray(array, dtype=np.float32, order="C")  # keeps 0-d feeds 0-d
            declared = node.attrs.get("shape")
            if declared is not None and (len(declared) != array.ndim or any(
                    d is not None and d >= 0 and d != s for d, s in zip(declared, array.shape))):
                shown = ", ".join("?" if d is None or d < 0 else str(d) for d in declared)
                raise ShapeError(f"{_feed_of(node)} has shape {array.shape}, but the "
                                 f"placeholder was declared with shape ({shown})")
            feeds[node] = torch.from_numpy(array)
        return feeds

    def _bind(self, fetch, feed_dict) -> Executor:
        symbols, _ = self._fetch_list(fetch)
        feeds = self._convert_feeds(feed_dict or {})
        return self._executor(tuple(e for s in symbols for e in s.outputs), feeds)

    def _executor(self, entries, feeds) -> Executor:
        executor = self._executors.get(entries)
        if executor is not None and all(
                tuple(v.shape) == executor.feed_shapes.get(n, tuple(v.shape))
                for n, v in feeds.items()) and all(n in feeds for n in executor.feed_buffers):
            return executor
        feed_shapes = {n: tuple(v.shape) for n, v in feeds.items()}
        executor = Executor(list(entries), feed_shapes, self.variable_store, self.device,
                            self.plan_memory)
        # The build succeeded: the store owns the tensors made for variables seen first here,
        # so every executor binds one tensor per variable (still uninitialised until assigned).
        self.variable_store.adopt(executor.new_variables)
        executor.new_variables = {}
        self._executors[entries] = executor
        return executor

    def _run_pending(self, executor):
        """Run the waiting initialisers of the variables ``executor`` reads, now that it gave
        them shapes (and tensors, adopted when it was built)."""
        store = self.variable_store
        ready = store.pending_among(n for n in executor.indexed.nodes
                                    if n in executor.read_variables)
        if ready:
            Executor(ready, {}, store, self.device, self.plan_memory).run({})
            store.mark_assigned([e.node.inputs[0].node for e in ready],
                                by_initializer=[e.node.inputs[0].node for e in ready])

    def _to_numpy(self, tensor):
        array = tensor.detach().cpu().numpy()
        if self.device.type == "cpu":
            array = array.copy()  # the planned storage is reused by the next run
        return array[()] if array.ndim == 0 else array

    def __repr__(self):
        return f"<tinyflow.Session {self.device.type} variables={len(self.variable_store)}>"
