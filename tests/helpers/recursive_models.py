"""Recursive programs written as people write them: a determinant by expansion in minors
(GradBench's C++ primal), adaptive Simpson quadrature, a decision-tree model evaluated node by
node, mutual recursion, a helper with a default argument. Shared by the recursion tests and
the docs."""

import math

import numpy as np


def integrand(t, p):
    return math.sin(p[0] * t) * math.exp(p[1] * t) + p[2] * t * t


def simpson(a, b, fa, fm, fb):
    return (b - a) / 6.0 * (fa + 4.0 * fm + fb)


def adaptive(p, a, b, fa, fm, fb, whole, tol, depth):
    """Adaptive Simpson on [a, b]: split while the halves disagree with the whole (the test
    reads the values, so the depth follows them, as the primal does)."""
    m = 0.5 * (a + b)
    lm = 0.5 * (a + m)
    rm = 0.5 * (m + b)
    flm = integrand(lm, p)
    frm = integrand(rm, p)
    left = simpson(a, m, fa, flm, fm)
    right = simpson(m, b, fm, frm, fb)
    if depth <= 0 or abs(left + right - whole) <= 15.0 * tol:
        return left + right + (left + right - whole) / 15.0
    return (adaptive(p, a, m, fa, flm, fm, left, 0.5 * tol, depth - 1)
            + adaptive(p, m, b, fm, frm, fb, right, 0.5 * tol, depth - 1))


def quadrature(p, tol=1e-6):
    fa = integrand(0.0, p)
    fm = integrand(1.5, p)
    fb = integrand(3.0, p)
    return adaptive(p, 0.0, 3.0, fa, fm, fb, simpson(0.0, 3.0, fa, fm, fb), tol, 30)


# a decision tree: node i splits on feature[i] at threshold[i] into left[i] / right[i];
# a leaf (left[i] < 0) holds a linear model weights[i] . x
LEFT = np.array([1, 3, 5, -1, -1, -1, -1])
RIGHT = np.array([2, 4, 6, -1, -1, -1, -1])
FEATURE = np.array([0, 1, 2, 0, 0, 0, 0])
THRESHOLD = np.array([0.5, 0.3, 0.7, 0.0, 0.0, 0.0, 0.0])


def node_value(x, weights, i):
    if LEFT[i] < 0:
        return np.dot(weights[i], x)
    if x[FEATURE[i]] < THRESHOLD[i]:
        return node_value(x, weights, LEFT[i])
    return node_value(x, weights, RIGHT[i])


def tree_loss(weights, xs):
    total = 0.0
    for k in range(xs.shape[0]):
        value = node_value(xs[k], weights, 0)
        total = total + value * value
    return total


def descend(x, n):
    if n == 0:
        return x
    return climb(math.sin(x), n - 1) * 0.5


def climb(x, n):
    if n == 0:
        return x * x
    return descend(x * x + 0.1, n - 1) + x


def mutual(x):
    return descend(x, 5) + climb(x, 4)


def horner(x, cs, k, scale=2.0):
    if k == len(cs) - 1:
        return scale * cs[k]
    return scale * cs[k] + x * horner(x, cs, k + 1)


def polynomial(x, cs):
    return horner(x, cs, 0) + horner(x, cs, 1, scale=0.5)


def drift(t, k):
    if k == 0:
        return t
    return drift(t + 0.002 * math.sin(3.0 * t), k - 1)


SCALE = np.array([2.0])


def scaled_power(x, k):
    if k == 0:
        return x * SCALE[0]
    return scaled_power(x * x, k - 1)


COEFFS = (1.0, -2.0, 0.5)


def horner_tuple(x, cs, k):
    if k == len(cs) - 1:
        return cs[k]
    return cs[k] + x * horner_tuple(x, cs, k + 1)


def tuple_polynomial(x):
    return horner_tuple(x, COEFFS, 0)
