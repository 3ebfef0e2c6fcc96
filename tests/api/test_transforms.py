"""The JAX-style transforms (srcad/api/function_transforms.py): grad, value_and_grad, jacfwd, jacrev
and the transform form of hessian.

Expected values are derived by hand (closed forms below), taken from scipy's own Rosenbrock
derivatives, or computed by central finite differences; forward (jacfwd) is compared with
reverse (jacrev). Nothing is compared with srcad's own output.
"""

import math

import numpy as np
import pytest

import srcad
from srcad import ArgumentError, Constant

try:  # scipy is in the dev extra
    import scipy.optimize as optimize
except ImportError:
    optimize = None
needs_scipy = pytest.mark.skipif(optimize is None, reason="needs scipy (pip install 'srcad[dev]')")


# -- functions and their hand-derived derivatives ----------------------------------------------
def rosen(x):
    s = 0.0
    for i in range(len(x) - 1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def mixed(x, y, z):
    """x * sum(y_i^2) + sin(z) * x: a float, an array and a float argument."""
    s = 0.0
    for i in range(len(y)):
        s += x * y[i] ** 2
    return s + math.sin(z) * x


def mixed_gradients(x, y, z):
    return (float(np.sum(y ** 2)) + math.sin(z), 2.0 * x * y, math.cos(z) * x)


def curve(t, p):
    """y_i = p0 exp(-p1 t_i) + p2: an array output of a (3,) parameter vector."""
    y = np.zeros(len(t))
    for i in range(len(t)):
        y[i] = p[0] * math.exp(-p[1] * t[i]) + p[2]
    return y


def curve_jacobian(t, p):
    e = np.exp(-p[1] * t)
    return np.stack([e, -p[0] * t * e, np.ones_like(t)], axis=1)


def matrix_rows(a, w):
    """Row i: w * sum_j a[i, j]^3 for a (2, 3) matrix a; the output has shape (2,)."""
    y = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            y[i] += w * a[i, j] ** 3
    return y


def spread(x, m):
    """An output whose length is the int argument m: y_k = (k + 1) * x^2."""
    y = np.zeros(m)
    for k in range(m):
        y[k] = (k + 1.0) * x * x
    return y


def quartic(a):
    """sum_ij a_ij^4 / 4 + a_00 a_11 for a (2, 2) array."""
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += 0.25 * a[i, j] ** 4
    return s + a[0, 0] * a[1, 1]


def gaussian_nll(theta, data):
    """Negative log-likelihood of N(mu, sigma^2), theta = [mu, log sigma]."""
    mu, log_sigma = theta[0], theta[1]
    sigma = math.exp(log_sigma)
    s = 0.0
    for i in range(len(data)):
        s += 0.5 * ((data[i] - mu) / sigma) ** 2 + log_sigma
    return s


def returns_array(x):
    y = np.zeros(2)
    y[0] = x[0]
    y[1] = x[1]
    return y


def central_jacobian(fun, args, position, eps=1e-6):
    """d fun / d args[position] by central differences, shape output.shape + input.shape."""
    x = np.asarray(args[position], dtype=float)
    columns = []
    for k in range(x.size):
        plus, minus = x.copy().reshape(-1), x.copy().reshape(-1)
        plus[k] += eps
        minus[k] -= eps
        at = [list(args), list(args)]
        at[0][position] = plus.reshape(x.shape) if x.ndim else float(plus[0])
        at[1][position] = minus.reshape(x.shape) if x.ndim else float(minus[0])
        columns.append((np.asarray(fun(*at[0])) - np.asarray(fun(*at[1]))) / (2 * eps))
    return np.moveaxis(np.array(columns), 0, -1).reshape(np.shape(fun(*args)) + x.shape)


# -- argnums semantics -------------------------------------------------------------------------
def test_grad_of_each_argnum_matches_the_hand_derived_gradient():
    x, y, z = 1.5, np.array([0.5, -2.0, 3.0]), 0.3
    expected = mixed_gradients(x, y, z)
    assert srcad.grad(mixed)(x, y, z) == pytest.approx(expected[0], rel=1e-13)
    np.testing.assert_allclose(srcad.grad(mixed, argnums=1)(x, y, z), expected[1], rtol=1e-13)
    assert srcad.grad(mixed, argnums=2)(x, y, z) == pytest.approx(expected[2], rel=1e-13)
    assert srcad.grad(mixed, argnums=-1)(x, y, z) == pytest.approx(expected[2], rel=1e-13)


def test_a_float_argument_gives_a_float_and_an_array_an_array():
    x, y, z = 1.5, np.array([0.5, -2.0, 3.0]), 0.3
    assert type(srcad.grad(mixed)(x, y, z)) is float
    g = srcad.grad(mixed, 1)(x, y, z)
    assert isinstance(g, np.ndarray) and g.shape == y.shape and g is not y


def test_a_tuple_of_argnums_gives_a_tuple_of_gradients():
    x, y, z = 1.5, np.array([0.5, -2.0, 3.0]), 0.3
    expected = mixed_gradients(x, y, z)
    gx, gz = srcad.grad(mixed, argnums=(0, 2))(x, y, z)
    assert (gx, gz) == pytest.approx((expected[0], expected[2]), rel=1e-13)
    value, grads = srcad.value_and_grad(mixed, argnums=(2, 1, 0))(x, y, z)
    assert value == pytest.approx(1.5 * np.sum(y ** 2) + math.sin(z) * x, rel=1e-13)
    assert isinstance(grads, tuple) and len(grads) == 3
    assert grads[0] == pytest.approx(expected[2], rel=1e-13)
    np.testing.assert_allclose(grads[1], expected[1], rtol=1e-13)
    assert grads[2] == pytest.approx(expected[0], rel=1e-13)
    (only,) = srcad.grad(mixed, argnums=(1,))(x, y, z)
    np.testing.assert_allclose(only, expected[1], rtol=1e-13)


def test_keyword_arguments_are_constants():
    x, y, z = 1.5, np.array([0.5, -2.0, 3.0]), 0.3
    assert srcad.grad(mixed)(x, y, z=z) == pytest.approx(mixed_gradients(x, y, z)[0])
    assert srcad.grad(mixed)(x, z=z, y=y) == pytest.approx(mixed_gradients(x, y, z)[0])


def test_the_arguments_are_not_modified():
    x, y = np.array([0.3, -1.2, 2.0]), np.array([0.5, -2.0, 3.0])
    before = (x.copy(), y.copy())
    srcad.grad(rosen)(x)
    srcad.jacrev(mixed, argnums=1)(1.5, y, 0.3)
    srcad.jacfwd(mixed, argnums=1)(1.5, y, 0.3)
    np.testing.assert_array_equal(x, before[0])
    np.testing.assert_array_equal(y, before[1])


def test_grad_works_on_a_decorated_function():
    decorated = srcad.reverse(mixed)
    x, y, z = 1.5, np.array([0.5, -2.0]), 0.3
    assert srcad.grad(decorated)(x, y, z) == pytest.approx(mixed_gradients(x, y, z)[0])


# -- Jacobians -----------------------------------------------------------------------------------
@pytest.mark.parametrize("transform", [srcad.jacfwd, srcad.jacrev])
def test_jacobian_of_an_array_output_matches_the_hand_derived_one(transform):
    t, p = np.linspace(0.0, 2.0, 5), np.array([2.0, 0.7, -0.5])
    J = transform(curve, argnums=1)(t, p)
    assert J.shape == (5, 3)
    np.testing.assert_allclose(J, curve_jacobian(t, p), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("transform", [srcad.jacfwd, srcad.jacrev])
def test_jacobian_shape_is_output_shape_plus_input_shape(transform):
    a = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])
    J = transform(matrix_rows)(a, 2.0)
    assert J.shape == (2, 2, 3)
    expected = np.zeros((2, 2, 3))
    for i in range(2):
        expected[i, i] = 6.0 * a[i] ** 2  # d(w a_ij^3)/da_ij = 3 w a_ij^2, w = 2
    np.testing.assert_allclose(J, expected, rtol=1e-13)
    np.testing.assert_allclose(J, central_jacobian(matrix_rows, (a, 2.0), 0), rtol=1e-7)
    # a float argument: the derivative, shaped like the output
    dw = transform(matrix_rows, argnums=1)(a, 2.0)
    np.testing.assert_allclose(dw, np.sum(a ** 3, axis=1), rtol=1e-13)


