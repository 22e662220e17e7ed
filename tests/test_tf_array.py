"""TensorFlow 1.x's array functions (tinyflow/array_ops.py): values against numpy, gradients
against torch autograd and finite differences, memory planning on and off, TF's dtype rules,
shapes known only at bind time, and bad input reported with the op, the node and the shapes."""
import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.nnvm import ShapeError
from tinyflow.nnvm.symbol import create_op

pytestmark = pytest.mark.usefixtures("fresh_graph")


def values(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.5, 1.5, s).astype(np.float32) for s in shapes]


# label: (build from placeholders, numpy twin, torch twin (None: same as numpy's on tensors),
# input shapes)
CASES = {
    "reshape": (lambda x: tf.reshape(x, [2, -1]), lambda x: x.reshape(2, -1), None, [(3, 4)]),
    "transpose-default": (tf.transpose, lambda x: x.T, lambda x: x.permute(2, 1, 0),
                          [(2, 3, 4)]),
    "transpose-perm": (lambda x: tf.transpose(x, [1, 2, 0]), lambda x: x.transpose(1, 2, 0),
                       lambda x: x.permute(1, 2, 0), [(2, 3, 4)]),
    "expand_dims-0": (lambda x: tf.expand_dims(x, 0), lambda x: x[None], None, [(3, 4)]),
    "expand_dims--1": (lambda x: tf.expand_dims(x, -1), lambda x: x[..., None], None,
                       [(3, 4)]),
    "squeeze-all": (tf.squeeze, np.squeeze, torch.squeeze, [(1, 3, 1, 2)]),
    "squeeze-axis": (lambda x: tf.squeeze(x, [2]), lambda x: x.squeeze(2),
                     lambda x: x.squeeze(2), [(1, 3, 1, 2)]),
    "squeeze_dims": (lambda x: tf.squeeze(x, squeeze_dims=[-4]), lambda x: x[0], None,
                     [(1, 3, 1, 2)]),
    "concat-1": (lambda a, b: tf.concat([a, b], 1), lambda a, b: np.concatenate([a, b], 1),
                 lambda a, b: torch.cat([a, b], 1), [(2, 3), (2, 4)]),
    "concat--1-three": (lambda a, b, c: tf.concat([a, b, c], -1),
                        lambda *xs: np.concatenate(xs, -1), lambda *xs: torch.cat(xs, -1),
                        [(2, 2, 1), (2, 2, 3), (2, 2, 2)]),
    "concat-0-same-input": (lambda a: tf.concat([a, a * 2], 0),
                            lambda a: np.concatenate([a, a * 2]),
                            lambda a: torch.cat([a, a * 2]), [(2, 3)]),
    "stack-0": (lambda a, b: tf.stack([a, b]), lambda a, b: np.stack([a, b]),
                lambda a, b: torch.stack([a, b]), [(2, 3), (2, 3)]),
    "stack--1": (lambda a, b, c: tf.stack([a, b, c], axis=-1), lambda *xs: np.stack(xs, -1),
                 lambda *xs: torch.stack(xs, -1), [(2, 3)] * 3),
    "slice": (lambda x: tf.slice(x, [1, 0], [2, -1]), lambda x: x[1:3, :], None, [(4, 3)]),
    "getitem-int": (lambda x: x[1], lambda x: x[1], None, [(3, 4)]),
    "getitem-range": (lambda x: x[:, 1:3], lambda x: x[:, 1:3], None, [(3, 4)]),
    "getitem-ellipsis": (lambda x: x[..., -1], lambda x: x[..., -1], None, [(2, 3, 4)]),
    "getitem-newaxis": (lambda x: x[:, None], lambda x: x[:, None], None, [(3, 4)]),
    "getitem-steps": (lambda x: x[::2, 1::2], lambda x: x[::2, 1::2], None, [(5, 4)]),
    "getitem-negative-step": (lambda x: x[::-1, -2::-2], lambda x: x[::-1, -2::-2],
                              lambda x: x.flip(0)[:, [2, 0]], [(3, 4)]),
    "getitem-mixed": (lambda x: x[1:, ..., tf.newaxis, 0], lambda x: x[1:, ..., None, 0],
                      None, [(3, 2, 4)]),
    "getitem-clamped": (lambda x: x[-10:10, 2:], lambda x: x[-10:10, 2:], None, [(3, 4)]),
    "strided_slice-masks": (
        lambda x: tf.strided_slice(x, [0, 1], [0, 3], [1, 1], begin_mask=1, end_mask=1),
        lambda x: x[:, 1:3], None, [(3, 4)]),
    "tile": (lambda x: tf.tile(x, [2, 3]), lambda x: np.tile(x, (2, 3)),
             lambda x: x.repeat(2, 3), [(2, 3)]),
    "tile-3d": (lambda x: tf.tile(x, [1, 2, 2]), lambda x: np.tile(x, (1, 2, 2)),
                lambda x: x.repeat(1, 2, 2), [(2, 1, 3)]),
    "reverse": (lambda x: tf.reverse(x, [0, -1]), lambda x: x[::-1, :, ::-1],
                lambda x: x.flip(0, -1), [(2, 3, 4)]),
    "gather-0": (lambda p: tf.gather(p, [2, 0, 2]), lambda p: p[[2, 0, 2]],
                 lambda p: p[torch.tensor([2, 0, 2])], [(3, 4)]),
    "gather-axis-1-2d-indices": (
        lambda p: tf.gather(p, np.array([[1, 0], [3, 3]], np.int64), axis=1),
        lambda p: p[:, [[1, 0], [3, 3]]], lambda p: p[:, torch.tensor([[1, 0], [3, 3]])],
        [(2, 4, 3)]),
    "fill-broadcast": (lambda v: tf.fill([2, 3], v[0]), lambda v: np.full((2, 3), v[0]),
                       lambda v: v[0].expand(2, 3), [(2,)]),
}
SPLITS = {  # several outputs: label -> (build, numpy twin, torch twin, shapes)
    "split-num": (lambda x: tf.split(x, 3, axis=1), lambda x: np.split(x, 3, 1),
                  lambda x: torch.split(x, 2, 1), [(2, 6)]),
    "split-sizes": (lambda x: tf.split(x, [1, -1, 2], 0), lambda x: np.split(x, [1, 2]),
                    lambda x: torch.split(x, [1, 1, 2]), [(4, 3)]),
    "split-one": (lambda x: tf.split(x, 1, -1), lambda x: [x], lambda x: [x * 1], [(2, 3)]),
    "unstack": (tf.unstack, lambda x: list(x), lambda x: torch.unbind(x), [(3, 2)]),
    "unstack-axis-1": (lambda x: tf.unstack(x, axis=1), lambda x: list(x.transpose(1, 0, 2)),
                       lambda x: torch.unbind(x, 1), [(2, 3, 2)]),
}


