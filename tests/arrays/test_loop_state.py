"""Arrays as loop state, as people write them: double buffering (`v = np.empty_like(u)`, `v`
filled from `u`, then `u = v`, or `u, v = v, u`), an array bound to a whole-array expression and
then written element by element, a row view kept for the next iteration (`prev = row`), a
local index array. Each is checked against central differences in every mode (forward against
reverse through the dot-product test), hvp against differences of the gradient, and on numba
(one smoke test unmarked). Sharing that an execution does observe stays refused, by line."""

import inspect

import numpy as np
import pytest

import srcad
from srcad import Const, Duplicated
from srcad.analysis import array_sharing
from srcad.testing import check_grads

RNG = np.random.default_rng(31)
MODES = ("rev", "fwd", "vec")
numba_backend = pytest.param("numba", marks=pytest.mark.slow)


def jacobi(u0, f):
    u = u0.copy()
    n = u.shape[0]
    for _ in range(3):
        v = np.empty_like(u)
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            v[i] = 0.5 * (u[i - 1] + u[i + 1]) + 0.1 * f[i] * u[i] * u[i]
        u = v
    return np.sum(u * u)


def jacobi_slices(u0):
    u = u0 * 1.0
    for _ in range(3):
        v = np.empty_like(u)
        v[0] = u[0]
        v[-1] = u[-1]
        v[1:-1] = 0.5 * (u[:-2] + u[2:]) + 0.1 * np.sin(u[1:-1])
        u = v
    return np.sum(u ** 2)


def heat_swap(u0):
    u = u0.copy()
    v = np.zeros_like(u)
    n = u.shape[0]
    for _ in range(4):
        for i in range(1, n - 1):
            v[i] = u[i] + 0.2 * (u[i - 1] - 2.0 * u[i] + u[i + 1]) * u[i]
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        u, v = v, u
    return np.sum(np.sin(u))


def stencil_2d(a0):
    a = a0.copy()
    b = np.zeros_like(a)
    m, n = a.shape
    for _ in range(2):
        for i in range(1, m - 1):
            for j in range(1, n - 1):
                b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) \
                    * np.tanh(a[i, j])
        a, b = b, a
    return np.sum(a * a)


def exp_then_recurrence(x):
    y = np.exp(x)
    y[0] = 1.0
    for i in range(1, x.shape[0]):
        y[i] = y[i] + 0.5 * y[i - 1]
    return np.sum(y * y)


def tanh_then_constant(x):
    a = np.tanh(x)
    a[0] = 3.0
    return np.sum(a * x)


def carried_row(x, W):
    out = np.zeros((4, x.shape[0]))
    prev = x
    for t in range(4):
        row = out[t]
        row[:] = np.tanh(W @ prev)
        prev = row
    return np.sum(out ** 2) + np.sum(prev)


def local_index(x):
    idx = np.array([0, 2, 2])
    g = x[idx]
    return np.sum(g ** 2) + g[1] * x[0]


def literal_matrix(x):
    A = np.array([[x[0], x[1]], [x[2], x[3]]])
    return np.sum(A @ A)


def element_map_of_maybe_itself(x, flag):
    out = x * 1.0
    h = np.cos(x)
    if flag > 0.0:
        h = out  # each element of `out` is read (through h) before it is written
    for i in range(x.shape[0]):
        out[i] = h[i] * 2.0 + x[i]
    return np.sum(out * out)


