"""The python backend's reverse code of whole-array statements: a statement computing arrays
on its way to a number, outside loops, keeps its intermediates from the forward sweep (the
reverse computes no `np.exp` again); np.max's adjoint over all axes divides the seed once by
the count of the maxima (shared equally among ties, as JAX and autograd do); the adjoint of
a local array bound in a loop is bound to its first contribution (or moved from the adjoint
of the array it copies) instead of zeroed and added into on every iteration."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads


def log_sum_exp(x):
    a = np.max(x)
    return np.log(np.sum(np.exp(x - a))) + a


def _reverse_sweep(source: str) -> str:
    """The code lines of the reverse sweep (not the comments naming the primal lines)."""
    return "\n".join(line for line in source.split("# reverse sweep")[1].splitlines()
                     if not line.strip().startswith("#"))


def test_an_exp_on_the_way_to_a_number_is_computed_once():
    x = np.random.default_rng(0).normal(size=50)
    source = srcad.source(log_sum_exp, srcad.Reverse, srcad.Duplicated(x, np.zeros(50)))
    assert "np.exp(" not in _reverse_sweep(source)
    assert "np.max(" not in _reverse_sweep(source)  # the maximum is read, not found again
    check_grads(log_sum_exp, srcad.Duplicated(x, np.zeros(50)))


def test_log_sum_exp_gradient_is_the_softmax():
    x = np.array([0.3, -1.2, 2.0, 2.0, 0.5])  # tied maxima: the shift cancels anyway
    x_bar = np.zeros(5)
    srcad.autodiff(srcad.Reverse, log_sum_exp, srcad.Duplicated(x, x_bar))
    e = np.exp(x)
    np.testing.assert_allclose(x_bar, e / e.sum(), rtol=1e-14)


def scaled_extrema(x, w, c):
    return np.max(x) * np.sum(w * x) + c * np.min(x, keepdims=True)[0, 0]


def test_ties_of_max_and_min_share_the_seed_equally():
    # max 3.0 at two places, min -1.0 at three: JAX's convention, each tie gets its share
    x = np.array([[3.0, -1.0, 0.5], [-1.0, 3.0, -1.0]])
    w = np.array([[0.2, 0.1, -0.4], [0.3, 0.5, 0.7]])
    c = 1.5
    x_bar, w_bar = np.zeros_like(x), np.zeros_like(w)
    _, _, c_bar = srcad.autodiff(srcad.Reverse, scaled_extrema, srcad.Duplicated(x, x_bar),
                                 srcad.Duplicated(w, w_bar), srcad.Active(c))
    s = float(np.sum(w * x))  # 0.6 - 0.1 - 0.2 - 0.3 + 1.5 - 0.7 = 0.8
    expected = 3.0 * w  # the max times d(sum(w * x))/dx
    expected[0, 0] += s / 2
    expected[1, 1] += s / 2
    for i, j in [(0, 1), (1, 0), (1, 2)]:
        expected[i, j] += c / 3
    np.testing.assert_allclose(x_bar, expected, rtol=1e-14)
    np.testing.assert_allclose(w_bar, 3.0 * x, rtol=1e-14)
    assert c_bar == -1.0


def test_extrema_without_ties_against_finite_differences_and_forward_mode():
    x = np.random.default_rng(1).normal(size=(2, 3))
    w = np.random.default_rng(2).normal(size=(2, 3))
    check_grads(scaled_extrema, srcad.Duplicated(x, np.zeros_like(x)),
                srcad.Duplicated(w, np.zeros_like(w)), srcad.Active(0.7))


def ode_steps(x, h, s):
    """Runge-Kutta steps of y' = x * shift(y), written with whole arrays."""
    y = np.zeros(len(x))
    for _ in range(s):
        k1 = np.concatenate((x[:1], x[1:] * y[:-1]))
        k2 = np.concatenate((x[:1], x[1:] * (y + h * k1 / 2.0)[:-1]))
        k3 = k2
        k4 = np.concatenate((x[:1], x[1:] * (y + h * k3)[:-1]))
        y = y + h * (k1 + 2.0 * k2 + 2.0 * k3 + k4) / 6.0
    return np.sum(y * y)


