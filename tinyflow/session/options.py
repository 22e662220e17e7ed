"""``tf.ConfigProto``, ``tf.GPUOptions``, ``tf.RunOptions`` and ``tf.RunMetadata``: the session
and run options TF-1 programs set, with what each means here.

``tf.Session(config=...)`` takes a ConfigProto or, as before, a string: ``"cpu"`` or ``"gpu"``,
optionally followed by ``"profile"``, ``"fusion"`` and ``"graph"``; :func:`session_options`
parses it with the session's other arguments into one :class:`SessionOptions`.  A ConfigProto
always gives a CPU session (TinyFlow picks CUDA only when asked with ``"gpu"``), so
``device_count={'GPU': 0}`` means what it says and ``gpu_options`` (``allow_growth``: PyTorch's allocator grows anyway) change nothing.
``allow_soft_placement`` and ``log_device_placement`` are accepted: every op runs on the
session's one device.  ``intra_op_parallelism_threads=N`` (N > 0) runs this session's steps on N
of torch's threads, fixed; 0 (the default) lets each executor choose between torch's count and
one by timing its runs (tinyflow/executor/threads.py, docs/performance.md), unless the
environment sets ``TF_DETERMINISTIC_OPS=1`` (TensorFlow's switch for reproducible results):
then every run has torch's count, so the same run gives the same bits.
``inter_op_parallelism_threads`` is accepted: ops run one after the other.  A field
TensorFlow does not have is an error naming it, as protobuf's.  A session made without a
ConfigProto takes the process's :class:`ThreadDefaults` (``tf.config.threading``'s), as
TensorFlow's takes its context's configuration.
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar

__all__ = ["ConfigProto", "DeviceStepStats", "GPUOptions", "NodeExecStats", "RunMetadata",
           "RunOptions", "SessionOptions", "StepStats", "ThreadDefaults", "memory_option", "proto",
           "session_options", "step_stats", "tensorboard"]


def tensorboard(module: str):
    """The ``tensorboard`` package's module ``module``; ImportError saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ImportError(f"TinyFlow writes TensorBoard's event files with the tensorboard "
                          f"package, which could not be imported ({err}): install TinyFlow's "
                          f"tensorboard extra, pip install \"tinyflow[tensorboard]\" (from a "
                          f"checkout: pip install -e \".[tensorboard]\")") from err


def proto(name: str):
    """The compiled protocol-buffer module ``tensorboard.compat.proto.<name>``
    (``"summary_pb2"``, ``"event_pb2"``...).

    Raises
    ------
    ImportError
        When the ``tensorboard`` package is not installed, saying how to install it.
    """
    return tensorboard(f"tensorboard.compat.proto.{name}")


class _Message:
    """A protocol-buffer-like record: the fields of ``FIELDS`` (name -> default, or a callable
    making it), set by keyword or attribute; another name is an error naming it."""

    FIELDS: ClassVar[dict] = {}

    def __init__(self, **fields):
        for name, default in self.FIELDS.items():
            object.__setattr__(self, name, default() if callable(default) else default)
        for name, value in fields.items():
            if name not in self.FIELDS:
                raise ValueError(f'Protocol message {type(self).__name__} has no "{name}" '
                                 f'field.')
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if name not in self.FIELDS:
            raise AttributeError(f'Assignment not allowed (no field "{name}" in protocol '
                                 f'message {type(self).__name__}).')
        object.__setattr__(self, name, value)


class GPUOptions(_Message):
    """TensorFlow's GPUOptions (no effect: see the module's doc)."""

    FIELDS: ClassVar[dict] = {
        "allow_growth": False, "per_process_gpu_memory_fraction": 0.0,
        "visible_device_list": "", "allocator_type": ""}


class ConfigProto(_Message):
    """TensorFlow's session configuration; what each field means here is in the module's doc."""

    FIELDS: ClassVar[dict] = {
        "device_count": dict, "intra_op_parallelism_threads": 0,
        "inter_op_parallelism_threads": 0, "use_per_session_threads": False,
        "allow_soft_placement": False, "log_device_placement": False,
        "gpu_options": GPUOptions, "operation_timeout_in_ms": 0}


class ThreadDefaults:
    """The process's thread counts for sessions made without a ConfigProto, as TensorFlow's
    context configuration (``tf.config.threading.set_intra_op_parallelism_threads``): 0 lets
    each executor choose; inter-op is recorded only (ops run one after the other)."""

    intra_op: int = 0
    inter_op: int = 0


class RunOptions(_Message):
    """Options of one ``sess.run``: ``trace_level`` above NO_TRACE (FULL_TRACE) times every op
    into the ``run_metadata`` given with it."""

    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = range(4)
    FIELDS: ClassVar[dict] = {
        "trace_level": 0, "timeout_in_ms": 0, "output_partition_graphs": False,
        "report_tensor_allocations_upon_oom": False}


