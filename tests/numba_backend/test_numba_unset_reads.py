"""numba reverse mode of a function whose local is assigned on one arm of a branch and read
by the reverse sweep of that arm only (the replayed branch is chosen from a taped flag, which
numba cannot connect to the forward test), and the definite-assignment pass that finds such
reads."""

import math

import numpy as np
import pytest

import srcad


def early_return(x, a):
    k = 0
    if x[0] > a:
        return x[1] * x[1]
    t = x[2] * a
    for i in range(3):
        t = 0.5 * t + math.sin(x[i])
    return t * t + k


def test_numba_reverse_of_a_local_assigned_on_one_arm_equals_the_hand_derivative():
    x, a = np.array([0.1, 0.7, 0.4]), 0.3  # x[0] <= a: the loop arm
    grad = np.zeros(3)
    _, a_bar = srcad.autodiff(srcad.Reverse, early_return, srcad.Duplicated(x, grad),
                                 srcad.Active(a), backend="numba")
    t, dt = x[2] * a, np.array([0.0, 0.0, a, x[2]])  # d/d(x0, x1, x2, a), by hand
    for i in range(3):
        e = np.zeros(4)
        e[i] = math.cos(x[i])
        t, dt = 0.5 * t + math.sin(x[i]), 0.5 * dt + e
    np.testing.assert_allclose(np.append(grad, a_bar), 2 * t * dt, rtol=1e-12)
    grad = np.zeros(3)  # and the other arm
    srcad.autodiff(srcad.Reverse, early_return, srcad.Duplicated(np.array([0.9, 0.7, 0.4]),
                                                                 grad), srcad.Active(a),
                   backend="numba")
    np.testing.assert_allclose(grad, [0.0, 1.4, 0.0], rtol=1e-12)


@pytest.mark.parametrize("source, unset", [
    ("if c:\n    t = 1.0\nelse:\n    t = 2.0\ny = t", set()),  # both arms assign
    ("if c:\n    t = 1.0\ny = t", {"t"}),  # one arm
    ("for i in range(n):\n    t = 1.0\ny = t", {"t"}),  # a loop may run zero times
    ("t = 0.0\nfor i in range(n):\n    t += i", set()),
    ("for i in range(n):\n    if i > 0:\n        y = p\n    p = i", {"p"}),  # next trip
    ("t = 1.0\nwhile t < n:\n    t = 2.0 * t\n    u = t\ny = u", {"u"}),
])
def test_possibly_unset_reads_follow_every_path(source, unset):
    import gast

    from srcad.transform.defined import possibly_unset

    body = gast.parse(source).body
    assert possibly_unset(body, {"c", "n"}) == unset
