"""Array programs on the numba backend: the generated whole-array code compiled by numba in
reverse and forward mode, checked against central finite differences and against the python
backend; the compiled runtime (`unbroadcast`, `matmul`) against NumPy; what numba does not
compile is refused by name and line."""

import numpy as np
import pytest

import srcad
from srcad import Duplicated
from srcad.errors import SrcadError
from srcad.testing import check_grads
from tests.arrays.test_array_programs import (
    accumulate,
    euler_steps,
    logistic_loss,
    mlp_loss,
    rnn_loss,
    smoothness,
    softmax_cross_entropy,
    squared_error,
)

pytest.importorskip("numba")

RNG = np.random.default_rng(11)


def dup(x):
    return Duplicated(x, np.zeros_like(x))


def broadcast_then_sum(a, x):
    return np.sum(np.exp(a + x) * np.where(x > 0.0, x, 0.1 * x)) + np.mean(np.maximum(x, a))


def two_ranks_rebound(A, v):
    M = A
    h = v
    for _ in range(3):
        M = np.tanh(M * 0.5 + 0.1)
        h = np.sin(M @ h)
    return np.sum(h) + np.sum(M * M)


def gather_rows(W, xs):
    total = 0.0
    for t in range(xs.shape[0]):
        total = total + np.dot(xs[t], W @ xs[t])
    return total


def extrema_and_means(A):
    return np.sum(np.max(A, axis=0) * np.min(A, axis=1, keepdims=True)) \
        + np.mean(A.sum(axis=1) ** 2) + np.sum(np.mean(A, axis=(0, 1), keepdims=True))


def sum_over_two_axes(x, c):
    return np.sum(c * np.sum(x * x, axis=(0, 2)))


def dot_with_a_number(a, x):
    return np.sum(np.dot(a, x) * x)


def running_total(x):
    # numba compiles np.median, np.clip, np.cumprod, np.linalg.norm(x, 1) now; not a norm
    # along an axis
    return np.sum(np.linalg.norm(x[None, :], 1, axis=1)) * x[0]


def _mlp_args(N=12, D=5, H=4, K=3):
    return (dup(0.5 * RNG.standard_normal((D, H))), dup(RNG.standard_normal(H)),
            dup(0.5 * RNG.standard_normal((H, K))), dup(RNG.standard_normal(K)),
            RNG.standard_normal((N, D)), np.eye(K)[RNG.integers(0, K, N)])


def _rnn_args(H=5, T=4, D=3):
    return (dup(0.5 * RNG.standard_normal((H, H))), dup(RNG.standard_normal((H, D))),
            RNG.standard_normal((T, D)), dup(RNG.standard_normal(H)), RNG.standard_normal(H))


PROGRAMS = [
    (logistic_loss, lambda: (dup(RNG.standard_normal(4)), RNG.standard_normal((30, 4)),
                             np.sign(RNG.standard_normal(30)))),
    (squared_error, lambda: (dup(RNG.standard_normal((2, 3))), dup(RNG.standard_normal(3)))),
    (rnn_loss, _rnn_args),
    (smoothness, lambda: (dup(RNG.standard_normal(5)),)),
    (accumulate, lambda: (dup(RNG.standard_normal(3)), dup(RNG.standard_normal((4, 3))))),
    (euler_steps, lambda: (dup(RNG.standard_normal(4)), srcad.Active(0.3))),
    (broadcast_then_sum, lambda: (srcad.Active(0.2), dup(RNG.standard_normal((2, 3))))),
    (two_ranks_rebound, lambda: (dup(RNG.standard_normal((3, 3))), dup(RNG.standard_normal(3)))),
    (gather_rows, lambda: (dup(RNG.standard_normal((3, 3))), RNG.standard_normal((4, 3)))),
    (softmax_cross_entropy, lambda: (dup(RNG.standard_normal((4, 3))), np.eye(3)[[0, 2, 1, 1]])),
    (mlp_loss, _mlp_args),
    (extrema_and_means, lambda: (dup(RNG.standard_normal((3, 4))),)),
    (sum_over_two_axes, lambda: (dup(RNG.standard_normal((2, 3, 4))), RNG.standard_normal(3))),
    (dot_with_a_number, lambda: (srcad.Active(0.4), dup(RNG.standard_normal(3)))),
]


