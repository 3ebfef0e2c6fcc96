"""Unprepared operator calls reuse a kept preparation (srcad/operators/prep_cache.py): the results
are those of a fresh preparation across changing values, shapes, contexts, rebound globals and
the caller's buffers, and the cache is bounded, cleared by srcad.build.cache.clear() and safe to use
from several threads. Expected values are derived by hand."""

import math
import threading

import numpy as np
import pytest

import srcad
from srcad import Cache, Constant, Output
from srcad.operators import prep_cache


@pytest.fixture(autouse=True)
def empty_cache():
    srcad.build.cache.clear()
    yield
    srcad.build.cache.clear()


def weighted_squares(x, a):
    s = 0.0
    for i in range(len(x)):
        s += a * x[i] * x[i]
    return s


def test_changing_values_reuse_one_preparation():
    rng = np.random.default_rng(0)
    for _ in range(4):
        x, a = rng.random(3), float(rng.random())
        np.testing.assert_allclose(srcad.gradient(weighted_squares, x, Constant(a)), 2 * a * x)
    assert prep_cache.size() == 1


def test_a_new_shape_gets_a_new_preparation():
    for n in (3, 5, 3, 5):
        x = np.arange(1.0, n + 1)
        g = srcad.gradient(weighted_squares, x, Constant(2.0))
        assert g.shape == (n,)
        np.testing.assert_allclose(g, 4.0 * x)
    assert prep_cache.size() == 2


def test_other_options_and_operators_are_kept_apart():
    x = np.array([1.0, 2.0])
    reverse = srcad.gradient(weighted_squares, x, Constant(1.0))
    forward = srcad.gradient(weighted_squares, x, Constant(1.0), mode="forward")
    value, grad = srcad.value_and_gradient(weighted_squares, x, Constant(1.0))
    np.testing.assert_allclose(reverse, [2.0, 4.0])
    np.testing.assert_allclose(forward, [2.0, 4.0])
    assert value == 5.0 and np.allclose(grad, [2.0, 4.0])
    assert prep_cache.size() == 2  # gradient and value_and_gradient share preparations


def exp_into(y, x, c):
    for i in range(len(x)):
        c[i] = math.exp(x[i])
    for i in range(len(x)):
        y[i] = 3.0 * c[i]


def test_results_land_in_this_calls_buffers():
    x1, x2 = np.array([0.0, 1.0]), np.array([2.0, -1.0])
    y1, c1, y2, c2 = np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2)
    J1 = srcad.jacobian(exp_into, Output(y1), x1, Cache(c1))
    J2 = srcad.jacobian(exp_into, Output(y2), x2, Cache(c2))
    np.testing.assert_allclose(J1, np.diag(3.0 * np.exp(x1)))
    np.testing.assert_allclose(J2, np.diag(3.0 * np.exp(x2)))
    np.testing.assert_allclose(y1, 3.0 * np.exp(x1))  # untouched by the second call
    np.testing.assert_allclose(y2, 3.0 * np.exp(x2))
    np.testing.assert_allclose(c2, np.exp(x2))
    assert prep_cache.size() == 1
    out = np.zeros((2, 2))
    assert srcad.jacobian(exp_into, Output(y1), x2, Cache(c1), out=out) is out
    np.testing.assert_allclose(out, np.diag(3.0 * np.exp(x2)))
    np.testing.assert_allclose(y1, 3.0 * np.exp(x2))


def test_the_context_kind_is_part_of_the_match():
    def f(y, x, c):
        for i in range(len(x)):
            y[i] = c[i] * x[i]
    x, c = np.array([1.0, 2.0]), np.array([3.0, 5.0])
    as_constant = srcad.jacobian(f, Output(np.zeros(2)), x, Constant(c))
    as_cache = srcad.jacobian(f, Output(np.zeros(2)), x, Cache(c.copy()))
    np.testing.assert_allclose(as_constant, np.diag(c))
    np.testing.assert_allclose(as_cache, np.diag(c))
    assert prep_cache.size() == 2


def first_n(x, n):
    y = np.zeros(n)
    for i in range(n):
        y[i] = x[i] * x[i]
    return y


def test_an_int_constant_that_shapes_the_output_is_keyed_by_value():
    x = np.array([1.0, 2.0, 3.0])
    J2 = srcad.jacobian(first_n, x, Constant(2))
    J3 = srcad.jacobian(first_n, x, Constant(3))
    np.testing.assert_allclose(J2, [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0]])
    np.testing.assert_allclose(J3, np.diag(2.0 * x))
    J1 = srcad.jacobian(first_n, x, Constant(np.int64(1)))
    J2 = srcad.jacobian(first_n, x, Constant(np.int64(2)))
    np.testing.assert_allclose(J1, [[2.0, 0.0, 0.0]])
    np.testing.assert_allclose(J2, [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0]])


