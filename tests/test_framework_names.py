"""TF 1.15's small framework functions (tinyflow/frontend/framework_names.py): values as real TF
gives them (tf.compat.v1 in /work/tfvenv, the same calls; written down here, and where TinyFlow
knows more, said so)."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_tensors_and_static_values():
    c = tf.constant([1, 2])
    assert tf.is_tensor(c) and tf.is_tensor(tf.Variable(1.0)) and not tf.is_tensor(3)
    assert not tf.is_tensor(tf.no_op())
    assert tf.get_static_value(c).tolist() == [1, 2]
    # real TF folds constants and a few shape ops only (None here); TinyFlow folds what its
    # ops' FFoldValue rules can: the same value a run gives, in the tensor's dtype
    folded = tf.get_static_value(c * 2)
    assert folded.dtype == np.int32 and folded.tolist() == [2, 4]
    x = tf.placeholder(tf.float32, [None, 3])
    assert tf.get_static_value(x) is None and tf.get_static_value(tf.shape(x)) is None
    assert tf.dimension_value(x.shape[1]) == 3 and tf.dimension_value(x.shape[0]) is None
    assert tf.dimension_value(5) == 5
    assert tf.dimension_at_index(x.shape, 1).value == 3
    assert tf.dimension_at_index(tf.TensorShape(None), 4).value is None


def test_broadcast_shapes():
    # real TF: (?, 4, 3); [2 4 3]; incompatible: ValueError / InvalidArgumentError
    shape = tf.broadcast_static_shape(tf.TensorShape([None, 1, 3]), tf.TensorShape([4, 1]))
    assert shape.as_list() == [None, 4, 3]
    with pytest.raises(ValueError, match="Incompatible shapes"):
        tf.broadcast_static_shape(tf.TensorShape([2, 3]), tf.TensorShape([4]))
    with tf.Session() as sess:
        assert sess.run(tf.broadcast_dynamic_shape([2, 1, 3], [4, 1])).tolist() == [2, 4, 3]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
            sess.run(tf.broadcast_dynamic_shape([2, 3], [4]))


def test_tables_indexed_slices_devices_and_switches():
    with tf.Session() as sess:
        assert sess.run(tf.tables_initializer()) is None  # no tables: a no-op, as TF's
    assert tf.initialize_all_tables is tf.tables_initializer
    slices = tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 2]), [4, 3])
    assert tf.convert_to_tensor_or_indexed_slices(slices) is slices
    assert tf.convert_to_tensor_or_indexed_slices([1.0]).dtype == tf.float32
    w = tf.Variable(np.ones((3, 2), np.float32))
    grad = tf.gradients(tf.reduce_sum(tf.gather(w, [0, 2])), w)[0]
    assert isinstance(grad, tf.IndexedSlices)  # a gather's gradient, as TF's
    assert tf.train.replica_device_setter() is None  # no ps tasks: TF's None
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        v = tf.Variable(1.0)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(v) == 1.0
    assert tf.executing_eagerly_outside_functions() is False
    assert tf.disable_v2_tensorshape() is None


def test_module_names_tf_1_programs_reach():
    # tf.manip, tf.summary.FileWriterCache, tf.train.queue_runner, tf.initializers'
    # tables_initializer: TF 1.15's names for what TinyFlow has under others
    assert tf.manip.roll is tf.roll and tf.manip.gather_nd is tf.gather_nd
    with pytest.raises(AttributeError, match="tf.manip.foo is not supported"):
        tf.manip.foo  # noqa: B018
    assert tf.summary.FileWriterCache.get is not None
    assert tf.train.queue_runner.QueueRunner is tf.train.QueueRunner
    assert tf.initializers.tables_initializer is tf.tables_initializer


@pytest.mark.parametrize("name, want", [
    # values and gradients of sum(f(x, y)) as real TF prints them (tf.compat.v1, the same x, y)
    ("xdivy", [[0, 0, 4, -3], [0, 0, 2, -1], [0, 0, -8, -3]]),
    ("xlogy", [[0, 0, -1.3862944, np.nan], [0, 0, -0.6931472, np.nan], [0, 0, 4, -3]]),
    ("xlog1py", [[0, 0, 0.8109302, -np.inf], [0, 0, 0.4054651, -np.inf],
                 [0, 0, 1.3333334, np.inf]])])
def test_x_times_functions_of_y_zero_where_x_is(name, want):
    x, y = tf.constant([0.0, 0.0, 2.0, 3.0]), tf.constant([0.0, 2.0, 0.5, -1.0])
    out = getattr(tf.math, name)(x, y)
    with tf.Session() as sess:
        got = sess.run([out, *tf.gradients(tf.reduce_sum(out), [x, y])])
    for value, expected in zip(got, want):
        np.testing.assert_allclose(value, expected, rtol=1e-6)


def test_range_to_a_size_known_when_the_graph_is_bound():
    # TF-1's batch-indices idiom: tf.range(tf.shape(x)[0]) (the last output of each sequence)
    out = tf.placeholder(tf.float32, [None, 6, 4])
    lengths = tf.placeholder(tf.int32, [None])
    rows = tf.range(tf.shape(out)[0])
    last = tf.gather_nd(out, tf.stack([rows, lengths - 1], 1))
    odd = tf.range(1, tf.shape(out)[0] * 2, 2)
    values = np.arange(48.0, dtype=np.float32).reshape(2, 6, 4)
    with tf.Session() as sess:
        got_rows, got_last, got_odd = sess.run([rows, last, odd], {out: values, lengths: [6, 2]})
        assert got_rows.tolist() == [0, 1] and got_odd.tolist() == [1, 3]
        np.testing.assert_array_equal(got_last, values[[0, 1], [5, 1]])
        assert sess.run(tf.range(tf.constant(4), delta=2)).tolist() == [0, 2]
        backwards = tf.range(0, tf.shape(out)[0] - 3, 1)  # a limit below start: TF's error
        with pytest.raises(tf.errors.InvalidArgumentError, match="wrong side of start"):
            sess.run(backwards, {out: values})
        fed = tf.placeholder(tf.int32, [])
        assert sess.run(tf.range(fed), {fed: 3}).tolist() == [0, 1, 2]  # bound in stages
        assert sess.run(tf.range(fed), {fed: 1}).tolist() == [0]


def test_names_are_unique_ignoring_case():
    # real TF 1.15's Graph.unique_name compares names lower-cased and keeps the case asked for;
    # 2.21's compat.v1 printed: Foo:0 foo_1:0 Scope/x:0 scope_1/x:0 W:0 w_1:0 layer/k_1:0
    v = tf.constant([1.0, 2.0])
    a, b = tf.identity(v, name="Foo"), tf.identity(v, name="foo")
    with tf.name_scope("Scope"):
        c = tf.identity(v, name="x")
    with tf.name_scope("scope"):
        d = tf.identity(v, name="x")
    e, f = tf.Variable(1.0, name="W"), tf.Variable(1.0, name="w")
    with tf.variable_scope("Layer"):
        tf.get_variable("k", [1])
    with tf.variable_scope("layer"):
        h = tf.get_variable("k", [1])
    assert [t.name for t in (a, b, c, d, e, f, h)] == [
        "Foo:0", "foo_1:0", "Scope/x:0", "scope_1/x:0", "W:0", "w_1:0", "layer/k_1:0"]
    g = tf.identity(v, name="FOO_1")  # foo_1 is taken: FOO_1_1, as TF
    assert g.name == "FOO_1_1:0"


def test_graph_collection_methods():
    # tf.Graph's collection API as TF 1.15 (2.21's compat.v1 gave the same for this program)
    g = tf.Graph()
    with g.as_default():
        a = tf.Variable(1.0, name="layer1/w")
        tf.Variable(2.0, name="layer2/w")
        g.add_to_collection("mine", a)
        g.get_collection_ref("mine").append(3)  # the list itself
        assert g.get_collection("mine") == [a, 3]
        assert [v.name for v in g.get_collection("variables", scope="layer1")] == ["layer1/w:0"]
        assert g.get_collection("mine", scope="layer") == [a]  # items without a name: left out
        assert "mine" in g.get_all_collection_keys()
        g.clear_collection("mine")
        assert g.get_collection("mine") == [] and "mine" not in g.get_all_collection_keys()
        assert [v.name for v in tf.get_collection("trainable_variables", "layer2")] == [
            "layer2/w:0"]


def test_colocate_with_and_container_are_accepted():
    # one device and per-session resources: both scopes change nothing, as TF with one device
    with tf.colocate_with(tf.constant(1.0)), tf.container("experiment"):
        v = tf.Variable(2.0, name="v")
    assert v.name == "v:0"
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(v) == 2.0


def test_graph_name_scope_and_add_to_collections():
    # real TF (2.21's tf.compat.v1) printed '', 'outer/inner', 'outer/vs' and 1 1 1
    g = tf.get_default_graph()
    assert g.get_name_scope() == ""
    with tf.name_scope("outer"):
        with tf.name_scope("inner"):
            assert g.get_name_scope() == "outer/inner"
        with tf.variable_scope("vs"):
            assert g.get_name_scope() == "outer/vs"
    c = tf.constant(1.0)
    g.add_to_collections(["a", "b", "a"], c)
    g.add_to_collections("z", c)
    assert [len(g.get_collection(k)) for k in "abz"] == [1, 1, 1]