def run(fetches, feeds=None, plan_memory=True):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches, feeds or {})


@pytest.mark.parametrize("label", CASES)
def test_values_against_numpy(label, plan_memory):
    build, twin, _, shapes = CASES[label]
    inputs = values(*shapes)
    xs = [tf.placeholder(shape=s) for s in shapes]
    got = run(build(*xs), dict(zip(xs, inputs)), plan_memory)
    np.testing.assert_array_equal(got, twin(*inputs))


@pytest.mark.parametrize("label", SPLITS)
def test_split_values(label, plan_memory):
    build, twin, _, shapes = SPLITS[label]
    (value,) = values(*shapes)
    x = tf.placeholder(shape=shapes[0])
    pieces = build(x)
    assert isinstance(pieces, list)
    got = run(pieces, {x: value}, plan_memory)
    expected = twin(value)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def _check_against_torch(build, torch_twin, inputs, plan_memory):
    report = check_gradients(build, inputs=inputs, plan_memory=plan_memory)
    xs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in report.inputs]
    outs = torch_twin(*xs)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    heads = [torch.tensor(h, dtype=torch.float64) for h in report.head_grads]
    expected = torch.autograd.grad(outs, xs, heads)
    for i, e in enumerate(expected):
        np.testing.assert_allclose(report.symbolic[i], e.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("label", CASES)
def test_gradients(label, plan_memory):
    build, twin, torch_twin, shapes = CASES[label]
    torch_twin = torch_twin or twin
    _check_against_torch(build, torch_twin, values(*shapes), plan_memory)


@pytest.mark.parametrize("label", SPLITS)
def test_split_gradients(label, plan_memory):
    build, _, torch_twin, shapes = SPLITS[label]
    # every piece counts: a Symbol holding them all is the checked output
    _check_against_torch(lambda x: tf.Symbol([p.outputs[0] for p in build(x)]), torch_twin,
                         values(*shapes), plan_memory)


def test_gradient_of_an_unused_piece_is_zero():
    x = tf.placeholder(shape=(2, 6))
    first, _, third = tf.split(x, 3, axis=1)
    (grad,) = tf.gradients(tf.reduce_sum(first * 2 + third), [x])
    np.testing.assert_array_equal(run(grad, {x: np.ones((2, 6))}),
                                  [[2, 2, 0, 0, 1, 1]] * 2)


def test_gather_gradient_adds_repeated_indices(plan_memory):
    params = tf.placeholder(shape=(4, 2))
    for dtype in (tf.int32, tf.int64):
        indices = tf.placeholder(dtype, shape=(5,))
        (grad,) = tf.gradients(tf.reduce_sum(tf.gather(params, indices)), [params])
        assert isinstance(grad, tf.IndexedSlices)  # TF's: densified, the repeats add
        got = run(tf.convert_to_tensor(grad), {params: np.ones((4, 2)), indices: [3, 0, 3, 3, 1]}, plan_memory)
        np.testing.assert_array_equal(got, [[1, 1], [1, 1], [0, 0], [3, 3]])


def test_gather_bad_indices():
    params = tf.placeholder(shape=(4, 2))
    with pytest.raises(TypeError, match="gather's indices must be an integer"):
        tf.gather(params, tf.constant([0.0, 1.0]))  # as TF: where the op is made
    out = tf.gather(params, [1, 4], name="oob")
    with pytest.raises(tf.TinyflowError, match="oob"):
        run(out, {params: np.zeros((4, 2))})


@pytest.mark.parametrize("kwargs, expected", [
    ({}, [[0, 1, 0], [0, 0, 0], [1, 0, 0]]),
    ({"axis": 0}, [[0, 0, 1], [1, 0, 0], [0, 0, 0]]),
    ({"on_value": 5, "off_value": -1}, [[-1, 5, -1], [-1, -1, -1], [5, -1, -1]]),
    ({"on_value": 2.5, "dtype": tf.float64}, [[0, 2.5, 0], [0, 0, 0], [2.5, 0, 0]]),
    ({"dtype": tf.bool}, [[False, True, False], [False] * 3, [True, False, False]])])
def test_one_hot(kwargs, expected, plan_memory):
    indices = tf.placeholder(tf.int64, shape=(3,))
    out = tf.one_hot(indices, 3, **kwargs)
    got = run(out, {indices: [1, -1, 0]}, plan_memory)
    dtype = kwargs.get("dtype", tf.int32 if "on_value" in kwargs else tf.float32)
    assert got.dtype == tf.as_dtype(dtype).as_numpy_dtype
    np.testing.assert_array_equal(got, expected)
    assert out.dtype == dtype


def test_one_hot_2d_and_refuses_floats():
    got = run(tf.one_hot([[0, 2], [1, 1]], 3, axis=1))
    np.testing.assert_array_equal(got, np.eye(3)[[[0, 2], [1, 1]]].transpose(0, 2, 1))
    with pytest.raises(TypeError, match="one_hot's indices must be an integer"):
        tf.one_hot(tf.constant([0.0, 1.0]), 2)


def test_shape_size_rank_static_and_at_bind_time(plan_memory):
    x = tf.placeholder(shape=(None, 3, 2))
    static = tf.placeholder(shape=(4, 5))
    assert tf.shape(static).op.type == "Const" and tf.shape(x).op.type == "Shape"
    feeds = {x: np.zeros((7, 3, 2))}
    got = run([tf.shape(x), tf.size(x), tf.rank(x), tf.shape(static), tf.size(static),
               tf.rank(static), tf.shape(x, out_type=tf.int64), tf.rank(x[0, 0, 0])],
              {**feeds, static: np.zeros((4, 5))}, plan_memory)
    expected = [[7, 3, 2], 42, 3, [4, 5], 20, 2, [7, 3, 2], 0]
    for value, want in zip(got, expected):
        np.testing.assert_array_equal(value, want)
    assert [np.asarray(v).dtype for v in got] == [np.int32] * 6 + [np.int64, np.int32]


def test_rank_of_an_unknown_rank():
    x = tf.placeholder()
    got = run([tf.rank(x), tf.shape(x), tf.size(x)], {x: np.zeros((2, 5))})
    assert got[0] == 2 and list(got[1]) == [2, 5] and got[2] == 10


def test_shape_tensors_known_at_bind_time(plan_memory):
    x, y = tf.placeholder(shape=(None, 6)), tf.placeholder(shape=(None, 2, 3))
    feeds = {x: np.arange(24, dtype=np.float32).reshape(4, 6), y: np.zeros((4, 2, 3))}
    reshaped = tf.reshape(x, tf.shape(y))
    filled = [tf.zeros(tf.shape(y)), tf.ones(tf.shape(x), tf.int32), tf.fill(tf.shape(y), 7)]
    got = run([reshaped, *filled, tf.reshape(x, tf.constant([-1, 3]))], feeds, plan_memory)
    np.testing.assert_array_equal(got[0], feeds[x].reshape(4, 2, 3))
    np.testing.assert_array_equal(got[1], np.zeros((4, 2, 3)))
    assert got[2].dtype == np.int32 and got[2].shape == (4, 6) and (got[2] == 1).all()
    assert got[3].dtype == np.int32 and got[3].shape == (4, 2, 3) and (got[3] == 7).all()
    np.testing.assert_array_equal(got[4], feeds[x].reshape(-1, 3))
    (grad,) = tf.gradients(tf.reduce_sum(reshaped * 3), [x])
    np.testing.assert_array_equal(run(grad, feeds), np.full((4, 6), 3.0))


def test_a_shape_computed_from_shapes_is_folded_at_bind():
    # refused before issue 24; now computed when the session binds the feeds' shapes
    x, y, z = tf.placeholder(shape=(2, 6)), tf.placeholder(shape=(None, 3)), tf.placeholder()
    reshaped = tf.reshape(x, tf.shape(y)[::-1])
    zeros = tf.zeros([tf.size(z), 3])
    with tf.Session() as sess:
        got = sess.run([reshaped, zeros], {x: np.arange(12.0).reshape(2, 6), y: np.ones((4, 3)),
                                           z: np.ones((2, 2))})
    np.testing.assert_array_equal(got[0], np.arange(12.0).reshape(3, 4))
    assert got[1].shape == (4, 3)


@pytest.mark.parametrize("build, dtype, expected", [
    (lambda: tf.zeros([2, 3]), "float32", np.zeros((2, 3))),
    (lambda: tf.zeros((2,), tf.int64), "int64", [0, 0]),
    (lambda: tf.ones(3, dtype=tf.bool), "bool", [True] * 3),
    (lambda: tf.ones([2], tf.float16), "float16", [1, 1]),
    (lambda: tf.zeros_like(tf.constant([1, 2], tf.int32)), "int32", [0, 0]),
    (lambda: tf.ones_like(tf.constant([1.5, 2.0])), "float32", [1, 1]),
    (lambda: tf.zeros_like(tf.constant([1.5, 2.0]), dtype=tf.int64), "int64", [0, 0]),
    (lambda: tf.ones_like([[1, 2]], dtype=tf.float64), "float64", [[1, 1]]),
    (lambda: tf.fill([2, 2], 9), "int32", [[9, 9], [9, 9]]),
    (lambda: tf.fill([3], 0.5), "float32", [0.5] * 3),
    (lambda: tf.fill([1], True), "bool", [True]),
    (lambda: tf.fill([2], np.float64(2.0)), "float64", [2, 2]),
    (lambda: tf.range(5), "int32", np.arange(5)),
    (lambda: tf.range(2, 11, 3), "int32", [2, 5, 8]),
    (lambda: tf.range(5, 0, -2), "int32", [5, 3, 1]),
    (lambda: tf.range(0.0, 1.0, 0.25), "float32", [0, 0.25, 0.5, 0.75]),
    (lambda: tf.range(1, 2.5), "float32", [1, 2]),
    (lambda: tf.range(4, dtype=tf.int64), "int64", [0, 1, 2, 3]),
    (lambda: tf.range(3, 3), "int32", np.zeros(0)),
])
def test_filled_tensors_and_their_dtypes(build, dtype, expected, plan_memory):
    out = build()
    assert out.dtype == dtype
    got = run(out, plan_memory=plan_memory)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, expected)


