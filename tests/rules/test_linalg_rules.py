"""The linear algebra rules, generated from the rule tables (tests/helpers/linalg_rule_cases.py):
each case in reverse, forward and vector mode against central finite differences
(srcad.testing.check_grads), and its gradient (reverse) and Jacobian (forward lanes) against
JAX's (jax.numpy.linalg, jax.scipy.linalg); on the numba backend the cases of one matrix
against finite differences (srcad/runtime/numba_linalg.py, numba_products.py,
numba_decompositions.py, numba_expm.py), and the rest refused by name or naming the line."""

import types

import numpy as np
import pytest
import scipy.linalg

import srcad
from srcad.rules import linalg, scipy_linalg, spectral
from srcad.testing import check_grads
from tests.helpers import linalg_rule_cases as cases
from tests.helpers.library_rule_cases import NUMBA_RULE_MODES

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg  # noqa: E402

CASES = cases.CASES
# one fast case per family in `make test` (a contraction, a stack, a decomposition,
# scipy.linalg); the rest run in `make test-all`
SMOKE = {'np.einsum("ij,jk", x0, x1)', "np.linalg.solve(x0, x1)", "np.linalg.eigh(x0)[0]",
         "scipy.linalg.solve_triangular(x0, x1, lower=True)"}


SMOKE_IDS = {next(c["id"] for c in CASES if c["call"] == call) for call in SMOKE}


def _params(selected):
    return [pytest.param(c, id=c["id"], marks=() if c["id"] in SMOKE_IDS else pytest.mark.slow)
            for c in selected]
JAX_NAMES = {"np": jnp, "scipy": types.SimpleNamespace(linalg=jax.scipy.linalg)}


def _duplicated(values):
    return [srcad.Duplicated(v.copy(), np.zeros_like(v)) for v in values]


@pytest.mark.parametrize("case", _params(CASES))
def test_rule_agrees_with_finite_differences_in_every_mode(case):
    f = cases.function_of(case)
    check_grads(f, *_duplicated(cases.arguments(case)), rtol=1e-5)


def _symmetrized(case, k, g):
    """g + g^T for an operand the function reads as a symmetric matrix from one triangle."""
    return g + np.swapaxes(g, -1, -2) if k in case["symmetric"] else g


JAX_CASES = [c for c in CASES if c["jax"]]


