"""``tf.test``: TensorFlow 1.15's test case and helpers for programs' own tests.

``tf.test.TestCase`` is a ``unittest.TestCase`` that starts every test on a fresh default graph
with TF's default seeds (graph seed, ``random`` and ``numpy.random`` all 87654321), gives
sessions on that graph (``self.session()``, ``self.cached_session()``, ``self.test_session()``),
evaluates tensors (``self.evaluate``) and compares values as TF's asserts do: nested lists,
tuples, dicts and namedtuples of arrays or tensors, the tolerance ``atol + rtol * |b|``, NaNs
equal to NaNs.  ``tf.test.is_gpu_available()`` and ``is_built_with_cuda()`` say what the
installed PyTorch can do (TinyFlow's GPU is torch's CUDA device).
"""
from __future__ import annotations

import collections.abc
import contextlib
import random
import re
import tempfile
import unittest

import numpy as np

from ..nnvm.errors import OpError, TinyflowError
from ..nnvm.symbol import Symbol, current_context, get_default_session
from ..nnvm.symbol import reset_default_graph as _reset_default_graph
from .api import gradients, placeholder
from .unsupported import unsupported

__all__ = ["TestCase", "compute_gradient", "compute_gradient_error", "get_temp_dir",
           "gpu_device_name", "is_built_with_cuda", "is_gpu_available", "main"]

DEFAULT_GRAPH_SEED = 87654321  # TF's random_seed.DEFAULT_GRAPH_SEED


def is_built_with_cuda() -> bool:
    """Whether the installed PyTorch was built with CUDA (the GPU TinyFlow runs on)."""
    import torch  # deferred: only this question needs torch

    return torch.version.cuda is not None


def is_gpu_available(cuda_only: bool = False, min_cuda_compute_capability=None) -> bool:
    """Whether a CUDA GPU can be used now (of at least ``min_cuda_compute_capability``, a
    ``(major, minor)`` pair, when given)."""
    import torch  # deferred: only this question needs torch

    if not torch.cuda.is_available():
        return False
    if min_cuda_compute_capability is None:
        return True
    wanted = tuple(min_cuda_compute_capability)
    return any(torch.cuda.get_device_capability(i) >= wanted
               for i in range(torch.cuda.device_count()))


def gpu_device_name() -> str:
    """``"/device:GPU:0"`` when a GPU is available, else ``""`` (TF's answers)."""
    return "/device:GPU:0" if is_gpu_available() else ""


def get_temp_dir() -> str:
    """A temporary directory for this process's tests (made once, the same on every call)."""
    return _TEMP_DIR.path()


class _TempDir:
    """The one temporary directory of ``tf.test.get_temp_dir`` (made when first asked)."""

    def __init__(self) -> None:
        self._path = None

    def path(self) -> str:
        if self._path is None:
            self._path = tempfile.mkdtemp(prefix="tinyflow_test_")
        return self._path


_TEMP_DIR = _TempDir()


def main(argv=None):
    """Run the tests of ``__main__`` (``if __name__ == "__main__": tf.test.main()``)."""
    return unittest.main(argv=argv)


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                     extra_feed_dict=None):
    """TF 1.15's ``tf.test.compute_gradient``: ``(theoretical, numerical)`` Jacobians of ``y``
    with respect to ``x`` (a tensor, or a list of them: a list of pairs), each ``[x size,
    y size]``, in the default session: the theoretical one column by column from the
    gradient of ``y`` against a one-hot head, the numerical one by central differences of
    ``delta``.  ``x`` takes ``x_init_value`` (default uniform [0, 1) samples), after
    ``init_targets`` ran; an ``x`` the gradient does not reach has a zero Jacobian."""
    sess = get_default_session()
    if sess is None:
        raise ValueError("tf.test.compute_gradient runs in the default session: call it "
                         "inside 'with self.cached_session():' (or 'with sess.as_default():')")
    xs, shapes, inits = ((x, x_shape, x_init_value) if isinstance(x, list) else
                         ([x], [x_shape], [x_init_value]))
    heads = [placeholder(y.dtype, list(y_shape)) for _ in xs]
    dxs = [gradients(y, xi, grad_ys=dy)[0] for xi, dy in zip(xs, heads)]
    for init in init_targets or ():
        sess.run(init)
    pairs = [_jacobians(sess, xi, tuple(shape), y, tuple(y_shape), dx, dy, init, delta,
                        dict(extra_feed_dict or {}))
             for xi, shape, dx, dy, init in zip(xs, shapes, dxs, heads, inits or [None] * len(xs))]
    return pairs if isinstance(x, list) else pairs[0]


