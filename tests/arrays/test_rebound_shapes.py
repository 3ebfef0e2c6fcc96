"""An array local bound in a loop body whose shape changes between iterations (a slice whose
length depends on the loop index): the reverse sweep resets its adjoint to zeros of the shape
the previous iteration's value had (recorded), not in place with the newer value's shape.
Where the shape cannot change (a row per iteration) the adjoint is still zeroed in place."""

import numpy as np
import pytest

import srcad
from srcad import Const, Duplicated, Reverse
from srcad.testing import check_grads

RNG = np.random.default_rng(11)


def growing_prefix(x):
    s = 0.0
    for i in range(len(x)):
        w = x[0:i + 1] * x[i]
        s += np.sum(w)
    return s


def shrinking_suffix_in_a_while(x, c):
    s = 0.0
    i = 0
    while i < len(x):
        w = x[i:] ** 2 * c[i:]
        s += np.sum(np.sin(w))
        i += 1
    return s


def through_a_second_local(x, a):
    s = 0.0
    for i in range(len(x)):
        w = x[:i + 1] * a
        v = np.exp(w) * x[i]
        s += np.sum(v * w)
    return s


def bound_twice_in_the_body(x):
    s = 0.0
    for i in range(1, len(x)):
        w = x[0:i] * x[i]
        w = w * w + x[i - 1]
        s += np.sum(w)
    return s


def varying_across_outer_iterations(x, c):
    # the inner loop keeps w's shape; the outer one changes it
    s = 0.0
    for j in range(len(x)):
        for k in range(2):
            w = x[:j + 1] * c[k]
            s += np.sum(w * w)
    return s


def growing_rows(A, x):
    s = 0.0
    for i in range(A.shape[0]):
        m = A[:i + 1, :] * x
        s += np.sum(m @ x)
    return s


def from_a_shrinking_carried_array(x):
    # w's shape follows h's, which the loop shrinks
    h = x
    s = 0.0
    for _ in range(3):
        w = np.sin(h) * 2.0
        s += np.sum(w * w)
        h = h[1:] * h[:-1]
    return s + np.sum(h)


def euler_steps(x, k):
    # y keeps its shape (y + dt * f broadcasts to y's): the locals computed from it too
    y = x * 1.0
    for _ in range(4):
        f = np.concatenate((y[:1], k[1:] * y[:-1]))
        y = y + 0.1 * f
    return np.sum(y * y)


def row_per_iteration(A, x):
    s = 0.0
    for i in range(A.shape[0]):
        r = A[i] * x
        s += np.sum(r * r)
    return s


def dup(x):
    return Duplicated(x, np.zeros_like(x))


CASES = {
    "growing_prefix": (growing_prefix, lambda: (dup(RNG.standard_normal(5)),)),
    "shrinking_suffix_in_a_while": (shrinking_suffix_in_a_while, lambda: (
        dup(RNG.standard_normal(4)), Const(RNG.standard_normal(4)))),
    "through_a_second_local": (through_a_second_local, lambda: (
        dup(RNG.standard_normal(4) * 0.5), srcad.Active(0.7))),
    "bound_twice_in_the_body": (bound_twice_in_the_body, lambda: (
        dup(RNG.standard_normal(5)),)),
    "varying_across_outer_iterations": (varying_across_outer_iterations, lambda: (
        dup(RNG.standard_normal(4)), dup(RNG.standard_normal(2)))),
    "from_a_shrinking_carried_array": (from_a_shrinking_carried_array, lambda: (
        dup(RNG.standard_normal(6)),)),
    "growing_rows": (growing_rows, lambda: (
        dup(RNG.standard_normal((4, 3))), Const(RNG.standard_normal(3)))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_mode_on_the_python_backend(name):
    f, args = CASES[name]
    check_grads(f, *args())


def test_a_known_gradient():
    # d/dx_k of sum_i sum_{j<=i} x_j x_i = sum_{i>=k} x_i + sum_{j<=k} x_j
    x = np.arange(1.0, 5.0)
    expected = [np.sum(x[k:]) + np.sum(x[:k + 1]) for k in range(4)]
    assert np.allclose(srcad.gradient(growing_prefix, x), expected)


@pytest.mark.parametrize("name", ["growing_prefix", "varying_across_outer_iterations"])
def test_reverse_on_the_numba_backend(name):
    pytest.importorskip("numba")
    f, args = CASES[name]
    check_grads(f, *args(), modes=("rev",), backend="numba")


def test_a_row_per_iteration_is_zeroed_in_place():
    # the shape of A[i] * x is the same every iteration: nothing taped, no allocation
    A, x = RNG.standard_normal((3, 2)), RNG.standard_normal(2)
    check_grads(row_per_iteration, dup(A), dup(x))
    code = srcad.source(row_per_iteration, Reverse, dup(A), dup(x))
    # (the python backend binds it to its first contribution, which needs no zeroing)
    assert ("r_bar[...] = 0.0" in code or "r_bar = " in code.split("for i in reversed")[1]) \
        and "r_bar = np.zeros(" not in code and "int_tape" not in code


def test_a_step_of_a_carried_state_is_zeroed_in_place():
    x, k = RNG.standard_normal(4), RNG.standard_normal(4)
    check_grads(euler_steps, dup(x), Const(k))
    code = srcad.source(euler_steps, Reverse, dup(x), Const(k))
    assert ("f_bar[...] = 0.0" in code or "f_bar = 0.1 *" in code) \
        and "f_bar = np.zeros(" not in code


def test_a_memory_budget_tapes_such_a_loop_whole():
    # a checkpointed step rerun from a snapshot would not know the previous step's shape
    x = RNG.standard_normal(6)
    expected = [np.sum(x[k:]) + np.sum(x[:k + 1]) for k in range(6)]
    assert np.allclose(srcad.gradient(growing_prefix, x, memory=200), expected)


def widened_once(x, v):
    y = x * 1.0
    s = 0.0
    for _ in range(3):
        w = np.sin(y) * (y + 1.0)
        s += np.sum(w * w)
        y = y + v * 0.1  # (1,) in the first iteration, (3,) after
    return s


def test_a_carried_array_widened_in_the_first_iteration():
    # the forward sweep sees y change shape and the code recording shapes runs instead
    check_grads(widened_once, dup(np.array([0.3])), dup(np.array([0.1, 0.5, 0.9])))
