"""Loop-invariant code motion out of loop nests (numba backend, srcad/transform/normalize/hoist.py):
the mixture's per-component values leave the data loop, and every nest where moving a value
would change a result (aliasing writes, loop-carried values, early exits, empty loops, values
read after the loop) still gets exact derivatives in every mode."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

pytest.importorskip("numba")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from mixture import mixture_gradient_numpy, mixture_loglikelihood  # noqa: E402


def _loop_bodies(source: str, header="for n in range(len(data))") -> str:
    """The generated forward sweep's outer loop (from its header to the reverse sweep)."""
    start = source.index(header)
    return source[start:source.index("# reverse sweep")]


def test_mixture_per_component_values_leave_the_data_loop():
    params = np.array([0.7, 1.3, -0.4, 0.9, 0.8, 1.6])
    data = np.linspace(-2.0, 2.0, 9)
    source = srcad.source(mixture_loglikelihood, srcad.Reverse,
                          srcad.Duplicated(params, np.zeros(6)), data, backend="numba")
    loop = _loop_bodies(source)
    assert "math.sqrt" not in loop and " / " not in loop  # hoisted, divisions as reciprocals
    assert "math.sqrt" in source  # computed once per component, ahead
    python_source = srcad.source(mixture_loglikelihood, srcad.Reverse,
                                 srcad.Duplicated(params, np.zeros(6)), data)
    assert "math.sqrt" in _loop_bodies(python_source)  # the python backend is left alone
    grad = np.zeros(6)
    srcad.autodiff(srcad.Reverse, mixture_loglikelihood, srcad.Duplicated(params, grad), data,
                   backend="numba")
    np.testing.assert_allclose(grad, mixture_gradient_numpy(params, data), rtol=1e-12)


def writes_the_array_it_reads(x, s):
    """The outer loop writes x, which the inner loop reads: nothing may be hoisted."""
    total = 0.0
    for n in range(len(x)):
        for k in range(len(s)):
            total += x[k] / (s[k] * s[k] + 1.0)
        x[n] = x[n] * 0.5 + total * 0.01
    return total


def aliased(y, x):
    """Called with y and x the same array: writes through y change what x[k] reads."""
    total = 0.0
    for n in range(3):
        for k in range(len(x)):
            total += math.sin(x[k] * 2.0) / (1.5 + x[k] * x[k])
        y[n] = y[n] + total
    return total


def loop_carried(x, c):
    """`t` is read before it is assigned in the inner body: its value crosses iterations."""
    total = 0.0
    t = 1.0
    for n in range(len(c)):
        for k in range(len(x)):
            total += c[n] * math.exp(t * 0.5) / (x[k] + 2.0)
            t = x[k] * x[k]
    return total


def carried_into_the_first_iteration(x, c):
    """The first iteration reads the value `s` had before the nest (found by the fuzzer: the
    precomputation once assigned `s` ahead of the nest)."""
    total = 0.0
    s = 1.0
    for n in range(len(c)):
        for k in range(len(x)):
            total += c[n] * s
            s = x[k]
            total += c[n] * math.exp(s * s)
    return total


def early_exit(x, c):
    total = 0.0
    for n in range(len(c)):
        if total > 5.0:
            break
        for k in range(len(x)):
            total += c[n] * math.exp(x[k] * 0.3) / (x[k] * x[k] + 1.0)
    return total


def empty_outer_loop(x, c):
    """With no data the primal never divides by zero; the hoisted precomputation must not run."""
    total = x[0]
    for n in range(len(c)):
        for k in range(len(x)):
            total += c[n] / x[k]
    return total


def value_read_after_the_loop(x, c):
    total = 0.0
    s = 0.0
    for n in range(len(c)):
        for k in range(len(x)):
            s = x[k] * x[k]
            total += c[n] * math.sqrt(s + 1.0)
    return total + s


def sibling_loops_share_names(x, c):
    total = 0.0
    for n in range(len(c)):
        for k in range(len(x)):
            v = x[k] * 1.5
            total += c[n] / (v * v + 1.0)
        for k in range(len(x) - 1):
            v = x[k + 1] - x[k]
            total += c[n] * math.exp(-v * v)
    return total + v * k


def rebound_in_the_outer_loop(x, c):
    total = 0.0
    w = 2.0
    for n in range(len(c)):
        for k in range(len(x)):
            total += c[n] / (x[k] * w + 3.0)
        w = w + c[n]
    return total


def conditional_expression(x, c):
    total = 0.0
    for n in range(len(c)):
        for k in range(len(x)):
            total += c[n] * (x[k] if c[n] > 0.0 else 1.0 / (x[k] * x[k] + 1.0))
    return total


def inner_range_with_start(x, c):
    total = 0.0
    for n in range(len(c)):
        for k in range(1, len(x)):
            total += c[n] * math.log(x[k] * x[k] + x[k - 1] * x[k - 1])
    return total


def repeated_value(x, c):
    total = 0.0
    for n in range(len(c)):
        for k in range(len(x)):
            total += c[n] / (x[k] * x[k] + 1.0) + c[n] * c[n] / (x[k] * x[k] + 1.0)
    return total