@pytest.mark.parametrize("transform", [srcad.jacfwd, srcad.jacrev])
@needs_scipy
def test_jacobian_of_a_float_output_is_the_gradient(transform):
    x = np.array([-1.2, 1.0, 0.8, 2.0])
    np.testing.assert_allclose(transform(rosen)(x), optimize.rosen_der(x), rtol=1e-13)
    x, y, z = 1.5, np.array([0.5, -2.0, 3.0]), 0.3
    dx, dz = transform(mixed, argnums=(0, 2))(x, y, z)
    expected = mixed_gradients(x, y, z)
    assert type(dx) is float and dx == pytest.approx(expected[0], rel=1e-13)
    assert dz == pytest.approx(expected[2], rel=1e-13)


def test_jacfwd_agrees_with_jacrev_and_finite_differences_for_tuple_argnums():
    t, p = np.linspace(-1.0, 1.0, 4), np.array([1.5, -0.3, 0.2])
    forward = srcad.jacfwd(curve, argnums=(0, 1))(t, p)
    reverse = srcad.jacrev(curve, argnums=(0, 1))(t, p)
    for position, (jf, jr) in enumerate(zip(forward, reverse)):
        np.testing.assert_allclose(jf, jr, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(jf, central_jacobian(curve, (t, p), position), rtol=1e-7,
                                   atol=1e-9)


def test_jacrev_follows_an_output_length_set_by_an_int_argument():
    for m in (2, 3, 2):
        J = srcad.jacrev(spread)(1.5, m)
        np.testing.assert_allclose(J, 2.0 * 1.5 * np.arange(1.0, m + 1.0), rtol=1e-13)


# -- hessian: the transform and the operator -----------------------------------------------------
@needs_scipy
def test_hessian_transform_matches_scipy_and_keeps_the_operator_form():
    x = np.array([-1.2, 1.0, 0.8, 2.0])
    np.testing.assert_allclose(srcad.hessian(rosen)(x), optimize.rosen_hess(x), rtol=1e-13)
    np.testing.assert_allclose(srcad.hessian(rosen, x), optimize.rosen_hess(x), rtol=1e-13)
    ((H,),) = srcad.hessian(rosen, argnums=(0,))(x)
    np.testing.assert_allclose(H, optimize.rosen_hess(x), rtol=1e-13)


def test_hessian_of_an_array_argument_has_shape_x_shape_twice():
    a = np.array([[1.0, -2.0], [0.5, 3.0]])
    H = srcad.hessian(quartic)(a)
    assert H.shape == (2, 2, 2, 2)
    expected = np.zeros((2, 2, 2, 2))
    for i in range(2):
        for j in range(2):
            expected[i, j, i, j] = 3.0 * a[i, j] ** 2
    expected[0, 0, 1, 1] = expected[1, 1, 0, 0] = 1.0
    np.testing.assert_allclose(H, expected, rtol=1e-13)


def test_hessian_with_respect_to_a_float_is_a_float():
    x, y, z = 1.5, np.array([0.5, -2.0]), 0.3
    # d2/dz2 of sin(z) x = -sin(z) x; argnums given positionally, as jax.hessian(f, 2)
    h = srcad.hessian(mixed, 2)(x, y, z)
    assert type(h) is float and h == pytest.approx(-math.sin(z) * x, rel=1e-13)


# -- scipy.optimize takes the transforms as they are -------------------------------------------
@needs_scipy
def test_scipy_minimize_bfgs_with_grad():
    result = optimize.minimize(rosen, np.array([-1.2, 1.0, 0.8]), jac=srcad.grad(rosen),
                               method="BFGS", options={"gtol": 1e-10})
    assert result.success
    np.testing.assert_allclose(result.x, np.ones(3), atol=1e-6)


@needs_scipy
def test_scipy_maximum_likelihood_with_args_and_grad():
    data = np.random.default_rng(7).normal(1.5, 0.4, size=200)
    result = optimize.minimize(gaussian_nll, np.array([0.0, 0.0]), args=(data,),
                               jac=srcad.grad(gaussian_nll), method="BFGS", options={"gtol": 1e-9})
    assert result.success
    # the maximum-likelihood estimates in closed form: the mean and the (biased) std
    np.testing.assert_allclose(result.x, [data.mean(), math.log(data.std())], atol=1e-6)


@needs_scipy
def test_scipy_newton_cg_with_grad_and_hessian():
    result = optimize.minimize(rosen, np.array([1.3, 0.7, 0.8, 1.9, 1.2]), jac=srcad.grad(rosen),
                               hess=srcad.hessian(rosen), method="Newton-CG",
                               options={"xtol": 1e-10})
    assert result.success
    np.testing.assert_allclose(result.x, np.ones(5), atol=1e-6)


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
@needs_scipy
def test_scipy_least_squares_with_a_jacobian_transform(transform):
    t = np.linspace(0.0, 3.0, 20)
    truth = np.array([2.0, 1.3, 0.5])
    observed = curve(t, truth)

    def residuals(p, t, observed):
        r = np.zeros(len(t))
        for i in range(len(t)):
            r[i] = p[0] * math.exp(-p[1] * t[i]) + p[2] - observed[i]
        return r

    jac = getattr(srcad, transform)(residuals)
    result = optimize.least_squares(residuals, np.array([1.0, 1.0, 0.0]), jac=jac,
                                    args=(t, observed), xtol=1e-12, ftol=1e-12, gtol=1e-12)
    np.testing.assert_allclose(result.x, truth, rtol=1e-8)


# -- the numba backend ---------------------------------------------------------------------------
@needs_scipy
def test_grad_and_jacobians_on_the_numba_backend():
    pytest.importorskip("numba")

    x = np.array([-1.2, 1.0, 0.8, 2.0])
    np.testing.assert_allclose(srcad.grad(rosen, backend="numba")(x), optimize.rosen_der(x),
                               rtol=1e-12)
    t, p = np.linspace(0.0, 2.0, 5), np.array([2.0, 0.7, -0.5])
    np.testing.assert_allclose(srcad.jacrev(curve, 1, backend="numba")(t, p),
                               curve_jacobian(t, p), rtol=1e-12, atol=1e-15)


# -- refusals ------------------------------------------------------------------------------------
def test_an_integer_argument_is_refused():
    with pytest.raises(ArgumentError, match="argument 0 is an integer"):
        srcad.grad(mixed)(3, np.ones(2), 0.3)
    with pytest.raises(ArgumentError, match="dtype int64"):
        srcad.jacfwd(rosen)(np.array([1, 2, 3]))
    # a list is a pytree of parameters, as in JAX; rosen reads it with a computed index,
    # which srcad refuses at the user's line
    with pytest.raises(srcad.UnsupportedSyntaxError,
                       match=r"test_transforms.py:\d+:\d+: container: the container index"):
        srcad.jacrev(rosen)([1.0, 2.0])
    # an int that is not differentiated is a constant
    assert srcad.grad(spread_sum)(2.0, 3) == pytest.approx(2.0 * 2.0 * 6.0)


def spread_sum(x, m):
    s = 0.0
    for k in range(m):
        s += (k + 1.0) * x * x
    return s


def test_grad_refuses_an_array_output_instead_of_summing_it():
    with pytest.raises(ArgumentError,
                       match=r"test_transforms.py:\d+: grad needs a function returning a float"):
        srcad.grad(returns_array)(np.array([1.0, 2.0]))


@pytest.mark.parametrize("bad", [1.5, "0", (), (0, 0), True])
def test_bad_argnums_are_refused(bad):
    with pytest.raises(ArgumentError, match="argnums"):
        srcad.grad(mixed, argnums=bad)(1.5, np.ones(2), 0.3)


def test_too_few_positional_arguments_are_refused():
    with pytest.raises(ArgumentError, match="needs 3 positional arguments, got 2"):
        srcad.grad(mixed, argnums=2)(1.5, np.ones(2))


def residual_norm(p, t, observed):
    """(sum of squared residuals, the residuals): a value with auxiliary data."""
    r = np.zeros(len(t))
    s = 0.0
    for i in range(len(t)):
        r[i] = p[0] * math.exp(-p[1] * t[i]) + p[2] - observed[i]
        s += r[i] ** 2
    return s, r


def test_has_aux_differentiates_the_value_and_returns_the_aux():
    t, p = np.linspace(0.0, 2.0, 5), np.array([2.0, 0.7, -0.5])
    observed = np.cos(t)
    r = curve(t, p) - observed
    expected = 2.0 * curve_jacobian(t, p).T @ r  # d/dp sum r_i^2
    g, aux = srcad.grad(residual_norm, has_aux=True)(p, t, observed)
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    np.testing.assert_allclose(aux, r, rtol=1e-14)
    (value, aux), g = srcad.value_and_grad(residual_norm, has_aux=True)(p, t, observed)
    assert value == pytest.approx(float(r @ r), rel=1e-14)
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    np.testing.assert_allclose(aux, r, rtol=1e-14)
    for transform in (srcad.jacfwd, srcad.jacrev):
        J, aux = transform(residual_norm, has_aux=True)(p, t, observed)
        np.testing.assert_allclose(J, expected, rtol=1e-12)
        np.testing.assert_allclose(aux, r, rtol=1e-14)
    H, aux = srcad.hessian(residual_norm, has_aux=True)(p, t, observed)
    # the Hessian: central differences of the hand-derived gradient
    np.testing.assert_allclose(H, central_jacobian(_gradient_of_norm, (p, t, observed), 0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(aux, r, rtol=1e-14)


def _gradient_of_norm(p, t, observed):
    r = curve(t, p) - observed
    return 2.0 * curve_jacobian(t, p).T @ r


@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jacfwd", "jacrev", "hessian"])
def test_has_aux_needs_a_pair(transform):
    with pytest.raises(ArgumentError, match=f"{transform} with has_aux=True needs a function "
                       "returning a pair"):
        getattr(srcad, transform)(rosen, has_aux=True)(np.array([1.0, 2.0]))


def test_hessian_with_two_argnums_gives_the_blocks_between_them():
    H = srcad.hessian(mixed, argnums=(0, 2))(1.5, np.ones(2), 0.3)
    assert isinstance(H, tuple) and len(H) == 2 and all(len(row) == 2 for row in H)
    assert H[0][1] == pytest.approx(H[1][0]) == pytest.approx(math.cos(0.3))  # d2f/dx dz
    assert H[0][0] == 0.0 and H[1][1] == pytest.approx(-math.sin(0.3) * 1.5)


def test_the_operator_form_still_refuses_contexts_it_does_not_know():
    with pytest.raises(ArgumentError, match="exactly one argument must be bare"):
        srcad.hessian(mixed, 1.5, np.ones(2), 0.3)
    H = srcad.hessian(mixed, 1.5, Constant(np.ones(2)), Constant(0.3))
    assert isinstance(H, float) and H == 0.0  # of a float x, a float (as JAX's)


def writes_scratch(x, c):
    for i in range(len(x)):
        c[i] = x[i] * x[i]
    s = 0.0
    for i in range(len(c)):
        s += c[i]
    return s


@pytest.mark.parametrize("transform", [srcad.grad, srcad.jacfwd, srcad.jacrev])
def test_scratch_storage_among_the_constants_is_refused_with_the_operator_fix(transform):
    with pytest.raises(srcad.ActivityError, match=r"write into a Const array.*srcad\.Cache"):
        transform(writes_scratch)(np.ones(3), np.zeros(3))
    # the operator form with a Cache context: d/dx sum x_i^2 = 2x
    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(srcad.gradient(writes_scratch, x, srcad.Cache(np.zeros(3))), 2 * x)


def cube(x):
    return x * x * x


@pytest.mark.parametrize("transform, second", [("grad", 18.0), ("jacfwd", 18.0),
                                               ("jacrev", 18.0), ("hessian", 6.0)])
def test_a_transformed_function_is_differentiated_as_itself_not_as_the_original(transform,
                                                                                second):
    # differentiating the original in its place would give 27 = f'(3) for f''(3) = 18
    inner = getattr(srcad, transform)(cube)
    assert srcad.grad(inner)(3.0) == pytest.approx(second, rel=1e-12)
    with pytest.raises(srcad.SrcadError, match=f"is srcad.{transform} of a function.*"
                       "compose the transforms"):  # the operators take plain functions
        srcad.gradient(inner, 3.0)
    assert srcad.hessian(cube)(3.0) == pytest.approx(18.0, rel=1e-14)


def test_grad_of_value_and_grad_is_refused_as_jax_refuses_a_tuple_output():
    with pytest.raises(ArgumentError, match="returning a tuple"):
        srcad.grad(srcad.value_and_grad(cube))(3.0)
