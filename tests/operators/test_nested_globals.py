"""A nested gradient's adjoint is kept only within one reverse sweep: when the inner function
reads a global array changed in place between two calls of the outer derivative, the second
call computes it again (it once answered with the first call's value)."""

import numpy as np
import pytest

import srcad

SCALE = np.array([1.0])


def inner(x, w):
    return SCALE[0] * x * x * w


def outer(w):
    return srcad.grad(inner)(3.0, w) * w  # SCALE * 6 w^2


@pytest.mark.parametrize("operator", [srcad.grad(outer), srcad.jacrev(outer)])
def test_a_global_changed_in_place_is_read_again(operator):
    SCALE[0] = 1.0
    try:
        assert float(operator(2.0)) == pytest.approx(24.0)
        SCALE[0] = 2.0
        assert float(operator(2.0)) == pytest.approx(48.0)  # d/dw 12 w^2 at 2
    finally:
        SCALE[0] = 1.0
