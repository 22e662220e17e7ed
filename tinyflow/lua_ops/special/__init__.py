"""The special functions' bodies (tinyflow/ops/special.py) and their kernels."""
