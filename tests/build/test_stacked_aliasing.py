"""Stacked lanes (vector mode wider than 16 lanes on the python backend) hold a scalar's W
tangents in one NumPy vector. `s = x[j]` binds s's vector to a view of x's tangents and
`s = a` to a's own vector, so `s += ...` must not add in place: it changed x's (or a's)
tangents too (a wrong jacobian found on the hand-tracking port: `s = pose[j, 2]`, then
`s += ...`, corrupted pose's tangents). Expected values are hand-derived."""

import numpy as np

import srcad


def element_then_add(y, x):
    for i in range(len(y)):
        s = x[0]
        s += x[i] * x[i]
        y[i] = s + x[0]


def name_then_add(x):
    y = np.zeros(len(x))
    a = x[1] * 3.0
    for i in range(len(x)):
        s = a
        s += x[i]
        y[i] = s * a
    return y


def test_element_view_is_not_added_in_place():
    n = 20  # > 16 lanes: stacked
    x = np.linspace(0.5, 2.0, n)
    J = srcad.jacobian(element_then_add, srcad.Output(np.zeros(n)), x, mode="forward")
    expected = np.zeros((n, n))
    expected[:, 0] = 2.0
    expected[np.arange(n), np.arange(n)] += 2.0 * x
    np.testing.assert_allclose(J, expected, rtol=1e-14)


def test_name_copy_is_not_added_in_place():
    n = 20
    x = np.linspace(0.5, 2.0, n)
    J = srcad.jacobian(name_then_add, x, mode="forward")
    a = 3.0 * x[1]
    expected = np.zeros((n, n))
    for i in range(n):  # y_i = (a + x_i) a, a = 3 x_1
        expected[i, i] += a
        expected[i, 1] += 3.0 * (a + x[i]) + 3.0 * a
    np.testing.assert_allclose(J, expected, rtol=1e-14)
