"""scipy.stats' distributions, generated from their rule family (srcad/rules/stats.py): each
method x its parameters passed by position and by name, as floats and as arrays that
broadcast, x {reverse, forward, vector} on the python backend against central finite
differences; the gradients against jax.scipy.stats where JAX has the method; the cdf in a
shape parameter refused by name (on numba too: the numba family is
tests/rules/test_scans_stats_numba.py)."""

import itertools
import linecache

import numpy as np
import pytest
import scipy.stats

import srcad
from srcad.errors import SrcadError
from srcad.rules import stats
from srcad.testing import check_grads

_counter = itertools.count()
# where each parameter is sampled (x: inside the support after loc and scale)
_DOMAIN = {"df": (2.5, 6.0), "a": (1.5, 3.0), "b": (1.5, 3.0), "loc": (-0.2, 0.2),
           "scale": (1.5, 2.5), "mu": (0.5, 3.0)}
_X = {"norm": (-2.0, 2.0), "t": (-2.0, 2.0), "gamma": (0.5, 3.0), "beta": (0.4, 1.6),
      "poisson": None}


def _probe(call: str, names):
    filename = f"<stats rule case {next(_counter)}>"
    text = f"def probe({', '.join(names)}):\n    return np.sum({call} * 1.3)\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"np": np, "scipy": scipy}
    exec(compile(text, filename, "exec"), namespace)
    return namespace["probe"]


def _cases():
    out = []
    for obj, method, _, keywords, _, refused in stats.SHAPED:
        dist = getattr(obj, "name", None)
        if dist is None or dist == "poisson":
            continue
        refused = {p for p, _ in refused}
        for named in (False, True):
            out.append((f"{dist}.{method}-{'named' if named else 'position'}", dist, method,
                        [p for p in keywords if p not in refused], sorted(refused), named))
    return out


CASES = _cases()


def _value(domain, shape, rng):
    low, high = domain
    return float(rng.uniform(low, high)) if shape == () else rng.uniform(low, high, shape)


def _annotated(v):
    return srcad.Active(v) if isinstance(v, float) else srcad.Duplicated(v, np.zeros_like(v))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("shapes", [("float", ()), ("broadcast", (2, 3))],
                         ids=["float", "broadcast"])
def test_distribution_agrees_with_finite_differences_in_every_mode(case, shapes):
    _, dist, method, params, refused, named = case
    rng = np.random.default_rng(len(params))
    constants = {p: 2.0 for p in refused}  # the cdf's shape parameters: constants
    arguments = [_value(_X[dist], shapes[1], rng)]
    names = ["x"]
    for k, p in enumerate(params):  # alternately a row and a float: they broadcast
        shape = (shapes[1][1],) if shapes[1] and k % 2 == 0 else ()
        arguments.append(_value(_DOMAIN[p], shape, rng))
        names.append(p)
    text = (f"scipy.stats.{dist}.{method}(x, "
            + ", ".join([str(constants[p]) for p in refused]
                        + [f"{p}={p}" if named and p in ("loc", "scale") else p
                           for p in params]) + ")")
    check_grads(_probe(text, names), *map(_annotated, arguments), rtol=1e-6)


def test_every_distribution_method_has_cases():
    listed = {(getattr(o, "name", "multivariate_normal"), m) for o, m, *_ in stats.SHAPED}
    assert {(c[1], c[2]) for c in CASES} | {("poisson", "logpmf"), ("poisson", "pmf"),
                                              ("multivariate_normal", "logpdf")} == listed


@pytest.mark.parametrize("method", ["logpmf", "pmf"])
def test_poisson_differentiates_in_mu(method):
    k = np.array([0.0, 2.0, 5.0])
    f = _probe(f"scipy.stats.poisson.{method}(k, mu)", ["k", "mu"])
    check_grads(f, srcad.Const(k), srcad.Duplicated(np.array([0.7, 2.5, 4.0]), np.zeros(3)))
    # d/dmu of k log mu - mu - log k!: k / mu - 1 (times the pmf for pmf)
    mu = np.array([0.7, 2.5, 4.0])
    expected = (k / mu - 1.0) * (scipy.stats.poisson.pmf(k, mu) if method == "pmf" else 1.0)
    np.testing.assert_allclose(srcad.grad(f, argnums=1)(k, mu), 1.3 * expected, rtol=1e-12)


COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, 0.2], [0.1, 0.2, 1.8]])


def mvn_vector(x, mean, cov):
    return scipy.stats.multivariate_normal.logpdf(x, mean, cov)


def mvn_rows(x, mean, cov):
    return np.sum(scipy.stats.multivariate_normal.logpdf(x, mean=mean, cov=cov) * 1.3)


@pytest.mark.parametrize("f, x", [(mvn_vector, np.array([0.4, -1.0, 0.7])),
                                  (mvn_rows, np.array([[0.4, -1.0, 0.7], [1.1, 0.2, -0.3]]))],
                         ids=["vector", "rows"])
def test_multivariate_normal_in_x_mean_and_cov(f, x):
    # cov's perturbations are not symmetric: SciPy reads its lower triangle, and so does srcad
    check_grads(f, *(srcad.Duplicated(v.copy(), np.zeros_like(v))
                     for v in (x, np.array([0.1, 0.2, -0.1]), COV)), rtol=1e-6)


def _jax_pairs():
    jax_stats = pytest.importorskip("jax.scipy.stats")
    pairs = []
    for _, dist, method, params, refused, named in CASES:
        if named or refused or not hasattr(getattr(jax_stats, dist), method):
            continue
        pairs.append((dist, method, params))
    return pairs


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_gradients_agree_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jax_stats = pytest.importorskip("jax.scipy.stats")
    checked = 0
    for dist, method, params in _jax_pairs():
        rng = np.random.default_rng(1)
        values = [_value(_X[dist], (3,), rng)] + [_value(_DOMAIN[p], (3,), rng) for p in params]
        names = ["x"] + params
        f = _probe(f"scipy.stats.{dist}.{method}({', '.join(names)})", names)
        ours = srcad.grad(f, argnums=tuple(range(len(names))))(*values)
        jax_f = getattr(getattr(jax_stats, dist), method)
        theirs = jax.grad(lambda *v, fn=jax_f: 1.3 * jax.numpy.sum(fn(*v)),
                          argnums=tuple(range(len(names))))(*values)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, np.asarray(b), rtol=1e-9, atol=1e-12,
                                       err_msg=f"{dist}.{method}")
        checked += 1
    assert checked >= 10


def gamma_cdf_in_shape(x, a):
    return np.sum(scipy.stats.gamma.cdf(x, a))


def gamma_cdf_constant_shape(x, a):
    return np.sum(scipy.stats.gamma.cdf(x, a))


def test_cdf_in_a_shape_parameter_is_refused_by_name():
    x = np.array([0.5, 1.5])
    with pytest.raises(SrcadError, match=r"scipy.stats.gamma.cdf has no closed-form "
                       r"derivative in its shape parameter `a`") as caught:
        srcad.grad(gamma_cdf_in_shape, argnums=1)(x, 2.0)
    assert "test_stats_rules.py" in str(caught.value)
    # the same call with a constant shape differentiates in x
    expected = scipy.stats.gamma.pdf(x, 2.0)
    np.testing.assert_allclose(srcad.grad(gamma_cdf_constant_shape)(x, 2.0), expected,
                               rtol=1e-12)


@pytest.mark.slow  # numba compiles it (the numba family: tests/rules/test_scans_stats_numba.py)
def test_numba_backend_refuses_the_shape_parameter_of_a_cdf_too():
    x = np.array([0.5, 1.5])
    with pytest.raises(SrcadError, match=r"no closed-form derivative in its shape parameter"):
        srcad.grad(gamma_cdf_in_shape, argnums=1, backend="numba")(x, 2.0)
    np.testing.assert_allclose(srcad.grad(gamma_cdf_constant_shape, backend="numba")(x, 2.0),
                               scipy.stats.gamma.pdf(x, 2.0), rtol=1e-12)


def norm_outside(x):
    return np.sum(scipy.stats.gamma.logpdf(x, 2.0) + scipy.stats.beta.pdf(x, 2.0, 3.0))


def test_outside_the_support_the_derivative_is_zero_as_in_jax():
    x = np.array([-0.5, 1.5])  # gamma: outside at -0.5; beta: outside at 1.5
    g = srcad.grad(norm_outside)(x)
    assert g[0] == 0.0
    assert g[1] == pytest.approx(1.0 / 1.5 - 1.0)
