"""Operators leave their input alone: an f that writes elements of its own input x still gets
the derivative at x, and the caller's x is unchanged afterwards (the operators run f on a copy
of x held by the preparation, refilled before every pass).

Before that copy existed, every operator left x overwritten, and those that make several
passes (a forward gradient or Jacobian in chunks, a reverse Jacobian row by row, a Hessian in
chunks) differentiated at the overwritten values from the second pass on.

Expected values are closed forms derived by hand (below each function).
"""

import importlib.util
import tracemalloc

import numpy as np
import pytest

import srcad
from srcad import Output

RTOL, ATOL = 1e-12, 1e-12
POINTS = (np.array([0.5, -1.25, 2.0, 0.75]), np.array([1.5, 0.25, -0.5, 1.1]),
          np.array([-0.3, 0.9, 1.7, -1.4]))  # preparation point, then the call points
NEEDS_NUMBA = pytest.mark.skipif(importlib.util.find_spec("numba") is None,
                                 reason="numba is not installed")
# numba compiles every case for seconds: `make test` runs it in the helper test only
SMOKE_BACKENDS = ["python", pytest.param("numba", marks=NEEDS_NUMBA)]
BACKENDS = ["python", pytest.param("numba", marks=[NEEDS_NUMBA, pytest.mark.slow])]


def cube_pairs(x):
    """x <- x**3 in place, then s = sum_i x_i x_r(i) with r(i) = n-1-i."""
    n = len(x)
    for i in range(n):
        x[i] = x[i] * x[i] * x[i]
    s = 0.0
    for i in range(n):
        s += x[i] * x[n - 1 - i]
    return s


def cube_pairs_closed(x):
    """With u = x**3 (n even, so r(k) != k): s = sum_i u_i u_r(i); ds/du_k = 2 u_r(k), so
    grad_k = 6 x_k^2 x_r(k)^3; H_kk = 12 x_k x_r(k)^3, H_k,r(k) = 18 x_k^2 x_r(k)^2."""
    n = len(x)
    r = n - 1 - np.arange(n)
    value = float(np.sum(x ** 3 * x[r] ** 3))
    grad = 6 * x ** 2 * x[r] ** 3
    H = np.diag(12 * x * x[r] ** 3)
    H[np.arange(n), r] = 18 * x ** 2 * x[r] ** 2
    return value, grad, H


def square_in_place(v):
    for i in range(len(v)):
        v[i] = v[i] * v[i]


def cube_pairs_via_helper(x):
    """The write happens in an inlined helper: x <- x**2, then x <- x**2 again (x**4 in all),
    s = sum_i x_i x_r(i)."""
    square_in_place(x)
    square_in_place(x)
    n = len(x)
    s = 0.0
    for i in range(n):
        s += x[i] * x[n - 1 - i]
    return s


def via_helper_gradient(x):
    """u = x**4: grad_k = 2 u_r(k) * 4 x_k^3."""
    r = len(x) - 1 - np.arange(len(x))
    return 8 * x[r] ** 4 * x ** 3


def squares_returned(x):
    """x <- x**2 in place, then y_i = x_i x_r(i)."""
    n = len(x)
    for i in range(n):
        x[i] = x[i] * x[i]
    y = np.zeros(n)
    for i in range(n):
        y[i] = x[i] * x[n - 1 - i]
    return y


def squares_output(y, x):
    """The same into an Output argument."""
    n = len(x)
    for i in range(n):
        x[i] = x[i] * x[i]
    for i in range(n):
        y[i] = x[i] * x[n - 1 - i]


def squares_closed(x):
    """y_i = x_i^2 x_r(i)^2: J_ii = 2 x_i x_r(i)^2, J_i,r(i) = 2 x_i^2 x_r(i) (n even)."""
    n = len(x)
    r = n - 1 - np.arange(n)
    J = np.diag(2 * x * x[r] ** 2)
    J[np.arange(n), r] = 2 * x ** 2 * x[r]
    return x ** 2 * x[r] ** 2, J