def test_range_refuses_what_tensorflow_refuses():
    with pytest.raises(ValueError, match="delta"):
        tf.range(0, 5, 0)
    with pytest.raises(ValueError, match="start 5, limit 0"):
        tf.range(5, 0)


def test_int_and_bool_tensors_pass_through_array_ops(plan_memory):
    x = tf.placeholder(tf.int64, shape=(2, 3))
    value = np.arange(6, dtype=np.int64).reshape(2, 3) + 2 ** 40
    outs = [tf.transpose(x), tf.concat([x, x], 0), x[:, ::-1], tf.tile(x, [1, 2]),
            tf.gather(x, [1], axis=1), tf.stack(tf.unstack(x))]
    got = run(outs, {x: value}, plan_memory)
    twins = [value.T, np.concatenate([value, value]), value[:, ::-1], np.tile(value, (1, 2)),
             value[:, [1]], value]
    for g, t, out in zip(got, twins, outs):
        assert g.dtype == np.int64 and out.dtype == tf.int64
        np.testing.assert_array_equal(g, t)
    flags = tf.placeholder(tf.bool, shape=(3,))
    np.testing.assert_array_equal(run(tf.reverse(flags, [0]), {flags: [True, False, False]}),
                                  [False, False, True])


def test_getitem_picks_outputs_of_a_multi_output_symbol():
    x = tf.placeholder(shape=(4,))
    pieces = create_op("split", x, num=2, axis=0)
    first, second = pieces[0], pieces[1]
    assert len(pieces) == 2 and [len(p) for p in pieces] == [1, 1]
    got = run([first, second, first[1]], {x: np.arange(4)})
    np.testing.assert_array_equal(got[0], [0, 1])
    np.testing.assert_array_equal(got[1], [2, 3])
    assert got[2] == 1
    with pytest.raises(TypeError, match="not iterable"):
        iter(x)


