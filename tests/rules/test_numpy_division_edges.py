"""NumPy's and SciPy's functions of numbers divide the way NumPy does in their derivatives
(srcad/rules/numpy_division.py), on both backends and whether the numbers are Python floats or
an array's elements: at a point where the derivative divides by zero it is JAX's inf or NaN
(numba refused it, and the python backend refused Python floats), while Python's own
functions keep Python's arithmetic (refused as a non-finite derivative). np.hypot and
math.hypot at the origin give jnp.hypot's 0.5 each; scipy.stats' gamma and beta at the ends of
their support give jax.scipy.stats' values.

Expected values are JAX's (jax.grad and jax.jacfwd, float64) at these points."""

import math
import warnings

import numpy as np
import pytest
import scipy.special
import scipy.stats

import srcad

nan, inf = math.nan, math.inf


def at_the_origin(x, y):
    return np.array([np.arctan2(x[0], y[0]), scipy.special.xlogy(x[1], y[1]),
                     np.hypot(x[2], y[2]), math.hypot(x[3], y[3]), np.sqrt(x[4]) + y[4],
                     math.hypot(x[5], y[5], x[5])])


# d out[k] / d x[k] and d out[k] / d y[k] (JAX: jnp.arctan2, jax.scipy.special.xlogy,
# jnp.hypot, jnp.sqrt; math.hypot of three coordinates as jnp.linalg.norm at 0)
REVERSE_X = [nan, -inf, 0.5, 0.5, inf, nan]
FORWARD_X = [nan, nan, 0.5, 0.5, inf, nan]  # xlogy: 1 * log(0) + 0 * (0 / 0), as jax.jacfwd
IN_Y = [nan, nan, 0.5, 0.5, 1.0, nan]


