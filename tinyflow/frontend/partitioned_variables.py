"""Partitioned variables (TF 1.15's ``partitioner=``): one variable stored as shards.

``tf.get_variable(name, shape, partitioner=p)`` (or inside ``tf.variable_scope(...,
partitioner=p)``) asks ``p(shape=TensorShape, dtype=DType)`` how many pieces to cut each axis
into; at most one axis may have more than one.  The shards are ordinary trainable variables
``<name>/part_0``, ``<name>/part_1``... split along that axis as TensorFlow splits: the first
``size % n`` shards one slice larger.  What ``get_variable`` returns is a
:class:`PartitionedVariable`: iterating gives the shards; used as a tensor it is their
concatenation (TF's ``_concat``); ``tf.nn.embedding_lookup`` reads the shards themselves.

Each shard carries a :class:`SaveSliceInfo` (the full name, full shape, its offset and shape):
``tf.train.Saver`` writes the shards of one variable as ONE tensor ``<name>`` and restores it
by slices, into any partitioning (:func:`saved_groups`, :func:`assemble`, :func:`split`).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..nnvm.dtypes import as_dtype
from ..nnvm.symbol import Symbol, current_context
from ..nnvm.tensor_shape import TensorShape
from .api import constant, identity
from .array_ops import concat

__all__ = ["PartitionedVariable", "fixed_size_partitioner", "min_max_variable_partitioner",
           "variable_axis_size_partitioner"]


def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner cutting ``axis`` into ``num_shards`` pieces (fewer when the axis is
    shorter), as TF 1.15's."""
    def _partitioner(shape, **unused_args):
        partitions = [1] * len(shape)
        partitions[axis] = min(num_shards, shape.dims[axis].value)
        return partitions
    return _partitioner


