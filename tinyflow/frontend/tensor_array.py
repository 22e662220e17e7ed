"""``tf.TensorArray`` (TensorFlow 1.15's API) as a value: one tensor holding every element.

A TensorArray here is its elements stacked, ``[size] + element_shape``, and each method a
graph op on that tensor: ``write`` and ``scatter`` give a new TensorArray whose tensor is the
old one with rows replaced (op ``tensor_array_write``, in place when the memory plan allows),
``read`` and ``gather`` are ``gather``, ``stack`` is the tensor itself, ``unstack`` makes one.
Gradients are those of the ops (a read's flows into the rows it read, a write's out of the
value written), so ``tf.gradients`` through ``stack`` of written values, or through ``read``
of an unstacked tensor, needs nothing more.  As in TensorFlow, use the TensorArray a method
returns: ``ta = ta.write(i, x)``.  Inside ``tf.while_loop`` a TensorArray is a loop variable
like a tensor; one whose element shape is not known yet gets it from the body's first write.

A ``dynamic_size`` array grows at Python int indices as the graph is built.  Passed through
``tf.while_loop``, it grows at indices found at run time: it is then two loop variables, its
elements (a capacity that at least doubles when a write lies past it, op
``tensor_array_grow``) and the count of rows written (``size()``), and ``stack()`` is the
rows written (op ``tensor_array_rows``): shapes known once the loop ran
(``docs/control_flow.md``).  No gradient flows through such an array.  Otherwise an index
found at run time must lie inside the array's size (an error naming the write otherwise).
``clear_after_read`` is accepted but not enforced: reading an element twice gives it twice.
"""
from __future__ import annotations

import numpy as np

from ..nnvm.subgraph import Subgraph
from ..nnvm.symbol import Symbol, create_op
from ..nnvm.tensor_shape import TensorShape
from .api import _tensor, constant
from .array_ops import concat, gather_dense, reshape, shape, shape_value, shaped_by_value, zeros
from .dtypes import as_dtype

__all__ = ["TensorArray"]


