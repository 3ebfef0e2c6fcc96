"""Functions with rules of their own (srcad.custom_jvp, srcad.custom_vjp) for
tests/rules/test_custom_rules.py: module level, so that srcad reads their source."""

import numpy as np
import scipy.special

import srcad


@srcad.custom_jvp
def softplus(x):
    return np.log1p(np.exp(x))


@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t * scipy.special.expit(x)


@srcad.custom_jvp
def doubled_slope(x):
    """x itself, with a rule that says its slope is 2: the rule is what srcad uses."""
    return x


@doubled_slope.defjvp
def doubled_slope_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return x, 2.0 * t


@srcad.custom_jvp
def scaled(x, a):
    """x * a of an array x and a float a (broadcast)."""
    return x * a


@scaled.defjvp
def scaled_jvp(primals, tangents):
    (x, a), (dx, da) = primals, tangents
    return x * a, dx * a + x * da


@srcad.custom_jvp
def wrong_square(x):
    return x * x


@wrong_square.defjvp
def wrong_square_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return x * x, 3.0 * x * t  # wrong on purpose: check_rule must say so


@srcad.custom_vjp
def square_root(a, x0):
    """sqrt(a) by Newton's iteration from x0: differentiated by the implicit function theorem
    (x * x = a), not through the iterations."""
    x = x0
    for _ in range(60):
        x = 0.5 * (x + a / x)
    return x


def square_root_fwd(a, x0):
    x = square_root(a, x0)
    return x, (x,)


def square_root_bwd(residuals, g):
    (x,) = residuals
    return g / (2.0 * x), 0.0 * g


square_root.defvjp(square_root_fwd, square_root_bwd)

k0 = srcad.custom_jvp(scipy.special.k0)


@k0.defjvp
def k0_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return scipy.special.k0(x), -t * scipy.special.k1(x)


def uses_softplus(x):
    return np.sum(softplus(2.0 * x) * x)


def uses_softplus_scalar(x):
    return softplus(x) * x


def uses_doubled(x):
    return doubled_slope(x) * 3.0


def uses_scaled(x, a):
    return np.sum(scaled(x, a) ** 2)


def uses_square_root(a):
    return 3.0 * square_root(a * a, 1.0)


def uses_k0(x):
    """scipy.special.k0 called by its own name: the rule wrapped above applies."""
    return np.sum(scipy.special.k0(x) * x)


def softplus_in_a_loop(x):
    s = 0.0
    for i in range(len(x)):
        s += softplus(x[i] * s + 0.3) * x[i]
    return s


def twice_softplus(v):
    return softplus(v) * 2.0


def through_a_helper(x):
    return np.sum(twice_softplus(x) * x)


def square_root_in_a_loop(a):
    s = 0.0
    for _ in range(3):
        s += square_root(a * a + s, 1.0)
    return s


def doubled_in_a_loop(x):
    """3 * x through the rule that says the slope is 2: 6 per unit of x, not 3."""
    s = 0.0
    for _ in range(1):
        s += doubled_slope(x * 1.0) * 3.0
    return s


def uses_scaled_of_computed(x, a):
    return np.sum(scaled(x * 2.0, a * 1.0) ** 2)
