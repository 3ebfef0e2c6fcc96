"""Nests over points and components, written once for the tests of the point-lanes rewrite
(srcad/transform/numba_outer_lanes.py) and its fuzzer: `REWRITTEN` the nests it splits and
interchanges, `AS_WRITTEN` those it must leave (each says why), `TYPES` the value types of
their names."""

import math

import numpy as np

from srcad.analysis.value_types import FLOAT, INT, Array


def mixture(alpha, mu, x):
    # gmm's shape: per point, a value per component from a work vector, then the point's
    # log-sum-exp over the components (its maximum first)
    n, d = x.shape
    k = len(alpha)
    xc = np.zeros(d)
    mt = np.zeros(k)
    total = 0.0
    for i in range(n):
        for c in range(k):
            for j in range(d):
                xc[j] = x[i, j] - mu[c, j]
            s = 0.0
            for j in range(d):
                s = s + xc[j] * xc[j]
            mt[c] = alpha[c] - 0.5 * s
        m = mt[0]
        for c in range(1, k):
            m = max(m, mt[c])
        e = 0.0
        for c in range(k):
            e = e + math.exp(mt[c] - m)
        total = total + math.log(e) + m
    return total


def triangle(ltri, mu, x):
    # gmm's Qtimesx: a second work vector, a counter into a packed triangle, an if on the
    # component (the same for every point)
    n, d = x.shape
    k = mu.shape[0]
    xc = np.zeros(d)
    qx = np.zeros(d)
    mt = np.zeros(k)
    total = 0.0
    for i in range(n):
        for c in range(k):
            for j in range(d):
                xc[j] = x[i, j] - mu[c, j]
            for j in range(d):
                qx[j] = 0.5 * xc[j]
            idx = 0
            for a in range(d):
                for b in range(a + 1, d):
                    qx[b] = qx[b] + ltri[c, idx] * xc[a]
                    idx += 1
            s = 0.0
            for j in range(d):
                s += qx[j] * qx[j]
            if c % 2 == 0:
                s = s + 0.5 * qx[0] * qx[0]
            mt[c] = -s
        for c in range(k):
            total = total + mt[c] * (c + 1) + i
    return total


def carried(mu, x):
    # `acc` carries from one component to the next (and from one point to the next)
    n, d = x.shape
    k = mu.shape[0]
    mt = np.zeros(k)
    acc = 0.0
    total = 0.0
    for i in range(n):
        for c in range(k):
            for j in range(d):
                acc = acc + x[i, j] * mu[c, j]
            mt[c] = acc
        total = total + mt[k - 1]
    return total


def tail_writes(mu, x):
    # the tail writes a vector the components read: the next point sees it
    n, d = x.shape
    k = mu.shape[0]
    w = np.zeros(d)
    mt = np.zeros(k)
    total = 0.0
    for i in range(n):
        for c in range(k):
            s = 0.0
            for j in range(d):
                s = s + (x[i, j] - mu[c, j]) * w[j]
            mt[c] = s
        for j in range(d):
            w[j] = w[j] + mt[0] + 1.0
        total = total + mt[k - 1]
    return total


def point_test(mu, x):
    # an if on the point's value: the point cannot be innermost under it
    n, d = x.shape
    k = mu.shape[0]
    mt = np.zeros(k)
    total = 0.0
    for i in range(n):
        for c in range(k):
            s = 0.0
            for j in range(d):
                if x[i, j] > 0.0:
                    s = s + mu[c, j]
            mt[c] = s
        total = total + mt[0]
    return total


def stale_vector(mu, x):
    # the work vector is read before the component writes it: the previous component's
    n, d = x.shape
    k = mu.shape[0]
    xc = np.zeros(d)
    mt = np.zeros(k)
    total = 0.0
    for i in range(n):
        for c in range(k):
            mt[c] = xc[0]
            for j in range(d):
                xc[j] = x[i, j] - mu[c, j]
        total = total + mt[k - 1]
    return total


def vector_after(mu, x):
    # the work vector is read after the nest: the last point's and component's values
    n, d = x.shape
    k = mu.shape[0]
    xc = np.zeros(d)
    mt = np.zeros(k)
    total = 0.0
    for i in range(n):
        for c in range(k):
            for j in range(d):
                xc[j] = x[i, j] * mu[c, j]
            mt[c] = xc[0]
        total = total + mt[0]
    return total + xc[d - 1]


def other_element(mu, x):
    # the loop writing the work vector reads another element of it: the last component's
    n, d = x.shape
    k = mu.shape[0]
    xc = np.zeros(d)
    mt = np.zeros(k)
    total = 0.0
    for i in range(n):
        for c in range(k):
            s = 0.0
            for j in range(d):
                xc[j] = x[i, j] - mu[c, j]
                s = s + xc[d - 1 - j]
            mt[c] = s
        total = total + mt[0]
    return total


def tail_break(mu, x):
    # the tail leaves the loop: the points after it are not computed
    n, d = x.shape
    k = mu.shape[0]
    mt = np.zeros(k)
    total = 0.0
    for i in range(n):
        for c in range(k):
            s = 0.0
            for j in range(d):
                s = s + x[i, j] * mu[c, j]
            mt[c] = s
        total = total + mt[0]
        if total > 1.0:
            break
    return total


REWRITTEN = (mixture, triangle)
AS_WRITTEN = (carried, tail_writes, point_test, stale_vector, vector_after, other_element,
              tail_break)
_VECTOR = Array(1)
TYPES = {"xc": _VECTOR, "qx": _VECTOR, "mt": _VECTOR, "w": _VECTOR, "s": FLOAT, "m": FLOAT,
         "e": FLOAT, "acc": FLOAT, "total": FLOAT, "idx": INT, "n": INT, "d": INT, "k": INT}
