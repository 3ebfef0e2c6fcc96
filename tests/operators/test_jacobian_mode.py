"""The mode `jacobian` picks without `mode=` follows the cost model of
srcad/operators/jacobian_mode.py: forward while n <= ratio * m, the ratio per backend and
per form of f's forward lanes (python 8 and numba 4 for code written element by element, whose
lanes are stacked; 2 and 1 for whole-array code, whose lanes are unrolled chunks); reverse
with a checkpointing budget; `mode=` as given. The structure is tested, not the timing: the
choice at each side of the boundaries, and the same jacobian from both modes (against
central differences)."""

import math

import numpy as np
import pytest
from helpers.differences import central

import srcad
from srcad import Constant, Output
from srcad.operators.jacobian_mode import FORWARD_RATIO, default_mode


def element_loops(y, x):
    """Each output reads four inputs, element by element (stacked forward lanes)."""
    n = x.shape[0]
    for i in range(y.shape[0]):
        a = x[(5 * i) % n]
        y[i] = math.sin(a) * x[(5 * i + 1) % n] + math.exp(-a * a) * x[(7 * i + 3) % n] \
            + x[n - 1 - i] ** 2


def element_values(x, m):
    y = np.zeros(m)
    element_loops(y, x)
    return y


def whole_array(x, A):
    """Whole-array NumPy (unrolled forward lanes)."""
    return np.tanh(A @ np.sin(x)) * np.sum(x * x)


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("form", ["stacked", "unrolled"])
def test_the_model_picks_forward_up_to_its_ratio(backend, form):
    ratio = FORWARD_RATIO[backend][form]
    for m in (1, 3, 40):
        assert default_mode(ratio * m, m, backend, form) == "forward"
        assert default_mode(ratio * m + 1, m, backend, form) == "reverse"


def test_a_checkpointing_budget_means_reverse():
    assert default_mode(2, 10, "python", "stacked", memory="50MB") == "reverse"
    assert default_mode(2, 10, "numba", memory=10**6) == "reverse"


def test_the_ratios_are_at_least_one():
    """Forward mode of no more inputs than outputs is never slower (every measured shape)."""
    assert all(r >= 1 for ratios in FORWARD_RATIO.values() for r in ratios.values())