# numba compiles each program in two modes, seconds each: the first is `make test`'s smoke test
@pytest.mark.parametrize("f, args", [pytest.param(*p, marks=pytest.mark.slow if k else ())
                                     for k, p in enumerate(PROGRAMS)],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_numba_reverse_and_forward_mode_of_array_programs(f, args):
    check_grads(f, *args(), modes=("fwd", "rev"), backend="numba")


@pytest.mark.parametrize("f, args", PROGRAMS[:3], ids=lambda v: getattr(v, "__name__", ""))
def test_numba_gradient_equals_the_python_backend(f, args):
    values = args()
    grads = {}
    for backend in ("python", "numba"):
        copies = [Duplicated(a.value, np.zeros_like(a.value)) if isinstance(a, Duplicated)
                  else a for a in values]
        _, value = srcad.autodiff(srcad.ReverseWithPrimal, f, *copies, backend=backend)
        grads[backend] = (value, [a.shadow for a in copies if isinstance(a, Duplicated)])
    assert grads["numba"][0] == pytest.approx(grads["python"][0], rel=1e-12)
    for got, want in zip(grads["numba"][1], grads["python"][1]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_numba_rnn_gradient_matches_hand_written_backpropagation_through_time():
    W, U, xs, h0, target = (a.value if isinstance(a, Duplicated) else a for a in _rnn_args())
    W_bar, U_bar, h0_bar = np.zeros_like(W), np.zeros_like(U), np.zeros_like(h0)
    srcad.autodiff(srcad.Reverse, rnn_loss, Duplicated(W, W_bar), Duplicated(U, U_bar), xs,
                   Duplicated(h0, h0_bar), target, backend="numba")
    hs = [h0]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(W @ hs[-1] + U @ xs[t]))
    g = 2.0 * (hs[-1] - target)
    dW, dU = np.zeros_like(W), np.zeros_like(U)
    for t in reversed(range(xs.shape[0])):
        a = g * (1.0 - hs[t + 1] ** 2)
        dW += np.outer(a, hs[t])
        dU += np.outer(a, xs[t])
        g = W.T @ a
    np.testing.assert_allclose(W_bar, dW, rtol=1e-10)
    np.testing.assert_allclose(U_bar, dU, rtol=1e-10)
    np.testing.assert_allclose(h0_bar, g, rtol=1e-10)


def test_numba_reverse_tapes_arrays_of_each_rank_on_its_own_list():
    text = srcad.source(two_ranks_rebound, srcad.Reverse, dup(np.ones((3, 3))), dup(np.ones(3)),
                        backend="numba")
    assert "array_tape_1d = []" in text and "array_tape_2d = []" in text


# -- the compiled runtime against NumPy ----------------------------------------------------------
@pytest.mark.parametrize("g_shape, shape", [
    ((2, 3), (3,)), ((2, 3), (2, 1)), ((2, 3), (1, 3)), ((4, 2, 3), (2, 1)), ((2, 3), ()),
    ((3,), (3,)), ((2, 3), (2, 3)),
])
def test_compiled_unbroadcast_sums_the_broadcast_axes(g_shape, shape):
    import numba

    from srcad.runtime.numba_arrays import unbroadcast

    @numba.njit
    def run(g, shape):
        return unbroadcast(g, shape)

    g = RNG.standard_normal(g_shape)
    lead = len(g_shape) - len(shape)
    axes = tuple(range(lead)) + tuple(lead + k for k, n in enumerate(shape)
                                      if n == 1 and g_shape[lead + k] != 1)
    want = np.sum(g, axis=axes).reshape(shape) if axes else g
    np.testing.assert_allclose(run(g, shape), want, rtol=1e-12)
    np.testing.assert_allclose(run(g.T.copy().T, shape), want, rtol=1e-12)  # F layout


@pytest.mark.parametrize("a_shape, b_shape", [((3, 4), (4,)), ((4,), (4, 2)), ((3, 4), (4, 2)),
                                              ((4,), (4,))])
def test_compiled_matmul_of_strided_and_contiguous_operands(a_shape, b_shape):
    import numba

    from srcad.runtime.numba_arrays import array_matmul as matmul

    @numba.njit
    def run(a, b):
        return matmul(a, b)

    a, b = RNG.standard_normal(a_shape), RNG.standard_normal(b_shape)
    strided_a = np.repeat(a, 2, axis=-1)[..., ::2]  # not contiguous: the loops
    np.testing.assert_allclose(run(a, b), np.dot(a, b), rtol=1e-12)
    np.testing.assert_allclose(run(strided_a, b), np.dot(a, b), rtol=1e-12)


def test_compiled_outer_add_adds_the_outer_product_into_the_matrix_in_place():
    import numba

    from srcad.runtime.numba_arrays import outer_add

    @numba.njit
    def run(a, x, y):
        outer_add(a, x, y)

    a, x, y = RNG.standard_normal((3, 4)), RNG.standard_normal(3), RNG.standard_normal(4)
    want = a + np.outer(x, y)
    run(a, x, y)  # into what a already holds, as `a += np.outer(x, y)`
    np.testing.assert_allclose(a, want, rtol=1e-12)
    big = RNG.standard_normal((6, 8))
    view, want = big[::2, ::2], big[::2, ::2] + np.outer(x, y)  # a strided view is written
    run(view, x, y)
    np.testing.assert_allclose(big[::2, ::2], want, rtol=1e-12)
    with pytest.raises(ValueError):
        run(np.zeros((4, 3)), x, y)


def test_compiled_array_tanh_is_numpys_tanh_within_three_ulp():
    import numba

    from srcad.runtime.numba_arrays import array_tanh

    @numba.njit
    def run(a):
        return array_tanh(a)

    a = RNG.uniform(-4.0, 4.0, (5, 6))
    # contiguous, strided, one row, a strided vector, an empty one
    for operand in (a, a[:, ::2], a[1], a[1, ::2], a[1, :0]):
        got, want = run(operand), np.tanh(operand)
        assert got.shape == want.shape
        assert np.all(np.abs(got - want) <= 3 * np.spacing(np.abs(want)))
    assert run(0.3) == np.tanh(0.3)  # a number: numba's own tanh


def test_numba_tanh_of_an_array_runs_the_vectorizable_loop():
    text = srcad.source(rnn_loss, srcad.Reverse, *_rnn_args(), backend="numba")
    code = [line for line in text.splitlines() if not line.strip().startswith("#")]
    # array_tanh's loop, or a fused loop of the chain around it (simd_tanh in both)
    fused = [line for line in text.splitlines() if line.strip().startswith("# one loop")]
    assert any("array_tanh(" in line for line in code + fused)
    assert not any("np.tanh" in line for line in code)


def test_numba_adjoint_of_a_matrix_vector_product_adds_the_outer_product_in_place():
    text = srcad.source(rnn_loss, srcad.Reverse, *_rnn_args(), backend="numba")
    assert "outer_add(W_bar," in text and "np.outer" not in text


# -- refused by name -----------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [srcad.Reverse, srcad.Forward])
def test_numba_refuses_what_it_does_not_compile_by_name_and_line(mode):
    with pytest.raises(SrcadError) as info:
        srcad.autodiff(mode, running_total, dup(np.ones(3)), backend="numba")
    text = str(info.value)
    assert "numba" in text and "np.linalg.norm(x[None, :], 1, axis=1)" in text
    assert "test_numba_arrays.py:" in text


def test_numba_vector_mode_runs_array_code_in_unrolled_lanes_by_default():
    # squared_error = sum((x - t)^2): the tangent of lane k is seeds[k] . 2 (x - t)
    x, t = RNG.standard_normal(3), RNG.standard_normal(3)
    seeds = RNG.standard_normal((3, 3))
    lanes = srcad.autodiff(srcad.Forward, squared_error, srcad.BatchDuplicated(x, seeds), t,
                           backend="numba")
    np.testing.assert_allclose(lanes, seeds @ (2.0 * (x - t)), rtol=1e-12)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("f, args", [PROGRAMS[2], PROGRAMS[9]],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_numba_vector_mode_with_unrolled_lanes_equals_one_forward_call_per_lane(f, args):
    values = [a.value if isinstance(a, Duplicated) else a for a in args()]
    x = values[0]
    seeds = [RNG.standard_normal(x.shape) for _ in range(3)]
    lanes = srcad.autodiff(srcad.Forward, f, srcad.BatchDuplicated(x, seeds), *values[1:],
                           batch="unrolled", backend="numba")
    for k, seed in enumerate(seeds):
        one = srcad.autodiff(srcad.Forward, f, Duplicated(x, seed), *values[1:], backend="numba")
        assert lanes[k] == pytest.approx(one, rel=1e-12)


def test_a_call_numba_does_not_compile_is_refused_at_the_users_line(tmp_path, monkeypatch):
    from srcad.build.compiler import compile_numba
    from srcad.build.numba_errors import raise_numba_error
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))
    source = ("def g(x):\n"
              "    # line 7: y = np.linalg.qr(x)\n"
              "    y = np.linalg.qr(x, 'r')\n"
              "    return y\n")
    g = compile_numba(source, "g", {}, {"np"}, "user.py")
    with pytest.raises(Exception) as raised:
        g(np.ones((2, 2)))
    with pytest.raises(SrcadError) as info:
        raise_numba_error(raised.value, "user.py")
    assert str(info.value).startswith("user.py:7: ")
    assert "`qr`" in str(info.value) and "y = np.linalg.qr(x)" in str(info.value)


