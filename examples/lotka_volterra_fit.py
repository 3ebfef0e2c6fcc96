"""Fitting the Lotka-Volterra predator-prey model to noisy counts, and the sensitivity of the
fitted populations to each parameter over time.

The model dx/dt = a x - b x y, dy/dt = c x y - d y is integrated with a fixed-step RK4 loop
written in plain Python. The loss is the sum of squared differences between the simulated
populations and 20 noisy observations; scipy's L-BFGS-B minimizes it from a wrong first guess with
`srcad.grad` as its gradient (one reverse pass through all the steps, checked against central
finite differences first). Then `srcad.jacobian` with an `Output` gives the derivative of the
whole simulated prey trajectory with respect to (a, b, c, d): how much each parameter moves the
prey count at each time, checked against finite differences too.

Run with ``python examples/lotka_volterra_fit.py`` (needs scipy, and matplotlib for the
figure, written to lotka_volterra_fit.png).
"""

import numpy as np
from matplotlib.figure import Figure
from scipy.optimize import minimize

import srcad

STEPS_PER_OBSERVATION = 10
OBSERVATIONS = 20
H = 0.05  # time step: observations every 0.5 time units, t in [0, 10]
X0, Y0 = 10.0, 5.0
TRUE = np.array([1.1, 0.4, 0.1, 0.4])


def rk4_step(x, y, p, h):
    """One RK4 step of the Lotka-Volterra model with parameters p = (a, b, c, d)."""
    k1x, k1y = p[0] * x - p[1] * x * y, p[2] * x * y - p[3] * y
    x2, y2 = x + 0.5 * h * k1x, y + 0.5 * h * k1y
    k2x, k2y = p[0] * x2 - p[1] * x2 * y2, p[2] * x2 * y2 - p[3] * y2
    x3, y3 = x + 0.5 * h * k2x, y + 0.5 * h * k2y
    k3x, k3y = p[0] * x3 - p[1] * x3 * y3, p[2] * x3 * y3 - p[3] * y3
    x4, y4 = x + h * k3x, y + h * k3y
    k4x, k4y = p[0] * x4 - p[1] * x4 * y4, p[2] * x4 * y4 - p[3] * y4
    return (x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
            y + h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y))


def trajectory(prey, predators, p, steps):
    """Write the simulated populations into prey and predators, every `steps` steps of H."""
    x, y = X0, Y0
    for k in range(len(prey)):
        for _ in range(steps):
            x, y = rk4_step(x, y, p, H)
        prey[k] = x
        predators[k] = y


def loss(p, observed_prey, observed_predators):
    """Sum of squared differences between the simulation and the observations."""
    x, y = X0, Y0
    total = 0.0
    for k in range(len(observed_prey)):
        for _ in range(STEPS_PER_OBSERVATION):
            x, y = rk4_step(x, y, p, H)
        total += (x - observed_prey[k]) ** 2 + (y - observed_predators[k]) ** 2
    return total


def simulate(p, points_per_observation=1):
    """The populations at the observation times (and as many points between them)."""
    count = OBSERVATIONS * points_per_observation
    prey, predators = np.zeros(count), np.zeros(count)
    trajectory(prey, predators, p, STEPS_PER_OBSERVATION // points_per_observation)
    return prey, predators


def central_differences(f, p, h=1e-6):
    """Columns of d f(p) / d p, f returning a float or an array."""
    columns = []
    for i in range(len(p)):
        up, down = p.copy(), p.copy()
        up[i] += h
        down[i] -= h
        columns.append((np.asarray(f(up)) - np.asarray(f(down))) / (2 * h))
    return np.stack(columns, axis=-1)


def main(figure_path=None):
    rng = np.random.default_rng(7)
    prey, predators = simulate(TRUE)
    observed = (prey + rng.normal(0.0, 0.3, OBSERVATIONS),
                predators + rng.normal(0.0, 0.3, OBSERVATIONS))
    guess = np.array([0.9, 0.5, 0.12, 0.3])
    gradient = srcad.grad(loss)(guess, *observed)
    reference = central_differences(lambda p: loss(p, *observed), guess)
    error = np.max(np.abs(gradient - reference)) / np.max(np.abs(reference))
    print(f"gradient at the first guess against finite differences: {error:.1e}")
    fit = minimize(loss, guess, args=observed, jac=srcad.grad(loss), method="L-BFGS-B",
                   bounds=[(0.01, 3.0)] * 4)
    print(f"L-BFGS-B: {fit.nit} iterations, loss {loss(guess, *observed):.1f} -> {fit.fun:.3f}")
    print(f"true (a, b, c, d):   {np.array2string(TRUE, precision=3)}")
    print(f"fitted (a, b, c, d): {np.array2string(fit.x, precision=3)}")
    # sensitivity of the fitted prey trajectory: d prey(t_k) / d (a, b, c, d), shape (20, 4)
    sensitivity = srcad.jacobian(trajectory, srcad.Output(np.zeros(OBSERVATIONS)),
                                 srcad.Cache(np.zeros(OBSERVATIONS)), fit.x,
                                 srcad.Constant(STEPS_PER_OBSERVATION))
    sensitivity_reference = central_differences(lambda p: simulate(p)[0], fit.x)
    sensitivity_error = np.max(np.abs(sensitivity - sensitivity_reference)) / \
        np.max(np.abs(sensitivity_reference))
    print(f"prey sensitivity against finite differences: {sensitivity_error:.1e}")
    assert error < 1e-6 and sensitivity_error < 1e-6 and fit.success
    if figure_path is not None:
        draw(observed, guess, fit.x, sensitivity).savefig(figure_path, dpi=110)
    return max(error, sensitivity_error)


def draw(observed, guess, fitted, sensitivity):
    times = H * STEPS_PER_OBSERVATION * np.arange(1, OBSERVATIONS + 1)
    fine_times = H * STEPS_PER_OBSERVATION / 5 * np.arange(1, 5 * OBSERVATIONS + 1)
    fig = Figure(figsize=(10, 4), layout="constrained")
    left, right = fig.subplots(1, 2)
    for series, (name, color) in enumerate([("prey", "tab:blue"), ("predators", "tab:red")]):
        left.plot(times, observed[series], "o", color=color, label=f"observed {name}")
        left.plot(fine_times, simulate(fitted, 5)[series], color=color, label=f"fitted {name}")
        left.plot(fine_times, simulate(guess, 5)[series], ":", color=color, alpha=0.6)
    left.set(title="Fit to noisy counts (dotted: first guess)", xlabel="time",
             ylabel="population")
    left.legend(fontsize=8)
    for i, name in enumerate("abcd"):
        right.plot(times, sensitivity[:, i], marker=".", label=f"d prey / d {name}")
    right.axhline(0.0, color="grey", linewidth=0.5)
    right.set(title="Sensitivity of the fitted prey count", xlabel="time")
    right.legend(fontsize=8)
    return fig


if __name__ == "__main__":
    main("lotka_volterra_fit.png")
    print("figure written to lotka_volterra_fit.png")
