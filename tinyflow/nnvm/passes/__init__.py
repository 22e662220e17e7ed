"""The graph passes; importing this package registers them by name."""
from .fuse_conv import fuse_conv_activation
from .fuse_elemwise import fuse_elemwise
from .gradient import GradNode, gradient
from .infer import DTYPE_SIZE, infer_shape, infer_type
from .layout import choose_layout
from .materialize import materialize_shapes
from .mirror import MirrorPlan, mirror, op_flops
from .order_mutation import order_mutation
from .plan_memory import EXTERNAL, plan_memory
from .prune_argmax import prune_argmax
from .serialize import load_json, save_json
from .swap_pool import pool_before_activation

__all__ = [
           "DTYPE_SIZE",
           "EXTERNAL",
           "GradNode",
           "MirrorPlan",
           "choose_layout",
           "fuse_conv_activation",
           "fuse_elemwise",
           "gradient",
           "infer_shape",
           "infer_type",
           "load_json",
           "materialize_shapes",
           "mirror",
           "op_flops",
           "order_mutation",
           "plan_memory",
           "pool_before_activation",
           "prune_argmax",
           "save_json",
]
