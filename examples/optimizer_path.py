"""An optimizer's path with exact gradients and with finite differences: scipy's BFGS on the
Rosenbrock function, from the classic start (-1.2, 1).

With `jac=srcad.grad(rosenbrock)` BFGS gets the exact gradient from one reverse pass. Without
`jac`, scipy estimates it by forward finite differences (`'2-point'`): one more evaluation per
coordinate each time, and an error of about the square root of the machine epsilon, which is
what stops the search short of the minimum at (1, 1). The example prints, for both runs, the
iterations, the function evaluations and the distance to the minimum, and draws both paths on
the contour plot of the function.

Run with ``python examples/optimizer_path.py`` (needs scipy, and matplotlib for the figure,
written to optimizer_path.png).
"""

import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from scipy.optimize import minimize

import srcad


def rosenbrock(x):
    return 100.0 * (x[1] - x[0] ** 2) ** 2 + (1.0 - x[0]) ** 2


def rosenbrock_gradient(x):
    """The gradient by hand, to check srcad's."""
    return np.array([-400.0 * x[0] * (x[1] - x[0] ** 2) - 2.0 * (1.0 - x[0]),
                     200.0 * (x[1] - x[0] ** 2)])


def path_of(start, jac):
    """BFGS from start; the points it visited, and scipy's result."""
    points = [np.array(start)]
    result = minimize(rosenbrock, start, jac=jac, method="BFGS",
                      callback=lambda x: points.append(np.array(x)))
    return np.array(points), result


def main(figure_path=None):
    start = np.array([-1.2, 1.0])
    gradient = srcad.grad(rosenbrock)
    error = np.max(np.abs(gradient(start) - rosenbrock_gradient(start))) / \
        np.max(np.abs(rosenbrock_gradient(start)))
    print(f"srcad gradient at the start against the closed form: {error:.1e}")
    runs = {"exact gradient (srcad.grad)": path_of(start, gradient),
            "finite differences ('2-point')": path_of(start, None)}
    for name, (_, result) in runs.items():
        distance = np.linalg.norm(result.x - 1.0)
        print(f"{name}: {result.nit} iterations, {result.nfev} evaluations of f, "
              f"{distance:.1e} from the minimum")
    assert error < 1e-14
    if figure_path is not None:
        draw(runs).savefig(figure_path, dpi=110)
    return error


def draw(runs):
    fig = Figure(figsize=(11, 4.5), layout="constrained")
    ax, distances = fig.subplots(1, 2, width_ratios=[3, 2])
    x, y = np.meshgrid(np.linspace(-1.6, 1.6, 300), np.linspace(-0.6, 1.8, 300))
    z = 100.0 * (y - x ** 2) ** 2 + (1.0 - x) ** 2
    ax.contour(x, y, z, levels=np.logspace(-2, 3, 16), norm=LogNorm(), cmap="Greys",
               linewidths=0.7)
    for (name, (points, result)), style in zip(runs.items(), ["o-", "s--"]):
        ax.plot(points[:, 0], points[:, 1], style, markersize=3,
                label=f"{name}: {result.nfev} evaluations")
        distances.semilogy(np.linalg.norm(points - 1.0, axis=1), style, markersize=3,
                           label=name)
    ax.plot([1.0], [1.0], "*", color="black", markersize=12, label="minimum (1, 1)")
    ax.set(title="BFGS on the Rosenbrock function from (-1.2, 1)", xlabel="x[0]",
           ylabel="x[1]")
    ax.legend(fontsize=8, loc="lower right")
    distances.set(title="Distance to the minimum", xlabel="iteration")
    distances.legend(fontsize=8)
    return fig


if __name__ == "__main__":
    main("optimizer_path.png")
    print("figure written to optimizer_path.png")
