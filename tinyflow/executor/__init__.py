"""Binding graphs to memory and Lua closures, and running them (imports torch)."""
from .executor import BindError, Executor
from .report import ClosureReport, MemoryPlanReport, closure_report, memory_plan_report

__all__ = [
           "BindError",
           "ClosureReport",
           "Executor",
           "MemoryPlanReport",
           "closure_report",
           "memory_plan_report",
]
