"""The graph passes; importing this package registers them by name."""
from .gradient import GradNode, gradient
from .infer import DTYPE_SIZE, infer_shape, infer_type
from .plan_memory import EXTERNAL, plan_memory
from .serialize import load_json, save_json

__all__ = ["gradient", "GradNode", "infer_shape", "infer_type", "plan_memory", "EXTERNAL",
           "save_json", "load_json", "DTYPE_SIZE"]