def index_rebound_in_the_body(x, c):
    total = 0.0
    for n in range(len(c)):
        for k in range(len(x) // 2):
            total += c[n] / (x[k] * x[k] + 1.0)
            k = k + len(x) // 2  # the index rebound: beyond what a precomputation covers
            total += c[n] * math.exp(x[k] * 0.5) / (x[k] * x[k] + 2.0)
    return total


def matrix_rows(a, c):
    total = 0.0
    for n in range(len(c)):
        for k in range(a.shape[0]):
            total += c[n] * math.exp(a[k, 0] - a[k, 1]) / (a[k, 1] ** 2 + 1.0)
    return total


X = np.array([0.6, -1.1, 1.7, 0.3])
C = np.array([0.5, -0.8, 1.2])


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("f", [writes_the_array_it_reads, loop_carried, early_exit,
                               carried_into_the_first_iteration,
                               value_read_after_the_loop, sibling_loops_share_names,
                               rebound_in_the_outer_loop, conditional_expression,
                               inner_range_with_start, repeated_value,
                               index_rebound_in_the_body])
def test_hoisting_keeps_every_nest_exact(f):
    if f is writes_the_array_it_reads:
        args = (srcad.Duplicated(X.copy(), np.zeros(4)),
                srcad.Duplicated(np.array([0.5, 1.5, -0.7]), np.zeros(3)))
    else:
        args = (srcad.Duplicated(X.copy(), np.zeros(4)), srcad.Duplicated(C.copy(), np.zeros(3)))
    check_grads(f, *args, backend="numba")


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_matrix_elements_and_repeated_values_are_hoisted_once():
    a = np.array([[0.2, 0.7], [-0.4, 1.1], [0.9, -0.3]])
    check_grads(matrix_rows, srcad.Duplicated(a, np.zeros((3, 2))),
                srcad.Duplicated(C.copy(), np.zeros(3)), backend="numba")
    source = srcad.source(matrix_rows, srcad.Reverse, srcad.Duplicated(a, np.zeros((3, 2))),
                          srcad.Duplicated(C.copy(), np.zeros(3)), backend="numba")
    assert "math.exp(a[k, 0] - a[k, 1])" not in _loop_bodies(source, "for n in range(len(c))")
    # one array hoisted: it and its derivative carved from the workspace, in either mode
    for mode in (srcad.Forward, srcad.Reverse):
        source = srcad.source(repeated_value, mode, srcad.Duplicated(X, np.zeros(4)),
                              srcad.Duplicated(C, np.zeros(3)), backend="numba")
        assert "np.empty(" not in source and "np.zeros" not in source
        assert source.count(" = work[") == 2


def three_nests(x, c):
    """Three hoisted nests; the middle one's inner loop has a negative stop (no trips)."""
    total = 0.0
    for n in range(len(c)):
        for k in range(len(x)):
            total += c[n] / (x[k] * x[k] + 1.0)
    for n in range(len(c)):
        for k in range(len(x) - 9):
            total += c[n] * math.exp(x[k])
    for n in range(len(c)):
        for k in range(len(x)):
            total += c[n] * c[n] * math.sin(2.0 * x[k])
    return total


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_workspace_arrays_of_nests_never_overlap():
    """numba reverse mode keeps hoisted arrays in its workspace, nest after nest; a nest whose
    inner loop runs no trip (a negative stop) must not move the next nest's arrays back over
    the first's, which the reverse sweep still reads."""
    source = srcad.source(three_nests, srcad.Reverse, srcad.Duplicated(X, np.zeros(4)),
                          srcad.Duplicated(C, np.zeros(3)), backend="numba")
    assert source.count("= reserve_tape(work") == 3
    check_grads(three_nests, srcad.Duplicated(X.copy(), np.zeros(4)),
                srcad.Duplicated(C.copy(), np.zeros(3)), backend="numba")


def test_an_alias_of_a_written_argument_is_refused_on_both_backends():
    """y and x the same array, y written: srcad's derivative code keeps one adjoint per
    argument, so a write through one would not reach the other's; refused rather than
    differentiated (the numba backend hoists, the python backend does not: both refuse)."""
    for backend in ("python", "numba"):
        a, da = X.copy(), np.zeros(4)
        with pytest.raises(srcad.ArgumentError, match="aliased arguments"):
            srcad.autodiff(srcad.ReverseWithPrimal, aliased, srcad.Duplicated(a, da),
                           srcad.Duplicated(a, da), backend=backend)
        np.testing.assert_array_equal(a, X)  # refused before f runs


def test_empty_outer_loop_does_not_run_the_precomputation():
    x = np.array([1.0, 0.0, 2.0])
    grad = np.zeros(3)
    value = srcad.autodiff(srcad.ReverseWithPrimal, empty_outer_loop,
                           srcad.Duplicated(x, grad), np.zeros(0), backend="numba")[1]
    assert value == 1.0 and grad.tolist() == [1.0, 0.0, 0.0]


def powers(x, c):
    total = 0.0
    for n in range(len(c)):
        for k in range(len(x)):
            d = c[n] - x[k]
            total += d ** 2 + (d * 0.5) ** 3 - d ** 4 * 0.01 + x[k] ** 2
    return total


def test_small_integer_powers_become_products_for_numba():
    """numba computes `e ** 2` with a loop, which keeps LLVM from vectorizing the loop around
    it; srcad writes `e * e` (the same product) for the numba backend."""
    args = (srcad.Duplicated(X.copy(), np.zeros(4)), srcad.Duplicated(C.copy(), np.zeros(3)))
    check_grads(powers, *args, backend="numba")
    source = srcad.source(powers, srcad.Reverse, *args, backend="numba")
    code = [line for line in source.splitlines() if not line.strip().startswith("#")]
    assert not any("** 2" in line or "** 3" in line for line in code)
    assert "d * d" in source and "** 4" in source
