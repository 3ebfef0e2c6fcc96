"""Forward and vector mode: a scalar whose tangent a path reads before any assignment sets it
(a Const argument that becomes active on one path only) has a zero tangent there. Every
tangent style (Scalar, Unrolled, Stacked, numba Looped) and both backends; the expected
values are derived by hand in each function's docstring."""

import pytest

import srcad
from srcad import BatchDuplicated, Duplicated, Forward

# numba compiles each case for seconds: `make test` runs it in forward mode only
BACKENDS = ["python", "numba"]


def squash_or_scale(a, b):
    """a > b: a*a (d/db = 0); else a*b (d/db = a). `a` is Const: its tangent is only set
    on the path that multiplies it, and read on both."""
    if a > b:
        a = a * a
    else:
        a = a * b
    return a


def grow_in_loop(s, x):
    """s * (x + 1)**3: d/dx = 3 s (x + 1)**2. The Const `s` is read at the top of the first
    iteration, before the loop body sets its tangent."""
    for _ in range(3):
        s = s * x + s
    return s


def add_if_positive(a, b):
    """2 (a + b) when b > 0, else 2 a: d/db = 2 or 0. `a += b` adds to a tangent never set."""
    if b > 0.0:
        a += b
    return 2.0 * a


def overwrite_first(a, b):
    """b * b: d/db = 2 b. The Const `a` is active but its tangent is set before any read
    (numba vector mode needs a lane array for it all the same)."""
    a = b * b
    return a + 1.0


def while_sets_late(a, b):
    """The tangent of `a` is read at the top of the loop, set after; a = a*b + b twice:
    a (b**2) + b**2 + b, d/db = 2 a b + 2 b + 1."""
    k = 0
    while k < 2:
        t = a * b
        a = t + b
        k += 1
    return a


CASES = [
    # (function, Const a, varied b, hand-derived d/db)
    (squash_or_scale, 0.7, -0.45, 0.0),
    (squash_or_scale, 0.3, 0.5, 0.3),
    (grow_in_loop, 0.5, 0.2, 3 * 0.5 * 1.2 ** 2),
    (add_if_positive, 1.0, 0.5, 2.0),
    (add_if_positive, 1.0, -0.5, 0.0),
    (overwrite_first, 4.0, 0.5, 1.0),
    (while_sets_late, 0.7, 0.4, 2 * 0.7 * 0.4 + 2 * 0.4 + 1.0),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, a, b, expected", CASES)
def test_forward_reads_unset_tangent_as_zero(f, a, b, expected, backend):
    tangent = srcad.autodiff(Forward, f, a, Duplicated(b, 1.0), backend=backend)
    assert tangent == pytest.approx(expected, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("backend, batch", [("python", "unrolled"), ("python", "stacked"),
                                            pytest.param("numba", None, marks=pytest.mark.slow)])
@pytest.mark.parametrize("f, a, b, expected", CASES)
def test_vector_reads_unset_tangent_as_zero(f, a, b, expected, backend, batch):
    seeds = [1.0, -2.0, 0.5]
    tangents = srcad.autodiff(Forward, f, a, BatchDuplicated(b, seeds), batch=batch,
                                 backend=backend)
    assert [float(t) for t in tangents] == pytest.approx(
        [s * expected for s in seeds], rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("f, a, b, expected", CASES)
def test_reverse_agrees(f, a, b, expected):
    """The same hand-derived values in reverse mode (which was already right)."""
    (_, db) = srcad.autodiff(srcad.Reverse, f, a, srcad.Active(b))
    assert db == pytest.approx(expected, rel=1e-12, abs=1e-14)


def test_only_unset_tangents_are_zeroed():
    """A tangent every path sets before reading it gets no entry zero (generated code stays
    as it was for functions without the problem)."""
    def h(a, b):
        a = b * b
        return a

    source = srcad.source(h, Forward, 1.0, Duplicated(0.5, 1.0))
    assert "a_dot = 0.0" not in source
    source = srcad.source(squash_or_scale, Forward, 1.0, Duplicated(0.5, 1.0))
    assert "a_dot = 0.0" in source
