"""Sensitivity of an ODE solution to its parameters: a fixed-step RK4 integrator written as a
plain loop, differentiated in reverse mode.

The Lotka-Volterra predator-prey model

    dx/dt = a x - b x y,    dy/dt = c x y - d y

is integrated from t = 0 to t = 10 with 400 RK4 steps. The loss is the squared distance of
the final state from a target; `srcad.grad` gives its gradient with respect to the four
parameters (a, b, c, d) in one reverse pass through all the steps, checked here against
central finite differences.

Run with ``python examples/ode_sensitivity.py``.
"""

import numpy as np

import srcad


def lotka_volterra(x, y, p):
    """The right-hand side at state (x, y) with parameters p = (a, b, c, d)."""
    dx = p[0] * x - p[1] * x * y
    dy = p[2] * x * y - p[3] * y
    return dx, dy


def final_state_loss(p, x0, y0, target_x, target_y, steps):
    """Integrate with RK4 from (x0, y0) over t in [0, 10]; squared distance of the final state
    from (target_x, target_y)."""
    h = 10.0 / steps
    x = x0
    y = y0
    for _ in range(steps):
        k1x, k1y = lotka_volterra(x, y, p)
        k2x, k2y = lotka_volterra(x + 0.5 * h * k1x, y + 0.5 * h * k1y, p)
        k3x, k3y = lotka_volterra(x + 0.5 * h * k2x, y + 0.5 * h * k2y, p)
        k4x, k4y = lotka_volterra(x + h * k3x, y + h * k3y, p)
        x = x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
    return (x - target_x) ** 2 + (y - target_y) ** 2


def central_differences(f, p, *rest, h=1e-6):
    g = np.zeros_like(p)
    for i in range(len(p)):
        up, down = p.copy(), p.copy()
        up[i] += h
        down[i] -= h
        g[i] = (f(up, *rest) - f(down, *rest)) / (2 * h)
    return g


def main():
    p = np.array([1.1, 0.4, 0.1, 0.4])
    problem = (10.0, 5.0, 2.0, 3.0, 400)  # x0, y0, target x, target y, steps
    loss, gradient = srcad.value_and_grad(final_state_loss)(p, *problem)
    reference = central_differences(final_state_loss, p, *problem)
    error = np.max(np.abs(gradient - reference)) / np.max(np.abs(reference))
    print(f"loss after 400 RK4 steps: {loss:.6f}")
    print(f"d loss / d (a, b, c, d):   {np.array2string(gradient, precision=6)}")
    print(f"central finite differences: {np.array2string(reference, precision=6)}")
    print(f"max relative difference: {error:.1e}")
    assert error < 1e-6
    return error


if __name__ == "__main__":
    main()
