"""numba tapes: the pushes of loops nested in a hot loop are reserved once, before the outermost
loop, when their trip counts are bounded there (srcad/transform/reverse/trip_bounds.py): a helper's
own `n = len(v)` is read through, a triangular `range(i + 1, n)` / `range(i)` is bounded by the
enclosing index's extremes. The derivatives stay right (the over-reserved space is only space),
and a bound the rules cannot see through (a step) keeps its reservation inside the loop.
"""

import math

import gast
import numpy as np
import pytest

import srcad
from srcad.testing import check_grads


def _lower_times(ltri, v, out):
    """out = L v, L unit lower triangular with its strictly lower part in `ltri` by columns
    (the shape of GradBench gmm's Qtimesx)."""
    n = len(v)
    for i in range(n):
        out[i] = v[i]
    idx = 0
    for i in range(n):
        for j in range(i + 1, n):
            out[j] = out[j] + ltri[idx] * v[i]
            idx += 1


def triangular(x, ltri):
    """A data loop around a helper with a triangular nest, and a `range(i)` nest."""
    m = len(x)
    v = np.zeros(m)
    w = np.zeros(m)
    s = 0.0
    for t in range(3):
        for j in range(m):
            v[j] = math.sin(x[j] * (t + 1))
        _lower_times(ltri, v, w)
        for i in range(m):
            for j in range(i):
                s = s + math.cos(w[i] * w[j])
    return s


def stepped(x):
    """A triangular range with a step: not bounded, reserved where it runs."""
    m = len(x)
    s = 0.0
    for t in range(2):
        for i in range(m):
            for j in range(i, m, 2):
                s = s + math.sin(x[j] * s + t)
    return s


def _reserves_inside_loops(source: str) -> int:
    """How many `reserve_tape` calls of the forward sweep sit inside a for loop."""
    forward = source.split("# reverse sweep")[0]
    module = gast.parse(_body_only(forward))
    count = 0
    for node in gast.walk(module):
        if isinstance(node, gast.For):
            count += sum(1 for n in gast.walk(node) if isinstance(n, gast.Call)
                         and isinstance(n.func, gast.Name) and n.func.id == "reserve_tape")
    return count


def _body_only(forward: str) -> str:
    """The forward sweep's statements, dedented into a module (the def line and docstring
    dropped)."""
    lines = forward.split("\n")
    start = next(i for i, line in enumerate(lines) if "# forward sweep" in line)
    body = [line[4:] for line in lines[start:]]
    return "\n".join(body)


def _arguments(m):
    rng = np.random.default_rng(3)
    x = rng.uniform(0.1, 1.0, m)
    ltri = rng.uniform(-1.0, 1.0, m * (m - 1) // 2)
    return x, ltri


def test_nested_triangular_loops_reserve_their_tape_before_the_outermost_loop():
    x, ltri = _arguments(5)
    source = srcad.source(triangular, srcad.Reverse, srcad.Duplicated(x, np.zeros_like(x)),
                          srcad.Duplicated(ltri, np.zeros_like(ltri)), backend="numba")
    assert "reserve_tape(" in source
    assert _reserves_inside_loops(source) == 0  # before: one per i, per nest, per t


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_nested_triangular_loops_differentiate_right_with_bounded_reservations():
    for m in (1, 2, 6):  # no triangle, one entry, tapes grown from 64 entries
        x, ltri = _arguments(m)
        check_grads(triangular, srcad.Duplicated(x, np.zeros_like(x)),
                    srcad.Duplicated(ltri, np.zeros_like(ltri)), modes=("rev",),
                    backend="numba")


def test_a_stepped_inner_range_keeps_its_reservation_inside_the_loop():
    x = np.linspace(0.1, 0.9, 7)
    source = srcad.source(stepped, srcad.Reverse, srcad.Duplicated(x, np.zeros_like(x)),
                          backend="numba")
    assert _reserves_inside_loops(source) > 0
    check_grads(stepped, srcad.Duplicated(x, np.zeros_like(x)), modes=("rev",),
                backend="numba")
