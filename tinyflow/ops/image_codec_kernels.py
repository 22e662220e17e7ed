"""The image file formats TF-1's decoders read, in numpy and Python's zlib (no image library):
PNG read (every bit depth, colour type, filter and Adam7 interlacing) and written, BMP read
(TF's: uncompressed, 8, 24 and 32 bits a pixel), and a JPEG's header read (its SOF marker's
size).  The bytes are untrusted: every length is checked before it is read, every allocation
(the pixels, the inflated rows) against ``budget`` bytes before it is made, and inflating
stops at the size the header implies (a zlib bomb inflates no further).  A malformed file is
a :class:`CodecError` whose message says what is wrong, as libpng's would.
"""
from __future__ import annotations

import struct
import time
import zlib

import numpy as np

__all__ = ["CodecError", "bmp_decode", "jpeg_shape", "png_decode", "png_encode"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# colour type: (samples a pixel, bit depths allowed)
_COLOR_TYPES = {0: (1, (1, 2, 4, 8, 16)), 2: (3, (8, 16)), 3: (1, (1, 2, 4, 8)),
                4: (2, (8, 16)), 6: (4, (8, 16))}
# Adam7: (first row, first column, row step, column step) of each pass
_ADAM7 = ((0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2),
          (1, 0, 2, 1))
_MAX_SIDE = 1_000_000  # libpng's default user limit on a width or height


class CodecError(ValueError):
    """Bytes that are not a valid file of the format read."""


def _check_budget(needed: int, budget: int, what: str):
    if needed > budget:
        raise MemoryError(f"{what} needs about {needed} bytes, more than the {budget} "
                          f"available")


def _chunks(data: bytes):
    """``(type, payload)`` of each chunk after the signature, CRCs checked, up to IEND."""
    position = len(PNG_SIGNATURE)
    while True:
        if position + 8 > len(data):
            raise CodecError("PNG file is truncated: a chunk's header is missing (no IEND)")
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        end = position + 8 + length
        if length > 0x7FFFFFFF or end + 4 > len(data):
            raise CodecError(f"PNG chunk {kind!r} is truncated: it claims {length} bytes")
        payload = data[position + 8:end]
        (crc,) = struct.unpack(">I", data[end:end + 4])
        if zlib.crc32(kind + payload) & 0xFFFFFFFF != crc:
            raise CodecError(f"PNG chunk {kind!r}: CRC error")
        yield kind, payload
        if kind == b"IEND":
            return
        position = end + 4


def _header(payload: bytes) -> tuple:
    if len(payload) != 13:
        raise CodecError("PNG IHDR chunk has the wrong length")
    width, height, depth, color, compression, filtering, interlace = struct.unpack(
        ">IIBBBBB", payload)
    if width and height and width > 0x7FFFFFFF // height:
        raise CodecError(f"PNG size too large for int: {width} by {height}")
    if not (0 < width <= _MAX_SIDE and 0 < height <= _MAX_SIDE):
        raise CodecError(f"PNG image size {width}x{height} is invalid or exceeds the "
                         f"{_MAX_SIDE} pixels a side allowed")
    if color not in _COLOR_TYPES or depth not in _COLOR_TYPES[color][1]:
        raise CodecError(f"PNG has an invalid colour type {color} with bit depth {depth}")
    if compression or filtering or interlace > 1:
        raise CodecError("PNG has an unknown compression, filter or interlace method")
    return width, height, depth, color, interlace


def _read_chunks(data: bytes) -> dict:
    """The IHDR fields, palette, transparency and compressed image data of a PNG file."""
    if not data:
        raise CodecError("Input is empty.")
    if not data.startswith(PNG_SIGNATURE):
        raise CodecError(f"Invalid PNG header, data size {len(data)}")
    info = {"palette": None, "trns": None, "idat": []}
    for kind, payload in _chunks(data):
        if "header" not in info:
            if kind != b"IHDR":
                raise CodecError("PNG file does not start with an IHDR chunk")
            info["header"] = _header(payload)
        elif kind == b"PLTE":
            if len(payload) % 3 or not 0 < len(payload) <= 768:
                raise CodecError("PNG PLTE chunk has an invalid length")
            info["palette"] = np.frombuffer(payload, np.uint8).reshape(-1, 3)
        elif kind == b"tRNS":
            info["trns"] = payload
        elif kind == b"IDAT":
            info["idat"].append(payload)
        elif kind[0] & 0x20 == 0 and kind not in (b"IEND",):  # an unknown critical chunk
            raise CodecError(f"PNG has an unknown critical chunk {kind!r}")
    if not info["idat"]:
        raise CodecError("PNG file has no image data (IDAT)")
    if info["header"][3] == 3 and info["palette"] is None:
        raise CodecError("PNG palette image has no PLTE chunk")
    return info


def _passes(width: int, height: int, interlace: int) -> list:
    """``(row0, col0, row step, col step, rows, cols)`` of each non-empty pass."""
    if not interlace:
        return [(0, 0, 1, 1, height, width)]
    out = []
    for row0, col0, row_step, col_step in _ADAM7:
        rows, cols = -(-(height - row0) // row_step), -(-(width - col0) // col_step)
        if rows > 0 and cols > 0:
            out.append((row0, col0, row_step, col_step, rows, cols))
    return out


def _inflate(info: dict, expected: int) -> bytes:
    """The image data inflated: exactly ``expected`` bytes, never more (a zlib bomb)."""
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(b"".join(info["idat"]), expected)
    except zlib.error as error:
        raise CodecError(f"PNG image data is corrupt: {error}") from None
    if len(raw) < expected:
        raise CodecError(f"PNG image data is truncated: {len(raw)} of the {expected} bytes "
                         f"its size needs")
    return raw


def _unfilter(raw, offset: int, rows: int, row_bytes: int, bpp: int, deadline):
    """The ``rows`` filtered scanlines at ``offset`` of ``raw`` unfiltered, a uint8 array
    ``[rows, row_bytes]``."""
    out = np.zeros((rows, row_bytes), np.uint8)
    prior = np.zeros(row_bytes, np.int64)
    for row in range(rows):
        start = offset + row * (row_bytes + 1)
        kind = raw[start]
        line = np.frombuffer(raw, np.uint8, row_bytes, start + 1).astype(np.int64)
        if kind == 0:
            current = line
        elif kind == 1:  # Sub: a running sum per byte of a pixel
            padded = np.concatenate([line, np.zeros(-row_bytes % bpp, np.int64)])
            current = padded.reshape(-1, bpp).cumsum(axis=0).reshape(-1)[:row_bytes] & 255
        elif kind == 2:
            current = (line + prior) & 255
        elif kind in (3, 4):
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"decoding took longer than the run's timeout, at row {row}")
            current = _unfilter_sequential(kind, line.tolist(), prior.tolist(), bpp)
        else:
            raise CodecError(f"PNG row {row} has an unknown filter type {kind}")
        out[row] = current
        prior = np.asarray(current, np.int64)
    return out


def _unfilter_sequential(kind: int, line: list, prior: list, bpp: int) -> np.ndarray:
    """Average (3) and Paeth (4): each byte depends on the one a pixel to its left."""
    out = [0] * len(line)
    for i, value in enumerate(line):
        left = out[i - bpp] if i >= bpp else 0
        up = prior[i]
        if kind == 3:
            out[i] = (value + ((left + up) >> 1)) & 255
            continue
        upper_left = prior[i - bpp] if i >= bpp else 0
        p = left + up - upper_left
        pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
        predictor = left if pa <= pb and pa <= pc else up if pb <= pc else upper_left
        out[i] = (value + predictor) & 255
    return np.array(out, np.int64)


def _samples(rows: np.ndarray, depth: int, count: int) -> np.ndarray:
    """A pass's unfiltered bytes as its samples, ``[rows, count]``, uint16 for depth 16."""
    if depth == 16:
        return rows.view(">u2").astype(np.uint16)[:, :count]
    if depth == 8:
        return rows[:, :count]
    bits = np.unpackbits(rows, axis=1).reshape(rows.shape[0], -1, depth)
    weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint8)
    return (bits * weights).sum(axis=2, dtype=np.uint8)[:, :count]


