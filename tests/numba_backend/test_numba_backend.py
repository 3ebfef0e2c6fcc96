"""Every mode compiled by numba gives the same derivatives (checked against finite
differences, forward against reverse) as the python backend, on representative constructs."""


import math

import numpy as np
import pytest
from helpers.seed_problems import seed002, seed002_value_and_jacobian

import srcad
from srcad.testing import check_grads

pytest.importorskip("numba")

import transform.test_reverse_constructs as constructs  # noqa: E402

TABLES = [constructs.SCALAR_CASES, constructs.LOOP_CASES, constructs.ARRAY_CASES,
          constructs.CALL_CASES, constructs.HELPER_CASES, constructs.CROSSING_CASES,
          constructs.EARLY_EXIT_CASES]
CASES = [(f, args() if callable(args) else args, i == 0)
         for table in TABLES for i, (f, args) in enumerate(table)]


# numba compiles each case in three modes, seconds each: `make test` keeps the first case of
# each table (a smoke test per construct family), `make test-all` runs every case
@pytest.mark.parametrize("f, args", [
    pytest.param(f, args, id=f"{f.__name__}-{k}", marks=() if first else pytest.mark.slow)
    for k, (f, args, first) in enumerate(CASES)])
def test_numba_backend_matches_finite_differences(f, args):
    check_grads(f, *args, backend="numba")






@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_numba_prepared_inplace_jacobian_with_cache(mode):
    n = 30
    rng = np.random.default_rng(3)
    y, c, J = np.zeros(n), rng.random(n), np.zeros((n, n))
    prep = srcad.prepare_jacobian(seed002, srcad.Output(y), rng.random(n), srcad.Cache(c),
                                  mode=mode, backend="numba")
    for _ in range(2):
        x = rng.random(n)
        c[:] = rng.random(n) * 100.0  # a Cache's content never matters
        result = srcad.jacobian(seed002, srcad.Output(y), x, srcad.Cache(c), prep=prep, out=J)
        assert result is J
        np.testing.assert_allclose(J, seed002_value_and_jacobian(x)[1], rtol=1e-12, atol=1e-12)


def test_numba_prepared_gradient_matches_python():
    x = np.linspace(0.1, 1.0, 7)
    g_python = srcad.gradient(sum_of_products, x, srcad.Constant(1.5))
    prep = srcad.prepare_gradient(sum_of_products, x, srcad.Constant(1.5), backend="numba")
    g = np.zeros(7)
    assert srcad.gradient(sum_of_products, x, srcad.Constant(1.5), prep=prep, out=g) is g
    np.testing.assert_allclose(g, g_python, rtol=1e-13)


def sum_of_products(x, a):
    s = 0.0
    for i in range(len(x)):
        for j in range(len(x)):
            s += a * x[i] ** 4 * x[j] ** 6
    return s


def while_true_with_counter(y, x, a):
    k = 0
    while True:
        k += 1
        if k > 5 or a <= -1.0:
            break
        y[0] += (x[k % len(x)] / (k + 1.0)) ** 2
        a /= 1.0 + math.sin(3.0) ** 2
    return a * y[0]


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_numba_while_true_with_break_and_branch_flags():
    """numba cannot type variables updated in a `while True` loop (found by the fuzzer)."""
    check_grads(while_true_with_counter, srcad.Duplicated(np.array([0.5, 0.1]), np.zeros(2)),
                srcad.Duplicated(np.array([0.3, -0.7, 1.1]), np.zeros(3)), srcad.Active(0.8),
                backend="numba")


def mixture(params, data):
    K = len(params) // 3
    total = 0.0
    for n in range(len(data)):
        acc = 0.0
        for k in range(K):
            s = params[2 * K + k]
            acc += params[k] * math.exp(-(data[n] - params[K + k]) ** 2 / (2.0 * s * s)) / s
        total += math.log(acc)
    return total


def mixture_gradient(params, data):
    """Hand-derived: d log(sum_k w_k e_k / s_k) for e_k = exp(-(x - m_k)^2 / (2 s_k^2))."""
    K = len(params) // 3
    w, m, s = params[:K], params[K:2 * K], params[2 * K:]
    d = data[:, None] - m
    phi = np.exp(-d ** 2 / (2.0 * s * s)) / s
    r = w * phi / (phi @ w)[:, None]
    return np.concatenate([(r / w).sum(0), (r * d / s ** 2).sum(0),
                           (r * (d ** 2 / s ** 3 - 1.0 / s)).sum(0)])


