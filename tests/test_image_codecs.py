"""tf.image's image files (decode_png, encode_png, decode_bmp, decode_image, is_jpeg,
extract_jpeg_shape) against pixels and bytes recorded from real TensorFlow (tensorflow-cpu 2.21,
tf.compat.v1 graph mode, /work/tfvenv): TF decoded each numpy-made file below with every
channels and dtype, encoded images we then decode, and decoded the files our encoder writes.
TinyFlow has no uint16 tensors: the kernel's 16-bit results are checked against TF's directly.
The files are made here with numpy and zlib: every PNG colour type and bit depth, all five
filters, Adam7, a palette with tRNS; BMPs of 8, 24 and 32 bits, bottom-up and top-down."""
from __future__ import annotations

import base64
import hashlib
import struct
import time
import zlib

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.nnvm import host_memory
from tinyflow.ops import image_codec_kernels

ADAM7 = ((0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2),
         (1, 0, 2, 1))


def _chunk(kind, payload):
    return (struct.pack(">I", len(payload)) + kind + payload
            + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))


def _pack(samples, depth):
    """[rows, n] ints as the rows' bytes."""
    if depth == 16:
        return samples.astype(">u2").view(np.uint8).reshape(samples.shape[0], -1)
    if depth == 8:
        return samples.astype(np.uint8)
    bits = ((samples[..., None] >> np.arange(depth - 1, -1, -1)) & 1).reshape(
        samples.shape[0], -1).astype(np.uint8)
    return np.packbits(bits, axis=1)


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def _filtered(rows, bpp, first_filter):
    out, prior = [], [0] * rows.shape[1]
    for r, row in enumerate(rows.tolist()):
        kind = (first_filter + r) % 5
        line = [kind]
        for i, x in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b, c = prior[i], (prior[i - bpp] if i >= bpp else 0)
            predictor = (0, a, b, (a + b) >> 1, _paeth(a, b, c))[kind]
            line.append((x - predictor) & 255)
        out.append(bytes(line))
        prior = row
    return b"".join(out)


def make_png(samples, color, depth, interlace=0, palette=None, trns=None, first_filter=0):
    """A PNG file of ``samples`` [h, w, samples a pixel] (palette indices for colour 3), each
    row filtered with the next of the five filters."""
    height, width, count = samples.shape
    bpp = max(1, count * depth // 8)
    passes = ADAM7 if interlace else ((0, 0, 1, 1),)
    data = b""
    for k, (r0, c0, rs, cs) in enumerate(passes):
        sub = samples[r0::rs, c0::cs]
        if sub.size == 0:
            continue
        data += _filtered(_pack(sub.reshape(sub.shape[0], -1), depth), bpp, first_filter + k)
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(
        ">IIBBBBB", width, height, depth, color, 0, 0, interlace))
    if palette is not None:
        out += _chunk(b"PLTE", np.asarray(palette, np.uint8).tobytes())
    if trns is not None:
        out += _chunk(b"tRNS", trns)
    compressed = zlib.compress(data, 9)
    half = len(compressed) // 2  # two IDAT chunks
    return (out + _chunk(b"IDAT", compressed[:half]) + _chunk(b"IDAT", compressed[half:])
            + _chunk(b"IEND", b""))


def png_cases():
    """name -> PNG file bytes, deterministic."""
    rng = np.random.RandomState(17)
    h, w = 9, 11

    def ints(count, depth):
        return rng.randint(0, 1 << depth, (h, w, count)).astype(np.int64)
    cases = {}
    for depth in (1, 2, 4, 8, 16):
        cases[f"gray{depth}"] = make_png(ints(1, depth), 0, depth, interlace=depth == 4)
    cases["gray8_adam7"] = make_png(ints(1, 8), 0, 8, interlace=1, first_filter=2)
    cases["ga8"] = make_png(ints(2, 8), 4, 8)
    cases["ga16_adam7"] = make_png(ints(2, 16), 4, 16, interlace=1)
    cases["rgb8"] = make_png(ints(3, 8), 2, 8, first_filter=3)
    cases["rgb16_adam7"] = make_png(ints(3, 16), 2, 16, interlace=1)
    cases["rgba8_adam7"] = make_png(ints(4, 8), 6, 8, interlace=1, first_filter=4)
    cases["rgba16"] = make_png(ints(4, 16), 6, 16)
    palette = rng.randint(0, 256, (16, 3))
    cases["palette8"] = make_png(rng.randint(0, 16, (h, w, 1)), 3, 8, palette=palette)
    cases["palette4_trns_adam7"] = make_png(rng.randint(0, 16, (h, w, 1)), 3, 4, interlace=1,
                                           palette=palette, trns=bytes(range(0, 250, 25)))
    gray = ints(1, 8) % 4
    cases["gray8_trns"] = make_png(gray, 0, 8, trns=struct.pack(">H", 2))
    rgb = ints(3, 8) % 2
    cases["rgb8_trns"] = make_png(rgb, 2, 8, trns=struct.pack(">HHH", 1, 0, 1))
    return cases


