"""Second order of a function whose generated code checks the values it meets (a list of
arrays appended in a loop becomes an array of rows, after a check that each row has the
row length): differentiating that code again keeps the check as it is. It was refused as
`raise: not supported`, at no line of the user's."""

import numpy as np
import pytest
from helpers.differences import central

import srcad

X = np.array([1.0, 2.0, -0.5])


def rows_of_copies(x):
    h = np.zeros(len(x))
    hs = []
    for _t in range(2):
        h[:] = h + np.sin(x)
        hs.append(h.copy())
    return np.sum(np.stack(hs) ** 2)


@pytest.mark.parametrize("mode", [None, "reverse-over-forward"])
def test_hessian_of_rows_appended_in_a_loop(mode):
    gradient = srcad.grad(rows_of_copies)
    np.testing.assert_allclose(gradient(X), central(rows_of_copies, X), rtol=1e-6)
    expected = central(gradient, X, h=1e-5)
    np.testing.assert_allclose(srcad.hessian(rows_of_copies, X.copy(), mode=mode), expected,
                               rtol=1e-6, atol=1e-6)
    v = np.array([0.3, -1.0, 2.0])
    np.testing.assert_allclose(srcad.hvp(rows_of_copies, X.copy(), tangent=v, mode=mode),
                               expected @ v, rtol=1e-6, atol=1e-6)

