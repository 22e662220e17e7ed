"""TF's string hashes: FarmHash's Fingerprint64 and TF's Hash64 (ops/hashing.py) bit for bit,
and tf.strings.to_hash_bucket_fast / tf.string_to_hash_bucket(_fast) in a session, against
numbers recorded from TensorFlow 2.21's compat.v1 (graph mode)."""
import hashlib

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.ops.hashing import fingerprint64, legacy_hash64

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _data(n: int) -> bytes:
    """n bytes of a fixed pseudo-random string (sha256 blocks)."""
    out, i = b"", 0
    while len(out) < n:
        out += hashlib.sha256(b"%d:%d" % (n, i)).digest()
        i += 1
    return out[:n]


# Recorded from TF 2.21's compat.v1: the full 64 bits of to_hash_bucket_fast's Fingerprint64,
# from its buckets modulo 2**63-1 and 2**32, for _data(n) of each length n (every branch of
# FarmHash's na::Hash64: 0..16, 17..32, 33..64 bytes, and the 64-byte loop)
FINGERPRINT64 = {
    0: 0x9ae16a3b2f90404f,
    1: 0x501fa4098b1ae96b,
    2: 0x581725b98ff5fa3d,
    3: 0x35599f44370737d2,
    4: 0x9b9474a2e0baf5f8,
    5: 0x80d6ba76f4802740,
    6: 0x27c2bc4a862c324c,
    7: 0x0d6afd32e41b1e85,
    8: 0x377343ee64997c3b,
    9: 0x0cd6c0dfe061a19f,
    10: 0xef725ac5b2f538f8,
    11: 0x678cc587ef8ed3c0,
    12: 0x02bec60a249e10eb,
    13: 0x2c1b8aef6cd0caf1,
    14: 0x7986fb3250eeca66,
    15: 0x7084dd3ccbc37a12,
    16: 0x100dee5921e53403,
    17: 0x648aa639814e7ba0,
    18: 0x0cf66a39392a6014,
    19: 0xde3b8574ed90c226,
    20: 0xd35ebae77ba44f6c,
    21: 0x25ec8fc90a553979,
    22: 0xf547890c2f81f7a7,
    23: 0xaa9910115bb53cab,
    24: 0xb79167e429712268,
    25: 0xc62462a9efd322e8,
    26: 0x145e44f4765a7844,
    27: 0x41b0953b3eac84af,
    28: 0x748227f3255fed1d,
    29: 0x26d9551be67527aa,
    30: 0x85aa41d1c89e4a73,
    31: 0x5b1cbcae243f33bc,
    32: 0xbd6bb7e25296cd83,
    33: 0xfa74c595d91c36bc,
    34: 0xd20ccf82902ca600,
    35: 0xf4bf6b0692ccdb41,
    36: 0x7c61f1390fb20ee9,
    37: 0xd53a0da2f9896c64,
    38: 0xc4a2b2dca649b7a9,
    39: 0xc65ad41e06d5478e,
    40: 0x76cb232d5bce7b61,
    41: 0x23499e9b8fe5e3a2,
    42: 0xb475732448d236dd,
    43: 0x3bedcf034f277d93,
    44: 0xb42f883b6b89072f,
    45: 0x6aba3093a0f26e4b,
    46: 0x56d3f0fe72eb9e7f,
    47: 0x8ed0c7c4327fcd89,
    48: 0x0a5cd5f4d640f6f6,
    49: 0xe9eb3ac30f96e012,
    50: 0xa98881f54d09963c,
    51: 0xd0d7bba0a4d4e3bb,
    52: 0x75373c5c6cdb5ab1,
    53: 0xec73bcd0ba8b410c,
    54: 0x72d496bc9abaef28,
    55: 0x62b2a2956a97979d,
    56: 0x933b95dfe86a144e,
    57: 0x2e29a73b386c5743,
    58: 0xef98169e1641eaab,
    59: 0xcf4115fe81b90aba,
    60: 0x54684488738c18c7,
    61: 0xd0501054f1698bf2,
    62: 0xa70d90086c532d92,
    63: 0x5a2677dbb115dfcf,
    64: 0x0dbf02c8babc96c6,
    65: 0x110031dd038cde6e,
    66: 0x9e5126a70d3b112e,
    67: 0x186625b84ca89be1,
    68: 0x1375e998daa3786f,
    69: 0xc7a7a097e3856f90,
    70: 0x8b4cdafdb65a3893,
    71: 0x9f4ffaad304c6622,
    72: 0x682ea5baf2d9d398,
    73: 0xa0eb13752cebc228,
    74: 0x36c00752c7f3c03b,
    75: 0xb368544966fbb0af,
    76: 0xad13ed74862cfbda,
    77: 0xe693c981dfe26d3c,
    78: 0x131d4e82bc722eb9,
    79: 0x2cfe72e030669686,
    80: 0x5913191a19c0b58b,
    81: 0xfeba4b3f2a0b53b9,
    82: 0xa6dd705708a23502,
    83: 0x51f9dd0b61b53555,
    84: 0xd3d696f87698f777,
    85: 0xe4191267df572741,
    86: 0x06de382eede17783,
    87: 0xa338ab8aca9fbac5,
    88: 0xbd1ec9ad7ed069bd,
    89: 0x14896966299e5311,
    90: 0xd81aadf9a70c83d0,
    91: 0xfff155c0fab5b88e,
    92: 0xf033e7483bf862e5,
    93: 0x96b370032009a690,
    94: 0xa49c964a8881405a,
    95: 0xddfa75ba9cf26124,
    96: 0x7fb5c2b32e11f524,
    97: 0x607815c74001e712,
    98: 0x04dcc4a1b73f5e6e,
    99: 0x43c1370dadbb6482,
    100: 0x4a9a9f97add4aa6b,
    101: 0x24f336f7468b9e06,
    102: 0xff5798964afbadc2,
    103: 0x102a8b3b3ee333b3,
    104: 0x0c01d768ef043703,
    105: 0x22889825cc7ff920,
    106: 0xf4a1982c73351abe,
    107: 0xe3a1cd12e92ba0c2,
    108: 0xe553acebc8b59418,
    109: 0xdd2da3dd53f9d558,
    110: 0x3973c2ef6ffb7782,
    111: 0x175a1ba62e00a41f,
    112: 0x0b15d638c6a48daa,
    113: 0x8f482bc29c94fc4f,
    114: 0x12c3b537a6642a6f,
    115: 0x5335a5c854d352c5,
    116: 0xa9cf4d199d1ad64f,
    117: 0x15aa0c6cd4060c70,
    118: 0xd1b7b4294b8ffa51,
    119: 0xe9f24dd44a28c35b,
    120: 0x8b748a12eb4a83ec,
    121: 0x5ff75a025dbf930b,
    122: 0xd19b569f5e1f746e,
    123: 0xf51e72db0b7ed849,
    124: 0x2336ed134ed7a402,
    125: 0x2b76d8d6a7a9c7fa,
    126: 0xd69edfc428f5e7e4,
    127: 0x37767370e44f531e,
    128: 0xc4512d4c3cc406f5,
    129: 0xb700c466adabc14b,
    191: 0x10e04b067652e7f5,
    192: 0x16f3980212e9ed29,
    193: 0x3216fb205b99d6dc,
    255: 0x1c8fde2f808414d7,
    256: 0x2a417a2c5cb15645,
    257: 0xe095a1c99460456c,
    300: 0xa2eb6709e8eb7d16,
    513: 0x406e786cc8797dd4,
    1000: 0x5de0cf8473fe8165,
}

