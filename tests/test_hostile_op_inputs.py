"""Hostile values in every op's inputs: no op crashes the process, hangs or allocates past the
allocation check on them.

A graph JSON (LoadJSON) can wire any op a user may write to placeholders, and a feed can hold
any value: indices of 2**62 or -1, labels that are NaN, counts of 2**31.  ``probes()`` builds
every such op over placeholders: the cases of test_ops' table (class ids and indices given as
float32 there, and again as int64 where they are whole numbers) and, for the ops test_ops tests
apart, a case written here.  A child process runs each probe with hostile values in each input
of its op's node (a placeholder, an int constant or another op's output: a fed tensor replaces
any), all elements or the first only, reporting each run on its stdout.  A run must give a
value or raise a TinyflowError naming the op's node, and the session must then give the values
it gave before; a signal (a torch CPU kernel that does not check its indices segfaults), a run
past ``HANG_SECONDS`` (a probe's runs together), or an allocation past the child's
address-space limit (one the allocation check let through) fails the test.  The child's
allocation check sees ``AVAILABLE`` bytes.  Then each int attribute of the node (a stride, a
kernel, an axis, a seed...) is made hostile in turn, as a graph document may give it, and run
in a new session.  A child that dies is replaced by one starting at the next probe.

Below them: regressions of what the sweep found, and the index checks where a GPU's kernels
would assert on the device instead of checking (on every device; the check itself on the CPU).

Run alone: ``python tests/test_hostile_op_inputs.py 0`` prints the child's report.
"""
from __future__ import annotations

import faulthandler
import json
import resource
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.lua_ops.array import kernels as array_kernels
from tinyflow.lua_ops.runtime import LuaOpError
from tinyflow.nnvm import Graph, Op, ShapeError, TinyflowError, apply_passes, host_memory
from tinyflow.nnvm.errors import OpError
from tinyflow.nnvm.graph import NodeEntry
from tinyflow.nnvm.op import list_ops
from tinyflow.nnvm.symbol import Symbol, create_op
from tinyflow.session.random_streams import stream_seed

AVAILABLE = 256 << 20  # what the child's allocation check sees
HEADROOM = 512 << 20  # the child's address space beyond what it had at start
HANG_SECONDS = 10
SWEEP_SECONDS = 300  # one child, all probes (about 5 s)
# Ops whose crash on a hostile input another change fixes: their probes do not run yet.
LEFT_TO_THE_LEAD: dict = {}  # (max pooling's gradient: its argmax is checked where graphs are made)
# Registered ops without a probe, and why none is needed.
EXEMPT = {
    "_variable_init": "no inputs; its shape is the variable's it initialises",
    "no_op": "no inputs, no outputs",
    **{op: "arithmetic on a variable's values: no input sets a size or an index"
       for op in ("assign", "assign_add", "assign_sub", "sgd_update", "momentum_update",
                  "adam_update", "adagrad_update", "rmsprop_update", "centered_rmsprop_update",
                  "adadelta_update", "proximal_sgd_update", "proximal_adagrad_update",
                  "ftrl_update")},
    **{op: "a collective: runs in a process world of ranks (test_distributed.py), sums or "
           "copies float values" for op in ("_allreduce", "_allgather", "_broadcast",
                                              "_allreduce_start", "_allreduce_wait")},
    **{op: "runs subgraphs, whose ops are probed on their own; a loop bound fed huge runs long "
           "as in TensorFlow (RunOptions.timeout_in_ms bounds it)"
       for op in ("while_loop", "_while_loop_backward", "if")},
    "tensor_array_zeros": "its inputs are read for their shapes only (FIgnoreInputs)",
    "shaped_by_value": "its shape input is folded at bind: a value fed is a BindError "
                       "(test_feeds.py)",
}
_MEMORY = ("can't allocate memory", "not enough memory", "bad_alloc", "MemoryError")


@dataclass(frozen=True)
class Probe:
    """``make()`` -> ``(node, fetches, feeds, setup)``: the op's node, what to fetch, the feeds
    of a run that works, and what to run once first (initialisers).  A ``variant`` of a case
    ("int64": its whole numbers as int64; "empty": its inputs with no elements) may be refused
    (a TinyflowError); an empty one is run once, an int64 one without hostile attributes."""

    id: str
    op: str
    make: Callable
    variant: str = ""


def _case_probe(case, whole=(), empty=None):
    """A test_ops case, its inputs at positions ``whole`` int64 placeholders; with ``empty``,
    an axis, every input of rank 1 or more without elements along it."""
    def make():
        values = [v.astype(np.int64) if i in whole else v for i, v in enumerate(case.values())]
        if empty is not None:
            values = [np.zeros([0 if a == empty % v.ndim else d for a, d in enumerate(v.shape)],
                               v.dtype) for v in values]
        xs = [tf.placeholder(tf.as_dtype(v.dtype), shape=v.shape) for v in values]
        out = case.build(*xs)
        return out.outputs[0].node, [Symbol([e]) for e in out.outputs], dict(zip(xs, values)), []
    variant = "int64" if whole else "empty" if empty is not None else ""
    suffix = {"int64": f"-int64{list(whole)}", "empty": f"-empty-axis={empty}", "": ""}[variant]
    return Probe(f"{case.id}{suffix}", case.op, make, variant)


def _placeholders(*specs):
    """Placeholders and their feeds for ``(dtype, value)`` pairs."""
    xs = [tf.placeholder(dtype, shape=np.shape(value)) for dtype, value in specs]
    return xs, {x: np.asarray(value, dtype.name) for x, (dtype, value) in zip(xs, specs)}