def test_static_shapes_of_slices():
    x = tf.placeholder(shape=(None, 4, 5))
    assert x[:, 1:3].get_shape().as_list() == [None, 2, 5]
    assert x[..., None, -1].get_shape().as_list() == [None, 4, 1]
    assert tf.transpose(x).get_shape().as_list() == [5, 4, None]
    assert tf.concat([x, x], -1).get_shape().as_list() == [None, 4, 10]
    assert tf.expand_dims(x, 1).get_shape().as_list() == [None, 1, 4, 5]
    assert len(tf.unstack(x, axis=1)) == 4


@pytest.mark.parametrize("build, message", [
    (lambda x: tf.concat([x, tf.zeros([3, 4])], 0, name="joined"),
     r"op 'concat' \(node 'joined'.*cannot concat shapes \(2, 3\), \(3, 4\) along axis 0"),
    (lambda x: tf.concat([x, x], 2, name="joined"),
     r"op 'concat' \(node 'joined'.*axis 2 is out of range for rank 2.*input shapes \(2, 3\)"),
    (lambda x: tf.stack([x, tf.zeros([3, 2])]), r"op 'stack'.*cannot stack"),
    (lambda x: tf.squeeze(x, [0]), r"op 'squeeze'.*cannot squeeze axis 0: its size is 2"),
    (lambda x: tf.expand_dims(x, 3), r"op 'expand_dims'.*axis 3 is out of range"),
    (lambda x: tf.transpose(x, [0, 0]), r"op 'transpose'.*not a permutation"),
    (lambda x: tf.split(x, 2, axis=1), r"op 'split'.*cannot split an axis of size 3 into 2"),
    (lambda x: tf.split(x, [2, 2], axis=1), r"op 'split'.*sizes \(2, 2\) do not split"),
    (lambda x: tf.unstack(x, num=3), r"op 'unstack'.*cannot unstack 3 tensors"),
    (lambda x: x[2], r"op 'strided_slice'.*index 2 is out of range for an axis of size 2"),
    (lambda x: x[:, :, 0], r"op 'strided_slice'.*has 3 axes, x has 2"),
    (lambda x: x[::0], r"op 'strided_slice'.*step cannot be 0"),
    (lambda x: tf.tile(x, [2]), r"op 'tile'.*multiples \(2,\) must be 2"),
    (lambda x: tf.gather(x, [0], axis=2), r"op 'gather'.*axis 2 is out of range"),
    (lambda x: tf.reverse(x, [1, -1]), r"op 'reverse'.*names an axis twice"),
    (lambda x: tf.one_hot(tf.constant([[1]]), 3, axis=-2), r"op 'one_hot'.*-1 or in \[0, 2\]"),
    (lambda x: tf.reshape(x, [4, -1]), r"op 'reshape'.*cannot reshape \(2, 3\)"),
])
def test_bad_input_names_op_node_and_shapes(build, message):
    x = tf.placeholder(shape=(2, 3))
    with pytest.raises(ShapeError, match=message):
        run(build(x), {x: np.zeros((2, 3))})