def _jacobians(sess, x, x_shape, y, y_shape, dx, dy, x_data, delta, feeds) -> tuple:
    dtype = x.dtype.as_numpy_dtype
    if x_data is None:
        x_data = np.random.random_sample(x_shape).astype(dtype)
    x_data = np.asarray(x_data, dtype=dtype)
    x_size, y_size = int(np.prod(x_shape)), int(np.prod(y_shape))
    theoretical = np.zeros((x_size, y_size), dtype=dtype)
    head = np.zeros(y_shape, dtype=y.dtype.as_numpy_dtype)
    for col in range(y_size if dx is not None else 0):
        head.flat[col] = 1
        theoretical[:, col] = np.ravel(sess.run(dx, {**feeds, x: x_data, dy: head}))
        head.flat[col] = 0
    numerical = np.zeros((x_size, y_size), dtype=dtype)
    scale = np.asarray(2 * delta, dtype=y.dtype.as_numpy_dtype)[()]
    for row in range(x_size):
        moved = [x_data.copy(), x_data.copy()]
        moved[0].flat[row] += delta
        moved[1].flat[row] -= delta
        ends = [np.asarray(sess.run(y, {**feeds, x: m})) for m in moved]
        numerical[row, :] = ((ends[0] - ends[1]) / scale).ravel()
    return theoretical, numerical


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                           init_targets=None, extra_feed_dict=None) -> float:
    """The largest ``|theoretical - numerical|`` of :func:`compute_gradient`'s Jacobians."""
    found = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                             extra_feed_dict)
    pairs = found if isinstance(found, list) else [found]
    return max((float(np.max(np.abs(t - n))) for t, n in pairs if t.size), default=0.0)


def _where(condition):
    return np.where(condition) if np.ndim(condition) else ()


