"""tf.test (TestCase's sessions, evaluate and asserts, the GPU questions) and tf.io.gfile /
tf.gfile's MkDir and Stat, against numpy, torch and what real TensorFlow 1.15 does (noted)."""
import collections
import os
import subprocess
import sys
import textwrap
import unittest

import numpy as np
import pytest
import torch

import tinyflow as tf


def _run_case(case_class, method):
    """The unittest result of one test method of ``case_class`` (setUp and tearDown run)."""
    result = unittest.TestResult()
    case_class(method).run(result)
    return result


class _Case(tf.test.TestCase):
    __test__ = False  # run by the tests below, not by pytest itself
    def test_fresh_graph_and_seed(self):
        # TF's setUp: an empty default graph, its seed 87654321, numpy's seeded alike
        assert tf.get_default_graph().nodes_by_name == {}
        assert tf.get_default_graph().seed == 87654321
        np.testing.assert_array_equal(np.random.rand(3),
                                      np.random.RandomState(87654321).rand(3))
        tf.constant(1.0, name="left_behind")

    def test_sessions(self):
        x = tf.placeholder(tf.float32, [2])
        y = x * 2.0
        with self.cached_session() as sess:
            assert tf.get_default_session() is sess
            self.assertAllClose(sess.run(y, {x: [1.0, 2.0]}), [2.0, 4.0])
            first = sess
        with self.cached_session() as sess:
            assert sess is first and not sess.closed
        with self.test_session() as sess:
            assert sess is first
        with self.session() as sess:
            assert sess is not first
            np.testing.assert_allclose(y.eval({x: [3.0, 4.0]}), [6.0, 8.0])
        assert sess.closed and not first.closed
        self.__class__.sessions.append(first)

    def test_evaluate(self):
        v = tf.Variable([1.0, 2.0], name="v")
        with self.cached_session():
            self.evaluate(tf.global_variables_initializer())
            got = self.evaluate({"a": v * 3.0, "b": [v, tf.constant(7)]})
        np.testing.assert_allclose(got["a"], [3.0, 6.0])
        np.testing.assert_allclose(got["b"][0], [1.0, 2.0])
        assert got["b"][1] == 7
        # without a default session: test_session()'s
        assert self.evaluate(tf.constant([5, 6])).tolist() == [5, 6]

    def test_asserts_with_tensors(self):
        t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        self.assertAllClose(t, np.array([[1.0, 2.0], [3.0, 4.0 + 1e-7]]))
        self.assertAllEqual(tf.constant([1, 2]), tf.constant([1, 2]))
        self.assertShapeEqual(np.zeros((2, 2)), t)
        self.assertAllInRange(t, 1.0, 4.0)


_Case.sessions = []


@pytest.mark.parametrize("method", ["test_fresh_graph_and_seed", "test_sessions",
                                    "test_evaluate", "test_asserts_with_tensors"])
def test_test_case_methods(method):
    result = _run_case(_Case, method)
    assert result.wasSuccessful(), result.failures + result.errors
    assert tf.get_default_session() is None  # nothing left as the default


def test_cached_session_closed_after_the_test():
    _Case.sessions.clear()
    assert _run_case(_Case, "test_sessions").wasSuccessful()
    assert [s.closed for s in _Case.sessions] == [True]  # tearDown closed it


def test_test_session_is_not_a_test():
    result = _run_case(_Case, "test_session")  # TF's setUp skips the method's own name
    assert len(result.skipped) == 1


class _Asserts(tf.test.TestCase):
    __test__ = False
    def runTest(self):
        pass


@pytest.fixture
def case():
    test = _Asserts()
    test.setUp()
    yield test
    test.tearDown()


def test_assert_all_close_tolerance_is_atol_plus_rtol_b(case):
    # numpy's and TF's rule: |a - b| <= atol + rtol * |b|
    case.assertAllClose([1.0, 100.0], [1.0, 100.0 + 9e-5], rtol=1e-6, atol=0.0 + 1e-6 + 8e-7)
    with pytest.raises(AssertionError, match="not close where"):
        case.assertAllClose([1.0, 100.0], [1.0, 100.001])
    with pytest.raises(AssertionError, match="Shape mismatch"):
        case.assertAllClose(np.zeros(2), np.zeros(3))
    case.assertAllClose(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))


