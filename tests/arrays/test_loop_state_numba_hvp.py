"""Second order of arrays as loop state on numba (reverse over forward): the hvp of
double-buffered stencils (`u = v` and `u, v = v, u`), a 2-D stencil and a kept row agree with
differences of the gradient. Each compiles numba programs: marked slow."""

import numpy as np
import pytest
from test_loop_state import carried_row, heat_swap, jacobi, jacobi_slices, stencil_2d

import srcad


def swapped_stencil(u0):
    u = u0.copy()
    v = np.empty_like(u)
    n = u.shape[0]
    for _ in range(3):
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            v[i] = u[i] + 0.1 * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + 0.05 * u[i] ** 3
        u, v = v, u
    return np.sum(u ** 2)


RNG = np.random.default_rng(7)
CASES = {
    "heat_swap": (heat_swap, 6, ()),
    "swapped_stencil": (swapped_stencil, 6, ()),
    "jacobi": (jacobi, 6, (RNG.standard_normal(6),)),
    "jacobi_slices": (jacobi_slices, 6, ()),
    "stencil_2d": (stencil_2d, (4, 5), ()),
    "carried_row": (carried_row, 3, (0.5 * RNG.standard_normal((3, 3)),)),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_loop_state_hvp_on_numba_is_the_difference_of_gradients(case):
    f, shape, rest = CASES[case]
    rng = np.random.default_rng(5)
    x, v, eps = 0.5 * rng.standard_normal(shape), rng.standard_normal(shape), 1e-5
    constants = [srcad.Constant(r) for r in rest]

    def grad(point):
        return srcad.gradient(f, point, *constants)
    differences = (grad(x + eps * v) - grad(x - eps * v)) / (2 * eps)
    hv = srcad.hvp(f, x, *constants, tangent=v, backend="numba")
    np.testing.assert_allclose(hv, differences, rtol=1e-5, atol=1e-7)
