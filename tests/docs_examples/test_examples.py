"""The runnable examples run and show what they say.

examples/scipy_minimize.py needs scipy (in the `dev` extra); this file skips only if scipy is
not installed.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load_example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_scipy_bfgs_converges_with_a_fresh_gradient_and_not_with_out(capsys):
    pytest.importorskip("scipy")
    example = load_example("scipy_minimize")
    x0 = np.linspace(-0.5, 0.5, 10)
    for run in (example.minimize_right, example.minimize_right_one_callback):
        result = run(x0)
        assert result.success, result.message
        np.testing.assert_allclose(result.x, np.ones(10), atol=1e-6)  # the minimum is x = 1
    # the pitfall the example warns about: BFGS keeps the returned array, out= overwrites it
    aliased = example.minimize_aliased(x0)
    assert not aliased.success and np.max(np.abs(aliased.x - 1.0)) > 1e-2
    example.main()
    printed = capsys.readouterr().out
    assert printed.count("converged: True") == 2 and "converged: False" in printed


# Each of these examples compares its derivative with central finite differences, a closed form
# derived by hand, or scipy's own fit, asserts the agreement and returns the difference it found.
CHECKED_EXAMPLES = {
    "ode_sensitivity": ("max relative difference", 1e-6),
    "stiff_implicit": ("hand-derived one", 1e-12),
    "newton_solver": ("from finite differences", 1e-6),
    "logistic_regression": ("closed-form gradient", 1e-12),
    "rnn": ("from finite differences", 1e-5),
    "springs": ("max relative difference", 1e-6),
    "max_likelihood": ("finite differences of the gradient", 1e-6),
    "custom_rule": ("from finite differences", 1e-6),
    "negative_binomial": ("from finite differences", 1e-6),
    "gamma_fit": ("from finite differences", 1e-6),
}


@pytest.mark.parametrize("name", sorted(CHECKED_EXAMPLES))
def test_example_runs_and_its_derivative_matches_the_reference(name, capsys):
    if name in ("max_likelihood", "negative_binomial", "custom_rule", "gamma_fit"):
        pytest.importorskip("scipy")
    phrase, tolerance = CHECKED_EXAMPLES[name]
    error = load_example(name).main()
    printed = capsys.readouterr().out
    assert error < tolerance
    assert phrase in printed


def test_every_example_is_run_by_a_test():
    tested = set(CHECKED_EXAMPLES) | {"scipy_minimize", "mixture", "operators", "dask_mixture",
                                      "lotka_volterra_fit", "optimizer_path",
                                      "jacobian_sparsity"}  # test_figure_examples.py
    assert {path.stem for path in EXAMPLES.glob("*.py")} <= tested
    assert len(tested) >= 8


def test_operators_example_runs(capsys):
    example = load_example("operators")
    example.square_jacobian()
    example.hessian_vector_product()
    printed = capsys.readouterr().out
    assert "True" in printed and "False" not in printed

@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_dask_mixture_fit_recovers_the_generating_mixture():
    pytest.importorskip("distributed")
    pytest.importorskip("scipy")
    import dask
    import helpers.row_sum_problems  # noqa: F401  (puts examples/ on sys.path: `import mixture`)

    example = load_example("dask_mixture")
    with dask.config.set(scheduler="sync"):  # no cluster: Dask's local scheduler
        data = example.generated_points(1200, 600, seed=1).persist()
        result = example.fit(data, backend="numba")
    assert result.success, result.message
    fitted, true = example.normalized(result.x), example.normalized(example.TRUE_PARAMS)
    np.testing.assert_allclose(fitted, true, atol=0.2)
