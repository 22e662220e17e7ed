"""``tf.estimator`` (TensorFlow 1.15): :class:`Estimator`, :class:`EstimatorSpec`,
:class:`ModeKeys`, :class:`RunConfig`, ``tf.estimator.inputs.numpy_input_fn`` and
``tf.estimator.export``'s serving receivers and outputs (``Estimator.export_saved_model``:
:mod:`.exporter`), ``train_and_evaluate`` (:mod:`.training`), on TinyFlow's monitored sessions
(:mod:`tinyflow.frontend.monitored_session`); the premade estimators over ``tf.feature_column``
(:mod:`.canned`: DNN, linear and combined classifiers and regressors)."""
from . import export, inputs
from .canned import (
    DNNClassifier,
    DNNLinearCombinedClassifier,
    DNNLinearCombinedRegressor,
    DNNRegressor,
    LinearClassifier,
    LinearRegressor,
)
from .estimator import Estimator
from .model_fn import EstimatorSpec, ModeKeys
from .run_config import RunConfig
from .training import EvalSpec, TrainSpec, train_and_evaluate

__all__ = ["DNNClassifier", "DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor",
           "DNNRegressor", "Estimator", "EstimatorSpec", "EvalSpec", "LinearClassifier",
           "LinearRegressor", "ModeKeys", "RunConfig", "TrainSpec", "export", "inputs",
           "train_and_evaluate"]


def __getattr__(name):
    raise AttributeError(f"tf.estimator.{name} is not supported by TinyFlow (it has "
                         f"{', '.join(__all__)})")
