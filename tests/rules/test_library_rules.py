"""The rules of the library families, generated from the rule table: each function x operand
shapes that broadcast x {reverse, forward, vector} on the python backend, against central
finite differences (srcad.testing.check_grads); math's family on the numba backend too,
including what numba lacks (srcad/runtime/numba_math.py). The scipy.special family's numba
column: tests/rules/test_special_numba.py."""

import math
import statistics

import numpy as np
import pytest
import scipy.special

import srcad
from srcad.rules import special
from srcad.testing import check_grads
from tests.helpers import library_rule_cases as cases

ELEMENTWISE = cases.elementwise_cases()


def _annotated(values):
    return [v if isinstance(v, int) else srcad.Active(v) if isinstance(v, float)
            else srcad.Duplicated(v, np.zeros_like(v)) for v in values]


@pytest.mark.parametrize("case", ELEMENTWISE, ids=[c[0] for c in ELEMENTWISE])
def test_rule_agrees_with_finite_differences_in_every_mode(case):
    _, name, entry, shapes = case
    f = cases.function_of(cases.call_text(name, entry), len(entry.domain))
    check_grads(f, *_annotated(cases.arguments(entry, shapes)), rtol=1e-6)


def test_every_family_entry_has_cases():
    names = {c[1] for c in ELEMENTWISE}
    assert {f"scipy.special.{e.rule.name}" for e in special.ENTRIES} <= names
    assert {"math.lgamma", "math.gamma", "math.log2", "math.fmod"} <= names


X = np.array([[0.5, 1.2, 2.0], [1.5, 0.7, -0.9]])
W = np.array([[1.0, 2.0, 0.5], [0.3, 1.0, 2.0]])


def lse_axis(x):
    return np.sum(scipy.special.logsumexp(x, axis=1) ** 2)


def lse_all_b(x, w):
    return scipy.special.logsumexp(x, b=w)


def lse_keepdims_negative_axis(x):
    return np.sum(scipy.special.logsumexp(x, axis=-1, b=np.array([1.0, 2.0, 0.5]),
                                          keepdims=True) * X)


def lse_tuple_axis(x):
    return scipy.special.logsumexp(x, (0, 1)) * 2.0


def softmax_axis(x):
    return np.sum(scipy.special.softmax(x, axis=0) * W)


def softmax_all(x):
    return np.sum(scipy.special.softmax(x) * W)


def log_softmax_axis(x):
    return np.sum(scipy.special.log_softmax(x, axis=1) * W)


def log_softmax_all(x):
    return np.sum(scipy.special.log_softmax(x) * W)


SHAPED = [lse_axis, lse_keepdims_negative_axis, lse_tuple_axis, softmax_axis, softmax_all,
          log_softmax_axis, log_softmax_all]


@pytest.mark.parametrize("f", SHAPED, ids=[f.__name__ for f in SHAPED])
def test_reductions_of_the_family_in_every_mode(f):
    check_grads(f, srcad.Duplicated(X.copy(), np.zeros_like(X)))


def test_logsumexp_weights_carry_a_derivative():
    check_grads(lse_all_b, srcad.Duplicated(X.copy(), np.zeros_like(X)),
                srcad.Duplicated(W.copy(), np.zeros_like(W)))


def test_logsumexp_gradient_is_the_softmax():
    got = srcad.gradient(lse_all_b, X, srcad.Constant(W))
    expected = W * np.exp(X) / np.sum(W * np.exp(X))
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def sequences(x):
    return math.fsum([x, x * x, 2.0]) + math.prod([x, x, 3.0]) + statistics.fmean([x, 2.0 * x])


def log_with_base(x):
    return math.log(x, 3.0) + math.log(2.0 + x * x, x)


@pytest.mark.parametrize("f", [sequences, log_with_base], ids=["fsum-prod-fmean", "log-base"])
def test_math_calls_of_several_arguments(f):
    check_grads(f, srcad.Active(1.3))


def test_prod_with_a_zero_item_has_the_product_of_the_others():
    assert srcad.gradient(lambda x: math.prod([x, 0.0 * x, 3.0]) + math.prod([x, 2.0]),
                          1.5) == 2.0


