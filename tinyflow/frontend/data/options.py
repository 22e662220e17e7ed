"""``tf.data.Options`` (TensorFlow 1.15's) and ``Dataset.with_options``: every option TF 1.15
has, type-checked and merged as TF's, none with an effect in TinyFlow.

TinyFlow pulls one element at a time, in order, in the thread that runs the session: there is
no static optimisation of the pipeline (``experimental_optimization``: fusions, autotuning,
vectorisation), no thread pool (``experimental_threading``), no nondeterministic order to allow
(``experimental_deterministic``), no slack (``experimental_slack``), no distribution
(``experimental_distribute``) and no statistics (``experimental_stats``).  A program that
sets them runs as it would with TF; ``dataset.options()`` gives back what it set.
"""
from __future__ import annotations

from typing import ClassVar

__all__ = ["DistributeOptions", "MapVectorizationOptions", "OptimizationOptions", "Options",
           "StatsOptions", "ThreadingOptions", "merge_options"]


class _OptionsBase:
    """Options of declared names and types (``_FIELDS``: name -> (type, default factory)),
    each None until set, a nested set of options made when first read."""

    _FIELDS: ClassVar[dict] = {}

    def __init__(self):
        object.__setattr__(self, "_options", {})

    def __getattr__(self, name):
        if name.startswith("_") or name not in self._FIELDS:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return self._options.setdefault(name, self._FIELDS[name][1]())

    def __setattr__(self, name, value):
        if name not in self._FIELDS:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        kind = self._FIELDS[name][0]
        if not isinstance(value, kind):
            raise TypeError(f'Property "{name}" must be of type {kind}, got: {value} '
                            f"(type: {type(value)})")
        self._options[name] = value

    def __eq__(self, other):
        if not isinstance(other, type(self)):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._FIELDS)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None

    def merge(self, options):
        """These options and ``options`` together (TF 1.15's ``merge_options``)."""
        return merge_options(self, options)


def merge_options(*options_list):
    """One set of options holding what each of ``options_list`` set; a ValueError where two
    set one option to different values (TF 1.15's; TF 2 lets the last win)."""
    kind = type(options_list[0])
    result, default = kind(), kind()
    for options in options_list:
        if not isinstance(options, kind):
            raise TypeError(f"Incompatible options type: {type(options)} vs {kind}")
        for name in options._options:
            this, that, unset = getattr(result, name), getattr(options, name), getattr(default,
                                                                                      name)
            if that == unset:
                continue
            if this == unset:
                setattr(result, name, that)
            elif isinstance(this, _OptionsBase):
                setattr(result, name, merge_options(this, that))
            elif this != that:
                raise ValueError(f"Cannot merge incompatible values ({this!r} and {that!r}) of "
                                 f"option: {name}")
    return result


def _fields(kind, *names) -> dict:
    return {name: (kind, lambda: None) for name in names}


class MapVectorizationOptions(_OptionsBase):
    """``tf.data.experimental.MapVectorizationOptions`` (no effect in TinyFlow)."""

    _FIELDS: ClassVar[dict] = _fields(bool, "enabled", "use_choose_fastest")


class OptimizationOptions(_OptionsBase):
    """``tf.data.experimental.OptimizationOptions`` (no effect in TinyFlow)."""

    _FIELDS: ClassVar[dict] = {
        **_fields(bool, "apply_default_optimizations", "autotune", "filter_fusion",
                  "filter_with_random_uniform_fusion", "hoist_random_uniform",
                  "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
                  "map_parallelization", "noop_elimination", "parallel_batch",
                  "shuffle_and_repeat_fusion"),
        **_fields(int, "autotune_cpu_budget"),
        "map_vectorization": (MapVectorizationOptions, MapVectorizationOptions)}


class ThreadingOptions(_OptionsBase):
    """``tf.data.experimental.ThreadingOptions`` (no effect: TinyFlow reads in the session's
    thread)."""

    _FIELDS: ClassVar[dict] = _fields(int, "max_intra_op_parallelism", "private_threadpool_size")


class DistributeOptions(_OptionsBase):
    """``tf.data.experimental.DistributeOptions`` (no effect in TinyFlow)."""

    _FIELDS: ClassVar[dict] = {**_fields(bool, "auto_shard"), **_fields(int, "num_devices")}


class StatsOptions(_OptionsBase):
    """``tf.data.experimental.StatsOptions`` (no effect: TinyFlow keeps no statistics)."""

    _FIELDS: ClassVar[dict] = {**_fields(object, "aggregator"),
                               **_fields(bool, "latency_all_edges"),
                               **_fields(str, "prefix", "counter_prefix")}


class Options(_OptionsBase):
    """``tf.data.Options``: TF 1.15's options of a dataset, none with an effect in TinyFlow
    (see the module's docstring); ``dataset.with_options(options)`` attaches them."""

    _FIELDS: ClassVar[dict] = {
        **_fields(bool, "experimental_deterministic", "experimental_slack"),
        "experimental_distribute": (DistributeOptions, DistributeOptions),
        "experimental_optimization": (OptimizationOptions, OptimizationOptions),
        "experimental_stats": (StatsOptions, StatsOptions),
        "experimental_threading": (ThreadingOptions, ThreadingOptions)}
