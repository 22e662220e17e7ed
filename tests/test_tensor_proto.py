"""tf.make_tensor_proto and tf.make_ndarray against TensorFlow's: every expected byte string
below is TensorProto.SerializeToString() of TensorFlow's make_tensor_proto (tensorflow-cpu
2.21, whose tensor_util is TF 1.15's), recorded on 2026-11-27 and written here, with the array
its make_ndarray gave back.  Parsed bytes are untrusted: malformed ones are DecodeErrors."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.example_proto import DecodeError
from tinyflow.frontend.tensor_util import TensorProto, TensorShapeProto

# (values, keyword arguments, TensorFlow's bytes as hex, the array make_ndarray gave)
RECORDED = [
    (1.5, {}, "080112002a040000c03f", np.float32(1.5)),
    (np.array([1.0, -2.0], np.float32), {}, "080112041202080222080000803f000000c0",
     np.float32([1, -2])),
    (np.array([3.0], np.float32), {}, "08011204120208012a0400004040", np.float32([3])),
    ([[1, 2], [3, 4]], {}, "080312081202080212020802221001000000020000000300000004000000",
     np.int32([[1, 2], [3, 4]])),
    (np.array([-1, 2 ** 40], np.int64), {},
     "08091204120208022210ffffffffffffffff0000000000010000", np.int64([-1, 2 ** 40])),
    (-7, {}, "080312003a0af9ffffffffffffffff01", np.int32(-7)),
    (np.array([[0.5]], np.float64), {}, "0802120812020801120208013208000000000000e03f",
     np.float64([[0.5]])),
    ([True, False, True], {}, "080a1204120208035a03010001", np.array([True, False, True])),
    (True, {}, "080a12005a0101", np.bool_(True)),
    (np.array([1.0, 2.0], np.float16), {}, "08131204120208022204003c0040", np.float16([1, 2])),
    (np.float16(1.5), {}, "081312006a02807c", np.float16(1.5)),
    (np.array([1, 255], np.uint8), {}, "0804120412020802220201ff", np.uint8([1, 255])),
    (np.uint8(200), {}, "080412003a02c801", np.uint8(200)),
    (np.int8(-3), {}, "080612003a0afdffffffffffffffff01", np.int8(-3)),
    (1.0, {"shape": [2, 3]}, "0801120812020802120208032a040000803f", np.ones((2, 3), np.float32)),
    ([1, 2], {"dtype": tf.float32}, "080112041202080222080000803f00000040", np.float32([1, 2])),
    ([1, 2, 3, 4], {"shape": [2, 2]},
     "080312081202080212020802221001000000020000000300000004000000", np.int32([[1, 2], [3, 4]])),
    (["ab", b"c"], {}, "080712041202080242026162420163", np.array([b"ab", b"c"], object)),
    ("hi", {}, "0807120042026869", np.array(b"hi", object)),
    (np.zeros((0, 3), np.float32), {}, "08011206120012020803", np.zeros((0, 3), np.float32)),
    (0.0, {}, "080112002a0400000000", np.float32(0)),
    (np.int64(5), {}, "08091200520105", np.int64(5)),
    (np.int16(-2), {}, "080512003a0afeffffffffffffffff01", np.int16(-2)),
    # Python ints past int32 make an int64 tensor, as TF's conversion
    ([2 ** 40], {}, "08091204120208015206808080808020", np.int64([2 ** 40])),
    ([1, 2 ** 31], {}, "0809120412020802221001000000000000000000008000000000",
     np.int64([1, 2 ** 31])),
    ([[1, 2.5]], {}, "08011208120208011202080222080000803f00002040", np.float32([[1, 2.5]])),
    ([True, 1], {}, "080312041202080222080100000001000000", np.int32([1, 1])),
]


@pytest.mark.parametrize("values, kwargs, expected, array", RECORDED)
def test_bytes_and_arrays_as_tensorflow(values, kwargs, expected, array):
    proto = tf.make_tensor_proto(values, **kwargs)
    assert proto.SerializeToString().hex() == expected
    got = tf.make_ndarray(proto)
    assert got.dtype == array.dtype and got.shape == array.shape
    assert got.tolist() == array.tolist()
    parsed = TensorProto.FromString(bytes.fromhex(expected))  # TF's bytes read back
    assert parsed.SerializeToString().hex() == expected
    assert tf.make_ndarray(parsed).tolist() == array.tolist()


def test_fields_and_tensorflows_protos_read():
    proto = tf.make_tensor_proto([1.0, 2.0])
    # recorded: dtype 1, one dim of size 2, 8 content bytes
    assert proto.dtype == 1 and [d.size for d in proto.tensor_shape.dim] == [2]
    assert len(proto.tensor_content) == 8
    # recorded: protos TensorFlow's own protobuf built (float_val broadcast, int_val, a
    # string repeated to fill) and what make_ndarray gave
    cases = [("0801120812020802120208032a0400008040", np.full((2, 3), 4.0, np.float32)),
             ("08031204120208033a03010203", np.int32([1, 2, 3])),
             ("080712041202080342026162", np.array([b"ab"] * 3, object))]
    for hexed, array in cases:
        got = tf.make_ndarray(TensorProto.FromString(bytes.fromhex(hexed)))
        assert got.dtype == array.dtype and got.tolist() == array.tolist()
    empty_strings = TensorProto.FromString(bytes.fromhex("08071204120208 02".replace(" ", "")))
    assert tf.make_ndarray(empty_strings).tolist() == ["", ""]  # recorded: TF's '' padding


@pytest.mark.parametrize("call, error, message", [
    (lambda: tf.make_tensor_proto([1, 2, 3], shape=[2]), ValueError,
     "Too many elements provided. Takes at most 2, but got 3."),
    (lambda: tf.make_tensor_proto([1, 2, 3, 4], shape=[4, 1], verify_shape=True), TypeError,
     r"Expected Tensor's shape: \(4, 1\), but got \(4,\)."),
    (lambda: tf.make_tensor_proto([1.5], dtype=tf.int32), TypeError,
     "Expected int32, but got 1.5 of type 'float'."),
    (lambda: tf.make_tensor_proto(None), ValueError, "None values not supported."),
    (lambda: tf.make_tensor_proto(tf.constant(1.0)), TypeError,
     "Expected any non-tensor type, but got a tensor instead."),
])
def test_errors_as_tensorflow(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_broadcast_and_too_many_values_read():
    assert tf.make_ndarray(tf.make_tensor_proto([1, 2], shape=[2, 2],
                                                allow_broadcast=True)).tolist() == [[1, 2],
                                                                                    [1, 2]]
    proto = TensorProto.FromString(bytes.fromhex("080112041202080222080000803f00000040"))
    proto.tensor_content, proto.float_val = b"", [1.0, 2.0, 3.0]
    with pytest.raises(ValueError):  # recorded: TF's ValueError (3 values for 2)
        tf.make_ndarray(proto)


def _hostile(dtype, dims, content=b"", floats=()) -> bytes:
    """A TensorProto's bytes written by this module's writer (checked above against TF's)."""
    proto = TensorProto(dtype, TensorShapeProto(), content)
    proto.tensor_shape.dim = [TensorShapeProto.Dim(d) for d in dims]
    proto.float_val = list(floats)
    return proto.SerializeToString()


@pytest.mark.parametrize("data, message", [
    (_hostile(1, [2]), None),                                  # no values: zeros, as TF's
    (bytes.fromhex("08011204120208"), "runs past the end"),    # truncated
    (_hostile(1, [2, -1]), "not a shape"),                     # a negative dim
    (_hostile(1, [2], b"\0\0\0"), "tensor_content holds"),  # content of the wrong size
    (_hostile(1, [2 ** 31, 2 ** 20], floats=[1.0]), "does not fit"),  # the memory check
    (_hostile(13, [1]), "Unsupported tensor type"),
    (_hostile(7, [1], b"abcdefgh"), "tensor_content holds"),  # strings are never content           # not a dtype TinyFlow reads
    (bytes.fromhex("0801120012"), "runs past the end"),
    (bytes.fromhex("0801120202") + bytes(1), "field number 0"),
])
def test_hostile_bytes_are_errors(data, message):
    if message is None:
        assert tf.make_ndarray(TensorProto.FromString(data)).tolist() == [0, 0]
        return
    with pytest.raises((DecodeError, ValueError, TypeError), match=message):
        tf.make_ndarray(TensorProto.FromString(data))
