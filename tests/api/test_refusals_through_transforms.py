"""A Gaussian-process likelihood with problems in three stages (a dict of hyperparameters
iterated over, a call for its effect on an array with a derivative, a string value) gets one
report listing the three at the user's lines, whichever transform asks: grad, a composition
(jacfwd(grad(f)), whose first level is srcad's code calling f), vmap of grad, and numba."""

import numpy as np
import pytest

import srcad

POINTS = np.linspace(0.0, 1.0, 5)
VALUES = np.sin(3.0 * POINTS)
THETA = np.array([1.0, 0.3])
HYPER = {"noise": 0.1}


def gp_likelihood(theta, hyper):
    K = theta[0] * np.exp(-(POINTS[:, None] - POINTS[None, :]) ** 2 / theta[1])
    noise = 0.0
    for name in hyper:  # the container stage: a dict iterated over
        noise = noise + hyper[name]
    np.fill_diagonal(K, np.diag(K) + 0.1)  # the array checks: a call for its effect
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, VALUES))
    kernel = "rbf" * 1  # the type inference: a string
    return 0.5 * VALUES @ alpha + np.sum(np.log(np.diag(L))) + noise + len(kernel) * 0.0


def _lines(refused):
    first = gp_likelihood.__code__.co_firstlineno
    return [(p.filename, p.line - first, p.construct) for p in refused.value.problems]


EXPECTED = [(__file__, 3, "container"), (__file__, 5, "call"), (__file__, 8, "assignment")]


@pytest.mark.parametrize("transform", [
    lambda: srcad.grad(gp_likelihood)(THETA, HYPER),
    lambda: srcad.jacfwd(srcad.grad(gp_likelihood))(THETA, HYPER),
    lambda: srcad.vmap(srcad.grad(gp_likelihood), in_axes=(0, None))(
        np.stack([THETA, THETA]), HYPER),
], ids=["grad", "jacfwd of grad", "vmap of grad"])
def test_every_problem_of_a_gp_likelihood_in_one_report(transform):
    with pytest.raises(srcad.SrcadError) as refused:
        transform()
    assert _lines(refused) == EXPECTED
    assert "srcad_" not in str(refused.value) and "<srcad" not in str(refused.value)


@pytest.mark.slow
def test_every_problem_of_a_gp_likelihood_in_one_report_on_numba():
    with pytest.raises(srcad.SrcadError) as refused:
        srcad.grad(gp_likelihood, backend="numba")(THETA, HYPER)
    assert set(EXPECTED) <= set(_lines(refused))  # numba adds its own (np.diag)