# Recorded from TF 2.21's compat.v1: string_to_hash_bucket's Hash64 (the same way)
LEGACY_HASH64 = {
    0: 0x81769421199f9e3b,
    7: 0x168d0583ddfbbafc,
    14: 0xf7620dded7b9833d,
    21: 0x8de1f2db4d095b63,
    28: 0x4603d7a9bd0381ce,
    35: 0x07ac63c4d6880198,
    42: 0x0f97b4758e0922e7,
    49: 0x169267bbab841e5d,
    56: 0xda70947a1b0c99a7,
    63: 0x3b9e8deae1ce3a96,
    70: 0x341cb312b31a2aa6,
    77: 0x6d19e1ef8d4e9f1c,
    84: 0x8ef67df5ef4d2ac9,
    91: 0xd9660f26c8871ed7,
    98: 0x87e16e24a07e1860,
    105: 0xe3d18faf3376a62e,
    112: 0xf9a24ceaa0f59c33,
    119: 0x69732f118aaa073c,
    126: 0x056159a7ea35f3b7,
    255: 0xb29b6b11db061163,
}

WORDS = [b"", b"a", b"hello", b"tinyflow", b"-1", b"42",
         b"The quick brown fox jumps over the lazy dog"]
# Recorded from TF 2.21's compat.v1: (num_buckets, to_hash_bucket_fast(WORDS),
# string_to_hash_bucket(WORDS))
BUCKETS = [
    (10, [3, 9, 6, 3, 0, 6, 4], [9, 8, 8, 8, 3, 2, 6]),
    (1000, [263, 939, 296, 633, 430, 736, 284], [899, 868, 938, 658, 983, 712, 26]),
    (2147483647, [1699943623, 493484721, 441440317, 1365528100, 1833158626, 1737694616, 311974173], [478987903, 2048337276, 279047871, 1999788701, 1677377731, 1757023374, 620146328]),
]


