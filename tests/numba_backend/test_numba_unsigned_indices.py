"""The numba backend indexes by loop counters that are never negative without Python's
wraparound (`np.uint64(j)` in the module numba compiles, srcad/transform/numba_indices.py), as
it does by srcad's tape counters and by shifted counters provably >= 0, so LLVM can vectorize
the loop; every index that may be negative keeps the wraparound, the derivatives are
unchanged, and `srcad.source` shows the subscripts as written."""

import inspect

import numpy as np
import pytest

import srcad
import srcad.testing
from srcad import api


def _triangular(ltri, x):
    # gmm's Qtimesx: the inner counter starts at i + 1, which LLVM does not prove >= 0
    d = len(x)
    out = np.zeros(d)
    idx = 0
    for i in range(d):
        for j in range(i + 1, d):
            out[j] = out[j] + ltri[idx] * x[i]
            idx += 1
    total = 0.0
    for j in range(d - 1, -1, -1):
        total = total + out[j] * out[j]
    return total


def _triangular_rows(ltri, x):
    # gmm's Qtimesx per row: the counter's region runs once per row, so the reverse sweep
    # pops the value each run left from the tape of ints before undoing its steps
    k, d = x.shape
    out = np.zeros(d)
    total = 0.0
    for r in range(k):
        for j in range(d):
            out[j] = x[r, j]
        idx = 0
        for i in range(d):
            for j in range(i + 1, d):
                out[j] = out[j] + ltri[r, idx] * x[r, i]
                idx += 1
        for j in range(d):
            total = total + out[j] * out[j]
    return total


def _counter_from(x, start):
    # a counter stepped up from a start that may be negative: x[idx] reads from the end
    idx = start
    total = 0.0
    for i in range(3):
        total = total + x[idx] * x[i]
        idx += 1
    return total


def _from_the_end(x, start):
    # a counter that is negative: x[j] reads from the end of x, as in Python
    total = 0.0
    for j in range(-3, 0):
        total = total + x[j] * x[j]
    for j in range(start, 0):
        total = total + 2.0 * x[j]
    return total


def _lowered_counter(x):
    # a counter stepped down is not known to stay >= 0
    idx = len(x) - 1
    total = 0.0
    for i in range(len(x)):
        total = total + x[idx] * x[i]
        idx -= 1
    return total


def _stepped(x):
    # GradBench ode's stages: y is overwritten every step, so the reverse sweep reads the
    # values of y[i - 1] back from the tape, by the tape's counter
    y = np.zeros(len(x))
    z = np.zeros(len(x))
    for _ in range(3):
        z[0] = x[0]
        for j in range(1, len(x)):
            z[j] = x[j] * y[j - 1]
        for i in range(len(x)):
            y[i] = y[i] + 0.5 * z[i]
    return y[len(x) - 1] + y[1]


def _per_loop(x):
    # j runs over range(1, n), range(n) and range(-2, 0): in the first loop j - 1 >= 0,
    # in the last x[j] reads from the end of x
    n = len(x)
    total = 0.0
    for j in range(1, n):
        total = total + x[j - 1] * x[j]
    for j in range(n):
        total = total + 0.5 * x[j]
    for j in range(-2, 0):
        total = total + x[j] * x[j] * x[j]
    return total


def _source(f, *args):
    """The reverse code's module as numba compiles it."""
    call = api._arguments(f, srcad.Reverse, args, None, "numba")
    compiled = api._compiled(f, call.request(srcad.Reverse, "numba"))
    assert "np.uint64" not in compiled.source  # what srcad.source shows
    return inspect.getsource(compiled.function.py_func)


def _statements(code):
    """`code` without its comments, in one line without spaces."""
    return "".join("".join(line.split()) for line in code.splitlines()
                   if not line.lstrip().startswith("#"))


