"""A run of a nested gradient's adjoints in numba code (the adjoint of each differentiated
operand, in a row, same operands and seed) becomes one kernel call returning them all
(srcad/operators/nested_adjoint_runs.py): one forward-over-reverse pass instead of one per
operand. The rewrite is checked on trees (fast) and, compiled, against central differences
of the primal, every adjoint of the run (slow)."""

import math

import gast
import numpy as np
import pytest

import srcad
from srcad.build.codegen import to_source
from srcad.operators.nested_adjoint_runs import shared_adjoint_runs


def rewritten(source):
    tree = gast.parse(source)
    return shared_adjoint_runs(tree), to_source(tree)


def test_a_run_of_adjoints_with_the_same_operands_is_one_call():
    runs, code = rewritten(
        "def f(x, p, g_bar, x_bar, p_bar):\n"
        "    a_bar = np.zeros_like(x)\n"
        "    a_bar += srcad_nested_adjoint_3_0(x, p, g_bar)\n"
        "    p_bar += unshared(p_bar, srcad_nested_adjoint_3_1(x, p, g_bar))\n")
    assert runs == [(3, (0, 1))]
    assert code.count("srcad_nested_adjoints_3_0_1(x, p, g_bar)") == 1
    assert "srcad_nested_adjoint_3" not in code
    assert "a_bar += srcad_adjoints_1[0]" in code
    assert "unshared(p_bar, srcad_adjoints_1[1])" in code


@pytest.mark.parametrize("source", [
    # other operands
    "    x_bar += srcad_nested_adjoint_3_0(x, p, g_bar)\n"
    "    p_bar += srcad_nested_adjoint_3_1(x, q, g_bar)\n",
    # the first statement writes the seed the second reads
    "    g_bar += srcad_nested_adjoint_3_0(x, p, g_bar)\n"
    "    p_bar += srcad_nested_adjoint_3_1(x, p, g_bar)\n",
    # the first statement writes an array that may be a view of an operand
    "    v_bar = g_bar[0]\n"
    "    v_bar += srcad_nested_adjoint_3_0(x, p, g_bar)\n"
    "    p_bar += srcad_nested_adjoint_3_1(x, p, g_bar)\n",
    # not adjacent
    "    x_bar += srcad_nested_adjoint_3_0(x, p, g_bar)\n"
    "    p = p + 1.0\n"
    "    p_bar += srcad_nested_adjoint_3_1(x, p, g_bar)\n",
    # the same operand twice, other tokens
    "    x_bar += srcad_nested_adjoint_3_0(x, p, g_bar)\n"
    "    x_bar += srcad_nested_adjoint_3_0(x, p, g_bar)\n"
    "    p_bar += srcad_nested_adjoint_4_1(x, p, g_bar)\n",
], ids=["operands", "seed-written", "view-written", "apart", "same-operand"])
def test_adjoints_that_may_differ_keep_their_own_calls(source):
    runs, code = rewritten("def f(x, p, q, g_bar, x_bar, p_bar):\n" + source)
    assert runs == []
    assert "srcad_nested_adjoints_" not in code


def potential(v, p):
    s = 0.0
    for i in range(len(v)):
        s += p * v[i] ** 3 + math.sin(v[i] * p)
    return s


def slope_energy(v, p):
    d = srcad.grad(potential)(v, p)
    t = 0.0
    for i in range(len(d)):
        t += d[i] * d[i] * p
    return t


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_every_adjoint_of_a_run_matches_central_differences_on_numba():
    pytest.importorskip("numba")
    v, p = np.array([0.4, -1.1, 0.9]), 0.8
    source = srcad.source(slope_energy, srcad.Reverse, srcad.Duplicated(v, np.zeros(3)),
                          srcad.Active(p), backend="numba")
    assert "srcad_nested_adjoints_" in source and "srcad_nested_adjoint_" not in source
    v_bar = np.zeros(3)
    (_, p_bar) = srcad.autodiff(srcad.Reverse, slope_energy, srcad.Duplicated(v, v_bar),
                                srcad.Active(p), backend="numba")
    h = 1e-6
    want_v = [(slope_energy(v + h * e, p) - slope_energy(v - h * e, p)) / (2 * h)
              for e in np.eye(3)]
    want_p = (slope_energy(v, p + h) - slope_energy(v, p - h)) / (2 * h)
    np.testing.assert_allclose(v_bar, want_v, rtol=1e-6)
    assert p_bar == pytest.approx(want_p, rel=1e-6)
    # the python backend's answer, which keeps the last second-order pass instead
    v_bar_python = np.zeros(3)
    (_, p_bar_python) = srcad.autodiff(srcad.Reverse, slope_energy,
                                       srcad.Duplicated(v, v_bar_python), srcad.Active(p))
    np.testing.assert_allclose(v_bar, v_bar_python, rtol=1e-12)
    assert p_bar == pytest.approx(p_bar_python, rel=1e-12)