# -- reads through index arrays and masks ---------------------------------------------------------
def gathered_sines(x, idx):
    return np.sum(np.sin(x[idx]))


def positive_squares(x):
    return np.sum(x[x > 0.0] ** 2)


def positive_squares_2d(A):
    return np.sum(A[A > 0.0] ** 2)


def test_numba_reverse_mode_of_a_gather_adds_repeated_indices_up():
    # its adjoint adds repeated indices up (scatter_add, numba's np.add.at)
    args = (dup(RNG.standard_normal(4)), np.array([0, 2, 2]))
    check_grads(gathered_sines, *args, modes=("rev", "fwd"), backend="numba")


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_numba_reverse_mode_of_a_1d_mask():
    x = np.array([-1.2, 0.3, -0.4, 1.5])
    check_grads(positive_squares, dup(x), modes=("rev",), backend="numba")
    shadow = dup(x)
    srcad.autodiff(srcad.Reverse, positive_squares, shadow, backend="numba")
    np.testing.assert_allclose(shadow.shadow, np.where(x > 0.0, 2.0 * x, 0.0), rtol=1e-14)


@pytest.mark.parametrize("mode", [srcad.Reverse, srcad.Forward])
def test_numba_refuses_masks_of_rank_two_by_name_and_line(mode):
    # numba indexes with 1-D masks only (it failed with an internal AssertionError)
    with pytest.raises(SrcadError) as info:
        srcad.autodiff(mode, positive_squares_2d, dup(RNG.standard_normal((3, 3))),
                       backend="numba")
    assert info.value.filename == __file__ and "A[A > 0.0]" in str(info.value)