@pytest.mark.parametrize("length", sorted(FINGERPRINT64))
def test_fingerprint64_is_tensorflows(length):
    assert fingerprint64(_data(length)) == FINGERPRINT64[length]


@pytest.mark.parametrize("length", sorted(LEGACY_HASH64))
def test_legacy_hash64_is_tensorflows(length):
    assert legacy_hash64(_data(length)) == LEGACY_HASH64[length]


@pytest.mark.parametrize(("num_buckets", "fast", "legacy"), BUCKETS)
def test_hash_buckets_in_a_session(num_buckets, fast, legacy):
    x = tf.placeholder(tf.string, [None])
    with tf.Session() as sess:
        got = sess.run([tf.strings.to_hash_bucket_fast(x, num_buckets),
                        tf.string_to_hash_bucket_fast(x, num_buckets),
                        tf.string_to_hash_bucket(x, num_buckets),
                        tf.strings.to_hash_bucket(x, num_buckets)], {x: WORDS})
    for value, want in zip(got, [fast, fast, legacy, legacy]):
        assert value.dtype == np.int64
        np.testing.assert_array_equal(value, want)


def test_hash_of_constant_and_computed_ids():
    """A string constant's buckets, and the buckets read by an ordinary op after them."""
    words = tf.constant([[b"hello", b"a"], [b"42", b""]])
    buckets = tf.strings.to_hash_bucket_fast(words, 1000)
    with tf.Session() as sess:
        got, plus_one = sess.run([buckets, buckets + 1])
    np.testing.assert_array_equal(got, [[296, 939], [736, 263]])
    np.testing.assert_array_equal(plus_one, got + 1)
    assert buckets.get_shape().as_list() == [2, 2]


def test_hash_errors():
    with pytest.raises(TypeError, match="must be a string tensor, got float32"):
        tf.strings.to_hash_bucket_fast(tf.constant([1.0]), 10)
    with pytest.raises(ValueError, match="num_buckets must be an int >= 1, got 0"):
        tf.strings.to_hash_bucket_fast(tf.constant(["a"]), 0)
    with pytest.raises(AttributeError, match="tf.strings.no_such is not supported"):
        tf.strings.no_such  # noqa: B018