def test_loop_local_array_adjoints_are_bound_not_zeroed_each_iteration():
    x = np.random.default_rng(3).uniform(size=6)
    source = srcad.source(ode_steps, srcad.Reverse, srcad.Duplicated(x, np.zeros(6)),
                          srcad.Active(0.2), 4)
    loop = _reverse_sweep(source).split("in reversed(range(s))")[1]
    assert "k4_bar = " in loop and "k1_bar = " in loop
    assert "k4_bar[...] = 0.0" not in loop and "k1_bar[...] = 0.0" not in loop
    assert "k2_bar = k3_bar" not in loop  # k3 reads k2: k2's adjoint gets k3's added
    check_grads(ode_steps, srcad.Duplicated(x, np.zeros(6)), srcad.Active(0.2), 4,
                modes=("fwd", "rev"))


def copies_in_a_loop(x, w, n):
    """Local arrays copied, read again after the copy, rebound and written in place: every
    adjoint that moves must not be added into while another name still needs it."""
    total = 0.0
    for _ in range(n):
        r = x * w
        k = r
        q = k
        total += np.sum(r * q) + np.sum(k * x)
        u = np.exp(q) + r
        v = u
        total += np.sum(v * u * w)
    return total


def aliases_then_in_place(x, n):
    t = 0.0
    for _ in range(n):
        a = x * 2.0
        b = a
        c = b * b
        d = c
        d[0] += a[1]  # written in place through a name that shares c's array
        t += np.sum(d * b) + np.sum(c)
    return t


def flipped_in_a_loop(x, n):
    """np.flip's adjoint is a view of the seed: the first contribution is copied."""
    t = 0.0
    for _ in range(n):
        r = x * x
        k = np.flip(r)
        m = k[::-1]
        t += np.sum(k * x) + np.sum(m * r)
    return t


CASES = [
    ("flipped_in_a_loop", flipped_in_a_loop,
     lambda x: (srcad.Duplicated(x, np.zeros_like(x)), 2)),
    ("copies_in_a_loop", copies_in_a_loop,
     lambda x: (srcad.Duplicated(x, np.zeros_like(x)), srcad.Duplicated(x[::-1].copy(),
                                                                      np.zeros_like(x)), 3)),
    ("aliases_then_in_place", aliases_then_in_place,
     lambda x: (srcad.Duplicated(x, np.zeros_like(x)), 2)),
]


@pytest.mark.parametrize("name, f, arguments", CASES, ids=[c[0] for c in CASES])
def test_moved_adjoints_keep_exact_derivatives(name, f, arguments):
    x = np.random.default_rng(4).uniform(0.1, 0.9, size=5)
    check_grads(f, *arguments(x), modes=("fwd", "rev"))


def test_views_of_arrays_only_ever_rebound_are_taped_by_reference():
    x = np.random.default_rng(5).uniform(size=6)
    source = srcad.source(ode_steps, srcad.Reverse, srcad.Duplicated(x, np.zeros(6)), 0.2, 4)
    assert "array_tape.append(y[:-1])" in source  # no np.copy: nothing writes y's elements
    # a constant step: the numbers divided once, then one pass over the array
    assert "h / 2.0 * " in source and "h / 6.0 * " in source
    check_grads(ode_steps, srcad.Duplicated(x, np.zeros(6)), 0.2, 4, modes=("fwd", "rev"))


def shifted_steps_written_in_place(x, s):
    """As ode_steps, but one array's element is written in place after a view of it was
    read: views are taped as copies then."""
    y = np.zeros(len(x))
    for _ in range(s):
        k = np.concatenate((x[:1], x[1:] * y[:-1]))
        z = y + 0.3 * k
        z[0] = z[0] * 2.0
        y = z * np.concatenate((x[:1], x[1:] * z[:-1]))
    return np.sum(y * x)


def test_views_of_arrays_written_in_place_are_taped_as_copies():
    x = np.random.default_rng(6).uniform(0.5, 1.0, size=5)
    source = srcad.source(shifted_steps_written_in_place, srcad.Reverse,
                          srcad.Duplicated(x, np.zeros(5)), 3)
    assert "array_tape.append(np.copy(" in source
    check_grads(shifted_steps_written_in_place, srcad.Duplicated(x, np.zeros(5)), 3,
                modes=("fwd", "rev"))
