"""Functions whose generated adjoint source is pinned by tests/build/test_golden.py.

Kept in their own file so that editing the tests does not move these lines (the generated code
cites primal line numbers in its `# line N:` comments).
"""

import math


def branch(x, y):
    """A scalar function with an if/else."""
    if x > y:
        z = x * math.sin(y)
    else:
        z = y * y - x
    return z * x


def inplace(y, x, c):
    """Seed 002: writes y in place; c is scratch storage whose content on entry does not matter."""
    for i in range(len(x)):
        c[i] = x[i]
    c[0] = 0.0
    c[len(c) - 1] = 0.0
    for i in range(1, len(c) - 1):
        c[i] = math.exp(c[i]) - math.cos(c[i - 1])
    for i in range(len(y)):
        y[i] = 2.0 * c[i] + 1.0


def newton_sqrt(a):
    """Square root of a by Newton's method: a while loop left by `break`."""
    x = a
    steps = 0
    while steps < 50:
        nxt = 0.5 * (x + a / x)
        if abs(nxt - x) < 1e-12:
            break
        x = nxt
        steps += 1
    return x


import numpy as np  # noqa: E402  (here, not at the top: the lines above keep their numbers)


def logistic_loss(w, X, y):
    """A whole-array program: the logistic-regression loss with np.dot and np.mean."""
    z = np.dot(X, w)
    return np.mean(np.log(1.0 + np.exp(-y * z)))


def rnn_loss(W, U, xs, h0, target):
    """An array rebound in a loop: the hidden state of a recurrent network."""
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum((h - target) ** 2)


def rows_and_elements(xs, c):
    """Element writes mixed with row and slice writes that broadcast."""
    h = np.zeros((xs.shape[0], xs.shape[1]))
    for t in range(xs.shape[0]):
        h[t] = xs[t] * c
    h[0] = c
    h[1:, 0] = xs[0, 1]
    h[0, 0] = h[1, 1] * h[0, 1]
    return np.sum(h ** 3)


def damped_oscillator(y0, p, steps, dt):
    """A time-stepping loop checkpointed with memory=: snapshots of y and energy."""
    n = len(y0)
    y = y0.copy()
    energy = 0.0
    for s in range(steps):
        for j in range(n):
            y[j] = y[j] + dt * (-p[j] * y[j] + math.sin(y[(j + 1) % n]))
        energy = energy + dt * y[0] * y[0]
    return energy