def relaxed_with_branches(u0, c):
    """Double buffering after nine floats each bound in one branch of an `if` (2**9 ways
    the branches can go: the sharing analysis follows only names that may share an array)."""
    u = u0.copy()
    n = u.shape[0]
    for _ in range(2):
        v = np.empty_like(u)
        s0 = 0.0
        if u[0] > c:
            s0 = 2.0 * u[0]
        s1 = 0.0
        if u[1] > c:
            s1 = 2.0 * u[1]
        s2 = 0.0
        if u[2] > c:
            s2 = 2.0 * u[2]
        s3 = 0.0
        if u[3] > c:
            s3 = 2.0 * u[3]
        s4 = 0.0
        if u[4] > c:
            s4 = 2.0 * u[4]
        s5 = 0.0
        if u[5] > c:
            s5 = 2.0 * u[5]
        s6 = 0.0
        if u[6] > c:
            s6 = 2.0 * u[6]
        s7 = 0.0
        if u[7] > c:
            s7 = 2.0 * u[7]
        s8 = 0.0
        if u[0] + u[1] > c:
            s8 = 2.0 * u[2]
        w = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8
        for i in range(n):
            v[i] = np.sin(u[i]) + 0.1 * w
        u = v
    return np.sum(u * u)


def dup(a):
    return Duplicated(a, np.zeros_like(a))


CASES = {
    "jacobi": (jacobi, lambda: (dup(RNG.standard_normal(6)), Const(RNG.standard_normal(6)))),
    "jacobi_slices": (jacobi_slices, lambda: (dup(RNG.standard_normal(6)),)),
    "heat_swap": (heat_swap, lambda: (dup(RNG.standard_normal(6)),)),
    "stencil_2d": (stencil_2d, lambda: (dup(RNG.standard_normal((4, 5))),)),
    "exp_then_recurrence": (exp_then_recurrence, lambda: (dup(RNG.standard_normal(5)),)),
    "tanh_then_constant": (tanh_then_constant, lambda: (dup(RNG.standard_normal(5)),)),
    "carried_row": (carried_row, lambda: (dup(RNG.standard_normal(3)),
                                          dup(0.5 * RNG.standard_normal((3, 3))))),
    "local_index": (local_index, lambda: (dup(RNG.standard_normal(4)),)),
    "literal_matrix": (literal_matrix, lambda: (dup(RNG.standard_normal(4)),)),
    "element_map_aliased": (element_map_of_maybe_itself,
                            lambda: (dup(RNG.standard_normal(4)), Const(1.0))),
    "element_map_apart": (element_map_of_maybe_itself,
                          lambda: (dup(RNG.standard_normal(4)), Const(-1.0))),
    "relaxed_with_branches": (relaxed_with_branches,
                              lambda: (dup(np.linspace(-0.7, 0.9, 8)), Const(0.05))),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_loop_state_matches_central_differences_in_every_mode(case, mode):
    f, args = CASES[case]
    check_grads(f, *args(), modes=(mode,))


@pytest.mark.parametrize("case", ["jacobi_slices", "heat_swap", "exp_then_recurrence",
                                  "carried_row"])
def test_loop_state_hvp_is_the_difference_of_gradients(case):
    f, args = CASES[case]
    values = [a.value if hasattr(a, "value") else a for a in args()]
    rng = np.random.default_rng(11)  # inputs of a moderate size: the stencils grow as u**2
    x, rest = 0.5 * rng.standard_normal(values[0].shape), values[1:]
    v = rng.standard_normal(x.shape)
    eps = 1e-5

    def grad(point):
        return srcad.gradient(f, point, *[srcad.Constant(r) for r in rest])
    differences = (grad(x + eps * v) - grad(x - eps * v)) / (2 * eps)
    hv = srcad.hvp(f, x, *[srcad.Constant(r) for r in rest], tangent=v)
    np.testing.assert_allclose(hv, differences, rtol=1e-5, atol=1e-7)


def test_floats_bound_in_branches_keep_the_sharing_analysis_small(monkeypatch):
    # a configuration per way the branches can go made 2**9 of them (the analysis gave up
    # at 256 and the double buffering was refused); floats share no array: a handful
    monkeypatch.setattr(array_sharing, "_MAX_CONFIGURATIONS", 8)
    f, args = CASES["relaxed_with_branches"]
    check_grads(f, *args(), modes=("rev",))


def test_double_buffering_compiles_on_numba():
    f, args = CASES["heat_swap"]
    check_grads(f, *args(), modes=("rev",), backend="numba")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", ["jacobi", "jacobi_slices", "stencil_2d",
                                  "exp_then_recurrence", "carried_row", "literal_matrix"])