def test_assert_all_close_nested(case):
    point = collections.namedtuple("Point", "x y")
    case.assertAllClose({"a": [1.0, (2.0, 3.0)], "p": point(1, [2, 3])},
                        {"a": [1.0, (2.0, 3.0)], "p": point(1, [2, 3])})
    case.assertAllClose([np.zeros(2), np.ones(3)], [np.zeros(2), np.ones(3)])  # ragged: item-wise
    with pytest.raises(AssertionError, match=r"a\[a\]\[1\] is different"):
        case.assertAllClose({"a": [np.zeros(2), np.ones(3)]}, {"a": [np.zeros(2), np.zeros(3)]})
    with pytest.raises(ValueError, match="Can't compare dict to non-dict"):
        case.assertAllClose({"a": 1}, [1])
    with pytest.raises(ValueError, match="Mismatched length"):
        case.assertAllClose([np.zeros(2), np.ones(3)], [np.zeros(2)])


def test_assert_all_equal(case):
    case.assertAllEqual([[1, 2]], np.array([[1, 2]]))
    case.assertAllEqual(np.array([np.nan]), np.array([np.nan]))
    with pytest.raises(AssertionError, match="not equal where"):
        case.assertAllEqual([1, 2, 3], [1, 5, 3])
    with pytest.raises(AssertionError, match="Shape mismatch"):
        case.assertAllEqual([1, 2], [[1, 2]])


def test_assert_all_in_range(case):
    case.assertAllInRange([0.0, 1.0], 0.0, 1.0)
    with pytest.raises(AssertionError, match=r"1 of the 2 element\(s\) are outside the range "
                                             r"\(0.0, 1.0\]"):
        case.assertAllInRange([0.0, 1.0], 0.0, 1.0, open_lower_bound=True)
    with pytest.raises(AssertionError, match="NaN"):
        case.assertAllInRange([np.nan], 0.0, 1.0)
    with pytest.raises(AssertionError, match="ordered numeric type"):
        case.assertAllInRange(["a"], 0, 1)


def test_assert_shape_equal_and_others(case):
    x = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(AssertionError):
        case.assertShapeEqual(np.zeros((2, 3)), x)  # [None, 3] is not (2, 3), as in TF
    with pytest.raises(TypeError, match="np_array"):
        case.assertShapeEqual([1, 2], x)
    case.assertNear(1.0, 1.05, 0.1)
    case.assertArrayNear([1.0, 2.0], [1.01, 1.99], 0.02)
    case.assertNotAllClose([1.0], [2.0])
    case.assertAllGreater([2, 3], 1)
    case.assertAllLess([2, 3], 4)
    case.assertAllInSet([1, 2, 1], {1, 2})
    case.assertAllCloseAccordingToType(np.float16([1.0]), np.float16([1.0005]))
    with pytest.raises(AssertionError):
        case.assertAllCloseAccordingToType(np.float32([1.0]), np.float32([1.0005]))


def test_assert_raises_op_error(case):
    x = tf.placeholder(tf.float32, [None])
    y = tf.reshape(x, [2, 2])
    with case.session() as sess:
        with case.assertRaisesOpError("reshape"):
            sess.run(y, {x: [1.0, 2.0, 3.0]})
        with pytest.raises(AssertionError, match="not raised"), \
                case.assertRaisesOpError("anything"):
            sess.run(y, {x: [1.0, 2.0, 3.0, 4.0]})


def test_gpu_questions_are_torchs():
    assert tf.test.is_gpu_available() == torch.cuda.is_available()
    assert tf.test.is_built_with_cuda() == (torch.version.cuda is not None)
    assert tf.test.gpu_device_name() == ("/device:GPU:0" if torch.cuda.is_available() else "")
    assert tf.test.is_gpu_available(min_cuda_compute_capability=(99, 0)) is False
    assert os.path.isdir(tf.test.get_temp_dir())


