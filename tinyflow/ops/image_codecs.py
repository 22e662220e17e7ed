"""TF's image decoders and encoders (``tf.image.decode_png``, ``encode_png``, ``decode_bmp``,
``decode_image``, ``is_jpeg``, ``extract_jpeg_shape``; see
:mod:`tinyflow.frontend.image_codecs`): each pulled before the run as the string ops are
(FPullOutputs, session/pull.py), computed in Python by :mod:`.image_codec_kernels` from its
input's value, so the executor sees only the pixels (uint8: TinyFlow has no uint16 tensors) (or, for ``encode_png``, a string read by
the next string op or fetched).  The file's bytes are untrusted: a malformed one is TF's
InvalidArgumentError naming the node, one whose pixels would not fit in the host's memory
(nnvm/host_memory.py) ResourceExhaustedError.  Attributes are plain values (channels, format,
compression), each checked when the op runs (a graph document may give any), so graphs holding these ops serialise.  No Lua body.
"""
from __future__ import annotations

import numpy as np

from ..nnvm import host_memory
from ..nnvm.attrs import no_gradient
from ..nnvm.errors import DeadlineExceededError, ResourceExhaustedError
from ..nnvm.op import register_op
from ..nnvm.symbol import Symbol
from . import image_codec_kernels as codecs
from .strings import _invalid

__all__: list[str] = []

_FORMATS = ((b"\xff\xd8\xff", "jpeg"), (codecs.PNG_SIGNATURE[:4], "png"), (b"GIF8", "gif"),
            (b"BM", "bmp"))


def _contents(node, evaluate, what="contents") -> bytes:
    """Input 0's value: one string (TF's 0-D ``contents``), or the error naming the node."""
    value = np.asarray(evaluate([Symbol([node.inputs[0]])])[0], dtype=object)
    if value.ndim:
        raise _invalid(node, f"{what} must be scalar, got shape {list(value.shape)}")
    data = value.item()
    return data.encode() if isinstance(data, str) else bytes(data)


def _decode(node, data: bytes, deadline) -> np.ndarray:
    channels, kind = node.attrs.get("channels", 0), node.attrs.get("format", "png")
    if kind not in ("png", "bmp", "any") or type(channels) is not int:
        raise _invalid(node, f"cannot decode with its attributes {node.attrs}")
    if not data:
        raise _invalid(node, "Input is empty.")
    if kind == "any":
        kind = next((k for magic, k in _FORMATS if data.startswith(magic)), None)
        if kind is None:
            raise _invalid(node, "Unknown image file format. One of JPEG, PNG, GIF, BMP "
                                 "required.")
        if kind in ("jpeg", "gif"):
            raise _invalid(node, f"TinyFlow cannot decode {kind.upper()} images (only PNG "
                                 f"and BMP): the bytes are a {kind.upper()} file")
    if channels not in (0, 1, 3, 4):
        raise _invalid(node, f"`channels` must be 0, 1, 3 or 4 but got {channels}")
    budget, source = host_memory.host_available_bytes()
    try:
        if kind == "bmp":
            return codecs.bmp_decode(data, channels, budget)
        return codecs.png_decode(data, channels, "uint8", budget, deadline)
    except codecs.CodecError as error:
        raise _invalid(node, str(error)) from None
    except MemoryError as error:
        raise ResourceExhaustedError(f"{node.describe()}: {error} ({source})", node) from None
    except TimeoutError as error:
        raise DeadlineExceededError(None, node.name, f"{node.describe()}: {error}") from None


def _pull_decode(node, resources, evaluate, deadline):
    """FPullOutputs of decode_image_file: input 0's file decoded (attr format: png, bmp,
    or any: by its magic bytes)."""
    return [_decode(node, _contents(node, evaluate), deadline)]


def _pull_encode(node, resources, evaluate, deadline):
    """FPullOutputs of encode_png: input 0's pixels as a PNG file (attr compression)."""
    image = np.asarray(evaluate([Symbol([node.inputs[0]])])[0])
    if image.ndim != 3 or not 1 <= image.shape[2] <= 4:
        raise _invalid(node, f"image must be 3-dimensional with 1 to 4 channels, got shape "
                             f"{list(image.shape)}")
    if image.dtype not in (np.uint8, np.uint16):
        raise _invalid(node, f"image must be uint8 or uint16, got {image.dtype}")
    if 0 in image.shape[:2]:
        raise _invalid(node, f"image has no pixels: shape {list(image.shape)}")
    level = node.attrs.get("compression", -1)
    if type(level) is not int or not -1 <= level <= 9:
        raise _invalid(node, f"compression must be an int in [-1, 9], got {level!r}")
    host_memory.check_node_fits(node, 3 * image.nbytes + 1024, "to encode its PNG")
    return [np.array(codecs.png_encode(image, level), dtype=object)]


def _pull_jpeg(node, resources, evaluate, deadline):
    """FPullOutputs of is_jpeg (attr shape false) and extract_jpeg_shape (true)."""
    data = _contents(node, evaluate)
    if not node.attrs.get("shape"):
        return [np.array(data[:3] == b"\xff\xd8\xff")]
    if node.attrs.get("out_type") not in ("int32", "int64"):
        raise _invalid(node, f"out_type must be int32 or int64, got "
                             f"{node.attrs.get('out_type')!r}")
    try:
        return [np.array(codecs.jpeg_shape(data), dtype=node.attrs["out_type"])]
    except codecs.CodecError as error:
        raise _invalid(node, str(error)) from None


def _decoded_shape(attrs, in_shapes, out_shapes):
    return in_shapes, [out_shapes[0]]  # known once pulled: the file gives it


(register_op("decode_image_file")
 .describe("The pixels [height, width, channels] of the image file input 0 holds (a string "
           "scalar), uint8: attr format png or bmp, or any (by its magic bytes); attr channels "
           "(0: the file's); pulled before the run "
           "(tf.image.decode_png, decode_bmp, decode_image).")
 .set_num_inputs(1)
 .set_attr("FInferShape", _decoded_shape)
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["uint8"]))
 .set_attr("FPullOutputs", _pull_decode).set_attr("FGradient", no_gradient))

(register_op("encode_png")
 .describe("Input 0's pixels (uint8 or uint16, [height, width, 1 to 4]) as a PNG file, a "
           "string scalar pulled before the run (tf.image.encode_png; attr compression).")
 .set_num_inputs(1)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (in_shapes, [()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (in_types, ["string"]))
 .set_attr("FPullOutputs", _pull_encode).set_attr("FGradient", no_gradient))

(register_op("jpeg_header")
 .describe("Of the JPEG file input 0 holds: whether it is one (attr shape false, a bool "
           "scalar: tf.image.is_jpeg) or its [height, width, channels] from its SOF marker "
           "(attr shape true, of dtype attr out_type: tf.image.extract_jpeg_shape); pulled "
           "before the run.")
 .set_num_inputs(1)
 .set_attr("FInferShape", lambda attrs, in_shapes, out_shapes: (
     in_shapes, [(3,) if attrs.get("shape") else ()]))
 .set_attr("FInferType", lambda attrs, in_types, out_types: (
     in_types, [("int64" if attrs.get("out_type") == "int64" else "int32")
                if attrs.get("shape") else "bool"]))
 .set_attr("FPullOutputs", _pull_jpeg).set_attr("FGradient", no_gradient))