def test_bad_arguments_at_build_time():
    x = tf.placeholder(shape=(2, 3))
    with pytest.raises(ValueError, match="cannot infer num"):
        tf.unstack(tf.placeholder())
    with pytest.raises(TypeError, match="only integers, slices"):
        x[0.5]
    with pytest.raises(TypeError, match="index must be an integer tensor"):
        x[tf.constant(0.5)]
    with pytest.raises(TypeError, match="slice bound must be an int32 or int64 tensor"):
        x[:tf.constant(0.5)]
    with pytest.raises(ValueError, match="go outside axis 1"):
        tf.slice(x, [0, 1], [1, 3])
    with pytest.raises(ValueError, match="one entry per axis"):
        tf.slice(x, [0], [1])


# -- placeholder_with_default and sequence_mask (TF 1.15's values, checked there) --------------
def test_placeholder_with_default_is_its_input_unless_fed(plan_memory):
    default = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = tf.placeholder_with_default(default, shape=[None, 3])
    assert x.shape.as_list() == [None, 3] and x.name == "PlaceholderWithDefault:0"
    assert x.dtype == tf.float32
    y = x * 2.0
    assert y.shape.as_list() == [None, 3] and tf.reduce_sum(y, 1).shape.as_list() == [None]
    np.testing.assert_array_equal(run(y, plan_memory=plan_memory), default * 2)
    fed = np.ones((4, 3), np.float32)
    np.testing.assert_array_equal(run(y, {x: fed}, plan_memory), fed * 2)
    np.testing.assert_array_equal(run(x, {x: fed}, plan_memory), fed)