def _pixels(info: dict, deadline) -> np.ndarray:
    """The file's samples ``[height, width, samples a pixel]`` as stored (palette indices,
    low bit depths unscaled)."""
    width, height, depth, color, interlace = info["header"]
    samples = _COLOR_TYPES[color][0]
    bpp = max(1, samples * depth // 8)
    passes = _passes(width, height, interlace)
    sizes = [rows * (1 + (cols * samples * depth + 7) // 8) for *_, rows, cols in passes]
    raw = _inflate(info, sum(sizes))
    image = np.zeros((height, width, samples), np.uint16 if depth == 16 else np.uint8)
    offset = 0
    for (row0, col0, row_step, col_step, rows, cols), size in zip(passes, sizes):
        row_bytes = (cols * samples * depth + 7) // 8
        lines = _unfilter(raw, offset, rows, row_bytes, bpp, deadline)
        image[row0::row_step, col0::col_step] = _samples(
            lines, depth, cols * samples).reshape(rows, cols, samples)
        offset += size
    return image


def _expand(info: dict, image: np.ndarray) -> np.ndarray:
    """libpng's png_set_expand as TF reads: palette as RGB, RGBA with a tRNS chunk; low-depth
    grey scaled to 8 bits."""
    _, _, depth, color, _ = info["header"]
    trns = info["trns"]
    if color == 3:
        palette = info["palette"]
        if int(image.max(initial=0)) >= len(palette):
            raise CodecError("PNG palette index exceeds the palette's length")
        rgb = palette[image[..., 0]]
        if not trns:
            return rgb
        alpha = np.full(256, 255, np.uint8)
        alpha[:min(len(trns), 256)] = np.frombuffer(trns[:256], np.uint8)
        return np.concatenate([rgb, alpha[image[..., :1]]], axis=2)
    if color == 0 and depth < 8:  # TF's libpng ignores a grey or RGB file's tRNS
        image = (image.astype(np.uint16) * (255 // ((1 << depth) - 1))).astype(np.uint8)
    return image


def _to_gray(rgb: np.ndarray) -> np.ndarray:
    """libpng's png_set_rgb_to_gray with TF's weights 0.299 and 0.587, in libpng's fixed
    point (9797 R + 19234 G + 3737 B) / 2^15: truncated for 8-bit samples, rounded for
    16-bit ones (libpng's two code paths; checked against TF's pixels)."""
    wide = rgb.astype(np.int64)
    gray = (9797 * wide[..., 0] + 19234 * wide[..., 1] + 3737 * wide[..., 2]
            + (16384 if rgb.dtype == np.uint16 else 0)) >> 15
    return gray.astype(rgb.dtype)[..., None]


def convert_channels(image: np.ndarray, channels: int, filler=None) -> np.ndarray:
    """``image`` (1 to 4 channels: grey, grey+alpha, RGB, RGBA) with ``channels`` (0: as
    it is), as TF's decoders convert: alpha dropped or added (``filler``, by default
    opaque), grey repeated, colour made grey."""
    have = image.shape[2]
    if channels in (0, have):
        return image
    top = np.iinfo(image.dtype).max if filler is None else filler
    color = image[..., :3] if have >= 3 else np.repeat(image[..., :1], 3, axis=2)
    alpha = image[..., -1:] if have in (2, 4) else np.full(image.shape[:2] + (1,), top,
                                                             image.dtype)
    if channels == 1:
        return image[..., :1] if have <= 2 else _to_gray(color)
    if channels == 2:
        return np.concatenate([image[..., :1] if have <= 2 else _to_gray(color), alpha], 2)
    return color if channels == 3 else np.concatenate([color, alpha], axis=2)


def png_decode(data: bytes, channels: int, dtype: str, budget: int,
               deadline=None) -> np.ndarray:
    """A PNG file's pixels ``[height, width, channels]`` of ``dtype`` (uint8 or uint16:
    16-bit samples to 8 keep their high byte; 8-bit to 16 are scaled by 257)."""
    info = _read_chunks(data)
    width, height, depth, color, _ = info["header"]
    samples = _COLOR_TYPES[color][0]
    raw_bytes = height * (1 + (width * samples * depth + 7) // 8)
    # the inflated rows, the stored samples and the result with 4 channels of 2 bytes, twice
    _check_budget(raw_bytes + height * width * (samples * 2 + 16), budget,
                  f"a {width}x{height} PNG image")
    stored = _pixels(info, deadline)
    image = _expand(info, stored)
    # libpng adds a low-depth grey file's alpha filler before scaling it: 2^depth - 1
    image = convert_channels(image, channels,
                             (1 << depth) - 1 if color == 0 and depth < 8 else None)
    trns = info["trns"]
    if channels == 4 and color in (0, 2) and trns and len(trns) == (2 if color == 0 else 6):
        # asked for alpha, TF's libpng makes a grey or RGB file's tRNS colour transparent
        key = np.frombuffer(trns, ">u2").astype(stored.dtype)
        opaque = np.any(stored != key, axis=2)
        image[..., 3] = np.where(opaque, np.iinfo(image.dtype).max, 0)
    if dtype == "uint8" and image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    elif dtype == "uint16" and image.dtype == np.uint8:
        image = image.astype(np.uint16) * 257
    return np.ascontiguousarray(image)


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return (struct.pack(">I", len(payload)) + kind + payload
            + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))


def png_encode(image: np.ndarray, compression: int) -> bytes:
    """A PNG file of ``image`` ``[height, width, 1 to 4]`` (uint8 or uint16), each row
    unfiltered, deflated at ``compression`` (-1: zlib's default, 0 to 9)."""
    height, width, channels = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    rows = image.astype(">u2" if depth == 16 else np.uint8).reshape(height, -1).view(np.uint8)
    filtered = np.concatenate([np.zeros((height, 1), np.uint8), rows], axis=1)
    color = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    header = struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, 0)
    return (PNG_SIGNATURE + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(filtered.tobytes(), compression))
            + _chunk(b"IEND", b""))


def bmp_decode(data: bytes, channels: int, budget: int) -> np.ndarray:
    """A BMP file's pixels ``[height, width, channels]`` uint8, as TF's DecodeBmp reads them:
    uncompressed, 8 (grey), 24 (BGR) or 32 (BGRA) bits a pixel, bottom-up unless the height
    is negative; ``channels`` 0 (the file's own), 3 or 4 (alpha dropped or added opaque,
    grey repeated), as TF's DecodeBmp."""
    if len(data) < 34 or data[:2] != b"BM":
        raise CodecError("Incomplete bmp content, requires at least 34 bytes to find the "
                         "header size, width, height, and bpp")
    offset, = struct.unpack("<I", data[10:14])
    width, height, _, bpp = struct.unpack("<iiHH", data[18:30])
    if bpp not in (8, 24, 32):
        raise CodecError(f"Number of channels inherent in the image must be 1, 3 or 4, was "
                         f"{bpp // 8}")
    have = bpp // 8
    if channels not in (0, 3, 4):
        raise CodecError(f"`channels` must be 0, 3 or 4 for BMP, but got {channels}")
    if width <= 0 or height == 0 or abs(height) > _MAX_SIDE or width > _MAX_SIDE:
        raise CodecError(f"BMP image size {width}x{height} is invalid")
    rows = abs(height)
    row_bytes = (width * have + 3) // 4 * 4
    _check_budget(2 * rows * width * have, budget, f"a {width}x{rows} BMP image")
    if offset < 14 or offset + rows * row_bytes > len(data):
        raise CodecError(f"Input size should match (header_size + row_size * abs_height) "
                         f"but they differ by {len(data) - offset - rows * row_bytes}")
    pixels = np.frombuffer(data, np.uint8, rows * row_bytes, offset).reshape(rows, row_bytes)
    image = pixels[:, :width * have].reshape(rows, width, have)
    if height > 0:
        image = image[::-1]
    if have >= 3:  # BGR(A) to RGB(A)
        image = np.concatenate([image[..., 2::-1], image[..., 3:]], axis=2)
    return np.ascontiguousarray(convert_channels(image, channels))


def jpeg_shape(data: bytes) -> list:
    """``[height, width, components]`` of a JPEG file, from its first SOF marker."""
    if data[:2] != b"\xff\xd8":
        raise CodecError("Not a JPEG file: starts without the SOI marker")
    position = 2
    while position + 4 <= len(data):
        if data[position] != 0xFF:
            raise CodecError(f"JPEG marker expected at byte {position}")
        marker = data[position + 1]
        if marker == 0xFF:  # fill byte
            position += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:  # no length
            position += 2
            continue
        length, = struct.unpack(">H", data[position + 2:position + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if length < 8 or position + 10 > len(data):
                raise CodecError("JPEG SOF marker is truncated")
            height, width, components = struct.unpack(">HHB", data[position + 5:position + 10])
            return [height, width, components]
        if marker in (0xD9, 0xDA) or length < 2:
            break
        position += 2 + length
    raise CodecError("Could not find the JPEG's frame header (SOF marker)")
