"""The sparsity pattern of a jacobian, found from the source and filled in with few passes.

The residual of the Bratu problem, -laplacian(u) - lam exp(u) = 0, discretized by finite
differences on an n x n grid, couples each unknown with its four neighbours: its jacobian has
at most five entries per row. `srcad.jacobian(..., sparse=True)` finds that pattern, colors the
columns (columns that share no row get one color) and computes the whole jacobian in one
forward pass per color instead of one per column; the result is a scipy.sparse matrix, checked
here against central finite differences. Newton's method with it solves the problem. The figure
shows the pattern, each entry colored by its column's color, and the solution.

Run with ``python examples/jacobian_sparsity.py`` (needs scipy, and matplotlib for the figure,
written to jacobian_sparsity.png).
"""

import math

import numpy as np
from matplotlib.figure import Figure
from scipy.sparse.linalg import spsolve

import srcad

N = 12  # grid points per side: n * n unknowns
LAM = 5.0


def bratu_residual(r, u):
    """Write the residual of the discretized Bratu problem at u (zero on the boundary) into r."""
    h2 = 1.0 / (N + 1) ** 2
    for i in range(N):
        for j in range(N):
            k = i * N + j
            total = 4.0 * u[k]
            if i > 0:
                total -= u[k - N]
            if i < N - 1:
                total -= u[k + N]
            if j > 0:
                total -= u[k - 1]
            if j < N - 1:
                total -= u[k + 1]
            r[k] = total / h2 - LAM * math.exp(u[k])


def central_differences(u, h=1e-6):
    """The dense jacobian of the residual by central finite differences, column by column."""
    columns = []
    for k in range(len(u)):
        up, down, r_up, r_down = u.copy(), u.copy(), np.zeros_like(u), np.zeros_like(u)
        up[k] += h
        down[k] -= h
        bratu_residual(r_up, up)
        bratu_residual(r_down, down)
        columns.append((r_up - r_down) / (2 * h))
    return np.stack(columns, axis=1)


def main(figure_path=None):
    u = np.zeros(N * N)
    r = np.zeros(N * N)
    prep = srcad.prepare_jacobian(bratu_residual, srcad.Output(r), u, sparse=True)
    colors = prep.state["colors"]
    for step in range(4):  # Newton's method
        J = srcad.jacobian(bratu_residual, srcad.Output(r), u, sparse=True, prep=prep)
        bratu_residual(r, u)
        u = u - spsolve(J.tocsc(), r)
        bratu_residual(r, u)
        print(f"Newton step {step + 1}: residual norm {np.linalg.norm(r):.2e}")
    J = srcad.jacobian(bratu_residual, srcad.Output(r), u, sparse=True, prep=prep)
    reference = central_differences(u)
    error = np.max(np.abs(J.toarray() - reference)) / np.max(np.abs(reference))
    print(f"jacobian {J.shape[0]} x {J.shape[1]}: {J.nnz} nonzeros, "
          f"{int(colors.max()) + 1} colors (forward passes) instead of {J.shape[1]} columns")
    print(f"pattern found from the {prep.state['pattern_source']} source analysis"
          if prep.state["pattern_source"] == "static" else "pattern found by tracing")
    print(f"jacobian against central finite differences: {error:.1e}")
    assert error < 1e-6 and np.linalg.norm(r) < 1e-8
    if figure_path is not None:
        draw(J, colors, u).savefig(figure_path, dpi=110)
    return error


def draw(J, colors, u):
    fig = Figure(figsize=(10, 4.6), layout="constrained")
    pattern, solution = fig.subplots(1, 2, width_ratios=[4, 3])
    coo = J.tocoo()
    points = pattern.scatter(coo.col, coo.row, c=colors[coo.col], cmap="tab10", s=4,
                             marker="s")
    pattern.set(title=f"Jacobian pattern ({J.nnz} nonzeros), colored by column color",
                xlabel="column (unknown)", ylabel="row (residual)", aspect="equal")
    pattern.invert_yaxis()
    fig.colorbar(points, ax=pattern, label="color: one forward pass each", shrink=0.8,
                 ticks=range(int(colors.max()) + 1))
    image = solution.imshow(u.reshape(N, N), cmap="viridis")
    solution.set(title=f"Solution u on the {N} x {N} grid", xticks=[], yticks=[])
    fig.colorbar(image, ax=solution, shrink=0.8)
    return fig


if __name__ == "__main__":
    main("jacobian_sparsity.png")
    print("figure written to jacobian_sparsity.png")