def test_placeholder_with_default_of_a_tensor_and_a_scalar(plan_memory):
    p = tf.placeholder(tf.int32, [3])
    z = tf.placeholder_with_default(tf.constant(2.0), [], name="z")
    total = tf.reduce_sum(tf.cast(p, tf.float32)) * z
    assert z.shape.as_list() == [] and z.name == "z:0"
    assert run(total, {p: [1, 2, 3]}, plan_memory) == 12.0
    assert run(total, {p: [1, 2, 3], z: 0.5}, plan_memory) == 3.0


def test_placeholder_with_default_shape_must_fit_its_input():
    with pytest.raises(ValueError, match="does not fit shape"):
        tf.placeholder_with_default([[1, 2, 3]], shape=[2, 3])
    with pytest.raises(ValueError, match="does not fit shape"):
        tf.placeholder_with_default([1, 2, 3], shape=[None, 3])
    unknown = tf.placeholder_with_default([1, 2], shape=None)
    assert unknown.shape.ndims is None and (unknown + 1).shape.ndims is None


def _sequence_mask_numpy(lengths, maxlen):
    lengths = np.asarray(lengths)
    return np.arange(maxlen) < lengths[..., None]


@pytest.mark.parametrize("lengths, maxlen", [
    ([1, 3, 2], 5), ([1, 3, 2], None), ([[1, 3], [2, 0]], None), ([-1, 7], 3), ([0, 0], None),
])
def test_sequence_mask_against_numpy(lengths, maxlen, plan_memory):
    mask = tf.sequence_mask(lengths, maxlen)
    want = _sequence_mask_numpy(lengths, max(np.ravel(lengths)) if maxlen is None else maxlen)
    assert mask.dtype == tf.bool and mask.shape.as_list() == list(want.shape)
    np.testing.assert_array_equal(run(mask, plan_memory=plan_memory), want)


