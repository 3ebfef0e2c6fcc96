"""The adjoint of `a[j] = a[j] + e` (or `s = s + e`) passes through: the reverse sweep reads
`g = a_bar[j]` and adds g into e's operands, without resetting `a_bar[j] = 0.0` and adding g
back (srcad/transform/optimize.py, `passed_through`). Where the element is also
read elsewhere in e (`a[j] + a[k] * b[j]`, k == j on some iterations) the other contributions
still add to it."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads


def triangle(a, b):
    """gmm's `out[j] = out[j] + l[idx] * x[i]` over a triangle, with a scalar accumulator."""
    n = len(a)
    out = np.zeros(n)
    for i in range(n):
        out[i] = b[i] * a[i]
    idx = 0
    s = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            out[j] = out[j] + b[idx % n] * out[i]
            idx += 1
        s = s + out[i] * out[i]
    return s


def self_and_other(a, b):
    """`a[j] = a[j] + a[k] * b[j]` with k == j when j is even: both terms reach a_bar[j]."""
    n = len(a)
    for j in range(n):
        k = j if j % 2 == 0 else (j + 1) % n
        a[j] = a[j] + a[k] * b[j]
    s = 0.0
    for j in range(n):
        s = s + a[j] * a[j]
    return s


def _args():
    rng = np.random.default_rng(5)
    return rng.normal(size=5) * 0.5, rng.normal(size=5) * 0.5


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("f", [triangle, self_and_other])
def test_gradients(f, backend):
    a, b = _args()
    check_grads(f, srcad.Duplicated(a, np.zeros_like(a)), srcad.Duplicated(b, np.zeros_like(b)),
                backend=backend)


def test_no_reset_and_add_back():
    a, b = _args()
    src = srcad.source(triangle, srcad.Reverse, srcad.Duplicated(a, np.zeros_like(a)),
                       srcad.Duplicated(b, np.zeros_like(b)), backend="numba")
    assert "out_bar[j] = 0.0" not in src
    assert "out_bar[j] +=" not in src


# `v = v + d` where v's earlier value carries no derivative (v = x * 0.896 of a constant x),
# then v rebound in a loop: the reset of v_bar before `v_bar += g` is dead (nothing reads v_bar
# after), but the addition is kept; without the reset it added into the array g still names,
# and d's adjoint read twice the seed (every mode but reverse agreed).
X_CONSTANT = np.array([0.69, 0.58])


def self_update_of_a_constant(a):
    v = X_CONSTANT * 0.896
    d = v * a
    v = v + d
    for _ in range(1):
        v = np.sin(v) + v
    return v[0]


def h(v, p):
    return v[0] * v[0] * p * p + v[1] * p


def self_update_by_a_nested_gradient(a):
    v = X_CONSTANT * 0.896
    d = srcad.grad(h)(v, a)
    v = v + d
    for _ in range(2):
        v = srcad.grad(h)(v, a) + v
    return v[0]


@pytest.mark.parametrize("f", [self_update_of_a_constant, self_update_by_a_nested_gradient])
def test_a_dead_reset_is_kept_where_an_addition_follows(f):
    a = 1.326
    central = (f(a + 1e-6) - f(a - 1e-6)) / 2e-6
    assert abs(srcad.grad(f)(a) - central) < 1e-6 * (1 + abs(central))
    check_grads(f, srcad.Active(a))
