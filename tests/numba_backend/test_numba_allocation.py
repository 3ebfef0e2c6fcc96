"""A prepared call with the numba backend allocates nothing per call beyond its results (issue
5): tapes, lane arrays and the workspace (hoisted arrays, lanes-last copies) are kept across
calls. Counted with numba's own allocation statistics (NRT): numba wraps every array argument
in one allocated MemInfo when a call unboxes it, so a call of the generated function that
allocates nothing itself counts exactly one allocation per array it is passed."""

import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.seed_problems import seed002, seed002_value_and_jacobian

import srcad

nrt = pytest.importorskip("numba.core.runtime._nrt_python")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from mixture import make_problem, mixture_gradient_numpy, mixture_loglikelihood  # noqa: E402


@pytest.fixture
def counting():
    """Calls -> allocations per call, NRT statistics switched on for the test."""
    was_on = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()

    def per_call(call, calls=5):
        call()
        call()  # a first call may grow the tapes and the workspace
        before = nrt.memsys_get_stats_alloc()
        for _ in range(calls):
            call()
        return (nrt.memsys_get_stats_alloc() - before) / calls

    yield per_call
    if not was_on:
        nrt.memsys_disable_stats()


def arrays_passed(engine) -> int:
    return sum(isinstance(v, np.ndarray) for v in engine.flat)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_prepared_mixture_gradient_allocates_nothing(counting, mode):
    """The mixture hoists per-component values into arrays (numba backend): they and their
    derivatives live in the workspace."""
    params, data = make_problem(200, 4)
    out = np.zeros_like(params)
    prep = srcad.prepare_gradient(mixture_loglikelihood, params, srcad.Constant(data),
                                  mode=mode, backend="numba")
    assert "work" in prep.engine.compiled.tapes  # the workspace is in use

    def call():
        srcad.gradient(mixture_loglikelihood, params, srcad.Constant(data), prep=prep, out=out)

    calls = -(-params.size // prep.chunk) if mode == "forward" else 1
    assert counting(call) == calls * arrays_passed(prep.engine)
    np.testing.assert_allclose(out, mixture_gradient_numpy(params, data), rtol=1e-10)


def test_repeated_autodiff_calls_allocate_nothing(counting):
    params, data = make_problem(200, 4)
    shadow = np.zeros_like(params)

    def call():
        shadow.fill(0.0)
        srcad.autodiff(srcad.Reverse, mixture_loglikelihood, srcad.Duplicated(params, shadow),
                       data, backend="numba")

    # params, its shadow, data, the tape and the workspace
    assert counting(call) == 5
    grad = mixture_gradient_numpy(params, data)
    np.testing.assert_allclose(shadow, grad, rtol=1e-10)
    # forward mode, one direction: params, its tangent, data and the workspace
    direction = np.linspace(-1.0, 1.0, params.size)
    tangents = []
    assert counting(lambda: tangents.append(srcad.autodiff(
        srcad.Forward, mixture_loglikelihood, srcad.Duplicated(params, direction), data,
        backend="numba"))) == 4
    assert tangents[-1] == pytest.approx(float(grad @ direction), rel=1e-10)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_prepared_inplace_jacobian_allocates_nothing(counting, mode):
    """Seed 002, in place with a Cache: reverse mode runs W rows per sweep (batched reverse
    mode, 40 rows in one sweep of 40 lanes), forward mode W columns per call."""
    n = 40
    rng = np.random.default_rng(5)
    y, c, J, x = np.zeros(n), np.zeros(n), np.zeros((n, n)), rng.random(n)
    prep = srcad.prepare_jacobian(seed002, srcad.Output(y), x, srcad.Cache(c), mode=mode,
                                  backend="numba")

    def call():
        srcad.jacobian(seed002, srcad.Output(y), x, srcad.Cache(c), prep=prep, out=J)

    assert mode == "forward" or prep.state["batched"]
    calls = -(-n // prep.chunk)
    assert counting(call) == calls * arrays_passed(prep.engine)
    np.testing.assert_allclose(J, seed002_value_and_jacobian(x)[1], rtol=1e-12, atol=1e-12)


def test_batched_reverse_autodiff_allocates_nothing_but_its_arguments(counting):
    """W cotangents per sweep on numba: the lane shadows, the seed, the workspace of adjoint
    floats' lanes and the tape are passed; the code allocates nothing itself."""
    n, width = 40, 4
    rng = np.random.default_rng(5)
    x = rng.random(n)
    y_shadows = [np.eye(n)[k] for k in range(width)]
    x_shadows = [np.zeros(n) for _ in range(width)]

    def call():
        for s in x_shadows:
            s.fill(0.0)
        for k, s in enumerate(y_shadows):
            s[:] = np.eye(n)[k]
        srcad.autodiff(srcad.Reverse, seed002, srcad.BatchDuplicated(np.zeros(n), y_shadows),
                       srcad.BatchDuplicated(x, x_shadows),
                       srcad.BatchDuplicated(np.zeros(n), [np.zeros(n)] * width),
                       backend="numba")

    # y, its lanes, x, its lanes, c, its lanes, the seed, the workspace, the tape
    assert counting(call) == 9
    J = seed002_value_and_jacobian(x)[1]
    np.testing.assert_allclose(np.array(x_shadows), J[:width], rtol=1e-12, atol=1e-12)