def make_bmp(pixels, top_down=False):
    """A BMP file of ``pixels`` [h, w, 1|3|4] uint8 (stored BGR(A), rows padded to 4 bytes)."""
    height, width, channels = pixels.shape
    stored = pixels[..., ::-1] if channels >= 3 else pixels
    if channels == 4:
        stored = np.concatenate([pixels[..., 2::-1], pixels[..., 3:]], axis=2)
    rows = stored if top_down else stored[::-1]
    row_bytes = (width * channels + 3) // 4 * 4
    body = b"".join(r.tobytes() + b"\0" * (row_bytes - width * channels) for r in rows)
    palette = bytes(b for i in range(256) for b in (i, i, i, 0)) if channels == 1 else b""
    offset = 14 + 40 + len(palette)
    info = struct.pack("<IiiHHIIiiII", 40, width, -height if top_down else height, 1,
                       8 * channels, 0, len(body), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", offset + len(body), 0, 0, offset) + info + palette + body


def _digest(array):
    return hashlib.sha256(repr((array.shape, array.dtype.str)).encode()
                          + array.tobytes()).hexdigest()[:12]


# Recorded from real TF: each file of png_cases() decoded by tf.image.decode_png with channels
# 0, 1, 3, 4 (each as uint8, then uint16): "<channels of the result>:<_digest of its pixels>"
TF_DECODED = {
    "gray1": ("1:89bc60725018 1:782098e76235 1:89bc60725018 1:782098e76235 "
        "3:ee39fe43f3a9 3:beca12adcaa2 4:942bdaa9554b 4:cfc2461a14c8"),
    "gray2": ("1:8dfc0289f6ca 1:726145f1001a 1:8dfc0289f6ca 1:726145f1001a "
        "3:dbdb604b4bb0 3:befc6b0f4e71 4:c33a15bdc0c0 4:8295564fdd81"),
    "gray4": ("1:eda4de739219 1:8aeac3d64f18 1:eda4de739219 1:8aeac3d64f18 "
        "3:3c346b064b62 3:c8faf28fabbd 4:cb27676420d3 4:ef4035a07d6d"),
    "gray8": ("1:40dc8f6619c7 1:b01cc1a4c8d2 1:40dc8f6619c7 1:b01cc1a4c8d2 "
        "3:fd5f73ca9ccd 3:c587a50a3d35 4:a30ece6b24f3 4:d7aff41ff89b"),
    "gray16": ("1:1f4192ac9fd7 1:279aa765558b 1:1f4192ac9fd7 1:279aa765558b "
        "3:6260ccd29253 3:33db74905139 4:279b5e3d9176 4:60cae16c8463"),
    "gray8_adam7": ("1:d72c65a5d802 1:ec1012dc8ea3 1:d72c65a5d802 1:ec1012dc8ea3 "
        "3:e72918963461 3:b03e04a9b085 4:c1868b6bd57c 4:0a6bd8a21128"),
    "ga8": ("2:6a529c52ef6d 2:eefa91df69c0 1:0489f8fd06cb 1:13d68daf2d77 "
        "3:83fd2e5cb0c2 3:1ff82631eef5 4:e0f7adac232a 4:6fadd1a33b64"),
    "ga16_adam7": ("2:e9d0dd2e12e5 2:3e06304b5543 1:d1d26d6add99 1:2b9cce04970b "
        "3:5ada2f950abc 3:d0fdce432d6b 4:bbd167f00ae4 4:72bccaacf55c"),
    "rgb8": ("3:1e36801248c9 3:d8e1f25a3b62 1:f027d59a76f3 1:e57bbcbde8b0 "
        "3:1e36801248c9 3:d8e1f25a3b62 4:dad54c65f659 4:0bdbea316a60"),
    "rgb16_adam7": ("3:6bc2d1869e5a 3:6b9ae23ca977 1:3420fee37ade 1:3d9ce2fbd833 "
        "3:6bc2d1869e5a 3:6b9ae23ca977 4:6e8ed71f6a31 4:4ace4716457d"),
    "rgba8_adam7": ("4:bb08d9dd1e4f 4:b6f31b77378f 1:b8d34857a2f6 1:7b1e9893bdc3 "
        "3:c96c16fa1b15 3:5ce236952426 4:bb08d9dd1e4f 4:b6f31b77378f"),
    "rgba16": ("4:3ba11b53657d 4:0792ae07c0a7 1:9f9d43fe280f 1:e76a0adfc24a "
        "3:63bad1b38e61 3:9fedfce44a99 4:3ba11b53657d 4:0792ae07c0a7"),
    "palette8": ("3:d63e6990ef67 3:115793451963 1:bf1bae76dfed 1:ce3af1f8ff0f "
        "3:d63e6990ef67 3:115793451963 4:3437fdc3c606 4:8ecad40c7495"),
    "palette4_trns_adam7": ("4:6da556cfa73f 4:4fde80f5b266 1:ebbde14623eb 1:d516288e5ccd "
        "3:bdf700a7fe22 3:011a52f2ed88 4:6da556cfa73f 4:4fde80f5b266"),
    "gray8_trns": ("1:57b3e52361c7 1:e6042eaad0a7 1:57b3e52361c7 1:e6042eaad0a7 "
        "3:9982d70ffb50 3:5b75fe083419 4:d4566633c39a 4:6582733c09a3"),
    "rgb8_trns": ("3:d5350c7a21e6 3:95bd9085464c 1:cde872261588 1:cf83aea7874d "
        "3:d5350c7a21e6 3:95bd9085464c 4:a9648b8951e2 4:674820aaa8dd"),
}

# (channels, compression): the bytes tf.image.encode_png wrote (recorded, base64) of
# _tf_written_pixels()[channels]
TF_WRITTEN = {
    (1, -1): ("iVBORw0KGgoAAAANSUhEUgAAAAUAAAAGCAAAAAAukAuXAAAAL0lEQVQImQEkANv/AGPM7b3kAhLEW0kA"
             "A60CFyDzBOhJxvTTBOXhZ80PAhji8ZP0J+QRWf1tWQMAAAAASUVORK5CYII="),
    (1, 9): ("iVBORw0KGgoAAAANSUhEUgAAAAUAAAAGCAAAAAAukAuXAAAAL0lEQVQI1wEkANv/AGPM7b3kAhLEW0kA"
             "A60CFyDzBOhJxvTTBOXhZ80PAhji8ZP0J+QRWUbiXCEAAAAASUVORK5CYII="),
    (2, -1): ("iVBORw0KGgoAAAANSUhEUgAAAAUAAAAGCAQAAACh8pzAAAAATUlEQVQImQFCAL3/A9JUEma/MAkt5LMA"
             "vYHSZpDMAzkAzwTH6x4DIU8b5SRVAyecDnXN3UHqCCkCM+t22NOIOVQV7gMAO3FgaQa7itnYcMUbF4SS"
             "HK8AAAAASUVORK5CYII="),
    (2, 9): ("iVBORw0KGgoAAAANSUhEUgAAAAUAAAAGCAQAAACh8pzAAAAATUlEQVQI1wFCAL3/A9JUEma/MAkt5LMA"
             "vYHSZpDMAzkAzwTH6x4DIU8b5SRVAyecDnXN3UHqCCkCM+t22NOIOVQV7gMAO3FgaQa7itnYcMUbF/cH"
             "2qgAAAAASUVORK5CYII="),
    (3, -1): ("iVBORw0KGgoAAAANSUhEUgAAAAUAAAAGCAIAAACEmcMcAAAAa0lEQVQImQFgAJ//AdgeCUwPh2B1Gzb0"
             "4rtUWgJGAEKHV/0qu6bEUfpgDygDMPeztTnz8VwJer4vZwtZAFob2Hjh289FIW8Ssf9InwR48QMnDLU6"
             "DPQGwMHriGAC3/d2+jcY30705T0JK+u1vsQrjBPs+HsAAAAASUVORK5CYII="),
    (3, 9): ("iVBORw0KGgoAAAANSUhEUgAAAAUAAAAGCAIAAACEmcMcAAAAa0lEQVQI1wFgAJ//AdgeCUwPh2B1Gzb0"
             "4rtUWgJGAEKHV/0qu6bEUfpgDygDMPeztTnz8VwJer4vZwtZAFob2Hjh289FIW8Ssf9InwR48QMnDLU6"
             "DPQGwMHriGAC3/d2+jcY30705T0JK+u1vsQrjJkV77MAAAAASUVORK5CYII="),
    (4, -1): ("iVBORw0KGgoAAAANSUhEUgAAAAUAAAAGCAYAAAAL+1RLAAAAiUlEQVQImQF+AIH/AD9dDMB4OZPABof5"
             "eMYMkznGydX8AodCgaxL6CoqpdwHCbvkSIflDCoEAzNiDtyKLTjN2AWp2QLeM/k7OP0eA9kaNk4YeBI/"
             "22D2+S/Ho5S3i3JRBEswbFotK3wSXTBs4ppg5fniKg9AA60/9xcAQTXisUuBNfTiTQCvEVJrxKY21OwP"
             "QGQAAAAASUVORK5CYII="),
    (4, 9): ("iVBORw0KGgoAAAANSUhEUgAAAAUAAAAGCAYAAAAL+1RLAAAAiUlEQVQI1wF+AIH/AD9dDMB4OZPABof5"
             "eMYMkznGydX8AodCgaxL6CoqpdwHCbvkSIflDCoEAzNiDtyKLTjN2AWp2QLeM/k7OP0eA9kaNk4YeBI/"
             "22D2+S/Ho5S3i3JRBEswbFotK3wSXTBs4ppg5fniKg9AA60/9xcAQTXisUuBNfTiTQCvEVJrxKY21J5C"
             "3iAAAAAASUVORK5CYII="),
}
TF_WRITTEN_16 = (  # TF's encode_png of _tf_written_pixels()[16], uint16
    "iVBORw0KGgoAAAANSUhEUgAAAAMAAAAEEAIAAACU384TAAAAV0lEQVQImQFMALP/A1vTi7dvAyWuzig9Xhv3"
    "2fX9rgNdPTQ3Am61aUI2eTxeGPD8a2UA9AE9nqxbfp/qXVeGGPs1BzEjAANO7v0hiZEHtdlv2k3nVjbRnwCs"
    "Igo5ElRGAAAAAElFTkSuQmCC"
)
TF_JPEG_RGB = (  # tf.image.encode_jpeg(quality=50) of a 13x6x3 image
    "/9j/4AAQSkZJRgABAQEBLAEsAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxO"
    "QERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2Nj"
    "Y2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAANAAYDASIAAhEBAxEB/8QAHwAAAQUBAQEB"
    "AQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKB"
    "kaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1"
    "dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl"
    "5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcF"
    "BAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5"
    "OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0"
    "tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwBXliYF5IZU"
    "PA3SoqqTyW6g88jj0HbFFM+0mGUxIuCVV9wZl6ovHykf5AorR4ao9oN/NDdRU9JSa+//ADP/2Q=="
)
TF_JPEG_GRAY = (  # tf.image.encode_jpeg(quality=50) of a 5x9x1 image
    "/9j/4AAQSkZJRgABAQEBLAEsAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxO"
    "QERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/wAALCAAFAAkBAREA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAEC"
    "AwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAk"
    "M2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJ"
    "ipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3"
    "+Pn6/9oACAEBAAA/AIrlmXzjG7gSXMwAJ+7sZF7Yz97p2UY962PKm/552H/gM3/xdf/Z"
)
# sha256[:16] of the files our encode_png writes of _ours_pixels() (compression 6; 16-bit:
# 0), each of which real TF decoded to exactly those pixels (recorded)
OURS_DIGESTS = {1: '229fad432df9773b', 2: '0e9dd353ff1bc8a1', 3: '96324124e4d18fc0', 4: 'ba10966660e9b494'}
OURS_16_DIGEST = 'c7e714553c793cdc'
# TF's own TF-1 pipeline (record script: string_input_producer(shuffle=False) of the files
# TF_WRITTEN[1, 9], [3, -1], [4, -1]; WholeFileReader; decode_png(channels=3);
# set_shape([6, 5, 3]); resize_images([3, 4]) bilinear; tf.train.batch(3)): its batch
TF_PIPELINE = [
    99.0, 99.0, 99.0, 212.25, 212.25, 212.25, 213.0, 213.0, 213.0, 218.25, 218.25, 218.25,
    231.0, 231.0, 231.0, 180.0, 180.0, 180.0, 132.0, 132.0, 132.0, 144.75, 144.75, 144.75,
    180.0, 180.0, 180.0, 192.75, 192.75, 192.75, 52.5, 52.5, 52.5, 38.25, 38.25, 38.25, 216.0,
    30.0, 9.0, 60.0, 74.25, 150.75, 159.0, 156.0, 156.0, 134.25, 213.0, 208.5, 63.0, 6.0,
    216.0, 54.75, 144.75, 156.75, 162.0, 175.5, 156.0, 109.5, 195.0, 184.5, 210.0, 12.0, 219.0,
    199.5, 198.0, 113.25, 54.0, 145.5, 67.5, 189.75, 120.0, 186.0, 63.0, 93.0, 12.0, 91.5,
    76.5, 172.5, 102.0, 73.5, 198.0, 198.0, 153.75, 196.5, 150.0, 177.0, 84.0, 58.5, 144.75,
    146.25, 87.0, 139.5, 87.0, 171.75, 215.25, 196.5, 111.0, 162.0, 204.0, 179.25, 48.75, 99.0,
    198.0, 126.0, 166.5, 99.75, 205.5, 222.75]


def _tf_written_pixels():
    """The images TF_WRITTEN holds (the record script drew them in this order)."""
    rng = np.random.RandomState(5)
    pixels = {c: (rng.randint(0, 256, (6, 5, c)) // 3 * 3).astype(np.uint8) for c in (1, 2, 3, 4)}
    pixels[16] = rng.randint(0, 65536, (4, 3, 3)).astype(np.uint16)
    return pixels, rng


def _ours_pixels():
    _, rng = _tf_written_pixels()
    return {c: rng.randint(0, 256, (7, 6, c)).astype(np.uint8) for c in (1, 2, 3, 4)}


@pytest.fixture
def contents():
    return tf.placeholder(tf.string, [], name="contents")


@pytest.mark.parametrize("case", sorted(TF_DECODED))
def test_decode_png_files_as_tf(case, contents):
    data = png_cases()[case]
    decoded = [tf.image.decode_png(contents, channels=c) for c in (0, 1, 3, 4)]
    with tf.Session() as session:
        values = session.run(decoded, {contents: data})
    wide = [image_codec_kernels.png_decode(data, c, "uint16", 1 << 30) for c in (0, 1, 3, 4)]
    got = " ".join(f"{v.shape[2]}:{_digest(v)}" for pair in zip(values, wide) for v in pair)
    assert got == TF_DECODED[case]
    assert [v.dtype for v in values + wide] == [np.uint8] * 4 + [np.uint16] * 4


def test_decode_png_of_tf_written_files(contents):
    pixels, _ = _tf_written_pixels()
    image = tf.io.decode_png(contents)
    with tf.Session() as session:
        for (channels, _level), text in TF_WRITTEN.items():
            got = session.run(image, {contents: base64.b64decode(text)})
            np.testing.assert_array_equal(got, pixels[channels])
        np.testing.assert_array_equal(session.run(image, {contents: base64.b64decode(
            TF_WRITTEN_16)}), pixels[16] >> 8)  # TF's uint8 decode of 16 bits: the high byte
    got = image_codec_kernels.png_decode(base64.b64decode(TF_WRITTEN_16), 0, "uint16", 1 << 20)
    np.testing.assert_array_equal(got, pixels[16])
    assert image.get_shape().as_list() == [None, None, None]
    assert tf.image.decode_png(contents, channels=3).get_shape().as_list() == [None, None, 3]


def test_encode_png_writes_files_tf_decodes(contents):
    pixels = _ours_pixels()
    with tf.Session() as session:
        for channels, image in pixels.items():
            data = session.run(tf.image.encode_png(tf.constant(image), compression=6))
            assert isinstance(data, bytes)
            # these very bytes decoded by real TF gave `image` back (recorded digests)
            assert hashlib.sha256(data).hexdigest()[:16] == OURS_DIGESTS[channels]
            np.testing.assert_array_equal(
                session.run(tf.image.decode_png(contents), {contents: data}), image)
        data = image_codec_kernels.png_encode(_tf_written_pixels()[0][16], 0)
        assert hashlib.sha256(data).hexdigest()[:16] == OURS_16_DIGEST
        flat = tf.constant(np.zeros((32, 32, 3), np.uint8))
        small = session.run(tf.image.encode_png(flat, compression=9))
        assert len(small) < len(session.run(tf.image.encode_png(flat, compression=0)))


def test_encode_png_checks_its_arguments():
    with pytest.raises(TypeError, match="must be uint8"):
        tf.image.encode_png(tf.constant(np.zeros((2, 2, 3), np.float32)))
    with pytest.raises(ValueError, match="rank 3"):
        tf.image.encode_png(tf.constant(np.zeros((2, 2), np.uint8)))
    with pytest.raises(ValueError, match="compression"):
        tf.image.encode_png(tf.constant(np.zeros((2, 2, 3), np.uint8)), compression=10)


BMP_RNG_SHAPES = ((3, False), (4, True), (1, False), (3, True))


def test_decode_bmp_as_tf(contents):
    # TF decoded these files to exactly the pixels made (channels 0), with 3 or 4 channels
    # dropped alpha / added 255 / repeated grey, and refused channels=1 with this message
    rng = np.random.RandomState(9)
    with tf.Session() as session:
        for channels, top_down in BMP_RNG_SHAPES:
            pixels = rng.randint(0, 256, (3, 5, channels)).astype(np.uint8)
            data = make_bmp(pixels, top_down)
            got = session.run(tf.image.decode_bmp(contents), {contents: data})
            np.testing.assert_array_equal(got, pixels)
            rgba = session.run(tf.image.decode_bmp(contents, channels=4), {contents: data})
            rgb = pixels[..., :3] if channels >= 3 else np.repeat(pixels, 3, axis=2)
            np.testing.assert_array_equal(rgba[..., :3], rgb)
            np.testing.assert_array_equal(rgba[..., 3], pixels[..., 3] if channels == 4 else 255)
        bad = tf.image.decode_bmp(contents, channels=1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be 0, 3 or 4 for BMP"):
            session.run(bad, {contents: data})
        with pytest.raises(tf.errors.InvalidArgumentError, match="differ by -7"):
            session.run(tf.image.decode_bmp(contents), {contents: data[:-7]})


def test_jpeg_header(contents):
    # TF: is_jpeg True, extract_jpeg_shape [13, 6, 3] and [5, 9, 1]; a PNG: False, an error
    rgb, gray = base64.b64decode(TF_JPEG_RGB), base64.b64decode(TF_JPEG_GRAY)
    png = base64.b64decode(TF_WRITTEN[3, -1])
    is_jpeg, shape = tf.image.is_jpeg(contents), tf.image.extract_jpeg_shape(contents)
    wide = tf.image.extract_jpeg_shape(contents, output_type=tf.int64)
    with tf.Session() as session:
        assert session.run(is_jpeg, {contents: rgb}) and session.run(is_jpeg, {contents: gray})
        assert not session.run(is_jpeg, {contents: png})
        np.testing.assert_array_equal(session.run(shape, {contents: rgb}), [13, 6, 3])
        assert session.run(wide, {contents: gray}).tolist() == [5, 9, 1]
        assert session.run(shape, {contents: gray}).dtype == np.int32
        with pytest.raises(tf.errors.InvalidArgumentError, match="ExtractJpegShape"):
            session.run(shape, {contents: png})
        with pytest.raises(tf.errors.InvalidArgumentError, match="SOF"):
            session.run(shape, {contents: rgb[:100]})


def test_decode_image_dispatches_by_magic_bytes(contents):
    pixels, _ = _tf_written_pixels()
    image = tf.image.decode_image(contents)
    scaled = tf.image.decode_image(contents, channels=3, dtype=tf.float32)
    bmp = make_bmp(pixels[3])
    with tf.Session() as session:
        np.testing.assert_array_equal(
            session.run(image, {contents: base64.b64decode(TF_WRITTEN[4, 9])}), pixels[4])
        np.testing.assert_array_equal(session.run(image, {contents: bmp}), pixels[3])
        np.testing.assert_allclose(session.run(scaled, {contents: bmp}),
                                   pixels[3] / np.float32(255), rtol=1e-6)
        with pytest.raises(tf.errors.InvalidArgumentError, match="cannot decode JPEG"):
            session.run(image, {contents: base64.b64decode(TF_JPEG_RGB)})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown image file format"):
            session.run(image, {contents: b"hello world"})  # TF's message


def _chunk(kind, payload):
    return (struct.pack(">I", len(payload)) + kind + payload
            + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))


def _claiming(width, height, idat, color=2, depth=8):
    header = struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", idat)
            + _chunk(b"IEND", b""))


def test_hostile_png_files_are_errors_naming_the_node(contents):
    good = png_cases()["rgb8"]
    bad_crc = bytearray(good)
    bad_crc[40] ^= 1
    counter = tf.Variable(0, name="counter")
    decoded = tf.image.decode_png(contents, name="untrusted")
    step = tf.assign_add(counter, 1)
    cases = [  # the file, what the message says (TF's where TF names it)
        (_claiming(100000, 100000, zlib.compress(b"")), "PNG size too large for int"),
        (good[:-20], "truncated"), (bytes(bad_crc), "CRC error"), (b"", "Input is empty"),
        (b"hello", "Invalid PNG header"), (good[:30], "truncated"),
        (_claiming(4, 4, b"not zlib"), "corrupt"),
        (_claiming(4, 4, zlib.compress(b"\0" * 10)), "truncated"),
        (_claiming(4, 4, zlib.compress(b"\x07" * 100)), "unknown filter type 7"),
        (_claiming(4, 4, b"", color=5), "invalid colour type"),
        (_claiming(2, 2, zlib.compress(b"\0\x09" * 2), color=3, depth=8), "no PLTE")]
    with tf.Session() as session:
        session.run(counter.initializer)
        for data, message in cases:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message) as error:
                session.run([step, decoded], {contents: data})
            assert "untrusted" in str(error.value)
        assert session.run(counter) == 0  # the pull failed before anything ran
        assert session.run(decoded, {contents: good}).shape == (9, 11, 3)


def test_png_past_the_memory_and_zlib_bombs(contents, monkeypatch):
    decoded = tf.image.decode_png(contents, name="big")
    bomb = zlib.compress(bytes(64 << 20), 9)  # 64 MiB of zeros in ~64 KB
    with tf.Session() as session:
        start = time.monotonic()
        # a 1000x1000 grey file whose data inflates to 64 MiB: only its 1001000 bytes inflate
        got = session.run(decoded, {contents: _claiming(1000, 1000, bomb, color=0)})
        assert got.shape == (1000, 1000, 1) and not got.any()
        assert time.monotonic() - start < 20
        monkeypatch.setattr(host_memory, "host_available_bytes", lambda: (1 << 20, "a test's"))
        with pytest.raises(tf.errors.ResourceExhaustedError, match="big") as error:
            session.run(decoded, {contents: _claiming(20000, 20000, bomb)})
        assert "a test's" in str(error.value)


def test_decode_png_channels_are_checked(contents):
    two = tf.image.decode_png(contents, channels=2)
    with tf.Session() as session, pytest.raises(tf.errors.InvalidArgumentError,
                                                match="must be 0, 1, 3 or 4"):
        session.run(two, {contents: png_cases()["rgb8"]})
    with pytest.raises(TypeError, match="uint8 or uint16"):
        tf.image.decode_png(contents, dtype=tf.float32)
    with pytest.raises(TypeError, match="no uint16 dtype"):
        tf.image.decode_png(contents, dtype="uint16")
    with pytest.raises(ValueError, match="rank 0"):
        tf.image.decode_png(tf.constant(["a", "b"]))


def test_input_pipeline_of_png_files_as_tf(tmp_path):
    names = []
    for index, key in enumerate([(1, 9), (3, -1), (4, -1)]):
        names.append(str(tmp_path / f"im{index}.png"))
        (tmp_path / f"im{index}.png").write_bytes(base64.b64decode(TF_WRITTEN[key]))
    producer = tf.train.string_input_producer(names, shuffle=False, num_epochs=1)
    _, value = tf.WholeFileReader().read(producer)
    image = tf.image.decode_png(value, channels=3)
    image.set_shape([6, 5, 3])  # TinyFlow's resize needs the size known when built
    batch = tf.train.batch([tf.image.resize_images(image, [3, 4])], batch_size=3)
    with tf.Session() as session:
        session.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(session, coord)
        got = session.run(batch)
        coord.request_stop()
        coord.join(threads)
    assert got.shape == (3, 3, 4, 3) and got.dtype == np.float32
    np.testing.assert_allclose(got.ravel(), TF_PIPELINE, rtol=1e-6)
