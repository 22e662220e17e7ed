"""``tf.saved_model.constants`` (TensorFlow 1.15's names and values): the files and
collection keys of a saved model directory.  TinyFlow writes its graph to
``SAVED_MODEL_FILENAME_JSON`` (``saved_model.json``), not TensorFlow's ``saved_model.pb``."""

__all__ = ["ASSETS_DIRECTORY", "ASSETS_KEY", "DEBUG_DIRECTORY", "DEBUG_INFO_FILENAME_PB",
           "LEGACY_INIT_OP_KEY", "MAIN_OP_KEY", "SAVED_MODEL_FILENAME_JSON",
           "SAVED_MODEL_FILENAME_PB", "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION",
           "VARIABLES_DIRECTORY", "VARIABLES_FILENAME"]

ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
LEGACY_INIT_OP_KEY = "legacy_init_op"
MAIN_OP_KEY = "saved_model_main_op"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"  # TensorFlow's graph: TinyFlow does not read it
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_FILENAME_JSON = "saved_model.json"  # TinyFlow's graph, signatures and tags
SAVED_MODEL_SCHEMA_VERSION = 1
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
