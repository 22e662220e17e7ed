"""``tf.saved_model`` (TensorFlow 1.15's): a trained model exported for serving and loaded back,
``simple_save`` or ``builder.SavedModelBuilder`` to write it, ``loader.load`` (``load``) to read
it, and the signatures naming its inputs and outputs (``signature_def_utils``, ``utils``,
``signature_constants``, ``tag_constants``).

The directory is TensorFlow's layout: ``variables/variables.index`` and ``.data-00000-of-00001``
in TensorFlow's checkpoint format (``tf.train.load_checkpoint`` of TensorFlow reads them), and
the graph with its signatures in ``saved_model.json``, TinyFlow's own (:mod:`.builder`), where
TensorFlow writes ``saved_model.pb``: TinyFlow's ops are not TensorFlow's, so neither can load
the other's graph; loading TensorFlow's directory is an error saying so (:mod:`.loader`).
TF 2's object-based ``tf.saved_model.save`` / ``load_v2`` and the classify and regress
signatures (string ``tf.Example`` inputs) are not supported.
"""
from ..unsupported import unsupported
from . import (
    builder,
    constants,
    loader,
    main_op,
    signature_constants,
    signature_def_utils,
    tag_constants,
    utils,
)
from .builder import SavedModelBuilder, simple_save
from .constants import (
    ASSETS_DIRECTORY,
    ASSETS_KEY,
    DEBUG_DIRECTORY,
    DEBUG_INFO_FILENAME_PB,
    LEGACY_INIT_OP_KEY,
    MAIN_OP_KEY,
    SAVED_MODEL_FILENAME_PB,
    SAVED_MODEL_FILENAME_PBTXT,
    SAVED_MODEL_SCHEMA_VERSION,
    VARIABLES_DIRECTORY,
    VARIABLES_FILENAME,
)
from .loader import contains_saved_model, load, maybe_saved_model_directory
from .signature_constants import (
    CLASSIFY_INPUTS,
    CLASSIFY_METHOD_NAME,
    CLASSIFY_OUTPUT_CLASSES,
    CLASSIFY_OUTPUT_SCORES,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY,
    PREDICT_INPUTS,
    PREDICT_METHOD_NAME,
    PREDICT_OUTPUTS,
    REGRESS_INPUTS,
    REGRESS_METHOD_NAME,
    REGRESS_OUTPUTS,
)
from .signature_def_utils import (
    build_signature_def,
    build_tensor_info,
    get_tensor_from_tensor_info,
    is_valid_signature,
    predict_signature_def,
)
from .tag_constants import GPU, SERVING, TPU, TRAINING

Builder = SavedModelBuilder  # TF 1.15's tf.saved_model.Builder

__all__ = [
    "ASSETS_DIRECTORY",
    "ASSETS_KEY",
    "CLASSIFY_INPUTS",
    "CLASSIFY_METHOD_NAME",
    "CLASSIFY_OUTPUT_CLASSES",
    "CLASSIFY_OUTPUT_SCORES",
    "DEBUG_DIRECTORY",
    "DEBUG_INFO_FILENAME_PB",
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "GPU",
    "LEGACY_INIT_OP_KEY",
    "MAIN_OP_KEY",
    "PREDICT_INPUTS",
    "PREDICT_METHOD_NAME",
    "PREDICT_OUTPUTS",
    "REGRESS_INPUTS",
    "REGRESS_METHOD_NAME",
    "REGRESS_OUTPUTS",
    "SAVED_MODEL_FILENAME_PB",
    "SAVED_MODEL_FILENAME_PBTXT",
    "SAVED_MODEL_SCHEMA_VERSION",
    "SERVING",
    "TPU",
    "TRAINING",
    "VARIABLES_DIRECTORY",
    "VARIABLES_FILENAME",
    "Builder",
    "build_signature_def",
    "build_tensor_info",
    "builder",
    "constants",
    "contains_saved_model",
    "get_tensor_from_tensor_info",
    "is_valid_signature",
    "load",
    "loader",
    "main_op",
    "maybe_saved_model_directory",
    "predict_signature_def",
    "signature_constants",
    "signature_def_utils",
    "simple_save",
    "tag_constants",
    "utils",
]


def __getattr__(name):
    raise unsupported("tf.saved_model.", "tinyflow.saved_model", name,
                      {"tf.saved_model.": __all__})
