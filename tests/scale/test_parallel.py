"""parallel=True: a sum over the rows of a data argument runs chunks of rows on numba's
threads and gives what parallel=False gives (up to the order of the additions); functions that
are not such sums are refused, naming the line."""

import helpers.row_sum_problems as problems
import numpy as np
import pytest

import srcad
import srcad.scale.parallel
from srcad.scale.row_sums import RowSumError

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def three_chunks(monkeypatch):
    """Three chunks of uneven size whatever the machine's thread count."""
    monkeypatch.setattr(srcad.scale.parallel, "thread_count", lambda: 3)


def relative(a, b):
    return np.max(np.abs(np.asarray(a) - b) / np.maximum(np.abs(b), 1e-300))


def test_mixture_gradient_parallel_equals_serial_and_the_analytic_gradient():
    params, data = problems.make_problem(1001, 3)
    serial, parallel = np.zeros_like(params), np.zeros_like(params)
    _, value = srcad.autodiff(srcad.ReverseWithPrimal, problems.mixture_loglikelihood,
                              srcad.Duplicated(params, serial), data, backend="numba")
    parallel += 1.0  # the chunks' adjoints are added into the shadow, as in serial calls
    _, parallel_value = srcad.autodiff(
        srcad.ReverseWithPrimal, problems.mixture_loglikelihood,
        srcad.Duplicated(params, parallel), data, backend="numba", parallel=True)
    assert relative(parallel - 1.0, serial) < 1e-12
    assert relative(parallel_value, value) < 1e-12
    assert relative(serial, problems.mixture_gradient_numpy(params, data)) < 1e-10
    # the decorator takes the option too
    grad = np.zeros_like(params)
    srcad.reverse(problems.mixture_loglikelihood, backend="numba", parallel=True)(
        srcad.Duplicated(params, grad), data)
    assert relative(grad, serial) < 1e-12


def test_rows_of_a_matrix_with_a_branch_reverse_and_forward():
    rng = np.random.default_rng(1)
    X, p = rng.standard_normal((200, 3)), rng.standard_normal(3)
    expected = problems.hinge_rows_gradient(p, X)
    grad = np.zeros(3)
    srcad.autodiff(srcad.Reverse, problems.hinge_rows, srcad.Duplicated(p, grad), X,
                   backend="numba", parallel=True)
    assert relative(grad, expected) < 1e-12
    direction = rng.standard_normal(3)
    tangent, value = srcad.autodiff(srcad.ForwardWithPrimal, problems.hinge_rows,
                                    srcad.Duplicated(p, direction), X, backend="numba",
                                    parallel=True)
    assert relative(tangent, expected @ direction) < 1e-12
    assert relative(value, problems.hinge_rows(p, X)) < 1e-12


def test_a_sum_inside_an_inner_loop_with_a_scalar_parameter():
    rng = np.random.default_rng(2)
    x, p, a = rng.uniform(-1.0, 1.0, 100), rng.standard_normal(4), 1.5
    d_a, d_p = problems.power_sums_gradient(a, p, x)
    grad = np.zeros(4)
    out = srcad.autodiff(srcad.Reverse, problems.power_sums, srcad.Active(a),
                         srcad.Duplicated(p, grad), x, backend="numba", parallel=True)
    assert relative(out[0], d_a) < 1e-12 and out[1:] == (None, None)
    assert relative(grad, d_p) < 1e-12


@pytest.mark.parametrize("name, line, says", [
    ("carried", 73, "loop-carried dependence"),
    ("writes_next", 80, "writes an element of `out`"),
    ("uses_index", 88, "row index `n`"),
    ("rescales_total", 95, "loop-carried dependence"),
    ("mean", 103, "`return total` alone"),
    ("stops_early", 110, "`break`"),
    ("assigned_in_branch", 120, "outside the block that assigns it"),
    ("running_buffer", 125, "writes an element of `buffer`"),
    ("aliased_buffer", 142, "writes an element of `alias`"),
])
def test_what_is_not_a_sum_over_rows_is_refused_at_its_line(name, line, says):
    f = getattr(problems, name)
    args = [np.ones(1), np.ones(5)] + ([np.zeros(6)] if name == "writes_next" else [])
    with pytest.raises(RowSumError) as caught:
        srcad.autodiff(srcad.Reverse, f, srcad.Duplicated(args[0], np.zeros(1)), *args[1:],
                       backend="numba", parallel=True)
    assert caught.value.line == line and says in caught.value.message
    assert caught.value.filename == problems.__file__


def test_parallel_needs_numba_and_constant_data():
    params, data = problems.make_problem(10, 2)
    dup = srcad.Duplicated(params, np.zeros_like(params))
    with pytest.raises(srcad.ArgumentError, match="backend='numba'"):
        srcad.autodiff(srcad.Reverse, problems.mixture_loglikelihood, dup, data, parallel=True)
    with pytest.raises(srcad.ArgumentError, match="must be a constant"):
        srcad.autodiff(srcad.Reverse, problems.mixture_loglikelihood, dup,
                       srcad.Duplicated(data, np.zeros_like(data)), backend="numba",
                       parallel=True)


def test_chunks_cover_the_rows_once():
    assert srcad.scale.parallel.chunk_bounds(10, 3) == [(0, 3), (3, 6), (6, 10)]
    assert srcad.scale.parallel.chunk_bounds(2, 4) == [(0, 1), (1, 2)]
    assert srcad.scale.parallel.chunk_bounds(0, 4) == [(0, 0)]


def test_gradient_operators_take_parallel():
    params, data = problems.make_problem(500, 2)
    f = problems.mixture_loglikelihood
    expected = problems.mixture_gradient_numpy(params, data)
    prep = srcad.prepare_gradient(f, params, srcad.Constant(data), backend="numba",
                                  parallel=True)
    assert len(prep.preps) == 3  # one preparation (buffers, tapes) per chunk of rows
    out = np.zeros_like(params)
    assert srcad.gradient(f, params, srcad.Constant(data), prep=prep, out=out) is out
    assert relative(out, expected) < 1e-10
    value, grad = srcad.value_and_gradient(f, params, srcad.Constant(data), backend="numba",
                                           parallel=True)
    assert relative(grad, out) < 1e-12 and relative(value, f(params, data)) < 1e-12
    with pytest.raises(srcad.ArgumentError, match="Constant"):
        srcad.gradient(f, params, data, backend="numba", parallel=True)
