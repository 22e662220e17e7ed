"""Every fact about an op lives on its own registration: passes ask ops for attributes and never
name an op, and every attribute is documented in tinyflow/nnvm/attrs.py."""
import ast
import pathlib
import re

import pytest

import tinyflow  # registers the built-in ops; its path finds the passes
from tinyflow.nnvm import attrs
from tinyflow.nnvm.op import Op, list_ops

_PACKAGE = pathlib.Path(tinyflow.__file__).parent
_PASSES = sorted([*(_PACKAGE / "nnvm" / "passes").glob("*.py"),
                  *(_PACKAGE / "nnvm" / "optimizations").glob("*.py")])
# strings in the passes that happen to spell an op's name but are not one
_NOT_OP_NAMES = {("mirror.py", "sqrt"): "a mirror policy (tf.Session(memory='sqrt'))",
                 ("prune_argmax.py", "argmax"): "the node attribute TArgmaxOutput depends on"}


def _docstrings(tree) -> set:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {id(node.body[0].value) for node in ast.walk(tree) if isinstance(node, kinds)
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}


@pytest.mark.parametrize("path", _PASSES, ids=lambda p: p.name)
def test_no_pass_names_an_op(path):
    tree = ast.parse(path.read_text())
    docs, ops = _docstrings(tree), set(list_ops())
    named = [(node.lineno, node.value) for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and isinstance(node.value, str)
             and id(node) not in docs and node.value in ops
             and (path.name, node.value) not in _NOT_OP_NAMES]
    assert named == [], f"{path.name} names ops (line, name): ask the op for an attribute"


def test_every_backward_op_declares_it():
    missing = [name for name in list_ops() if name.startswith("_") and "_backward" in name
               and Op.get(name).attr("TIsBackward") is not True]
    assert missing == []


def test_every_attribute_set_is_documented_in_the_contract_table():
    documented = set(re.findall(r"^([FT][A-Za-z]+)\s", attrs.__doc__, re.MULTILINE))
    assert set(Op._columns) - documented == set()


def _values(key) -> dict:
    return {op.name: value for op, value in Op.get_attr(key).items()}


def test_side_tables_are_gone_and_their_facts_kept():
    # capture.py's and layouts.py's lists as they were, now set by each op's family file
    assert not (_PACKAGE / "ops" / "capture.py").exists()
    assert not (_PACKAGE / "ops" / "layouts.py").exists()
    check_ids = {"sparse_softmax_cross_entropy_with_logits",
                 "_sparse_softmax_cross_entropy_with_logits_backward",
                 "mean_sparse_softmax_cross_entropy_with_logits",
                 "_mean_sparse_softmax_cross_entropy_with_logits_backward",
                 "embedding_lookup", "_embedding_lookup_backward", "confusion_matrix"}
    collectives = {"_allreduce", "_broadcast", "_allgather", "_allreduce_start",
                   "_allreduce_wait"}
    loops = {"while_loop", "_while_loop_backward", "if"}  # read their condition on the host
    indexing = {"select_index", "_select_index_backward", "gather_nd", "_gather_nd_backward",
                "scatter_nd", "tensor_scatter_nd", "reverse_sequence"}  # indices checked too
    # size their outputs on the host (TShapeAtRunTime)
    sized = {"where_true", "tensor_array_grow", "tensor_array_rows", "unique", "setdiff1d",
             "bincount", "dynamic_stitch"}
    # their indices checked on the host on a GPU, whose kernels would assert on the device
    gpu_checked = {"gather", "_gather_backward", "scatter_update", "scatter_add", "scatter_sub",
                   "tensor_array_write", "_top_k_backward"}
    # segment ids checked on the host (ops/segment.py), the sorted ones sizing their outputs
    segment = {f"unsorted_segment_{k}" for k in ("sum", "mean", "sqrt_n", "max", "min", "prod")}
    segment |= {f"segment_{k}" for k in ("sum", "mean", "max", "min", "prod")}
    segment |= {"_segment_gather"}
    # a sparse tensor's indices checked on the host, its dense shape sizing the output
    sparse = {"sparse_to_dense", "sparse_tensor_dense_matmul", "edit_distance",
              "set_operation", "set_size"}  # tf.sets: the sets formed on the host
    # a continued fraction stopping when every element converged (ops/special.py)
    converging = {"betainc"}
    host = {"non_max_suppression", "combined_non_max_suppression",  # greedy loops on the host
            "ctc_loss"}  # lengths and labels checked on the host, TF's messages
    # the rows of an IndexedSlices update counted, and checked, on the host
    sparse |= {f"sparse_{name}_update" for name in (
        "sgd", "momentum", "adam", "rmsprop", "centered_rmsprop", "adagrad", "adadelta",
        "proximal_sgd", "proximal_adagrad", "ftrl")}
    assert _values("TUncapturable") == dict.fromkeys(
        check_ids | collectives | loops | indexing | sized | gpu_checked | segment | sparse
        | converging | host, True)
    window = {"conv2d", "_fused_conv2d", "_conv2d_backward_data", "_conv2d_backward_weight",
              "max_pool2d", "_max_pool2d_backward"}
    same = {"tanh", "relu", "sigmoid", "_tanh_backward", "_relu_backward", "_sigmoid_backward",
            "copy", "negative", "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_sum",
            "__add_scalar__", "__sub_scalar__", "__mul_scalar__", "_fused"}
    assert _values("TChannelsLast") == {**dict.fromkeys(window, "prefer"), "reduce_sum": "any",
                                        **dict.fromkeys(same, "same")}


def test_the_passes_lists_became_attributes():
    # the op-name lists fuse_conv.py, swap_pool.py, layout.py and mirror.py kept
    assert _values("TActivation") == {"tanh": "_tanh_backward", "relu": "_relu_backward",
                                      "sigmoid": "_sigmoid_backward"}
    assert _values("TFusedWithActivation") == {"conv2d": "_fused_conv2d",
                                               "linear": "_fused_linear"}
    assert set(_values("FBiasLayout")) == {"elemwise_add", "bias_add"}
    assert _values("TArgmaxOutput") == {"max_pool2d": 1}
    assert set(_values("TRandom")) == {"dropout", "normal", "truncated_normal", "uniform",
                                       "random_shuffle", "shuffle_strings", "_variable_init",
                                       "log_uniform_candidate_sampler",
                                       "uniform_candidate_sampler",
                                       "fixed_unigram_candidate_sampler", "random_gamma",
                                       "random_poisson"}
    assert set(_values("FFlops")) == {"matmul", "conv2d", "linear", "_conv2d_backward_data",
                                      "max_pool2d", "avg_pool2d", "conv3d", "max_pool3d",
                                      "avg_pool3d"}
    for activation, backward in _values("TActivation").items():
        assert Op.get(backward).attr("TIsBackward") and Op.get(activation).attr("TChannelsLast")


def test_the_ops_a_pass_builds_are_found_by_role():
    assert Op.with_attr("TGradientRole", "sum").name == "elemwise_sum"
    assert Op.with_attr("TGradientRole", "one").name == "ones_like"
    assert Op.with_attr("TGradientRole", "zero").name == "zeros_like"
    assert Op.with_attr("TInternal", "FuseElemwise").name == "_fused"
    with pytest.raises(KeyError, match="2 operators have TInternal = 'FuseConvActivation'"):
        Op.with_attr("TInternal", "FuseConvActivation")
