"""Lists appended to in loops whose number of appends is not known before them (a `while`
on a tolerance, a counter stepped under an `if` or skipped by `continue`, an inner range
computed in the loop nest): the buffer grows as it fills (srcad/transform/normalize/
unbounded_lists.py). Each derivative is checked against central finite differences and
forward against reverse (`check_grads`) in every mode, and against one derived by hand where
the function is simple enough."""

import numpy as np
import pytest

import srcad
from srcad import Active, Duplicated
from srcad.testing import check_grads


def newton_history(x):
    hist = []
    err = 1.0
    y = x * 1.0
    while err > 1e-3:
        y = 0.5 * (y + 2.0 / y)
        err = abs(y * y - 2.0)
        hist.append(err * x)
    return sum(hist) + hist[-1] * len(hist)


def geometric(x, a):
    # appends while the term is large: 20 or so appends, past the buffer's first room
    terms = []
    t = x * 1.0
    while t > 1e-4:
        terms.append(t * a)
        t = t * 0.6
    return sum(terms) * terms[-1] + len(terms)


def state_history(h0, W, c):
    hs = []
    h = h0.copy()
    s = 0.0
    while s < c:  # the trip count depends on the states
        h = np.tanh(W @ h + 0.5)
        s = s + np.sum(h * h) + 0.3
        hs.append(h)
    return np.sum(np.stack(hs) ** 2) * len(hs)


def filtered_until(x, tol):
    ys = []
    k = 0
    r = 1.0
    while r > tol:
        v = x[k % len(x)] * r
        if v > 0.0:
            ys.append(v * v)
        else:
            ys.append(-v)
        if len(ys) > 30:
            break
        r = r * 0.7
        k += 1
    return sum(ys) + max(ys)


def read_while_filling(x, a):
    ys = [x * 1.0]
    err = 1.0
    while err > 1e-6:
        nxt = ys[-1] * a + 0.1 * ys[-1] * ys[-1]
        err = abs(nxt - ys[-1])
        ys.append(nxt)
    return ys[-1] + ys[1] * len(ys)


def computed_inner_range(x):
    out = []
    for i in range(len(x)):
        m = int(abs(x[i]) * 3.0) + 1  # the inner trip count, computed in the loop nest
        for j in range(m):
            out.append(x[i] * (j + 1.0))
    return sum(out) + out[-1] * out[0]


def stepped_in_an_if(x):
    ys = []
    i = 0
    while i < len(x):
        ys.append(x[i] * x[i])
        if x[i] > 0.0:
            i += 1
        else:
            i += 2
    return sum(ys) * ys[0]


def with_continue(x):
    ys = []
    i = 0
    while i < len(x):
        i += 1
        if x[i - 1] < 0.0:
            continue
        ys.append(x[i - 1] ** 3)
    return sum(ys) + ys[-1]


def nested_counted_while(x):
    ys = []
    j = 0
    for i in range(len(x)):
        while j < len(x):  # its counter set once, before the outer loop
            ys.append(x[i] * x[j])
            j += 1
            if j % 2 == 0:
                break
    return sum(ys) * len(ys)


def fresh_list_per_iteration(x):
    total = 0.0
    for i in range(len(x)):
        ys = []
        t = x[i] * 1.0
        while abs(t) > 0.045:  # (not at a trip count's boundary for X)
            ys.append(t * t)
            t = t * 0.5
        if ys:
            total += sum(ys) * ys[0]
    return total


def grown(v):  # the name of srcad's runtime function: the user's is renamed
    return v * 2.0


def halved_from_a_helper(x):
    ys = []
    t = grown(x)
    while t > 0.01:
        ys.append(t * x)
        t = t * 0.5
    return sum(ys)


X = np.array([0.3, -0.7, 1.1, 0.4])


def _dup(a):
    return Duplicated(a.copy(), np.zeros_like(a))


def test_newton_history_in_every_mode():
    check_grads(newton_history, Active(1.3))
    # against finite differences of the same iteration written without a list
    def by_hand(x):
        e, y, total, n, last = 1.0, x, 0.0, 0, 0.0
        while e > 1e-3:
            y = 0.5 * (y + 2.0 / y)
            e = abs(y * y - 2.0)
            total, n, last = total + e * x, n + 1, e * x
        return total + last * n
    eps = 1e-6
    want = (by_hand(1.3 + eps) - by_hand(1.3 - eps)) / (2 * eps)
    grad = srcad.autodiff(srcad.Reverse, newton_history, Active(1.3))[0]
    assert grad == pytest.approx(want, rel=1e-6)


def test_growing_past_the_first_room_with_mixed_annotations():
    check_grads(geometric, Active(2.0), Active(0.7))
    check_grads(geometric, 2.0, Active(0.7))
    check_grads(geometric, Active(2.0), 0.7)
    # terms_k = a x 0.6^k, k < n: f = a^2 x^2 0.6^(n-1) (1 - 0.6^n) / 0.4 + n
    n = int(np.ceil(np.log(1e-4 / 2.0) / np.log(0.6)))
    geo = (1 - 0.6 ** n) / 0.4
    want = 2.0 * 0.7 ** 2 * 2.0 * 0.6 ** (n - 1) * geo
    assert srcad.gradient(geometric, 2.0, srcad.Constant(0.7)) == pytest.approx(want, rel=1e-12)


