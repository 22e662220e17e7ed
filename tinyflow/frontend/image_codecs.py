"""TensorFlow 1.15's image files (``tf.image`` and ``tf.io``): ``decode_png``, ``encode_png``,
``decode_bmp``, ``decode_image`` (PNG and BMP; a JPEG or GIF is an InvalidArgumentError saying
TinyFlow cannot decode it), ``is_jpeg`` and ``extract_jpeg_shape``.  Each is one op
(:mod:`tinyflow.ops.image_codecs`) computed in Python before the run, from a string tensor
(``tf.read_file``'s, a fed one, a dataset element's); a malformed file is TF's
InvalidArgumentError naming the node.  The pixels' static shape is ``[None, None, channels]``
(``channels`` 0: unknown), as TF's.
"""
from __future__ import annotations

from ..nnvm.symbol import Symbol, create_op
from .dtypes import as_dtype
from .image_ops import convert_image_dtype
from .io_ops import _string
from .math_ops import convert_to_tensor

__all__ = ["decode_bmp", "decode_image", "decode_png", "encode_png", "extract_jpeg_shape",
           "is_jpeg"]


def _channels(channels) -> int:
    channels = 0 if channels is None else channels
    if not isinstance(channels, int) or isinstance(channels, bool) or channels < 0:
        raise ValueError(f"channels must be a non-negative int, got {channels!r}")
    return channels


def _decoded(contents, function, channels, file_format, name) -> Symbol:
    channels = _channels(channels)
    image = create_op("decode_image_file", _string(contents, function, (0,)), format=file_format,
                      channels=channels, name=name or function)
    image.set_shape([None, None, channels or None])
    return image


def _uint8(dtype, function) -> str:
    name = getattr(dtype, "name", dtype)
    if name in ("uint16", "tf.uint16"):  # the kernel reads 16 bits; no tensor can hold them
        raise TypeError(f"{function}: TinyFlow has no uint16 dtype; decode as uint8 (16-bit "
                        f"samples keep their high byte, as TF's uint8 decode)")
    return as_dtype(dtype).name


def decode_png(contents, channels=0, dtype="uint8", name=None) -> Symbol:
    """``tf.image.decode_png``: the uint8 pixels ``[height, width, channels]`` of the PNG
    file ``contents`` (a string scalar), of any colour type, bit depth, filter and
    interlacing.  ``channels`` 0 keeps the file's (palette: 3, or 4 with a tRNS chunk), 1
    makes colour grey (libpng's weights 0.299, 0.587, 0.114, as TF), 3 or 4 add or drop
    alpha.  16-bit samples keep their high byte.  TinyFlow has no ``tf.uint16``: that
    ``dtype`` is a TypeError."""
    dtype = _uint8(dtype, "decode_png")
    if dtype != "uint8":
        raise TypeError(f"decode_png: dtype must be uint8 or uint16, got {dtype}")
    return _decoded(contents, "DecodePng", channels, "png", name)


def decode_bmp(contents, channels=0, name=None) -> Symbol:
    """``tf.image.decode_bmp``: the uint8 pixels of the BMP file ``contents`` (uncompressed,
    8, 24 or 32 bits a pixel); ``channels`` 0 or the file's own."""
    return _decoded(contents, "DecodeBmp", channels, "bmp", name)


def decode_image(contents, channels=None, dtype="uint8", name=None,
                 expand_animations=True) -> Symbol:
    """``tf.image.decode_image``: a PNG or BMP file (told apart by its first bytes) decoded
    as :func:`decode_png` / :func:`decode_bmp`; a float ``dtype`` scales the pixels to
    [0, 1] (``convert_image_dtype``).  A JPEG or GIF file is an InvalidArgumentError saying
    TinyFlow cannot decode it.  The static shape is unknown, as TF's."""
    dtype = as_dtype(_uint8(dtype, "decode_image"))
    if dtype.name not in ("uint8", "float16", "float32", "float64"):
        raise TypeError(f"decode_image: dtype must be uint8, uint16 or a float, got "
                        f"{dtype.name}")
    image = create_op("decode_image_file", _string(contents, "decode_image", (0,)),
                      format="any", channels=_channels(channels),
                      name=name or "decode_image")
    return image if not dtype.is_floating else convert_image_dtype(image, dtype)


def encode_png(image, compression=-1, name=None) -> Symbol:
    """``tf.image.encode_png``: the PNG file (a string scalar) of ``image`` ``[height,
    width, 1 to 4]``, uint8 (TinyFlow has no uint16 tensors), deflated at ``compression`` (-1: zlib's default, 0
    to 9).  Its bytes are not TF's (each row is unfiltered), its pixels are."""
    image = convert_to_tensor(image, name="image")
    if image.dtype.name != "uint8":
        raise TypeError(f"encode_png: image must be uint8 (or TF's uint16, which TinyFlow "
                        f"does not have), got {image.dtype.name}")
    if image.get_shape().ndims not in (None, 3):
        raise ValueError(f"Shape must be rank 3 but is rank {image.get_shape().ndims} for "
                         f"'EncodePng' with input shape {image.get_shape()}")
    if not isinstance(compression, int) or not -1 <= compression <= 9:
        raise ValueError(f"encode_png: compression must be an int in [-1, 9], got "
                         f"{compression!r}")
    return create_op("encode_png", image, compression=compression, name=name or "EncodePng")


def is_jpeg(contents, name=None) -> Symbol:
    """``tf.image.is_jpeg``: whether ``contents`` starts as a JPEG file (bytes FF D8 FF)."""
    return create_op("jpeg_header", _string(contents, "is_jpeg", (0,)), shape=False,
                     name=name or "is_jpeg")


def extract_jpeg_shape(contents, output_type="int32", name=None) -> Symbol:
    """``tf.image.extract_jpeg_shape``: ``[height, width, channels]`` of the JPEG file
    ``contents``, read from its frame header (SOF marker) without decoding it."""
    out_type = as_dtype(output_type).name
    if out_type not in ("int32", "int64"):
        raise TypeError(f"extract_jpeg_shape: output_type must be int32 or int64, got "
                        f"{out_type}")
    return create_op("jpeg_header", _string(contents, "ExtractJpegShape", (0,)), shape=True,
                     out_type=out_type, name=name or "ExtractJpegShape")
