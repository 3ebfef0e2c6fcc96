"""parallel=True on the operators and their preparations: every first-order operator of a sum
over rows gives what parallel=False gives (to 1e-12) and what the hand-derived gradient gives;
the second-order operators, jacobian of a float, memory= with parallel=True and memory= where
no reverse pass runs are refused, naming the operator."""

import helpers.row_sum_problems as problems
import numpy as np
import pytest

import srcad
import srcad.scale.parallel

pytest.importorskip("numba")

f = problems.mixture_loglikelihood


@pytest.fixture(autouse=True)
def three_chunks(monkeypatch):
    """Three chunks of uneven size whatever the machine's thread count."""
    monkeypatch.setattr(srcad.scale.parallel, "thread_count", lambda: 3)


@pytest.fixture(scope="module")
def problem():
    params, data = problems.make_problem(301, 2)
    return params, data, problems.mixture_gradient_numpy(params, data)


def relative(a, b):
    return np.max(np.abs(np.asarray(a) - b) / np.maximum(np.abs(b), 1e-300))


def test_pullback_of_a_row_sum_runs_in_chunks(problem):
    params, data, expected = problem
    serial = srcad.pullback(f, params, srcad.Constant(data), cotangent=2.5, backend="numba")
    parallel = srcad.pullback(f, params, srcad.Constant(data), cotangent=2.5, backend="numba",
                              parallel=True)
    assert relative(parallel, serial) < 1e-12
    assert relative(parallel, 2.5 * expected) < 1e-10
    prep = srcad.prepare_pullback(f, params, srcad.Constant(data), cotangent=1.0,
                                  backend="numba", parallel=True)
    assert len(prep.preps) == 3  # one preparation (buffers, tapes) per chunk of rows
    out = np.zeros_like(params)
    moved = params * 1.1
    result = srcad.pullback(f, moved, srcad.Constant(data), cotangent=-1.0, prep=prep, out=out)
    assert result is out
    assert relative(out, -problems.mixture_gradient_numpy(moved, data)) < 1e-10
    with pytest.raises(srcad.PreparationMismatchError, match="prepares pullback, not gradient"):
        srcad.gradient(f, params, srcad.Constant(data), prep=prep)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_pushforward_and_derivative_of_a_row_sum_run_in_chunks(problem):
    params, data, expected = problem
    v, w = np.linspace(-1.0, 1.0, params.size), np.ones(params.size)
    serial = srcad.pushforward(f, params, srcad.Constant(data), tangent=v, backend="numba")
    parallel = srcad.pushforward(f, params, srcad.Constant(data), tangent=v, backend="numba",
                                 parallel=True)
    assert relative(parallel, serial) < 1e-12 and relative(parallel, expected @ v) < 1e-10
    both = srcad.pushforward(f, params, srcad.Constant(data), tangent=(v, w), backend="numba",
                             parallel=True)
    assert relative(np.array(both), [expected @ v, expected @ w]) < 1e-10
    # derivative: a float x (the scalar parameter a of power_sums)
    rng = np.random.default_rng(3)
    x, p, a = rng.uniform(-1.0, 1.0, 100), rng.standard_normal(4), 1.5
    d_a = problems.power_sums_gradient(a, p, x)[0]
    args = (problems.power_sums, a, srcad.Constant(p), srcad.Constant(x))
    serial = srcad.derivative(*args, backend="numba")
    prep = srcad.prepare_derivative(*args, backend="numba", parallel=True)
    parallel = srcad.derivative(*args, prep=prep)
    assert relative(parallel, serial) < 1e-12 and relative(parallel, d_a) < 1e-12


def test_gradient_takes_the_data_as_a_keyword_of_f(problem):
    params, data, expected = problem
    grad = srcad.gradient(f, params, data=data, backend="numba", parallel=True)
    assert relative(grad, expected) < 1e-10
    # parallel=False is the ordinary call, whatever the backend
    serial = srcad.gradient(f, params, srcad.Constant(data), parallel=False)
    assert relative(serial, expected) < 1e-10


@pytest.mark.parametrize("operator, extra", [
    ("hvp", {"tangent": np.ones(6)}), ("hessian", {}), ("prepare_hessian", {}),
    ("prepare_hvp", {"tangent": np.ones(6)})])
def test_second_order_operators_refuse_parallel_naming_themselves(problem, operator, extra):
    params, data, _ = problem
    with pytest.raises(srcad.ArgumentError, match=f"; {operator.removeprefix('prepare_')} "
                       r"\(second order\) does not run in chunks"):
        getattr(srcad, operator)(f, params, srcad.Constant(data), parallel=True, **extra)
    with pytest.raises(srcad.ArgumentError, match=r"second_derivative \(second order\)"):
        srcad.second_derivative(problems.power_sums, 1.0, srcad.Constant(np.ones(2)),
                                srcad.Constant(np.ones(3)), parallel=True)


def test_refusals_of_parallel_on_the_operators(problem):
    params, data, _ = problem
    with pytest.raises(srcad.ArgumentError, match="jacobian needs an array output"):
        srcad.jacobian(f, params, srcad.Constant(data), backend="numba", parallel=True)
    with pytest.raises(srcad.ArgumentError, match="pullback was given backend='python'"):
        srcad.pullback(f, params, srcad.Constant(data), cotangent=1.0, parallel=True)
    with pytest.raises(srcad.ArgumentError, match=r"parallel=True together are not supported "
                       r"\(gradient\)"):
        srcad.gradient(f, params, srcad.Constant(data), backend="numba", parallel=True,
                       memory="1MB")
    with pytest.raises(srcad.ArgumentError, match="must be passed as Constant"):
        srcad.pushforward(f, params, data, tangent=np.ones(6), backend="numba", parallel=True)
    with pytest.raises(srcad.scale.row_sums.RowSumError,
                       match="pullback with parallel=True needs f "
                       "to be a sum over the rows") as caught:
        srcad.pullback(problems.carried, np.ones(1), srcad.Constant(np.ones(5)), cotangent=1.0,
                       backend="numba", parallel=True)
    assert caught.value.line == 73


@pytest.mark.parametrize("operator, extra", [
    ("pushforward", {"tangent": np.ones(2)}), ("prepare_pushforward", {"tangent": np.ones(2)}),
    ("derivative", {}), ("hvp", {"tangent": np.ones(2)}), ("hessian", {}),
    ("second_derivative", {}), ("prepare_second_derivative", {})])
def test_memory_is_refused_where_no_reverse_pass_runs(operator, extra):
    def g(x):
        return x * x if isinstance(x, float) else x[0] * x[1]

    x = 2.0 if "derivative" in operator else np.ones(2)
    name = operator.removeprefix("prepare_")
    with pytest.raises(srcad.ArgumentError, match=f"memory= bounds the tape of reverse mode, "
                       f"and {name} runs (forward mode|srcad's second order)"):
        getattr(srcad, operator)(g, x, memory="1MB", **extra)
    with pytest.raises(srcad.ArgumentError, match="srcad.forward runs forward mode"):
        srcad.forward(g, memory="1MB")
