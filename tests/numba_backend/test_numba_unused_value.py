"""numba, second order by reverse over forward: the value grad f . v is never read, so the
forward sweep of the reverse code computes only what its reverse sweep needs
(srcad/transform/reverse/unused_value.py): no tangent of a distance that a running `min`
discards. The results against the python backend's forward over reverse, central
differences of the gradient, ties, NaN operands and mixed annotations."""

import math

import gast
import numpy as np
import pytest
from helpers.nearest_programs import nearest_cost
from helpers.nearest_programs import nearest_data as _data

import srcad
from srcad.analysis.value_types import FLOAT
from srcad.build.codegen import to_source
from srcad.transform.reverse.unused_value import drop_unused_value

pytest.importorskip("numba")


def scaled_ratio(x, w, points):
    # a division in the tangent, a Constant float and a Constant array
    total = 0.0
    for i in range(x.shape[0]):
        total += w * x[i] * x[i] / (1.0 + x[i] * x[i]) + points[i] * math.sin(x[i])
    return total


def _forward_sweep(prep) -> str:
    body = str(prep.engine.reverse.compiled.source).split('"""')[2]  # after the docstring
    return body.split("# reverse sweep")[0]


def test_the_forward_sweep_computes_no_tangent_of_the_value():
    c, p = _data()
    prep = srcad.prepare_gradient_and_hvp(nearest_cost, c, srcad.Constant(p),
                                          tangent=np.ones_like(c), backend="numba")
    sweep = _forward_sweep(prep)
    assert "s_dot +=" not in sweep  # the tangent of every distance
    assert "closest_dot" not in sweep and "cost_dot" not in sweep
    assert "s += " in sweep  # the distances themselves, which the comparisons record
    assert "return 0.0, " in str(prep.engine.reverse.compiled.source)


@pytest.mark.slow  # numba compiles the python and numba second-order code of two functions
@pytest.mark.parametrize("seed", [0, 1])
def test_gradient_and_hvp_agree_with_forward_over_reverse_with_ties(seed):
    c, p = _data(seed=seed)
    c[3] = c[1]  # a tie: the first of two equal centroids takes the point
    p[4] = c[1]  # a distance of exactly zero
    v = np.random.default_rng(seed + 7).normal(size=c.shape)
    by_numba = srcad.gradient_and_hvp(nearest_cost, c, srcad.Constant(p), tangent=v,
                                      backend="numba")
    by_python = srcad.gradient_and_hvp(nearest_cost, c, srcad.Constant(p), tangent=v,
                                       backend="python")
    for got, want in zip(by_numba, by_python):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert not np.any(by_numba[0][3]) and not np.any(by_numba[1][3])  # the second tied one
    # away from ties, H v from central differences of the gradient (piecewise quadratic)
    c, p = _data(seed=seed)
    by_numba = srcad.gradient_and_hvp(nearest_cost, c, srcad.Constant(p), tangent=v,
                                      backend="numba")
    eps = 1e-6
    grad = srcad.grad(nearest_cost, backend="python")
    up = grad(c + eps * v, srcad.Const(p))
    down = grad(c - eps * v, srcad.Const(p))
    np.testing.assert_allclose(by_numba[1], (up - down) / (2 * eps), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(by_numba[0], grad(c, srcad.Const(p)), rtol=1e-12, atol=1e-12)


@pytest.mark.slow  # numba second-order code of a NaN-holding input
def test_a_nan_distance_wins_no_point():
    # Python's min(closest, nan) is closest: point 2's distances are all NaN
    c, p = _data(k=4, n=9, seed=3)
    p[2, 1] = math.nan
    v = np.ones_like(c)
    with np.errstate(invalid="ignore"):
        g, hv = srcad.gradient_and_hvp(nearest_cost, c, srcad.Constant(p), tangent=v,
                                       backend="numba")
    kept = np.delete(p, 2, axis=0)
    g_want, hv_want = srcad.gradient_and_hvp(nearest_cost, c, srcad.Constant(kept), tangent=v,
                                             backend="python")
    np.testing.assert_allclose(g, g_want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(hv, hv_want, rtol=1e-12, atol=1e-12)


@pytest.mark.slow  # numba compiles hvp and hessian code
def test_hvp_and_hessian_of_a_division_with_constants_of_both_kinds():
    rng = np.random.default_rng(5)
    x, points = rng.normal(size=6), rng.normal(size=6)
    v = rng.normal(size=6)
    args = (x, srcad.Constant(0.7), srcad.Constant(points))
    np.testing.assert_allclose(srcad.hvp(scaled_ratio, *args, tangent=v, backend="numba"),
                               srcad.hvp(scaled_ratio, *args, tangent=v, backend="python"),
                               rtol=1e-12, atol=1e-12)
    hessian = srcad.hessian(scaled_ratio, *args, backend="numba")
    np.testing.assert_allclose(hessian, srcad.hessian(scaled_ratio, *args, backend="python"),
                               rtol=1e-12, atol=1e-12)
    eps = 1e-6
    grad = srcad.grad(scaled_ratio, backend="python")
    column = (grad(x + eps * v, 0.7, srcad.Const(points))
              - grad(x - eps * v, 0.7, srcad.Const(points))) / (2 * eps)
    np.testing.assert_allclose(hessian @ v, column, rtol=1e-6, atol=1e-7)


def _dropped(text: str, numbers=("a", "b", "c", "s", "u")) -> str:
    env = dict.fromkeys(numbers, FLOAT)
    return to_source(drop_unused_value(gast.parse(text), "f_reverse", env)).strip()


def test_a_division_or_a_call_nothing_reads_is_kept():
    # ZeroDivisionError in numba's code, or an effect: the statement stays
    got = _dropped("def f_reverse(x, x_bar, tape):\n"
                   "    a = x / x\n"
                   "    b = np.sum(x_bar)\n"
                   "    c = x * 3.0\n"
                   "    x_bar[0] += 1.0\n"
                   "    return c, (), None\n")
    assert "a = x / x" in got and "b = np.sum(x_bar)" in got
    assert "c = x * 3.0" not in got and "return 0.0, (), None" in got


def test_a_name_read_by_a_kept_statement_keeps_all_its_assignments():
    got = _dropped("def f_reverse(x, x_bar, n):\n"
                   "    s = 0.0\n"
                   "    u = 0.0\n"
                   "    for i in range(n):\n"
                   "        s += x[i] * x[i]\n"
                   "        u += s\n"
                   "        if s > 1.0:\n"
                   "            u = u * 2.0\n"
                   "    x_bar[0] += s\n"
                   "    return u, (), None\n")
    assert got.count("s += x[i] * x[i]") == 1 and "s = 0.0" in got
    assert "u" not in got.replace("return", "")
    assert "if s > 1.0:\n            pass" in got  # the branch stays (its test is kept)


def test_a_function_with_an_early_return_is_left_as_it_is():
    text = ("def f_reverse(x, x_bar):\n"
            "    c = x * 3.0\n"
            "    if x > 0.0:\n"
            "        return c, (), None\n"
            "    return c, (), None\n")
    assert _dropped(text) == to_source(gast.parse(text)).strip()


def test_an_array_added_into_in_place_is_kept():
    # `x_bar += e` adds into the array x_bar holds: an effect, whoever reads x_bar after
    got = _dropped("def f_reverse(x, x_bar, y_bar):\n"
                   "    x_bar += unshared(x_bar, 2.0 * x)\n"
                   "    t = y_bar\n"
                   "    t += x\n"
                   "    return x, ()\n")
    assert "x_bar += unshared(x_bar, 2.0 * x)" in got and "t = y_bar\n    t += x" in got