@pytest.mark.parametrize("case", _params(JAX_CASES))
def test_rule_agrees_with_jax_in_reverse_and_forward(case):
    args = cases.arguments(case, seed=1)
    argnums = tuple(range(len(args)))
    f, f_jax = cases.function_of(case), cases.function_of(case, JAX_NAMES)
    expected = jax.grad(f_jax, argnums=argnums)(*map(jnp.asarray, args))
    got_reverse = srcad.grad(f, argnums=argnums)(*args)
    got_forward = srcad.jacfwd(f, argnums=argnums)(*args)
    for k, (e, r, w) in enumerate(zip(expected, got_reverse, got_forward)):
        e = _symmetrized(case, k, np.asarray(e))
        np.testing.assert_allclose(_symmetrized(case, k, r), e, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(_symmetrized(case, k, w), e, rtol=1e-7, atol=1e-9)


def test_every_linalg_entry_has_cases():
    named = {c["name"] for c in CASES}
    functions = [fn for fn, *_ in linalg.ENTRIES + spectral.ENTRIES + scipy_linalg.SHAPED]
    assert {fn.__name__ for fn in functions} <= named
    assert {"matmul", "solve", "inv", "det", "slogdet", "cholesky"} <= named  # stacks


def gp_log_likelihood(log_scale, noise, x, y):
    """A Gaussian process's log marginal likelihood through a Cholesky factor."""
    d = x[:, None] - x[None, :]
    K = np.exp(-0.5 * d * d * np.exp(-2.0 * log_scale)) + noise * np.eye(x.shape[0])
    L = scipy.linalg.cholesky(K, lower=True)
    alpha = scipy.linalg.solve_triangular(L, y, lower=True)
    return -0.5 * np.sum(alpha * alpha) - np.sum(np.log(np.diag(L)))


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_gaussian_process_likelihood_differentiates():
    x, y = np.linspace(0.0, 3.0, 7), np.sin(np.linspace(0.0, 3.0, 7))
    check_grads(gp_log_likelihood, srcad.Active(-0.2), srcad.Active(0.1),
                srcad.Const(x), srcad.Const(y))

    def gp_jax(log_scale, noise):
        d = x[:, None] - x[None, :]
        K = jnp.exp(-0.5 * d * d * jnp.exp(-2.0 * log_scale)) + noise * jnp.eye(x.shape[0])
        L = jax.scipy.linalg.cholesky(K, lower=True)
        alpha = jax.scipy.linalg.solve_triangular(L, y, lower=True)
        return -0.5 * jnp.sum(alpha * alpha) - jnp.sum(jnp.log(jnp.diag(L)))

    expected = jax.grad(gp_jax, argnums=(0, 1))(-0.2, 0.1)
    got = srcad.grad(gp_log_likelihood, argnums=(0, 1))(-0.2, 0.1, x, y)
    np.testing.assert_allclose(got, expected, rtol=1e-9)


def einsum_of(a, b):
    return np.sum(np.einsum("ij,jk", a, b))


def test_einsum_runs_on_numba():
    check_grads(einsum_of, *_duplicated([np.arange(4.0).reshape(2, 2)]),
                srcad.Const(np.ones((2, 2))), backend="numba", modes=("rev", "fwd"))


def tensordot_of(a, b):
    return np.sum(np.tensordot(a, b, axes=([1], [0])))


def test_tensordot_runs_on_numba():  # the products' smoke test (numba_products.py)
    check_grads(tensordot_of, *_duplicated([np.arange(6.0).reshape(2, 3)]),
                srcad.Const(np.ones((3, 2))), backend="numba", modes=("rev", "fwd"))


def stacked_power(a):
    return np.sum(np.linalg.matrix_power(a, 2))


@pytest.mark.slow  # numba types the code (seconds)
def test_numba_refuses_a_stacked_matrix_power_naming_the_line():
    with pytest.raises(srcad.SrcadError, match=r"numba has no `np.linalg.matrix_power` for these "
                       r"operands") as refused:
        srcad.gradient(stacked_power, np.ones((2, 3, 3)), backend="numba")
    assert refused.value.filename == __file__
    assert refused.value.line == stacked_power.__code__.co_firstlineno + 1


def lu_solved(b):
    return np.sum(scipy.linalg.lu_solve(scipy.linalg.lu_factor(2.0 * np.eye(2)), b))


@pytest.mark.slow  # numba compiles srcad/runtime/numba_lu.py's lu_solve
def test_numba_runs_scipy_linalg_lu_solve():
    # d/db sum(A^-1 b) = A^-T 1 = 0.5 for A = 2 I
    np.testing.assert_allclose(srcad.gradient(lu_solved, np.ones(2), backend="numba"),
                               [0.5, 0.5], rtol=1e-15)


NUMBA_CASES = [c for c in CASES if c["call"].startswith("scipy.linalg")  # lu_: numba_lu.py
               # numba_spectral.py, numba_decompositions.py, numba_products.py: one matrix
               or c["name"] in ("eigh", "eigvalsh", "svd", "qr", "pinv", "cond", "lstsq",
                                "lstsq_parts", "matrix_power")
               and len(c["operands"][0][1]) == 2
               # numba_einsum.py: no axis of length 1 broadcast against a longer one
               or c["name"] == "einsum" and "...i,...i->..." not in c["call"]
               # numba_products.py, numba_linalg_calls.py
               or c["name"] in ("tensordot", "kron", "multi_dot", "inner", "vdot")
               or c["name"] == "cross"]


@pytest.mark.slow  # numba compilations: make test-all (the smoke test: the likelihood below)
@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in NUMBA_CASES])
def test_linalg_rules_agree_with_finite_differences_on_numba(case):
    f = cases.function_of(case)
    check_grads(f, *_duplicated(cases.arguments(case)), rtol=1e-5, backend="numba",
                modes=NUMBA_RULE_MODES)


@pytest.mark.slow  # numba compiles a whole likelihood (the einsum smoke test stays fast)
def test_gaussian_process_likelihood_differentiates_on_numba():
    x, y = np.linspace(0.0, 3.0, 7), np.sin(np.linspace(0.0, 3.0, 7))
    check_grads(gp_log_likelihood, srcad.Active(-0.2), srcad.Active(0.1),
                srcad.Const(x), srcad.Const(y), backend="numba", modes=("rev", "fwd"))


def subscripts_from_a_variable(a, s):
    return np.sum(np.einsum(s, a))


def overwritten(a, b):
    return np.sum(scipy.linalg.solve(a, b, overwrite_a=True))


def full_svd_vectors(a):
    return np.sum(np.linalg.svd(a)[0])


def test_what_srcad_does_not_follow_is_refused_by_name():
    with pytest.raises(srcad.SrcadError, match=r"einsum"):
        srcad.gradient(subscripts_from_a_variable, np.eye(2), srcad.Constant("ii"))
    with pytest.raises(srcad.SrcadError, match=r"overwrite_a=True"):
        srcad.gradient(overwritten, np.eye(2) * 2.0, srcad.Constant(np.ones(2)))
    with pytest.raises(srcad.SrcadError, match=r"full_matrices=True of a matrix that is not "
                       r"square is not defined"):
        srcad.gradient(full_svd_vectors, np.ones((3, 2)))


def vdot_of(a):
    return np.vdot(a, a)


def stacked_inverse(a):
    return np.sum(np.linalg.inv(a))


@pytest.mark.slow  # numba compiles
def test_vdot_of_matrices_runs_on_numba():
    # numba's np.vdot takes vectors; NumPy's flattens (srcad/transform/numba_linalg_calls.py)
    a = np.arange(6.0).reshape(2, 3) * 0.5 - 1.0
    np.testing.assert_allclose(srcad.gradient(vdot_of, a, backend="numba"), 2.0 * a)


@pytest.mark.slow
def test_numba_refuses_a_stack_of_matrices_by_name():
    with pytest.raises(srcad.SrcadError,
                       match=r"numba has no `np\.linalg\.inv` for these operands"):
        srcad.gradient(stacked_inverse, np.ones((2, 3, 3)) + np.eye(3), backend="numba")
