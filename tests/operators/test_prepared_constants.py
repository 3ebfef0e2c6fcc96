"""Prepared operators and the arguments they are given: an int Constant a preparation's
output shape may depend on is part of it (another value is refused, never the old shape); an
arithmetic error of derivative code is one error everywhere; f receives a NumPy float as it
was given; derivatives have their input's float dtype (JAX's rule); refusals name what the
user wrote (srcad/operators/preparation.py, srcad/operators/operator_results.py,
srcad/build/plans.py). """

import math

import numpy as np
import pytest

import srcad
from srcad import Constant, PreparationMismatchError
from srcad.errors import SrcadError


def head_squared(x, n):
    return x[:n] ** 2 * 3.0


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("other", [1, 3])
def test_prepared_jacobian_refuses_another_int_constant(mode, other):
    x = np.arange(1.0, 5.0)
    prep = srcad.prepare_jacobian(head_squared, x, Constant(2), mode=mode)
    J = srcad.jacobian(head_squared, x, Constant(2), prep=prep)
    np.testing.assert_allclose(J, np.diag(6.0 * x)[:2])
    with pytest.raises(PreparationMismatchError, match=f"int 2, got int {other}"):
        srcad.jacobian(head_squared, x, Constant(other), prep=prep)
    # the preparation still serves the value it was made with
    np.testing.assert_allclose(srcad.jacobian(head_squared, x, Constant(2), prep=prep), J)


def test_prepared_pushforward_refuses_another_int_constant():
    x = np.arange(1.0, 5.0)
    prep = srcad.prepare_pushforward(head_squared, x, Constant(2), tangent=np.ones(4))
    srcad.pushforward(head_squared, x, Constant(2), tangent=np.ones(4), prep=prep)
    with pytest.raises(PreparationMismatchError):
        srcad.pushforward(head_squared, x, Constant(3), tangent=np.ones(4), prep=prep)


def repeated(x, n):
    s = 0.0
    for _ in range(n):
        s += np.sum(x ** 2)
    return s


def test_prepared_gradient_follows_a_new_loop_count():
    x = np.arange(1.0, 4.0)
    prep = srcad.prepare_gradient(repeated, x, Constant(2))
    np.testing.assert_allclose(srcad.gradient(repeated, x, Constant(2), prep=prep), 4.0 * x)
    np.testing.assert_allclose(srcad.gradient(repeated, x, Constant(3), prep=prep), 6.0 * x)


def root_sum(x):
    s = 0.0
    for i in range(len(x)):
        s += math.sqrt(x[i])
    return s


def _non_finite(call):
    with pytest.raises(SrcadError, match="non-finite derivative") as caught:
        call()
    return caught.value


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_sqrt_at_zero_is_one_error_everywhere(backend):
    x = np.array([0.0, 1.0])
    _non_finite(lambda: srcad.grad(root_sum, backend=backend)(x))
    _non_finite(lambda: srcad.gradient(root_sum, x, backend=backend))
    prep = srcad.prepare_gradient(root_sum, np.array([1.0, 1.0]), backend=backend)
    _non_finite(lambda: srcad.gradient(root_sum, x, prep=prep))
    _non_finite(lambda: srcad.gradient(root_sum, x, prep=prep))  # the fast path


def log_first(x):
    return math.log(x[0]) + x[1]


def test_an_error_f_raises_itself_passes_as_it_is():
    with pytest.raises(ValueError, match="math domain error"):
        srcad.gradient(log_first, np.array([-1.0, 1.0]))


def by_rank(x):
    return x * 3.0 if x.ndim == 0 else np.sum(x)


@pytest.mark.parametrize("call", [
    lambda: srcad.grad(by_rank)(np.float64(2.0)),
    lambda: srcad.jacfwd(by_rank)(np.float64(2.0)),
    lambda: srcad.jacrev(by_rank)(np.float64(2.0)),
    lambda: srcad.value_and_grad(by_rank)(np.float64(2.0))[1],
    lambda: srcad.gradient(by_rank, np.float64(2.0)),
    lambda: srcad.derivative(by_rank, np.float64(2.0)),
    lambda: srcad.autodiff(srcad.Reverse, by_rank, srcad.Active(np.float64(2.0)))[0],
], ids=["grad", "jacfwd", "jacrev", "value_and_grad", "gradient", "derivative", "autodiff"])
def test_a_numpy_float_reaches_f_as_a_numpy_float(call):
    assert call() == pytest.approx(3.0)


def cubes(x):
    return np.sum(x ** 3)


def cubed(x):
    return x ** 3


X32 = np.array([1.0, 2.0], dtype=np.float32)
T32 = np.ones(2, dtype=np.float32)


