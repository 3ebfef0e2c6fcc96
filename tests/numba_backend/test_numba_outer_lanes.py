"""numba: a loop over points running a loop over components is split and interchanged, the
points in lanes innermost (srcad/transform/numba_outer_lanes.py): the rewritten code gives the
bits of the nest as written (run by CPython on both sides, and srcad's numba code against
Python), its derivatives agree with central differences and forward with reverse, and the
nests where points could see each other's values are left as written."""

import inspect
import math
import textwrap

import gast
import numpy as np
import pytest
from helpers.numba_primal import bits as _bits
from helpers.outer_lanes_programs import AS_WRITTEN, REWRITTEN, TYPES, mixture, triangle

import srcad
from srcad.build.codegen import to_source
from srcad.transform.names import Namer
from srcad.transform.numba_outer_lanes import BLOCK, outer_loop_lanes

MARK = "numba_outer_lanes.py"


def _rewritten(f):
    """(the rewritten source, the function it defines) of `f` run through the rewrite."""
    tree = gast.parse(textwrap.dedent(inspect.getsource(f)))
    outer_loop_lanes(tree, Namer.for_tree(tree), TYPES)
    code = to_source(tree)
    space = {"np": np, "math": math}
    exec(compile(code, f"<{f.__name__} rewritten>", "exec"), space)
    return code, space[f.__name__]


def _inputs(f, n, seed=0, d=4):
    rng = np.random.default_rng(seed)
    k = 3
    x = rng.normal(size=(n, d))
    mu = rng.uniform(size=(k, d))
    if f is mixture:
        return rng.normal(size=k), mu, x
    if f is triangle:
        return rng.normal(size=(k, d * (d - 1) // 2)), mu, x
    return mu, x


@pytest.mark.parametrize("f", REWRITTEN, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1, 5, BLOCK, BLOCK + 3, 2 * BLOCK + 1])
def test_rewritten_nest_has_the_bits_of_the_nest_as_written(f, n):
    code, g = _rewritten(f)
    assert MARK in code
    args = _inputs(f, n, seed=n)
    want, got = f(*args), g(*args)
    assert np.float64(got).tobytes() == np.float64(want).tobytes()


@pytest.mark.parametrize("d", range(1, 10))
def test_triangle_columns_jammed_in_lanes_keep_the_bits(d):
    # groups of four columns and the columns after them, rows only the first columns reach
    code, g = _rewritten(triangle)
    assert "numba_lane_columns.py" in code
    args = _inputs(triangle, BLOCK + 3, seed=d, d=d)
    assert _bits(g(*args)) == _bits(triangle(*args))


def test_points_become_the_innermost_loop():
    code, _ = _rewritten(mixture)
    # the component's coordinates, then every point of the block
    assert "for j in range(d):\n                for i_lane in range(i_count):" in code
    # the point's log-sum-exp reads its values back from the lanes, point by point
    assert "mt[c] = mt_lanes[c, i - i_start]" in code


@pytest.mark.parametrize("f", AS_WRITTEN, ids=lambda f: f.__name__)
def test_nest_where_points_see_each_other_is_left_as_written(f):
    code, g = _rewritten(f)
    assert MARK not in code
    args = _inputs(f, 7)
    assert g(*args) == f(*args)


def test_infinities_and_nan_keep_their_bits():
    alpha, mu, x = _inputs(mixture, 9)
    x[2, 1], x[5, 0], mu[1, 2] = np.inf, np.nan, -np.inf
    _, g = _rewritten(mixture)
    with np.errstate(invalid="ignore"):
        assert _bits(g(alpha, mu, x)) == _bits(mixture(alpha, mu, x))
        x[5, 0] = 1.0
        assert _bits(g(alpha, mu, x)) == _bits(mixture(alpha, mu, x))


def test_numba_primal_is_rewritten_and_has_python_bits():
    pytest.importorskip("numba")
    args = _inputs(mixture, BLOCK + 5, seed=3)
    consts = [srcad.Const(a) for a in args]
    code = srcad.source(mixture, srcad.ForwardWithPrimal, *consts, backend="numba")
    assert MARK in code
    got = srcad.autodiff(srcad.ForwardWithPrimal, mixture, *consts, backend="numba")[-1]
    assert np.float64(got).tobytes() == np.float64(mixture(*args)).tobytes()


@pytest.mark.slow  # numba compilations of the forward and reverse code
def test_numba_derivatives_agree_with_differences_and_each_other():
    pytest.importorskip("numba")
    ltri, mu, x = _inputs(triangle, BLOCK + 9, seed=4)
    mu_dot = np.random.default_rng(5).normal(size=mu.shape)
    code = srcad.source(triangle, srcad.Forward, srcad.Const(ltri),
                        srcad.Duplicated(mu, mu_dot), srcad.Const(x), backend="numba")
    assert MARK in code
    # mixed annotations: ltri and x constants, mu differentiated
    tangent, value = srcad.autodiff(srcad.ForwardWithPrimal, triangle, srcad.Const(ltri),
                                    srcad.Duplicated(mu, mu_dot), srcad.Const(x),
                                    backend="numba")
    assert np.float64(value).tobytes() == np.float64(triangle(ltri, mu, x)).tobytes()
    h = 1e-6
    central = (triangle(ltri, mu + h * mu_dot, x) - triangle(ltri, mu - h * mu_dot, x)) / (2 * h)
    assert tangent == pytest.approx(central, rel=1e-6)
    mu_bar = np.zeros_like(mu)
    srcad.autodiff(srcad.Reverse, triangle, srcad.Const(ltri), srcad.Duplicated(mu, mu_bar),
                   srcad.Const(x), backend="numba")
    assert tangent == pytest.approx(float(np.sum(mu_bar * mu_dot)), rel=1e-12)


@pytest.mark.slow  # numba compilations with reassociated sums
def test_reassociated_lanes_agree_with_the_code_as_written(monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "1")
    alpha, mu, x = _inputs(mixture, 2 * BLOCK + 7, seed=6)
    consts = [srcad.Const(a) for a in (alpha, mu, x)]
    assert MARK in srcad.source(mixture, srcad.ForwardWithPrimal, *consts, backend="numba")
    got = srcad.autodiff(srcad.ForwardWithPrimal, mixture, *consts, backend="numba")[-1]
    want = mixture(alpha, mu, x)
    assert abs(got - want) <= 1e-13 * abs(want)
    mu_dot = np.sin(np.arange(mu.size, dtype=float)).reshape(mu.shape)
    annotated = (srcad.Const(alpha), srcad.Duplicated(mu, mu_dot), srcad.Const(x))
    assert MARK in srcad.source(mixture, srcad.Forward, *annotated, backend="numba")
    tangent = srcad.autodiff(srcad.Forward, mixture, *annotated, backend="numba")
    h = 1e-6
    central = (mixture(alpha, mu + h * mu_dot, x) - mixture(alpha, mu - h * mu_dot, x)) / (2 * h)
    assert tangent == pytest.approx(central, rel=1e-6)
    python = srcad.autodiff(srcad.Forward, mixture, srcad.Const(alpha),
                            srcad.Duplicated(mu, mu_dot), srcad.Const(x))
    assert abs(tangent - python) <= 1e-13 * abs(python)