def test_sequence_mask_of_fed_lengths_dtype_and_tensor_maxlen(plan_memory):
    lengths = tf.placeholder(tf.int32, [None])
    mask = tf.sequence_mask(lengths, 4, dtype=tf.float32, name="mask")
    assert mask.dtype == tf.float32 and mask.shape.as_list() == [None, 4]
    assert mask.name.startswith("mask/")
    np.testing.assert_array_equal(run(mask, {lengths: [0, 4, 2]}, plan_memory),
                                  _sequence_mask_numpy([0, 4, 2], 4).astype(np.float32))
    wide = tf.sequence_mask(tf.constant([1, 2], tf.int64), tf.constant(3))
    np.testing.assert_array_equal(run(wide, plan_memory=plan_memory),
                                  _sequence_mask_numpy([1, 2], 3))


def test_sequence_mask_of_fed_lengths_has_their_max_columns():
    lengths = tf.placeholder(tf.int32, [None])
    with tf.Session() as sess:  # TF's: max(lengths) columns (tests/test_runtime_shapes.py)
        assert sess.run(tf.sequence_mask(lengths), {lengths: [0, 2]}).tolist() == [
            [False, False], [True, True]]


def test_slice_at_a_begin_known_only_when_the_graph_runs():
    # a random crop's pattern (tf.slice(image, begin, size) after
    # sample_distorted_bounding_box): the size known now, so the static shape is (TF's too)
    from tinyflow.lua_ops.runtime import LuaOpError
    values = np.arange(20, dtype=np.float32).reshape(4, 5)
    x = tf.constant(values)
    begin = tf.placeholder(tf.int32, [2])
    block = tf.slice(x, begin, [2, 3])
    assert block.get_shape().as_list() == [2, 3]
    grad = tf.gradients(tf.reduce_sum(block * 2.0), x)[0]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(block, {begin: [1, 1]}), values[1:3, 1:4])
        want = np.zeros((4, 5), np.float32)
        want[1:3, 2:5] = 2.0
        np.testing.assert_array_equal(sess.run(grad, {begin: [1, 2]}), want)
        np.testing.assert_array_equal(sess.run(tf.slice(x, [tf.constant(1), 2], [1, 2])),
                                      values[1:2, 2:4])
        with pytest.raises(LuaOpError, match="gather"):  # past the end: an error, no values
            sess.run(block, {begin: [3, 1]})
        rest = tf.slice(x, begin, [-1, 2])  # -1: to the end from a begin fed (TF: (?, 2))
        assert rest.get_shape().as_list() == [None, 2]
        np.testing.assert_array_equal(sess.run(rest, {begin: [1, 1]}), values[1:, 1:3])
        np.testing.assert_array_equal(sess.run(rest, {begin: [3, 0]}), values[3:, 0:2])


def test_lists_holding_tensors_are_packed_as_tensorflow_converts_them(plan_memory):
    i = tf.constant(3, tf.int64)
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    packed = tf.convert_to_tensor([i, -i])
    nested = tf.convert_to_tensor([[1, i]])  # numbers take the first tensor's dtype
    total = tf.reduce_sum([i, 2 * i])
    scaled = tf.multiply(x, [tf.constant(2.0), 3.0])
    grid = tf.stack([[x[0, 0], 1.0], [2.0, x[1, 1]]])
    # real TF 1.15: packed:0 (2,) int64, (1, 2) int64, () int64, (2, 2), (2, 2)
    assert packed.name == "packed:0" and packed.dtype == tf.int64
    assert packed.get_shape().as_list() == [2] and nested.get_shape().as_list() == [1, 2]
    assert nested.dtype == tf.int64 and total.dtype == tf.int64
    assert scaled.get_shape().as_list() == [2, 2] and grid.get_shape().as_list() == [2, 2]
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run([packed, nested, total, scaled, grid])
    assert got[0].tolist() == [3, -3] and got[1].tolist() == [[1, 3]] and got[2] == 9
    np.testing.assert_array_equal(got[3], [[2.0, 6.0], [6.0, 12.0]])
    np.testing.assert_array_equal(got[4], [[1.0, 1.0], [2.0, 4.0]])
    with pytest.raises(TypeError, match="Cannot convert a list containing a tensor of dtype "
                                        "float32 to int64"):
        tf.convert_to_tensor([i, tf.constant(1.0)])
