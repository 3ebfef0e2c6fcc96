"""The GradBench ports that need nested differentiation, particle and saddle, at small sizes:
srcad's outer derivative (forward and reverse, over an inner gradient named in either mode)
against central differences of primals whose inner gradient is derived by hand (no srcad), the
references against central differences, the small solves against the references, on the
python and the numba backend.
"""

import numpy as np
import pytest

from srcad.gradbench.ports import particle, saddle

VARIANTS = ("ff", "fr", "rf", "rr")
# numba compiles each variant for seconds: one per port, the one test_gradbench_ports runs
# (the nested adjoints of an outer reverse pass are tested in test_nested.py)
NUMBA_VARIANT = {"particle": "ff", "saddle": "ff"}


def backends(port, variant):
    return ("python", "numba") if NUMBA_VARIANT[port] == variant else ("python",)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_particle_derivative_every_mode_against_central_differences():
    w, h = 0.2, 1e-6
    want = (particle.naive_euler_by_hand(w + h) - particle.naive_euler_by_hand(w - h)) / (2 * h)
    assert particle.naive_euler(w) == pytest.approx(particle.naive_euler_by_hand(w), rel=1e-12)
    for outer, inner in VARIANTS:
        for backend in backends("particle", outer + inner):
            got = particle.srcad_derivative(outer, inner, backend)(w)
            assert got == pytest.approx(want, rel=1e-6), (outer + inner, backend)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_saddle_gradient_every_mode_against_central_differences():
    p1, start, h = np.array([0.6, -0.3]), np.array([1.0, 1.0]), 1e-6
    want = [(saddle.r1_cost_by_hand(p1 + h * e, start) - saddle.r1_cost_by_hand(p1 - h * e, start))
            / (2 * h) for e in np.eye(2)]
    assert saddle.r1_cost(p1, start) == pytest.approx(saddle.r1_cost_by_hand(p1, start))
    for outer, inner in VARIANTS:
        for backend in backends("saddle", outer + inner):
            got = saddle.srcad_r1_gradient(outer, inner, backend)(p1, start)
            assert got == pytest.approx(want, rel=1e-6), (outer + inner, backend)
    assert saddle.fd_check(start) < 1e-6


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("module", [particle, saddle], ids=["particle", "saddle"])
def test_small_solves_match_the_reference_on_both_backends(module):
    pytest.importorskip("jax") if module is particle else None
    evaluation = module.EVAL
    problem = evaluation.parse(evaluation.input("small"))
    if module is particle:
        assert particle.fd_check(0.2) < 1e-6
    for implementation in evaluation.implementations:
        if (implementation.tool == "srcad-python" and implementation.function in ("ff", "rr")) \
                or (implementation.tool == "srcad-numba"
                    and implementation.function == NUMBA_VARIANT[evaluation.name]):
            result = implementation.build(problem)()
            expected = evaluation.reference[implementation.function](problem)
            assert evaluation.check(implementation.function, result, expected)


def test_solver_values_run_srcads_primal_code_without_the_api_per_inner_gradient(monkeypatch):
    """The solvers' values of a function calling srcad.grad (saddle's r1_cost, particle's
    naive_euler) run srcad's generated primal code, the inner gradient inside it: srcad.grad's
    Python API is not called once per inner step, as it is when CPython runs the function."""
    import srcad
    from srcad.api import function_transforms
    from srcad.gradbench.ports.compiled_primals import srcad_primal

    p1, start = np.array([0.6, -0.3]), np.array([1.0, 1.0])
    r1 = srcad_primal(saddle.r1_cost, "python")
    euler = srcad_primal(particle.naive_euler, "python")
    r1(p1, start), euler(0.2)  # generated once
    calls = []
    real = function_transforms.grad
    monkeypatch.setattr(srcad, "grad", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert r1(p1, start) == pytest.approx(saddle.r1_cost_by_hand(p1, start), rel=1e-9)
    assert euler(0.2) == pytest.approx(particle.naive_euler_by_hand(0.2), rel=1e-9)
    assert calls == []
    saddle.r1_cost(p1, start)  # CPython: the API at every accepted step
    assert len(calls) > 10
