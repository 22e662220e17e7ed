"""Binding graphs to memory and Lua closures, and running them (imports torch)."""
from .executor import BindError, Executor, check_initialized

__all__ = ["Executor", "BindError", "check_initialized"]
