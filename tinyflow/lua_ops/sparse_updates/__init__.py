"""Built-in bodies of this family and their kernels (see tinyflow/lua_ops/__init__.py)."""