class TensorArray:
    """Elements of one dtype and shape, indexed from 0 (``tf.TensorArray``).

    Parameters
    ----------
    dtype : DType
    size : int or int scalar tensor, optional
        The number of elements (a tensor computed from shapes and constants, or a Python int).
    dynamic_size : bool
        Writes at Python int indices past the end grow the array.
    clear_after_read : bool
        Accepted (not enforced).
    element_shape : TensorShape, optional
        The elements' shape; otherwise the first write or ``unstack`` tells it.
    infer_shape : bool
        Check that every value written has the element shape (TF's default).
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if handle is not None or flow is not None:
            raise ValueError("tf.TensorArray: TinyFlow makes a TensorArray from dtype and size "
                             "(handle and flow are TensorFlow's internals)")
        if size is None and flow is None:
            raise ValueError("Size must be provided if handle is not provided")
        self._dtype = as_dtype(dtype)
        self._size = size
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._element_shape = TensorShape(element_shape)
        self._name = name or tensor_array_name or "TensorArray"
        self._buffer = None
        self._value_written = None
        self._rows = None  # growing in a loop: the int32 count of rows written
        if self._element_shape.is_fully_defined():
            self._buffer = self._zeros(self._element_shape)

    # -- what it is -----------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def flow(self) -> Symbol:
        """The tensor holding the elements (TF's flow: what orders the array's ops)."""
        return self._stacked("flow")

    def size(self, name=None) -> Symbol:
        """The number of elements, as an int32 scalar."""
        if self._rows is not None:
            return self._rows
        if self._buffer is not None:
            return _first_dim(self._buffer)
        return self._size if isinstance(self._size, Symbol) else constant(int(self._size),
                                                                           dtype="int32")

    # -- reading ----------------------------------------------------------------------------
    def read(self, index, name=None) -> Symbol:
        """Element ``index`` (an int or int32 scalar tensor)."""
        # TF's TensorArray gradients are tensors: gather_dense
        return self._known_rows(gather_dense(self._stacked("read"), _index(index),
                                       name=name or "TensorArrayRead"), [])

    def gather(self, indices, element_shape=None, name=None) -> Symbol:
        """Elements ``indices`` (a vector), stacked."""
        return self._known_rows(gather_dense(self._stacked("gather"), _index(indices),
                                       name=name or "TensorArrayGather"), [None])

    def stack(self, name=None) -> Symbol:
        """Every element, stacked along a new first axis."""
        if self._rows is None:  # TF 1.15's stack is a gather: its first dimension unknown
            rows = create_op("copy", self._stacked("stack"), name=name or "TensorArrayStack")
            element = TensorShape(rows.get_shape().as_list()[1:] if rows.shape.ndims else None)
        else:
            known = self._element_shape.is_fully_defined()  # unwritten elements: zeros
            rows = create_op("tensor_array_rows", self._buffer, self._rows,
                             element=tuple(self._element_shape.as_list()) if known else None,
                             name=name or "TensorArrayStack")
            element = self._element_shape
        if element.ndims is not None:  # the static shape, as TF's
            rows.graph.declared_shapes[rows.outputs[0]] = TensorShape([None] + element.as_list())
        return rows

    def concat(self, name=None) -> Symbol:
        """Every element, joined along their first axis."""
        stacked = self.stack()
        shape = stacked.get_shape().as_list()
        if len(shape) < 2:
            raise ValueError("Concatenating scalars in a TensorArray is unsupported (its "
                             "elements must have at least one axis)")
        return reshape(stacked, [-1] + shape[2:], name=name or "TensorArrayConcat")

    # -- writing ----------------------------------------------------------------------------
    def write(self, index, value, name=None) -> TensorArray:
        """A TensorArray with element ``index`` set to ``value``."""
        value = self._value(value, "write")
        return self._written(_index(index), value, self._element_of(value.get_shape(), index),
                             index)

    def scatter(self, indices, value, name=None) -> TensorArray:
        """A TensorArray with elements ``indices`` set to the rows of ``value``."""
        value = self._value(value, "scatter")
        return self._written(_index(indices), value,
                             self._element_of(value.get_shape()[1:], indices), None)

    def unstack(self, value, name=None) -> TensorArray:
        """A TensorArray whose elements are ``value``'s rows (its size is their number)."""
        value = self._value(value, "unstack")
        shape = value.get_shape()
        if shape.ndims == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0 (TensorArray.unstack)")
        return self._like(value, shape[1:] if shape.ndims is not None else TensorShape(None))

    def split(self, value, lengths, name=None) -> TensorArray:
        """A TensorArray whose elements are ``value``'s consecutive pieces of ``lengths`` rows
        (TF 1.15's).  TinyFlow's elements share one shape: the lengths must be numbers (or a
        constant) and all equal, else a ValueError."""
        value = self._value(value, "split")
        node = lengths.outputs[0].node if isinstance(lengths, Symbol) else None
        known = lengths if node is None else node.attrs.get("value") if (
            node.op is not None and node.op.name == "constant") else None
        known = None if known is None else np.asarray(known, dtype=np.int64).reshape(-1)
        if known is None or known.size == 0 or known.min() != known.max():
            raise ValueError(f"TensorArray.split: TinyFlow's TensorArray holds elements of one "
                             f"shape, so lengths must be known and equal, got {lengths!r}")
        rows = value.get_shape()[0].value if value.get_shape().ndims else None
        if rows is not None and rows != known.sum():
            raise ValueError(f"TensorArray.split: Expected sum of lengths to be equal to "
                             f"values.shape[0], but sum of lengths is {known.sum()} and value's "
                             f"shape is: {value.get_shape()}")
        rest = value.get_shape()[1:] if value.get_shape().ndims else TensorShape(None)
        pieces = reshape(value, [known.size, int(known[0])] + rest.as_list()) if \
            rest.is_fully_defined() else reshape(value, concat([[known.size, int(known[0])],
                                                                shape(value)[1:]], 0))
        return self.unstack(pieces, name=name)

    def identity(self) -> TensorArray:
        return self

    def close(self, name=None):
        """Nothing to free: a no-op operation."""
        return create_op("no_op", name=name or "TensorArrayClose")

    def __getattr__(self, name):
        if name in ("grad", "handle"):  # TF 1.15's, beyond one tensor of elements
            raise AttributeError(f"TensorArray.{name} is not supported by TinyFlow (its "
                                 f"TensorArray is one tensor of elements of one shape)")
        raise AttributeError(f"'TensorArray' object has no attribute {name!r}")

    # -- helpers ----------------------------------------------------------------------------
    def _like(self, buffer, element_shape) -> TensorArray:
        """This array's settings over another tensor of elements."""
        result = object.__new__(TensorArray)
        result.__dict__.update(self.__dict__)
        result._buffer, result._element_shape = buffer, TensorShape(element_shape)
        return result

    def _growing(self, elements, rows, element_shape=None) -> TensorArray:
        """This array in a loop growing it: its elements and the count of rows written."""
        result = self._like(elements, self._element_shape if element_shape is None
                            else element_shape)
        result._rows = rows
        return result

    def _first_elements(self) -> Symbol:
        """Its elements as a loop growing it starts from: none yet, of any shape, when the
        element shape is not known."""
        return self._buffer if self._buffer is not None else zeros([0], dtype=self._dtype)

    def _zeros(self, element_shape: TensorShape) -> Symbol:
        size = self._size if isinstance(self._size, Symbol) else int(self._size)
        return zeros([size] + element_shape.as_list(), dtype=self._dtype,
                     name=f"{self._name}_zeros")

    def _zeros_before_loop(self, value: Subgraph, inputs: list, num_body_inputs: int):
        """The elements before a loop whose body first writes them: zeros of ``[size] +`` the
        shape of ``value`` (the body's value written), inferred when the graph is bound from
        ``inputs`` (``(body input position, tensor)``: the loop's other inputs)."""
        attrs = {"positions": tuple(p for p, _ in inputs), "num_body_inputs": num_body_inputs,
                 "value": value, "dtype": self._dtype.name}
        tensors = [t for _, t in inputs]
        if isinstance(self._size, Symbol):
            return shaped_by_value("tensor_array_zeros", tensors, shape_value([self._size],
                                                                             self._name),
                                   f"{self._name}_zeros", shape_attr="rows", **attrs)
        return create_op("tensor_array_zeros", *tensors, rows=(int(self._size),),
                         name=f"{self._name}_zeros", **attrs)

    def _known_rows(self, value: Symbol, rows: list) -> Symbol:
        """``value`` read from an array grown in a loop: static shape ``rows + element``."""
        if self._rows is not None and self._element_shape.ndims is not None:
            value.set_shape(rows + self._element_shape.as_list())
        return value

    def _stacked(self, what) -> Symbol:
        if self._buffer is None:
            raise ValueError(f"TensorArray '{self._name}': {what} before the element shape is "
                             f"known: write or unstack first, or give element_shape")
        return self._buffer

    def _value(self, value, what) -> Symbol:
        value = _tensor(value) if isinstance(value, Symbol) else constant(value,
                                                                          dtype=self._dtype)
        if value.dtype.name != self._dtype.name:
            raise TypeError(f"TensorArray dtype is {self._dtype.name} but Op is trying to "
                            f"{what} dtype {value.dtype.name}")
        return value

    def _element_of(self, shape: TensorShape, index) -> TensorShape:
        """The element shape after writing values of ``shape`` (TF's infer_shape check)."""
        if not self._infer_shape:
            return self._element_shape
        if not shape.is_compatible_with(self._element_shape):
            raise ValueError(f"Could not write to TensorArray index {index} because the value "
                             f"shape is {shape} which is incompatible with the TensorArray's "
                             f"inferred element shape: {self._element_shape}")
        return self._element_shape.merge_with(shape)

    def _written(self, index, value, element_shape, static_index) -> TensorArray:
        if self._rows is not None:  # growing at indices found at run time
            grown = create_op("tensor_array_grow", self._buffer, self._rows, index, value,
                              name=f"{self._name}_write")
            result = self._like(grown[0], element_shape)
            result._rows, result._value_written = grown[1], value
            return result
        buffer = self._buffer
        if buffer is None:
            if not element_shape.is_fully_defined():
                raise ValueError(f"TensorArray '{self._name}': the element shape "
                                 f"{element_shape} must be fully known to write outside a "
                                 f"loop (give element_shape, or unstack first)")
            buffer = self._zeros(element_shape)
        buffer = self._grown(buffer, static_index, element_shape)
        written = create_op("tensor_array_write", buffer, index, value,
                            name=f"{self._name}_write")
        result = self._like(written, element_shape)
        result._value_written = value if static_index is not None or index.get_shape().ndims \
            == 0 else None  # an element: what a loop's first write gives the shape of
        return result

    def _grown(self, buffer, static_index, element_shape) -> Symbol:
        """A dynamic array grown to hold ``static_index`` (a Python int)."""
        if not self._dynamic_size or not isinstance(static_index, int):
            return buffer
        size = buffer.get_shape()[0].value
        if size is None or static_index < size:
            return buffer
        more = zeros([static_index + 1 - size] + element_shape.as_list(), dtype=self._dtype)
        return concat([buffer, more], 0)


def _first_dim(tensor: Symbol) -> Symbol:
    size = tensor.get_shape()[0].value if tensor.get_shape().ndims else None
    return constant(int(size), dtype="int32") if size is not None else shape(tensor)[0]


def _index(index) -> Symbol:
    return index if isinstance(index, Symbol) else constant(index, dtype="int32")
