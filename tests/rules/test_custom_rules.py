"""srcad.custom_jvp and srcad.custom_vjp: rules users add, in every mode on the python
backend, refused by name where they cannot run, and checked by srcad.testing.check_rule."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.special

import srcad
from srcad.testing import check_grads, check_rule
from tests.helpers import custom_rule_models as m

ROOT = Path(__file__).resolve().parents[2]

X = np.array([0.5, -1.0, 3.0])


def _expected_softplus_gradient(x):
    return 2.0 * scipy.special.expit(2.0 * x) * x + np.log1p(np.exp(2.0 * x))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_custom_jvp_rule_gives_the_gradient(mode):
    got = srcad.gradient(m.uses_softplus, X, mode=mode)
    np.testing.assert_allclose(got, _expected_softplus_gradient(X), rtol=1e-13)


def test_custom_jvp_in_every_mode_against_finite_differences():
    check_grads(m.uses_softplus, srcad.Duplicated(X, np.zeros(3)))
    check_grads(m.uses_softplus_scalar, srcad.Active(0.3))
    check_grads(m.uses_scaled, srcad.Duplicated(X, np.zeros(3)), srcad.Active(1.5))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_the_rule_not_the_body_is_differentiated(mode):
    # the body is x (slope 1), the rule says 2
    assert srcad.gradient(m.uses_doubled, 1.25, mode=mode) == 6.0


def test_vector_mode_uses_the_rule():
    jac = srcad.jacfwd(lambda x: m.doubled_slope(x) * 3.0)(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(jac, 6.0 * np.eye(2))


def test_custom_function_differentiated_itself():
    assert srcad.grad(m.softplus)(0.3) == pytest.approx(scipy.special.expit(0.3), rel=1e-15)
    assert srcad.grad(m.doubled_slope)(0.3) == 2.0


def test_generated_code_calls_the_rule_by_name():
    seed = srcad.Duplicated(X, np.zeros(3))
    # forward mode calls the rule's tangent map of the argument (the rule, the other
    # tangents zero): plain Python, which second order differentiates again
    assert "srcad_rule_softplus_jvp_tangent_map_0(" in srcad.source(m.uses_softplus,
                                                                     srcad.Forward, seed)
    assert "srcad_rule_softplus_jvp_transposed(" in srcad.source(m.uses_softplus,
                                                                   srcad.Reverse, seed)


def test_custom_vjp_implicit_derivative():
    # d/da of 3 sqrt(a^2) = 3 for a > 0, by the rule (bwd), not through Newton's iterations
    assert srcad.gradient(m.uses_square_root, 2.0) == pytest.approx(3.0, rel=1e-14)
    check_rule(m.square_root, 4.0, 1.0)


def test_custom_vjp_forward_mode_is_refused_by_name():
    with pytest.raises(srcad.SrcadError, match=r"`square_root` has a reverse-mode rule only") \
            as info:
        srcad.gradient(m.uses_square_root, 2.0, mode="forward")
    assert "custom_rule_models.py" in str(info.value)


def test_wrapped_library_function_gives_every_call_its_rule():
    x = np.array([0.5, 1.5])
    expected = -scipy.special.k1(x) * x + scipy.special.k0(x)
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(srcad.gradient(m.uses_k0, x, mode=mode), expected,
                                   rtol=1e-13)
    check_rule(scipy.special.k0, x)


def test_check_rule_accepts_a_right_rule_in_each_mode():
    check_rule(m.softplus, 0.7)
    check_rule(m.softplus, np.array([0.7, -2.0]))
    check_rule(m.scaled, np.array([0.7, -2.0]), 1.5)


def test_check_rule_catches_a_wrong_rule():
    with pytest.raises(AssertionError, match="disagrees with finite differences"):
        check_rule(m.wrong_square, 0.7)


@pytest.mark.slow
def test_custom_rules_run_on_numba_in_every_mode():
    x = np.array([0.5, -1.0, 2.0])
    check_grads(m.softplus_in_a_loop, srcad.Duplicated(x.copy(), np.zeros(3)), backend="numba")
    check_grads(m.square_root_in_a_loop, srcad.Active(1.3), modes=("rev",), backend="numba")


def test_the_rule_is_what_numba_runs():
    assert srcad.gradient(m.doubled_in_a_loop, 1.5, backend="numba") == 6.0


@pytest.mark.slow
def test_custom_rules_of_arrays_on_numba():
    x = np.array([0.5, -1.0, 2.0])
    check_grads(m.uses_scaled, srcad.Duplicated(x.copy(), np.zeros(3)), srcad.Active(0.7),
                backend="numba", modes=("fwd", "vec"))
    with pytest.raises(srcad.SrcadError, match=r"the reverse mode of `scaled` \(srcad.custom_jvp"
                       r"\) of arrays transposes its jvp rule in Python") as info:
        srcad.gradient(m.uses_scaled_of_computed, x, srcad.Constant(0.7), backend="numba")
    assert "custom_rule_models.py" in str(info.value)


def test_numba_refuses_a_rule_of_a_function_that_is_not_python():
    with pytest.raises(srcad.SrcadError, match=r"numba compiles the functions of a derivative "
                       r"rule \(srcad.custom_jvp\) when they are plain Python functions; `k0` "
                       r"is not"):
        srcad.gradient(m.uses_k0, np.array([0.5, 1.5]), backend="numba")


_LIBRARY_RULE_ON_NUMBA = """
import numpy as np, scipy.special, srcad
i0 = srcad.custom_jvp(scipy.special.i0)