def _element_bytes(dtype, bytes_per_string_element) -> int:
    dtype = as_dtype(dtype)
    return bytes_per_string_element if dtype.name == "string" else dtype.size


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16,
                                   max_shards=None):
    """A partitioner cutting ``axis`` into as few pieces as keep each under
    ``max_shard_bytes`` (a piece holds at least one slice), at most ``max_shards``, as TF
    1.15's."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be positive.")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        shape = TensorShape(shape)
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        element = _element_bytes(dtype, bytes_per_string_element)
        slice_bytes = shape.num_elements() / shape.dims[axis].value * element
        per_shard = max(1, math.floor(max_shard_bytes / slice_bytes))
        shards = math.ceil(shape.dims[axis].value / per_shard)
        partitions = [1] * len(shape)
        partitions[axis] = min(max_shards, shards) if max_shards else shards
        return partitions
    return _partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10,
                                 bytes_per_string_element=16):
    """A partitioner cutting ``axis`` into pieces of at least ``min_slice_size`` bytes, at most
    ``max_partitions`` and the axis' length of them, as TF 1.15's."""
    def _partitioner(shape, dtype):
        shape = TensorShape(shape)
        if axis >= len(shape):
            raise ValueError(f"Can not partition variable along axis {axis} when shape is only "
                             f"{shape}")
        total = shape.num_elements() * _element_bytes(dtype, bytes_per_string_element)
        partitions = [1] * len(shape)
        partitions[axis] = max(1, min(shape.dims[axis].value, max_partitions,
                                      math.ceil(total / min_slice_size)))
        return partitions
    return _partitioner


class SaveSliceInfo(NamedTuple):
    """Where a shard lies in its partitioned variable (TF's ``Variable.SaveSliceInfo``)."""

    full_name: str
    full_shape: list
    var_offset: list
    var_shape: list

    @property
    def spec(self) -> str:
        """TF's slice spec: ``"5 2 3,2:0,2"`` (full shape, then ``start,length`` per axis)."""
        return (" ".join(str(d) for d in self.full_shape) + " "
                + ":".join(f"{o},{s}" for o, s in zip(self.var_offset, self.var_shape)))


class PartitionedVariable(Symbol):
    """What ``tf.get_variable(..., partitioner=...)`` returns: its shards (iterate, ``len``,
    :meth:`get_variable_list`), and as a tensor their concatenation (``as_tensor``, any op)."""

    def __init__(self, name, shape, dtype, variable_list, partitions) -> None:
        self._name, self._shape = name, TensorShape(shape)
        self._dtype, self._partitions = as_dtype(dtype), list(partitions)
        self._variable_list = list(variable_list)
        # used as a tensor itself: the concatenation, left unnamed so that the tensors
        # as_tensor and convert_to_tensor make are named as TF's (<name>, <name>_1...)
        Symbol.__init__(self, self._joined().outputs)

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self) -> int:
        return len(self._variable_list)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self):
        return self._dtype

    def get_shape(self) -> TensorShape:
        return self._shape

    shape = property(get_shape)

    def get_variable_list(self) -> list:
        """The shard variables, in order."""
        return list(self._variable_list)

    _get_variable_list = get_variable_list  # TF 1.15's name

    def _get_partitions(self) -> list:
        return list(self._partitions)

    def _partition_axes(self) -> list:
        return [i for i, n in enumerate(self._partitions) if n > 1] or [0]

    def _concat(self) -> Symbol:
        """The full value: the shards concatenated (TF's ``<name>/ConcatPartitions/concat``),
        named ``<name>`` as TF's ``identity``."""
        with current_context().name_scope(None):
            return identity(self._joined(), name=self._name)

    def _joined(self) -> Symbol:
        with current_context().name_scope(self._name + "/ConcatPartitions/"):
            if len(self._variable_list) == 1:
                return identity(self._variable_list[0])
            return concat(self._variable_list, self._partition_axes()[0])

    def as_tensor(self) -> Symbol:
        """A new tensor holding the concatenation of the shards."""
        return self._concat()

    def _apply_assign_fn(self, assign_fn, value) -> list:
        """``assign_fn(shard, its part of value)`` per shard: the list of their results."""
        value = value if isinstance(value, Symbol) else constant(value, dtype=self._dtype)
        return [assign_fn(v, value[_place(v.save_slice_info)]) for v in self._variable_list]

    def assign(self, value, use_locking=False, name=None, read_value=True) -> list:
        """Each shard given its part of ``value`` (TF's: the list of the shards' assigns)."""
        return self._apply_assign_fn(lambda v, part: v.assign(part, name=name), value)

    def assign_add(self, value, use_locking=False, name=None, read_value=True) -> list:
        return self._apply_assign_fn(lambda v, part: v.assign_add(part, name=name), value)

    def assign_sub(self, value, use_locking=False, name=None, read_value=True) -> list:
        return self._apply_assign_fn(lambda v, part: v.assign_sub(part, name=name), value)

    def __repr__(self) -> str:
        return (f"<tf.PartitionedVariable '{self._name}' shape={self._shape} "
                f"dtype={self._dtype.name} partitions={self._partitions}>")


def partitions_of(name, shape, dtype, partitioner) -> tuple[int, int]:
    """``(axis, number of shards)`` ``partitioner`` gives a variable; ValueError as TF's."""
    if shape is None or not TensorShape(shape).is_fully_defined() or not len(shape):
        raise ValueError(f"Cannot partition variable {name}: it needs a fully defined shape "
                         f"of rank 1 or more, got {shape}")
    partitions = list(partitioner(shape=TensorShape(shape), dtype=as_dtype(dtype)))
    if len(partitions) != len(shape):
        raise ValueError(f"Partitioner returned a partition list that does not match the "
                         f"Variable's rank: {partitions} vs. {tuple(shape)}")
    if any(p < 1 for p in partitions):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {partitions}")
    cut = [i for i, p in enumerate(partitions) if p > 1]
    if len(cut) > 1:
        raise ValueError(f"Can only slice a variable along one dimension: shape: "
                         f"{tuple(shape)}, partitioning: {partitions}")
    axis = cut[0] if cut else 0
    if partitions[axis] > shape[axis]:
        raise ValueError(f"Cannot partition variable {name} of shape {tuple(shape)} into "
                         f"{partitions[axis]} shards along axis {axis}")
    return axis, partitions[axis]


