"""Binding graphs to memory and Lua closures, and running them (imports torch)."""
from .cache import ExecutorCache, collect_lua_garbage, release
from .executor import BindError, Executor, bind_executor
from .memory import ResourceExhaustedError, available_bytes
from .report import ClosureReport, MemoryPlanReport, closure_report, memory_plan_report
from .stages import StagedExecutor

__all__ = [
           "BindError",
           "ClosureReport",
           "Executor",
           "ExecutorCache",
           "MemoryPlanReport",
           "ResourceExhaustedError",
           "StagedExecutor",
           "available_bytes",
           "bind_executor",
           "closure_report",
           "collect_lua_garbage",
           "memory_plan_report",
           "release",
]