def floats_and_counts_rebound(x, n):
    k = np.arange(3)
    s = 0.0
    for _ in range(n):
        y = np.sin(x * k)
        k = k + 1
        s = s + np.sum(y * y)
    return s


def test_numba_reverse_tapes_float_and_int_arrays_of_one_rank_on_separate_lists():
    # numba types a list by its elements: one list for both did not compile
    args = (dup(RNG.standard_normal(3)), 3)
    text = srcad.source(floats_and_counts_rebound, srcad.Reverse, *args, backend="numba")
    assert "int_array_tape_1d = []" in text and "array_tape_1d = []" in text
    check_grads(floats_and_counts_rebound, *args, modes=("rev", "fwd"), backend="numba")


# -- JAX-style transforms of array code on numba ---------------------------------------------------
def test_jacrev_of_array_code_on_numba_equals_the_python_backend():
    w, X = RNG.standard_normal(3), RNG.standard_normal((4, 3))
    np.testing.assert_allclose(srcad.jacrev(logistic_loss, backend="numba")(w, X, np.ones(4)),
                               srcad.jacrev(logistic_loss)(w, X, np.ones(4)), rtol=1e-12)


def test_jacfwd_of_array_code_on_numba_equals_the_python_backend():
    # jacfwd's lanes run unrolled on numba for array code (lanes in arrays are refused there)
    x, t = RNG.standard_normal(3), RNG.standard_normal(3)
    np.testing.assert_allclose(srcad.jacfwd(squared_error, backend="numba")(x, t),
                               2.0 * (x - t), rtol=1e-12)