def _op_probe(op, label, specs, build):
    """A probe of ``build(*placeholders)`` over placeholders of ``specs``."""
    def make():
        xs, feeds = _placeholders(*specs)
        out = build(*xs)
        return out.outputs[0].node, [Symbol([e]) for e in out.outputs], feeds, []
    return Probe(f"{op}-{label}", op, make)


def _scatter_probe(op, index_dtype):
    def make():
        var = tf.Variable(tf.zeros([4, 3]))
        xs, feeds = _placeholders((index_dtype, [1, 2]), (tf.float32, np.ones((2, 3))))
        out = create_op(op, var, *xs)
        return out.outputs[0].node, [out], feeds, [tf.variables_initializer([var])]
    return Probe(f"{op}-{index_dtype.name}", op, make)


def _sparse_update_probe(op, num_state, index_dtype, num_scalars=0, **attrs):
    def make():  # an IndexedSlices update: hostile indices, values, scalars
        state = [tf.Variable(tf.ones([4, 3])) for _ in range(num_state)]
        xs, feeds = _placeholders((tf.float32, np.ones((2, 3))), (index_dtype, [1, 2]),
                                  *[(tf.float32, 0.5)] * num_scalars)
        out = create_op(op, *state, *xs, lr=0.1, **attrs)
        return (out.outputs[0].node, [Symbol([e]) for e in out.outputs], feeds,
                [tf.variables_initializer(state)])
    return Probe(f"{op}-{index_dtype.name}", op, make)


_SPARSE_UPDATES = {  # op: (state, scalars, attrs)
    "sparse_sgd_update": (1, 0, {}),
    "sparse_momentum_update": (2, 0, {"momentum": 0.9, "nesterov": True}),
    "sparse_adam_update": (3, 2, {"beta1": 0.9, "beta2": 0.99, "epsilon": 1e-3}),
    "sparse_rmsprop_update": (3, 0, {"rho": 0.9, "momentum": 0.5, "epsilon": 1e-3}),
    "sparse_centered_rmsprop_update": (4, 0, {"rho": 0.9, "momentum": 0.5, "epsilon": 1e-3}),
    "sparse_adagrad_update": (2, 0, {}),
    "sparse_adadelta_update": (3, 0, {"rho": 0.9, "epsilon": 1e-3}),
    "sparse_proximal_sgd_update": (1, 0, {"l1": 0.1, "l2": 0.1}),
    "sparse_proximal_adagrad_update": (2, 0, {"l1": 0.1, "l2": 0.1}),
    "sparse_ftrl_update": (3, 0, {"l1": 0.1, "l2": 0.1, "l2_shrinkage": 0.1,
                                  "lr_power": -0.5}),
}


def _sampler(op, **attrs):
    def build(classes):
        return create_op(op, classes, num_true=1, num_sampled=3, unique=True, range_max=5,
                         seed=1, seed2=2, **attrs)
    return _op_probe(op, "3-of-5", [(tf.int64, [[1], [4]])], build)


def _special_probes():
    """The ops test_ops tests apart (its SPECIAL_TESTS) whose inputs take values."""
    rows, int32 = np.arange(12.0).reshape(4, 3), tf.int32
    probes = [_scatter_probe(op, dtype) for op in ("scatter_update", "scatter_add",
                                                   "scatter_sub") for dtype in (tf.int32,
                                                                                tf.int64)]
    probes += [_sparse_update_probe(op, state, dtype, scalars, **attrs)
               for op, (state, scalars, attrs) in _SPARSE_UPDATES.items()
               for dtype in (tf.int32, tf.int64)]
    probes += [
        _op_probe("tensor_array_write", "2-rows", [(tf.float32, rows), (int32, [3, 0]),
                                                   (tf.float32, rows[:2])],
                  lambda *xs: create_op("tensor_array_write", *xs)),
        _op_probe("tensor_array_grow", "2-rows", [(tf.float32, rows), (int32, 4),
                                                  (int32, [5, 1]), (tf.float32, rows[:2])],
                  lambda *xs: create_op("tensor_array_grow", *xs)),
        _op_probe("tensor_array_rows", "3-of-4", [(tf.float32, rows), (int32, 3)],
                  lambda *xs: create_op("tensor_array_rows", *xs)),
        _op_probe("_tensor_array_grow_backward", "2-rows", [
            (tf.float32, np.ones((8, 3))), (tf.float32, rows), (int32, [5, 1])],
            lambda *xs: create_op("_tensor_array_grow_backward", *xs)),
        _op_probe("_tensor_array_rows_backward", "2-of-4", [(tf.float32, rows[:2]),
                                                            (tf.float32, rows)],
                  lambda *xs: create_op("_tensor_array_rows_backward", *xs)),
        _op_probe("dynamic_stitch", "2-parts", [(int32, [0, 2]), (int32, [1]),
                                                (tf.float32, rows[:2]), (tf.float32, rows[:1])],
                  lambda *xs: create_op("dynamic_stitch", *xs, num_args=4)),
        _op_probe("branch_input", "2-d", [(tf.float32, rows), (tf.bool, True)],
                  lambda x, pred: create_op("branch_input", x, pred, branch=False)),
        _op_probe("branch_guard", "false", [(tf.bool, False)],
                  lambda pred: create_op("branch_guard", pred, branch=True)),
        *[_op_probe("_branch_head", label, [(tf.float32, rows), (tf.float32, like)],
                    lambda h, y: create_op("_branch_head", h, y))
          for label, like in (("same-shape", rows), ("other-shape", rows[:2]))],
        _op_probe("dropout", "keep-0.5", [(tf.float32, rows), (tf.float32, 0.5)],
                  lambda *xs: create_op("dropout", *xs, seed=1, seed2=2)),
        _op_probe("random_shuffle", "4-rows", [(tf.float32, rows)],
                  lambda x: create_op("random_shuffle", x, seed=1, seed2=2)),
        _op_probe("shuffle_strings", "4-rows", [(tf.float32, rows)],
                  lambda x: create_op("shuffle_strings", x, seed=1, seed2=2)),
        _op_probe("epoch_limit", "count-1-of-2", [(tf.float32, rows), (tf.int64, 1)],
                  lambda *xs: create_op("epoch_limit", *xs, limit=2)),
        _sampler("uniform_candidate_sampler"), _sampler("log_uniform_candidate_sampler"),
        _sampler("fixed_unigram_candidate_sampler", probabilities=[0.1, 0.2, 0.3, 0.2, 0.2]),
        _op_probe("random_gamma", "2-draws", [(tf.float32, [0.5, 3.0])],
                  lambda x: create_op("random_gamma", x, shape=(2,), seed=1, seed2=2)),
        _op_probe("random_poisson", "2-draws", [(tf.float32, [0.5, 3.0])],
                  lambda x: create_op("random_poisson", x, shape=(2,), dtype="int64", seed=1,
                                      seed2=2)),
        _op_probe("ctc_beam_search_decoder", "3-steps", [
            (tf.float32, np.arange(24.0).reshape(3, 2, 4) % 5), (int32, [3, 2])],
            lambda *xs: create_op("ctc_beam_search_decoder", *xs, beam_width=4, top_paths=2,
                                  merge_repeated=True)),
        _op_probe("_random_gamma_grad", "2-draws", [(tf.float32, [0.5, 3.0]),
                                                    (tf.float32, [[0.2, 2.0], [1.0, 4.0]])],
                  lambda *xs: create_op("_random_gamma_grad", *xs)),
    ]
    probes += _linalg_probes()
    probes += [_op_probe("index_to_string", label, [(tf.int64, [[2], [0], [1]])],
                         lambda x, names=names: create_op("index_to_string", x, **names))
               for label, names in (("vocabulary", {"vocabulary": ("a", "b")}), ("digits", {}))]
    probes.append(Probe("string_to_index-3-words", "string_to_index", _string_to_index_probe))
    probes.append(Probe("string_to_hash_bucket-3-words", "string_to_hash_bucket",
                        _string_to_hash_bucket_probe))
    probes.append(Probe("sparse_cross_hashed-words-ids", "sparse_cross_hashed",
                        _sparse_cross_probe))
    probes += _string_probes()
    probes += _image_file_probes()
    probes += _audio_file_probes()
    probes += _bits_and_sets_probes()
    probes += [_op_probe(op, "2x3", [], lambda op=op: create_op(op, shape=(2, 3), seed=1,
                                                                 seed2=2))  # attributes only
               for op in ("normal", "uniform", "truncated_normal")]
    return probes


