"""``tensorflow.python.framework`` as ``tinyflow.python.framework``: ``constant_op``, ``dtypes``, ``errors``, ``ops``, ``random_seed``, ``tensor_shape``."""
