"""Second-order refusals name the user's lines in the user's words, and suggest another
backend or mode only when srcad has checked that it takes the function: each suggestion is
followed here and works."""

import math

import numpy as np
import pytest
import scipy.linalg
import scipy.special

import srcad
from tests.helpers import linalg_rule_cases as linalg_cases

THIS_FILE = __file__
LINALG_CASES = linalg_cases.CASES


def rhs(z, p):
    return np.array([p[0] * z[0] * z[1], p[1] * z[1]])


def array_state_steps(p):
    z = np.array([1.0, 0.5])
    for _ in range(2):
        z = z + 0.1 * rhs(z, p)
    return np.sum(z * z)


def contracted_steps(p):
    z = np.array([1.0, 0.5])
    for _ in range(2):
        z = z + 0.1 * math.fsum(rhs(z, p)) * z  # math.fsum of an array: refused on numba
    return np.sum(z * z)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_numba_gives_the_hessian_of_whole_array_steps():
    p = np.array([0.7, 1.3])
    np.testing.assert_allclose(srcad.hessian(array_state_steps, p, backend="numba"),
                               srcad.hessian(array_state_steps, p), rtol=1e-12, atol=1e-14)


def test_a_numba_refusal_suggests_the_python_backend_only_as_it_takes_f():
    # numba refuses math.fsum of an array by name; the suggestion is followed, and gives the
    # Hessian
    p = np.array([0.7, 1.3])
    with pytest.raises(srcad.SrcadError) as refused:
        srcad.hessian(contracted_steps, p, backend="numba")
    text = str(refused.value)
    assert "(use backend='python')" in text and "mode=" not in text
    assert all(q.filename == THIS_FILE and q.line is not None for q in refused.value.problems)
    assert "_dot" not in text and "_bar" not in text and "<srcad" not in text
    H = srcad.hessian(contracted_steps, p, backend="python")
    assert H.shape == (2, 2) and np.all(np.isfinite(H))


@srcad.custom_vjp
def stable_softplus(x):
    return np.log1p(np.exp(x))


def stable_softplus_fwd(x):
    return stable_softplus(x), x


def stable_softplus_bwd(x, g):
    return (g * scipy.special.expit(x),)


stable_softplus.defvjp(stable_softplus_fwd, stable_softplus_bwd)


def custom_vjp_loss(w):
    return np.sum(stable_softplus(w * w) * w)


@srcad.custom_vjp
def fixed_point(a):
    x = 0.0
    for _ in range(50):
        x = math.cos(a * x)
    return x


def fixed_point_fwd(a):
    x = fixed_point(a)  # the rule's forward runs the solver: its loop is in the user's file
    return x, (x, a)


def fixed_point_bwd(residuals, g):
    x, a = residuals
    s = math.sin(a * x)
    return (g * (-x * s) / (1.0 + a * s),)


fixed_point.defvjp(fixed_point_fwd, fixed_point_bwd)


def fixed_point_loss(w):
    return fixed_point(w[0]) ** 2 * w[1]


@pytest.mark.parametrize("loss", [custom_vjp_loss, fixed_point_loss])
@pytest.mark.parametrize("options", [{}, {"mode": "reverse-over-forward"},
                                     {"mode": "forward-over-reverse"}])
def test_second_order_through_a_custom_vjp_rule_is_refused_as_jax_refuses_it(options, loss):
    # JAX's hessian is forward over reverse, and forward mode has no rule of a custom_vjp
    # function: srcad says so at the call, and suggests no mode that refuses again
    w = np.array([0.3, -0.7])
    assert np.all(np.isfinite(srcad.grad(loss)(w)))
    with pytest.raises(srcad.SrcadError) as refused:
        srcad.hessian(loss, w, **options)
    text = str(refused.value)
    if options.get("mode") == "forward-over-reverse":
        assert "leave mode= out" not in text  # leaving it out refuses too
    else:
        assert "custom_vjp" in text and "JAX refuses it too" in text
        assert refused.value.line == loss.__code__.co_firstlineno + 1
        assert "<srcad" not in text  # names the user's call, not srcad's code of f
    assert "use reverse mode" not in text and "backend=" not in text


def while_steps(p):
    z = np.array([1.0, 0.5])
    t = 0.0
    while t < 0.25:
        z = z + 0.1 * rhs(z, p)
        t += 0.1
    return np.sum(z * z)


def test_a_mode_asked_for_that_refuses_suggests_leaving_it_out_which_works():
    # forward mode refuses srcad's reverse code of this while loop (shapes popped from a
    # tape); left out, the mode falls back to reverse over forward
    p = np.array([0.7, 1.3])
    with pytest.raises(srcad.SrcadError) as refused:
        srcad.hessian(while_steps, p, mode="forward-over-reverse")
    assert str(refused.value).endswith("(leave mode= out)")
    assert "while_trips" not in str(refused.value) and "_shape" not in str(refused.value)
    H = srcad.hessian(while_steps, p)
    eps = 1e-6
    g = srcad.grad(while_steps)
    differences = np.array([(g(p + eps * e) - g(p - eps * e)) / (2 * eps) for e in np.eye(2)])
    np.testing.assert_allclose(H, differences.T, rtol=1e-6, atol=1e-8)


def eigenvalue_sum(A):
    return np.sum(np.sin(np.linalg.eigvalsh(A)))


def test_second_order_through_a_rule_srcad_cannot_differentiate_names_the_users_call():
    # srcad's eigh rule (a Python function of srcad's) was once inlined as the user's code
    # and refused at srcad's own file
    A = np.array([[2.0, 0.3], [0.3, 1.0]])
    assert np.all(np.isfinite(srcad.grad(eigenvalue_sum)(A)))
    with pytest.raises(srcad.SrcadError) as refused:
        srcad.hessian(eigenvalue_sum, A)
    assert refused.value.filename == THIS_FILE
    assert refused.value.line == eigenvalue_sum.__code__.co_firstlineno + 1
    assert "np.linalg.eigh" in str(refused.value) and "_adjoint" not in str(refused.value)


@pytest.mark.slow
@pytest.mark.parametrize("case", LINALG_CASES, ids=[c["id"] for c in LINALG_CASES])
def test_second_order_of_each_linear_algebra_case_agrees_or_is_refused_at_the_users_line(case):
    f = linalg_cases.function_of(case)
    x, *rest = linalg_cases.arguments(case)
    contexts = [srcad.Constant(a) for a in rest]
    try:
        H = srcad.hessian(f, x, *contexts)
    except srcad.SrcadError as refused:
        assert all(p.filename == f.__code__.co_filename and p.line == 2
                   for p in refused.problems), str(refused)
        return
    eps = 1e-6
    columns = [(srcad.gradient(f, x + eps * e.reshape(x.shape), *contexts)
                - srcad.gradient(f, x - eps * e.reshape(x.shape), *contexts)).ravel() / (2 * eps)
               for e in np.eye(x.size)]
    np.testing.assert_allclose(H, np.array(columns).T, rtol=1e-5, atol=1e-6)