def _bits_and_sets_probes():
    """tf.bitwise's ops, tf.bitcast, tf.timestamp and tf.sets' ops (test_tf_bitwise.py,
    test_tf_py_function.py and test_tf_sets.py test them)."""
    int32, int64 = tf.int32, tf.int64
    pair = [(int32, [[12, -7, 0]]), (int32, [[10], [3]])]
    sparse = [(int64, [[0, 0], [1, 1]]), (int64, [5, 7]), (int64, [2, 3])]
    probes = [_op_probe(op, "int32", pair, lambda a, b, op=op: create_op(op, a, b))
              for op in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                         "right_shift")]
    return probes + [
        _op_probe("invert", "int32", pair[:1], lambda x: create_op("invert", x)),
        _op_probe("bitcast", "float32-to-uint8", [(tf.float32, [[1.0, -2.5]])], lambda x: (
            create_op("bitcast", x, dtype="uint8", in_size=4, out_size=1, in_enum=1,
                      out_enum=4))),
        _op_probe("timestamp", "clock", [], lambda: create_op("timestamp")),
        _op_probe("set_operation", "dense-union", [(int32, [[1, 2], [3, 4]]),
                                                   (int32, [[2, 5], [3, 3]])],
                  lambda a, b: create_op("set_operation", a, b, operation="union")),
        _op_probe("set_operation", "sparse-sparse", sparse + sparse, lambda *xs: create_op(
            "set_operation", *xs, operation="a-b", a_sparse=True, b_sparse=True)),
        _op_probe("set_size", "sparse", sparse, lambda *xs: create_op("set_size", *xs)),
    ]


def _string_to_index_probe():
    """string_to_index over a fed vector of strings (their hostile values: none, no numbers)."""
    words = tf.placeholder(tf.string, [3])
    out = create_op("string_to_index", words, vocabulary=("x", "y"))
    return (out.outputs[0].node, [out], {words: np.array([b"y", b"q", b"x"], dtype=object)},
            [])


def _string_to_hash_bucket_probe():
    """string_to_hash_bucket over a fed vector of strings (any bytes hash; no size is read)."""
    words = tf.placeholder(tf.string, [3])
    out = create_op("string_to_hash_bucket", words, num_buckets=7)
    return (out.outputs[0].node, [out], {words: np.array([b"", b"\xff" * 9, b"x"],
                                                         dtype=object)}, [])


def _sparse_cross_probe():
    """sparse_cross_hashed over fed strings and ids (hostile ids: negative, huge)."""
    words, ids = tf.placeholder(tf.string, [2, 2]), tf.placeholder(tf.int64, [2, 3])
    out = create_op("sparse_cross_hashed", ids, words, num_args=2, num_ids=1, num_buckets=7,
                    hash_key=5)
    return (out.outputs[0].node, [out], {
        words: np.array([[b"", b"\xff" * 9], [b"x", b"y"]], dtype=object),
        ids: np.array([[-1, 2**62, -2**63], [0, -5, 9]], dtype=np.int64)}, [])


