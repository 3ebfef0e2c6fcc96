"""jacobian(..., sparse=True): the pattern is the structural one (hand-derived here, entries
whose partial is zero at the point included), the coloring of a band of width b + 1 uses
b + 1 colors (its chromatic number), the values equal the hand-derived dense jacobian, a
prepared call refills a CSR in place, the python backend's lanes (one per color) are stacked
in arrays (unrolled lanes for code stacked ones cannot run), and the GradBench ba and ht
ports agree with central differences."""

import importlib
import math
import pathlib
import sys

import numpy as np
import pytest
import scipy.sparse

import srcad
from srcad import Constant, Output

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"


def arrowhead(y, x):
    s = 0.0
    for j in range(len(x)):
        s += x[j] * x[j]
    y[0] = s
    for i in range(1, len(x)):
        y[i] = x[0] * x[i] + math.sin(x[i])


def arrowhead_expected(x):
    n = len(x)
    J = np.zeros((n, n))
    J[0] = 2.0 * x
    J[1:, 0] = x[1:]
    for i in range(1, n):
        J[i, i] = x[0] + math.cos(x[i])
    return J


def banded(y, x, b):
    """y[i] = x[i] * sum_{k = i .. i + b} (k + 1) x[k]: row i reads columns i .. i + b."""
    n = len(x)
    for i in range(n):
        s = 0.0
        for k in range(i, min(i + b + 1, n)):
            s += (k + 1.0) * x[k]
        y[i] = x[i] * s


def banded_expected(x, b):
    n = len(x)
    J = np.zeros((n, n))
    for i in range(n):
        s = sum((k + 1.0) * x[k] for k in range(i, min(i + b + 1, n)))
        for k in range(i, min(i + b + 1, n)):
            J[i, k] += x[i] * (k + 1.0)
        J[i, i] += s
    return J


def whole_array(x):
    z = np.sin(x[1:]) * x[:-1]
    return z


def product(x):
    y = np.zeros(2)
    y[0] = x[0] * x[1]
    y[1] = 2.0 * x[2]
    return y


def calls_solve(x, A):
    z = np.linalg.solve(A, x)
    return z


def pattern_of(J):
    return {(i, j) for i in range(J.shape[0]) for j in J.indices[J.indptr[i]:J.indptr[i + 1]]}


def test_arrowhead_pattern_and_values():
    x = np.array([0.3, -1.2, 0.7, 2.0, 0.5])
    y = np.zeros(5)
    J = srcad.jacobian(arrowhead, Output(y), x, sparse=True)
    assert isinstance(J, scipy.sparse.csr_matrix)
    expected = arrowhead_expected(x)
    assert pattern_of(J) == {(0, j) for j in range(5)} | {(i, 0) for i in range(5)} | {
        (i, i) for i in range(5)}
    np.testing.assert_allclose(J.toarray(), expected, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("b", [0, 1, 3])
def test_banded_colors_are_the_chromatic_number(b):
    n = 9
    x = np.linspace(-1.0, 1.0, n) + 0.1
    y = np.zeros(n)
    args = (Output(y), x, Constant(b))
    prep = srcad.prepare_jacobian(banded, *args, sparse=True)
    # columns j and k share a row iff |j - k| <= b: the chromatic number is b + 1
    assert prep.state["colors"].max() + 1 == b + 1
    assert prep.chunk == b + 1  # one forward pass of b + 1 lanes
    assert prep.engine.stacked  # python: the lanes stacked in arrays, as a dense jacobian's
    J = srcad.jacobian(banded, *args, prep=prep)
    assert pattern_of(J) == {(i, k) for i in range(n) for k in range(i, min(i + b + 1, n))}
    np.testing.assert_allclose(J.toarray(), banded_expected(x, b), rtol=1e-13, atol=1e-13)


def test_prepared_call_refills_the_csr_in_place():
    n = 8
    y = np.zeros(n)
    prep = srcad.prepare_jacobian(banded, Output(y), np.ones(n), Constant(2), sparse=True)
    x1 = np.linspace(0.5, 2.0, n)
    J = srcad.jacobian(banded, Output(y), x1, Constant(2), prep=prep)
    data = J.data
    x2 = x1[::-1].copy()
    J2 = srcad.jacobian(banded, Output(y), x2, Constant(2), prep=prep, out=J)
    assert J2 is J and J.data is data
    np.testing.assert_allclose(J.toarray(), banded_expected(x2, 2), rtol=1e-13)
    other = scipy.sparse.csr_matrix(np.ones((n, n)))
    with pytest.raises(srcad.ArgumentError, match="another sparsity pattern"):
        srcad.jacobian(banded, Output(y), x2, Constant(2), prep=prep, out=other)
    with pytest.raises(srcad.ArgumentError, match="CSR"):
        srcad.jacobian(banded, Output(y), x2, Constant(2), prep=prep, out=np.zeros((n, n)))
    with pytest.raises(srcad.PreparationMismatchError, match="sparse"):
        srcad.jacobian(banded, Output(y), x2, Constant(2), prep=prep, sparse=False)


def test_structural_entries_with_a_zero_partial_are_kept():
    # d(x0 x1)/dx0 = x1 = 0 at this point: a value-based pattern would drop (0, 0)
    x = np.array([1.5, 0.0, 2.0])
    J = srcad.jacobian(product, x, sparse=True)
    assert pattern_of(J) == {(0, 0), (0, 1), (1, 2)}
    np.testing.assert_array_equal(J.toarray(), [[0.0, 1.5, 0.0], [0.0, 0.0, 2.0]])


def test_whole_array_code():
    x = np.array([0.2, -0.4, 1.1, 0.8])
    J = srcad.jacobian(whole_array, x, sparse=True)
    expected = np.zeros((3, 4))
    for i in range(3):
        expected[i, i] = math.sin(x[i + 1])
        expected[i, i + 1] = math.cos(x[i + 1]) * x[i]
    assert J.nnz == 6
    np.testing.assert_allclose(J.toarray(), expected, rtol=1e-14)


def clipped(x):
    y = np.zeros(2)
    y[0] = np.clip(x[1], 0.0, 1.0)
    y[1] = np.maximum(x[0], 0.0) * 2.0 + np.clip(x[2], 0.0, 1.0)
    return y


def clipped_alone(x):
    y = np.zeros(2)
    y[0] = np.clip(x[1], 0.0, 1.0)
    y[1] = x[2] * 2.0
    return y


def test_a_scalar_selection_keeps_its_entry():
    # the tangent of np.clip(x[1], 0.0, 1.0) is np.where(...) of numbers: a 0-d array, whose
    # dependency set was dropped (J[0, 1] = 0 for 1), and added to another one it stopped
    # the tracing
    x = np.array([0.3, 0.5, 0.1])
    J = srcad.jacobian(clipped_alone, x, sparse=True)
    np.testing.assert_array_equal(J.toarray(), [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0]])
    J = srcad.jacobian(clipped, x, sparse=True)
    assert pattern_of(J) == {(0, 1), (1, 0), (1, 2)}
    np.testing.assert_array_equal(J.toarray(), [[0.0, 1.0, 0.0], [2.0, 0.0, 1.0]])


