"""``tf.saved_model.main_op`` (TensorFlow 1.15's): the op a loaded model runs after its
variables are restored."""
from ..api import group, local_variables_initializer
from ..init_ops import tables_initializer

__all__ = ["main_op"]


def main_op():
    """TF's default main op: the local variables' initialiser and the tables' (TinyFlow has
    no tables) as one operation."""
    return group(local_variables_initializer(), tables_initializer())