def _string_probe(op, label, strings, specs, build, **attrs):
    """``build(*string placeholders, *placeholders of specs)``: ``strings`` the fed arrays of
    strings (no hostile values: the numbers and the int attributes are)."""
    def make():
        texts = [tf.placeholder(tf.string, np.shape(v)) for v in strings]
        xs, feeds = _placeholders(*specs)
        out = build(*texts, *xs)
        feeds.update({t: np.array(v, dtype=object) for t, v in zip(texts, strings)})
        return out.outputs[0].node, [Symbol([e]) for e in out.outputs], feeds, []
    return Probe(f"{op}-{label}", op, make)


def _string_probes():
    """tf.strings' ops (test_strings.py tests them) over fed strings: their numbers (substr's
    positions, as_string's and format's values) and int attributes hostile."""
    words, grid = [b"ab c", b" d\xc3\xa9 "], [[b"a", b"b"], [b"c", b"d"]]
    one = lambda op, **attrs: lambda *xs: create_op(op, *xs, **attrs)
    probes = [_string_probe(op, "2-words", [words], [], one(op, **attrs)) for op, attrs in (
        ("string_length", {"unit": "UTF8_CHAR"}), ("string_case", {"upper": True}),
        ("string_strip", {}), ("regex_full_match", {"pattern": "a.*"}),
        ("regex_replace", {"pattern": "(b|d)", "rewrite": "<\\1>"}),
        ("base64", {"encode": True, "pad": True}),
        ("string_split", {"delimiter": " ", "skip_empty": True}),
        ("string_split", {"sep": "", "maxsplit": 1}))]
    probes += [
        _string_probe("string_to_number", "2-numbers", [[b"1.5", b" -2"]], [],
                      one("string_to_number", out_type="float32")),
        _string_probe("base64", "decode", [[b"YWI", b"w7_Dvj8-"]], [],
                      one("base64", encode=False)),
        _string_probe("unicode_decode", "scalar", [b"h\xc3\xa9\xff"], [],
                      one("unicode_decode", encoding="UTF-8", errors="replace",
                          replacement_char=63)),
        _string_probe("reduce_join", "2x2", [grid], [],
                      one("reduce_join", axis=(1,), keepdims=True, separator=",")),
        _string_probe("string_join", "word-and-scalar", [words, b"!"], [],
                      one("string_join", num_args=2, separator="-")),
        _string_probe("string_stack", "2-rows", [words, words], [],
                      one("string_stack", num_args=2)),
        _string_probe("substr", "2-words", [words], [(tf.int32, [1, 0]), (tf.int32, [2, 9])],
                      one("substr", unit="BYTE")),
        _string_probe("as_string", "float32", [], [(tf.float32, [1.5, -2.25])],
                      one("as_string", width=7, precision=2, fill="0")),
        _string_probe("as_string", "int64", [], [(tf.int64, [3, -4])],
                      one("as_string", width=4)),
        _string_probe("string_format", "2-tensors", [], [(tf.int32, np.arange(8)),
                                                        (tf.float32, [[0.5, 2]])],
                      one("string_format", num_args=2, template="a {} b {}", summarize=2)),
    ]
    return probes


def _image_file_probes():
    """tf.image's files (test_image_codecs.py tests them): a fed PNG decoded, a fed JPEG's
    header read, a fed uint8 image encoded; their int attributes hostile."""
    png = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x01\x08\x00"
           b"\x00\x00\x00\xd1I V\x00\x00\x00\x0bIDATx\x9cc``\x00\x00\x00\x03\x00\x01\xb8\xad:c"
           b"\x00\x00\x00\x00IEND\xaeB`\x82")  # a 2x1 grey PNG
    jpeg = b"\xff\xd8\xff\xc0\x00\x0b\x08\x00\x05\x00\x09\x01\x01\x11\x00\xff\xd9"
    one = lambda op, **attrs: lambda *xs: create_op(op, *xs, **attrs)
    return [
        _string_probe("decode_image_file", "png", [png], [],
                      one("decode_image_file", format="png", channels=3)),
        _string_probe("decode_image_file", "any", [png], [],
                      one("decode_image_file", format="any", channels=0)),
        _string_probe("jpeg_header", "shape", [jpeg], [],
                      one("jpeg_header", shape=True, out_type="int32")),
        _op_probe("encode_png", "2x2x3", [(tf.uint8, np.arange(12).reshape(2, 2, 3))],
                  lambda x: create_op("encode_png", x, compression=6)),
    ]


def _audio_file_probes():
    """tf.audio's WAV files (test_tf_audio.py tests them): a fed WAV decoded, fed samples
    encoded; their int attributes and the sample rate hostile."""
    wav = (b"RIFF(\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>"
           b"\x00\x00\x02\x00\x10\x00data\x04\x00\x00\x00\x00@\x00\xc0")  # 2 mono samples
    return [
        _string_probe("decode_wav", "mono", [wav], [],
                      lambda x: create_op("decode_wav", x, desired_channels=2,
                                          desired_samples=3)),
        _op_probe("encode_wav", "3x2", [(tf.float32, np.ones((3, 2)) * 0.5), (tf.int32, 8000)],
                  lambda x, rate: create_op("encode_wav", x, rate)),
    ]


def _linalg_probes():
    """The decompositions with their vectors (test_linalg.py tests them), over a 4x3 matrix (a
    3x3 one for the eigenvectors)."""
    rng = np.random.default_rng(0)
    tall, square = rng.standard_normal((4, 3)), rng.standard_normal((3, 3))
    return [_op_probe(op, label, [(tf.float32, tall if op != "self_adjoint_eig" else square)],
                      lambda x, op=op, attrs=attrs: create_op(op, x, **attrs))
            for op, label, attrs in (("qr", "reduced", {}), ("qr", "full", {"full_matrices": True}),
                                     ("svd", "full", {"full_matrices": True}),
                                     ("self_adjoint_eig", "vectors", {}))]


