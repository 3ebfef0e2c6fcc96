"""numba, reverse mode: a running `max`/`min` that nothing else reads records the step that set
it, and the reverse sweep runs that step alone (srcad/transform/numba_extremum_winners.py):
the bits of the loop as written (ties to the first operand, NaN never taken, zeros of both
signs, a NaN start, no step), forward mode's zero where the loop as written adds `0.0 * inf`
or `0.0 * nan`, gradients against central differences, forward mode and the python backend."""

import doctest
import math

import numpy as np
import pytest
from helpers.user_modules import load_module

import srcad
from srcad.testing import check_grads
from srcad.transform import numba_extremum_winners, numba_stage, numba_winner_adjoints

SOURCE = '''
import math


def top(x, y):
    m = x[0] * y[0]
    for i in range(1, len(x)):
        m = max(m, x[i] * y[i])
    return m * 2.0


def bottom(x, y):
    m = math.inf
    for i in range(len(x)):
        m = min(m, x[i] - y[i])
    return m * m


def farthest(x, y):
    m = -1.0
    for i in range(len(x)):
        m = max(m, abs(x[i] - y[i]))
    return math.sin(m)


def log_sum_exp(x, y):
    a = x[0]
    for i in range(1, len(x)):
        a = max(a, x[i])
    s = 0.0
    for i in range(len(x)):
        s += math.exp(x[i] - a) * y[i]
    return math.log(s) + a
'''

NAMES = ("top", "bottom", "farthest", "log_sum_exp")


def read_elsewhere(x, y):
    m = x[0]
    s = 0.0
    for i in range(len(x)):
        s += x[i] * y[i]
        m = max(m, x[i])
    return m * s


def value_first(x, y):
    m = x[0]
    for i in range(len(x)):
        m = max(x[i] * y[i], m)
    return m


def _reverse_source(f, x, y):
    return srcad.source(f, srcad.Reverse, srcad.Duplicated(x, np.zeros_like(x)),
                        srcad.Duplicated(y, np.zeros_like(y)), backend="numba")


def _gradients(f, x, y, backend="numba"):
    with np.errstate(all="ignore"):
        return srcad.grad(f, argnums=(0, 1), backend=backend)(x, y)


def test_the_modules_docstring_examples_run():
    assert doctest.testmod(numba_extremum_winners).failed == 0
    assert doctest.testmod(numba_winner_adjoints).failed == 0


def test_the_gradbench_loop_records_one_index_for_its_maximum(modules):
    module = modules[0]
    x = np.linspace(-1.0, 1.0, 9)
    code = _reverse_source(module.log_sum_exp, x, x)
    assert "# records only the step that set a" in code
    assert "tape[tape_size] = a\n" not in code  # no record per step
    assert "a_lanes = max(max(max(a_lane, a_lane_1), a_lane_2), a_lane_3)" in code
    assert "if a_won >= 0.0:" in code
    assert "# records only the step that set m" in _reverse_source(module.bottom, x, x)
    # an element recorded beside the running value: recorded at the winner's step alone
    code = _reverse_source(module.farthest, x, x)
    assert "tape[tape_size + 1] = abs_1_won" in code and "tape_size += 2" in code
    assert "tape[tape_size] = m\n" not in code


@pytest.mark.parametrize("f", [read_elsewhere, value_first])
def test_loops_srcad_leaves_as_written(f):
    x = np.linspace(-1.0, 1.0, 9)
    code = _reverse_source(f, x, x)
    assert "numba_extremum_winners" not in code
    assert "tape[tape_size] = m\n" in code


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    """(the functions of SOURCE, a second copy of them: compiled without the rewrite)."""
    directory = tmp_path_factory.mktemp("extremum_winners")
    return (load_module(directory, "extremum_winners_rewritten", SOURCE),
            load_module(directory, "extremum_winners_as_written", SOURCE))


def _cases():
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=11), rng.uniform(0.5, 2.0, size=11)
    cases = {"random": (x, y)}
    tie = np.array([0.1, 3.0, -1.0, 3.0, 3.0, 0.2, 3.0, -0.5, 1.0])
    cases["ties"] = (tie, np.ones(9))
    cases["ties, -tie"] = (-tie, np.ones(9))
    cases["start wins a tie"] = (np.array([3.0, 1.0, 3.0, -3.0, 3.0]), np.ones(5))
    nan = np.array([0.5, 1.0, np.nan, 2.0, np.nan, -1.0, 0.25])
    cases["NaN inside"] = (nan, np.ones(7))
    cases["NaN first"] = (np.array([np.nan, 1.0, 2.0, -3.0, 0.5, 4.0]), np.ones(6))
    cases["zeros, start -0.0"] = (np.array([-0.0, -1.0, 0.0, -2.0, 0.0, -0.0]), np.ones(6))
    cases["zeros, first 0.0 wins"] = (np.array([-1.0, 0.0, -0.0, -3.0, 0.0, -2.0]),
                                      np.ones(6))
    # lane 0 holds -0.0, lane 1 0.0: the loop runs again as written, and -0.0 came first
    cases["zeros of both signs in lanes"] = (np.array([-1.0, -0.0, 0.0, -2.0, -3.0, 0.0]),
                                             np.ones(6))
    # the search for the winner compares 16 values at a time: a tie in the third block
    long = np.linspace(-1.0, 1.0, 50)
    long[[33, 41]], long[20] = 5.0, np.nan
    cases["a tie past two blocks"] = (long, np.ones(50))
    cases["one element"] = (np.array([1.5]), np.array([2.0]))
    cases["ties of products"] = (np.array([1.0, 2.0, 1.0, 4.0, 0.5]),
                                 np.array([4.0, 2.0, 4.0, 1.0, 8.0]))
    return cases