TANGENT = np.array([0.3, -1.0, 0.5, 2.0])
COTANGENT = np.array([1.0, 0.5, -2.0, 0.25])


def _each_point(call, expected, prep=None):
    """call(x, prep) at every point, prepared and not; x must be unchanged after each."""
    for x in POINTS[1:] + POINTS[1:2]:
        for p in (prep, None):
            given = x.copy()
            got = call(given, p)
            np.testing.assert_array_equal(given, x, err_msg="the operator changed x")
            want = expected(x)
            if isinstance(want, tuple):
                for g, w in zip(got, want):
                    np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
            else:
                np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


GRADIENT_OPTIONS = [{}, dict(mode="reverse"), dict(mode="forward"),
                    dict(mode="forward", chunk=1), dict(mode="forward", chunk=3)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("options", GRADIENT_OPTIONS, ids=str)
@pytest.mark.parametrize("with_out", [False, True])
def test_gradient_of_f_writing_its_input(options, backend, with_out):
    prep = srcad.prepare_gradient(cube_pairs, POINTS[0].copy(), backend=backend, **options)
    out = np.full(4, 7.0) if with_out else None

    def call(x, p):
        kw = {} if p is not None else dict(options, backend=backend)
        return srcad.gradient(cube_pairs, x, prep=p, out=out, **kw)

    _each_point(call, lambda x: cube_pairs_closed(x)[1], prep)

    def call_value(x, p):
        kw = {} if p is not None else dict(options, backend=backend)
        return srcad.value_and_gradient(cube_pairs, x, prep=p, out=out, **kw)

    _each_point(call_value, lambda x: cube_pairs_closed(x)[:2], prep)


@pytest.mark.parametrize("backend", SMOKE_BACKENDS)
@pytest.mark.parametrize("options", [{}, dict(mode="forward", chunk=1)], ids=str)
def test_gradient_of_f_writing_its_input_in_a_helper(options, backend):
    prep = srcad.prepare_gradient(cube_pairs_via_helper, POINTS[0].copy(), backend=backend,
                                  **options)
    _each_point(lambda x, p: srcad.gradient(cube_pairs_via_helper, x, prep=p,
                                            **({} if p else dict(options, backend=backend))),
                via_helper_gradient, prep)


JACOBIAN_OPTIONS = [{}, dict(mode="forward", chunk=1), dict(mode="forward", chunk=3),
                    dict(mode="reverse")]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("options", JACOBIAN_OPTIONS, ids=str)
@pytest.mark.parametrize("output", [False, True], ids=["returned", "Output"])
def test_jacobian_of_f_writing_its_input(options, backend, output):
    y = np.zeros(4)
    f = squares_output if output else squares_returned

    def args(x):
        return (Output(y), x) if output else (x,)

    prep = srcad.prepare_jacobian(f, *args(POINTS[0].copy()), backend=backend, **options)
    J = np.full((4, 4), 7.0)
    _each_point(lambda x, p: srcad.jacobian(f, *args(x), prep=p, out=J,
                                            **({} if p else dict(options, backend=backend))),
                lambda x: squares_closed(x)[1], prep)
    _each_point(lambda x, p: srcad.value_and_jacobian(
        f, *args(x), prep=p, **({} if p else dict(options, backend=backend))),
        squares_closed, prep)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("batch", [False, True])
def test_pushforward_of_f_writing_its_input(backend, batch):
    tangent = (TANGENT, 2.0 * TANGENT) if batch else TANGENT
    prep = srcad.prepare_pushforward(squares_returned, POINTS[0].copy(), tangent=tangent,
                                     backend=backend)

    def expected(x):
        J = squares_closed(x)[1]
        return (J @ TANGENT, J @ (2.0 * TANGENT)) if batch else J @ TANGENT

    _each_point(lambda x, p: srcad.pushforward(squares_returned, x, tangent=tangent, prep=p,
                                               backend=backend), expected, prep)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("float_output", [False, True])
def test_pullback_of_f_writing_its_input(backend, float_output):
    if float_output:
        f, cotangent = cube_pairs, 1.5

        def expected(x):
            return 1.5 * cube_pairs_closed(x)[1]
    else:
        f, cotangent = squares_returned, COTANGENT

        def expected(x):
            return COTANGENT @ squares_closed(x)[1]
    prep = srcad.prepare_pullback(f, POINTS[0].copy(), cotangent=cotangent, backend=backend)
    _each_point(lambda x, p: srcad.pullback(f, x, cotangent=cotangent, prep=p,
                                            backend=backend), expected, prep)


def test_hvp_of_f_writing_its_input():
    prep = srcad.prepare_hvp(cube_pairs, POINTS[0].copy(), tangent=TANGENT)
    _each_point(lambda x, p: srcad.hvp(cube_pairs, x, tangent=TANGENT, prep=p),
                lambda x: cube_pairs_closed(x)[2] @ TANGENT, prep)


@pytest.mark.parametrize("chunk", [None, 1, 3])
def test_hessian_of_f_writing_its_input(chunk):
    prep = srcad.prepare_hessian(cube_pairs, POINTS[0].copy(), chunk=chunk)
    H = np.full((4, 4), 7.0)
    _each_point(lambda x, p: srcad.hessian(cube_pairs, x, prep=p, out=H, chunk=chunk),
                lambda x: cube_pairs_closed(x)[2], prep)


def rebinds_its_float_input(x, a):
    x = x * x
    return a * x * x


def test_derivative_of_f_rebinding_a_float_input():
    """A float x cannot be written in place (floats are immutable); rebinding the parameter is
    an ordinary assignment: d(a x^4)/dx = 4 a x^3, d2 = 12 a x^2."""
    for x in (0.5, -1.5):
        assert srcad.derivative(rebinds_its_float_input, x, srcad.Constant(2.0)) \
            == pytest.approx(8.0 * x ** 3, rel=RTOL)
        assert srcad.second_derivative(rebinds_its_float_input, x, srcad.Constant(2.0)) \
            == pytest.approx(24.0 * x ** 2, rel=RTOL)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_prepared_call_keeps_x_unchanged_without_allocating_per_n():
    """The copy of x lives in the preparation: a prepared in-place call allocates nothing
    proportional to n. Forward mode in fixed chunks (reverse mode's python tape of the
    overwritten x is proportional to n by itself): peaks measured ~3-4 KB for n = 100 and
    n = 1000. A buffer of n floats more at n = 400 would add 2.4 KB over n = 100."""
    peaks = {}
    for n in (100, 400):
        x = np.linspace(0.1, 1.0, n)
        x_given, out = x.copy(), np.zeros(n)
        prep = srcad.prepare_gradient(cube_pairs, x, mode="forward", chunk=8)
        srcad.gradient(cube_pairs, x, prep=prep, out=out)
        tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            srcad.gradient(cube_pairs, x, prep=prep, out=out)
            peaks[n] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        np.testing.assert_array_equal(x, x_given)
    assert peaks[400] - peaks[100] < 2048, peaks


# -- writes through a second name for an array ------------------------------------------------
# srcad follows arrays by name; a write through another name for the same array changed x
# without srcad knowing (alias_write: srcad gave 1 for every entry of a gradient 2 x) and the
# operators' copy of x was never made. Such names are now rewritten as the array itself
# (srcad/transform/normalize/views.py): the gradient is right and the caller's x is left as it was.
def alias_write(x):
    y = x
    for i in range(len(x)):
        y[i] = y[i] * y[i]
    s = 0.0
    for i in range(len(x)):
        s += x[i]
    return s


def row_write(X):
    s = 0.0
    for row in X:
        row[0] = row[0] * 2.0
    for i in range(len(X)):
        s += X[i, 0]
    return s


def constant_written_through_alias(x, c):
    d = c
    for i in range(len(x)):
        d[i] = d[i] + 1.0
    s = 0.0
    for i in range(len(x)):
        s += x[i] * c[i]
    return s


def read_only_alias(x, w):
    v = w
    s = 0.0
    for i in range(len(x)):
        s += v[i] * x[i] * x[i]
    return s


def alias_after_writes(x):
    w = np.zeros(len(x))
    for i in range(len(x)):
        w[i] = i + 1.0
    v = w
    s = 0.0
    for i in range(len(x)):
        s += v[i] * x[i] * x[i]
    return s


def alias_between_writes(x):
    w = np.zeros(len(x))
    for i in range(len(x)):
        w[i] = i + 1.0
    v = w
    for i in range(len(x)):
        w[i] = 2.0 * w[i]
    s = 0.0
    for i in range(len(x)):
        s += v[i] * x[i] * x[i]
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_second_name_bound_after_the_last_write_reads_the_finished_array(backend):
    """s = sum w_i x_i^2 with w = (1, 2, 3) read through v = w once w is filled: gradient
    2 w x (the inlined `return value, aux` of has_aux binds such a name); written after the
    binding, v sees the write (w doubled: gradient 4 w x), as in NumPy."""
    x, w = np.array([1.0, -2.0, 0.5]), np.array([1.0, 2.0, 3.0])
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(srcad.gradient(alias_after_writes, x, mode=mode,
                                                  backend=backend), 2 * w * x, rtol=1e-14)
    np.testing.assert_allclose(srcad.gradient(alias_between_writes, x, backend=backend),
                               4 * w * x, rtol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_write_through_a_second_name_writes_the_array(backend):
    # alias_write: s = sum x_i^2, gradient 2 x; row_write: s = sum 2 X_i0, gradient 2 in
    # column 0; the caller's arrays are left unchanged (the operators copy written inputs)
    x, X = np.array([1.0, 2.0, 3.0]), np.array([[1.0, 2.0], [3.0, 4.0]])
    cases = [(alias_write, x, 2 * x), (row_write, X, np.array([[2.0, 0.0], [2.0, 0.0]]))]
    for f, value, expected in cases:
        for mode in ("reverse", "forward"):
            given = value.copy()
            np.testing.assert_allclose(srcad.gradient(f, given, mode=mode, backend=backend),
                                       expected, rtol=1e-14)
            np.testing.assert_array_equal(given, value)
    # a Constant written through a second name is written: refused as any written Constant
    c = np.ones(3)
    with pytest.raises(srcad.ArgumentError, match="writes into argument 1"):
        srcad.gradient(constant_written_through_alias, x, srcad.Constant(c), backend=backend)
    np.testing.assert_array_equal(c, np.ones(3))


def test_read_only_second_name_of_a_constant_array_still_works():
    """s = sum w_i x_i^2: gradient 2 w x."""
    x, w = np.array([1.0, -2.0, 0.5]), np.array([3.0, 0.5, -1.0])
    np.testing.assert_allclose(srcad.gradient(read_only_alias, x, srcad.Constant(w)),
                               2 * w * x, rtol=1e-14)


def shifts_a_constant_in_place(x, c):
    c += 1.0
    s = 0.0
    for i in range(len(x)):
        s += x[i] * c[i]
    return s


def test_constant_updated_in_place_by_augmented_assignment_is_refused():
    """`c += 1.0` on an array is an in-place write (NumPy): before, a Constant written this
    way was changed by every pass (forward gradient in chunks of 1 gave [3, 4, 5] for c + 1 =
    [2, 2, 2]) instead of being refused like `c[i] = ...`."""
    x, c = np.array([1.0, 2.0, 3.0]), np.ones(3)
    for options in ({}, dict(mode="forward", chunk=1)):
        with pytest.raises(srcad.ArgumentError, match="writes into argument 1"):
            srcad.gradient(shifts_a_constant_in_place, x, srcad.Constant(c), **options)
    np.testing.assert_array_equal(c, np.ones(3))
