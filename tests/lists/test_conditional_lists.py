"""Lists of unknown length: appended to under conditions in a loop, and filtered list
comprehensions kept in a variable, are differentiated in every mode and by the operators
(srcad/transform/normalize/conditional_lists.py). Each gradient is checked against finite
differences and forward against reverse (`check_grads`), and against one derived by hand;
an empty list and an index out of range raise what Python raises."""

import numpy as np
import pytest

import srcad
from srcad import Active, Constant, Duplicated
from srcad.testing import check_grads


def filtered_terms(x):
    n = len(x)
    terms = [x[i] * x[i] for i in range(n) if i % 2 == 0]
    return sum(terms)


def filtered_values(x, a):
    ys = [v * a for v in x if v > 0.0]
    return len(ys) * max(ys) + ys[-1] * ys[0]


def positive_squares(x, c):
    ys = []
    for i in range(len(x)):
        if x[i] > 0.0:
            ys.append(x[i] ** 2)
        elif x[i] < -c:
            ys.append(c * x[i])
    s = 0.0
    for y in ys:  # iterated, reduced, measured and indexed from both ends
        s = s * 0.5 + y
    return s + sum(ys) * len(ys) + ys[-1] - min(ys) + ys[1]


def until_large(x):
    ys = []
    for v in x:
        if v > 1.0:
            break
        if v > 0.0:
            ys.append(v * v)
    return sum(ys)


def zipped_and_enumerated(x, y):
    ps = [u * w for u, w in zip(x, y) if u > 0.0]
    qs = [v * k for k, v in enumerate(x, 1) if k % 2 == 1]
    rs = []
    for v in reversed(x):
        if v < 1.0:
            rs.append(v * v)
    return sum(ps) + len(ps) * qs[-1] + max(rs)


def filtered_pair(x):
    ys = [v * v for v in x if v > 0.0]
    return np.array([sum(ys), ys[0] * ys[-1]])


X = np.array([0.3, -0.7, 1.1, 0.4])
V = np.array([0.5, -1.0, 2.0, 0.25])  # a tangent for hvp


def _dup(a):
    return Duplicated(a.copy(), np.zeros_like(a))


def _reverse_gradient(f, *args):
    args = [_dup(a) if isinstance(a, np.ndarray) else a for a in args]
    srcad.autodiff(srcad.Reverse, f, *args)
    return args[0].shadow


def test_filtered_comprehension_kept_in_a_variable():
    # sum of x_i^2 over the even i: gradient 2 x_i there, 0 elsewhere; Hessian 2 there
    want = np.array([2.0 * X[0], 0.0, 2.0 * X[2], 0.0])
    check_grads(filtered_terms, _dup(X))
    np.testing.assert_allclose(_reverse_gradient(filtered_terms, X), want, rtol=1e-14)
    np.testing.assert_allclose(srcad.gradient(filtered_terms, X), want, rtol=1e-14)
    np.testing.assert_allclose(srcad.gradient(filtered_terms, X, mode="forward"), want,
                               rtol=1e-14)
    np.testing.assert_allclose(srcad.hvp(filtered_terms, X, tangent=V),
                               [2.0 * V[0], 0.0, 2.0 * V[2], 0.0], rtol=1e-14)


def test_filtered_comprehension_over_an_array_with_mixed_annotations():
    # ys = [a x_0, a x_2, a x_3] (the positive x): f = 3 a x_2 + a^2 x_3 x_0
    a = 0.8
    check_grads(filtered_values, _dup(X), Active(a))
    check_grads(filtered_values, X.copy(), Active(a))  # x Const
    check_grads(filtered_values, _dup(X), a)  # a Const
    grad = srcad.autodiff(srcad.Reverse, filtered_values, X.copy(), Active(a))[1]
    assert grad == pytest.approx(3.0 * X[2] + 2.0 * a * X[3] * X[0], rel=1e-14)
    np.testing.assert_allclose(srcad.gradient(filtered_values, X, Constant(a)),
                               [a * a * X[3], 0.0, 3.0 * a, a * a * X[0]], rtol=1e-14)


def test_conditional_appends_read_every_way():
    check_grads(positive_squares, _dup(X), 0.5)  # x[1] = -0.7 < -0.5: appended as c x[1]
    check_grads(positive_squares, _dup(X), 0.9)  # x[1] skipped: three elements
    # with c = 0.9, ys = [x0^2, x2^2, x3^2]; s = 0.25 x0^2 + 0.5 x2^2 + x3^2,
    # sum(ys) * 3, ys[-1] = x3^2, min(ys) = x0^2 (0.09), ys[1] = x2^2
    coefficients = np.array([0.25 + 3.0 - 1.0, 0.0, 0.5 + 3.0 + 1.0, 1.0 + 3.0 + 1.0])
    want = 2.0 * coefficients * X
    np.testing.assert_allclose(_reverse_gradient(positive_squares, X, 0.9), want, rtol=1e-14)
    np.testing.assert_allclose(srcad.hvp(positive_squares, X, Constant(0.9), tangent=V),
                               2.0 * coefficients * V, rtol=1e-14)