@pytest.mark.slow
def test_loop_state_on_numba(case, mode):
    f, args = CASES[case]
    check_grads(f, *args(), modes=(mode,), backend="numba")


# -- GradBench's lstm as its C++ primal is written: `layer_output` views the output, then the
# hidden row of each layer, kept for the next layer (which writes other rows of the state)


def lstm_arguments():
    rng = np.random.default_rng(3)
    layers, b, c = 2, 3, 4
    return (dup(0.5 * rng.standard_normal((2 * layers, 4 * b))),
            dup(0.5 * rng.standard_normal((3, b))),
            Const(0.5 * rng.standard_normal((2 * layers, b))), Const(rng.standard_normal((c, b))))


@pytest.mark.parametrize("mode", MODES)
def test_lstm_in_its_natural_form(mode):
    from srcad.gradbench.ports.lstm import lstm_loops
    check_grads(lstm_loops, *lstm_arguments(), modes=(mode,))


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_lstm_in_its_natural_form_on_numba(mode):
    from srcad.gradbench.ports.lstm import lstm_loops
    check_grads(lstm_loops, *lstm_arguments(), modes=(mode,), backend="numba")


# -- sharing an execution observes: still refused, by line


def alias_written_while_read(x):
    u = x * 1.0
    for _ in range(3):
        v = u
        v[0] = v[0] * 2.0 + u[1]
        u = np.sin(u)
    return np.sum(u * v)


def swap_of_one_array(x):
    u = x * 1.0
    v = u
    for _ in range(2):
        v[0] = u[1] * 2.0
        u, v = v, u
    return np.sum(u * u)


def kept_row_written_again(x, W):
    out = np.zeros((3, x.shape[0]))
    prev = x * 1.0
    s = 0.0
    for t in range(3):
        row = out[t]
        row[:] = np.tanh(W @ prev)
        prev = row
        out[t, 0] = 5.0
        s = s + prev[0]
    return np.sum(out) + s


def element_map_from_a_negative_start(x):
    out = x * 1.0
    h = out
    for _ in range(3):
        h = out
        for i in range(-1, x.shape[0]):  # out[-1] is written, then read as h[n - 1]
            out[i] = h[i] * 2.0 + 1.0
        out = np.sin(out)
    return np.sum(out)


def kept_row_written_through_another_view(x, W):
    out = np.zeros((4, x.shape[0]))
    prev = x * 1.0
    s = 0.0
    for t in range(1, 4):
        row = out[t]
        row[:] = np.tanh(W @ prev)
        back = out[t - 1]  # the row `prev` still views
        back[0] = 2.0 * back[0] + 0.5
        s = s + prev[0]
        prev = row
    return np.sum(out) + s


@pytest.mark.parametrize("f, line", [(alias_written_while_read, "return np.sum(u * v)"),
                                     (swap_of_one_array, "v = u"),
                                     (kept_row_written_again, "row[:] ="),
                                     (kept_row_written_through_another_view, "row[:] ="),
                                     (element_map_from_a_negative_start, "h = out\n")])
def test_observed_sharing_stays_refused_by_line(f, line):
    x = RNG.standard_normal(3)
    args = (x, srcad.Constant(RNG.standard_normal((3, 3)))) if f in (
        kept_row_written_again, kept_row_written_through_another_view) else (x,)
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.gradient(f, *args)
    message = str(info.value)
    source, first = inspect.getsourcelines(f)
    lines = [first + k for k, text in enumerate(source) if line in text]
    assert any(f"test_loop_state.py:{n}:" in message for n in lines), message