@pytest.mark.slow  # numba compiles the reverse code of three functions twice
def test_gradients_have_the_bits_of_the_loop_as_written(modules):
    rewritten, as_written = modules
    cases = _cases()
    saved = numba_stage.extremum_winners
    numba_stage.extremum_winners = lambda tree, namer, types, adjoints: tree
    try:
        want = {(name, case): _gradients(getattr(as_written, name), *xy)
                for name in NAMES for case, xy in cases.items()}
        assert "numba_extremum_winners" not in _reverse_source(as_written.top, *cases["random"])
    finally:
        numba_stage.extremum_winners = saved
    for name in NAMES:
        assert "numba_extremum_winners" in _reverse_source(getattr(rewritten, name),
                                                           *cases["random"])
        for case, xy in cases.items():
            got = _gradients(getattr(rewritten, name), *xy)
            with np.errstate(all="ignore"):
                forward = srcad.jacfwd(getattr(rewritten, name), argnums=(0, 1),
                                       backend="python")(*xy)
            for g, w, f in zip(got, want[name, case], forward):
                differ = g.view(np.uint64) != w.view(np.uint64)
                # where the loop as written adds 0.0 * NaN (a NaN element not taken):
                # forward mode's value
                assert np.isnan(w[differ]).all(), (name, case, g, w)
                np.testing.assert_array_equal(g[differ], f[differ])
    # the loop as written gives y's adjoint NaN there from x[i] * 0.0 where x[i] is NaN
    assert not np.isnan(_gradients(rewritten.top, *cases["NaN inside"])[1]).any()
    # the first of tied maxima takes the derivative; NaN is never taken; a NaN start keeps it
    assert _gradients(rewritten.top, *cases["ties"])[0].tolist() == [0.0, 2.0] + [0.0] * 7
    assert _gradients(rewritten.top, *cases["NaN inside"])[0][3] == 2.0
    assert _gradients(rewritten.bottom, *cases["ties, -tie"])[0][1] == 2.0 * (-3.0 - 1.0)
    nan_first = _gradients(rewritten.top, *cases["NaN first"])
    assert nan_first[0].tolist() == [2.0] + [0.0] * 5 and math.isnan(nan_first[1][0])
    assert _gradients(rewritten.top, *cases["zeros, start -0.0"])[0].tolist() \
        == [2.0] + [0.0] * 5
    assert _gradients(rewritten.top, *cases["zeros, first 0.0 wins"])[0].tolist() \
        == [0.0, 2.0] + [0.0] * 4
    assert np.flatnonzero(_gradients(rewritten.top, *cases["a tie past two blocks"])[0]) \
        .tolist() == [33]
    assert _gradients(rewritten.top, *cases["zeros of both signs in lanes"])[0].tolist() \
        == [0.0, 2.0] + [0.0] * 4


@pytest.mark.slow  # numba compiles forward and reverse code
def test_an_infinite_element_that_is_not_taken_gets_forward_modes_zero(modules):
    rewritten = modules[0]
    x, y = np.array([1.0, -1.0, 2.0, 0.5]), np.array([1.0, math.inf, 1.0, 1.0])
    got = _gradients(rewritten.top, x, y)
    with np.errstate(all="ignore"):
        forward = srcad.jacfwd(rewritten.top, argnums=(0, 1), backend="python")(x, y)
        python_reverse = _gradients(rewritten.top, x, y, backend="python")
    for g, f in zip(got, forward):
        np.testing.assert_array_equal(g, f)
    assert got[0][1] == 0.0 and math.isnan(python_reverse[0][1])  # 0.0 * inf as written


@pytest.mark.slow  # numba compiles forward and reverse code of three functions
@pytest.mark.parametrize("name", NAMES)
def test_gradients_against_differences_forward_mode_and_the_python_backend(modules, name):
    f = getattr(modules[0], name)
    rng = np.random.default_rng(11)
    x, y = rng.normal(size=13), rng.uniform(0.5, 2.0, size=13)
    check_grads(f, srcad.Duplicated(x, np.zeros(13)), srcad.Duplicated(y, np.zeros(13)),
                backend="numba", modes=("fwd", "rev"))
    for mixed in ((srcad.Duplicated(x, np.zeros(13)), y), (x, srcad.Duplicated(y, np.zeros(13)))):
        check_grads(f, *mixed, backend="numba", modes=("rev",))
    for got, want in zip(_gradients(f, x, y), _gradients(f, x, y, backend="python")):
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    by_y = srcad.grad(f, argnums=1, backend="numba")(srcad.Const(x), y)
    np.testing.assert_allclose(by_y, _gradients(f, x, y, backend="python")[1], rtol=1e-13,
                               atol=1e-15)


@pytest.mark.slow  # numba compiles the reverse code of two functions
@pytest.mark.parametrize("f", [read_elsewhere, value_first])
def test_loops_left_as_written_keep_their_gradients(f):
    x = np.array([0.5, 2.0, -1.0, 2.0, np.nan, 0.25, 1.5])
    y = np.array([1.0, 1.0, 2.0, 1.0, 1.0, 3.0, 1.0])
    for got, want in zip(_gradients(f, x, y), _gradients(f, x, y, backend="python")):
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