def _whole(values):
    """Positions of inputs holding whole numbers only (class ids, indices): fed as int64 too."""
    return tuple(i for i, v in enumerate(values)
                 if v.size and np.all(np.isfinite(v)) and np.array_equal(v, np.round(v)))


def probes():
    import test_ops  # the table of cases (tests/ is the child's folder, on its path)
    found = []
    for case in test_ops.CASES:
        if case.op in LEFT_TO_THE_LEAD:
            continue
        found.append(_case_probe(case))
        whole = _whole(case.values())
        if whole:
            found.append(_case_probe(case, whole))
        if any(v.ndim for v in case.values()):
            found += [_case_probe(case, empty=axis) for axis in (0, -1)]
    return found + _special_probes()


# -- the sweep: children run the probes, this process reads their reports -----------------------
class Report:
    """What the children said: the ops registered, the probes, and every failure."""

    def __init__(self):
        self.ops, self.probes, self.based, self.failures = set(), {}, set(), []
        self.pending = self.probe = None

    def read(self, lines):
        for line in lines:
            word, *rest = line.split(" ", 1)
            rest = rest[0] if rest else ""
            if word == "OPS":
                self.ops = set(rest.split())
            elif word == "PROBE":
                k, op, variant, probe_id = rest.split(" ", 3)
                self.probe = self.probes[int(k)] = (op, probe_id, variant.strip("-"))
                self.pending = "its build and first run"
            elif word == "BASE":
                _, kind, text = rest.split(" ", 2)
                if kind != "refused" or not self.probe[2]:  # a variant an op may refuse
                    self.failures.append(f"{self.probe[1]}: its first run failed: {text}")
                self.pending = None
            elif word == "RUN":
                _, position, dtype, label = rest.split(" ")
                self.based.add(self.probe[0])
                self.pending = f"input {position} ({dtype}) {label}"
            elif word == "DONE":
                outcome = rest.split(" ", 2)[2]
                if outcome not in ("ok", "error"):
                    self.failures.append(f"{self.probe[1]}: {self.pending}: {outcome}")
                self.pending = None
            elif word == "AFTER":
                self.based.add(self.probe[0])
                if rest.endswith("changed"):
                    self.failures.append(f"{self.probe[1]}: the good values give other "
                                         f"results after the hostile runs")

    def died(self, code, stderr):
        if code == 1 and "Timeout" in stderr:
            how = f"no answer within {HANG_SECONDS} s (hangs)"
        else:
            how = f"the process ended with code {code}" + " (a signal)" * (
                isinstance(code, int) and code < 0)
        self.failures.append(f"{self.probe[1]}: {self.pending}: {how}")


def sweep_probes(programs) -> Report:
    """Children running the probes from the first, each after a child that died from the probe
    after the one that killed it."""
    report, start = Report(), 0
    while True:
        try:
            result = programs.run([sys.executable, __file__, str(start)], timeout=SWEEP_SECONDS)
            lines, code, stderr = result.stdout.splitlines(), result.returncode, result.stderr
        except subprocess.TimeoutExpired as err:  # a hang faulthandler could not end
            lines, code, stderr = (err.output or "").splitlines(), "timeout", err.stderr or ""
        report.probe = None
        report.read(lines)
        if lines and lines[-1] == "END":
            return report
        assert report.probe is not None, f"the child failed before any probe:\n{stderr[-3000:]}"
        report.died(code, stderr)
        start = next(k for k, probe in report.probes.items() if probe is report.probe) + 1


@pytest.fixture(scope="module")
def sweep(programs):
    return sweep_probes(programs)


def test_no_op_crashes_hangs_or_allocates_on_hostile_values(sweep):
    assert not sweep.failures, "\n".join(sweep.failures)


def test_every_op_a_graph_document_can_name_is_probed(sweep):
    documented = {name for name in sweep.ops
                  if not Op.get(name).attr("TInternal") and not Op.get(name).attr("TPythonAttrs")}
    missing = sorted(documented - sweep.based - set(EXEMPT) - set(LEFT_TO_THE_LEAD))
    assert not missing, f"ops without a probe that ran: {missing}: add one to _special_probes()"
    stale = sorted((set(EXEMPT) | set(LEFT_TO_THE_LEAD)) - documented)
    assert not stale, f"EXEMPT names ops a document cannot name: {stale}"
    probed = sorted(set(EXEMPT) & sweep.based)
    assert not probed, f"EXEMPT names ops that are probed: {probed}"


# -- regressions: what the sweep found --------------------------------------------------------
def test_a_run_time_size_refused_is_a_resource_exhausted_error_naming_the_node(monkeypatch):
    # tensor_array_grow's capacity, from an index fed 2**31 - 1, is refused by kwarg.check_fits
    # as it runs: the executor raised a TypeError rebuilding that error (which names the node)
    monkeypatch.setattr(host_memory, "host_available_bytes", lambda: (AVAILABLE, "the test's"))
    tf.reset_default_graph()
    (elements, count, index, value), feeds = _placeholders(
        (tf.float32, np.zeros((4, 3))), (tf.int32, 4), (tf.int32, [5]), (tf.float32, [[1, 2, 3]]))
    grown = create_op("tensor_array_grow", elements, count, index, value, name="grow")
    session = tf.Session()
    with pytest.raises(tf.errors.ResourceExhaustedError,
                       match=r"node 'grow'.*output sized as it runs of shape \(2147483648, 3\).*"
                             r"the run stopped there, before allocating it"):
        session.run(grown[0], {**feeds, index: [2 ** 31 - 1]})
    np.testing.assert_array_equal(session.run(grown[0], feeds)[5], [1, 2, 3])  # still runs