@pytest.mark.parametrize("m", [3, 5])
def test_element_code_on_python_is_forward_up_to_eight_inputs_per_output(m):
    ratio = FORWARD_RATIO["python"]["stacked"]
    for n, want in ((ratio * m, "forward"), (ratio * m + 1, "reverse")):
        x = np.random.default_rng(n).uniform(0.2, 1.3, n)
        y = np.zeros(m)
        prep = srcad.prepare_jacobian(element_loops, Output(y), x)
        assert prep.mode == want
        J = srcad.jacobian(element_loops, Output(y), x, prep=prep)
        other = srcad.jacobian(element_loops, Output(np.zeros(m)), x,
                               mode="reverse" if want == "forward" else "forward")
        np.testing.assert_allclose(J, other, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(J, central(element_values, x, m), rtol=1e-7, atol=1e-9)


def test_whole_array_code_on_python_is_forward_up_to_two_inputs_per_output():
    m = 4
    ratio = FORWARD_RATIO["python"]["unrolled"]
    for n, want in ((ratio * m, "forward"), (ratio * m + 1, "reverse"),
                    (FORWARD_RATIO["python"]["stacked"] * m, "reverse")):
        rng = np.random.default_rng(n)
        x, A = rng.standard_normal(n), rng.standard_normal((m, n))
        prep = srcad.prepare_jacobian(whole_array, x, Constant(A))
        assert prep.mode == want
        J = srcad.jacobian(whole_array, x, Constant(A), prep=prep)
        other = srcad.jacobian(whole_array, x, Constant(A),
                               mode="reverse" if want == "forward" else "forward")
        np.testing.assert_allclose(J, other, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(J, central(whole_array, x, A), rtol=1e-7, atol=1e-9)


@pytest.mark.slow  # numba compiles each engine
def test_on_numba_element_code_is_forward_up_to_four_and_whole_array_code_up_to_one():
    m = 3
    cases = [(element_loops, FORWARD_RATIO["numba"]["stacked"] * m, "forward"),
             (element_loops, FORWARD_RATIO["numba"]["stacked"] * m + 1, "reverse"),
             (whole_array, FORWARD_RATIO["numba"]["unrolled"] * m, "forward"),
             (whole_array, FORWARD_RATIO["numba"]["unrolled"] * m + 1, "reverse")]
    for f, n, want in cases:
        rng = np.random.default_rng(n)
        x = rng.uniform(0.2, 1.3, n)
        args = (Output(np.zeros(m)), x) if f is element_loops else \
            (x, Constant(rng.standard_normal((m, n))))
        prep = srcad.prepare_jacobian(f, *args, backend="numba")
        assert prep.mode == want, (f.__name__, n)
        J = srcad.jacobian(f, *args, prep=prep)
        other = srcad.jacobian(f, *args, backend="numba",
                               mode="reverse" if want == "forward" else "forward")
        np.testing.assert_allclose(J, other, rtol=1e-12, atol=1e-13)


def test_an_explicit_mode_is_kept():
    m, x = 3, np.linspace(0.3, 1.1, 6)
    assert srcad.prepare_jacobian(element_loops, Output(np.zeros(m)), x,
                                  mode="reverse").mode == "reverse"
    wide = np.linspace(0.3, 1.1, 40)
    assert srcad.prepare_jacobian(element_loops, Output(np.zeros(m)), wide,
                                  mode="forward").mode == "forward"
    assert srcad.prepare_jacobian(element_loops, Output(np.zeros(m)), x,
                                  memory="50MB").mode == "reverse"


def test_chunk_without_mode_is_refused_where_the_model_picks_reverse():
    wide = np.linspace(0.3, 1.1, 40)  # 40 inputs, 3 outputs
    with pytest.raises(srcad.SrcadError, match="reverse"):
        srcad.jacobian(element_loops, Output(np.zeros(3)), wide, chunk=4)
    x = np.linspace(0.3, 1.1, 9)  # 3 inputs per output
    prep = srcad.prepare_jacobian(element_loops, Output(np.zeros(3)), x, chunk=20)
    assert (prep.mode, prep.chunk) == ("forward", 20)


def pair_of_leaves(p):
    return np.array([p["a"][0] * p["b"][1], np.sin(p["a"][1]) + p["a"][0] * p["b"][0]])


@pytest.mark.parametrize("unused, want", [(0, "forward"), (1, "reverse")])
def test_a_container_jacobian_takes_the_models_unrolled_ratio(monkeypatch, unused, want):
    """A container x runs chunks of unrolled forward lanes or one reverse sweep a row: forward
    while it holds at most FORWARD_RATIO["python"]["unrolled"] floats per output (2 outputs
    of 4 floats, and of 5 with an unused leaf)."""
    from srcad.operators.containers import container_operators
    sweeps = []
    reverse = container_operators._Runner.reverse
    monkeypatch.setattr(container_operators._Runner, "reverse",
                        lambda self, *a: sweeps.append(1) or reverse(self, *a))
    p = {"a": np.array([0.4, 1.1]), "b": np.array([0.3, 2.0]), "c": np.ones(unused)}
    J = srcad.jacobian(pair_of_leaves, p)
    assert bool(sweeps) == (want == "reverse")
    expected = central(lambda v: pair_of_leaves({"a": v[:2], "b": v[2:]}),
                       np.concatenate([p["a"], p["b"]]))
    np.testing.assert_allclose(np.concatenate([J["a"], J["b"]], axis=1), expected, rtol=1e-7,
                               atol=1e-9)
    np.testing.assert_array_equal(J["c"], np.zeros((2, unused)))