@i0.defjvp
def i0_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return scipy.special.i0(x), 2.0 * t * scipy.special.i1(x)  # twice I1: the rule is used

def of_float(x):
    return scipy.special.i0(x) * x

def of_array(x):
    return np.sum(scipy.special.i0(x) * x)

x = np.array([0.5, 1.5, 3.0])
want = 2.0 * scipy.special.i1(x) * x + scipy.special.i0(x)
for mode in ("reverse", "forward"):
    assert np.isclose(srcad.gradient(of_float, 1.5, mode=mode, backend="numba"), want[1])
assert np.allclose(srcad.gradient(of_array, x, mode="forward", backend="numba"), want)
"""


@pytest.mark.slow  # numba compiles, in a process of its own (the rule holds process-wide)
def test_a_rule_for_a_special_function_numba_is_given_runs_on_numba(tmp_path):
    # scipy.special.i0 is no Python function, but srcad gives numba one
    # (srcad/runtime/numba_special.py): numba compiles the call and the rule
    script = tmp_path / "library_rule_on_numba.py"
    script.write_text(_LIBRARY_RULE_ON_NUMBA)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr


def test_second_derivative_through_a_custom_jvp_differentiates_the_rule():
    # (softplus(x) x)'' = 2 s'(x) + x s''(x), s' = expit from the rule, s'' = expit (1 - expit)
    x = 0.3
    s1 = scipy.special.expit(x)
    want = 2.0 * s1 + x * s1 * (1.0 - s1)
    assert srcad.hessian(m.uses_softplus_scalar)(x) == pytest.approx(want, rel=1e-12)
    # the rule is what srcad differentiates, not the function: doubled_slope(x) = x with the
    # slope 2, so (doubled_slope(x) x)'' is 2 + 2, not 2
    def times_itself(x):
        return m.doubled_slope(x) * x
    assert srcad.hessian(times_itself)(0.7) == pytest.approx(4.0, rel=1e-12)


def test_custom_functions_in_loops_and_helpers():
    x = np.array([0.5, -1.0, 2.0])
    check_grads(m.softplus_in_a_loop, srcad.Duplicated(x.copy(), np.zeros(3)))
    check_grads(m.through_a_helper, srcad.Duplicated(x.copy(), np.zeros(3)))
    check_grads(m.square_root_in_a_loop, srcad.Active(1.3), modes=("rev",))
    with pytest.raises(srcad.SrcadError, match="`square_root` has a reverse-mode rule only"):
        srcad.jacfwd(m.square_root_in_a_loop)(1.3)


_USER_RULE_FIRST = """
import numpy as np, scipy.special, srcad
scaled = srcad.custom_jvp(scipy.special.i0)   # before srcad has loaded scipy.special's rules

@scaled.defjvp
def _(primals, tangents):  # a rule of the user's choosing: 3 * I1, not I1
    (x,), (t,) = primals, tangents
    return scipy.special.i0(x), 3.0 * t * scipy.special.i1(x)

def f(x):
    return scipy.special.i0(x) + scipy.special.i1(x)   # i1: srcad's own rule

i1 = 0.5 * (scipy.special.i0(0.5) + scipy.special.iv(2, 0.5))
for mode in ("reverse", "forward"):
    assert np.isclose(srcad.gradient(f, 0.5, mode=mode), 3.0 * scipy.special.i1(0.5) + i1)
"""


def test_a_users_rule_for_a_library_function_holds_over_srcads_own(tmp_path):
    # srcad loads its scipy.special rules the first time a call misses, here after the
    # user gave i0 a rule: the user's rule is the one used, in every mode
    script = tmp_path / "user_rule_first.py"
    script.write_text(_USER_RULE_FIRST)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