def _diagonals(jacobian):
    return [np.diag(j) for j in jacobian]


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_derivatives_at_zero_are_jaxs_on_both_backends(backend):
    x, y = np.zeros(6), np.zeros(6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's, as for arrays
        reverse = _diagonals(srcad.jacrev(at_the_origin, argnums=(0, 1), backend=backend)(x, y))
        forward = _diagonals(srcad.jacfwd(at_the_origin, argnums=(0, 1), backend=backend)(x, y))
    np.testing.assert_array_equal(reverse[0], REVERSE_X)
    np.testing.assert_array_equal(forward[0], FORWARD_X)
    np.testing.assert_array_equal(reverse[1], IN_Y)
    # (jax.jacfwd gives 1 at 4: its tangent of x there is a symbolic zero that skips sqrt's
    # rule; srcad's carries 0 * inf = NaN)
    np.testing.assert_array_equal(np.delete(forward[1], 4), np.delete(IN_Y, 4))


def arctan2_of_numbers(x, y):
    return np.arctan2(x, y) + np.hypot(x, y)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_python_floats_divide_as_numpy_in_numpys_functions(backend):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        dx, dy = srcad.grad(arctan2_of_numbers, argnums=(0, 1), backend=backend)(0.0, 0.0)
        assert math.isnan(dx) and math.isnan(dy)  # NaN + 0.5
        # mixed annotations: y a constant
        dx = srcad.autodiff(srcad.Reverse, arctan2_of_numbers, srcad.Active(0.0),
                            srcad.Const(0.0), backend=backend)[0]
        assert math.isnan(dx)
        tangent = srcad.autodiff(srcad.Forward, arctan2_of_numbers,
                                 srcad.Duplicated(0.0, 1.0), 0.0, backend=backend)
        assert math.isnan(tangent)
    # away from the origin: central differences, forward against reverse
    x, y, h = 0.3, -0.7, 1e-6
    dx, dy = srcad.grad(arctan2_of_numbers, argnums=(0, 1), backend=backend)(x, y)
    assert dx == pytest.approx((arctan2_of_numbers(x + h, y) - arctan2_of_numbers(x - h, y))
                               / (2 * h), rel=1e-7)
    assert dy == pytest.approx((arctan2_of_numbers(x, y + h) - arctan2_of_numbers(x, y - h))
                               / (2 * h), rel=1e-7)
    tangent = srcad.autodiff(srcad.Forward, arctan2_of_numbers, srcad.Duplicated(x, 1.0),
                             srcad.Duplicated(y, 0.0), backend=backend)
    assert tangent == pytest.approx(dx, rel=1e-14)


def math_atan2(x, y):
    return math.atan2(x, y)


def test_pythons_math_keeps_pythons_division():
    # math.atan2'(0, 0) divides Python floats by zero: refused, naming the function's line
    with pytest.raises(srcad.SrcadError, match="non-finite derivative"):
        srcad.grad(math_atan2, argnums=(0, 1))(0.0, 0.0)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_hypot_at_the_origin_as_jax(backend):
    def hypots(x, y):
        return np.hypot(x, y) + math.hypot(x, y) + math.hypot(x)

    grad = srcad.grad(hypots, argnums=(0, 1), backend=backend)
    assert grad(0.0, 0.0) == (2.0, 1.0)  # 0.5 + 0.5 + abs'(0) = 1; 0.5 + 0.5
    assert grad(-0.0, 0.0) == (2.0, 1.0)
    assert grad(3.0, 4.0) == pytest.approx((0.6 + 0.6 + 1.0, 0.8 + 0.8), rel=1e-14)
    tangent = srcad.autodiff(srcad.Forward, hypots, srcad.Duplicated(0.0, 1.0),
                             srcad.Duplicated(0.0, 1.0), backend=backend)
    assert tangent == 3.0
    x = np.array([0.0, 3.0, -0.0])
    y = np.array([0.0, 4.0, 0.0])
    dx, dy = srcad.grad(lambda a, b: np.sum(np.hypot(a, b)), argnums=(0, 1),
                        backend=backend)(x, y)
    np.testing.assert_allclose(dx, [0.5, 0.6, 0.5], rtol=1e-15)
    np.testing.assert_allclose(dy, [0.5, 0.8, 0.5], rtol=1e-15)


def roots(x):
    return np.power(x, 0.5) + np.power(x, 3)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_numpy_power_of_a_number_at_zero_is_jaxs_inf(backend):
    # d/dx x ** 0.5 at 0: NumPy's 0.0 ** -0.5 is inf (Python's raises); 3 x ** 2 is 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert srcad.grad(roots, backend=backend)(0.0) == inf
        assert srcad.jacfwd(roots, backend=backend)(0.0) == inf
    assert srcad.grad(roots, backend=backend)(2.0) == pytest.approx(0.5 / 2 ** 0.5 + 12.0,
                                                                    rel=1e-14)


def gamma_logpdf(x, a):
    return scipy.stats.gamma.logpdf(x, a)


def gamma_pdf(x, a):
    return scipy.stats.gamma.pdf(x, a)


def gamma_cdf(x, a):
    return scipy.stats.gamma.cdf(x, a)


def beta_logpdf(x):
    return scipy.stats.beta.logpdf(x, 2.0, 3.0)


# (function, x, a, JAX's (d/dx, d/da)) at the end of the support and outside it
SUPPORT_ENDS = [(gamma_logpdf, 0.0, 2.0, (inf, -inf)), (gamma_logpdf, 0.0, 1.0, (nan, -inf)),
                (gamma_logpdf, 0.0, 0.5, (-inf, -inf)), (gamma_logpdf, -1.0, 2.0, (0.0, 0.0)),
                (gamma_pdf, 0.0, 2.0, (nan, nan)),
                (gamma_pdf, -1.0, 2.0, (0.0, 0.0))]


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_gamma_and_beta_at_the_ends_of_their_support_as_jax(backend):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for f, x, a, want in SUPPORT_ENDS:
            got = srcad.grad(f, argnums=(0, 1), backend=backend)(x, a)
            np.testing.assert_array_equal(got, want, err_msg=f"{f.__name__} at {x}, {a}")
            # forward mode one argument at a time (both at once carry 0 * inf = NaN from the
            # other's tangent, where JAX's symbolic zero skips that term)
            got = [srcad.jacfwd(f, argnums=k, backend=backend)(x, a) for k in (0, 1)]
            np.testing.assert_array_equal(got, want, err_msg=f"{f.__name__} at {x}, {a}")
        # the cdf's derivative at the end of the support is 0, as jax.scipy.stats'
        assert srcad.grad(gamma_cdf, backend=backend)(0.0, 1.0) == 0.0
        beta = srcad.grad(beta_logpdf, backend=backend)
        assert (beta(0.0), beta(1.0), beta(1.5)) == (inf, -inf, 0.0)


def norm_logpdf_in_scale(s):
    return scipy.stats.norm.logpdf(1.0, 0.0, s)


def norm_cdf_of_scales(s):
    return np.sum(scipy.stats.norm.cdf(1.0, 0.0, s))


def t_logpdf_in_df(df):
    return scipy.stats.t.logpdf(1.0, df)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_parameters_outside_their_domain_give_nan_partials_as_scipy_gives_nan(backend):
    # SciPy's value is NaN where scale or a shape parameter is <= 0: so is the derivative
    # (before: finite numbers, 0.0 for norm.logpdf in scale at -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert math.isnan(scipy.stats.norm.logpdf(1.0, 0.0, -1.0))
        for s in (-1.0, 0.0):
            assert math.isnan(srcad.grad(norm_logpdf_in_scale, backend=backend)(s))
            assert math.isnan(srcad.jacfwd(norm_logpdf_in_scale, backend=backend)(s))
        assert math.isnan(srcad.grad(t_logpdf_in_df, backend=backend)(-1.0))
        got = srcad.grad(norm_cdf_of_scales, backend=backend)(np.array([-1.0, 2.0]))
    assert math.isnan(got[0])
    # inside the domain: the derivative (central differences)
    h = 1e-6
    want = (norm_cdf_of_scales(np.array([2.0 + h])) - norm_cdf_of_scales(np.array([2.0 - h]))) \
        / (2 * h)
    assert got[1] == pytest.approx(want, rel=1e-7)
    assert srcad.grad(norm_logpdf_in_scale, backend=backend)(2.0) == pytest.approx(
        -1.0 / 2.0 + 1.0 / 8.0, rel=1e-14)  # d/ds (-log s - 1 / (2 s^2)) = -1/s + 1/s^3


def second_order_through_numpys_division(x):
    return np.arctan2(x, 2.0) + np.power(x, 2.5) + np.float64(x) * x


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_second_order_reads_numpys_division(backend):
    # hessian differentiates srcad's own code, whose partials divide through np.float64
    x = 0.7
    want = -2.0 * x * 2.0 / (x * x + 4.0) ** 2 + 2.5 * 1.5 * x ** 0.5 + 2.0
    assert srcad.hessian(second_order_through_numpys_division, backend=backend)(x) == \
        pytest.approx(want, rel=1e-12)
    assert srcad.grad(second_order_through_numpys_division, backend=backend)(x) == \
        pytest.approx(2.0 / (x * x + 4.0) + 2.5 * x ** 1.5 + 2.0 * x, rel=1e-14)


def test_an_infinite_partial_in_forward_mode_gives_nan_in_the_other_direction_as_jax():
    # docs/limitations.md: jax.jacfwd gives (inf, nan) here, jax.jacrev (inf, 1.0)
    def f(x, y):
        return np.sqrt(x) + y

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        forward = srcad.jacfwd(f, argnums=(0, 1))(0.0, 1.0)
        reverse = srcad.jacrev(f, argnums=(0, 1))(0.0, 1.0)
    assert forward[0] == inf and math.isnan(forward[1])
    assert reverse == (inf, 1.0)
