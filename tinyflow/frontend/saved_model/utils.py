"""``tf.saved_model.utils`` (TensorFlow 1.15's): a tensor's TensorInfo and back."""
from .signature_def_utils import build_tensor_info, get_tensor_from_tensor_info

__all__ = ["build_tensor_info", "get_tensor_from_tensor_info"]