def _document(*outputs, edit):
    """The graph of ``outputs`` saved as a document, its nodes edited by ``edit(nodes)``, and
    loaded back (LoadJSON): ``(run, nodes by name)``, ``run(feeds by name)`` the heads."""
    doc = json.loads(apply_passes(Graph([o.outputs[0] for o in outputs], {}),
                                  "SaveJSON").attrs["json"])
    edit({node["name"]: node for node in doc["nodes"]})
    graph = apply_passes(Graph([], {"json": json.dumps(doc)}), "LoadJSON")
    nodes = {node.name: node for node in graph.indexed.nodes}
    session = tf.Session()
    return lambda **feeds: session.run(Symbol(graph.outputs), {
        Symbol([NodeEntry(nodes[name], 0)]): value for name, value in feeds.items()}), nodes


def test_a_window_stride_that_does_not_give_the_gradients_size_is_refused():
    # a document's _conv2d_backward_data (no padding attr: implied by the sizes) with a stride
    # of 2**31 - 1: the padding that would give g's size from x's was 2**32, on which torch's
    # kernel ran for minutes (or the zero border was allocated past the allocation check)
    tf.reset_default_graph()
    g, x, w = (tf.placeholder(tf.float32, s, name=n) for s, n in (
        ((2, 4, 3, 5), "g"), ((2, 3, 7, 6), "x"), ((4, 3, 3, 2), "w")))
    grad = create_op("_conv2d_backward_data", g, x, w, stride=(2, 1), name="grad")
    run, _ = _document(grad, edit=lambda nodes: nodes["grad"]["attrs"].update(
        stride=[2 ** 31 - 1, 1]))
    feeds = {"g": np.ones((2, 4, 3, 5)), "x": np.zeros((2, 3, 7, 6)), "w": np.ones((4, 3, 3, 2))}
    with pytest.raises(LuaOpError, match=r"node 'grad'.*windows of 3 at stride 2147483647 over "
                                         r"7 pixels give no 3 outputs"):
        run(**feeds)
    good, _ = _document(grad, edit=lambda nodes: None)
    expected = torch.nn.functional.conv_transpose2d(  # the same gradient, from torch
        torch.ones(2, 4, 3, 5), torch.ones(4, 3, 3, 2), stride=(2, 1))
    np.testing.assert_allclose(good(**feeds), expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize("op", ["_avg_pool2d_backward", "_max_pool2d_backward_backward"])
def test_a_pooling_gradients_window_must_fit_x_as_the_forwards_does(op):
    # a document's kernel of 2**31 - 1 rows over x of 7: the SAME padding's zero border of the
    # gradient's buffer was allocated past the allocation check
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, (2, 3, 7, 6), name="x")
    small = tf.placeholder(tf.float32 if op[1] == "a" else tf.int64, (2, 3, 4, 3), name="small")
    inputs = (small, x) if op[1] == "a" else (x, small)  # (g, x) or (h, argmax)
    grad = create_op(op, *inputs, kernel=(3, 3), stride=(2, 2), padding="SAME", name="grad")
    with pytest.raises(ShapeError, match=r"node 'grad'.*height window 2147483647 is larger "
                                         r"than the input's height 7"):
        _document(grad, edit=lambda nodes: nodes["grad"]["attrs"].update(
            kernel=[2 ** 31 - 1, 3]))[0](x=np.zeros((2, 3, 7, 6)), small=np.zeros((2, 3, 4, 3)))
    with pytest.raises(ShapeError, match="height window 8 is larger than the input's height 7"):
        create_op(op, *inputs, kernel=(8, 3), stride=(2, 2), padding="SAME")


def test_a_tensor_arrays_negative_count_is_an_error():
    # a document's count of -2 stacked all rows but the last two
    tf.reset_default_graph()
    (elements, count), feeds = _placeholders((tf.float32, np.ones((4, 3))), (tf.int32, 3))
    stacked = create_op("tensor_array_rows", elements, count, name="stack")
    session = tf.Session()
    assert session.run(stacked, feeds).shape == (3, 3)
    with pytest.raises(LuaOpError, match="node 'stack'.*TensorArray count -2 is negative"):
        session.run(stacked, {**feeds, count: -2})


def test_a_constant_whose_values_do_not_fill_its_shape_is_a_shape_error():
    tf.reset_default_graph()
    c = tf.constant(np.arange(6.0).reshape(2, 3), name="c")
    run, _ = _document(c, edit=lambda nodes: nodes["c"]["attrs"].update(shape=[4, 3]))
    with pytest.raises(ShapeError, match=r"constant 'c': 6 values do not fill its shape "
                                         r"\(4, 3\)"):
        run()  # a fetched constant is built in Python: it was numpy's ValueError, unnamed


def test_any_int_seed_of_a_document_seeds_a_stream_as_its_uint64():
    # a negative seed (TF's are int64) raised numpy's ValueError as its session bound the node
    for seed, seed2 in ((-1, 5), (-2 ** 63, 2 ** 64 + 3)):
        expected = np.random.SeedSequence([seed % 2 ** 64, seed2 % 2 ** 64]).generate_state(
            2, np.uint32)
        assert stream_seed(seed, seed2) == int(expected[0]) | int(expected[1]) << 32
    tf.reset_default_graph()
    drawn = tf.random_uniform([4], seed=1, name="u")
    run, _ = _document(drawn, edit=lambda nodes: nodes["u"]["attrs"].update(seed=-1, seed2=-7))
    first = run()
    assert first.shape == (4,) and np.all((0 <= first) & (first < 1))


