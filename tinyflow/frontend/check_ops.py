"""TensorFlow 1.15's assertions (``tf.assert_equal``... ``tf.assert_rank``...,
``tf.debugging.*``), ``tf.check_numerics`` / ``tf.add_check_numerics_ops`` and ``tf.print``.

As TF's ``check_ops``: what the graph already tells (dtypes, static ranks and shapes, the
values of constants) is checked as the assertion is made, a ValueError / TypeError (or TF's
InvalidArgumentError for constants that fail); the rest becomes a :func:`tf.Assert
<tinyflow.frontend.control_flow_ops.Assert>` of ``reduce_all(condition)``, which stops a run
that reaches it with TF's message (``assertion failed: [message] [Condition x < y did not
hold element-wise:] [x (x:0) = ] [1 2 3] ...``).  Run the result, or make ops depend on it with
``tf.control_dependencies``.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable

import numpy as np

from ..nnvm.symbol import NodeEntry, Symbol, create_op, current_context
from .api import (
    _tensor,
    constant,
    control_dependencies,
    equal,
    greater,
    greater_equal,
    group,
    identity,
    less,
    less_equal,
    no_op,
    not_equal,
    reduce_all,
    reduce_any,
    subtract,
)
from .api import abs as _abs
from .array_ops import rank as _rank
from .array_ops import shape as _shape
from .control_flow_ops import Assert, _element
from .dtypes import as_dtype, float32
from .errors import InvalidArgumentError
from .math_ops import is_finite

__all__ = ["add_check_numerics_ops", "assert_equal", "assert_greater", "assert_greater_equal",
           "assert_integer", "assert_less", "assert_less_equal", "assert_near",
           "assert_negative", "assert_non_negative", "assert_non_positive", "assert_none_equal",
           "assert_positive", "assert_proper_iterable", "assert_rank", "assert_rank_at_least",
           "assert_rank_in", "assert_same_float_dtype", "assert_scalar", "assert_type",
           "check_numerics", "print", "verify_tensor_all_finite"]


def constant_value(tensor: Symbol):
    """The value of a constant tensor as numpy (TF's ``tensor_util.constant_value`` for
    constants), else None."""
    node = tensor.outputs[0].node
    if node.op is None or node.op.name != "constant" or node.attrs.get("dtype") == "string":
        return None
    return np.asarray(node.attrs["value"], dtype=as_dtype(node.attrs["dtype"]).as_numpy_dtype
                      ).reshape(node.attrs["shape"])


def _static_message(data) -> str:
    """TF's ``_assert_static``: the data's strings and the constants' values, one a line."""
    shown = []
    for item in data:
        value = constant_value(item) if isinstance(item, Symbol) else None
        shown.append(str(value) if value is not None else str(item))
    return "\n".join(shown)


