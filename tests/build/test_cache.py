"""The cache never serves a stale derivative and transforms once under concurrency."""

import math
import threading

import numpy as np
import pytest
from helpers.user_modules import load_module

import srcad
from srcad.build import cache
from srcad.testing import check_grads


def test_rebinding_an_inlined_helper_gives_new_code(tmp_path):
    m = load_module(tmp_path, "stale_helper", """
        def helper(x):
            return x * x

        def f(x):
            return helper(x) + 1.0
    """)
    assert srcad.autodiff(srcad.Reverse, m.f, srcad.Active(3.0)) == (6.0,)
    helper_src = load_module(tmp_path, "stale_helper_new", """
        def helper(x):
            return x * x * x
    """)
    m.helper = helper_src.helper
    derivs, value = srcad.autodiff(srcad.ReverseWithPrimal, m.f, srcad.Active(3.0))
    assert value == 28.0
    assert derivs == (27.0,)


def test_rebinding_a_global_constant_gives_new_code(tmp_path):
    m = load_module(tmp_path, "stale_constant", """
        SCALE = 2.0

        def f(x):
            return SCALE * x * x
    """)
    assert srcad.autodiff(srcad.Reverse, m.f, srcad.Active(1.0)) == (4.0,)
    m.SCALE = 5.0
    assert srcad.autodiff(srcad.Reverse, m.f, srcad.Active(1.0)) == (10.0,)


def test_redefining_the_function_gives_new_code(tmp_path):
    first = load_module(tmp_path, "redefined_a", "def f(x):\n    return x * x\n")
    second = load_module(tmp_path, "redefined_b", "def f(x):\n    return 3.0 * x\n")
    assert srcad.autodiff(srcad.Reverse, first.f, srcad.Active(2.0)) == (4.0,)
    assert srcad.autodiff(srcad.Reverse, second.f, srcad.Active(2.0)) == (3.0,)


def concurrent_target(x, data):
    total = 0.0
    for i in range(len(data)):
        total += math.sin(x[i % len(x)] * data[i])
    return total


def test_eight_threads_transform_once_and_agree():
    cache.clear()
    x = np.array([0.3, 0.7])
    data = np.linspace(0.0, 1.0, 50)
    expected = np.zeros(2)
    for i in range(50):
        expected[i % 2] += math.cos(x[i % 2] * data[i]) * data[i]
    results, errors = [None] * 8, []
    barrier = threading.Barrier(8)

    def work(k):
        try:
            barrier.wait()
            dx = np.zeros(2)
            srcad.autodiff(srcad.Reverse, concurrent_target, srcad.Duplicated(x, dx), data)
            results[k] = dx
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert cache.size() == 1
    for r in results:
        np.testing.assert_allclose(r, expected, rtol=1e-12)


def copysign_user(x, y):
    return math.copysign(x, y) * 3.0 + np.copysign(x * y, -1.0)


def test_copysign_has_a_derivative_not_a_silent_zero():
    dx, dy = srcad.autodiff(srcad.Reverse, copysign_user, srcad.Active(2.0), srcad.Active(-1.0))
    assert dx == pytest.approx(-4.0) and dy == pytest.approx(2.0)
    check_grads(copysign_user, srcad.Active(2.0), srcad.Active(-1.0))


def test_a_preparation_sees_a_rebound_global(tmp_path):
    m = load_module(tmp_path, "stale_prepared", """
        SCALE = 2.0

        def f(x):
            return SCALE * x[0] * x[1]

        def g(y, x):
            y[0] = SCALE * x[0] * x[1]
            y[1] = x[0]
    """)
    x = np.array([2.0, 3.0])
    prep = srcad.prepare_gradient(m.f, x)
    out = np.zeros(2)
    for _ in range(2):
        np.testing.assert_array_equal(srcad.gradient(m.f, x, prep=prep, out=out), [6.0, 4.0])
    m.SCALE = 5.0
    for _ in range(2):
        np.testing.assert_array_equal(srcad.gradient(m.f, x, prep=prep, out=out), [15.0, 10.0])
    y = srcad.Output(np.zeros(2))
    jac = srcad.prepare_jacobian(m.g, y, x)
    m.SCALE = 1.0
    np.testing.assert_array_equal(srcad.jacobian(m.g, y, x, prep=jac), [[3.0, 2.0], [1.0, 0.0]])
