"""Ordinary writes to lists of floats: a list literal indexed by a variable, element writes
(`ys[k] = v`, `ys[k] += v`) on literal and grown lists, `extend`/`+=`/`ys + [...]` of a
literal, `[0.0] * n`, and `pop()` (srcad/transform/normalize/list_writes.py). Each gradient
is checked against central finite differences and forward against reverse (`check_grads`)
in every mode; an index out of range and a pop of an empty list raise what Python raises."""

import numpy as np
import pytest

import srcad
from srcad import Active, Const, Duplicated
from srcad.errors import UnsupportedSyntaxError
from srcad.testing import check_grads


def literal_by_variable(x, a, b):
    coeffs = [a, b * x[0], 2.0]
    s = 0.0
    for i in range(3):
        s += coeffs[i] * x[i]
    return s + coeffs[-1 - 1] * coeffs[len(x) - 4]  # negative, computed indices


def zeros_accumulated(x):
    n = len(x)
    acc = [0.0] * n
    for i in range(n):
        acc[i] += x[i] ** 2
        acc[(i + 1) % n] += x[i] * 0.5
    return sum(acc) + acc[0] * acc[n - 1]


def grown_then_written(x):
    ys = []
    for i in range(len(x)):
        ys.append(x[i] * 2.0)
        ys[i // 2] = ys[i // 2] * x[i]  # overwrites an element appended before
    ys[0] += x[1]
    return sum(ys) + ys[-1] * ys[1]


def extended(x, a):
    ys = [a]
    for i in range(len(x)):
        ys.extend([x[i], a * x[i]])
        if x[i] > 0.0:
            ys += [ys[-1] * ys[-2], a]  # both read before either is added, as in Python
    ys += [a * a]
    return sum(ys) * ys[-2] + len(ys)


def concatenated(x, a):
    ys = [a]
    for v in x:
        ys = ys + [v * a]
    zs = 3 * [1.5]
    zs[1] = ys[2] * zs[0]
    return sum(ys) + zs[1] + zs[-1] * ys[-1]


def popped(x, a):
    ys = [a, 2.0 * a]
    for i in range(len(x)):
        ys.append(x[i] * a)
        if x[i] > 0.0:
            v = ys.pop()
            ys[-1] += v * v
    ys.pop()
    return sum(ys) * ys[0] + ys[-1]


def literal_per_iteration(x, c):
    s = 0.0
    for j in range(len(x)):
        cs = [x[j], c * x[j], 1.0]
        cs[j % 2] *= c
        s += cs[j % 3] * cs[(j + 1) % 3]
    return s


def out_of_range(x, a):
    cs = [a, x[0]]
    return cs[len(x)]


def pop_of_empty(x):
    ys = [x[0]]
    ys.pop()
    ys.pop()
    return x[1]


def int_indices(x):
    idx = [2, 0, 1]
    s = 0.0
    for i in range(3):
        idx[i] = x[i]  # a float in a list of ints: no int buffer (list_operations.py's)
        s += x[idx[i]] * x[i]
    return s


X = np.array([0.3, -0.7, 1.1, 0.4])


def dup(x):
    return Duplicated(x.copy(), np.zeros_like(x))


CASES = [
    (literal_by_variable, lambda: (dup(X), Active(0.5), Active(1.5))),
    (literal_by_variable, lambda: (dup(X), Const(0.5), Active(1.5))),
    (zeros_accumulated, lambda: (dup(X),)),
    (grown_then_written, lambda: (dup(X),)),
    (extended, lambda: (dup(X), Active(0.7))),
    (extended, lambda: (dup(-X), Active(0.7))),
    (concatenated, lambda: (dup(X), Active(0.7))),
    (concatenated, lambda: (dup(X), Const(0.7))),
    (popped, lambda: (dup(X), Active(0.5))),
    (literal_per_iteration, lambda: (dup(X), Active(1.3))),
    (literal_per_iteration, lambda: (dup(X), Const(1.3))),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradients(f, args):
    check_grads(f, *args())


def test_by_hand():
    """d/da of literal_by_variable: x[0] from coeffs[0] * x[0], and coeffs[-2] * coeffs[0]
    has d/da coeffs[-2] = b * x[0]; d/db: x[0] * x[1] + x[0] * a."""
    a, b = 0.5, 1.5
    _, da, db = srcad.autodiff(srcad.Reverse, literal_by_variable, Const(X), Active(a),
                               Active(b))
    assert da == pytest.approx(X[0] + b * X[0])
    assert db == pytest.approx(X[0] * X[1] + X[0] * a)
    shadow = np.zeros(4)
    srcad.autodiff(srcad.Reverse, zeros_accumulated, Duplicated(X.copy(), shadow))
    acc = X ** 2 + 0.5 * np.roll(X, 1)
    expected = 2 * X + 0.5 + acc[3] * 2 * X * (np.arange(4) == 0) \
        + acc[0] * 2 * X * (np.arange(4) == 3) + acc[3] * 0.5 * (np.arange(4) == 3) \
        + acc[0] * 0.5 * (np.arange(4) == 2)
    np.testing.assert_allclose(shadow, expected)


@pytest.mark.parametrize("mode", ["Reverse", "Forward"])
def test_errors_as_python(mode):
    make = (lambda x: Duplicated(x, np.zeros(4))) if mode == "Forward" else Const
    a = Duplicated(0.5, 1.0) if mode == "Forward" else Active(0.5)
    with pytest.raises(IndexError):
        srcad.autodiff(getattr(srcad, mode), out_of_range, make(X.copy()), a)
    with pytest.raises(IndexError):
        srcad.autodiff(getattr(srcad, mode), pop_of_empty, make(X.copy()))


def test_list_of_ints_refused():
    with pytest.raises(UnsupportedSyntaxError, match="list"):
        srcad.autodiff(srcad.Reverse, int_indices, dup(X))


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("f, args", [CASES[0], CASES[2]], ids=["literal", "zeros"])
def test_numba(f, args):
    pytest.importorskip("numba")
    check_grads(f, *args(), backend="numba", modes=("fwd", "rev"))
