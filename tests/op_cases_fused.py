"""test_ops' entry for ``_fused``, which only the FuseElemwise pass makes: its tests build graphs
of the ops it fuses and compare them with the unfused graph (tests/test_fusion.py)."""

SPECIAL_TESTS = {"_fused": ["test_fusion.py::test_every_fusable_op_in_a_group",
                            "test_fusion.py::test_compiled_kernels_match_the_unfused_graph"]}


def add_cases(add):
    """No table cases: a ``_fused`` node's attributes are generated code (see SPECIAL_TESTS)."""