_EMPTY_BATCH_NORM = """
import numpy as np, tinyflow as tf
from tinyflow.nnvm import TinyflowError
from tinyflow.nnvm.symbol import create_op
for shape in ((0, 3), (6, 0), (0, 3, 2, 2)):
    tf.reset_default_graph()
    xs = [tf.placeholder(tf.float32, s) for s in (shape, shape) + ((shape[1],),) * 3]
    grads = create_op("_batch_norm_backward", *xs, eps=1e-3, name="bn_grad")
    try:
        tf.Session().run(grads[0], {x: np.ones(x.get_shape().as_list()) for x in xs})
    except TinyflowError as err:
        print(type(err).__name__, err)
"""


def test_a_batch_norm_gradient_of_no_elements_is_an_error(programs):
    # torch's CPU native_batch_norm_backward divides by the count: SIGFPE (in a child: a crash
    # must not end the tests)
    result = programs.run([sys.executable, "-c", _EMPTY_BATCH_NORM], timeout=120)
    assert result.returncode == 0, f"ended with {result.returncode}: {result.stderr[-2000:]}"
    lines = result.stdout.splitlines()
    assert len(lines) == 3 and all(line.startswith("OpFailedError") and "node 'bn_grad'" in line
                                   and "at least one element, got shape (" in line
                                   for line in lines), lines


# -- indices on a GPU: its kernels do not check them, but assert on the device ------------------
def _indexing(op, index):
    """``(output, feeds, index placeholder)`` of op ``op`` reading int32 ``index`` (rows of a
    (4, 3) tensor; columns for _top_k_backward)."""
    rows = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    specs = {"gather": [rows, index], "_gather_backward": [rows[:2], index, rows],
             "_top_k_backward": [rows[:, :2], index, rows],
             "tensor_array_write": [rows, index, rows[:2]]}.get(op, [index, rows[:2]])
    xs, feeds = _placeholders(*[(tf.int32 if v is index else tf.float32, v) for v in specs])
    if op.startswith("scatter"):
        xs = [tf.Variable(tf.zeros([4, 3])), *xs]
    at = next(x for x, v in zip(xs[-len(specs):], specs) if v is index)
    return create_op(op, *xs, name="op"), feeds, at


@pytest.mark.parametrize("op", ["gather", "_gather_backward", "scatter_add", "scatter_update",
                                "tensor_array_write", "_top_k_backward"])
def test_an_index_out_of_range_is_an_error_naming_the_node_on_every_device(config, op):
    tf.reset_default_graph()
    shape = (4, 2) if op == "_top_k_backward" else (2,)
    out, feeds, at = _indexing(op, np.full(shape, 1, np.int32))
    session = tf.Session(config)
    session.run(tf.global_variables_initializer())
    good = session.run(out, feeds)
    for bad in (7, -1, 2 ** 31 - 1):
        value = np.full(shape, 1, np.int32)
        value.flat[-1] = bad
        with pytest.raises(TinyflowError, match="node 'op'"):
            session.run(out, {**feeds, at: value})
    if not op.startswith("scatter"):  # the session gives what it gave
        np.testing.assert_array_equal(session.run(out, feeds), good)


def test_indices_are_checked_where_a_gpus_kernel_would_not():
    # on a GPU (an index said to be there: the check itself runs on any device) the function
    # gets the index only once its values are in range, TensorFlow's text otherwise; on the CPU
    # it is torch's own function (which checks them itself), at no cost
    calls = []
    checked = array_kernels.gpu_checked(lambda *args: calls.append(args), SimpleNamespace(
        is_cuda=True), 2, 4, "indices")
    checked("out", torch.tensor([0, 3]))
    assert len(calls) == 1
    for bad, text in (([0, 4], r"indices\[1\] = 4 is not in \[0, 4\)"),
                      ([-1, 2], r"indices\[0\] = -1 is not in \[0, 4\)"),
                      ([[2, 2], [2, 2 ** 62]], r"indices\[3\] = 4611686018427387904 is not")):
        with pytest.raises(IndexError, match=text):
            checked("out", torch.tensor(bad))
    assert len(calls) == 1
    assert array_kernels.gpu_checked(torch.index_select, torch.zeros(2), 4, 4, "") is \
        torch.index_select


# -- the child --------------------------------------------------------------------------------
def hostile_values(value):
    """``(label, array)`` of hostile values of ``value``'s dtype and shape: every element, or
    the first only."""
    dtype = value.dtype
    if dtype.kind == "f":
        picks = [np.nan, np.inf, -np.inf, 1e30, -1e30, 2.0 ** 62, 2.0 ** 31, -1.0]
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        picks = sorted(v for v in {int(info.max), int(info.min), -1, 2 ** 62, -2 ** 62,
                                   2 ** 31, -2 ** 31, 2 ** 31 - 1} if info.min <= v <= info.max)
    else:
        picks = []  # bool
    for pick in picks:
        yield f"all={pick}", np.full(value.shape, pick, dtype)
        if value.size > 1:
            first = value.copy()
            first.flat[0] = pick
            yield f"first={pick}", first


def hostile_attrs(value):
    """``(label, value)`` of hostile values of an int attribute or a tuple of ints (sizes,
    strides, axes...): every element, or the first only."""
    ints = isinstance(value, (tuple, list)) and value and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value)
    if not ints and (not isinstance(value, int) or isinstance(value, bool)):
        return
    for pick in (2 ** 62, 2 ** 31 - 1, -1, -2 ** 62, 0):
        if not ints:
            yield f"all={pick}", pick
            continue
        yield f"all={pick}", type(value)([pick] * len(value))
        if len(value) > 1:
            yield f"first={pick}", type(value)([pick, *value[1:]])


