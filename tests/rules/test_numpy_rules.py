"""The rules of the NumPy families, generated from the rule table
(tests/helpers/numpy_rule_cases.py): each float ufunc x operand shapes that broadcast, each
reduction and scan x its
keywords, x {reverse, forward, vector} on the python backend against central finite differences; the
numba backend on one shape of each (marked slow); JAX's derivative at the points where a
function has none; keywords srcad does not follow refused by name."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import srcad
from srcad.rules import numpy_entries
from srcad.testing import check_grads
from tests.helpers import numpy_rule_cases as cases
from tests.helpers.library_rule_cases import NUMBA_RULE_MODES

jax.config.update("jax_enable_x64", True)

UFUNCS = cases.ufunc_cases()
STEPS = cases.step_cases()
REDUCTIONS = cases.reduction_cases()


def _annotated(values):
    return [srcad.Active(v) if isinstance(v, float)
            else srcad.Duplicated(v.copy(), np.zeros_like(v)) for v in values]


def _check(call, args, **options):
    f = cases.function_of(call, len(args))
    check_grads(f, *_annotated(args), rtol=1e-6, **options)


@pytest.mark.parametrize("case", UFUNCS + STEPS, ids=[c[0] for c in UFUNCS + STEPS])
def test_ufunc_agrees_with_finite_differences_in_every_mode(case):
    _check(case[1], case[2])


@pytest.mark.parametrize("case", REDUCTIONS, ids=[c[0] for c in REDUCTIONS])
def test_reduction_agrees_with_finite_differences_in_every_mode(case):
    _check(case[1], case[2])


def test_every_entry_has_cases():
    assert set(numpy_entries._UFUNCS) <= set(cases.UFUNC_DOMAINS)
    assert {fn.__name__ for fn, _, _ in numpy_entries._REDUCTIONS} <= set(cases.REDUCTION_CALLS)


# -- JAX's derivative where the function has none -----------------------------------------
def _agree(np_f, jax_f, x):
    """Reverse mode as jax.grad, forward mode as jax.jacfwd (they differ where a derivative
    is infinite: 0 * inf in a tangent)."""
    for mode, jax_mode in (("reverse", jax.grad), ("forward", jax.jacfwd)):
        expected = np.asarray(jax_mode(jax_f)(jnp.asarray(x)))
        np.testing.assert_allclose(srcad.gradient(np_f, x.copy(), mode=mode), expected,
                                   rtol=1e-12, atol=0.0, err_msg=mode)


ZEROS = np.array([0.0, 2.0, 3.0, 0.0, -1.5])
TIES = np.array([1.0, 3.0, 3.0, -2.0, 0.0, -2.0])

KINKS = [
    ("prod-one-zero", lambda x: np.prod(x[1:]), lambda x: jnp.prod(x[1:]), ZEROS),
    ("prod-two-zeros", lambda x: np.prod(x), lambda x: jnp.prod(x), ZEROS),
    ("cumprod-zero", lambda x: np.sum(np.cumprod(x) * np.arange(5.0)),
     lambda x: jnp.sum(jnp.cumprod(x) * jnp.arange(5.0)), ZEROS),
    ("ptp-ties", lambda x: np.ptp(x), lambda x: jnp.ptp(x), TIES),
    ("median-ties", lambda x: np.median(x), lambda x: jnp.median(x), TIES),
    ("median-odd-ties", lambda x: np.median(x[:5]), lambda x: jnp.median(x[:5]), TIES),
    ("quantile-ties", lambda x: np.quantile(x, 0.3), lambda x: jnp.quantile(x, 0.3), TIES),
    ("nanmax-ties", lambda x: np.nanmax(x), lambda x: jnp.nanmax(x), TIES),
    ("norm1-zero", lambda x: np.linalg.norm(x, 1), lambda x: jnp.linalg.norm(x, 1), ZEROS),
    ("norminf-ties", lambda x: np.linalg.norm(x, np.inf),
     lambda x: jnp.linalg.norm(x, jnp.inf), TIES),
    ("norm-ninf-ties", lambda x: np.linalg.norm(x, -np.inf),
     lambda x: jnp.linalg.norm(x, -jnp.inf), TIES),
    ("sinc-zero", lambda x: np.sum(np.sinc(x)), lambda x: jnp.sum(jnp.sinc(x)), ZEROS),
    ("cbrt-zero", lambda x: np.sum(np.cbrt(x)), lambda x: jnp.sum(jnp.cbrt(x)), ZEROS),
    ("copysign-zero", lambda x: np.sum(np.copysign(x, -1.0)),
     lambda x: jnp.sum(jnp.copysign(x, -1.0)), ZEROS),
    ("floor", lambda x: np.sum(np.floor(x) * x), lambda x: jnp.sum(jnp.floor(x) * x), TIES),
    ("round", lambda x: np.sum(np.round(x) * x), lambda x: jnp.sum(jnp.round(x) * x), TIES),
]


def std_of_single_rows(x):
    return np.sum(np.std(x[:1], axis=0) * np.arange(1.0, 5.0))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_std_of_a_sample_of_one_element_has_derivative_zero(mode):
    # the std of one element is 0 whatever it holds: its derivative is 0 (central
    # differences say so; JAX gives NaN, as at a constant sample of more, which stays NaN)
    np.testing.assert_array_equal(srcad.gradient(std_of_single_rows, X.copy(), mode=mode),
                                  np.zeros_like(X))


@pytest.mark.parametrize("case", KINKS, ids=[c[0] for c in KINKS])
def test_jax_convention_where_there_is_no_derivative(case):
    _, np_f, jax_f, x = case
    _agree(np_f, jax_f, x)


TWO = [
    ("fmax-tie-nan", lambda z: np.sum(np.fmax(z[0], z[1])),
     lambda z: jnp.sum(jnp.fmax(z[0], z[1]))),
    ("fmin-tie-nan", lambda z: np.sum(np.fmin(z[0], z[1])),
     lambda z: jnp.sum(jnp.fmin(z[0], z[1]))),
    ("heaviside", lambda z: np.sum(np.heaviside(z[0], z[1])),
     lambda z: jnp.sum(jnp.heaviside(z[0], z[1]))),
    ("remainder", lambda z: np.sum(np.remainder(z[0], z[1])),
     lambda z: jnp.sum(jnp.remainder(z[0], z[1]))),
    ("fmod", lambda z: np.sum(np.fmod(z[0], z[1])), lambda z: jnp.sum(jnp.fmod(z[0], z[1]))),
]


@pytest.mark.parametrize("case", TWO, ids=[c[0] for c in TWO])
def test_jax_convention_of_two_operands(case):
    _, np_f, jax_f = case
    z = np.array([[1.0, np.nan, 0.0, -5.3, 4.0, 2.5], [1.0, 2.0, 0.5, 2.0, 2.0, np.nan]])
    if case[0] in ("remainder", "fmod", "heaviside"):  # NaN: JAX's heaviside'(NaN) is 1
        z = z[:, [0, 2, 3, 4]]
    _agree(np_f, jax_f, z)


# -- keywords ------------------------------------------------------------------------------
X = np.random.default_rng(5).standard_normal((3, 4))


def mean_keepdims_by_position(x):
    return np.sum(np.mean(x, 1, None, None, True) * x)


def var_ddof_by_position(x):
    return np.sum(np.var(x, 0, None, None, 1) * np.arange(4.0))


def std_everything_by_name(x):
    return np.sum(np.std(x, keepdims=True, ddof=1, axis=-1) * x)


def test_keywords_by_position_follow_numpy():
    check_grads(mean_keepdims_by_position, srcad.Duplicated(X.copy(), np.zeros_like(X)))
    check_grads(var_ddof_by_position, srcad.Duplicated(X.copy(), np.zeros_like(X)))
    check_grads(std_everything_by_name, srcad.Duplicated(X.copy(), np.zeros_like(X)))
    expected = jax.grad(lambda x: jnp.sum(jnp.var(x, 0, ddof=1) * jnp.arange(4.0)))(X)
    np.testing.assert_allclose(srcad.gradient(var_ddof_by_position, X.copy()), expected,
                               rtol=1e-12)


def add_into(x):
    z = np.zeros(4)
    np.add(x[0], x[1], out=z)
    return np.sum(z)


def var_float32(x):
    return np.var(x, dtype=np.float32)


def quantile_nearest(x):
    return np.quantile(x, 0.5, method="nearest")


def sum_where(x):
    return np.sum(x, where=x > 0.0)


def average_returned(x):
    return np.average(x, weights=x, returned=True)[0]


def exp_order(x):
    return np.sum(np.exp(x, order="F"))


@pytest.mark.parametrize("f, words", [
    (add_into, "`out=` of np.add"), (var_float32, "`dtype=` of np.var"),
    (quantile_nearest, "`method='nearest'` of np.quantile"), (sum_where, "`where=` of np.sum"),
    (average_returned, "`returned=True` of np.average"), (exp_order, "`order=` of np.exp")])
def test_unfollowed_keywords_are_refused_by_name(f, words):
    with pytest.raises(srcad.SrcadError, match=words) as info:
        srcad.gradient(f, X.copy())
    assert "test_numpy_rules.py" in str(info.value)
    assert "pass the arguments by position" not in str(info.value)


SAMPLE_POINTS = np.linspace(0.0, 1.0, 4) ** 2


def trapezoid_at_points(y):
    return np.trapezoid(y, x=SAMPLE_POINTS)


def test_sample_points_of_trapezoid_are_refused_with_what_to_write():
    # the hint said "write x= as a literal", which an array of sample points cannot be
    with pytest.raises(srcad.SrcadError, match="`x=` of trapezoid is an array") as info:
        srcad.gradient(trapezoid_at_points, np.ones(4))
    assert "dx=" in str(info.value) and "as a literal" not in str(info.value)


# -- calls whose values are ints or bools: constants ---------------------------------------
def int_results(x):
    v = x[0]
    k = np.argmax(v) + np.argmin(x, axis=0)[1]
    order = np.argsort(v)
    bins = np.digitize(v, np.array([-0.5, 0.5]))
    where = np.searchsorted(np.array([-1.0, 0.0, 1.0]), v)
    close = np.isclose(x, x[0])
    return v[k % 4] * np.sum(v[order] * np.arange(4.0)) + np.sum(bins * v + where * v) \
        + np.sum(close * x)


def test_int_and_bool_results_are_constants():
    check_grads(int_results, srcad.Duplicated(X.copy(), np.zeros_like(X)))


# -- numba ----------------------------------------------------------------------------------
NUMBA_UFUNCS = [c for c in UFUNCS if c[0].endswith("-(2, 3)") or c[0].endswith("-(2, 3)-(3,)")]


@pytest.mark.slow
@pytest.mark.parametrize("case", NUMBA_UFUNCS, ids=[c[0] for c in NUMBA_UFUNCS])
def test_ufunc_on_numba(case):
    _check(case[1], case[2], backend="numba", modes=NUMBA_RULE_MODES)


# the reductions along axes numba lacks (srcad/runtime/numba_statistics.py,
# numba_quantiles.py): every case of each
NUMBA_REDUCTIONS = [c for c in REDUCTIONS if c[0].rsplit("-", 1)[0] in
                    {*numpy_entries.NUMBA_STATISTICS, "median", "quantile", "percentile"}]
# np.linalg.norm with a number ord= (numba's own norm): no axis=, no 'fro' or 'nuc'
NUMBA_REDUCTIONS += [c for c in REDUCTIONS if c[0].startswith("norm-")
                     and "axis" not in c[1] and "'" not in c[1]]
# the scans and np.average: tests/rules/test_scans_stats_numba.py


@pytest.mark.slow
@pytest.mark.parametrize("case", NUMBA_REDUCTIONS, ids=[c[0] for c in NUMBA_REDUCTIONS])
def test_reduction_on_numba(case):
    _check(case[1], case[2], backend="numba", modes=NUMBA_RULE_MODES)


def variance_of_columns(x):
    return np.sum(np.var(x, axis=0, ddof=1) * np.arange(4.0))


def test_a_reduction_along_an_axis_runs_on_numba():
    expected = jax.grad(lambda x: jnp.sum(jnp.var(x, 0, ddof=1) * jnp.arange(4.0)))(X)
    np.testing.assert_allclose(srcad.gradient(variance_of_columns, X.copy(), backend="numba"),
                               expected, rtol=1e-12)


def norm_along_rows(x):
    return np.sum(np.linalg.norm(x, 1, axis=-1) ** 2)


def heaviside_step(x):
    return np.sum(np.heaviside(x[0], x[1]))


def test_numba_refuses_the_reductions_it_lacks_by_name():
    with pytest.raises(srcad.SrcadError, match=r"`np.linalg.norm\(x, 1, axis=-1\)`.*numba"):
        srcad.gradient(norm_along_rows, X.copy(), backend="numba")


@pytest.mark.slow  # numba compiles
def test_heaviside_compiles_on_numba_with_its_convention_at_zero():
    # numba has no np.heaviside (srcad/runtime/numba_arrays.py's array_heaviside): at
    # x == 0 the derivative in h0 is 1, elsewhere 0; none in x
    x = X.copy()
    x[0, :2] = 0.0
    expected = np.zeros_like(x)
    expected[1, :2] = 1.0
    np.testing.assert_array_equal(srcad.gradient(heaviside_step, x, backend="numba"), expected)


def test_the_docs_page_names_every_entry():
    import re
    from pathlib import Path
    page = (Path(__file__).resolve().parents[2] / "docs" / "numpy_functions.md").read_text()
    words = set(re.findall(r"\w+", page))
    names = set(numpy_entries._UFUNCS) | set(numpy_entries._STEPS) \
        | set(numpy_entries.INTEGER_CALLS) | {fn.__name__ for fn, _, _ in numpy_entries._REDUCTIONS}
    assert names <= words, names - words


def product_of_a_list(x):
    return np.prod([x[0], x[1]])


def test_a_list_written_out_is_the_array_numpy_makes_not_a_constant():
    # the fence lets `prod([...])` through (for math.prod); np.prod's rule must not see a
    # constant there (its gradient was silently zero): the list is the array NumPy makes of it
    for mode in ("reverse", "forward"):
        assert srcad.gradient(product_of_a_list, np.array([2.0, 3.0]),
                              mode=mode).tolist() == [3.0, 2.0]
    assert srcad.gradient(lambda x: np.prod(np.array([x[0], x[1]])),
                          np.array([2.0, 3.0])).tolist() == [3.0, 2.0]


def floor_divisions(x, y):
    return np.sum(x * (x // y) + y * np.floor_divide(x, 0.7) + x % y)


def test_floor_division_has_no_derivative_and_mod_has_jax_s():
    x = np.array([[2.3, -1.1, 0.4], [1.7, 2.9, -2.2]])
    y = np.array([0.8, 1.3, 0.9])
    check_grads(floor_divisions, srcad.Duplicated(x.copy(), np.zeros_like(x)),
                srcad.Duplicated(y.copy(), np.zeros_like(y)))