class NodeExecStats(_Message):
    """One op's time in a traced run (microseconds; ``all_start_micros`` since the epoch)."""

    FIELDS: ClassVar[dict] = {
        "node_name": "", "all_start_micros": 0, "op_start_rel_micros": 0,
        "op_end_rel_micros": 0, "all_end_rel_micros": 0, "timeline_label": ""}


class DeviceStepStats(_Message):
    """The ops one device ran: ``device`` and ``node_stats``."""

    FIELDS: ClassVar[dict] = {"device": "", "node_stats": list}


class StepStats(_Message):
    """Per device, the ops a traced run ran: ``dev_stats``."""

    FIELDS: ClassVar[dict] = {"dev_stats": list}


class RunMetadata(_Message):
    """What a traced ``sess.run`` reports: ``step_stats``; ``SerializeToString()`` gives the
    ``RunMetadata`` protobuf that ``FileWriter.add_run_metadata`` writes (built with
    tensorboard's ``config_pb2``, imported then)."""

    FIELDS: ClassVar[dict] = {"step_stats": StepStats, "partition_graphs": list}

    def to_proto(self):
        """This record as tensorboard's ``config_pb2.RunMetadata`` (its ``step_stats`` only:
        a partition graph has no meaning here)."""
        step_stats_pb2 = proto("step_stats_pb2")
        devices = [step_stats_pb2.DeviceStepStats(device=d.device, node_stats=[
            step_stats_pb2.NodeExecStats(**{name: getattr(s, name) for name in
                                            NodeExecStats.FIELDS}) for s in d.node_stats])
                   for d in self.step_stats.dev_stats]
        return proto("config_pb2").RunMetadata(
            step_stats=step_stats_pb2.StepStats(dev_stats=devices))

    def SerializeToString(self, deterministic=True) -> bytes:
        """The ``RunMetadata`` protobuf's bytes (see :meth:`to_proto`)."""
        return self.to_proto().SerializeToString(deterministic=deterministic)


def _entry_name(entry) -> str:
    """TensorFlow's name of a node's input in a timeline label: ``node``, ``node:1``."""
    return entry.node.name if entry.index == 0 else f"{entry.node.name}:{entry.index}"


def step_stats(device_type: str, trace) -> StepStats:
    """StepStats of the session's device (``device_type`` ``"cpu"`` or ``"cuda"``) from
    ``trace``: ``(node, start in seconds since the epoch, seconds)`` per op run."""
    kind = "GPU" if device_type == "cuda" else "CPU"
    device = f"/job:localhost/replica:0/task:0/device:{kind}:0"
    stats = []
    for node, start, seconds in trace:
        micros = round(seconds * 1e6)
        stats.append(NodeExecStats(
            node_name=node.name, all_start_micros=int(start * 1e6), op_end_rel_micros=micros,
            all_end_rel_micros=micros, timeline_label=f"{node.name} = {node.kind}("
            f"{', '.join(_entry_name(e) for e in node.inputs)})"))
    return StepStats(dev_stats=[DeviceStepStats(device=device, node_stats=stats)])


@dataclass(frozen=True)
class SessionOptions:
    """What a session was asked for, parsed once by :func:`session_options` from the arguments
    of ``tf.Session(...)``; the session keeps it and hands it to each executor it binds."""

    device: str = "cpu"               # "cpu" or "gpu"
    profile: bool = False             # time every op
    fusion: str | None = None         # None, "compiled" or "eager": FuseElemwise's kernels
    graph: bool = False               # run the step as captured CUDA graph segments
    plan_memory: bool = True          # False: every entry its own storage (no sharing)
    memory_policy: str | None = None  # the Mirror pass's: "sqrt", "mirror", "budget" or None
    memory_budget_bytes: int | None = None  # the "budget" policy's bytes per segment
    optimize: bool = True             # False: the core passes only (executor/pipeline.py)
    threads: int | None = None        # torch threads per CPU run; None: chosen by timing;
    #                                   0: torch's count, never switched (reproducible bits)

    @property
    def device_type(self) -> str:
        """torch's name of the device: ``"cpu"`` or ``"cuda"``."""
        return "cuda" if self.device == "gpu" else "cpu"


_WORDS = {"profile", "fusion", "fusion-eager", "graph"}


