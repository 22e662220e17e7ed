"""TensorFlow's distribution settings of a variable, ``tf.VariableSynchronization`` and
``tf.VariableAggregation``: a TinyFlow session keeps one copy of each variable, updated by one
replica, so a variable records them (its ``synchronization`` and ``aggregation``) and they
change nothing else; ON_READ makes a variable not trainable unless told, as TensorFlow's."""
from __future__ import annotations

import enum

__all__ = ["VariableAggregation", "VariableSynchronization", "replica_settings"]


class VariableSynchronization(enum.Enum):
    """When a distributed variable's copies are synchronised (TensorFlow's enum).  A TinyFlow
    session keeps one copy: recorded on the variable, with no other effect."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates from replicas combine (TensorFlow's enum;
    ``ONLY_FIRST_TOWER`` is TF-1's other name of ``ONLY_FIRST_REPLICA``).  One replica here:
    recorded on the variable, with no other effect."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3  # noqa: PIE796 - TF-1's alias of ONLY_FIRST_REPLICA


def replica_settings(synchronization, aggregation, trainable, name) -> tuple:
    """``(synchronization, aggregation, trainable)`` as TensorFlow's
    ``validate_synchronization_aggregation_trainable``: the enums from their values (None:
    AUTO, NONE), ValueError naming the variable for another; ``trainable`` None: True unless
    synchronised ON_READ."""
    found = []
    for kind, value, default in ((VariableSynchronization, synchronization, "AUTO"),
                                 (VariableAggregation, aggregation, "NONE")):
        try:
            found.append(kind[default] if value is None else kind(value))
        except ValueError:
            what = "synchronization" if kind is VariableSynchronization else "aggregation"
            raise ValueError(f"Invalid variable {what} mode: {value} for variable: "
                             f"{name}") from None
    if trainable is None:
        trainable = found[0] is not VariableSynchronization.ON_READ
    return found[0], found[1], trainable
