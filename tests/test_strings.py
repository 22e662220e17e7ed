"""TF 1.15's string ops (tinyflow/ops/strings.py, frontend/string_ops.py): every value and error
below was recorded from real TensorFlow (TF 2.21's tf.compat.v1, graph mode: tf.strings,
tf.as_string, tf.string_split, tf.decode_base64...), run by TinyFlow and compared."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.nnvm import host_memory
from tinyflow.ops import strings as string_ops_module

S = tf.strings
inf, nan = float("inf"), float("nan")

# (label, the TF-1 expression, its value in TF 2.21's compat.v1, graph mode)
VALUES = [
    ('len_byte', lambda: S.length(["héllo", "", "ab"]),
     ([6, 0, 2], 'int32')),
    ('len_utf8', lambda: S.length(["héllo", "", "ab", "日本"], unit="UTF8_CHAR"),
     ([5, 0, 2, 2], 'int32')),
    ('lower', lambda: S.lower(["HeLLo ÀB", "X"]),
     ([b'hello \xc3\x80b', b'x'], 'object')),
    ('upper', lambda: S.upper(["héllo àb", "x1"]),
     ([b'H\xc3\xa9LLO \xc3\xa0B', b'X1'], 'object')),
    ('lower_utf8', lambda: S.lower(["ÀÉ", "ÄB"], encoding="utf-8"),
     ([b'\xc3\xa0\xc3\xa9', b'\xc3\xa4b'], 'object')),
    ('upper_utf8', lambda: S.upper(["àé straße"], encoding="utf-8"),
     ([b'\xc3\x80\xc3\x89 STRASSE'], 'object')),
    ('strip', lambda: S.strip(["  a b \t\n", "\x0bx\x0c", "\xa0y "]),
     ([b'a b', b'x', b'\xc2\xa0y'], 'object')),
    ('join', lambda: S.join([["a","b"], "c", ["d","e"]], separator="-"),
     ([b'a-c-d', b'b-c-e'], 'object')),
    ('join_empty', lambda: S.join([]),
     b''),
    ('rj_all', lambda: S.reduce_join([["a","b"],["c","d"]]),
     b'abcd'),
    ('rj_0', lambda: S.reduce_join([["a","b"],["c","d"]], axis=0, separator=","),
     ([b'a,c', b'b,d'], 'object')),
    ('rj_1k', lambda: S.reduce_join([["a","b"],["c","d"]], axis=1, keepdims=True),
     ([[b'ab'], [b'cd']], 'object')),
    ('rj_neg', lambda: S.reduce_join([["a","b"],["c","d"]], axis=-1),
     ([b'ab', b'cd'], 'object')),
    ('rj_list', lambda: S.reduce_join([[["a","b"],["c","d"]]], axis=[0,2], separator="|"),
     ([b'a|b', b'c|d'], 'object')),
    ('rj_empty', lambda: S.reduce_join(np.zeros((2,0), dtype=object).astype(bytes), axis=1),
     ([b'', b''], 'object')),
    ('substr', lambda: S.substr(["hello", "world"], 1, 3),
     ([b'ell', b'orl'], 'object')),
    ('substr_vec', lambda: S.substr(["hello", "world"], [0, 2], [2, 10]),
     ([b'he', b'rld'], 'object')),
    ('substr_neg', lambda: S.substr(["hello"], -3, 2),
     ([b'll'], 'object')),
    ('substr_utf8', lambda: S.substr(["héllo", "日本語"], 1, 2, unit="UTF8_CHAR"),
     ([b'\xc3\xa9l', b'\xe6\x9c\xac\xe8\xaa\x9e'], 'object')),
    ('substr_bcast', lambda: S.substr([["ab","cd"],["ef","gh"]], [0, 1], [1, 1]),
     ([[b'a', b'd'], [b'e', b'h']], 'object')),
    ('substr_lenneg', lambda: S.substr(["hello"], 1, -1),
     ([b'ello'], 'object')),
    ('substr_scalar', lambda: S.substr("hello", 4, 5),
     b'o'),
    ('rfm', lambda: S.regex_full_match(["abc", "abcd", "ABC"], "a.c"),
     ([True, False, False], 'bool')),
    ('rr', lambda: S.regex_replace(["hello world", "foo"], "o", "0"),
     ([b'hell0 w0rld', b'f00'], 'object')),
    ('rr_first', lambda: S.regex_replace(["hello world"], "o", "0", replace_global=False),
     ([b'hell0 world'], 'object')),
    ('rr_group', lambda: S.regex_replace(["john smith"], r"(\w+) (\w+)", r"\2 \1"),
     ([b'smith john'], 'object')),
    ('rr_empty', lambda: S.regex_replace(["abc"], "", "-"),
     ([b'-a-b-c-'], 'object')),
    ('rr_badgroup', lambda: S.regex_replace(["ab"], r"(a)", r"\2"),
     ([b'ab'], 'object')),
    ('rr_dollar', lambda: S.regex_replace(["a.b"], r"\.", "$1"),
     ([b'a$1b'], 'object')),
    ('tn_f', lambda: S.to_number(["1.5", "-2e3", " 7", "inf", "nan"]),
     ([1.5, -2000.0, 7.0, inf, nan], 'float32')),
    ('tn_i32', lambda: S.to_number(["12", "-3", "+4"], out_type=tf.int32),
     ([12, -3, 4], 'int32')),
    ('tn_i64', lambda: S.to_number(["9223372036854775807"], out_type=tf.int64),
     ([9223372036854775807], 'int64')),
    ('tn_f64', lambda: S.to_number(["0.1"], out_type=tf.float64),
     ([0.1], 'float64')),
    ('tn_space', lambda: S.to_number([" 5 "], out_type=tf.int32),
     ([5], 'int32')),
    ('as_f', lambda: tf.as_string([1.5, 0.1, 1e20, -3.0, float("nan"), float("inf")]),
     ([b'1.500000', b'0.100000', b'100000002004087734272.000000', b'-3.000000', b'nan', b'inf'], 'object')),
    ('as_prec', lambda: tf.as_string([3.14159, 2.0], precision=2),
     ([b'3.14', b'2.00'], 'object')),
    ('as_sci', lambda: tf.as_string([12345.678], scientific=True),
     ([b'1.234568e+04'], 'object')),
    ('as_short', lambda: tf.as_string([0.1, 1e-10, 123456789.0], shortest=True),
     ([b'0.1', b'1e-10', b'1.23457e+08'], 'object')),
    ('as_width', lambda: tf.as_string([3, -4], width=5),
     ([b'    3', b'   -4'], 'object')),
    ('as_fill0', lambda: tf.as_string([3, -4], width=5, fill="0"),
     ([b'00003', b'-0004'], 'object')),
    ('as_i64', lambda: tf.as_string(tf.constant([2**40], tf.int64)),
     ([b'1099511627776'], 'object')),
    ('as_bool', lambda: tf.as_string([True, False]),
     ([b'true', b'false'], 'object')),
    ('as_f64', lambda: tf.as_string(tf.constant([0.1], tf.float64)),
     ([b'0.100000'], 'object')),
    ('as_fillsp', lambda: tf.as_string([3.5], width=8, fill=" ", precision=1),
     ([b'     3.5'], 'object')),
    ('ss', lambda: tf.string_split(["a b c", "d  e", ""]),
     ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], [b'a', b'b', b'c', b'd', b'e'], [3, 3])),
    ('ss_delim', lambda: tf.string_split(["a,b;c", "d"], delimiter=",;"),
     ([[0, 0], [0, 1], [0, 2], [1, 0]], [b'a', b'b', b'c', b'd'], [2, 3])),
    ('ss_noskip', lambda: tf.string_split(["a,,b", ""], delimiter=",", skip_empty=False),
     ([[0, 0], [0, 1], [0, 2]], [b'a', b'', b'b'], [2, 3])),
    ('ss_empty_delim', lambda: tf.string_split(["abc", "de"], delimiter=""),
     ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], [b'a', b'b', b'c', b'd', b'e'], [2, 3])),
    ('ssplit_v1', lambda: S.split(["a b  c", " d "]),
     ([[0, 0], [0, 1], [0, 2], [1, 0]], [b'a', b'b', b'c', b'd'], [2, 3])),
    ('ssplit_sep', lambda: S.split(["a,,b", ""], sep=","),
     ([[0, 0], [0, 1], [0, 2], [1, 0]], [b'a', b'', b'b', b''], [2, 3])),
    ('ssplit_max', lambda: S.split(["a b c d"], maxsplit=2),
     ([[0, 0], [0, 1], [0, 2]], [b'a', b'b', b'c d'], [1, 3])),
    ('ssplit_sepmax', lambda: S.split(["a,b,c"], sep=",", maxsplit=1),
     ([[0, 0], [0, 1]], [b'a', b'b,c'], [1, 2])),
    ('ssplit_seplong', lambda: S.split(["a<>b<>"], sep="<>"),
     ([[0, 0], [0, 1], [0, 2]], [b'a', b'b', b''], [1, 3])),
    ('fmt', lambda: S.format("x={} y={}", [tf.constant([1, 2, 3]), tf.constant(2.5)]),
     b'x=[1 2 3] y=2.5'),
    ('fmt_long', lambda: S.format("{}", [tf.constant(list(range(10)))]),
     b'[0 1 2 ... 7 8 9]'),
    ('fmt_2d', lambda: S.format("{}", [tf.constant([[1, 2], [3, 4]])]),
     b'[[1 2]\n [3 4]]'),
    ('fmt_sum', lambda: S.format("{}", [tf.reshape(tf.range(36), [6, 6])], summarize=2),
     b'[[0 1 ... 4 5]\n [6 7 ... 10 11]\n ...\n [24 25 ... 28 29]\n [30 31 ... 34 35]]'),
    ('fmt_str', lambda: S.format("hi {}", [tf.constant(["a", "b"])]),
     b'hi ["a" "b"]'),
    ('fmt_scalar', lambda: S.format("{}", tf.constant("s")),
     b'"s"'),
    ('fmt_ph', lambda: S.format("a%b", [tf.constant(1)], placeholder="%"),
     b'a1b'),
    ('fmt_float', lambda: S.format("{}", [tf.constant([0.1, 1.0, 1e-7, 123456.0])]),
     b'[0.1 1 1e-07 123456]'),
    ('fmt_bool', lambda: S.format("{}", [tf.constant([True, False])]),
     b'[1 0]'),
    ('fmt_sumneg', lambda: S.format("{}", [tf.range(5)], summarize=-1),
     b'[0 1 2 3 4]'),
    ('fmt_3d', lambda: S.format("{}", [tf.reshape(tf.range(8), [2, 2, 2])]),
     b'[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]'),
    ('fmt_empty', lambda: S.format("{}", [tf.zeros([0])]),
     b'[]'),
    ('fmt_f64', lambda: S.format("{}", [tf.constant([0.1], tf.float64)]),
     b'[0.1]'),
    ('b64e', lambda: tf.encode_base64(["hello", "", "\xff\xfe?>", "ab"]),
     ([b'aGVsbG8', b'', b'w7_Dvj8-', b'YWI'], 'object')),
    ('b64e_pad', lambda: tf.encode_base64(["hello", "ab", "a"], pad=True),
     ([b'aGVsbG8=', b'YWI=', b'YQ=='], 'object')),
    ('b64d', lambda: tf.decode_base64(["aGVsbG8", "aGVsbG8=", "w7_Dvj8-", "YQ==", ""]),
     ([b'hello', b'hello', b'\xc3\xbf\xc3\xbe?>', b'a', b''], 'object')),
    ('tn_hexf', lambda: S.to_number(["0x10", "+inf", "-INF", "1e5", "1_0"][:4]),
     ([16.0, inf, -inf, 100000.0], 'float32')),
    ('tn_f_ovf', lambda: S.to_number(["1e40"]),
     ([inf], 'float32')),
    ('tn_f_tiny', lambda: S.to_number(["1e-50"]),
     ([0.0], 'float32')),
    ('tn_i_lead0', lambda: S.to_number(["007", "-0"], out_type=tf.int32),
     ([7, 0], 'int32')),
    ('as_filldash', lambda: tf.as_string([3], width=4, fill="-"),
     ([b'3   '], 'object')),
    ('as_fillsp2', lambda: tf.as_string([3], width=4, fill=" "),
     ([b'   3'], 'object')),
    ('as_prec_sci', lambda: tf.as_string([1234.5], precision=2, scientific=True),
     ([b'1.23e+03'], 'object')),
    ('as_prec_short', lambda: tf.as_string([1234.5], precision=2, shortest=True),
     ([b'1.2e+03'], 'object')),
    ('as_w_prec', lambda: tf.as_string([-1.5], width=8, precision=3, fill="0"),
     ([b'-001.500'], 'object')),
    ('as_f_int', lambda: tf.as_string([1e7, 123.0], shortest=True),
     ([b'1e+07', b'123'], 'object')),
    ('as_i8', lambda: tf.as_string(tf.constant([-5], tf.int8)),
     ([b'-5'], 'object')),
    ('as_u8', lambda: tf.as_string(tf.constant([200], tf.uint8)),
     ([b'200'], 'object')),
    ('as_bool_w', lambda: tf.as_string([True], width=6),
     ([b'true'], 'object')),
    ('as_w_sci', lambda: tf.as_string([0.5], width=14, scientific=True),
     ([b'  5.000000e-01'], 'object')),
    ('as_nan_w', lambda: tf.as_string([float("nan"), float("-inf")], width=6, fill="0"),
     ([b'   nan', b'  -inf'], 'object')),
    ('fmt_sci', lambda: S.format("{}", [tf.constant([1e10, 1.5])]),
     b'[1e+10 1.5]'),
    ('fmt_nan', lambda: S.format("{}", [tf.constant([float("nan"), float("inf"), -0.0])]),
     b'[nan inf -0]'),
    ('fmt_i64', lambda: S.format("{}", [tf.constant([2**40], tf.int64)]),
     b'[1099511627776]'),
    ('fmt_big', lambda: S.format("{}", [tf.constant([1234567.0, 0.000123])]),
     b'[1234567 0.000123]'),
    ('fmt_esc', lambda: S.format("{}", [tf.constant(['a"b', "c\nd"])]),
     b'["a\\"b" "c\\nd"]'),
    ('fmt_2dsum', lambda: S.format("{}", [tf.reshape(tf.range(12), [2, 6])], summarize=2),
     b'[[0 1 ... 4 5]\n [6 7 ... 10 11]]'),
    ('fmt_nolist', lambda: S.format("v {}", tf.constant(3)),
     b'v 3'),
    ('fmt_pystr', lambda: S.format("{} {}", ["ab", 3]),
     b'"ab" 3'),
    ('fmt_zero', lambda: S.format("{}", [tf.constant([1,2,3])], summarize=0),
     b'[ ...]'),
    ('fmt_noph', lambda: S.format("abc", []),
     b'abc'),
    ('fmt_f16', lambda: S.format("{}", [tf.constant([1.0/3], tf.float32)]),
     b'[0.333333343]'),
    ('len_bad_utf8', lambda: S.length([b"\xff\xfeab"], unit="UTF8_CHAR"),
     ([4], 'int32')),
    ('substr_bad_utf8', lambda: S.substr([b"a\xffbc"], 1, 2, unit="UTF8_CHAR"),
     ([b'\xffb'], 'object')),
    ('substr_lenbig', lambda: S.substr(["hello"], 4, 100),
     ([b'o'], 'object')),
    ('substr_pos_eq_len', lambda: S.substr(["hello"], 5, 1),
     ([b''], 'object')),
    ('substr_neg_len', lambda: S.substr(["hello"], -5, 2),
     ([b'he'], 'object')),
    ('rr_anchor', lambda: S.regex_replace(["aaa"], "a*", "x"),
     ([b'x'], 'object')),
    ('rr_class', lambda: S.regex_replace(["a1b22"], r"[[:digit:]]+", "#"),
     ([b'a#b#'], 'object')),
    ('rr_named', lambda: S.regex_replace(["ab"], r"(?P<x>a)", "y"),
     ([b'yb'], 'object')),
    ('rfm_unicode', lambda: S.regex_full_match(["é"], "."),
     ([True], 'bool')),
    ('rr_rewrite_bs', lambda: S.regex_replace(["ab"], "a", r"\\x"),
     ([b'\\xb'], 'object')),
    ('rr_rewrite_0', lambda: S.regex_replace(["ab"], "a", r"<\0>"),
     ([b'<a>b'], 'object')),
    ('rr_star', lambda: S.regex_replace(["abc"], "x*", "-", replace_global=False),
     ([b'-abc'], 'object')),
    ('rj_kd_all', lambda: S.reduce_join([["a","b"],["c","d"]], keepdims=True),
     ([[b'abcd']], 'object')),
    ('rj_scalar_axis_none', lambda: S.reduce_join("a"),
     b'a'),
    ('rj_axis_empty', lambda: S.reduce_join([["a","b"]], axis=[]),
     ([[b'a', b'b']], 'object')),
    ('ss_unicode_delim', lambda: tf.string_split(["aébéc"], delimiter="é"),
     ([[0, 0], [0, 1], [0, 2]], [b'a', b'b', b'c'], [1, 3])),
    ('ss_none_delim', lambda: tf.string_split(["a\tb c"]),
     ([[0, 0], [0, 1]], [b'a\tb', b'c'], [1, 2])),
    ('ss_sep', lambda: tf.string_split(["a<>b"], sep="<>"),
     ([[0, 0], [0, 1]], [b'a', b'b'], [1, 2])),
    ('ssplit_ws', lambda: S.split(["a\tb\nc\x0bd  "]),
     ([[0, 0], [0, 1], [0, 2], [0, 3]], [b'a', b'b', b'c', b'd'], [1, 4])),
    ('b64d_pad2', lambda: tf.decode_base64(["YWI="]),
     ([b'ab'], 'object')),
    ('b64d_pad3', lambda: tf.decode_base64(["YW=="]),
     ([b'a'], 'object')),
    ('b64e_2d', lambda: tf.encode_base64([["a"],["bc"]]),
     ([[b'YQ'], [b'YmM']], 'object')),
    ('len_byte', lambda: S.length(["héllo", "", "ab"]),
     ([6, 0, 2], 'int32')),
    ('as_int_plus', lambda: tf.as_string([3, -3], fill="+"),
     ([b'+3', b'-3'], 'object')),
    ('as_int_minus_w', lambda: tf.as_string([3], fill="-", width=3),
     ([b'3  '], 'object')),
    ('as_f_hash', lambda: tf.as_string([3.0], fill="#", shortest=True),
     ([b'3.00000'], 'object')),
    ('as_w0', lambda: tf.as_string([3], width=0),
     ([b'3'], 'object')),
    ('join_scalars', lambda: S.join(["a", "b", "c"], separator=" "),
     b'a b c'),
    ('substr_i64', lambda: S.substr(["hello"], tf.constant(1, tf.int64), tf.constant(2, tf.int64)),
     ([b'el'], 'object')),
    ('substr_mixed', lambda: S.substr(["hello"], tf.constant(1, tf.int64), 2),
     ([b'el'], 'object')),
    ('rr_badrewrite', lambda: S.regex_replace(["abc"], "b", r"X\yZ"),
     ([b'aXc'], 'object')),
    ('fmt_strsum', lambda: S.format("{}", [tf.constant(["a", "b", "c", "d", "e", "f", "g"])]),
     b'["a" "b" "c" ... "e" "f" "g"]'),
    ('fmt_int8', lambda: S.format("{}", [tf.constant([1, -2], tf.int8)]),
     b'[1 -2]'),
    ('fmt_uint8', lambda: S.format("{}", [tf.constant([200], tf.uint8)]),
     b'[200]'),
    ('fmt_2ph', lambda: S.format("{}{}", [1, [2, 3]]),
     b'1[2 3]'),
    ('fmt_1x7', lambda: S.format("{}", [tf.reshape(tf.range(7), [1, 7])]),
     b'[[0 1 2 ... 4 5 6]]'),
    ('ss_noskip_emptydelim', lambda: tf.string_split(["ab", ""], delimiter="", skip_empty=False),
     ([[0, 0], [0, 1]], [b'a', b'b'], [2, 2])),
    ('ss_noskip_trailing', lambda: tf.string_split(["a,", ",b"], delimiter=",", skip_empty=False),
     ([[0, 0], [0, 1], [1, 0], [1, 1]], [b'a', b'', b'', b'b'], [2, 2])),
    ('ssplit_empty_sep', lambda: S.split(["a b"], sep=""),
     ([[0, 0], [0, 1]], [b'a', b'b'], [1, 2])),
    ('ssplit_all_empty', lambda: S.split(["", " "]),
     ([], [], [2, 0])),
    ('rj_3d_axis1', lambda: S.reduce_join([[["a","b"],["c","d"]],[["e","f"],["g","h"]]], axis=1, separator="."),
     ([[b'a.c', b'b.d'], [b'e.g', b'f.h']], 'object')),
    ('rj_3d_axes20', lambda: S.reduce_join([[["a","b"],["c","d"]],[["e","f"],["g","h"]]], axis=[2, 0]),
     ([b'abef', b'cdgh'], 'object')),
    ('len_2d', lambda: S.length([["a", "bb"], ["", "ccc"]]),
     ([[1, 2], [0, 3]], 'int32')),
    ('tn_plus_inf', lambda: S.to_number(["+inf", "Infinity", "-NaN", "1.", ".5", "5e+2"]),
     ([inf, inf, nan, 1.0, 0.5, 500.0], 'float32')),
    ('tn_f_hexneg', lambda: S.to_number(["-0x1F", "0X1f"], out_type=tf.float64),
     ([-31.0, 31.0], 'float64')),
    ('rfm_empty', lambda: S.regex_full_match(["", "a"], ""),
     ([True, False], 'bool')),
    ('rr_caseins', lambda: S.regex_replace(["ABC abc"], "(?i)b", "_"),
     ([b'A_C a_c'], 'object')),
    ('rr_dotnl', lambda: S.regex_replace(["a\nb"], ".", "x"),
     ([b'x\nx'], 'object')),
    ('rr_s_flag', lambda: S.regex_replace(["a\nb"], "(?s).", "x"),
     ([b'xxx'], 'object')),
    ('rr_wordb', lambda: S.regex_replace(["ab cd"], r"\b", "|"),
     ([b'|ab| |cd|'], 'object')),
    ('rr_utf8_dot', lambda: S.regex_replace(["héllo"], "h.l", "X"),
     ([b'Xlo'], 'object')),
    ('rr_posix_neg', lambda: S.regex_replace(["a1"], "[[:^digit:]]", "X"),
     ([b'X1'], 'object')),
    ('rr_hex', lambda: S.regex_replace(["aéb"], r"\x{e9}", "E"),
     ([b'aEb'], 'object')),
    ('rr_amp', lambda: S.regex_replace(["a&&b"], "[&]+", "E"),
     ([b'aEb'], 'object')),
    ('rr_nested_br', lambda: S.regex_replace(["a[b"], "[[]", "E"),
     ([b'aEb'], 'object')),
    ('rr_z', lambda: S.regex_replace(["ab\n"], r"b\z", "E"),
     ([b'ab\n'], 'object')),
    ('rr_A', lambda: S.regex_replace(["ab"], r"\Aa", "E"),
     ([b'Eb'], 'object')),
    ('rr_lazy', lambda: S.regex_replace(["aaa"], "a+?", "E"),
     ([b'EEE'], 'object')),
    ('len_byte', lambda: S.length(["héllo", "", "ab"]),
     ([6, 0, 2], 'int32')),
    ('ud_scalar', lambda: S.unicode_decode("héllo日", "UTF-8"),
     ([104, 233, 108, 108, 111, 26085], 'int32')),
    ('ud_bad_replace', lambda: S.unicode_decode(b"a\xffb\xe6\x9c", "UTF-8"),
     ([97, 65533, 98, 65533], 'int32')),
    ('ud_bad_ignore', lambda: S.unicode_decode(b"a\xffb\xe6\x9c", "UTF-8", errors="ignore"),
     ([97, 98], 'int32')),
    ('ud_bad_char', lambda: S.unicode_decode(b"a\xffb", "UTF-8", replacement_char=63),
     ([97, 63, 98], 'int32')),
    ('ud_ctrl', lambda: S.unicode_decode("a\x01\tb", "UTF-8", replace_control_characters=True),
     ([97, 65533, 65533, 98], 'int32')),
    ('ud_utf16', lambda: S.unicode_decode("hé".encode("utf-16-be"), "UTF-16-BE"),
     ([104, 233], 'int32')),
    ('ud_latin', lambda: S.unicode_decode(b"h\xe9", "ISO-8859-1"),
     ([104, 233], 'int32')),
    ('ud_empty', lambda: S.unicode_decode(b"", "UTF-8"),
     ([], 'int32')),
    ('ud_surrogate', lambda: S.unicode_decode(b"\xed\xa0\x80", "UTF-8"),
     ([65533, 65533, 65533], 'int32')),
    ('ud_overlong', lambda: S.unicode_decode(b"\xc0\xaf", "UTF-8"),
     ([65533, 65533], 'int32')),
]
# (label, the TF-1 expression, TF 2.21's compat.v1 error class and message, graph mode)
ERRORS = [
    ('len_badunit', lambda: S.length(["a"], unit="CHAR"), 'ValueError',
     'Attr \'unit\' of \'StringLength\' Op passed string \'CHAR\' not in: "BYTE", "UTF8_CHAR".'),
    ('join2d', lambda: S.join([[["a"],["b"]], ["x","y","z"]]), 'ValueError',
     'Shapes must be equal rank, but are 2 and 1 for \'{{node StringJoin}} = StringJoin[N=2, separator=""](StringJoin/inputs_0, StringJoin/inputs_1)\' with input shapes: [2,1], [3].'),
    ('join_bad', lambda: S.join([["a","b"], ["c","d","e"]]), 'ValueError',
     'Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and [3]. for \'{{node StringJoin}} = StringJoin[N=2, separator=""](StringJoin/inputs_0, StringJoin/inputs_1)\' with input shapes: [2], [3].'),
    ('rj_bad', lambda: S.reduce_join([["a","b"]], axis=2), 'ValueError',
     'Invalid reduction dimension 2 for input with 2 dimensions. for \'{{node ReduceJoin/ReduceJoin}} = ReduceJoin[keep_dims=false, separator=""](ReduceJoin/Const, ReduceJoin/ReduceJoin/reduction_indices)\' with input shapes: [1,2], [] and with computed input tensors: input[1] = <2>.'),
    ('substr_oob', lambda: S.substr(["hello", "hi"], 3, 1), 'InvalidArgumentError',
     "pos 3 out of range for string b'hi' at index 1"),
    ('substr_oobneg', lambda: S.substr(["hello"], -6, 1), 'InvalidArgumentError',
     "pos -6 out of range for string b'hello' at index 0"),
    ('rfm_bad', lambda: S.regex_full_match(["abc"], "a(b"), 'InvalidArgumentError',
     'Invalid pattern: a(b, error: missing ): a(b'),
    ('rr_bad', lambda: S.regex_replace(["abc"], "(", "x"), 'InvalidArgumentError',
     'Invalid pattern: (, error: missing ): ('),
    ('rr_backref', lambda: S.regex_replace(["aa"], r"(a)\1", "x"), 'InvalidArgumentError',
     'Invalid pattern: (a)\\1, error: invalid escape sequence: \\1'),
    ('tn_bad', lambda: S.to_number(["1.5", "abc"]), 'InvalidArgumentError',
     'StringToNumberOp could not correctly convert string: abc'),
    ('tn_badint', lambda: S.to_number(["1.5"], out_type=tf.int32), 'InvalidArgumentError',
     'StringToNumberOp could not correctly convert string: 1.5'),
    ('tn_ovf', lambda: S.to_number(["3000000000"], out_type=tf.int32), 'InvalidArgumentError',
     'StringToNumberOp could not correctly convert string: 3000000000'),
    ('tn_hex', lambda: S.to_number(["0x10", "1e", ""], out_type=tf.float32), 'InvalidArgumentError',
     'StringToNumberOp could not correctly convert string: 1e'),
    ('tn_empty', lambda: S.to_number([""], out_type=tf.float32), 'InvalidArgumentError',
     'StringToNumberOp could not correctly convert string: '),
    ('tn_badtype', lambda: S.to_number(["1"], out_type=tf.int16), 'TypeError',
     "Value passed to parameter 'out_type' has DataType int16 not in list of allowed values: float32, float64, int32, int64, uint32, uint64"),
    ('as_int_prec', lambda: tf.as_string([3], precision=2), 'InvalidArgumentError',
     'precision not supported for datatype int32'),
    ('as_bad_fill', lambda: tf.as_string([3], width=4, fill="ab"), 'InvalidArgumentError',
     'Fill string must be one or fewer characters'),
    ('as_sci_short', lambda: tf.as_string([1.0], scientific=True, shortest=True), 'InvalidArgumentError',
     'Cannot select both scientific and shortest notation'),
    ('as_fillx', lambda: tf.as_string([3], width=4, fill="x"), 'InvalidArgumentError',
     'Fill argument not supported: "x"'),
    ('ss_2d', lambda: tf.string_split([["a b"]]), 'ValueError',
     "Shape must be rank 1 but is rank 2 for '{{node StringSplit/StringSplit}} = StringSplit[skip_empty=true](StringSplit/Const_1, StringSplit/Const)' with input shapes: [1,1], []."),
    ('ss_scalar', lambda: tf.string_split("a b"), 'ValueError',
     "Shape must be rank 1 but is rank 0 for '{{node StringSplit/StringSplit}} = StringSplit[skip_empty=true](StringSplit/Const_1, StringSplit/Const)' with input shapes: [], []."),
    ('fmt_bad', lambda: S.format("{} {}", [tf.constant(1)]), 'ValueError',
     'The template expects 2 tensors, but the inputs only has 1. Please ensure the number of placeholders in template matches inputs length.'),
    ('b64d_bad', lambda: tf.decode_base64(["a"]), 'InvalidArgumentError',
     'Base64 string length cannot be 1 modulo 4.'),
    ('b64d_bad2', lambda: tf.decode_base64(["aGV+bG8"]), 'InvalidArgumentError',
     'Invalid character found in base64.'),
    ('b64d_bad3', lambda: tf.decode_base64(["YQ="]), 'InvalidArgumentError',
     'Invalid character found in base64.'),
    ('b64d_bad4', lambda: tf.decode_base64(["Y==="]), 'InvalidArgumentError',
     'Invalid character found in base64.'),
    ('b64d_ws', lambda: tf.decode_base64(["aGVs bG8"]), 'InvalidArgumentError',
     'Invalid character found in base64.'),
    ('tn_hexi', lambda: S.to_number(["0x10"], out_type=tf.int32), 'InvalidArgumentError',
     'StringToNumberOp could not correctly convert string: 0x10'),
    ('tn_expi', lambda: S.to_number(["1e5"], out_type=tf.int64), 'InvalidArgumentError',
     'StringToNumberOp could not correctly convert string: 1e5'),
    ('tn_underscore', lambda: S.to_number(["1_0"]), 'InvalidArgumentError',
     'StringToNumberOp could not correctly convert string: 1_0'),
    ('tn_sp_inner', lambda: S.to_number(["1 0"]), 'InvalidArgumentError',
     'StringToNumberOp could not correctly convert string: 1 0'),
    ('substr_utf8_oob', lambda: S.substr(["日本"], 3, 1, unit="UTF8_CHAR"), 'InvalidArgumentError',
     'pos 3 out of range for string at index 0'),
    ('substr_posbcast_bad', lambda: S.substr(["ab","cd"], [0,1,2], 1), 'ValueError',
     'Shape must be rank 0 but is rank 1 for \'{{node Substr}} = Substr[T=DT_INT32, unit="BYTE"](Substr/input, Substr/pos, Substr/len)\' with input shapes: [2], [3], [].'),
    ('substr_shape_mismatch', lambda: S.substr(["ab","cd"], [[0],[1]], [0,1]), 'ValueError',
     'Shape must be rank 1 but is rank 2 for \'{{node Substr}} = Substr[T=DT_INT32, unit="BYTE"](Substr/input, Substr/pos, Substr/len)\' with input shapes: [2], [2,1], [2].'),
    ('rr_lookahead', lambda: S.regex_replace(["ab"], r"a(?=b)", "y"), 'InvalidArgumentError',
     'Invalid pattern: a(?=b), error: invalid perl operator: (?='),
    ('rfm_pyesc', lambda: S.regex_full_match(["a"], r"\Z"), 'InvalidArgumentError',
     'Invalid pattern: \\Z, error: invalid escape sequence: \\Z'),
    ('strip_int', lambda: S.strip([1]), 'TypeError',
     "Expected string passed to parameter 'input' of op 'StringStrip', got [1] of type 'list' instead. Error: Expected string, but got 1 of type 'int'."),
    ('lower_num', lambda: S.lower([1]), 'TypeError',
     "Expected string passed to parameter 'input' of op 'StringLower', got [1] of type 'list' instead. Error: Expected string, but got 1 of type 'int'."),
    ('length_num', lambda: S.length([1]), 'TypeError',
     "Expected string passed to parameter 'input' of op 'StringLength', got [1] of type 'list' instead. Error: Expected string, but got 1 of type 'int'."),
    ('join_num', lambda: S.join(["a", 1]), 'TypeError',
     "Tensors in list passed to 'inputs' of 'StringJoin' Op have types [string, int32] that do not match expected type string."),
    ('rj_dup', lambda: S.reduce_join([["a","b"],["c","d"]], axis=[1, 1]), 'InvalidArgumentError',
     'Duplicate reduction dimension 1'),
    ('ssplit_badtype', lambda: S.split(["a b"], result_type="Dense"), 'ValueError',
     "result_type must be 'RaggedTensor' or 'SparseTensor'."),
    ('b64d_ws2', lambda: tf.decode_base64(["aGVsbG8\n"]), 'InvalidArgumentError',
     'Invalid character found in base64.'),
    ('b64d_plus', lambda: tf.decode_base64(["+/"]), 'InvalidArgumentError',
     'Invalid character found in base64.'),
    ('b64d_padmid', lambda: tf.decode_base64(["YQ==YQ=="]), 'InvalidArgumentError',
     'Invalid character found in base64.'),
    ('as_bool_prec', lambda: tf.as_string([True], precision=2), 'InvalidArgumentError',
     'precision not supported for datatype bool'),
    ('as_int_sci', lambda: tf.as_string([3], scientific=True), 'InvalidArgumentError',
     'scientific and shortest format not supported for datatype int32'),
    ('as_int_short', lambda: tf.as_string([3], shortest=True), 'InvalidArgumentError',
     'scientific and shortest format not supported for datatype int32'),
    ('lower_badenc', lambda: S.lower(["A"], encoding="latin1"), 'InvalidArgumentError',
     "only utf-8 or '' (no encoding) is supported, received latin1"),
    ('b64d_order', lambda: tf.decode_base64(["aaaa+"]), 'InvalidArgumentError',
     'Base64 string length cannot be 1 modulo 4.'),
    ('b64d_order2', lambda: tf.decode_base64(["+aaaa"]), 'InvalidArgumentError',
     'Invalid character found in base64.'),
    ('tn_i64_ovf', lambda: S.to_number(["9223372036854775808"], out_type=tf.int64), 'InvalidArgumentError',
     'StringToNumberOp could not correctly convert string: 9223372036854775808'),
    ('rr_repeat_big', lambda: S.regex_replace(["a"], "a{1001}", "E"), 'InvalidArgumentError',
     'Invalid pattern: a{1001}, error: invalid repetition size: {1001}'),
    ('rr_star_star', lambda: S.regex_replace(["a"], "a**", "E"), 'InvalidArgumentError',
     'Invalid pattern: a**, error: bad repetition operator: **'),
    ('rr_nothing', lambda: S.regex_replace(["a"], "*", "E"), 'InvalidArgumentError',
     'Invalid pattern: *, error: no argument for repetition operator: *'),
    ('rr_class_open', lambda: S.regex_replace(["a"], "[a", "E"), 'InvalidArgumentError',
     'Invalid pattern: [a, error: missing ]: [a'),
    ('rr_unbal', lambda: S.regex_replace(["a"], "a)", "E"), 'InvalidArgumentError',
     'Invalid pattern: a), error: unexpected ): a)'),
    ('rr_named2', lambda: S.regex_replace(["ab"], "(?<x>a)", "E"), 'InvalidArgumentError',
     'Invalid pattern: (?<x>a), error: invalid perl operator: (?<'),
    ('ud_bad_strict', lambda: S.unicode_decode(b"a\xffb", "UTF-8", errors="strict"), 'InvalidArgumentError',
     'Invalid formatting on input string'),
    ('ud_badenc', lambda: S.unicode_decode(b"h", "FOO"), 'InvalidArgumentError',
     'Could not create converter for input encoding: FOO'),
    ('ud_errors_bad', lambda: S.unicode_decode(b"a", "UTF-8", errors="foo"), 'ValueError',
     'Attr \'errors\' of \'UnicodeDecode\' Op passed string \'foo\' not in: "strict", "replace", "ignore".'),
]


def _run(build, feed=None):
    with tf.Graph().as_default():
        result = tf.Session().run(build(), feed)
    if hasattr(result, "indices"):
        return result.indices.tolist(), result.values.tolist(), result.dense_shape.tolist()
    if isinstance(result, np.ndarray):
        return result.tolist(), str(result.dtype)
    return result


def _nan_equal(a, b):
    return a == b or (isinstance(a, float) and isinstance(b, float) and np.isnan([a, b]).all())


@pytest.mark.parametrize("label, build, expected", VALUES, ids=[v[0] for v in VALUES])
def test_string_ops_give_tensorflows_values(label, build, expected):
    got = _run(build)
    if isinstance(expected, tuple) and isinstance(expected[0], list) and expected[0] and \
            isinstance(expected[0][0], float):  # nan equals nan here
        assert got[1] == expected[1] and all(map(_nan_equal, got[0], expected[0])), got
    else:
        assert got == expected


def _said(message):
    """What TinyFlow must say of TF's message: TF's graph-node suffix aside."""
    return message.split(" for '")[0].split(". Error:")[0]


@pytest.mark.parametrize("label, build, kind, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_string_ops_raise_tensorflows_errors(label, build, kind, message):
    error = getattr(tf.errors, kind, None) or {"ValueError": ValueError,
                                               "TypeError": TypeError}[kind]
    with pytest.raises(error) as raised:
        _run(build)
    expected = _said(message)
    if label == "tn_badtype":  # TF's list goes on with uint32, uint64, which TinyFlow lacks
        expected = expected.split(", uint32")[0]
    assert expected in str(raised.value)


def test_tf1_names_are_the_string_ops():
    # TF 1.15's top-level names and tf.io's, and tf.compat.v1's
    assert tf.string_join is S.join and tf.string_strip is S.strip
    assert tf.string_to_number is S.to_number and tf.as_string is S.as_string
    assert tf.reduce_join is S.reduce_join and tf.substr is S.substr
    assert tf.regex_replace is S.regex_replace and callable(tf.string_split)
    assert tf.io.decode_base64 is tf.decode_base64 and tf.io.encode_base64 is tf.encode_base64
    assert tf.compat.v1.strings.to_number is S.to_number
    with pytest.raises(AttributeError, match="unicode_encode is not supported by TinyFlow"):
        S.unicode_encode  # noqa: B018 - the attribute's error is the test


def test_ragged_results_are_refused_saying_so():
    for split in (lambda: S.split(["a b"], result_type="RaggedTensor"),
                  lambda: tf.string_split(["a b"], result_type="RaggedTensor"),
                  lambda: S.unicode_decode(["ab", "c"], "UTF-8"),
                  lambda: S.unicode_decode(tf.placeholder(tf.string), "UTF-8")):
        with pytest.raises(AttributeError, match="no tf.RaggedTensor"):
            split()


def test_fed_strings_flow_through_string_ops():
    line = tf.placeholder(tf.string, [None], name="line")
    fields = tf.string_split(line, delimiter=",")
    numbers = S.to_number(fields.values, out_type=tf.int64)
    total = tf.reduce_sum(numbers)
    upper = S.upper(S.strip(line))
    with tf.Session() as sess:
        got = sess.run([total, upper, fields.dense_shape],
                       {line: [" 1,2,3", "4,5 "]})
        assert got[0] == 15  # 1 + 2 + 3 + 4 + 5
        assert got[1].tolist() == [b"1,2,3", b"4,5"] and got[2].tolist() == [2, 3]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="could not correctly convert string: x"):
            sess.run(total, {line: ["1,x"]})
        assert sess.run(total, {line: ["7"]}) == 7  # the session works on


def test_string_ops_in_a_dataset_map_over_csv_lines(tmp_path):
    text = tmp_path / "rows.csv"
    text.write_bytes(b"1.5,2\n-2,3\n4e1,5\n")

    def parse(row):
        fields = tf.string_split([row], delimiter=",").values
        return S.to_number(fields)[0], S.reduce_join(fields, separator="+")
    batch = tf.data.TextLineDataset(str(text)).map(parse).batch(3) \
        .make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        numbers, joined = sess.run(batch)
    np.testing.assert_array_equal(numbers, np.float32([1.5, -2, 40]))
    assert joined.tolist() == [b"1.5+2", b"-2+3", b"4e1+5"]


def test_string_op_results_feed_a_vocabulary_lookup():
    from tinyflow.nnvm.symbol import create_op
    words = S.lower(tf.constant(["Cat", "DOG", "bird"]))
    ids = create_op("string_to_index", words, vocabulary=("cat", "dog"))
    with tf.Session() as sess:
        assert sess.run(ids).tolist() == [0, 1, -1]


def test_a_result_past_the_memory_is_resource_exhausted(monkeypatch):
    wide = tf.placeholder(tf.string, [None])
    joined = S.join([wide, tf.constant("x" * 2000)])  # the scalar repeated per element
    with tf.Session() as sess:
        monkeypatch.setattr(host_memory, "host_available_bytes",
                            lambda: (10 ** 6, "a test's figure"))
        with pytest.raises(tf.errors.ResourceExhaustedError, match="StringJoin"):
            sess.run(joined, {wide: ["a"] * 1000})
        assert sess.run(S.as_string(tf.constant([1, 2]))).tolist() == [b"1", b"2"]
        with pytest.raises(tf.errors.ResourceExhaustedError, match="AsString"):
            sess.run(S.as_string(tf.constant(np.zeros(2000, np.float32)), width=1000))


def test_regex_translation_refuses_what_re_reads_another_way():
    for pattern in (r"\pL", r"(?m)^a$", r"[\S]"):
        with pytest.raises(tf.errors.InvalidArgumentError, match="reads RE2's syntax with Py"):
            S.regex_full_match(["a"], pattern)
    # RE2's $ is the text's end; Python's matches before a last newline too
    assert _run(lambda: S.regex_full_match(["a\n", "a"], "a$"))[0] == [False, True]
    # RE2's \d is ASCII's; a{,2} is text in RE2
    assert _run(lambda: S.regex_full_match(["\u0661", "a{,2}"], r"\d|a{,2}"))[0] == [
        False, True]


def test_a_regex_past_the_runs_deadline_stops(monkeypatch):
    lines = tf.placeholder(tf.string, [None])
    replaced = S.regex_replace(lines, "a+", "b")
    late = type("Clock", (), {"monotonic": staticmethod(lambda: float("inf"))})
    with tf.Session() as sess:
        monkeypatch.setattr(string_ops_module, "time", late)  # the run's deadline has passed
        with pytest.raises(tf.errors.DeadlineExceededError, match="StaticRegexReplace"):
            sess.run(replaced, {lines: ["aa"] * 10},
                     options=tf.RunOptions(timeout_in_ms=1000))
        monkeypatch.undo()
        assert sess.run(replaced, {lines: ["aa", "ca"]}).tolist() == [b"b", b"cb"]


def test_numbers_computed_from_feeds_print_and_shapes_are_static():
    x = tf.placeholder(tf.float32, [None])
    text = tf.as_string(x * 2, precision=1)
    shown = S.format("x: {}", [x])
    lengths = S.length(text)
    assert lengths.get_shape().as_list() == [None] and lengths.dtype == tf.int32
    assert S.reduce_join(tf.placeholder(tf.string, [2, None]), axis=1).get_shape().as_list() \
        == [2]
    split = tf.string_split(tf.placeholder(tf.string, [None]))  # TF's static shapes:
    assert [split.indices.get_shape().as_list(), split.values.get_shape().as_list(),
            split.dense_shape.get_shape().as_list()] == [[None, 2], [None], [2]]
    assert S.unicode_decode(tf.placeholder(tf.string, []), "UTF-8").get_shape().as_list() == [
        None]
    with tf.Session() as sess:
        got = sess.run([text, shown, tf.reduce_sum(lengths)], {x: [1.25, -3]})
    # recorded from TF 2.21's compat.v1: [b"2.5", b"-6.0"], b"x: [1.25 -3]", 7
    assert got[0].tolist() == [b"2.5", b"-6.0"] and got[1] == b"x: [1.25 -3]"
    assert got[2] == 7


def test_graphs_with_string_ops_serialise():
    with tf.Graph().as_default() as graph:
        words = tf.placeholder(tf.string, [None], name="words")
        S.reduce_join(S.substr(S.upper(words), 0, 2), axis=0, separator="-", name="joined")
        document = graph.as_graph_def()
    with tf.Graph().as_default():
        tf.import_graph_def(document, name="")
        joined = tf.get_default_graph().get_tensor_by_name("joined:0")
        with tf.Session() as sess:
            assert sess.run(joined, {"words:0": ["abc", "de"]}) == b"AB-DE"  # TF's value


def test_arguments_given_as_constants_and_bytes():
    # TF 2.21's compat.v1 gives the same: b"a-b", [b"a", b"c"], b"ab"
    assert _run(lambda: S.join(["a", "b"], separator=b"-")) == b"a-b"
    assert _run(lambda: S.reduce_join([["a"], ["c"]], axis=tf.constant(1)))[0] == [b"a", b"c"]
    assert _run(lambda: S.regex_replace("a-b", tf.constant("-"), "")) == b"ab"
    with pytest.raises(TypeError, match="must be known when the graph is built"):
        S.regex_replace("a", tf.placeholder(tf.string, []), "")
