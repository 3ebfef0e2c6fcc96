"""numba: a long loop adding exponentials into sums, outside reverse sweeps, computes them
with srcad's vectorizable exp in a first loop and adds them in order in a second
(srcad/transform/numba_exp_sums.py); a short run, and any other loop, is left as written."""

import math

import numpy as np
import pytest
from helpers.numba_primal import numba_primal as _primal
from helpers.numba_primal import numba_source as _primal_source

import srcad
from srcad.testing import check_grads


def _log_sum_exp(x):
    a = x[0]
    for i in range(1, len(x)):
        a = max(a, x[i])
    s = 0.0
    for i in range(len(x)):
        s += math.exp(x[i] - a)
    return math.log(s) + a


def _two_sums(x, a):
    s = 0.0
    t = 0.0
    for i in range(len(x)):
        s = s + math.exp(x[i] - a)
        t = t + x[i] * math.exp(-x[i])
    return s * t


def _reads_its_sum(x):
    s = 0.0
    for i in range(len(x)):
        s += math.exp(x[i] - s)
    return s


def _weighted_row_log_sum_exps(x, w):
    # a log-sum-exp per row, weighted: the exp sum runs inside the row loop
    total = 0.0
    for r in range(x.shape[0]):
        a = x[r, 0]
        for i in range(1, x.shape[1]):
            a = max(a, x[r, i])
        s = 0.0
        for i in range(x.shape[1]):
            s += math.exp(x[r, i] - a)
        total = total + w[r] * (math.log(s) + a)
    return total


@pytest.mark.parametrize("n", [3, 8, 1000])
def test_a_log_sum_exp_agrees_with_python(n):
    x = np.linspace(-30.0, 5.0, n)
    # a long loop computes the exponentials vectorized (within 1 ulp), a short one with
    # the C library's: both add them in Python's order
    assert _primal(_log_sum_exp, x) == pytest.approx(_log_sum_exp(x), rel=1e-15)
    assert "simd_exp" in _primal_source(_log_sum_exp, x)


def test_two_sums_in_one_loop_split():
    x = np.linspace(-2.0, 3.0, 50)
    code = _primal_source(_two_sums, x, 0.5)
    assert "simd_exp(x[i] - a)" in code
    assert _primal(_two_sums, x, 0.5) == pytest.approx(_two_sums(x, 0.5), rel=1e-15)


def test_a_sum_read_by_its_own_addend_is_not_split():
    x = np.linspace(0.0, 1.0, 20)
    assert "simd_exp" not in _primal_source(_reads_its_sum, x)
    assert _primal(_reads_its_sum, x) == _reads_its_sum(x)


def test_overflow_and_nan_follow_numbas_exp():
    x = np.array([0.0] * 7 + [800.0, 1.0])
    assert _primal(_two_sums, x, 0.0) == math.inf  # numba's math.exp overflows to inf too
    x[3] = np.nan
    assert math.isnan(_primal(_two_sums, x, 0.0))


def test_reassociated_sums_keep_one_loop(monkeypatch):
    # with LLVM's reassoc, the exponentials and the sums vectorize in one loop: no work array
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "1")
    srcad.build.cache.clear()
    try:
        x = np.linspace(-2.0, 3.0, 50)
        code = _primal_source(_two_sums, x, 0.5)
        assert "simd_exp(x[i] - a)" in code and "np.empty" not in code
        assert code.count("for i in range(len(x))") == 1
        want = _two_sums(x, 0.5)
        assert _primal(_two_sums, x, 0.5) == pytest.approx(want, rel=1e-14)
        assert "math.exp" not in _primal_source(_log_sum_exp, x)
        assert _primal(_log_sum_exp, x) == pytest.approx(_log_sum_exp(x), rel=1e-15)
    finally:
        srcad.build.cache.clear()


@pytest.mark.slow  # two reverse-mode compilations (in order, reassociated)
def test_reassociated_reverse_sweeps_keep_one_exp_loop(monkeypatch):
    # the forward sweep's exp loop records the exponentials and adds them in one loop
    x = np.linspace(-2.0, 3.0, 50)

    def gradient():
        dx = np.zeros_like(x)
        srcad.autodiff(srcad.Reverse, _log_sum_exp, srcad.Duplicated(x, dx), backend="numba")
        return dx

    srcad.build.cache.clear()
    in_order = gradient()
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "1")
    srcad.build.cache.clear()
    try:
        code = srcad.source(_log_sum_exp, srcad.Reverse, srcad.Duplicated(x, np.zeros(50)),
                            backend="numba")
        assert "the sums reassociated" in code and "in a second loop" not in code
        assert code.count("simd_exp(") == 1
        reassociated = gradient()
    finally:
        srcad.build.cache.clear()
    softmax = np.exp(x - x.max()) / np.sum(np.exp(x - x.max()))
    np.testing.assert_allclose(reassociated, in_order, rtol=1e-13)
    np.testing.assert_allclose(reassociated, softmax, rtol=1e-13)