def test_numba_repeated_calls_reuse_tapes_across_sizes():
    """Raw autodiff calls keep their grown tape arrays for the next call: a long call after a
    short one, and a short one after it, must not read stale or too-small tapes."""
    rng = np.random.default_rng(7)
    params = np.concatenate([rng.uniform(0.5, 1.5, 3), rng.normal(size=3), rng.uniform(1, 2, 3)])
    for N in (3, 400, 5, 400, 1):
        data = rng.normal(size=N)
        dp = np.zeros(9)
        srcad.autodiff(srcad.Reverse, mixture, srcad.Duplicated(params, dp), data,
                       backend="numba")
        np.testing.assert_allclose(dp, mixture_gradient(params, data), rtol=1e-11)


def test_numba_concurrent_calls_each_get_their_own_tapes():
    import threading
    rng = np.random.default_rng(8)
    params = np.concatenate([rng.uniform(0.5, 1.5, 2), rng.normal(size=2), rng.uniform(1, 2, 2)])
    datasets = [rng.normal(size=n) for n in (50, 300, 7, 120)]
    results, errors = {}, []

    def work(i):
        try:
            for _ in range(20):
                dp = np.zeros(6)
                srcad.autodiff(srcad.Reverse, mixture, srcad.Duplicated(params, dp),
                               datasets[i], backend="numba")
                np.testing.assert_allclose(dp, mixture_gradient(params, datasets[i]),
                                           rtol=1e-11)
            results[i] = True
        except Exception as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(datasets))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == len(datasets)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_repeated_call_with_a_wrong_shadow_is_still_refused(backend):
    """The fast path of repeated calls checks shapes per call."""
    x = np.linspace(0.5, 1.0, 4)
    grad = np.zeros(4)
    srcad.autodiff(srcad.Reverse, sum_of_products, srcad.Duplicated(x, grad), 2.0,
                   backend=backend)
    with pytest.raises(srcad.SrcadError, match="not congruent"):
        srcad.autodiff(srcad.Reverse, sum_of_products, srcad.Duplicated(x, np.zeros(3)), 2.0,
                       backend=backend)
    with pytest.raises(srcad.SrcadError, match="congruent"):
        srcad.autodiff(srcad.Reverse, sum_of_products,
                       srcad.Duplicated(x, np.zeros(4, dtype=np.float32)), 2.0, backend=backend)
    with pytest.raises(srcad.SrcadError, match="integer"):
        srcad.autodiff(srcad.Reverse, sum_of_products, srcad.Duplicated(x, grad), srcad.Active(2),
                       backend=backend)


def test_numba_vector_mode_runs_one_lane_loop_per_block():
    """Tangent statements of a straight run share one loop over the lanes, and a lane value
    used only there is a local float (the lanes stay independent: checked by check_grads on
    every construct above, in 2-lane vector mode)."""
    params = np.array([0.7, 1.3, -0.4, 0.9, 0.8, 1.6])
    data = np.linspace(-1.0, 1.0, 5)
    source = srcad.source(mixture, srcad.Forward, srcad.BatchDuplicated(params, np.eye(6)),
                          data, backend="numba")
    inner = source[source.index("for k in range(K):"):]
    inner = inner[:inner.index("total += math.log(acc)")]
    assert inner.count("for lane in range(lanes):") == 1
    assert "_dot_lane = " in source  # e.g. the tangent of `s` in the hoisted precomputation
    tangents = srcad.autodiff(srcad.Forward, mixture, srcad.BatchDuplicated(params, np.eye(6)),
                              data, backend="numba")
    np.testing.assert_allclose(tangents, mixture_gradient(params, data), rtol=1e-12)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", ["python", "numba"])
def test_repeated_batch_calls_check_width_and_shapes(backend):
    """Stacked batches (one (W, ...) shadow array) take the fast path of repeated calls: a
    different width or a shadow of another shape must not reuse the plan."""
    params = np.array([0.7, 1.3, -0.4, 0.9, 0.8, 1.6])
    data = np.linspace(-1.0, 1.0, 5)
    grad = mixture_gradient(params, data)
    for width in (3, 3, 6, 2, 6):
        seeds = np.eye(6)[:width]
        tangents = srcad.autodiff(srcad.Forward, mixture, srcad.BatchDuplicated(params, seeds),
                                  data, batch="stacked", backend=backend)
        np.testing.assert_allclose(tangents, grad[:width], rtol=1e-12)
    with pytest.raises(srcad.SrcadError, match="congruent"):
        srcad.autodiff(srcad.Forward, mixture, srcad.BatchDuplicated(params, np.zeros((6, 5))),
                       data, batch="stacked", backend=backend)
    with pytest.raises(srcad.SrcadError, match="congruent"):
        srcad.autodiff(srcad.Forward, mixture,
                       srcad.BatchDuplicated(params, np.zeros((6, 6), dtype=np.float32)),
                       data, batch="stacked", backend=backend)
