"""A derivative rule of your own: the equilibrium of a fixed-point iteration, differentiated by
the implicit function theorem (srcad.custom_vjp) instead of through its iterations, and a
numerically stable log(1 + e^x) (srcad.custom_jvp).

The equilibrium x*(a) of x = cos(a x) is found by iterating; at the fixed point
F(x, a) = x - cos(a x) = 0, so dx*/da = -F_a / F_x = -x sin(a x) / (1 + a sin(a x)).
The rule needs only x* (the residual), whatever the number of iterations. The loss
sum_i softplus(x*(a_i)) is differentiated in reverse mode and compared with central finite
differences.

Run with ``python examples/custom_rule.py``.
"""

import numpy as np
import scipy.special

import srcad


@srcad.custom_vjp
def equilibrium(a):
    """The solution of x = cos(a x), by iteration (elementwise for an array a)."""
    x = np.zeros_like(a)
    for _ in range(200):
        x = np.cos(a * x)
    return x


def equilibrium_fwd(a):
    x = equilibrium(a)
    return x, (x, a)


def equilibrium_bwd(residuals, g):
    x, a = residuals
    s = np.sin(a * x)
    return (-g * x * s / (1.0 + a * s),)


equilibrium.defvjp(equilibrium_fwd, equilibrium_bwd)


@srcad.custom_jvp
def softplus(x):
    """log(1 + e^x), without overflow for large x."""
    return np.logaddexp(0.0, x)


@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t * scipy.special.expit(x)  # e^x / (1 + e^x) overflows; expit does not


def loss(a):
    return np.sum(softplus(3.0 * equilibrium(a)))


def main():
    a = np.array([0.3, 0.8, 1.2])
    gradient = srcad.gradient(loss, a)
    eps = 1e-6
    fd = np.array([(loss(a + eps * e) - loss(a - eps * e)) / (2 * eps) for e in np.eye(3)])
    difference = float(np.max(np.abs(gradient - fd) / np.abs(fd)))
    print("gradient by the implicit rule:", gradient)
    print("max relative difference from finite differences:", difference)
    return difference


if __name__ == "__main__":
    main()
