"""`added_into(t, v)` (srcad/runtime/numba_semantics.py), what compiled code runs for
`t += v` of a name, against NumPy's `t += v`: C arrays of one shape, strided views, a row or a
number broadcast, a right side overlapping the target (NumPy reads it whole first), and the
types left to numba's own `+=` (an int array, a number target)."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from srcad.runtime.numba_semantics import added_into  # noqa: E402

RNG = np.random.default_rng(11)


@numba.njit
def _added(t, v):
    t = added_into(t, v)
    return t


@pytest.mark.slow  # numba compiles added_into for each pair of types
def test_added_into_is_numpys_in_place_addition():
    base = RNG.standard_normal((4, 3, 5))
    cases = [
        (base.copy(), RNG.standard_normal((4, 3, 5))),  # C arrays of one shape: flat
        (base.copy()[:, :, None, :], RNG.standard_normal((4, 3, 1, 5))),  # a 4-D view
        (base.copy(), RNG.standard_normal(5)),  # a row broadcast
        (base.copy()[:, 1, :], RNG.standard_normal((4, 1))),  # a column into a view
        (base.copy(), 2.5),  # a number
    ]
    for t, v in cases:
        want = t.copy()
        want += v
        got = _added(t, v)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(t, want)  # in place: the same memory
    x = np.arange(6.0)
    want = x.copy()
    want[1:] += want[:-1].copy()
    view = x[1:]
    _added(view, x[:-1])  # overlapping: the old values added, as NumPy does
    np.testing.assert_array_equal(x, want)
    ints = np.arange(4)
    np.testing.assert_array_equal(_added(ints, np.arange(4)), 2 * np.arange(4))
    assert _added(1.5, 2.0) == 3.5
