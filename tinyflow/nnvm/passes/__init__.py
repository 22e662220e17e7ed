"""The core passes: what every graph goes through to be differentiated, typed, shaped, ordered
and planned (and saved or loaded); importing this package registers them by name.  The
optimisation passes are in tinyflow/nnvm/optimizations/."""
from . import feeds, fold_shapes  # noqa: F401 - registers CutFeeds, FoldShapeArguments
from .gradient import GradNode, gradient
from .infer import DTYPE_SIZE, infer_shape, infer_type
from .materialize import materialize_shapes
from .order_mutation import order_mutation
from .plan_memory import EXTERNAL, plan_memory
from .serialize import load_json, save_json

__all__ = ["DTYPE_SIZE", "EXTERNAL", "GradNode", "gradient", "infer_shape", "infer_type",
           "load_json", "materialize_shapes", "order_mutation", "plan_memory", "save_json"]