def test_refusals():
    x = np.array([1.0, 2.0])
    with pytest.raises(srcad.SrcadError, match=r"np\.linalg\.solve.*could not be traced"):
        srcad.jacobian(calls_solve, x, Constant(np.eye(2)), sparse=True)
    with pytest.raises(srcad.ArgumentError, match="forward mode"):
        srcad.prepare_jacobian(product, np.ones(3), sparse=True, mode="reverse")


@pytest.fixture(scope="module")
def gradbench():
    saved = list(sys.path)
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield (importlib.import_module("srcad.gradbench.ports.ba"),
               importlib.import_module("srcad.gradbench.ports.ht"))
    finally:
        sys.path[:] = saved


def test_numba_backend_fills_the_same_csr():
    n = 8
    x = np.linspace(0.5, 2.0, n)
    y = np.zeros(n)
    prep = srcad.prepare_jacobian(banded, Output(y), x, Constant(2), sparse=True,
                                  backend="numba")
    J = srcad.jacobian(banded, Output(y), x, Constant(2), prep=prep)
    assert prep.state["colors"].max() + 1 == 3
    np.testing.assert_allclose(J.toarray(), banded_expected(x, 2), rtol=1e-13)


def test_ba_sparse_jacobian_matches_central_differences(gradbench):
    ba = gradbench[0]
    x, constants = ba.parse(ba.generate(**ba.SIZES["small"]), perturb=0.05)
    J = ba.srcad_jacobian(x, constants, backend="python")()
    n, m, p = constants[:3]
    assert J.shape == (3 * p, 11 * n + 3 * m + p)
    # 14 per reprojection row (x does not read v0, y not u0), 1 per weight row
    assert J.nnz == 2 * p * 14 + p
    fd = ba.central_differences(x, constants, range(x.size))
    np.testing.assert_allclose(J.toarray(), fd, rtol=1e-6, atol=1e-6 * np.abs(fd).max())


def test_ht_jacobian_matches_central_differences(gradbench):
    ht = gradbench[1]
    theta, constants = ht.parse(ht.generate(**ht.SIZES["small"]))
    J = ht.srcad_jacobian(theta, constants, backend="python")()
    fd = ht.central_differences(theta, constants)
    assert J.shape == (3 * len(constants[5]), 26)
    np.testing.assert_allclose(J, fd, rtol=1e-6, atol=1e-7 * np.abs(fd).max())


def test_ht_complicated_jacobian_matches_central_differences(gradbench):
    # the complicated inputs: columns 0, 1 are d err / d us of each row's own pair
    ht = gradbench[1]
    problem = ht.parse(ht.generate(**ht.SIZES["small-complicated"]))
    assert len(problem) == 3 and problem[2][0].size == 2 * len(problem[1][5])
    J = ht.srcad_jacobian(*problem, backend="python")()
    fd = ht.central_differences(*problem)
    assert J.shape == (3 * len(problem[1][5]), 2 + 26)
    assert np.abs(J[:, :2]).min() > 0.0  # every row reads its own u pair
    np.testing.assert_allclose(J, fd, rtol=1e-6, atol=1e-7 * np.abs(fd).max())
