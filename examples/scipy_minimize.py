"""Minimizing with scipy.optimize and srcad gradients: the pattern to use, and the one to avoid.

scipy's BFGS keeps the array the gradient callback returns (as the previous gradient, to
update its Hessian estimate). `srcad.gradient(..., out=g)` returns `g` itself and refills it
on the next call, so BFGS would find its stored gradient silently replaced: it stops
converging. Give scipy a fresh array on each call (no `out=`, the preparation still saves
the transform, the compilation and every other buffer), or, with `jac=True`, return
`value_and_gradient` from one callback.

Run with ``.venv/bin/python examples/scipy_minimize.py`` (needs scipy).
"""

import numpy as np
from scipy.optimize import minimize

import srcad


def rosenbrock(x):
    """The chained Rosenbrock function: minimum 0 at x = (1, ..., 1)."""
    s = 0.0
    for i in range(len(x) - 1):
        s += 100.0 * (x[i + 1] - x[i] * x[i]) ** 2 + (1.0 - x[i]) ** 2
    return s


def minimize_right(x0):
    """Prepare once; every call returns a fresh gradient array that scipy may keep."""
    prep = srcad.prepare_gradient(rosenbrock, x0)
    return minimize(rosenbrock, x0, method="BFGS",
                    jac=lambda x: srcad.gradient(rosenbrock, x, prep=prep))


def minimize_right_one_callback(x0):
    """The value and the gradient from one reverse pass: jac=True."""
    prep = srcad.prepare_gradient(rosenbrock, x0)
    return minimize(lambda x: srcad.value_and_gradient(rosenbrock, x, prep=prep), x0,
                    method="BFGS", jac=True)


def minimize_aliased(x0):
    """Wrong: out=g hands scipy the same array on every call, and the next call overwrites
    the gradient BFGS stored."""
    prep = srcad.prepare_gradient(rosenbrock, x0)
    g = np.empty_like(x0)
    return minimize(rosenbrock, x0, method="BFGS",
                    jac=lambda x: srcad.gradient(rosenbrock, x, prep=prep, out=g))


def main():
    x0 = np.linspace(-0.5, 0.5, 10)
    for name, run in (("fresh gradient per call", minimize_right),
                      ("value_and_gradient, jac=True", minimize_right_one_callback),
                      ("out= (aliased, wrong)", minimize_aliased)):
        result = run(x0)
        distance = np.max(np.abs(result.x - 1.0))
        print(f"{name:30s} converged: {result.success!s:5s} after {result.nit:4d} "
              f"iterations, f = {result.fun:.1e}, max |x - 1| = {distance:.1e}")


if __name__ == "__main__":
    main()