def test_a_triangular_loop_indexes_without_wraparound():
    d = 5
    ltri, x = np.linspace(0.1, 1.0, d * (d - 1) // 2), np.linspace(-1.0, 1.0, d)
    code = _source(_triangular, srcad.Duplicated(ltri, np.zeros_like(ltri)),
                   srcad.Duplicated(x, np.zeros_like(x)))
    # idx: 0, then only += 1; the reverse sweep's idx -= 1 restores forward values
    flat = _statements(code)
    assert "out[np.uint64(j)]=out[np.uint64(j)]+ltri[np.uint64(idx)]*x[np.uint64(i)]" in flat
    assert "idx -= 1" in code and "ltri_bar[np.uint64(idx)]" in flat
    assert "ltri[idx]" not in flat
    srcad.testing.check_grads(_triangular, srcad.Duplicated(ltri, np.zeros_like(ltri)),
                              srcad.Duplicated(x, np.zeros_like(x)), modes=("rev",),
                              backend="numba")


@pytest.mark.parametrize("start", [-4, -2])
def test_negative_counters_keep_pythons_wraparound(start):
    x = np.array([0.5, -1.0, 2.0, 3.0, -0.25])
    code = _source(_from_the_end, srcad.Duplicated(x, np.zeros_like(x)), srcad.Const(start))
    assert "np.uint64" not in code
    shadow = np.zeros_like(x)
    srcad.autodiff(srcad.Reverse, _from_the_end, srcad.Duplicated(x, shadow),
                   srcad.Const(start), backend="numba")
    expected = np.zeros_like(x)  # by hand: d/dx of sum x[-3:]**2 + 2 sum x[start:]
    expected[-3:] += 2.0 * x[-3:]
    expected[start:] += 2.0
    np.testing.assert_allclose(shadow, expected, rtol=1e-15)


def test_tape_counters_and_shifted_counters_index_without_wraparound():
    x = np.linspace(0.5, 1.5, 6)
    code = _source(_stepped, srcad.Duplicated(x, np.zeros_like(x)))
    # the tape counter is stepped down in the reverse sweep, yet never below 0: srcad's
    # transform pops only what it pushed (tapes.ArrayTapes.counters)
    assert "tape_size -= 1" in code
    assert "tape[np.uint64(tape_size)]" in code and "tape[tape_size]" not in code
    assert "y[np.uint64(j - 1)]" in code  # j >= 1
    assert "y_bar[np.uint64(j - 1)]" in code
    srcad.testing.check_grads(_stepped, srcad.Duplicated(x, np.zeros_like(x)),
                              modes=("rev",), backend="numba")
    shadow = np.zeros_like(x)
    srcad.autodiff(srcad.Reverse, _stepped, srcad.Duplicated(x, shadow), backend="python")
    numba_shadow = np.zeros_like(x)
    srcad.autodiff(srcad.Reverse, _stepped, srcad.Duplicated(x, numba_shadow), backend="numba")
    np.testing.assert_allclose(numba_shadow, shadow, rtol=1e-13)


def test_a_counter_stepped_down_keeps_the_wraparound():
    x = np.array([0.5, -1.0, 2.0])
    code = _source(_lowered_counter, srcad.Duplicated(x, np.zeros_like(x)))
    assert "x[idx]" in code and "np.uint64(idx)" not in code
    srcad.testing.check_grads(_lowered_counter, srcad.Duplicated(x, np.zeros_like(x)),
                              modes=("rev",), backend="numba")


def test_each_loop_bounds_its_own_counter_and_negative_indices_still_wrap():
    x = np.array([0.5, -1.0, 2.0, 3.0, -0.25])
    code = _source(_per_loop, srcad.Duplicated(x, np.zeros_like(x)))
    assert "x[np.uint64(j - 1)] * x[np.uint64(j)]" in code
    assert "x[j] * x[j] * x[j]" in code  # j < 0 there: Python's wraparound kept
    shadow = np.zeros_like(x)
    srcad.autodiff(srcad.Reverse, _per_loop, srcad.Duplicated(x, shadow), backend="numba")
    expected = np.full_like(x, 0.5)  # by hand: d/dx of sum x[j-1] x[j] + sum x / 2 + x[-2:]**3
    expected[:-1] += x[1:]
    expected[1:] += x[:-1]
    expected[-2:] += 3.0 * x[-2:] ** 2
    np.testing.assert_allclose(shadow, expected, rtol=1e-15)
    srcad.testing.check_grads(_per_loop, srcad.Duplicated(x, np.zeros_like(x)),
                              modes=("fwd", "rev"), backend="numba")


def test_a_counter_popped_from_the_tape_indexes_without_wraparound():
    k, d = 3, 5
    ltri = np.linspace(-0.7, 0.9, k * d * (d - 1) // 2).reshape(k, d * (d - 1) // 2)
    x = np.linspace(-1.0, 1.2, k * d).reshape(k, d)
    args = (srcad.Duplicated(ltri, np.zeros_like(ltri)), srcad.Duplicated(x, np.zeros_like(x)))
    code = _source(_triangular_rows, *args)
    assert "idx = int_tape[" in code and "idx -= 1" in code  # popped, then stepped back
    flat = _statements(code)
    assert "ltri[np.uint64(r),np.uint64(idx)]" in flat
    assert "ltri_bar[np.uint64(r),np.uint64(idx)]" in flat
    assert ",idx]" not in flat  # every subscript by idx reads it unsigned
    srcad.testing.check_grads(_triangular_rows, *args, modes=("fwd", "rev"), backend="numba")
    shadows = [np.zeros_like(ltri), np.zeros_like(x)]
    srcad.autodiff(srcad.Reverse, _triangular_rows, srcad.Duplicated(ltri, shadows[0]),
                   srcad.Duplicated(x, shadows[1]), backend="python")
    numba_shadows = [np.zeros_like(ltri), np.zeros_like(x)]
    srcad.autodiff(srcad.Reverse, _triangular_rows, srcad.Duplicated(ltri, numba_shadows[0]),
                   srcad.Duplicated(x, numba_shadows[1]), backend="numba")
    for got, want in zip(numba_shadows, shadows):
        np.testing.assert_allclose(got, want, rtol=1e-13)


@pytest.mark.parametrize("start", [-2, 1])
def test_a_counter_from_an_unknown_start_keeps_the_wraparound(start):
    x = np.array([0.5, -1.0, 2.0, 3.0, -0.25])
    code = _source(_counter_from, srcad.Duplicated(x, np.zeros_like(x)), srcad.Const(start))
    assert "x[idx]" in code and "np.uint64(idx)" not in code
    shadow = np.zeros_like(x)
    srcad.autodiff(srcad.Reverse, _counter_from, srcad.Duplicated(x, shadow),
                   srcad.Const(start), backend="numba")
    expected = np.zeros_like(x)  # by hand: d/dx of sum_i x[start + i] x[i], Python's indexing
    for i in range(3):
        expected[(start + i) % len(x)] += x[i]
        expected[i] += x[start + i]
    np.testing.assert_allclose(shadow, expected, rtol=1e-15)


def test_gmm_port_reads_its_packed_triangle_unsigned_in_both_sweeps():
    # GradBench gmm's loop form: `Qtimesx` inlined per point and cluster, its counter popped
    # per call and stepped back; with the wraparound select LLVM left the reverse loop scalar
    # (the gradient twice as slow at d=64, k=5); its values are checked in
    # tests/docs_examples/test_gradbench_ports.py
    from srcad.gradbench.ports import gmm
    problem = gmm.Problem(gmm.generate(d=3, k=2, n=4))
    args = [srcad.Duplicated(a, np.zeros_like(a)) for a in problem.independent]
    flat = _statements(_source(gmm.gmm_loops, *args, *problem.loop_constants()))
    assert "qtimesx_ltri[np.uint64(qtimesx_lparamsidx)]" in flat
    assert "qtimesx_ltri_bar[np.uint64(qtimesx_lparamsidx)]" in flat
    assert "[qtimesx_lparamsidx]" not in flat