def test_compute_gradient_against_numpy(case):
    """TF 1.15's Jacobian layout: [x size, y size]; d(x * x + 3x)/dx = diag(2x + 3) and
    d(a @ b)_ij / d a_kl = [i == k] b_lj, d(a @ b)_ij / d b_kl = [j == l] a_ik."""
    x = tf.placeholder(tf.float32, [2, 3])
    at = np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32)
    with case.cached_session():
        theoretical, numerical = tf.test.compute_gradient(x, [2, 3], x * x + 3.0 * x, [2, 3],
                                                          x_init_value=at)
        assert tf.test.compute_gradient_error(x, [2, 3], tf.tanh(x), [2, 3]) < 5e-3
        av, bv = at, np.arange(6, dtype=np.float32).reshape(3, 2) / 5
        a, b = tf.constant(av), tf.constant(bv)  # each fed in turn, the other its value (TF)
        (ta, na), (tb, nb) = tf.test.compute_gradient([a, b], [[2, 3], [3, 2]],
                                                      tf.matmul(a, b), [2, 2], [av, bv])
        unreached, _ = tf.test.compute_gradient(tf.placeholder(tf.float32, [2]), [2],
                                                tf.constant([1.0]), [1])
    np.testing.assert_allclose(theoretical, np.diag((2 * at + 3).ravel()), rtol=1e-6)
    np.testing.assert_allclose(numerical, theoretical, atol=2e-3)
    want_a = np.einsum("ik,lj->klij", np.eye(2), bv).reshape(6, 4)
    want_b = np.einsum("jl,ik->klij", np.eye(2), av).reshape(6, 4)
    for got, want in ((ta, want_a), (na, want_a), (tb, want_b), (nb, want_b)):
        np.testing.assert_allclose(got, want, atol=2e-3)
    assert not unreached.any()
    with pytest.raises(ValueError, match="runs in the default session"):
        tf.test.compute_gradient(x, [2, 3], x * 2.0, [2, 3])


def test_unsupported_test_name():
    with pytest.raises(AttributeError, match="tf.test.create_local_cluster is not supported"):
        tf.test.create_local_cluster  # noqa: B018


def test_main_runs_the_module_tests(tmp_path):
    program = tmp_path / "prog_test.py"
    program.write_text(textwrap.dedent("""
        import tinyflow as tf

        class AddTest(tf.test.TestCase):
            def testAdd(self):
                with self.cached_session():
                    self.assertAllEqual(tf.add(2, 3), 5)

            def testFails(self):
                self.assertAllEqual([1], [2])

        if __name__ == "__main__":
            tf.test.main()
    """))
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert done.returncode == 1
    # unittest finds test_session too, and setUp skips it: TF's runs say the same
    assert "Ran 3 tests" in done.stderr and "failures=1, skipped=1" in done.stderr


# -- tf.io.gfile, tf.gfile.MkDir / Stat -----------------------------------------------------
def test_io_gfile(tmp_path):
    gfile = tf.io.gfile
    root = str(tmp_path / "a")
    gfile.mkdir(root)
    gfile.mkdir(root)  # TF: an existing directory is fine
    with pytest.raises(tf.errors.NotFoundError):
        gfile.mkdir(str(tmp_path / "x" / "y"))  # its parent missing, as TF's
    path = os.path.join(root, "f")
    with gfile.GFile(path, "w") as f:
        f.write("hello\nworld\n")
    stat = gfile.stat(path)
    assert (stat.length, stat.is_directory) == (12, False)
    assert stat.mtime_nsec == int(os.stat(path).st_mtime) * 10**9
    assert gfile.stat(root).is_directory
    with pytest.raises(tf.errors.NotFoundError, match="nope"):
        gfile.stat(str(tmp_path / "nope"))
    f = gfile.GFile(path)
    assert f.size() == 12 and f.readline() == "hello\n" and f.tell() == 6
    f.seek(1)
    assert f.read(2) == "el"
    f.close()
    with gfile.GFile(path, "rb") as f:
        assert list(f) == [b"hello\n", b"world\n"]
    assert gfile.exists(path) and gfile.isdir(root) and gfile.listdir(root) == ["f"]
    assert gfile.glob(os.path.join(root, "*")) == [path]
    gfile.copy(path, path + "2")
    with pytest.raises(tf.errors.AlreadyExistsError):
        gfile.copy(path, path + "2")
    gfile.rename(path + "2", path + "3")
    gfile.remove(path + "3")
    assert [(d, sorted(s), sorted(f)) for d, s, f in gfile.walk(str(tmp_path))] == [
        (str(tmp_path), ["a"], []), (root, [], ["f"])]
    gfile.rmtree(root)
    assert not gfile.exists(root)
    with pytest.raises(AttributeError, match="tf.io.gfile.join is not supported"):
        gfile.join  # noqa: B018 - TF 2's, not 1.15's


def test_gfile_mkdir_and_stat_are_tf_gfiles(tmp_path):
    assert tf.gfile.MkDir is tf.io.gfile.mkdir and tf.gfile.Stat is tf.io.gfile.stat
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.GFile(str(tmp_path / "missing"))
    assert tf.io.decode_raw is tf.decode_raw
