"""Binding graphs to memory and Lua closures, and running them (imports torch)."""
from .executor import BindError, Executor, check_initialized
from .report import MemoryPlanReport, memory_plan_report

__all__ = ["Executor", "BindError", "check_initialized", "MemoryPlanReport",
           "memory_plan_report"]
