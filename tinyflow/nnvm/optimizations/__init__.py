"""The optimisation passes: each a pure Graph -> Graph function registered by name, as the core
passes (tinyflow/nnvm/passes/) are, that makes a step faster or smaller without changing what it
computes.  The executor's pipeline (tinyflow/executor/pipeline.py) says when each runs;
``Session(optimize=False)`` runs the core passes alone, with the same results.  Importing this
package registers them."""
from .fuse_conv import fuse_conv_activation
from .fuse_elemwise import fuse_elemwise
from .layout import choose_layout
from .mirror import MirrorPlan, mirror, op_flops
from .one_step import keep_one_step
from .prune_argmax import prune_argmax
from .swap_pool import pool_before_activation

__all__ = ["MirrorPlan", "choose_layout", "fuse_conv_activation", "fuse_elemwise", "keep_one_step",
           "mirror", "op_flops", "pool_before_activation", "prune_argmax"]
