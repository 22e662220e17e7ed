"""Binding graphs to memory and Lua closures, and running them (imports torch)."""
from .executor import BindError, Executor, check_initialized
from .report import MemoryPlanReport, memory_plan_report

__all__ = [
           "BindError",
           "Executor",
           "MemoryPlanReport",
           "check_initialized",
           "memory_plan_report",
]