def session_options(config=None, plan_memory: bool = True, memory=None,
                    optimize: bool = True) -> SessionOptions:
    """The options of a session, from what ``tf.Session(config, plan_memory, memory=,
    optimize=)`` was given.

    ``config``: a ConfigProto or None is a plain CPU session; a string is ``"cpu"`` or ``"gpu"``
    followed by any of these words:

    - ``profile``: time every op (``sess.profile()``);
    - ``fusion``: fuse chains of elementwise ops into one compiled kernel each (the
      FuseElemwise pass: inductor's C++ backend on the CPU, jiterator/NVRTC on CUDA);
      ``fusion-eager`` fuses the same groups but runs their generated code uncompiled;
    - ``graph``: split the step into segments of capturable ops and replay each as a CUDA
      graph (:mod:`tinyflow.executor.cuda_graph`).  On the CPU there is nothing to capture:
      ``"cpu graph"`` runs the same segments as plain closures, so the segmentation can be seen
      and tested without a GPU.

    ``memory``: see :func:`memory_option`; None takes the environment variable
    ``TINYFLOW_MEMORY`` when it is set.  ``optimize=False`` runs the core passes only (no
    optimisation pass: :data:`tinyflow.executor.pipeline.PIPELINE`), so it cannot go with
    ``fusion`` or ``memory=`` (an environment's policy is then ignored).
    """
    device, profile, fusion, graph = _config_words(config)
    if memory is None and optimize:
        memory = os.environ.get("TINYFLOW_MEMORY") or None
    memory = memory_option(memory) or {}
    if not optimize and (fusion or memory):
        raise ValueError("optimize=False runs the core passes only: it cannot go with "
                         "'fusion' or memory=, which ask for optimisation passes")
    return SessionOptions(device, profile, fusion, graph, bool(plan_memory),
                          memory.get("policy"), memory.get("budget_bytes"), bool(optimize),
                          _intra_op_threads(config))


def _intra_op_threads(config) -> int | None:
    """A ConfigProto's ``intra_op_parallelism_threads`` when above 0; else 0 (torch's count,
    never switched between runs) when the environment sets TensorFlow's
    ``TF_DETERMINISTIC_OPS`` to 1 or true, else None (chosen by timing).  ValueError when it
    is not a non-negative int."""
    threads = (config.intra_op_parallelism_threads if isinstance(config, ConfigProto) else
               max(ThreadDefaults.intra_op, 0))
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
        raise ValueError(f"ConfigProto.intra_op_parallelism_threads must be an int >= 0, got "
                         f"{threads!r}")
    deterministic = os.environ.get("TF_DETERMINISTIC_OPS", "").lower() in ("1", "true")
    return threads or (0 if deterministic else None)


def _config_words(config) -> tuple:
    """``(device, profile, fusion, graph)`` of a session's ``config`` (see
    :func:`session_options`); ValueError naming a bad string."""
    if config is None or isinstance(config, ConfigProto):
        return "cpu", False, None, False
    words = str(config).split()
    if not words or words[0] not in ("cpu", "gpu") or set(words[1:]) - _WORDS:
        raise ValueError(f"Session config must be a tf.ConfigProto, or 'cpu' or 'gpu' "
                         f"(optionally followed by {', '.join(sorted(_WORDS))}), got "
                         f"{config!r}")
    if {"fusion", "fusion-eager"} <= set(words):
        raise ValueError(f"Session config {config!r}: 'fusion' and 'fusion-eager' exclude each "
                         f"other")
    fusion = "compiled" if "fusion" in words else "eager" if "fusion-eager" in words else None
    return words[0], "profile" in words, fusion, "graph" in words


_POLICY_NAMES = MappingProxyType({"sublinear": "sqrt", "sqrt": "sqrt", "mirror": "mirror",
                                  "budget": "budget"})


def memory_option(memory) -> dict | None:
    """``Session(memory=...)`` as ``{"policy": ..., "budget_bytes": ...}`` (None: keep every
    activation); ValueError naming what is wrong."""
    if memory is None:
        return None
    if isinstance(memory, str):
        memory = {"policy": memory}
    if not isinstance(memory, dict):
        raise TypeError(f"memory must be None, a policy name or a dict, got "
                        f"{type(memory).__name__}")
    unknown = set(memory) - {"policy", "budget_bytes"}
    if unknown:
        raise ValueError(f"memory: unknown key(s) {sorted(unknown)}; it takes 'policy' and "
                         f"'budget_bytes'")
    policy = _POLICY_NAMES.get(memory.get("policy"))
    if policy is None:
        raise ValueError(f"memory policy must be one of {sorted(_POLICY_NAMES)}, got "
                         f"{memory.get('policy')!r}")
    budget = memory.get("budget_bytes")
    if (policy == "budget") != (budget is not None):
        raise ValueError("memory: budget_bytes goes with the 'budget' policy (and it needs "
                         "one)")
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool)
                               or budget <= 0):
        raise ValueError(f"memory: budget_bytes must be a positive int, got {budget!r}")
    return {"policy": policy, "budget_bytes": budget}
