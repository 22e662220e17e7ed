"""tf.contrib.training.HParams as TF 1.15's hparam.py documents it (TF 2.21 has no contrib to
run): attributes typed when added, set from code, a dict, a "name=value,..." string or JSON; an
int where a float is, not the other way; unknown names and lists where scalars are refused."""
import json

import pytest

import tinyflow as tf


def test_the_documented_example_and_types():
    hparams = tf.contrib.training.HParams(learning_rate=0.1, num_hidden_units=100,
                                          layers=[64, 32], activation="relu", use_bias=True)
    assert hparams.learning_rate == 0.1 and hparams.num_hidden_units == 100
    hparams = hparams.parse("learning_rate=0.3,layers=[8, 4],activation=tanh,use_bias=false")
    assert (hparams.learning_rate, hparams.num_hidden_units) == (0.3, 100)
    assert hparams.layers == [8, 4] and hparams.activation == "tanh"
    assert hparams.use_bias is False
    hparams.set_hparam("learning_rate", 1)  # an int where a float is: cast
    assert hparams.learning_rate == 1.0 and isinstance(hparams.learning_rate, float)
    with pytest.raises(ValueError, match="Could not cast hparam 'num_hidden_units'"):
        hparams.set_hparam("num_hidden_units", 0.5)
    with pytest.raises(ValueError, match="Unknown hyperparameter type for dropout"):
        hparams.parse("dropout=0.5")
    with pytest.raises(ValueError, match="Must not pass a list for single-valued parameter"):
        hparams.set_hparam("learning_rate", [0.1])
    with pytest.raises(ValueError, match="Hyperparameter name is reserved: values"):
        hparams.add_hparam("values", 1)


def test_dicts_json_and_membership():
    hparams = tf.contrib.training.HParams(batch_size=32, optimizer="adam")
    hparams.override_from_dict({"batch_size": 64})
    assert hparams.values() == {"batch_size": 64, "optimizer": "adam"}
    again = tf.contrib.training.HParams(batch_size=1, optimizer="sgd").parse_json(
        hparams.to_json())
    assert again.values() == hparams.values()
    assert json.loads(hparams.to_json(sort_keys=True)) == {"batch_size": 64, "optimizer": "adam"}
    assert "batch_size" in hparams and "dropout" not in hparams
    assert hparams.get("dropout", 0.1) == 0.1 and hparams.get("batch_size") == 64
    hparams.add_hparam("dropout", 0.2)
    hparams.del_hparam("dropout")
    assert "dropout" not in hparams


def test_contrib_framework_nest_is_tf_nest():
    assert tf.contrib.framework.nest.flatten([1, [2, (3, 4)]]) == [1, 2, 3, 4]
    assert tf.contrib.framework.nest.map_structure(lambda x: x * 2, {"a": 1}) == {"a": 2}