@pytest.mark.parametrize("call, expected", [
    (lambda: srcad.grad(cubes)(X32), 3 * X32 ** 2),
    (lambda: srcad.jacfwd(cubes)(X32), 3 * X32 ** 2),
    (lambda: srcad.jacrev(cubes)(X32), 3 * X32 ** 2),
    (lambda: srcad.jacfwd(cubed)(X32), np.diag(3 * X32 ** 2)),
    (lambda: srcad.jacrev(cubed)(X32), np.diag(3 * X32 ** 2)),
    (lambda: srcad.hessian(cubes)(X32), np.diag(6 * X32)),
    (lambda: srcad.gradient(cubes, X32), 3 * X32 ** 2),
    (lambda: srcad.gradient(cubes, X32, mode="forward"), 3 * X32 ** 2),
    (lambda: srcad.jacobian(cubed, X32), np.diag(3 * X32 ** 2)),
    (lambda: srcad.jacobian(cubed, X32, mode="reverse"), np.diag(3 * X32 ** 2)),
    (lambda: srcad.hessian(cubes, X32), np.diag(6 * X32)),
    (lambda: srcad.hvp(cubes, X32, tangent=T32), 6 * X32),
    (lambda: srcad.value_and_jacobian(cubed, X32)[1], np.diag(3 * X32 ** 2)),
    (lambda: srcad.grad(cubed)(np.float32(2.0)), 12.0),
    (lambda: srcad.jacfwd(cubed)(np.float32(2.0)), 12.0),
    (lambda: srcad.gradient(cubed, np.float32(2.0)), 12.0),
], ids=["grad", "jacfwd", "jacrev", "jacfwd vector", "jacrev vector", "hessian transform",
        "gradient", "gradient forward", "jacobian", "jacobian reverse", "hessian", "hvp",
        "value_and_jacobian", "grad scalar", "jacfwd scalar", "gradient scalar"])
def test_float32_in_float32_out(call, expected):
    got = call()
    assert np.asarray(got).dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@pytest.mark.parametrize("operator", ["gradient", "jacobian"])
def test_prepared_float32_in_float32_out(operator):
    f = cubes if operator == "gradient" else cubed
    prep = getattr(srcad, f"prepare_{operator}")(f, X32)
    for _ in range(2):  # the checked call, then the whole-call fast path
        assert getattr(srcad, operator)(f, X32, prep=prep).dtype == np.float32


def poly(x, cs=(1.0, 2.0, 3.0)):
    return cs[0] * x + np.sum(cs)


def real_part(x):
    xs = [x, 2.0 * x]
    return xs[0].real


def test_a_helpers_tuple_default_reads_as_an_array():
    # its refusal named srcad's `poly_cs_default`; the default is now read as the array
    assert srcad.grad(lambda x: poly(x))(0.5) == pytest.approx(1.0)


@pytest.mark.parametrize("f, spelled, hidden", [
    (real_part, "`xs[0].real`", "xs_0"),
], ids=["list element"])
def test_refusals_name_what_the_user_wrote(f, spelled, hidden):
    with pytest.raises(SrcadError) as caught:
        srcad.grad(f)(0.5)
    assert spelled in str(caught.value) and hidden not in str(caught.value)


def shaped_by_x(x):
    return np.sum(np.full(x.shape, 3.0) * x)


@pytest.mark.parametrize("call", [
    lambda: srcad.hessian(shaped_by_x, np.float64(2.0)),
    lambda: srcad.second_derivative(shaped_by_x, np.float64(2.0)),
    lambda: srcad.hessian(shaped_by_x)(np.float64(2.0)),
], ids=["hessian", "second_derivative", "hessian transform"])
def test_a_refusal_in_f_of_a_float_names_f_not_the_wrapper(call):
    with pytest.raises(SrcadError) as caught:
        call()
    assert "srcad wrapper" not in str(caught.value) and "_of_array" not in str(caught.value)
    assert caught.value.filename == __file__


def star_of_a_float(x):
    return math.hypot(*(x, 2 * x + 1))


def adds_its_rank(x):
    return x ** 3 + x.ndim


@pytest.mark.parametrize("call", [
    lambda: srcad.hessian(star_of_a_float, 0.3),
    lambda: srcad.second_derivative(star_of_a_float, 0.3),
    lambda: srcad.hessian(adds_its_rank, np.float64(0.8)),
    lambda: srcad.second_derivative(adds_its_rank, np.float64(0.8)),
], ids=["starred hessian", "starred second_derivative", "rank hessian", "rank second"])
def test_a_refusal_of_f_of_a_float_tells_no_call_of_srcads_and_no_name_of_its(call):
    # "called from star_of_a_float_of_array at <srcad wrapper ...>", "`f(arg0[0])`" were
    # part of these refusals: srcad's wrapper of an f of a float, not the user's code
    with pytest.raises(SrcadError) as caught:
        call()
    text = str(caught.value)
    assert caught.value.filename == __file__ or f"{__file__}:" in text
    for internal in ("srcad wrapper", "_of_array", "arg0", "called from"):
        assert internal not in text


def nan_mean_of_a_pair(x):
    return np.nanmean((x, x + 2))


def test_a_second_order_refusal_of_f_of_a_float_is_at_a_line_of_f():
    # it was put at line 2 of the user's file: the line of srcad's wrapper `return f(arg0[0])`
    with pytest.raises(SrcadError) as caught:
        srcad.hessian(nan_mean_of_a_pair, 0.3)
    first = nan_mean_of_a_pair.__code__.co_firstlineno
    assert f"{__file__}:" in str(caught.value)
    assert caught.value.problems[0].line in (first, first + 1)
