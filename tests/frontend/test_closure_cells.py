"""A closure variable rebound after a first call gives the derivative for its new value.

The functions live in a real module file (factories that return a function and a setter
for the variable it closes over, as `nonlocal` rebinding does in user code). Each case calls
twice before rebinding, so the second call takes the fast path (srcad/build/plans.py) and the one
after the rebinding must notice. Expected values are derived by hand.
"""

import importlib
import importlib.util
import sys
import textwrap

import numpy as np
import pytest

import srcad
from srcad.build import cache

FACTORIES = """
import math

import numpy as np


def square(x):
    return x * x


def cube(x):
    return x * x * x


def scaled(k):
    def f(x):
        return k * x * x
    def set_k(value):
        nonlocal k
        k = value
    return f, set_k


def repeated(n):
    def f(x):
        total = 0.0
        for i in range(n):
            total += x * x
        return total
    def set_n(value):
        nonlocal n
        n = value
    return f, set_n


def weighted(w):
    def f(x):
        return w[0] * x + w[1] * x * x
    def set_w(value):
        nonlocal w
        w = value
    return f, set_w


def composed(h):
    def f(x):
        return h(x) + math.sin(x)
    def set_h(value):
        nonlocal h
        h = value
    return f, set_h


inner, set_inner_k = scaled(2.0)


def calls_a_closure(x):
    return inner(x) + x
"""


@pytest.fixture
def m(tmp_path, monkeypatch):
    (tmp_path / "closure_factories.py").write_text(textwrap.dedent(FACTORIES))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield importlib.import_module("closure_factories")
    del sys.modules["closure_factories"]
    cache.clear()


def _reverse(f, x, backend="python"):
    return srcad.autodiff(srcad.Reverse, f, srcad.Active(x), backend=backend)[0]


def _forward(f, x, backend="python"):
    return srcad.autodiff(srcad.Forward, f, srcad.Duplicated(x, 1.0), backend=backend)


MODES = [_reverse, _forward]
BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.skipif(
    importlib.util.find_spec("numba") is None, reason="numba is not importable"))]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_float_in_a_cell_rebound(m, mode, backend):
    f, set_k = m.scaled(2.0)
    for _ in range(2):
        assert mode(f, 1.5, backend) == 6.0  # 2 k x
    set_k(5.0)
    assert f(1.5) == 11.25
    for _ in range(2):
        assert mode(f, 1.5, backend) == 15.0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_an_int_in_a_cell_rebound(m, mode, backend):
    f, set_n = m.repeated(2)
    for _ in range(2):
        assert mode(f, 1.5, backend) == 6.0  # 2 n x
    set_n(3)
    for _ in range(2):
        assert mode(f, 1.5, backend) == 9.0


@pytest.mark.parametrize("mode", MODES)
def test_an_array_in_a_cell_rebound_or_changed_in_place(m, mode):
    f, set_w = m.weighted(np.array([1.0, 2.0]))
    for _ in range(2):
        assert mode(f, 1.5) == 7.0  # w0 + 2 w1 x
    set_w(np.array([3.0, -1.0]))
    for _ in range(2):
        assert mode(f, 1.5) == 0.0
    f.__closure__[0].cell_contents[1] = 4.0  # an element written: read when f runs
    assert mode(f, 1.5) == 15.0


@pytest.mark.parametrize("mode", MODES)
def test_a_helper_function_in_a_cell_rebound(m, mode):
    f, set_h = m.composed(m.square)
    for _ in range(2):
        assert mode(f, 0.5) == pytest.approx(1.0 + np.cos(0.5), rel=1e-15)  # 2x + cos x
    set_h(m.cube)
    for _ in range(2):
        assert mode(f, 0.5) == pytest.approx(0.75 + np.cos(0.5), rel=1e-15)  # 3x^2 + cos x


@pytest.mark.parametrize("mode", MODES)
def test_a_cell_of_an_inlined_helper_rebound(m, mode):
    for _ in range(2):
        assert mode(m.calls_a_closure, 1.5) == 7.0  # 2 k x + 1
    m.set_inner_k(5.0)
    for _ in range(2):
        assert mode(m.calls_a_closure, 1.5) == 16.0


def test_operators_see_a_rebound_cell(m):
    f, set_k = m.scaled(2.0)
    assert srcad.gradient(f, 1.5) == 6.0
    assert srcad.derivative(f, 1.5) == 6.0
    set_k(5.0)
    assert srcad.gradient(f, 1.5) == 15.0
    assert srcad.derivative(f, 1.5) == 15.0


def test_a_cell_rebound_in_the_test_itself():
    k = 2.0

    def f(x):
        return k * x * x

    assert _reverse(f, 1.5) == 6.0
    k = 5.0
    assert _reverse(f, 1.5) == 15.0
    assert _forward(f, 1.5) == 15.0


def test_preparations_see_a_rebound_cell(m):
    f, set_w = m.weighted(np.array([1.0, 2.0]))
    x = np.array([1.5])

    def scalar_in(x):
        return f(x[0])

    preps = {
        "reverse": srcad.prepare_gradient(scalar_in, x),
        "forward": srcad.prepare_gradient(scalar_in, x, mode="forward"),
    }
    derivative_prep = srcad.prepare_derivative(f, 1.5)
    hvp_prep = srcad.prepare_hvp(scalar_in, x)
    pullback_prep = srcad.prepare_pullback(scalar_in, x)
    for _ in range(2):
        for prep in preps.values():
            assert srcad.gradient(scalar_in, x, prep=prep)[0] == 7.0  # w0 + 2 w1 x
        assert srcad.derivative(f, 1.5, prep=derivative_prep) == 7.0
        assert srcad.hvp(scalar_in, x, tangent=np.ones(1), prep=hvp_prep)[0] == 4.0  # 2 w1
        assert srcad.pullback(scalar_in, x, cotangent=2.0, prep=pullback_prep)[0] == 14.0
    set_w(np.array([3.0, -1.0]))
    for _ in range(2):
        for prep in preps.values():
            assert srcad.gradient(scalar_in, x, prep=prep)[0] == 0.0
        assert srcad.derivative(f, 1.5, prep=derivative_prep) == 0.0
        assert srcad.hvp(scalar_in, x, tangent=np.ones(1), prep=hvp_prep)[0] == -2.0
        assert srcad.pullback(scalar_in, x, cotangent=2.0, prep=pullback_prep)[0] == 0.0
    assert preps["forward"].mode == "forward"  # prepared again with its own options