def test_arrays_appended_in_an_uncounted_while():
    rng = np.random.default_rng(3)
    W = rng.standard_normal((3, 3)) * 0.5
    h0 = np.array([0.2, -0.4, 0.6])
    check_grads(state_history, _dup(h0), _dup(W), 4.0)
    check_grads(state_history, _dup(h0), W.copy(), 4.0)


def test_appends_under_if_with_break():
    check_grads(filtered_until, _dup(X), 0.01)
    check_grads(filtered_until, _dup(X), 1e-9)  # stops at the break: 31 elements


def test_list_read_while_it_fills():
    check_grads(read_while_filling, Active(0.5), Active(0.6))
    check_grads(read_while_filling, Active(0.5), 0.6)


def test_inner_range_computed_in_the_loop_nest():
    check_grads(computed_inner_range, _dup(X))
    # out: x_i (j + 1) for j < m_i, m = [1, 3, 4, 2]; f = sum + out[-1] * out[0]
    m = [1, 3, 4, 2]
    want = np.array([k * (k + 1) / 2.0 for k in m])
    want[0] += 2.0 * X[3]  # d/dx0 of (2 x3)(x0)
    want[3] += 2.0 * X[0]
    np.testing.assert_allclose(srcad.gradient(computed_inner_range, X), want, rtol=1e-14)


def test_counters_stepped_in_an_if_or_skipped():
    check_grads(stepped_in_an_if, _dup(X))
    check_grads(with_continue, _dup(X))
    check_grads(nested_counted_while, _dup(X))


def test_a_fresh_list_per_iteration_of_an_outer_loop():
    check_grads(fresh_list_per_iteration, _dup(X))


def test_stacked_vector_lanes_grow_along_the_list():
    # lanes first: the tangents' buffer grows along its second axis
    stacked = srcad.forward(batch="stacked")(fresh_list_per_iteration)
    lanes = stacked(srcad.BatchDuplicated(X.copy(), np.eye(4)))
    np.testing.assert_allclose(lanes, srcad.gradient(fresh_list_per_iteration, X, mode="forward"),
                               rtol=1e-14)
    eps = 1e-6
    fd = [(fresh_list_per_iteration(X + eps * e) - fresh_list_per_iteration(X - eps * e))
          / (2 * eps) for e in np.eye(4)]
    np.testing.assert_allclose(lanes, fd, rtol=1e-6)


def test_a_users_function_named_like_the_runtime_one():
    check_grads(halved_from_a_helper, Active(0.7))
    # ys_k = 2 x^2 / 2^k for k < 8 (1.4 / 2^7 > 0.01): f = 2 x^2 (2 - 2^-7)
    assert srcad.gradient(halved_from_a_helper, 0.7) == pytest.approx(
        4.0 * 0.7 * (2.0 - 2.0 ** -7), rel=1e-14)


def test_hvp_through_a_growing_list():
    v = np.array([1.0, -0.5, 0.25, 2.0])
    eps = 1e-6
    hv = srcad.hvp(computed_inner_range, X, tangent=v)
    fd = (srcad.gradient(computed_inner_range, X + eps * v)
          - srcad.gradient(computed_inner_range, X - eps * v)) / (2 * eps)
    np.testing.assert_allclose(hv, fd, rtol=1e-6, atol=1e-8)


def halving_pair(x):
    ys = []
    t = x[0] * 1.0
    while abs(t) > 0.01:
        ys.append(t * x[1])
        t = t * 0.5
    out = np.zeros(2)
    out[0] = sum(ys)
    out[1] = ys[-1] * len(ys)
    return out


def test_jacobian_and_hessian_through_a_growing_list():
    x = np.array([1.3, 0.7])
    # ys_k = x0 x1 / 2^k for k < 8 (1.3 / 2^7 ~ 0.0102 > 0.01): sum = x0 x1 (2 - 2^-7)
    s, last = 2.0 - 2.0 ** -7, 8 * 2.0 ** -7
    want = np.array([[s * x[1], s * x[0]], [last * x[1], last * x[0]]])
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(srcad.jacobian(halving_pair, x, mode=mode), want,
                                   rtol=1e-14)
    hessian = srcad.hessian(lambda v: np.sum(halving_pair(v)), x)
    np.testing.assert_allclose(hessian, [[0.0, s + last], [s + last, 0.0]], rtol=1e-14)


def growing_in_steps(x, steps):
    ys = []
    s = x * 1.0
    for _ in range(steps):
        s = s * np.sin(s) + 1.0
        t = s
        while t > 0.1:
            ys.append(t * x)
            t = t * 0.5
    return sum(ys) + s


def test_a_loop_that_grows_a_list_is_taped_whole_under_a_memory_budget():
    full = srcad.autodiff(srcad.Reverse, growing_in_steps, Active(0.9), 12)
    assert srcad.autodiff(srcad.Reverse, growing_in_steps, Active(0.9), 12, memory=64) == full
    check_grads(growing_in_steps, Active(0.9), 12, modes=("rev",))


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_numba_backend():
    check_grads(newton_history, Active(1.3), backend="numba")
    # rows: the vector mode's tangents (rows, width, lanes) grow along their first axis
    check_grads(state_history, _dup(np.array([0.2, -0.4])),
                _dup(np.array([[0.3, -0.2], [0.1, 0.4]])), 3.0, backend="numba",
                modes=("vec",))
    # a list made anew per iteration: its adjoint made in the reverse sweep, of the last length
    check_grads(fresh_list_per_iteration, _dup(X), backend="numba", modes=("rev",))
