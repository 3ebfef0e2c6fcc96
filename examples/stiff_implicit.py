"""A stiff ODE solved with backward Euler: each step is a Newton iteration that needs the
jacobian of the right-hand side, prepared once and refilled in place at every iterate.

The Robertson chemical kinetics problem

    y0' = -k1 y0 + k3 y1 y2
    y1' =  k1 y0 - k2 y1^2 - k3 y1 y2
    y2' =  k2 y1^2

has rate constants spread over nine orders of magnitude (k1 = 0.04, k2 = 3e7, k3 = 1e4):
explicit methods need tiny steps, backward Euler takes steps of 0.1 without trouble. The
right-hand side is written the way solvers call it, in place: `rhs(dy, y, p)` fills `dy`.

`srcad.prepare_jacobian(rhs, Output(dy), y, Constant(p))` transforms and compiles once; each
Newton iterate then calls `srcad.jacobian(..., prep=prep, out=J)`, which writes d dy / d y
into the same J without allocating a new one.

Run with ``python examples/stiff_implicit.py``.
"""

import numpy as np

import srcad
from srcad import Constant, Output


def rhs(dy, y, p):
    """Robertson kinetics: writes dy/dt at state y into dy; p = (k1, k2, k3)."""
    dy[0] = -p[0] * y[0] + p[2] * y[1] * y[2]
    dy[1] = p[0] * y[0] - p[1] * y[1] * y[1] - p[2] * y[1] * y[2]
    dy[2] = p[1] * y[1] * y[1]


def hand_jacobian(y, p):
    """d dy / d y, derived by hand, to compare with."""
    return np.array([
        [-p[0], p[2] * y[2], p[2] * y[1]],
        [p[0], -2 * p[1] * y[1] - p[2] * y[2], -p[2] * y[1]],
        [0.0, 2 * p[1] * y[1], 0.0],
    ])


def backward_euler(y0, p, h, steps):
    """Solve y_{n+1} = y_n + h rhs(y_{n+1}) by Newton's method at every step."""
    y = y0.copy()
    dy, J = np.zeros(3), np.zeros((3, 3))
    prep = srcad.prepare_jacobian(rhs, Output(dy), y, Constant(p))
    newton_iterations = 0
    worst_jacobian_error = 0.0
    for _ in range(steps):
        previous = y.copy()
        for _ in range(20):
            srcad.jacobian(rhs, Output(dy), y, Constant(p), prep=prep, out=J)  # fills dy and J
            expected = hand_jacobian(y, p)
            worst_jacobian_error = max(worst_jacobian_error,
                                       np.max(np.abs(J - expected)) / np.max(np.abs(expected)))
            residual = y - previous - h * dy
            y -= np.linalg.solve(np.eye(3) - h * J, residual)
            newton_iterations += 1
            if np.max(np.abs(residual)) < 1e-12:
                break
    return y, newton_iterations, worst_jacobian_error


def main():
    p = np.array([0.04, 3e7, 1e4])
    y0 = np.array([1.0, 0.0, 0.0])
    y, iterations, error = backward_euler(y0, p, h=0.1, steps=400)
    print(f"Robertson problem at t = 40 by backward Euler (h = 0.1, {iterations} Newton "
          "iterations):")
    print(f"  y = {np.array2string(y, precision=6)}, sum = {y.sum():.12f} (conserved: 1)")
    print(f"  max relative difference of the prepared jacobian from the hand-derived one: "
          f"{error:.1e}")
    assert abs(y.sum() - 1.0) < 1e-9 and error < 1e-12
    return error


if __name__ == "__main__":
    main()
