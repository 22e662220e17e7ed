"""The TF-1 surface: every function and class a TensorFlow-1 program calls (``tf.*``),
built on the engine (nnvm, ops, lua_ops, executor, session) and re-exported by
``tinyflow/__init__.py``."""