def test_a_call_on_constants_needs_no_rule_on_numba():
    def f(x):
        return x * scipy.special.gammaln(2.5)
    assert srcad.gradient(f, 1.5, backend="numba") == pytest.approx(scipy.special.gammaln(2.5))


def math_family(x):
    return (math.log2(x) + math.log10(x) + math.exp2(x) + math.asinh(x)
            + math.acosh(x + 1.0) + math.atanh(x / 4.0) + math.degrees(x) + math.radians(x)
            + math.ldexp(x, 3) + math.log(x))


def test_math_family_on_numba():
    check_grads(math_family, srcad.Active(1.3), backend="numba", modes=("rev", "fwd"))


def cube_root(x):
    return math.cbrt(x) * x


def log_base_three(x):
    return math.log(x, 3.0)


def math_numba_lacks(x):
    y = x * 1.0  # computed: the calls run in the compiled code
    return (math.cbrt(y) * y + math.log(y, 3.0) + math.hypot(y, 2.0 * y + 1.0, 0.5)
            + math.hypot(y - 2.0) * y
            + math.fmod(3.0 * y, 1.1) + math.remainder(2.0 * y, 1.3)
            + math.fsum([y, y * y, 2.0]) + math.prod([y, y, 3.0]) + statistics.fmean([y, 2.0 * y]))


@pytest.mark.slow
def test_math_functions_numba_lacks_run_on_numba():
    check_grads(math_numba_lacks, srcad.Active(1.45), backend="numba", modes=("rev", "fwd"))


@pytest.mark.slow
def test_math_on_numba_gives_pythons_values():
    value, _ = srcad.value_and_gradient(math_numba_lacks, 1.45, backend="numba")
    assert value == pytest.approx(math_numba_lacks(1.45), rel=1e-15)


def test_return_sign_is_refused():
    def f(x):
        return np.sum(scipy.special.logsumexp(x, return_sign=True)[0])
    with pytest.raises(srcad.SrcadError):
        srcad.gradient(f, np.array([1.0, 2.0]))


def fsum_of_an_array(x):
    return math.fsum(x) * x[0]


def fsum_of_a_constant(x, c):
    return math.fsum(c) * x


def test_fsum_of_an_array_is_its_sum_and_of_a_constant_needs_no_rule():
    # d/dx (fsum(x) x0) = (x0 + fsum(x), x0): (1 + 3, 1) at (1, 2)
    np.testing.assert_allclose(srcad.gradient(fsum_of_an_array, np.array([1.0, 2.0])),
                               [4.0, 1.0], rtol=1e-15)
    assert srcad.gradient(fsum_of_a_constant, 2.0, srcad.Constant(np.array([1.0, 2.5]))) == 3.5


def truncated(x):
    return x * math.trunc(x)


def test_math_trunc_is_an_int_without_derivative():
    assert srcad.gradient(truncated, 2.5) == 2.0
    assert srcad.gradient(truncated, 2.5, mode="forward") == 2.0


def hypot_of_three(x):
    return math.hypot(x, 2.0 * x + 1.0, 0.5) * x


def test_math_hypot_of_any_number_of_coordinates():
    check_grads(hypot_of_three, srcad.Active(0.7))


def bessel_in_order(v, x):
    return scipy.special.iv(v, x) + scipy.special.ive(0.5 * v, x)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_bessel_order_that_carries_a_derivative_is_refused(backend):
    # d/dv I_v(x) is not 0 (central differences: -0.926 at v = 1.5, x = 2); srcad has no
    # rule for it, so it refuses rather than take it as 0
    with pytest.raises(srcad.SrcadError, match="in its order v"):
        srcad.grad(bessel_in_order, argnums=0, backend=backend)(1.5, 2.0)
    # a constant order: the derivative in x, against central differences
    got = srcad.grad(bessel_in_order, argnums=1, backend=backend)(1.5, 2.0)
    h = 1e-6
    assert got == pytest.approx((bessel_in_order(1.5, 2.0 + h)
                                 - bessel_in_order(1.5, 2.0 - h)) / (2 * h), rel=1e-7)
