"""The numba backend's scans, weighted means and scipy.stats (srcad/runtime/numba_scans.py,
numba_stats.py): np.cumprod, np.diff, np.trapezoid, np.gradient, np.average, np.linspace,
np.divmod and the scipy.stats methods differentiated on numba in every mode against central
differences (marked slow: numba compiles each), one smoke test per family against JAX, and
the compiled primal values against NumPy's and SciPy's."""

import jax
import jax.numpy as jnp
import jax.scipy.stats as jax_stats
import numpy as np
import pytest
import scipy.stats

import srcad
from srcad.rules import numpy_entries
from srcad.testing import check_grads
from tests.helpers import numpy_rule_cases as cases
from tests.helpers.library_rule_cases import NUMBA_RULE_MODES
from tests.rules import test_stats_rules as stats_cases

jax.config.update("jax_enable_x64", True)

X = np.random.default_rng(3).permutation(24).reshape(2, 3, 4) * 0.1 + 0.55
W = np.arange(12.0).reshape(3, 4) * 0.1 + 0.2


def differences_down_the_columns(x):
    return np.sum(np.diff(x, axis=0) * W[:2])


@pytest.mark.slow  # about 50 s of numba compiling; the log density is the family's smoke test
def test_a_difference_along_an_axis_runs_on_numba():
    expected = jax.grad(lambda x: jnp.sum(jnp.diff(x, axis=0) * W[:2]))(W)
    np.testing.assert_allclose(srcad.gradient(differences_down_the_columns, W.copy(),
                                              backend="numba"), expected, rtol=1e-13)


def log_likelihood(x, loc, scale):
    return np.sum(scipy.stats.norm.logpdf(x, loc, scale=scale))


def test_a_log_density_runs_on_numba():
    x, loc = np.array([0.3, -1.2, 2.5]), np.array([0.1, 0.2, -0.1])
    ours = srcad.grad(log_likelihood, argnums=(0, 1, 2), backend="numba")(x, loc, 1.7)
    theirs = jax.grad(lambda *v: jnp.sum(jax_stats.norm.logpdf(*v)), argnums=(0, 1, 2))(
        x, loc, 1.7)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-12)


# -- every form, in every mode (slow) ------------------------------------------------------
SCAN_CALLS = [c for c in cases.reduction_cases() if c[0].rsplit("-", 1)[0] in
              numpy_entries.NUMBA_SCANS] + [
    ("cumprod-axis", "np.cumprod(x0, axis=1)", [X.copy()]),
    ("cumprod-method-axis", "x0.cumprod(axis=-1)", [X.copy()]),
    ("cumprod-flattened", "np.cumprod(x0) * np.cumsum(x0)", [X.copy()]),
    ("average-weights", "np.average(x0, axis=1, weights=x0 * x0 + 0.5)", [X.copy()]),
    ("average-weights-vector", "np.average(x0, axis=2, weights=x0[0, 0], keepdims=True)",
     [X.copy()]),
    ("average-weights-all", "np.average(x0, weights=np.exp(x0))", [X.copy()]),
    ("diff-prepended", "np.diff(x0[0], 2, axis=1)", [X.copy()]),
    ("linspace-numbers", "np.linspace(x0[0, 0, 0], x0[1, 2, 3], 5)", [X.copy()]),
    ("linspace-no-end", "np.linspace(x0[0, 0, 0], 2.0, 4, endpoint=False)", [X.copy()]),
    ("linspace-arrays", "np.linspace(x0[0], x0[1, 0], 3)", [X.copy()]),
]


def _check(call, args, **options):
    f = cases.function_of(call, len(args))
    check_grads(f, *(srcad.Duplicated(v.copy(), np.zeros_like(v)) for v in args), rtol=1e-6,
                **options)


@pytest.mark.slow
@pytest.mark.parametrize("case", SCAN_CALLS, ids=[c[0] for c in SCAN_CALLS])
def test_scan_on_numba_agrees_with_finite_differences_in_every_mode(case):
    _check(case[1], case[2], backend="numba", modes=NUMBA_RULE_MODES)


def divmod_unpacked(x, y):
    q, r = np.divmod(x, y)
    return np.sum(r * r + q * x)


@pytest.mark.slow
def test_divmod_runs_on_numba_with_numpys_values():
    x, y = np.array([2.3, -1.1, 0.4, -2.2]), np.array([0.8, 1.3, -0.9, -0.7])
    check_grads(divmod_unpacked, srcad.Duplicated(x.copy(), np.zeros(4)),
                srcad.Duplicated(y.copy(), np.zeros(4)), backend="numba")
    value, _ = srcad.value_and_gradient(divmod_unpacked, x.copy(), srcad.Constant(y),
                                        backend="numba")
    assert value == pytest.approx(divmod_unpacked(x, y), rel=1e-15)


STATS = [c for c in stats_cases.CASES if not c[5]]  # parameters by position


@pytest.mark.slow
@pytest.mark.parametrize("case", STATS, ids=[c[0] for c in STATS])
def test_distribution_on_numba_agrees_with_finite_differences_in_every_mode(case):
    _, dist, method, params, refused, _ = case
    rng = np.random.default_rng(len(params))
    arguments = [stats_cases._value(stats_cases._X[dist], (2, 3), rng)]
    for k, p in enumerate(params):  # alternately a row and a float: they broadcast
        arguments.append(stats_cases._value(stats_cases._DOMAIN[p], (3,) if k % 2 == 0 else (),
                                            rng))
    text = (f"scipy.stats.{dist}.{method}(x, "
            + ", ".join(["2.0"] * len(refused) + params) + ")")
    f = stats_cases._probe(text, ["x", *params])
    check_grads(f, *map(stats_cases._annotated, arguments), rtol=1e-6, backend="numba",
                modes=NUMBA_RULE_MODES)
    numba_value, _ = srcad.value_and_gradient(
        f, arguments[0], *map(srcad.Constant, arguments[1:]), backend="numba")
    assert numba_value == pytest.approx(f(*arguments), rel=1e-11)


@pytest.mark.slow
@pytest.mark.parametrize("f, x", [(stats_cases.mvn_vector, np.array([0.4, -1.0, 0.7])),
                                  (stats_cases.mvn_rows,
                                   np.array([[0.4, -1.0, 0.7], [1.1, 0.2, -0.3]]))],
                         ids=["vector", "rows"])
def test_multivariate_normal_on_numba(f, x):
    mean = np.array([0.1, 0.2, -0.1])
    check_grads(f, *(srcad.Duplicated(v.copy(), np.zeros_like(v))
                     for v in (x, mean, stats_cases.COV)), rtol=1e-6, backend="numba")


@pytest.mark.slow
@pytest.mark.parametrize("method", ["logpmf", "pmf"])
def test_poisson_on_numba(method):
    f = stats_cases._probe(f"scipy.stats.poisson.{method}(k, mu)", ["k", "mu"])
    k, mu = np.array([0.0, 2.0, 5.0]), np.array([0.7, 2.5, 4.0])
    np.testing.assert_allclose(srcad.grad(f, argnums=1, backend="numba")(k, mu),
                               srcad.grad(f, argnums=1)(k, mu), rtol=1e-12)