class TestCase(unittest.TestCase):
    """TF's ``tf.test.TestCase``: a fresh default graph per test, sessions on it, and TF's
    asserts on arrays, tensors and nested structures of them."""

    def setUp(self) -> None:
        super().setUp()
        self._cached_session = None
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        _reset_default_graph()
        current_context().seed = DEFAULT_GRAPH_SEED
        if self.id().endswith(".test_session"):
            self.skipTest("Not a test.")

    def tearDown(self) -> None:
        self._close_cached()
        super().tearDown()

    def get_temp_dir(self) -> str:
        """A temporary directory for this test case's files."""
        return get_temp_dir()

    # -- sessions ---------------------------------------------------------------------------
    def _make_session(self, graph, config, use_gpu, force_gpu):
        from ..session.session import Session  # deferred: torch loads when a test runs a graph

        if config is None:
            config = "gpu" if force_gpu or (use_gpu and is_gpu_available()) else "cpu"
        return Session(config, graph=graph if graph is not None else current_context())

    @contextlib.contextmanager
    def _as_default(self, sess):
        with sess.graph.as_default(), sess.as_default():
            yield sess

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """A new session on ``graph`` (default: the default graph), the default session and
        graph inside the block, closed at its end."""
        sess = self._make_session(graph, config, use_gpu, force_gpu)
        try:
            with self._as_default(sess):
                yield sess
        finally:
            sess.close()

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """The same session at every call in one test (made at the first, on ``graph`` or the
        default graph), the default session inside the block, closed when the test ends."""
        cached = self._cached_session
        wanted = graph if graph is not None else current_context()
        if cached is None or cached.closed or cached.graph is not wanted:
            self._close_cached()
            cached = self._cached_session = self._make_session(graph, config, use_gpu,
                                                               force_gpu)
        with self._as_default(cached):
            yield cached

    def test_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """``cached_session`` without a graph, ``session`` with one (TF's deprecated name)."""
        if graph is None:
            return self.cached_session(None, config, use_gpu, force_gpu)
        return self.session(graph, config, use_gpu, force_gpu)

    def _close_cached(self) -> None:
        cached, self._cached_session = getattr(self, "_cached_session", None), None
        if cached is not None:
            cached.close()

    def evaluate(self, tensors):
        """The values of ``tensors`` (a tensor or a nested structure of them), run in the
        default session, or in ``test_session()`` when there is none."""
        sess = get_default_session()
        if sess is not None:
            return sess.run(tensors)
        with self.test_session() as sess:
            return sess.run(tensors)

    # -- asserts ----------------------------------------------------------------------------
    def _GetNdArray(self, a):
        if isinstance(a, Symbol):
            a = self.evaluate(a)
        return a if isinstance(a, np.ndarray) else np.array(a)

    def _evaluate_if_both_tensors(self, a, b):
        if isinstance(a, Symbol) and isinstance(b, Symbol):
            return self.evaluate((a, b))
        return a, b

    def _assertArrayLikeAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        a, b = self._evaluate_if_both_tensors(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got "
                                           f"{b.shape} with contents {b}.")
        if np.allclose(a, b, rtol=rtol, atol=atol):
            return
        cond = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b), np.isnan(a) != np.isnan(b))
        x, y = (a[_where(cond)], b[_where(cond)]) if a.ndim else (a, b)
        msgs = [msg, f"not close where = {_where(cond)}", f"not close lhs = {x}",
                f"not close rhs = {y}", f"not close dif = {np.abs(x - y)}",
                f"not close tol = {atol + rtol * np.abs(y)}",
                f"dtype = {a.dtype}, shape = {a.shape}"]
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg="\n".join(str(m) for m in msgs if m is not None))

    def _assertAllCloseRecursive(self, a, b, rtol, atol, path, msg):
        where = "".join(f"[{p}]" for p in path)
        msg = msg or ""
        a = a._asdict() if hasattr(a, "_asdict") else a
        b = b._asdict() if hasattr(b, "_asdict") else b
        a_is_dict = isinstance(a, collections.abc.Mapping)
        if a_is_dict != isinstance(b, collections.abc.Mapping):
            raise ValueError(f"Can't compare dict to non-dict, a{where} vs b{where}. {msg}")
        mismatch = f"Mismatched value: a{where} is different from b{where}. {msg}"
        if a_is_dict:
            self.assertCountEqual(a.keys(), b.keys(), msg=f"mismatched keys: a{where} has keys "
                                  f"{a.keys()}, but b{where} has keys {b.keys()}. {msg}")
            for key in a:
                self._assertAllCloseRecursive(a[key], b[key], rtol, atol, [*path, key], msg)
        elif isinstance(a, (list, tuple)):
            try:  # as arrays when they are, else item by item
                self._assertArrayLikeAllClose(a, b, rtol=rtol, atol=atol, msg=mismatch)
            except (ValueError, TypeError):
                if len(a) != len(b):
                    raise ValueError(f"Mismatched length: a{where} has {len(a)} items, but "
                                     f"b{where} has {len(b)} items. {msg}") from None
                for index, (x, y) in enumerate(zip(a, b)):
                    self._assertAllCloseRecursive(x, y, rtol, atol, [*path, index], msg)
        else:
            self._assertArrayLikeAllClose(a, b, rtol=rtol, atol=atol, msg=mismatch)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """``|a - b| <= atol + rtol * |b|`` everywhere, for arrays, tensors and nested lists,
        tuples, dicts and namedtuples of them (NaN matches NaN)."""
        self._assertAllCloseRecursive(a, b, rtol, atol, [], msg)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6,
                                      float_atol=1e-6, half_rtol=1e-3, half_atol=1e-3,
                                      bfloat16_rtol=1e-2, bfloat16_atol=1e-2, msg=None):
        """assertAllClose with the tolerances widened to the arrays' float type's."""
        a, b = self._evaluate_if_both_tensors(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        if np.float32 in (a.dtype, b.dtype) or np.complex64 in (a.dtype, b.dtype):
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.float16 in (a.dtype, b.dtype):
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, **kwargs):
        """Some element of ``a`` is not close to ``b``'s."""
        try:
            self.assertAllClose(a, b, **kwargs)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. {kwargs.get('msg') or ''}")

    def assertAllEqual(self, a, b, msg=None):
        """Same shape and the same values (NaN equal to NaN in float arrays)."""
        msg = msg or ""
        a, b = self._evaluate_if_both_tensors(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got "
                                           f"{b.shape}. Contents: {b!r}. \n{msg}.")
        same = a == b
        if a.dtype.kind == "f":
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if not np.all(same):
            diff = np.logical_not(same)
            x, y = (a[_where(diff)], b[_where(diff)]) if a.ndim else (a, b)
            msgs = [msg, f"not equal where = {_where(diff)}", f"not equal lhs = {x!r}",
                    f"not equal rhs = {y!r}"]
            np.testing.assert_array_equal(a, b, err_msg="\n".join(msgs))

    def assertAllGreater(self, a, comparison_target):
        """Every element of ``a`` is greater than ``comparison_target``."""
        self.assertGreater(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLess(self, a, comparison_target):
        """Every element of ``a`` is less than ``comparison_target``."""
        self.assertLess(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,
                         open_upper_bound=False):
        """Every element within the bounds (closed unless ``open_*``); NaNs and non-numeric
        values fail, as in TF."""
        target = self._GetNdArray(target)
        if not (np.issubdtype(target.dtype, np.floating)
                or np.issubdtype(target.dtype, np.integer)):
            raise AssertionError(f"The value of {target} does not have an ordered numeric "
                                 f"type, instead it has type: {target.dtype}")
        nans = np.argwhere(np.isnan(target))
        if nans.size:
            raise AssertionError(f"{len(nans)} of the {target.size} element(s) are NaN. "
                                 f"Subscripts(s) and value(s) of the NaN element(s):\n"
                                 + _subscripts(nans, target))
        below = target <= lower_bound if open_lower_bound else target < lower_bound
        above = target >= upper_bound if open_upper_bound else target > upper_bound
        outside = np.argwhere(np.logical_or(below, above))
        if outside.size:
            bounds = (("(" if open_lower_bound else "[") + f"{lower_bound}, {upper_bound}"
                      + (")" if open_upper_bound else "]"))
            raise AssertionError(f"{len(outside)} of the {target.size} element(s) are outside "
                                 f"the range {bounds}. Subscript(s) and value(s) of the "
                                 f"offending elements:\n" + _subscripts(outside, target))

    def assertAllInSet(self, target, expected_set):
        """Every element of ``target`` is in ``expected_set``."""
        diff = np.setdiff1d(self._GetNdArray(target).flatten(), list(expected_set))
        if np.size(diff):
            raise AssertionError(f"{np.size(diff)} unique element(s) are not in the set "
                                 f"{expected_set}: {diff}")

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):
        """The array's shape is the tensor's static shape (TF 1.15's argument order)."""
        if not isinstance(np_array, (np.ndarray, np.generic)):
            raise TypeError("np_array must be a Numpy ndarray or Numpy scalar")
        if not isinstance(tf_tensor, Symbol):
            raise TypeError("tf_tensor must be a Tensor")
        self.assertAllEqual(np_array.shape, tf_tensor.get_shape().as_list(), msg=msg)

    def assertNear(self, f1, f2, err, msg=None):
        """``|f1 - f2| <= err`` for two floats."""
        self.assertTrue(f1 == f2 or abs(f1 - f2) <= err,
                        f"{f1!r} != {f2!r} +/- {err!r}{' (' + msg + ')' if msg else ''}")

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        """Two lists of floats of one length, each pair within ``err``."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertRaisesOpError(self, expected_err_re_or_predicate):
        """The block raises an error of a running op (a ``tf.errors`` error, or the error a
        TinyFlow op body raises) whose message matches the pattern or predicate."""
        predicate = expected_err_re_or_predicate
        if not callable(predicate):
            pattern = predicate
            predicate = lambda e: re.search(pattern, str(e)) is not None
        return _RaisesMatching(self, (OpError, TinyflowError), predicate)


class _RaisesMatching:
    """``with``: the block raises one of ``kinds`` satisfying ``predicate``."""

    def __init__(self, case, kinds, predicate) -> None:
        self.case, self.kinds, self.predicate = case, kinds, predicate

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if kind is None:
            raise self.case.failureException(f"{self.kinds[0].__name__} not raised")
        if not issubclass(kind, self.kinds):
            return False
        if not self.predicate(error):
            raise self.case.failureException(f"Exception of type {kind.__name__}: {error} "
                                             f"does not match the expected error")
        return True


def _subscripts(indices, target, limit: int = 10) -> str:
    return "\n".join(f"  {tuple(int(i) for i in index)} : {target[tuple(index)]}"
                     for index in indices[:limit])


def __getattr__(name):
    raise unsupported("tf.test.", "tinyflow.tf_testing", name, {"tf.test.": __all__})
