"""``tf.saved_model.tag_constants`` (TensorFlow 1.15's): the tags naming a meta graph."""

__all__ = ["GPU", "SERVING", "TPU", "TRAINING"]

SERVING = "serve"
TRAINING = "train"
GPU = "gpu"
TPU = "tpu"