def test_conditional_appends_with_break():
    # stops at x_2 = 1.1 > 1; of x_0, x_1 only x_0 > 0 is appended: x_0^2
    check_grads(until_large, _dup(X))
    np.testing.assert_allclose(_reverse_gradient(until_large, X), [2.0 * X[0], 0.0, 0.0, 0.0],
                               rtol=1e-14)


def test_filtered_comprehensions_over_zip_and_enumerate():
    # ps = [x0 y0, x2 y2] (x1 < 0), qs = [x0, 3 x2], rs = [x3^2, x1^2, x0^2] with max x1^2:
    # f = x0 y0 + x2 y2 + 6 x2 + x1^2
    y = np.array([1.0, 2.0, 0.5])
    check_grads(zipped_and_enumerated, _dup(X), _dup(y))
    check_grads(zipped_and_enumerated, X.copy(), _dup(y))
    args = (_dup(X), _dup(y))
    srcad.autodiff(srcad.Reverse, zipped_and_enumerated, *args)
    np.testing.assert_allclose(args[0].shadow, [y[0], 2.0 * X[1], y[2] + 6.0, 0.0],
                               rtol=1e-14)
    np.testing.assert_allclose(args[1].shadow, [X[0], 0.0, X[2]], rtol=1e-14)


def test_jacobian_of_a_filtered_list():
    # ys = [x0^2, x2^2, x3^2]: rows d(sum ys) = 2 x on the positive x, d(x0^2 x3^2)
    jac = srcad.jacobian(filtered_pair, X)
    want = np.array([[2.0 * X[0], 0.0, 2.0 * X[2], 2.0 * X[3]],
                     [2.0 * X[0] * X[3] ** 2, 0.0, 0.0, 2.0 * X[3] * X[0] ** 2]])
    np.testing.assert_allclose(jac, want, rtol=1e-14)
    np.testing.assert_allclose(srcad.jacobian(filtered_pair, X, mode="reverse"), want,
                               rtol=1e-14)


def test_an_empty_list_raises_what_python_raises():
    negative = -np.abs(X)
    with pytest.raises(ValueError):  # max() of an empty sequence
        filtered_values(negative.copy(), 0.8)
    with pytest.raises(ValueError):
        srcad.autodiff(srcad.Reverse, filtered_values, _dup(negative), Active(0.8))
    with pytest.raises(IndexError):  # ys[-1] of an empty list
        positive_squares(negative.copy(), 2.0)
    with pytest.raises(IndexError):
        srcad.autodiff(srcad.Reverse, positive_squares, _dup(negative), 2.0)
    # the sum of no terms is 0: no derivative
    assert srcad.gradient(until_large, negative).tolist() == [0.0] * 4


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_numba_differentiates_conditional_appends():
    check_grads(positive_squares, _dup(X), 0.5, backend="numba")


def emptiness_tested(x, c):
    ys = []
    for v in x:
        if v > c:
            ys.append(v * v)
    s = x[0] * x[1]
    if ys:  # the list's truth value: len(ys) > 0
        s = sum(ys) * x[0]
    t = ys[-1] if ys and len(ys) > 1 else x[2]
    if not ys:
        s = s * 2.0
    return s + t


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_list_tested_for_truth_is_its_length(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    x0, x1, x2, x3 = X  # 0.3, -0.7, 1.1, 0.4
    # c = 0: ys = [x0^2, x2^2, x3^2], s = (x0^2 + x2^2 + x3^2) x0, t = x3^2
    # c = 5: ys = [], s = 2 x0 x1, t = x2
    by_hand = {0.0: [3 * x0 ** 2 + x2 ** 2 + x3 ** 2, 0.0, 2 * x2 * x0, 2 * x3 * x0 + 2 * x3],
               5.0: [2 * x1, 2 * x0, 1.0, 0.0]}
    for c, want in by_hand.items():
        x = _dup(X)
        srcad.autodiff(srcad.Reverse, emptiness_tested, x, c, backend=backend)
        np.testing.assert_allclose(x.shadow, want, rtol=1e-14)
        check_grads(emptiness_tested, _dup(X), c, backend=backend)


def grown_list_tested_for_truth(x, n):
    ys = []
    for i in range(n):  # one append per iteration: srcad/transform/normalize/lists.py
        ys.append(x[i] * x[i])
    s = x[0]
    if ys:
        s = sum(ys)
    return s + (ys[0] if not not ys else 0.0)


def test_a_grown_list_tested_for_truth_is_its_length():
    # n = 2: x0^2 + x1^2 + x0^2; n = 0: x0
    for n, want in ((2, [4 * X[0], 2 * X[1], 0.0, 0.0]), (0, [1.0, 0.0, 0.0, 0.0])):
        x = _dup(X)
        srcad.autodiff(srcad.Reverse, grown_list_tested_for_truth, x, n)
        np.testing.assert_allclose(x.shadow, want, rtol=1e-14)
        check_grads(grown_list_tested_for_truth, _dup(X), n)
