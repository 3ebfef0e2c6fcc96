"""Newton's method for a nonlinear system F(x) = 0 with the jacobian from `srcad.jacfwd`.

The system is a discretized Bratu problem, -u'' = lam exp(u) on (0, 1) with u(0) = u(1) = 0,
on n interior points: F_i(u) = (2 u_i - u_{i-1} - u_{i+1}) / h^2 - lam exp(u_i). Newton's
method converges quadratically only with the exact jacobian, which the printed residuals show.

Run with ``python examples/newton_solver.py``.
"""

import math

import numpy as np

import srcad


def bratu_residual(u, lam):
    """F(u) for the discretized Bratu problem (a new array)."""
    n = len(u)
    h = 1.0 / (n + 1)
    F = np.zeros(n)
    for i in range(n):
        left = u[i - 1] if i > 0 else 0.0
        right = u[i + 1] if i < n - 1 else 0.0
        F[i] = (2.0 * u[i] - left - right) / (h * h) - lam * math.exp(u[i])
    return F


def newton(F, x0, *args, tol=1e-10, max_iterations=20):
    """Solve F(x, *args) = 0 from x0; returns the root and the residual norm of each step."""
    jacobian = srcad.jacfwd(F)  # d F / d x, the other arguments held constant
    x = x0.copy()
    history = []
    for _ in range(max_iterations):
        r = F(x, *args)
        history.append(np.linalg.norm(r))
        if history[-1] < tol:
            break
        x -= np.linalg.solve(jacobian(x, *args), r)
    return x, history


def main():
    n, lam = 20, 2.0
    u, history = newton(bratu_residual, np.zeros(n), lam)
    print(f"Bratu problem, lambda = {lam}, {n} points: Newton residuals")
    for k, norm in enumerate(history):
        print(f"  iteration {k}: |F(u)| = {norm:.3e}")
    print(f"  max u = {u.max():.6f}")
    # the jacobian against central finite differences at the solution
    J = srcad.jacfwd(bratu_residual)(u, lam)
    step = 1e-6
    fd = np.column_stack([(bratu_residual(u + step * e, lam) - bratu_residual(u - step * e, lam))
                          / (2 * step) for e in np.eye(n)])
    error = np.max(np.abs(J - fd)) / np.max(np.abs(fd))
    print(f"  max relative difference of the jacobian from finite differences: {error:.1e}")
    assert history[-1] < 1e-10 and len(history) <= 8 and error < 1e-6
    return error


if __name__ == "__main__":
    main()
