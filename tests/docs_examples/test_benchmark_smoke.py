"""The benchmark suite's modules import, and its array problem is right at a tiny size: the
hand-written NumPy gradients (the references every contender is checked against) agree with
central differences, srcad's reverse mode agrees with them, and the RNN tape measurement counts
what the generated code keeps. Nothing here times anything."""

import importlib
import pathlib
import sys

import numpy as np
import pytest

import srcad

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    saved = list(sys.path)
    sys.path.insert(0, str(BENCHMARKS))  # the suite's modules import each other by name
    try:
        yield importlib.import_module("problem_arrays")
    finally:
        sys.path[:] = saved
        # the suite's `run`, `report`, ... leave: other tests import fuzz/run.py as `run`
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", "") or "").startswith(str(BENCHMARKS)):
                del sys.modules[name]


def central_differences(f, args, active, h=1e-6):
    parts = []
    for i in active:
        grad = np.zeros(args[i].size)
        for k in range(args[i].size):
            up = [a.copy() for a in args]
            down = [a.copy() for a in args]
            up[i].flat[k] += h
            down[i].flat[k] -= h
            grad[k] = (f(*up) - f(*down)) / (2 * h)
        parts.append(grad)
    return np.concatenate(parts)


def test_every_benchmark_module_imports(bench):
    for name in ("harness", "prepared", "problem_mixture", "problem_vector", "problem_jacobian",
                 "problem_transform", "problem_arrays", "problem_parallel", "problem_special",
                 "problem_first_derivative", "report", "run"):
        importlib.import_module(name)


def test_array_references_and_srcad_agree_at_a_tiny_size(bench):
    for key, _, f, args, reference, active in bench.problems(bench.TINY_SIZES):
        ref = reference(*args)
        np.testing.assert_allclose(ref, central_differences(f, args, active), rtol=1e-6,
                                   atol=1e-8, err_msg=key)
        shadows = {i: np.zeros_like(args[i]) for i in active}
        srcad.autodiff(srcad.Reverse, f, *[srcad.Duplicated(a, shadows[i]) if i in shadows
                                           else a for i, a in enumerate(args)])
        np.testing.assert_allclose(np.concatenate([s.ravel() for s in shadows.values()]), ref,
                                   rtol=1e-10, atol=1e-12, err_msg=key)


def test_special_likelihood_reference_and_srcad_agree_at_a_tiny_size(bench):
    special = importlib.import_module("problem_special")
    theta, a, y = special.make_problem(30, 3)
    ref = special.hand_gradient(theta, a, y)
    np.testing.assert_allclose(ref, central_differences(
        special.negative_log_likelihood, [theta, a, y], [0]), rtol=1e-6)
    ours = srcad.gradient(special.negative_log_likelihood, theta, srcad.Constant(a),
                          srcad.Constant(y))
    np.testing.assert_allclose(ours, ref, rtol=1e-10)


def test_rnn_tape_measurement_counts_the_hidden_states(bench):
    key, _, f, args, reference, active = bench.problems(bench.TINY_SIZES)[-1]
    assert key == "rnn"
    T, H = args[2].shape[0], args[0].shape[0]
    tape = bench.measure_tape(srcad, f, args, active, reference)
    assert tape["err"] <= 1e-12
    # one new hidden state per step (h0 is the caller's), each of H float64s
    assert tape["arrays kept"] == T and tape["bytes kept"] == T * H * 8
    assert tape["steps"] == T and tape["pushes"] >= T


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_a_refused_contender_is_a_row_saying_why(bench):
    harness = importlib.import_module("harness")
    cfg = harness.Config(True, repeats=1, min_sample=0.0, warmup=0, budget=0.0, large_repeats=1,
                         large_warmup=0, fresh_transforms=1)
    suite = harness.Suite(cfg)
    key, case, f, args, reference, active = bench.problems(bench.TINY_SIZES)[-1]
    for name, backend in ((bench.SRCAD_PY, "python"), (bench.SRCAD_NUMBA, "numba")):
        harness.run_case(suite, bench.S5, case, name,
                         bench.srcad_reverse(srcad, f, args, active, backend),
                         ref=reference(*args))
    python, numba = suite.rows
    assert python.ok and python.err <= 1e-12
    # numba's reverse mode of array code: either right, or a row naming the refused line
    assert numba.ok and numba.err <= 1e-12 or (
        numba.status.startswith("skipped (refused: array_kernels.py:") and "numba" in numba.status
    ), numba.status


def test_first_derivative_cells_check_the_answer_and_replace_their_section(bench, monkeypatch,
                                                                          tmp_path):
    first = importlib.import_module("problem_first_derivative")
    harness = importlib.import_module("harness")
    problem = "mixture gradient, N=500, K=4"
    suite = harness.Suite(harness.QUICK)
    first.section_first_derivative(suite, srcad, problems=[problem], tools=("srcad python",))
    cells = suite.extra["first derivative"][problem, "srcad python"]
    assert cells["cold"]["status"] == "ok" and cells["warm"]["status"] == "ok", cells
    assert 0 < cells["cold"]["cpu"] and 0 < cells["cold"]["wall"]
    # a reference the answer does not match: the cell says so and is not timed
    wrong = first._PROBLEMS[problem].replace("tolerance = 1e-5", "reference = reference + 1.0\n"
                                             "tolerance = 1e-5")
    monkeypatch.setitem(first._PROBLEMS, problem, wrong)
    assert first._measure("srcad python", problem, "")["status"].startswith("DISAGREES")
    monkeypatch.syspath_prepend(str(BENCHMARKS / "gradbench"))  # as run.py has it
    page = "# Benchmarks\n\n## 10. other\n\ntext\n"
    path = tmp_path / "benchmarks.md"
    path.write_text(page)
    first.update_page(path, suite)
    once = path.read_text()
    assert once.startswith(page.rstrip("\n")) and first.START in once and problem in once
    first.update_page(path, suite)
    assert path.read_text() == once  # replaced, not appended again