SCALE = 2.0


def scaled(x):
    return SCALE * x[0] * x[1]


def test_a_rebound_global_prepares_again():
    global SCALE
    x = np.array([2.0, 3.0])
    try:
        np.testing.assert_allclose(srcad.gradient(scaled, x), [6.0, 4.0])
        SCALE = 5.0
        np.testing.assert_allclose(srcad.gradient(scaled, x), [15.0, 10.0])
        np.testing.assert_allclose(srcad.gradient(scaled, x, mode="forward"), [15.0, 10.0])
    finally:
        SCALE = 2.0
    np.testing.assert_allclose(srcad.gradient(scaled, x), [6.0, 4.0])


def doubles_x(x):
    for i in range(len(x)):
        x[i] = 2.0 * x[i]
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    return s


def test_f_writing_x_runs_on_a_copy_of_this_calls_x():
    for x in (np.array([1.0, 2.0]), np.array([3.0, -1.0])):
        before = x.copy()
        np.testing.assert_allclose(srcad.gradient(doubles_x, x), 8.0 * before)
        np.testing.assert_allclose(srcad.jacobian(lambda_free_square, x), np.diag(2.0 * x))
        np.testing.assert_array_equal(x, before)


def lambda_free_square(x):
    y = np.zeros(len(x))
    for i in range(len(x)):
        y[i] = x[i] * x[i]
    return y


def test_other_operators_reuse_preparations():
    x, t = np.array([1.0, 2.0]), np.array([1.0, -1.0])
    for _ in range(2):
        np.testing.assert_allclose(srcad.pushforward(weighted_squares, x, Constant(1.0),
                                                     tangent=t), 2 * 1.0 - 2 * 2.0)
        pair = srcad.pushforward(weighted_squares, x, Constant(1.0), tangent=(t, x))
        np.testing.assert_allclose(pair, (-2.0, 10.0))
        np.testing.assert_allclose(srcad.pullback(lambda_free_square, x,
                                                  cotangent=np.array([1.0, 1.0])), 2 * x)
        assert srcad.derivative(math_cube, 2.0) == 12.0
        np.testing.assert_allclose(srcad.hvp(weighted_squares, x, Constant(1.0), tangent=t),
                                   2 * t)
        np.testing.assert_allclose(srcad.hessian(weighted_squares, x, Constant(1.0)),
                                   2 * np.eye(2))
        assert srcad.second_derivative(math_cube, 2.0) == 12.0
    assert prep_cache.size() == 7  # pushforward of one tangent and of two are apart


def math_cube(x):
    return x * x * x


def test_size_is_bounded(monkeypatch):
    monkeypatch.setattr(prep_cache, "MAX_KEYS", 2)
    monkeypatch.setattr(prep_cache, "MAX_PER_KEY", 2)
    for n in range(1, 6):  # five shapes of one key: the oldest are dropped
        srcad.gradient(weighted_squares, np.ones(n), Constant(1.0))
    assert prep_cache.size() == 2
    for a in (1, 2, 3, 4):  # four keys (an int Constant is keyed by value)
        srcad.gradient(weighted_squares, np.ones(2), Constant(a))
    assert prep_cache.size() == 2


def test_cache_clear_forgets_them():
    srcad.gradient(weighted_squares, np.ones(2), Constant(1.0))
    assert prep_cache.size() == 1
    srcad.build.cache.clear()
    assert prep_cache.size() == 0


def test_threads_never_share_a_preparation():
    rng = np.random.default_rng(1)
    inputs = [rng.random(50) for _ in range(8)]
    failures = []

    def work(x):
        for _ in range(30):
            g = srcad.gradient(weighted_squares, x, Constant(1.5))
            if not np.allclose(g, 3.0 * x):
                failures.append(g)

    threads = [threading.Thread(target=work, args=(x,)) for x in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert 1 <= prep_cache.size() <= prep_cache.MAX_PER_KEY


def test_numba_backend_reuses_preparations():
    pytest.importorskip("numba")
    x = np.array([1.0, 2.0, 3.0])
    for a in (1.0, 2.0):
        np.testing.assert_allclose(srcad.gradient(weighted_squares, x, Constant(a),
                                                  backend="numba"), 2 * a * x)
    assert prep_cache.size() == 1


def test_a_preparation_prepares_again_after_every_rebinding():
    global SCALE
    x = np.array([2.0, 3.0])
    prep = srcad.prepare_gradient(scaled, x)
    try:
        for scale in (5.0, 7.0, 2.0):  # the second refresh used to find no way to prepare
            SCALE = scale
            np.testing.assert_allclose(srcad.gradient(scaled, x, prep=prep),
                                       [3.0 * scale, 2.0 * scale])
    finally:
        SCALE = 2.0