def _binary_assert(sym, scope, check, static_check, x, y, data, summarize, message, name):
    """TF 1.15's ``_binary_assert``: ``reduce_all(check(x, y))`` as a tf.Assert, or TF's
    InvalidArgumentError now when x and y are constants that fail."""
    with current_context().name_scope(name or scope):
        x, y = _tensor(x), _tensor(y)
        if data is None:
            data = [message or "", f"Condition x {sym} y did not hold element-wise:",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        x_static, y_static = constant_value(x), constant_value(y)
        if (x_static is not None and y_static is not None
                and not np.all(static_check(x_static, y_static))):
            raise InvalidArgumentError(None, None, _static_message(data))
        return Assert(reduce_all(check(x, y)), data, summarize=summarize)


def _comparison(sym, scope, check, static_check):
    def assertion(x, y, data=None, summarize=None, message=None, name=None):
        return _binary_assert(sym, scope, check, static_check, x, y, data, summarize,
                              message, name)
    assertion.__name__ = scope
    assertion.__doc__ = (
        f"An operation failing a run where ``x {sym} y`` does not hold for every element "
        f"(broadcast), as TensorFlow 1.15's ``tf.{scope}``: TF's InvalidArgumentError "
        f"naming the condition and showing ``message`` and the first ``summarize`` values of "
        f"``x`` and ``y`` (or ``data``); constants that fail raise it now.")
    return assertion


assert_equal = _comparison("==", "assert_equal", equal, np.equal)
assert_none_equal = _comparison("!=", "assert_none_equal", not_equal, np.not_equal)
assert_less = _comparison("<", "assert_less", less, np.less)
assert_less_equal = _comparison("<=", "assert_less_equal", less_equal, np.less_equal)
assert_greater = _comparison(">", "assert_greater", greater, np.greater)
assert_greater_equal = _comparison(">=", "assert_greater_equal", greater_equal,
                                   np.greater_equal)


def _sign_assert(sym, scope, compare, zero_first):
    def assertion(x, data=None, summarize=None, message=None, name=None):
        with current_context().name_scope(name or scope):
            x = _tensor(x)
            if data is None:
                data = [message or "", f"Condition x {sym} 0 did not hold element-wise:",
                        f"x ({x.name}) = ", x]
            zero = constant(0, dtype=x.dtype)
            pair = (zero, x) if zero_first else (x, zero)
            return compare(*pair, data=data, summarize=summarize)
    assertion.__name__ = scope
    assertion.__doc__ = (f"An operation failing a run where an element of ``x`` is not "
                         f"``{sym} 0``, as TensorFlow 1.15's ``tf.{scope}`` (see "
                         f":func:`assert_less`).")
    return assertion


assert_positive = _sign_assert(">", "assert_positive", assert_less, True)
assert_negative = _sign_assert("<", "assert_negative", assert_less, False)
assert_non_negative = _sign_assert(">=", "assert_non_negative", assert_less_equal, True)
assert_non_positive = _sign_assert("<=", "assert_non_positive", assert_less_equal, False)


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None,
                name=None):
    """An operation failing a run where ``|x - y| < atol + rtol * |y|`` does not hold for
    every element, as TensorFlow 1.15's ``tf.assert_near`` (``rtol`` and ``atol`` default to
    10 times the dtype's machine epsilon)."""
    with current_context().name_scope(name or "assert_near"):
        x = _tensor(x)
        y = y if isinstance(y, Symbol) else constant(y, dtype=x.dtype)
        eps = np.finfo(x.dtype.as_numpy_dtype).eps
        rtol, atol = (value if isinstance(value, Symbol) else constant(
            10 * eps if value is None else value, dtype=x.dtype, name=label)
            for value, label in ((rtol, "rtol"), (atol, "atol")))
        if data is None:  # TF shows the tolerances as the tensors they are
            tolerances = f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}"
            data = [message or "", tolerances, f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        tolerance = atol + rtol * _abs(y)
        return Assert(reduce_all(less(_abs(subtract(x, y)), tolerance)), data,
                      summarize=summarize)


def _rank_assert(what, static_holds, dynamic_check, x, rank, data, summarize, message, name,
                 scope):
    """The rank assertions: a ValueError now when the static rank fails, an Assert when the
    rank is unknown until run time, else an operation doing nothing."""
    with current_context().name_scope(name or scope):
        x = _tensor(x)
        ndims = x.get_shape().ndims
        if ndims is not None:
            if not static_holds(ndims):
                prefix = f"{message}.  " if message else ""
                raise ValueError(f"{prefix}Tensor {x.name} must have rank {what}.  Received "
                                 f"rank {ndims}, shape {x.get_shape()}")
            return no_op(name="static_checks_determined_all_ok")
        if data is None:
            data = [message or "", f"Tensor {x.name} must have rank {what}",
                    "Received shape: ", _shape(x)]
        return Assert(dynamic_check(_rank(x)), data, summarize=summarize)


def assert_rank(x, rank, message=None, name=None, data=None, summarize=None):
    """TensorFlow 1.15's ``tf.assert_rank``: ValueError now when ``x``'s static rank is not
    ``rank``; an Assert when its rank is known at run time only."""
    return _rank_assert(str(rank), lambda n: n == rank, lambda r: equal(r, rank), x, rank,
                        data, summarize, message, name, "assert_rank")


def assert_rank_at_least(x, rank, message=None, name=None, data=None, summarize=None):
    """As :func:`assert_rank`, for a rank of at least ``rank``."""
    return _rank_assert(f"at least {rank}", lambda n: n >= rank,
                        lambda r: greater_equal(r, rank), x, rank, data, summarize, message,
                        name, "assert_rank_at_least")


def assert_rank_in(x, ranks, message=None, name=None, data=None, summarize=None):
    """As :func:`assert_rank`, for a rank among ``ranks``."""
    ranks = tuple(int(r) for r in ranks)
    return _rank_assert(f"in {ranks}", lambda n: n in ranks,
                        lambda r: reduce_any(equal(r, np.asarray(ranks, dtype=np.int32))),
                        x, ranks, data, summarize, message, name, "assert_rank_in")


def assert_integer(x, message=None, name=None):
    """TypeError now unless ``x`` is of an integer dtype (TensorFlow 1.15's
    ``tf.assert_integer``); an operation doing nothing otherwise."""
    x = _tensor(x)
    if not x.dtype.is_integer:
        prefix = f"{message}.  " if message else ""
        raise TypeError(f'{prefix}Expected "x" to be integer type.  Found: {x.name} of dtype '
                        f"{x.dtype}")
    return no_op(name=name or "statically_determined_was_integer")


def assert_type(tensor, tf_type, message=None, name=None):
    """TypeError now unless ``tensor`` is of dtype ``tf_type`` (TensorFlow 1.15's
    ``tf.assert_type``); an operation doing nothing otherwise."""
    tensor, tf_type = _tensor(tensor), as_dtype(tf_type)
    if tensor.dtype != tf_type:
        prefix = f"{message}.  " if message else ""
        raise TypeError(f"{prefix}{tensor.name} must be of type {tf_type!r}; got "
                        f"{tensor.dtype!r}")
    return no_op(name=name or "statically_determined_correct_type")


def assert_scalar(tensor, name=None, message=None):
    """``tensor``, after a ValueError now unless its static shape is a scalar's (TensorFlow
    1.15's ``tf.assert_scalar``: an unknown rank fails too)."""
    tensor = _tensor(tensor)
    shape = tensor.get_shape()
    if shape.ndims != 0:
        prefix = f"{message}.  " if message else ""
        raise ValueError(f"{prefix}Expected scalar shape for {tensor.name}, saw shape: "
                         f"{shape}.")
    return tensor


def assert_same_float_dtype(tensors=None, dtype=None):
    """The one floating dtype of ``tensors`` and ``dtype`` (float32 when both are empty), as
    TensorFlow 1.15's ``tf.assert_same_float_dtype``; ValueError naming the tensor that
    differs, or the dtype that is not floating."""
    first, expected = None, None if dtype is None else as_dtype(dtype)
    for tensor in tensors or ():
        tensor = _tensor(tensor)
        if expected is None:
            first, expected = tensor, tensor.dtype
        elif tensor.dtype != expected:
            against = f" as {first.name}" if first is not None else ""
            raise ValueError(f"{tensor.name}, type={tensor.dtype}, must be of the same type "
                             f"({expected}){against}.")
    if expected is None:
        return float32
    if not expected.is_floating:
        raise ValueError(f"Expected floating point type, got {expected}.")
    return expected


def assert_proper_iterable(values):
    """TypeError unless ``values`` is an iterable that is neither a tensor, an array nor a
    string (TensorFlow 1.15's ``tf.assert_proper_iterable``)."""
    if isinstance(values, (Symbol, np.ndarray, str, bytes)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")
    if not isinstance(values, Iterable):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


# -- tf.check_numerics ---------------------------------------------------------------------------
def check_numerics(tensor, message, name=None) -> Symbol:
    """``tensor`` as it is; a run where it holds a NaN or an infinity fails with TF's
    InvalidArgumentError ``<message> : Tensor had NaN values`` (``Inf``, ``Inf and NaN``), as
    TensorFlow 1.15's ``tf.check_numerics``.  The gradient passes through unchecked."""
    tensor = _tensor(tensor)
    if not tensor.dtype.is_floating:
        raise TypeError(f"tf.check_numerics: {tensor.name} is {tensor.dtype.name}; it takes "
                        f"float16, float32 or float64 tensors")
    with current_context().name_scope(name or "CheckNumerics"):
        check = create_op("assert", reduce_all(is_finite(tensor)), tensor, num_args=2,
                          summarize=0, func=_NumericsCheck(str(message)), name="Assert")
        with control_dependencies([Symbol(check.outputs, is_operation=True)]):
            return identity(tensor)


def verify_tensor_all_finite(t, msg, name=None) -> Symbol:
    """TensorFlow 1.x's ``tf.verify_tensor_all_finite``: :func:`check_numerics`."""
    return check_numerics(t, msg, name=name)


class _NumericsCheck:
    """A check_numerics node's run-time side: TF's message, saying which kind it found."""

    def __init__(self, message: str):
        self.message = message

    def __call__(self, node, inputs):
        if not np.asarray(inputs[0]):
            values = np.asarray(inputs[1])
            found = [kind for kind, seen in (("Inf", np.isinf(values).any()),
                                              ("NaN", np.isnan(values).any())) if seen]
            raise InvalidArgumentError(None, node.name, f"{self.message} : Tensor had "
                                                        f"{' and '.join(found)} values")
        return np.asarray(True)


def add_check_numerics_ops() -> Symbol:
    """An operation checking every float tensor of the current graph made so far with
    :func:`check_numerics` (message ``<op name>:<output>``), one after another, as TensorFlow
    1.15's ``tf.add_check_numerics_ops``."""
    checks = []
    for node in current_context().get_operations():
        for index in range(node.num_outputs()):
            tensor = Symbol([NodeEntry(node, index)])
            if tensor.dtype.is_floating:
                with control_dependencies(checks):
                    checks = [check_numerics(tensor, f"{node.name}:{index}")]
    return group(*checks)


# -- tf.print -----------------------------------------------------------------------------------
def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):
    """An operation printing ``inputs`` every time it runs, as TensorFlow 1.15's ``tf.print``
    (beside :func:`tf.Print <tinyflow.frontend.control_flow_ops.Print>`): strings as they
    are, tensors as TF formats them (their first and last ``summarize`` elements per axis,
    ``...`` between; None or a negative number: all), separated by ``sep``, ended by ``end``,
    to ``output_stream`` (an object with ``write``: ``sys.stdout``, a file; by default
    ``sys.stderr``, as TF's, looked up when the op runs, so a redirected stderr gets it)."""
    if output_stream is not None and not hasattr(output_stream, "write"):
        raise ValueError(f"tf.print: output_stream must be a stream such as sys.stderr or "
                         f"sys.stdout, got {output_stream!r}")
    tensors = []
    template = [_template(x, tensors) for x in inputs]
    printer = _PrintV2(template, output_stream, -1 if summarize is None else int(summarize),
                       sep, end)
    inputs = [_tensor(0)] + tensors  # the print op passes its first input through
    result = create_op("print", *inputs, num_args=len(inputs), message="", first_n=-1,
                       summarize=printer.summarize, func=printer, name=name or "PrintV2")
    return Symbol(result.outputs, is_operation=True)


def _template(value, tensors: list):
    """``value`` with each tensor in it replaced by its index in ``tensors`` (a Slot)."""
    if isinstance(value, (Symbol, NodeEntry)):
        tensors.append(_tensor(value))
        return _Slot(len(tensors))
    if isinstance(value, dict):
        return {k: _template(v, tensors) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_template(v, tensors) for v in value) if not hasattr(
            value, "_fields") else value
    return value


class _Slot(int):
    """Where a tensor's value goes in a tf.print's output (its input's index)."""


class _PrintV2:
    """A tf.print node's run-time side: TF's layout of the values, written to the stream."""

    def __init__(self, template, stream, summarize: int, sep: str, end: str):
        self.template, self.stream, self.summarize = template, stream, summarize
        self.sep, self.end = sep, end

    def __call__(self, node, inputs):
        text = self.sep.join(self._show(item, inputs, top=True) for item in self.template)
        stream = sys.stderr if self.stream is None else self.stream
        stream.write(text + self.end)
        stream.flush()
        return inputs[0]

    def _show(self, item, inputs, top=False) -> str:
        if isinstance(item, _Slot):
            return format_tensor(np.asarray(inputs[item]), self.summarize)
        if isinstance(item, dict):
            return "{" + ", ".join(f"{k!r}: {self._show(v, inputs)}"
                                   for k, v in item.items()) + "}"
        if isinstance(item, list):
            return "[" + ", ".join(self._show(v, inputs) for v in item) + "]"
        if isinstance(item, tuple):
            return "(" + ", ".join(self._show(v, inputs) for v in item) + ")"
        return str(item) if top or not isinstance(item, str) else repr(item)


def format_tensor(array, summarize: int) -> str:
    """A tensor as TensorFlow's ``tf.print`` writes it (``SummarizeValue`` V2): the first and
    last ``summarize`` entries of each axis with ``...`` between (all when negative), rows on
    lines of their own, a blank line between blocks of rank 3 and up."""
    if array.ndim == 0:
        return _quoted(array[()])
    return "[" + _format_axis(array, 0, summarize) + "]"


def _quoted(value) -> str:  # TF's PrintOneElement with print_v2: a string escaped, in quotes
    return f'"{_element(value)}"' if isinstance(value, bytes) else _element(value)


def _kept(length: int, summarize: int):
    """The indices shown along an axis of ``length``, None standing for the ``...``."""
    if summarize < 0 or length <= 2 * summarize:
        return list(range(length))
    return [*range(summarize), None, *range(length - summarize, length)]


def _format_axis(array, depth: int, summarize: int) -> str:
    if array.ndim == 1:
        return " ".join("..." if i is None else _quoted(array[i])
                        for i in _kept(len(array), summarize))
    sep = "\n" * (array.ndim - 1) + " " * (depth + 1)
    return sep.join("..." if i is None else "[" + _format_axis(array[i], depth + 1, summarize)
                    + "]" for i in _kept(len(array), summarize))