def _row_log_sum_exps(X):
    total = 0.0
    for r in range(X.shape[0]):
        m = X[r, 0]
        for c in range(1, X.shape[1]):
            m = max(m, X[r, c])
        s = 0.0
        for c in range(X.shape[1]):
            s = s + math.exp(X[r, c] - m)
        total = total + math.log(s) + m
    return total


def test_reassociated_reverse_sweeps_vectorize_nested_exp_sums(monkeypatch):
    # `s = s + math.exp(...)` inside another loop, 3 terms: one loop with simd_exp too
    X = np.array([[0.5, -1.0, 2.0], [1.5, 1.5, -0.25], [3.0, 0.0, 1.0], [-2.0, -1.0, -3.0]])
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "1")
    srcad.build.cache.clear()
    try:
        dX = np.zeros_like(X)
        code = srcad.source(_row_log_sum_exps, srcad.Reverse, srcad.Duplicated(X, dX),
                            backend="numba")
        assert "simd_exp(X[r, c] - m)" in code
        srcad.autodiff(srcad.Reverse, _row_log_sum_exps, srcad.Duplicated(X, dX),
                       backend="numba")
    finally:
        srcad.build.cache.clear()
    softmax = np.exp(X - X.max(axis=1, keepdims=True))
    np.testing.assert_allclose(dX, softmax / softmax.sum(axis=1, keepdims=True), rtol=1e-13)


def test_an_exp_sum_inside_a_loop_stays_as_written_in_order():
    # in order, the split needs a work array per run: a loop inside another is left alone
    x, w = np.linspace(-3.0, 2.0, 40).reshape(4, 10), np.array([0.5, 1.0, -2.0, 0.25])
    code = _primal_source(_weighted_row_log_sum_exps, x, w)
    assert "simd_exp" not in code and "math.exp(x[r, i] - a)" in code
    assert _primal(_weighted_row_log_sum_exps, x, w) == _weighted_row_log_sum_exps(x, w)


def test_reassociated_exp_sum_inside_a_loop_calls_the_vectorizable_exp(monkeypatch):
    # with LLVM's reassoc the rewrite needs no work array, so a log-sum-exp per row (gmm's
    # objective over its components) calls simd_exp too: within 1 ulp of each exp, the sums
    # in any order
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "1")
    srcad.build.cache.clear()
    try:
        rng = np.random.default_rng(7)
        x, w = rng.normal(size=(6, 25)) * 3.0, rng.normal(size=6)
        code = _primal_source(_weighted_row_log_sum_exps, x, w)
        assert "simd_exp(x[r, i] - a)" in code and "math.exp" not in code
        assert "np.empty" not in code
        got = _primal(_weighted_row_log_sum_exps, x, w)
        # each row's terms are positive: the sum is within a few ulps of Python's, and the
        # total within the rounding of its weighted terms
        bound = 1e-14 * sum(abs(w[r]) * (abs(math.log(np.sum(np.exp(x[r] - x[r].max()))))
                                         + abs(x[r].max())) for r in range(6))
        assert abs(got - _weighted_row_log_sum_exps(x, w)) <= bound
    finally:
        srcad.build.cache.clear()


@pytest.mark.slow  # a forward and a reverse compilation
def test_reassociated_inner_exp_sums_in_derivative_code(monkeypatch):
    # the weights active, the data constant: the per-row exp sums are inactive, so the
    # derivative code computes them as the primal does, with simd_exp inside the row loop
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "1")
    srcad.build.cache.clear()
    try:
        rng = np.random.default_rng(8)
        x, w = rng.normal(size=(5, 12)) * 2.0, rng.normal(size=5)
        for mode, args in ((srcad.Forward, (x, srcad.Duplicated(w, np.ones(5)))),
                           (srcad.Reverse, (x, srcad.Duplicated(w, np.zeros(5))))):
            code = srcad.source(_weighted_row_log_sum_exps, mode, *args, backend="numba")
            assert "simd_exp(x[r, i] - a)" in code, mode
        check_grads(_weighted_row_log_sum_exps, x, srcad.Duplicated(w, np.zeros(5)),
                    modes=("fwd", "rev"), backend="numba")
        # d/dw[r] is row r's log-sum-exp
        dw = np.zeros(5)
        srcad.autodiff(srcad.Reverse, _weighted_row_log_sum_exps, x, srcad.Duplicated(w, dw),
                       backend="numba")
        want = [math.log(np.sum(np.exp(r - r.max()))) + r.max() for r in x]
        np.testing.assert_allclose(dw, want, rtol=1e-14)
    finally:
        srcad.build.cache.clear()