def _outcome(run, node):
    """``"ok"``, ``"error"`` (a TinyflowError naming the node or an input's), or what went
    wrong."""
    try:
        run()
    except (TinyflowError, OpError) as err:  # OpError: tf.errors' classes
        text = f"{type(err).__name__}: {err}".replace("\n", " ")
        if any(word in text for word in _MEMORY):
            return f"allocated past the check: {text[:300]}"
        # (or the fed input's node: a hidden output, max_pool2d's argmax, is not fed)
        if not any(name in text for name in (node.name, node.op.name,
                                             *(entry.node.name for entry in node.inputs))):
            return f"an error not naming op {node.op.name} or node {node.name}: {text[:300]}"
        return "error"
    except Exception as err:  # noqa: BLE001 (the child reports it)
        text = f"{type(err).__name__}: {err}".replace("\n", " ")[:300]
        return f"not a TinyflowError: {text}"
    return "ok"


def _equal(a, b):
    # to rounding: a sum's order may change with the thread count CPU kernels choose per run;
    # strings (object arrays of bytes, a scalar one bytes) exactly
    return all(np.array_equal(x, y) if np.asarray(x).dtype.kind in "OS" else np.allclose(
        np.asarray(x, np.float64), np.asarray(y, np.float64), rtol=1e-5, atol=1e-6,
        equal_nan=True) for x, y in zip(a, b))


def _run_probe(k, probe, emit):
    tf.reset_default_graph()
    refusals = (TinyflowError, OpError, ValueError, TypeError)  # TF's as a graph is built
    try:
        node, fetches, feeds, setup = probe.make()
        refusals = (TinyflowError, OpError)  # as it runs
        session = _session(setup)
        entries = list(dict.fromkeys(node.inputs))
        values = session.run(fetches + [Symbol([e]) for e in entries], feeds)
    except Exception as err:  # noqa: BLE001 (reported; a variant an op may refuse)
        kind = "refused" if isinstance(err, refusals) else "failed"
        emit("BASE", k, kind, f"{type(err).__name__}: {err}".replace("\n", " ")[:300])
        return
    if probe.variant == "empty":
        return
    before = values[:len(fetches)]
    for position, (entry, value) in enumerate(zip(entries, values[len(fetches):])):
        others = {x: v for x, v in feeds.items() if x.outputs[0] != entry}
        for label, array in hostile_values(np.asarray(value)):
            emit("RUN", k, position, value.dtype, label)
            hostile = {**others, Symbol([entry]): array}
            emit("DONE", k, position, _outcome(lambda h=hostile: session.run(fetches, h), node))
    stateful = node.op.attr("FMutateInputs") or node.op.attr("TRandom")
    after = session.run(fetches, feeds)
    emit("AFTER", k, "same" if stateful or _equal(before, after) else "changed")
    if not probe.variant:
        _attribute_runs(k, node, lambda: _session(setup).run(fetches, feeds), emit)


def _session(setup):
    session = tf.Session()
    if setup:
        session.run(setup)
    return session


def _counts(node):
    try:
        return node.op.num_inputs(node.attrs), node.op.num_outputs(node.attrs)
    except Exception:  # noqa: BLE001 (LoadJSON refuses such attributes)
        return None


def test_the_childs_limit_reaches_ops_computed_in_python(monkeypatch):
    # index_to_string builds its strings in Python, beside the executor's checked buffers: it
    # read the host's figure by a name of its own, so the child's limit did not reach it
    _limit_the_host(monkeypatch.setattr)
    tf.reset_default_graph()
    ids = tf.placeholder(tf.int64, [None])
    names = create_op("index_to_string", ids, name="names")
    session = tf.Session()
    count = AVAILABLE // 64 + 1  # 64 bytes an id: one past the limit (a 32 MB feed fits it)
    with pytest.raises(tf.errors.ResourceExhaustedError,
                       match=rf"node 'names'.*{64 * count} bytes for the strings of {count} ids.*"
                             r"the hostile inputs test's limit"):
        session.run(names, {ids: np.zeros(count, np.int64)})
    assert session.run(names, {ids: [7, 8]}).tolist() == [b"7", b"8"]  # the session runs on


def _attribute_runs(k, node, run, emit):
    """Each int attribute of the node hostile in turn, as a graph document may give it, each
    run in a new session (bound anew).  Not those setting the node's number of inputs or
    outputs: LoadJSON checks them against the node's inputs and its readers."""
    original, counts = dict(node.attrs), _counts(node)
    for key, value in original.items():
        for label, hostile in hostile_attrs(value):
            node.attrs[key] = hostile
            if _counts(node) == counts:
                emit("RUN", k, f"attr:{key}", "int", label)
                emit("DONE", k, f"attr:{key}", _outcome(run, node))
            node.attrs[key] = value


def _limit_the_host(setattr=setattr):
    """The child's limit: every check of the host's memory (the executor's on the CPU, an op
    computed in Python, a reader of files) sees AVAILABLE, through their one figure."""
    setattr(host_memory, "host_available_bytes",
            lambda: (AVAILABLE, "the hostile inputs test's limit"))


def _child(start):
    emit = lambda *words: print(*words, flush=True)
    emit("OPS", *list_ops())
    # the allocation check sees AVAILABLE; an allocation it let through fails past HEADROOM
    _limit_the_host()
    size = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (size + HEADROOM, size + HEADROOM))
    for k, probe in enumerate(probes()):
        if k >= start:
            emit("PROBE", k, probe.op, probe.variant or "-", probe.id)
            # one watchdog for a probe's runs (one per run cost 0.14 ms each: a thread each)
            faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)
            _run_probe(k, probe, emit)
            faulthandler.cancel_dump_traceback_later()
    emit("END")


if __name__ == "__main__":
    _child(int(sys.argv[1]))