def shard_infos(name, shape, axis, count) -> list[SaveSliceInfo]:
    """Each shard's place, TF's split: the first ``shape[axis] % count`` one slice larger."""
    shape, infos, start = [int(d) for d in shape], [], 0
    for i in range(count):
        size = shape[axis] // count + (1 if i < shape[axis] % count else 0)
        offset = [start if d == axis else 0 for d in range(len(shape))]
        infos.append(SaveSliceInfo(name, shape, offset, shape[:axis] + [size]
                                   + shape[axis + 1:]))
        start += size
    return infos


def make_partitioned(name, shape, dtype, value, partitioner, make_shard):
    """The PartitionedVariable ``name`` of initial value ``value`` (its ``shape`` when None),
    each shard made by ``make_shard(shard name, its part of value, its SaveSliceInfo)``."""
    shape = value.get_shape().as_list() if shape is None else shape
    shape = [int(d) for d in ([shape] if isinstance(shape, int) else shape)]
    axis, count = partitions_of(name, shape, dtype, partitioner)
    shards = [make_shard(f"{name}/part_{i}", value[_place(info)], info)
              for i, info in enumerate(shard_infos(name, shape, axis, count))]
    return PartitionedVariable(name, shape, dtype, shards,
                               [count if d == axis else 1 for d in range(len(shape))])


def check_reuse(existing: PartitionedVariable, shape, partitioner) -> list:
    """``existing``'s shape, once a reuse asking ``partitioner`` is found to give its
    partitions (ValueError as TF's when not)."""
    if partitioner is not None and shape is not None:
        axis, count = partitions_of(existing.name, list(shape), existing.dtype, partitioner)
        asked = [count if d == axis else 1 for d in range(len(shape))]
        if asked != existing._get_partitions():
            raise ValueError(f"Trying to reuse partitioned variable {existing.name}, but "
                             f"specified partitions {asked} and found partitions "
                             f"{existing._get_partitions()}.")
    return existing.get_shape().as_list()


# -- what tf.train.Saver asks --------------------------------------------------------------------
def saved_groups(variables) -> list[tuple[str | None, object]]:
    """``variables`` as the Saver stores them: a PartitionedVariable, and the shards of one
    partitioned variable found among the others, become ``(full name, [shards])``; any other
    variable stays ``(None, variable)``."""
    groups, order = {}, []
    for var in variables:
        shards = var.get_variable_list() if isinstance(var, PartitionedVariable) else [var]
        for shard in shards:
            info = getattr(shard, "save_slice_info", None)
            if info is None:
                order.append((None, shard))
                continue
            if info.full_name not in groups:
                groups[info.full_name] = []
                order.append((info.full_name, groups[info.full_name]))
            if shard not in groups[info.full_name]:
                groups[info.full_name].append(shard)
    return order


def assemble(shards, arrays) -> np.ndarray:
    """The full array of a partitioned variable from its ``shards``' ``arrays``; ValueError
    when they do not cover it exactly."""
    info = shards[0].save_slice_info
    covered = sum(math.prod(s.save_slice_info.var_shape) for s in shards)
    if covered != math.prod(info.full_shape):
        raise ValueError(f"the shards of partitioned variable '{info.full_name}' cover "
                         f"{covered} of its {math.prod(info.full_shape)} elements: pass all "
                         f"of them (or the PartitionedVariable) to the Saver")
    full = np.empty(info.full_shape, dtype=arrays[0].dtype)
    for shard, array in zip(shards, arrays):
        full[_place(shard.save_slice_info)] = array
    return full


def split(shards, full: np.ndarray) -> list[np.ndarray]:
    """Each shard's part of the full array ``full`` (a restore, into any partitioning)."""
    return [np.ascontiguousarray(full[_place(s.save_slice_info)]) for s in shards]


def _place(info: SaveSliceInfo) -> tuple:
    return tuple(slice(o, o + s) for o, s in zip(info.var_offset, info.var_shape))
