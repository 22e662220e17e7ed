"""test_ops' table for the ops of tinyflow/ops/strings.py (tf.strings): each reads or makes
strings, which no executor buffer holds, so each has dedicated tests against real
TensorFlow's values and errors in test_strings.py."""

_T = "test_strings.py::"
_TABLE = [_T + "test_string_ops_give_tensorflows_values",
          _T + "test_string_ops_raise_tensorflows_errors"]

SPECIAL_TESTS = {op: _TABLE for op in (
    "string_length", "string_case", "string_strip", "string_join", "reduce_join", "substr",
    "string_to_number", "as_string", "regex_full_match", "regex_replace", "base64",
    "string_split", "string_format", "string_stack", "unicode_decode")}


def add_cases(add):
    """No table cases: the ops above are covered by the tests SPECIAL_TESTS names."""
